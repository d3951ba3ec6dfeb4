/* bake_scene.h - scenes built in code for the baker's tests: triangle soups of quads and boxes,
 * a deterministic random source, and a check macro. */
#ifndef BAKE_SCENE_H
#define BAKE_SCENE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/check.h"


typedef struct scene {
    float (*tris)[9];
    size_t count, capacity;
} scene;

static inline void scene_triangle(scene *s, const float a[3], const float b[3], const float c[3])
{
    if (s->count == s->capacity) {
        s->capacity = s->capacity ? s->capacity * 2 : 64;
        s->tris = realloc(s->tris, s->capacity * sizeof *s->tris);
        CHECK(s->tris != NULL);
    }
    float *t = s->tris[s->count++];
    memcpy(t, a, 3 * sizeof(float));
    memcpy(t + 3, b, 3 * sizeof(float));
    memcpy(t + 6, c, 3 * sizeof(float));
}

/* Quad a b c d as triangles (a b c) and (a c d), like PMF draws its quads. */
static inline void scene_quad(scene *s, const float a[3], const float b[3], const float c[3], const float d[3])
{
    scene_triangle(s, a, b, c);
    scene_triangle(s, a, c, d);
}

/* The six faces of an axis-aligned box, each split into n x n quads (shared edges everywhere). */
static inline void scene_box_split(scene *s, const float min[3], const float max[3], int n)
{
    for (int axis = 0; axis < 3; axis++) {
        int u = (axis + 1) % 3, v = (axis + 2) % 3;
        for (int side = 0; side < 2; side++)
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    float q[4][3];
                    for (int k = 0; k < 4; k++) {
                        int di = (k == 1 || k == 2), dj = (k >= 2);
                        q[k][axis] = side ? max[axis] : min[axis];
                        q[k][u] = min[u] + (max[u] - min[u]) * (float)(i + di) / (float)n;
                        q[k][v] = min[v] + (max[v] - min[v]) * (float)(j + dj) / (float)n;
                    }
                    scene_quad(s, q[0], q[1], q[2], q[3]);
                }
    }
}

static inline void scene_box(scene *s, const float min[3], const float max[3])
{
    scene_box_split(s, min, max, 1);
}

static inline void scene_free(scene *s)
{
    free(s->tris);
    memset(s, 0, sizeof *s);
}

static inline uint64_t rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi). */
static inline float rng_range(uint64_t *state, float lo, float hi)
{
    return lo + (hi - lo) * (float)(rng_next(state) >> 40) * (1.0f / 16777216.0f);
}

#endif
