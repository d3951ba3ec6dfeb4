/* light_gizmos.h - the light gizmos (the window's L, `shot --gizmos`): every light of the level
 * from the pmfview.lights metadata drawn over the frame as
 *   - an icon: a diamond in the light's colour (a grey rim so dark colours show) at its place,
 *     over everything; a sun's where the sun stands in the sky (clamped to the frame's edge when
 *     it is out of view, so its direction always shows);
 *   - its reach: a faint sphere of radius `range` (three great circles) for a point light, the
 *     outer cone to its range for a spot;
 *   - its name: beside the icon the mouse is over (label_all: beside every icon whose label
 *     does not overlap one drawn before, in the list's order).
 * Lines and icons go through the HUD's program (hud_lines, hud_quad): no world shader change.
 */
#ifndef PMFVIEW_LIGHT_GIZMOS_H
#define PMFVIEW_LIGHT_GIZMOS_H

#include <stdbool.h>
#include <stddef.h>

#include "camera.h"
#include "pmf/pmf_lights.h"
#include "render/hud.h"

typedef struct light_gizmos_desc {
    overlay_view view;
    const pmf_lights *lights;        /* scene_light_infos */
} light_gizmos_desc;

/* Where a light's icon goes: pixels from the top-left. False when it is behind the camera. */
bool light_gizmo_position(const light_gizmos_desc *d, const pmf_light_info *light, float out[2]);
/* "lamp: static #0, point, range 10 m" */
void light_gizmo_label(const pmf_lights *lights, uint32_t index, char *buf, size_t size);
/* Draws every gizmo into the bound framebuffer (viewport 0, 0, width, height). Returns the
 * index (in d->lights) of the light whose icon is under the mouse, or -1. */
int light_gizmos_draw(hud *h, const light_gizmos_desc *d);

#endif
