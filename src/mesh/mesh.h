/* mesh.h - CPU meshing of decoded PMF chunks, the lightmap atlas and cube visibility. No GL.
 *
 * Data flow (conventions.md §1-§3):
 *
 *   stream worker:  pmf_chunk --mesh_build_chunk()--> mesh_chunk   (thread-safe; the pmf_chunk
 *                   may be freed afterwards: the mesh_chunk keeps copies of all it needs)
 *   main thread:    upload vertices / fast / indices / lightmap blocks / layers to the GPU,
 *                   draw batches through mesh_batch_ranges(), mesh_chunk_free() at eviction.
 *
 * ---- Vertex format (16 bytes, mesh_vertex) ---------------------------------------------------
 *   pos    u16x4   position in steps of mesh_chunk.step from mesh_chunk.origin (chunk-local),
 *                  MESH_POS_BITS (20) bits an axis: pos[0..2] the high 16 bits of x, y, z;
 *                  pos[3] the low bits: x bits 0-3, y 4-7, z 8-11, then u 12-13 and v 14-15
 *   uv     u16x2   texture repeats in steps of the batch's uv_step from its uv_origin,
 *                  MESH_UV_BITS (18) bits: uv[0..1] the high 16 bits of u, v (low 2 in pos[3])
 *   lm_uv  u16x2   atlas-page UV in units of 1/65536: atlas_uv = lm_uv * MESH_LM_UV_SCALE.
 *                  Bind as GL_UNSIGNED_SHORT, normalized = GL_FALSE (the shader multiplies by
 *                  1/65536; this is exact for texel centres on power-of-two pages up to 32768).
 *                  Rows: lightmap V = 0 is the block's first row = the lowest atlas row (GL t).
 * Decoded as float(q) * step + origin (mesh_vertex_position, mesh_vertex_uv: the shader's sum).
 * Each vertex belongs to one batch (a face group's vertices are its own), so the UV frame can be
 * the batch's. The steps split the extent of the chunk's vertices (of the batch's UVs) into
 * 2^bits - 1, so a vertex moves by at most extent / 2^21 plus float rounding: 0.1 mm for
 * vertices spanning up to 209 m on an axis (a chunk of up to 128 m, or 256 m with some
 * margin); a UV by at most its batch's UV extent / 2^19 repeats (1/512 of a texel of a 1024-
 * texel texture over 1 repeat, 1/16 over 32 repeats). tests/mesh test_mesh_quantize holds
 * every demo map and a generated city to 0.1 mm and to the UV bound.
 * The lightmap page a vertex samples is not in the vertex: it is mesh_batch.page.
 *
 * ---- Fast lights (optional second stream, 8 bytes per vertex, mesh_fast_vertex) ---------------
 * Present (fast != NULL) only when the chunk has fast lights, and only for the vertices
 * [0, fast_vertex_count): the face groups a fast light reaches come first (below). Per vertex up to MESH_FAST_SLOTS
 * (4) fast lights: slot[i] indexes mesh_chunk.fast_lights (255 = unused, mult 0), mult[i] is the
 * decoded multiplier (conventions §3 skip/count walk). When more than 4 fast lights reach a
 * vertex with a non-zero multiplier, the 4 largest multipliers are kept (ties: lower light
 * index) and the rest dropped.
 * Shader recipe (exact, because L_fast is linear in the multiplier): in the vertex shader
 *   fast_rgb = Σ_i color[slot_i]/255 × intensity[slot_i]/255 × mult_i/255  (skip enabled==0)
 * and pass fast_rgb to the fragment shader as a smooth varying: L += fast_rgb.
 * Bind slot as GL_UNSIGNED_BYTE integer (glVertexAttribIPointer) and mult as normalized bytes.
 *
 * Vertices are emitted cube by cube (cube index order), each face group's vertices copied from
 * the chunk, so the buffer holds only vertices that faces use (a vertex two faces share with
 * different lightmaps gets a copy each); in a chunk with fast lights, the face groups a fast
 * light reaches go first, in that order, then the others (indices, runs and batches keep cube
 * order: only where the vertices sit changes).
 *
 * ---- Index buffer, batches, runs ------------------------------------------------------------
 * One u32 index buffer per chunk, indices into the chunk's own vertex buffer. Geometry cube
 * quads v0 v1 v2 v3 become (v0 v1 v2)(v0 v2 v3), faces in bit order +X +Y +Z -X -Y -Z;
 * extended cube triangles keep file order, grouped by face.
 * A batch is a maximal set of triangles sharing (level material, backfaces flag, atlas page);
 * batches are sorted by material, then backfaces (false first), then page. Inside a batch, triangles are ordered by cube index, then
 * face order: each (batch, cube) pair is one run = one contiguous index range, so runs of a
 * batch are back to back and a visible subset is "the visible runs, consecutive ones merged"
 * (mesh_batch_ranges does exactly that). Draw a batch with glMultiDrawElements over its ranges,
 * with face culling disabled when batch.backfaces (cube flag PMF_CUBE_DRAW_BACKFACES).
 * Only cubes reachable from cube 0 are meshed (others are ignored, conventions §1).
 *
 * ---- Lightmap atlas: atlas.h ----------------------------------------------------------------
 * The mesher places each lightmap a face uses in a block of the level's atlas (atlas.h).
 *
 * ---- Dynamic light layers ---------------------------------------------------------------------
 * mesh_chunk.layers: for each layer of each dynamic light of the chunk, its light (index into
 * mesh_chunk.dynamic_lights: global ID, colour, flags) and the block of its target lightmap;
 * luxels are padded exactly like the base block. Recommended composition: the renderer keeps
 * an RGB9_E5 "light" atlas (same pages, same rects) = base/255 + Σ enabled layers/255 × colour/255,
 * recomposited for a block when a light is toggled. Layers whose target lightmap no face uses
 * are dropped (the lightmap gets no block).
 *
 * ---- Visibility (visibility.c) ----------------------------------------------------------------
 * Called only when the camera changes cube (mesh_vis_locate tells) or a chunk arrives:
 *   mesh_vis_set_build(camera chunk mesh, camera chunk-local position, &set);
 *   for each resident chunk: if (mesh_vis_set_mark(&set, mc, bits)) draw with bits, else skip it.
 * Cube bitsets are u64 words over cube indices (bit c = word c/64, bit c%64), mesh_cube_words();
 * cubes not reachable from cube 0 never get a bit.
 * mesh_cull_frustum() then clears cubes whose AABB is outside the view (per frame).
 */
#ifndef PMFVIEW_MESH_H
#define PMFVIEW_MESH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmf.h"
#include "atlas.h"

#define MESH_NONE UINT32_MAX
#define MESH_LM_UV_SCALE (1.0f / 65536.0f)
#define MESH_FAST_SLOTS 4
#define MESH_FAST_UNUSED 255

/* ---- chunk mesh ------------------------------------------------------------------------------ */

#define MESH_POS_BITS 20
#define MESH_UV_BITS 18

typedef struct mesh_vertex {
    uint16_t pos[4];             /* high bits of x, y, z; their low bits and u's and v's */
    uint16_t uv[2];              /* high bits of u, v */
    uint16_t lm_uv[2];           /* × MESH_LM_UV_SCALE = atlas page UV */
} mesh_vertex;                   /* 16 bytes */

typedef struct mesh_fast_vertex {
    uint8_t slot[MESH_FAST_SLOTS];   /* index into mesh_chunk.fast_lights, MESH_FAST_UNUSED = none */
    uint8_t mult[MESH_FAST_SLOTS];   /* multiplier 0..255 */
} mesh_fast_vertex;              /* 8 bytes */

typedef struct mesh_batch {
    uint16_t material;           /* LEVEL material index (chunk used index resolved) */
    uint16_t page;               /* atlas page sampled by every vertex of the batch */
    bool backfaces;              /* draw without face culling */
    float uv_origin[2], uv_step[2];  /* texture UV = float(q) * uv_step + uv_origin */
    uint32_t first_index, index_count;
    uint32_t first_run, run_count;   /* into mesh_chunk.runs, cube order */
} mesh_batch;

typedef struct mesh_run {
    uint32_t cube;               /* cube index in the chunk */
    uint32_t batch;
    uint32_t first_index, index_count;
} mesh_run;

typedef struct mesh_cube {
    float min[3], max[3];        /* AABB of the cube's own vertices; min > max when it has none */
    uint32_t first_cube_run, cube_run_count; /* into mesh_chunk.cube_runs */
    uint32_t children[8];        /* octant order (PMF_OCTANT_*); MESH_NONE = no child */
    uint32_t vis;                /* index into mesh_chunk.vis, MESH_NONE = no visibility data */
    uint8_t type, flags;         /* as in pmf_cube */
    bool reachable;              /* in the tree of cube 0 */
} mesh_cube;

/* A cube's place in the depth-first walk of the tree, with its subtree (it and every cube below
 * it): the subtree is the places [this one, end). exact: every cube in it with runs has a finite,
 * non-empty AABB, so the subtree's box answers for each of theirs (the frustum cull skips it). */
typedef struct mesh_tree_node {
    float min[3], max[3];        /* AABB of the subtree's vertices */
    uint32_t cube, end;
    bool exact, has_runs;        /* has_runs: the cube itself has runs */
} mesh_tree_node;

typedef struct mesh_lightmap_block {
    mesh_atlas_rect rect;
    uint8_t *luxels;             /* block_side^2 RGB8, padded */
    int16_t lightmap;            /* chunk lightmap index, or -1 for a 1×1 base colour block */
} mesh_lightmap_block;

typedef struct mesh_dynamic_light { uint32_t id; uint8_t color[3]; uint8_t flags; } mesh_dynamic_light;
typedef struct mesh_fast_light { uint32_t id; uint8_t color[3]; uint8_t intensity, flags; } mesh_fast_light;

typedef struct mesh_light_layer {
    uint32_t light;              /* index into mesh_chunk.dynamic_lights */
    uint32_t block;              /* index into mesh_chunk.blocks: same page and rect */
    uint8_t *luxels;             /* block_side^2 RGB8, padded like the block */
} mesh_light_layer;

typedef struct mesh_chunk {
    pmf_chunk_coord coord;
    float size;                  /* chunk side S in metres; cube 0 spans [-S/2, S/2]^3 */
    float min[3], max[3];        /* AABB of all vertices; min > max when empty */
    float origin[3], step[3];    /* chunk-local position = float(q) * step + origin */

    uint32_t vertex_count;
    mesh_vertex *vertices;
    mesh_fast_vertex *fast;      /* fast_vertex_count of them, or NULL when no fast lights */
    uint32_t fast_vertex_count;  /* vertices [0, fast_vertex_count) have fast data; the rest none */
    uint32_t *sources;           /* vertex -> the chunk's vertex it came from (mesh_desc.sources) */
    uint32_t index_count;
    uint32_t *indices;

    uint32_t batch_count;
    mesh_batch *batches;
    uint32_t run_count;
    mesh_run *runs;              /* sorted by (batch, cube) */
    uint32_t cube_count;         /* = pmf cube count */
    mesh_cube *cubes;
    uint32_t *cube_runs;         /* run indices grouped by cube (see mesh_cube) */
    mesh_tree_node *tree;        /* the cubes reachable from cube 0, depth first: a subtree is a span */
    uint32_t tree_count;         /* reachable cubes */
    uint64_t *reachable_bits;    /* mesh_cube_words() words: the reachable cubes' bits */
    uint64_t *run_bits;          /* mesh_cube_words() words: the bits of the cubes with runs */
    bool batches_contiguous;     /* each batch's runs tile [first_index, + index_count) in order */

    uint32_t block_count;
    mesh_lightmap_block *blocks;
    uint32_t lightmap_block[256];    /* chunk lightmap index -> block, MESH_NONE = unused */
    uint32_t layer_count;
    mesh_light_layer *layers;
    uint32_t dynamic_light_count;
    mesh_dynamic_light *dynamic_lights;
    uint32_t fast_light_count;
    mesh_fast_light *fast_lights;

    uint32_t vis_count;
    pmf_visibility *vis;         /* copies of the cubes' visibility data */

    mesh_atlas *atlas;           /* where blocks were allocated */
    bool lightmaps_lowered;      /* some lightmap got a smaller block than the file's (atlas full) */
    uint8_t lightmap_exp_cap;    /* then: the smallest such block side, 2^cap */
    void *mem_;                  /* owned memory for vis copies */
} mesh_chunk;

typedef struct mesh_desc {
    mesh_atlas *atlas;           /* required */
    bool sources;                /* keep mesh_chunk.sources (tests and tools) */
} mesh_desc;

/* Meshes one decoded chunk (needs PMF_PART_COMMON | PMF_PART_CLIENT) of lvl (its material count
 * and chunk size). Thread-safe; allocates atlas blocks. On failure returns false, fills err with
 * one line ("chunk (x,y,z): cube N: ...") and leaves *out empty (nothing to free). */
bool mesh_build_chunk(const pmf_level *lvl, const pmf_chunk *chunk, const mesh_desc *desc,
                      mesh_chunk *out, char *err, size_t err_size);
/* A vertex's chunk-local position and texture UV (v in batch bt), as the shader decodes them. */
void mesh_vertex_position(const mesh_chunk *mc, const mesh_vertex *v, float out[3]);
void mesh_vertex_uv(const mesh_batch *bt, const mesh_vertex *v, float out[2]);

/* Frees memory and atlas blocks. Safe on a zeroed mesh_chunk. */
void mesh_chunk_free(mesh_chunk *mc);

/* Decodes one fast light's ranges into per-vertex multipliers (out[vertex_count]): cursor from
 * 0, skip, then count vertices take the multipliers; ranges are clamped at vertex_count;
 * vertices no range reaches get 0. */
void mesh_fast_multipliers(const pmf_client_fast_light *light, uint32_t vertex_count, uint8_t *out);

/* u64 words of a cube bitset for mc. */
static inline uint32_t mesh_cube_words(const mesh_chunk *mc) { return (mc->cube_count + 63u) / 64u; }

typedef struct mesh_draw_range { uint32_t first_index, index_count; } mesh_draw_range;

/* The index ranges of batch whose cubes have their bit set (bits NULL = all), consecutive runs
 * merged. out must hold batch.run_count ranges. Returns the range count. */
uint32_t mesh_batch_ranges(const mesh_chunk *mc, uint32_t batch, const uint64_t *bits, mesh_draw_range *out);
/* True when bits (NULL: all) shows every cube with runs and the batches are contiguous: then
 * mesh_batch_whole gives each batch's ranges without reading its runs. */
bool mesh_shows_every_run(const mesh_chunk *mc, const uint64_t *bits);
/* mesh_batch_ranges of a batch with every cube shown: one range, or none for an empty batch. */
uint32_t mesh_batch_whole(const mesh_chunk *mc, uint32_t batch, mesh_draw_range *out);

/* Clears the bit of every cube with geometry whose AABB is fully outside one of the planes
 * (a x + b y + c z + d >= 0 inside, chunk-local coordinates). Returns cubes left set. */
uint32_t mesh_cull_frustum(const mesh_chunk *mc, const float planes[6][4], uint64_t *bits);

/* ---- visibility (conventions §3) --------------------------------------------------------------- */

/* The deepest cube containing p (chunk-local), descending from cube 0 by octant (a coordinate
 * equal to the centre goes to the + side). MESH_NONE when p is outside the chunk. */
uint32_t mesh_vis_locate(const mesh_chunk *mc, const float p[3]);

typedef struct mesh_vis_entry {
    pmf_chunk_coord chunk;
    uint32_t cube_count;         /* 0 = the whole chunk */
    uint32_t *cubes;             /* each cube means its whole subtree */
} mesh_vis_entry;

typedef struct mesh_vis_set {
    bool everything;             /* no visibility data applies: draw everything in view */
    uint32_t camera_cube;        /* deepest cube holding the camera, MESH_NONE if none */
    uint32_t source_cube;        /* it or its nearest ancestor with visibility data */
    uint32_t entry_count;
    mesh_vis_entry *entries;     /* [0] = the camera chunk: source cube + its listed cubes; the
                                  * rest sorted by chunk (x, then y, then z) */
} mesh_vis_set;

/* Builds the visible set for a camera at cam_local in camera_chunk (NULL = chunk not loaded:
 * everything). The set owns its lists (the chunk may be evicted). False only out of memory. */
bool mesh_vis_set_build(const mesh_chunk *camera_chunk, const float cam_local[3], mesh_vis_set *out);
void mesh_vis_set_free(mesh_vis_set *set);
/* Fills bits (mesh_cube_words(mc) words) with the cubes of mc the set shows: listed cubes and
 * their subtrees, every reachable cube for a whole chunk or when set->everything. Returns false
 * (bits all clear) when nothing of mc is shown. */
bool mesh_vis_set_mark(const mesh_vis_set *set, const mesh_chunk *mc, uint64_t *bits);

#endif
