/* BVH any-hit queries against a brute-force test over every triangle; seams do not leak; the
 * paired walk answers as a walk over single nodes does. */
#include "soup.h"
#include "bvh.h"

#include <math.h>

/* Exact-ish segment/triangle test in double; *margin gets how far the answer is from flipping
 * (distance of the crossing to an edge, in barycentric units, or to either end of the segment). */
static int brute_hit(const float t[9], const float p[3], const float q[3], double s_min, double s_max,
                     double *margin)
{
    double e1[3], e2[3], d[3], o[3], pv[3], qv[3];
    for (int a = 0; a < 3; a++) {
        e1[a] = (double)t[3 + a] - t[a];
        e2[a] = (double)t[6 + a] - t[a];
        d[a] = (double)q[a] - p[a];
        o[a] = (double)p[a] - t[a];
    }
    pv[0] = d[1] * e2[2] - d[2] * e2[1];
    pv[1] = d[2] * e2[0] - d[0] * e2[2];
    pv[2] = d[0] * e2[1] - d[1] * e2[0];
    double det = e1[0] * pv[0] + e1[1] * pv[1] + e1[2] * pv[2];
    *margin = INFINITY;
    if (fabs(det) < 1e-12) {
        *margin = 0.0;   /* parallel: either answer is acceptable */
        return 0;
    }
    double u = (o[0] * pv[0] + o[1] * pv[1] + o[2] * pv[2]) / det;
    qv[0] = o[1] * e1[2] - o[2] * e1[1];
    qv[1] = o[2] * e1[0] - o[0] * e1[2];
    qv[2] = o[0] * e1[1] - o[1] * e1[0];
    double v = (d[0] * qv[0] + d[1] * qv[1] + d[2] * qv[2]) / det;
    double s = (e2[0] * qv[0] + e2[1] * qv[1] + e2[2] * qv[2]) / det;
    /* Each of these must be >= 0 for a hit. A hit flips when the smallest one crosses 0, a miss
     * only when every negative one does. */
    double conditions[5] = { u, v, 1.0 - u - v, s - s_min, s_max - s };
    double smallest = INFINITY, worst = 0.0;
    for (int i = 0; i < 5; i++) {
        smallest = fmin(smallest, conditions[i]);
        worst = fmax(worst, -conditions[i]);
    }
    *margin = smallest >= 0.0 ? smallest : worst;
    return smallest >= 0.0;
}

static void random_soup_agrees(void)
{
    uint64_t rng = 42;
    soup s = { 0 };
    for (int i = 0; i < 3000; i++) {
        float c[3] = { rng_range(&rng, -20, 20), rng_range(&rng, -20, 20), rng_range(&rng, -20, 20) };
        float v[3][3];
        for (int k = 0; k < 3; k++)
            for (int a = 0; a < 3; a++)
                v[k][a] = c[a] + rng_range(&rng, -2, 2);
        soup_triangle(&s, v[0], v[1], v[2]);
    }
    /* Axis-aligned boxes too: their triangles are flat along an axis (zero-thickness boxes). */
    for (int i = 0; i < 40; i++) {
        float min[3], max[3];
        for (int a = 0; a < 3; a++) {
            min[a] = rng_range(&rng, -20, 18);
            max[a] = min[a] + rng_range(&rng, 0.1f, 4);
        }
        soup_box(&s, min, max);
    }
    bvh tree;
    CHECK(bvh_build((const float (*)[9])s.tris, s.count, 2, &tree));
    CHECK(tree.triangle_count == s.count);
    int hits = 0, checked = 0;
    for (int i = 0; i < 4000; i++) {
        float p[3], q[3];
        for (int a = 0; a < 3; a++) {
            p[a] = rng_range(&rng, -25, 25);
            q[a] = rng_range(&rng, -25, 25);
        }
        float s_min = i % 3 == 0 ? 0.2f : 0.0f, s_max = i % 5 == 0 ? 0.7f : 1.0f;
        uint32_t hit_id = UINT32_MAX;
        int got = bvh_segment_occluded(&tree, p, q, s_min, s_max, &hit_id);
        int want = 0;
        double closest = INFINITY;
        for (size_t t = 0; t < s.count; t++) {
            double margin;
            want |= brute_hit(s.tris[t], p, q, s_min, s_max, &margin);
            closest = fmin(closest, margin);
        }
        if (got) {
            CHECK(hit_id < s.count);
            double margin;
            /* The reported triangle really is hit (or so close that rounding decides). */
            CHECK(brute_hit(s.tris[hit_id], p, q, s_min, s_max, &margin) || margin < 1e-4);
        }
        if (closest < 1e-4)
            continue;   /* within rounding of an edge or an end: either answer is right */
        CHECK(got == want);
        checked++;
        hits += want;
    }
    printf("bvh: %zu triangles, %zu nodes, %d segments checked, %d hit\n", s.count, tree.node_count, checked, hits);
    CHECK(checked > 3000 && hits > 500 && hits < checked - 500);

    /* A box query returns exactly the triangles whose bounds overlap. */
    uint32_t *ids = NULL;
    size_t capacity = 0;
    float qmin[3] = { -5, -5, -5 }, qmax[3] = { 3, 4, 5 };
    size_t found = bvh_query_box(&tree, qmin, qmax, &ids, &capacity, 0);
    size_t want_found = 0;
    for (size_t t = 0; t < s.count; t++) {
        int overlap = 1;
        for (int a = 0; a < 3; a++) {
            float lo = fminf(s.tris[t][a], fminf(s.tris[t][3 + a], s.tris[t][6 + a]));
            float hi = fmaxf(s.tris[t][a], fmaxf(s.tris[t][3 + a], s.tris[t][6 + a]));
            overlap &= lo <= qmax[a] && hi >= qmin[a];
        }
        want_found += overlap;
    }
    CHECK(found == want_found && found > 0);
    free(ids);
    bvh_free(&tree);
    soup_free(&s);
}

/* Segments leaving a closed box made of many quads always hit it, even through shared edges and
 * corners (segments aimed exactly at grid vertices). */
static void closed_mesh_is_watertight(void)
{
    soup s = { 0 };
    float min[3] = { -1, -1, -1 }, max[3] = { 1, 1, 1 };
    soup_box_split(&s, min, max, 8);
    bvh tree;
    CHECK(bvh_build((const float (*)[9])s.tris, s.count, 2, &tree));
    uint64_t rng = 7;
    for (int i = 0; i < 3000; i++) {
        float p[3], q[3];
        for (int a = 0; a < 3; a++)
            p[a] = rng_range(&rng, -0.9f, 0.9f);
        if (i % 2 == 0) {
            /* At a vertex of the quad grid on a random face, then far beyond it. */
            int axis = i / 2 % 3, u = (axis + 1) % 3, v = (axis + 2) % 3;
            float target[3];
            target[axis] = (i / 6) % 2 ? 1.0f : -1.0f;
            target[u] = -1.0f + 0.25f * (float)(rng_next(&rng) % 9);
            target[v] = -1.0f + 0.25f * (float)(rng_next(&rng) % 9);
            for (int a = 0; a < 3; a++)
                q[a] = p[a] + (target[a] - p[a]) * 3.0f;
        } else {
            for (int a = 0; a < 3; a++)
                q[a] = rng_range(&rng, -1, 1) * 10.0f;
            q[i % 3] = q[i % 3] < 0 ? -10.0f : 10.0f;
        }
        CHECK(bvh_segment_occluded(&tree, p, q, 0.0f, 1.0f, NULL));
    }
    /* And segments that stay inside hit nothing. */
    for (int i = 0; i < 1000; i++) {
        float p[3], q[3];
        for (int a = 0; a < 3; a++) {
            p[a] = rng_range(&rng, -0.9f, 0.9f);
            q[a] = rng_range(&rng, -0.9f, 0.9f);
        }
        CHECK(!bvh_segment_occluded(&tree, p, q, 0.0f, 1.0f, NULL));
    }
    bvh_free(&tree);
    soup_free(&s);
}

/* Enough triangles for the parallel build: the same tree on 1 and 2 threads, still exact. */
static void parallel_build_is_identical(void)
{
    uint64_t rng = 99;
    soup s = { 0 };
    for (int i = 0; i < 70000; i++) {
        float c[3] = { rng_range(&rng, -50, 50), rng_range(&rng, -50, 50), rng_range(&rng, -50, 50) };
        float v[3][3];
        for (int k = 0; k < 3; k++)
            for (int a = 0; a < 3; a++)
                v[k][a] = c[a] + rng_range(&rng, -1, 1);
        soup_triangle(&s, v[0], v[1], v[2]);
    }
    bvh one, two;
    CHECK(bvh_build((const float (*)[9])s.tris, s.count, 1, &one));
    CHECK(bvh_build((const float (*)[9])s.tris, s.count, 2, &two));
    CHECK(one.node_count == two.node_count && one.triangle_count == s.count);
    CHECK(memcmp(one.nodes, two.nodes, one.node_count * sizeof *one.nodes) == 0);
    CHECK(memcmp(one.triangle_ids, two.triangle_ids, s.count * sizeof *one.triangle_ids) == 0);
    /* Every triangle is in exactly one leaf, inside its node's bounds. */
    uint8_t *seen = calloc(s.count, 1);
    CHECK(seen != NULL);
    for (size_t n = 0; n < one.node_count; n++) {
        const bvh_node *node = &one.nodes[n];
        if (node->count == 0) {
            CHECK(node->index + 1 < one.node_count && node->index > n);
            continue;
        }
        for (uint32_t i = node->index; i < node->index + node->count; i++) {
            uint32_t id = one.triangle_ids[i];
            CHECK(!seen[id]);
            seen[id] = 1;
            for (int k = 0; k < 9; k++)
                CHECK(s.tris[id][k] >= node->min[k % 3] && s.tris[id][k] <= node->max[k % 3]);
        }
    }
    for (size_t i = 0; i < s.count; i++)
        CHECK(seen[i]);
    free(seen);
    int checked = 0;
    for (int i = 0; i < 100; i++) {
        float p[3], q[3];
        for (int a = 0; a < 3; a++) {
            p[a] = rng_range(&rng, -55, 55);
            q[a] = p[a] + rng_range(&rng, -10, 10);
        }
        int want = 0;
        double closest = INFINITY;
        for (size_t t = 0; t < s.count; t++) {
            double margin;
            want |= brute_hit(s.tris[t], p, q, 0.0, 1.0, &margin);
            closest = fmin(closest, margin);
        }
        if (closest < 1e-4)
            continue;
        CHECK(bvh_segment_occluded(&two, p, q, 0.0f, 1.0f, NULL) == want);
        checked++;
    }
    CHECK(checked > 80);
    bvh_free(&one);
    bvh_free(&two);
    soup_free(&s);
}

/* The slab test and walks as they were over bvh.nodes, one box at a time: the reference the
 * paired walk (bvh.pairs) must match bit for bit. */
static bool reference_box(const bvh_node *n, const float o[3], const float inv[3], float s_min, float s_max,
                          float *enter)
{
    float t0 = s_min, t1 = s_max;
    for (int a = 0; a < 3; a++) {
        float near = (n->min[a] - o[a]) * inv[a], far = (n->max[a] - o[a]) * inv[a];
        if (near > far) {
            float swap = near;
            near = far;
            far = swap;
        }
        t0 = near > t0 ? near : t0;
        far += fabsf(far) * 4e-7f;
        t1 = far < t1 ? far : t1;
    }
    *enter = t0;
    return t0 <= t1;
}

/* The nearest hit by visiting every node whose box the segment touches, nearest first, with
 * bvh_triangle_hit_at on the input triangles: (s, id) or false. */
static bool reference_nearest(const bvh *tree, const float (*tris)[9], const float p[3], const float q[3],
                              float *s_hit, uint32_t *id)
{
    float inv[3], s_max = 1.0f;
    for (int a = 0; a < 3; a++) {
        float d = q[a] - p[a];
        inv[a] = 1.0f / (fabsf(d) > 1e-30f ? d : copysignf(1e-30f, d));
    }
    uint32_t stack[256];
    int sp = 0;
    bool found = false;
    stack[sp++] = 0;
    while (sp > 0) {
        const bvh_node *n = &tree->nodes[stack[--sp]];
        float enter;
        if (!reference_box(n, p, inv, 0.0f, s_max, &enter) || enter >= s_max)
            continue;
        if (n->count == 0) {
            float e0, e1;
            bool h0 = reference_box(&tree->nodes[n->index], p, inv, 0.0f, s_max, &e0);
            bool h1 = reference_box(&tree->nodes[n->index + 1], p, inv, 0.0f, s_max, &e1);
            bool first_near = !(h0 && h1) || e0 <= e1;
            stack[sp++] = first_near ? n->index + 1 : n->index;
            stack[sp++] = first_near ? n->index : n->index + 1;
            continue;
        }
        for (uint32_t i = n->index; i < n->index + n->count; i++) {
            float s;
            if (bvh_triangle_hit_at(tris[tree->triangle_ids[i]], p, q, 0.0f, s_max, &s)) {
                s_max = s;
                *id = tree->triangle_ids[i];
                found = true;
            }
        }
    }
    *s_hit = s_max;
    return found;
}

/* The paired walk answers as the node walk does, to the bit: the nearest hit's s and triangle, and
 * whether anything blocks, also for segments along an axis (zero direction components) and both
 * ways along it. */
static void pair_walk_matches_node_walk(void)
{
    uint64_t rng = 5;
    soup s = { 0 };
    for (int i = 0; i < 300; i++) {
        float min[3], max[3];
        for (int a = 0; a < 3; a++) {
            min[a] = rng_range(&rng, -20, 18);
            max[a] = min[a] + rng_range(&rng, 0.1f, 4);
        }
        soup_box_split(&s, min, max, 2);
    }
    bvh tree;
    CHECK(bvh_build((const float (*)[9])s.tris, s.count, 2, &tree));
    int hits = 0;
    for (int i = 0; i < 3000; i++) {
        float p[3], q[3];
        for (int a = 0; a < 3; a++) {
            p[a] = rng_range(&rng, -22, 22);
            q[a] = p[a] + rng_range(&rng, -12, 12);
        }
        if (i % 3 == 0)
            q[i % 2] = p[i % 2];    /* along a plane of the axes: a zero component */
        if (i % 9 == 0)
            q[2] = p[2];
        if (i % 4 == 1) {
            /* through a corner of a triangle, on its box's faces: where the widening counts */
            const float *corner = &s.tris[rng_next(&rng) % s.count][3 * (i % 3)];
            for (int a = 0; a < 3; a++)
                q[a] = p[a] + 2.0f * (corner[a] - p[a]);
        }
        float s_want = 0.0f, s_got = 0.0f;
        uint32_t want_id = UINT32_MAX, got_id = UINT32_MAX;
        bool want = reference_nearest(&tree, (const float (*)[9])s.tris, p, q, &s_want, &want_id);
        bool got = bvh_segment_nearest_triangle(&tree, p, q, 0.0f, 1.0f, &s_got, &got_id);
        CHECK(got == want);
        CHECK(!want || (memcmp(&s_got, &s_want, sizeof s_got) == 0 && got_id == want_id));
        CHECK(bvh_segment_occluded(&tree, p, q, 0.0f, 1.0f, NULL) == want);
        hits += want;
    }
    printf("pair walk: %zu triangles, 3000 segments, %d hit\n", s.count, hits);
    CHECK(hits > 500 && hits < 2500);
    bvh_free(&tree);
    soup_free(&s);
}

static void empty_tree_hits_nothing(void)
{
    bvh tree;
    CHECK(bvh_build(NULL, 0, 2, &tree));
    float p[3] = { 0, 0, 0 }, q[3] = { 1, 1, 1 };
    CHECK(!bvh_segment_occluded(&tree, p, q, 0.0f, 1.0f, NULL));
    bvh_free(&tree);
}

int main(void)
{
    random_soup_agrees();
    closed_mesh_is_watertight();
    parallel_build_is_identical();
    pair_walk_matches_node_walk();
    empty_tree_hits_nothing();
    puts("test_bake_bvh: ok");
    TEST_DONE();
}
