/* viewer.h - the window's state and what its two files share: view_window.c (the window, the
 * frame loop, scenes, lights, screenshots) and view_keys.c (every key, one table). Private to
 * src/app/window. */
#ifndef PMFVIEW_APP_VIEWER_H
#define PMFVIEW_APP_VIEWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "render/hud.h"
#include "formats_scene.h"
#include "map_compile.h"
#include "scene.h"
#include "sdl_api.h"
#include "view.h"
#include "view_compare.h"
#include "view_keys.h"
#include "view_lights.h"
#include "view_probes.h"
#include "view_regions.h"
#include "view_teleport.h"
#include "view_watch.h"

#define HIRES_FACTOR 4

/* What the user set for one light, kept across reloads and level switches. */
typedef struct light_state {
    uint32_t id;
    bool fast;
    uint8_t color[3];
    bool enabled;                  /* dynamic: enable flag; fast: on (intensity) / off (0) */
    uint8_t intensity;             /* fast: the chosen intensity when on */
    bool touched;                  /* changed by the user: re-applied to a reloaded scene */
} light_state;

typedef struct viewer {
    const view_desc *desc;
    SDL_Window *window;
    SDL_GLContext gl;
    hud *hud;

    scene *scene;
    uint32_t level, level_count;
    scene_settings settings;
    camera cam, start_cam;
    bool announced_ready;          /* "ready" printed for the current scene */

    light_state *lights;           /* dynamic then fast, by ID */
    size_t light_count, selected;
    scene_light *shown;            /* the lights as the HUD lists them (same order) */
    double next_light_poll;
    int fast_anim;

    view_watch watch;
    char path[4096];               /* the map as named: desc->path, or the last file dropped on the window */
    char pmf_path[4096];           /* the PMF on screen: path, or the source map's cache file */
    bool compiled;                 /* path is a source map (RMF, .map, BSP): a save recompiles it */
    bool given_camera;             /* --camera applies: the command line's map, not a dropped one */
    formats_scene *formats;        /* path was written for a legacy draft / PM4 file: desc->formats or dropped_formats */
    formats_scene dropped_formats; /* a legacy draft / PM4 file dropped on the window */
    map_compile compile;           /* a source map's compile after a save or a drop (state RUNNING while it runs) */
    map_compile_warnings warnings; /* the last compile's: their count on the HUD, ` lists them */
    bool warnings_list;            /* `: the list is drawn */
    char dropped[4096];            /* the dropped source map being compiled; "" when none */
    int drop_files;                /* files of the drop being delivered so far (only the first opens) */
    int start_camera;              /* index into the start cameras of the last one jumped to; -1 = none */
    view_probes probes;
    bool probes_on;
    view_regions regions;          /* region overlays; regions.kinds = the kinds shown */
    scene *other;                  /* the other version: before the last reload (after it while X shows the previous) */
    bool showing_previous;         /* X: scene is the version before the reload, other the current one */
    bool difference, difference_reported;   /* V: the difference of the two versions is drawn */
    view_compare compare;
    view_lights tools;             /* L, O, U, I: light gizmos, solo / mute, surface inspector */
    bool entities_on, leak_on;     /* P, Shift+P: point entities, the leak (map_markers.h) */

    double speed;
    bool mouse_captured, right_look, hud_hidden, help, lights_panel, quit;
    int pending_shot;              /* 0 none, 1 window size, HIRES_FACTOR = hi-res */
    bool shot_with_hud;            /* Ctrl+F12: the window as shown, HUD included */
    double shot_requested;
    char cameras_path[1100];
    view_teleport teleport;        /* G: type a position */

    int frame_w, frame_h;          /* the drawable, pixels (the last frame's) */
    double frame_interval;         /* vsync: the display's refresh period, seconds; 0 with --no-vsync */
    char message[1024];
    double message_until;
    char error[1200];
} viewer;

/* view_window.c */
/* Shows a message in the HUD for a few seconds and prints it on stdout (tests read it). */
void viewer_say(viewer *v, const char *fmt, ...);
void viewer_set_capture(viewer *v, bool on);
/* Learns the lights of newly streamed chunks, a few times a second (next_light_poll = 0: now). */
void viewer_learn_lights(viewer *v, double t);
/* To both versions of a reload. */
void viewer_apply_light(viewer *v, const light_state *l, double t);
void viewer_reload(viewer *v, double t);
/* false when there is no such level or it failed to open (said). */
bool viewer_switch_level(viewer *v, long delta, double t);

/* view_keys.c: the key handler, which reads viewer_keys (view_keys.h). */
void viewer_key_down(viewer *v, const SDL_KeyboardEvent *k, double t);

#endif
