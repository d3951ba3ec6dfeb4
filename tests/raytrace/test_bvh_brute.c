/* The BVH's segment queries against a loop over every triangle with the one-triangle test
 * (bvh_triangle_hit_at, whose arithmetic the tree's four-wide leaves repeat lane by lane): the same
 * nearest s to the bit and a triangle met there, the same "occluded" and a triangle that blocks.
 * The soup has shared edges and coplanar faces, stacks of triangles with one centre (leaves of
 * more than four, several quads each), and segments along the axes and within part of their
 * length. */
#include "soup.h"
#include "bvh.h"

#include <math.h>

enum { STACKS = 12, STACK_SIZE = 9, SEGMENTS = 6000 };

/* STACK_SIZE different triangles in the square [x, x + 2] x [y, y + 2] at height z, each spanning
 * the whole square: one centre, so the build cannot split them. */
static void stack_square(soup *s, float x, float y, float z)
{
    static const float third[STACK_SIZE][2] = {
        { 0, 2 }, { 2, 2 }, { 0, 0.5f }, { 2, 1.5f }, { 0.7f, 2 }, { 1.3f, 0 }, { 0, 1 }, { 2, 1 }, { 0.1f, 2 },
    };
    for (int k = 0; k < STACK_SIZE; k++) {
        bool flip = k % 2;
        float a[3] = { x, flip ? y + 2 : y, z }, b[3] = { x + 2, flip ? y : y + 2, z };
        float c[3] = { x + third[k][0], y + third[k][1], z };
        soup_triangle(s, a, b, c);
    }
}

static void build_soup(soup *s, uint64_t *rng, float square_at[STACKS][3])
{
    for (int i = 0; i < 150; i++) {
        float min[3], max[3];
        for (int a = 0; a < 3; a++) {
            min[a] = rng_range(rng, -20, 18);
            max[a] = min[a] + rng_range(rng, 0.1f, 4);
        }
        soup_box_split(s, min, max, 2);
    }
    for (int i = 0; i < 300; i++) {
        float c[3] = { rng_range(rng, -20, 20), rng_range(rng, -20, 20), rng_range(rng, -20, 20) };
        float v[3][3];
        for (int k = 0; k < 3; k++)
            for (int a = 0; a < 3; a++)
                v[k][a] = c[a] + rng_range(rng, -2, 2);
        soup_triangle(s, v[0], v[1], v[2]);
    }
    for (int i = 0; i < STACKS; i++) {
        for (int a = 0; a < 3; a++)
            square_at[i][a] = rng_range(rng, -18, 16);
        stack_square(s, square_at[i][0], square_at[i][1], square_at[i][2]);
    }
}

/* A random segment: across the soup, along the axes (zero components) now and then, or down
 * through one of the stacked squares. */
static void random_segment(uint64_t *rng, int i, float square_at[STACKS][3], float p[3], float q[3])
{
    for (int a = 0; a < 3; a++) {
        p[a] = rng_range(rng, -22, 22);
        q[a] = p[a] + rng_range(rng, -16, 16);
    }
    if (i % 3 == 0)
        q[i % 2] = p[i % 2];
    if (i % 7 == 0)
        q[2] = p[2];
    if (i % 4 == 1) {
        const float *at = square_at[rng_next(rng) % STACKS];
        p[0] = q[0] = at[0] + rng_range(rng, 0.0f, 2.0f);
        p[1] = q[1] = at[1] + rng_range(rng, 0.0f, 2.0f);
        p[2] = at[2] + (i % 8 == 1 ? 3.0f : -3.0f);
        q[2] = 2.0f * at[2] - p[2];
    }
}

/* The nearest crossing over every triangle in input order: (s, found). */
static bool brute_nearest(const soup *s, const float p[3], const float q[3], float s_min, float s_max, float *s_hit)
{
    bool found = false;
    for (size_t t = 0; t < s->count; t++) {
        float at;
        if (bvh_triangle_hit_at(s->tris[t], p, q, s_min, s_max, &at)) {
            s_max = at;
            found = true;
        }
    }
    *s_hit = s_max;
    return found;
}

/* Whether triangle id, met at s_hit, comes first in the tree's leaf order among the triangles of its
 * stack met there too (a stack is one leaf: the nearest of equal crossings is the first tested). */
static bool first_of_equals(const bvh *tree, const soup *s, size_t first_stacked, uint32_t id, const float p[3],
                            const float q[3], float s_hit)
{
    size_t stack_first = first_stacked + (id - first_stacked) / STACK_SIZE * STACK_SIZE, order = 0;
    while (tree->triangle_ids[order] != id)
        order++;
    for (size_t i = 0; i < order; i++) {
        float at;
        uint32_t other = tree->triangle_ids[i];
        if (other >= stack_first && other < stack_first + STACK_SIZE &&
            bvh_triangle_hit_at(s->tris[other], p, q, 0.0f, 1.0f, &at) && at == s_hit)
            return false;
    }
    return true;
}

static size_t largest_leaf(const bvh *tree)
{
    size_t largest = 0;
    for (size_t i = 0; i < tree->node_count; i++)
        largest = tree->nodes[i].count > largest ? tree->nodes[i].count : largest;
    return largest;
}

static void queries_match_brute_force(void)
{
    uint64_t rng = 39;
    soup s = { 0 };
    float square_at[STACKS][3];
    build_soup(&s, &rng, square_at);
    bvh tree;
    CHECK(bvh_build((const float (*)[9])s.tris, s.count, 2, &tree));
    CHECK(largest_leaf(&tree) >= STACK_SIZE, "largest leaf %zu", largest_leaf(&tree));
    size_t first_stacked = s.count - STACKS * STACK_SIZE;
    int hits = 0, stacked = 0;
    for (int i = 0; i < SEGMENTS; i++) {
        float p[3], q[3];
        random_segment(&rng, i, square_at, p, q);
        float s_min = i % 3 == 2 ? 0.2f : 0.0f, s_max = i % 5 == 0 ? 0.7f : 1.0f;
        float s_want = 0.0f, s_got = 0.0f, s_id = 0.0f;
        uint32_t id = UINT32_MAX, blocker = UINT32_MAX;
        bool want = brute_nearest(&s, p, q, s_min, s_max, &s_want);
        bool got = bvh_segment_nearest_triangle(&tree, p, q, s_min, s_max, &s_got, &id);
        CHECK(got == want, "segment %d: nearest %d, brute force %d", i, got, want);
        if (got && want) {
            CHECK(memcmp(&s_got, &s_want, sizeof s_got) == 0, "segment %d: s %.9g, brute force %.9g", i, s_got, s_want);
            CHECK(id < s.count && bvh_triangle_hit_at(s.tris[id], p, q, s_min, s_max, &s_id) && s_id == s_got,
                  "segment %d: triangle %u not met at %.9g", i, id, s_got);
            if (id >= first_stacked && id < s.count) {
                CHECK(first_of_equals(&tree, &s, first_stacked, id, p, q, s_got), "segment %d: triangle %u", i, id);
                stacked++;
            }
        }
        bool occluded = bvh_segment_occluded(&tree, p, q, s_min, s_max, &blocker);
        CHECK(occluded == want, "segment %d: occluded %d, brute force %d", i, occluded, want);
        if (occluded)
            CHECK(blocker < s.count && bvh_triangle_blocks(s.tris[blocker], p, q, s_min, s_max),
                  "segment %d: triangle %u does not block", i, blocker);
        hits += want;
    }
    printf("bvh brute force: %zu triangles, largest leaf %zu, %d segments, %d hit, %d on a stack\n", s.count,
           largest_leaf(&tree), SEGMENTS, hits, stacked);
    CHECK(hits > SEGMENTS / 4 && hits < SEGMENTS - SEGMENTS / 8 && stacked > SEGMENTS / 10);
    bvh_free(&tree);
    soup_free(&s);
}

int main(void)
{
    queries_match_brute_force();
    puts("test_bvh_brute: ok");
    TEST_DONE();
}
