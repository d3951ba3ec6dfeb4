/* view_compare.c - the window's difference mode (view_compare.h). */
#include "view_compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void view_compare_free(view_compare *c)
{
    if (c->width) {
        render_target_destroy(&c->before);
        render_target_destroy(&c->after);
        render_picture_destroy(&c->picture);
    }
    free(c->before_rgba);
    free(c->after_rgba);
    free(c->diff);
    memset(c, 0, sizeof *c);
}

static bool resize(view_compare *c, int width, int height, char *err, size_t err_size)
{
    view_compare_free(c);
    size_t bytes = (size_t)width * (size_t)height * 4;
    c->before_rgba = malloc(bytes);
    c->after_rgba = malloc(bytes);
    c->diff = malloc(bytes);
    if (!c->before_rgba || !c->after_rgba || !c->diff) {
        snprintf(err, err_size, "out of memory for the difference of %dx%d pixels", width, height);
        view_compare_free(c);
        return false;
    }
    if (!render_target_create(width, height, 0, &c->before, err, err_size))
        goto fail;
    if (!render_target_create(width, height, 0, &c->after, err, err_size)) {
        render_target_destroy(&c->before);
        goto fail;
    }
    if (!render_picture_create(width, height, &c->picture, err, err_size)) {
        render_target_destroy(&c->before);
        render_target_destroy(&c->after);
        goto fail;
    }
    c->width = width;
    c->height = height;
    return true;
fail:
    free(c->before_rgba);
    free(c->after_rgba);
    free(c->diff);
    memset(c, 0, sizeof *c);
    return false;
}

bool view_compare_draw(view_compare *c, scene *before, scene *after, int width, int height, char *err, size_t err_size)
{
    if ((c->width != width || c->height != height) && !resize(c, width, height, err, err_size))
        return false;
    render_target_bind(&c->before);
    scene_draw(before, &(scene_viewport){ .width = width, .height = height });
    render_target_read(&c->before, c->before_rgba);
    render_target_bind(&c->after);
    scene_draw(after, &(scene_viewport){ .width = width, .height = height });
    render_target_read(&c->after, c->after_rgba);
    image_compare(c->before_rgba, c->after_rgba, (size_t)width * (size_t)height, c->diff, &c->stats);
    render_picture_show(&c->picture, c->diff);
    return true;
}
