/* region_overlay.h - draws view_regions (view_regions.h) over a finished frame of the scene: each
 * volume as a translucent box in its kind's colour, depth-tested against the scene, edged in the
 * opaque colour, with its label at its centre (docs/viewer.md "Region overlays"). */
#ifndef PMFVIEW_APP_REGION_OVERLAY_H
#define PMFVIEW_APP_REGION_OVERLAY_H

#include "hud.h"
#include "scene.h"
#include "view_regions.h"

/* How strongly a box's faces tint what is behind them (alpha, of 255). */
#define REGION_OVERLAY_ALPHA 77

/* Updates r around the scene's camera and draws it into the bound framebuffer, whose size is the
 * whole frame (width x height). */
void region_overlay_draw(hud *h, view_regions *r, const scene *s, int width, int height);

#endif
