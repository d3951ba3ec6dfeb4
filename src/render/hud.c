/* hud.c - HUD text, panels and 3D marker boxes: quads batched into one streaming VBO. */
#include "hud.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stb_easy_font is header-only with static functions; its initialisers trip -Wmissing-braces. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-braces"
#include <stb_easy_font.h>
#pragma GCC diagnostic pop

#include "render_internal.h"

struct hud {
    GLuint program, vao, vbo, ebo;
    GLint u_transform;
    hud_vertex *verts;       /* 4 per quad */
    size_t count, capacity;  /* vertices */
    size_t vbo_capacity;     /* vertices the VBO holds */
    size_t ebo_quads;        /* quads the index buffer covers */
    int width, height;
    float scale;
};

/* Embedded from shaders/hud.vert and shaders/hud.frag (embed_shaders.cmake). */
extern const char render_shader_hud_vert[], render_shader_hud_frag[];

hud *hud_create(char *err, size_t err_size)
{
    GLuint prog = render_program_build("hud", render_shader_hud_vert, render_shader_hud_frag, err, err_size);
    if (!prog)
        return NULL;
    hud *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, err_size, "out of memory");
        glDeleteProgram(prog);
        return NULL;
    }
    h->program = prog;
    h->u_transform = glGetUniformLocation(prog, "u_transform");
    h->scale = 1.0f;
    glGenVertexArrays(1, &h->vao);
    glGenBuffers(1, &h->vbo);
    glGenBuffers(1, &h->ebo);
    glBindVertexArray(h->vao);
    glBindBuffer(GL_ARRAY_BUFFER, h->vbo);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(hud_vertex), (void *)offsetof(hud_vertex, xyz));
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(hud_vertex), (void *)offsetof(hud_vertex, rgba));
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, h->ebo);
    glBindVertexArray(0);
    return h;
}

void hud_destroy(hud *h)
{
    if (!h)
        return;
    glDeleteBuffers(1, &h->vbo);
    glDeleteBuffers(1, &h->ebo);
    glDeleteVertexArrays(1, &h->vao);
    glDeleteProgram(h->program);
    free(h->verts);
    free(h);
}

static hud_vertex *reserve(hud *h, size_t verts)
{
    if (h->count + verts > h->capacity) {
        size_t cap = h->capacity ? h->capacity : 4096;
        while (cap < h->count + verts)
            cap *= 2;
        hud_vertex *grown = realloc(h->verts, cap * sizeof *grown);
        if (!grown)
            return NULL;
        h->verts = grown;
        h->capacity = cap;
    }
    return h->verts + h->count;
}

/* Uploads the queued vertices into the streaming VBO (and binds the program and VAO). */
static void upload(hud *h, const float transform[16])
{
    glUseProgram(h->program);
    glUniformMatrix4fv(h->u_transform, 1, GL_FALSE, transform);
    glBindVertexArray(h->vao);
    glBindBuffer(GL_ARRAY_BUFFER, h->vbo);
    if (h->count > h->vbo_capacity) {
        h->vbo_capacity = h->capacity;
        glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(h->vbo_capacity * sizeof(hud_vertex)), NULL, GL_STREAM_DRAW);
    }
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(h->count * sizeof(hud_vertex)), h->verts);
}

/* Uploads the queued quads and draws them as indexed triangles (0 1 2, 0 2 3 per quad). */
static void flush(hud *h, const float transform[16])
{
    size_t quads = h->count / 4;
    if (!quads)
        return;
    upload(h, transform);
    if (quads > h->ebo_quads) {
        size_t n = h->capacity / 4;
        uint32_t *idx = malloc(n * 6 * sizeof *idx);
        if (!idx) {
            glBindVertexArray(0);
            return;
        }
        for (size_t q = 0; q < n; q++) {
            uint32_t b = (uint32_t)(q * 4);
            uint32_t *o = idx + q * 6;
            o[0] = b; o[1] = b + 1; o[2] = b + 2;
            o[3] = b; o[4] = b + 2; o[5] = b + 3;
        }
        glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)(n * 6 * sizeof *idx), idx, GL_STATIC_DRAW);
        free(idx);
        h->ebo_quads = n;
    }
    glDrawElements(GL_TRIANGLES, (GLsizei)(quads * 6), GL_UNSIGNED_INT, NULL);
    glBindVertexArray(0);
    h->count = 0;
}

/* Uploads the queued vertices and draws them as lines (pairs). */
static void flush_lines(hud *h, const float transform[16])
{
    if (h->count < 2)
        return;
    upload(h, transform);
    glDrawArrays(GL_LINES, 0, (GLsizei)(h->count & ~(size_t)1));
    glBindVertexArray(0);
    h->count = 0;
}

void hud_begin(hud *h, int width, int height, float scale)
{
    h->width = width > 0 ? width : 1;
    h->height = height > 0 ? height : 1;
    h->scale = scale > 0.0f ? scale : 1.0f;
    h->count = 0;
}

void hud_rect(hud *h, float x, float y, float w, float hgt, const uint8_t rgba[4])
{
    const float xy[4][2] = { { x, y }, { x + w, y }, { x + w, y + hgt }, { x, y + hgt } };
    hud_quad(h, xy, rgba);
}

float hud_text(hud *h, float x, float y, const char *text, const uint8_t rgba[4])
{
    static const uint8_t white[4] = { 255, 255, 255, 255 };
    /* stb_easy_font uses at most ~270 bytes (17 vertices) per character. */
    size_t len = strlen(text);
    size_t max_verts = (len + 1) * 32;
    hud_vertex *v = reserve(h, max_verts);
    if (!v)
        return 0.0f;
    uint8_t color[4];
    memcpy(color, rgba ? rgba : white, 4);
    int quads = stb_easy_font_print(0.0f, 0.0f, (char *)text, color, v, (int)(max_verts * sizeof *v));
    for (int i = 0; i < quads * 4; i++) {
        v[i].xyz[0] = x + v[i].xyz[0] * h->scale;
        v[i].xyz[1] = y + v[i].xyz[1] * h->scale;
    }
    h->count += (size_t)quads * 4;
    return hud_text_width(h, text);
}

float hud_text_width(const hud *h, const char *text)
{
    return (float)stb_easy_font_width((char *)text) * h->scale;
}

float hud_line_height(const hud *h)
{
    return 12.0f * h->scale;
}

void hud_quad(hud *h, const float xy[4][2], const uint8_t rgba[4])
{
    hud_vertex *v = reserve(h, 4);
    if (!v)
        return;
    for (int i = 0; i < 4; i++) {
        v[i].xyz[0] = xy[i][0];
        v[i].xyz[1] = xy[i][1];
        v[i].xyz[2] = 0.0f;
        memcpy(v[i].rgba, rgba, 4);
    }
    h->count += 4;
}

void hud_lines(hud *h, const float view_proj[16], size_t count, const hud_vertex *verts)
{
    if (count < 2)
        return;
    glUseProgram(h->program);
    glUniformMatrix4fv(h->u_transform, 1, GL_FALSE, view_proj);
    glBindVertexArray(h->vao);
    glBindBuffer(GL_ARRAY_BUFFER, h->vbo);
    if (count > h->vbo_capacity) {
        h->vbo_capacity = count;
        glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(count * sizeof(hud_vertex)), NULL, GL_STREAM_DRAW);
    }
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(count * sizeof(hud_vertex)), verts);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glDrawArrays(GL_LINES, 0, (GLsizei)(count & ~(size_t)1));
    glDisable(GL_BLEND);
    glBindVertexArray(0);
}

void hud_end(hud *h)
{
    /* Window pixels to clip space, y down. */
    const float ortho[16] = {
        2.0f / (float)h->width, 0, 0, 0,
        0, -2.0f / (float)h->height, 0, 0,
        0, 0, 1, 0,
        -1, 1, 0, 1,
    };
    glViewport(0, 0, h->width, h->height);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    render_polygon_lines(false);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    flush(h, ortho);
    glDisable(GL_BLEND);
}

#if RENDER_GLES
/* The queued quads' edges as lines: ES has no line polygon mode (render_gl_api.h). */
static void outline_quads(hud *h, const float view_proj[16])
{
    size_t quads = h->count / 4;
    if (!reserve(h, quads * 8))
        return;
    hud_vertex *edges = h->verts + quads * 4;
    for (size_t q = 0; q < quads; q++)
        for (int c = 0; c < 4; c++) {
            edges[q * 8 + c * 2] = h->verts[q * 4 + c];
            edges[q * 8 + c * 2 + 1] = h->verts[q * 4 + (c + 1) % 4];
        }
    memmove(h->verts, edges, quads * 8 * sizeof *edges);
    h->count = quads * 8;
    flush_lines(h, view_proj);
}
#endif

void hud_boxes(hud *h, const float view_proj[16], size_t count, const float (*boxes)[4],
               const uint8_t (*rgb)[3], bool outline)
{
    /* Corner signs of the 6 faces (quads), wound outwards. */
    static const int8_t faces[6][4][3] = {
        { { 1, -1, -1 }, { 1, 1, -1 }, { 1, 1, 1 }, { 1, -1, 1 } },
        { { -1, -1, 1 }, { -1, 1, 1 }, { -1, 1, -1 }, { -1, -1, -1 } },
        { { -1, 1, -1 }, { -1, 1, 1 }, { 1, 1, 1 }, { 1, 1, -1 } },
        { { -1, -1, 1 }, { -1, -1, -1 }, { 1, -1, -1 }, { 1, -1, 1 } },
        { { -1, -1, 1 }, { 1, -1, 1 }, { 1, 1, 1 }, { -1, 1, 1 } },
        { { 1, -1, -1 }, { -1, -1, -1 }, { -1, 1, -1 }, { 1, 1, -1 } },
    };
    h->count = 0;
    hud_vertex *v = reserve(h, count * 24);
    if (!v)
        return;
    for (size_t b = 0; b < count; b++) {
        for (int f = 0; f < 6; f++) {
            /* A little shading per face so the boxes read as boxes; the +Y face shows the colour as is. */
            static const float shade[6] = { 0.8f, 0.8f, 1.0f, 0.6f, 0.9f, 0.9f };
            for (int c = 0; c < 4; c++, v++) {
                for (int k = 0; k < 3; k++)
                    v->xyz[k] = boxes[b][k] + faces[f][c][k] * boxes[b][3];
                for (int k = 0; k < 3; k++)
                    v->rgba[k] = (uint8_t)(rgb[b][k] * shade[f]);
                v->rgba[3] = 255;
            }
        }
    }
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
    glDisable(GL_CULL_FACE);
    render_polygon_lines(false);
    h->count = count * 24;
    flush(h, view_proj);
    if (outline) {
        /* The same quads again as lines, tinted towards white. */
        for (size_t i = 0; i < count * 24; i++)
            for (int k = 0; k < 3; k++)
                h->verts[i].rgba[k] = (uint8_t)(112 + rgb[i / 24][k] * 143 / 255);
        h->count = count * 24;
#if RENDER_GLES
        outline_quads(h, view_proj);
#else
        render_polygon_lines(true);
        flush(h, view_proj);
        render_polygon_lines(false);
#endif
    }
}

void hud_volumes(hud *h, const float view_proj[16], const float eye[3], size_t count, const float (*corners)[8][3],
                 const uint8_t (*rgba)[4])
{
    /* Per face: the octant bit it keeps clear or set, and its corners in order round the face. */
    static const uint8_t faces[6][4] = {
        { 0, 2, 6, 4 }, { 1, 3, 7, 5 },          /* +X, -X */
        { 0, 1, 3, 2 }, { 4, 5, 7, 6 },          /* +Y, -Y */
        { 0, 1, 5, 4 }, { 2, 3, 7, 6 },          /* +Z, -Z */
    };
    h->count = 0;
    hud_vertex *v = reserve(h, count * 48);
    if (!v)
        return;
    size_t filled = 0;
    for (size_t b = 0; b < count; b++) {
        float centre[3] = { 0, 0, 0 };
        for (int c = 0; c < 8; c++)
            for (int k = 0; k < 3; k++)
                centre[k] += corners[b][c][k] / 8.0f;
        bool front[6], any = false;
        for (int f = 0; f < 6; f++) {
            float fc[3] = { 0, 0, 0 }, d = 0;
            for (int c = 0; c < 4; c++)
                for (int k = 0; k < 3; k++)
                    fc[k] += corners[b][faces[f][c]][k] / 4.0f;
            for (int k = 0; k < 3; k++)
                d += (fc[k] - centre[k]) * (eye[k] - fc[k]);
            front[f] = d > 0;
            any |= front[f];
        }
        for (int f = 0; f < 6; f++) {
            if (any && !front[f])
                continue;
            for (int c = 0; c < 4; c++, v++) {
                memcpy(v->xyz, corners[b][faces[f][c]], sizeof v->xyz);
                memcpy(v->rgba, rgba[b], 4);
            }
            filled += 4;
        }
    }
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    glDepthMask(GL_FALSE);
    glDisable(GL_CULL_FACE);
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(-1.0f, -4.0f);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    render_polygon_lines(false);
    h->count = filled;
    flush(h, view_proj);
    glDisable(GL_BLEND);
    /* The 12 edges: corner pairs differing in one octant bit. */
    v = reserve(h, count * 24);
    if (v) {
        for (size_t b = 0; b < count; b++)
            for (int c = 0; c < 8; c++)
                for (int bit = 1; bit <= 4; bit <<= 1) {
                    if (c & bit)
                        continue;
                    for (int end = 0; end < 2; end++, v++) {
                        memcpy(v->xyz, corners[b][end ? c | bit : c], sizeof v->xyz);
                        memcpy(v->rgba, rgba[b], 3);
                        v->rgba[3] = 255;
                    }
                }
        /* The polygon offset does not reach lines, so an edge lying on a floor or wall would
         * z-fight with it: shown or hidden by the last bits of that surface's depth (its
         * quantised vertices, a 24- or 32-bit depth buffer). The edges are pulled towards the
         * eye instead: clip z -= pull x clip w, pull / 2 in window depth (8 steps of 24 bits). */
        const float pull = 0x1p-20f;
        float pulled[16];
        memcpy(pulled, view_proj, sizeof pulled);
        for (int col = 0; col < 4; col++)
            pulled[col * 4 + 2] -= pull * pulled[col * 4 + 3];
        h->count = count * 24;
        flush_lines(h, pulled);
    }
    glDisable(GL_POLYGON_OFFSET_FILL);
    glDepthMask(GL_TRUE);
}
