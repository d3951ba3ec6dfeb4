/* pmf_map_info.h - what pmfc records of where a map came from, in three extensions (rules of
 * conventions §4: name, NUL, payload; a reader skips what it does not know):
 *
 * "pmfview.source": the look and the origin of the map.
 *   u8 look (PMF_LOOK_RAW / GOLDSRC / QUAKE: the display curve light is shown through,
 *   conventions §3), u8 flags (PMF_SOURCE_FULLBRIGHT: the map has no light, it was compiled
 *   without lightmaps and is shown fullbright; PMF_SOURCE_HLRAD_STORAGE: its lightmaps are stored
 *   through hlrad's curve), format NUL ("RMF 2.2", ".map (Valve 220)",
 *   "BSP v30 (GoldSrc)", ...), compiler NUL (the tools that wrote it when the file names them,
 *   "" otherwise).
 * "pmfview.entities": the map's point entities.
 *   u32 count, per entity: u8 level, float[3] position (world metres), class NUL, targetname NUL.
 * "pmfview.entity_placement": how each of those entities' model stands (written beside
 *   pmfview.entities; a file without it takes the defaults).
 *   u32 count (pmfview.entities' count), per entity: float[3] angles (degrees: pitch, positive
 *   turning the model's front up; yaw, counter-clockwise seen from above, 0 facing the source's
 *   +x; roll), float scale (> 0), i32 skin, body, sequence, frame (-1: not given), model NUL (the
 *   entity's `model` key, "" for none).
 * "pmfview.entity_render": how GoldSrc draws each of those entities' sprite or model (written
 *   only when an entity sets one of its keys; a file without it takes the defaults).
 *   u32 count (pmfview.entities' count), per entity: u8 rendermode (0..5), u8 renderamt, u8[3]
 *   rendercolor, float framerate (frames a second, >= 0; -1: not given).
 * "pmfview.leak": where the void outside a map that is not sealed reaches in.
 *   u8 level, float[3] x count points after a u32 count (world metres, from outside the map's
 *   bounds to the entity, through empty space), then the entity's class NUL.
 *
 * Each reader returns an empty value when the file has no such extension, and fails (err names
 * the block "extension NAME" and the file offset) on a damaged one. */
#ifndef PMF_MAP_INFO_H
#define PMF_MAP_INFO_H

#include "pmf.h"

#define PMF_SOURCE_EXTENSION "pmfview.source"
#define PMF_ENTITIES_EXTENSION "pmfview.entities"
#define PMF_LEAK_EXTENSION "pmfview.leak"
#define PMF_PLACEMENT_EXTENSION "pmfview.entity_placement"
#define PMF_RENDER_EXTENSION "pmfview.entity_render"
#define PMF_RENDER_MODES 6                /* GoldSrc's rendermode 0 (normal) .. 5 (additive) */
#define PMF_NOT_GIVEN (-1)                /* a skin, body, sequence or frame the entity does not set */

enum { PMF_LOOK_RAW = 0, PMF_LOOK_GOLDSRC = 1, PMF_LOOK_QUAKE = 2, PMF_LOOK_COUNT };
enum { PMF_SOURCE_FULLBRIGHT = 1, PMF_SOURCE_HLRAD_STORAGE = 2 };
/* PMF_SOURCE_HLRAD_STORAGE: the lightmaps hold light L as hlrad stores it, a byte of
 * 255 x min(1, (PMF_HLRAD_STORE_SCALE x L)^PMF_HLRAD_STORE_GAMMA) (docs/pmfc-lighting.md): the
 * light tools take it back to L before they add or take away a light's term. */
#define PMF_HLRAD_STORE_SCALE (2.0f * 255.0f / 256.0f)
#define PMF_HLRAD_STORE_GAMMA 0.5f

/* "raw", "goldsrc", "quake"; NULL past the last. */
const char *pmf_look_name(unsigned look);

typedef struct pmf_source {
    bool present;
    uint8_t look, flags;
    const char *format, *compiler;   /* decoded: into the extension's bytes */
    void *bytes_;
} pmf_source;

typedef struct pmf_entity_info {
    uint8_t level;
    float position[3];
    const char *classname, *targetname;
    /* pmfview.entity_placement (the defaults when the file has none: 0 0 0, 1, PMF_NOT_GIVEN, "") */
    float angles[3], scale;
    int32_t skin, body, sequence, frame;
    const char *model;
    /* pmfview.entity_render (the defaults: 0, 0, 0 0 0, -1; renderamt 0 as the game's entity starts) */
    uint8_t render_mode, render_amount, render_color[3];
    float framerate;
} pmf_entity_info;

typedef struct pmf_entities {
    uint32_t count;
    pmf_entity_info *list;
    void *bytes_, *placement_bytes_, *render_bytes_;
} pmf_entities;

typedef struct pmf_leak {
    bool present;
    uint8_t level;
    uint32_t point_count;
    float (*points)[3];
    const char *classname;
    void *bytes_;
} pmf_leak;

/* The whole extension blobs (name included), malloc'ed. False when a number is not finite or
 * memory runs out. */
bool pmf_source_encode(uint8_t look, uint8_t flags, const char *format, const char *compiler, uint8_t **out,
                       size_t *size, pmf_error *err);
bool pmf_entities_encode(const pmf_entity_info *list, size_t count, uint8_t **out, size_t *size, pmf_error *err);
/* pmfview.entity_placement of the same list: false when an angle or scale is not finite or the
 * scale not positive. */
bool pmf_entity_placement_encode(const pmf_entity_info *list, size_t count, uint8_t **out, size_t *size, pmf_error *err);
/* pmfview.entity_render of the same list, or *out NULL when every entity keeps the defaults: false
 * when a mode is past 5 or a framerate neither -1 nor finite and >= 0. */
bool pmf_entity_render_encode(const pmf_entity_info *list, size_t count, uint8_t **out, size_t *size, pmf_error *err);
bool pmf_leak_encode(uint8_t level, const float (*points)[3], size_t count, const char *classname, uint8_t **out,
                     size_t *size, pmf_error *err);

bool pmf_source_read(const pmf_file *f, pmf_source *out, pmf_error *err);
/* The three entity extensions into one list. */
bool pmf_entities_read(const pmf_file *f, pmf_entities *out, pmf_error *err);
bool pmf_leak_read(const pmf_file *f, pmf_leak *out, pmf_error *err);
void pmf_source_free(pmf_source *s);
void pmf_entities_free(pmf_entities *e);
void pmf_leak_free(pmf_leak *l);

#endif
