/* light_direct.c - a light's direct term from its metadata, per point and per lightmap block. */
#include "light_direct.h"

#include "light_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void light_direct(const pmf_light_info *l, const float p[3], const float n[3], float out[3])
{
    float strength;
    if (l->shape == PMF_LIGHT_SUN) {
        strength = light_angle_term(-(n[0] * l->direction[0] + n[1] * l->direction[1] + n[2] * l->direction[2]),
                                    l->anglescale);
    } else {
        float d[3] = { l->position[0] - p[0], l->position[1] - p[1], l->position[2] - p[2] };
        float dist = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        float n_dot_l = dist > 0.0f ? (n[0] * d[0] + n[1] * d[1] + n[2] * d[2]) / dist : 1.0f;
        strength = l->range > 0.0f ? light_angle_term(n_dot_l, l->anglescale)
                                         * light_falloff_mode(l->falloff, dist, l->range, l->falloff_distance)
                                   : 0.0f;
        if (l->shape == PMF_LIGHT_SPOT) {
            float to_point[3] = { -d[0], -d[1], -d[2] };
            strength *= light_cone_mode(l->cone, l->direction, l->cos_inner, l->cos_outer, to_point, dist);
        }
    }
    strength = strength > 0.0f ? strength * l->intensity : 0.0f;
    for (int c = 0; c < 3; c++)
        out[c] = l->color[c] / 255.0f * strength;
}

#define NUDGE 0.002f                 /* metres off the surface a shadow segment starts (bake.c) */
#define LIGHT_SLACK 1e-4f            /* it stops this fraction short of the light (bake.c) */
#define SUN_REACH 1.0e4f

void light_direct_shadowed(const light_direct_set *set, const pmf_light_info *l, const float p[3], const float n[3],
                           float out[3])
{
    light_direct(l, p, n, out);
    if (!set->occluders.node_count || !(out[0] + out[1] + out[2] > 0.0f))
        return;
    float from[3], to[3];
    for (int k = 0; k < 3; k++) {
        from[k] = p[k] + n[k] * NUDGE;
        to[k] = l->shape == PMF_LIGHT_SUN ? from[k] - l->direction[k] * SUN_REACH : l->position[k];
    }
    if (bvh_segment_occluded(&set->occluders, from, to, 0.0f, 1.0f - LIGHT_SLACK, NULL))
        out[0] = out[1] = out[2] = 0.0f;
}

static bool opaque(const pmf_level *lvl, uint16_t material)
{
    if (material >= lvl->common.material_count)
        return true;
    const pmf_material *m = &lvl->common.materials[material];
    return !(m->flags & (PMF_MATERIAL_TRANSPARENT | PMF_MATERIAL_LIQUID)) && m->render_mode != PMF_RENDMODE_ADD;
}

/* Whether a chunk's box (world) comes within reach of one of the set's lights. */
static bool chunk_reached(const light_direct_set *set, const mesh_chunk *mc)
{
    float mn[3], mx[3];
    light_direct_world(set, mc, mc->min, mn);
    light_direct_world(set, mc, mc->max, mx);
    for (size_t i = 0; i < set->count; i++) {
        const pmf_light_info *l = &set->lights[i];
        if (l->shape == PMF_LIGHT_SUN)
            return true;
        float d2 = 0.0f;
        for (int k = 0; k < 3; k++) {
            float d = l->position[k] < mn[k] ? mn[k] - l->position[k] : l->position[k] > mx[k] ? l->position[k] - mx[k] : 0.0f;
            d2 += d * d;
        }
        if (d2 <= l->range * l->range)
            return true;
    }
    return false;
}

bool light_direct_occluders(light_direct_set *set, const pmf_level *lvl, const mesh_chunk *const *chunks, size_t count)
{
    bvh_free(&set->occluders);
    size_t total = 0;
    for (size_t c = 0; c < count; c++)
        if (chunks[c]->min[0] <= chunks[c]->max[0] && chunk_reached(set, chunks[c]))
            total += chunks[c]->index_count / 3;
    float (*tris)[9] = malloc((total + 1) * sizeof *tris);
    if (!tris)
        return false;
    size_t n = 0;
    for (size_t c = 0; c < count; c++) {
        const mesh_chunk *mc = chunks[c];
        if (mc->min[0] > mc->max[0] || !chunk_reached(set, mc))
            continue;
        for (uint32_t b = 0; b < mc->batch_count; b++) {
            const mesh_batch *bt = &mc->batches[b];
            if (!opaque(lvl, bt->material))
                continue;
            for (uint32_t i = bt->first_index; i + 2 < bt->first_index + bt->index_count && n < total; i += 3, n++)
                for (int v = 0; v < 3; v++) {
                    float local[3];
                    mesh_vertex_position(mc, &mc->vertices[mc->indices[i + v]], local);
                    light_direct_world(set, mc, local, &tris[n][v * 3]);
                }
        }
    }
    bool ok = bvh_build((const float(*)[9])tris, n, 0, &set->occluders);
    free(tris);
    if (!ok)
        memset(&set->occluders, 0, sizeof set->occluders);
    return ok;
}

void light_direct_free(light_direct_set *set)
{
    bvh_free(&set->occluders);
}

void light_direct_world(const light_direct_set *set, const mesh_chunk *mc, const float local[3], float out[3])
{
    const uint32_t coord[3] = { mc->coord.x, mc->coord.y, mc->coord.z };
    for (int k = 0; k < 3; k++)
        out[k] = (float)(((double)coord[k] - set->center[k]) * mc->size + local[k]);
}

/* Signed distance (lightmap texels, positive inside) from q to triangle t, and its barycentrics. */
static float triangle_distance(const float t[3][2], const float q[2], float bary[3])
{
    float area = (t[1][0] - t[0][0]) * (t[2][1] - t[0][1]) - (t[2][0] - t[0][0]) * (t[1][1] - t[0][1]);
    float dist = INFINITY;
    for (int e = 0; e < 3; e++) {
        const float *a = t[(e + 1) % 3], *b = t[(e + 2) % 3];
        /* edge opposite vertex e: its barycentric is the signed area of (a, b, q) */
        float cross = (b[0] - a[0]) * (q[1] - a[1]) - (q[0] - a[0]) * (b[1] - a[1]);
        bary[e] = cross / area;
        float len = sqrtf((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]));
        float d = (area > 0.0f ? cross : -cross) / len;
        dist = d < dist ? d : dist;
    }
    return dist;
}

#define FACE_INSET 0.0625f           /* texels: the baker lights a luxel off its face this far inside (bake.c) */

/* q moved into triangle t, FACE_INSET inside each edge it lies outside of: the baker lights a
 * luxel whose centre falls off its face at the face's edge (bake.c luxel_position). */
static void texel_onto_triangle(const float t[3][2], float q[2])
{
    float area = (t[1][0] - t[0][0]) * (t[2][1] - t[0][1]) - (t[2][0] - t[0][0]) * (t[1][1] - t[0][1]);
    float side = area > 0.0f ? 1.0f : -1.0f;
    for (int e = 0; e < 3; e++) {
        const float *a = t[(e + 1) % 3], *b = t[(e + 2) % 3];
        float len = sqrtf((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]));
        float d = side * ((b[0] - a[0]) * (q[1] - a[1]) - (q[0] - a[0]) * (b[1] - a[1])) / len;
        if (!(d < FACE_INSET))
            continue;
        q[0] -= (FACE_INSET - d) * side * (b[1] - a[1]) / len;
        q[1] += (FACE_INSET - d) * side * (b[0] - a[0]) / len;
    }
}

typedef struct texel_surface { float best, pos[3], normal[3]; } texel_surface;

void light_direct_block(void *user, const mesh_chunk *mc, uint32_t block, float sign, float *rgba)
{
    const light_direct_set *set = user;
    const mesh_lightmap_block *blk = &mc->blocks[block];
    if (blk->lightmap < 0 || !set->count || !chunk_reached(set, mc))
        return;
    const int side = (int)mesh_atlas_block_side(&blk->rect);
    const float page = (float)mesh_atlas_page_size(mc->atlas);
    texel_surface *tex = malloc((size_t)side * side * sizeof *tex);
    if (!tex)
        return;
    for (int i = 0; i < side * side; i++)
        tex[i].best = -INFINITY;
    /* A texel takes the triangle it lies deepest in; border-ring texels (up to 1.5 texels out)
     * the nearest one, at its edge (texel_onto_triangle). */
    const float reach = -1.5f;
    for (uint32_t b = 0; b < mc->batch_count; b++) {
        const mesh_batch *bt = &mc->batches[b];
        if (bt->page != blk->rect.page)
            continue;
        for (uint32_t i = bt->first_index; i + 2 < bt->first_index + bt->index_count; i += 3) {
            const mesh_vertex *v[3] = { &mc->vertices[mc->indices[i]], &mc->vertices[mc->indices[i + 1]],
                                        &mc->vertices[mc->indices[i + 2]] };
            float xyz[3][3];
            for (int k = 0; k < 3; k++)
                mesh_vertex_position(mc, v[k], xyz[k]);
            float t[3][2], lo[2] = { INFINITY, INFINITY }, hi[2] = { -INFINITY, -INFINITY };
            for (int k = 0; k < 3; k++)
                for (int a = 0; a < 2; a++) {
                    t[k][a] = v[k]->lm_uv[a] * MESH_LM_UV_SCALE * page - (a ? blk->rect.y : blk->rect.x);
                    lo[a] = fminf(lo[a], t[k][a]);
                    hi[a] = fmaxf(hi[a], t[k][a]);
                }
            float centroid[2] = { (t[0][0] + t[1][0] + t[2][0]) / 3, (t[0][1] + t[1][1] + t[2][1]) / 3 };
            float area = (t[1][0] - t[0][0]) * (t[2][1] - t[0][1]) - (t[2][0] - t[0][0]) * (t[1][1] - t[0][1]);
            if (centroid[0] < 0 || centroid[1] < 0 || centroid[0] >= side || centroid[1] >= side || fabsf(area) < 1e-6f)
                continue;
            float e1[3], e2[3], n[3];
            for (int k = 0; k < 3; k++) {
                e1[k] = xyz[1][k] - xyz[0][k];
                e2[k] = xyz[2][k] - xyz[0][k];
            }
            n[0] = e1[1] * e2[2] - e1[2] * e2[1];
            n[1] = e1[2] * e2[0] - e1[0] * e2[2];
            n[2] = e1[0] * e2[1] - e1[1] * e2[0];
            float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            if (!(len > 0.0f))
                continue;
            int x0 = (int)floorf(lo[0] + reach), x1 = (int)ceilf(hi[0] - reach);
            int y0 = (int)floorf(lo[1] + reach), y1 = (int)ceilf(hi[1] - reach);
            x0 = x0 < 0 ? 0 : x0;
            y0 = y0 < 0 ? 0 : y0;
            x1 = x1 > side - 1 ? side - 1 : x1;
            y1 = y1 > side - 1 ? side - 1 : y1;
            for (int y = y0; y <= y1; y++)
                for (int x = x0; x <= x1; x++) {
                    float q[2] = { x + 0.5f, y + 0.5f }, bary[3];
                    float d = triangle_distance((const float(*)[2])t, q, bary);
                    texel_surface *ts = &tex[y * side + x];
                    if (d < reach || d <= ts->best)
                        continue;
                    ts->best = d;
                    if (d < 0.0f) {
                        texel_onto_triangle((const float(*)[2])t, q);
                        triangle_distance((const float(*)[2])t, q, bary);
                    }
                    for (int k = 0; k < 3; k++) {
                        float local = bary[0] * xyz[0][k] + bary[1] * xyz[1][k] + bary[2] * xyz[2][k];
                        ts->pos[k] = local;
                        ts->normal[k] = n[k] / len;
                    }
                }
        }
    }
    for (int i = 0; i < side * side; i++) {
        if (tex[i].best == -INFINITY)
            continue;
        float p[3], sum[3] = { 0, 0, 0 }, one[3];
        light_direct_world(set, mc, tex[i].pos, p);
        for (size_t l = 0; l < set->count; l++) {
            light_direct_shadowed(set, &set->lights[l], p, tex[i].normal, one);
            for (int c = 0; c < 3; c++)
                sum[c] += one[c];
        }
        for (int c = 0; c < 3; c++)
            rgba[i * 4 + c] += sign * sum[c];
    }
    free(tex);
}
