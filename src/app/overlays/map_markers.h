/* map_markers.h - what pmfc recorded of an editor map, drawn over the frame (the window's P and
 * Shift+P, `shot --overlay entities,leak`; docs/viewer.md "Entities and leaks"):
 *   - every point entity (pmfview.entities) as a small box in its class's colour, depth-tested
 *     against the world; its class and targetname beside the box the mouse is over (label_all:
 *     beside every box whose label does not overlap one drawn before);
 *   - the leak (pmfview.leak): the way the void comes in, a red line over everything from outside
 *     the map to the entity it reaches, with a box at each bend.
 * Through the HUD's program (hud_boxes, hud_lines): no world shader change. */
#ifndef PMFVIEW_MAP_MARKERS_H
#define PMFVIEW_MAP_MARKERS_H

#include <stdbool.h>

#include "camera.h"
#include "pmf/pmf_map_info.h"
#include "render/hud.h"

#define MAP_MARKER_SIZE 0.4f         /* metres: an entity's box (16 editor units) */

typedef struct map_markers_desc {
    overlay_view view;
    const pmf_entities *entities;    /* NULL: none drawn */
    const uint8_t *only;             /* NULL: every entity; else those whose only[i] is set */
    const pmf_leak *leak;            /* NULL: not drawn */
} map_markers_desc;

/* A class's colour: lights yellow, player starts green, monsters red, items and weapons blue,
 * triggers orange, the rest from the name (stable across runs). */
void map_marker_color(const char *classname, uint8_t rgb[3]);
/* "CLASS targetname" of entity i, escaped. */
void map_marker_label(const pmf_entities *e, uint32_t i, char *buf, size_t size);
/* Draws into the bound framebuffer (viewport 0, 0, width, height). Returns the index of the
 * entity under the mouse, or -1. */
int map_markers_draw(hud *h, const map_markers_desc *d);

#endif
