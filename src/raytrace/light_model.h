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

/* A spot's cone, for the point at to_point (dist = its length) from a light along the unit
 * axis. LIGHT_CONE_SMOOTH (pmfc's): 1 inside the inner cone, 0 outside the outer one,
 * 3t^2 - 2t^3 between. LIGHT_CONE_HLRAD (hlrad's light_spot): the cosine from the axis, falling
 * linearly in the cosine from the inner cone to nothing at the outer one. */
enum { LIGHT_CONE_SMOOTH = 0, LIGHT_CONE_HLRAD = 1, LIGHT_CONE_COUNT };

static inline float light_cone_mode(int mode, const float axis[3], float cos_inner, float cos_outer,
                                    const float to_point[3], float dist)
{
    if (!(dist > 0.0f))
        return 1.0f;
    float c = (to_point[0] * axis[0] + to_point[1] * axis[1] + to_point[2] * axis[2]) / dist;
    if (!(c > cos_outer))
        return 0.0f;
    float t = c >= cos_inner ? 1.0f : (c - cos_outer) / (cos_inner - cos_outer);
    if (mode == LIGHT_CONE_HLRAD)
        return c * t;
    return t * t * (3.0f - 2.0f * t);
}

/* How a light's strength falls with distance (docs/pmfc-lighting.md "Falloff"): pmfc's own smooth
 * curve to its range, or the games' (Quake's `delay` modes, hlrad's inverse square), each cut at
 * the light's range. */
enum {
    LIGHT_FALLOFF_SMOOTH = 0,        /* (1 - d / range)^2 */
    LIGHT_FALLOFF_LINEAR = 1,        /* 1 - d / range (Quake's delay 0: light - distance x wait) */
    LIGHT_FALLOFF_INVERSE = 2,       /* D / d (delay 1) */
    LIGHT_FALLOFF_INVERSE2 = 3,      /* (D / d)^2 (delay 2, hlrad) */
    LIGHT_FALLOFF_NONE = 4,          /* 1 (delay 3) */
    LIGHT_FALLOFF_INVERSE2A = 5,     /* (D / (d + D))^2 (delay 5) */
    LIGHT_FALLOFF_COUNT
};

/* The falloff factor at distance dist of a light of that range and reference distance D (metres;
 * the inverse modes are 1 at d = D, and held at their value at D / 4 nearer than that). */
static inline float light_falloff_mode(int mode, float dist, float range, float ref)
{
    if (!(dist < range))
        return 0.0f;
    float near = ref * 0.25f, d = dist > near ? dist : near;
    switch (mode) {
    case LIGHT_FALLOFF_LINEAR: return 1.0f - dist / range;
    case LIGHT_FALLOFF_INVERSE: return ref / d;
    case LIGHT_FALLOFF_INVERSE2: return (ref / d) * (ref / d);
    case LIGHT_FALLOFF_NONE: return 1.0f;
    case LIGHT_FALLOFF_INVERSE2A: return (ref / (dist + ref)) * (ref / (dist + ref));
    default: return light_falloff(dist / range);
    }
}

/* The cosine term: n . l, or with an angle scale a (Quake's `_anglescale`), (1 - a) + a (n . l);
 * 0 for a surface facing away. */
static inline float light_angle_term(float n_dot_l, float anglescale)
{
    if (!(n_dot_l > 0.0f))
        return 0.0f;
    return anglescale > 0.0f ? (1.0f - anglescale) + anglescale * n_dot_l : n_dot_l;
}

#endif
