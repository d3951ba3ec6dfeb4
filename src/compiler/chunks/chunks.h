/* chunks.h - a level on the chunk grid (level.c), each chunk's octree (octree.c) and its
 * watertight leaf polygons (seal.c). */
#ifndef PMFC_CHUNKS_H
#define PMFC_CHUNKS_H

#include "common/level_build.h"

/* The most lightmap luxels pmfc bakes in one level (its solids' box surfaces x luxels^2, estimated
 * before anything is built): pmfc bakes ~1 M luxels in seconds and 8 M took minutes and 2.4 GB,
 * so more is refused rather than run for hours. */
#define PMFC_MAX_LEVEL_LUXELS (16.0 * 1024 * 1024)
typedef struct level_cost { double luxels; size_t largest; double largest_luxels; } level_cost;
level_cost level_lightmap_cost(const level_def *l);
/* Coarser luxels for the largest brushes (their spacing doubled, largest first, until the level's
 * estimate is within limit): how many faces got coarser and the coarsest spacing, in times the
 * level's (faces 0: it fitted as it was). */
typedef struct level_fit { size_t faces; double coarsest; } level_fit;
level_fit level_fit_luxels(level_def *l, double limit);

/* Picks the chunk size and grid, and the centre chunk. Returns an error message or NULL. */
const char *level_layout(level_build *lb);
/* When a level kept no geometry (built_vertices 0) of a source that had faces: the line saying
 * where they went (its face_tally), and true; false when there is nothing wrong. */
bool level_emptiness(const level_def *l, uint64_t built_vertices, char *msg, size_t size);
/* Makes the chunks of the window: columns [x0, x0 + nx) x [z0, z0 + nz) of the grid and `margin`
 * more on each side (within the grid), the margin's chunks flagged. */
void level_window(level_build *lb, uint32_t x0, uint32_t z0, uint32_t nx, uint32_t nz, uint32_t margin);
/* The occluders of the built faces: every opaque face, fan-triangulated, less `origin` (free the
 * result); the faces only the void sees come last (void_faces). When `faces` is non-NULL, *faces
 * receives each triangle's index in lb->faces (face_count + k for void face k: no surface) (free
 * it too). With `shadows` (the baker's), a shadowless brush's faces are left out: they block no light. */
float (*level_occluders(const level_build *lb, v3 origin, bool shadows, size_t *count, uint32_t **faces))[9];
/* The faces -> chunks (after level_faces). */
void level_clip_to_chunks(level_build *lb);
/* Per chunk: the octree's cubes and leaf polygons (octree.c); margin chunks too, as their
 * neighbours seal against them. */
void chunk_octree(const level_build *lb, chunk_build *cb);
/* Whether a fast light's sphere reaches the polygon's bounds: its chunk face is then cut into cells
 * in small cubes. The one thing of the fast lights the octree reads (a relight builds again the
 * kept level's chunks where it changed: relight_build.c). */
bool reaches_fast_light(const level_def *def, const v3 *p, int n);
/* Per chunk outside the margin, once every chunk of the window has its leaves: seals the leaf
 * polygons against the chunk's and its neighbours' (seal.c) and writes the vertices. */
void chunk_octree_emit(const level_build *lb, chunk_build *cb);
/* Margin chunks, after the emission: forget their lightmaps and cubes (another window builds them). */
void chunk_octree_discard(chunk_build *cb);
/* Seals a chunk's leaf polygons (seal.c): every vertex of a leaf polygon of the chunk, or of a
 * neighbour on the chunk's boundary, that lies inside an edge of a leaf polygon is inserted into
 * that edge, so no edge ends in the middle of another (no T-junctions, no cracks).
 * start[leaf_poly_count + 1] indexes the sealed outlines in points (free both). */
typedef struct sealed_polys { uint32_t *start; v3 *points; size_t point_count, point_cap; } sealed_polys;
void chunk_seal(const level_build *lb, const chunk_build *cb, sealed_polys *out);

#endif
