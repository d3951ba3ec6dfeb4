/* view_lights.h - the window's light tools (docs/viewer.md "Light tools"):
 *   L            light gizmos on / off (light_gizmos.h); the mouse over an icon names the light
 *   O / Shift+O  solo the light under the mouse, else the next / previous light of the level,
 *                the last one on to "solo off"
 *   U / Shift+U  mute / unmute the light under the mouse, else the lights panel's selected
 *                light; Shift+U unmutes every light
 *   I + click    the surface inspector (inspect.h) on the pixel clicked (the screen's centre
 *                while the mouse is captured); I tapped alone closes its panel
 * Solo and mute go through scene_set_light_filter and are applied again to a reloaded scene.
 */
#ifndef PMFVIEW_VIEW_LIGHTS_H
#define PMFVIEW_VIEW_LIGHTS_H

#include <stdbool.h>
#include <stddef.h>

#include "inspect.h"
#include "light_select.h"
#include "render/hud.h"
#include "scene.h"

typedef struct view_lights {
    bool gizmos;
    bool solo_on;
    scene_light_ref solo;
    light_selection muted;
    int hovered;                     /* pmfview.lights index under the mouse, -1 = none */
    bool inspector;                  /* the panel shows `inspect` */
    inspect_result inspect;
    bool inspect_key, inspect_clicked;  /* I held; a click happened while it was */
} view_lights;

void view_lights_init(view_lights *vl);
void view_lights_free(view_lights *vl);
/* Another level: solo, mute and the inspector start afresh. */
void view_lights_reset(view_lights *vl, scene *s);
/* A new scene of the same level (reload): solo and mute applied to it. */
void view_lights_apply(const view_lights *vl, scene *s);
/* Key 'l', 'o' or 'u' pressed. selected: the lights panel's light (NULL = none). Writes what
 * happened to msg ("" = nothing to say). */
void view_lights_key(view_lights *vl, scene *s, char key, bool shift, const scene_light *selected, char *msg,
                     size_t msg_size);
/* I pressed (down) or released (!down): a release without a click closes the panel. */
void view_lights_inspect_key(view_lights *vl, bool down);
/* A left click at (x, y) of a w x h frame: inspects when I is held. True when it did. */
bool view_lights_click(view_lights *vl, const scene *s, int x, int y, int w, int h, char *msg, size_t msg_size);
/* The gizmos over the frame (mouse in frame pixels, < 0 = none): part of the view, as F12
 * shoots it. */
void view_lights_draw_gizmos(view_lights *vl, hud *h, const scene *s, int w, int hgt, int mouse_x, int mouse_y);
/* The inspector's panel and mark: part of the HUD. */
void view_lights_draw_panel(const view_lights *vl, hud *h, int w, int hgt);

#endif
