/* bvh.c - binned-SAH BVH over triangles, any-hit segment queries (Moller-Trumbore) and box queries. */
#include "bvh.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BVH_BINS 16
#define BVH_LEAF_MAX 4          /* a larger range is always split when it can be */
#define BVH_MAX_DEPTH 100       /* deeper ranges become leaves, so query stacks cannot overflow */
#define BVH_STACK (BVH_MAX_DEPTH + 8)
#define BVH_TRAVERSAL_COST 1.0f /* relative to one triangle test */
/* Barycentric slack: a segment through an edge shared by two triangles hits at least one. */
#define BVH_EDGE_SLACK 1e-6f

typedef struct bvh_bin {
    float min[3], max[3];
    uint32_t count;
} bvh_bin;

typedef struct bvh_task {
    uint32_t node, first, count, depth;
} bvh_task;

static void bounds_reset(float min[3], float max[3])
{
    for (int a = 0; a < 3; a++) {
        min[a] = FLT_MAX;
        max[a] = -FLT_MAX;
    }
}

static void bounds_grow(float min[3], float max[3], const float p[3])
{
    for (int a = 0; a < 3; a++) {
        min[a] = fminf(min[a], p[a]);
        max[a] = fmaxf(max[a], p[a]);
    }
}

static void bounds_merge(float min[3], float max[3], const float omin[3], const float omax[3])
{
    for (int a = 0; a < 3; a++) {
        min[a] = fminf(min[a], omin[a]);
        max[a] = fmaxf(max[a], omax[a]);
    }
}

static float bounds_half_area(const float min[3], const float max[3])
{
    float dx = max[0] - min[0], dy = max[1] - min[1], dz = max[2] - min[2];
    if (dx < 0.0f || dy < 0.0f || dz < 0.0f)
        return 0.0f;
    return dx * dy + dy * dz + dz * dx;
}

static void triangle_bounds(const float t[9], float min[3], float max[3])
{
    for (int a = 0; a < 3; a++) {
        min[a] = fminf(t[a], fminf(t[3 + a], t[6 + a]));
        max[a] = fmaxf(t[a], fmaxf(t[3 + a], t[6 + a]));
    }
}

/* Best binned-SAH split of a range: returns false when no split separates anything. */
static bool find_split(const float (*triangles)[9], const float (*centroids)[3], const uint32_t *ids,
                       const bvh_task *task, const float cmin[3], const float cmax[3], int *best_axis,
                       float *best_pos, float *best_cost)
{
    bvh_bin bins[3][BVH_BINS];
    float scale[3];
    for (int a = 0; a < 3; a++) {
        float extent = cmax[a] - cmin[a];
        scale[a] = extent > 0.0f ? (float)BVH_BINS * 0.99999f / extent : 0.0f;
        for (int b = 0; b < BVH_BINS; b++) {
            bounds_reset(bins[a][b].min, bins[a][b].max);
            bins[a][b].count = 0;
        }
    }
    for (uint32_t i = task->first; i < task->first + task->count; i++) {
        uint32_t id = ids[i];
        float tmin[3], tmax[3];
        triangle_bounds(triangles[id], tmin, tmax);
        for (int a = 0; a < 3; a++) {
            float f = (centroids[id][a] - cmin[a]) * scale[a];
            int b = f > 0.0f ? (f < (float)(BVH_BINS - 1) ? (int)f : BVH_BINS - 1) : 0;   /* NaN -> 0 */
            bins[a][b].count++;
            bounds_merge(bins[a][b].min, bins[a][b].max, tmin, tmax);
        }
    }
    bool found = false;
    for (int a = 0; a < 3; a++) {
        if (scale[a] == 0.0f)
            continue;
        float right_area[BVH_BINS];
        uint32_t right_count[BVH_BINS];
        float rmin[3], rmax[3];
        bounds_reset(rmin, rmax);
        uint32_t n = 0;
        for (int b = BVH_BINS - 1; b > 0; b--) {
            bounds_merge(rmin, rmax, bins[a][b].min, bins[a][b].max);
            n += bins[a][b].count;
            right_area[b] = bounds_half_area(rmin, rmax);
            right_count[b] = n;
        }
        float lmin[3], lmax[3];
        bounds_reset(lmin, lmax);
        n = 0;
        for (int b = 0; b < BVH_BINS - 1; b++) {
            bounds_merge(lmin, lmax, bins[a][b].min, bins[a][b].max);
            n += bins[a][b].count;
            if (n == 0 || right_count[b + 1] == 0)
                continue;
            float cost = bounds_half_area(lmin, lmax) * (float)n + right_area[b + 1] * (float)right_count[b + 1];
            if (!found || cost < *best_cost) {
                found = true;
                *best_cost = cost;
                *best_axis = a;
                *best_pos = cmin[a] + (float)(b + 1) / scale[a];
            }
        }
    }
    return found;
}

static bool nodes_reserve(bvh *tree, size_t *capacity, size_t need)
{
    if (need <= *capacity)
        return true;
    size_t grown = *capacity * 2 > need ? *capacity * 2 : need;
    bvh_node *nodes = realloc(tree->nodes, grown * sizeof *nodes);
    if (!nodes)
        return false;
    tree->nodes = nodes;
    *capacity = grown;
    return true;
}

bool bvh_build(const float (*triangles)[9], size_t count, bvh *out)
{
    memset(out, 0, sizeof *out);
    if (count == 0 || count > UINT32_MAX / 2)
        return count == 0;
    float (*centroids)[3] = malloc(count * sizeof *centroids);
    uint32_t *ids = malloc(count * sizeof *ids);
    size_t capacity = count / 2 + 1;
    out->nodes = malloc(capacity * sizeof *out->nodes);
    if (!centroids || !ids || !out->nodes)
        goto oom;
    for (size_t i = 0; i < count; i++) {
        ids[i] = (uint32_t)i;
        for (int a = 0; a < 3; a++)
            centroids[i][a] = (triangles[i][a] + triangles[i][3 + a] + triangles[i][6 + a]) * (1.0f / 3.0f);
    }

    bvh_task stack[BVH_STACK];
    int sp = 0;
    stack[sp++] = (bvh_task){ 0, 0, (uint32_t)count, 0 };
    out->node_count = 1;
    while (sp > 0) {
        bvh_task task = stack[--sp];
        float nmin[3], nmax[3], cmin[3], cmax[3];
        bounds_reset(nmin, nmax);
        bounds_reset(cmin, cmax);
        for (uint32_t i = task.first; i < task.first + task.count; i++) {
            float tmin[3], tmax[3];
            triangle_bounds(triangles[ids[i]], tmin, tmax);
            bounds_merge(nmin, nmax, tmin, tmax);
            bounds_grow(cmin, cmax, centroids[ids[i]]);
        }
        bvh_node *node = &out->nodes[task.node];
        memcpy(node->min, nmin, sizeof nmin);
        memcpy(node->max, nmax, sizeof nmax);
        node->index = task.first;
        node->count = task.count;

        int axis = 0;
        float pos = 0.0f, cost = 0.0f;
        if (task.count <= 1 || task.depth >= BVH_MAX_DEPTH ||
            !find_split(triangles, (const float (*)[3])centroids, ids, &task, cmin, cmax, &axis, &pos, &cost))
            continue;
        float leaf_cost = bounds_half_area(nmin, nmax) * (float)task.count;
        if (task.count <= BVH_LEAF_MAX && leaf_cost <= cost + BVH_TRAVERSAL_COST * bounds_half_area(nmin, nmax))
            continue;

        uint32_t i = task.first, j = task.first + task.count;
        while (i < j) {
            if (centroids[ids[i]][axis] < pos) {
                i++;
            } else {
                uint32_t swap = ids[i];
                ids[i] = ids[--j];
                ids[j] = swap;
            }
        }
        uint32_t left = i - task.first;
        if (left == 0 || left == task.count)
            continue;
        if (!nodes_reserve(out, &capacity, out->node_count + 2))
            goto oom;
        uint32_t child = (uint32_t)out->node_count;
        out->node_count += 2;
        out->nodes[task.node].index = child;
        out->nodes[task.node].count = 0;
        stack[sp++] = (bvh_task){ child + 1, i, task.count - left, task.depth + 1 };
        stack[sp++] = (bvh_task){ child, task.first, left, task.depth + 1 };
    }
    free(centroids);
    centroids = NULL;

    out->triangles = malloc(count * sizeof *out->triangles);
    if (!out->triangles)
        goto oom;
    for (size_t i = 0; i < count; i++) {
        const float *t = triangles[ids[i]];
        float *o = out->triangles[i];
        for (int a = 0; a < 3; a++) {
            o[a] = t[a];
            o[3 + a] = t[3 + a] - t[a];
            o[6 + a] = t[6 + a] - t[a];
        }
    }
    out->triangle_ids = ids;
    out->triangle_count = count;
    return true;

oom:
    free(centroids);
    free(ids);
    bvh_free(out);
    return false;
}

void bvh_free(bvh *tree)
{
    free(tree->nodes);
    free(tree->triangles);
    free(tree->triangle_ids);
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
        far += fabsf(far) * 4e-7f;
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

static inline bool triangle_hit(const float t[9], const float o[3], const float d[3], float s_min, float s_max)
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
    return s > s_min && s < s_max;
}

bool bvh_segment_occluded(const bvh *tree, const float from[3], const float to[3], float s_min, float s_max,
                          uint32_t *hit)
{
    if (tree->node_count == 0 || !(s_min < s_max))
        return false;
    float d[3], inv[3];
    for (int a = 0; a < 3; a++) {
        d[a] = to[a] - from[a];
        /* A zero component must not give 0 * inf = NaN in the slab test. */
        float safe = fabsf(d[a]) > 1e-30f ? d[a] : copysignf(1e-30f, d[a]);
        inv[a] = 1.0f / safe;
    }
    uint32_t stack[BVH_STACK];
    int sp = 0;
    float enter;
    uint32_t node = 0;
    if (!node_hit(&tree->nodes[0], from, inv, s_min, s_max, &enter))
        return false;
    for (;;) {
        const bvh_node *n = &tree->nodes[node];
        if (n->count > 0) {
            for (uint32_t i = n->index; i < n->index + n->count; i++) {
                if (triangle_hit(tree->triangles[i], from, d, s_min, s_max)) {
                    if (hit)
                        *hit = tree->triangle_ids[i];
                    return true;
                }
            }
            if (sp == 0)
                return false;
            node = stack[--sp];
            continue;
        }
        float e0, e1;
        bool h0 = node_hit(&tree->nodes[n->index], from, inv, s_min, s_max, &e0);
        bool h1 = node_hit(&tree->nodes[n->index + 1], from, inv, s_min, s_max, &e1);
        if (h0 && h1) {
            bool first_near = e0 <= e1;
            stack[sp++] = first_near ? n->index + 1 : n->index;
            node = first_near ? n->index : n->index + 1;
        } else if (h0 || h1) {
            node = h0 ? n->index : n->index + 1;
        } else {
            if (sp == 0)
                return false;
            node = stack[--sp];
        }
    }
}

static bool boxes_overlap(const float amin[3], const float amax[3], const float bmin[3], const float bmax[3])
{
    return amin[0] <= bmax[0] && amax[0] >= bmin[0] && amin[1] <= bmax[1] && amax[1] >= bmin[1] &&
           amin[2] <= bmax[2] && amax[2] >= bmin[2];
}

size_t bvh_query_box(const bvh *tree, const float min[3], const float max[3], uint32_t **ids, size_t *capacity,
                     size_t count)
{
    if (tree->node_count == 0)
        return count;
    uint32_t stack[BVH_STACK];
    int sp = 0;
    stack[sp++] = 0;
    while (sp > 0) {
        const bvh_node *n = &tree->nodes[stack[--sp]];
        if (!boxes_overlap(n->min, n->max, min, max))
            continue;
        if (n->count == 0) {
            stack[sp++] = n->index + 1;
            stack[sp++] = n->index;
            continue;
        }
        for (uint32_t i = n->index; i < n->index + n->count; i++) {
            const float *t = tree->triangles[i];
            float tmin[3], tmax[3];
            for (int a = 0; a < 3; a++) {
                float v1 = t[a] + t[3 + a], v2 = t[a] + t[6 + a];
                tmin[a] = fminf(t[a], fminf(v1, v2));
                tmax[a] = fmaxf(t[a], fmaxf(v1, v2));
            }
            if (!boxes_overlap(tmin, tmax, min, max))
                continue;
            if (count == *capacity) {
                size_t grown = *capacity ? *capacity * 2 : 64;
                uint32_t *more = realloc(*ids, grown * sizeof *more);
                if (!more)
                    return (size_t)-1;
                *ids = more;
                *capacity = grown;
            }
            (*ids)[count++] = tree->triangle_ids[i];
        }
    }
    return count;
}
