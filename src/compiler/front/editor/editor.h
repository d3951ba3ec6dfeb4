/* editor.h - the editor front end: what a level editor's map holds (Worldcraft / Hammer / J.A.C.K.
 * RMF, Quake-family .map from TrenchBroom, J.A.C.K., NetRadiant), source-neutral, and its import
 * into pmfc's world model (conventions §5, docs/rmf.md, docs/map.md).
 *
 *   source reader (rmf/, map/)  ->  editor_map (this file)  ->  editor_import  ->  map_def
 *
 * An editor map is entities of key-values, some holding brushes; a brush is convex, the
 * intersection of the back half-spaces of its faces' planes. Coordinates are the editor's units
 * (Z up), converted to world metres (x, z, -y) x scale by the import. The strings are borrowed from
 * the reader's result, which outlives the import. */
#ifndef PMFC_EDITOR_H
#define PMFC_EDITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/world.h"

#define EDITOR_TEXTURE_MAX 128

/* Which game's rules the map follows: its tool textures, texture files and light model. */
typedef enum editor_game {
    EDITOR_GAME_GOLDSRC,             /* Half-Life and its mods: WAD3, hlrad's lights */
    EDITOR_GAME_QUAKE,               /* Quake: WAD2 with a palette, ericw-tools' light */
    EDITOR_GAME_QUAKE2,              /* Quake 2: .wal files in the game dir, surface flags */
} editor_game;

/* How the file was written (for the summary line and `info`). */
typedef enum editor_format {
    EDITOR_FORMAT_RMF,
    EDITOR_FORMAT_MAP_STANDARD,      /* Quake's: ( p ) ( p ) ( p ) TEX shift_u shift_v rot scale_u scale_v */
    EDITOR_FORMAT_MAP_VALVE,         /* Valve 220: TEX [ ux uy uz shift ] [ vx vy vz shift ] rot scale_u scale_v */
    EDITOR_FORMAT_MAP_QUAKE2,        /* standard + contents, surface flags and value */
    EDITOR_FORMAT_BSP,               /* a compiled map taken apart: its faces as they are (bsp_import.c) */
} editor_format;

/* A texture the map file carries itself (a BSP's embedded miptex), found before any WAD. */
typedef struct editor_embedded_texture {
    char name[16];
    const uint8_t *miptex;           /* the whole record, borrowed from the front end */
    size_t size;
    uint64_t offset;                 /* its byte in the file, for errors */
} editor_embedded_texture;

typedef struct editor_kv { const char *key, *value; } editor_kv;

/* Quake 2 surface flags and contents the import reads (0 in other games). */
enum {
    EDITOR_SURF_LIGHT = 0x1, EDITOR_SURF_SKY = 0x4, EDITOR_SURF_WARP = 0x8, EDITOR_SURF_TRANS33 = 0x10,
    EDITOR_SURF_TRANS66 = 0x20, EDITOR_SURF_NODRAW = 0x80, EDITOR_SURF_HINT = 0x100, EDITOR_SURF_SKIP = 0x200,
};
enum {
    EDITOR_CONTENTS_WINDOW = 0x2, EDITOR_CONTENTS_LAVA = 0x8, EDITOR_CONTENTS_SLIME = 0x10, EDITOR_CONTENTS_WATER = 0x20,
    EDITOR_CONTENTS_MIST = 0x40, EDITOR_CONTENTS_PLAYERCLIP = 0x10000, EDITOR_CONTENTS_MONSTERCLIP = 0x20000,
    EDITOR_CONTENTS_ORIGIN = 0x1000000, EDITOR_CONTENTS_DETAIL = 0x8000000, EDITOR_CONTENTS_TRANSLUCENT = 0x10000000,
};

typedef struct editor_face {
    double normal[3], dist;          /* the plane, outward unit normal: n . p = dist (units) */
    char texture[EDITOR_TEXTURE_MAX];
    bool has_axes;                   /* Valve 220 / RMF 2.2: u_axis, v_axis given; else Quake's from the plane */
    double u_axis[3], v_axis[3];
    double shift[2], rotation, scale[2];
    uint32_t contents, flags;        /* Quake 2 */
    int32_t value;
    uint32_t index;                  /* its number in its brush, as the file has it */
    uint64_t offset;                 /* RMF: the face record's byte */
    int line, column;                /* .map: where the face is written */
} editor_face;

typedef struct editor_brush {
    uint32_t first_face, face_count; /* editor_map.faces */
    uint32_t entity;                 /* the entity it belongs to */
    uint32_t index;                  /* RMF: the solid's number; .map: the brush's number in its entity */
    uint64_t offset;
    int line;
    bool has_bounds;                 /* lo / hi from the file's vertices (RMF) */
    double lo[3], hi[3];
    bool exact;                      /* a BSP's face: its drawn side stays as it is (brush.exact) */
    bool inward;                     /* RMF: a face's points wind into the solid its vertices draw */
    uint32_t inward_face;            /* (a damaged file): the first such face */
} editor_brush;

typedef struct editor_entity {
    const char *classname;           /* "" for none */
    editor_kv *kv;                   /* owned by the editor map; the strings are the reader's */
    uint32_t kv_count;
    int32_t spawnflags;
    bool point;                      /* placed by its origin (no brushes) */
    double origin[3];                /* units */
    uint32_t first_brush, brush_count;
    uint32_t index;                  /* RMF: the object's number; .map: the entity's number */
    uint64_t offset;
    int line;
} editor_entity;

/* RMF's DOCINFO cameras. */
typedef struct editor_camera { double eye[3], look[3]; } editor_camera;

typedef struct editor_map {
    editor_format format;
    editor_game game;
    float version;                   /* RMF's; .map: 0 */
    editor_entity *entities;         /* [0] is the worldspawn */
    size_t entity_count, entity_cap;
    editor_brush *brushes;
    size_t brush_count, brush_cap;
    editor_face *faces;
    size_t face_count, face_cap;
    editor_camera *cameras;
    size_t camera_count, camera_cap;
    uint32_t source_solids, source_faces; /* as the file has them, hidden ones included */
    /* faces of source_faces the front end left out of the editor map, by why (world.h face_loss):
     * hidden ones, those of a bad brush the reader or front end drops. The import adds its own
     * (tool textures, sky, bad brushes it drops) into the level's face_tally. */
    uint32_t lost_faces[FACE_LOSS_COUNT];
    const char *format_label;        /* EDITOR_FORMAT_BSP: "GoldSrc BSP v30" ... */
    editor_embedded_texture *embedded;
    size_t embedded_count;
    bool prelit;                     /* it carries its compiler's light: never fullbright for want of lights */
    bool sealed;                     /* EDITOR_FORMAT_BSP: its compiler sealed it (bsp_import.c): no leak is looked for */
} editor_map;

typedef struct editor_import_desc {
    const char *const *wads;         /* --wad files, searched first, in order */
    size_t wad_count;
    const char *game_dir;            /* --game DIR (NULL: none) */
    double scale;                    /* metres per unit; 0 = 0.0254 */
    double max_luxels;               /* lightmap luxels before coarser ones; 0 = PMFC_MAX_LEVEL_LUXELS */
    const char *rad;                 /* --rad FILE: GoldSrc texture lights (NULL: lights.rad beside the map, then in --game DIR) */
    const char *const *fgds;         /* --fgd files, in order (none: the worldspawn's _tb_def) */
    size_t fgd_count;
    bool quiet;
} editor_import_desc;

/* The map's key (case-insensitive), or NULL; its number, or fallback. */
const char *editor_kv_get(const editor_entity *e, const char *key);
double editor_kv_number(const editor_entity *e, const char *key, double fallback);
/* Orders the brushes by entity (stable) and sets each entity's first_brush / brush_count. */
void editor_map_group_brushes(editor_map *em);
void editor_map_free(editor_map *em);

/* The front ends: a Worldcraft / Hammer RMF (rmf_import.c), a Quake-family .map (map_import.c).
 * Each reads the file into an editor map and imports it; false after one "pmfc: ..." line. */
bool rmf_import(const char *path, const editor_import_desc *desc, map_def *map);
bool map_import(const char *path, const editor_import_desc *desc, map_def *map);
/* A compiled GoldSrc / Quake BSP (bsp_import.c): its faces are drawn as they are, its solid and
 * sky leaves become brushes that draw nothing, its entity lump the entities. */
bool bsp_import(const char *path, const editor_import_desc *desc, map_def *map);

/* Builds the world model from an editor map read from path (after map_init). On error prints one
 * "pmfc: ..." line and returns false. */
bool editor_import(const char *path, const editor_map *em, const editor_import_desc *desc, map_def *map);

#endif
