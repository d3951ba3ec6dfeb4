/* city_scene.h - a random "city" for the baker: boxes on a floor, every face a lightmap patch
 * (shelf-packed into lightmaps), lights of every kind, face vertices and a grid of probes. Shared
 * by the thread-count test and the benchmark. */
#ifndef CITY_SCENE_H
#define CITY_SCENE_H

#include "bake.h"
#include "bake_scene.h"

typedef struct city {
    scene occluders;
    vis_box *boxes;
    size_t box_count;
    bake_light *lights;
    size_t light_count;
    bake_lightmap *lightmaps;
    size_t lightmap_count;
    bake_patch *patches;
    size_t patch_count;
    bake_vertex *vertices;
    size_t vertex_count;
    bake_probe *probes;
    size_t probe_count;
} city;

#define CITY_LIGHTMAP_EXP 8

/* Places a w x h patch on the current lightmap's shelf, opening a new shelf or lightmap when full. */
static inline void city_place(city *c, int w, int h, int *shelf_x, int *shelf_y, int *shelf_h, uint16_t out[2])
{
    const int side = 1 << CITY_LIGHTMAP_EXP;
    if (*shelf_x + w > side) {
        *shelf_x = 0;
        *shelf_y += *shelf_h;
        *shelf_h = 0;
    }
    if (c->lightmap_count == 0 || *shelf_y + h > side) {
        c->lightmaps = realloc(c->lightmaps, (c->lightmap_count + 1) * sizeof *c->lightmaps);
        CHECK(c->lightmaps != NULL);
        c->lightmaps[c->lightmap_count].size_exp = CITY_LIGHTMAP_EXP;
        c->lightmaps[c->lightmap_count].luxels = malloc((size_t)side * side * 3);
        CHECK(c->lightmaps[c->lightmap_count].luxels != NULL);
        c->lightmap_count++;
        *shelf_x = *shelf_y = *shelf_h = 0;
    }
    out[0] = (uint16_t)*shelf_x;
    out[1] = (uint16_t)*shelf_y;
    *shelf_x += w;
    if (h > *shelf_h)
        *shelf_h = h;
}

/* `blocks` boxes over a square of `extent` metres, luxels of `luxel` metres. */
static inline void city_build(city *c, uint64_t seed, int blocks, float extent, float luxel, int lights, int probes_per_axis)
{
    memset(c, 0, sizeof *c);
    uint64_t rng = seed;
    c->boxes = malloc(((size_t)blocks + 1) * sizeof *c->boxes);
    CHECK(c->boxes != NULL);
    /* The floor is a flat box too (its top face is the one that matters). */
    c->boxes[c->box_count++] = (vis_box){ { -extent / 2, -1, -extent / 2 }, { extent / 2, 0, extent / 2 } };
    for (int i = 0; i < blocks; i++) {
        vis_box *b = &c->boxes[c->box_count++];
        float w = rng_range(&rng, 1, extent / 8), d = rng_range(&rng, 1, extent / 8);
        b->min[0] = rng_range(&rng, -extent / 2, extent / 2 - w);
        b->min[2] = rng_range(&rng, -extent / 2, extent / 2 - d);
        b->min[1] = 0;
        b->max[0] = b->min[0] + w;
        b->max[2] = b->min[2] + d;
        b->max[1] = rng_range(&rng, 1, extent / 6);
    }
    int shelf_x = 0, shelf_y = 0, shelf_h = 0;
    c->patches = malloc(c->box_count * 6 * sizeof *c->patches);
    c->vertices = malloc(c->box_count * 24 * sizeof *c->vertices);
    CHECK(c->patches && c->vertices);
    for (size_t i = 0; i < c->box_count; i++) {
        const vis_box *b = &c->boxes[i];
        scene_box(&c->occluders, b->min, b->max);
        for (int axis = 0; axis < 3; axis++)
            for (int side = 0; side < 2; side++) {
                int u = (axis + 1) % 3, v = (axis + 2) % 3;
                float size_u = b->max[u] - b->min[u], size_v = b->max[v] - b->min[v];
                int w = (int)(size_u / luxel) + 2, h = (int)(size_v / luxel) + 2;  /* + the border ring */
                if (w > 64)
                    w = 64;
                if (h > 64)
                    h = 64;
                bake_patch *p = &c->patches[c->patch_count++];
                memset(p, 0, sizeof *p);
                p->normal[axis] = side ? 1.0f : -1.0f;
                p->origin[axis] = side ? b->max[axis] : b->min[axis];
                p->step_u[u] = size_u / (float)(w - 2);
                p->step_v[v] = size_v / (float)(h - 2);
                p->origin[u] = b->min[u] - p->step_u[u];
                p->origin[v] = b->min[v] - p->step_v[v];
                p->w = (uint16_t)w;
                p->h = (uint16_t)h;
                uint16_t at[2];
                city_place(c, w, h, &shelf_x, &shelf_y, &shelf_h, at);
                p->x = at[0];
                p->y = at[1];
                p->lightmap = (uint32_t)(c->lightmap_count - 1);
                for (int k = 0; k < 4; k++) {
                    bake_vertex *vx = &c->vertices[c->vertex_count++];
                    memset(vx, 0, sizeof *vx);
                    vx->normal[axis] = p->normal[axis];
                    vx->position[axis] = p->origin[axis];
                    vx->position[u] = k & 1 ? b->max[u] : b->min[u];
                    vx->position[v] = k & 2 ? b->max[v] : b->min[v];
                }
            }
    }
    c->lights = malloc((size_t)lights * sizeof *c->lights);
    CHECK(c->lights != NULL);
    for (int i = 0; i < lights; i++) {
        bake_light *l = &c->lights[c->light_count++];
        l->kind = (bake_light_kind)(i % 3);
        l->position[0] = rng_range(&rng, -extent / 2, extent / 2);
        l->position[1] = rng_range(&rng, 0.5f, extent / 5);
        l->position[2] = rng_range(&rng, -extent / 2, extent / 2);
        for (int k = 0; k < 3; k++)
            l->color[k] = rng_range(&rng, 0.3f, 1.0f);
        l->intensity = rng_range(&rng, 0.5f, 1.5f);
        l->range = rng_range(&rng, 4.0f, 20.0f);
    }
    c->probe_count = (size_t)probes_per_axis * probes_per_axis * 3;
    c->probes = malloc((c->probe_count + 1) * sizeof *c->probes);
    CHECK(c->probes != NULL);
    size_t n = 0;
    float cell = extent / (float)probes_per_axis;
    for (int y = 0; y < 3; y++)
        for (int z = 0; z < probes_per_axis; z++)
            for (int x = 0; x < probes_per_axis; x++) {
                bake_probe *p = &c->probes[n++];
                p->min[0] = -extent / 2 + cell * x;
                p->min[1] = cell * y;
                p->min[2] = -extent / 2 + cell * z;
                for (int a = 0; a < 3; a++)
                    p->max[a] = p->min[a] + cell;
            }
}

static inline bake_desc city_desc(const city *c, int threads)
{
    return (bake_desc){
        .triangles = (const float (*)[9])c->occluders.tris, .triangle_count = c->occluders.count,
        .lights = c->lights, .light_count = c->light_count, .ambient = { 0.1f, 0.12f, 0.15f },
        .lightmaps = c->lightmaps, .lightmap_count = c->lightmap_count,
        .patches = c->patches, .patch_count = c->patch_count,
        .vertices = c->vertices, .vertex_count = c->vertex_count,
        .probes = c->probes, .probe_count = c->probe_count, .threads = threads,
    };
}

static inline void city_free(city *c)
{
    for (size_t i = 0; i < c->lightmap_count; i++)
        free(c->lightmaps[i].luxels);
    free(c->lightmaps);
    free(c->boxes);
    free(c->lights);
    free(c->patches);
    free(c->vertices);
    free(c->probes);
    scene_free(&c->occluders);
    memset(c, 0, sizeof *c);
}

#endif
