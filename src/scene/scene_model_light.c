/* scene_model_light.c - the light an entity's model takes (docs/models.md): as Quake's
 * R_LightPoint, the luxel of the first face straight below its origin, with the dynamic lights'
 * layers on that luxel (their styles and switches applied when it is drawn, as the world's atlas
 * composites them). Found over the resident chunks of the column under the origin, once every
 * chunk of that column down to the face is resident. */
#include "scene_internal.h"

/* The chunk coordinate along axis k that holds world coordinate w (camera.c's rounding). */
static int32_t chunk_of(const scene *s, int k, float w)
{
    const double size = ldexp(1.0, s->lvl.chunk_size_exp);
    const uint32_t centre[3] = { s->lvl.center.x, s->lvl.center.y, s->lvl.center.z };
    return (int32_t)centre[k] + (int32_t)floor(w / size + 0.5);
}

/* Where the vertical ray from o (chunk-local) meets triangle a b c facing up: its distance down
 * and barycentrics, false when it misses. */
static bool ray_down(const float o[3], const float a[3], const float b[3], const float c[3], float *t, float bary[3])
{
    /* the triangle seen from above, in (x, z): a face turned up winds counter-clockwise there */
    float area = (b[2] - a[2]) * (c[0] - a[0]) - (b[0] - a[0]) * (c[2] - a[2]);
    if (!(area > 1e-12f))
        return false;
    const float *p[3] = { a, b, c };
    for (int k = 0; k < 3; k++) {
        const float *u = p[(k + 1) % 3], *v = p[(k + 2) % 3];
        bary[k] = ((v[2] - u[2]) * (o[0] - u[0]) - (v[0] - u[0]) * (o[2] - u[2])) / area;
        if (bary[k] < -1e-5f)
            return false;
    }
    float y = bary[0] * a[1] + bary[1] * b[1] + bary[2] * c[1];
    *t = o[1] - y;
    return *t >= 0;
}

typedef struct hit {
    const mesh_chunk *mc;
    uint32_t batch, first;
    float t, bary[3];
} hit;

static void hit_in_chunk(const mesh_chunk *mc, const float o[3], hit *best)
{
    if (mc->min[0] > mc->max[0] || o[0] < mc->min[0] || o[0] > mc->max[0] || o[2] < mc->min[2] || o[2] > mc->max[2]
        || o[1] < mc->min[1])
        return;
    for (uint32_t r = 0; r < mc->run_count; r++) {
        const mesh_run *run = &mc->runs[r];
        const mesh_cube *cube = &mc->cubes[run->cube];
        /* liquids are drawn two-sided: R_LightPoint passes through them too */
        if (mc->batches[run->batch].backfaces || o[0] < cube->min[0] || o[0] > cube->max[0] || o[2] < cube->min[2]
            || o[2] > cube->max[2] || o[1] < cube->min[1])
            continue;
        for (uint32_t i = run->first_index; i + 2 < run->first_index + run->index_count; i += 3) {
            float xyz[3][3], t, bary[3];
            for (int k = 0; k < 3; k++)
                mesh_vertex_position(mc, &mc->vertices[mc->indices[i + k]], xyz[k]);
            if (ray_down(o, xyz[0], xyz[1], xyz[2], &t, bary) && t < best->t)
                *best = (hit){ mc, run->batch, i, t, { bary[0], bary[1], bary[2] } };
        }
    }
}

/* The block holding the hit's lightmap place and its texel there; false when the face has none. */
static bool hit_texel(const hit *h, uint32_t *block, size_t *texel)
{
    const mesh_chunk *mc = h->mc;
    const float page = (float)mesh_atlas_page_size(mc->atlas);
    float q[2] = { 0, 0 }, centre[2] = { 0, 0 };
    for (int i = 0; i < 3; i++)
        for (int a = 0; a < 2; a++) {
            float v = mc->vertices[mc->indices[h->first + i]].lm_uv[a] * MESH_LM_UV_SCALE * page;
            q[a] += h->bary[i] * v;
            centre[a] += v / 3;
        }
    for (uint32_t b = 0; b < mc->block_count; b++) {
        const mesh_atlas_rect *r = &mc->blocks[b].rect;
        float side = (float)mesh_atlas_block_side(r);
        if (r->page != mc->batches[h->batch].page || centre[0] < r->x || centre[1] < r->y || centre[0] > r->x + side
            || centre[1] > r->y + side)
            continue;
        int lx = (int)floorf(q[0] - r->x - r->border), ly = (int)floorf(q[1] - r->y - r->border), n = (int)r->side;
        lx = lx < 0 ? 0 : lx >= n ? n - 1 : lx;
        ly = ly < 0 ? 0 : ly >= n ? n - 1 : ly;
        *block = b;
        *texel = (size_t)(ly + r->border) * mesh_atlas_block_side(r) + (size_t)(lx + r->border);
        return true;
    }
    return false;
}

static void take_luxel(const hit *h, scene_model_light *out)
{
    uint32_t b;
    size_t texel;
    if (!hit_texel(h, &b, &texel))
        return;
    const mesh_chunk *mc = h->mc;
    for (int k = 0; k < 3; k++)
        out->base[k] = mc->blocks[b].luxels[texel * 3 + k] / 255.0f;
    for (uint32_t l = 0; l < mc->layer_count && out->layer_count < SCENE_MODEL_LIGHT_LAYERS; l++) {
        const mesh_light_layer *layer = &mc->layers[l];
        if (layer->block != b)
            continue;
        const mesh_dynamic_light *light = &mc->dynamic_lights[layer->light];
        scene_model_layer *o = &out->layers[out->layer_count++];
        o->id = light->id;
        for (int k = 0; k < 3; k++)
            o->rgb[k] = layer->luxels[texel * 3 + k] / 255.0f * light->color[k] / 255.0f;
    }
}

bool scene_model_light_find(const scene *s, const float world[3], scene_model_light *out)
{
    *out = (scene_model_light){ 0 };
    int32_t c[3] = { chunk_of(s, 0, world[0]), chunk_of(s, 1, world[1]), chunk_of(s, 2, world[2]) };
    if (c[0] < 0 || c[2] < 0 || c[0] >= (int32_t)s->lvl.count_x || c[2] >= (int32_t)s->lvl.count_z)
        return true;
    const double size = ldexp(1.0, s->lvl.chunk_size_exp);
    for (c[1] = c[1] < (int32_t)s->lvl.count_y ? c[1] : (int32_t)s->lvl.count_y - 1; c[1] >= 0; c[1]--) {
        pmf_chunk_coord coord = { (uint32_t)c[0], (uint32_t)c[1], (uint32_t)c[2] };
        if (!pmf_chunk_present(s->file, s->level, coord))
            continue;
        const scene_chunk *sc = scene_find_chunk(s, c);
        if (!sc)
            return false;  /* not streamed in yet: asked again later */
        const mesh_chunk *mc = &sc->mc;
        const uint32_t k[3] = { mc->coord.x, mc->coord.y, mc->coord.z }, centre[3] = { s->lvl.center.x, s->lvl.center.y, s->lvl.center.z };
        float o[3];
        for (int a = 0; a < 3; a++)
            o[a] = (float)(world[a] - ((double)k[a] - centre[a]) * size);
        hit best = { .t = INFINITY };
        hit_in_chunk(mc, o, &best);
        if (best.mc) {
            take_luxel(&best, out);
            break;
        }
    }
    return true;
}

void scene_model_light_value(const scene_model_light *l, const render_light *states, size_t state_count, float out[3])
{
    memcpy(out, l->base, 3 * sizeof *out);
    for (uint32_t i = 0; i < l->layer_count; i++)
        for (size_t j = 0; j < state_count; j++)
            if (!states[j].fast && states[j].id == l->layers[i].id && states[j].enabled)
                for (int k = 0; k < 3; k++)
                    out[k] += states[j].scale * l->layers[i].rgb[k];
}
