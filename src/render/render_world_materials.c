/* render_world_materials.c - textures (one GL texture per path, charged to the memory budget)
 * and the material state of a draw. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmf_budget.h"
#include "render_world_internal.h"

/* ---- textures and materials ------------------------------------------------------------------ */

GLuint world_upload_rgba(uint32_t width, uint32_t height, const uint8_t *rgba, const uint8_t *mips, uint32_t mip_levels)
{
    GLuint tex;
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, (GLint)mip_levels);
    /* Immutable storage (GL 4.2) is allocated once with every level. Level by level, a driver may
     * allocate for level 0 and reallocate (and copy) when the first draw finds the whole chain:
     * Mesa held both copies, 16 MiB more for a 2048^2 texture. */
    const render_caps *caps = render_get_caps();
    bool storage = caps->gl_major > 4 || (caps->gl_major == 4 && caps->gl_minor >= 2);
    if (storage) {
        glTexStorage2D(GL_TEXTURE_2D, (GLsizei)mip_levels + 1, GL_RGBA8, (GLsizei)width, (GLsizei)height);
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, (GLsizei)width, (GLsizei)height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    } else {
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, (GLsizei)width, (GLsizei)height, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    }
    /* The chain comes built on the CPU (res): glGenerateMipmap would JIT-compile a blit shader on
     * the first frame's path (150-290 ms on llvmpipe, not kept by Mesa's disk cache). */
    for (uint32_t level = 1; level <= mip_levels; level++) {
        width = width > 1 ? width / 2 : 1;
        height = height > 1 ? height / 2 : 1;
        if (storage)
            glTexSubImage2D(GL_TEXTURE_2D, (GLint)level, 0, 0, (GLsizei)width, (GLsizei)height, GL_RGBA, GL_UNSIGNED_BYTE,
                            mips);
        else
            glTexImage2D(GL_TEXTURE_2D, (GLint)level, GL_RGBA8, (GLsizei)width, (GLsizei)height, 0, GL_RGBA,
                         GL_UNSIGNED_BYTE, mips);
        mips += (size_t)width * height * 4;
    }
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, mip_levels ? GL_LINEAR_MIPMAP_LINEAR : GL_LINEAR);
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
    if (!copy || !grow_array((void **)&w->textures, &w->texture_cap, w->texture_count + 1, sizeof *w->textures)) {
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
    GLuint tex = world_upload_rgba(img->width, img->height, img->rgba, img->mips, img->mip_levels);
    world_verify_texture_uploaded(w, tex, img->width, img->height, img->rgba, img->mips, img->mip_levels);
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

void world_load_material(render_world *w, uint32_t index)
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

GLuint world_material_frame(const render_world *w, uint32_t index, double time)
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

bool world_material_blended(const render_world *w, uint32_t index)
{
    const pmf_material *m = &w->lvl->common.materials[index];
    return (m->flags & PMF_MATERIAL_TRANSPARENT) || m->render_mode == PMF_RENDMODE_ADD;
}

uint32_t world_material_switches(const render_world *w, uint32_t index)
{
    const pmf_material *m = &w->lvl->common.materials[index];
    const pmf_client_material *cm = &w->lvl->client.materials[index];
    const gpu_material *gm = &w->materials[index];
    bool matcap = gm->loaded ? gm->matcap != 0 : cm->matcap[0] != 0; /* before loading: as it will */
    return ((m->flags & PMF_MATERIAL_LIQUID) ? WV_LIQUID : 0u) | (matcap && cm->shine > 0 ? WV_MATCAP : 0u)
         | (m->render_mode == PMF_RENDMODE_ADD ? WV_ADDITIVE : 0u);
}

void world_set_material(render_world *w, const render_frame *f, uint32_t index, const world_uniforms *u)
{
    const pmf_material *m = &w->lvl->common.materials[index];
    const pmf_client_material *cm = &w->lvl->client.materials[index];
    const gpu_material *gm = &w->materials[index];
    float alpha = (m->flags & PMF_MATERIAL_TRANSPARENT) ? cm->alpha / 255.0f : 1.0f;
    glUniform4f(u->color, cm->color[0] / 255.0f, cm->color[1] / 255.0f, cm->color[2] / 255.0f, alpha);
    glUniform3f(u->emission, cm->emission[0] / 255.0f, cm->emission[1] / 255.0f, cm->emission[2] / 255.0f);
    glUniform1f(u->shading, cm->shading / 255.0f);
    glUniform1f(u->shine, gm->matcap ? cm->shine / 255.0f : 0.0f);
    glUniform2f(u->uv_offset, (float)fmod(cm->uv_scroll[0] * f->time, 4096.0), (float)fmod(cm->uv_scroll[1] * f->time, 4096.0));
    if (m->flags & PMF_MATERIAL_LIQUID) {
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
    glBindTexture(GL_TEXTURE_2D, gm->frames ? world_material_frame(w, index, f->time) : w->white);
    glActiveTexture(GL_TEXTURE2);
    glBindTexture(GL_TEXTURE_2D, gm->matcap ? gm->matcap : w->black);
    glActiveTexture(GL_TEXTURE0);
}

void world_set_blend(const render_world *w, uint32_t material)
{
    const pmf_material *m = &w->lvl->common.materials[material];
    glEnable(GL_BLEND);
    if (m->render_mode == PMF_RENDMODE_ADD)
        glBlendFuncSeparate(GL_ONE, GL_ONE, GL_ZERO, GL_ONE);
    else
        glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
}
