/* pm4_world.h - PM4 tiles opened as one world: a single .pm4 file, or a directory whose
 * *_XX_YY.pm4 files are the tiles (other files are ignored). Tiles are sorted by (YY, XX). */
#ifndef PM4_WORLD_H
#define PM4_WORLD_H

#include "pm4.h"

#define PM4_WORLD_MAX_TILES 4096         /* a 64 x 64 map */
#define PM4_WORLD_MAX_BYTES (1ull << 30) /* all tiles' files together: bounded memory */

typedef struct pm4_world {
    bool directory;
    uint32_t tile_count;
    pm4_tile *tiles[PM4_WORLD_MAX_TILES];
    uint64_t total_bytes;                /* of the tiles' files */
    bool has_bounds;
    float bounds_min[3], bounds_max[3];  /* view frame, over every tile */
} pm4_world;

/* Opens a file or a tile directory; the first bad tile fails the whole world. */
pm4_world *pm4_world_open(const char *path, pmf_error *err);
void pm4_world_close(pm4_world *w);

/* What the viewer draws of a world (docs/formats.md), each a layer that can be left out. */
enum { PM4_LAYER_SURFACES = 1u, PM4_LAYER_PATHS = 2u, PM4_LAYER_EXTERIOR = 4u, PM4_LAYER_REFERENCES = 8u,
       PM4_LAYER_ALL = 15u };

/* Writes the chosen layers as a PMF 0.0 file in the viewer's frame: MSUR surfaces fan-triangulated
 * in their CK24 group's colour (walkable and M2 props from two palettes, liquid candidates blended
 * with blue) lit by pm4_surface_shade; MSPV/MSPI paths as thin crossed ribbons; MSCN and MPRL
 * points as small octahedra; all in 512 m chunks, with an overview start camera. */
bool pm4_world_to_pmf(const pm4_world *w, unsigned layers, const char *path, pmf_error *err);
/* A start camera (view frame, degrees) looking at the middle of the world's bounds from above and
 * behind; false when the world has no points. */
bool pm4_world_overview(const pm4_world *w, float pos[3], float *yaw, float *pitch);
/* A surface's colour, and the light (grey luxel) a surface with that view-frame normal gets. */
void pm4_surface_color(const pm4_msur *s, uint8_t out[3]);
uint8_t pm4_surface_shade(const float view_normal[3]);

/* True when path is a directory holding at least one *_XX_YY.pm4 file. */
bool pm4_directory_has_tiles(const char *path);

#endif
