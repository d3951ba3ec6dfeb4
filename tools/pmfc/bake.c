/* bake.c - base lightmaps, dynamic-light layers, fast-light vertex multipliers and cube probes.
 * The light model is in bake.h; docs/pmfc-lighting.md explains it to users. */
#include "bake.h"
#include "bake_internal.h"
#include "bvh.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define BAKE_LIGHT_SLACK 1e-4f      /* shadow rays stop this fraction short of the light */
#define BAKE_SKY_SAMPLES 16         /* hemisphere directions per luxel for sky light */
#define BAKE_DILATE_PASSES 2        /* rings of uncovered luxels filled around each patch */
#define BAKE_VERTEX_BLOCK 256       /* vertices per job */
#define GRID_MAX_CELLS 64           /* a light reaching more cells is checked everywhere */
#define GRID_QUERY_MAX_CELLS 512    /* a query box spanning more cells checks every light */
#define GRID_COORD_LIMIT 1000000    /* cell coordinates fit 21 bits */

/* ---- light lookup: a sparse uniform grid of the cells each light reaches ---------------- */

typedef struct light_grid {
    const bake_light *lights;
    size_t light_count;
    float cell;                 /* cell edge, metres */
    uint64_t *keys;             /* occupied cells, ascending */
    uint32_t *starts;           /* [key_count + 1]: each cell's run in `entries` */
    uint32_t *entries;          /* light indices, ascending within a cell */
    size_t key_count;
    uint32_t *global;           /* lights reaching too many cells, ascending */
    size_t global_count;
} light_grid;

typedef struct grid_entry {
    uint64_t key;
    uint32_t light;
} grid_entry;

typedef struct id_list {
    uint32_t *ids;
    size_t count, capacity;
} id_list;

static bool id_list_push(id_list *list, uint32_t id)
{
    if (list->count == list->capacity) {
        size_t grown = list->capacity ? list->capacity * 2 : 16;
        uint32_t *more = realloc(list->ids, grown * sizeof *more);
        if (!more)
            return false;
        list->ids = more;
        list->capacity = grown;
    }
    list->ids[list->count++] = id;
    return true;
}

static int compare_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static int compare_grid_entry(const void *a, const void *b)
{
    const grid_entry *x = a, *y = b;
    if (x->key != y->key)
        return (x->key > y->key) - (x->key < y->key);
    return (x->light > y->light) - (x->light < y->light);
}

static bool light_reaches(const bake_light *l)
{
    return (l->shape == BAKE_SHAPE_SUN || l->range > 0.0f) && l->intensity > 0.0f;
}

static uint64_t grid_key(int64_t x, int64_t y, int64_t z)
{
    return ((uint64_t)(x + GRID_COORD_LIMIT) << 42) | ((uint64_t)(y + GRID_COORD_LIMIT) << 21) |
           (uint64_t)(z + GRID_COORD_LIMIT);
}

/* The cells [c0, c1] a box covers; false when they lie outside the grid's coordinate range. */
static bool grid_cells(const light_grid *grid, const float min[3], const float max[3], int64_t c0[3], int64_t c1[3])
{
    for (int a = 0; a < 3; a++) {
        float lo = floorf(min[a] / grid->cell), hi = floorf(max[a] / grid->cell);
        if (!(lo >= -GRID_COORD_LIMIT && hi < GRID_COORD_LIMIT))
            return false;
        c0[a] = (int64_t)lo;
        c1[a] = (int64_t)hi;
    }
    return true;
}

static uint64_t grid_cell_count(const int64_t c0[3], const int64_t c1[3])
{
    return (uint64_t)(c1[0] - c0[0] + 1) * (uint64_t)(c1[1] - c0[1] + 1) * (uint64_t)(c1[2] - c0[2] + 1);
}

static bool light_grid_build(const bake_light *lights, size_t count, light_grid *grid)
{
    memset(grid, 0, sizeof *grid);
    grid->lights = lights;
    grid->light_count = count;
    /* Cells about the size of a typical light's reach: most lights land in a handful. */
    float *ranges = malloc((count + 1) * sizeof *ranges);
    if (!ranges)
        return false;
    size_t reaching = 0;
    for (size_t i = 0; i < count; i++)
        if (light_reaches(&lights[i]) && lights[i].shape != BAKE_SHAPE_SUN)
            ranges[reaching++] = lights[i].range;
    float median = 1.0f;
    if (reaching > 0) {
        qsort(ranges, reaching, sizeof *ranges, compare_float);
        median = ranges[reaching / 2];
    }
    free(ranges);
    grid->cell = fmaxf(median, 1e-3f);

    size_t entry_count = 0, entry_capacity = 0;
    grid_entry *entries = NULL;
    id_list global = { 0 };
    for (size_t i = 0; i < count; i++) {
        const bake_light *l = &lights[i];
        if (!light_reaches(l))
            continue;
        if (l->shape == BAKE_SHAPE_SUN) {
            if (!id_list_push(&global, (uint32_t)i))
                goto oom;
            continue;
        }
        float min[3], max[3];
        for (int a = 0; a < 3; a++) {
            min[a] = l->position[a] - l->range;
            max[a] = l->position[a] + l->range;
        }
        int64_t c0[3], c1[3];
        if (!grid_cells(grid, min, max, c0, c1) || grid_cell_count(c0, c1) > GRID_MAX_CELLS) {
            if (!id_list_push(&global, (uint32_t)i))
                goto oom;
            continue;
        }
        for (int64_t x = c0[0]; x <= c1[0]; x++)
            for (int64_t y = c0[1]; y <= c1[1]; y++)
                for (int64_t z = c0[2]; z <= c1[2]; z++) {
                    if (entry_count == entry_capacity) {
                        entry_capacity = entry_capacity ? entry_capacity * 2 : 64;
                        grid_entry *more = realloc(entries, entry_capacity * sizeof *more);
                        if (!more)
                            goto oom;
                        entries = more;
                    }
                    entries[entry_count++] = (grid_entry){ grid_key(x, y, z), (uint32_t)i };
                }
    }
    if (entry_count > 0)
        qsort(entries, entry_count, sizeof *entries, compare_grid_entry);
    grid->keys = malloc((entry_count + 1) * sizeof *grid->keys);
    grid->starts = malloc((entry_count + 1) * sizeof *grid->starts);
    grid->entries = malloc((entry_count + 1) * sizeof *grid->entries);
    if (!grid->keys || !grid->starts || !grid->entries)
        goto oom;
    for (size_t i = 0; i < entry_count; i++) {
        if (i == 0 || entries[i].key != entries[i - 1].key) {
            grid->keys[grid->key_count] = entries[i].key;
            grid->starts[grid->key_count++] = (uint32_t)i;
        }
        grid->entries[i] = entries[i].light;
    }
    grid->starts[grid->key_count] = (uint32_t)entry_count;
    free(entries);
    grid->global = global.ids;
    grid->global_count = global.count;
    return true;

oom:
    free(entries);
    free(global.ids);
    free(grid->keys);
    free(grid->starts);
    free(grid->entries);
    memset(grid, 0, sizeof *grid);
    return false;
}

static void light_grid_free(light_grid *grid)
{
    free(grid->keys);
    free(grid->starts);
    free(grid->entries);
    free(grid->global);
    memset(grid, 0, sizeof *grid);
}

static bool sphere_reaches_box(const bake_light *l, const float min[3], const float max[3])
{
    if (l->shape == BAKE_SHAPE_SUN)
        return true;
    float d2 = 0.0f;
    for (int a = 0; a < 3; a++) {
        float p = l->position[a];
        float c = p < min[a] ? min[a] - p : p > max[a] ? p - max[a] : 0.0f;
        d2 += c * c;
    }
    return d2 < l->range * l->range;
}

#define KIND_BIT(kind) (1u << (kind))

static bool light_wanted(const light_grid *grid, uint32_t id, unsigned kinds, const float min[3], const float max[3])
{
    const bake_light *l = &grid->lights[id];
    return (kinds & KIND_BIT(l->kind)) && light_reaches(l) && sphere_reaches_box(l, min, max);
}

/* The lights of the given kinds (KIND_BIT set) whose reach overlaps [min, max], ascending, into
 * `out` (emptied first). */
static bool light_grid_query(const light_grid *grid, const float min[3], const float max[3], unsigned kinds,
                             id_list *out)
{
    out->count = 0;
    int64_t c0[3], c1[3];
    if (!grid_cells(grid, min, max, c0, c1) || grid_cell_count(c0, c1) > GRID_QUERY_MAX_CELLS) {
        for (size_t i = 0; i < grid->light_count; i++)
            if (light_wanted(grid, (uint32_t)i, kinds, min, max) && !id_list_push(out, (uint32_t)i))
                return false;
        return true;
    }
    for (int64_t x = c0[0]; x <= c1[0]; x++)
        for (int64_t y = c0[1]; y <= c1[1]; y++)
            for (int64_t z = c0[2]; z <= c1[2]; z++) {
                uint64_t key = grid_key(x, y, z);
                size_t lo = 0, hi = grid->key_count;
                while (lo < hi) {
                    size_t mid = (lo + hi) / 2;
                    if (grid->keys[mid] < key)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                if (lo == grid->key_count || grid->keys[lo] != key)
                    continue;
                for (uint32_t e = grid->starts[lo]; e < grid->starts[lo + 1]; e++)
                    if (light_wanted(grid, grid->entries[e], kinds, min, max) && !id_list_push(out, grid->entries[e]))
                        return false;
            }
    for (size_t i = 0; i < grid->global_count; i++)
        if (light_wanted(grid, grid->global[i], kinds, min, max) && !id_list_push(out, grid->global[i]))
            return false;
    /* Few lights survive: insertion sort, dropping the copies from neighbouring cells. */
    size_t kept = 0;
    for (size_t i = 0; i < out->count; i++) {
        uint32_t id = out->ids[i];
        size_t j = kept;
        while (j > 0 && out->ids[j - 1] > id)
            j--;
        if (j > 0 && out->ids[j - 1] == id)
            continue;
        memmove(out->ids + j + 1, out->ids + j, (kept - j) * sizeof *out->ids);
        out->ids[j] = id;
        kept++;
    }
    out->count = kept;
    return true;
}

/* ---- the light model -------------------------------------------------------------------- */

typedef struct bake_ctx {
    const bake_desc *desc;
    bvh tree;
    bvh sky_tree;               /* open sky (desc->sky_triangles) */
    float reach;                /* a ray this long from anywhere in the map leaves it */
    light_grid grid;
    uint8_t **masks;            /* [lightmap]: 1 where a patch covers the luxel */
    uint32_t **patch_dynamic;   /* [patch]: dynamic lights reaching it, ascending */
    uint32_t *patch_dynamic_count;
    layer_task *tasks;
    size_t task_count;
    uint8_t *task_lit;          /* [task]: the task wrote a non-zero luxel */
    bake_result *out;
    uint32_t *fast_ordinal;     /* [light]: row in out->fast_multipliers */
    bake_probe_result *probes;  /* each with its own refs until pack_probes */
    atomic_bool failed;
} bake_ctx;

/* falloff(d / R): 1 at the light, 0 at its range, with a zero slope at the range so that the
 * edge of a light's reach shows no ring. */
static float bake_falloff(float x)
{
    if (!(x < 1.0f))
        return 0.0f;
    if (x <= 0.0f)
        return 1.0f;
    float y = 1.0f - x;
    return y * y;
}

static uint8_t quantize(float v)
{
    if (!(v > 0.0f))
        return 0;
    if (v >= 254.5f)
        return 255;
    return (uint8_t)(v + 0.5f);
}

#define NO_OCCLUDER UINT32_MAX

/* Where a shadow ray from p leaves: nudged off its surface along n (when it has one), so that the
 * surface does not shadow itself. */
static void ray_start(const float p[3], const float *n, float out[3])
{
    for (int a = 0; a < 3; a++)
        out[a] = p[a] + (n ? n[a] * BAKE_NUDGE : 0.0f);
}

/* Whether a ray from `from` along unit `dir` reaches open sky: it meets no occluder before it
 * crosses a sky triangle, or before it leaves the map when it crosses none. */
static bool sees_sky(const bake_ctx *ctx, const float from[3], const float dir[3], uint32_t *occluder)
{
    float to[3];
    for (int a = 0; a < 3; a++)
        to[a] = from[a] + dir[a] * ctx->reach;
    float s_sky = 1.0f;
    bvh_segment_nearest(&ctx->sky_tree, from, to, 0.0f, 1.0f, &s_sky);
    if (occluder && *occluder != NO_OCCLUDER && bvh_triangle_blocks(ctx->desc->triangles[*occluder], from, to, 0.0f, s_sky))
        return false;
    return !bvh_segment_occluded(&ctx->tree, from, to, 0.0f, s_sky, occluder);
}

/* 0 outside the outer cone, 1 inside the inner one, a smooth step between. */
static float spot_cone(const bake_light *l, const float to_point[3], float dist)
{
    if (!(dist > 0.0f))
        return 1.0f;
    float c = (to_point[0] * l->direction[0] + to_point[1] * l->direction[1] + to_point[2] * l->direction[2]) / dist;
    if (c >= l->cos_inner)
        return 1.0f;
    if (!(c > l->cos_outer))
        return 0.0f;
    float x = (c - l->cos_outer) / (l->cos_inner - l->cos_outer);
    return x * x * (3.0f - 2.0f * x);
}

/* Sunlight at p: I * max(0, n.l) when p sees the sky toward the sun. */
static float sun_strength(const bake_ctx *ctx, const bake_light *l, const float p[3], const float *n, uint32_t *occluder)
{
    float toward[3] = { -l->direction[0], -l->direction[1], -l->direction[2] };
    float n_dot_l = n ? n[0] * toward[0] + n[1] * toward[1] + n[2] * toward[2] : 1.0f;
    float strength = l->intensity * n_dot_l;
    if (!(strength > 0.0f))
        return 0.0f;
    if (occluder) {
        float from[3];
        ray_start(p, n, from);
        if (!sees_sky(ctx, from, toward, occluder))
            return 0.0f;
    }
    return strength;
}

/* I * max(0, n.l) * falloff(d / R) of light l at p, or 0 when out of reach, facing away or (when
 * `occluder` is non-NULL) blocked. n = NULL means unoriented (n.l taken as 1). *occluder is the
 * triangle that last blocked this light for a neighbouring point (or NO_OCCLUDER): tried first,
 * since neighbours tend to be shadowed by the same face. */
static float light_strength(const bake_ctx *ctx, const bake_light *l, const float p[3], const float *n,
                            uint32_t *occluder)
{
    if (l->shape == BAKE_SHAPE_SUN)
        return sun_strength(ctx, l, p, n, occluder);
    float d[3] = { l->position[0] - p[0], l->position[1] - p[1], l->position[2] - p[2] };
    float dist = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (!(dist < l->range))
        return 0.0f;
    float n_dot_l = 1.0f;
    if (n && dist > 0.0f)
        n_dot_l = (n[0] * d[0] + n[1] * d[1] + n[2] * d[2]) / dist;
    float strength = l->intensity * n_dot_l * bake_falloff(dist / l->range);
    if (l->shape == BAKE_SHAPE_SPOT) {
        float to_point[3] = { -d[0], -d[1], -d[2] };
        strength *= spot_cone(l, to_point, dist);
    }
    if (!(strength > 0.0f))
        return 0.0f;
    if (occluder) {
        float from[3];
        ray_start(p, n, from);
        const float s_max = 1.0f - BAKE_LIGHT_SLACK;
        if (*occluder != NO_OCCLUDER &&
            bvh_triangle_blocks(ctx->desc->triangles[*occluder], from, l->position, 0.0f, s_max))
            return 0.0f;
        if (bvh_segment_occluded(&ctx->tree, from, l->position, 0.0f, s_max, occluder))
            return 0.0f;
    }
    return strength;
}

/* A unit normal, or false for a zero one (then the point is unoriented). */
static bool unit_normal(const float in[3], float out[3])
{
    float len = sqrtf(in[0] * in[0] + in[1] * in[1] + in[2] * in[2]);
    if (!(len > 0.0f))
        return false;
    for (int a = 0; a < 3; a++)
        out[a] = in[a] / len;
    return true;
}

static void luxel_position(const bake_patch *patch, int i, int j, float out[3])
{
    for (int a = 0; a < 3; a++)
        out[a] = patch->origin[a] + ((float)i + 0.5f) * patch->step_u[a] + ((float)j + 0.5f) * patch->step_v[a];
}

static void patch_bounds(const bake_patch *patch, float min[3], float max[3])
{
    for (int a = 0; a < 3; a++) {
        float u = patch->step_u[a] * patch->w, v = patch->step_v[a] * patch->h;
        min[a] = patch->origin[a] + (u < 0.0f ? u : 0.0f) + (v < 0.0f ? v : 0.0f);
        max[a] = patch->origin[a] + (u > 0.0f ? u : 0.0f) + (v > 0.0f ? v : 0.0f);
    }
}

/* A patch on a lightmap that is baked (see bake_run: not too large, with luxels). */
static bool patch_valid(const bake_ctx *ctx, const bake_patch *patch)
{
    return patch->lightmap < ctx->desc->lightmap_count && ctx->masks[patch->lightmap] != NULL;
}

static uint32_t lightmap_side(const bake_lightmap *lm)
{
    return 1u << lm->size_exp;
}

/* The cosine-weighted fraction of the hemisphere above (p, n) that sees open sky, from
 * BAKE_SKY_SAMPLES stratified directions rotated by `seed` (a luxel's own, so neighbours don't
 * share a pattern and the result is the same on any thread). */
static float sky_fraction(const bake_ctx *ctx, const float p[3], const float n[3], uint32_t seed)
{
    float t[3], b[3];
    float hint[3] = { fabsf(n[1]) < 0.9f ? 0.0f : 1.0f, fabsf(n[1]) < 0.9f ? 1.0f : 0.0f, 0.0f };
    t[0] = hint[1] * n[2] - hint[2] * n[1];
    t[1] = hint[2] * n[0] - hint[0] * n[2];
    t[2] = hint[0] * n[1] - hint[1] * n[0];
    float len = sqrtf(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
    for (int a = 0; a < 3; a++)
        t[a] /= len;
    b[0] = n[1] * t[2] - n[2] * t[1];
    b[1] = n[2] * t[0] - n[0] * t[2];
    b[2] = n[0] * t[1] - n[1] * t[0];
    float from[3];
    ray_start(p, n, from);
    float turn = (float)(seed % 1024u) / 1024.0f;
    int open = 0;
    uint32_t occluder = NO_OCCLUDER;
    for (int k = 0; k < BAKE_SKY_SAMPLES; k++) {
        /* stratified on the unit disc, lifted onto the hemisphere: cosine-weighted directions */
        int ring = k / 4, sector = k % 4;
        float r2 = ((float)ring + 0.5f) / (BAKE_SKY_SAMPLES / 4), r = sqrtf(r2);
        float phi = 6.2831853f * (((float)sector + 0.5f) / 4.0f + turn + 0.125f * (float)ring);
        float u = r * cosf(phi), v = r * sinf(phi), w = sqrtf(fmaxf(0.0f, 1.0f - r2));
        float dir[3];
        for (int a = 0; a < 3; a++)
            dir[a] = t[a] * u + b[a] * v + n[a] * w;
        open += sees_sky(ctx, from, dir, &occluder);
    }
    return (float)open / BAKE_SKY_SAMPLES;
}

/* ---- stage: base lightmaps (and which dynamic lights reach each patch) ------------------ */

static void bake_patch_job(void *user, size_t index)
{
    bake_ctx *ctx = user;
    const bake_desc *desc = ctx->desc;
    const bake_patch *patch = &desc->patches[index];
    if (!patch_valid(ctx, patch) || atomic_load(&ctx->failed))
        return;
    bake_lightmap *lm = &desc->lightmaps[patch->lightmap];
    uint32_t side = lightmap_side(lm);
    uint8_t *mask = ctx->masks[patch->lightmap];
    float normal[3];
    const float *n = unit_normal(patch->normal, normal) ? normal : NULL;

    float min[3], max[3];
    patch_bounds(patch, min, max);
    id_list lights = { 0 };
    if (!light_grid_query(&ctx->grid, min, max, KIND_BIT(BAKE_LIGHT_STATIC) | KIND_BIT(BAKE_LIGHT_DYNAMIC), &lights)) {
        atomic_store(&ctx->failed, true);
        return;
    }
    size_t dynamic = 0;
    for (size_t k = 0; k < lights.count; k++)
        dynamic += desc->lights[lights.ids[k]].kind == BAKE_LIGHT_DYNAMIC;
    if (dynamic > 0) {
        uint32_t *ids = malloc(dynamic * sizeof *ids);
        if (!ids) {
            free(lights.ids);
            atomic_store(&ctx->failed, true);
            return;
        }
        ctx->patch_dynamic[index] = ids;
        for (size_t k = 0; k < lights.count; k++)
            if (desc->lights[lights.ids[k]].kind == BAKE_LIGHT_DYNAMIC)
                ids[ctx->patch_dynamic_count[index]++] = lights.ids[k];
    }

    uint32_t *occluders = malloc((lights.count + 1) * sizeof *occluders);
    if (!occluders) {
        free(lights.ids);
        atomic_store(&ctx->failed, true);
        return;
    }
    for (size_t k = 0; k < lights.count; k++)
        occluders[k] = NO_OCCLUDER;
    for (int j = 0; j < patch->h; j++) {
        uint32_t y = (uint32_t)patch->y + (uint32_t)j;
        if (y >= side)
            break;
        for (int i = 0; i < patch->w; i++) {
            uint32_t x = (uint32_t)patch->x + (uint32_t)i;
            if (x >= side)
                break;
            float p[3], rgb[3] = { desc->ambient[0], desc->ambient[1], desc->ambient[2] };
            luxel_position(patch, i, j, p);
            for (size_t k = 0; k < lights.count; k++) {
                const bake_light *l = &desc->lights[lights.ids[k]];
                if (l->kind != BAKE_LIGHT_STATIC)
                    continue;
                float s = light_strength(ctx, l, p, n, &occluders[k]);
                for (int c = 0; c < 3; c++)
                    rgb[c] += l->color[c] * s;
            }
            if (n && ctx->sky_tree.node_count) {
                float open = sky_fraction(ctx, p, n, (uint32_t)(x * 73856093u ^ y * 19349663u ^ index * 83492791u));
                for (int c = 0; c < 3; c++)
                    rgb[c] += desc->sky_light[c] * open;
            }
            size_t at = (size_t)y * side + x;
            for (int c = 0; c < 3; c++)
                lm->luxels[at * 3 + c] = quantize(rgb[c] * 255.0f);
            mask[at] = 1;
        }
    }
    free(occluders);
    free(lights.ids);
}

/* ---- stage: dynamic-light layers -------------------------------------------------------- */

static int compare_layer_task(const void *a, const void *b)
{
    const layer_task *x = a, *y = b;
    if (x->light != y->light)
        return (x->light > y->light) - (x->light < y->light);
    if (x->lightmap != y->lightmap)
        return (x->lightmap > y->lightmap) - (x->lightmap < y->lightmap);
    return (x->patch > y->patch) - (x->patch < y->patch);
}

static void bake_layer_job(void *user, size_t index)
{
    bake_ctx *ctx = user;
    const layer_task *task = &ctx->tasks[index];
    const bake_desc *desc = ctx->desc;
    const bake_patch *patch = &desc->patches[task->patch];
    const bake_light *l = &desc->lights[task->light];
    uint8_t *luxels = ctx->out->layers[task->layer].luxels;
    uint32_t side = lightmap_side(&desc->lightmaps[task->lightmap]);
    float normal[3];
    const float *n = unit_normal(patch->normal, normal) ? normal : NULL;
    bool lit = false;
    uint32_t occluder = NO_OCCLUDER;
    for (int j = 0; j < patch->h; j++) {
        uint32_t y = (uint32_t)patch->y + (uint32_t)j;
        if (y >= side)
            break;
        for (int i = 0; i < patch->w; i++) {
            uint32_t x = (uint32_t)patch->x + (uint32_t)i;
            if (x >= side)
                break;
            float p[3];
            luxel_position(patch, i, j, p);
            uint8_t v = quantize(light_strength(ctx, l, p, n, &occluder) * 255.0f);
            size_t at = ((size_t)y * side + x) * 3;
            luxels[at] = luxels[at + 1] = luxels[at + 2] = v;
            lit |= v != 0;
        }
    }
    ctx->task_lit[index] = lit;
}

/* Tasks (light, lightmap, patch) sorted, one zeroed layer per (light, lightmap). */
static bool plan_layers(bake_ctx *ctx)
{
    const bake_desc *desc = ctx->desc;
    size_t count = 0;
    for (size_t p = 0; p < desc->patch_count; p++)
        count += ctx->patch_dynamic_count[p];
    if (count == 0)
        return true;
    ctx->tasks = malloc(count * sizeof *ctx->tasks);
    ctx->task_lit = calloc(count, 1);
    if (!ctx->tasks || !ctx->task_lit)
        return false;
    for (size_t p = 0; p < desc->patch_count; p++)
        for (uint32_t k = 0; k < ctx->patch_dynamic_count[p]; k++)
            ctx->tasks[ctx->task_count++] =
                (layer_task){ ctx->patch_dynamic[p][k], desc->patches[p].lightmap, (uint32_t)p, 0 };
    qsort(ctx->tasks, count, sizeof *ctx->tasks, compare_layer_task);
    size_t layers = 0;
    for (size_t t = 0; t < count; t++)
        if (t == 0 || ctx->tasks[t].light != ctx->tasks[t - 1].light ||
            ctx->tasks[t].lightmap != ctx->tasks[t - 1].lightmap)
            layers++;
    ctx->out->layers = calloc(layers, sizeof *ctx->out->layers);
    if (!ctx->out->layers)
        return false;
    for (size_t t = 0; t < count; t++) {
        layer_task *task = &ctx->tasks[t];
        if (t == 0 || task->light != task[-1].light || task->lightmap != task[-1].lightmap) {
            size_t side = lightmap_side(&desc->lightmaps[task->lightmap]);
            bake_layer *layer = &ctx->out->layers[ctx->out->layer_count];
            layer->light = task->light;
            layer->lightmap = task->lightmap;
            layer->luxels = calloc(side * side, 3);
            if (!layer->luxels)
                return false;
            ctx->out->layer_count++;
        }
        task->layer = (uint32_t)(ctx->out->layer_count - 1);
    }
    return true;
}

/* Drops layers where the light lit nothing (all shadowed or facing away). */
static void drop_dark_layers(bake_ctx *ctx)
{
    bake_result *out = ctx->out;
    uint8_t *lit = calloc(out->layer_count + 1, 1);
    if (lit) {
        for (size_t t = 0; t < ctx->task_count; t++)
            lit[ctx->tasks[t].layer] |= ctx->task_lit[t];
    }
    size_t kept = 0;
    for (size_t i = 0; i < out->layer_count; i++) {
        if (lit && !lit[i]) {
            free(out->layers[i].luxels);
            continue;
        }
        out->layers[kept++] = out->layers[i];
    }
    out->layer_count = kept;
    free(lit);
}

/* ---- stage: dilation -------------------------------------------------------------------- */

/* Fills uncovered luxels next to covered ones with their covered neighbours' mean, ring by ring,
 * so that bilinear filtering at a patch's edge does not pull in black. */
static bool dilate(uint8_t *luxels, const uint8_t *mask, uint32_t side)
{
    size_t n = (size_t)side * side;
    uint8_t *state = malloc(n);
    uint32_t *row_lo = malloc(side * sizeof *row_lo), *row_hi = malloc(side * sizeof *row_hi);
    bool ok = state && row_lo && row_hi;
    if (!ok)
        goto done;
    memcpy(state, mask, n);
    for (int pass = 0; pass < BAKE_DILATE_PASSES; pass++) {
        uint8_t marker = (uint8_t)(2 + pass);     /* filled in this pass: not yet a source */
        /* Each row's span of sources: rows with none nearby are skipped whole. */
        for (uint32_t y = 0; y < side; y++) {
            const uint8_t *row = state + (size_t)y * side;
            uint32_t lo = 0, hi = side;
            while (lo < side && row[lo] == 0)
                lo++;
            while (hi > lo && row[hi - 1] == 0)
                hi--;
            row_lo[y] = lo;
            row_hi[y] = hi;     /* empty when lo == hi */
        }
        for (uint32_t y = 0; y < side; y++) {
            uint32_t lo = side, hi = 0;
            for (uint32_t ny = y > 0 ? y - 1 : 0; ny <= y + 1 && ny < side; ny++)
                if (row_lo[ny] < row_hi[ny]) {
                    lo = row_lo[ny] < lo ? row_lo[ny] : lo;
                    hi = row_hi[ny] > hi ? row_hi[ny] : hi;
                }
            if (lo >= hi)
                continue;
            uint32_t x0 = lo > 0 ? lo - 1 : 0, x1 = hi < side ? hi + 1 : side;
            for (uint32_t x = x0; x < x1; x++) {
                size_t at = (size_t)y * side + x;
                if (state[at] != 0)
                    continue;
                unsigned sum[3] = { 0, 0, 0 }, count = 0;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        int64_t nx = (int64_t)x + dx, ny = (int64_t)y + dy;
                        if (nx < 0 || ny < 0 || nx >= side || ny >= side)
                            continue;
                        size_t from = (size_t)ny * side + (size_t)nx;
                        if (state[from] == 0 || state[from] == marker)
                            continue;
                        for (int c = 0; c < 3; c++)
                            sum[c] += luxels[from * 3 + c];
                        count++;
                    }
                if (count == 0)
                    continue;
                for (int c = 0; c < 3; c++)
                    luxels[at * 3 + c] = (uint8_t)((sum[c] + count / 2) / count);
                state[at] = marker;
            }
        }
    }
done:
    free(state);
    free(row_lo);
    free(row_hi);
    return ok;
}

static void dilate_job(void *user, size_t index)
{
    bake_ctx *ctx = user;
    const bake_desc *desc = ctx->desc;
    /* Lightmaps first, then layers (each with its lightmap's coverage). */
    bool ok = true;
    if (index < desc->lightmap_count) {
        if (ctx->masks[index])  /* none for a lightmap that is not baked */
            ok = dilate(desc->lightmaps[index].luxels, ctx->masks[index], lightmap_side(&desc->lightmaps[index]));
    } else {
        const bake_layer *layer = &ctx->out->layers[index - desc->lightmap_count];
        ok = dilate(layer->luxels, ctx->masks[layer->lightmap], lightmap_side(&desc->lightmaps[layer->lightmap]));
    }
    if (!ok)
        atomic_store(&ctx->failed, true);
}

/* ---- stage: fast-light vertex multipliers ----------------------------------------------- */

static void fast_job(void *user, size_t block)
{
    bake_ctx *ctx = user;
    const bake_desc *desc = ctx->desc;
    id_list lights = { 0 };
    uint32_t *occluders = malloc((desc->light_count + 1) * sizeof *occluders);   /* [light] within this block */
    if (!occluders) {
        atomic_store(&ctx->failed, true);
        return;
    }
    for (size_t i = 0; i < desc->light_count; i++)
        occluders[i] = NO_OCCLUDER;
    size_t end = (block + 1) * BAKE_VERTEX_BLOCK;
    if (end > desc->vertex_count)
        end = desc->vertex_count;
    for (size_t v = block * BAKE_VERTEX_BLOCK; v < end; v++) {
        const bake_vertex *vertex = &desc->vertices[v];
        if (!light_grid_query(&ctx->grid, vertex->position, vertex->position, KIND_BIT(BAKE_LIGHT_FAST), &lights)) {
            atomic_store(&ctx->failed, true);
            break;
        }
        float normal[3];
        const float *n = unit_normal(vertex->normal, normal) ? normal : NULL;
        for (size_t k = 0; k < lights.count; k++) {
            float s = light_strength(ctx, &desc->lights[lights.ids[k]], vertex->position, n, &occluders[lights.ids[k]]);
            ctx->out->fast_multipliers[(size_t)ctx->fast_ordinal[lights.ids[k]] * desc->vertex_count + v] =
                quantize(s * 255.0f);
        }
    }
    free(occluders);
    free(lights.ids);
}

/* ---- stage: probes (cube lighting data) ------------------------------------------------- */

static void probe_job(void *user, size_t index)
{
    bake_ctx *ctx = user;
    const bake_desc *desc = ctx->desc;
    const bake_probe *probe = &desc->probes[index];
    bake_probe_result *res = &ctx->probes[index];
    float centre[3], rgb[3] = { desc->ambient[0], desc->ambient[1], desc->ambient[2] };
    for (int a = 0; a < 3; a++)
        centre[a] = 0.5f * (probe->min[a] + probe->max[a]);
    id_list lights = { 0 };
    if (!light_grid_query(&ctx->grid, probe->min, probe->max, ~0u, &lights)) {
        atomic_store(&ctx->failed, true);
        return;
    }
    size_t refs = 0;
    for (size_t k = 0; k < lights.count; k++)
        refs += desc->lights[lights.ids[k]].kind != BAKE_LIGHT_STATIC;
    if (refs > 0) {
        res->refs = malloc(refs * sizeof *res->refs);
        if (!res->refs) {
            free(lights.ids);
            atomic_store(&ctx->failed, true);
            return;
        }
    }
    for (size_t k = 0; k < lights.count; k++) {
        const bake_light *l = &desc->lights[lights.ids[k]];
        if (l->kind == BAKE_LIGHT_STATIC) {
            uint32_t occluder = NO_OCCLUDER;
            float s = light_strength(ctx, l, centre, NULL, &occluder);
            for (int c = 0; c < 3; c++)
                rgb[c] += l->color[c] * s;
        } else {
            float s = light_strength(ctx, l, centre, NULL, NULL);
            res->refs[res->ref_count++] = (bake_light_ref){ lights.ids[k], quantize(s * 255.0f) };
        }
    }
    for (int c = 0; c < 3; c++)
        res->base[c] = quantize(rgb[c] * 255.0f);
    free(lights.ids);
}

/* ---- the whole bake --------------------------------------------------------------------- */

static void bake_ctx_free(bake_ctx *ctx)
{
    const bake_desc *desc = ctx->desc;
    bvh_free(&ctx->tree);
    bvh_free(&ctx->sky_tree);
    light_grid_free(&ctx->grid);
    if (ctx->masks)
        for (size_t i = 0; i < desc->lightmap_count; i++)
            free(ctx->masks[i]);
    free(ctx->masks);
    if (ctx->patch_dynamic)
        for (size_t p = 0; p < desc->patch_count; p++)
            free(ctx->patch_dynamic[p]);
    free(ctx->patch_dynamic);
    free(ctx->patch_dynamic_count);
    free(ctx->tasks);
    free(ctx->task_lit);
    free(ctx->fast_ordinal);
    if (ctx->probes)
        for (size_t i = 0; i < desc->probe_count; i++)
            free(ctx->probes[i].refs);
    free(ctx->probes);
}

/* Moves the probe results and all their refs into one block, so bake_result_free needs no count. */
static bool pack_probes(bake_ctx *ctx)
{
    size_t count = ctx->desc->probe_count, refs = 0;
    for (size_t i = 0; i < count; i++)
        refs += ctx->probes[i].ref_count;
    /* sizeof(bake_probe_result) keeps the refs that follow aligned. */
    bake_probe_result *block = malloc(count * sizeof *block + refs * sizeof(bake_light_ref));
    if (!block)
        return false;
    bake_light_ref *next = (bake_light_ref *)(block + count);
    for (size_t i = 0; i < count; i++) {
        block[i] = ctx->probes[i];
        block[i].refs = ctx->probes[i].ref_count ? next : NULL;
        if (ctx->probes[i].ref_count)
            memcpy(next, ctx->probes[i].refs, ctx->probes[i].ref_count * sizeof *next);
        next += ctx->probes[i].ref_count;
    }
    ctx->out->probes = block;
    return true;
}

bool bake_run(const bake_desc *desc, bake_result *out)
{
    memset(out, 0, sizeof *out);
    bake_ctx ctx = { .desc = desc, .out = out };
    atomic_init(&ctx.failed, false);
    int threads = desc->threads;
    jobs_progress progress = { desc->progress, desc->user, "bvh" };

    jobs_report(&progress, 0.0);
    if (!bvh_build(desc->triangles, desc->triangle_count, desc->threads, &ctx.tree) ||
        !bvh_build(desc->sky_triangles, desc->sky_triangle_count, desc->threads, &ctx.sky_tree))
        goto fail;
    /* longer than any path inside the bounds of everything (rays toward the sky end there) */
    float lo[3] = { 0 }, hi[3] = { 0 };
    for (int t = 0; t < 2; t++) {
        const bvh *tree = t ? &ctx.sky_tree : &ctx.tree;
        if (!tree->node_count)
            continue;
        for (int a = 0; a < 3; a++) {
            lo[a] = fminf(lo[a], tree->nodes[0].min[a]);
            hi[a] = fmaxf(hi[a], tree->nodes[0].max[a]);
        }
    }
    ctx.reach = 2.0f * sqrtf((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                             (hi[2] - lo[2]) * (hi[2] - lo[2])) + 1.0f;
    jobs_report(&progress, 1.0);
    if (!light_grid_build(desc->lights, desc->light_count, &ctx.grid))
        goto fail;

    ctx.masks = calloc(desc->lightmap_count + 1, sizeof *ctx.masks);
    ctx.patch_dynamic = calloc(desc->patch_count + 1, sizeof *ctx.patch_dynamic);
    ctx.patch_dynamic_count = calloc(desc->patch_count + 1, sizeof *ctx.patch_dynamic_count);
    if (!ctx.masks || !ctx.patch_dynamic || !ctx.patch_dynamic_count)
        goto fail;
    for (size_t i = 0; i < desc->lightmap_count; i++) {
        bake_lightmap *lm = &desc->lightmaps[i];
        if (lm->size_exp > 15 || !lm->luxels)
            continue;
        size_t side = lightmap_side(lm);
        ctx.masks[i] = calloc(side * side, 1);
        if (!ctx.masks[i])
            goto fail;
        memset(lm->luxels, 0, side * side * 3);
    }

    progress.stage = "lightmaps";
    jobs_parallel_for_progress(desc->patch_count, threads, bake_patch_job, &ctx, &progress);
    if (atomic_load(&ctx.failed) || !plan_layers(&ctx))
        goto fail;

    progress.stage = "layers";
    jobs_parallel_for_progress(ctx.task_count, threads, bake_layer_job, &ctx, &progress);
    bounce_input bounce = { desc, &ctx.tree, &ctx.sky_tree, ctx.reach, ctx.masks, ctx.tasks, ctx.task_count,
                            ctx.task_lit, out->layers, &progress };
    if (!bake_bounce(&bounce))
        goto fail;
    drop_dark_layers(&ctx);

    progress.stage = "dilate";
    jobs_parallel_for_progress(desc->lightmap_count + out->layer_count, threads, dilate_job, &ctx, &progress);
    if (atomic_load(&ctx.failed))
        goto fail;

    ctx.fast_ordinal = calloc(desc->light_count + 1, sizeof *ctx.fast_ordinal);
    if (!ctx.fast_ordinal)
        goto fail;
    for (size_t i = 0; i < desc->light_count; i++)
        if (desc->lights[i].kind == BAKE_LIGHT_FAST)
            ctx.fast_ordinal[i] = (uint32_t)out->fast_light_count++;
    if (out->fast_light_count > 0 && desc->vertex_count > 0) {
        out->fast_multipliers = calloc(out->fast_light_count, desc->vertex_count);
        if (!out->fast_multipliers)
            goto fail;
    }
    progress.stage = "fast lights";
    size_t blocks = out->fast_multipliers ? (desc->vertex_count + BAKE_VERTEX_BLOCK - 1) / BAKE_VERTEX_BLOCK : 0;
    jobs_parallel_for_progress(blocks, threads, fast_job, &ctx, &progress);

    if (desc->probe_count > 0) {
        ctx.probes = calloc(desc->probe_count, sizeof *ctx.probes);
        if (!ctx.probes)
            goto fail;
    }
    progress.stage = "probes";
    jobs_parallel_for_progress(desc->probe_count, threads, probe_job, &ctx, &progress);
    if (atomic_load(&ctx.failed) || (desc->probe_count > 0 && !pack_probes(&ctx)))
        goto fail;

    bake_ctx_free(&ctx);
    return true;

fail:
    bake_ctx_free(&ctx);
    bake_result_free(out);
    return false;
}

void bake_result_free(bake_result *res)
{
    for (size_t i = 0; i < res->layer_count; i++)
        free(res->layers[i].luxels);
    free(res->layers);
    free(res->fast_multipliers);
    free(res->probes);  /* one block: the results, then every probe's refs */
    memset(res, 0, sizeof *res);
}
