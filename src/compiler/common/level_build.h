/* level_build.h - the compiled level the back end's stages build, one after the other: faces
 * after CSG, chunks, their lightmap blocks and octrees (see docs/architecture.md "The compiler"). */
#ifndef PMFC_LEVEL_BUILD_H
#define PMFC_LEVEL_BUILD_H

#include "common/world.h"

/* A visible polygon after CSG, in world space. */
typedef struct face {
    int material;
    int brush;
    plane pl;
    tex_proj tex;
    int n;
    v3 *p;
} face;

/* A face clipped to one chunk, with its lightmap block. */
typedef struct chunk_face {
    int face;
    int n;
    v3 *p;
    uint8_t lightmap;                            /* chunk-local; PMF_NO_LIGHTMAP */
    int lm_x, lm_y, lm_w, lm_h;                  /* block, luxels, border included */
    uint32_t lm_seed;                            /* its luxels' samples' seed: the face's place in the
                                                  * chunk, not the block's in a lightmap */
    v3 lm_origin, lm_t, lm_b;                    /* lm_t/lm_b: unit axes; luxel = dot(p - origin, axis) * density */
    double lm_density;
    bool prelit;                                 /* the source's light covers every luxel: not baked */
} chunk_face;

typedef struct cube_info {
    v3 lo, hi;                                   /* world */
    int depth;
    bool cell;                                   /* a visibility cell */
    bool probe;                                  /* wants lighting data */
    bool has_geometry;                           /* something drawn in its subtree */
} cube_info;

/* An octree leaf and its polygons (world space), kept from chunk_octree until the chunk and its
 * neighbours are sealed and emitted. */
typedef struct leaf_poly { int cf, dir, n; uint32_t first; } leaf_poly;   /* leaf_points[first, first + n) */
typedef struct octree_leaf { uint32_t cube, first, count; bool geometry; } octree_leaf;   /* leaf_polys[first, first + count) */

typedef struct chunk_build {
    uint32_t gx, gy, gz;                         /* grid position */
    v3 centre;                                   /* world */
    chunk_face *faces; size_t face_count, face_cap;
    /* lightmaps */
    uint8_t lightmap_count;
    pmf_lightmap *lightmaps;
    uint32_t bake_lightmap_base;                 /* index of lightmap 0 in the level's bake list */
    /* octree */
    pmf_cube *cubes; pmf_client_cube *ccubes; cube_info *info;
    uint32_t cube_count, cube_cap;
    octree_leaf *leaves; size_t leaf_count, leaf_cap;
    leaf_poly *leaf_polys; size_t leaf_poly_count, leaf_poly_cap;
    v3 *leaf_points; size_t leaf_point_count, leaf_point_cap;
    pmf_vertex *verts; float (*normals)[3];
    uint32_t vert_count, vert_cap;
    uint32_t bake_vertex_base;
    /* per material index: used index in this chunk or -1 */
    int *mat_used; int used_count; int used_mats[256];
    int phys_used[256]; int phys_used_count;
    int sound_used[256]; int sound_used_count;
    uint32_t dropped;                            /* triangles no cube held, spilled to the deepest (reported) */
    bool present;
    bool margin;                                 /* outside the tile: only its faces (occluders, presence) */
} chunk_build;

typedef struct level_build {
    const map_def *map;
    level_def *def;
    int index;
    int exp;
    double S;                                    /* chunk side */
    uint32_t nx, ny, nz;
    pmf_chunk_coord centre_chunk;
    int32_t off_x, off_y, off_z;                 /* grid position of world chunk offset 0 = centre chunk */
    face *faces; size_t face_count, face_cap;
    face *sky_faces; size_t sky_face_count, sky_face_cap;   /* open sky: not drawn, where sunlight enters */
    face *void_faces; size_t void_face_count, void_face_cap; /* only the void sees them: occluders alone (fill.h) */
    /* the window of the grid built now: all of it, or a tile with a margin (all Y) */
    uint32_t wx0, wz0, wnx, wnz;
    bool tiled;                                  /* only lights reaching the tile are baked */
    chunk_build *chunks;                         /* [level_chunk_index] */
    int vis_depth;
    int threads;
    int bounces;                                 /* bake_desc.bounces (--bounce) */
    bool static_bounce_only;                     /* bake_desc's (--no-styled-bounce) */
    bool old_bounce;                             /* bake_desc's (pmfc_compile_desc.old_bounce) */
    bool quiet;                                  /* no notes on stderr */
    struct relight_level *relight;               /* what a relight starts from and keeps (relight.h), or NULL */
} level_build;

/* Index of grid position (x, y, z), inside the window, in chunks[]. */
static inline size_t level_chunk_index(const level_build *lb, uint32_t x, uint32_t y, uint32_t z)
{ return ((size_t)y * lb->wnx + (x - lb->wx0)) * lb->wnz + (z - lb->wz0); }
static inline size_t level_chunk_count(const level_build *lb) { return (size_t)lb->wnx * lb->ny * lb->wnz; }
/* The chunk at grid position (x, y, z), or NULL outside the grid or the window. */
chunk_build *level_chunk_at(const level_build *lb, int64_t x, int64_t y, int64_t z);
/* What the baker gave the level (bake/light.h). */
typedef struct level_light level_light;
void level_build_free(level_build *lb);

#endif
