/* bvh.h - bounding volume hierarchy over world triangles for the baker's shadow and visibility
 * rays (and the viewer's light tools' shadows): binned-SAH build, any-hit segment queries and box queries. */
#ifndef RAYTRACE_BVH_H
#define RAYTRACE_BVH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bvh_node {
    float min[3];
    uint32_t index;     /* interior: first of two adjacent children; leaf: first triangle */
    float max[3];
    uint32_t count;     /* 0 = interior, else the leaf's triangle count */
} bvh_node;

typedef struct bvh {
    bvh_node *nodes;
    size_t node_count;
    struct bvh_pair *pairs;     /* the nodes again as sibling pairs, one cache line each: what rays walk */
    void *pair_block;           /* the allocation holding them */
    struct bvh_quad *quads;     /* the leaves' triangles four by four: what rays test */
    void *quad_block;
    uint32_t *triangle_ids;     /* leaf order -> index in the input array */
    size_t triangle_count;
} bvh;

/* Builds over `count` triangles (x0 y0 z0 x1 ... z2) on `threads` threads (0 = every core; the
 * tree is the same for any number). False only when out of memory. An empty input builds a tree
 * nothing hits. */
bool bvh_build(const float (*triangles)[9], size_t count, int threads, bvh *out);
void bvh_free(bvh *tree);

/* True when the points from + s (to - from), s_min < s < s_max, touch a triangle. Edges shared by
 * two triangles count as hits (no leaks along seams). When `hit` is non-NULL it receives the
 * input index of one triangle hit (the same one for the same tree and query). */
bool bvh_segment_occluded(const bvh *tree, const float from[3], const float to[3], float s_min, float s_max,
                          uint32_t *hit);

/* The nearest s in (s_min, s_max) where from + s (to - from) touches a triangle, into *s_hit;
 * false when the segment touches none. */
bool bvh_segment_nearest(const bvh *tree, const float from[3], const float to[3], float s_min, float s_max, float *s_hit);
/* The same, also giving the input index of the nearest triangle touched into *hit (when non-NULL). */
bool bvh_segment_nearest_triangle(const bvh *tree, const float from[3], const float to[3], float s_min, float s_max,
                                  float *s_hit, uint32_t *hit);

/* The same test against one triangle (x0 y0 z0 x1 ... z2), e.g. the last one that blocked a
 * similar segment. */
bool bvh_triangle_blocks(const float triangle[9], const float from[3], const float to[3], float s_min, float s_max);
/* The same, also giving where into *s_hit. */
bool bvh_triangle_hit_at(const float triangle[9], const float from[3], const float to[3], float s_min, float s_max,
                         float *s_hit);

/* Appends to *ids (growing *ids / *capacity with realloc) the input indices of every triangle whose
 * bounding box overlaps [min, max]; returns the new count, or (size_t)-1 when out of memory. */
size_t bvh_query_box(const bvh *tree, const float min[3], const float max[3], uint32_t **ids, size_t *capacity,
                     size_t count);

#endif
