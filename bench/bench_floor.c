/* bench_floor.c - figure 2's floor: what any headless picture costs before a map is read. An EGL
 * surfaceless GL 4.5 core context, one clear of a WxH RGBA8 framebuffer, its read-back, and the
 * PNG written by the writer `pmfview shot` uses (src/res/png_write.c). scripts/bench.sh times the
 * whole process, as it times `pmfview shot`.
 *
 *   bench_floor -o OUT.png [--size WxH]      (default 1280x720, shot's default)
 *
 * Prints "floor time: T s" (context creation to the PNG on disk) and the renderer. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_gl.h"
#include "png_write.h"

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    const char *out = NULL;
    unsigned width = 1280, height = 720;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            char tail;
            if (sscanf(argv[++i], "%ux%u%c", &width, &height, &tail) != 2 || !width || !height || width > 8192
                || height > 8192) {
                fprintf(stderr, "bench_floor: --size wants WxH, 1..8192 each\n");
                return 1;
            }
        } else {
            fprintf(stderr, "usage: bench_floor -o OUT.png [--size WxH]\n");
            return 1;
        }
    }
    if (!out) {
        fprintf(stderr, "usage: bench_floor -o OUT.png [--size WxH]\n");
        return 1;
    }
    double start = now_seconds();
    char err[300];
    bench_gl *gl = bench_gl_create(err, sizeof err);
    if (!gl) {
        fprintf(stderr, "bench_floor: %s\n", err);
        return 3;
    }
    GLuint fbo, rb;
    glGenFramebuffers(1, &fbo);
    glGenRenderbuffers(1, &rb);
    glBindRenderbuffer(GL_RENDERBUFFER, rb);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, (GLsizei)width, (GLsizei)height);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
    glViewport(0, 0, (GLsizei)width, (GLsizei)height);
    glClearColor(0.25f, 0.5f, 0.75f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    uint8_t *rgba = malloc((size_t)width * height * 4);
    if (!rgba) {
        fprintf(stderr, "bench_floor: out of memory\n");
        return 3;
    }
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, (GLsizei)width, (GLsizei)height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    if (!png_write_rgba(out, width, height, rgba, err, sizeof err)) {
        fprintf(stderr, "bench_floor: %s: %s\n", out, err);
        return 3;
    }
    printf("floor time: %.6f s\nrenderer: %s\n", now_seconds() - start, (const char *)glGetString(GL_RENDERER));
    free(rgba);
    glDeleteRenderbuffers(1, &rb);
    glDeleteFramebuffers(1, &fbo);
    bench_gl_destroy(gl);
    return 0;
}
