/* pmf_build.h - a list of world-space triangles to a PMF 0.0 file the viewer streams and draws:
 * how the legacy PMF draft and PM4 worlds reach `shot` and the window (docs/formats.md). No GL.
 *
 * Triangles are binned into chunks by their centroid (chunk side 2^chunk_size_exp metres, larger
 * when the grid would exceed the PMF limits), then packed, in spatial order, into extended
 * geometry cubes of up to six (material, light) runs of at most 255 triangles each, under a tree
 * of parent cubes. A triangle's light becomes a 1 x 1 lightmap of that colour (so L = light / 255,
 * conventions §3); an unlit triangle has no lightmap and no cube lighting (L = 1). Every cube draws
 * its back faces: neither source format fixes a winding.
 *
 * Usage:
 *   pmf_build_desc d = { .name = "x", .materials = mats, .material_count = 2,
 *                        .triangles = tris, .triangle_count = n };
 *   if (!pmf_build_write(&d, "/tmp/x.pmf", &err)) ...
 */
#ifndef PMF_BUILD_H
#define PMF_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmf.h"

typedef struct pmf_build_material {
    const char *name;                    /* level material name, unique */
    const char *texture;                 /* resource path; "" = untextured */
    uint8_t color[3];                    /* 0,0,0 is taken as given (black) */
} pmf_build_material;

typedef struct pmf_build_triangle {
    float xyz[3][3];                     /* world metres, conventions §2 */
    float uv[3][2];                      /* texture repeats */
    uint16_t material;                   /* index into the materials */
    bool lit;                            /* false = fullbright (L = 1) */
    uint8_t light[3];                    /* L = light / 255 when lit */
} pmf_build_triangle;

/* Zero means default. */
typedef struct pmf_build_desc {
    const char *name, *description, *authors;
    uint64_t created;
    uint8_t gamemode_count;
    const char *const *gamemodes;
    const pmf_build_material *materials;
    uint16_t material_count;
    const pmf_build_triangle *triangles;
    size_t triangle_count;
    uint8_t chunk_size_exp;              /* smallest chunk side tried (2^exp m, larger while the grid
                                            exceeds the PMF limits); 0 = 2^6 */
    bool has_camera;                     /* write a pmfview.cameras extension with this start camera */
    float camera_pos[3], camera_yaw, camera_pitch;
} pmf_build_desc;

/* Builds and writes the map atomically to path. False with err filled (block "build"). */
bool pmf_build_write(const pmf_build_desc *desc, const char *path, pmf_error *err);

#endif
