/* render_gl.c - loading the GL entry points and recording what the context can do. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#include "render.h"

static render_caps caps;

bool render_load_gl(render_getproc getproc, char *err, size_t err_size)
{
    int version = gladLoadGL((GLADloadfunc)getproc);
    if (!version) {
        snprintf(err, err_size, "cannot load the OpenGL functions of the context");
        return false;
    }
    memset(&caps, 0, sizeof caps);
    caps.gl_major = GLAD_VERSION_MAJOR(version);
    caps.gl_minor = GLAD_VERSION_MINOR(version);
    if (caps.gl_major * 10 + caps.gl_minor < 33) {
        snprintf(err, err_size, "OpenGL %d.%d found, 3.3 core needed", caps.gl_major, caps.gl_minor);
        return false;
    }
    caps.multi_draw_indirect = caps.gl_major * 10 + caps.gl_minor >= 43
        || (GLAD_GL_ARB_multi_draw_indirect && GLAD_GL_ARB_base_instance && GLAD_GL_ARB_draw_indirect);
    /* PMFVIEW_GL_BASELINE=1 takes the GL 3.3 path on any context (tests, comparisons). */
    const char *baseline = getenv("PMFVIEW_GL_BASELINE");
    if (baseline && baseline[0] == '1')
        caps.multi_draw_indirect = false;
    glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &caps.max_renderbuffer_size);
    glGetIntegerv(GL_MAX_VIEWPORT_DIMS, caps.max_viewport);
    glGetIntegerv(GL_MAX_SAMPLES, &caps.max_samples);
    const char *name = (const char *)glGetString(GL_RENDERER);
    snprintf(caps.renderer, sizeof caps.renderer, "%s", name ? name : "unknown");
    return true;
}

const render_caps *render_get_caps(void)
{
    return &caps;
}

void render_wait_idle(void)
{
    glFinish();
}
