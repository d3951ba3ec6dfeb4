/* formats_scene.h - the legacy PMF draft and PM4 worlds as something `shot` and the window open:
 * read by their own modules, then written as a PMF 0.0 file (pmf_build) in a private temporary
 * file that the scene streams like any map and that is removed at exit (docs/formats.md).
 * For PM4, the layers drawn are chosen here and can change while the window is open: the file is
 * written again and the window's live reload picks it up, camera kept. */
#ifndef PMFVIEW_APP_FORMATS_SCENE_H
#define PMFVIEW_APP_FORMATS_SCENE_H

#include <stdbool.h>

#include "map_source.h"

typedef struct formats_scene {
    pmf_file_kind kind;              /* PMF_KIND_PMF_LEGACY or PMF_KIND_PM4 */
    unsigned layers;                 /* PM4_LAYER_* drawn */
    char pmf_path[4096];             /* the PMF written for the scene */
    bool has_camera;                 /* PM4: an overview start camera, for when none is given */
    float camera_pos[3], camera_yaw, camera_pitch;
    void *source_;                   /* the open pmfl_map / pm4_world */
    char error[1024];                /* formats_scene_open's failure: the line it printed, without "pmfview: " */
} formats_scene;

/* Reads path (already identified in src) and writes its PMF with the given PM4 layers.
 * Returns 0 or the exit code after one `pmfview:` line, which out->error keeps. */
int formats_scene_open(const char *path, const map_source *src, unsigned layers, formats_scene *out);
/* PM4: writes the PMF again with another layer set. False (message in err) on failure. */
bool formats_scene_set_layers(formats_scene *fs, unsigned layers, char *err, size_t err_size);
void formats_scene_close(formats_scene *fs);

/* "surfaces", "paths", "exterior", "references" -> PM4_LAYER_*; 0 for anything else. */
unsigned formats_layer_parse(const char *name);
const char *formats_layer_name(unsigned layer);

#endif
