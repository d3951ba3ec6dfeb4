/* render_headless.c - a GL context with no window and no display (EGL surfaceless, Mesa). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <EGL/egl.h>
#include <EGL/eglext.h>

#include "render.h"

struct render_headless {
    EGLDisplay display;
    EGLContext context;
};

static EGLDisplay surfaceless_display(void)
{
    const char *client_ext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    if (!client_ext || !strstr(client_ext, "EGL_MESA_platform_surfaceless"))
        return EGL_NO_DISPLAY;
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    if (!get_platform_display)
        return EGL_NO_DISPLAY;
    return get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
}

render_headless *render_headless_create(char *err, size_t err_size)
{
    EGLDisplay display = surfaceless_display();
    EGLint major, minor;
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, &major, &minor)) {
        snprintf(err, err_size, "no headless OpenGL: EGL surfaceless platform unavailable (EGL error 0x%x)",
                 (unsigned)eglGetError());
        return NULL;
    }
    if (!eglBindAPI(EGL_OPENGL_API)) {
        snprintf(err, err_size, "no headless OpenGL: EGL cannot bind the OpenGL API");
        eglTerminate(display);
        return NULL;
    }
    /* 4.5 for multi-draw indirect, else the 3.3 baseline. */
    static const EGLint versions[][2] = { { 4, 5 }, { 3, 3 } };
    EGLContext context = EGL_NO_CONTEXT;
    for (size_t i = 0; i < 2 && context == EGL_NO_CONTEXT; i++) {
        const EGLint attribs[] = {
            EGL_CONTEXT_MAJOR_VERSION, versions[i][0], EGL_CONTEXT_MINOR_VERSION, versions[i][1],
            EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE,
        };
        context = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attribs);
    }
    if (context == EGL_NO_CONTEXT || !eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
        snprintf(err, err_size, "no headless OpenGL: cannot create a 3.3 core context (EGL error 0x%x)",
                 (unsigned)eglGetError());
        if (context != EGL_NO_CONTEXT)
            eglDestroyContext(display, context);
        eglTerminate(display);
        return NULL;
    }
    if (!render_load_gl((render_getproc)eglGetProcAddress, err, err_size)) {
        eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(display, context);
        eglTerminate(display);
        return NULL;
    }
    render_headless *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, err_size, "out of memory");
        eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(display, context);
        eglTerminate(display);
        return NULL;
    }
    h->display = display;
    h->context = context;
    return h;
}

void render_headless_destroy(render_headless *h)
{
    if (!h)
        return;
    eglMakeCurrent(h->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(h->display, h->context);
    eglTerminate(h->display);
    free(h);
}
