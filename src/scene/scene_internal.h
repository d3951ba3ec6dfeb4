/* scene_internal.h - what the scene library's files share (scene.h is the interface): the
 * scene and chunk structs, and the functions one file gives the others. */
#ifndef PMFVIEW_SCENE_INTERNAL_H
#define PMFVIEW_SCENE_INTERNAL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cglm/box.h>
#include <cglm/cam.h>
#include <cglm/frustum.h>

#include "light_direct.h"
#include "mesh.h"
#include "pmf/pmf_cameras.h"
#include "pmf/pmf_light_styles.h"
#include "pmf/pmf_lights.h"
#include "pmf_budget.h"
#include "render/render_world.h"
#include "res/res.h"
#include "stream.h"
#include "text_clean.h"
#include "pmf_system.h"
#include "scene.h"
#include "studio.h"

#define NEAR_PLANE 0.05
#define QUAKE_METRES_PER_UNIT 0.0254f  /* pmfc's default scale (conventions §5) */

typedef struct sky_region { float planes[6][4]; int env; } sky_region;

#define TRIM_AFTER_EVICTIONS 16
#define FILTER_INTERVAL_SECONDS 0.5
#define TRIM_INTERVAL_SECONDS 2.0
#define SCENE_UPLOAD_BUDGET_MIN_MS 0.5
#define SCENE_UPLOAD_BUDGET_MAX_MS 4.0

typedef struct scene_failure_entry {
    pmf_chunk_coord coord;
    bool anywhere;                   /* counts wherever the camera looks (3D skybox, out of memory) */
    char message[512];
} scene_failure_entry;

/* What a stream worker prepares for the main thread. */
typedef struct scene_chunk {
    mesh_chunk mc;
    uint32_t sky_region_count;
    sky_region *sky_regions;
    int handle;                      /* render_world handle */
    uint64_t *vis_bits;              /* cubes the visible set shows (mesh_cube_words) */
    bool vis_shown;                  /* false: the visible set shows nothing of this chunk */
} scene_chunk;

struct scene {
    pmf_file *file;
    uint32_t level;
    pmf_cameras *cameras;            /* the file's start cameras (every level) */
    pmf_lights lights;               /* the file's pmfview.lights metadata (every level) */
    scene_map_info map_info;         /* pmfview.source, .entities, .leak */
    light_direct_set static_terms;   /* the light tools' static lights (solo / mute) */
    scene_light_ref *filter_refs;    /* the light tools' filter (scene_set_light_filter) */
    size_t filter_count;
    bool filter_solo;
    bool filter_stale;               /* chunks arrived since the static terms were computed */
    double filter_applied_at;
    pmf_level lvl;
    res_context *res;
    mesh_atlas *atlas;
    render_world *world;
    struct scene_models *models;     /* the entities' models (scene_models.c); NULL = none */
    stream *stream;

    scene_chunk **chunks;            /* resident, uploaded */
    size_t chunk_count, chunk_cap;
    scene_chunk **deferred;          /* delivered outside the view: uploaded after those in it */
    size_t deferred_count, deferred_cap;
    scene_chunk *skybox_chunk;       /* 3D skybox chunk, loaded on first use */
    pmf_chunk_coord skybox_coord;
    bool skybox_failed;

    int radius;                      /* streaming radius, chunks: also how far the world is drawn */
    camera cam;
    bool view_dirty;                 /* the streamer has not seen the current camera yet */
    bool moving_camera;              /* scene_desc.moving_camera */
    bool stream_inline;              /* no stream workers: scene_update decodes (stream_work) */
    /* Until the first complete view (reserve_ahead): what the chunks uploaded so far take, their
     * decompressed common + client bytes, the bytes of the chunks that can be resident (0 = not
     * yet known), what is reserved */
    bool first_view_done;
    render_world_reserve_desc uploaded_needs, reserved;
    uint64_t uploaded_bytes;
    double resident_bytes;
    scene_settings settings;
    float wind[3];

    mesh_vis_set vis;
    bool vis_valid;
    int32_t vis_chunk[3];
    uint32_t vis_cube;

    uint64_t *scratch_bits;
    size_t scratch_words;
    render_draw_chunk *draws;
    size_t draw_cap;

    double opened_at, first_complete, upload_seconds;
    render_frame_stats last_frame;   /* sky + world */
    render_frame_stats last_world;   /* the chunks alone */
    uint32_t visible_chunks;
    scene_failure_entry failures[16];  /* the first chunks that failed to load */
    uint32_t failure_count;
    uint32_t evicted_since_trim;
    double trimmed_at;
    char budget_warning[640];          /* the first chunk the memory budget dropped, "" = none */
    char lowered_warning[640];         /* lightmaps lowered to fit the atlas, "" = none */
    uint32_t lowered_exp;              /* 1 + the smallest lowered side's exponent, 0 = none */
    uint32_t budget_dropped;
};

/* scene_models.c: the models of the map's point entities, read from the game directory (one
 * warning per model that is not there or broken), drawn after the opaque world; the sprites
 * blended over what is drawn (scene_sprite_look) after the world's blended faces, the farthest
 * first. */
void scene_models_open(scene *s, const char *game_dir, const char *const *fgds, size_t fgd_count);
void scene_models_draw(scene *s, const render_frame *f);
void scene_models_draw_blended(scene *s, const render_frame *f);
void scene_models_close(scene *s);

/* scene_model_classes.c: what a class's own game code shows (docs/models.md): its model, the
 * animation its frame starts (by name, NULL: frame 0) and its skin. The table of Half-Life's
 * classes for a GoldSrc map (pmfview.source's look), else Quake's; NULL for a class not there. */
typedef struct scene_model_class {
    const char *classname, *model, *animation;
    uint32_t skin;
} scene_model_class;
const scene_model_class *scene_model_class_find(const char *classname, bool goldsrc);

/* scene_model_sprite.c: a sprite's right and up in the world's axes, as its type (spr_type) turns
 * it: to the view plane (parallel oriented: turned there by the entity's roll), about the
 * vertical only, towards the eye (at: the sprite, camera frame) about the vertical, or fixed by
 * the entity's angles (oriented, Quake's AngleVectors). */
void scene_sprite_axes(const camera *cam, int type, const float angles[3], const float at[3], float right[3], float up[3]);
/* How a sprite of that version (1 Quake, 2 GoldSrc) is laid over the picture: Quake's opaque
 * with its holes; GoldSrc's by the entity's rendermode (normal opaque; colour, texture and solid
 * alpha-blended by renderamt; additive and glow added by it, glow not depth-tested), its
 * rendercolor (0 0 0: white) times the texel; a texel of alpha 0 a hole. */
struct render_model_look;
void scene_sprite_look(int version, const pmf_entity_info *info, struct render_model_look *out);
/* Whether a sprite of that version and texture format (spr_render) takes the level's light where
 * it stands, as Xash3D's R_SpriteHasLightmap (after GoldSrc): a GoldSrc alpha-test sprite in
 * rendermode 0, 2 or 4 with renderamt over 127; Quake's and every other one are drawn unlit. */
bool scene_sprite_lit(int version, int tex_format, const pmf_entity_info *info);
/* How a model (alias or studio) is laid over the picture by its entity's rendermode, as GoldSrc
 * draws models: normal opaque and lit; colour, texture and solid alpha-blended by renderamt and
 * lit (rendercolor is not a model's); glow and additive added by renderamt, unlit. renderamt 0
 * with any mode but normal: not drawn, as the engine skips an entity it would blend away. */
void scene_model_look(const pmf_entity_info *info, struct render_model_look *out);

/* scene_models.c: a model's corners (Quake or GoldSrc units and axes: x forward, y left, z up)
 * in the world's (metres; a point (x, y, z) is (x, z, -y) x 0.0254). */
void scene_model_world_axes(float *positions, size_t corners);

/* scene_model_glow.c: a glow sprite (GoldSrc's rendermode 3) as the engine draws it (Xash3D's
 * R_SpriteOccluded and R_SpriteGlowBlend), at `at` (the camera's frame, metres): the factor on
 * its scale (its distance over 200 units: the same size on screen at any distance); whether it
 * is drawn (not when its centre is off the frame or behind the eye, nor when the faces of the
 * resident chunks, but liquids and translucent ones, stop a trace from the eye more than 8 units
 * short of it) and its fade, 19000 units² over its distance squared, held to 0.05..1. */
float scene_glow_scale(const scene *s, const float at[3]);
bool scene_glow_shown(const scene *s, const float at[3], float *fade);

/* scene_model_studio.c: GoldSrc studio models (docs/models.md). */
struct game_fs;
struct render_models;
typedef struct scene_studio {
    struct studio_file *model;
    struct studio_file *textures;    /* its NAMEt.mdl when its textures live there, else NULL */
    uint8_t *texture_bytes;          /* that file's bytes (pmf_budget) */
    uint8_t **group_bytes;           /* [sequence groups]: NAMEnn.mdl's bytes once read (pmf_budget) */
    uint8_t *group_missing;          /* [sequence groups]: 1 once its file did not read (warned) */
} scene_studio;
/* A studio model's animation as an entity plays it (scene_studio_animation_of). */
#define SCENE_STUDIO_BIND STUDIO_BIND_POSE
typedef struct scene_studio_animation {
    uint32_t sequence;               /* or SCENE_STUDIO_BIND */
    uint32_t steps, start;           /* the frames shown (steps of one frame, or more past 256); the one at time 0 */
    uint32_t shown;                  /* the sequence's frames played: step k shows frame k * shown / steps */
    double rate;                     /* steps a second (0: still) */
    bool holds;                      /* a step past the last shows the last (a sequence that does not loop) */
} scene_studio_animation;
/* Whether a model file's bytes are a studio model's ("IDST"). */
bool scene_studio_is(const uint8_t *bytes, size_t size);
/* The model over bytes it borrows (path: for errors and its texture file's name, read from fs);
 * false with err filled, st then holding nothing. */
bool scene_studio_open(scene_studio *st, const struct game_fs *fs, const char *path, const uint8_t *bytes, size_t size,
                       pmf_error *err);
void scene_studio_close(scene_studio *st);
/* Its skin families (at least 1). */
uint32_t scene_studio_skins(const scene_studio *st);
/* How the entity's `sequence` plays from its `frame` (256ths of the way to the sequence's last
 * frame), as GoldSrc's StudioEstimateFrame steps it; a model of no sequence, or a sequence whose
 * group's file (NAMEnn.mdl) does not read (one warning, once per file and group), the bind pose.
 * False with err filled when the sequence is damaged or not the model's. */
bool scene_studio_animation_of(scene_studio *st, const struct game_fs *fs, const char *classname, const char *path, uint32_t sequence,
                               uint32_t frame, scene_studio_animation *out, pmf_error *err);
/* The sequence an entity of the class shows when it sets none, as Half-Life's code starts it: a
 * monster's (monster_*: MonsterInit's ACT_IDLE) idle, the heaviest of its ACT_IDLE sequences
 * (studio_find_activity; the game picks among them at random by weight); 0 for a model of none,
 * for every other class, and for the monsters whose own code picks another (the dead ones' poses,
 * the sitting scientist, the turrets, the tentacle). */
uint32_t scene_studio_own_sequence(const scene_studio *st, const char *classname);
/* How the class's code leaves its bone controllers: set by InitBoneControllers for the monsters
 * (MonsterInit, MonsterInitDead) and the cyclers (CCycler::Spawn), never set for the rest (items,
 * weapons, props). */
studio_controllers scene_studio_controllers(const char *classname);
/* Body `body` in skin family `skin` at the pose, uploaded (like >= 0: another pose of that handle,
 * its textures shared): its handle, or -1 with err filled. */
int scene_studio_add(struct render_models *gl, const scene_studio *st, const char *path, uint32_t body, uint32_t skin,
                     const studio_pose *pose, int like, pmf_error *err);

/* Mesh `handle` (another pose of body `body` in family `skin`, scene_studio_add) moved to the
 * pose, its positions alone built (a frame between two blended, studio_build_pose_mesh): false
 * when it does not build. */
bool scene_studio_set_pose(struct render_models *gl, int handle, const scene_studio *st, uint32_t body, uint32_t skin, const studio_pose *pose);

/* scene_model_light.c: the light under a model's origin (docs/models.md "Lit by the level"). */
#define SCENE_MODEL_LIGHT_LAYERS 8
typedef struct scene_model_layer {
    uint32_t id;                     /* the dynamic light */
    float rgb[3];                    /* its layer's luxel x colour, as composited at scale 1 */
} scene_model_layer;
typedef struct scene_model_light {
    float base[3];                   /* the luxel / 255 (0: no face below) */
    uint32_t layer_count;
    scene_model_layer layers[SCENE_MODEL_LIGHT_LAYERS];
} scene_model_light;
/* The luxel of the first face straight below world (metres) and its dynamic layers: false while
 * a chunk of the column down to that face is not resident (ask again later). */
bool scene_model_light_find(const scene *s, const float world[3], scene_model_light *out);
/* The light now: the base plus each enabled layer at its light's scale (styles, switches). */
void scene_model_light_value(const scene_model_light *l, const render_light *states, size_t state_count, float out[3]);

/* scene.c */
scene_failure_entry *scene_add_failure(scene *s, pmf_chunk_coord c, bool anywhere);

/* scene_chunks.c */
int scene_sky_env_index(const pmf_level *lvl, const char *name);
int scene_material_index(const pmf_level *lvl, const char *name);
void scene_chunk_free(scene_chunk *sc);
scene_chunk *scene_chunk_build(scene *s, pmf_chunk *chunk, char *err, size_t err_size);
void *scene_prepare_chunk(void *user, pmf_chunk *chunk, char *err, size_t err_size);
void scene_release_chunk(void *user, void *payload);

/* scene_lights.c */
bool scene_apply_light_filter(scene *s);

/* scene_view.c */
void scene_perspective(const camera *cam, float out[16]);
void scene_frustum_planes(const float m[16], float planes[6][4]);
void scene_shift_planes(const float in[6][4], const double origin[3], float out[6][4]);
bool scene_box_outside(const float planes[6][4], const float mn[3], const float mx[3]);
scene_chunk *scene_find_chunk(const scene *s, const int32_t c[3]);
void scene_chunk_coord_i32(const pmf_chunk_coord *c, int32_t out[3]);

/* scene_stream.c */
void scene_view_planes(const scene *s, float planes[6][4]);
bool scene_chunk_in_view(const scene *s, const float planes[6][4], pmf_chunk_coord coord);
void scene_stream_update(scene *s, double budget_ms, bool view_only);

/* scene_draw.c */
render_frame scene_settings_frame(const scene *s);
const pmf_sky_env *scene_frame_sky(const scene *s, render_sky *rs);
bool scene_prime_states(scene *s, double budget_ms);
bool scene_prepare_variants(scene *s, double budget_ms);
scene_chunk *scene_skybox_chunk(scene *s, pmf_chunk_coord c);

#endif
