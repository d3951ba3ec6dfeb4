/* view_hud.h - what the viewer's HUD says: status lines, the lights panel, the loading bar,
 * messages and the F1 key list. Drawing goes through render/hud.h. */
#ifndef PMFVIEW_APP_VIEW_HUD_H
#define PMFVIEW_APP_VIEW_HUD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "map_compile.h"
#include "render/hud.h"
#include "scene.h"
#include "view_keys.h"

enum { VIEW_ANIM_OFF = 0, VIEW_ANIM_FLICKER, VIEW_ANIM_PULSE, VIEW_ANIM_COUNT };

typedef struct view_hud_info {
    const char *path;
    uint32_t level, level_count;
    double fps, frame_ms;
    const camera *cam;
    const scene_stats *stats;
    bool view_complete;
    const scene_settings *settings;
    const char *look;                /* the look drawn: "raw", "goldsrc", "quake" */
    bool fullbright;                 /* the map has no light: compiled without lightmaps */
    double speed;                    /* m/s, before Shift / Ctrl */
    bool mouse_captured;
    bool probes;                     /* light-probe overlay on */
    size_t probe_count;
    bool lights_panel, help;
    int fast_anim;                   /* VIEW_ANIM_* */
    const scene_light *lights;       /* as shown (effective enable / intensity) */
    size_t light_count;
    size_t selected;                 /* index into lights */
    const char *tools;               /* the designer's tools on (region overlays, compare), "" = none */
    const char *message;             /* latest event, "" = none */
    const char *error;               /* persistent problem (failed reload), "" = none */
    const view_key *keys;            /* the window's keys: F1 lists those with a line */
    const map_compile_warnings *warnings; /* the last compile's (count 0: none) */
    bool warnings_list;              /* ` : listed in place of the status */
    size_t key_count;
} view_hud_info;

void view_hud_draw(hud *h, int width, int height, const view_hud_info *info);

#endif
