/* render_world_internal.h - what the render_world_*.c files share: the world's GL state and the
 * helpers one concern offers the others (uploads: render_world.c; lights and the lit lightmap
 * atlas: render_world_lights.c; textures and materials: render_world_materials.c; the frame's
 * draw: render_world_draw.c; the sky: render_world_sky.c). */
#ifndef PMFVIEW_RENDER_WORLD_INTERNAL_H
#define PMFVIEW_RENDER_WORLD_INTERNAL_H

#include "render_internal.h"
#include "render_world.h"
#include "base/grow.h"

/* Where the fast-light arenas are bound to be written, and the texture kind that reads them: a
 * texture buffer, or under OpenGL ES a 2D texture copied from the buffer (render_gl_api.h). */
#if RENDER_GLES
#define WORLD_FAST_ARENA_TARGET GL_COPY_WRITE_BUFFER
#define WORLD_FAST_TEXTURE_TARGET GL_TEXTURE_2D
#else
#define WORLD_FAST_ARENA_TARGET GL_TEXTURE_BUFFER
#define WORLD_FAST_TEXTURE_TARGET GL_TEXTURE_BUFFER
#endif

enum { ATTR_POS, ATTR_UV, ATTR_LM_UV, ATTR_CHUNK, ATTR_PAGE, ATTR_FAST, ATTR_STEP, ATTR_UV_FRAME };

/* Per draw command (instance attributes through baseInstance): the chunk's quantisation origin
 * in the camera chunk's frame, the atlas page of the batch, the chunk's position step, the
 * batch's UV origin and step, the chunk's first fast-light slot (-1 = no fast lights), where
 * its fast vertices start relative to its vertices (the fast stream is read at gl_VertexID +
 * delta) and the gl_VertexID they end at (mesh_chunk.fast_vertex_count). */
typedef struct draw_params {
    float origin[3], page;
    float step[3];
    float uv_origin[2], uv_step[2];
    int32_t fast_base, fast_delta, fast_end;
} draw_params;

/* Chunks of at most this many vertices keep their indices as u16. */
#define MAX_U16_VERTICES 65536u

typedef struct gpu_chunk {
    const mesh_chunk *mc;            /* NULL = free slot */
    uint32_t vertex_base, index_base;
    bool wide;                       /* indices in the u32 arena (more than MAX_U16_VERTICES) */
    uint32_t fast_vertex_base;       /* first entry in the fast-vertex arena (when mc->fast) */
    uint32_t fast_base;              /* first entry in the fast-light table */
    bool lit;                        /* composited into the lit atlas (render_world_commit) */
    /* PMFVIEW_GL_VERIFY: written (or moved) since the last check; read back after the next frame */
    bool verify_buffers, verify_atlas;
} gpu_chunk;

/* horizon: the mean colour of the middle row (a skybox side's horizon, for the fog colour);
 * charged: what its GL copy took from the memory budget */
typedef struct gpu_texture { char *path; GLuint tex; float horizon[3]; uint64_t charged; } gpu_texture;

typedef struct gpu_material {
    bool loaded;
    uint32_t frame_count;
    GLuint *frames;                  /* texture, then extra textures; white when untextured */
    GLuint matcap;                   /* 0 = none */
    bool primed;                     /* render_world_prime drew it under primed_settings */
    uint32_t primed_settings;
} gpu_material;

/* A variant leaves out the uniforms it does not use: their locations are -1, and glUniform*
 * ignores those. */
typedef struct world_uniforms {
    GLint view_proj, view, uv_offset, fast_table, fast_vertices, wave, wave_offset, time;
    GLint texture, light_atlas, matcap, color, emission, shading, shine, exposure, look, wire_color;
    GLint fog, fog_color;
} world_uniforms;

/* Shader variants (shaders/world.*): a key is switch bits | RENDER_MODE_* << WV_MODE_SHIFT; each
 * switch is the #define of its name in world_variant_switch_names (render_world_variants.c). A
 * material gives LIQUID, MATCAP and ADDITIVE (world_material_switches), the frame the rest
 * (world_variant_key). */
enum {
    WV_FAST_LIGHTS = 1u << 0,
    WV_LIQUID = 1u << 1,
    WV_MATCAP = 1u << 2,
    WV_ADDITIVE = 1u << 3,
    WV_FOG = 1u << 4,
    WV_LUXEL_GRID = 1u << 5,
    WV_WIRE = 1u << 6,
    WV_SWITCH_COUNT = 7,
    WV_MODE_SHIFT = 8,
};

typedef struct world_variant {
    uint32_t key;
    GLuint prog;                     /* 0 = failed to build */
    bool finished;                   /* compile and link checked, uniforms looked up */
    uint32_t frame_serial;           /* the draw_serial its frame uniforms were last set for */
    world_uniforms u;
} world_variant;

typedef struct sky_uniforms { GLint view_proj, texture, color, cloud, uv_offset, exposure; } sky_uniforms;

typedef struct draw_item {
    uint32_t variant;                /* key */
    uint32_t batch;                  /* in the chunk */
    uint16_t material, page;
    bool backfaces;
    bool blended;
    bool wide;                       /* u32 indices: a multi-draw takes one index type */
    uint32_t chunk;                  /* index into the frame's chunk list */
    uint32_t first_range, range_count;
    float distance;
    /* blended: screen rectangle of the cube's box (NDC x0, y0, x1, y1), and the group it draws
     * in (group_blended) */
    float rect[4];
    uint32_t group, order;
} draw_item;

/* Blended items past this many keep strict far-to-near order (regrouping is quadratic). */
#define MAX_REGROUPED 1024

typedef struct draw_cmd { GLuint count, instance_count, first_index; GLint base_vertex; GLuint base_instance; } draw_cmd;

struct render_world {
    const pmf_level *lvl;
    mesh_atlas *atlas;
    res_context *res;
    bool mdi;

    world_variant *variants;         /* started or built, in the order first asked for */
    size_t variant_count, variant_cap;
    uint32_t fast_chunks;            /* resident chunks with fast lights (WV_FAST_LIGHTS) */
    bool prepared;                   /* every variant the materials need under these settings is built: */
    uint32_t prepared_settings;      /* render_world_prepare_variants' key of them */
    GLuint sky_prog;
    sky_uniforms su;
    GLuint vao, sky_vao, sky_vbo;
    GLuint sky_sampler;              /* clamp to edge: a skybox face must not filter in its opposite edge */
    bool vao_dirty;

    render_arena vertices;           /* mesh_vertex */
    render_arena indices16, indices32;
    /* mesh_fast_vertex of the chunks that have fast lights only, read through a buffer texture
     * (RG32UI: slots, multipliers) since a second vertex stream would share the vertex index. */
    render_arena fast_vertices;
    GLuint fast_vertex_tex;
    GLuint draw_table;               /* per frame: draw_params per draw command */
    GLuint indirect;
    /* The fast-light table: RGBA32F entries (colour/255 × intensity/255, 0 when disabled), a
     * run per chunk, read through a buffer texture. */
    render_arena fast_table;
    GLuint fast_tex;
    bool fast_stale;                 /* OpenGL ES: an arena written since its texture was copied */
    uint32_t fast_table_rows, fast_vertex_rows;  /* OpenGL ES: rows of those textures */
    GLint pointed_base;              /* OpenGL ES: the vertex the VAO's attributes start at */

    GLuint light_atlas;              /* GL_TEXTURE_2D_ARRAY RGB9_E5 (4 bytes a texel, light above 1 kept) */
    uint32_t atlas_layers, page_size;
    uint32_t atlas_copies;           /* grown while it had pages (copied or recomposited) */
    uint64_t atlas_copied_texels;    /* what those copies moved: the lit chunks' blocks only */
    uint32_t unlit_chunks;           /* added, not yet composited (render_world_commit) */

    GLuint white, black;
    gpu_texture *textures;
    size_t texture_count, texture_cap;
    bool reduced_texture_said;   /* the one warning about textures above RES_MAX_TEXTURE_SIDE */
    bool lowered_texture_said;   /* the one warning about textures lowered to fit the budget */
    gpu_material *materials;

    gpu_chunk *chunks;
    size_t chunk_count, chunk_cap;
    uint64_t resident_vertices, resident_bytes;

    render_light *lights;            /* sorted by (fast, id) */
    size_t light_count, light_cap;
    render_light_filter filter;      /* its id lists owned (copies) */

    /* per-frame scratch */
    draw_item *items;
    size_t item_cap;
    mesh_draw_range *ranges;
    size_t range_cap;
    draw_cmd *cmds;
    size_t cmd_cap;
    draw_params *table;
    size_t table_cap;
    uint16_t *staging;               /* a chunk's u16 indices on their way to the arena */
    size_t staging_cap;
    uint32_t *material_mark;         /* per material: the draw serial that last drew it */
    size_t frame_items, frame_opaque;  /* the prepared frame: items, of which opaque first */
    size_t frame_opaque_cmds;          /* commands of the opaque items */
    uint32_t frame_opaque_materials, frame_blended_materials;  /* distinct, among the items */
    bool variant_failure_said;
    uint32_t draw_serial;
    bool sky_primed;                 /* render_world_prime drew primed_sky */
    render_sky primed_sky;

    /* PMFVIEW_GL_VERIFY=1 (render_world_verify.c) */
    bool verify;
    uint64_t verified;               /* uploads read back and found equal */
    struct verify_texture *verify_textures;  /* texture uploads not read back yet */
    size_t verify_texture_count, verify_texture_cap;
};

/* render_world_lights.c */
render_light *world_register_light(render_world *w, bool fast, uint32_t id, const uint8_t color[3], bool enabled,
                                   uint8_t intensity);
bool world_alloc_atlas_layers(render_world *w, uint32_t layers);
/* Reallocates the lit atlas with `layers` pages, its content kept (copied, else recomposited by
 * the next render_world_commit). */
void world_grow_atlas(render_world *w, uint32_t layers);
/* Every lightmap block of the chunk lies on a page the atlas texture has. */
bool world_chunk_pages_exist(const render_world *w, const mesh_chunk *mc);
/* What one atlas block of a chunk holds: base / 255 + Σ shown layers / 255 × colour / 255 (the
 * light filter: solo leaves the base out, static lights' direct terms added or taken off),
 * packed to RGB9_E5 in scratch->packed. A block that is its base alone packs from tables. */
typedef struct world_composite_scratch {
    float *light;                    /* RGBA per texel: what the light filter's static term takes */
    uint32_t *packed;
    size_t light_cap, packed_cap;
} world_composite_scratch;
bool world_composite_block(render_world *w, const mesh_chunk *mc, uint32_t block, world_composite_scratch *scratch);
void world_composite_scratch_free(world_composite_scratch *scratch);
/* Every block of the chunk into the lit atlas. */
bool world_composite_chunk(render_world *w, gpu_chunk *gc);
/* A fast light's table entry: colour / 255 × intensity / 255 when it shows, else 0. */
void world_fast_entry(const render_world *w, const mesh_fast_light *fl, float entry[4]);
void world_write_fast_entry(render_world *w, uint32_t slot, const mesh_fast_light *fl);

/* render_world_verify.c */
/* Keeps a copy of a texture's upload (its levels, as world_upload_rgba takes them) for the next
 * check; nothing when verification is off. */
void world_verify_texture_uploaded(render_world *w, GLuint tex, uint32_t width, uint32_t height, const uint8_t *rgba,
                                   const uint8_t *mips, uint32_t mip_levels);
/* Every chunk's buffers are to be read back again (an arena moved them to a new buffer). */
void world_verify_all_buffers(render_world *w);
void world_verify_release(render_world *w);

/* render_world_materials.c */
/* An RGBA8 texture with mip_levels levels below rgba (res_image's mips; 0 = none, GL_LINEAR). */
GLuint world_upload_rgba(uint32_t width, uint32_t height, const uint8_t *rgba, const uint8_t *mips, uint32_t mip_levels);
void world_load_material(render_world *w, uint32_t index);
GLuint world_material_frame(const render_world *w, uint32_t index, double time);
bool world_material_blended(const render_world *w, uint32_t index);
/* LIQUID, MATCAP and ADDITIVE as the material (once loaded) draws. */
uint32_t world_material_switches(const render_world *w, uint32_t index);
void world_set_material(render_world *w, const render_frame *f, uint32_t index, const world_uniforms *u);
void world_set_blend(const render_world *w, uint32_t material);

/* render_world.c */
#if RENDER_GLES
/* Copies the fast-light arenas into their textures when written since the last copy. */
void world_sync_fast_textures(render_world *w);
#endif

/* render_world_draw.c */
void world_setup_vao(render_world *w);

/* render_world_variants.c */
/* What of frame f's settings chooses variants (mode, fog, luxel grid, fast lights, wireframe). */
uint32_t world_settings_key(const render_world *w, const render_frame *f);
/* The variant a draw of a material with these switches takes in frame f (wire: the overlay). */
uint32_t world_variant_key(const render_world *w, const render_frame *f, uint32_t material_switches, bool wire);
/* Starts building the variant unless it is already there; false when out of memory. */
bool world_variant_start(render_world *w, uint32_t key);
/* The variant built (waiting for the driver if needed), or NULL when it does not build (the
 * message in err). */
world_variant *world_variant_get(render_world *w, uint32_t key, char *err, size_t err_size);
void world_variants_release(render_world *w);

/* render_world_sky.c */
void world_build_sky_cube(render_world *w);

#endif
