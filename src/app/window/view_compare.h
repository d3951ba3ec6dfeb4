/* view_compare.h - the window's difference mode (docs/viewer.md "Comparing two compiles"): the
 * version of the map before a live reload and the one after, drawn from the same camera off
 * screen, read back, compared (image_compare.h) and the signed picture put in the window. */
#ifndef PMFVIEW_APP_VIEW_COMPARE_H
#define PMFVIEW_APP_VIEW_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

#include "image_compare.h"
#include "render.h"
#include "scene.h"

typedef struct view_compare {
    render_target before, after;     /* width x height, made on first use and on a resize */
    render_picture picture;          /* the difference, shown in the window */
    int width, height;
    uint8_t *before_rgba, *after_rgba, *diff;
    image_compare_stats stats;       /* of the last frame drawn */
} view_compare;

/* Draws both scenes (camera and settings already set) and leaves the difference in the default
 * framebuffer (0, 0, width, height), its depth cleared. False with a message when the off-screen
 * targets cannot be made (the window then draws as usual). */
bool view_compare_draw(view_compare *c, scene *before, scene *after, int width, int height, char *err, size_t err_size);
void view_compare_free(view_compare *c);

#endif
