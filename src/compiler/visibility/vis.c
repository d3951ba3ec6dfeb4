/* vis.c - conservative from-region visibility between boxes.
 *
 * A pair (cell, target) is visible as soon as one sampled segment between them is unblocked.
 * It is hidden only when that is PROVEN: some axis-aligned plane strictly between the two boxes
 * is covered by occluder triangles lying in it over the whole cross-section of the shaft (every
 * segment from the cell to the target crosses that plane inside the cross-section). When no single
 * plane does, the larger box is halved and each half-pair must be proven hidden on its own, down to
 * a depth set by rays_per_pair. Whatever cannot be proven hidden is visible, so sampling only ever
 * makes the answer faster, never wrong.
 *
 * Each plane's triangles are indexed once in a coverage quadtree (full / empty / a few triangles
 * tested exactly), and the targets sit in a tree so that one proof can hide a whole group. */
#include "bake/bake.h"
#include "bake/bake_internal.h"
#include "bvh.h"
#include "base/pmf_budget.h"
#include "base/order.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define VIS_DEFAULT_RAYS 32
#define VIS_FIRST_RAYS 9        /* centre to centre and corner to corner, before any halving */
#define VIS_GAP 1e-4f           /* metres: occluders this close to the cell or target are not between them */
#define VIS_PLANE_TOLERANCE 1e-5f   /* relative: a triangle this flat along an axis lies in that plane */
#define VIS_SLIVER 1e-4         /* metres: uncovered pieces thinner than this are seams between triangles */
#define VIS_MAX_PLANES 16       /* candidate planes remembered per pair */
#define VIS_MAX_PIECES 128      /* uncovered pieces tracked at once; more = give up (open) */
#define VIS_MAX_POLY 16
#define VIS_FULL_TEST_MAX 24    /* quadtree squares overlapped by more triangles are split, not tested */
#define VIS_LEAF_TRIANGLES 4    /* partly covered squares split until this few triangles overlap them */
#define VIS_CELL_MIN (1.0 / 32.0)   /* metres: the finest quadtree square */
#define VIS_PLANE_DEPTH 20
#define VIS_GROUP_LEAF 4        /* targets per leaf of the target tree */
#define VIS_GROUP_RAYS 4        /* segments tried to hide a whole group at once */

/* Quadtree node values: a state, VIS_NODE_LIST + a leaf (a few triangles partly covering the
 * square, tested exactly when a query reaches them), or below VIS_NODE_LIST the index of the
 * first of four children (u low v low, u high v low, u low v high, u high v high). */
#define VIS_NODE_EMPTY 0xFFFFFFFFu
#define VIS_NODE_FULL 0xFFFFFFFEu
#define VIS_NODE_MIXED 0xFFFFFFFDu  /* too many triangles at the finest size: counts as open */
#define VIS_NODE_LIST 0x80000000u

typedef struct vis_plane {
    int axis;
    float k;
} vis_plane;

/* One axis-aligned plane's occluders as a coverage quadtree over the square
 * [min, min + size]^2 of its two other axes ((axis + 1) % 3, (axis + 2) % 3). */
typedef struct vis_leaf {
    uint32_t first, count;      /* in leaf_tris */
} vis_leaf;

typedef struct vis_plane_tree {
    int axis;
    float k;
    double min[2], size;        /* the root square */
    double extent_max[2];       /* with min: the bounds of the plane's triangles */
    uint32_t root;
    uint32_t *nodes;
    size_t node_count;
    double (*tris)[6];          /* the plane's triangles' (u, v) corners, counter-clockwise */
    vis_leaf *leaves;
    size_t leaf_count;
    uint32_t *leaf_tris;        /* indices into tris */
    size_t leaf_tri_count;
} vis_plane_tree;

typedef struct vis_plane_key {
    int axis;
    float k;
    uint32_t triangle;
} vis_plane_key;

typedef struct target_node target_node;

typedef struct vis_ctx {
    const vis_desc *desc;
    bvh tree;
    int depth;                  /* halvings of a pair before giving up */
    vis_plane_tree *planes;
    size_t plane_count;
    uint32_t *plane_tri_start;  /* [plane_count + 1] into plane_tris */
    uint32_t *plane_tris;       /* input triangles grouped by plane */
    uint32_t *triangle_plane;   /* [triangle] -> plane, or UINT32_MAX when not axis-aligned */
    target_node *target_nodes;  /* node 0 is the root */
    size_t target_node_count;
    uint32_t *target_order;     /* target indices, leaf by leaf */
    vis_result *out;
    atomic_bool failed;
} vis_ctx;

static int compare_plane_key(const void *a, const void *b)
{
    const vis_plane_key *x = a, *y = b;
    if (x->axis != y->axis)
        return x->axis - y->axis;
    if (x->k != y->k)
        return (x->k > y->k) - (x->k < y->k);
    return (x->triangle > y->triangle) - (x->triangle < y->triangle);
}

typedef struct vis_poly {
    int n;
    double x[VIS_MAX_POLY], y[VIS_MAX_POLY];
} vis_poly;

typedef struct vis_scratch {
    vis_poly *pieces[2];                /* VIS_MAX_PIECES each */
    uint32_t planes[VIS_MAX_PLANES];    /* candidate planes of the current pair */
    int plane_count;
    uint64_t rng;
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

static bool plane_between(const vis_box *c, const vis_box *t, int a, float k)
{
    /* Also clear of the slack a triangle may lean by and still count as lying in the plane. */
    float gap = VIS_GAP + VIS_PLANE_TOLERANCE * fmaxf(1.0f, fabsf(k));
    return (c->max[a] + gap < k && k < t->min[a] - gap) || (t->max[a] + gap < k && k < c->min[a] - gap);
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
        perimeter += sqrt((poly->x[i] - poly->x[j]) * (poly->x[i] - poly->x[j]) +
                          (poly->y[i] - poly->y[j]) * (poly->y[i] - poly->y[j]));
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

/* Subtracts triangles from a convex polygon; true when nothing but seams is left. */
static bool poly_covered(const vis_poly *region, const double (*tris)[6], const uint32_t *list, size_t count,
                         vis_poly *pieces[2])
{
    vis_poly *cur = pieces[0], *next = pieces[1];
    int live = 1;
    cur[0] = *region;
    for (size_t i = 0; i < count && live > 0; i++) {
        const double *tri = tris[list[i]];
        double tmin_u = min_double(tri[0], min_double(tri[2], tri[4]));
        double tmax_u = max_double(tri[0], max_double(tri[2], tri[4]));
        double tmin_v = min_double(tri[1], min_double(tri[3], tri[5]));
        double tmax_v = max_double(tri[1], max_double(tri[3], tri[5]));
        int next_count = 0;
        for (int p = 0; p < live; p++) {
            vis_poly *piece = &cur[p];
            double pmin_u = piece->x[0], pmax_u = piece->x[0], pmin_v = piece->y[0], pmax_v = piece->y[0];
            for (int n = 1; n < piece->n; n++) {
                pmin_u = min_double(pmin_u, piece->x[n]);
                pmax_u = max_double(pmax_u, piece->x[n]);
                pmin_v = min_double(pmin_v, piece->y[n]);
                pmax_v = max_double(pmax_v, piece->y[n]);
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
        live = next_count;
    }
    return live == 0;
}

/* ---- coverage quadtrees: which parts of each axis-aligned plane its occluders fill ------- */

typedef struct plane_build {
    const vis_desc *desc;
    vis_plane_tree *tree;
    const uint32_t *tri_ids;    /* the plane's input triangles */
    size_t tri_count;
    uint32_t *lists;            /* stack of per-node triangle lists */
    size_t list_count, list_capacity;
    size_t node_capacity, leaf_capacity, leaf_tri_capacity;
    vis_poly *pieces[2];
    double min_size;
    bool failed;
} plane_build;

static uint32_t plane_node_alloc(plane_build *b)
{
    vis_plane_tree *tree = b->tree;
    if (tree->node_count + 4 >= VIS_NODE_LIST) {
        b->failed = true;
        return 0;
    }
    if (tree->node_count + 4 > b->node_capacity) {
        size_t grown = b->node_capacity ? b->node_capacity * 2 : 64;
        uint32_t *more = pmf_budget_realloc(tree->nodes, grown * sizeof *more);
        if (!more) {
            b->failed = true;
            return 0;
        }
        tree->nodes = more;
        b->node_capacity = grown;
    }
    uint32_t first = (uint32_t)tree->node_count;
    tree->node_count += 4;
    return first;
}

/* Keeps a node's few triangles for exact tests at query time. */
static uint32_t plane_leaf(plane_build *b, size_t list_at, size_t count)
{
    vis_plane_tree *tree = b->tree;
    if (tree->leaf_count + 1 >= VIS_NODE_LIST - 16)
        return VIS_NODE_MIXED;
    if (tree->leaf_count + 1 > b->leaf_capacity) {
        size_t grown = b->leaf_capacity ? b->leaf_capacity * 2 : 16;
        vis_leaf *more = pmf_budget_realloc(tree->leaves, grown * sizeof *more);
        if (!more) {
            b->failed = true;
            return VIS_NODE_MIXED;
        }
        tree->leaves = more;
        b->leaf_capacity = grown;
    }
    if (tree->leaf_tri_count + count > b->leaf_tri_capacity) {
        size_t grown = b->leaf_tri_capacity * 2 > tree->leaf_tri_count + count ? b->leaf_tri_capacity * 2
                                                                                 : tree->leaf_tri_count + count;
        uint32_t *more = pmf_budget_realloc(tree->leaf_tris, grown * sizeof *more);
        if (!more) {
            b->failed = true;
            return VIS_NODE_MIXED;
        }
        tree->leaf_tris = more;
        b->leaf_tri_capacity = grown;
    }
    memcpy(tree->leaf_tris + tree->leaf_tri_count, b->lists + list_at, count * sizeof *tree->leaf_tris);
    tree->leaves[tree->leaf_count] = (vis_leaf){ (uint32_t)tree->leaf_tri_count, (uint32_t)count };
    tree->leaf_tri_count += count;
    return VIS_NODE_LIST + (uint32_t)tree->leaf_count++;
}

/* Classifies the square [u, u + size] x [v, v + size] against the triangles list[0..count). */
static uint32_t plane_node_build(plane_build *b, double u, double v, double size, size_t list_at, size_t count)
{
    if (count == 0)
        return VIS_NODE_EMPTY;
    if (count <= VIS_FULL_TEST_MAX) {
        vis_poly square = { 4, { u, u + size, u + size, u }, { v, v, v + size, v + size } };
        if (poly_covered(&square, (const double (*)[6])b->tree->tris, b->lists + list_at, count, b->pieces))
            return VIS_NODE_FULL;
    }
    /* Split on while that makes queries cheaper: down to a few triangles per leaf. */
    if (count <= VIS_LEAF_TRIANGLES || size * 0.5 < b->min_size)
        return count <= VIS_FULL_TEST_MAX ? plane_leaf(b, list_at, count) : VIS_NODE_MIXED;
    uint32_t first = plane_node_alloc(b);
    if (b->failed)
        return VIS_NODE_MIXED;
    double half = size * 0.5;
    for (int child = 0; child < 4; child++) {
        double cu = u + (child & 1 ? half : 0.0), cv = v + (child & 2 ? half : 0.0);
        /* The child's list goes on top of the stack, above the parent's. */
        size_t child_at = b->list_count, child_count = 0;
        if (b->list_count + count > b->list_capacity) {
            size_t grown = b->list_capacity * 2 > b->list_count + count ? b->list_capacity * 2 : b->list_count + count;
            uint32_t *more = pmf_budget_realloc(b->lists, grown * sizeof *more);
            if (!more) {
                b->failed = true;
                return VIS_NODE_MIXED;
            }
            b->lists = more;
            b->list_capacity = grown;
        }
        for (size_t i = 0; i < count; i++) {
            uint32_t t = b->lists[list_at + i];
            const double *tri = b->tree->tris[t];
            if (max_double(tri[0], max_double(tri[2], tri[4])) <= cu ||
                min_double(tri[0], min_double(tri[2], tri[4])) >= cu + half ||
                max_double(tri[1], max_double(tri[3], tri[5])) <= cv ||
                min_double(tri[1], min_double(tri[3], tri[5])) >= cv + half)
                continue;
            b->lists[child_at + child_count++] = t;
        }
        b->list_count += child_count;
        uint32_t state = plane_node_build(b, cu, cv, half, child_at, child_count);
        b->list_count = child_at;
        b->tree->nodes[first + (uint32_t)child] = state;
    }
    return first;
}

static void plane_build_job(void *user, size_t index)
{
    vis_ctx *ctx = user;
    vis_plane_tree *tree = &ctx->planes[index];
    plane_build b = {
        .desc = ctx->desc, .tree = tree,
        .tri_ids = ctx->plane_tris + ctx->plane_tri_start[index],
        .tri_count = ctx->plane_tri_start[index + 1] - ctx->plane_tri_start[index],
    };
    int a = tree->axis, u = (a + 1) % 3, v = (a + 2) % 3;
    tree->tris = pmf_budget_malloc((b.tri_count + 1) * sizeof *tree->tris);
    b.list_capacity = b.tri_count * 4 + 16;
    b.lists = pmf_budget_malloc(b.list_capacity * sizeof *b.lists);
    b.pieces[0] = pmf_budget_malloc(2 * VIS_MAX_PIECES * sizeof(vis_poly));
    if (!tree->tris || !b.lists || !b.pieces[0]) {
        atomic_store(&ctx->failed, true);
        goto done;
    }
    b.pieces[1] = b.pieces[0] + VIS_MAX_PIECES;
    double lo[2] = { INFINITY, INFINITY }, hi[2] = { -INFINITY, -INFINITY };
    for (size_t i = 0; i < b.tri_count; i++) {
        const float *tri = ctx->desc->triangles[b.tri_ids[i]];
        double *out = tree->tris[b.list_count];
        for (int corner = 0; corner < 3; corner++) {
            out[corner * 2] = tri[corner * 3 + u];
            out[corner * 2 + 1] = tri[corner * 3 + v];
        }
        double area = (out[2] - out[0]) * (out[5] - out[1]) - (out[4] - out[0]) * (out[3] - out[1]);
        if (area == 0.0)
            continue;
        if (area < 0.0) {   /* counter-clockwise, so "inside" is left of every edge */
            double x = out[2], y = out[3];
            out[2] = out[4];
            out[3] = out[5];
            out[4] = x;
            out[5] = y;
        }
        for (int corner = 0; corner < 3; corner++) {
            lo[0] = min_double(lo[0], out[corner * 2]);
            hi[0] = max_double(hi[0], out[corner * 2]);
            lo[1] = min_double(lo[1], out[corner * 2 + 1]);
            hi[1] = max_double(hi[1], out[corner * 2 + 1]);
        }
        b.lists[b.list_count] = (uint32_t)b.list_count;
        b.list_count++;
    }
    size_t count = b.list_count;
    if (count == 0) {
        tree->root = VIS_NODE_EMPTY;
        goto done;
    }
    tree->min[0] = lo[0];
    tree->min[1] = lo[1];
    tree->extent_max[0] = hi[0];
    tree->extent_max[1] = hi[1];
    tree->size = max_double(hi[0] - lo[0], hi[1] - lo[1]);
    b.min_size = max_double(VIS_CELL_MIN, tree->size / (double)(1 << VIS_PLANE_DEPTH));
    tree->root = plane_node_build(&b, lo[0], lo[1], tree->size, 0, count);
    if (b.failed)
        atomic_store(&ctx->failed, true);
done:
    pmf_budget_free(b.lists);
    pmf_budget_free(b.pieces[0]);
}

/* Groups the axis-aligned occluders by plane and builds each plane's coverage quadtree. */
static bool planes_build(vis_ctx *ctx, const jobs_progress *progress)
{
    const vis_desc *desc = ctx->desc;
    size_t n = desc->triangle_count;
    vis_plane_key *keys = pmf_budget_malloc((n + 1) * sizeof *keys);
    ctx->triangle_plane = pmf_budget_malloc((n + 1) * sizeof *ctx->triangle_plane);
    ctx->plane_tris = pmf_budget_malloc((n + 1) * sizeof *ctx->plane_tris);
    if (!keys || !ctx->triangle_plane || !ctx->plane_tris) {
        pmf_budget_free(keys);
        return false;
    }
    size_t flat = 0;
    for (size_t i = 0; i < n; i++) {
        vis_plane plane;
        ctx->triangle_plane[i] = UINT32_MAX;
        if (triangle_plane(desc->triangles[i], &plane))
            keys[flat++] = (vis_plane_key){ plane.axis, plane.k, (uint32_t)i };
    }
    order_sort(keys, flat, sizeof *keys, compare_plane_key);
    size_t planes = 0;
    for (size_t i = 0; i < flat; i++)
        planes += i == 0 || keys[i].axis != keys[i - 1].axis || keys[i].k != keys[i - 1].k;
    ctx->planes = pmf_budget_calloc(planes + 1, sizeof *ctx->planes);
    ctx->plane_tri_start = pmf_budget_malloc((planes + 1) * sizeof *ctx->plane_tri_start);
    if (!ctx->planes || !ctx->plane_tri_start) {
        pmf_budget_free(keys);
        return false;
    }
    for (size_t i = 0; i < flat; i++) {
        if (i == 0 || keys[i].axis != keys[i - 1].axis || keys[i].k != keys[i - 1].k) {
            ctx->planes[ctx->plane_count] = (vis_plane_tree){ .axis = keys[i].axis, .k = keys[i].k };
            ctx->plane_tri_start[ctx->plane_count++] = (uint32_t)i;
        }
        ctx->plane_tris[i] = keys[i].triangle;
        ctx->triangle_plane[keys[i].triangle] = (uint32_t)(ctx->plane_count - 1);
    }
    ctx->plane_tri_start[ctx->plane_count] = (uint32_t)flat;
    pmf_budget_free(keys);
    jobs_parallel_for_progress(ctx->plane_count, ctx->desc->threads, plane_build_job, ctx, progress);
    return !atomic_load(&ctx->failed);
}

typedef struct vis_square {
    uint32_t node;
    double u, v, size;
} vis_square;

/* Whether the occluders lying in a plane cover every point where a segment from c to t crosses it. */
static bool plane_covers(vis_scratch *s, const vis_box *c, const vis_box *t, const vis_plane_tree *plane)
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
            rmin[0] = min_double(rmin[0], cu);
            rmax[0] = max_double(rmax[0], cu);
            rmin[1] = min_double(rmin[1], cv);
            rmax[1] = max_double(rmax[1], cv);
        }
    if (plane->root == VIS_NODE_EMPTY || rmin[0] < plane->min[0] || rmin[1] < plane->min[1] ||
        rmax[0] > plane->extent_max[0] || rmax[1] > plane->extent_max[1])
        return false;
    vis_square stack[4 * VIS_PLANE_DEPTH + 8];
    int sp = 0;
    stack[sp++] = (vis_square){ plane->root, plane->min[0], plane->min[1], plane->size };
    while (sp > 0) {
        vis_square at = stack[--sp];
        if (at.u >= rmax[0] || at.u + at.size <= rmin[0] || at.v >= rmax[1] || at.v + at.size <= rmin[1])
            continue;
        if (at.node == VIS_NODE_FULL)
            continue;
        if (at.node == VIS_NODE_EMPTY || at.node == VIS_NODE_MIXED)
            return false;
        if (at.node >= VIS_NODE_LIST) {
            /* The part of the crossing set in this square must be covered by the leaf's triangles. */
            double u0 = max_double(at.u, rmin[0]), u1 = min_double(at.u + at.size, rmax[0]);
            double v0 = max_double(at.v, rmin[1]), v1 = min_double(at.v + at.size, rmax[1]);
            vis_poly part = { 4, { u0, u1, u1, u0 }, { v0, v0, v1, v1 } };
            const vis_leaf *leaf = &plane->leaves[at.node - VIS_NODE_LIST];
            if (!poly_covered(&part, (const double (*)[6])plane->tris, plane->leaf_tris + leaf->first, leaf->count,
                              s->pieces))
                return false;
            continue;
        }
        double half = at.size * 0.5;
        for (int child = 0; child < 4; child++) {
            vis_square next = { plane->nodes[at.node + (uint32_t)child], at.u + (child & 1 ? half : 0.0),
                                at.v + (child & 2 ? half : 0.0), half };
            bool overlaps = next.u < rmax[0] && next.u + half > rmin[0] && next.v < rmax[1] && next.v + half > rmin[1];
            if (!overlaps || next.node == VIS_NODE_FULL)
                continue;
            /* An open square anywhere decides it: look at the siblings before going deeper. */
            if (next.node == VIS_NODE_EMPTY || next.node == VIS_NODE_MIXED)
                return false;
            stack[sp++] = next;
        }
    }
    return true;
}

/* Records the plane of a blocking triangle; true when it is new and proves (c, t) hidden. */
static bool try_plane(const vis_ctx *ctx, vis_scratch *s, const vis_box *c, const vis_box *t, uint32_t hit)
{
    uint32_t plane = ctx->triangle_plane[hit];
    if (plane == UINT32_MAX || !plane_between(c, t, ctx->planes[plane].axis, ctx->planes[plane].k))
        return false;
    for (int i = 0; i < s->plane_count; i++)
        if (s->planes[i] == plane)
            return false;
    if (s->plane_count < VIS_MAX_PLANES)
        s->planes[s->plane_count++] = plane;
    return plane_covers(s, c, t, &ctx->planes[plane]);
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
    for (int i = 0; i < s->plane_count; i++) {
        const vis_plane_tree *plane = &ctx->planes[s->planes[i]];
        if (plane_between(c, t, plane->axis, plane->k) && plane_covers(s, c, t, plane))
            return VIS_HIDDEN;
    }
    /* Centre to centre; a random segment too where the halving stops. */
    for (int r = 0; r < (depth == 0 ? 2 : 1); r++) {
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
    if (depth == 0)
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
    /* Centre to centre, then corner to corner: quick to find a clear view, and the planes of
     * what blocks them are the likeliest to hide the target. */
    for (int r = 0; r < VIS_FIRST_RAYS; r++) {
        float p[3], q[3];
        if (r == 0) {
            box_centre(c, p);
            box_centre(t, q);
        } else {
            box_corner(c, r - 1, p);
            box_corner(t, r - 1, q);
        }
        uint32_t hit;
        if (!segment_blocked(ctx, c, t, p, q, &hit))
            return true;
        if (try_plane(ctx, s, c, t, hit))
            return false;
    }
    return prove_hidden(ctx, s, c, t, ctx->depth) != VIS_HIDDEN;
}

/* ---- targets in a tree, so that one proof can hide a whole group of them ---------------- */

typedef struct target_node {
    vis_box box;
    uint32_t first, count;      /* leaf: targets order[first..first+count); interior: count 0, children first, first + 1 */
} target_node;

/* A target's centre along the split axis, with its index to break ties: a total order, so the
 * same tree whatever the sort algorithm. */
typedef struct target_key {
    float centre;
    uint32_t target;
} target_key;

static int compare_target_key(const void *a, const void *b)
{
    const target_key *x = a, *y = b;
    if (x->centre != y->centre)
        return (x->centre > y->centre) - (x->centre < y->centre);
    return (x->target > y->target) - (x->target < y->target);
}

static void target_node_fill(vis_ctx *ctx, uint32_t node, uint32_t first, uint32_t count)
{
    const vis_box *targets = ctx->desc->targets;
    target_node *n = &ctx->target_nodes[node];
    n->box = targets[ctx->target_order[first]];
    for (uint32_t i = first + 1; i < first + count; i++)
        for (int a = 0; a < 3; a++) {
            n->box.min[a] = fminf(n->box.min[a], targets[ctx->target_order[i]].min[a]);
            n->box.max[a] = fmaxf(n->box.max[a], targets[ctx->target_order[i]].max[a]);
        }
    n->first = first;
    n->count = count;
}

/* Median splits along the longest axis of the group's box, down to VIS_GROUP_LEAF targets. */
static bool targets_build(vis_ctx *ctx)
{
    size_t count = ctx->desc->target_count;
    ctx->target_order = pmf_budget_malloc((count + 1) * sizeof *ctx->target_order);
    ctx->target_nodes = pmf_budget_malloc((2 * count + 1) * sizeof *ctx->target_nodes);
    target_key *keys = pmf_budget_malloc((count + 1) * sizeof *keys);
    if (!ctx->target_order || !ctx->target_nodes || !keys) {
        pmf_budget_free(keys);
        return false;
    }
    for (size_t i = 0; i < count; i++)
        ctx->target_order[i] = (uint32_t)i;
    if (count == 0) {
        pmf_budget_free(keys);
        return true;
    }
    target_node_fill(ctx, 0, 0, (uint32_t)count);
    ctx->target_node_count = 1;
    for (size_t node = 0; node < ctx->target_node_count; node++) {
        target_node *n = &ctx->target_nodes[node];
        if (n->count <= VIS_GROUP_LEAF)
            continue;
        int axis = 0;
        for (int a = 1; a < 3; a++)
            if (n->box.max[a] - n->box.min[a] > n->box.max[axis] - n->box.min[axis])
                axis = a;
        uint32_t *order = ctx->target_order + n->first;
        for (uint32_t i = 0; i < n->count; i++) {
            const vis_box *b = &ctx->desc->targets[order[i]];
            keys[i] = (target_key){ b->min[axis] + b->max[axis], order[i] };
        }
        order_sort(keys, n->count, sizeof *keys, compare_target_key);
        for (uint32_t i = 0; i < n->count; i++)
            order[i] = keys[i].target;
        uint32_t first = n->first, total = n->count, half = total / 2;
        uint32_t child = (uint32_t)ctx->target_node_count;
        ctx->target_node_count += 2;
        target_node_fill(ctx, child, first, half);
        target_node_fill(ctx, child + 1, first + half, total - half);
        ctx->target_nodes[node].first = child;
        ctx->target_nodes[node].count = 0;
    }
    pmf_budget_free(keys);
    return true;
}

/* A cheap attempt to prove a whole group hidden: a few segments, and the planes they hit. */
static bool group_hidden(const vis_ctx *ctx, vis_scratch *s, size_t cell, size_t node, const vis_box *c,
                         const vis_box *group)
{
    s->rng = (uint64_t)cell * 0x9E3779B97F4A7C15ull ^ (uint64_t)node * 0xD6E8FEB86659FD93ull ^ 0x6E0D5ull;
    s->plane_count = 0;
    for (int r = 0; r < VIS_GROUP_RAYS; r++) {
        float p[3], q[3];
        if (r == 0) {
            box_centre(c, p);
            box_centre(group, q);
        } else {
            box_sample(c, &s->rng, p);
            box_sample(group, &s->rng, q);
        }
        uint32_t hit;
        if (!segment_blocked(ctx, c, group, p, q, &hit))
            return false;
        if (try_plane(ctx, s, c, group, hit))
            return true;
    }
    return false;
}

static void vis_cell_job(void *user, size_t cell)
{
    vis_ctx *ctx = user;
    const vis_desc *desc = ctx->desc;
    if (atomic_load(&ctx->failed) || desc->target_count == 0)
        return;
    const vis_box *c = &desc->cells[cell];
    vis_scratch s = { 0 };
    s.pieces[0] = pmf_budget_malloc(2 * VIS_MAX_PIECES * sizeof(vis_poly));
    if (!s.pieces[0]) {
        atomic_store(&ctx->failed, true);
        return;
    }
    s.pieces[1] = s.pieces[0] + VIS_MAX_PIECES;
    uint32_t *visible = NULL;
    size_t count = 0, capacity = 0;
    uint32_t stack[2 * 64 + 2];
    int sp = 0;
    stack[sp++] = 0;
    while (sp > 0) {
        uint32_t node = stack[--sp];
        const target_node *n = &ctx->target_nodes[node];
        if (n->count == 0) {
            if (box_gap(c, &n->box) > box_size(c) && group_hidden(ctx, &s, cell, node, c, &n->box))
                continue;
            stack[sp++] = n->first + 1;
            stack[sp++] = n->first;
            continue;
        }
        for (uint32_t i = n->first; i < n->first + n->count; i++) {
            uint32_t t = ctx->target_order[i];
            if (!pair_visible(ctx, &s, cell, t))
                continue;
            if (count == capacity) {
                capacity = capacity ? capacity * 2 : 16;
                uint32_t *more = pmf_budget_realloc(visible, capacity * sizeof *more);
                if (!more) {
                    atomic_store(&ctx->failed, true);
                    pmf_budget_free(visible);
                    pmf_budget_free(s.pieces[0]);
                    return;
                }
                visible = more;
            }
            visible[count++] = t;
        }
    }
    pmf_budget_free(s.pieces[0]);
    vis_list_sort(visible, count);
    ctx->out->visible[cell] = visible;
    ctx->out->visible_count[cell] = (uint32_t)count;
}

static void vis_ctx_free(vis_ctx *ctx)
{
    bvh_free(&ctx->tree);
    for (size_t i = 0; i < ctx->plane_count; i++) {
        pmf_budget_free(ctx->planes[i].nodes);
        pmf_budget_free(ctx->planes[i].tris);
        pmf_budget_free(ctx->planes[i].leaves);
        pmf_budget_free(ctx->planes[i].leaf_tris);
    }
    pmf_budget_free(ctx->planes);
    pmf_budget_free(ctx->plane_tri_start);
    pmf_budget_free(ctx->plane_tris);
    pmf_budget_free(ctx->triangle_plane);
    pmf_budget_free(ctx->target_nodes);
    pmf_budget_free(ctx->target_order);
}

bool vis_run(const vis_desc *desc, vis_result *out)
{
    memset(out, 0, sizeof *out);
    vis_ctx ctx = { .desc = desc, .out = out };
    int rays = desc->rays_per_pair > 0 ? desc->rays_per_pair : VIS_DEFAULT_RAYS;
    atomic_init(&ctx.failed, false);
    /* Halving down to about one leaf pair per two rays: more rays, tighter answers. */
    while ((2 << ctx.depth) < rays && ctx.depth < 12)
        ctx.depth++;
    jobs_progress progress = { desc->progress, desc->user, "bvh" };
    jobs_report(&progress, 0.0);
    bool ok = bvh_build(desc->triangles, desc->triangle_count, desc->threads, &ctx.tree);
    jobs_report(&progress, 1.0);
    progress.stage = "occluder planes";
    ok = ok && planes_build(&ctx, &progress) && targets_build(&ctx);
    out->visible = pmf_budget_calloc(desc->cell_count + 1, sizeof *out->visible);
    out->visible_count = pmf_budget_calloc(desc->cell_count + 1, sizeof *out->visible_count);
    if (ok && out->visible && out->visible_count) {
        progress.stage = "visibility";
        jobs_parallel_for_progress(desc->cell_count, desc->threads, vis_cell_job, &ctx, &progress);
        ok = !atomic_load(&ctx.failed);
    } else {
        ok = false;
    }
    vis_ctx_free(&ctx);
    if (!ok)
        vis_result_free(out, desc->cell_count);
    return ok;
}

void vis_list_sort(uint32_t *list, size_t count)
{
    if (count > 1)
        order_sort(list, count, sizeof *list, order_u32);
}

void vis_result_free(vis_result *res, size_t cell_count)
{
    if (res->visible)
        for (size_t i = 0; i < cell_count; i++)
            pmf_budget_free(res->visible[i]);
    pmf_budget_free(res->visible);
    pmf_budget_free(res->visible_count);
    memset(res, 0, sizeof *res);
}
