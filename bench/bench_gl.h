/* bench_gl.h - the baselines' own GL context: EGL surfaceless (Mesa), 4.5 core, current on the
 * calling thread. GL functions come straight from libOpenGL (GL_GLEXT_PROTOTYPES), no loader. */
#ifndef PMFVIEW_BENCH_GL_H
#define PMFVIEW_BENCH_GL_H

#include <stdbool.h>
#include <stddef.h>

#define GL_GLEXT_PROTOTYPES 1
#include <GL/glcorearb.h>

typedef struct bench_gl bench_gl;

/* NULL with a one-line message when no context can be made. */
bench_gl *bench_gl_create(char *err, size_t err_size);
void bench_gl_destroy(bench_gl *gl);

#endif
