/* light_model.h - the two shape functions of pmfc's light model (docs/pmfc-lighting.md), shared
 * by the baker and the viewer's light tools so a static light's term is computed one way. */
#ifndef RAYTRACE_LIGHT_MODEL_H
#define RAYTRACE_LIGHT_MODEL_H

/* falloff(x) = (1 - x)^2 for x = distance / range below 1, 0 from 1 on: 1 at the light, 0 at its
 * range with a zero slope there, so the edge of a light's reach shows no ring. */
static inline float light_falloff(float x)
{
    if (!(x < 1.0f))
        return 0.0f;
    if (x <= 0.0f)
        return 1.0f;
    float y = 1.0f - x;
    return y * y;
}

/* A spot's cone: 1 inside the inner cone, 0 outside the outer one, 3t^2 - 2t^3 between, for the
 * point at to_point (dist = its length) from a light along the unit axis. */
static inline float light_cone(const float axis[3], float cos_inner, float cos_outer, const float to_point[3], float dist)
{
    if (!(dist > 0.0f))
        return 1.0f;
    float c = (to_point[0] * axis[0] + to_point[1] * axis[1] + to_point[2] * axis[2]) / dist;
    if (c >= cos_inner)
        return 1.0f;
    if (!(c > cos_outer))
        return 0.0f;
    float t = (c - cos_outer) / (cos_inner - cos_outer);
    return t * t * (3.0f - 2.0f * t);
}

#endif
