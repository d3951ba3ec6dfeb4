/* bench_gl.c - the baselines' headless GL 4.5 core context (bench_gl.h), on the same EGL
 * platforms as pmfview (src/render/egl). */
#include <stdio.h>
#include <stdlib.h>

#include "bench_gl.h"
#include "egl_context.h"

struct bench_gl {
    egl_context *egl;
};

bench_gl *bench_gl_create(char *err, size_t err_size)
{
    static const int version[][2] = { { 4, 5 } };
    bench_gl *gl = malloc(sizeof *gl);
    if (!gl) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    gl->egl = egl_context_create(&(egl_context_desc){ .versions = version, .version_count = 1 }, err, err_size);
    if (!gl->egl) {
        free(gl);
        return NULL;
    }
    return gl;
}

const char *bench_gl_platform(const bench_gl *gl)
{
    return egl_context_platform(gl->egl);
}

void bench_gl_destroy(bench_gl *gl)
{
    if (!gl)
        return;
    egl_context_destroy(gl->egl);
    free(gl);
}
