/* editor_internal.h - what the editor front end's files share (private to src/compiler/front):
 * editor_import.c turns an editor map's brushes and entities into brushes, lights and cameras;
 * editor_materials.c finds the textures (WADs, texture folders) and makes the materials and the
 * sky; editor_lights.c reads the lights the way the map's game does; fill.c finds the inside. */
#ifndef PMFC_EDITOR_INTERNAL_H
#define PMFC_EDITOR_INTERNAL_H

#include "base/escape.h"
#include "editor.h"
#include "pak/pak.h"
#include "wad.h"

#define EDITOR_ANIM_FRAMES 10
#define EDITOR_DEFAULT_SCALE 0.0254  /* metres per editor unit */

/* A texture name the map uses, resolved once. */
typedef struct editor_texture {
    char name[64];                   /* upper case, as the material is named */
    int texture;                     /* index in map->textures */
    uint32_t width, height;          /* as the file has it (UVs divide by these) */
    int frames[EDITOR_ANIM_FRAMES];  /* +0NAME..+9NAME: texture indices of the frames found */
    int frame_count;
    bool missing;
} editor_texture;

/* A line of Half-Life's sound/materials.txt: a texture name (its first 12 characters) and the
 * kind of surface its footsteps and impacts sound like. */
typedef struct hl_texture_type { char name[13]; char type; } hl_texture_type;

typedef struct import_ctx {
    const char *path;
    const editor_import_desc *desc;
    map_def *map;
    level_def *level;
    double s;                        /* metres per unit */
    const editor_map *em;
    game_fs *game;                   /* --game DIR: its loose files over its paks (NULL: none) */
    escape_hold game_hold;           /* closes game on an escape */
    wad_file **wads; char **wad_names; size_t wad_count;
    uint8_t **wad_bytes;             /* [wad_count]: a WAD read from a pak (its memory), else NULL */
    char **missing_wads; size_t missing_wad_count, missing_wad_cap;
    uint8_t palette[768];            /* WAD2 and .wal texels: --game DIR's, else pmfview's own */
    bool game_palette;               /* the palette is the game's */
    char **folders; size_t folder_count, folder_cap;   /* _tb_textures, found */
    editor_texture *textures; size_t texture_count, texture_cap;
    char **missing_textures; size_t missing_texture_count, missing_texture_cap;
    hl_texture_type *types; size_t type_count, type_cap;   /* --game DIR/sound/materials.txt */
    uint32_t next_dynamic_id;
    bool *seals; size_t seal_count, seal_cap;   /* [brush]: whether it seals the map (fill.h) */
    bool has_sun;
    uint8_t sun_color[3];
    int dirt_default;                /* ericw-tools' worldspawn `_dirt`: 1 on, -1 off (editor_lights.c) */
    bool dirt_on;                    /* some light of the map asks for ambient occlusion */
    size_t cut_count;                /* names longer than the compiled map keeps, cut short */
    char cut_first[160];             /* the first of them, for the one warning (editor_note_cut) */
    bool failed;
} import_ctx;

/* How a brush entity draws its faces: Half-Life's render modes, Quake's alpha, a conveyor. */
typedef struct render_look {
    int mode;                        /* 0 normal, 1 colour, 2 texture, 3 glow, 4 solid, 5 additive */
    int amount;                      /* renderamt 0..255 (mode 0: Quake's alpha, 255 = opaque) */
    uint8_t color[3];                /* rendercolor (mode 1) */
    float conveyor;                  /* func_conveyor's speed, units a second (0: none) */
    bool liquid;                     /* func_water */
    bool not_solid;                  /* func_illusionary: seen, walked through */
} render_look;

/* Editor units (x, y, z, Z up) -> world metres (x, z, -y) (conventions §5); a direction alike,
 * unscaled. */
static inline v3 editor_to_world(const import_ctx *c, const double p[3])
{
    return v3_make(p[0] * c->s, p[2] * c->s, -p[1] * c->s);
}
static inline v3 editor_dir_to_world(v3 h) { return v3_make(h.x, h.z, -h.y); }

/* One "pmfc: ..." line (escaped); the import then stops. */
void import_fail(import_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A name from the map (an entity's key e->key, or a texture: e NULL) longer than the field of
 * keep bytes it goes to: counted, the first one named in the one warning the import ends with. */
void editor_note_cut(import_ctx *c, const char *value, size_t keep, const editor_entity *e, const char *key);
/* The value into dst (size bytes), noted as cut when it does not fit. */
void editor_copy_name(import_ctx *c, char *dst, size_t size, const char *value, const editor_entity *e, const char *key);
/* An entity's numbers from one key ("pitch yaw roll", "R G B BRIGHTNESS"): how many parsed. */
int editor_kv_numbers(const editor_entity *e, const char *key, double *out, int n);
/* Whether the class places a player (docs/rmf.md "Start cameras"). */
bool editor_places_player(const char *cls);
/* "entity N, line L" (RMF: "entity N, byte B") into buf. */
const char *editor_entity_where(const import_ctx *c, const editor_entity *e, char *buf, size_t size);

/* ---- editor_placement.c ---- */
/* The entity definitions: --fgd's files, else the one the worldspawn's `_tb_def` names; NULL when
 * there are none, or (c->failed) one does not read. fgd_free it. */
typedef struct fgd fgd;
fgd *editor_entity_definitions(import_ctx *c);
/* How the point entity's model stands (its angles, scale, skin, body, sequence, frame and model
 * keys, else its class's model in defs) into me; a value that does not read or is out of range
 * is one warning and the default. */
void editor_entity_placement(import_ctx *c, const fgd *defs, const editor_entity *e, map_entity *me);

/* ---- map_import.c ---- */
/* Entity i of a .map or a BSP's entity lump as an editor entity (its key-values borrowed from q;
 * point and brushes left to the caller). */
typedef struct qmap qmap;
editor_entity *editor_push_qmap_entity(editor_map *em, const qmap *q, uint32_t i);

/* ---- editor_lights.c ---- */
/* The light entities, read the way the map's game reads them, and the worldspawn's sky light
 * (ericw-tools' keys, in every dialect). Sets c->dirt_on when a light asks for ambient occlusion. */
void editor_import_lights(import_ctx *c);
/* out: the bake_patch.minlight of the faces of a brush of `owner` (the world: NULL), its `_minlight`
 * (ericw-tools' floor on a brush entity's light) and `_minlight_color` */
void editor_brush_minlight(const import_ctx *c, const editor_entity *owner, float out[3]);
/* Faces whose textures emit (GoldSrc: lights.rad, MAPNAME.rad, info_texlights, as hlrad's texture
 * lights; Quake: copies of a `_surface` light over them) get lights; returns how many. After the
 * brushes. */
size_t editor_import_texture_lights(import_ctx *c);

/* ---- palette.c ---- */
/* pmfview's own 256-colour palette for WAD2 and .wal texels without the game's (docs/map.md). */
void editor_builtin_palette(uint8_t palette[768]);

/* ---- editor_materials.c ---- */
#define EDITOR_PLACE_MAX (PMFC_PATH_MAX * 2)
/* The places one entry of a worldspawn `wad` list (';'-separated, as the editor wrote it: often a
 * Windows path) is looked for, in order: as written, by its file name in --game DIR, beside the
 * map. Trims the entry's spaces and turns its backslashes in place; returns how many places (0
 * for an empty entry) and the file name in *base. */
int editor_wad_places(const char *map_path, const char *game_dir, char *entry, char places[3][EDITOR_PLACE_MAX],
                      const char **base);
/* Opens the --wad files, then those of the worldspawn `wad` / `_wad` key (NULL: none) that are
 * found; reads the palette WAD2 and .wal textures take. */
void editor_open_textures(import_ctx *c, const char *wad_key);
/* --game DIR's sound/materials.txt (loose or in a pak), when there is one. */
void editor_read_texture_types(import_ctx *c);
/* The file at path in --game DIR (loose, else the latest pak holding it), at most limit bytes,
 * into memory (pmf_budget_free); NULL when there is no --game, it is in neither, or damaged (then
 * the compile fails, said). */
uint8_t *editor_read_game_file(import_ctx *c, const char *path, uint64_t limit, size_t *size);
/* The texture a face names, loaded on first use: an index in c->textures, or -1 on failure. */
int editor_use_texture(import_ctx *c, const char *name);
/* How a brush entity (or the world: NULL) draws its faces. */
/* A regular file there (looked at without opening it: a FIFO must not block the compile). */
bool editor_file_exists(const char *path);
render_look editor_entity_look(const editor_entity *e);
/* The level material for a texture drawn that way. */
int editor_material(import_ctx *c, int tex, render_look look);
/* The level's sky from `skyname`. */
void editor_import_sky(import_ctx *c, const char *skyname);
/* The warning lines for WADs and textures not found (nothing when all were). */
void editor_report_missing(const import_ctx *c);
void editor_materials_free(import_ctx *c);

#endif
