/* render_headless.c - a GL context with no window and no display (egl/egl_context.h: EGL's
 * surfaceless platform, else its device platform), loaded for the render library. */
#include <stdio.h>
#include <stdlib.h>

#include "egl/egl_context.h"
#include "render.h"

struct render_headless {
    egl_context *egl;
};

render_headless *render_headless_create(char *err, size_t err_size)
{
    render_headless *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    /* 4.5 for multi-draw indirect, else the 3.3 baseline */
    if (!(h->egl = egl_context_create(NULL, err, err_size))
        || !render_load_gl((render_getproc)egl_context_getproc, err, err_size)) {
        egl_context_destroy(h->egl);
        free(h);
        return NULL;
    }
    return h;
}

const char *render_headless_platform(const render_headless *h)
{
    return egl_context_platform(h->egl);
}

void render_headless_destroy(render_headless *h)
{
    if (!h)
        return;
    egl_context_destroy(h->egl);
    free(h);
}
