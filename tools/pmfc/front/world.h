/* world.h - pmfc's in-memory world: what the source (or the generator) describes, and what the
 * front end builds from it on the way to PMF (faces, chunks, octrees, lightmaps).
 *
 * Coordinates: the source's metres are world metres (Y up). Each level's chunk grid puts chunk
 * centres on multiples of the chunk side S; see docs/pmfc.md "Space".
 */
#ifndef PMFC_WORLD_H
#define PMFC_WORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmf/pmf.h"
#include "bake.h"

#define PMFC_NAME_MAX 64
#define PMFC_PATH_MAX 256
#define PMFC_MAX_FRAMES 16
#define PMFC_LIGHT_RADIUS 0.1           /* metres: a light's default size (.pms `radius`) */
#define PMFC_SUN_SIZE 1.0               /* degrees: a sun's default angular radius (.pms `size`) */
#define PMFC_DIRT_DISTANCE 2.0          /* metres: ambient occlusion's default reach */
#define PMFC_DIRT_STRENGTH 0.5          /* its default strength (0..1) */

/* ---- vectors (double: CSG and clipping want the headroom) ------------------------------ */

typedef union v3 { struct { double x, y, z; }; double e[3]; } v3;

static inline v3 v3_make(double x, double y, double z) { v3 r = { { x, y, z } }; return r; }
static inline v3 v3_add(v3 a, v3 b) { return v3_make(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline v3 v3_sub(v3 a, v3 b) { return v3_make(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline v3 v3_scale(v3 a, double s) { return v3_make(a.x * s, a.y * s, a.z * s); }
static inline double v3_dot(v3 a, v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline v3 v3_cross(v3 a, v3 b) { return v3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }
v3 v3_normalize(v3 a);

/* Plane: points p with dot(n, p) == d; the front is where dot(n, p) > d. */
typedef struct plane { v3 n; double d; } plane;

/* A convex polygon, counter-clockwise seen from its front. */
#define POLY_MAX 96                      /* a convex face of a brush of up to 92 sides */
typedef struct poly { int n; v3 p[POLY_MAX]; } poly;

#define GEOM_EPS 1e-5

/* Splits in by pl into the parts in front and behind (either may be NULL). A polygon lying in the
 * plane goes wholly to the side its own normal `facing` points to. */
void poly_split(const poly *in, plane pl, v3 facing, poly *front, poly *back);
/* Keeps the part of in inside [lo, hi] on every axis; a polygon lying in a box side is kept only
 * when it faces into the box. Returns false when nothing (of area) is left. */
bool poly_clip_box(const poly *in, v3 facing, v3 lo, v3 hi, poly *out);
double poly_area(const poly *p);
/* Drops repeated and collinear points. */
void poly_simplify(poly *p);

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
    bool exact;                                  /* its sides are drawn as they are: the CSG cuts them
                                                  * by nothing and them into nothing (a BSP's faces) */
    double luxel_scale;                          /* luxels this many times the level's spacing apart (0 = 1) */
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
    bake_dome sky_domes[2];                      /* bake_desc.domes: above and below the horizon */
    int dome_samples;                            /* bake_desc.dome_samples (0 = the baker's default) */
    int samples;                                 /* bake_desc.samples (pmfc --samples) */
    float dirt_distance, dirt_strength;          /* bake_desc: ambient occlusion, 0 = none */
    bool ambient_no_dirt;                        /* bake_desc's: ambient occlusion leaves the ambient term alone */
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

/* A point entity of the source (the pmfview.entities extension): world metres. */
typedef struct map_entity {
    uint8_t level;
    v3 pos;
    char classname[PMFC_NAME_MAX], targetname[PMFC_NAME_MAX];
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

/* Grows a dynamic array by one zeroed element and returns it (exits on out of memory). */
void *grow(void **items, size_t *count, size_t *cap, size_t size);
#define PUSH(arr, count, cap) grow((void **)&(arr), &(count), &(cap), sizeof *(arr))
/* The front end's allocations, accounted against the memory budget (memory.c): out of memory
 * exits 3, over the budget exits 2 naming it. What they return is freed with xfree. */
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
void xfree(void *p);
/* Budget for the bytes of a buffer another allocator makes (the baker's, the encoder's), taken
 * as xmalloc would; given back with memory_give. */
void memory_take(uint64_t bytes, const char *what);
void memory_give(uint64_t bytes);
/* Stops pmfc over the budget: bytes more were needed (0 = unknown) for what (NULL = the stage's
 * work). One line, exit 2. */
_Noreturn void memory_over_budget(uint64_t bytes, const char *what);
/* What pmfc is building, for the over-budget line: the source file (and the line of the level's
 * definition, 0 = none; NULL keeps them) and the stage. Process-wide; the stage is a static string. */
void memory_where(const char *source, int line, const char *stage);

int map_find_material(const map_def *map, const char *name);
/* Adds the "default" physics and sound materials every map has. */
void map_init(map_def *map);
void map_free(map_def *map);

/* Brush construction (brush.c): each appends a brush and its sides to the level and returns it.
 * Materials: per face direction (PMF face order), and the slope. */
brush *brush_box(level_def *l, v3 lo, v3 hi, const int material[PMF_FACE_COUNT]);
/* rise: the PMF face direction (+X, +Z, -X or -Z) toward which the wedge's top slopes up. */
brush *brush_wedge(level_def *l, v3 lo, v3 hi, int rise, const int material[PMF_FACE_COUNT], int slope_material);
/* An empty convex brush around the box [lo, hi] (a box holding it: its sides' polygons start as
 * squares that size): add sides with brush_add_side, then call brush_finish, which sets the
 * exact bounds from the sides' polygons and returns false (dropping the brush) when nothing of
 * volume is left. */
brush *brush_begin(level_def *l, int kind, v3 lo, v3 hi);
void brush_add_side(level_def *l, brush *b, plane pl, int material, int tex);
/* The polygon of side i of a brush (its plane cut by every other side); false when it has none. */
bool brush_side_poly(const level_def *l, const brush *b, uint32_t i, poly *out);
bool brush_finish(level_def *l, brush *b);
static inline brush_side *brush_sides(const level_def *l, const brush *b) { return &l->sides[b->first_side]; }

/* ---- parsing (parse.c) --------------------------------------------------------------------- */

/* Parses a source file into map (after map_init). On error prints "FILE:LINE: message" to
 * stderr and returns false. */
bool parse_file(const char *path, map_def *map);
/* The same over size bytes in memory; name stands for the file in messages and image paths. */
bool parse_source(const char *name, const char *text, size_t size, map_def *map);

/* The editor front ends (RMF and .map): editor.h. */

/* ---- textures (texture.c) --------------------------------------------------------------------- */

/* Fills tex->rgba from a procedural recipe. Returns NULL or an error message. */
const char *texture_procedural(texture_def *tex, const char *kind, uint32_t size,
                               const uint8_t color[3], const uint8_t color2[3], uint32_t seed);
const char *texture_image(texture_def *tex, const char *path);
/* The same for an image of any size (callers resample it to powers of two). */
const char *texture_image_any(texture_def *tex, const char *path);
/* Encodes every texture as PTF into a PAF archive (textures/NAME.ptf). */
bool textures_archive(const map_def *map, uint8_t **out, size_t *size);

/* ---- the compiled level (level.c and friends) ----------------------------------------------- */

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
    uint32_t dropped;                            /* triangles that found no room (reported) */
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
    bool quiet;                                  /* no notes on stderr */
} level_build;

/* Index of grid position (x, y, z), inside the window, in chunks[]. */
static inline size_t level_chunk_index(const level_build *lb, uint32_t x, uint32_t y, uint32_t z)
{ return ((size_t)y * lb->wnx + (x - lb->wx0)) * lb->wnz + (z - lb->wz0); }
static inline size_t level_chunk_count(const level_build *lb) { return (size_t)lb->wnx * lb->ny * lb->wnz; }
/* The chunk at grid position (x, y, z), or NULL outside the grid or the window. */
chunk_build *level_chunk_at(const level_build *lb, int64_t x, int64_t y, int64_t z);

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
 * it too). */
float (*level_occluders(const level_build *lb, v3 origin, size_t *count, uint32_t **faces))[9];
/* Brushes -> visible faces (CSG), then faces -> chunks. */
void level_faces(level_build *lb);
void level_clip_to_chunks(level_build *lb);
/* Per chunk: lightmap blocks and packing (lightmap.c). */
void chunk_unwrap(const level_build *lb, chunk_build *cb);
/* Per chunk: the octree's cubes and leaf polygons (octree.c); margin chunks too, as their
 * neighbours seal against them. */
void chunk_octree(const level_build *lb, chunk_build *cb);
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
/* Lights (light.c): describes the level to the baker, runs it, and keeps what each chunk gets. */
typedef struct level_light level_light;
/* True when the light's sphere reaches the box (a sun reaches everything). */
bool light_reaches(const light_def *l, v3 lo, v3 hi);
level_light *level_bake(level_build *lb, void (*progress)(void *, const char *, double), void *user);
/* Before the bake: marks the faces whose every luxel the source's light (level_def.prelit)
 * covers, which the bake then leaves out (lightmap.c). */
void level_mark_prelit(level_build *lb);
/* After it: the source's own light over the luxels it covers, its light styles into the layers
 * of the dynamic lights with those styles (level_light_layer). */
void level_apply_prelit(level_build *lb, level_light *ll);
/* The layer of the level's light on bake lightmap `lightmap`: NULL when it has none and `add`
 * is false, else made (zeroed) when missing. Thread-safe; call level_light_index_layers after. */
uint8_t *level_light_layer(level_light *ll, uint32_t light, uint32_t lightmap, bool add);
void level_light_index_layers(level_light *ll);
/* Visibility (visibility.c): fills cube visibility data of the cells. */
bool level_visibility(level_build *lb, const float (*tris)[9], size_t tri_count,
                      void (*progress)(void *, const char *, double), void *user);
void level_visibility_free(level_build *lb);
/* Emission (emit.c): the level's pmf_level (once), then one encoded chunk per present chunk of
 * the window outside its margin, handed to the writer later (windows are built in parallel, and
 * put in order). */
bool level_begin(const level_build *lb, pmf_writer *w);
typedef struct encoded_chunks { pmf_chunk_coord *coords; pmf_encoded_chunk *enc; size_t count; } encoded_chunks;
bool level_encode(level_build *lb, level_light *ll, encoded_chunks *out, void (*progress)(void *, const char *, double), void *user);
/* Puts them all into the writer (which takes their bytes), frees the rest. */
bool encoded_chunks_put(encoded_chunks *ec, pmf_writer *w, const char *level_name);
void level_light_free(level_light *ll);
void level_build_free(level_build *lb);

#endif
