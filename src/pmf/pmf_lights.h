/* pmf_lights.h - the `pmfview.lights` extension: every light a compiler baked, static ones
 * included (PMF itself keeps only dynamic and fast lights' IDs, no positions or names).
 *
 * Layout of the extension blob (rules of conventions §4's extensions: name, then payload):
 * "pmfview.lights" NUL, u32 count, then per light:
 *   u8 level, u8 kind (PMF_LIGHT_STATIC / DYNAMIC / FAST), u8 shape (PMF_LIGHT_POINT / SPOT / SUN),
 *   u32 global ID (dynamic and fast lights; 0 for static ones),
 *   float[3] position (world metres, conventions §2; suns: 0), float[3] direction (spots: the
 *   cone's axis; suns: the way the light travels; points: 0), u8[3] colour,
 *   float intensity, float range (metres; suns: 0), float cos_inner, float cos_outer (spots),
 *   float size (metres: the light's radius; 0 = a point),
 *   name, NUL-terminated (the source's name: RMF targetname, "" for none).
 * docs/info.md lists it for users.
 *
 * "pmfview.light_models" NUL, u32 count (= the lights'), then per light (same order): u8 falloff
 * (LIGHT_FALLOFF_* of src/raytrace/light_model.h, 0 = pmfc's smooth curve; its top bit set: a
 * spot of hlrad's cone, LIGHT_CONE_HLRAD), float falloff
 * distance (metres), float anglescale, u8 style: how a light of a game's model falls off (Quake's
 * `delay`, hlrad's inverse square) and the game's light style that animates it (0 = none; the
 * viewer plays Quake's and Half-Life's patterns, docs/viewer.md). Written only when a light has
 * other than the defaults.
 */
#ifndef PMF_LIGHTS_H
#define PMF_LIGHTS_H

#include "pmf.h"

#define PMF_LIGHTS_EXTENSION "pmfview.lights"
#define PMF_LIGHT_MODELS_EXTENSION "pmfview.light_models"

enum { PMF_LIGHT_STATIC = 0, PMF_LIGHT_DYNAMIC = 1, PMF_LIGHT_FAST = 2 };
enum { PMF_LIGHT_POINT = 0, PMF_LIGHT_SPOT = 1, PMF_LIGHT_SUN = 2 };

typedef struct pmf_light_info {
    uint8_t level, kind, shape;
    uint32_t id;
    float position[3], direction[3];
    uint8_t color[3];
    float intensity, range, cos_inner, cos_outer, size;
    uint8_t falloff;       /* pmfview.light_models (0, 0, 0, 0 without it) */
    float falloff_distance, anglescale;
    uint8_t style;
    const char *name;      /* decoded: points into the extension's bytes (until pmf_lights_free) */
    uint8_t cone;          /* pmfview.light_models: LIGHT_CONE_* (0 = pmfc's smooth step), the
                            * falloff byte's top bit */
} pmf_light_info;

typedef struct pmf_lights {
    uint32_t count;
    pmf_light_info *list;  /* malloc'ed; pmf_lights_free */
    void *bytes_;          /* the extension's bytes the names point into */
} pmf_lights;

/* The whole extension blob (name included); *out is malloc'ed. False with err filled when a
 * number is not finite or memory runs out. */
bool pmf_lights_encode(const pmf_light_info *lights, size_t count, uint8_t **out, size_t *size, pmf_error *err);

/* The pmfview.light_models blob; *out NULL (nothing to write) when every light has the defaults. */
bool pmf_light_models_encode(const pmf_light_info *lights, size_t count, uint8_t **out, size_t *size, pmf_error *err);

/* Decodes the file's first `pmfview.lights` extension (count 0 when there is none), with its
 * pmfview.light_models when there is one. False for a damaged one: err names block "extension
 * pmfview.lights" (or light_models) and the file offset. */
bool pmf_lights_read(const pmf_file *f, pmf_lights *out, pmf_error *err);
void pmf_lights_free(pmf_lights *lights);

#endif
