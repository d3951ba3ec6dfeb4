/* render_world.c - chunk uploads, light state, materials and the frame's draw (render_world.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmf_budget.h"
#include "render_internal.h"
#include "render_world.h"

enum { ATTR_POS, ATTR_UV, ATTR_LM_UV, ATTR_CHUNK, ATTR_PAGE, ATTR_FAST };

/* Per draw command (instance attributes through baseInstance): chunk offset, the atlas page of
 * the batch, the chunk's first fast-light slot (-1 = no fast lights) and where its fast
 * vertices start relative to its vertices (the fast stream is read at gl_VertexID + delta). */
typedef struct draw_params { float offset[3], page; int32_t fast_base, fast_delta; } draw_params;

/* Chunks of at most this many vertices keep their indices as u16. */
#define MAX_U16_VERTICES 65536u

typedef struct gpu_chunk {
    const mesh_chunk *mc;            /* NULL = free slot */
    uint32_t vertex_base, index_base;
    bool wide;                       /* indices in the u32 arena (more than MAX_U16_VERTICES) */
    uint32_t fast_vertex_base;       /* first entry in the fast-vertex arena (when mc->fast) */
    uint32_t fast_base;              /* first entry in the fast-light table */
} gpu_chunk;

/* horizon: the mean colour of the middle row (a skybox side's horizon, for the fog colour);
 * charged: what its GL copy took from the memory budget */
typedef struct gpu_texture { char *path; GLuint tex; float horizon[3]; uint64_t charged; } gpu_texture;

typedef struct gpu_material {
    bool loaded;
    uint32_t frame_count;
    GLuint *frames;                  /* texture, then extra textures; white when untextured */
    GLuint matcap;                   /* 0 = none */
} gpu_material;

typedef struct world_uniforms {
    GLint view_proj, view, uv_offset, fast_table, fast_vertices, liquid, wave, wave_offset, time;
    GLint texture, light_atlas, matcap, color, emission, shading, shine, exposure, mode, wire, wire_color, luxel_grid;
    GLint fog, fog_color, additive;
} world_uniforms;

typedef struct sky_uniforms { GLint view_proj, texture, color, cloud, uv_offset, exposure; } sky_uniforms;

typedef struct draw_item {
    uint16_t material, page;
    bool backfaces;
    bool blended;
    bool wide;                       /* u32 indices: a multi-draw takes one index type */
    uint32_t chunk;                  /* index into the frame's chunk list */
    uint32_t first_range, range_count;
    float distance;
    /* blended: screen rectangle of the cube's box (NDC x0, y0, x1, y1), and the group it draws
     * in (group_blended) */
    float rect[4];
    uint32_t group, order;
} draw_item;

/* Blended items past this many keep strict far-to-near order (regrouping is quadratic). */
#define MAX_REGROUPED 1024

typedef struct draw_cmd { GLuint count, instance_count, first_index; GLint base_vertex; GLuint base_instance; } draw_cmd;

struct render_world {
    const pmf_level *lvl;
    mesh_atlas *atlas;
    res_context *res;
    bool mdi;

    GLuint world_prog, sky_prog;
    world_uniforms wu;
    sky_uniforms su;
    GLuint vao, sky_vao, sky_vbo;
    GLuint sky_sampler;              /* clamp to edge: a skybox face must not filter in its opposite edge */
    bool vao_dirty;

    render_arena vertices;           /* mesh_vertex */
    render_arena indices16, indices32;
    /* mesh_fast_vertex of the chunks that have fast lights only, read through a buffer texture
     * (RG32UI: slots, multipliers) since a second vertex stream would share the vertex index. */
    render_arena fast_vertices;
    GLuint fast_vertex_tex;
    GLuint draw_table;               /* per frame: draw_params per draw command */
    GLuint indirect;
    /* The fast-light table: RGBA32F entries (colour/255 × intensity/255, 0 when disabled), a
     * run per chunk, read through a buffer texture. */
    render_arena fast_table;
    GLuint fast_tex;

    GLuint light_atlas;              /* GL_TEXTURE_2D_ARRAY RGBA16F */
    uint32_t atlas_layers, page_size;

    GLuint white, black;
    gpu_texture *textures;
    size_t texture_count, texture_cap;
    bool reduced_texture_said;   /* the one warning about textures above RES_MAX_TEXTURE_SIDE */
    bool lowered_texture_said;   /* the one warning about textures lowered to fit the budget */
    gpu_material *materials;

    gpu_chunk *chunks;
    size_t chunk_count, chunk_cap;
    uint64_t resident_vertices, resident_bytes;

    render_light *lights;            /* sorted by (fast, id) */
    size_t light_count, light_cap;

    /* per-frame scratch */
    draw_item *items;
    size_t item_cap;
    mesh_draw_range *ranges;
    size_t range_cap;
    draw_cmd *cmds;
    size_t cmd_cap;
    draw_params *table;
    size_t table_cap;
    uint16_t *staging;               /* a chunk's u16 indices on their way to the arena */
    size_t staging_cap;
    uint32_t *material_mark;         /* per material: the draw serial that last drew it */
    size_t frame_items, frame_opaque;  /* the prepared frame: items, of which opaque first */
    size_t frame_opaque_cmds;          /* commands of the opaque items */
    uint32_t draw_serial;
};

static bool reserve(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q)
        return false;
    *p = q;
    *cap = n;
    return true;
}

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
static render_light *register_light(render_world *w, bool fast, uint32_t id, const uint8_t color[3],
                                    bool enabled, uint8_t intensity)
{
    render_light *l = find_light(w, fast, id);
    if (l)
        return l;
    if (!reserve((void **)&w->lights, &w->light_cap, w->light_count + 1, sizeof *w->lights))
        return NULL;
    size_t i = 0;
    while (i < w->light_count && (w->lights[i].fast < fast || (w->lights[i].fast == fast && w->lights[i].id < id)))
        i++;
    memmove(&w->lights[i + 1], &w->lights[i], (w->light_count - i) * sizeof *w->lights);
    w->lights[i] = (render_light){ .id = id, .fast = fast, .enabled = enabled, .intensity = intensity, .loaded = false };
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
 * llvmpipe clears every byte it allocates, so no page is made before it is used). The pages of
 * the old texture are copied over when the GL can (4.3); returns false when they were not. */
static bool alloc_atlas_layers(render_world *w, uint32_t layers)
{
    GLuint old = w->light_atlas;
    uint32_t old_layers = w->atlas_layers;
    GLsizei side = layers ? (GLsizei)w->page_size : 1;
    glGenTextures(1, &w->light_atlas);
    glBindTexture(GL_TEXTURE_2D_ARRAY, w->light_atlas);
    glTexImage3D(GL_TEXTURE_2D_ARRAY, 0, GL_RGBA16F, side, side, layers ? (GLsizei)layers : 1, 0, GL_RGBA, GL_FLOAT, NULL);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAX_LEVEL, 0);
    w->atlas_layers = layers;
    const render_caps *caps = render_get_caps();
    bool copied = !old_layers;
    if (old_layers && (caps->gl_major > 4 || (caps->gl_major == 4 && caps->gl_minor >= 3))) {
        glCopyImageSubData(old, GL_TEXTURE_2D_ARRAY, 0, 0, 0, 0, w->light_atlas, GL_TEXTURE_2D_ARRAY, 0, 0, 0, 0,
                           (GLsizei)w->page_size, (GLsizei)w->page_size, (GLsizei)old_layers);
        copied = true;
    }
    if (old)
        glDeleteTextures(1, &old);
    return copied;
}

static bool light_enabled(const render_world *w, uint32_t id)
{
    const render_light *l = find_light(w, false, id);
    return l && l->enabled;
}

/* L = base / 255 + Σ enabled layers / 255 × colour / 255, for every block of the chunk. */
static bool composite_chunk(render_world *w, const mesh_chunk *mc)
{
    float *buf = NULL;
    size_t buf_cap = 0;
    for (uint32_t b = 0; b < mc->block_count; b++) {
        const mesh_lightmap_block *blk = &mc->blocks[b];
        uint32_t side = mesh_atlas_block_side(&blk->rect);
        size_t texels = (size_t)side * side;
        if (!reserve((void **)&buf, &buf_cap, texels * 4, sizeof *buf)) {
            free(buf);
            return false;
        }
        for (size_t t = 0; t < texels; t++) {
            for (int c = 0; c < 3; c++)
                buf[t * 4 + c] = blk->luxels[t * 3 + c] / 255.0f;
            buf[t * 4 + 3] = 1.0f;
        }
        for (uint32_t l = 0; l < mc->layer_count; l++) {
            const mesh_light_layer *layer = &mc->layers[l];
            const mesh_dynamic_light *light = &mc->dynamic_lights[layer->light];
            if (layer->block != b || !light_enabled(w, light->id))
                continue;
            float rgb[3] = { light->color[0] / 255.0f, light->color[1] / 255.0f, light->color[2] / 255.0f };
            for (size_t t = 0; t < texels; t++)
                for (int c = 0; c < 3; c++)
                    buf[t * 4 + c] += layer->luxels[t * 3 + c] / 255.0f * rgb[c];
        }
        glBindTexture(GL_TEXTURE_2D_ARRAY, w->light_atlas);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
        glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, blk->rect.x, blk->rect.y, blk->rect.page,
                        (GLsizei)side, (GLsizei)side, 1, GL_RGBA, GL_FLOAT, buf);
    }
    free(buf);
    return true;
}

/* Pages are only ever added by the mesher: grow the texture array (copying, else recompositing
 * every chunk). */
static bool ensure_atlas_pages(render_world *w)
{
    uint32_t pages = mesh_atlas_page_count(w->atlas);
    if (pages <= w->atlas_layers)
        return true;
    if (alloc_atlas_layers(w, pages))
        return true;
    for (size_t i = 0; i < w->chunk_count; i++)
        if (w->chunks[i].mc && !composite_chunk(w, w->chunks[i].mc))
            return false;
    return true;
}

void render_world_set_dynamic_light(render_world *w, uint32_t id, bool enabled)
{
    /* A light no chunk has shown yet is registered with the requested state (colour unknown). */
    static const uint8_t unknown[3] = { 0, 0, 0 };
    render_light *l = register_light(w, false, id, unknown, enabled, 0);
    if (!l || l->enabled == enabled)
        return;
    l->enabled = enabled;
    for (size_t i = 0; i < w->chunk_count; i++) {
        const mesh_chunk *mc = w->chunks[i].mc;
        if (!mc)
            continue;
        for (uint32_t d = 0; d < mc->dynamic_light_count; d++) {
            if (mc->dynamic_lights[d].id == id) {
                composite_chunk(w, mc);
                break;
            }
        }
    }
}

/* ---- fast lights ------------------------------------------------------------------------- */

/* Writes the table entry of one fast light of a chunk. */
static void write_fast_entry(render_world *w, uint32_t slot, const mesh_fast_light *fl)
{
    const render_light *l = find_light(w, true, fl->id);
    float k = l && l->enabled ? l->intensity / (255.0f * 255.0f) : 0.0f;
    float e[4] = { fl->color[0] * k, fl->color[1] * k, fl->color[2] * k, 0.0f };
    glBindBuffer(GL_TEXTURE_BUFFER, w->fast_table.buffer);
    glBufferSubData(GL_TEXTURE_BUFFER, (GLintptr)slot * sizeof e, sizeof e, e);
}

void render_world_set_fast_light(render_world *w, uint32_t id, uint8_t intensity)
{
    static const uint8_t unknown[3] = { 0, 0, 0 };
    render_light *l = register_light(w, true, id, unknown, true, intensity);
    if (!l)
        return;
    l->intensity = intensity;
    for (size_t i = 0; i < w->chunk_count; i++) {
        const gpu_chunk *gc = &w->chunks[i];
        if (!gc->mc)
            continue;
        for (uint32_t f = 0; f < gc->mc->fast_light_count; f++) {
            if (gc->mc->fast_lights[f].id == id)
                write_fast_entry(w, gc->fast_base + f, &gc->mc->fast_lights[f]);
        }
    }
}

/* ---- textures and materials ------------------------------------------------------------------ */

static GLuint upload_rgba(uint32_t width, uint32_t height, const uint8_t *rgba, bool mipmaps)
{
    GLuint tex;
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, (GLsizei)width, (GLsizei)height, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    if (mipmaps) {
        glGenerateMipmap(GL_TEXTURE_2D);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
    } else {
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    }
    return tex;
}

/* One GL texture per distinct path, loaded through res; a missing one is the checkerboard,
 * reported once on stderr. */
static GLuint texture_for(render_world *w, const char *path)
{
    for (size_t i = 0; i < w->texture_count; i++)
        if (!strcmp(w->textures[i].path, path))
            return w->textures[i].tex;
    const res_image *img = NULL;
    pmf_error err;
    res_status st = res_load_texture(w->res, path, &img, &err);
    if (st == RES_MISSING) {
        char line[640];
        fprintf(stderr, "pmfview: %s (using a checkerboard)\n", pmf_error_format(&err, line, sizeof line));
    }
    if (!img)
        return w->white;
    char *copy = strdup(path);
    if (!copy || !reserve((void **)&w->textures, &w->texture_cap, w->texture_count + 1, sizeof *w->textures)) {
        free(copy);
        return w->white;
    }
    if (img->stored_width > img->width && !w->reduced_texture_said) {
        w->reduced_texture_said = true;
        fprintf(stderr, "pmfview: warning: %s: %ux%u texels reduced to %ux%u (a texture keeps at most %u a side; docs/memory.md)\n",
                path, img->stored_width, img->stored_height, img->width, img->height, RES_MAX_TEXTURE_SIDE);
    }
    /* the GL's copy with its mipmaps takes from the memory budget; what does not fit is halved */
    uint64_t bytes = (uint64_t)img->width * img->height * 16 / 3;
    uint32_t wanted = img->width > img->height ? img->width : img->height;
    while (!pmf_budget_take(bytes)) {
        uint32_t side = img->width > img->height ? img->width : img->height;
        if (st != RES_OK || side <= 1 || !res_fit_texture(w->res, path, side / 2)) {
            bytes = 0; /* the checkerboard, or nothing left to give: uploaded uncounted */
            break;
        }
        bytes = (uint64_t)img->width * img->height * 16 / 3;
    }
    if ((img->width > img->height ? img->width : img->height) < wanted && !w->lowered_texture_said) {
        w->lowered_texture_said = true;
        fprintf(stderr, "pmfview: warning: %s: lowered to %ux%u texels to fit the memory budget (%llu of %llu MiB in use; see --memory)\n",
                path, img->width, img->height, (unsigned long long)(pmf_budget_used() >> 20),
                (unsigned long long)(pmf_budget_limit() >> 20));
    }
    GLuint tex = upload_rgba(img->width, img->height, img->rgba, true);
    gpu_texture *gt = &w->textures[w->texture_count++];
    *gt = (gpu_texture){ copy, tex, { 0, 0, 0 }, bytes };
    const uint8_t *row = img->rgba + (size_t)(img->height / 2) * img->width * 4;
    for (uint32_t x = 0; x < img->width; x++)
        for (int c = 0; c < 3; c++)
            gt->horizon[c] += row[x * 4 + c] / (255.0f * (float)img->width);
    if (st == RES_OK) /* the GPU has it now: the decoded copy goes */
        res_release_texture(w->res, path);
    return tex;
}

static void load_material(render_world *w, uint32_t index)
{
    gpu_material *m = &w->materials[index];
    if (m->loaded)
        return;
    m->loaded = true;
    const pmf_client_material *cm = &w->lvl->client.materials[index];
    uint32_t count = cm->texture[0] ? 1u + cm->extra_texture_count : 1u;
    m->frames = calloc(count, sizeof *m->frames);
    if (!m->frames) {
        m->frames = &w->white;
        m->frame_count = 1;
        return;
    }
    m->frame_count = count;
    m->frames[0] = cm->texture[0] ? texture_for(w, cm->texture) : w->white;
    for (uint32_t i = 1; i < count; i++)
        m->frames[i] = cm->extra_textures[i - 1][0] ? texture_for(w, cm->extra_textures[i - 1]) : w->white;
    m->matcap = cm->matcap[0] ? texture_for(w, cm->matcap) : 0;
}

static GLuint material_frame(const render_world *w, uint32_t index, double time)
{
    const gpu_material *m = &w->materials[index];
    const pmf_client_material *cm = &w->lvl->client.materials[index];
    uint32_t frame = 0;
    if (cm->advance_time_us > 0 && m->frame_count > 1 && time > 0) {
        uint64_t t_us = (uint64_t)(time * 1e6 + 0.5);
        frame = (uint32_t)((t_us / cm->advance_time_us) % m->frame_count);
    }
    return m->frames[frame];
}

static bool material_blended(const render_world *w, uint32_t index)
{
    const pmf_material *m = &w->lvl->common.materials[index];
    return (m->flags & PMF_MATERIAL_TRANSPARENT) || m->render_mode == PMF_RENDMODE_ADD;
}

/* ---- create / destroy ---------------------------------------------------------------------- */

static void setup_vao(render_world *w)
{
    glBindVertexArray(w->vao);
    glBindBuffer(GL_ARRAY_BUFFER, w->vertices.buffer);
    const GLsizei stride = sizeof(mesh_vertex);
    glEnableVertexAttribArray(ATTR_POS);
    glVertexAttribPointer(ATTR_POS, 3, GL_FLOAT, GL_FALSE, stride, (void *)offsetof(mesh_vertex, xyz));
    glEnableVertexAttribArray(ATTR_UV);
    glVertexAttribPointer(ATTR_UV, 2, GL_FLOAT, GL_FALSE, stride, (void *)offsetof(mesh_vertex, uv));
    glEnableVertexAttribArray(ATTR_LM_UV);
    glVertexAttribIPointer(ATTR_LM_UV, 2, GL_UNSIGNED_SHORT, stride, (void *)offsetof(mesh_vertex, lm_uv));
    if (w->mdi) {
        glBindBuffer(GL_ARRAY_BUFFER, w->draw_table);
        glEnableVertexAttribArray(ATTR_CHUNK);
        glVertexAttribPointer(ATTR_CHUNK, 3, GL_FLOAT, GL_FALSE, sizeof(draw_params), (void *)0);
        glVertexAttribDivisor(ATTR_CHUNK, 1);
        glEnableVertexAttribArray(ATTR_PAGE);
        glVertexAttribPointer(ATTR_PAGE, 1, GL_FLOAT, GL_FALSE, sizeof(draw_params), (void *)offsetof(draw_params, page));
        glVertexAttribDivisor(ATTR_PAGE, 1);
        glEnableVertexAttribArray(ATTR_FAST);
        glVertexAttribIPointer(ATTR_FAST, 2, GL_INT, sizeof(draw_params), (void *)offsetof(draw_params, fast_base));
        glVertexAttribDivisor(ATTR_FAST, 1);
    } else {
        glDisableVertexAttribArray(ATTR_CHUNK);
        glDisableVertexAttribArray(ATTR_PAGE);
        glDisableVertexAttribArray(ATTR_FAST);
    }
    /* The element buffer (u16 or u32 arena) is bound per call (issue). */
    glBindVertexArray(0);
    w->vao_dirty = false;
}

/* A unit cube around the eye: for each face, from the inside, u to the right and v down. */
static void build_sky_cube(render_world *w)
{
    static const float axes[6][3][3] = {
        /* normal, right, up (as seen from the centre looking along the normal) */
        { { 1, 0, 0 }, { 0, 0, 1 }, { 0, 1, 0 } },
        { { 0, 1, 0 }, { 1, 0, 0 }, { 0, 0, -1 } },
        { { 0, 0, 1 }, { -1, 0, 0 }, { 0, 1, 0 } },
        { { -1, 0, 0 }, { 0, 0, -1 }, { 0, 1, 0 } },
        { { 0, -1, 0 }, { 1, 0, 0 }, { 0, 0, 1 } },
        { { 0, 0, -1 }, { 1, 0, 0 }, { 0, 1, 0 } },
    };
    static const float corners[6][2] = { { -1, 1 }, { 1, 1 }, { 1, -1 }, { -1, 1 }, { 1, -1 }, { -1, -1 } };
    float data[6][6][5];
    for (int f = 0; f < 6; f++) {
        for (int v = 0; v < 6; v++) {
            float sx = corners[v][0], sy = corners[v][1];
            for (int c = 0; c < 3; c++)
                data[f][v][c] = axes[f][0][c] + sx * axes[f][1][c] + sy * axes[f][2][c];
            data[f][v][3] = (sx + 1) * 0.5f;
            data[f][v][4] = (1 - sy) * 0.5f;
        }
    }
    glGenVertexArrays(1, &w->sky_vao);
    glGenBuffers(1, &w->sky_vbo);
    glBindVertexArray(w->sky_vao);
    glBindBuffer(GL_ARRAY_BUFFER, w->sky_vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof data, data, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 20, (void *)0);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, 20, (void *)12);
    glBindVertexArray(0);
    glGenSamplers(1, &w->sky_sampler);
    glSamplerParameteri(w->sky_sampler, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glSamplerParameteri(w->sky_sampler, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glSamplerParameteri(w->sky_sampler, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glSamplerParameteri(w->sky_sampler, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
}

static void lookup_uniforms(render_world *w)
{
    GLuint p = w->world_prog;
    world_uniforms *u = &w->wu;
    u->view_proj = glGetUniformLocation(p, "u_view_proj");
    u->view = glGetUniformLocation(p, "u_view");
    u->uv_offset = glGetUniformLocation(p, "u_uv_offset");
    u->fast_table = glGetUniformLocation(p, "u_fast_table");
    u->fast_vertices = glGetUniformLocation(p, "u_fast_vertices");
    u->liquid = glGetUniformLocation(p, "u_liquid");
    u->wave = glGetUniformLocation(p, "u_wave");
    u->wave_offset = glGetUniformLocation(p, "u_wave_offset");
    u->time = glGetUniformLocation(p, "u_time");
    u->texture = glGetUniformLocation(p, "u_texture");
    u->light_atlas = glGetUniformLocation(p, "u_light_atlas");
    u->matcap = glGetUniformLocation(p, "u_matcap");
    u->color = glGetUniformLocation(p, "u_color");
    u->emission = glGetUniformLocation(p, "u_emission");
    u->shading = glGetUniformLocation(p, "u_shading");
    u->shine = glGetUniformLocation(p, "u_shine");
    u->exposure = glGetUniformLocation(p, "u_exposure");
    u->mode = glGetUniformLocation(p, "u_mode");
    u->wire = glGetUniformLocation(p, "u_wire");
    u->wire_color = glGetUniformLocation(p, "u_wire_color");
    u->luxel_grid = glGetUniformLocation(p, "u_luxel_grid");
    u->fog = glGetUniformLocation(p, "u_fog");
    u->fog_color = glGetUniformLocation(p, "u_fog_color");
    u->additive = glGetUniformLocation(p, "u_additive");
    glUseProgram(p);
    glUniform1i(u->texture, 0);
    glUniform1i(u->light_atlas, 1);
    glUniform1i(u->matcap, 2);
    glUniform1i(u->fast_table, 3);
    glUniform1i(u->fast_vertices, 4);

    p = w->sky_prog;
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
    w->world_prog = render_program_build("world", render_shader_world_vert, render_shader_world_frag, err, err_size);
    w->sky_prog = w->world_prog ? render_program_build("sky", render_shader_sky_vert, render_shader_sky_frag, err, err_size) : 0;
    if (!w->sky_prog) {
        render_world_destroy(w);
        return NULL;
    }
    lookup_uniforms(w);

    render_arena_init(&w->vertices, GL_ARRAY_BUFFER, sizeof(mesh_vertex));
    render_arena_init(&w->indices16, GL_ELEMENT_ARRAY_BUFFER, sizeof(uint16_t));
    render_arena_init(&w->indices32, GL_ELEMENT_ARRAY_BUFFER, sizeof(uint32_t));
    render_arena_init(&w->fast_vertices, GL_TEXTURE_BUFFER, sizeof(mesh_fast_vertex));
    render_arena_init(&w->fast_table, GL_TEXTURE_BUFFER, 16);
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
    glBindTexture(GL_TEXTURE_BUFFER, w->fast_tex);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, w->fast_table.buffer);
    glBindTexture(GL_TEXTURE_BUFFER, w->fast_vertex_tex);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_RG32UI, w->fast_vertices.buffer);

    static const uint8_t white[4] = { 255, 255, 255, 255 }, black[4] = { 0, 0, 0, 255 };
    w->white = upload_rgba(1, 1, white, false);
    w->black = upload_rgba(1, 1, black, false);
    w->page_size = mesh_atlas_page_size(w->atlas);
    alloc_atlas_layers(w, 0);
    build_sky_cube(w);
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
    if (w->world_prog)
        glDeleteProgram(w->world_prog);
    if (w->sky_prog)
        glDeleteProgram(w->sky_prog);
    free(w->textures);
    free(w->materials);
    free(w->chunks);
    free(w->lights);
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
         + (uint64_t)w->atlas_layers * w->page_size * w->page_size * 8u;
}

void render_world_chunk_bytes(const render_world *w, uint64_t *vertices, uint64_t *bytes)
{
    *vertices = w->resident_vertices;
    *bytes = w->resident_bytes;
}

/* ---- chunks -------------------------------------------------------------------------------- */

/* What a chunk's vertices, fast vertices and indices take in the arenas. */
static uint64_t chunk_buffer_bytes(const mesh_chunk *mc)
{
    uint64_t bytes = (uint64_t)mc->vertex_count * sizeof(mesh_vertex);
    if (mc->fast)
        bytes += (uint64_t)mc->vertex_count * sizeof(mesh_fast_vertex);
    return bytes + (uint64_t)mc->index_count * (mc->vertex_count > MAX_U16_VERTICES ? 4u : 2u);
}

int render_world_add(render_world *w, const mesh_chunk *mc)
{
    size_t slot = 0;
    while (slot < w->chunk_count && w->chunks[slot].mc)
        slot++;
    if (slot == w->chunk_count) {
        if (!reserve((void **)&w->chunks, &w->chunk_cap, w->chunk_count + 1, sizeof *w->chunks))
            return -1;
        w->chunk_count++;
    }
    gpu_chunk *gc = &w->chunks[slot];
    memset(gc, 0, sizeof *gc);

    bool wide = mc->vertex_count > MAX_U16_VERTICES;
    render_arena *indices = wide ? &w->indices32 : &w->indices16;
    uint32_t fast_count = mc->fast ? mc->vertex_count : 0;
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
    if (moved)
        w->vao_dirty = true;
    if (fast_moved) {
        glBindTexture(GL_TEXTURE_BUFFER, w->fast_tex);
        glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, w->fast_table.buffer);
        glBindTexture(GL_TEXTURE_BUFFER, w->fast_vertex_tex);
        glTexBuffer(GL_TEXTURE_BUFFER, GL_RG32UI, w->fast_vertices.buffer);
    }
    /* u16 indices narrowed in a buffer kept between uploads (fresh memory per chunk costs page
     * faults). */
    if (ok && !wide && !reserve((void **)&w->staging, &w->staging_cap, (size_t)mc->index_count + 1, sizeof *w->staging)) {
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
    }

    gc->mc = mc;
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
        render_light *l = register_light(w, false, dl->id, dl->color, dl->flags & PMF_LIGHT_ENABLE, 0);
        if (l && !l->loaded) {
            memcpy(l->color, dl->color, 3);
            l->loaded = true;
        }
    }
    for (uint32_t f = 0; f < mc->fast_light_count; f++) {
        const mesh_fast_light *fl = &mc->fast_lights[f];
        render_light *l = register_light(w, true, fl->id, fl->color, fl->flags & PMF_LIGHT_ENABLE, fl->intensity);
        if (l && !l->loaded) {
            memcpy(l->color, fl->color, 3);
            l->enabled = fl->flags & PMF_LIGHT_ENABLE;
            l->loaded = true;
        }
        write_fast_entry(w, slots + f, fl);
    }
    if (!ensure_atlas_pages(w) || !composite_chunk(w, mc)) {
        render_world_remove(w, (int)slot);
        return -1;
    }
    for (uint32_t b = 0; b < mc->batch_count; b++)
        if (mc->batches[b].material < w->lvl->common.material_count)
            load_material(w, mc->batches[b].material);
    return (int)slot;
}

void render_world_remove(render_world *w, int handle)
{
    if (handle < 0 || (size_t)handle >= w->chunk_count || !w->chunks[handle].mc)
        return;
    gpu_chunk *gc = &w->chunks[handle];
    render_arena_free(&w->vertices, gc->vertex_base, gc->mc->vertex_count);
    render_arena_free(gc->wide ? &w->indices32 : &w->indices16, gc->index_base, gc->mc->index_count);
    render_arena_free(&w->fast_vertices, gc->fast_vertex_base, gc->mc->fast ? gc->mc->vertex_count : 0);
    render_arena_free(&w->fast_table, gc->fast_base, gc->mc->fast_light_count);
    w->resident_vertices -= gc->mc->vertex_count;
    w->resident_bytes -= chunk_buffer_bytes(gc->mc);
    gc->mc = NULL;
}

/* ---- drawing --------------------------------------------------------------------------------- */

void render_mat4_mul(const float a[16], const float b[16], float out[16])
{
    float r[16];
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++) {
            float sum = 0;
            for (int k = 0; k < 4; k++)
                sum += a[k * 4 + row] * b[c * 4 + k];
            r[c * 4 + row] = sum;
        }
    memcpy(out, r, sizeof r);
}

static int compare_opaque(const void *pa, const void *pb)
{
    const draw_item *a = pa, *b = pb;
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

static void set_material(render_world *w, const render_frame *f, uint32_t index)
{
    const world_uniforms *u = &w->wu;
    const pmf_material *m = &w->lvl->common.materials[index];
    const pmf_client_material *cm = &w->lvl->client.materials[index];
    const gpu_material *gm = &w->materials[index];
    float alpha = (m->flags & PMF_MATERIAL_TRANSPARENT) ? cm->alpha / 255.0f : 1.0f;
    glUniform4f(u->color, cm->color[0] / 255.0f, cm->color[1] / 255.0f, cm->color[2] / 255.0f, alpha);
    glUniform3f(u->emission, cm->emission[0] / 255.0f, cm->emission[1] / 255.0f, cm->emission[2] / 255.0f);
    glUniform1f(u->shading, cm->shading / 255.0f);
    glUniform1f(u->shine, gm->matcap ? cm->shine / 255.0f : 0.0f);
    glUniform2f(u->uv_offset, (float)fmod(cm->uv_scroll[0] * f->time, 4096.0), (float)fmod(cm->uv_scroll[1] * f->time, 4096.0));
    glUniform1i(u->additive, m->render_mode == PMF_RENDMODE_ADD);
    bool liquid = m->flags & PMF_MATERIAL_LIQUID;
    glUniform1i(u->liquid, liquid);
    if (liquid) {
        const pmf_wave_info *wave = &cm->wave;
        float v[3];
        for (int c = 0; c < 3; c++)
            v[c] = wave->velocity[c] + f->wind[c] * wave->wind_influence;
        float speed = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        float horiz = sqrtf(v[0] * v[0] + v[2] * v[2]);
        float dx = horiz > 0 ? v[0] / horiz : 1.0f, dz = horiz > 0 ? v[2] / horiz : 0.0f;
        glUniform4f(u->wave, dx, dz, speed, wave->scale);
        glUniform1f(u->wave_offset, wave->offset);
    }
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, gm->frames ? material_frame(w, index, f->time) : w->white);
    glActiveTexture(GL_TEXTURE2);
    glBindTexture(GL_TEXTURE_2D, gm->matcap ? gm->matcap : w->black);
    glActiveTexture(GL_TEXTURE0);
}

static void set_blend(const render_world *w, uint32_t material)
{
    const pmf_material *m = &w->lvl->common.materials[material];
    glEnable(GL_BLEND);
    if (m->render_mode == PMF_RENDMODE_ADD)
        glBlendFuncSeparate(GL_ONE, GL_ONE, GL_ZERO, GL_ONE);
    else
        glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
}

/* Issues the commands [first, first + count) of the frame's command list, all of one index
 * type (wide = u32). */
static void issue(render_world *w, size_t first, size_t count, bool wide, render_frame_stats *stats)
{
    GLenum type = wide ? GL_UNSIGNED_INT : GL_UNSIGNED_SHORT;
    size_t index_size = wide ? 4 : 2;
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, wide ? w->indices32.buffer : w->indices16.buffer);
    if (w->mdi) {
        glMultiDrawElementsIndirect(GL_TRIANGLES, type, (void *)(first * sizeof(draw_cmd)), (GLsizei)count, 0);
        stats->draw_calls++;
    } else {
        for (size_t i = first; i < first + count; i++) {
            const draw_cmd *c = &w->cmds[i];
            const draw_params *t = &w->table[c->base_instance];
            glVertexAttrib3f(ATTR_CHUNK, t->offset[0], t->offset[1], t->offset[2]);
            glVertexAttrib1f(ATTR_PAGE, t->page);
            glVertexAttribI4i(ATTR_FAST, t->fast_base, t->fast_delta, 0, 0);
            glDrawElementsBaseVertex(GL_TRIANGLES, (GLsizei)c->count, type,
                                     (void *)((size_t)c->first_index * index_size), c->base_vertex);
            stats->draw_calls++;
        }
    }
}

static size_t emit_item(render_world *w, const render_frame *f, const draw_item *it, size_t n, render_frame_stats *stats)
{
    const render_draw_chunk *dc = &f->chunks[it->chunk];
    const gpu_chunk *gc = &w->chunks[dc->handle];
    for (uint32_t r = 0; r < it->range_count; r++, n++) {
        const mesh_draw_range *range = &w->ranges[it->first_range + r];
        w->cmds[n] = (draw_cmd){ range->index_count, 1, gc->index_base + range->first_index,
                                 (GLint)gc->vertex_base, (GLuint)n };
        w->table[n] = (draw_params){ { dc->offset[0], dc->offset[1], dc->offset[2] }, it->page,
                                     gc->mc->fast ? (int32_t)gc->fast_base : -1,
                                     (int32_t)gc->fast_vertex_base - (int32_t)gc->vertex_base };
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
    qsort(items, n, sizeof *items, compare_group);
}

/* Gathers the frame's items, sorts them, builds and uploads the draw commands. */
static void prepare_frame(render_world *w, const render_frame *f, render_frame_stats *stats)
{
    w->frame_items = w->frame_opaque = w->frame_opaque_cmds = 0;
    if (w->vao_dirty && w->vertices.buffer) /* no buffer yet: no vertex to point at, nothing drawn */
        setup_vao(w);
    /* Gather (chunk, batch) items with their visible ranges. */
    size_t item_count = 0, range_count = 0;
    float view_proj[16];
    render_mat4_mul(f->proj, f->view, view_proj);
    for (size_t c = 0; c < f->chunk_count; c++) {
        const render_draw_chunk *dc = &f->chunks[c];
        const gpu_chunk *gc = &w->chunks[dc->handle];
        const mesh_chunk *mc = gc->mc;
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
            if (!reserve((void **)&w->ranges, &w->range_cap, range_count + batch->run_count, sizeof *w->ranges)
                || !reserve((void **)&w->items, &w->item_cap, item_count + batch->run_count, sizeof *w->items))
                return;
            draw_item item = {
                .material = batch->material, .page = batch->page, .backfaces = batch->backfaces,
                .blended = material_blended(w, batch->material), .wide = gc->wide, .chunk = (uint32_t)c,
                .first_range = (uint32_t)range_count, .distance = near_distance,
            };
            if (!item.blended) {
                item.range_count = mesh_batch_ranges(mc, b, dc->cubes, &w->ranges[range_count]);
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
    for (size_t i = 0; i < item_count; i++) {
        if (w->material_mark[w->items[i].material] != w->draw_serial) {
            w->material_mark[w->items[i].material] = w->draw_serial;
            stats->materials++;
        }
    }
    qsort(w->items, opaque, sizeof *w->items, compare_opaque);
    qsort(w->items + opaque, item_count - opaque, sizeof *w->items, compare_far_to_near);
    group_blended(w->items + opaque, item_count - opaque);
    if (!reserve((void **)&w->cmds, &w->cmd_cap, range_count + 1, sizeof *w->cmds)
        || !reserve((void **)&w->table, &w->table_cap, range_count + 1, sizeof *w->table))
        return;
    size_t n = 0;
    for (size_t i = 0; i < item_count; i++)
        n = emit_item(w, f, &w->items[i], n, stats);
    w->frame_items = item_count;
    w->frame_opaque = opaque;
    for (size_t i = 0; i < opaque; i++)
        w->frame_opaque_cmds += w->items[i].range_count;
    if (w->mdi) {
        glBindBuffer(GL_ARRAY_BUFFER, w->draw_table);
        glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(n * sizeof *w->table), w->table, GL_STREAM_DRAW);
        glBindBuffer(GL_DRAW_INDIRECT_BUFFER, w->indirect);
        glBufferData(GL_DRAW_INDIRECT_BUFFER, (GLsizeiptr)(n * sizeof(draw_cmd)), w->cmds, GL_STREAM_DRAW);
    }
}

/* Program, frame uniforms, textures and depth state of the world pass. */
static void begin_world_state(render_world *w, const render_frame *f)
{
    glBindVertexArray(w->vao);
    if (w->mdi)
        glBindBuffer(GL_DRAW_INDIRECT_BUFFER, w->indirect);
    const world_uniforms *u = &w->wu;
    float view_proj[16];
    render_mat4_mul(f->proj, f->view, view_proj);
    glUseProgram(w->world_prog);
    glUniformMatrix4fv(u->view_proj, 1, GL_FALSE, view_proj);
    glUniformMatrix4fv(u->view, 1, GL_FALSE, f->view);
    glUniform1f(u->exposure, f->exposure);
    glUniform1i(u->mode, f->mode);
    glUniform1i(u->wire, 0);
    glUniform1i(u->luxel_grid, f->luxel_grid);
    glUniform3f(u->fog, f->fog_start, f->fog_end, f->fog ? 1.0f : 0.0f);
    glUniform3fv(u->fog_color, 1, f->fog_color);
    glUniform1f(u->time, (float)f->time);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D_ARRAY, w->light_atlas);
    glActiveTexture(GL_TEXTURE3);
    glBindTexture(GL_TEXTURE_BUFFER, w->fast_tex);
    glActiveTexture(GL_TEXTURE4);
    glBindTexture(GL_TEXTURE_BUFFER, w->fast_vertex_tex);
    glActiveTexture(GL_TEXTURE0);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
    glFrontFace(GL_CCW);
    glCullFace(GL_BACK);
}

static void end_world_state(void)
{
    glDisable(GL_CULL_FACE);
    glBindVertexArray(0);
    glUseProgram(0);
}

/* Draws the items [first, last) whose commands start at cmd: one call per group of consecutive
 * items sharing (material, backfaces, index type). Opaque items are sorted by material; blended ones far to
 * near, so a run of one material keeps its order inside the multi-draw. wire: the wireframe
 * overlay (no material state). */
static void draw_items(render_world *w, const render_frame *f, size_t first, size_t last, size_t cmd, bool wire,
                       render_frame_stats *stats)
{
    bool culling = false;
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
        if (!wire) {
            set_material(w, f, it->material);
            if (it->blended)
                set_blend(w, it->material);
        }
        issue(w, cmd, cmds, it->wide, stats);
        cmd += cmds;
        i = j;
    }
}

void render_world_draw_opaque(render_world *w, const render_frame *f, render_frame_stats *stats)
{
    prepare_frame(w, f, stats);
    if (!w->frame_opaque)
        return;
    begin_world_state(w, f);
    draw_items(w, f, 0, w->frame_opaque, 0, false, stats);
    end_world_state();
}

void render_world_draw_blended(render_world *w, const render_frame *f, render_frame_stats *stats)
{
    if (!w->frame_items)
        return;
    begin_world_state(w, f);
    if (w->frame_items > w->frame_opaque) {
        glDepthMask(GL_FALSE);
        draw_items(w, f, w->frame_opaque, w->frame_items, w->frame_opaque_cmds, false, stats);
        glDisable(GL_BLEND);
        glDepthMask(GL_TRUE);
    }
    if (f->wireframe) {
        glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
        glUniform1i(w->wu.wire, 1);
        glUniform4f(w->wu.wire_color, 1.0f, 1.0f, 1.0f, 1.0f);
        glDepthFunc(GL_LEQUAL);
        draw_items(w, f, 0, w->frame_opaque, 0, true, stats);
        glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
        glDepthFunc(GL_LESS);
    }
    end_world_state();
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
    glClearDepth(1.0);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
}

void render_world_clear_depth(render_world *w)
{
    (void)w;
    glDepthMask(GL_TRUE);
    glClear(GL_DEPTH_BUFFER_BIT);
}

void render_world_fog_color(render_world *w, const render_sky *sky, float out[3])
{
    static const int sides[4] = { 0, 2, 3, 5 };      /* +X +Z -X -Z */
    int n = 0;
    out[0] = out[1] = out[2] = 0.0f;
    for (int i = 0; i < 4; i++) {
        int material = sky ? sky->skybox[sides[i]] : -1;
        if (material < 0 || material >= w->lvl->common.material_count)
            continue;
        load_material(w, (uint32_t)material);
        const pmf_client_material *cm = &w->lvl->client.materials[material];
        GLuint tex = material_frame(w, (uint32_t)material, 0.0);
        float horizon[3] = { 1.0f, 1.0f, 1.0f };     /* untextured: white */
        for (size_t t = 0; t < w->texture_count; t++)
            if (w->textures[t].tex == tex)
                memcpy(horizon, w->textures[t].horizon, sizeof horizon);
        for (int c = 0; c < 3; c++)
            out[c] += horizon[c] * cm->color[c] / 255.0f;
        n++;
    }
    for (int c = 0; n && c < 3; c++)
        out[c] /= (float)n;
}

void render_world_draw_sky(render_world *w, const render_sky *sky, const render_frame *f, render_frame_stats *stats)
{
    float rot[16], view_proj[16];
    memcpy(rot, f->view, sizeof rot);
    rot[12] = rot[13] = rot[14] = 0.0f;
    render_mat4_mul(f->proj, rot, view_proj);
    glUseProgram(w->sky_prog);
    glUniformMatrix4fv(w->su.view_proj, 1, GL_FALSE, view_proj);
    glUniform1f(w->su.exposure, f->exposure);
    glBindVertexArray(w->sky_vao);
    glDisable(GL_CULL_FACE);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    glDepthMask(GL_FALSE);
    glActiveTexture(GL_TEXTURE0);
    for (int layer = 0; layer < 8; layer++) {
        int material = layer < 6 ? sky->skybox[layer] : layer == 6 ? sky->cloud_top : sky->cloud_bottom;
        if (material < 0 || material >= w->lvl->common.material_count)
            continue;
        load_material(w, (uint32_t)material);
        const pmf_client_material *cm = &w->lvl->client.materials[material];
        bool blend = layer >= 6 || (w->lvl->common.materials[material].flags & PMF_MATERIAL_TRANSPARENT);
        float alpha = (w->lvl->common.materials[material].flags & PMF_MATERIAL_TRANSPARENT) ? cm->alpha / 255.0f : 1.0f;
        if (blend) {
            glEnable(GL_BLEND);
            glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
        }
        glUniform4f(w->su.color, cm->color[0] / 255.0f, cm->color[1] / 255.0f, cm->color[2] / 255.0f, alpha);
        glUniform1i(w->su.cloud, layer < 6 ? 0 : layer == 6 ? 1 : 2);
        glUniform2f(w->su.uv_offset, (float)fmod(cm->uv_scroll[0] * f->time, 4096.0), (float)fmod(cm->uv_scroll[1] * f->time, 4096.0));
        glBindTexture(GL_TEXTURE_2D, material_frame(w, (uint32_t)material, f->time));
        /* skybox faces sample as the sides of a cube map would (unless they scroll: then they repeat) */
        bool clamp = layer < 6 && cm->uv_scroll[0] == 0 && cm->uv_scroll[1] == 0;
        glBindSampler(0, clamp ? w->sky_sampler : 0);
        if (layer < 6)
            glDrawArrays(GL_TRIANGLES, layer * 6, 6);
        else
            glDrawArrays(GL_TRIANGLES, 0, 36);
        stats->draw_calls++;
        stats->triangles += layer < 6 ? 2 : 12;
        glDisable(GL_BLEND);
    }
    glBindSampler(0, 0);
    glDepthMask(GL_TRUE);
    glDepthFunc(GL_LESS);
    glBindVertexArray(0);
    glUseProgram(0);
}
