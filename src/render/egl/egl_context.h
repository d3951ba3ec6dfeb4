/* egl_context.h - a current OpenGL core context with no window and no display, on any GPU's EGL
 * or Mesa's llvmpipe. Platforms tried in turn (PMFVIEW_EGL_PLATFORM=surfaceless|device forces
 * one):
 *   surfaceless  EGL_MESA_platform_surfaceless: Mesa's drivers, llvmpipe on a machine without a
 *                GPU;
 *   device       EGL_EXT_platform_device: each EGL device in turn (NVIDIA's and AMD's drivers
 *                with no display; Mesa lists its software device too) until one gives the context.
 * No GL loader here: pmfview's render library and the bench baselines load GL their own way. */
#ifndef PMFVIEW_EGL_CONTEXT_H
#define PMFVIEW_EGL_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct egl_context egl_context;

typedef struct egl_context_desc {
    /* core versions to ask for, best first; 0 = { 4.5, 3.3 } */
    const int (*versions)[2];
    size_t version_count;
} egl_context_desc;

/* NULL with one line (no prefix) naming every platform tried, why each failed and what the
 * machine's EGL offered. */
egl_context *egl_context_create(const egl_context_desc *desc, char *err, size_t err_size);
void egl_context_destroy(egl_context *c);
/* "surfaceless", or "device" with the device (its DRM node, or its EGL extensions). */
const char *egl_context_platform(const egl_context *c);
/* eglGetProcAddress, for a GL loader. */
void *egl_context_getproc(const char *name);

#endif
