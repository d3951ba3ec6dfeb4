/* view_regions.h - the region overlays (docs/viewer.md "Region overlays"): weather, gravity,
 * sound and sky environment regions, load regions and pathfinding cubes of the chunks around the
 * camera, as volumes (8 corners each) with a colour and a label, for translucent boxes.
 *
 * Regions live in the chunks (a source region is split over the chunks it overlaps), and the
 * scene keeps none of them once a chunk is meshed, so this decodes the chunks within
 * VIEW_REGIONS_RADIUS (Chebyshev) of the camera's chunk (clamped to the grid) itself, all parts,
 * whenever the camera enters another chunk or the kinds shown change. A load region covering its
 * whole chunk (pmfc writes one in every chunk: its neighbours stay active) is left out.
 */
#ifndef PMFVIEW_APP_VIEW_REGIONS_H
#define PMFVIEW_APP_VIEW_REGIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "camera.h"
#include "level_file.h"
#include "pmf/pmf.h"

#define VIEW_REGIONS_RADIUS 2
/* At most this many volumes (a map can mark every cube for pathfinding): the nearest chunks' first. */
#define VIEW_REGIONS_MAX 65536

enum {
    VIEW_REGION_WEATHER, VIEW_REGION_GRAVITY, VIEW_REGION_SOUND, VIEW_REGION_SKY, VIEW_REGION_LOAD, VIEW_REGION_PATH,
    VIEW_REGION_KIND_COUNT
};
#define VIEW_REGION_BIT(kind) (1u << (kind))

/* "weather", "gravity", "sound", "sky", "load", "path" */
const char *view_region_kind_name(int kind);
/* The kind's bit for a name, 0 when unknown. */
unsigned view_region_kind_parse(const char *name);
/* The kind's overlay colour (docs/viewer.md). */
const uint8_t *view_region_color(int kind);

typedef struct view_region {
    int kind;
    float corners[8][3];             /* octant order (PMF_OCTANT_*), relative to the built chunk's centre */
    char label[96];                  /* "weather NAME", "load: 3 chunks", "path: ATTR"; control bytes as \xNN */
} view_region;

typedef struct view_regions {
    level_file lf;                   /* the map's level, kept open; corners are relative to its
                                        walked chunk's centre; its error names a chunk that failed */
    unsigned kinds;                  /* VIEW_REGION_BIT()s shown */
    unsigned built_kinds;            /* those of the last walk */
    view_region *regions;
    size_t count, capacity;
} view_regions;

/* Opens its own handle on the map. False with a one-line message in err. */
bool view_regions_open(view_regions *r, const char *path, uint32_t level, char *err, size_t err_size);
void view_regions_close(view_regions *r);
/* Re-decodes when the camera is in another chunk, or the kinds changed, since last time. */
void view_regions_update(view_regions *r, const camera *cam);

#endif
