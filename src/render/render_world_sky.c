/* render_world_sky.c - the skybox and cloud layers, and the fog colour taken from the sky. */
#include <math.h>
#include <string.h>

#include "render_world_internal.h"

/* A unit cube around the eye: for each face, from the inside, u to the right and v down. */
void world_build_sky_cube(render_world *w)
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

void render_world_fog_color(render_world *w, const render_sky *sky, float out[3])
{
    static const int sides[4] = { 0, 2, 3, 5 };      /* +X +Z -X -Z */
    int n = 0;
    out[0] = out[1] = out[2] = 0.0f;
    for (int i = 0; i < 4; i++) {
        int material = sky ? sky->skybox[sides[i]] : -1;
        if (material < 0 || material >= w->lvl->common.material_count)
            continue;
        world_load_material(w, (uint32_t)material);
        const pmf_client_material *cm = &w->lvl->client.materials[material];
        GLuint tex = world_material_frame(w, (uint32_t)material, 0.0);
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
        world_load_material(w, (uint32_t)material);
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
        glBindTexture(GL_TEXTURE_2D, world_material_frame(w, (uint32_t)material, f->time));
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

