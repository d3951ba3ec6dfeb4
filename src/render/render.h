/* render.h - everything that touches OpenGL: loading the GL functions, a headless context,
 * off-screen targets, and the world renderer the scene drives (render_world.h).
 *
 * Baseline is OpenGL 3.3 core; with GL >= 4.3 the world is drawn with one
 * glMultiDrawElementsIndirect per material batch. Shaders are embedded in the binary at build
 * time (shaders/), so the program runs from any directory.
 *
 * The window (SDL) makes its own context and calls render_load_gl(SDL_GL_GetProcAddress, ...);
 * `pmfview shot` calls render_headless_create(), which does both.
 */
#ifndef PMFVIEW_RENDER_H
#define PMFVIEW_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Loads the GL entry points of the current context and checks it is >= 3.3 core.
 * False with a one-line message (no prefix) otherwise. Once per context. */
typedef void *(*render_getproc)(const char *name);
bool render_load_gl(render_getproc getproc, char *err, size_t err_size);

/* What render_load_gl does with the context's KHR_debug messages (a synchronous callback):
 *   OFF     nothing (release builds by default)
 *   REPORT  every message but notifications on stderr as "pmfview: GL TYPE (SEVERITY): ..."
 *           (`--gl-debug`, or PMFVIEW_GL_DEBUG=1)
 *   FATAL   a GL error is printed, then the process aborts; other messages are not printed
 *           (debug builds, and the tests: PMFVIEW_GL_DEBUG=fatal)
 * The strongest of the mode set here, the environment's and the build's applies. */
typedef enum render_gl_debug { RENDER_GL_DEBUG_OFF, RENDER_GL_DEBUG_REPORT, RENDER_GL_DEBUG_FATAL } render_gl_debug;
/* For contexts loaded after the call. */
void render_set_gl_debug(render_gl_debug mode);
/* GL errors the callback has seen since the program started. */
unsigned render_gl_error_count(void);

/* GL capabilities found by render_load_gl. */
typedef struct render_caps {
    int gl_major, gl_minor;
    bool multi_draw_indirect;        /* GL >= 4.3 (or ARB_multi_draw_indirect + base_instance) */
    int max_renderbuffer_size;
    int max_viewport[2];
    int max_samples;
    char renderer[128];              /* GL_RENDERER */
} render_caps;
const render_caps *render_get_caps(void);
/* Blocks until the GL has finished every command issued so far (frame timing). */
void render_wait_idle(void);
/* The GPU's own time for the commands between begin and end (a GL_TIME_ELAPSED query, core in
 * 3.3), read after render_wait_idle so that reading never stalls. */
typedef struct render_gpu_timer { unsigned query; } render_gpu_timer;
void render_gpu_timer_begin(render_gpu_timer *t);
void render_gpu_timer_end(const render_gpu_timer *t);
/* Seconds, or a negative value when the query has no result. */
double render_gpu_timer_seconds(const render_gpu_timer *t);
void render_gpu_timer_destroy(render_gpu_timer *t);

/* A GL 4.5 (else 3.3) core context with no window and no display: EGL's surfaceless platform
 * (Mesa; llvmpipe works on machines without a GPU), else its device platform (any GPU's driver),
 * PMFVIEW_EGL_PLATFORM forcing one (egl/egl_context.h). Made current and loaded. NULL with a
 * message naming both platforms when there is no way to get one (exit code 3). */
typedef struct render_headless render_headless;
render_headless *render_headless_create(char *err, size_t err_size);
/* "surfaceless", or "device (...)" naming the device. */
const char *render_headless_platform(const render_headless *h);
void render_headless_destroy(render_headless *h);

/* An off-screen framebuffer: RGBA8 colour + 24-bit depth, optionally multisampled (resolved
 * into a single-sample FBO by render_target_read). */
typedef struct render_target {
    int width, height, samples;
    unsigned fbo, color_rb, depth_rb;        /* what is drawn into (MSAA when samples > 1) */
    unsigned resolve_fbo, resolve_rb;        /* single-sample copy when samples > 1 */
} render_target;

/* samples 0 or 1 = no MSAA; clamped to GL_MAX_SAMPLES. False with a message on failure. */
bool render_target_create(int width, int height, int samples, render_target *out, char *err, size_t err_size);
void render_target_bind(const render_target *t);
/* Resolves if needed and reads width*height RGBA8 pixels into rgba, top row first. */
void render_target_read(const render_target *t, uint8_t *rgba);
void render_target_destroy(render_target *t);

/* The window's own framebuffer: bound, with the viewport over width x height. */
void render_bind_window(int width, int height);
/* The viewport over width x height of whatever is bound (overlays drawn over a frame). */
void render_viewport(int width, int height);
/* Clears depth only: what follows draws over the frame. */
void render_clear_depth(void);
/* Reads width x height RGBA8 pixels of the bound framebuffer into rgba, top row first. */
void render_read_pixels(int width, int height, uint8_t *rgba);

/* An RGBA8 picture made on the CPU (top row first) shown over the whole window: uploaded to a
 * texture and blitted upright into the window's framebuffer, its depth cleared. */
typedef struct render_picture { int width, height; unsigned texture, fbo; } render_picture;
bool render_picture_create(int width, int height, render_picture *out, char *err, size_t err_size);
void render_picture_show(const render_picture *p, const uint8_t *rgba);
void render_picture_destroy(render_picture *p);

#endif
