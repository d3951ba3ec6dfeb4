/* render_world_lights.c - the light registry, the lit lightmap atlas (base + enabled dynamic
 * layers, composited on the CPU) and the fast-light table. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "light_texels.h"
#include "render_world_internal.h"

/* ---- lights ------------------------------------------------------------------------------- */

static render_light *find_light(const render_world *w, bool fast, uint32_t id)
{
    size_t lo = 0, hi = w->light_count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const render_light *l = &w->lights[mid];
        if (l->fast == fast && l->id == id)
            return (render_light *)l;
        if (l->fast < fast || (l->fast == fast && l->id < id))
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The registry entry for a light; a new one takes the given state (loaded stays false until a
 * chunk shows the light). */
render_light *world_register_light(render_world *w, bool fast, uint32_t id, const uint8_t color[3],
                                    bool enabled, uint8_t intensity)
{
    render_light *l = find_light(w, fast, id);
    if (l)
        return l;
    if (!grow_array((void **)&w->lights, &w->light_cap, w->light_count + 1, sizeof *w->lights))
        return NULL;
    size_t i = 0;
    while (i < w->light_count && (w->lights[i].fast < fast || (w->lights[i].fast == fast && w->lights[i].id < id)))
        i++;
    memmove(&w->lights[i + 1], &w->lights[i], (w->light_count - i) * sizeof *w->lights);
    w->lights[i] = (render_light){ .id = id, .fast = fast, .enabled = enabled, .scale = 1.0f, .intensity = intensity,
                                   .loaded = false };
    memcpy(w->lights[i].color, color, 3);
    w->light_count++;
    return &w->lights[i];
}

size_t render_world_lights(const render_world *w, render_light *out, size_t max)
{
    for (size_t i = 0; i < w->light_count && i < max; i++)
        out[i] = w->lights[i];
    return w->light_count;
}

/* ---- lit lightmap atlas ------------------------------------------------------------------- */

/* (Re)allocates the atlas with `layers` pages (0: a 1x1 placeholder until a chunk needs one;
 * llvmpipe clears every byte it allocates, so no page is made before it is used). When the GL can
 * copy images (4.3), the blocks of the chunks already composited are copied over, each block on
 * its own: the rest of an old page was never written or belongs to no chunk now, and a copy of it
 * could land over a block composited into the new texture next (issue 21). Returns false when
 * nothing was copied and the chunks must be composited again. */
bool world_alloc_atlas_layers(render_world *w, uint32_t layers)
{
    GLuint old = w->light_atlas;
    uint32_t old_layers = w->atlas_layers;
    GLsizei side = layers ? (GLsizei)w->page_size : 1;
    glGenTextures(1, &w->light_atlas);
    glBindTexture(GL_TEXTURE_2D_ARRAY, w->light_atlas);
    glTexImage3D(GL_TEXTURE_2D_ARRAY, 0, GL_RGB9_E5, side, side, layers ? (GLsizei)layers : 1, 0, GL_RGB,
                 GL_UNSIGNED_INT_5_9_9_9_REV, NULL);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAX_LEVEL, 0);
    w->atlas_layers = layers;
    const render_caps *caps = render_get_caps();
    bool copied = !old_layers;
#if !RENDER_GLES /* OpenGL ES 3.0 copies no image: the chunks are composited again */
    if (old_layers && (caps->gl_major > 4 || (caps->gl_major == 4 && caps->gl_minor >= 3))) {
        for (size_t i = 0; i < w->chunk_count; i++) {
            const gpu_chunk *gc = &w->chunks[i];
            if (!gc->mc || !gc->lit)
                continue;
            for (uint32_t b = 0; b < gc->mc->block_count; b++) {
                const mesh_atlas_rect *r = &gc->mc->blocks[b].rect;
                GLsizei block = (GLsizei)mesh_atlas_block_side(r);
                glCopyImageSubData(old, GL_TEXTURE_2D_ARRAY, 0, r->x, r->y, r->page, w->light_atlas,
                                   GL_TEXTURE_2D_ARRAY, 0, r->x, r->y, r->page, block, block, 1);
                w->atlas_copied_texels += (uint64_t)block * (uint64_t)block;
            }
            w->chunks[i].verify_atlas = w->verify;
        }
        copied = true;
    }
#else
    (void)caps;
#endif
    if (old)
        glDeleteTextures(1, &old);
    return copied;
}

static bool id_listed(const uint32_t *ids, size_t count, uint32_t id)
{
    for (size_t i = 0; i < count; i++)
        if (ids[i] == id)
            return true;
    return false;
}

/* Whether a light adds to the picture: its own state, then the light tools' solo / mute. */
static bool light_shows(const render_world *w, bool fast, uint32_t id)
{
    const render_light_filter *f = &w->filter;
    bool listed = fast ? id_listed(f->fast_ids, f->fast_count, id) : id_listed(f->dynamic_ids, f->dynamic_count, id);
    if (f->solo)
        return listed;
    const render_light *l = find_light(w, fast, id);
    return l && l->enabled && !listed;
}

/* Whether a layer of the chunk on block b adds to the picture. */
static bool block_has_shown_layer(const render_world *w, const mesh_chunk *mc, uint32_t b)
{
    for (uint32_t l = 0; l < mc->layer_count; l++)
        if (mc->layers[l].block == b && light_shows(w, false, mc->dynamic_lights[mc->layers[l].light].id))
            return true;
    return false;
}

bool world_composite_block(render_world *w, const mesh_chunk *mc, uint32_t b, world_composite_scratch *scratch)
{
    const mesh_lightmap_block *blk = &mc->blocks[b];
    uint32_t side = mesh_atlas_block_side(&blk->rect);
    size_t texels = (size_t)side * side;
    bool base_only = !w->filter.solo && !w->filter.static_term && !block_has_shown_layer(w, mc, b);
    if (!grow_array((void **)&scratch->packed, &scratch->packed_cap, texels, sizeof *scratch->packed)
        || (!base_only && !grow_array((void **)&scratch->light, &scratch->light_cap, texels * 4, sizeof *scratch->light)))
        return false;
    if (base_only) {
        light_texels_from_luxels(blk->luxels, texels, scratch->packed);
        return true;
    }
    float *buf = scratch->light;
    light_texels_base(blk->luxels, texels, w->filter.solo ? 0.0f : 1.0f / 255.0f, buf);
    if (w->filter.static_term) {
        /* the static lights' terms are light: on the base taken back to light when it is stored
         * through a curve, the sum stored again; a muted light leaves at least none */
        const render_light_filter *f = &w->filter;
        bool curved = f->store_gamma > 0.0f && f->store_scale > 0.0f;
        for (size_t t = 0; curved && t < texels; t++)
            for (int c = 0; c < 3; c++)
                buf[t * 4 + c] = powf(buf[t * 4 + c], 1.0f / f->store_gamma) / f->store_scale;
        f->static_term(f->user, mc, b, f->solo ? 1.0f : -1.0f, buf);
        for (size_t t = 0; t < texels; t++)
            for (int c = 0; c < 3; c++) {
                float v = buf[t * 4 + c] < 0.0f ? 0.0f : buf[t * 4 + c];
                buf[t * 4 + c] = curved ? fminf(1.0f, powf(f->store_scale * v, f->store_gamma)) : v;
            }
    }
    for (uint32_t l = 0; l < mc->layer_count; l++) {
        const mesh_light_layer *layer = &mc->layers[l];
        const mesh_dynamic_light *light = &mc->dynamic_lights[layer->light];
        if (layer->block != b || !light_shows(w, false, light->id))
            continue;
        const render_light *state = find_light(w, false, light->id);
        float k = (state ? state->scale : 1.0f) / 255.0f;
        float rgb[3] = { light->color[0] * k, light->color[1] * k, light->color[2] * k };
        light_texels_add_layer(layer->luxels, texels, rgb, buf);
    }
    light_texels_pack(buf, texels, scratch->packed);
    return true;
}

void world_composite_scratch_free(world_composite_scratch *scratch)
{
    free(scratch->light);
    free(scratch->packed);
    memset(scratch, 0, sizeof *scratch);
}

bool world_composite_chunk(render_world *w, gpu_chunk *gc)
{
    const mesh_chunk *mc = gc->mc;
    world_composite_scratch scratch = { 0 };
    for (uint32_t b = 0; b < mc->block_count; b++) {
        if (!world_composite_block(w, mc, b, &scratch)) {
            world_composite_scratch_free(&scratch);
            return false;
        }
        const mesh_atlas_rect *r = &mc->blocks[b].rect;
        GLsizei side = (GLsizei)mesh_atlas_block_side(r);
        glBindTexture(GL_TEXTURE_2D_ARRAY, w->light_atlas);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
        glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, r->x, r->y, r->page, side, side, 1, GL_RGB,
                        GL_UNSIGNED_INT_5_9_9_9_REV, scratch.packed);
    }
    world_composite_scratch_free(&scratch);
    gc->verify_atlas = w->verify;
    return true;
}

bool world_chunk_pages_exist(const render_world *w, const mesh_chunk *mc)
{
    for (uint32_t b = 0; b < mc->block_count; b++)
        if (mc->blocks[b].rect.page >= w->atlas_layers)
            return false;
    return true;
}

void world_grow_atlas(render_world *w, uint32_t layers)
{
    w->atlas_copies += w->atlas_layers > 0;
    if (!world_alloc_atlas_layers(w, layers)) {   /* not copied: composite every chunk again */
        for (size_t i = 0; i < w->chunk_count; i++)
            if (w->chunks[i].mc && w->chunks[i].lit) {
                w->chunks[i].lit = false;
                w->unlit_chunks++;
            }
    }
}

void render_world_commit(render_world *w)
{
    uint32_t pages = mesh_atlas_page_count(w->atlas);
    if (pages > w->atlas_layers) {
        /* Pages are only ever added by the mesher. Past the first allocation one spare page comes
         * with each growth, so a view that keeps moving reallocates (and copies) less often. */
        uint32_t layers = pages;
        if (w->atlas_layers && layers < mesh_atlas_max_pages(w->atlas))
            layers++;
        world_grow_atlas(w, layers);
    }
    for (size_t i = 0; i < w->chunk_count && w->unlit_chunks; i++) {
        gpu_chunk *gc = &w->chunks[i];
        if (gc->mc && !gc->lit && world_composite_chunk(w, gc)) {
            gc->lit = true;
            w->unlit_chunks--;
        }
    }
}

/* Composites again the chunks the dynamic light has layers in (the others are composited when
 * committed, with the state set now). */
static void recomposite_dynamic(render_world *w, uint32_t id)
{
    for (size_t i = 0; i < w->chunk_count; i++) {
        const mesh_chunk *mc = w->chunks[i].mc;
        if (!mc || !w->chunks[i].lit)
            continue;
        for (uint32_t d = 0; d < mc->dynamic_light_count; d++) {
            if (mc->dynamic_lights[d].id == id) {
                world_composite_chunk(w, &w->chunks[i]);
                break;
            }
        }
    }
}

/* A light no chunk has shown yet is registered with the requested state (colour unknown). */
static const uint8_t unknown_color[3] = { 0, 0, 0 };

void render_world_set_dynamic_light(render_world *w, uint32_t id, bool enabled)
{
    render_light *l = world_register_light(w, false, id, unknown_color, enabled, 0);
    if (!l)
        return;
    l->chosen = true;
    if (l->enabled == enabled)
        return;
    l->enabled = enabled;
    recomposite_dynamic(w, id);
}

void render_world_set_dynamic_scale(render_world *w, uint32_t id, float scale)
{
    render_light *l = world_register_light(w, false, id, unknown_color, true, 0);
    if (!l || l->scale == scale || !(scale >= 0.0f))
        return;
    l->scale = scale;
    if (l->enabled)
        recomposite_dynamic(w, id);
}

/* ---- fast lights ------------------------------------------------------------------------- */

void world_fast_entry(const render_world *w, const mesh_fast_light *fl, float e[4])
{
    const render_light *l = find_light(w, true, fl->id);
    float k = l && light_shows(w, true, fl->id) ? l->intensity / (255.0f * 255.0f) : 0.0f;
    e[0] = fl->color[0] * k;
    e[1] = fl->color[1] * k;
    e[2] = fl->color[2] * k;
    e[3] = 0.0f;
}

/* Writes the table entry of one fast light of a chunk. */
void world_write_fast_entry(render_world *w, uint32_t slot, const mesh_fast_light *fl)
{
    float e[4];
    world_fast_entry(w, fl, e);
    glBindBuffer(WORLD_FAST_ARENA_TARGET, w->fast_table.buffer);
    glBufferSubData(WORLD_FAST_ARENA_TARGET, (GLintptr)slot * sizeof e, sizeof e, e);
    w->fast_stale = true;
}

void render_world_set_fast_light(render_world *w, uint32_t id, uint8_t intensity)
{
    static const uint8_t unknown[3] = { 0, 0, 0 };
    render_light *l = world_register_light(w, true, id, unknown, true, intensity);
    if (!l)
        return;
    l->intensity = intensity;
    for (size_t i = 0; i < w->chunk_count; i++) {
        const gpu_chunk *gc = &w->chunks[i];
        if (!gc->mc)
            continue;
        for (uint32_t f = 0; f < gc->mc->fast_light_count; f++) {
            if (gc->mc->fast_lights[f].id == id) {
                world_write_fast_entry(w, gc->fast_base + f, &gc->mc->fast_lights[f]);
                w->chunks[i].verify_buffers = w->verify;
            }
        }
    }
}

/* ---- light tools: solo / mute --------------------------------------------------------------- */

static bool copy_ids(const uint32_t *ids, size_t count, const uint32_t **out)
{
    uint32_t *copy = NULL;
    if (count && !(copy = malloc(count * sizeof *copy)))
        return false;
    if (count)
        memcpy(copy, ids, count * sizeof *copy);
    *out = copy;
    return true;
}

bool render_world_set_light_filter(render_world *w, const render_light_filter *filter)
{
    free((void *)w->filter.dynamic_ids);
    free((void *)w->filter.fast_ids);
    w->filter = (render_light_filter){ 0 };
    render_light_filter f = *filter;
    f.dynamic_ids = f.fast_ids = NULL;
    bool ok = copy_ids(filter->dynamic_ids, filter->dynamic_count, &f.dynamic_ids) &&
              copy_ids(filter->fast_ids, filter->fast_count, &f.fast_ids);
    if (ok)
        w->filter = f;
    else
        free((void *)f.dynamic_ids);
    for (size_t i = 0; i < w->chunk_count; i++) {
        gpu_chunk *gc = &w->chunks[i];
        if (!gc->mc)
            continue;
        if (gc->lit) /* an unlit chunk is composited when committed, with the filter set now */
            world_composite_chunk(w, gc);
        for (uint32_t k = 0; k < gc->mc->fast_light_count; k++)
            world_write_fast_entry(w, gc->fast_base + k, &gc->mc->fast_lights[k]);
        gc->verify_buffers = w->verify;
    }
    return ok;
}
