/* bench_egl.c - figure 2's context baseline: create an EGL surfaceless GL 4.5 core context and
 * make it do one thing (clear a 1x1 framebuffer, glFinish), then exit. scripts/bench.sh times
 * the whole process, as it times `pmfview shot`. Prints "context time: T s" and the renderer. */
#include <stdio.h>
#include <time.h>

#include "bench_gl.h"

int main(void)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    char err[256];
    bench_gl *gl = bench_gl_create(err, sizeof err);
    if (!gl) {
        fprintf(stderr, "bench_egl: %s\n", err);
        return 3;
    }
    GLuint fbo, rb;
    glGenFramebuffers(1, &fbo);
    glGenRenderbuffers(1, &rb);
    glBindRenderbuffer(GL_RENDERBUFFER, rb);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 1, 1);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
    glClear(GL_COLOR_BUFFER_BIT);
    glFinish();
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("context time: %.6f s\nrenderer: %s\n", (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9,
           (const char *)glGetString(GL_RENDERER));
    glDeleteRenderbuffers(1, &rb);
    glDeleteFramebuffers(1, &fbo);
    bench_gl_destroy(gl);
    return 0;
}
