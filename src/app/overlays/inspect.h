/* inspect.h - the surface inspector (the window's I + click, `shot --inspect X,Y`): what lies
 * under one pixel of the frame and how it is lit.
 *
 * Picking is done on the CPU: a ray from the eye through the pixel's centre against the
 * triangles of the resident chunks (their mesh_chunk data, the triangles the frame draws; faces
 * seen from behind count only where their cube draws backfaces), nearest hit first.
 * Then: the face's material and texture, its chunk and cube, its lightmap (the chunk's lightmap
 * index and the side of the block the viewer holds), the luxel the hit falls in (its RGB as
 * stored, its size in metres), the lights reaching the point with what each adds to L there, and
 * whether the cube has visibility and lighting data.
 *
 * What each light adds: a static light its direct term by the baker's formula at the point,
 * shadowed by the resident chunks (light_direct.h; the name points into scene_light_infos,
 * the strings into the scene's level: valid while the scene is open); a dynamic light
 * its layer's luxel x colour (what it adds when on); a fast light colour x intensity x the
 * multiplier interpolated at the point. share = the light's part of the luxel's total light
 * (base luxel + enabled layers + fast lights), by the channel sum.
 */
#ifndef PMFVIEW_INSPECT_H
#define PMFVIEW_INSPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scene.h"

#define INSPECT_MAX_LIGHTS 64

typedef struct inspect_light {
    uint8_t kind;                    /* PMF_LIGHT_* */
    uint32_t id;                     /* global ID (dynamic, fast) */
    int32_t index;                   /* place in pmfview.lights, -1 = not listed there */
    const char *name;                /* "" = none or unknown */
    float value[3];                  /* what it adds to L here (0..1 per channel, may exceed 1) */
    bool on;                         /* adds to the picture now (dynamic: enabled; fast: intensity > 0) */
    float share;                     /* of the total light here, 0..1 (0 when off) */
} inspect_light;

typedef struct inspect_result {
    bool hit;
    int pixel[2];
    double position[3];              /* world metres */
    float normal[3];
    float distance;                  /* metres from the eye */
    pmf_chunk_coord chunk;
    uint32_t cube;
    uint16_t material;
    const char *material_name, *texture;
    int lightmap;                    /* the chunk's lightmap index; -1 = none (cube base colour) */
    uint32_t lightmap_size;          /* luxels a side, as held (lowered when the atlas was full) */
    bool lightmap_lowered;
    int luxel[2];                    /* column and row in the lightmap, row 0 = lightmap V 0 */
    uint8_t luxel_rgb[3];
    float luxel_size;                /* metres a luxel spans on this face */
    bool visibility_data, lighting_data;
    bool lights_known;               /* the file has pmfview.lights (static lights known) */
    inspect_light lights[INSPECT_MAX_LIGHTS];
    size_t light_count;
    bool model_hit;                  /* an entity's model (its box) is nearer than the surface */
    scene_model_hit model;
} inspect_result;

/* The surface under pixel (x, y) (from the top-left) of a width x height frame seen by the
 * scene's camera (its aspect should be width / height). out->hit false when the ray meets
 * nothing resident; out->model_hit when an entity's model stands before the surface (or none). */
void inspect_pixel(const scene *s, int x, int y, int width, int height, inspect_result *out);
/* The result as a printed JSON document (every string through text_clean_utf8), indented or on
 * one line; malloc'ed, NULL when out of memory. docs/viewer.md lists the fields. */
char *inspect_json(const inspect_result *r, bool one_line);
/* The result as the HUD's lines ('\n' between them). */
void inspect_text(const inspect_result *r, char *buf, size_t size);

#endif
