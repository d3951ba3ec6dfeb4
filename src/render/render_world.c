/* render_world.c - the world's GL objects and chunk uploads (render_world.h); lights, materials,
 * the draw and the sky are in render_world_*.c beside it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmf_budget.h"
#include "render_world_internal.h"

/* ---- create / destroy ---------------------------------------------------------------------- */

static void lookup_sky_uniforms(render_world *w)
{
    GLuint p = w->sky_prog;
    w->su.view_proj = glGetUniformLocation(p, "u_view_proj");
    w->su.texture = glGetUniformLocation(p, "u_texture");
    w->su.color = glGetUniformLocation(p, "u_color");
    w->su.cloud = glGetUniformLocation(p, "u_cloud");
    w->su.uv_offset = glGetUniformLocation(p, "u_uv_offset");
    w->su.exposure = glGetUniformLocation(p, "u_exposure");
    glUseProgram(p);
    glUniform1i(w->su.texture, 0);
    glUseProgram(0);
}

/* The buffer textures that read the fast-light arenas, after those moved (OpenGL ES: their 2D
 * textures are copied again before the next draw, world_sync_fast_textures). */
static void bind_fast_buffers(render_world *w)
{
#if RENDER_GLES
    w->fast_stale = true;
#else
    glBindTexture(GL_TEXTURE_BUFFER, w->fast_tex);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, w->fast_table.buffer);
    glBindTexture(GL_TEXTURE_BUFFER, w->fast_vertex_tex);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_RG32UI, w->fast_vertices.buffer);
#endif
}

#if RENDER_GLES
/* One arena's elements into its 2D texture, RENDER_BUFFER_TEXTURE_WIDTH a row (arenas grow in
 * whole rows of 4096), through the pixel unpack buffer: no copy on the CPU. */
static void copy_arena_to_texture(const render_arena *a, GLuint tex, uint32_t *rows, GLenum internal, GLenum format,
                                  GLenum type)
{
    uint32_t want = a->capacity / RENDER_BUFFER_TEXTURE_WIDTH;
    glBindTexture(GL_TEXTURE_2D, tex);
    if (*rows != want) {
        glTexImage2D(GL_TEXTURE_2D, 0, (GLint)internal, RENDER_BUFFER_TEXTURE_WIDTH, (GLsizei)want, 0, format, type, NULL);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
        *rows = want;
    }
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, a->buffer);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, RENDER_BUFFER_TEXTURE_WIDTH, (GLsizei)want, format, type, NULL);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
}

void world_sync_fast_textures(render_world *w)
{
    if (!w->fast_stale)
        return;
    copy_arena_to_texture(&w->fast_table, w->fast_tex, &w->fast_table_rows, GL_RGBA32F, GL_RGBA, GL_FLOAT);
    copy_arena_to_texture(&w->fast_vertices, w->fast_vertex_tex, &w->fast_vertex_rows, GL_RG32UI, GL_RG_INTEGER,
                          GL_UNSIGNED_INT);
    w->fast_stale = false;
}
#endif

render_world *render_world_create(const render_world_desc *desc, char *err, size_t err_size)
{
    render_world *w = calloc(1, sizeof *w);
    if (!w || !(w->materials = calloc(desc->lvl->common.material_count + 1u, sizeof *w->materials))
        || !(w->material_mark = calloc(desc->lvl->common.material_count + 1u, sizeof *w->material_mark))) {
        if (w)
            free(w->materials);
        free(w);
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    w->lvl = desc->lvl;
    w->atlas = desc->atlas;
    w->res = desc->res;
    w->mdi = render_get_caps()->multi_draw_indirect;
    const char *verify = getenv("PMFVIEW_GL_VERIFY");
    w->verify = !RENDER_GLES && verify && !strcmp(verify, "1");
    /* The plain variant is built here, so a shader that does not build fails now; the others
     * while the chunks stream (render_world_prepare_variants). */
    w->sky_prog = render_program_build("sky", render_shader_sky_vert, render_shader_sky_frag, err, err_size);
    if (!w->sky_prog || !world_variant_get(w, RENDER_MODE_FULL << WV_MODE_SHIFT, err, err_size)) {
        render_world_destroy(w);
        return NULL;
    }
    lookup_sky_uniforms(w);

    render_arena_init(&w->vertices, GL_ARRAY_BUFFER, sizeof(mesh_vertex));
    render_arena_init(&w->indices16, GL_ELEMENT_ARRAY_BUFFER, sizeof(uint16_t));
    render_arena_init(&w->indices32, GL_ELEMENT_ARRAY_BUFFER, sizeof(uint32_t));
    render_arena_init(&w->fast_vertices, WORLD_FAST_ARENA_TARGET, sizeof(mesh_fast_vertex));
    render_arena_init(&w->fast_table, WORLD_FAST_ARENA_TARGET, 16);
    glGenVertexArrays(1, &w->vao);
    glGenBuffers(1, &w->draw_table);
    glGenBuffers(1, &w->indirect);
    glGenTextures(1, &w->fast_tex);
    glGenTextures(1, &w->fast_vertex_tex);
    w->vao_dirty = true;
    /* One slot of each that is never freed, so the buffers exist before any fast light does. */
    uint32_t reserved;
    bool moved = false;
    if (!render_arena_alloc(&w->fast_table, 1, &reserved, &moved)
        || !render_arena_alloc(&w->fast_vertices, 1, &reserved, &moved)) {
        snprintf(err, err_size, "out of GPU memory");
        render_world_destroy(w);
        return NULL;
    }
    /* written, so that no byte a later growth copies is undefined */
    static const uint8_t zeros[16];
    glBindBuffer(GL_COPY_WRITE_BUFFER, w->fast_table.buffer);
    glBufferSubData(GL_COPY_WRITE_BUFFER, 0, 16, zeros);
    glBindBuffer(GL_COPY_WRITE_BUFFER, w->fast_vertices.buffer);
    glBufferSubData(GL_COPY_WRITE_BUFFER, 0, sizeof(mesh_fast_vertex), zeros);
    bind_fast_buffers(w);

    static const uint8_t white[4] = { 255, 255, 255, 255 }, black[4] = { 0, 0, 0, 255 };
    w->white = world_upload_rgba(1, 1, white, NULL, 0);
    w->black = world_upload_rgba(1, 1, black, NULL, 0);
    w->page_size = mesh_atlas_page_size(w->atlas);
    world_alloc_atlas_layers(w, 0);
    world_build_sky_cube(w);
    return w;
}

void render_world_destroy(render_world *w)
{
    if (!w)
        return;
    for (uint32_t i = 0; i < w->lvl->common.material_count; i++)
        if (w->materials[i].frames != &w->white)
            free(w->materials[i].frames);
    for (size_t i = 0; i < w->texture_count; i++) {
        glDeleteTextures(1, &w->textures[i].tex);
        pmf_budget_give(w->textures[i].charged);
        free(w->textures[i].path);
    }
    GLuint textures[5] = { w->white, w->black, w->light_atlas, w->fast_tex, w->fast_vertex_tex };
    glDeleteTextures(5, textures);
    GLuint buffers[3] = { w->draw_table, w->indirect, w->sky_vbo };
    glDeleteBuffers(3, buffers);
    GLuint vaos[2] = { w->vao, w->sky_vao };
    glDeleteVertexArrays(2, vaos);
    glDeleteSamplers(1, &w->sky_sampler);
    render_arena_release(&w->vertices);
    render_arena_release(&w->indices16);
    render_arena_release(&w->indices32);
    render_arena_release(&w->fast_vertices);
    render_arena_release(&w->fast_table);
    world_variants_release(w);
    world_verify_release(w);
    if (w->sky_prog)
        glDeleteProgram(w->sky_prog);
    free(w->textures);
    free(w->materials);
    free(w->chunks);
    free(w->lights);
    free((void *)w->filter.dynamic_ids);
    free((void *)w->filter.fast_ids);
    free(w->items);
    free(w->ranges);
    free(w->cmds);
    free(w->table);
    free(w->staging);
    free(w->material_mark);
    free(w);
}

uint64_t render_world_gpu_bytes(const render_world *w)
{
    return (uint64_t)w->vertices.capacity * sizeof(mesh_vertex) + (uint64_t)w->fast_vertices.capacity * sizeof(mesh_fast_vertex)
         + (uint64_t)w->indices16.capacity * 2u + (uint64_t)w->indices32.capacity * 4u
         + (uint64_t)w->fast_table.capacity * 16u
         + (uint64_t)w->atlas_layers * w->page_size * w->page_size * 4u;
}

void render_world_chunk_bytes(const render_world *w, uint64_t *vertices, uint64_t *bytes)
{
    *vertices = w->resident_vertices;
    *bytes = w->resident_bytes;
}

/* ---- chunks -------------------------------------------------------------------------------- */

void render_world_chunk_needs(const mesh_chunk *mc, render_world_reserve_desc *need)
{
    need->vertices += mc->vertex_count;
    if (mc->vertex_count > MAX_U16_VERTICES)
        need->indices32 += mc->index_count;
    else
        need->indices16 += mc->index_count;
    need->fast_vertices += mc->fast ? mc->fast_vertex_count : 0;
    need->fast_lights += mc->fast_light_count;
    for (uint32_t b = 0; b < mc->block_count; b++) {
        uint64_t side = mesh_atlas_block_side(&mc->blocks[b].rect);
        need->lightmap_texels += side * side;
    }
}

/* After arena growth moved the vertex / index (moved) or fast-light (fast_moved) buffers: the
 * VAO points at them again, and under PMFVIEW_GL_VERIFY what they held is read back. */
static void buffers_moved(render_world *w, bool moved, bool fast_moved)
{
    if (moved)
        w->vao_dirty = true;
    if (fast_moved)
        bind_fast_buffers(w);
    if (moved || fast_moved)
        world_verify_all_buffers(w);
}

void render_world_reserve(render_world *w, const render_world_reserve_desc *desc)
{
    /* a wrong guess must not take the memory the chunks themselves need: the buffers get a
     * quarter of the budget at most */
    double bytes = (double)desc->vertices * sizeof(mesh_vertex) + (double)desc->indices16 * 2u
                 + (double)desc->indices32 * 4u + (double)desc->fast_vertices * sizeof(mesh_fast_vertex)
                 + (double)desc->fast_lights * 16u;
    uint64_t limit = pmf_budget_limit();
    double share = limit && bytes > limit / 4.0 ? limit / 4.0 / bytes : 1.0;
    bool moved = false, fast_moved = false;
    render_arena_reserve(&w->vertices, (uint64_t)(desc->vertices * share), &moved);
    render_arena_reserve(&w->indices16, (uint64_t)(desc->indices16 * share), &moved);
    render_arena_reserve(&w->indices32, (uint64_t)(desc->indices32 * share), &moved);
    render_arena_reserve(&w->fast_vertices, (uint64_t)(desc->fast_vertices * share), &fast_moved);
    render_arena_reserve(&w->fast_table, (uint64_t)(desc->fast_lights * share), &fast_moved);
    buffers_moved(w, moved, fast_moved);
    /* the lit atlas likewise; shelves leave a quarter of a page unused */
    uint64_t page = (uint64_t)w->page_size * w->page_size;
    double pages = ceil((double)desc->lightmap_texels * 1.25 / (double)page);
    uint32_t max_pages = mesh_atlas_max_pages(w->atlas);
    uint32_t layers = pages < max_pages ? (uint32_t)pages : max_pages;
    if (layers > w->atlas_layers && layers > mesh_atlas_page_count(w->atlas))
        world_grow_atlas(w, layers);
}

uint32_t render_world_copies(const render_world *w)
{
    return w->vertices.copies + w->indices16.copies + w->indices32.copies + w->fast_vertices.copies
         + w->fast_table.copies + w->atlas_copies;
}

/* What a chunk's vertices, fast vertices and indices take in the arenas. */
static uint64_t chunk_buffer_bytes(const mesh_chunk *mc)
{
    uint64_t bytes = (uint64_t)mc->vertex_count * sizeof(mesh_vertex);
    if (mc->fast)
        bytes += (uint64_t)mc->fast_vertex_count * sizeof(mesh_fast_vertex);
    return bytes + (uint64_t)mc->index_count * (mc->vertex_count > MAX_U16_VERTICES ? 4u : 2u);
}

int render_world_add(render_world *w, const mesh_chunk *mc)
{
    size_t slot = 0;
    while (slot < w->chunk_count && w->chunks[slot].mc)
        slot++;
    if (slot == w->chunk_count) {
        if (!grow_array((void **)&w->chunks, &w->chunk_cap, w->chunk_count + 1, sizeof *w->chunks))
            return -1;
        w->chunk_count++;
    }
    gpu_chunk *gc = &w->chunks[slot];
    memset(gc, 0, sizeof *gc);

    bool wide = mc->vertex_count > MAX_U16_VERTICES;
    render_arena *indices = wide ? &w->indices32 : &w->indices16;
    uint32_t fast_count = mc->fast ? mc->fast_vertex_count : 0;
    uint32_t vbase = 0, ibase = 0, fbase = 0, slots = 0;
    bool moved = false, fast_moved = false;
    bool ok = render_arena_alloc(&w->vertices, mc->vertex_count, &vbase, &moved);
    if (ok && !render_arena_alloc(indices, mc->index_count, &ibase, &moved)) {
        render_arena_free(&w->vertices, vbase, mc->vertex_count);
        ok = false;
    }
    if (ok && !render_arena_alloc(&w->fast_vertices, fast_count, &fbase, &fast_moved)) {
        render_arena_free(&w->vertices, vbase, mc->vertex_count);
        render_arena_free(indices, ibase, mc->index_count);
        ok = false;
    }
    if (ok && !render_arena_alloc(&w->fast_table, mc->fast_light_count, &slots, &fast_moved)) {
        render_arena_free(&w->vertices, vbase, mc->vertex_count);
        render_arena_free(indices, ibase, mc->index_count);
        render_arena_free(&w->fast_vertices, fbase, fast_count);
        ok = false;
    }
    buffers_moved(w, moved, fast_moved);
    /* u16 indices narrowed in a buffer kept between uploads (fresh memory per chunk costs page
     * faults). */
    if (ok && !wide && !grow_array((void **)&w->staging, &w->staging_cap, (size_t)mc->index_count + 1, sizeof *w->staging)) {
        render_arena_free(&w->vertices, vbase, mc->vertex_count);
        render_arena_free(indices, ibase, mc->index_count);
        render_arena_free(&w->fast_vertices, fbase, fast_count);
        render_arena_free(&w->fast_table, slots, mc->fast_light_count);
        ok = false;
    }
    if (!ok)
        return -1;
    /* a chunk with nothing to draw (a skybox chunk) has no buffer to write: the arena makes none
     * for zero elements, and glBufferSubData on buffer 0 is a GL error */
    if (mc->vertex_count) {
        glBindBuffer(GL_COPY_WRITE_BUFFER, w->vertices.buffer);
        glBufferSubData(GL_COPY_WRITE_BUFFER, (GLintptr)vbase * sizeof(mesh_vertex),
                        (GLsizeiptr)mc->vertex_count * sizeof(mesh_vertex), mc->vertices);
    }
    if (mc->index_count) {
        glBindBuffer(GL_COPY_WRITE_BUFFER, indices->buffer);
        if (wide) {
            glBufferSubData(GL_COPY_WRITE_BUFFER, (GLintptr)ibase * 4, (GLsizeiptr)mc->index_count * 4, mc->indices);
        } else {
            for (uint32_t i = 0; i < mc->index_count; i++)
                w->staging[i] = (uint16_t)mc->indices[i];
            glBufferSubData(GL_COPY_WRITE_BUFFER, (GLintptr)ibase * 2, (GLsizeiptr)mc->index_count * 2, w->staging);
        }
    }
    if (fast_count) {
        glBindBuffer(GL_COPY_WRITE_BUFFER, w->fast_vertices.buffer);
        glBufferSubData(GL_COPY_WRITE_BUFFER, (GLintptr)fbase * sizeof(mesh_fast_vertex),
                        (GLsizeiptr)fast_count * sizeof(mesh_fast_vertex), mc->fast);
        w->fast_stale = true;
    }

    gc->mc = mc;
    w->fast_chunks += mc->fast != NULL;
    w->resident_vertices += mc->vertex_count;
    w->resident_bytes += chunk_buffer_bytes(mc);
    gc->vertex_base = vbase;
    gc->index_base = ibase;
    gc->wide = wide;
    gc->fast_vertex_base = fbase;
    gc->fast_base = slots;

    /* The first chunk that shows a light gives its colour and, unless the user already chose,
     * its state: a dynamic light's enable flag; a fast light's enable flag always (the user
     * sets only its intensity) and its initial intensity. */
    for (uint32_t d = 0; d < mc->dynamic_light_count; d++) {
        const mesh_dynamic_light *dl = &mc->dynamic_lights[d];
        render_light *l = world_register_light(w, false, dl->id, dl->color, dl->flags & PMF_LIGHT_ENABLE, 0);
        if (l && !l->loaded) {
            memcpy(l->color, dl->color, 3);
            if (!l->chosen)
                l->enabled = dl->flags & PMF_LIGHT_ENABLE;
            l->loaded = true;
        }
    }
    for (uint32_t f = 0; f < mc->fast_light_count; f++) {
        const mesh_fast_light *fl = &mc->fast_lights[f];
        render_light *l = world_register_light(w, true, fl->id, fl->color, fl->flags & PMF_LIGHT_ENABLE, fl->intensity);
        if (l && !l->loaded) {
            memcpy(l->color, fl->color, 3);
            l->enabled = fl->flags & PMF_LIGHT_ENABLE;
            l->loaded = true;
        }
        world_write_fast_entry(w, slots + f, fl);
    }
    /* Composited now when its pages exist (within the caller's upload budget), else by the next
     * render_world_commit, which sizes the atlas once for all such chunks. */
    gc->verify_buffers = w->verify;
    if (world_chunk_pages_exist(w, mc) && world_composite_chunk(w, gc))
        gc->lit = true;
    else
        w->unlit_chunks++;
    for (uint32_t b = 0; b < mc->batch_count; b++)
        if (mc->batches[b].material < w->lvl->common.material_count)
            world_load_material(w, mc->batches[b].material);
    return (int)slot;
}

void render_world_remove(render_world *w, int handle)
{
    if (handle < 0 || (size_t)handle >= w->chunk_count || !w->chunks[handle].mc)
        return;
    gpu_chunk *gc = &w->chunks[handle];
    render_arena_free(&w->vertices, gc->vertex_base, gc->mc->vertex_count);
    render_arena_free(gc->wide ? &w->indices32 : &w->indices16, gc->index_base, gc->mc->index_count);
    render_arena_free(&w->fast_vertices, gc->fast_vertex_base, gc->mc->fast ? gc->mc->fast_vertex_count : 0);
    render_arena_free(&w->fast_table, gc->fast_base, gc->mc->fast_light_count);
    w->fast_chunks -= gc->mc->fast != NULL;
    w->resident_vertices -= gc->mc->vertex_count;
    w->resident_bytes -= chunk_buffer_bytes(gc->mc);
    if (!gc->lit)
        w->unlit_chunks--;
    gc->mc = NULL;
}
