/* scene_model_glow.c - a glow sprite (GoldSrc's rendermode 3) as the engine draws it
 * (docs/models.md; Xash3D's R_SpriteOccluded and R_SpriteGlowBlend, after GoldSrc): scaled with
 * its distance so that it keeps its size on screen, faded with the distance's square, and hidden
 * when its centre is off the frame or the level stands between it and the eye (a trace against
 * the resident chunks' faces, on the CPU, so that a shot shows it in its one frame). */
#include "scene_internal.h"

#define GLOW_SIZE_DISTANCE 200.0f      /* units: a glow is drawn at its own scale this far away */
#define GLOW_FALLOFF 19000.0f          /* units²: the fade is this over the distance squared, */
#define GLOW_FADE_MIN 0.05f            /* held to this at least */
#define GLOW_TRACE_SLACK 8.0f          /* units: a trace that stops nearer the centre still sees it */
#define BOX_SLACK 1e-4f                /* metres: a face in a box's side plane is inside it */

/* Whether the segment o + t d, t in [0, before), crosses the box [lo, hi]. */
static bool segment_box(const float o[3], const float d[3], const float lo[3], const float hi[3], float before)
{
    float t0 = 0, t1 = before;
    for (int k = 0; k < 3; k++) {
        float a = lo[k] - BOX_SLACK, b = hi[k] + BOX_SLACK;
        if (d[k] == 0) {
            if (o[k] < a || o[k] > b)
                return false;
            continue;
        }
        float ta = (a - o[k]) / d[k], tb = (b - o[k]) / d[k];
        t0 = fmaxf(t0, fminf(ta, tb));
        t1 = fminf(t1, fmaxf(ta, tb));
    }
    return t0 <= t1;
}

/* Where the segment o + t d meets triangle p0 p1 p2 from either side: t, or INFINITY. */
static float segment_triangle(const float o[3], const float d[3], const float p0[3], const float p1[3], const float p2[3])
{
    vec3 e1, e2, pv, tv, qv;
    glm_vec3_sub((float *)p1, (float *)p0, e1);
    glm_vec3_sub((float *)p2, (float *)p0, e2);
    glm_vec3_cross((float *)d, e2, pv);
    float det = glm_vec3_dot(e1, pv);
    if (fabsf(det) < 1e-12f)
        return INFINITY;
    glm_vec3_sub((float *)o, (float *)p0, tv);
    float u = glm_vec3_dot(tv, pv) / det;
    if (u < 0 || u > 1)
        return INFINITY;
    glm_vec3_cross(tv, e1, qv);
    float v = glm_vec3_dot((float *)d, qv) / det, t = glm_vec3_dot(e2, qv) / det;
    return v < 0 || u + v > 1 || t < 0 ? INFINITY : t;
}

/* Whether a face of the material stops the trace: liquids and translucent faces do not, as the
 * engine's trace passes through water and glass (PM_GLASS_IGNORE). */
static bool material_stops(const scene *s, uint32_t material)
{
    if (material >= s->lvl.common.material_count)
        return true;
    const pmf_material *m = &s->lvl.common.materials[material];
    return !(m->flags & (PMF_MATERIAL_TRANSPARENT | PMF_MATERIAL_LIQUID)) && m->render_mode != PMF_RENDMODE_ADD;
}

/* The nearest face of the chunk the segment o + t d (the chunk's frame) meets before *before, into it. */
static void trace_chunk(const scene *s, const mesh_chunk *mc, const float o[3], const float d[3], float *before)
{
    if (mc->min[0] > mc->max[0] || !segment_box(o, d, mc->min, mc->max, *before))
        return;
    for (uint32_t r = 0; r < mc->run_count; r++) {
        const mesh_run *run = &mc->runs[r];
        const mesh_batch *batch = &mc->batches[run->batch];
        const mesh_cube *cube = &mc->cubes[run->cube];
        if (batch->backfaces || !material_stops(s, batch->material) || !segment_box(o, d, cube->min, cube->max, *before))
            continue;
        for (uint32_t i = run->first_index; i + 2 < run->first_index + run->index_count; i += 3) {
            float xyz[3][3];
            for (int k = 0; k < 3; k++)
                mesh_vertex_position(mc, &mc->vertices[mc->indices[i + k]], xyz[k]);
            *before = fminf(*before, segment_triangle(o, d, xyz[0], xyz[1], xyz[2]));
        }
    }
}

/* How far (0..1) the segment from the eye to `to` (the camera's frame) goes before a face of the
 * resident chunks stops it. */
static float level_trace(const scene *s, const float to[3])
{
    const float eye[3] = { (float)s->cam.local[0], (float)s->cam.local[1], (float)s->cam.local[2] };
    const float d[3] = { to[0] - eye[0], to[1] - eye[1], to[2] - eye[2] };
    float fraction = 1;
    for (size_t i = 0; i < s->chunk_count; i++) {
        const mesh_chunk *mc = &s->chunks[i]->mc;
        const int32_t c[3] = { (int32_t)mc->coord.x, (int32_t)mc->coord.y, (int32_t)mc->coord.z };
        double off[3];
        camera_chunk_offset(&s->cam, c, off);
        const float o[3] = { (float)(eye[0] - off[0]), (float)(eye[1] - off[1]), (float)(eye[2] - off[2]) };
        trace_chunk(s, mc, o, d, &fraction);
    }
    return fraction;
}

/* The distance from the eye to `at` (the camera's frame), in units. */
static float distance_units(const scene *s, const float at[3])
{
    double sum = 0;
    for (int k = 0; k < 3; k++)
        sum += (at[k] - s->cam.local[k]) * (at[k] - s->cam.local[k]);
    return (float)(sqrt(sum) / QUAKE_METRES_PER_UNIT);
}

float scene_glow_scale(const scene *s, const float at[3])
{
    return distance_units(s, at) / GLOW_SIZE_DISTANCE;
}

bool scene_glow_shown(const scene *s, const float at[3], float *fade)
{
    float view_proj[16], clip[4];
    scene_view_proj(s, view_proj);
    for (int k = 0; k < 4; k++)
        clip[k] = view_proj[k] * at[0] + view_proj[4 + k] * at[1] + view_proj[8 + k] * at[2] + view_proj[12 + k];
    if (!(clip[3] > 0) || fabsf(clip[0]) > clip[3] || fabsf(clip[1]) > clip[3])
        return false;  /* the engine scissors a glow whose centre is off the view */
    float units = distance_units(s, at);
    if ((1 - level_trace(s, at)) * units > GLOW_TRACE_SLACK)
        return false;
    *fade = units > 0 ? fmaxf(GLOW_FADE_MIN, fminf(GLOW_FALLOFF / (units * units), 1)) : 1;
    return true;
}
