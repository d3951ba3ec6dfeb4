/* view_probes.h - the light-probe overlay: every cube that has lighting data, as a small box of
 * its base colour at the cube's centre, for the chunks around the camera.
 *
 * The scene keeps no cube lighting data once a chunk is meshed, so this decodes the camera's
 * chunk (the nearest grid chunk when the camera is outside the grid) and its 26 neighbours
 * itself (common + client parts) whenever the camera enters another chunk while the overlay is on.
 */
#ifndef PMFVIEW_APP_VIEW_PROBES_H
#define PMFVIEW_APP_VIEW_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "camera.h"
#include "level_file.h"
#include "pmf/pmf.h"

typedef struct view_probes {
    level_file lf;                   /* the map's level, kept open; boxes are relative to its
                                        walked chunk's centre; its error names a chunk that failed */
    float (*boxes)[4];               /* centre xyz + half size */
    uint8_t (*rgb)[3];
    size_t count, capacity;
} view_probes;

/* Opens its own handle on the map. False with a one-line message in err. */
bool view_probes_open(view_probes *p, const char *path, uint32_t level, char *err, size_t err_size);
void view_probes_close(view_probes *p);
/* Re-decodes when the camera is in another chunk than last time. */
void view_probes_update(view_probes *p, const camera *cam);

#endif
