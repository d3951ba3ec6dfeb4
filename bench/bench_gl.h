/* bench_gl.h - the baselines' own GL context: 4.5 core on EGL's surfaceless or device platform
 * (src/render/egl, as pmfview), current on the calling thread. GL functions come straight from libOpenGL (GL_GLEXT_PROTOTYPES), no loader. */
#ifndef PMFVIEW_BENCH_GL_H
#define PMFVIEW_BENCH_GL_H

#include <stdbool.h>
#include <stddef.h>

#define GL_GLEXT_PROTOTYPES 1
#include <GL/glcorearb.h>

typedef struct bench_gl bench_gl;

/* NULL with a one-line message when no context can be made. */
bench_gl *bench_gl_create(char *err, size_t err_size);
/* The EGL platform it runs on, as `pmfview shot --stats` names it. */
const char *bench_gl_platform(const bench_gl *gl);
void bench_gl_destroy(bench_gl *gl);

#endif
