/* world.h - pmfc's world model: what the source (or the generator) describes, as every front end
 * fills it (levels, brushes, materials, lights, cameras) and the back end reads it. What the back
 * end builds from it is common/level_build.h; each stage's entry points are in its folder's header.
 *
 * Coordinates: the source's metres are world metres (Y up). Each level's chunk grid puts chunk
 * centres on multiples of the chunk side S; see docs/pmfc.md "Space".
 */
#ifndef PMFC_WORLD_H
#define PMFC_WORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/geometry.h"
#include "pmf/pmf.h"
#include "bake/bake.h"

#define PMFC_NAME_MAX 64
#define PMFC_PATH_MAX 256
#define PMFC_MAX_FRAMES 16
#define PMFC_LIGHT_RADIUS 0.1           /* metres: a light's default size (.pms `radius`) */
#define PMFC_SUN_SIZE 1.0               /* degrees: a sun's default angular radius (.pms `size`) */
#define PMFC_DIRT_DISTANCE 2.0          /* metres: ambient occlusion's default reach */
#define PMFC_DIRT_STRENGTH 0.5          /* its default strength (0..1) */

/* ---- definitions from the source ------------------------------------------------------- */

typedef struct texture_def {
    char name[PMFC_NAME_MAX];
    uint32_t width, height;
    uint8_t *rgba;
    bool standin;                    /* drawn for a texture found nowhere: reflects a default grey */
} texture_def;

typedef struct physics_def {
    char name[PMFC_NAME_MAX];
    pmf_physics_material pm;         /* pm.name points at name */
} physics_def;

typedef struct sound_def {
    char name[PMFC_NAME_MAX];
    pmf_sound_material sm;
} sound_def;

typedef struct material_def {
    char name[PMFC_NAME_MAX];
    char type[PMFC_NAME_MAX];
    uint8_t flags, render_mode;                  /* PMF_MATERIAL_*, PMF_RENDMODE_* */
    char texture[PMFC_PATH_MAX];                 /* resource path, "" = none */
    char frames[PMFC_MAX_FRAMES][PMFC_PATH_MAX]; /* extra textures */
    int frame_count;
    uint32_t advance_us;
    float scroll[2];
    uint8_t color[3], alpha, emission[3], shading, shine;
    char matcap[PMFC_PATH_MAX];
    pmf_wave_info wave;
    int physics, sound;                          /* indices into the map's lists */
    bool double_sided;
    double tex_scale;                            /* metres per texture repeat */
    double smooth_angle;                         /* degrees: its faces meeting at less than this bake
                                                  * with smoothed normals (0 = flat; smooth.c) */
    int line;
} material_def;

/* True when the material hides what is behind it (occludes light and sight). */
bool material_opaque(const material_def *m);
/* True when faces of the material get a lightmap (liquids take cube lighting, unshaded none). */
bool material_lightmapped(const material_def *m);

enum { BRUSH_BOX, BRUSH_WEDGE, BRUSH_CONVEX };

/* A planar texture projection: u = dot(p, u) + ou, v = dot(p, v) + ov, in repeats, p in world
 * metres. */
typedef struct tex_proj { v3 u, v; double ou, ov; } tex_proj;

/* What a brush side shows: a material index, or nothing (it only bounds the brush), or open sky
 * (not drawn; the sky shows through and sunlight enters there). */
enum { BRUSH_SIDE_NODRAW = -1, BRUSH_SIDE_SKY = -2 };

/* One side of a convex brush: its bounding plane (normal pointing out of the brush), what its
 * face shows, and its texture projection (an index into the level's tex_projs, or -1 for the
 * world projection from the brush's tex_scale and tex_offset). */
typedef struct brush_side {
    plane pl;
    int material;
    int tex;
} brush_side;

/* A convex solid: the intersection of the back half-spaces of its sides, which live in the
 * level's `sides` array (brushes are copied freely, e.g. into tiles, so they hold no pointers). */
typedef struct brush {
    int kind;
    uint32_t first_side, side_count;
    v3 lo, hi;                                   /* bounds */
    double tex_scale;                            /* 0 = the material's */
    double tex_offset[2];
    bool opaque;                                 /* hides the faces of brushes it covers */
    bool shadowless;                             /* blocks no light (level_occluders with shadows) */
    bool exact;                                  /* its sides are drawn as they are: the CSG cuts them
                                                  * by nothing and them into nothing (a BSP's faces) */
    double luxel_scale;                          /* luxels this many times the level's spacing apart (0 = 1) */
    float minlight[3];                           /* bake_patch.minlight of its faces (Quake's `_minlight`) */
    int line;
} brush;

typedef struct light_def {
    bake_light_kind kind;
    bake_light_shape shape;
    uint32_t id;
    v3 pos;
    v3 direction;                                /* spots and suns (unit) */
    float cos_inner, cos_outer;                  /* spots */
    char name[PMFC_NAME_MAX];                    /* the source's name for it ("" = none) */
    uint8_t color[3];
    float brightness, range;
    float radius;                                /* bake_light.radius: metres; suns: radians */
    uint8_t intensity;                           /* fast lights: initial intensity */
    bool enabled, preserve;
    int falloff;                                 /* bake_light.falloff: LIGHT_FALLOFF_* (0 = pmfc's curve) */
    int cone;                                    /* bake_light.cone: LIGHT_CONE_* (0 = pmfc's smooth step) */
    float falloff_distance, anglescale;          /* bake_light's */
    bool no_dirt;                                /* bake_light's: ambient occlusion leaves it alone */
    int style;                                   /* the game's light style (1.. animate; 0 = none) */
    int line;
} light_def;

typedef struct sky_def {
    char name[PMFC_NAME_MAX];
    int skybox[PMF_FACE_COUNT];                  /* material index or -1 */
    int cloud_top, cloud_bottom;
    bool has_3d;
    v3 skybox_point;                             /* a point inside the 3D skybox's chunk */
    int line;
} sky_def;

typedef struct sound_env_def { char name[PMFC_NAME_MAX]; pmf_sound_env env; } sound_env_def;
typedef struct weather_def { char name[PMFC_NAME_MAX]; pmf_weather_env env; } weather_def;
typedef struct gravity_def { char name[PMFC_NAME_MAX]; pmf_gravity_env env; } gravity_def;

enum { REGION_SKY, REGION_SOUND, REGION_WEATHER, REGION_GRAVITY, REGION_LOAD };
typedef struct region_def {
    int kind;
    char env[PMFC_NAME_MAX];
    v3 lo, hi;
    v3 act_lo, act_hi;                           /* load regions: the chunks to activate */
    int line;
} region_def;

/* Light the source baked already (a BSP's lightmaps): after pmfc's bake, each luxel whose world
 * point it covers takes its value (stored bytes, RGB). Its points are the source's (world less
 * the level's shift). Owned by the level: free is called by
 * map_free. */
typedef struct prelit_source prelit_source;
/* The source's light styles at a point besides the base (style 0) light: a game's animated or
 * switchable lights, each in its own lightmap (a BSP face holds up to four). */
#define PRELIT_MAX_STYLES 4
typedef struct prelit_styles {
    int count;
    uint8_t style[PRELIT_MAX_STYLES];            /* 1..254 */
    uint8_t rgb[PRELIT_MAX_STYLES][3];
} prelit_styles;
struct prelit_source {
    /* The base light at the point (0 where only styles light it) and, when styles is not NULL,
     * the styles'. False where the source has no light there. */
    bool (*sample)(const prelit_source *src, v3 world, v3 normal, uint8_t rgb[3], prelit_styles *styles);
    /* The source's luxel grid on the surface at world (NULL or false: pmfc's own): unit axes,
     * the spacing (metres) and one luxel's centre. Blocks laid on it copy luxels exactly. */
    bool (*grid)(const prelit_source *src, v3 world, v3 normal, v3 *t, v3 *b, double *spacing, v3 *luxel);
    void (*free)(prelit_source *src);
};

/* Visibility the source computed already (a BSP's PVS): fills *out as vis_run would for the
 * cells and targets (world metres, the level's shift `shift` from source to world), each
 * cell's list ascending. Owned by the level: free is called by map_free. */
typedef struct vis_source vis_source;
struct vis_source {
    bool (*run)(const vis_source *src, v3 shift, const vis_box *cells, size_t cell_count, const vis_box *targets,
                size_t target_count, vis_result *out);
    void (*free)(vis_source *src);
};

/* Why a face of an editor map's source is not in its level (the emptiness check, docs/pmfc.md). */
typedef enum face_loss {
    FACE_LOSS_HIDDEN,                            /* in a hidden visgroup */
    FACE_LOSS_TOOL,                              /* a tool texture: clip, trigger, origin, skip, hint, null... */
    FACE_LOSS_VOLUME,                            /* a volume entity's (trigger_*, func_ladder...): none is drawn */
    FACE_LOSS_SKY,                               /* sky: the sky shows there, not a face */
    FACE_LOSS_BAD_BRUSH,                         /* its brush was dropped as bad */
    FACE_LOSS_OUTSIDE,                           /* only the void outside sees it (the outside fill, fill.h):
                                                  * counted in the pieces CSG leaves */
    FACE_LOSS_COUNT
} face_loss;

/* The source's faces of a level and those left out, by why: each front end and stage that leaves
 * faces out adds to lost[]. A level that keeps no geometry of a source that had faces is an error
 * naming them (level_emptiness). source 0: no check (pmfc's own sources, generated maps). */
typedef struct face_tally { uint64_t source, lost[FACE_LOSS_COUNT]; } face_tally;

typedef struct level_def {
    char name[PMFC_NAME_MAX];
    int chunk_exp;                               /* -1 = auto */
    uint8_t flags;
    float ambient[3];                            /* 0..1 */
    float sky_light[3];                          /* 0..1: light from open sky (bake_desc.sky_light) */
    bool sky_faces_only;                         /* bake_desc's: with sky faces, only they let the sky in */
    bool bounce_no_sky_loss;                     /* bake_desc's: bounces as the classic hlrad transfers them */
    int bounce_cell;                             /* bake_desc's: luxels a bounce cell's side (0 = the baker's) */
    float bounce_albedo;                         /* every surface reflects this share (0: its texture's) */
    bake_dome sky_domes[2];                      /* bake_desc.domes: above and below the horizon */
    int dome_samples;                            /* bake_desc.dome_samples (0 = the baker's default) */
    int samples;                                 /* bake_desc.samples (pmfc --samples) */
    float dirt_distance, dirt_strength;          /* bake_desc: ambient occlusion, 0 = none */
    float dirt_flag_distance, dirt_flag_strength; /* what pmfc --dirt turns on: the dialect's (0: pmfc's) */
    bool ambient_no_dirt;                        /* bake_desc's: ambient occlusion leaves the ambient term alone */
    bool ambient_floor;                          /* bake_desc's: the ambient is a floor (Quake's minlight) */
    bool liquids_two_sided;                      /* liquids' patches are bake_patch.two_sided (ericw-tools') */
    float store_scale, store_gamma;              /* bake_desc: how light is stored (0 = linear) */
    v3 shift;                                    /* world = source + shift (level_layout) */
    bool allow_empty;                            /* no solids is not an error (RMF maps of entities only) */
    bool keep_origin;                            /* the grid holds the source origin: world = source */
    double luxel_density;                        /* luxels per metre */
    double vis_cell;                             /* metres; 0 = auto */
    bool no_visibility;                          /* write no visibility data */
    double min_cube;                             /* metres; 0 = 2 */
    bool fullbright;                             /* no light: no lightmaps, no cube lighting (shown fullbright) */
    struct fill_grid *fill;                      /* sealed: faces only the void sees are left out (fill.h) */
    face_tally faces;                            /* the source's faces and where they went */
    prelit_source *prelit;                       /* NULL: pmfc's bake alone */
    vis_source *vis_source;                      /* NULL: pmfc's own visibility (vis.c) */
    int vis_rays;                                /* vis_desc.rays_per_pair; 0 = the baker's default */
    char air_physics[PMFC_NAME_MAX];
    char default_sky[PMFC_NAME_MAX], default_sound[PMFC_NAME_MAX];
    char default_weather[PMFC_NAME_MAX], default_gravity[PMFC_NAME_MAX];

    brush *brushes; size_t brush_count, brush_cap;
    brush_side *sides; size_t side_count, side_cap;
    tex_proj *tex_projs; size_t tex_proj_count, tex_proj_cap;
    light_def *lights; size_t light_count, light_cap;
    sky_def *skies; size_t sky_count, sky_cap;
    sound_env_def *sound_envs; size_t sound_env_count, sound_env_cap;
    weather_def *weathers; size_t weather_count, weather_cap;
    gravity_def *gravities; size_t gravity_count, gravity_cap;
    region_def *regions; size_t region_count, region_cap;
    int line;
} level_def;

/* True when light from the sky lights the level without a light of its own (sky light, a dome). */
bool level_sky_lit(const level_def *l);

/* A start camera (the pmfview.cameras extension, conventions §4): world metres, degrees. */
typedef struct start_camera {
    char name[PMFC_NAME_MAX];
    uint8_t level;
    v3 pos;
    double yaw, pitch;
} start_camera;

/* A point entity of the source (the pmfview.entities extension): world metres; how its model
 * stands (pmfview.entity_placement: pmf_map_info.h's angles, scale and PMF_NOT_GIVEN). */
typedef struct map_entity {
    uint8_t level;
    v3 pos;
    char classname[PMFC_NAME_MAX], targetname[PMFC_NAME_MAX];
    float angles[3], scale;
    int32_t skin, body, sequence, frame;
    char model[PMFC_NAME_MAX];
    uint8_t render_mode, render_amount, render_color[3];   /* GoldSrc's keys (pmfview.entity_render) */
    float framerate;                                        /* -1: not given */
} map_entity;

typedef struct map_def {
    char name[256], description[1024], authors[256];
    uint8_t look;                                /* PMF_LOOK_*: the display curve of the game it came from */
    char source_format[160], source_compiler[128];   /* the pmfview.source extension ("" = none) */
    map_entity *entities; size_t entity_count, entity_cap;
    /* the void reaches an entity: the way in (world metres), kept in the pmfview.leak extension */
    bool leak;
    uint8_t leak_level;
    char leak_class[PMFC_NAME_MAX];
    v3 *leak_points; size_t leak_point_count;
    int gamemode_count;
    char gamemodes[PMF_MAX_GAMEMODES][PMF_MAX_GAMEMODE_LEN + 1];
    texture_def *textures; size_t texture_count, texture_cap;
    physics_def *physics; size_t physics_count, physics_cap;
    sound_def *sounds; size_t sound_count, sound_cap;
    material_def *materials; size_t material_count, material_cap;
    level_def *levels; size_t level_count, level_cap;
    start_camera *cameras; size_t camera_count, camera_cap;
} map_def;

int map_find_material(const map_def *map, const char *name);
/* Adds the "default" physics and sound materials every map has. */
void map_init(map_def *map);
void map_free(map_def *map);

#endif
