/* render_world_verify.c - PMFVIEW_GL_VERIFY=1: every upload read back after the frame that first
 * uses it and compared with what was sent (render_world_verify). A driver may reorder, cache
 * and leave unwritten memory undefined where llvmpipe does not; this is how a run on a real GPU
 * proves its buffers, atlas blocks and textures hold what the CPU meant. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_world_internal.h"

typedef struct verify_texture {
    GLuint tex;
    uint32_t width, height, levels;  /* levels: level 0 and its mip levels */
    uint8_t *texels;                 /* every level's RGBA8, level 0 first */
} verify_texture;

static size_t rgba_levels_bytes(uint32_t width, uint32_t height, uint32_t levels)
{
    size_t bytes = 0;
    for (uint32_t l = 0; l < levels; l++) {
        bytes += (size_t)width * height * 4;
        width = width > 1 ? width / 2 : 1;
        height = height > 1 ? height / 2 : 1;
    }
    return bytes;
}

void world_verify_texture_uploaded(render_world *w, GLuint tex, uint32_t width, uint32_t height, const uint8_t *rgba,
                                   const uint8_t *mips, uint32_t mip_levels)
{
    if (!w->verify)
        return;
    size_t first = (size_t)width * height * 4;
    size_t bytes = rgba_levels_bytes(width, height, mip_levels + 1);
    uint8_t *copy = malloc(bytes);
    if (!copy || !grow_array((void **)&w->verify_textures, &w->verify_texture_cap, w->verify_texture_count + 1,
                                sizeof *w->verify_textures)) {
        free(copy);
        return;
    }
    memcpy(copy, rgba, first);
    if (bytes > first)
        memcpy(copy + first, mips, bytes - first);
    w->verify_textures[w->verify_texture_count++] = (verify_texture){ tex, width, height, mip_levels + 1, copy };
}

void world_verify_all_buffers(render_world *w)
{
    for (size_t i = 0; i < w->chunk_count && w->verify; i++)
        w->chunks[i].verify_buffers = w->chunks[i].mc != NULL;
}

void world_verify_release(render_world *w)
{
    for (size_t i = 0; i < w->verify_texture_count; i++)
        free(w->verify_textures[i].texels);
    free(w->verify_textures);
    w->verify_textures = NULL;
    w->verify_texture_count = w->verify_texture_cap = 0;
}

#if RENDER_GLES
/* OpenGL ES reads no texture back (no glGetTexImage, and an RGB9_E5 atlas cannot be a
 * framebuffer): PMFVIEW_GL_VERIFY is not taken there (render_world_create). */
bool render_world_verify(render_world *w, char *err, size_t err_size)
{
    (void)w;
    (void)err;
    (void)err_size;
    return true;
}
#else
typedef struct verify_pass {
    render_world *w;
    void *scratch;                   /* read-back */
    size_t scratch_cap;
    char *err;
    size_t err_size;
} verify_pass;

static uint8_t *scratch(verify_pass *p, size_t bytes)
{
    if (!grow_array(&p->scratch, &p->scratch_cap, bytes ? bytes : 1, 1))
        return NULL;
    return p->scratch;
}

static size_t first_difference(const uint8_t *a, const uint8_t *b, size_t n)
{
    size_t i = 0;
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

static bool out_of_memory(verify_pass *p)
{
    snprintf(p->err, p->err_size, "GL verify: out of memory for the read-back");
    return false;
}

/* Reads count elements of elem_size at element `first` of the arena's buffer and compares them
 * with expected. */
static bool check_range(verify_pass *p, const render_arena *a, const char *what, const mesh_chunk *mc, uint32_t first,
                        uint32_t count, const void *expected)
{
    if (!count)
        return true;
    size_t bytes = (size_t)count * a->elem_size;
    uint8_t *got = scratch(p, bytes);
    if (!got)
        return out_of_memory(p);
    glBindBuffer(GL_COPY_READ_BUFFER, a->buffer);
    glGetBufferSubData(GL_COPY_READ_BUFFER, (GLintptr)first * a->elem_size, (GLsizeiptr)bytes, got);
    size_t at = first_difference(got, expected, bytes);
    if (at < bytes) {
        snprintf(p->err, p->err_size,
                 "GL verify: %s buffer byte %llu (element %llu) holds 0x%02x, the upload of chunk (%u,%u,%u) wrote 0x%02x",
                 what, (unsigned long long)((size_t)first * a->elem_size + at),
                 (unsigned long long)(first + at / a->elem_size), got[at], (unsigned)mc->coord.x, (unsigned)mc->coord.y,
                 (unsigned)mc->coord.z, ((const uint8_t *)expected)[at]);
        return false;
    }
    p->w->verified++;
    return true;
}

static bool check_chunk_buffers(verify_pass *p, const gpu_chunk *gc)
{
    render_world *w = p->w;
    const mesh_chunk *mc = gc->mc;
    if (!check_range(p, &w->vertices, "vertex", mc, gc->vertex_base, mc->vertex_count, mc->vertices))
        return false;
    if (gc->wide) {
        if (!check_range(p, &w->indices32, "u32 index", mc, gc->index_base, mc->index_count, mc->indices))
            return false;
    } else if (mc->index_count) {
        uint16_t *narrow = malloc((size_t)mc->index_count * sizeof *narrow);
        if (!narrow)
            return out_of_memory(p);
        for (uint32_t i = 0; i < mc->index_count; i++)
            narrow[i] = (uint16_t)mc->indices[i];
        bool ok = check_range(p, &w->indices16, "u16 index", mc, gc->index_base, mc->index_count, narrow);
        free(narrow);
        if (!ok)
            return false;
    }
    if (mc->fast && !check_range(p, &w->fast_vertices, "fast-vertex", mc, gc->fast_vertex_base, mc->fast_vertex_count,
                                 mc->fast))
        return false;
    if (mc->fast_light_count) {
        float *entries = malloc((size_t)mc->fast_light_count * 4 * sizeof *entries);
        if (!entries)
            return out_of_memory(p);
        for (uint32_t f = 0; f < mc->fast_light_count; f++)
            world_fast_entry(w, &mc->fast_lights[f], &entries[f * 4]);
        bool ok = check_range(p, &w->fast_table, "fast-light table", mc, gc->fast_base, mc->fast_light_count, entries);
        free(entries);
        if (!ok)
            return false;
    }
    return true;
}

/* atlas: every page of the lit atlas, read once for all the chunks to check */
static bool check_chunk_atlas(verify_pass *p, const gpu_chunk *gc, const uint32_t *atlas, world_composite_scratch *cs)
{
    render_world *w = p->w;
    const mesh_chunk *mc = gc->mc;
    for (uint32_t b = 0; b < mc->block_count; b++) {
        const mesh_atlas_rect *r = &mc->blocks[b].rect;
        uint32_t side = mesh_atlas_block_side(r);
        if (!world_composite_block(w, mc, b, cs))
            return out_of_memory(p);
        for (uint32_t y = 0; y < side; y++) {
            const uint32_t *row = atlas + ((size_t)r->page * w->page_size + r->y + y) * w->page_size + r->x;
            const uint32_t *want = cs->packed + (size_t)y * side;
            for (uint32_t x = 0; x < side; x++) {
                if (row[x] != want[x]) {
                    snprintf(p->err, p->err_size,
                             "GL verify: lightmap atlas page %u texel (%u,%u) holds 0x%08x, chunk (%u,%u,%u) block %u wrote 0x%08x",
                             r->page, r->x + x, r->y + y, row[x], (unsigned)mc->coord.x, (unsigned)mc->coord.y,
                             (unsigned)mc->coord.z, b, want[x]);
                    return false;
                }
            }
        }
        w->verified++;
    }
    return true;
}

static bool check_atlas(verify_pass *p)
{
    render_world *w = p->w;
    bool any = false;
    for (size_t i = 0; i < w->chunk_count && !any; i++)
        any = w->chunks[i].mc && w->chunks[i].lit && w->chunks[i].verify_atlas;
    if (!any || !w->atlas_layers)
        return true;
    size_t texels = (size_t)w->page_size * w->page_size * w->atlas_layers;
    uint32_t *atlas = (uint32_t *)scratch(p, texels * 4);
    if (!atlas)
        return out_of_memory(p);
    glBindTexture(GL_TEXTURE_2D_ARRAY, w->light_atlas);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glGetTexImage(GL_TEXTURE_2D_ARRAY, 0, GL_RGB, GL_UNSIGNED_INT_5_9_9_9_REV, atlas);
    world_composite_scratch cs = { 0 };
    bool ok = true;
    for (size_t i = 0; i < w->chunk_count && ok; i++) {
        gpu_chunk *gc = &w->chunks[i];
        if (!gc->mc || !gc->lit || !gc->verify_atlas)
            continue;
        ok = check_chunk_atlas(p, gc, atlas, &cs);
        gc->verify_atlas = false;
    }
    world_composite_scratch_free(&cs);
    return ok;
}

static bool check_texture(verify_pass *p, const verify_texture *t)
{
    uint32_t width = t->width, height = t->height;
    const uint8_t *want = t->texels;
    glBindTexture(GL_TEXTURE_2D, t->tex);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    for (uint32_t level = 0; level < t->levels; level++) {
        size_t bytes = (size_t)width * height * 4;
        uint8_t *got = scratch(p, bytes);
        if (!got)
            return out_of_memory(p);
        glGetTexImage(GL_TEXTURE_2D, (GLint)level, GL_RGBA, GL_UNSIGNED_BYTE, got);
        size_t at = first_difference(got, want, bytes);
        if (at < bytes) {
            snprintf(p->err, p->err_size, "GL verify: texture %u (%ux%u) level %u byte %llu holds 0x%02x, the upload wrote 0x%02x",
                     t->tex, t->width, t->height, level, (unsigned long long)at, got[at], want[at]);
            return false;
        }
        want += bytes;
        width = width > 1 ? width / 2 : 1;
        height = height > 1 ? height / 2 : 1;
    }
    p->w->verified++;
    return true;
}

bool render_world_verify(render_world *w, char *err, size_t err_size)
{
    if (!w->verify)
        return true;
    verify_pass p = { .w = w, .err = err, .err_size = err_size };
    bool ok = true;
    for (size_t i = 0; i < w->chunk_count && ok; i++) {
        gpu_chunk *gc = &w->chunks[i];
        if (gc->mc && gc->verify_buffers)
            ok = check_chunk_buffers(&p, gc);
        gc->verify_buffers = false;
    }
    ok = ok && check_atlas(&p);
    for (size_t i = 0; i < w->verify_texture_count && ok; i++)
        ok = check_texture(&p, &w->verify_textures[i]);
    world_verify_release(w);
    free(p.scratch);
    return ok;
}

#endif

bool render_world_verifying(const render_world *w, uint64_t *verified)
{
    *verified = w->verified;
    return w->verify;
}
