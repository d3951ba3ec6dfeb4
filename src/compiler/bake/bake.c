/* bake.c - base lightmaps, dynamic-light layers, fast-light vertex multipliers and cube probes.
 * The light model is in bake.h; docs/pmfc-lighting.md explains it to users. */
#include "bake.h"
#include "bake_internal.h"
#include "bvh.h"
#include "light_model.h"
#include "base/pmf_budget.h"
#include "base/grow.h"
#include "base/order.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#define BAKE_LIGHT_SLACK 1e-4f      /* shadow rays stop this fraction short of the light */
#define BAKE_SKY_MARGIN 1e-4f       /* share of a ray searched past a face known to block it */
#define BAKE_SKY_SAMPLES 16         /* hemisphere directions per luxel for sky light and dirt */
#define BAKE_DOME_MAX_SAMPLES 1024  /* a sky dome's directions at most (bake_desc.dome_samples) */
#define BAKE_SOFT_RAYS 4            /* rays at a wide light's rim; least rays in a refined luxel */
#define BAKE_SEAM_BACK 0.01f        /* a sample point's wall test starts this share behind the centre */
#define BAKE_MAX_SAMPLES 64         /* samples per luxel at most */
#define BAKE_REFINE 8               /* a luxel whose rays disagree takes this many times more */
#define BAKE_DILATE_PASSES 2        /* rings of uncovered luxels filled around each patch */
#define BAKE_VERTEX_BLOCK 256       /* vertices per job */
#define GRID_MAX_CELLS 64           /* a light reaching more cells is checked everywhere */
#define GRID_QUERY_MAX_CELLS 512    /* a query box spanning more cells checks every light */
#define GRID_COORD_LIMIT 1000000    /* cell coordinates fit 21 bits */

#define KIND_BIT(kind) (1u << (kind))

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
    unsigned kinds;             /* the kinds (KIND_BIT) of the lights that reach anything */
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
    if (!grow_array_budget((void **)&list->ids, &list->capacity, list->count + 1, sizeof *list->ids))
        return false;
    list->ids[list->count++] = id;
    return true;
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
    float *ranges = pmf_budget_malloc((count + 1) * sizeof *ranges);
    if (!ranges)
        return false;
    size_t reaching = 0;
    for (size_t i = 0; i < count; i++) {
        if (light_reaches(&lights[i]) && lights[i].shape != BAKE_SHAPE_SUN)
            ranges[reaching++] = lights[i].range;
        if (light_reaches(&lights[i]))
            grid->kinds |= KIND_BIT(lights[i].kind);
    }
    float median = 1.0f;
    if (reaching > 0) {
        order_sort(ranges, reaching, sizeof *ranges, order_float);
        median = ranges[reaching / 2];
    }
    pmf_budget_free(ranges);
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
                        grid_entry *more = pmf_budget_realloc(entries, entry_capacity * sizeof *more);
                        if (!more)
                            goto oom;
                        entries = more;
                    }
                    entries[entry_count++] = (grid_entry){ grid_key(x, y, z), (uint32_t)i };
                }
    }
    if (entry_count > 0)
        order_sort(entries, entry_count, sizeof *entries, compare_grid_entry);
    grid->keys = pmf_budget_malloc((entry_count + 1) * sizeof *grid->keys);
    grid->starts = pmf_budget_malloc((entry_count + 1) * sizeof *grid->starts);
    grid->entries = pmf_budget_malloc((entry_count + 1) * sizeof *grid->entries);
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
    pmf_budget_free(entries);
    grid->global = global.ids;
    grid->global_count = global.count;
    return true;

oom:
    pmf_budget_free(entries);
    pmf_budget_free(global.ids);
    pmf_budget_free(grid->keys);
    pmf_budget_free(grid->starts);
    pmf_budget_free(grid->entries);
    memset(grid, 0, sizeof *grid);
    return false;
}

static void light_grid_free(light_grid *grid)
{
    pmf_budget_free(grid->keys);
    pmf_budget_free(grid->starts);
    pmf_budget_free(grid->entries);
    pmf_budget_free(grid->global);
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

static bool light_wanted(const light_grid *grid, uint32_t id, unsigned kinds, const float min[3], const float max[3])
{
    const bake_light *l = &grid->lights[id];
    return (kinds & KIND_BIT(l->kind)) && light_reaches(l) && sphere_reaches_box(l, min, max);
}

/* A query's lights as bits: those checked (a light listed in several of its cells is checked once)
 * and those wanted, walked in order at the end; on some maps hundreds of faint lights reach a patch. */
typedef struct light_marks {
    uint64_t *checked, *wanted;
    size_t words;
    size_t count;               /* lights checked */
    uint64_t local[2 * 64];     /* up to 4096 lights: no allocation */
} light_marks;

static bool light_marks_init(light_marks *m, size_t light_count)
{
    m->words = (light_count + 63) / 64;
    m->count = 0;
    uint64_t *bits = m->local;
    if (2 * m->words > sizeof m->local / sizeof *m->local) {
        if (!(bits = pmf_budget_calloc(2 * m->words, sizeof *bits)))
            return false;
    } else {
        memset(bits, 0, 2 * m->words * sizeof *bits);
    }
    m->checked = bits;
    m->wanted = bits + m->words;
    return true;
}

/* Marks light id (checked, and wanted when it is): 1 when it is newly wanted. */
static size_t light_mark(const light_grid *grid, light_marks *m, uint32_t id, unsigned kinds, const float min[3],
                         const float max[3])
{
    uint64_t bit = 1ull << (id & 63);
    if (m->checked[id >> 6] & bit)
        return 0;
    m->checked[id >> 6] |= bit;
    m->count++;
    if (!light_wanted(grid, id, kinds, min, max))
        return 0;
    m->wanted[id >> 6] |= bit;
    return 1;
}

/* The wanted lights, ascending, into `out`. */
static bool light_marks_take(const light_marks *m, id_list *out)
{
    bool ok = true;
    for (size_t w = 0; w < m->words && ok; w++)
        for (uint64_t bits = m->wanted[w]; bits && ok; bits &= bits - 1)
            ok = id_list_push(out, (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits)));
    return ok;
}

static void light_marks_free(light_marks *m)
{
    if (m->checked != m->local)
        pmf_budget_free(m->checked);
}

/* Marks the lights of the given kinds (KIND_BIT set) whose reach overlaps [min, max] until `enough`
 * are: how many. */
static size_t light_grid_mark(const light_grid *grid, const float min[3], const float max[3], unsigned kinds,
                              size_t enough, light_marks *marks)
{
    size_t found = 0;
    int64_t c0[3], c1[3];
    if (!(kinds & grid->kinds)) /* a map's lights are most often all static */
        return 0;
    if (!grid_cells(grid, min, max, c0, c1) || grid_cell_count(c0, c1) > GRID_QUERY_MAX_CELLS) {
        for (size_t i = 0; i < grid->light_count && found < enough; i++)
            found += light_mark(grid, marks, (uint32_t)i, kinds, min, max);
        return found;
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
                for (uint32_t e = grid->starts[lo]; e < grid->starts[lo + 1] && found < enough; e++)
                    found += light_mark(grid, marks, grid->entries[e], kinds, min, max);
            }
    for (size_t i = 0; i < grid->global_count && found < enough; i++)
        found += light_mark(grid, marks, grid->global[i], kinds, min, max);
    return found;
}

/* The lights of the given kinds (KIND_BIT set) whose reach overlaps [min, max], ascending, into
 * `out` (emptied first); the lights checked added to *checks when given. */
static bool light_grid_query(const light_grid *grid, const float min[3], const float max[3], unsigned kinds,
                             id_list *out, atomic_uint_fast64_t *checks)
{
    out->count = 0;
    light_marks marks;
    if (!light_marks_init(&marks, grid->light_count))
        return false;
    light_grid_mark(grid, min, max, kinds, SIZE_MAX, &marks);
    bool ok = light_marks_take(&marks, out);
    if (checks)
        atomic_fetch_add_explicit(checks, marks.count, memory_order_relaxed);
    light_marks_free(&marks);
    return ok;
}

/* Whether at least `enough` lights of the given kinds reach [min, max] (false when out of memory);
 * the lights checked added to *checks. */
static bool light_grid_reach_at_least(const light_grid *grid, const float min[3], const float max[3], unsigned kinds,
                                      size_t enough, atomic_uint_fast64_t *checks)
{
    light_marks marks;
    if (!light_marks_init(&marks, grid->light_count))
        return false;
    bool ok = light_grid_mark(grid, min, max, kinds, enough, &marks) >= enough;
    atomic_fetch_add_explicit(checks, marks.count, memory_order_relaxed);
    light_marks_free(&marks);
    return ok;
}

/* ---- the light model -------------------------------------------------------------------- */

typedef struct bake_ctx {
    const bake_desc *desc;
    bvh tree;
    bvh sky_tree;               /* open sky (desc->sky_triangles) */
    float reach;                /* a ray this long from anywhere in the map leaves it */
    float (*dome)[3];           /* the upper sky dome's directions (bake_desc.domes), NULL without domes */
    size_t dome_count;
    float dome_step;            /* radians between neighbours on a ring: a luxel turns them by a share of it */
    light_grid grid;
    uint8_t **masks;            /* [lightmap]: 1 where a patch covers the luxel */
    uint8_t **rings;            /* [lightmap]: its dilation's state (dilate), its layers dilated from it */
    uint32_t **patch_dynamic;   /* [patch]: dynamic lights reaching it, ascending */
    uint32_t *patch_dynamic_count;
    uint8_t **patch_floor;      /* [patch]: its luxels' least light (bake_patch.minlight), RGB8; NULL: none */
    layer_task *tasks;
    size_t task_count;
    uint8_t *task_lit;          /* [task]: the task wrote a non-zero luxel */
    uint32_t *task_kept;        /* [task]: its bytes in the earlier bake's layer pieces, or NO_PIECE */
    uint32_t *task_piece;       /* [task]: where its bytes go in desc->terms' layer pieces, or NO_PIECE */
    uint32_t (*layer_rect)[4];  /* [layer]: the box x0 y0 x1 y1 of its tasks' patches in its lightmap */
    bake_result *out;
    uint32_t *fast_ordinal;     /* [light]: row in out->fast_multipliers */
    bake_probe_result *probes;  /* each with its own refs until pack_probes */
    bake_light *removed, *added; /* a relight: the lights that differ, as they were and as they are */
    size_t removed_count, added_count;
    uint32_t *earlier;          /* a relight: [light] the earlier bake's light equal to it, or UINT32_MAX */
    atomic_size_t traced_pieces;            /* bake_result.traced_layer_pieces */
    atomic_uint_fast64_t dilated_luxels;    /* bake_result.dilated_luxels */
    atomic_uint_fast64_t dilate_looked;     /* bake_result.dilate_looked */
    atomic_uint_fast64_t relit_luxels;
    atomic_uint_fast64_t patch_light_checks; /* bake_result.patch_light_checks */
    atomic_size_t relit_probes;             /* bake_result.relit_probes */
    const uint8_t (*kept_probes)[3];        /* a relight's probes' stored static light, NULL: light them all */
    atomic_bool failed;
} bake_ctx;

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
 * crosses a sky triangle, or before it leaves the map when it crosses none (unless
 * bake_desc.sky_faces_only). */
static bool sees_sky(const bake_ctx *ctx, const float from[3], const float dir[3], uint32_t *occluder)
{
    float to[3];
    for (int a = 0; a < 3; a++)
        to[a] = from[a] + dir[a] * ctx->reach;
    float s_sky = 1.0f, s_block;
    /* The face that blocked a neighbouring ray, when it blocks this one at s_block, leaves the ray
     * the sky only where a sky face comes first: searched up to a hair past s_block, not across the
     * map (the same answer, for a short search). */
    if (occluder && *occluder != NO_OCCLUDER &&
        bvh_triangle_hit_at(ctx->desc->triangles[*occluder], from, to, 0.0f, 1.0f, &s_block)) {
        if (!bvh_segment_nearest(&ctx->sky_tree, from, to, 0.0f, fminf(s_block + BAKE_SKY_MARGIN, 1.0f), &s_sky) ||
            s_block < s_sky)
            return false;
        return !bvh_segment_occluded(&ctx->tree, from, to, 0.0f, s_sky, occluder);
    }
    if (!bvh_segment_nearest(&ctx->sky_tree, from, to, 0.0f, 1.0f, &s_sky) && ctx->desc->sky_faces_only &&
        ctx->desc->sky_triangle_count)
        return false;
    return !bvh_segment_occluded(&ctx->tree, from, to, 0.0f, s_sky, occluder);
}

/* The way a shadow ray toward light l leaves p: straight at the light's position (the sun's own
 * direction) for disc = NULL, else at point `disc` of the unit disc scaled to the light's size,
 * held across the ray. For a sun, *to is a unit direction; for the others, a point. */
static void light_target(const bake_light *l, const float p[3], const float *disc, float to[3])
{
    bool sun = l->shape == BAKE_SHAPE_SUN;
    float axis[3];
    for (int a = 0; a < 3; a++) {
        axis[a] = sun ? -l->direction[a] : l->position[a] - p[a];
        to[a] = sun ? axis[a] : l->position[a];
    }
    float len = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    if (!disc || !(l->radius > 0.0f) || !(len > 0.0f))
        return;
    for (int a = 0; a < 3; a++)
        axis[a] /= len;
    float t[3], b[3];
    sample_basis(axis, t, b);
    float size = sun ? tanf(fminf(l->radius, 1.4f)) : l->radius;
    for (int a = 0; a < 3; a++)
        to[a] += size * (disc[0] * t[a] + disc[1] * b[a]);
    if (sun) {
        len = sqrtf(to[0] * to[0] + to[1] * to[1] + to[2] * to[2]);
        for (int a = 0; a < 3; a++)
            to[a] /= len;
    }
}

/* I * angle(sn . l) * falloff(d) * cone of light l at p, unshadowed; a sun: I * angle(sn . l)
 * (light_model.h: the cosine, scaled by the light's anglescale, 0 facing away; its falloff mode).
 * sn = NULL means unoriented (sn . l taken as 1). */
static float light_unshadowed(const bake_light *l, const float p[3], const float *sn)
{
    if (l->shape == BAKE_SHAPE_SUN) {
        float toward[3] = { -l->direction[0], -l->direction[1], -l->direction[2] };
        float n_dot_l = sn ? sn[0] * toward[0] + sn[1] * toward[1] + sn[2] * toward[2] : 1.0f;
        return l->intensity * light_angle_term(n_dot_l, l->anglescale);
    }
    float d[3] = { l->position[0] - p[0], l->position[1] - p[1], l->position[2] - p[2] };
    float dist = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (!(dist < l->range))
        return 0.0f;
    float n_dot_l = 1.0f;
    if (sn && dist > 0.0f)
        n_dot_l = (sn[0] * d[0] + sn[1] * d[1] + sn[2] * d[2]) / dist;
    float strength = l->intensity * light_angle_term(n_dot_l, l->anglescale)
                   * light_falloff_mode(l->falloff, dist, l->range, l->falloff_distance);
    if (l->shape == BAKE_SHAPE_SPOT) {
        float to_point[3] = { -d[0], -d[1], -d[2] };
        strength *= light_cone_mode(l->cone, l->direction, l->cos_inner, l->cos_outer, to_point, dist);
    }
    return strength;
}

/* Whether the shadow ray from p (nudged off its surface along the true normal n) toward light l
 * (see light_target) is free. *occluder is the triangle that last blocked this light for a
 * neighbouring ray (or NO_OCCLUDER): tried first, since neighbours tend to be shadowed by the
 * same face. */
static bool light_visible(const bake_ctx *ctx, const bake_light *l, const float p[3], const float *n, const float *disc,
                          uint32_t *occluder)
{
    float from[3], to[3];
    ray_start(p, n, from);
    light_target(l, p, disc, to);
    if (l->shape == BAKE_SHAPE_SUN)
        return sees_sky(ctx, from, to, occluder);
    const float s_max = 1.0f - BAKE_LIGHT_SLACK;
    if (*occluder != NO_OCCLUDER && bvh_triangle_blocks(ctx->desc->triangles[*occluder], from, to, 0.0f, s_max))
        return false;
    return !bvh_segment_occluded(&ctx->tree, from, to, 0.0f, s_max, occluder);
}

/* Light l at p aimed at its centre: unshadowed when `occluder` is NULL, else 0 when blocked. */
static float light_strength(const bake_ctx *ctx, const bake_light *l, const float p[3], const float *n,
                            uint32_t *occluder)
{
    float strength = light_unshadowed(l, p, n);
    if (!(strength > 0.0f))
        return 0.0f;
    if (occluder && !light_visible(ctx, l, p, n, NULL, occluder))
        return 0.0f;
    return strength;
}

#define SITE_CACHE BAKE_MAX_SAMPLES
#define SITE_WALLS_MAX (4u << 20)   /* bytes of a patch's kept wall tests at most (site_walls) */

/* One luxel as the sampler sees it: its centre and square, its true and shading normals, its hash,
 * and which of its sample points lie behind a wall (see site_point). */
typedef struct luxel_site {
    const bake_ctx *ctx;
    float centre[3];
    const float *step_u, *step_v;
    const float *n, *sn;        /* NULL = unoriented; sn is n or `shade` */
    float shade[3];
    uint32_t seed;
    int samples;
    uint8_t *walled;            /* [SITE_CACHE]: 0 unknown, 1 open, 2 behind a wall */
    uint8_t own_walled[SITE_CACHE];
    uint32_t sampled_k;         /* sample_point's last k for this luxel (UINT32_MAX: none) and point */
    float sampled[4];
    bool shifted;               /* shift holds sample_shift(seed) */
    double shift[4];
} luxel_site;

/* sample_point(site->seed, k): a light ray takes its square's point and its disc's point from the
 * same k, so the last one is kept. */
static const float *site_sample(luxel_site *site, uint32_t k)
{
    if (site->sampled_k != k) {
        if (!site->shifted)
            sample_shift(site->seed, site->shift);
        site->shifted = true;
        sample_point_shifted(site->shift, k, site->sampled);
        site->sampled_k = k;
    }
    return site->sampled;
}

/* Point k of a luxel's square (its centre when the bake takes one sample). A point the luxel's
 * centre does not see (the square reaching past an inner corner into a wall) is replaced by the
 * centre, so walls meeting a floor leave no dark specks along the seam. */
static void site_point(luxel_site *site, uint32_t k, float p[3])
{
    if (site->samples <= 1) {
        memcpy(p, site->centre, sizeof site->centre);
        return;
    }
    const float *r = site_sample(site, k);
    for (int a = 0; a < 3; a++)
        p[a] = site->centre[a] + (r[0] - 0.5f) * site->step_u[a] + (r[1] - 0.5f) * site->step_v[a];
    uint8_t walled = k < SITE_CACHE ? site->walled[k] : 0;
    if (!walled) {
        /* from a hair behind the centre: a wall through the centre itself (a luxel centred on the
         * seam) counts too */
        float from[3], to[3];
        ray_start(p, site->n, to);
        ray_start(site->centre, site->n, from);
        for (int a = 0; a < 3; a++)
            from[a] -= BAKE_SEAM_BACK * (to[a] - from[a]);
        walled = bvh_segment_occluded(&site->ctx->tree, from, to, 0.0f, 1.0f, NULL) ? 2 : 1;
        if (k < SITE_CACHE)
            site->walled[k] = walled;
    }
    if (walled == 2)
        memcpy(p, site->centre, sizeof site->centre);
}

/* Point k of the unit disc, spread like the points of the square (where on a light a shadow ray
 * aims, or, lifted onto the half-sphere, a direction toward the sky). */
static void site_disc(luxel_site *site, uint32_t k, float disc[2])
{
    const float *r = site_sample(site, k);
    sample_disc(r[2], r[3], disc);
}

/* Luxel (i, j)'s centre, moved into its face's box (bake_patch.face_lo) when it lies outside. */
static void luxel_position(const bake_patch *patch, int i, int j, float out[3])
{
    float at[2] = { (float)i + 0.5f, (float)j + 0.5f };
    bool boxed = patch->face_hi[0] > patch->face_lo[0] && patch->face_hi[1] > patch->face_lo[1];
    for (int k = 0; k < 2 && boxed; k++) {
        float lo = patch->face_lo[k], hi = patch->face_hi[k];
        float inset = 0.5f * (hi - lo) < BAKE_FACE_INSET ? 0.5f * (hi - lo) : BAKE_FACE_INSET;
        at[k] = at[k] < lo + inset ? lo + inset : at[k] > hi - inset ? hi - inset : at[k];
    }
    for (int a = 0; a < 3; a++)
        out[a] = patch->origin[a] + at[0] * patch->step_u[a] + at[1] * patch->step_v[a];
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
    sample_basis(n, t, b);
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

/* Where hemisphere ray k of a luxel (sky or dirt) leaves from, and which way it goes: cosine-
 * weighted around `axis`. BAKE_SKY_SAMPLES of them, from the luxel's first `samples` points in
 * turn (whose wall tests the light rays share). */
static void site_hemisphere_ray(luxel_site *site, uint32_t k, const float axis[3], const float t[3], const float b[3],
                                float from[3], float dir[3])
{
    float p[3], disc[2];
    site_point(site, site->samples > 1 ? k % (uint32_t)site->samples : 0, p);
    site_disc(site, k, disc);
    ray_start(p, site->n, from);
    float w = sqrtf(fmaxf(0.0f, 1.0f - disc[0] * disc[0] - disc[1] * disc[1]));
    for (int a = 0; a < 3; a++)
        dir[a] = t[a] * disc[0] + b[a] * disc[1] + axis[a] * w;
}

/* sky_fraction over a luxel's samples, cosine-weighted around the shading normal. */
static float sky_fraction_sampled(const bake_ctx *ctx, luxel_site *site)
{
    float t[3], b[3];
    sample_basis(site->sn, t, b);
    uint32_t open = 0, occluder = NO_OCCLUDER;
    for (uint32_t k = 0; k < BAKE_SKY_SAMPLES; k++) {
        float from[3], dir[3];
        site_hemisphere_ray(site, k, site->sn, t, b, from, dir);
        open += sees_sky(ctx, from, dir, &occluder);
    }
    return (float)open / BAKE_SKY_SAMPLES;
}

/* Ambient occlusion: the mean over cosine-weighted rays of (1 - hit distance / dirt_distance),
 * 0 for rays that meet nothing within it. faces[k]: the face ray k of the patch's last luxel met
 * first (or NO_OCCLUDER); where this ray meets it too, the nearest face lies no farther, so the
 * search stops a hair past it (the same answer, sooner), and goes the whole way only when it finds
 * nothing there (the face met only within the tree's edge slack, outside its box). */
static float dirt_occlusion(const bake_ctx *ctx, luxel_site *site, uint32_t faces[BAKE_SKY_SAMPLES])
{
    float t[3], b[3];
    sample_basis(site->n, t, b);
    float sum = 0.0f, reach = ctx->desc->dirt_distance;
    for (uint32_t k = 0; k < BAKE_SKY_SAMPLES; k++) {
        float from[3], dir[3], to[3];
        site_hemisphere_ray(site, k, site->n, t, b, from, dir);
        for (int a = 0; a < 3; a++)
            to[a] = from[a] + reach * dir[a];
        float hit, s_max = 1.0f, s_known;
        if (faces[k] != NO_OCCLUDER && bvh_triangle_hit_at(ctx->desc->triangles[faces[k]], from, to, 0.0f, 1.0f, &s_known))
            s_max = fminf(s_known + BAKE_SKY_MARGIN, 1.0f);
        if (bvh_segment_nearest_triangle(&ctx->tree, from, to, 0.0f, s_max, &hit, &faces[k]) ||
            (s_max < 1.0f && bvh_segment_nearest_triangle(&ctx->tree, from, to, 0.0f, 1.0f, &hit, &faces[k])))
            sum += 1.0f - hit;
    }
    return sum / BAKE_SKY_SAMPLES;
}

static bool sky_lit(const bake_desc *desc)
{
    return desc->sky_light[0] > 0.0f || desc->sky_light[1] > 0.0f || desc->sky_light[2] > 0.0f;
}

static bool dome_lit(const bake_dome *dome)
{
    return dome->color[0] > 0.0f || dome->color[1] > 0.0f || dome->color[2] > 0.0f;
}

/* ericw-tools' dome of suns over the upper half of the sky (bake.h, bake_desc.domes): ring by ring
 * from the horizon up, then the pole. False only when out of memory. */
static bool dome_build(bake_ctx *ctx)
{
    const bake_desc *desc = ctx->desc;
    if (!dome_lit(&desc->domes[0]) && !dome_lit(&desc->domes[1]))
        return true;
    int samples = desc->dome_samples > 0 ? desc->dome_samples : BAKE_DOME_SAMPLES;
    samples = samples < BAKE_DOME_MAX_SAMPLES ? samples : BAKE_DOME_MAX_SAMPLES;
    int rings = (int)lrint(sqrt((double)((samples - 1) / 4)));
    rings = rings > 1 ? rings : 1;
    ctx->dome_count = (size_t)(4 * rings * rings + 1);
    ctx->dome = pmf_budget_malloc(ctx->dome_count * sizeof *ctx->dome);
    if (!ctx->dome)
        return false;
    double step_up = (M_PI / 2) / (rings + 1), step_around = 2 * M_PI / (4 * rings);
    size_t k = 0;
    for (int i = 0; i < rings; i++) {
        double up = (i + 0.5) * step_up;
        for (int j = 0; j < 4 * rings; j++, k++) {
            double around = j * step_around + i * step_around / rings;
            ctx->dome[k][0] = (float)(cos(up) * cos(around));
            ctx->dome[k][1] = (float)sin(up);
            ctx->dome[k][2] = (float)(cos(up) * sin(around));
        }
    }
    ctx->dome[k][0] = ctx->dome[k][2] = 0.0f;
    ctx->dome[k][1] = 1.0f;
    ctx->dome_step = (float)step_around;
    return true;
}

/* The share of a sky dome's light that reaches a luxel (a probe: unoriented): the mean over the
 * dome's directions d, turned about Y by the luxel's own share of a step, of angle(sn . d) where
 * the ray along d from the luxel's sample points in turn sees sky. `pole` is 1 for the upper half,
 * -1 for the lower. */
static float dome_share(const bake_ctx *ctx, luxel_site *site, const bake_dome *dome, float pole)
{
    float turn = (float)(site->seed >> 8) * (ctx->dome_step / 16777216.0f), c = cosf(turn), s = sinf(turn);
    float sum = 0.0f;
    uint32_t occluder = NO_OCCLUDER;
    for (size_t k = 0; k < ctx->dome_count; k++) {
        const float *u = ctx->dome[k];
        float d[3] = { u[0] * c - u[2] * s, pole * u[1], u[0] * s + u[2] * c };
        float weight = site->sn ? light_angle_term(site->sn[0] * d[0] + site->sn[1] * d[1] + site->sn[2] * d[2],
                                                   dome->anglescale)
                                : 1.0f;
        /* a direction into the face itself is blocked by it */
        if (!(weight > 0.0f) || (site->n && !(site->n[0] * d[0] + site->n[1] * d[1] + site->n[2] * d[2] > 0.0f)))
            continue;
        float p[3], from[3];
        site_point(site, site->samples > 1 ? (uint32_t)(k % (size_t)site->samples) : 0, p);
        ray_start(p, site->n, from);
        if (sees_sky(ctx, from, d, &occluder))
            sum += weight;
    }
    return sum / (float)ctx->dome_count;
}

/* Luxel (i, j)'s centre, and the normal light is measured against there: n, or the patch's smooth
 * shading normal (written to shade). All of its site that patch_light's first pass needs. */
static const float *luxel_centre(const bake_patch *patch, const float *n, int i, int j, float centre[3], float shade[3])
{
    luxel_position(patch, i, j, centre);
    bool smooth = patch->shade_normal[0] != 0.0f || patch->shade_normal[1] != 0.0f || patch->shade_normal[2] != 0.0f;
    if (!n || !smooth)
        return n;
    float raw[3];
    for (int a = 0; a < 3; a++)
        raw[a] = patch->shade_normal[a] + ((float)i + 0.5f) * patch->shade_du[a] + ((float)j + 0.5f) * patch->shade_dv[a];
    return bake_unit(raw, shade) ? shade : n;
}

/* Luxel (i, j) of a patch: its centre, true normal n (NULL when the patch has none) and shading
 * normal (n itself when the patch is flat). `walls` is the luxel's SITE_CACHE bytes of a patch's
 * wall tests (site_walls), kept across its lights, sky and dirt; NULL: its own, unknown. */
static void site_init(luxel_site *site, const bake_ctx *ctx, const bake_patch *patch, const float *n, int i, int j,
                      uint8_t *walls)
{
    site->ctx = ctx;
    site->sampled_k = UINT32_MAX;
    site->shifted = false;
    site->walled = walls ? walls : site->own_walled;
    if (!walls)
        memset(site->own_walled, 0, sizeof site->own_walled);
    site->step_u = patch->step_u;
    site->step_v = patch->step_v;
    site->n = n;
    site->sn = luxel_centre(patch, n, i, j, site->centre, site->shade);
    /* from the patch's seed and the luxel's place in its block alone: the same in a tile as in the
     * whole level, wherever the level lies, and wherever the block lies in the lightmaps */
    site->seed = sample_hash(sample_hash(patch->seed) ^ (uint32_t)i * 73856093u ^ (uint32_t)j * 19349663u);
    site->samples = ctx->desc->samples < BAKE_MAX_SAMPLES ? ctx->desc->samples : BAKE_MAX_SAMPLES;
}

/* The wall tests of a patch's `count` luxels, zeroed (site_init), or NULL where the patch takes one
 * sample a luxel, is too large, or memory is short: then each luxel tests its own again. */
static uint8_t *site_walls(const bake_ctx *ctx, size_t count)
{
    if (ctx->desc->samples <= 1 || count > SITE_WALLS_MAX / SITE_CACHE)
        return NULL;
    return pmf_budget_calloc(count, SITE_CACHE);
}

static uint8_t *luxel_walls(uint8_t *walls, size_t at)
{
    return walls ? walls + at * SITE_CACHE : NULL;
}

/* The one-sample sky pattern's seed, from the luxel's place in its block (it takes the patch's index, so
 * a tiled build may turn it differently; the sampled sky uses the patch's seed, see site_init) */
static uint32_t luxel_seed(uint32_t i, uint32_t j, size_t patch)
{
    return (uint32_t)(i * 73856093u ^ j * 19349663u ^ patch * 83492791u);
}

/* The mean of light l over points of a luxel's square, each ray aimed at its own point of the
 * light's disc (a hard light: at its centre): `first` rays, and `most` where those disagree. */
static float luxel_light_sampled(const bake_ctx *ctx, const bake_light *l, luxel_site *site, uint32_t first,
                                 uint32_t most, uint32_t *occluder)
{
    float sum = 0.0f;
    uint32_t rays = first, seen = 0, hidden = 0;
    for (uint32_t k = 0; k < rays; k++) {
        float p[3], disc[2];
        site_point(site, k, p);
        site_disc(site, k, disc);
        float strength = light_unshadowed(l, p, site->sn);
        if (strength > 0.0f) {
            if (light_visible(ctx, l, p, site->n, disc, occluder)) {
                sum += strength;
                seen++;
            } else {
                hidden++;
            }
        }
        if (k + 1 == first && seen && hidden)
            rays = most;
    }
    return sum / (float)rays;
}

/* Whether BAKE_SOFT_RAYS rays from the luxel's centre toward evenly turned points of the light's rim
 * disagree with `lit` (its ray to the light's centre): then part of the disc is hidden. */
static bool luxel_rim_mixed(const bake_ctx *ctx, const bake_light *l, const luxel_site *site, bool lit,
                            uint32_t *occluder)
{
    float turn = (float)(site->seed >> 8) * (6.2831853f / 16777216.0f);
    for (uint32_t k = 0; k < BAKE_SOFT_RAYS; k++) {
        float angle = turn + 6.2831853f * (float)k / BAKE_SOFT_RAYS, disc[2] = { cosf(angle), sinf(angle) };
        if (light_visible(ctx, l, site->centre, site->n, disc, occluder) != lit)
            return true;
    }
    return false;
}

static float vector_length(const float v[3])
{
    return sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

/* Light l over a patch's first w x h luxels into strength[j * w + i]: first each luxel's centre
 * aimed at the light's centre (the plain light model; with one sample and a point light that is
 * all). Then the luxels that may straddle a shadow's edge take `samples` (at least BAKE_SOFT_RAYS)
 * rays over their square and the light's disc, BAKE_REFINE times more where those disagree: the
 * luxels whose centre disagrees with a neighbour's, and, for a light
 * wider than half a luxel (a sun with a size, or a lamp whose penumbra may span several luxels),
 * those whose rim rays disagree with their centre. `lit` is scratch of w x h bytes. Where the light
 * only fades (its range, a surface turning away, a spot's cone) nothing is refined: that is smooth. */
enum { CENTRE_UNLIT, CENTRE_SEES, CENTRE_HIDDEN };    /* patch_light's first pass, per luxel */

/* For a light that adds less than BAKE_WEAK_LIGHT to each of a patch's luxels (a far one of many:
 * a Quake light reaches as far as ericw-tools' gate): CENTRE_SEES or CENTRE_HIDDEN when the rays
 * from the patch's corner luxels and its middle one that it lights all agree (the whole patch is
 * taken as they say), else CENTRE_UNLIT (each luxel traces its own). */
static int weak_light_sight(const bake_ctx *ctx, const bake_light *l, const bake_patch *patch, const float *n, int w,
                            int h, uint32_t *occluder)
{
    const int probes[5][2] = { { 0, 0 }, { w - 1, 0 }, { 0, h - 1 }, { w - 1, h - 1 }, { w / 2, h / 2 } };
    int seen = CENTRE_UNLIT;
    for (int k = 0; k < 5; k++) {
        float centre[3], shade[3];
        const float *sn = luxel_centre(patch, n, probes[k][0], probes[k][1], centre, shade);
        if (!(light_unshadowed(l, centre, sn) > 0.0f))
            continue;
        int sight = light_visible(ctx, l, centre, n, NULL, occluder) ? CENTRE_SEES : CENTRE_HIDDEN;
        if (seen != CENTRE_UNLIT && sight != seen)
            return CENTRE_UNLIT;
        seen = sight;
    }
    return seen;
}

static void patch_light(const bake_ctx *ctx, const bake_light *l, const bake_patch *patch, const float *n, int w, int h,
                        uint32_t *occluder, float *strength, uint8_t *lit, uint8_t *walls)
{
    luxel_site site;
    float brightest = 0.0f;
    for (int at = 0; at < w * h; at++) {
        float centre[3], shade[3];
        const float *sn = luxel_centre(patch, n, at % w, at / w, centre, shade);
        strength[at] = light_unshadowed(l, centre, sn);
        brightest = strength[at] > brightest ? strength[at] : brightest;
    }
    bool weak = brightest < BAKE_WEAK_LIGHT;
    int whole = weak ? weak_light_sight(ctx, l, patch, n, w, h, occluder) : CENTRE_UNLIT;
    for (int at = 0; at < w * h; at++) {
        lit[at] = (uint8_t)whole;
        if (!(strength[at] > 0.0f)) {
            lit[at] = CENTRE_UNLIT;
        } else if (whole == CENTRE_UNLIT) {
            site_init(&site, ctx, patch, n, at % w, at / w, luxel_walls(walls, (size_t)at));
            lit[at] = light_visible(ctx, l, site.centre, site.n, NULL, occluder) ? CENTRE_SEES : CENTRE_HIDDEN;
        }
        if (lit[at] != CENTRE_SEES)
            strength[at] = 0.0f;
    }
    if (weak)
        return;     /* its shadow's edges are not refined: under half a byte either way */
    int samples = ctx->desc->samples < BAKE_MAX_SAMPLES ? ctx->desc->samples : BAKE_MAX_SAMPLES;
    if (samples <= 1 && !(l->radius > 0.0f))
        return;
    uint32_t first = (uint32_t)(samples > BAKE_SOFT_RAYS ? samples : BAKE_SOFT_RAYS), most = first * BAKE_REFINE;
    float luxel = fmaxf(vector_length(patch->step_u), vector_length(patch->step_v));
    for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++) {
            int at = j * w + i;
            bool edge = false;
            for (int dj = -1; dj <= 1 && !edge; dj++)
                for (int di = -1; di <= 1 && !edge; di++) {
                    int ni = i + di, nj = j + dj;
                    /* a shadow's edge, not where the light fades out (range, facing, cone) */
                    edge = ni >= 0 && nj >= 0 && ni < w && nj < h && lit[at] != CENTRE_UNLIT &&
                           lit[nj * w + ni] != CENTRE_UNLIT && lit[nj * w + ni] != lit[at];
                }
            bool wide = l->radius > 0.0f && (l->shape == BAKE_SHAPE_SUN || l->radius > 0.5f * luxel);
            if (!edge && !wide)
                continue;
            site_init(&site, ctx, patch, n, i, j, luxel_walls(walls, (size_t)at));
            if (!edge && lit[at] != CENTRE_UNLIT)
                edge = luxel_rim_mixed(ctx, l, &site, lit[at] == CENTRE_SEES, occluder);
            if (edge)
                strength[at] = luxel_light_sampled(ctx, l, &site, first, most, occluder);
        }
}

/* patch_light, and for a two-sided patch (bake_patch.two_sided) the light from behind it added:
 * the same model with the normal turned over (a light lies on one side or the other, so the sum is
 * the angle term of |n . l|). `scratch` holds w x h floats; `walls` is the patch's wall tests
 * (site_walls) for its front, the back's its own. */
static void patch_light_sides(const bake_ctx *ctx, const bake_light *l, const bake_patch *patch, const float *n, int w,
                              int h, uint32_t *occluder, float *strength, uint8_t *lit, float *scratch, uint8_t *walls)
{
    patch_light(ctx, l, patch, n, w, h, occluder, strength, lit, walls);
    if (!patch->two_sided || !n)
        return;
    float back[3] = { -n[0], -n[1], -n[2] };
    patch_light(ctx, l, patch, back, w, h, occluder, scratch, lit, NULL);
    for (int at = 0; at < w * h; at++)
        strength[at] += scratch[at];
}

/* Each of a patch's w x h values becomes the mean of its 3 x 3 neighbourhood inside the patch;
 * with skip_zero, neighbours at 0 (a border luxel inside a wall sees no sky) count only for a
 * luxel that is 0 itself. `scratch` holds w x h floats. */
static void patch_blur(float *values, int w, int h, bool skip_zero, float *scratch)
{
    memcpy(scratch, values, (size_t)w * (size_t)h * sizeof *values);
    for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++) {
            float own = scratch[j * w + i], sum = 0.0f;
            int count = 0;
            for (int nj = j - 1; nj <= j + 1; nj++)
                for (int ni = i - 1; ni <= i + 1; ni++) {
                    if (ni < 0 || nj < 0 || ni >= w || nj >= h)
                        continue;
                    float v = scratch[nj * w + ni];
                    if (skip_zero && v == 0.0f && own != 0.0f)
                        continue;
                    sum += v;
                    count++;
                }
            values[j * w + i] = sum / (float)count;
        }
}

/* ---- stage: base lightmaps (and which dynamic lights reach each patch) ------------------ */

/* The dynamic lights among a patch's lights, kept for its layers (ctx->patch_dynamic[index]).
 * False when out of memory. */
static bool keep_dynamic_lights(bake_ctx *ctx, size_t index, const id_list *lights)
{
    const bake_desc *desc = ctx->desc;
    size_t dynamic = 0;
    for (size_t k = 0; k < lights->count; k++)
        dynamic += desc->lights[lights->ids[k]].kind == BAKE_LIGHT_DYNAMIC;
    if (dynamic == 0)
        return true;
    uint32_t *ids = pmf_budget_malloc(dynamic * sizeof *ids);
    if (!ids)
        return false;
    ctx->patch_dynamic[index] = ids;
    for (size_t k = 0; k < lights->count; k++)
        if (desc->lights[lights->ids[k]].kind == BAKE_LIGHT_DYNAMIC)
            ids[ctx->patch_dynamic_count[index]++] = lights->ids[k];
    return true;
}

/* The sky domes' shares over a patch's w x h luxels facing n (averaged like the sky's when blur)
 * into their terms, for each dome `which` names. */
static void dome_terms(const bake_ctx *ctx, const bake_patch *patch, const float *n, int w, int h, bool blur,
                       const bool which[2], float *strength, float *scratch, uint8_t *walls, bake_term *terms)
{
    size_t count = (size_t)w * (size_t)h;
    for (int d = 0; d < 2; d++) {
        const bake_dome *dome = &ctx->desc->domes[d];
        if (!which[d])
            continue;
        for (int j = 0; j < h; j++)
            for (int i = 0; i < w; i++) {
                luxel_site site;
                site_init(&site, ctx, patch, n, i, j, luxel_walls(walls, (size_t)j * w + i));
                strength[(size_t)j * w + i] = dome_share(ctx, &site, dome, d ? -1.0f : 1.0f);
            }
        if (blur)
            patch_blur(strength, w, h, true, scratch);
        for (size_t at = 0; at < count; at++)
            terms[at].dome[d] = strength[at];
    }
}

/* Whether dirt darkens an oriented patch (not a liquid's, lit from both sides: bake_patch.two_sided). */
static bool patch_dirt(const bake_desc *desc, const bake_patch *patch, bool oriented)
{
    return oriented && desc->dirt_distance > 0.0f && desc->dirt_strength > 0.0f && !patch->two_sided;
}

/* The sky's share and what dirt keeps per luxel into their terms; with several samples each is
 * averaged with its neighbours' (16 rays a luxel leave noise that 9 luxels' 144 do not). */
static void sky_dirt_terms(const bake_ctx *ctx, const bake_patch *patch, size_t index, const float *n, int w, int h,
                           bool sky, bool dirt, float *strength, float *occlusion, float *scratch, uint8_t *walls,
                           bake_term *terms)
{
    const bake_desc *desc = ctx->desc;
    uint32_t dirt_faces[BAKE_SKY_SAMPLES];
    for (int k = 0; k < BAKE_SKY_SAMPLES; k++)
        dirt_faces[k] = NO_OCCLUDER;
    for (int j = 0; j < h && (sky || dirt); j++)
        for (int i = 0; i < w; i++) {
            size_t at = (size_t)j * w + i;
            luxel_site site;
            site_init(&site, ctx, patch, n, i, j, luxel_walls(walls, at));
            if (sky)
                strength[at] = site.samples > 1 || site.sn != n ? sky_fraction_sampled(ctx, &site)
                                                                : sky_fraction(ctx, site.centre, n, luxel_seed((uint32_t)i, (uint32_t)j, index));
            if (dirt)
                occlusion[at] = dirt_occlusion(ctx, &site, dirt_faces);
        }
    bool blur = desc->samples > 1;
    if (sky && blur)
        patch_blur(strength, w, h, true, scratch);
    if (dirt && blur)
        patch_blur(occlusion, w, h, false, scratch);
    for (size_t at = 0; at < (size_t)w * (size_t)h; at++) {
        if (sky)
            terms[at].sky = strength[at];
        if (dirt)
            terms[at].keep = 1.0f - fminf(desc->dirt_strength, 1.0f) * occlusion[at];
    }
}

/* The scratch a patch's terms take: a value, a byte and the light hints per luxel. */
typedef struct patch_scratch {
    uint32_t *occluders;
    float *strength, *occlusion, *blur;
    uint8_t *lit;
    uint8_t *walls;             /* the luxels' wall tests, kept across lights, domes, sky and dirt (site_walls) */
} patch_scratch;

/* Light l over a patch's luxels added to their sums (sign 1), or taken from them (sign -1). */
static void light_terms(const bake_ctx *ctx, const bake_light *l, const bake_patch *patch, const float *n, int w, int h,
                        float sign, uint32_t *occluder, patch_scratch *s, bake_term *terms)
{
    float *strength = s->strength;
    patch_light_sides(ctx, l, patch, n, w, h, occluder, strength, s->lit, s->blur, s->walls);
    for (size_t at = 0; at < (size_t)w * (size_t)h; at++) {
        double *sum = l->no_dirt ? terms[at].clean : terms[at].dirtied;
        for (int c = 0; c < 3; c++)
            sum[c] += sign * (double)(l->color[c] * strength[at]);
    }
}

/* A patch's luxels stored from their terms: ((dirtied + domes + sky) x keep + clean). */
static void store_terms(const bake_ctx *ctx, const bake_patch *patch, bool oriented, int w, int h,
                        const bake_term *terms)
{
    const bake_desc *desc = ctx->desc;
    bake_lightmap *lm = &desc->lightmaps[patch->lightmap];
    uint32_t side = lightmap_side(lm);
    bool sky = oriented && sky_lit(desc), dirt = patch_dirt(desc, patch, oriented);
    for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++) {
            const bake_term *t = &terms[(size_t)j * w + i];
            float rgb[3], clean[3];
            for (int c = 0; c < 3; c++) {
                rgb[c] = (float)t->dirtied[c];
                clean[c] = (float)t->clean[c];
            }
            for (int d = 0; d < 2 && oriented; d++)
                for (int c = 0; c < 3 && dome_lit(&desc->domes[d]); c++)
                    (desc->domes[d].no_dirt ? clean : rgb)[c] += desc->domes[d].color[c] * t->dome[d];
            for (int c = 0; c < 3 && sky; c++)
                rgb[c] += desc->sky_light[c] * t->sky;
            for (int c = 0; c < 3 && dirt; c++)
                rgb[c] *= t->keep;
            size_t luxel = ((size_t)patch->y + (size_t)j) * side + patch->x + (size_t)i;
            for (int c = 0; c < 3; c++)
                lm->luxels[luxel * 3 + c] = quantize(bake_store(desc, rgb[c] + clean[c]) * 255.0f);
            ctx->masks[patch->lightmap][luxel] = 1;
        }
}

/* The part of a patch inside its lightmap, w x h luxels. */
static void patch_extent(const bake_desc *desc, const bake_patch *patch, int *w, int *h)
{
    uint32_t side = lightmap_side(&desc->lightmaps[patch->lightmap]);
    *w = patch->x < side ? (int)(side - patch->x < patch->w ? side - patch->x : patch->w) : 0;
    *h = patch->y < side ? (int)(side - patch->y < patch->h ? side - patch->y : patch->h) : 0;
}

static bool patch_scratch_alloc(const bake_ctx *ctx, patch_scratch *s, size_t lights, size_t count)
{
    s->walls = site_walls(ctx, count);
    s->occluders = pmf_budget_malloc((lights + 1) * sizeof *s->occluders);
    s->strength = pmf_budget_malloc((count + 1) * sizeof *s->strength);
    s->occlusion = pmf_budget_malloc((count + 1) * sizeof *s->occlusion);
    s->blur = pmf_budget_malloc((count + 1) * sizeof *s->blur);
    s->lit = pmf_budget_malloc(count + 1);
    for (size_t k = 0; s->occluders && k < lights; k++)
        s->occluders[k] = NO_OCCLUDER;
    return s->occluders && s->strength && s->occlusion && s->blur && s->lit;
}

static void patch_scratch_free(patch_scratch *s)
{
    pmf_budget_free(s->occluders);
    pmf_budget_free(s->strength);
    pmf_budget_free(s->occlusion);
    pmf_budget_free(s->blur);
    pmf_budget_free(s->lit);
    pmf_budget_free(s->walls);
}

/* A patch's light sums from nothing: the ambient term, then its static lights. */
static void sum_lights(const bake_ctx *ctx, const bake_patch *patch, const float *n, int w, int h, const id_list *lights,
                       patch_scratch *s, bake_term *terms)
{
    const bake_desc *desc = ctx->desc;
    for (size_t at = 0; at < (size_t)w * (size_t)h; at++)
        for (int c = 0; c < 3; c++) {
            /* an ambient floor (bake_desc.ambient_floor) is applied after the bounces instead */
            terms[at].dirtied[c] = desc->ambient_no_dirt || desc->ambient_floor ? 0.0 : desc->ambient[c];
            terms[at].clean[c] = desc->ambient_no_dirt && !desc->ambient_floor ? desc->ambient[c] : 0.0;
        }
    /* light by light (each luxel adds them in the same order as ever) */
    for (size_t k = 0; k < lights->count; k++) {
        const bake_light *l = &desc->lights[lights->ids[k]];
        if (l->kind == BAKE_LIGHT_STATIC)
            light_terms(ctx, l, patch, n, w, h, 1.0f, &s->occluders[k], s, terms);
    }
}

/* A patch's terms traced whole: the ambient term, its static lights, the domes, sky and dirt. */
static void trace_terms(const bake_ctx *ctx, const bake_patch *patch, size_t index, const float *n, int w, int h,
                        const id_list *lights, patch_scratch *s, bake_term *terms)
{
    const bake_desc *desc = ctx->desc;
    for (size_t at = 0; at < (size_t)w * (size_t)h; at++)
        terms[at] = (bake_term){ .keep = 1.0f };
    sum_lights(ctx, patch, n, w, h, lights, s, terms);
    /* the shares the kept terms say are traced (a dark dome's too, once it was lit) */
    const bake_terms *kept = desc->terms;
    bool domes[2] = { n && (kept ? kept->domes[0] : dome_lit(&desc->domes[0])),
                      n && (kept ? kept->domes[1] : dome_lit(&desc->domes[1])) };
    dome_terms(ctx, patch, n, w, h, desc->samples > 1, domes, s->strength, s->blur, s->walls, terms);
    sky_dirt_terms(ctx, patch, index, n, w, h, n && (kept ? kept->sky : sky_lit(desc)), patch_dirt(desc, patch, n != NULL),
                   s->strength, s->occlusion, s->blur, s->walls, terms);
}

/* A relight's patch summed again from all its static lights (relight_terms). */
static void resum_lights(bake_ctx *ctx, const bake_patch *patch, const float *n, int w, int h, const float min[3],
                         const float max[3], patch_scratch *s, bake_term *terms)
{
    id_list lights = { 0 };
    uint32_t *occluders = NULL;
    if (light_grid_query(&ctx->grid, min, max, KIND_BIT(BAKE_LIGHT_STATIC), &lights, &ctx->patch_light_checks) &&
        (occluders = pmf_budget_malloc((lights.count + 1) * sizeof *occluders))) {
        for (size_t k = 0; k < lights.count; k++)
            occluders[k] = NO_OCCLUDER;
        patch_scratch own = *s;
        own.occluders = occluders;
        sum_lights(ctx, patch, n, w, h, &lights, &own, terms);
    } else {
        atomic_store(&ctx->failed, true);
    }
    pmf_budget_free(occluders);
    pmf_budget_free(lights.ids);
}

/* How many of a relight's changed static lights, as they were and as they are, reach [min, max]. */
static size_t changed_static_reaching(const bake_ctx *ctx, const float min[3], const float max[3])
{
    size_t changed = 0;
    for (int pass = 0; pass < 2; pass++) {
        const bake_light *list = pass ? ctx->added : ctx->removed;
        for (size_t k = 0, n_list = pass ? ctx->added_count : ctx->removed_count; k < n_list; k++)
            changed += list[k].kind == BAKE_LIGHT_STATIC && light_reaches(&list[k]) && sphere_reaches_box(&list[k], min, max);
    }
    return changed;
}

/* A patch's terms from the earlier bake's (bake_relight): the lights that differ taken out at their
 * old place and added at their new one where they reach it, the ambient term's change, and the
 * dome and sky shares the earlier bake did not trace (they were dark then); a patch of another
 * shape or size traced whole. */
static void relight_terms(bake_ctx *ctx, const bake_patch *patch, size_t index, const float *n, int w, int h,
                          const id_list *lights, patch_scratch *s, bake_term *terms)
{
    const bake_desc *desc = ctx->desc;
    const bake_relight *from = desc->relight;
    size_t count = (size_t)w * (size_t)h;
    if (!bake_patch_kept(desc, index)) {
        trace_terms(ctx, patch, index, n, w, h, lights, s, terms);
        atomic_fetch_add(&ctx->relit_luxels, count);
        return;
    }
    memcpy(terms, from->terms->luxels + from->terms->patch_base[index], count * sizeof *terms);
    for (int c = 0; c < 3 && !desc->ambient_floor; c++)
        if (desc->ambient[c] != from->ambient[c])
            for (size_t at = 0; at < count; at++)
                (desc->ambient_no_dirt ? terms[at].clean : terms[at].dirtied)[c] += (double)desc->ambient[c] - from->ambient[c];
    float min[3], max[3];
    patch_bounds(patch, min, max);
    size_t changed = changed_static_reaching(ctx, min, max);
    /* more lights to take out and add than the patch has (most of them changed: a lights.rad
     * value): its lights summed again, the shares kept */
    bool resum = changed > 0 && !light_grid_reach_at_least(&ctx->grid, min, max, KIND_BIT(BAKE_LIGHT_STATIC), changed,
                                                                   &ctx->patch_light_checks);
    if (resum)
        resum_lights(ctx, patch, n, w, h, min, max, s, terms);
    for (int pass = 0; pass < 2 && !resum; pass++) {
        const bake_light *list = pass ? ctx->added : ctx->removed;
        for (size_t k = 0, n_list = pass ? ctx->added_count : ctx->removed_count; k < n_list; k++) {
            const bake_light *l = &list[k];
            if (l->kind != BAKE_LIGHT_STATIC || !light_reaches(l) || !sphere_reaches_box(l, min, max))
                continue;
            uint32_t occluder = NO_OCCLUDER;
            light_terms(ctx, l, patch, n, w, h, pass ? 1.0f : -1.0f, &occluder, s, terms);
        }
    }
    bool touched = changed > 0;
    bool domes[2] = { n && dome_lit(&desc->domes[0]) && !from->terms->domes[0],
                      n && dome_lit(&desc->domes[1]) && !from->terms->domes[1] };
    dome_terms(ctx, patch, n, w, h, desc->samples > 1, domes, s->strength, s->blur, s->walls, terms);
    bool sky = n && sky_lit(desc) && !from->terms->sky;
    sky_dirt_terms(ctx, patch, index, n, w, h, sky, false, s->strength, s->occlusion, s->blur, s->walls, terms);
    if (touched || domes[0] || domes[1] || sky)
        atomic_fetch_add(&ctx->relit_luxels, count);
}

/* The least light of patch's base luxels (bake_patch.minlight, bake_desc.ambient_floor): false
 * when it has none. */
static bool patch_floor_light(const bake_desc *desc, const bake_patch *patch, float out[3])
{
    if (patch->minlight[0] < 0.0f)
        return false;
    /* ericw-tools takes the brush's minlight where it is brighter than the worldspawn's */
    bool own = fmaxf(patch->minlight[0], fmaxf(patch->minlight[1], patch->minlight[2])) >
               (desc->ambient_floor ? fmaxf(desc->ambient[0], fmaxf(desc->ambient[1], desc->ambient[2])) : 0.0f);
    for (int c = 0; c < 3; c++)
        out[c] = own ? patch->minlight[c] : desc->ambient_floor ? desc->ambient[c] : 0.0f;
    return out[0] > 0.0f || out[1] > 0.0f || out[2] > 0.0f;
}

/* Keeps the floor under patch `index`'s w x h base luxels, darkened by what dirt keeps of them
 * (the terms' keep) where dirt darkens the ambient term (applied after the bounces: floor_job). */
static void keep_patch_floor(bake_ctx *ctx, size_t index, int w, int h, const bake_term *terms, bool dirt)
{
    const bake_desc *desc = ctx->desc;
    float floor_[3];
    if (!patch_floor_light(desc, &desc->patches[index], floor_))
        return;
    uint8_t *kept = pmf_budget_malloc((size_t)w * (size_t)h * 3 + 1);
    if (!kept) {
        atomic_store(&ctx->failed, true);
        return;
    }
    for (size_t at = 0; at < (size_t)w * (size_t)h; at++) {
        float keep = dirt && !desc->ambient_no_dirt ? terms[at].keep : 1.0f;
        for (int c = 0; c < 3; c++)
            kept[at * 3 + c] = quantize(bake_store(desc, floor_[c] * keep) * 255.0f);
    }
    ctx->patch_floor[index] = kept;
}

/* Raises patch `index`'s base luxels to their floor (keep_patch_floor), once the bounces are in. */
static void floor_job(void *user, size_t index)
{
    bake_ctx *ctx = user;
    const uint8_t *kept = ctx->patch_floor[index];
    if (!kept)
        return;
    const bake_patch *patch = &ctx->desc->patches[index];
    bake_lightmap *lm = &ctx->desc->lightmaps[patch->lightmap];
    uint32_t side = lightmap_side(lm);
    if (patch->x >= side || patch->y >= side)
        return;
    int w = (int)(side - patch->x < patch->w ? side - patch->x : patch->w);
    int h = (int)(side - patch->y < patch->h ? side - patch->y : patch->h);
    for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++) {
            uint8_t *luxel = &lm->luxels[(((size_t)patch->y + (size_t)j) * side + patch->x + (size_t)i) * 3];
            for (int c = 0; c < 3; c++)
                if (luxel[c] < kept[((size_t)j * w + i) * 3 + c])
                    luxel[c] = kept[((size_t)j * w + i) * 3 + c];
        }
}

static void bake_patch_job(void *user, size_t index)
{
    bake_ctx *ctx = user;
    const bake_desc *desc = ctx->desc;
    const bake_patch *patch = &desc->patches[index];
    if (!patch_valid(ctx, patch) || atomic_load(&ctx->failed))
        return;
    float normal[3];
    const float *n = bake_unit(patch->normal, normal) ? normal : NULL;

    float min[3], max[3];
    patch_bounds(patch, min, max);
    /* a relight's patch kept from before takes out and adds the changed lights alone: its static
     * lights unlisted (relight_terms) */
    unsigned kinds = KIND_BIT(BAKE_LIGHT_DYNAMIC);
    if (!desc->relight || !bake_patch_kept(desc, index))
        kinds |= KIND_BIT(BAKE_LIGHT_STATIC);
    id_list lights = { 0 };
    if (!light_grid_query(&ctx->grid, min, max, kinds, &lights, &ctx->patch_light_checks)) {
        atomic_store(&ctx->failed, true);
        return;
    }
    if (!keep_dynamic_lights(ctx, index, &lights)) {
        pmf_budget_free(lights.ids);
        atomic_store(&ctx->failed, true);
        return;
    }
    int w, h;
    patch_extent(desc, patch, &w, &h);
    size_t count = (size_t)w * (size_t)h;
    patch_scratch s;
    /* the sums go to desc->terms when it keeps them, else they are the patch's alone */
    bake_term *terms = desc->terms ? desc->terms->luxels + desc->terms->patch_base[index]
                                             : pmf_budget_malloc((count + 1) * sizeof *terms);
    if (!patch_scratch_alloc(ctx, &s, lights.count, count) || !terms) {
        atomic_store(&ctx->failed, true);
    } else {
        if (desc->relight)
            relight_terms(ctx, patch, index, n, w, h, &lights, &s, terms);
        else
            trace_terms(ctx, patch, index, n, w, h, &lights, &s, terms);
        store_terms(ctx, patch, n != NULL, w, h, terms);
        keep_patch_floor(ctx, index, w, h, terms, patch_dirt(desc, patch, n != NULL));
    }
    if (!desc->terms)
        pmf_budget_free(terms);
    patch_scratch_free(&s);
    pmf_budget_free(lights.ids);
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

#define NO_PIECE UINT32_MAX

/* Task `index`'s direct light, one grey byte per luxel of its patch's w x h, into `grey`: the
 * earlier bake's piece when it kept one (ctx->task_kept), else traced. False when out of memory. */
static bool layer_piece(bake_ctx *ctx, size_t index, int w, int h, uint8_t *grey)
{
    const bake_desc *desc = ctx->desc;
    const layer_task *task = &ctx->tasks[index];
    size_t count = (size_t)w * (size_t)h;
    if (ctx->task_kept && ctx->task_kept[index] != NO_PIECE) {
        memcpy(grey, desc->relight->terms->layer_luxels + ctx->task_kept[index], count);
        return true;
    }
    const bake_patch *patch = &desc->patches[task->patch];
    float normal[3];
    const float *n = bake_unit(patch->normal, normal) ? normal : NULL;
    float *strength = pmf_budget_malloc((count + 1) * sizeof *strength);
    uint8_t *lit_scratch = pmf_budget_malloc(count + 1);
    bool ok = strength && lit_scratch;
    if (ok) {
        uint32_t occluder = NO_OCCLUDER;
        patch_light(ctx, &desc->lights[task->light], patch, n, w, h, &occluder, strength, lit_scratch, NULL);
        for (size_t at = 0; at < count; at++)
            grey[at] = quantize(bake_store(desc, strength[at]) * 255.0f);
        atomic_fetch_add_explicit(&ctx->traced_pieces, 1, memory_order_relaxed);
    }
    pmf_budget_free(strength);
    pmf_budget_free(lit_scratch);
    return ok;
}

static void bake_layer_job(void *user, size_t index)
{
    bake_ctx *ctx = user;
    const layer_task *task = &ctx->tasks[index];
    const bake_desc *desc = ctx->desc;
    const bake_patch *patch = &desc->patches[task->patch];
    uint8_t *luxels = ctx->out->layers[task->layer].luxels;
    uint32_t side = lightmap_side(&desc->lightmaps[task->lightmap]);
    int w, h;
    patch_extent(desc, patch, &w, &h);
    /* the bytes go straight to desc->terms' piece when it keeps one */
    bool own = !ctx->task_piece || ctx->task_piece[index] == NO_PIECE;
    uint8_t *grey = own ? pmf_budget_malloc((size_t)w * (size_t)h + 1) : desc->terms->layer_luxels + ctx->task_piece[index];
    if (!grey || !layer_piece(ctx, index, w, h, grey)) {
        atomic_store(&ctx->failed, true);
    } else {
        bool lit = false;
        for (int j = 0; j < h; j++)
            for (int i = 0; i < w; i++) {
                uint8_t v = grey[(size_t)j * w + i];
                size_t at = (((size_t)patch->y + (size_t)j) * side + patch->x + (size_t)i) * 3;
                luxels[at] = luxels[at + 1] = luxels[at + 2] = v;
                lit |= v != 0;
            }
        ctx->task_lit[index] = lit;
    }
    if (own)
        pmf_budget_free(grey);
}

typedef struct piece_key { uint64_t key; uint32_t task; } piece_key;

static uint64_t piece_key_of(uint32_t light, uint32_t patch)
{
    return (uint64_t)light << 32 | patch;
}

static int compare_piece_key(const void *a, const void *b)
{
    const piece_key *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

/* The earlier bake's piece of task t (its bytes in that bake's layer_luxels) when its light did
 * not change and its patch is kept, else NO_PIECE. */
static uint32_t kept_piece(const bake_ctx *ctx, const layer_task *t, size_t luxels)
{
    const bake_desc *desc = ctx->desc;
    const bake_terms *before = desc->relight->terms;
    uint32_t light = ctx->earlier[t->light];
    if (light == UINT32_MAX || !before->layer_piece_count || !bake_patch_kept(desc, t->patch))
        return NO_PIECE;
    uint64_t key = piece_key_of(light, t->patch);
    size_t lo = 0, hi = before->layer_piece_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (before->layer_keys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == before->layer_piece_count || before->layer_keys[lo] != key ||
        before->layer_base[lo + 1] - before->layer_base[lo] != luxels)
        return NO_PIECE;
    return before->layer_base[lo];
}

/* desc->terms' layer pieces laid out, by light and patch (ctx->task_piece), and in a relight the
 * earlier bake's pieces each task keeps (ctx->task_kept). False when out of memory. */
static bool plan_layer_pieces(bake_ctx *ctx)
{
    const bake_desc *desc = ctx->desc;
    size_t n = ctx->task_count;
    bake_terms *terms = desc->terms;
    if (n == 0 || (!terms && !desc->relight))
        return true;
    ctx->task_kept = pmf_budget_malloc(n * sizeof *ctx->task_kept);
    ctx->task_piece = pmf_budget_malloc(n * sizeof *ctx->task_piece);
    piece_key *order = pmf_budget_malloc(n * sizeof *order);
    bool ok = ctx->task_kept && ctx->task_piece && order;
    uint64_t total = 0;
    for (size_t t = 0; ok && t < n; t++) {
        int w, h;
        patch_extent(desc, &desc->patches[ctx->tasks[t].patch], &w, &h);
        ctx->task_kept[t] = desc->relight ? kept_piece(ctx, &ctx->tasks[t], (size_t)w * (size_t)h) : NO_PIECE;
        ctx->task_piece[t] = NO_PIECE;
        order[t] = (piece_key){ piece_key_of(ctx->tasks[t].light, ctx->tasks[t].patch), (uint32_t)t };
        total += (uint64_t)w * (uint64_t)h;
    }
    /* pieces past 4 GiB are not kept: the next relight traces them all */
    if (ok && terms && total < UINT32_MAX) {
        order_sort(order, n, sizeof *order, compare_piece_key);
        terms->layer_keys = pmf_budget_malloc(n * sizeof *terms->layer_keys);
        terms->layer_base = pmf_budget_malloc((n + 1) * sizeof *terms->layer_base);
        terms->layer_luxels = pmf_budget_malloc(total + 1);
        ok = terms->layer_keys && terms->layer_base && terms->layer_luxels;
        uint32_t at = 0;
        for (size_t k = 0; ok && k < n; k++) {
            int w, h;
            patch_extent(desc, &desc->patches[ctx->tasks[order[k].task].patch], &w, &h);
            terms->layer_keys[k] = order[k].key;
            terms->layer_base[k] = at;
            ctx->task_piece[order[k].task] = at;
            at += (uint32_t)w * (uint32_t)h;
        }
        if (ok) {
            terms->layer_base[n] = at;
            terms->layer_piece_count = n;
            terms->layer_luxel_count = at;
        }
    }
    pmf_budget_free(order);
    return ok;
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
    ctx->tasks = pmf_budget_malloc(count * sizeof *ctx->tasks);
    ctx->task_lit = pmf_budget_calloc(count, 1);
    if (!ctx->tasks || !ctx->task_lit)
        return false;
    for (size_t p = 0; p < desc->patch_count; p++)
        for (uint32_t k = 0; k < ctx->patch_dynamic_count[p]; k++)
            ctx->tasks[ctx->task_count++] =
                (layer_task){ ctx->patch_dynamic[p][k], desc->patches[p].lightmap, (uint32_t)p, 0 };
    order_sort(ctx->tasks, count, sizeof *ctx->tasks, compare_layer_task);
    size_t layers = 0;
    for (size_t t = 0; t < count; t++)
        if (t == 0 || ctx->tasks[t].light != ctx->tasks[t - 1].light ||
            ctx->tasks[t].lightmap != ctx->tasks[t - 1].lightmap)
            layers++;
    ctx->out->layers = pmf_budget_calloc(layers, sizeof *ctx->out->layers);
    ctx->layer_rect = pmf_budget_malloc(layers * sizeof *ctx->layer_rect);
    if (!ctx->out->layers || !ctx->layer_rect)
        return false;
    for (size_t t = 0; t < count; t++) {
        layer_task *task = &ctx->tasks[t];
        if (t == 0 || task->light != task[-1].light || task->lightmap != task[-1].lightmap) {
            size_t side = lightmap_side(&desc->lightmaps[task->lightmap]);
            bake_layer *layer = &ctx->out->layers[ctx->out->layer_count];
            layer->light = task->light;
            layer->lightmap = task->lightmap;
            layer->luxels = pmf_budget_calloc(side * side, 3);
            if (!layer->luxels)
                return false;
            memcpy(ctx->layer_rect[ctx->out->layer_count], (uint32_t[4]){ (uint32_t)side, (uint32_t)side, 0, 0 },
                   sizeof *ctx->layer_rect);
            ctx->out->layer_count++;
        }
        task->layer = (uint32_t)(ctx->out->layer_count - 1);
        uint32_t *rect = ctx->layer_rect[task->layer];
        const bake_patch *patch = &desc->patches[task->patch];
        int w, h;
        patch_extent(desc, patch, &w, &h);
        rect[0] = patch->x < rect[0] ? patch->x : rect[0];
        rect[1] = patch->y < rect[1] ? patch->y : rect[1];
        rect[2] = patch->x + (uint32_t)w > rect[2] ? patch->x + (uint32_t)w : rect[2];
        rect[3] = patch->y + (uint32_t)h > rect[3] ? patch->y + (uint32_t)h : rect[3];
    }
    return true;
}

/* Drops layers where the light lit nothing (all shadowed or facing away). */
static void drop_dark_layers(bake_ctx *ctx)
{
    bake_result *out = ctx->out;
    uint8_t *lit = pmf_budget_calloc(out->layer_count + 1, 1);
    if (lit) {
        for (size_t t = 0; t < ctx->task_count; t++)
            lit[ctx->tasks[t].layer] |= ctx->task_lit[t];
    }
    size_t kept = 0;
    for (size_t i = 0; i < out->layer_count; i++) {
        if (lit && !lit[i]) {
            pmf_budget_free(out->layers[i].luxels);
            continue;
        }
        memmove(ctx->layer_rect[kept], ctx->layer_rect[i], sizeof *ctx->layer_rect);
        out->layers[kept++] = out->layers[i];
    }
    out->layer_count = kept;
    pmf_budget_free(lit);
}

/* ---- stage: dilation -------------------------------------------------------------------- */

/* Fills the uncovered luxel x y of a w x h state (0 uncovered, else a source unless it is this
 * pass's marker) with its sources' mean; false when none is next to it. Counted in *looked. */
static bool dilate_luxel(uint8_t *luxels, uint8_t *state, uint32_t side, const uint32_t box[4], uint32_t x, uint32_t y,
                         uint8_t marker, uint64_t *looked)
{
    (*looked)++;
    uint32_t w = box[2] - box[0], h = box[3] - box[1];
    unsigned sum[3] = { 0, 0, 0 }, count = 0;
    for (uint32_t ny = y > 0 ? y - 1 : 0; ny <= y + 1 && ny < h; ny++)
        for (uint32_t nx = x > 0 ? x - 1 : 0; nx <= x + 1 && nx < w; nx++) {
            uint8_t s = state[(size_t)ny * w + nx];
            if (s == 0 || s == marker)
                continue;
            const uint8_t *src = &luxels[((size_t)(box[1] + ny) * side + box[0] + nx) * 3];
            for (int c = 0; c < 3; c++)
                sum[c] += src[c];
            count++;
        }
    if (count == 0)
        return false;
    uint8_t *dst = &luxels[((size_t)(box[1] + y) * side + box[0] + x) * 3];
    for (int c = 0; c < 3; c++)
        dst[c] = (uint8_t)((sum[c] + count / 2) / count);
    state[(size_t)y * w + x] = marker;
    return true;
}

/* The luxels a pass filled (their places in the box, y * w + x): the next pass looks next to them. */
typedef struct luxel_list { uint32_t *at; size_t count, size; } luxel_list;

static bool luxel_list_push(luxel_list *list, uint32_t at)
{
    if (list->count == list->size) {
        size_t size = list->size ? list->size * 2 : 1024;
        uint32_t *more = pmf_budget_realloc(list->at, size * sizeof *more);
        if (!more)
            return false;
        list->at = more;
        list->size = size;
    }
    list->at[list->count++] = at;
    return true;
}

/* 8 bytes of a state row from x on (x + 8 <= w). */
static uint64_t state_word(const uint8_t *row, uint32_t x)
{
    uint64_t v;
    memcpy(&v, row + x, sizeof v);
    return v;
}

/* The first pass: every uncovered luxel next to a covered one, eight at a time over runs where all
 * are covered, or none is and none is next to them. */
static bool dilate_first(uint8_t *luxels, uint8_t *state, uint32_t side, const uint32_t box[4], luxel_list *filled,
                         uint64_t *looked)
{
    uint32_t w = box[2] - box[0], h = box[3] - box[1];
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    bool ok = true;
    for (uint32_t y = 0; y < h && ok; y++) {
        const uint8_t *row = state + (size_t)y * w, *up = y > 0 ? row - w : row, *down = y + 1 < h ? row + w : row;
        for (uint32_t x = 0; x < w && ok;) {
            if (x + 8 <= w) {
                uint64_t here = state_word(row, x);
                uint64_t near = here | state_word(up, x) | state_word(down, x) |
                                (x > 0 ? (uint64_t)(row[x - 1] | up[x - 1] | down[x - 1]) : 0) |
                                (x + 8 < w ? (uint64_t)(row[x + 8] | up[x + 8] | down[x + 8]) : 0);
                /* no byte 0 (all covered) or nothing around */
                if (!((here - ones) & ~here & highs) || near == 0) {
                    x += 8;
                    continue;
                }
            }
            if (row[x] == 0 && dilate_luxel(luxels, state, side, box, x, y, 2, looked))
                ok = luxel_list_push(filled, y * w + x);
            x++;
        }
    }
    return ok;
}

/* Fills uncovered luxels next to covered ones with their covered neighbours' mean, ring by ring,
 * so that bilinear filtering at a patch's edge does not pull in black; only inside the box
 * x0 y0 x1 y1 of the lightmap (luxels outside it count as uncovered). A ring after the first is
 * looked for next to the one before alone. *looked counts the uncovered luxels looked at. With
 * rings, the state is handed there: 0 or 1 as the mask was, 2 + the pass that filled a luxel. */
static bool dilate(uint8_t *luxels, const uint8_t *mask, uint32_t side, const uint32_t box[4], uint64_t *looked,
                   uint8_t **rings_out)
{
    uint32_t x0 = box[0], y0 = box[1], w = box[2] - box[0], h = box[3] - box[1];
    uint8_t *state = pmf_budget_malloc((size_t)w * h + 1);
    luxel_list rings[2] = { { 0 } };
    bool ok = state != NULL;
    for (uint32_t y = 0; ok && y < h; y++)
        memcpy(state + (size_t)y * w, mask + (size_t)(y0 + y) * side + x0, w);
    ok = ok && dilate_first(luxels, state, side, box, &rings[0], looked);
    for (int pass = 1; ok && pass < BAKE_DILATE_PASSES; pass++) {
        uint8_t marker = (uint8_t)(2 + pass);     /* filled in this pass: not yet a source */
        const luxel_list *before = &rings[(pass - 1) % 2];
        luxel_list *now = &rings[pass % 2];
        now->count = 0;
        for (size_t i = 0; ok && i < before->count; i++) {
            uint32_t x = before->at[i] % w, y = before->at[i] / w;
            for (uint32_t ny = y > 0 ? y - 1 : 0; ok && ny <= y + 1 && ny < h; ny++)
                for (uint32_t nx = x > 0 ? x - 1 : 0; ok && nx <= x + 1 && nx < w; nx++)
                    if (state[(size_t)ny * w + nx] == 0 && dilate_luxel(luxels, state, side, box, nx, ny, marker, looked))
                        ok = luxel_list_push(now, ny * w + nx);
        }
    }
    if (ok && rings_out)
        *rings_out = state;
    else
        pmf_budget_free(state);
    pmf_budget_free(rings[0].at);
    pmf_budget_free(rings[1].at);
    return ok;
}

/* Whether any of a layer's luxels in rows y - 1 .. y + 1, columns x0 - 1 .. x1 of the lightmap is lit. */
static bool layer_lit_near(const uint8_t *luxels, uint32_t side, uint32_t x0, uint32_t x1, uint32_t y)
{
    size_t lo = (size_t)(x0 > 0 ? x0 - 1 : 0) * 3, hi = (size_t)(x1 < side ? x1 + 1 : side) * 3;
    uint64_t any = 0;
    for (uint32_t ny = y > 0 ? y - 1 : 0; ny <= y + 1 && ny < side; ny++) {
        const uint8_t *row = luxels + (size_t)ny * side * 3;
        for (size_t k = lo; k < hi; k += 8) {
            uint64_t word = 0;
            memcpy(&word, row + k, hi - k < 8 ? hi - k : 8);
            any |= word;
        }
    }
    return any != 0;
}

/* A layer's luxel x y filled in pass `marker` - 2 as its lightmap's was (rings: dilate's state): the
 * mean of its neighbours covered or filled in an earlier pass. */
static void ring_luxel(uint8_t *luxels, const uint8_t *rings, uint32_t side, uint32_t x, uint32_t y, uint8_t marker)
{
    unsigned sum[3] = { 0, 0, 0 }, count = 0;
    for (uint32_t ny = y > 0 ? y - 1 : 0; ny <= y + 1 && ny < side; ny++)
        for (uint32_t nx = x > 0 ? x - 1 : 0; nx <= x + 1 && nx < side; nx++) {
            uint8_t s = rings[(size_t)ny * side + nx];
            if (s == 0 || s >= marker)
                continue;
            const uint8_t *src = &luxels[((size_t)ny * side + nx) * 3];
            for (int c = 0; c < 3; c++)
                sum[c] += src[c];
            count++;
        }
    uint8_t *dst = &luxels[((size_t)y * side + x) * 3];
    for (int c = 0; c < 3; c++)
        dst[c] = (uint8_t)((sum[c] + count / 2) / count);
}

/* Whether any of n <= 8 ring states is marker. */
static bool ring_marked(const uint8_t *states, uint32_t n, uint8_t marker)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    if (n < 8)
        return memchr(states, marker, n) != NULL;
    uint64_t v = state_word(states, 0) ^ (ones * marker);
    return ((v - ones) & ~v & highs) != 0;
}

/* A layer dilated in its box as its lightmap was: which luxels each pass fills and from which
 * neighbours depends on the coverage alone (the lightmap's rings), and within the rings around
 * the layer's pieces its box cuts none of them off. Only next to the layer's lit luxels is any
 * filled: elsewhere the mean is 0, as the luxel is. */
static void dilate_layer(uint8_t *luxels, const uint8_t *rings, uint32_t side, const uint32_t box[4], uint64_t *looked)
{
    for (int pass = 0; pass < BAKE_DILATE_PASSES; pass++) {
        uint8_t marker = (uint8_t)(2 + pass);
        for (uint32_t y = box[1]; y < box[3]; y++) {
            const uint8_t *row = rings + (size_t)y * side;
            for (uint32_t x = box[0]; x < box[2]; x += 8) {
                uint32_t end = x + 8 < box[2] ? x + 8 : box[2];
                if (!ring_marked(row + x, end - x, marker) || !layer_lit_near(luxels, side, x, end, y))
                    continue;
                for (uint32_t at = x; at < end; at++)
                    if (row[at] == marker) {
                        ring_luxel(luxels, rings, side, at, y, marker);
                        (*looked)++;
                    }
            }
        }
    }
}

/* The box a layer is dilated in: its patches' (ctx->layer_rect) and the rings around them its
 * luxels reach (the layer is 0 elsewhere, and so is what dilation makes there). */
static void layer_dilate_box(const bake_ctx *ctx, size_t layer, uint32_t side, uint32_t box[4])
{
    const uint32_t *rect = ctx->layer_rect[layer], margin = 2 * BAKE_DILATE_PASSES;
    box[0] = rect[0] > margin ? rect[0] - margin : 0;
    box[1] = rect[1] > margin ? rect[1] - margin : 0;
    box[2] = rect[2] + margin < side ? rect[2] + margin : side;
    box[3] = rect[3] + margin < side ? rect[3] + margin : side;
}

/* A lightmap dilated, its rings kept for its layers (dilate_layer_job). */
static void dilate_job(void *user, size_t index)
{
    bake_ctx *ctx = user;
    const bake_desc *desc = ctx->desc;
    uint32_t side = lightmap_side(&desc->lightmaps[index]), box[4] = { 0, 0, side, side };
    uint64_t looked = 0;
    if (!ctx->masks[index])    /* none for a lightmap that is not baked */
        return;
    if (!dilate(desc->lightmaps[index].luxels, ctx->masks[index], side, box, &looked, &ctx->rings[index]))
        atomic_store(&ctx->failed, true);
    atomic_fetch_add_explicit(&ctx->dilated_luxels, (uint64_t)side * side, memory_order_relaxed);
    atomic_fetch_add_explicit(&ctx->dilate_looked, looked, memory_order_relaxed);
}

static void dilate_layer_job(void *user, size_t layer)
{
    bake_ctx *ctx = user;
    const bake_layer *l = &ctx->out->layers[layer];
    uint32_t side = lightmap_side(&ctx->desc->lightmaps[l->lightmap]), box[4];
    uint64_t looked = 0;
    layer_dilate_box(ctx, layer, side, box);
    dilate_layer(l->luxels, ctx->rings[l->lightmap], side, box, &looked);
    atomic_fetch_add_explicit(&ctx->dilated_luxels, (uint64_t)(box[2] - box[0]) * (box[3] - box[1]),
                              memory_order_relaxed);
    atomic_fetch_add_explicit(&ctx->dilate_looked, looked, memory_order_relaxed);
}

/* ---- stage: fast-light vertex multipliers ----------------------------------------------- */

static void fast_job(void *user, size_t block)
{
    bake_ctx *ctx = user;
    const bake_desc *desc = ctx->desc;
    id_list lights = { 0 };
    uint32_t *occluders = pmf_budget_malloc((desc->light_count + 1) * sizeof *occluders);   /* [light] within this block */
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
        if (!light_grid_query(&ctx->grid, vertex->position, vertex->position, KIND_BIT(BAKE_LIGHT_FAST), &lights, NULL)) {
            atomic_store(&ctx->failed, true);
            break;
        }
        float normal[3];
        const float *n = bake_unit(vertex->normal, normal) ? normal : NULL;
        for (size_t k = 0; k < lights.count; k++) {
            float s = light_strength(ctx, &desc->lights[lights.ids[k]], vertex->position, n, &occluders[lights.ids[k]]);
            ctx->out->fast_multipliers[(size_t)ctx->fast_ordinal[lights.ids[k]] * desc->vertex_count + v] =
                quantize(s * 255.0f);
        }
    }
    pmf_budget_free(occluders);
    pmf_budget_free(lights.ids);
}

/* ---- stage: probes (cube lighting data) ------------------------------------------------- */

/* A relight keeps a probe's stored static light when no light that changed reaches its box: the
 * static lights that reach it are then the earlier bake's, in the same order, and the rest it was
 * lit from is the same (bake_probe_inputs). */
static bool probe_kept(const bake_ctx *ctx, const bake_probe *probe)
{
    return ctx->kept_probes && changed_static_reaching(ctx, probe->min, probe->max) == 0;
}

static void probe_job(void *user, size_t index)
{
    bake_ctx *ctx = user;
    const bake_desc *desc = ctx->desc;
    const bake_probe *probe = &desc->probes[index];
    bake_probe_result *res = &ctx->probes[index];
    float centre[3], rgb[3] = { desc->ambient[0], desc->ambient[1], desc->ambient[2] };
    for (int a = 0; a < 3; a++)
        centre[a] = 0.5f * (probe->min[a] + probe->max[a]);
    bool kept = probe_kept(ctx, probe);
    id_list lights = { 0 };
    if (!light_grid_query(&ctx->grid, probe->min, probe->max, kept ? ~KIND_BIT(BAKE_LIGHT_STATIC) : ~0u, &lights, NULL)) {
        atomic_store(&ctx->failed, true);
        return;
    }
    size_t refs = 0;
    for (size_t k = 0; k < lights.count; k++)
        refs += desc->lights[lights.ids[k]].kind != BAKE_LIGHT_STATIC;
    if (refs > 0) {
        res->refs = pmf_budget_malloc(refs * sizeof *res->refs);
        if (!res->refs) {
            pmf_budget_free(lights.ids);
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
    for (int d = 0; d < 2 && !kept; d++) {
        if (!dome_lit(&desc->domes[d]))
            continue;
        luxel_site site = { .ctx = ctx, .samples = 1, .sampled_k = UINT32_MAX };
        memcpy(site.centre, centre, sizeof centre);
        float share = dome_share(ctx, &site, &desc->domes[d], d ? -1.0f : 1.0f);
        for (int c = 0; c < 3; c++)
            rgb[c] += desc->domes[d].color[c] * share;
    }
    for (int c = 0; c < 3; c++)
        res->base[c] = kept ? ctx->kept_probes[index][c] : quantize(bake_store(desc, rgb[c]) * 255.0f);
    if (!kept)
        atomic_fetch_add_explicit(&ctx->relit_probes, 1, memory_order_relaxed);
    if (desc->terms && desc->terms->probe_base)
        memcpy(desc->terms->probe_base[index], res->base, sizeof res->base);
    pmf_budget_free(lights.ids);
}


/* ---- the whole bake --------------------------------------------------------------------- */

static void bake_ctx_free(bake_ctx *ctx)
{
    const bake_desc *desc = ctx->desc;
    if (!desc->trees) {
        bvh_free(&ctx->tree);
        bvh_free(&ctx->sky_tree);
    }
    pmf_budget_free(ctx->dome);
    light_grid_free(&ctx->grid);
    if (ctx->masks)
        for (size_t i = 0; i < desc->lightmap_count; i++)
            pmf_budget_free(ctx->masks[i]);
    pmf_budget_free(ctx->masks);
    if (ctx->rings)
        for (size_t i = 0; i < desc->lightmap_count; i++)
            pmf_budget_free(ctx->rings[i]);
    pmf_budget_free(ctx->rings);
    if (ctx->patch_dynamic)
        for (size_t p = 0; p < desc->patch_count; p++)
            pmf_budget_free(ctx->patch_dynamic[p]);
    pmf_budget_free(ctx->patch_dynamic);
    pmf_budget_free(ctx->patch_dynamic_count);
    if (ctx->patch_floor)
        for (size_t p = 0; p < desc->patch_count; p++)
            pmf_budget_free(ctx->patch_floor[p]);
    pmf_budget_free(ctx->patch_floor);
    pmf_budget_free(ctx->tasks);
    pmf_budget_free(ctx->task_lit);
    pmf_budget_free(ctx->task_kept);
    pmf_budget_free(ctx->task_piece);
    pmf_budget_free(ctx->layer_rect);
    pmf_budget_free(ctx->earlier);
    pmf_budget_free(ctx->fast_ordinal);
    if (ctx->probes)
        for (size_t i = 0; i < desc->probe_count; i++)
            pmf_budget_free(ctx->probes[i].refs);
    pmf_budget_free(ctx->probes);
    pmf_budget_free(ctx->removed);
    pmf_budget_free(ctx->added);
}

/* Moves the probe results and all their refs into one block, so bake_result_free needs no count. */
static bool pack_probes(bake_ctx *ctx)
{
    size_t count = ctx->desc->probe_count, refs = 0;
    for (size_t i = 0; i < count; i++)
        refs += ctx->probes[i].ref_count;
    /* sizeof(bake_probe_result) keeps the refs that follow aligned. */
    bake_probe_result *block = pmf_budget_malloc(count * sizeof *block + refs * sizeof(bake_light_ref));
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

/* The probes' stage: a relight's kept ones (probe_kept) take the earlier bake's static light. */
static bool bake_probes(bake_ctx *ctx, int threads, jobs_progress *progress)
{
    const bake_desc *desc = ctx->desc;
    const bake_terms *before = desc->relight ? desc->relight->terms : NULL;
    if (before && before->probe_base && before->probe_count == desc->probe_count &&
        before->probe_inputs == bake_probe_inputs(desc))
        ctx->kept_probes = (const uint8_t (*)[3])before->probe_base;
    if (desc->probe_count > 0) {
        ctx->probes = pmf_budget_calloc(desc->probe_count, sizeof *ctx->probes);
        if (!ctx->probes)
            return false;
    }
    progress->stage = "probes";
    jobs_parallel_for_progress(desc->probe_count, threads, probe_job, ctx, progress);
    ctx->out->relit_probes = atomic_load(&ctx->relit_probes);
    return !atomic_load(&ctx->failed) && (desc->probe_count == 0 || pack_probes(ctx));
}

bool bake_run(const bake_desc *desc, bake_result *out)
{
    memset(out, 0, sizeof *out);
    bake_ctx ctx = { .desc = desc, .out = out };
    atomic_init(&ctx.failed, false);
    atomic_init(&ctx.relit_luxels, 0);
    atomic_init(&ctx.patch_light_checks, 0);
    atomic_init(&ctx.traced_pieces, 0);
    atomic_init(&ctx.dilated_luxels, 0);
    atomic_init(&ctx.dilate_looked, 0);
    int threads = desc->threads;
    jobs_progress progress = { desc->progress, desc->user, "bvh" };

    jobs_report(&progress, 0.0);
    if (!bake_trees_build(desc, &ctx.tree, &ctx.sky_tree))
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
    if (!light_grid_build(desc->lights, desc->light_count, &ctx.grid) || !dome_build(&ctx))
        goto fail;

    ctx.masks = pmf_budget_calloc(desc->lightmap_count + 1, sizeof *ctx.masks);
    ctx.patch_dynamic = pmf_budget_calloc(desc->patch_count + 1, sizeof *ctx.patch_dynamic);
    ctx.patch_dynamic_count = pmf_budget_calloc(desc->patch_count + 1, sizeof *ctx.patch_dynamic_count);
    ctx.patch_floor = pmf_budget_calloc(desc->patch_count + 1, sizeof *ctx.patch_floor);
    if (!ctx.masks || !ctx.patch_dynamic || !ctx.patch_dynamic_count || !ctx.patch_floor)
        goto fail;
    for (size_t i = 0; i < desc->lightmap_count; i++) {
        bake_lightmap *lm = &desc->lightmaps[i];
        if (lm->size_exp > 15 || !lm->luxels)
            continue;
        size_t side = lightmap_side(lm);
        ctx.masks[i] = pmf_budget_calloc(side * side, 1);
        if (!ctx.masks[i])
            goto fail;
        memset(lm->luxels, 0, side * side * 3);
    }

    if ((desc->terms && !bake_terms_plan(desc, desc->terms)) ||
        (desc->relight &&
         !bake_light_changes(desc, &ctx.earlier, &ctx.removed, &ctx.removed_count, &ctx.added, &ctx.added_count)))
        goto fail;
    progress.stage = "lightmaps";
    jobs_parallel_for_progress(desc->patch_count, threads, bake_patch_job, &ctx, &progress);
    out->relit_lights = ctx.removed_count > ctx.added_count ? ctx.removed_count : ctx.added_count;
    out->relit_luxels = atomic_load(&ctx.relit_luxels);
    out->patch_light_checks = atomic_load(&ctx.patch_light_checks);
    if (atomic_load(&ctx.failed) || !plan_layers(&ctx) || !plan_layer_pieces(&ctx))
        goto fail;

    progress.stage = "layers";
    jobs_parallel_for_progress(ctx.task_count, threads, bake_layer_job, &ctx, &progress);
    out->traced_layer_pieces = atomic_load(&ctx.traced_pieces);
    if (atomic_load(&ctx.failed))
        goto fail;
    bounce_input bounce = { desc, &ctx.tree, &ctx.sky_tree, ctx.reach, ctx.masks, ctx.tasks, ctx.task_count,
                            ctx.task_lit, out->layers, &progress, &out->old_bounce,
                            &out->bounce_gathers, &out->bounce_cells, &out->bounce_layers_kept };
    if (!bake_bounce(&bounce))
        goto fail;
    jobs_parallel_for(desc->patch_count, threads, floor_job, &ctx);
    drop_dark_layers(&ctx);

    progress.stage = "dilate";
    ctx.rings = pmf_budget_calloc(desc->lightmap_count + 1, sizeof *ctx.rings);
    if (!ctx.rings)
        goto fail;
    jobs_parallel_for_progress(desc->lightmap_count, threads, dilate_job, &ctx, &progress);
    if (atomic_load(&ctx.failed))
        goto fail;
    jobs_parallel_for_progress(out->layer_count, threads, dilate_layer_job, &ctx, &progress);
    out->dilated_luxels = atomic_load(&ctx.dilated_luxels);
    out->dilate_looked = atomic_load(&ctx.dilate_looked);
    out->layer_boxes = pmf_budget_malloc((out->layer_count + 1) * sizeof *out->layer_boxes);
    if (atomic_load(&ctx.failed) || !out->layer_boxes)
        goto fail;
    for (size_t i = 0; i < out->layer_count; i++)
        layer_dilate_box(&ctx, i, lightmap_side(&desc->lightmaps[out->layers[i].lightmap]), out->layer_boxes[i]);

    ctx.fast_ordinal = pmf_budget_calloc(desc->light_count + 1, sizeof *ctx.fast_ordinal);
    if (!ctx.fast_ordinal)
        goto fail;
    for (size_t i = 0; i < desc->light_count; i++)
        if (desc->lights[i].kind == BAKE_LIGHT_FAST)
            ctx.fast_ordinal[i] = (uint32_t)out->fast_light_count++;
    if (out->fast_light_count > 0 && desc->vertex_count > 0) {
        out->fast_multipliers = pmf_budget_calloc(out->fast_light_count, desc->vertex_count);
        if (!out->fast_multipliers)
            goto fail;
    }
    progress.stage = "fast lights";
    size_t blocks = out->fast_multipliers ? (desc->vertex_count + BAKE_VERTEX_BLOCK - 1) / BAKE_VERTEX_BLOCK : 0;
    jobs_parallel_for_progress(blocks, threads, fast_job, &ctx, &progress);

    if (!bake_probes(&ctx, threads, &progress))
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
        pmf_budget_free(res->layers[i].luxels);
    pmf_budget_free(res->layers);
    pmf_budget_free(res->layer_boxes);
    pmf_budget_free(res->fast_multipliers);
    pmf_budget_free(res->probes);  /* one block: the results, then every probe's refs */
    memset(res, 0, sizeof *res);
}
