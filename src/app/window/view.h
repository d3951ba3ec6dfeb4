/* view.h - the interactive viewer: `pmfview [FILE] [options]` (docs/viewer.md).
 *
 * cmd_view.c parses the command line into a view_desc; view_run() opens the SDL window and flies.
 * The pieces: view_window.c (window, GL context, main loop, input), view_keys.c (every key, one
 * table), view_hud.c (what the HUD says), view_bookmarks.c (camera bookmarks), view_probes.c
 * (light-probe overlay), view_watch.c (live reload), view_shot.c (screenshots); map_compile.c
 * recompiles a saved source map on a thread (or pmfc on a child process).
 */
#ifndef PMFVIEW_APP_VIEW_H
#define PMFVIEW_APP_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "view_options.h"

/* Zero means default. */
typedef struct view_desc {
    const char *path;                /* the map as named (a PMF, or an RMF: see pmf_path); watched for live reload */
    const char *pmf_path;            /* the PMF to open: path itself, or an RMF's compiled cache file */
    bool compiled;                   /* path is a source map: a saved change is recompiled (map_compile.h) */
    uint32_t level;
    bool has_camera;                 /* --camera given */
    double camera_pos[3];
    float camera_yaw, camera_pitch;
    float fov;                       /* degrees; 0 = CAMERA_DEFAULT_FOV */
    int radius;                      /* streaming radius in chunks; 0 = the scene's default */
    bool no_vsync;
    const char *shots_dir;           /* NULL = the current directory */
    const char *game_dir;
    const char *fgds[VIEW_MAX_FGDS]; /* --fgd: entity definitions */
    int fgd_count;
    bool no_models;                  /* --no-models (docs/models.md): hidden until Ctrl+P */
    int width, height;               /* window size; 0 = PMFVIEW_DEFAULT_WIDTH x _HEIGHT */
    struct formats_scene *formats;   /* path was written for a legacy draft / PM4 file (Ctrl+1..4: PM4 layers) */
} view_desc;

/* Returns the process exit code (0, 2 bad map, 3 runtime failure). */
int view_run(const view_desc *desc);

#endif
