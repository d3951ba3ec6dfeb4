/* bake_bounce.c - bounced light: diffuse interreflection added to the direct light bake.c put in
 * the base lightmaps and the dynamic-light layers (the model is in bake.h, the formula for users in
 * docs/pmfc-lighting.md).
 *
 * Each patch is cut into cells of cell x cell luxels. From the middle of every cell one
 * cosine-weighted ray per two luxels (16 to 64) is traced once, and the luxel each ray meets is
 * kept (the hit table). A bounce is then table look-ups only: a cell gathers the mean of the
 * exitance (albedo x light received) met by its rays in the previous bounce - the direct light of
 * the very luxel met, then the bounced light of that luxel's cell - which for cosine-weighted rays
 * is the irradiance that light gives it. So many bounces, and the same bounces for every dynamic
 * light, cost little beyond the one trace. Each luxel takes the bounced light of the cells around
 * it that it sees, bilinearly (a face running on behind a thin wall takes none from the far side).
 * Every ray's directions come from its own index, and sums run in cell order: the result does not
 * depend on the thread count. */
#include "bake_internal.h"
#include "base/pmf_budget.h"
#include "base/order.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define BOUNCE_SECTORS 8                /* rays per ring of the disc the directions are drawn on */
#define BOUNCE_LUXELS_PER_RAY 2         /* a cell traces one ray per this many luxels ... */
#define BOUNCE_MIN_RAYS 16              /* ... within these bounds */
#define BOUNCE_MAX_RAYS 64
#define BOUNCE_CELL 8                   /* luxels per cell side (bake_desc.bounce_cell), doubled until the hit table fits */
#define BOUNCE_HIT_BUDGET (64u << 20)   /* bytes of hit table at most */
#define BOUNCE_STOP 0.01                /* auto: stop when the next bounce would add less */
#define BOUNCE_TAIL_MAX 0.9             /* the largest bounce-to-bounce ratio the rest is estimated with */
#define BOUNCE_CELL_BLOCK 256           /* cells per gathering job */
#define BOUNCE_MISS UINT32_MAX          /* left through the sky or the map, or met a face with no patch */
#define BOUNCE_BACK (UINT32_MAX - 1)    /* met a face from behind: the ray started inside a solid */
#define BOUNCE_INSIDE 4                 /* more than 1 / this of back hits: the cell lies inside a solid */
#define BOUNCE_MIN_SEEN 0.25f           /* bounce_no_sky_loss: a cell counts as seeing at least this share
                                         * of its half-sphere (one stray hit of few rays would otherwise
                                         * carry all its light) */

typedef struct keyed { uint32_t key, value; } keyed;    /* sorted by key, then value */

typedef struct bounce_ctx {
    const bounce_input *in;
    const bake_desc *desc;
    uint32_t cell;              /* luxels per cell side */
    uint32_t *cell_base;        /* [patch_count + 1]: each patch's first cell */
    uint32_t *cell_patch;       /* [cell] */
    size_t cell_count;
    uint32_t *luxel_base;       /* [patch_count + 1]: each patch's first luxel (w x h of them, row by row) */
    uint32_t *luxel_cell;       /* [luxel] */
    uint8_t *luxel_sees;        /* [luxel]: the footprint cells it takes bounced light from, or the
                                 * nearest cell it sees when none (sight_job) */
    size_t luxel_count;
    uint32_t *ray_base;         /* [cell_count + 1]: each cell's first ray in `hits` */
    uint32_t *hits;             /* [ray]: the luxel met, BOUNCE_MISS or BOUNCE_BACK */
    uint8_t *cell_open;         /* [cell]: 1 when its middle is not inside a solid (it gathers) */
    float *cell_send;           /* [cell]: its luxels' exitance is multiplied by this where a ray meets
                                 * them: 1, or with bounce_no_sky_loss 1 / the share of its rays that
                                 * meet a surface (what it sends to the sky goes to what it sees) */
    uint8_t *cell_clear;        /* [cell]: 1 when no occluder comes into it (its luxels see its
                                 * middle without a test) */
    keyed *by_surface;          /* baked patches (value) by surface (key) */
    size_t by_surface_count;
    bvh liquids;                /* two-sided patches' blocks, two triangles each (liquid_patch) */
    uint32_t *liquid_patch;     /* [triangle / 2]: its patch */
    atomic_bool failed;
} bounce_ctx;

/* The cells light travels between in one set of bounces: every cell (the base lightmaps) or the
 * cells of the patches one dynamic light reaches. */
typedef struct bounce_set {
    const uint32_t *patches;    /* ascending; NULL = every patch, local cell = cell */
    const uint32_t *local_base; /* [patch_count + 1]: each listed patch's first local cell */
    const uint32_t *slot_of;    /* [desc patch]: its index in `patches`, or BOUNCE_MISS */
    uint8_t *const *luxels;     /* [listed patch]: the RGB8 its direct light is in (NULL: its lightmap) */
    float floor_[3];            /* taken off every luxel's direct light (the ambient, in the base) */
    size_t patch_count, cell_count;
    float (*sent)[3];           /* exitance of the bounce before, per local cell */
    float (*gathered)[3];       /* irradiance this bounce brings */
    float (*indirect)[3];       /* sum over the bounces */
} bounce_set;

static float clamp_albedo(float a)
{
    return a > 0.0f ? (a < 1.0f ? a : 1.0f) : 0.0f;
}

static bool patch_baked(const bounce_input *in, const bake_patch *patch)
{
    return patch->lightmap < in->desc->lightmap_count && in->masks[patch->lightmap] != NULL;
}

static uint32_t lightmap_side(const bake_lightmap *lm)
{
    return 1u << lm->size_exp;
}

static uint32_t cells_along(uint32_t luxels, uint32_t cell)
{
    return (luxels + cell - 1) / cell;
}

/* The luxel rectangle [i0, i1) x [j0, j1) of a patch's cell (ci, cj). */
static void cell_luxels(const bounce_ctx *ctx, const bake_patch *patch, uint32_t ci, uint32_t cj, uint32_t *i0,
                        uint32_t *i1, uint32_t *j0, uint32_t *j1)
{
    *i0 = ci * ctx->cell;
    *j0 = cj * ctx->cell;
    *i1 = *i0 + ctx->cell < patch->w ? *i0 + ctx->cell : patch->w;
    *j1 = *j0 + ctx->cell < patch->h ? *j0 + ctx->cell : patch->h;
}

/* The middle of a patch's cell (ci, cj), nudged off the patch along unit normal n. */
static void cell_point(const bounce_ctx *ctx, const bake_patch *patch, uint32_t ci, uint32_t cj, const float n[3],
                       float out[3])
{
    uint32_t i0, i1, j0, j1;
    cell_luxels(ctx, patch, ci, cj, &i0, &i1, &j0, &j1);
    float u = 0.5f * (float)(i0 + i1), v = 0.5f * (float)(j0 + j1);
    for (int a = 0; a < 3; a++)
        out[a] = patch->origin[a] + u * patch->step_u[a] + v * patch->step_v[a] + n[a] * BAKE_NUDGE;
}

/* ---- which luxel a ray meets ------------------------------------------------------------- */

static int compare_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key)
        return (x->key > y->key) - (x->key < y->key);
    return (x->value > y->value) - (x->value < y->value);
}

/* Point h in patch luxel coordinates (u, v): false when the patch's steps are degenerate. */
static bool patch_uv(const bake_patch *patch, const float h[3], float *u, float *v)
{
    float rel[3] = { h[0] - patch->origin[0], h[1] - patch->origin[1], h[2] - patch->origin[2] };
    float uu = 0.0f, uv = 0.0f, vv = 0.0f, ru = 0.0f, rv = 0.0f;
    for (int a = 0; a < 3; a++) {
        uu += patch->step_u[a] * patch->step_u[a];
        vv += patch->step_v[a] * patch->step_v[a];
        uv += patch->step_u[a] * patch->step_v[a];
        ru += rel[a] * patch->step_u[a];
        rv += rel[a] * patch->step_v[a];
    }
    float det = uu * vv - uv * uv;
    if (!(det > 0.0f))
        return false;
    *u = (ru * vv - rv * uv) / det;
    *v = (rv * uu - ru * uv) / det;
    return true;
}

/* The luxel of the patch on `surface` holding point h, preferring a patch whose face (inside its
 * one-luxel border) holds it; BOUNCE_BACK when that patch faces away from the ray, BOUNCE_MISS
 * when no patch holds it. */
static uint32_t luxel_at(const bounce_ctx *ctx, uint32_t surface, const float h[3], const float dir[3])
{
    const bake_patch *patches = ctx->desc->patches;
    size_t lo = 0, hi = ctx->by_surface_count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ctx->by_surface[mid].key < surface)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t best = BOUNCE_MISS;
    for (size_t k = lo; k < ctx->by_surface_count && ctx->by_surface[k].key == surface; k++) {
        uint32_t p = ctx->by_surface[k].value;
        const bake_patch *patch = &patches[p];
        float u, v;
        if (!patch_uv(patch, h, &u, &v) || !(u >= 0.0f && v >= 0.0f && u < (float)patch->w && v < (float)patch->h))
            continue;
        bool inside_face = u >= 1.0f && v >= 1.0f && u < (float)patch->w - 1.0f && v < (float)patch->h - 1.0f;
        if (best != BOUNCE_MISS && !inside_face)
            continue;
        float facing = dir[0] * patch->normal[0] + dir[1] * patch->normal[1] + dir[2] * patch->normal[2];
        if (facing > 0.0f) {
            best = BOUNCE_BACK;
        } else {
            best = ctx->luxel_base[p] + (uint32_t)v * patch->w + (uint32_t)u;
        }
        if (inside_face)
            break;
    }
    return best;
}

/* Whether an occluder other than the patch's own plane comes within its cell (ci, cj) inside the
 * face (the block less its border ring, where the luxels that test sight lie), at the height the
 * sight segments run (BAKE_NUDGE off the patch). A face standing on its edge does not count. */
static bool cell_crowded(const bounce_ctx *ctx, const bake_patch *patch, uint32_t ci, uint32_t cj, const float n[3],
                         uint32_t **ids, size_t *capacity)
{
    const float inset = 0.01f;    /* luxels */
    float u0 = fmaxf((float)(ci * ctx->cell), 1.0f) + inset, v0 = fmaxf((float)(cj * ctx->cell), 1.0f) + inset;
    float u1 = fminf((float)((ci + 1) * ctx->cell), (float)patch->w - 1.0f) - inset;
    float v1 = fminf((float)((cj + 1) * ctx->cell), (float)patch->h - 1.0f) - inset;
    if (!(u0 < u1 && v0 < v1))
        return false;
    float min[3], max[3];
    for (int a = 0; a < 3; a++) {
        float base = patch->origin[a] + n[a] * BAKE_NUDGE;
        float du0 = u0 * patch->step_u[a], du1 = u1 * patch->step_u[a], dv0 = v0 * patch->step_v[a], dv1 = v1 * patch->step_v[a];
        min[a] = base + fminf(du0, du1) + fminf(dv0, dv1) - 0.25f * BAKE_NUDGE;
        max[a] = base + fmaxf(du0, du1) + fmaxf(dv0, dv1) + 0.25f * BAKE_NUDGE;
    }
    size_t count = bvh_query_box(ctx->in->tree, min, max, ids, capacity, 0);
    return count != 0;     /* (size_t)-1, out of memory, counts as crowded: every luxel tests */
}

/* The luxel of a two-sided patch (a liquid's surface) the segment from + s (to - from), s < s_end,
 * crosses first, from either side (ericw-tools' liquid faces bounce light both ways, and block
 * none), else BOUNCE_MISS. */
static uint32_t liquid_met(const bounce_ctx *ctx, const float from[3], const float to[3], float s_end)
{
    float s, at[3], u, v;
    uint32_t triangle;
    if (!ctx->liquids.node_count || !bvh_segment_nearest_triangle(&ctx->liquids, from, to, 0.0f, s_end, &s, &triangle))
        return BOUNCE_MISS;
    uint32_t p = ctx->liquid_patch[triangle / 2];
    const bake_patch *patch = &ctx->desc->patches[p];
    for (int a = 0; a < 3; a++)
        at[a] = from[a] + s * (to[a] - from[a]);
    if (!patch_uv(patch, at, &u, &v))
        return BOUNCE_MISS;
    uint32_t i = (uint32_t)fminf(fmaxf(u, 0.0f), (float)(patch->w - 1));
    uint32_t j = (uint32_t)fminf(fmaxf(v, 0.0f), (float)(patch->h - 1));
    return ctx->luxel_base[p] + j * patch->w + i;
}

/* Ray k of a cell's `rays`: a direction, stratified on the unit disc and jittered by `h`. One-sided
 * cells take the cosine-weighted half-sphere about n. A two-sided cell (a liquid's, which
 * ericw-tools lights from both sides with no angle term at the receiver) takes every other ray on
 * each side, spread evenly in solid angle; *back is set for the rays of the side behind. */
static void ray_direction(uint32_t k, uint32_t rays, uint32_t h, bool two_sided, const float n[3], const float t[3],
                          const float b[3], float dir[3], bool *back)
{
    uint32_t sides = two_sided ? 2 : 1, index = k / sides, rings = (rays / sides + BOUNCE_SECTORS - 1) / BOUNCE_SECTORS;
    float jr = (float)(h & 0xffffu) / 65536.0f, jp = (float)(h >> 16) / 65536.0f;
    float r2 = ((float)(index / BOUNCE_SECTORS) + jr) / (float)rings;
    float phi = 6.2831853f * ((float)(index % BOUNCE_SECTORS) + jp) / BOUNCE_SECTORS;
    /* cosine-weighted: the disc lifted onto the half-sphere; even in solid angle: its height 1 - r2 */
    float dw = two_sided ? 1.0f - r2 : sqrtf(fmaxf(0.0f, 1.0f - r2));
    float r = two_sided ? sqrtf(fmaxf(0.0f, 1.0f - dw * dw)) : sqrtf(r2);
    float du = r * cosf(phi), dv = r * sinf(phi);
    *back = two_sided && (k % 2);
    for (int a = 0; a < 3; a++)
        dir[a] = t[a] * du + b[a] * dv + n[a] * (*back ? -dw : dw);
}

/* Traces the rays of one patch's cells into the hit table. */
static void trace_job(void *user, size_t index)
{
    bounce_ctx *ctx = user;
    const bounce_input *in = ctx->in;
    const bake_patch *patch = &ctx->desc->patches[index];
    uint32_t first = ctx->cell_base[index], end = ctx->cell_base[index + 1];
    float n[3], t[3], b[3];
    bool oriented = first < end && bake_unit(patch->normal, n);
    if (oriented)
        sample_basis(n, t, b);
    uint32_t cw = cells_along(patch->w, ctx->cell);
    uint32_t *ids = NULL;
    size_t capacity = 0;
    for (uint32_t c = first; c < end; c++) {
        uint32_t *hits = ctx->hits + ctx->ray_base[c], rays = ctx->ray_base[c + 1] - ctx->ray_base[c];
        ctx->cell_clear[c] = oriented && !cell_crowded(ctx, patch, (c - first) % cw, (c - first) / cw, n, &ids, &capacity);
        ctx->cell_send[c] = 1.0f;
        if (!oriented) {
            for (uint32_t k = 0; k < rays; k++)
                hits[k] = BOUNCE_BACK;
            continue;
        }
        float front[3], behind[3], back_n[3] = { -n[0], -n[1], -n[2] };
        cell_point(ctx, patch, (c - first) % cw, (c - first) / cw, n, front);
        if (patch->two_sided) /* only a two-sided cell sends rays from behind (ray_direction) */
            cell_point(ctx, patch, (c - first) % cw, (c - first) / cw, back_n, behind);
        else
            memcpy(behind, front, sizeof behind);
        uint32_t backs = 0;
        for (uint32_t k = 0; k < rays; k++) {
            float dir[3], to[3];
            bool back;
            ray_direction(k, rays, sample_hash(ctx->ray_base[c] + k), patch->two_sided, n, t, b, dir, &back);
            const float *from = back ? behind : front;
            for (int a = 0; a < 3; a++)
                to[a] = from[a] + dir[a] * in->reach;
            float s_sky = 1.0f, s, s_end;
            uint32_t triangle;
            bvh_segment_nearest(in->sky_tree, from, to, 0.0f, 1.0f, &s_sky);
            hits[k] = BOUNCE_MISS;
            s_end = s_sky;
            if (bvh_segment_nearest_triangle(in->tree, from, to, 0.0f, s_sky, &s, &triangle)) {
                s_end = s;
                float at[3];
                for (int a = 0; a < 3; a++)
                    at[a] = from[a] + s * (to[a] - from[a]);
                hits[k] = luxel_at(ctx, ctx->desc->triangle_surfaces[triangle], at, dir);
            }
            /* a liquid's surface on the way gives its light instead (liquids cast no shadow, so the
             * occluders hold none of them) */
            uint32_t liquid = liquid_met(ctx, from, to, s_end);
            if (liquid != BOUNCE_MISS)
                hits[k] = liquid;
            backs += hits[k] == BOUNCE_BACK;
        }
        ctx->cell_open[c] = backs * BOUNCE_INSIDE <= rays;
        if (ctx->desc->bounce_no_sky_loss) {
            uint32_t met = 0;
            for (uint32_t k = 0; k < rays; k++)
                met += hits[k] < ctx->luxel_count;
            ctx->cell_send[c] = 1.0f / fmaxf((float)met / (float)rays, BOUNCE_MIN_SEEN);
        }
    }
    pmf_budget_free(ids);
}

/* ---- bounces over a set of cells -------------------------------------------------------- */

/* The slot of patch p in the set, or BOUNCE_MISS when it is not in it. */
static uint32_t set_slot(const bounce_set *set, uint32_t p)
{
    return set->patches ? set->slot_of[p] : 0;
}

/* The local index of cell c in the set, or BOUNCE_MISS when it is not in it. */
static uint32_t local_cell(const bounce_ctx *ctx, const bounce_set *set, uint32_t c)
{
    if (!set->patches)
        return c;
    uint32_t p = ctx->cell_patch[c], slot = set_slot(set, p);
    return slot == BOUNCE_MISS ? BOUNCE_MISS : set->local_base[slot] + (c - ctx->cell_base[p]);
}

/* The direct light's exitance at luxel x (a hit): albedo x (luxel / 255 - floor), 0 outside the set. */
static void luxel_sent(const bounce_ctx *ctx, const bounce_set *set, uint32_t x, float out[3])
{
    uint32_t p = ctx->cell_patch[ctx->luxel_cell[x]], slot = set_slot(set, p);
    out[0] = out[1] = out[2] = 0.0f;
    if (slot == BOUNCE_MISS)
        return;
    const bake_patch *patch = &ctx->desc->patches[p];
    const bake_lightmap *lm = &ctx->desc->lightmaps[patch->lightmap];
    uint32_t side = lightmap_side(lm), i = (x - ctx->luxel_base[p]) % patch->w, j = (x - ctx->luxel_base[p]) / patch->w;
    if (patch->x + i >= side || patch->y + j >= side)
        return;
    const uint8_t *luxels = set->luxels ? set->luxels[slot] : lm->luxels;
    const uint8_t *at = luxels + ((size_t)(patch->y + j) * side + patch->x + i) * 3;
    for (int ch = 0; ch < 3; ch++)
        out[ch] = clamp_albedo(patch->albedo[ch]) * fmaxf(0.0f, bake_unstore(ctx->desc, at[ch]) - set->floor_[ch]);
}

/* The global cell of local cell l. */
static uint32_t global_cell(const bounce_ctx *ctx, const bounce_set *set, size_t patch_slot, uint32_t l)
{
    if (!set->patches)
        return l;
    uint32_t p = set->patches[patch_slot];
    return ctx->cell_base[p] + (l - set->local_base[patch_slot]);
}

/* One bounce for local cells [first, end) of the patch in `slot`: gathered = mean of what its rays
 * meet (the first bounce: the direct light of the luxel met; then `sent` of its cell). */
static void gather_cells(const bounce_ctx *ctx, const bounce_set *set, size_t slot, uint32_t first, uint32_t end,
                         bool first_bounce)
{
    for (uint32_t l = first; l < end; l++) {
        uint32_t c = global_cell(ctx, set, slot, l), rays = ctx->ray_base[c + 1] - ctx->ray_base[c];
        float sum[3] = { 0.0f, 0.0f, 0.0f };
        if (ctx->cell_open[c]) {
            const uint32_t *hits = ctx->hits + ctx->ray_base[c];
            for (uint32_t k = 0; k < rays; k++) {
                if (hits[k] >= ctx->luxel_count)
                    continue;
                float send = ctx->cell_send[ctx->luxel_cell[hits[k]]];
                if (first_bounce) {
                    float sent[3];
                    luxel_sent(ctx, set, hits[k], sent);
                    for (int ch = 0; ch < 3; ch++)
                        sum[ch] += sent[ch] * send;
                    continue;
                }
                uint32_t met = local_cell(ctx, set, ctx->luxel_cell[hits[k]]);
                if (met == BOUNCE_MISS)
                    continue;
                for (int ch = 0; ch < 3; ch++)
                    sum[ch] += set->sent[met][ch] * send;
            }
        }
        /* cosine-weighted rays: the mean is the irradiance over pi. Rays even in solid angle over
         * both sides of a two-sided cell, with no angle term: 4 pi x the mean over pi */
        float weight = ctx->desc->patches[ctx->cell_patch[c]].two_sided ? 4.0f : 1.0f;
        for (int ch = 0; ch < 3; ch++)
            set->gathered[l][ch] = weight * sum[ch] / (float)rays;
    }
}

typedef struct gather_block_job { const bounce_ctx *ctx; const bounce_set *set; bool first_bounce; } gather_block_job;

static void gather_block(void *user, size_t block)
{
    const gather_block_job *job = user;
    uint32_t first = (uint32_t)(block * BOUNCE_CELL_BLOCK), end = first + BOUNCE_CELL_BLOCK;
    if (end > job->set->cell_count)
        end = (uint32_t)job->set->cell_count;
    gather_cells(job->ctx, job->set, 0, first, end, job->first_bounce);
}

/* ---- the base's bounces kept from the bake before (bake_transport.gathered) ------------- */

/* The base set's bounces as they run: the kept bake's bounces (when they hold), which cells' light
 * changed since, and each bounce's gathered light, kept for the next bake. */
typedef struct bounce_history {
    bake_transport *keep;           /* where the bounces are kept (desc->transport), NULL: nowhere */
    const bake_transport *from;     /* the kept bake's bounces when they hold, else NULL: every cell gathers */
    uint64_t *direct;               /* [cell]: the hash of the direct light its luxels bounce now, as stored */
    float direct_read[5];           /* the floor, store_scale and store_gamma it is read with */
    uint8_t *changed;               /* [cell]: the light it sends differs from the kept bake's */
    uint8_t *marked;                /* [cell]: it gathers again in this bounce */
    uint32_t *again;                /* the cells that gather again, ascending */
    float (*gathered)[3];           /* [bounces x cell_count]: each bounce's gathered light */
    size_t bounces;
    uint64_t gathers;               /* cells gathered, over all bounces */
} bounce_history;

typedef struct again_job {
    const bounce_ctx *ctx;
    const bounce_set *set;
    const uint32_t *cells;
    size_t count;
    bool first_bounce;
} again_job;

static void again_block(void *user, size_t block)
{
    const again_job *job = user;
    size_t end = (block + 1) * BOUNCE_CELL_BLOCK < job->count ? (block + 1) * BOUNCE_CELL_BLOCK : job->count;
    for (size_t k = block * BOUNCE_CELL_BLOCK; k < end; k++)
        gather_cells(job->ctx, job->set, 0, job->cells[k], job->cells[k] + 1, job->first_bounce);
}

/* Bounce `bounce` of the base set from the kept bake's: the cells whose rays meet a cell whose light
 * changed gather again (each exactly as a bake gathering every cell would), the rest keep the kept
 * bake's; then `changed` holds the cells whose gathered light differs from it. False when the kept
 * bake did not run this bounce. */
static bool history_bounce(const bounce_ctx *ctx, bounce_set *set, int threads, bounce_history *h, int bounce)
{
    const bake_transport *from = h->from;
    if (!from || (size_t)bounce >= from->bounce_count)
        return false;
    size_t cells = set->cell_count, count = 0;
    const float (*before)[3] = (const float (*)[3])from->gathered + (size_t)bounce * cells;
    memset(h->marked, 0, cells);
    for (size_t c = 0; c < cells; c++)
        if (h->changed[c])
            for (uint32_t k = from->receiver_base[c]; k < from->receiver_base[c + 1]; k++)
                h->marked[from->receivers[k]] = 1;
    for (uint32_t c = 0; c < cells; c++)
        if (h->marked[c])
            h->again[count++] = c;
    memcpy(set->gathered, before, cells * sizeof *set->gathered);
    again_job job = { ctx, set, h->again, count, bounce == 0 };
    jobs_parallel_for((count + BOUNCE_CELL_BLOCK - 1) / BOUNCE_CELL_BLOCK, threads, again_block, &job);
    memset(h->changed, 0, cells);
    for (size_t k = 0; k < count; k++)
        h->changed[h->again[k]] = memcmp(set->gathered[h->again[k]], before[h->again[k]], sizeof *before) != 0;
    h->gathers += count;
    return true;
}

/* The bounce just gathered added to the history's; false when out of memory (nothing is kept). */
static bool history_keep(const bounce_set *set, bounce_history *h)
{
    if (!h->keep)
        return true;
    float (*grown)[3] = pmf_budget_realloc(h->gathered, (h->bounces + 1) * set->cell_count * sizeof *grown + 1);
    if (!grown) {
        h->keep = NULL;
        return false;
    }
    h->gathered = grown;
    memcpy(h->gathered + h->bounces * set->cell_count, set->gathered, set->cell_count * sizeof *set->gathered);
    h->bounces++;
    return true;
}

/* The number of luxels in local cell l of the patch in `slot`. */
static float cell_area(const bounce_ctx *ctx, const bounce_set *set, size_t slot, uint32_t l)
{
    uint32_t c = global_cell(ctx, set, slot, l), p = ctx->cell_patch[c];
    const bake_patch *patch = &ctx->desc->patches[p];
    uint32_t cw = cells_along(patch->w, ctx->cell), i0, i1, j0, j1;
    cell_luxels(ctx, patch, (c - ctx->cell_base[p]) % cw, (c - ctx->cell_base[p]) / cw, &i0, &i1, &j0, &j1);
    return (float)((i1 - i0) * (j1 - j0));
}

/* One bounce over a set: every cell gathers, or with a history whose kept bounce this one is, the
 * cells its rays reach again (history_bounce). */
static void gather_bounce(const bounce_ctx *ctx, bounce_set *set, int threads, bounce_history *history, int bounce)
{
    if (history && history_bounce(ctx, set, threads, history, bounce))
        return;
    if (history)
        history->gathers += set->cell_count;
    if (threads > 1 && !set->patches) {
        gather_block_job job = { ctx, set, bounce == 0 };
        jobs_parallel_for((set->cell_count + BOUNCE_CELL_BLOCK - 1) / BOUNCE_CELL_BLOCK, threads, gather_block, &job);
    } else {
        for (size_t s = 0; s < (set->patches ? set->patch_count : 1); s++)
            gather_cells(ctx, set, s, set->patches ? set->local_base[s] : 0,
                         set->patches ? set->local_base[s + 1] : (uint32_t)set->cell_count, bounce == 0);
    }
}

/* Runs the bounces of a set whose `sent` holds the direct light's exitance and `gathered` the
 * direct irradiance: `indirect` receives their sum. `threads` > 1 spreads each bounce over threads
 * (the base set); a dynamic light's set runs on the calling thread. The base set's `history`
 * (NULL for a dynamic light's) takes each bounce's gathered light. */
static void run_bounces(const bounce_ctx *ctx, bounce_set *set, int threads, bounce_history *history)
{
    double total = 0.0, before = 0.0;
    size_t slot = 0;
    for (uint32_t l = 0; l < set->cell_count; l++) {
        while (set->patches && l >= set->local_base[slot + 1])
            slot++;
        float area = cell_area(ctx, set, slot, l);
        for (int ch = 0; ch < 3; ch++) {
            total += (double)set->gathered[l][ch] * area;
            set->indirect[l][ch] = 0.0f;
        }
    }
    before = total;
    int limit = ctx->desc->bounces == BAKE_BOUNCE_AUTO ? BAKE_BOUNCE_MAX : ctx->desc->bounces;
    for (int bounce = 0; bounce < limit; bounce++) {
        gather_bounce(ctx, set, threads, history, bounce);
        if (history && !history_keep(set, history))
            history->from = NULL;   /* kept nowhere: the next bounces gather every cell */
        double added = 0.0;
        slot = 0;
        for (uint32_t l = 0; l < set->cell_count; l++) {
            while (set->patches && l >= set->local_base[slot + 1])
                slot++;
            uint32_t p = ctx->cell_patch[global_cell(ctx, set, slot, l)];
            float area = cell_area(ctx, set, slot, l);
            for (int ch = 0; ch < 3; ch++) {
                set->indirect[l][ch] += set->gathered[l][ch];
                set->sent[l][ch] = clamp_albedo(ctx->desc->patches[p].albedo[ch]) * set->gathered[l][ch];
                added += (double)set->gathered[l][ch] * area;
            }
        }
        total += added;
        /* The next bounce adds about this one times r, the ratio of this one to the one before:
         * when that is little, the rest of the series (this one x r / (1 - r)) is added at once. */
        double r = before > 0.0 ? added / before : 0.0;
        if (ctx->desc->bounces == BAKE_BOUNCE_AUTO && added * r < BOUNCE_STOP * total) {
            float rest = (float)(fmin(r, BOUNCE_TAIL_MAX) / (1.0 - fmin(r, BOUNCE_TAIL_MAX)));
            for (uint32_t l = 0; l < set->cell_count; l++)
                for (int ch = 0; ch < 3; ch++)
                    set->indirect[l][ch] += set->gathered[l][ch] * rest;
            break;
        }
        before = added;
    }
}

/* Whether the segment between two points BAKE_NUDGE off patch p (at luxel coordinates (ua, va)
 * and (ub, vb)) is clear of occluders. */
static bool clear_between(const bounce_ctx *ctx, const bake_patch *patch, const float n[3], float ua, float va, float ub,
                          float vb)
{
    float from[3], to[3];
    for (int a = 0; a < 3; a++) {
        float base = patch->origin[a] + n[a] * BAKE_NUDGE;
        from[a] = base + ua * patch->step_u[a] + va * patch->step_v[a];
        to[a] = base + ub * patch->step_u[a] + vb * patch->step_v[a];
    }
    return !bvh_segment_occluded(ctx->in->tree, from, to, 0.0f, 1.0f, NULL);
}

/* The middle of cell (ci, cj) in luxel coordinates. */
static void cell_middle(const bounce_ctx *ctx, const bake_patch *patch, uint32_t ci, uint32_t cj, float *u, float *v)
{
    uint32_t i0, i1, j0, j1;
    cell_luxels(ctx, patch, ci, cj, &i0, &i1, &j0, &j1);
    *u = 0.5f * (float)(i0 + i1);
    *v = 0.5f * (float)(j0 + j1);
}

/* The four cells (patch-local) luxel (i, j) of patch p takes bounced light from, and their
 * bilinear weights (corner b * 2 + a). */
static void luxel_footprint(const bounce_ctx *ctx, const bake_patch *patch, uint32_t i, uint32_t j, uint32_t cells[4],
                            float weights[4], float *fx_out, float *fy_out)
{
    uint32_t cw = cells_along(patch->w, ctx->cell), chh = cells_along(patch->h, ctx->cell);
    float fx = ((float)i + 0.5f) / (float)ctx->cell - 0.5f, fy = ((float)j + 0.5f) / (float)ctx->cell - 0.5f;
    fx = fminf(fmaxf(fx, 0.0f), (float)(cw - 1));
    fy = fminf(fmaxf(fy, 0.0f), (float)(chh - 1));
    uint32_t x0 = (uint32_t)fx, y0 = (uint32_t)fy;
    uint32_t x1 = x0 + 1 < cw ? x0 + 1 : x0, y1 = y0 + 1 < chh ? y0 + 1 : y0;
    float ax = fx - (float)x0, ay = fy - (float)y0;
    const uint32_t xs[2] = { x0, x1 }, ys[2] = { y0, y1 };
    const float wx[2] = { 1.0f - ax, ax }, wy[2] = { 1.0f - ay, ay };
    for (int b = 0; b < 2; b++)
        for (int a = 0; a < 2; a++) {
            cells[b * 2 + a] = ys[b] * cw + xs[a];
            weights[b * 2 + a] = wx[a] * wy[b];
        }
    *fx_out = fx;
    *fy_out = fy;
}

/* Whether luxel (i, j) of a patch sees the middle of its cell k (the block's border ring: always). */
static bool luxel_sees_middle(const bounce_ctx *ctx, const bake_patch *patch, uint32_t i, uint32_t j, uint32_t k)
{
    float n[3], ku, kv;
    if (i == 0 || j == 0 || i + 1 >= patch->w || j + 1 >= patch->h || !bake_unit(patch->normal, n))
        return true;
    uint32_t cw = cells_along(patch->w, ctx->cell);
    cell_middle(ctx, patch, k % cw, k / cw, &ku, &kv);
    return clear_between(ctx, patch, n, (float)i + 0.5f, (float)j + 0.5f, ku, kv);
}

/* For a luxel that sees none of its footprint cells: the nearest open cell around its own (3 x 3)
 * that it sees, as (3 * (dj + 1) + di + 1 + 1) << 4, or 0 when there is none. */
static uint8_t nearest_seen(const bounce_ctx *ctx, const bake_patch *patch, uint32_t first, uint32_t i, uint32_t j,
                            float fx, float fy)
{
    uint32_t cw = cells_along(patch->w, ctx->cell), chh = cells_along(patch->h, ctx->cell);
    uint32_t ci = i / ctx->cell, cj = j / ctx->cell;
    float best = INFINITY;
    uint8_t found = 0;
    for (uint32_t dy = 0; dy < 3; dy++)
        for (uint32_t dx = 0; dx < 3; dx++) {
            uint32_t nx = ci + dx, ny = cj + dy;     /* neighbour + 1 */
            if (nx < 1 || ny < 1 || nx > cw || ny > chh || !ctx->cell_open[first + (ny - 1) * cw + nx - 1])
                continue;
            float ex = (float)(nx - 1) - fx, ey = (float)(ny - 1) - fy, d = ex * ex + ey * ey;
            if (d < best && luxel_sees_middle(ctx, patch, i, j, (ny - 1) * cw + nx - 1)) {
                best = d;
                found = (uint8_t)((dy * 3 + dx + 1) << 4);
            }
        }
    return found;
}

#define LINKS_KNOWN 0x8000u     /* links[cell] bit 15: its bits (3 x 3 neighbours, 3 * dj + di) are set */

/* Which footprint cells each luxel of patch p takes bounced light from (luxel_sees: bit b * 2 + a):
 * open cells it sees. A luxel sees its own cell when the segment to its middle is clear (always in
 * a cell no occluder comes into), and a neighbour cell when it sees its own and its own cell's
 * middle sees the neighbour's (tested once per pair of cells); a luxel that does not see its own
 * cell's middle tests each one directly. The block's border ring (outside the face, there only for
 * filtering) sees all around it. */
static void sight_job(void *user, size_t p)
{
    bounce_ctx *ctx = user;
    const bake_patch *patch = &ctx->desc->patches[p];
    uint32_t first = ctx->cell_base[p], end = ctx->cell_base[p + 1];
    float n[3];
    bool oriented = bake_unit(patch->normal, n);
    if (first == end)
        return;
    uint32_t cw = cells_along(patch->w, ctx->cell), chh = cells_along(patch->h, ctx->cell);
    uint16_t *links = pmf_budget_calloc(end - first, sizeof *links);
    if (!links) {
        atomic_store(&ctx->failed, true);
        return;
    }
    for (uint32_t j = 0; j < patch->h; j++)
        for (uint32_t i = 0; i < patch->w; i++) {
            uint32_t cells[4];
            float weights[4], fx, fy;
            luxel_footprint(ctx, patch, i, j, cells, weights, &fx, &fy);
            uint32_t ci = i / ctx->cell, cj = j / ctx->cell, own = cj * cw + ci;
            bool border = i == 0 || j == 0 || i + 1 >= patch->w || j + 1 >= patch->h;
            bool free_sight = border || !oriented;
            float lu = (float)i + 0.5f, lv = (float)j + 0.5f, ou, ov;
            cell_middle(ctx, patch, ci, cj, &ou, &ov);
            bool sees_own = free_sight || ctx->cell_clear[first + own] || clear_between(ctx, patch, n, lu, lv, ou, ov);
            uint8_t sees = 0;
            for (int k = 0; k < 4; k++) {
                uint32_t c = cells[k], kx = c % cw, ky = c / cw;
                if (!(weights[k] > 0.0f) || !ctx->cell_open[first + c])
                    continue;
                bool seen;
                float ku, kv;
                cell_middle(ctx, patch, kx, ky, &ku, &kv);
                if (free_sight || c == own) {
                    seen = sees_own;
                } else if (!sees_own) {
                    seen = clear_between(ctx, patch, n, lu, lv, ku, kv);
                } else {
                    if (!(links[own] & LINKS_KNOWN)) {
                        links[own] = LINKS_KNOWN;
                        for (uint32_t dy = 0; dy < 3; dy++)
                            for (uint32_t dx = 0; dx < 3; dx++) {
                                uint32_t nx = ci + dx, ny = cj + dy;     /* neighbour + 1 */
                                if (nx < 1 || ny < 1 || nx > cw || ny > chh)
                                    continue;
                                float mu, mv;
                                cell_middle(ctx, patch, nx - 1, ny - 1, &mu, &mv);
                                if (clear_between(ctx, patch, n, ou, ov, mu, mv))
                                    links[own] |= (uint16_t)(1u << (dy * 3 + dx));
                            }
                    }
                    seen = links[own] & (1u << ((ky + 1 - cj) * 3 + (kx + 1 - ci)));
                }
                if (seen)
                    sees |= (uint8_t)(1u << k);
            }
            if (!sees)
                sees = nearest_seen(ctx, patch, first, i, j, fx, fy);
            ctx->luxel_sees[ctx->luxel_base[p] + j * patch->w + i] = sees;
        }
    pmf_budget_free(links);
}

/* The bounced light of local luxel (i, j) of the patch in `slot`: its cells' sums, bilinearly,
 * taking only cells that gather and that it sees (or the nearest such one when none around it is). */
static bool luxel_indirect(const bounce_ctx *ctx, const bounce_set *set, size_t slot, uint32_t p, uint32_t i,
                           uint32_t j, float out[3])
{
    const bake_patch *patch = &ctx->desc->patches[p];
    uint32_t cw = cells_along(patch->w, ctx->cell);
    uint32_t first_local = set->patches ? set->local_base[slot] : ctx->cell_base[p];
    uint32_t cells[4];
    float weights[4], fx, fy, weight = 0.0f;
    luxel_footprint(ctx, patch, i, j, cells, weights, &fx, &fy);
    uint8_t sees = ctx->luxel_sees[ctx->luxel_base[p] + j * patch->w + i];
    out[0] = out[1] = out[2] = 0.0f;
    for (int c = 0; c < 4; c++) {
        if (!(sees & (1u << c)))
            continue;
        for (int ch = 0; ch < 3; ch++)
            out[ch] += weights[c] * set->indirect[first_local + cells[c]][ch];
        weight += weights[c];
    }
    if (weight > 0.0f) {
        for (int ch = 0; ch < 3; ch++)
            out[ch] /= weight;
        return true;
    }
    if (!(sees >> 4))
        return false;
    uint32_t near = (sees >> 4) - 1, ci = i / ctx->cell + near % 3, cj = j / ctx->cell + near / 3;   /* neighbour + 1 */
    memcpy(out, set->indirect[first_local + (cj - 1) * cw + ci - 1], sizeof(float[3]));
    return true;
}

/* Adds the set's bounced light to the luxels (RGB8) of patch p; true when one of them is non-zero. */
static bool apply_patch(const bounce_ctx *ctx, const bounce_set *set, size_t slot, uint32_t p, uint8_t *luxels)
{
    const bake_patch *patch = &ctx->desc->patches[p];
    uint32_t side = lightmap_side(&ctx->desc->lightmaps[patch->lightmap]);
    bool lit = false;
    for (uint32_t j = 0; j < patch->h && patch->y + j < side; j++)
        for (uint32_t i = 0; i < patch->w && patch->x + i < side; i++) {
            size_t at = ((size_t)(patch->y + j) * side + patch->x + i) * 3;
            float add[3];
            if (luxel_indirect(ctx, set, slot, p, i, j, add))
                for (int ch = 0; ch < 3; ch++)
                    if (add[ch] > 0.0f) {
                        float light = bake_unstore(ctx->desc, luxels[at + ch]) + add[ch];
                        float v = bake_store(ctx->desc, light) * 255.0f;
                        luxels[at + ch] = v >= 254.5f ? 255 : (uint8_t)(v + 0.5f);
                    }
            lit |= (luxels[at] | luxels[at + 1] | luxels[at + 2]) != 0;
        }
    return lit;
}

/* The direct light of local cell l of the patch in `slot` into gathered[l] (its luxels' mean of
 * luxel / 255 - floor, at least 0 per colour): the light the bounces start from. */
static void set_direct(const bounce_ctx *ctx, bounce_set *set, size_t slot, uint32_t l)
{
    uint32_t c = global_cell(ctx, set, slot, l), p = ctx->cell_patch[c];
    const bake_patch *patch = &ctx->desc->patches[p];
    const bake_lightmap *lm = &ctx->desc->lightmaps[patch->lightmap];
    const uint8_t *luxels = set->luxels ? set->luxels[slot] : lm->luxels;
    uint32_t side = lightmap_side(lm);
    uint32_t cw = cells_along(patch->w, ctx->cell), i0, i1, j0, j1;
    cell_luxels(ctx, patch, (c - ctx->cell_base[p]) % cw, (c - ctx->cell_base[p]) / cw, &i0, &i1, &j0, &j1);
    double sum[3] = { 0.0, 0.0, 0.0 };
    unsigned count = 0;
    for (uint32_t j = j0; j < j1 && patch->y + j < side; j++)
        for (uint32_t i = i0; i < i1 && patch->x + i < side; i++) {
            size_t at = ((size_t)(patch->y + j) * side + patch->x + i) * 3;
            for (int ch = 0; ch < 3; ch++)
                sum[ch] += fmax(0.0, bake_unstore(ctx->desc, luxels[at + ch]) - set->floor_[ch]);
            count++;
        }
    for (int ch = 0; ch < 3; ch++)
        set->gathered[l][ch] = count ? (float)(sum[ch] / count) : 0.0f;
}

static bool set_alloc(bounce_set *set)
{
    size_t n = set->cell_count + 1;
    set->sent = pmf_budget_malloc(n * sizeof *set->sent);
    set->gathered = pmf_budget_malloc(n * sizeof *set->gathered);
    set->indirect = pmf_budget_malloc(n * sizeof *set->indirect);
    return set->sent && set->gathered && set->indirect;
}

static void set_free(bounce_set *set)
{
    pmf_budget_free(set->sent);
    pmf_budget_free(set->gathered);
    pmf_budget_free(set->indirect);
}

/* ---- the base lightmaps ----------------------------------------------------------------- */

typedef struct base_job { const bounce_ctx *ctx; bounce_set *set; } base_job;

static void base_direct_job(void *user, size_t p)
{
    const base_job *job = user;
    const bounce_ctx *ctx = job->ctx;
    for (uint32_t c = ctx->cell_base[p]; c < ctx->cell_base[p + 1]; c++)
        set_direct(ctx, job->set, 0, c);
}

static void base_apply_job(void *user, size_t p)
{
    const base_job *job = user;
    const bounce_ctx *ctx = job->ctx;
    if (ctx->cell_base[p] < ctx->cell_base[p + 1])
        apply_patch(ctx, job->set, 0, (uint32_t)p, ctx->desc->lightmaps[ctx->desc->patches[p].lightmap].luxels);
}

typedef struct direct_job { const bounce_ctx *ctx; bounce_history *history; } direct_job;

/* The hash of the direct light (as stored) of the luxels of each of patch p's cells into
 * history->direct; with the kept bake's bounces, a cell whose hash differs from its kept one's is
 * marked changed. */
static void history_direct_job(void *user, size_t p)
{
    const direct_job *job = user;
    const bounce_ctx *ctx = job->ctx;
    bounce_history *h = job->history;
    const bake_patch *patch = &ctx->desc->patches[p];
    const bake_lightmap *lm = &ctx->desc->lightmaps[patch->lightmap];
    uint32_t first = ctx->cell_base[p], cw = cells_along(patch->w, ctx->cell);
    for (uint32_t c = first; c < ctx->cell_base[p + 1]; c++) {
        uint32_t i0, i1, j0, j1, side = lightmap_side(lm);
        cell_luxels(ctx, patch, (c - first) % cw, (c - first) / cw, &i0, &i1, &j0, &j1);
        uint64_t hash = 0xcbf29ce484222325ull;
        uint32_t i_end = patch->x + i1 <= side ? i1 : patch->x < side ? side - patch->x : 0;
        for (uint32_t j = j0; j < j1 && patch->y + j < side && i0 < i_end; j++) {
            const uint8_t *row = lm->luxels + ((size_t)(patch->y + j) * side + patch->x + i0) * 3;
            hash = bake_hash_bytes(hash, row, (size_t)(i_end - i0) * 3);
        }
        h->direct[c] = hash;
        h->changed[c] = h->from && h->from->direct[c] != hash;
    }
}

/* kept->receivers: for each cell, the open cells whose rays meet one of its luxels, each once and
 * ascending. False when out of memory. */
static bool build_receivers(const bounce_ctx *ctx, bake_transport *kept)
{
    size_t cells = ctx->cell_count;
    uint32_t *base = pmf_budget_calloc(cells + 1, sizeof *base), *stamp = pmf_budget_malloc((cells + 1) * sizeof *stamp);
    uint32_t *list = NULL;
    for (int pass = 0; pass < 2 && base && stamp; pass++) {
        for (size_t c = 0; c < cells; c++)
            stamp[c] = UINT32_MAX;
        for (uint32_t r = 0; r < cells; r++)
            for (uint32_t k = ctx->ray_base[r]; ctx->cell_open[r] && k < ctx->ray_base[r + 1]; k++) {
                uint32_t source = ctx->hits[k] < ctx->luxel_count ? ctx->luxel_cell[ctx->hits[k]] : UINT32_MAX;
                if (source == UINT32_MAX || stamp[source] == r)
                    continue;
                stamp[source] = r;
                if (pass)
                    list[base[source]++] = r;   /* base[source] runs from its start to its end */
                else
                    base[source + 1]++;
            }
        if (pass) {
            memmove(base + 1, base, cells * sizeof *base);
            base[0] = 0;
            break;
        }
        for (size_t c = 0; c < cells; c++)
            base[c + 1] += base[c];
        list = pmf_budget_malloc(((size_t)base[cells] + 1) * sizeof *list);
        if (!list)
            break;
    }
    pmf_budget_free(stamp);
    if (!base || !list) {
        pmf_budget_free(base);
        pmf_budget_free(list);
        return false;
    }
    kept->receiver_base = base;
    kept->receivers = list;
    return true;
}

/* The history of the base set's bounces: with desc->transport, the cells' direct light, and the
 * kept bake's bounces when they were bounced from light read the same way (then the cells whose
 * luxels' light changed). False when out of memory. */
static bool history_start(const bounce_ctx *ctx, const bounce_set *base, bounce_history *h)
{
    const bake_desc *desc = ctx->desc;
    bake_transport *kept = desc->transport;
    if (!kept)
        return true;
    h->keep = kept;
    const float read[5] = { base->floor_[0], base->floor_[1], base->floor_[2], desc->store_scale, desc->store_gamma };
    memcpy(h->direct_read, read, sizeof read);
    h->direct = pmf_budget_malloc((ctx->cell_count + 1) * sizeof *h->direct);
    h->changed = pmf_budget_calloc(ctx->cell_count + 1, 1);
    h->marked = pmf_budget_malloc(ctx->cell_count + 1);
    h->again = pmf_budget_malloc((ctx->cell_count + 1) * sizeof *h->again);
    if (!h->direct || !h->changed || !h->marked || !h->again)
        return false;
    if (kept->gathered && kept->direct && kept->cell_count == ctx->cell_count && kept->luxel_count == ctx->luxel_count &&
        !memcmp(kept->direct_read, read, sizeof read) && (kept->receiver_base || build_receivers(ctx, kept)))
        h->from = kept;
    direct_job job = { ctx, h };
    jobs_parallel_for(desc->patch_count, desc->threads, history_direct_job, &job);
    return true;
}

/* The history's bounces and direct light kept in desc->transport for the next bake (none when
 * they could not all be kept); its blocks freed. */
static void history_end(bounce_history *h, bool ok)
{
    bake_transport *kept = h->keep;
    if (kept) {
        pmf_budget_free(kept->direct);
        pmf_budget_free(kept->gathered);
        kept->direct = ok ? h->direct : NULL;
        kept->gathered = ok ? h->gathered : NULL;
        kept->bounce_count = ok ? h->bounces : 0;
        memcpy(kept->direct_read, h->direct_read, sizeof kept->direct_read);
    }
    if (!kept || !ok) {
        pmf_budget_free(h->direct);
        pmf_budget_free(h->gathered);
    }
    pmf_budget_free(h->changed);
    pmf_budget_free(h->marked);
    pmf_budget_free(h->again);
}

/* ---- the dynamic lights' layers --------------------------------------------------------- */

typedef struct light_run { size_t first, end; } light_run;   /* tasks of one light */
/* Each light run's bounced light (per cell of its set) and the key of what it bounced from. */
typedef struct layers_job {
    bounce_ctx *ctx;
    const light_run *runs;
    uint64_t *keys;                 /* [run] */
    float (**indirect)[3];          /* [run]: NULL when it has none (or out of memory) */
    uint32_t *cells;                /* [run] */
    uint8_t *kept;                  /* [run]: it took the transport's kept bounced light */
} layers_job;

/* What a light's set's bounces follow from: its patches, the direct light in its layers' luxels
 * and the settings (the transport, which holds the kept bounces, is the same). */
static uint64_t set_key(const bounce_ctx *ctx, const bounce_set *set)
{
    const bake_desc *desc = ctx->desc;
    const float read[3] = { desc->store_scale, desc->store_gamma, (float)desc->bounces };
    uint64_t h = bake_hash_bytes(0xcbf29ce484222325ull, read, sizeof read);
    h = bake_hash_bytes(h, set->patches, set->patch_count * sizeof *set->patches);
    for (size_t k = 0; k < set->patch_count; k++) {
        const bake_patch *patch = &desc->patches[set->patches[k]];
        uint32_t side = lightmap_side(&desc->lightmaps[patch->lightmap]);
        uint32_t w = patch->x < side ? (side - patch->x < patch->w ? side - patch->x : patch->w) : 0;
        for (uint32_t j = 0; j < patch->h && patch->y + j < side; j++)
            h = bake_hash_bytes(h, set->luxels[k] + ((size_t)(patch->y + j) * side + patch->x) * 3, (size_t)w * 3);
    }
    return h;
}

/* The bounced light the transport keeps under `key` for a set of `cells` cells, or NULL. */
static const float (*kept_layer(const bake_transport *kept, uint64_t key, size_t cells))[3]
{
    for (size_t k = 0; kept && k < kept->layer_count; k++)
        if (kept->layer_keys[k] == key && kept->layer_base[k + 1] - kept->layer_base[k] == cells)
            return (const float (*)[3])kept->layer_indirect + kept->layer_base[k];
    return NULL;
}

/* The runs' bounced light kept in desc->transport for the next bake (none when out of memory). */
static void keep_layers(const bounce_ctx *ctx, const layers_job *job, size_t run_count)
{
    bake_transport *kept = ctx->desc->transport;
    if (!kept)
        return;
    pmf_budget_free(kept->layer_keys);
    pmf_budget_free(kept->layer_base);
    pmf_budget_free(kept->layer_indirect);
    size_t cells = 0;
    for (size_t r = 0; r < run_count; r++)
        cells += job->indirect[r] ? job->cells[r] : 0;
    kept->layer_keys = pmf_budget_malloc((run_count + 1) * sizeof *kept->layer_keys);
    kept->layer_base = pmf_budget_malloc((run_count + 1) * sizeof *kept->layer_base);
    kept->layer_indirect = pmf_budget_malloc((cells + 1) * sizeof *kept->layer_indirect);
    kept->layer_count = 0;
    if (!kept->layer_keys || !kept->layer_base || !kept->layer_indirect || cells >= UINT32_MAX)
        return;
    kept->layer_base[0] = 0;
    for (size_t r = 0; r < run_count; r++) {
        if (!job->indirect[r])
            continue;
        size_t at = kept->layer_base[kept->layer_count];
        memcpy(kept->layer_indirect + at, job->indirect[r], job->cells[r] * sizeof *kept->layer_indirect);
        kept->layer_keys[kept->layer_count++] = job->keys[r];
        kept->layer_base[kept->layer_count] = (uint32_t)(at + job->cells[r]);
    }
}

static void light_layers_job(void *user, size_t r)
{
    const layers_job *job = user;
    bounce_ctx *ctx = job->ctx;
    const bounce_input *in = ctx->in;
    const light_run *run = &job->runs[r];
    size_t count = run->end - run->first;
    bounce_set set = { 0 };
    uint32_t *patches = pmf_budget_malloc(count * sizeof *patches), *base = pmf_budget_malloc((count + 1) * sizeof *base);
    uint32_t *task_of = pmf_budget_malloc(count * sizeof *task_of);
    uint8_t **luxels = pmf_budget_malloc(count * sizeof *luxels);
    keyed *order = pmf_budget_malloc(count * sizeof *order);     /* tasks (value) by patch (key): one each */
    uint32_t *slot_of = pmf_budget_malloc((ctx->desc->patch_count + 1) * sizeof *slot_of);
    if (!patches || !base || !task_of || !luxels || !order || !slot_of)
        goto fail;
    for (size_t p = 0; p < ctx->desc->patch_count; p++)
        slot_of[p] = BOUNCE_MISS;
    for (size_t k = 0; k < count; k++)
        order[k] = (keyed){ in->tasks[run->first + k].patch, (uint32_t)(run->first + k) };
    order_sort(order, count, sizeof *order, compare_keyed);
    for (size_t k = 0; k < count; k++) {
        patches[k] = order[k].key;
        task_of[k] = order[k].value;
        luxels[k] = in->layers[in->tasks[task_of[k]].layer].luxels;
        slot_of[patches[k]] = (uint32_t)k;
    }
    base[0] = 0;
    for (size_t k = 0; k < count; k++)
        base[k + 1] = base[k] + (ctx->cell_base[patches[k] + 1] - ctx->cell_base[patches[k]]);
    set.patches = patches;
    set.local_base = base;
    set.patch_count = count;
    set.cell_count = base[count];
    set.luxels = luxels;
    set.slot_of = slot_of;
    if (!set_alloc(&set))
        goto fail;
    job->keys[r] = set_key(ctx, &set);
    const float (*before)[3] = kept_layer(ctx->desc->transport, job->keys[r], set.cell_count);
    job->kept[r] = before != NULL;
    if (before) {
        memcpy(set.indirect, before, set.cell_count * sizeof *set.indirect);
    } else {
        for (size_t k = 0; k < count; k++)
            for (uint32_t l = base[k]; l < base[k + 1]; l++)
                set_direct(ctx, &set, k, l);
        run_bounces(ctx, &set, 1, NULL);
    }
    if (ctx->desc->transport) {
        job->cells[r] = (uint32_t)set.cell_count;
        job->indirect[r] = pmf_budget_malloc((set.cell_count + 1) * sizeof *set.indirect);
        if (job->indirect[r])
            memcpy(job->indirect[r], set.indirect, set.cell_count * sizeof *set.indirect);
    }
    for (size_t k = 0; k < count; k++)
        if (base[k] < base[k + 1]) {
            const layer_task *task = &in->tasks[task_of[k]];
            in->task_lit[task_of[k]] |= apply_patch(ctx, &set, k, task->patch, in->layers[task->layer].luxels);
        }
    goto done;
fail:
    atomic_store(&ctx->failed, true);
done:
    set_free(&set);
    pmf_budget_free(patches);
    pmf_budget_free(base);
    pmf_budget_free(task_of);
    pmf_budget_free(luxels);
    pmf_budget_free(order);
    pmf_budget_free(slot_of);
}

/* ---- the whole of it -------------------------------------------------------------------- */

static bool any_albedo(const bake_desc *desc)
{
    for (size_t p = 0; p < desc->patch_count; p++)
        for (int ch = 0; ch < 3; ch++)
            if (clamp_albedo(desc->patches[p].albedo[ch]) > 0.0f)
                return true;
    return false;
}

/* The rays a cell of `luxels` luxels traces: a whole number of rings, within bounds. */
static uint32_t cell_rays(uint32_t luxels)
{
    uint32_t per_ring = BOUNCE_SECTORS * BOUNCE_LUXELS_PER_RAY;
    uint32_t rays = (luxels + per_ring - 1) / per_ring * BOUNCE_SECTORS;
    return rays < BOUNCE_MIN_RAYS ? BOUNCE_MIN_RAYS : rays > BOUNCE_MAX_RAYS ? BOUNCE_MAX_RAYS : rays;
}

/* The rays all cells of a patch trace, with cells of `cell` luxels a side. */
static size_t patch_rays(const bake_patch *patch, uint32_t cell)
{
    size_t rays = 0;
    for (uint32_t j0 = 0; j0 < patch->h; j0 += cell)
        for (uint32_t i0 = 0; i0 < patch->w; i0 += cell)
            rays += cell_rays((patch->w - i0 < cell ? patch->w - i0 : cell) * (patch->h - j0 < cell ? patch->h - j0 : cell));
    return rays;
}

/* Cuts the baked patches into cells, as small as BOUNCE_HIT_BUDGET allows. */
static bool plan_cells(bounce_ctx *ctx)
{
    const bake_desc *desc = ctx->desc;
    ctx->cell_base = pmf_budget_malloc((desc->patch_count + 1) * sizeof *ctx->cell_base);
    if (!ctx->cell_base)
        return false;
    size_t ray_count = 0;
    for (ctx->cell = desc->bounce_cell > 0 ? (uint32_t)desc->bounce_cell : BOUNCE_CELL;; ctx->cell *= 2) {
        size_t cells = 0;
        ray_count = 0;
        for (size_t p = 0; p < desc->patch_count; p++)
            if (patch_baked(ctx->in, &desc->patches[p])) {
                cells += (size_t)cells_along(desc->patches[p].w, ctx->cell) * cells_along(desc->patches[p].h, ctx->cell);
                ray_count += patch_rays(&desc->patches[p], ctx->cell);
            }
        if (ray_count * sizeof(uint32_t) <= BOUNCE_HIT_BUDGET || ctx->cell >= 256) {
            ctx->cell_count = cells;
            break;
        }
    }
    if (ray_count >= UINT32_MAX)
        return false;
    size_t c = 0;
    for (size_t p = 0; p < desc->patch_count; p++) {
        ctx->cell_base[p] = (uint32_t)c;
        if (patch_baked(ctx->in, &desc->patches[p]))
            c += (size_t)cells_along(desc->patches[p].w, ctx->cell) * cells_along(desc->patches[p].h, ctx->cell);
    }
    ctx->cell_base[desc->patch_count] = (uint32_t)c;
    ctx->luxel_base = pmf_budget_malloc((desc->patch_count + 1) * sizeof *ctx->luxel_base);
    if (!ctx->luxel_base)
        return false;
    for (size_t p = 0; p < desc->patch_count; p++) {
        ctx->luxel_base[p] = (uint32_t)ctx->luxel_count;
        if (ctx->cell_base[p] < ctx->cell_base[p + 1])
            ctx->luxel_count += (size_t)desc->patches[p].w * desc->patches[p].h;
        if (ctx->luxel_count >= BOUNCE_BACK)   /* ids must stay below the markers */
            return false;
    }
    ctx->luxel_base[desc->patch_count] = (uint32_t)ctx->luxel_count;
    ctx->luxel_cell = pmf_budget_malloc((ctx->luxel_count + 1) * sizeof *ctx->luxel_cell);
    ctx->luxel_sees = pmf_budget_malloc(ctx->luxel_count + 1);
    if (!ctx->luxel_cell || !ctx->luxel_sees)
        return false;
    for (size_t p = 0; p < desc->patch_count; p++) {
        const bake_patch *patch = &desc->patches[p];
        if (ctx->cell_base[p] == ctx->cell_base[p + 1])
            continue;
        uint32_t cw = cells_along(patch->w, ctx->cell);
        for (uint32_t j = 0; j < patch->h; j++)
            for (uint32_t i = 0; i < patch->w; i++)
                ctx->luxel_cell[ctx->luxel_base[p] + j * patch->w + i] = ctx->cell_base[p] + (j / ctx->cell) * cw + i / ctx->cell;
    }
    ctx->cell_patch = pmf_budget_malloc((ctx->cell_count + 1) * sizeof *ctx->cell_patch);
    ctx->cell_open = pmf_budget_calloc(ctx->cell_count + 1, 1);
    ctx->cell_clear = pmf_budget_calloc(ctx->cell_count + 1, 1);
    ctx->cell_send = pmf_budget_malloc((ctx->cell_count + 1) * sizeof *ctx->cell_send);
    ctx->hits = pmf_budget_malloc((ray_count + 1) * sizeof *ctx->hits);
    ctx->ray_base = pmf_budget_malloc((ctx->cell_count + 1) * sizeof *ctx->ray_base);
    ctx->by_surface = pmf_budget_malloc((desc->patch_count + 1) * sizeof *ctx->by_surface);
    if (!ctx->cell_patch || !ctx->cell_open || !ctx->cell_clear || !ctx->cell_send || !ctx->hits || !ctx->ray_base || !ctx->by_surface)
        return false;
    uint32_t next_ray = 0;
    for (size_t p = 0; p < desc->patch_count; p++) {
        const bake_patch *patch = &desc->patches[p];
        uint32_t cw = cells_along(patch->w, ctx->cell);
        for (uint32_t k = ctx->cell_base[p]; k < ctx->cell_base[p + 1]; k++) {
            uint32_t i0, i1, j0, j1;
            cell_luxels(ctx, patch, (k - ctx->cell_base[p]) % cw, (k - ctx->cell_base[p]) / cw, &i0, &i1, &j0, &j1);
            ctx->cell_patch[k] = (uint32_t)p;
            ctx->ray_base[k] = next_ray;
            next_ray += cell_rays((i1 - i0) * (j1 - j0));
        }
        if (patch_baked(ctx->in, &desc->patches[p]))
            ctx->by_surface[ctx->by_surface_count++] = (keyed){ desc->patches[p].surface, (uint32_t)p };
    }
    ctx->ray_base[ctx->cell_count] = next_ray;
    order_sort(ctx->by_surface, ctx->by_surface_count, sizeof *ctx->by_surface, compare_keyed);
    return true;
}

/* ctx->liquids over the baked two-sided patches' luxel blocks. False when out of memory. */
static bool build_liquids(bounce_ctx *ctx)
{
    const bake_desc *desc = ctx->desc;
    size_t count = 0;
    for (size_t p = 0; p < desc->patch_count; p++)
        count += desc->patches[p].two_sided && ctx->cell_base[p] < ctx->cell_base[p + 1];
    if (!count)
        return true;
    float (*triangles)[9] = pmf_budget_malloc(2 * count * sizeof *triangles);
    ctx->liquid_patch = pmf_budget_malloc(count * sizeof *ctx->liquid_patch);
    if (!triangles || !ctx->liquid_patch) {
        pmf_budget_free(triangles);
        return false;
    }
    size_t k = 0;
    for (size_t p = 0; p < desc->patch_count; p++) {
        const bake_patch *patch = &desc->patches[p];
        if (!patch->two_sided || ctx->cell_base[p] == ctx->cell_base[p + 1])
            continue;
        float corner[4][3];
        for (int a = 0; a < 3; a++) {
            float u = (float)patch->w * patch->step_u[a], v = (float)patch->h * patch->step_v[a];
            corner[0][a] = patch->origin[a];
            corner[1][a] = patch->origin[a] + u;
            corner[2][a] = patch->origin[a] + u + v;
            corner[3][a] = patch->origin[a] + v;
        }
        for (int a = 0; a < 3; a++) {
            float *t0 = triangles[2 * k], *t1 = triangles[2 * k + 1];
            t0[a] = corner[0][a], t0[3 + a] = corner[1][a], t0[6 + a] = corner[2][a];
            t1[a] = corner[0][a], t1[3 + a] = corner[2][a], t1[6 + a] = corner[3][a];
        }
        ctx->liquid_patch[k++] = (uint32_t)p;
    }
    bool ok = bvh_build((const float (*)[9])triangles, 2 * count, desc->threads, &ctx->liquids);
    pmf_budget_free(triangles);
    return ok;
}

/* What the transport follows from: the occluders and their surfaces, open sky, the cells and
 * the patches' shapes (not where they lie in their lightmaps). */
static uint64_t transport_hash(const bounce_ctx *ctx)
{
    const bake_desc *desc = ctx->desc;
    uint64_t h = bake_hash_bytes(0xcbf29ce484222325ull, desc->triangles, desc->triangle_count * sizeof *desc->triangles);
    h = bake_hash_bytes(h, desc->triangle_surfaces, desc->triangle_count * sizeof *desc->triangle_surfaces);
    h = bake_hash_bytes(h, desc->sky_triangles, desc->sky_triangle_count * sizeof *desc->sky_triangles);
    for (size_t p = 0; p < desc->patch_count; p++) {
        bake_patch shape = desc->patches[p];
        shape.lightmap = patch_baked(ctx->in, &shape);
        shape.x = shape.y = 0;
        h = bake_hash_bytes(h, &shape, sizeof shape);
    }
    size_t sizes[] = { ctx->cell, ctx->cell_count, ctx->luxel_count, ctx->ray_base[ctx->cell_count],
                       desc->bounce_no_sky_loss, desc->sky_faces_only };
    return bake_hash_bytes(h, sizes, sizeof sizes);
}

/* The copy of n bytes of src in a new block of the bake's (NULL when out of memory). */
static void *copy_block(const void *src, size_t n)
{
    void *out = pmf_budget_malloc(n + 1);
    if (out && n)
        memcpy(out, src, n);
    return out;
}

/* The transport traced into ctx, or taken from desc->transport when that was traced for the same
 * geometry; either way desc->transport (when given) then holds it. */
static bool trace_transport(bounce_ctx *ctx, jobs_progress *progress)
{
    const bake_desc *desc = ctx->desc;
    bake_transport *kept = desc->transport;
    size_t rays = ctx->ray_base[ctx->cell_count], cells = ctx->cell_count, luxels = ctx->luxel_count;
    uint64_t hash = kept ? transport_hash(ctx) : 0;
    if (kept && kept->hits && kept->hash == hash && kept->ray_count == rays && kept->cell_count == cells &&
        kept->luxel_count == luxels) {
        memcpy(ctx->hits, kept->hits, rays * sizeof *ctx->hits);
        memcpy(ctx->cell_open, kept->cell_open, cells);
        memcpy(ctx->cell_clear, kept->cell_clear, cells);
        memcpy(ctx->cell_send, kept->cell_send, cells * sizeof *ctx->cell_send);
        memcpy(ctx->luxel_sees, kept->luxel_sees, luxels);
        return true;
    }
    jobs_parallel_for_progress(desc->patch_count, desc->threads, trace_job, ctx, progress);
    jobs_parallel_for(desc->patch_count, desc->threads, sight_job, ctx);
    if (!kept || atomic_load(&ctx->failed))
        return true;
    bake_transport_free(kept);
    *kept = (bake_transport){ .hash = hash, .ray_count = rays, .cell_count = cells, .luxel_count = luxels,
                              .hits = copy_block(ctx->hits, rays * sizeof *ctx->hits),
                              .cell_open = copy_block(ctx->cell_open, cells), .cell_clear = copy_block(ctx->cell_clear, cells),
                              .cell_send = copy_block(ctx->cell_send, cells * sizeof *ctx->cell_send),
                              .luxel_sees = copy_block(ctx->luxel_sees, luxels) };
    if (kept->hits && kept->cell_open && kept->cell_clear && kept->cell_send && kept->luxel_sees)
        return true;
    bake_transport_free(kept);
    return false;
}

bool bake_bounce(const bounce_input *in)
{
    const bake_desc *desc = in->desc;
    if (desc->bounces == 0 || !desc->triangle_surfaces || !any_albedo(desc))
        return true;
    bounce_ctx ctx = { .in = in, .desc = desc };
    atomic_init(&ctx.failed, false);
    bounce_set base = { 0 };
    light_run *runs = NULL;
    bool ok = plan_cells(&ctx) && build_liquids(&ctx);
    if (!ok)
        goto done;
    jobs_progress progress = *in->progress;
    progress.stage = "bounce";
    ok = trace_transport(&ctx, &progress);
    if (!ok)
        goto done;

    base.cell_count = ctx.cell_count;
    if (!desc->ambient_floor)   /* a floor is raised to after the bounces (bake.c floor_job) */
        memcpy(base.floor_, desc->ambient, sizeof base.floor_);
    ok = set_alloc(&base);
    if (!ok)
        goto done;
    base_job job = { &ctx, &base };
    /* a transport traced again comes without bounces: the kept ones are of this transport's cells */
    bake_transport *kept = desc->transport;
    bool old = desc->old_bounce && kept && kept->indirect && kept->cell_count == ctx.cell_count;
    if (old) {
        memcpy(base.indirect, kept->indirect, ctx.cell_count * sizeof *base.indirect);
    } else {
        bounce_history history = { 0 };
        ok = history_start(&ctx, &base, &history);
        if (ok) {
            jobs_parallel_for(desc->patch_count, desc->threads, base_direct_job, &job);
            run_bounces(&ctx, &base, jobs_thread_count(desc->threads), &history);
            *in->gathers = history.gathers;
            *in->cells = history.bounces * ctx.cell_count;
        }
        history_end(&history, ok);
        if (!ok)
            goto done;
        if (kept) {
            pmf_budget_free(kept->indirect);
            kept->indirect = copy_block(base.indirect, ctx.cell_count * sizeof *base.indirect);
        }
    }
    jobs_parallel_for(desc->patch_count, desc->threads, base_apply_job, &job);
    *in->old_bounce = old;

    if (desc->static_bounce_only || old)
        goto done;
    size_t run_count = 0;
    runs = pmf_budget_malloc((in->task_count + 1) * sizeof *runs);
    ok = runs != NULL;
    if (!ok)
        goto done;
    for (size_t t = 0; t < in->task_count; t++) {
        if (t == 0 || in->tasks[t].light != in->tasks[t - 1].light)
            runs[run_count++] = (light_run){ t, t };
        runs[run_count - 1].end = t + 1;
    }
    layers_job layers = { &ctx, runs, pmf_budget_calloc(run_count + 1, sizeof *layers.keys),
                          pmf_budget_calloc(run_count + 1, sizeof *layers.indirect),
                          pmf_budget_calloc(run_count + 1, sizeof *layers.cells), pmf_budget_calloc(run_count + 1, 1) };
    ok = layers.keys && layers.indirect && layers.cells && layers.kept;
    if (ok) {
        jobs_parallel_for(run_count, desc->threads, light_layers_job, &layers);
        ok = !atomic_load(&ctx.failed);
        if (ok)
            keep_layers(&ctx, &layers, run_count);
        for (size_t r = 0; r < run_count; r++)
            *in->layers_kept += layers.kept[r];
    }
    for (size_t r = 0; layers.indirect && r < run_count; r++)
        pmf_budget_free(layers.indirect[r]);
    pmf_budget_free(layers.keys);
    pmf_budget_free(layers.indirect);
    pmf_budget_free(layers.cells);
    pmf_budget_free(layers.kept);
done:
    set_free(&base);
    pmf_budget_free(runs);
    pmf_budget_free(ctx.cell_base);
    pmf_budget_free(ctx.luxel_base);
    pmf_budget_free(ctx.luxel_cell);
    pmf_budget_free(ctx.luxel_sees);
    pmf_budget_free(ctx.cell_patch);
    pmf_budget_free(ctx.cell_open);
    pmf_budget_free(ctx.cell_clear);
    pmf_budget_free(ctx.cell_send);
    pmf_budget_free(ctx.hits);
    pmf_budget_free(ctx.ray_base);
    pmf_budget_free(ctx.by_surface);
    pmf_budget_free(ctx.liquid_patch);
    bvh_free(&ctx.liquids);
    return ok;
}
