/* render_world.h - the GPU side of a level: chunk meshes in shared vertex / index arenas, the
 * lit lightmap atlas (a texture array: base + enabled dynamic layers), the fast-light table,
 * material textures, the sky, and the draw of one frame. Driven by the scene (src/app/scene.c).
 *
 * Chunk buffers: 24-byte mesh vertices in one arena; indices as u16 (one arena) for chunks of
 * at most 65536 vertices, else u32 (another); the 8-byte fast-light stream only for chunks that
 * have fast lights, in an arena the vertex shader reads through a buffer texture.
 *
 * Drawing groups every visible batch of every chunk by (material, backfaces, index type): with
 * GL >= 4.3 each group is one glMultiDrawElementsIndirect (per-command chunk offset, atlas page
 * and fast-light bases via baseInstance into a per-frame table), else one
 * glDrawElementsBaseVertex per range. Chunks above 65536 vertices are rare (the bench city's
 * view has none: the same draw calls as with u32 only), so a material is normally one call. Transparent and additive batches are drawn after the opaque ones per (chunk, batch,
 * cube), far to near by the distance to the cube's box centre, without depth writes; a run of
 * consecutive ones of one material is one multi-draw (its commands keep their order).
 */
#ifndef PMFVIEW_RENDER_WORLD_H
#define PMFVIEW_RENDER_WORLD_H

#include "render.h"
#include "render_mode.h"
#include "mesh.h"
#include "res/res.h"

typedef struct render_world render_world;

typedef struct render_world_desc {
    const pmf_level *lvl;            /* materials (common + client); outlives the world */
    mesh_atlas *atlas;               /* the atlas the chunks' blocks live in */
    res_context *res;                /* texture source */
} render_world_desc;

/* Needs a current, loaded GL context. NULL with a message on failure. */
render_world *render_world_create(const render_world_desc *desc, char *err, size_t err_size);
void render_world_destroy(render_world *w);

/* Uploads a chunk (vertices, indices, lightmap blocks composited with its dynamic layers, fast
 * lights) and loads the textures of its materials. Lightmap blocks on a page the atlas texture
 * does not have yet wait for render_world_commit. mc must stay alive until removed.
 * Returns a handle >= 0, or -1 when out of memory. */
int render_world_add(render_world *w, const mesh_chunk *mc);
void render_world_remove(render_world *w, int handle);
/* Room in the chunk buffers (elements of each) and the lit atlas (luxels). */
typedef struct render_world_reserve_desc {
    uint64_t vertices, indices16, indices32, fast_vertices, fast_lights, lightmap_texels;
} render_world_reserve_desc;
/* Adds what the chunk takes in them to *need. */
void render_world_chunk_needs(const mesh_chunk *mc, render_world_reserve_desc *need);
/* Grows the chunk buffers and the lit atlas at once to what desc asks (when that is more than
 * they have; the buffers to a quarter of the memory budget at most), so chunks that come later
 * find room without a grow-and-copy on their frame. Best effort: what the memory budget refuses
 * is grown later as needed. */
void render_world_reserve(render_world *w, const render_world_reserve_desc *desc);
/* How many times a chunk buffer or the lit atlas was grown while it held data (a copy). */
uint32_t render_world_copies(const render_world *w);

/* PMFVIEW_GL_VERIFY=1 (read when the world is created): call after each frame is drawn. Every
 * chunk buffer range, lit-atlas block and texture written (or moved by a growth) since the last
 * call is read back and compared with what was sent. False with one line ("GL verify: ...",
 * naming the buffer, byte offset and chunk) at the first difference. Always true when off. */
bool render_world_verify(render_world *w, char *err, size_t err_size);
/* Whether verification is on; *verified = the uploads checked so far. */
bool render_world_verifying(const render_world *w, uint64_t *verified);

/* Light state by global ID, kept for chunks that arrive later. */
void render_world_set_dynamic_light(render_world *w, uint32_t id, bool enabled);
/* A dynamic light's brightness as its light style plays (pmf_light_styles.h): its layers add
 * scale x their luxels x its colour; 1 = as baked. Recomposites the chunks it lights when changed. */
void render_world_set_dynamic_scale(render_world *w, uint32_t id, float scale);
void render_world_set_fast_light(render_world *w, uint32_t id, uint8_t intensity);

/* What the light tools show (docs/viewer.md "Light tools"); zero = every light as set.
 * solo: only the listed lights light the world (the base lightmap is left out; a listed
 * dynamic or fast light shows even when it is switched off). Else the listed lights are muted.
 * Static lights have no layer: static_term adds sign x their direct term to a lightmap block
 * (block_side^2 RGBA floats, the block's rows bottom-up), sign +1 for solo and -1 for mute
 * (light then clamped at 0). NULL when no static light is listed. */
typedef struct render_light_filter {
    bool solo;
    const uint32_t *dynamic_ids, *fast_ids;
    size_t dynamic_count, fast_count;
    void (*static_term)(void *user, const mesh_chunk *mc, uint32_t block, float sign, float *rgba);
    void *user;
    /* The base lightmap's bytes hold min(1, (store_scale x L)^store_gamma) of light L (hlrad's
     * storage, pmf_map_info.h): static terms are added to L and the sum stored again. 0 = L. */
    float store_scale, store_gamma;
} render_light_filter;
/* Recomposites every resident chunk's atlas blocks and rewrites the fast-light table. The
 * filter's lists are copied. False when out of memory (the filter is then off). */
bool render_world_set_light_filter(render_world *w, const render_light_filter *filter);

typedef struct render_light {
    uint32_t id;
    bool fast;
    uint8_t color[3];
    bool enabled;
    bool chosen;                     /* dynamic lights: the user set `enabled` (else the file's flag) */
    float scale;                     /* dynamic lights: render_world_set_dynamic_scale (1 = as baked) */
    uint8_t intensity;
    bool loaded;                     /* a chunk has shown it (else only set by the user; colour 0) */
} render_light;
/* Lights of the chunks uploaded so far (dynamic then fast, by ID). Returns the total. */
size_t render_world_lights(const render_world *w, render_light *out, size_t max);

typedef struct render_draw_chunk {
    int handle;
    float offset[3];                 /* chunk centre minus the camera chunk's centre, metres */
    const uint64_t *cubes;           /* visible cubes (mesh_cube_words bits); NULL = all */
    bool span_culled;                /* cubes were culled by the frustum only: a batch may draw
                                        from its first visible run to its last in one command */
} render_draw_chunk;

/* The games' display curves on light (conventions §3): as stored, GoldSrc's light gamma table,
 * Quake's overbright; the values of pmf_map_info.h's PMF_LOOK_*. */
enum { RENDER_LOOK_RAW, RENDER_LOOK_GOLDSRC, RENDER_LOOK_QUAKE, RENDER_LOOK_COUNT };

typedef struct render_frame {
    float view[16];                  /* column-major, camera-chunk frame */
    float proj[16];
    float eye[3];                    /* camera position in the camera chunk's frame (blended order) */
    render_mode mode;
    float exposure;
    int look;                        /* RENDER_LOOK_*: the display curve on light */
    double time;                     /* seconds */
    float wind[3];                   /* the weather environment's wind, for liquids */
    bool wireframe;
    bool luxel_grid;                 /* lightmap luxel edges over the frame */
    bool fog;                        /* distance fog: linear from fog_start to fog_end (metres) */
    float fog_start, fog_end, fog_color[3];
    const render_draw_chunk *chunks;
    size_t chunk_count;
} render_frame;

typedef struct render_frame_stats {
    uint64_t triangles;
    uint32_t draw_calls;
    uint32_t materials;              /* distinct materials among the batches drawn */
    uint32_t variants;               /* shader variants drawn with */
    /* Calls beyond one per material: a blended material drawn in several groups to keep far-to-
     * near order where its cubes overlap others on screen; an opaque one drawn with and without
     * back faces, or with u16 and u32 indices. */
    uint32_t blend_splits, state_splits;
} render_frame_stats;

/* Before a frame: sizes the lit lightmap atlas to the pages the mesher uses, once for every chunk
 * added since the last call on a page it did not have, and composites those chunks into it
 * (render_world_add leaves them unlit, so a view that streams in allocates the atlas once instead
 * of once per page added). */
void render_world_commit(render_world *w);

/* Starts a frame in the bound framebuffer: viewport (x, y, width, height) (x, y <= 0 puts a tile
 * of a bigger frame in the framebuffer), the framebuffer cleared to black, depth 1. */
void render_world_begin(render_world *w, int x, int y, int width, int height);
/* After the 3D skybox: the level then draws in front of it. */
void render_world_clear_depth(render_world *w);

/* Builds, for at most about budget_ms, the shader variants frames with f's mode, fog, luxel grid
 * and wireframe will draw the level's materials with, so that a first draw compiles nothing:
 * call it while the first chunks stream. True while some are left to build. */
bool render_world_prepare_variants(render_world *w, const render_frame *f, double budget_ms);

/* Draws the chunks (opaque, then blended) into the bound framebuffer; adds to *stats. */
void render_world_draw(render_world *w, const render_frame *f, render_frame_stats *stats);
/* The same in two steps, so the sky can go between them: behind the opaque world, where the
 * depth buffer is still clear, and so shading only the pixels the world leaves open.
 * render_world_draw_blended draws what the last render_world_draw_opaque prepared (same f). */
void render_world_draw_opaque(render_world *w, const render_frame *f, render_frame_stats *stats);
void render_world_draw_blended(render_world *w, const render_frame *f, render_frame_stats *stats);

typedef struct render_sky {
    int skybox[6];                   /* level material per face (+X +Y +Z -X -Y -Z), -1 = none */
    int cloud_top, cloud_bottom;     /* level materials, -1 = none */
} render_sky;
/* The fog colour of a sky: the mean horizon colour (middle texture row x material colour) of
 * its four side faces; black without them. */
void render_world_fog_color(render_world *w, const render_sky *sky, float out[3]);
/* Draws the skybox and cloud layers at infinity (rotation of f->view only), no depth writes. */
void render_world_draw_sky(render_world *w, const render_sky *sky, const render_frame *f, render_frame_stats *stats);

/* A driver may make code for each state at its first draw with it (llvmpipe compiles a variant
 * per program, blend, depth and texture format, or loads it from its disk cache: a few ms each,
 * the first frame's main extra cost). For at most about budget_ms, draws each loaded material
 * (and the sky when given) as f's settings draw it, into the bound framebuffer, with every
 * vertex outside the view: no pixel changes. Nothing when the framebuffer is not complete. True
 * while some are left. */
bool render_world_prime(render_world *w, const render_frame *f, const render_sky *sky, double budget_ms);

/* out = a × b, column-major 4x4 (out may alias a or b). */
void render_mat4_mul(const float a[16], const float b[16], float out[16]);

/* Bytes of vertex, index and atlas memory in use. */
uint64_t render_world_gpu_bytes(const render_world *w);
/* The resident chunks' vertices, and the bytes their vertex, fast-vertex and index data take in
 * the arenas. */
void render_world_chunk_bytes(const render_world *w, uint64_t *vertices, uint64_t *bytes);

#endif
