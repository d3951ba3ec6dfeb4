/* scene.h - one open map level, streamed, meshed, uploaded and drawn: what `pmfview shot` and
 * the window share. Everything here runs on the thread that owns the current GL context.
 *
 * Usage (the window; `shot` is the same with a headless context and scene_wait_view):
 *   render_load_gl(SDL_GL_GetProcAddress, err, sizeof err);  // once per context, see render.h
 *   scene_error e;
 *   scene *s = scene_open(&(scene_desc){ .path = file, .level = 0 }, &e);
 *   if (!s) { fprintf(stderr, "pmfview: %s\n", e.message); return e.exit_code; }
 *   camera cam;  scene_default_camera(s, &cam);        // conventions §2 default camera
 *   each frame:
 *     camera_move(&cam, ...);  scene_set_camera(s, &cam);
 *     scene_update(s, scene_upload_budget_ms(last_frame_ms)); // poll the streamer, upload
 *     scene_draw(s, &(scene_viewport){ .width = w, .height = h });  // into the bound framebuffer
 *   scene_close(s);
 *
 * Lights are addressed by global ID (a light may span several chunks). Settings made before a
 * chunk streams in apply to it when it arrives.
 */
#ifndef PMFVIEW_SCENE_H
#define PMFVIEW_SCENE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "camera.h"
#include "mesh.h"
#include "pmf/pmf_cameras.h"
#include "pmf/pmf_lights.h"
#include "pmf/pmf_map_info.h"
#include "render/render_mode.h"

typedef struct scene scene;

typedef struct scene_error {
    int exit_code;                   /* 2 bad input file, 3 runtime failure (conventions §4) */
    char message[512];               /* one line, no "pmfview: " prefix, no newline */
} scene_error;

typedef struct scene_desc {
    const char *path;                /* the .pmf file */
    uint32_t level;                  /* level index, from 0 */
    const char *game_dir;            /* --game: unprefixed texture paths; NULL = none */
    const char *const *fgds;         /* --fgd: entity definitions, over the built-in Quake classes */
    size_t fgd_count;
    int radius;                      /* streaming radius in chunks; 0 = STREAM_DEFAULT_RADIUS */
    int workers;                     /* streaming threads; 0 = cores - 1; STREAM_NO_THREADS (-1) = none:
                                      * scene_update decodes within its budget (a page without threads) */
    /* The camera will move (the window, a flight): the GPU buffers are sized while the first
     * view streams in for every chunk the radius can hold, not grown (and copied) on the way.
     * false: sized for what comes (one picture needs no more). */
    bool moving_camera;
    /* --no-models: the point entities' models (docs/models.md) are not drawn; else a Quake map's
     * are, from game_dir's loose files and paks */
    bool no_models;
} scene_desc;

/* Opens the file and level, starts the streamer, builds GPU programs. Needs a current GL
 * context loaded with render_load_gl. NULL on failure with *err filled. */
scene *scene_open(const scene_desc *desc, scene_error *err);
void scene_close(scene *s);

/* The level's camera setup (chunk size, centre) at the default pose (conventions §2): the level's
 * first start camera when the file has the pmfview.cameras extension, else the world origin,
 * yaw 0, pitch 0. */
void scene_default_camera(const scene *s, camera *out);
/* Every start camera of the file (all levels, file order; count 0 when it has none). A damaged
 * extension fails scene_open (exit 2). */
const pmf_cameras *scene_start_cameras(const scene *s);
void scene_set_camera(scene *s, const camera *cam);
/* Point entities drawn with a model (docs/models.md). */
size_t scene_model_count(const scene *s);
/* Per point entity of the file (scene_map_infos' entities): 1 where its model is not there or
 * broken (one warning said), drawn as its marker instead; NULL when every model opened or models
 * are hidden. */
const uint8_t *scene_models_missing(const scene *s);
/* The point entity whose model's box (the pose the last frame drew: a studio model's or an alias
 * model's blended one; a sprite's picture) the ray from origin along unit dir (the camera's frame,
 * as scene_view_proj's) meets first, nearer than `before` metres: false when none (or models
 * hidden). What the last frame did not show (a glow hidden or faded out, renderamt 0) is not met.
 * Strings valid while the scene is. */
typedef struct scene_model_hit {
    const char *classname, *targetname, *file;
    uint32_t frame;                  /* the model's frame shown (a blended alias model's: the one it blends to) */
    float distance;                  /* metres along the ray */
} scene_model_hit;
bool scene_model_at(const scene *s, const float origin[3], const float dir[3], float before, scene_model_hit *out);
/* The camera's projection x view of a whole (untiled) frame as scene_draw uses it (column-major,
 * the camera chunk's frame, infinite far plane): overlays drawn with it depth-test against the
 * scene's depth buffer. */
void scene_view_proj(const scene *s, float out[16]);

typedef enum scene_vis {
    SCENE_VIS_ON = 0,                /* visibility data culls, recomputed when the camera changes cube */
    SCENE_VIS_OFF,                   /* draw everything in the frustum (--no-vis) */
    SCENE_VIS_FROZEN,                /* keep the last visible set wherever the camera goes */
} scene_vis;

/* Zero means default. */
/* The display curve on light (conventions §3 "The look"): the map's own (pmfview.source; raw
 * without it), or one chosen (shot --look, the window's key). */
typedef enum scene_look { SCENE_LOOK_MAP = 0, SCENE_LOOK_RAW, SCENE_LOOK_GOLDSRC, SCENE_LOOK_QUAKE } scene_look;

typedef struct scene_settings {
    render_mode mode;
    float exposure;                  /* k; 0 = 1 */
    scene_look look;
    scene_vis vis;
    bool wireframe;                  /* lines over the shaded frame */
    bool luxel_grid;                 /* lightmap luxel edges drawn over the frame (density check) */
    bool no_sky;                     /* black background instead of the sky */
    bool fog;                        /* distance fog, full at the streaming radius (scene_fog_range) */
    double time;                     /* seconds: texture animation, UV scroll, liquids, clouds */
    bool light_styles;               /* dynamic lights with a game's light style play it at `time` */
    bool no_models;                  /* the point entities' models (docs/models.md) not drawn */
} scene_settings;

void scene_set_settings(scene *s, const scene_settings *settings);
void scene_get_settings(const scene *s, scene_settings *out);
/* The look drawn now: RENDER_LOOK_* (the map's when settings.look is SCENE_LOOK_MAP). */
int scene_look_drawn(const scene *s);
/* The look a setting would draw. */
int scene_look_drawn_for(const scene *s, scene_look look);

/* What pmfc recorded of where the map came from (pmf_map_info.h): its source and look, point
 * entities and leak; empty for maps without those extensions. */
typedef struct scene_map_info {
    pmf_source source;
    pmf_entities entities;
    pmf_leak leak;
} scene_map_info;
const scene_map_info *scene_map_infos(const scene *s);

/* Dynamic light enable by global ID: recomposites the affected chunks' lightmap atlases
 * (no re-meshing). Applies to chunks that stream in later too. */
void scene_set_dynamic_light(scene *s, uint32_t id, bool enabled);
/* Fast light intensity (0..255) by global ID: one buffer update. */
void scene_set_fast_light(scene *s, uint32_t id, uint8_t intensity);

typedef struct scene_light {
    uint32_t id;
    bool fast;                       /* false = dynamic (lightmap layers) */
    uint8_t color[3];
    bool enabled;                    /* dynamic lights */
    uint8_t intensity;               /* fast lights */
} scene_light;
/* The lights of the chunks seen so far, ordered dynamic then fast, by ID. Returns the total
 * count (may exceed max; only max are written). */
size_t scene_lights(const scene *s, scene_light *out, size_t max);

/* The file's pmfview.lights metadata, every level (count 0 when the file has none: static
 * lights are then unknown to the light tools). A damaged extension fails scene_open (exit 2). */
const pmf_lights *scene_light_infos(const scene *s);

/* A light the light tools point at: kind PMF_LIGHT_DYNAMIC / FAST with its global ID, or
 * PMF_LIGHT_STATIC with its index in scene_light_infos. */
typedef struct scene_light_ref { uint8_t kind; uint32_t id; } scene_light_ref;
/* solo: only these lights light the world (dynamic and fast ones exactly, static ones by their
 * direct term with shadows from the resident chunks, light_direct.h); else these are muted (a
 * static one's term taken off the lightmap). count 0 without solo = every light as set.
 * Recomposites the resident chunks (again whenever chunks arrive while a static light is listed:
 * they may cast shadows). False when out of memory (the filter is then off). */
bool scene_set_light_filter(scene *s, bool solo, const scene_light_ref *refs, size_t count);

/* The resident chunks' meshes (the surface inspector's picking), valid until scene_update. */
size_t scene_chunk_count(const scene *s);
const mesh_chunk *scene_chunk_mesh(const scene *s, size_t i);

/* The open level (materials, centre chunk) and its index. */
const pmf_level *scene_level(const scene *s);
uint32_t scene_level_index(const scene *s);
/* The camera scene_set_camera last set. */
const camera *scene_camera(const scene *s);

/* Takes streamed chunks and uploads them within budget_ms milliseconds (at least one chunk per
 * call), drops evicted chunks, re-prioritises the streamer around the camera. */
void scene_update(scene *s, double budget_ms);
/* The upload budget for a frame after one that lasted last_frame_ms: a quarter of it, from 0.5
 * to 4 ms. At 60 Hz that is 4 ms; at 400 frames a second half a millisecond, so a frame that
 * uploads does not last twice one that does not (a real GPU draws a city in 1.5 ms). */
double scene_upload_budget_ms(double last_frame_ms);

/* True when every present chunk in view (within the radius) is uploaded or failed to load. */
bool scene_view_complete(const scene *s);
/* Calls scene_update until scene_view_complete or timeout_s passes. False on timeout. */
bool scene_wait_view(scene *s, double timeout_s);

/* A whole frame is width x height; a tile draws only the sub-rectangle (x, y, w, h) of it
 * (pixels, origin bottom-left) into the bound framebuffer's (0, 0, w, h) with a sub-frustum, so
 * frames larger than the GL limits can be drawn in pieces. tile_w == 0 = the whole frame. */
typedef struct scene_viewport {
    int width, height;
    int tile_x, tile_y, tile_w, tile_h;
} scene_viewport;

/* Draws sky + world into the currently bound framebuffer (clears colour and depth). */
void scene_draw(scene *s, const scene_viewport *vp);

typedef struct scene_stats {
    uint32_t chunks_present;         /* in the level */
    uint32_t chunks_loaded;          /* uploaded and resident */
    uint32_t chunks_streaming;       /* queued + decoding + waiting for upload */
    uint32_t chunks_failed;
    uint64_t triangles;              /* drawn in the last frame */
    uint32_t draw_calls;             /* GL draw calls in the last frame (multi-draws count 1) */
    uint32_t world_draw_calls;       /* of those, the chunks' (sky and 3D skybox not counted) */
    uint32_t visible_materials;      /* distinct level materials among the chunks' batches drawn */
    uint32_t shader_variants;        /* world shader variants the last frame drew with */
    uint32_t blend_splits, state_splits;  /* world calls beyond one per material (render_frame_stats) */
    uint32_t visible_chunks;         /* chunks drawn in the last frame */
    double first_complete_seconds;   /* scene_open to the first frame drawn with the view complete; <0 = not yet */
    double decode_seconds;           /* summed over stream workers: read + LZ4F + decode */
    double mesh_seconds;             /* summed over stream workers: meshing */
    double upload_seconds;           /* main thread: GPU uploads */
    uint64_t gpu_bytes;              /* vertex + index + lightmap bytes resident */
    uint64_t chunk_vertices;         /* vertices of the resident chunks */
    uint64_t chunk_buffer_bytes;     /* their vertex + index data in the GPU buffers */
    uint32_t buffer_copies;          /* chunk buffers / lit atlas grown while holding data (copied) */
    bool multi_draw_indirect;        /* the GL 4.3 path is in use */
    bool gl_verify;                  /* PMFVIEW_GL_VERIFY=1: uploads read back after their frame */
    uint64_t gl_verified;            /* uploads read back and found equal */
} scene_stats;
void scene_get_stats(const scene *s, scene_stats *out);

/* The first chunk in the current view (its whole cube meets the frustum) that failed to load,
 * as "FILE: BLOCK, byte N: MESSAGE"; NULL when none has. Failures out of view are not reported. */
const char *scene_failure(const scene *s);

/* What the memory budget cost the picture, one line each (none, 1 or 2): the first chunk
 * dropped because the budget was spent, and the lightmaps lowered to fit the atlas. */
size_t scene_budget_warnings(const scene *s, const char *out[2]);

#endif
