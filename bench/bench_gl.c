/* bench_gl.c - EGL surfaceless GL 4.5 core context (bench_gl.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <EGL/egl.h>
#include <EGL/eglext.h>

#include "bench_gl.h"

struct bench_gl {
    EGLDisplay display;
    EGLContext context;
};

bench_gl *bench_gl_create(char *err, size_t err_size)
{
    const char *client_ext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    if (!client_ext || !strstr(client_ext, "EGL_MESA_platform_surfaceless") || !get_platform_display) {
        snprintf(err, err_size, "EGL surfaceless platform unavailable");
        return NULL;
    }
    EGLDisplay display = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    EGLint major, minor;
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, &major, &minor) || !eglBindAPI(EGL_OPENGL_API)) {
        snprintf(err, err_size, "EGL initialisation failed (EGL error 0x%x)", (unsigned)eglGetError());
        return NULL;
    }
    static const EGLint attribs[] = {
        EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5,
        EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE,
    };
    EGLContext context = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attribs);
    if (context == EGL_NO_CONTEXT || !eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
        snprintf(err, err_size, "cannot create a GL 4.5 core context (EGL error 0x%x)", (unsigned)eglGetError());
        if (context != EGL_NO_CONTEXT)
            eglDestroyContext(display, context);
        eglTerminate(display);
        return NULL;
    }
    bench_gl *gl = malloc(sizeof *gl);
    if (!gl) {
        snprintf(err, err_size, "out of memory");
        eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(display, context);
        eglTerminate(display);
        return NULL;
    }
    gl->display = display;
    gl->context = context;
    return gl;
}

void bench_gl_destroy(bench_gl *gl)
{
    if (!gl)
        return;
    eglMakeCurrent(gl->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(gl->display, gl->context);
    eglTerminate(gl->display);
    free(gl);
}
