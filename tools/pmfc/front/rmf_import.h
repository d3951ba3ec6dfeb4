/* rmf_import.h - what the RMF front end's two files share (private to tools/pmfc/front):
 * rmf_import.c reads the object tree into brushes, lights and cameras; rmf_materials.c finds the
 * textures in WADs and makes the materials and the sky. */
#ifndef PMFC_RMF_IMPORT_H
#define PMFC_RMF_IMPORT_H

#include "world.h"
#include "rmf.h"
#include "wad.h"

#define RMF_ANIM_FRAMES 10

/* A texture name the map uses, resolved once. */
typedef struct rmf_texture {
    char name[64];                   /* upper case, as the material is named */
    int texture;                     /* index in map->textures */
    uint32_t width, height;          /* as the WAD has it (UVs divide by these) */
    int frames[RMF_ANIM_FRAMES];     /* +0NAME..+9NAME: texture indices of the frames found */
    int frame_count;
    bool missing;
} rmf_texture;

/* A line of Half-Life's sound/materials.txt: a texture name (its first 12 characters) and the
 * kind of surface its footsteps and impacts sound like. */
typedef struct hl_texture_type { char name[13]; char type; } hl_texture_type;

typedef struct import_ctx {
    const char *path;
    const rmf_import_desc *desc;
    map_def *map;
    level_def *level;
    double s;                        /* metres per unit */
    const rmf_map *rmf;
    wad_file **wads; char **wad_names; size_t wad_count;
    char **missing_wads; size_t missing_wad_count, missing_wad_cap;
    rmf_texture *textures; size_t texture_count, texture_cap;
    char **missing_textures; size_t missing_texture_count, missing_texture_cap;
    hl_texture_type *types; size_t type_count, type_cap;   /* --game DIR/sound/materials.txt */
    uint32_t next_dynamic_id;
    bool has_sun;
    uint8_t sun_color[3];
    bool failed;
} import_ctx;

/* How a brush entity draws its faces (Half-Life render modes). */
typedef struct render_look {
    int mode;                        /* 0 normal, 2 texture, 4 solid, 5 additive; others draw normal */
    int amount;                      /* renderamt 0..255 */
    bool liquid;                     /* func_water */
    bool not_solid;                  /* func_illusionary: seen, walked through */
} render_look;

/* One "pmfc: ..." line (escaped); the import then stops. */
void import_fail(import_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An entity's key (case-insensitive), or NULL; its number, or fallback. */
const char *kv_get(const rmf_entity *e, const char *key);
double kv_number(const rmf_entity *e, const char *key, double fallback);

/* ---- rmf_materials.c ---- */
/* Opens the --wad files, then those of the worldspawn `wad` key (NULL: none) that are found. */
void rmf_open_wads(import_ctx *c, const char *wad_key);
/* --game DIR/sound/materials.txt, when there is one. */
void rmf_read_texture_types(import_ctx *c);
/* The texture a face names, loaded on first use: an index in c->textures, or -1 on failure. */
int rmf_use_texture(import_ctx *c, const char *name);
/* How a brush entity (or the world: NULL) draws its faces. */
render_look rmf_entity_look(const rmf_entity *e);
/* The level material for a texture drawn that way. */
int rmf_material(import_ctx *c, int tex, render_look look);
/* The level's sky from `skyname`. */
void rmf_import_sky(import_ctx *c, const char *skyname);
/* The warning lines for WADs and textures not found (nothing when all were). */
void rmf_report_missing(const import_ctx *c);
void rmf_materials_free(import_ctx *c);

#endif
