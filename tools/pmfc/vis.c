/* vis.c - conservative from-region visibility between boxes.
 *
 * A pair (cell, target) is visible as soon as one sampled segment between them is unblocked.
 * It is hidden only when that is PROVEN: some axis-aligned plane strictly between the two boxes
 * is covered by occluder triangles lying in it over the whole cross-section of the shaft (every
 * segment from the cell to the target crosses that plane inside the cross-section). When no single
 * plane does, the larger box is halved and each half-pair must be proven hidden on its own, down to
 * a depth set by rays_per_pair. Whatever cannot be proven hidden is visible, so sampling only ever
 * makes the answer faster, never wrong. */
#include "bake.h"
#include "bake_internal.h"
#include "bvh.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define VIS_DEFAULT_RAYS 32
#define VIS_GAP 1e-4f           /* metres: occluders this close to the cell or target are not between them */
#define VIS_PLANE_TOLERANCE 1e-5f   /* relative: a triangle this flat along an axis lies in that plane */
#define VIS_SLIVER 1e-4         /* metres: uncovered pieces thinner than this are seams between triangles */
#define VIS_MAX_PLANES 16
#define VIS_MAX_PIECES 512
#define VIS_MAX_POLY 16

typedef struct vis_ctx {
    const vis_desc *desc;
    bvh tree;
    int rays;
    int depth;
    vis_result *out;
    atomic_bool failed;
} vis_ctx;

typedef struct vis_plane {
    int axis;
    float k;
} vis_plane;

typedef struct vis_poly {
    int n;
    double x[VIS_MAX_POLY], y[VIS_MAX_POLY];
} vis_poly;

typedef struct vis_scratch {
    uint32_t *ids;
    size_t id_capacity;
    double (*tris)[6];
    size_t tri_capacity;
    vis_poly *pieces[2];        /* VIS_MAX_PIECES each: current and next */
    vis_plane planes[VIS_MAX_PLANES];
    int plane_count;
    uint64_t rng;
    bool failed;
} vis_scratch;

enum { VIS_HIDDEN, VIS_VISIBLE, VIS_UNKNOWN };

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static float random_unit(uint64_t *state)
{
    return (float)(splitmix64(state) >> 40) * (1.0f / 16777216.0f);
}

static float box_gap(const vis_box *a, const vis_box *b)
{
    float d2 = 0.0f;
    for (int i = 0; i < 3; i++) {
        float gap = fmaxf(0.0f, fmaxf(b->min[i] - a->max[i], a->min[i] - b->max[i]));
        d2 += gap * gap;
    }
    return sqrtf(d2);
}

static float box_size(const vis_box *b)
{
    return fmaxf(b->max[0] - b->min[0], fmaxf(b->max[1] - b->min[1], b->max[2] - b->min[2]));
}

static void box_corner(const vis_box *b, int corner, float out[3])
{
    for (int a = 0; a < 3; a++)
        out[a] = (corner >> a) & 1 ? b->max[a] : b->min[a];
}

/* Whether the part of segment p -> q (p in c, q in t) between leaving c and entering t is blocked;
 * *hit gets the blocking triangle. */
static bool segment_blocked(const vis_ctx *ctx, const vis_box *c, const vis_box *t, const float p[3],
                            const float q[3], uint32_t *hit)
{
    float d[3], length2 = 0.0f, exit_c = 1.0f, enter_t = 0.0f;
    for (int a = 0; a < 3; a++) {
        d[a] = q[a] - p[a];
        length2 += d[a] * d[a];
        if (d[a] > 0.0f) {
            exit_c = fminf(exit_c, (c->max[a] - p[a]) / d[a]);
            enter_t = fmaxf(enter_t, (t->min[a] - p[a]) / d[a]);
        } else if (d[a] < 0.0f) {
            exit_c = fminf(exit_c, (c->min[a] - p[a]) / d[a]);
            enter_t = fmaxf(enter_t, (t->max[a] - p[a]) / d[a]);
        }
    }
    float margin = VIS_GAP / sqrtf(fmaxf(length2, 1e-30f));
    return bvh_segment_occluded(&ctx->tree, p, q, fmaxf(exit_c, 0.0f) + margin, fminf(enter_t, 1.0f) - margin, hit);
}

/* The axis-aligned plane a triangle lies in, if any. */
static bool triangle_plane(const float t[9], vis_plane *out)
{
    for (int a = 0; a < 3; a++) {
        float tolerance = VIS_PLANE_TOLERANCE * fmaxf(1.0f, fabsf(t[a]));
        if (fabsf(t[3 + a] - t[a]) <= tolerance && fabsf(t[6 + a] - t[a]) <= tolerance) {
            *out = (vis_plane){ a, t[a] };
            return true;
        }
    }
    return false;
}

static bool plane_between(const vis_box *c, const vis_box *t, const vis_plane *plane)
{
    int a = plane->axis;
    float k = plane->k;
    return (c->max[a] + VIS_GAP < k && k < t->min[a] - VIS_GAP) || (t->max[a] + VIS_GAP < k && k < c->min[a] - VIS_GAP);
}

static double poly_area(const vis_poly *poly)
{
    double area = 0.0;
    for (int i = 0, j = poly->n - 1; i < poly->n; j = i++)
        area += poly->x[j] * poly->y[i] - poly->x[i] * poly->y[j];
    return 0.5 * area;
}

/* A piece worth keeping: not empty and not a sliver along a seam. */
static bool poly_matters(const vis_poly *poly)
{
    if (poly->n < 3)
        return false;
    double perimeter = 0.0;
    for (int i = 0, j = poly->n - 1; i < poly->n; j = i++)
        perimeter += hypot(poly->x[i] - poly->x[j], poly->y[i] - poly->y[j]);
    return fabs(poly_area(poly)) * 2.0 > VIS_SLIVER * perimeter;
}

/* Splits a convex polygon by the line a -> b: the part left of it into *left, the rest into *right.
 * False when a part would have too many vertices. */
static bool poly_split(const vis_poly *in, double ax, double ay, double bx, double by, vis_poly *left, vis_poly *right)
{
    double ex = bx - ax, ey = by - ay;
    left->n = right->n = 0;
    for (int i = 0; i < in->n; i++) {
        int j = (i + 1) % in->n;
        double si = ex * (in->y[i] - ay) - ey * (in->x[i] - ax);
        double sj = ex * (in->y[j] - ay) - ey * (in->x[j] - ax);
        if (left->n + 2 > VIS_MAX_POLY || right->n + 2 > VIS_MAX_POLY)
            return false;
        if (si >= 0.0) {
            left->x[left->n] = in->x[i];
            left->y[left->n++] = in->y[i];
        }
        if (si <= 0.0) {
            right->x[right->n] = in->x[i];
            right->y[right->n++] = in->y[i];
        }
        if ((si > 0.0 && sj < 0.0) || (si < 0.0 && sj > 0.0)) {
            double f = si / (si - sj);
            double x = in->x[i] + f * (in->x[j] - in->x[i]), y = in->y[i] + f * (in->y[j] - in->y[i]);
            left->x[left->n] = right->x[right->n] = x;
            left->y[left->n++] = right->y[right->n++] = y;
        }
    }
    return true;
}

static bool grow_scratch_tris(vis_scratch *s, size_t need)
{
    if (need <= s->tri_capacity)
        return true;
    size_t grown = s->tri_capacity ? s->tri_capacity * 2 : 64;
    while (grown < need)
        grown *= 2;
    double (*more)[6] = realloc(s->tris, grown * sizeof *more);
    if (!more)
        return false;
    s->tris = more;
    s->tri_capacity = grown;
    return true;
}

/* Whether the occluders lying in `plane` cover every point where a segment from c to t crosses it. */
static bool plane_covers(const vis_ctx *ctx, vis_scratch *s, const vis_box *c, const vis_box *t,
                         const vis_plane *plane)
{
    int a = plane->axis, u = (a + 1) % 3, v = (a + 2) % 3;
    double k = plane->k;
    /* The crossing set is the plane's section of the hull of both boxes: its corners lie on
     * segments between a corner of c and a corner of t, so their crossings bound it. */
    double rmin[2] = { INFINITY, INFINITY }, rmax[2] = { -INFINITY, -INFINITY };
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            float p[3], q[3];
            box_corner(c, i, p);
            box_corner(t, j, q);
            double f = (k - p[a]) / ((double)q[a] - p[a]);
            double cu = p[u] + f * ((double)q[u] - p[u]), cv = p[v] + f * ((double)q[v] - p[v]);
            rmin[0] = fmin(rmin[0], cu);
            rmax[0] = fmax(rmax[0], cu);
            rmin[1] = fmin(rmin[1], cv);
            rmax[1] = fmax(rmax[1], cv);
        }

    float tolerance = VIS_PLANE_TOLERANCE * fmaxf(1.0f, fabsf(plane->k));
    float qmin[3], qmax[3];
    qmin[a] = plane->k - tolerance;
    qmax[a] = plane->k + tolerance;
    qmin[u] = (float)rmin[0] - 1e-3f;
    qmax[u] = (float)rmax[0] + 1e-3f;
    qmin[v] = (float)rmin[1] - 1e-3f;
    qmax[v] = (float)rmax[1] + 1e-3f;
    size_t found = bvh_query_box(&ctx->tree, qmin, qmax, &s->ids, &s->id_capacity, 0);
    if (found == (size_t)-1 || !grow_scratch_tris(s, found)) {
        s->failed = true;
        return false;
    }
    size_t tri_count = 0;
    double covered = 0.0, wanted = (rmax[0] - rmin[0]) * (rmax[1] - rmin[1]);
    for (size_t i = 0; i < found; i++) {
        const float *tri = ctx->desc->triangles[s->ids[i]];
        vis_plane own;
        if (!triangle_plane(tri, &own) || own.axis != a || fabsf(own.k - plane->k) > tolerance)
            continue;
        double *out = s->tris[tri_count];
        for (int corner = 0; corner < 3; corner++) {
            out[corner * 2] = tri[corner * 3 + u];
            out[corner * 2 + 1] = tri[corner * 3 + v];
        }
        double area = 0.5 * ((out[2] - out[0]) * (out[5] - out[1]) - (out[4] - out[0]) * (out[3] - out[1]));
        if (area == 0.0)
            continue;
        if (area < 0.0) {   /* counter-clockwise, so "inside" is left of every edge */
            double x = out[2], y = out[3];
            out[2] = out[4];
            out[3] = out[5];
            out[4] = x;
            out[5] = y;
        }
        covered += fabs(area);
        tri_count++;
    }
    if (covered < wanted * (1.0 - 1e-6))
        return false;

    vis_poly *cur = s->pieces[0], *next = s->pieces[1];
    int count = 1;
    cur[0] = (vis_poly){ 4, { rmin[0], rmax[0], rmax[0], rmin[0] }, { rmin[1], rmin[1], rmax[1], rmax[1] } };
    for (size_t i = 0; i < tri_count && count > 0; i++) {
        const double *tri = s->tris[i];
        double tmin_u = fmin(tri[0], fmin(tri[2], tri[4])), tmax_u = fmax(tri[0], fmax(tri[2], tri[4]));
        double tmin_v = fmin(tri[1], fmin(tri[3], tri[5])), tmax_v = fmax(tri[1], fmax(tri[3], tri[5]));
        int next_count = 0;
        for (int p = 0; p < count; p++) {
            vis_poly *piece = &cur[p];
            double pmin_u = INFINITY, pmax_u = -INFINITY, pmin_v = INFINITY, pmax_v = -INFINITY;
            for (int n = 0; n < piece->n; n++) {
                pmin_u = fmin(pmin_u, piece->x[n]);
                pmax_u = fmax(pmax_u, piece->x[n]);
                pmin_v = fmin(pmin_v, piece->y[n]);
                pmax_v = fmax(pmax_v, piece->y[n]);
            }
            if (pmax_u <= tmin_u || pmin_u >= tmax_u || pmax_v <= tmin_v || pmin_v >= tmax_v) {
                if (next_count == VIS_MAX_PIECES)
                    return false;
                next[next_count++] = *piece;
                continue;
            }
            /* Peel off the parts outside each edge; what is left inside the triangle is covered. */
            vis_poly inside = *piece;
            for (int e = 0; e < 3 && inside.n >= 3; e++) {
                vis_poly left, right;
                if (!poly_split(&inside, tri[e * 2], tri[e * 2 + 1], tri[(e * 2 + 2) % 6], tri[(e * 2 + 3) % 6],
                                &left, &right))
                    return false;
                if (poly_matters(&right)) {
                    if (next_count == VIS_MAX_PIECES)
                        return false;
                    next[next_count++] = right;
                }
                inside = left;
            }
        }
        vis_poly *swap = cur;
        cur = next;
        next = swap;
        count = next_count;
    }
    return count == 0;
}

/* Records the plane of a blocking triangle; true when it is new and proves (c, t) hidden. */
static bool try_plane(const vis_ctx *ctx, vis_scratch *s, const vis_box *c, const vis_box *t, uint32_t hit)
{
    vis_plane plane;
    if (!triangle_plane(ctx->desc->triangles[hit], &plane) || !plane_between(c, t, &plane))
        return false;
    for (int i = 0; i < s->plane_count; i++)
        if (s->planes[i].axis == plane.axis && s->planes[i].k == plane.k)
            return false;
    if (s->plane_count == VIS_MAX_PLANES)
        return false;
    s->planes[s->plane_count++] = plane;
    return plane_covers(ctx, s, c, t, &plane);
}

static void box_sample(const vis_box *b, uint64_t *rng, float out[3])
{
    for (int a = 0; a < 3; a++)
        out[a] = b->min[a] + random_unit(rng) * (b->max[a] - b->min[a]);
}

static void box_centre(const vis_box *b, float out[3])
{
    for (int a = 0; a < 3; a++)
        out[a] = 0.5f * (b->min[a] + b->max[a]);
}

/* Proves (c, t) hidden, finds it visible, or gives up at depth 0. */
static int prove_hidden(const vis_ctx *ctx, vis_scratch *s, const vis_box *c, const vis_box *t, int depth)
{
    for (int i = 0; i < s->plane_count; i++)
        if (plane_between(c, t, &s->planes[i]) && plane_covers(ctx, s, c, t, &s->planes[i]))
            return VIS_HIDDEN;
    for (int r = 0; r < 2; r++) {
        float p[3], q[3];
        if (r == 0) {
            box_centre(c, p);
            box_centre(t, q);
        } else {
            box_sample(c, &s->rng, p);
            box_sample(t, &s->rng, q);
        }
        uint32_t hit;
        if (!segment_blocked(ctx, c, t, p, q, &hit))
            return VIS_VISIBLE;
        if (try_plane(ctx, s, c, t, hit))
            return VIS_HIDDEN;
    }
    if (depth == 0 || s->failed)
        return VIS_UNKNOWN;
    bool split_cell = box_size(c) >= box_size(t);
    const vis_box *whole = split_cell ? c : t;
    int axis = 0;
    for (int a = 1; a < 3; a++)
        if (whole->max[a] - whole->min[a] > whole->max[axis] - whole->min[axis])
            axis = a;
    vis_box halves[2] = { *whole, *whole };
    float middle = 0.5f * (whole->min[axis] + whole->max[axis]);
    halves[0].max[axis] = middle;
    halves[1].min[axis] = middle;
    for (int h = 0; h < 2; h++) {
        int result = split_cell ? prove_hidden(ctx, s, &halves[h], t, depth - 1)
                                : prove_hidden(ctx, s, c, &halves[h], depth - 1);
        if (result != VIS_HIDDEN)
            return result;
    }
    return VIS_HIDDEN;
}

static bool pair_visible(const vis_ctx *ctx, vis_scratch *s, size_t cell, size_t target)
{
    const vis_box *c = &ctx->desc->cells[cell], *t = &ctx->desc->targets[target];
    if (box_gap(c, t) <= box_size(c))
        return true;
    s->rng = (uint64_t)cell * 0x9E3779B97F4A7C15ull ^ (uint64_t)target * 0xC2B2AE3D27D4EB4Full ^ 0x5EEDull;
    s->plane_count = 0;
    for (int r = 0; r < ctx->rays; r++) {
        float p[3], q[3];
        if (r == 0) {
            box_centre(c, p);
            box_centre(t, q);
        } else if (r <= 16) {
            int corner = (r - 1) & 7;
            box_corner(c, corner, p);
            box_corner(t, r <= 8 ? corner : 7 - corner, q);
        } else {
            box_sample(c, &s->rng, p);
            box_sample(t, &s->rng, q);
        }
        uint32_t hit;
        if (!segment_blocked(ctx, c, t, p, q, &hit))
            return true;
        if (try_plane(ctx, s, c, t, hit))
            return false;
    }
    return prove_hidden(ctx, s, c, t, ctx->depth) != VIS_HIDDEN;
}

static void vis_cell_job(void *user, size_t cell)
{
    vis_ctx *ctx = user;
    const vis_desc *desc = ctx->desc;
    if (atomic_load(&ctx->failed))
        return;
    vis_scratch s = { 0 };
    s.pieces[0] = malloc(2 * VIS_MAX_PIECES * sizeof(vis_poly));
    uint32_t *visible = NULL;
    size_t count = 0, capacity = 0;
    if (!s.pieces[0])
        goto fail;
    s.pieces[1] = s.pieces[0] + VIS_MAX_PIECES;
    for (size_t t = 0; t < desc->target_count; t++) {
        if (!pair_visible(ctx, &s, cell, t))
            continue;
        if (s.failed)
            goto fail;
        if (count == capacity) {
            capacity = capacity ? capacity * 2 : 16;
            uint32_t *more = realloc(visible, capacity * sizeof *more);
            if (!more)
                goto fail;
            visible = more;
        }
        visible[count++] = (uint32_t)t;
    }
    if (s.failed)
        goto fail;
    ctx->out->visible[cell] = visible;
    ctx->out->visible_count[cell] = (uint32_t)count;
    free(s.ids);
    free(s.tris);
    free(s.pieces[0]);
    return;
fail:
    atomic_store(&ctx->failed, true);
    free(visible);
    free(s.ids);
    free(s.tris);
    free(s.pieces[0]);
}

bool vis_run(const vis_desc *desc, vis_result *out)
{
    memset(out, 0, sizeof *out);
    vis_ctx ctx = { .desc = desc, .out = out, .rays = desc->rays_per_pair > 0 ? desc->rays_per_pair : VIS_DEFAULT_RAYS };
    atomic_init(&ctx.failed, false);
    /* Halving down to about one leaf pair per ray: more rays, tighter answers. */
    while ((1 << ctx.depth) < ctx.rays && ctx.depth < 12)
        ctx.depth++;
    jobs_progress progress = { desc->progress, desc->user, "bvh" };
    jobs_report(&progress, 0.0);
    if (!bvh_build(desc->triangles, desc->triangle_count, &ctx.tree))
        return false;
    jobs_report(&progress, 1.0);
    out->visible = calloc(desc->cell_count + 1, sizeof *out->visible);
    out->visible_count = calloc(desc->cell_count + 1, sizeof *out->visible_count);
    if (!out->visible || !out->visible_count) {
        bvh_free(&ctx.tree);
        vis_result_free(out, 0);
        return false;
    }
    progress.stage = "visibility";
    jobs_parallel_for_progress(desc->cell_count, desc->threads, vis_cell_job, &ctx, &progress);
    bvh_free(&ctx.tree);
    if (atomic_load(&ctx.failed)) {
        vis_result_free(out, desc->cell_count);
        return false;
    }
    return true;
}

void vis_result_free(vis_result *res, size_t cell_count)
{
    if (res->visible)
        for (size_t i = 0; i < cell_count; i++)
            free(res->visible[i]);
    free(res->visible);
    free(res->visible_count);
    memset(res, 0, sizeof *res);
}
