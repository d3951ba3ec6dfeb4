/* render_target.c - off-screen framebuffers (optionally multisampled) and pixel read-back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_gl_api.h"

#include "render.h"

static bool make_fbo(int w, int h, int samples, bool depth, GLuint *fbo, GLuint *color, GLuint *depth_rb)
{
    glGenFramebuffers(1, fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, *fbo);
    glGenRenderbuffers(1, color);
    glBindRenderbuffer(GL_RENDERBUFFER, *color);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_RGBA8, w, h);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, *color);
    if (depth) {
        glGenRenderbuffers(1, depth_rb);
        glBindRenderbuffer(GL_RENDERBUFFER, *depth_rb);
        glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_DEPTH_COMPONENT24, w, h);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, *depth_rb);
    }
    return glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
}

bool render_target_create(int width, int height, int samples, render_target *out, char *err, size_t err_size)
{
    const render_caps *caps = render_get_caps();
    memset(out, 0, sizeof *out);
    if (samples <= 1)
        samples = 0;
    if (samples > caps->max_samples)
        samples = caps->max_samples;
    out->width = width;
    out->height = height;
    out->samples = samples;
    bool ok = make_fbo(width, height, samples, true, &out->fbo, &out->color_rb, &out->depth_rb);
    if (ok && samples > 1)
        ok = make_fbo(width, height, 0, false, &out->resolve_fbo, &out->resolve_rb, NULL);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    if (!ok) {
        snprintf(err, err_size, "cannot create a %dx%d framebuffer with %d samples", width, height, samples);
        render_target_destroy(out);
        return false;
    }
    return true;
}

void render_target_bind(const render_target *t)
{
    glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
    glViewport(0, 0, t->width, t->height);
}

void render_read_pixels(int width, int height, uint8_t *rgba)
{
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    /* GL's first row is the bottom one; images start at the top. */
    size_t row = (size_t)width * 4;
    for (int y = 0; y < height / 2; y++) {
        uint8_t *a = rgba + (size_t)y * row, *b = rgba + (size_t)(height - 1 - y) * row;
        for (size_t i = 0; i < row; i++) {
            uint8_t v = a[i];
            a[i] = b[i];
            b[i] = v;
        }
    }
}

void render_target_read(const render_target *t, uint8_t *rgba)
{
    GLuint src = t->fbo;
    if (t->samples > 1) {
        glBindFramebuffer(GL_READ_FRAMEBUFFER, t->fbo);
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, t->resolve_fbo);
        glBlitFramebuffer(0, 0, t->width, t->height, 0, 0, t->width, t->height, GL_COLOR_BUFFER_BIT, GL_NEAREST);
        src = t->resolve_fbo;
    }
    glBindFramebuffer(GL_READ_FRAMEBUFFER, src);
    render_read_pixels(t->width, t->height, rgba);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

void render_bind_window(int width, int height)
{
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(0, 0, width, height);
}

void render_viewport(int width, int height)
{
    glViewport(0, 0, width, height);
}

void render_clear_depth(void)
{
    glClear(GL_DEPTH_BUFFER_BIT);
}

bool render_picture_create(int width, int height, render_picture *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    glGenTextures(1, &out->texture);
    glBindTexture(GL_TEXTURE_2D, out->texture);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glGenFramebuffers(1, &out->fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, out->fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, out->texture, 0);
    GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    if (status != GL_FRAMEBUFFER_COMPLETE) {
        snprintf(err, err_size, "a %dx%d picture framebuffer is incomplete (0x%x)", width, height, (unsigned)status);
        render_picture_destroy(out);
        return false;
    }
    out->width = width;
    out->height = height;
    return true;
}

void render_picture_show(const render_picture *p, const uint8_t *rgba)
{
    /* The rows are top first: uploaded as they are, then blitted upside down. */
    glBindTexture(GL_TEXTURE_2D, p->texture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, p->width, p->height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, p->fbo);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
    glBlitFramebuffer(0, 0, p->width, p->height, 0, p->height, p->width, 0, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glClear(GL_DEPTH_BUFFER_BIT);
}

void render_picture_destroy(render_picture *p)
{
    if (p->fbo)
        glDeleteFramebuffers(1, &p->fbo);
    if (p->texture)
        glDeleteTextures(1, &p->texture);
    memset(p, 0, sizeof *p);
}

void render_target_destroy(render_target *t)
{
    GLuint fbos[2] = { t->fbo, t->resolve_fbo };
    GLuint rbs[3] = { t->color_rb, t->depth_rb, t->resolve_rb };
    glDeleteFramebuffers(2, fbos);
    glDeleteRenderbuffers(3, rbs);
    memset(t, 0, sizeof *t);
}
