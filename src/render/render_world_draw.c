/* render_world_draw.c - the frame's draw: visible (chunk, batch) items gathered, sorted (opaque by
 * state near to far, blended far to near and regrouped), turned into multi-draw commands. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_world_internal.h"
#include "base/pmf_system.h"
#include "base/order.h"

/* The vertex stream's attributes, starting at vertex `base` of the vertex arena (0 but under
 * OpenGL ES, which has no base-vertex draws). */
static void point_vertex_attributes(render_world *w, GLint base)
{
    const GLsizei stride = sizeof(mesh_vertex);
    const size_t at = (size_t)base * sizeof(mesh_vertex);
    glBindBuffer(GL_ARRAY_BUFFER, w->vertices.buffer);
    glVertexAttribIPointer(ATTR_POS, 4, GL_UNSIGNED_SHORT, stride, (void *)(at + offsetof(mesh_vertex, pos)));
    glVertexAttribIPointer(ATTR_UV, 2, GL_UNSIGNED_SHORT, stride, (void *)(at + offsetof(mesh_vertex, uv)));
    glVertexAttribIPointer(ATTR_LM_UV, 2, GL_UNSIGNED_SHORT, stride, (void *)(at + offsetof(mesh_vertex, lm_uv)));
    w->pointed_base = base;
}

void world_setup_vao(render_world *w)
{
    glBindVertexArray(w->vao);
    glEnableVertexAttribArray(ATTR_POS);
    glEnableVertexAttribArray(ATTR_UV);
    glEnableVertexAttribArray(ATTR_LM_UV);
    point_vertex_attributes(w, 0);
    if (w->mdi) {
        static const struct { GLuint attr; GLint size; size_t offset; } floats[] = {
            { ATTR_CHUNK, 3, offsetof(draw_params, origin) },
            { ATTR_PAGE, 1, offsetof(draw_params, page) },
            { ATTR_STEP, 3, offsetof(draw_params, step) },
            { ATTR_UV_FRAME, 4, offsetof(draw_params, uv_origin) },
        };
        glBindBuffer(GL_ARRAY_BUFFER, w->draw_table);
        for (size_t i = 0; i < sizeof floats / sizeof *floats; i++) {
            glEnableVertexAttribArray(floats[i].attr);
            glVertexAttribPointer(floats[i].attr, floats[i].size, GL_FLOAT, GL_FALSE, sizeof(draw_params),
                                  (void *)floats[i].offset);
            glVertexAttribDivisor(floats[i].attr, 1);
        }
        glEnableVertexAttribArray(ATTR_FAST);
        glVertexAttribIPointer(ATTR_FAST, 3, GL_INT, sizeof(draw_params), (void *)offsetof(draw_params, fast_base));
        glVertexAttribDivisor(ATTR_FAST, 1);
    } else {
        glDisableVertexAttribArray(ATTR_CHUNK);
        glDisableVertexAttribArray(ATTR_PAGE);
        glDisableVertexAttribArray(ATTR_FAST);
        glDisableVertexAttribArray(ATTR_STEP);
        glDisableVertexAttribArray(ATTR_UV_FRAME);
    }
    /* The element buffer (u16 or u32 arena) is bound per call (issue). */
    glBindVertexArray(0);
    w->vao_dirty = false;
}

/* ---- drawing --------------------------------------------------------------------------------- */

static int compare_opaque(const void *pa, const void *pb)
{
    const draw_item *a = pa, *b = pb;
    if (a->variant != b->variant)
        return a->variant < b->variant ? -1 : 1;
    if (a->material != b->material)
        return a->material < b->material ? -1 : 1;
    if (a->backfaces != b->backfaces)
        return a->backfaces < b->backfaces ? -1 : 1;
    if (a->wide != b->wide)
        return a->wide < b->wide ? -1 : 1;
    if (a->distance != b->distance)
        return a->distance < b->distance ? -1 : 1;
    return a->chunk < b->chunk ? -1 : a->chunk > b->chunk;
}

static int compare_far_to_near(const void *pa, const void *pb)
{
    const draw_item *a = pa, *b = pb;
    if (a->distance != b->distance)
        return a->distance > b->distance ? -1 : 1;
    if (a->chunk != b->chunk)
        return a->chunk < b->chunk ? -1 : 1;
    return a->first_range < b->first_range ? -1 : a->first_range > b->first_range;
}

/* Issues the commands [first, first + count) of the frame's command list, all of one index
 * type (wide = u32). */
static void issue(render_world *w, size_t first, size_t count, bool wide, render_frame_stats *stats)
{
    GLenum type = wide ? GL_UNSIGNED_INT : GL_UNSIGNED_SHORT;
    size_t index_size = wide ? 4 : 2;
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, wide ? w->indices32.buffer : w->indices16.buffer);
#if !RENDER_GLES
    if (w->mdi) {
        glMultiDrawElementsIndirect(GL_TRIANGLES, type, (void *)(first * sizeof(draw_cmd)), (GLsizei)count, 0);
        stats->draw_calls++;
        return;
    }
#endif
    for (size_t i = first; i < first + count; i++) {
        const draw_cmd *c = &w->cmds[i];
        const draw_params *t = &w->table[c->base_instance];
        glVertexAttrib3fv(ATTR_CHUNK, t->origin);
        glVertexAttrib1f(ATTR_PAGE, t->page);
        glVertexAttrib3fv(ATTR_STEP, t->step);
        glVertexAttrib4f(ATTR_UV_FRAME, t->uv_origin[0], t->uv_origin[1], t->uv_step[0], t->uv_step[1]);
        void *offset = (void *)((size_t)c->first_index * index_size);
#if RENDER_GLES
        /* gl_VertexID counts from the chunk's first vertex here, not from the arena's */
        if (w->pointed_base != c->base_vertex)
            point_vertex_attributes(w, c->base_vertex);
        glVertexAttribI4i(ATTR_FAST, t->fast_base, t->fast_delta + c->base_vertex, t->fast_end - c->base_vertex, 0);
        glDrawElements(GL_TRIANGLES, (GLsizei)c->count, type, offset);
#else
        glVertexAttribI4i(ATTR_FAST, t->fast_base, t->fast_delta, t->fast_end, 0);
        glDrawElementsBaseVertex(GL_TRIANGLES, (GLsizei)c->count, type, offset, c->base_vertex);
#endif
        stats->draw_calls++;
    }
}

static size_t emit_item(render_world *w, const render_frame *f, const draw_item *it, size_t n, render_frame_stats *stats)
{
    const render_draw_chunk *dc = &f->chunks[it->chunk];
    const gpu_chunk *gc = &w->chunks[dc->handle];
    const mesh_chunk *mc = gc->mc;
    const mesh_batch *bt = &mc->batches[it->batch];
    for (uint32_t r = 0; r < it->range_count; r++, n++) {
        const mesh_draw_range *range = &w->ranges[it->first_range + r];
        w->cmds[n] = (draw_cmd){ range->index_count, 1, gc->index_base + range->first_index,
                                 (GLint)gc->vertex_base, (GLuint)n };
        w->table[n] = (draw_params){
            .origin = { dc->offset[0] + mc->origin[0], dc->offset[1] + mc->origin[1], dc->offset[2] + mc->origin[2] },
            .page = it->page,
            .step = { mc->step[0], mc->step[1], mc->step[2] },
            .uv_origin = { bt->uv_origin[0], bt->uv_origin[1] },
            .uv_step = { bt->uv_step[0], bt->uv_step[1] },
            .fast_base = mc->fast ? (int32_t)gc->fast_base : -1,
            .fast_delta = (int32_t)gc->fast_vertex_base - (int32_t)gc->vertex_base,
            .fast_end = (int32_t)(gc->vertex_base + mc->fast_vertex_count),
        };
        stats->triangles += range->index_count / 3;
    }
    return n;
}

/* The NDC rectangle a box covers on screen; the whole screen when it reaches behind the eye. */
static void screen_rect(const float view_proj[16], const float mn[3], const float mx[3], float rect[4])
{
    rect[0] = rect[1] = INFINITY;
    rect[2] = rect[3] = -INFINITY;
    for (int i = 0; i < 8; i++) {
        float p[3] = { i & 1 ? mx[0] : mn[0], i & 2 ? mx[1] : mn[1], i & 4 ? mx[2] : mn[2] };
        float clip[4];
        for (int r = 0; r < 4; r++)
            clip[r] = view_proj[r] * p[0] + view_proj[4 + r] * p[1] + view_proj[8 + r] * p[2] + view_proj[12 + r];
        if (clip[3] <= 1e-4f) {
            rect[0] = rect[1] = -INFINITY;
            rect[2] = rect[3] = INFINITY;
            return;
        }
        for (int k = 0; k < 2; k++) {
            float v = clip[k] / clip[3];
            rect[k] = fminf(rect[k], v);
            rect[k + 2] = fmaxf(rect[k + 2], v);
        }
    }
}

static bool rects_meet(const float a[4], const float b[4])
{
    return a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3];
}

static int compare_group(const void *pa, const void *pb)
{
    const draw_item *a = pa, *b = pb;
    if (a->group != b->group)
        return a->group < b->group ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* Blended items (sorted far to near) regrouped by material where no pixel can tell: an item
 * joins the last group of its (material, backfaces, index type) unless its screen rectangle meets an item
 * of a later group (those draw after it, yet lie farther). One multi-draw per group follows. */
static void group_blended(draw_item *items, size_t n)
{
    if (n > MAX_REGROUPED)
        return;
    uint32_t groups = 0;
    for (size_t i = 0; i < n; i++) {
        draw_item *x = &items[i];
        x->order = (uint32_t)i;
        bool found = false;
        uint32_t g = 0;
        for (size_t j = 0; j < i; j++) {
            if (items[j].material == x->material && items[j].backfaces == x->backfaces && items[j].wide == x->wide
                && (!found || items[j].group > g)) {
                g = items[j].group;
                found = true;
            }
        }
        for (size_t j = 0; j < i && found; j++)
            if (items[j].group > g && rects_meet(items[j].rect, x->rect))
                found = false;
        x->group = found ? g : groups++;
    }
    order_sort(items, n, sizeof *items, compare_group);
}

/* Gathers the frame's items, sorts them, builds and uploads the draw commands. */
static void prepare_frame(render_world *w, const render_frame *f, render_frame_stats *stats)
{
    w->frame_items = w->frame_opaque = w->frame_opaque_cmds = 0;
    if (w->vao_dirty && w->vertices.buffer) /* no buffer yet: no vertex to point at, nothing drawn */
        world_setup_vao(w);
    /* Gather (chunk, batch) items with their visible ranges. */
    size_t item_count = 0, range_count = 0;
    float view_proj[16];
    render_mat4_mul(f->proj, f->view, view_proj);
    for (size_t c = 0; c < f->chunk_count; c++) {
        const render_draw_chunk *dc = &f->chunks[c];
        const gpu_chunk *gc = &w->chunks[dc->handle];
        const mesh_chunk *mc = gc->mc;
        bool every_run = mesh_shows_every_run(mc, dc->cubes);   /* ranges without reading the runs */
        /* Opaque groups draw near chunks first, so the depth test spares far fragments. */
        float near_distance = 0;
        for (int k = 0; k < 3; k++) {
            float d = (mc->min[k] + mc->max[k]) * 0.5f + dc->offset[k] - f->eye[k];
            near_distance += d * d;
        }
        for (uint32_t b = 0; b < mc->batch_count; b++) {
            const mesh_batch *batch = &mc->batches[b];
            if (batch->material >= w->lvl->common.material_count)
                continue;
            if (!grow_array((void **)&w->ranges, &w->range_cap, range_count + batch->run_count, sizeof *w->ranges)
                || !grow_array((void **)&w->items, &w->item_cap, item_count + batch->run_count, sizeof *w->items))
                return;
            draw_item item = {
                .variant = world_variant_key(w, f, world_material_switches(w, batch->material), false),
                .batch = b, .material = batch->material, .page = batch->page, .backfaces = batch->backfaces,
                .blended = world_material_blended(w, batch->material), .wide = gc->wide, .chunk = (uint32_t)c,
                .first_range = (uint32_t)range_count, .distance = near_distance,
            };
            if (!item.blended) {
                item.range_count = every_run ? mesh_batch_whole(mc, b, &w->ranges[range_count])
                                             : mesh_batch_ranges(mc, b, dc->cubes, &w->ranges[range_count]);
                if (item.range_count > 1 && dc->span_culled) {
                    /* One command over the gaps: the frustum-culled runs between cost the GL
                     * less than a draw each (each command is a draw to llvmpipe). */
                    mesh_draw_range *r = &w->ranges[range_count];
                    const mesh_draw_range *last = &r[item.range_count - 1];
                    r->index_count = last->first_index + last->index_count - r->first_index;
                    item.range_count = 1;
                }
                if (item.range_count)
                    w->items[item_count++] = item;
                range_count += item.range_count;
                continue;
            }
            /* Blended: one item per visible cube, sorted by the distance to the cube's box. */
            for (uint32_t r = batch->first_run; r < batch->first_run + batch->run_count; r++) {
                const mesh_run *run = &mc->runs[r];
                if (dc->cubes && !(dc->cubes[run->cube / 64] >> (run->cube % 64) & 1u))
                    continue;
                const mesh_cube *cube = &mc->cubes[run->cube];
                float d2 = 0, mn[3], mx[3];
                for (int k = 0; k < 3; k++) {
                    float centre = (cube->min[k] + cube->max[k]) * 0.5f + dc->offset[k] - f->eye[k];
                    d2 += centre * centre;
                    mn[k] = cube->min[k] + dc->offset[k];
                    mx[k] = cube->max[k] + dc->offset[k];
                }
                screen_rect(view_proj, mn, mx, item.rect);
                w->ranges[range_count] = (mesh_draw_range){ run->first_index, run->index_count };
                item.first_range = (uint32_t)range_count++;
                item.range_count = 1;
                item.distance = sqrtf(d2);
                w->items[item_count++] = item;
            }
        }
    }
    /* Opaque first (grouped by state), then blended far to near. */
    size_t opaque = 0;
    for (size_t i = 0; i < item_count; i++) {
        if (!w->items[i].blended) {
            draw_item t = w->items[opaque];
            w->items[opaque++] = w->items[i];
            w->items[i] = t;
        }
    }
    if (item_count == 0)
        return;
    w->draw_serial++;
    w->frame_opaque_materials = 0;
    for (size_t i = 0; i < item_count; i++) {
        if (w->material_mark[w->items[i].material] != w->draw_serial) {
            w->material_mark[w->items[i].material] = w->draw_serial;
            stats->materials++;
            w->frame_opaque_materials += i < opaque;
            if (!world_variant_start(w, w->items[i].variant))
                return;
        }
    }
    w->frame_blended_materials = stats->materials - w->frame_opaque_materials;
    order_sort(w->items, opaque, sizeof *w->items, compare_opaque);
    order_sort(w->items + opaque, item_count - opaque, sizeof *w->items, compare_far_to_near);
    group_blended(w->items + opaque, item_count - opaque);
    if (!grow_array((void **)&w->cmds, &w->cmd_cap, range_count + 1, sizeof *w->cmds)
        || !grow_array((void **)&w->table, &w->table_cap, range_count + 1, sizeof *w->table))
        return;
    size_t n = 0;
    for (size_t i = 0; i < item_count; i++)
        n = emit_item(w, f, &w->items[i], n, stats);
    w->frame_items = item_count;
    w->frame_opaque = opaque;
    for (size_t i = 0; i < opaque; i++)
        w->frame_opaque_cmds += w->items[i].range_count;
#if !RENDER_GLES
    if (w->mdi) {
        glBindBuffer(GL_ARRAY_BUFFER, w->draw_table);
        glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(n * sizeof *w->table), w->table, GL_STREAM_DRAW);
        glBindBuffer(GL_DRAW_INDIRECT_BUFFER, w->indirect);
        glBufferData(GL_DRAW_INDIRECT_BUFFER, (GLsizeiptr)(n * sizeof(draw_cmd)), w->cmds, GL_STREAM_DRAW);
    }
#endif
}

/* Textures and depth state of the world pass (programs and their frame uniforms: use_variant). */
static void begin_world_state(render_world *w)
{
#if RENDER_GLES
    world_sync_fast_textures(w);
#else
    if (w->mdi)
        glBindBuffer(GL_DRAW_INDIRECT_BUFFER, w->indirect);
#endif
    glBindVertexArray(w->vao);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D_ARRAY, w->light_atlas);
    glActiveTexture(GL_TEXTURE3);
    glBindTexture(WORLD_FAST_TEXTURE_TARGET, w->fast_tex);
    glActiveTexture(GL_TEXTURE4);
    glBindTexture(WORLD_FAST_TEXTURE_TARGET, w->fast_vertex_tex);
    glActiveTexture(GL_TEXTURE0);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
    glFrontFace(GL_CCW);
    glCullFace(GL_BACK);
}

/* Makes the variant current, its frame uniforms set once a frame; NULL when it does not build
 * (said once: its items are left out). */
static const world_variant *use_variant(render_world *w, const render_frame *f, uint32_t key, render_frame_stats *stats)
{
    char err[640];
    world_variant *v = world_variant_get(w, key, err, sizeof err);
    if (!v) {
        if (!w->variant_failure_said)
            fprintf(stderr, "pmfview: %s\n", err);
        w->variant_failure_said = true;
        return NULL;
    }
    glUseProgram(v->prog);
    if (v->frame_serial == w->draw_serial)
        return v;
    v->frame_serial = w->draw_serial;
    stats->variants++;
    const world_uniforms *u = &v->u;
    float view_proj[16];
    render_mat4_mul(f->proj, f->view, view_proj);
    glUniformMatrix4fv(u->view_proj, 1, GL_FALSE, view_proj);
    glUniformMatrix4fv(u->view, 1, GL_FALSE, f->view);
    glUniform1f(u->exposure, f->exposure);
    glUniform1i(u->look, f->look);
    glUniform3f(u->fog, f->fog_start, f->fog_end, 1.0f);
    glUniform3fv(u->fog_color, 1, f->fog_color);
    glUniform1f(u->time, (float)f->time);
    glUniform4f(u->wire_color, 1.0f, 1.0f, 1.0f, 1.0f);
    return v;
}

static void end_world_state(void)
{
    glDisable(GL_CULL_FACE);
    glBindVertexArray(0);
    glUseProgram(0);
}

/* Draws the items [first, last) whose commands start at cmd: one call per group of consecutive
 * items sharing (material, backfaces, index type). Opaque items are sorted by variant and
 * material; blended ones far to near, so a run of one material keeps its order inside the
 * multi-draw. wire: the wireframe overlay. Returns the calls' groups. */
static uint32_t draw_items(render_world *w, const render_frame *f, size_t first, size_t last, size_t cmd, bool wire,
                           render_frame_stats *stats)
{
    bool culling = false;
    uint32_t groups = 0, key = UINT32_MAX;
    const world_variant *v = NULL;
    glDisable(GL_CULL_FACE);
    for (size_t i = first; i < last;) {
        const draw_item *it = &w->items[i];
        size_t j = i, cmds = 0;
        do {
            cmds += w->items[j].range_count;
            j++;
        } while (j < last && w->items[j].material == it->material && w->items[j].backfaces == it->backfaces
                 && w->items[j].wide == it->wide);
        if (culling != !it->backfaces) {
            culling = !it->backfaces;
            if (culling)
                glEnable(GL_CULL_FACE);
            else
                glDisable(GL_CULL_FACE);
        }
        uint32_t want = wire ? world_variant_key(w, f, world_material_switches(w, it->material), true) : it->variant;
        if (want != key) {
            key = want;
            v = use_variant(w, f, key, stats);
        }
        if (v) {
            world_set_material(w, f, it->material, &v->u);
            if (it->blended && !wire)
                world_set_blend(w, it->material);
            issue(w, cmd, cmds, it->wide, stats);
            groups++;
        }
        cmd += cmds;
        i = j;
    }
    return groups;
}

void render_world_draw_opaque(render_world *w, const render_frame *f, render_frame_stats *stats)
{
    prepare_frame(w, f, stats);
    if (!w->frame_opaque)
        return;
    begin_world_state(w);
    uint32_t groups = draw_items(w, f, 0, w->frame_opaque, 0, false, stats);
    stats->state_splits += groups > w->frame_opaque_materials ? groups - w->frame_opaque_materials : 0;
    end_world_state();
}

void render_world_draw_blended(render_world *w, const render_frame *f, render_frame_stats *stats)
{
    if (!w->frame_items)
        return;
    begin_world_state(w);
    if (w->frame_items > w->frame_opaque) {
        glDepthMask(GL_FALSE);
        uint32_t groups = draw_items(w, f, w->frame_opaque, w->frame_items, w->frame_opaque_cmds, false, stats);
        stats->blend_splits += groups > w->frame_blended_materials ? groups - w->frame_blended_materials : 0;
        glDisable(GL_BLEND);
        glDepthMask(GL_TRUE);
    }
    if (f->wireframe && RENDER_HAS_LINES) {
        render_polygon_lines(true);
        glDepthFunc(GL_LEQUAL);
        draw_items(w, f, 0, w->frame_opaque, 0, true, stats);
        render_polygon_lines(false);
        glDepthFunc(GL_LESS);
    }
    end_world_state();
}

bool render_world_prime(render_world *w, const render_frame *f, const render_sky *sky, double budget_ms)
{
    if (!w->vertices.buffer || glCheckFramebufferStatus(GL_DRAW_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        return false;
    double start = pmf_seconds();
    /* every vertex at clip (2, 0, 0, 1), right of the view: clipped whole, whatever the view */
    render_frame pf = *f;
    memset(pf.proj, 0, sizeof pf.proj);
    pf.proj[12] = 2.0f;
    pf.proj[15] = 1.0f;
    render_frame_stats stats = { 0 };
    if (sky && (!w->sky_primed || memcmp(&w->primed_sky, sky, sizeof *sky))) {
        render_world_draw_sky(w, sky, &pf, &stats);
        w->sky_primed = true;
        w->primed_sky = *sky;
    }
    uint32_t settings = world_settings_key(w, f);
    bool started = false, left = false;
    for (uint32_t m = 0; m < w->lvl->common.material_count; m++) {
        gpu_material *gm = &w->materials[m];
        if (!gm->loaded || (gm->primed && gm->primed_settings == settings))
            continue;
        if ((pmf_seconds() - start) * 1000.0 >= budget_ms) {
            left = true;
            break;
        }
        if (!started) {
            if (w->vao_dirty)
                world_setup_vao(w);
            /* the per-draw attributes: no fast lights */
            static const draw_params none = { .fast_base = -1 };
            if (w->mdi) {
                glBindBuffer(GL_ARRAY_BUFFER, w->draw_table);
                glBufferData(GL_ARRAY_BUFFER, sizeof none, &none, GL_STREAM_DRAW);
            } else {
                glVertexAttribI4i(ATTR_FAST, none.fast_base, 0, 0, 0);
            }
            w->draw_serial++; /* the variants' frame uniforms: pf's, then the next frame's */
            begin_world_state(w);
            started = true;
        }
        gm->primed = true;
        gm->primed_settings = settings;
        uint32_t switches = world_material_switches(w, m);
        bool blended = world_material_blended(w, m);
        for (int wire = 0; wire <= (int)(f->wireframe && RENDER_HAS_LINES && !blended); wire++) {
            const world_variant *v = use_variant(w, &pf, world_variant_key(w, f, switches, wire), &stats);
            if (!v)
                continue;
            world_set_material(w, &pf, m, &v->u);
            if (blended) {
                glDepthMask(GL_FALSE);
                world_set_blend(w, m);
            }
            if (wire) {
                render_polygon_lines(true);
                glDepthFunc(GL_LEQUAL);
            }
            glDrawArrays(GL_TRIANGLES, 0, 3);
            glDisable(GL_BLEND);
            glDepthMask(GL_TRUE);
            render_polygon_lines(false);
            glDepthFunc(GL_LESS);
        }
    }
    if (started)
        end_world_state();
    return left;
}

void render_world_draw(render_world *w, const render_frame *f, render_frame_stats *stats)
{
    render_world_draw_opaque(w, f, stats);
    render_world_draw_blended(w, f, stats);
}

void render_world_begin(render_world *w, int x, int y, int width, int height)
{
    (void)w;
    glViewport(x, y, width, height);
    glDepthMask(GL_TRUE);
    glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
#if RENDER_GLES
    glClearDepthf(1.0f);
#else
    glClearDepth(1.0);
#endif
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
}

void render_world_clear_depth(render_world *w)
{
    (void)w;
    glDepthMask(GL_TRUE);
    glClear(GL_DEPTH_BUFFER_BIT);
}

