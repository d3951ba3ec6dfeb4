/* bvh.c - binned-SAH BVH over triangles, any-hit segment queries (Moller-Trumbore, four triangles
 * at once) and box queries. */
#include "bvh.h"
#include "jobs.h"
#include "base/pmf_budget.h"
#include "base/grow.h"
#include "base/order.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#define BVH_BINS 16
#define BVH_LEAF_MAX 4          /* a larger range is always split when it can be */
#define BVH_MAX_DEPTH 100       /* deeper ranges become leaves, so query stacks cannot overflow */
#define BVH_STACK (BVH_MAX_DEPTH + 8)
#define BVH_TRAVERSAL_COST 1.0f /* relative to one triangle test */
#define BVH_PARTS 8             /* subtrees built in parallel */
#define BVH_PARALLEL_MIN 65536  /* fewer triangles are built on one thread */
/* Barycentric slack: a segment through an edge shared by two triangles hits at least one. */
#define BVH_EDGE_SLACK 1e-6f
#define BVH_LINE 64             /* bytes of a cache line: one bvh_pair */
#define BVH_WIDEN 4e-7f         /* a box's far side moves out by this share (see node_hit) */

typedef float v4 __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));
/* Lanes (2, 3, 0, 1) of a: GCC's and Clang's spellings. */
#if defined(__clang__)
#define LANES_SWAP_HALVES(a) __builtin_shufflevector(a, a, 2, 3, 0, 1)
#else
#define LANES_SWAP_HALVES(a) __builtin_shuffle(a, (v4i){ 2, 3, 0, 1 })
#endif

/* Two sibling nodes as a ray meets them: per axis (min of the first, min of the second, max of the
 * first, max of the second), so one slab test covers both. A child is a leaf with count > 0 (index:
 * its first quad), else index is the pair of its own children. */
typedef struct bvh_pair {
    v4 bounds[3];
    uint32_t index[2], count[2];
} bvh_pair;

/* Up to four triangles of a leaf side by side, lane by lane as the ray tests read them: v0, edge
 * v1 - v0, edge v2 - v0 per axis. A lane past the leaf's last triangle has zero edges: nothing hits
 * it. */
typedef struct bvh_quad {
    v4 v0[3], e1[3], e2[3];
    uint32_t ids[4];            /* input index per lane */
} bvh_quad;

typedef struct bvh_child {
    uint32_t index, count;
} bvh_child;

/* A triangle during the build: its bounds, moved around instead of the triangle. */
typedef struct bvh_ref {
    float min[3];
    uint32_t id;
    float max[3];
    float unused;
} bvh_ref;

typedef struct bvh_box {
    float min[3], max[3];       /* of the triangles */
    float cmin[3], cmax[3];     /* of their centres (bounds' midpoints, doubled) */
} bvh_box;

typedef struct bvh_bin {
    float min[3], max[3];       /* of the triangles (centres are not needed per bin) */
    uint32_t count;
} bvh_bin;

typedef struct bvh_task {
    uint32_t node, first, count, depth;
    bvh_box box;
} bvh_task;

/* Nodes of one subtree: its root is local node 0, children pairs follow. */
typedef struct bvh_part {
    bvh_node *nodes;
    size_t count, capacity;
    bvh_task root;
    bool failed;
} bvh_part;

static void box_reset(bvh_box *b)
{
    for (int a = 0; a < 3; a++) {
        b->min[a] = b->cmin[a] = FLT_MAX;
        b->max[a] = b->cmax[a] = -FLT_MAX;
    }
}

static void box_add_ref(bvh_box *b, const bvh_ref *r)
{
    for (int a = 0; a < 3; a++) {
        float c = r->min[a] + r->max[a];
        b->min[a] = min_float(b->min[a], r->min[a]);
        b->max[a] = max_float(b->max[a], r->max[a]);
        b->cmin[a] = min_float(b->cmin[a], c);
        b->cmax[a] = max_float(b->cmax[a], c);
    }
}

static void bin_add_ref(bvh_bin *b, const bvh_ref *r)
{
    for (int a = 0; a < 3; a++) {
        b->min[a] = min_float(b->min[a], r->min[a]);
        b->max[a] = max_float(b->max[a], r->max[a]);
    }
    b->count++;
}

static void bin_merge(bvh_bin *b, const bvh_bin *o)
{
    for (int a = 0; a < 3; a++) {
        b->min[a] = min_float(b->min[a], o->min[a]);
        b->max[a] = max_float(b->max[a], o->max[a]);
    }
    b->count += o->count;
}

static float half_area(const float min[3], const float max[3])
{
    float dx = max[0] - min[0], dy = max[1] - min[1], dz = max[2] - min[2];
    if (dx < 0.0f || dy < 0.0f || dz < 0.0f)
        return 0.0f;
    return dx * dy + dy * dz + dz * dx;
}

static float box_half_area(const bvh_box *b)
{
    float dx = b->max[0] - b->min[0], dy = b->max[1] - b->min[1], dz = b->max[2] - b->min[2];
    if (dx < 0.0f || dy < 0.0f || dz < 0.0f)
        return 0.0f;
    return dx * dy + dy * dz + dz * dx;
}

static inline int bin_of(const bvh_ref *r, int a, float cmin, float scale)
{
    float f = (r->min[a] + r->max[a] - cmin) * scale;
    return f > 0.0f ? (f < (float)(BVH_BINS - 1) ? (int)f : BVH_BINS - 1) : 0;   /* NaN -> 0 */
}

/* Splits a task's range by the best binned-SAH plane; false when it should stay a leaf. */
static bool task_split(bvh_ref *refs, const bvh_task *task, bvh_task *left, bvh_task *right)
{
    if (task->count <= 1 || task->depth >= BVH_MAX_DEPTH)
        return false;
    bvh_bin bins[3][BVH_BINS];
    float scale[3];
    for (int a = 0; a < 3; a++) {
        float extent = task->box.cmax[a] - task->box.cmin[a];
        scale[a] = extent > 0.0f ? (float)BVH_BINS * 0.99999f / extent : 0.0f;
        for (int b = 0; b < BVH_BINS; b++) {
            for (int k = 0; k < 3; k++) {
                bins[a][b].min[k] = FLT_MAX;
                bins[a][b].max[k] = -FLT_MAX;
            }
            bins[a][b].count = 0;
        }
    }
    for (uint32_t i = task->first; i < task->first + task->count; i++)
        for (int a = 0; a < 3; a++)
            bin_add_ref(&bins[a][bin_of(&refs[i], a, task->box.cmin[a], scale[a])], &refs[i]);
    int best_axis = -1, best_bin = 0;
    float best_cost = 0.0f;
    for (int a = 0; a < 3; a++) {
        if (scale[a] == 0.0f)
            continue;
        float right_area[BVH_BINS];
        uint32_t right_count[BVH_BINS];
        bvh_bin acc = bins[a][BVH_BINS - 1];
        for (int b = BVH_BINS - 1; b > 0; b--) {
            if (b < BVH_BINS - 1)
                bin_merge(&acc, &bins[a][b]);
            right_area[b] = half_area(acc.min, acc.max);
            right_count[b] = acc.count;
        }
        acc = bins[a][0];
        for (int b = 0; b < BVH_BINS - 1; b++) {
            if (b > 0)
                bin_merge(&acc, &bins[a][b]);
            if (acc.count == 0 || right_count[b + 1] == 0)
                continue;
            float cost = half_area(acc.min, acc.max) * (float)acc.count + right_area[b + 1] * (float)right_count[b + 1];
            if (best_axis < 0 || cost < best_cost) {
                best_axis = a;
                best_bin = b;
                best_cost = cost;
            }
        }
    }
    if (best_axis < 0)
        return false;
    float area = box_half_area(&task->box);
    if (task->count <= BVH_LEAF_MAX && area * (float)task->count <= best_cost + BVH_TRAVERSAL_COST * area)
        return false;

    /* Partition, gathering each side's bounds on the way. */
    int a = best_axis;
    *left = (bvh_task){ .first = task->first, .depth = task->depth + 1 };
    *right = (bvh_task){ .depth = task->depth + 1 };
    box_reset(&left->box);
    box_reset(&right->box);
    uint32_t i = task->first, j = task->first + task->count;
    while (i < j) {
        if (bin_of(&refs[i], a, task->box.cmin[a], scale[a]) <= best_bin) {
            box_add_ref(&left->box, &refs[i]);
            i++;
        } else {
            box_add_ref(&right->box, &refs[i]);
            bvh_ref swap = refs[i];
            refs[i] = refs[--j];
            refs[j] = swap;
        }
    }
    left->count = i - task->first;
    right->first = i;
    right->count = task->first + task->count - i;
    return true;
}

static void node_from_task(bvh_node *node, const bvh_task *task)
{
    memcpy(node->min, task->box.min, sizeof node->min);
    memcpy(node->max, task->box.max, sizeof node->max);
    node->index = task->first;
    node->count = task->count;
}

/* Makes parent an inner node whose children, left and right, are the nodes first and first + 1. */
static void link_children(bvh_node *parent, uint32_t first, bvh_task *left, bvh_task *right)
{
    left->node = first;
    right->node = first + 1;
    parent->index = first;
    parent->count = 0;
}

static bool part_reserve(bvh_part *part, size_t need)
{
    if (need <= part->capacity)
        return true;
    size_t grown = part->capacity * 2 > need ? part->capacity * 2 : need;
    bvh_node *nodes = pmf_budget_realloc(part->nodes, grown * sizeof *nodes);
    if (!nodes)
        return false;
    part->nodes = nodes;
    part->capacity = grown;
    return true;
}

/* Builds one subtree depth first into part->nodes. */
static void part_build(bvh_ref *refs, bvh_part *part)
{
    if (!part_reserve(part, part->root.count / 2 + 1)) {
        part->failed = true;
        return;
    }
    bvh_task stack[BVH_STACK];
    int sp = 0;
    stack[sp] = part->root;
    stack[sp++].node = 0;
    part->count = 1;
    while (sp > 0) {
        bvh_task task = stack[--sp], left, right;
        node_from_task(&part->nodes[task.node], &task);
        if (!task_split(refs, &task, &left, &right))
            continue;
        if (!part_reserve(part, part->count + 2)) {
            part->failed = true;
            return;
        }
        link_children(&part->nodes[task.node], (uint32_t)part->count, &left, &right);
        part->count += 2;
        stack[sp++] = right;
        stack[sp++] = left;
    }
}

typedef struct bvh_parts_job {
    bvh_ref *refs;
    bvh_part *parts;
} bvh_parts_job;

static void part_job(void *user, size_t index)
{
    bvh_parts_job *job = user;
    part_build(job->refs, &job->parts[index]);
}

/* A node as a child in a pair: a leaf by its first quad (quad_of[its first triangle]), an interior
 * node by the pair of its children (they start at odd indices, node 2 q + 1 and 2 q + 2 forming
 * pair q). The root is {0, its count} either way. */
static bvh_child child_of(const bvh_node *node, const uint32_t *quad_of)
{
    return (bvh_child){ node->count > 0 ? quad_of[node->index] : (node->index - 1) / 2, node->count };
}

/* `count` elements of `size` bytes in one allocation, cache-line aligned; *block gets what to free. */
static void *lines_alloc(size_t count, size_t size, void **block)
{
    *block = pmf_budget_malloc(count * size + BVH_LINE);
    if (!*block)
        return NULL;
    return (void *)(((uintptr_t)*block + BVH_LINE - 1) & ~(uintptr_t)(BVH_LINE - 1));
}

/* tree->quads from the leaves, a leaf's triangles in order from its first quad on, the leaves in
 * the order of their triangles; quad_of[a leaf's first triangle] gets its first quad. False when
 * out of memory. */
static bool quads_build(bvh *tree, const float (*triangles)[9], uint32_t *quad_of)
{
    memset(quad_of, 0, tree->triangle_count * sizeof *quad_of);
    for (size_t i = 0; i < tree->node_count; i++)
        if (tree->nodes[i].count > 0)
            quad_of[tree->nodes[i].index] = tree->nodes[i].count;
    uint32_t quad_count = 0;
    for (size_t i = 0; i < tree->triangle_count; i++) {
        if (quad_of[i] == 0)
            continue;
        uint32_t quads = (quad_of[i] + 3) / 4;
        quad_of[i] = quad_count;
        quad_count += quads;
    }
    tree->quads = lines_alloc(quad_count, sizeof(bvh_quad), &tree->quad_block);
    if (!tree->quads)
        return false;
    memset(tree->quads, 0, quad_count * sizeof(bvh_quad));
    for (size_t i = 0; i < tree->node_count; i++) {
        const bvh_node *leaf = &tree->nodes[i];
        if (leaf->count == 0)
            continue;
        for (uint32_t k = 0; k < leaf->count; k++) {
            bvh_quad *quad = &tree->quads[quad_of[leaf->index] + k / 4];
            uint32_t lane = k % 4, id = tree->triangle_ids[leaf->index + k];
            const float *v = triangles[id];
            quad->ids[lane] = id;
            for (int a = 0; a < 3; a++) {
                quad->v0[a][lane] = v[a];
                quad->e1[a][lane] = v[3 + a] - v[a];
                quad->e2[a][lane] = v[6 + a] - v[a];
            }
        }
    }
    return true;
}

/* tree->pairs from tree->nodes, cache-line aligned. False when out of memory. */
static bool pairs_build(bvh *tree, const uint32_t *quad_of)
{
    size_t pair_count = (tree->node_count - 1) / 2;
    tree->pairs = lines_alloc(pair_count, sizeof(bvh_pair), &tree->pair_block);
    if (!tree->pairs)
        return false;
    for (size_t q = 0; q < pair_count; q++) {
        const bvh_node *first = &tree->nodes[2 * q + 1], *second = first + 1;
        bvh_pair *pair = &tree->pairs[q];
        for (int a = 0; a < 3; a++)
            pair->bounds[a] = (v4){ first->min[a], second->min[a], first->max[a], second->max[a] };
        bvh_child c0 = child_of(first, quad_of), c1 = child_of(second, quad_of);
        pair->index[0] = c0.index;
        pair->count[0] = c0.count;
        pair->index[1] = c1.index;
        pair->count[1] = c1.count;
    }
    return true;
}

bool bvh_build(const float (*triangles)[9], size_t count, int threads, bvh *out)
{
    memset(out, 0, sizeof *out);
    if (count == 0 || count > UINT32_MAX / 2)
        return count == 0;
    bvh_ref *refs = pmf_budget_malloc(count * sizeof *refs);
    bvh_part parts[BVH_PARTS];
    memset(parts, 0, sizeof parts);
    size_t part_count = 0;
    if (!refs)
        goto oom;
    bvh_task root = { 0 };
    box_reset(&root.box);
    for (size_t i = 0; i < count; i++) {
        const float *t = triangles[i];
        bvh_ref *r = &refs[i];
        for (int a = 0; a < 3; a++) {
            r->min[a] = min_float(t[a], min_float(t[3 + a], t[6 + a]));
            r->max[a] = max_float(t[a], max_float(t[3 + a], t[6 + a]));
        }
        r->id = (uint32_t)i;
        r->unused = 0.0f;
        box_add_ref(&root.box, r);
    }
    root.count = (uint32_t)count;

    /* The top levels breadth first, on this thread, until there are subtrees for every worker;
     * the subtrees in parallel; then their nodes are appended in order (the same tree whatever
     * the thread count). */
    out->nodes = pmf_budget_malloc(2 * BVH_PARTS * sizeof *out->nodes);
    if (!out->nodes)
        goto oom;
    bvh_task queue[2 * BVH_PARTS];
    size_t head = 0, tail = 0;
    queue[tail++] = root;
    out->node_count = 1;
    while (head < tail && count >= BVH_PARALLEL_MIN && tail - head < BVH_PARTS) {
        bvh_task task = queue[head++], left, right;
        node_from_task(&out->nodes[task.node], &task);
        if (!task_split(refs, &task, &left, &right))
            continue;
        link_children(&out->nodes[task.node], (uint32_t)out->node_count, &left, &right);
        out->node_count += 2;
        queue[tail++] = left;
        queue[tail++] = right;
    }
    for (size_t i = head; i < tail; i++)
        parts[part_count++].root = queue[i];
    bvh_parts_job job = { refs, parts };
    jobs_parallel_for(part_count, threads, part_job, &job);

    size_t total = out->node_count;
    for (size_t p = 0; p < part_count; p++) {
        if (parts[p].failed)
            goto oom;
        total += parts[p].count - 1;
    }
    bvh_node *nodes = pmf_budget_realloc(out->nodes, total * sizeof *nodes);
    if (!nodes)
        goto oom;
    out->nodes = nodes;
    for (size_t p = 0; p < part_count; p++) {
        /* Local node 0 takes the part's place in the top levels; local i > 0 goes to base + i - 1. */
        uint32_t base = (uint32_t)out->node_count;
        for (size_t i = 0; i < parts[p].count; i++) {
            bvh_node node = parts[p].nodes[i];
            if (node.count == 0)
                node.index = base + node.index - 1;
            out->nodes[i == 0 ? parts[p].root.node : base + i - 1] = node;
        }
        out->node_count += parts[p].count - 1;
        pmf_budget_free(parts[p].nodes);
        parts[p].nodes = NULL;
    }

    out->triangle_ids = pmf_budget_malloc(count * sizeof *out->triangle_ids);
    if (!out->triangle_ids)
        goto oom;
    for (size_t i = 0; i < count; i++)
        out->triangle_ids[i] = refs[i].id;
    out->triangle_count = count;
    /* refs, no longer needed, hold the quads' numbering a while */
    if (!quads_build(out, triangles, (uint32_t *)refs) || !pairs_build(out, (uint32_t *)refs))
        goto oom;
    pmf_budget_free(refs);
    return true;

oom:
    for (size_t p = 0; p < BVH_PARTS; p++)
        pmf_budget_free(parts[p].nodes);
    pmf_budget_free(refs);
    bvh_free(out);
    return false;
}

void bvh_free(bvh *tree)
{
    pmf_budget_free(tree->nodes);
    pmf_budget_free(tree->pair_block);
    pmf_budget_free(tree->quad_block);
    pmf_budget_free(tree->triangle_ids);
    memset(tree, 0, sizeof *tree);
}

/* Slab test over the segment's parameter range; *enter gets where the segment enters the box. */
static inline bool node_hit(const bvh_node *n, const float o[3], const float inv[3], float s_min, float s_max,
                            float *enter)
{
    float t0 = s_min, t1 = s_max;
    for (int a = 0; a < 3; a++) {
        float near = (n->min[a] - o[a]) * inv[a];
        float far = (n->max[a] - o[a]) * inv[a];
        if (near > far) {
            float swap = near;
            near = far;
            far = swap;
        }
        t0 = near > t0 ? near : t0;
        /* Widened by a few ulps so that rounding never culls a box the segment grazes. */
        far += fabsf(far) * BVH_WIDEN;
        t1 = far < t1 ? far : t1;
    }
    *enter = t0;
    return t0 <= t1;
}

static inline void cross3(const float a[3], const float b[3], float out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static inline float dot3(const float a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Where o + s d crosses triangle t (v0, e1, e2), into *s_out, when s_min < s < s_max. */
static inline bool triangle_hit_at(const float t[9], const float o[3], const float d[3], float s_min, float s_max,
                                   float *s_out)
{
    const float *e1 = t + 3, *e2 = t + 6;
    float p[3], q[3], tv[3];
    cross3(d, e2, p);
    float det = dot3(e1, p);
    if (det == 0.0f)
        return false;
    float inv_det = 1.0f / det;
    tv[0] = o[0] - t[0];
    tv[1] = o[1] - t[1];
    tv[2] = o[2] - t[2];
    float u = dot3(tv, p) * inv_det;
    if (u < -BVH_EDGE_SLACK || u > 1.0f + BVH_EDGE_SLACK)
        return false;
    cross3(tv, e1, q);
    float v = dot3(d, q) * inv_det;
    if (v < -BVH_EDGE_SLACK || u + v > 1.0f + BVH_EDGE_SLACK)
        return false;
    float s = dot3(e2, q) * inv_det;
    *s_out = s;
    return s > s_min && s < s_max;
}

/* A segment as the slab and quad tests read it: its origin and inverse direction, and those and its
 * direction once per lane. */
typedef struct bvh_ray {
    float o[3], inv[3];
    v4 lane_o[3], lane_inv[3], lane_d[3];
} bvh_ray;

/* A segment's direction, and its ray for the slab tests. */
static void segment_setup(const float from[3], const float to[3], float d[3], bvh_ray *r)
{
    for (int a = 0; a < 3; a++) {
        d[a] = to[a] - from[a];
        /* A zero component must not give 0 * inf = NaN in the slab test. */
        float safe = fabsf(d[a]) > 1e-30f ? d[a] : copysignf(1e-30f, d[a]);
        r->o[a] = from[a];
        r->inv[a] = 1.0f / safe;
        r->lane_o[a] = (v4){ from[a], from[a], from[a], from[a] };
        r->lane_inv[a] = (v4){ r->inv[a], r->inv[a], r->inv[a], r->inv[a] };
        r->lane_d[a] = (v4){ d[a], d[a], d[a], d[a] };
    }
}

/* Per lane a > b ? a : b. */
static inline v4 greater_of(v4 a, v4 b)
{
#if defined(__SSE__)
    return _mm_max_ps(a, b);
#else
    v4i take = a > b;
    return (v4)((take & (v4i)a) | (~take & (v4i)b));
#endif
}

static inline v4 lane_abs(v4 x)
{
    return (v4)((v4i)x & (v4i){ 0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff });
}

static inline v4 lanes_of(float x)
{
    return (v4){ x, x, x, x };
}

/* Per lane a < b ? a : b. */
static inline v4 lesser_of(v4 a, v4 b)
{
#if defined(__SSE__)
    return _mm_min_ps(a, b);
#else
    v4i take = a < b;
    return (v4)((take & (v4i)a) | (~take & (v4i)b));
#endif
}

/* One axis of pair_hit: narrows near (entries) and far (exits, widened as node_hit's) by the two
 * boxes' slabs. The lanes hold (min side, min side, max side, max side) of the two boxes; the nearer
 * of each box's two sides is node_hit's swap (subtracting and scaling keep the order of min and max). */
static inline void pair_axis(v4 bounds, v4 o, v4 inv, v4 *near, v4 *far)
{
    const v4 widen = { BVH_WIDEN, BVH_WIDEN, BVH_WIDEN, BVH_WIDEN };
    v4 t = (bounds - o) * inv;
    v4 swapped = LANES_SWAP_HALVES(t);
    v4 out = greater_of(t, swapped);
    *near = greater_of(lesser_of(t, swapped), *near);
    *far = lesser_of(out + lane_abs(out) * widen, *far);
}

/* node_hit on both nodes of a pair at once, the same arithmetic lane by lane: s_min and s_max in
 * every lane of lo and hi. */
static inline void pair_hit(const bvh_pair *pair, const bvh_ray *r, v4 lo, v4 hi, float enter[2], bool hit[2])
{
    v4 near = lo, far = hi;
    pair_axis(pair->bounds[0], r->lane_o[0], r->lane_inv[0], &near, &far);
    pair_axis(pair->bounds[1], r->lane_o[1], r->lane_inv[1], &near, &far);
    pair_axis(pair->bounds[2], r->lane_o[2], r->lane_inv[2], &near, &far);
    enter[0] = near[0];
    enter[1] = near[1];
    hit[0] = near[0] <= far[0];
    hit[1] = near[1] <= far[1];
}

/* The lanes (bit k: lane k) of quad q that the segment crosses within (s_min, s_max), each as
 * triangle_hit_at decides with the same arithmetic; *s gets the crossings. */
static inline unsigned quad_hits(const bvh_quad *q, const bvh_ray *r, float s_min, float s_max, v4 *s)
{
    const v4 *d = r->lane_d, *e1 = q->e1, *e2 = q->e2;
    const v4 one = { 1.0f, 1.0f, 1.0f, 1.0f }, low = one * -BVH_EDGE_SLACK, high = one * (1.0f + BVH_EDGE_SLACK);
    v4 p[3] = { d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0] };
    v4 det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
    v4 inv_det = one / det;
    v4 tv[3] = { r->lane_o[0] - q->v0[0], r->lane_o[1] - q->v0[1], r->lane_o[2] - q->v0[2] };
    v4 u = (tv[0] * p[0] + tv[1] * p[1] + tv[2] * p[2]) * inv_det;
    v4 c[3] = { tv[1] * e1[2] - tv[2] * e1[1], tv[2] * e1[0] - tv[0] * e1[2], tv[0] * e1[1] - tv[1] * e1[0] };
    v4 v = (d[0] * c[0] + d[1] * c[1] + d[2] * c[2]) * inv_det;
    *s = (e2[0] * c[0] + e2[1] * c[1] + e2[2] * c[2]) * inv_det;
    v4i miss = (det == one * 0.0f) | (u < low) | (u > high) | (v < low) | (u + v > high);
    v4i hit = ~miss & (*s > one * s_min) & (*s < one * s_max);
#if defined(__SSE__)
    return (unsigned)_mm_movemask_ps((__m128)hit);
#else
    return (hit[0] & 1u) | (hit[1] & 2u) | (hit[2] & 4u) | (hit[3] & 8u);
#endif
}

static inline int lowest_lane(unsigned lanes)
{
    return __builtin_ctz(lanes);
}

bool bvh_segment_occluded(const bvh *tree, const float from[3], const float to[3], float s_min, float s_max,
                          uint32_t *hit)
{
    if (tree->node_count == 0 || !(s_min < s_max))
        return false;
    float d[3];
    bvh_ray ray;
    segment_setup(from, to, d, &ray);
    bvh_child stack[BVH_STACK];
    int sp = 0;
    float enter;
    if (!node_hit(&tree->nodes[0], ray.o, ray.inv, s_min, s_max, &enter))
        return false;
    const v4 lo = lanes_of(s_min), hi = lanes_of(s_max);
    bvh_child node = { 0, tree->nodes[0].count };
    for (;;) {
        if (node.count > 0) {
            for (uint32_t k = node.index; k < node.index + (node.count + 3) / 4; k++) {
                v4 s;
                unsigned lanes = quad_hits(&tree->quads[k], &ray, s_min, s_max, &s);
                if (lanes) {
                    if (hit)
                        *hit = tree->quads[k].ids[lowest_lane(lanes)];
                    return true;
                }
            }
            if (sp == 0)
                return false;
            node = stack[--sp];
            continue;
        }
        const bvh_pair *pair = &tree->pairs[node.index];
        float e[2];
        bool h[2];
        pair_hit(pair, &ray, lo, hi, e, h);
        bvh_child c0 = { pair->index[0], pair->count[0] }, c1 = { pair->index[1], pair->count[1] };
        if (h[0] && h[1]) {
            bool first_near = e[0] <= e[1];
            stack[sp++] = first_near ? c1 : c0;
            node = first_near ? c0 : c1;
        } else if (h[0] || h[1]) {
            node = h[0] ? c0 : c1;
        } else {
            if (sp == 0)
                return false;
            node = stack[--sp];
        }
    }
}

bool bvh_segment_nearest(const bvh *tree, const float from[3], const float to[3], float s_min, float s_max, float *s_hit)
{
    return bvh_segment_nearest_triangle(tree, from, to, s_min, s_max, s_hit, NULL);
}

bool bvh_segment_nearest_triangle(const bvh *tree, const float from[3], const float to[3], float s_min, float s_max,
                                  float *s_hit, uint32_t *hit)
{
    if (tree->node_count == 0 || !(s_min < s_max))
        return false;
    float d[3];
    bvh_ray ray;
    segment_setup(from, to, d, &ray);
    /* nearer hits shrink the segment; nodes that start beyond it are skipped, on the stack too */
    bvh_child stack[BVH_STACK];
    float stack_enter[BVH_STACK];
    int sp = 0;
    bool found = false;
    float enter;
    if (!node_hit(&tree->nodes[0], ray.o, ray.inv, s_min, s_max, &enter) || enter >= s_max)
        return false;
    bvh_child node = { 0, tree->nodes[0].count };
    for (;;) {
        if (node.count > 0) {
            for (uint32_t k = node.index; k < node.index + (node.count + 3) / 4; k++) {
                v4 s;
                /* lane by lane in order, each nearer than the last: the first of equal crossings */
                unsigned lanes = quad_hits(&tree->quads[k], &ray, s_min, s_max, &s);
                for (; lanes; lanes &= lanes - 1) {
                    int lane = lowest_lane(lanes);
                    if (s[lane] < s_max) {
                        s_max = s[lane];
                        found = true;
                        if (hit)
                            *hit = tree->quads[k].ids[lane];
                    }
                }
            }
        } else {
            const bvh_pair *pair = &tree->pairs[node.index];
            float e[2];
            bool h[2];
            pair_hit(pair, &ray, lanes_of(s_min), lanes_of(s_max), e, h);
            bvh_child c0 = { pair->index[0], pair->count[0] }, c1 = { pair->index[1], pair->count[1] };
            int near = h[0] && h[1] ? (e[0] <= e[1] ? 0 : 1) : h[0] ? 0 : 1;
            if (h[0] && h[1]) {
                stack[sp] = near ? c0 : c1;
                stack_enter[sp++] = e[1 - near];
            }
            if ((h[0] || h[1]) && e[near] < s_max) {
                node = near ? c1 : c0;
                continue;
            }
        }
        while (sp > 0 && stack_enter[sp - 1] >= s_max)
            sp--;
        if (sp == 0)
            break;
        node = stack[--sp];
    }
    if (found)
        *s_hit = s_max;
    return found;
}

bool bvh_triangle_hit_at(const float triangle[9], const float from[3], const float to[3], float s_min, float s_max,
                         float *s_hit)
{
    float t[9], d[3];
    for (int a = 0; a < 3; a++) {
        t[a] = triangle[a];
        t[3 + a] = triangle[3 + a] - triangle[a];
        t[6 + a] = triangle[6 + a] - triangle[a];
        d[a] = to[a] - from[a];
    }
    return triangle_hit_at(t, from, d, s_min, s_max, s_hit);
}

bool bvh_triangle_blocks(const float triangle[9], const float from[3], const float to[3], float s_min, float s_max)
{
    float s;
    return bvh_triangle_hit_at(triangle, from, to, s_min, s_max, &s);
}

static bool boxes_overlap(const float amin[3], const float amax[3], const float bmin[3], const float bmax[3])
{
    return amin[0] <= bmax[0] && amax[0] >= bmin[0] && amin[1] <= bmax[1] && amax[1] >= bmin[1] &&
           amin[2] <= bmax[2] && amax[2] >= bmin[2];
}

/* Appends to *ids the input indices of the triangles of a leaf whose bounds overlap [min, max];
 * false when out of memory. */
static bool leaf_query_box(const bvh *tree, bvh_child leaf, const float min[3], const float max[3], uint32_t **ids,
                           size_t *capacity, size_t *count)
{
    for (uint32_t k = 0; k < leaf.count; k++) {
        const bvh_quad *quad = &tree->quads[leaf.index + k / 4];
        uint32_t lane = k % 4;
        float tmin[3], tmax[3];
        for (int a = 0; a < 3; a++) {
            float v0 = quad->v0[a][lane], v1 = v0 + quad->e1[a][lane], v2 = v0 + quad->e2[a][lane];
            tmin[a] = min_float(v0, min_float(v1, v2));
            tmax[a] = max_float(v0, max_float(v1, v2));
        }
        if (!boxes_overlap(tmin, tmax, min, max))
            continue;
        if (!grow_array_budget((void **)ids, capacity, *count + 1, sizeof **ids))
            return false;
        (*ids)[(*count)++] = quad->ids[lane];
    }
    return true;
}

size_t bvh_query_box(const bvh *tree, const float min[3], const float max[3], uint32_t **ids, size_t *capacity,
                     size_t count)
{
    if (tree->node_count == 0 || !boxes_overlap(tree->nodes[0].min, tree->nodes[0].max, min, max))
        return count;
    bvh_child stack[BVH_STACK];
    int sp = 0;
    stack[sp++] = (bvh_child){ 0, tree->nodes[0].count };
    while (sp > 0) {
        bvh_child node = stack[--sp];
        if (node.count > 0) {
            if (!leaf_query_box(tree, node, min, max, ids, capacity, &count))
                return (size_t)-1;
            continue;
        }
        const bvh_pair *pair = &tree->pairs[node.index];
        for (int c = 1; c >= 0; c--) {      /* the first child ends on top: taken first */
            float cmin[3] = { pair->bounds[0][c], pair->bounds[1][c], pair->bounds[2][c] };
            float cmax[3] = { pair->bounds[0][2 + c], pair->bounds[1][2 + c], pair->bounds[2][2 + c] };
            if (boxes_overlap(cmin, cmax, min, max))
                stack[sp++] = (bvh_child){ pair->index[c], pair->count[c] };
        }
    }
    return count;
}
