/* light.c - describes a level to the baker (occluders, lights, luxel patches, vertices for fast
 * lights, probes for cube lighting) and indexes what comes back for the chunk writer. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/pmf_budget.h"
#include "chunks/chunks.h"
#include "common/memory.h"
#include "light.h"

bool light_reaches(const light_def *l, v3 lo, v3 hi)
{
    if (l->shape == BAKE_SHAPE_SUN) return true;
    double d2 = 0;
    for (int a = 0; a < 3; a++) {
        double d = l->pos.e[a] < lo.e[a] ? lo.e[a] - l->pos.e[a] : l->pos.e[a] > hi.e[a] ? l->pos.e[a] - hi.e[a] : 0;
        d2 += d * d;
    }
    return d2 < (double)l->range * l->range;
}

/* Reflectivity: hlrad's (VHLT / SDHLT) default, docs/pmfc-lighting.md "Bounced light". A texel of
 * byte value c reflects REFLECT_SCALE x (c / 255)^REFLECT_GAMMA: the texture's colour taken back to
 * linear light as the game shows it (hlrad's texreflectgamma), scaled down because game textures
 * are painted brighter than the surfaces they show (its texreflectscale). A texture found nowhere
 * reflects what hlrad gives one: mid grey (128) through the same curve, about 0.21. */
#define REFLECT_GAMMA 1.76
#define REFLECT_SCALE 0.7
#define STANDIN_GREY 128.0

static double texel_reflectivity(double byte_value)
{
    return REFLECT_SCALE * pow(byte_value / 255.0, REFLECT_GAMMA);
}

/* The share of light a material reflects diffusely: colour / 255 x shading / 255 x its texture's
 * reflectivity, the mean over the texels that are not holes (alpha < 128) of texel_reflectivity
 * (a texture found in no WAD, a stand-in: mid grey's; untextured, or a texture that is not the
 * map's own: white's). */
static void material_albedo(const map_def *map, const material_def *m, float out[3])
{
    double mean[3] = { texel_reflectivity(255), texel_reflectivity(255), texel_reflectivity(255) };
    const char *prefix = "map:textures/";
    if (!strncmp(m->texture, prefix, strlen(prefix)))
        for (size_t t = 0; t < map->texture_count; t++) {
            const texture_def *tex = &map->textures[t];
            if (strcmp(tex->name, m->texture + strlen(prefix)) || !tex->rgba) continue;
            if (tex->standin) {
                for (int c = 0; c < 3; c++) mean[c] = texel_reflectivity(STANDIN_GREY);
                break;
            }
            double sum[3] = { 0, 0, 0 };
            size_t texels = (size_t)tex->width * tex->height, solid = 0;
            for (size_t k = 0; k < texels; k++) {
                const uint8_t *px = tex->rgba + k * 4;
                if (px[3] < 128) continue;
                for (int c = 0; c < 3; c++) sum[c] += texel_reflectivity(px[c]);
                solid++;
            }
            for (int c = 0; c < 3; c++) mean[c] = solid ? sum[c] / (double)solid : 0;
            break;
        }
    for (int c = 0; c < 3; c++) out[c] = (float)(m->color[c] / 255.0 * mean[c] * (m->shading / 255.0));
}

/* The box of the window's chunks outside its margin. */
static void tile_box(const level_build *lb, v3 *lo, v3 *hi)
{
    *lo = v3_make(1e30, 1e30, 1e30);
    *hi = v3_make(-1e30, -1e30, -1e30);
    double h = lb->S / 2;
    for (size_t c = 0; c < level_chunk_count(lb); c++) {
        const chunk_build *cb = &lb->chunks[c];
        if (cb->margin) continue;
        for (int a = 0; a < 3; a++) {
            lo->e[a] = fmin(lo->e[a], cb->centre.e[a] - h);
            hi->e[a] = fmax(hi->e[a], cb->centre.e[a] + h);
        }
    }
}

#define BAKE_FRAME_NEAR 4096.0     /* metres: a grid within this of the origin bakes in world coordinates */

/* The baker's frame (positions go to it less this): the world's for a grid near the origin, else
 * the centre of the grid's middle chunk, so that a level moved by whole chunks far out (or built
 * tile by tile) gives the baker the same floats and bakes the same bytes. Far from the origin
 * floats are coarse, and sampled shadows would show their rounding. */
static v3 bake_frame(const level_build *lb)
{
    uint32_t n[3] = { lb->nx, lb->ny, lb->nz }, c[3] = { lb->centre_chunk.x, lb->centre_chunk.y, lb->centre_chunk.z };
    v3 frame = v3_make(0, 0, 0);
    bool near = true;
    for (int a = 0; a < 3; a++) {
        near = near && ((double)c[a] + 1) * lb->S <= BAKE_FRAME_NEAR && ((double)(n[a] - c[a])) * lb->S <= BAKE_FRAME_NEAR;
        frame.e[a] = ((double)(n[a] / 2) - (double)c[a]) * lb->S;
    }
    return near ? v3_make(0, 0, 0) : frame;
}

level_light *level_bake(level_build *lb, void (*progress)(void *, const char *, double), void *user)
{
    v3 frame = bake_frame(lb);
    size_t tri_count;
    uint32_t *tri_faces = NULL;
    float (*tris)[9] = level_occluders(lb, frame, true, &tri_count, lb->bounces ? &tri_faces : NULL);
    const level_def *def = lb->def;
    size_t nchunks = level_chunk_count(lb);
    level_light *ll = xcalloc(1, sizeof *ll);
    pthread_mutex_init(&ll->layers_lock, NULL);

    /* the lights: all of them, or (in a tile) those reaching it; the baker numbers them from 0 */
    v3 tlo, thi;
    tile_box(lb, &tlo, &thi);
    uint32_t *light_ids = xmalloc((def->light_count ? def->light_count : 1) * sizeof *light_ids);
    size_t light_count = 0;
    for (size_t i = 0; i < def->light_count; i++)
        if (!lb->tiled || light_reaches(&def->lights[i], tlo, thi)) light_ids[light_count++] = (uint32_t)i;
    bake_light *lights = xcalloc(light_count ? light_count : 1, sizeof *lights);
    ll->fast_ordinal = xmalloc((def->light_count ? def->light_count : 1) * sizeof *ll->fast_ordinal);
    for (size_t i = 0; i < def->light_count; i++) ll->fast_ordinal[i] = -1;
    uint32_t fast = 0;
    for (size_t i = 0; i < light_count; i++) {
        const light_def *l = &def->lights[light_ids[i]];
        lights[i].kind = l->kind;
        for (int a = 0; a < 3; a++) {
            lights[i].position[a] = (float)(l->pos.e[a] - frame.e[a]);
            lights[i].color[a] = l->color[a] / 255.0f;
        }
        lights[i].intensity = l->brightness;
        lights[i].range = l->range;
        lights[i].shape = l->shape;
        for (int a = 0; a < 3; a++) lights[i].direction[a] = (float)l->direction.e[a];
        lights[i].cos_inner = l->cos_inner;
        lights[i].cos_outer = l->cos_outer;
        lights[i].radius = l->radius;
        lights[i].falloff = l->falloff;
        lights[i].cone = l->cone;
        lights[i].falloff_distance = l->falloff_distance;
        lights[i].anglescale = l->anglescale;
        lights[i].no_dirt = l->no_dirt;
        if (l->kind == BAKE_LIGHT_FAST) ll->fast_ordinal[light_ids[i]] = (int32_t)fast++;
    }
    ll->light_count = def->light_count;

    /* lightmaps and patches */
    size_t lm_count = 0, patch_count = 0, vert_count = 0, probe_count = 0;
    ll->probe_base = xmalloc(nchunks * sizeof *ll->probe_base);
    for (size_t c = 0; c < nchunks; c++) {
        chunk_build *cb = &lb->chunks[c];
        cb->bake_lightmap_base = (uint32_t)lm_count;
        cb->bake_vertex_base = (uint32_t)vert_count;
        ll->probe_base[c] = (uint32_t)probe_count;
        lm_count += cb->lightmap_count;
        vert_count += cb->vert_count;
        for (size_t i = 0; i < cb->face_count; i++) patch_count += cb->faces[i].lightmap != PMF_NO_LIGHTMAP && !cb->faces[i].prelit;
        for (uint32_t i = 0; i < cb->cube_count; i++) probe_count += cb->info[i].probe;
    }
    bake_lightmap *lms = xcalloc(lm_count ? lm_count : 1, sizeof *lms);
    bake_patch *patches = xcalloc(patch_count ? patch_count : 1, sizeof *patches);
    bake_vertex *verts = fast ? xcalloc(vert_count ? vert_count : 1, sizeof *verts) : NULL;
    bake_probe *probes = xcalloc(probe_count ? probe_count : 1, sizeof *probes);
    smooth_normals *smooth = level_smooth_normals(lb);
    float (*albedo)[3] = xmalloc((lb->map->material_count ? lb->map->material_count : 1) * sizeof *albedo);
    for (size_t i = 0; i < lb->map->material_count; i++) material_albedo(lb->map, &lb->map->materials[i], albedo[i]);
    for (size_t i = 0; i < lb->map->material_count && lb->def->bounce_albedo > 0; i++)
        albedo[i][0] = albedo[i][1] = albedo[i][2] = lb->def->bounce_albedo;
    size_t p = 0, q = 0;
    for (size_t c = 0; c < nchunks; c++) {
        chunk_build *cb = &lb->chunks[c];
        for (int i = 0; i < cb->lightmap_count; i++) {
            lms[cb->bake_lightmap_base + i].size_exp = cb->lightmaps[i].size_exp;
            lms[cb->bake_lightmap_base + i].luxels = cb->lightmaps[i].luxels;
        }
        for (size_t i = 0; i < cb->face_count; i++) {
            const chunk_face *cf = &cb->faces[i];
            if (cf->lightmap == PMF_NO_LIGHTMAP || cf->prelit) continue;
            bake_patch *bp = &patches[p++];
            v3 n = lb->faces[cf->face].pl.n;
            for (int a = 0; a < 3; a++) {
                bp->origin[a] = (float)(cf->lm_origin.e[a] - frame.e[a]);
                bp->step_u[a] = (float)(cf->lm_t.e[a] / cf->lm_density);
                bp->step_v[a] = (float)(cf->lm_b.e[a] / cf->lm_density);
                bp->normal[a] = (float)n.e[a];
            }
            bp->lightmap = cb->bake_lightmap_base + cf->lightmap;
            bp->x = (uint16_t)cf->lm_x;
            bp->y = (uint16_t)cf->lm_y;
            bp->w = (uint16_t)cf->lm_w;
            bp->h = (uint16_t)cf->lm_h;
            if (smooth) smooth_patch(lb, smooth, cf, bp);
            memcpy(bp->albedo, albedo[lb->faces[cf->face].material], sizeof bp->albedo);
            bp->surface = (uint32_t)cf->face;
        }
        if (verts)
            for (uint32_t i = 0; i < cb->vert_count; i++)
                for (int a = 0; a < 3; a++) {
                    verts[cb->bake_vertex_base + i].position[a] = (float)(cb->verts[i].xyz[a] + cb->centre.e[a] - frame.e[a]);
                    verts[cb->bake_vertex_base + i].normal[a] = cb->normals[i][a];
                }
        for (uint32_t i = 0; i < cb->cube_count; i++) {
            if (!cb->info[i].probe) continue;
            for (int a = 0; a < 3; a++) {
                probes[q].min[a] = (float)(cb->info[i].lo.e[a] - frame.e[a]);
                probes[q].max[a] = (float)(cb->info[i].hi.e[a] - frame.e[a]);
            }
            q++;
        }
    }

    /* open sky, fan-triangulated */
    size_t sky_count = 0;
    for (size_t i = 0; i < lb->sky_face_count; i++) sky_count += (size_t)lb->sky_faces[i].n - 2;
    float (*sky)[9] = xmalloc((sky_count ? sky_count : 1) * sizeof *sky);
    size_t st = 0;
    for (size_t i = 0; i < lb->sky_face_count; i++) {
        const face *f = &lb->sky_faces[i];
        for (int k = 1; k + 1 < f->n; k++, st++) {
            const v3 *c[3] = { &f->p[0], &f->p[k], &f->p[k + 1] };
            for (int v = 0; v < 3; v++)
                for (int a = 0; a < 3; a++) sky[st][v * 3 + a] = (float)(c[v]->e[a] - frame.e[a]);
        }
    }

    smooth_normals_free(smooth);
    bake_desc desc = {
        .triangles = (const float (*)[9])tris, .triangle_count = tri_count,
        .sky_triangles = (const float (*)[9])sky, .sky_triangle_count = sky_count,
        .lights = lights, .light_count = light_count,
        .lightmaps = lms, .lightmap_count = lm_count,
        .patches = patches, .patch_count = patch_count,
        .vertices = verts, .vertex_count = verts ? vert_count : 0,
        .probes = probes, .probe_count = probe_count,
        .samples = def->samples,
        .dirt_distance = def->dirt_distance, .dirt_strength = def->dirt_strength, .ambient_no_dirt = def->ambient_no_dirt,
        .dome_samples = def->dome_samples,
        .triangle_surfaces = tri_faces, .bounces = lb->bounces,
        .threads = lb->threads,
        .progress = progress, .user = user,
    };
    desc.store_scale = def->store_scale;
    desc.store_gamma = def->store_gamma;
    desc.sky_faces_only = def->sky_faces_only;
    desc.bounce_no_sky_loss = def->bounce_no_sky_loss;
    desc.bounce_cell = def->bounce_cell;
    memcpy(desc.ambient, def->ambient, sizeof desc.ambient);
    memcpy(desc.sky_light, def->sky_light, sizeof desc.sky_light);
    memcpy(desc.domes, def->sky_domes, sizeof desc.domes);
    bool ok = bake_run(&desc, &ll->res);
    xfree(sky);
    xfree(tris);
    xfree(tri_faces);
    xfree(lights);
    xfree(lms);
    xfree(patches);
    xfree(verts);
    xfree(probes);
    xfree(albedo);
    if (!ok) {
        xfree(light_ids);
        level_light_free(ll);
        return NULL;
    }
    /* back to the level's light indices */
    for (size_t i = 0; i < ll->res.layer_count; i++) ll->res.layers[i].light = light_ids[ll->res.layers[i].light];
    for (size_t i = 0; i < probe_count; i++)
        for (uint32_t r = 0; r < ll->res.probes[i].ref_count; r++)
            ll->res.probes[i].refs[r].light = light_ids[ll->res.probes[i].refs[r].light];
    xfree(light_ids);
    ll->vertex_count = verts ? vert_count : 0;

    ll->lightmap_count = lm_count;
    ll->lightmap_exp = xmalloc(lm_count + 1);
    for (size_t c = 0; c < nchunks; c++)
        for (int i = 0; i < lb->chunks[c].lightmap_count; i++)
            ((uint8_t *)ll->lightmap_exp)[lb->chunks[c].bake_lightmap_base + i] = lb->chunks[c].lightmaps[i].size_exp;
    level_light_index_layers(ll);
    return ll;
}

/* Layers by lightmap, for the chunk writer. */
void level_light_index_layers(level_light *ll)
{
    size_t lm_count = ll->lightmap_count;
    xfree(ll->lm_layer_start);
    xfree(ll->layer_order);
    ll->lm_layer_start = xcalloc(lm_count + 1, sizeof *ll->lm_layer_start);
    ll->layer_order = xmalloc((ll->res.layer_count ? ll->res.layer_count : 1) * sizeof *ll->layer_order);
    for (size_t i = 0; i < ll->res.layer_count; i++) ll->lm_layer_start[ll->res.layers[i].lightmap + 1]++;
    for (size_t i = 0; i < lm_count; i++) ll->lm_layer_start[i + 1] += ll->lm_layer_start[i];
    uint32_t *fill = xmalloc((lm_count + 1) * sizeof *fill);
    memcpy(fill, ll->lm_layer_start, (lm_count + 1) * sizeof *fill);
    for (size_t i = 0; i < ll->res.layer_count; i++) ll->layer_order[fill[ll->res.layers[i].lightmap]++] = (uint32_t)i;
    xfree(fill);
}

uint8_t *level_light_layer(level_light *ll, uint32_t light, uint32_t lightmap, bool add)
{
    uint8_t *found = NULL;
    pthread_mutex_lock(&ll->layers_lock);
    for (size_t i = 0; i < ll->res.layer_count && !found; i++)
        if (ll->res.layers[i].light == light && ll->res.layers[i].lightmap == lightmap) found = ll->res.layers[i].luxels;
    if (!found && add && lightmap < ll->lightmap_count) {
        /* the baker's arrays: its budget, so that bake_result_free frees them */
        bake_layer *more = pmf_budget_realloc(ll->res.layers, (ll->res.layer_count + 1) * sizeof *more);
        uint8_t *luxels = pmf_budget_calloc((size_t)3 << (2 * ll->lightmap_exp[lightmap]), 1);
        if (more) ll->res.layers = more;
        if (more && luxels) {
            ll->res.layers[ll->res.layer_count++] = (bake_layer){ light, lightmap, luxels };
            found = luxels;
        } else {
            pmf_budget_free(luxels);
        }
    }
    pthread_mutex_unlock(&ll->layers_lock);
    return found;
}

void level_light_free(level_light *ll)
{
    if (!ll) return;
    bake_result_free(&ll->res);
    xfree(ll->fast_ordinal);
    xfree(ll->probe_base);
    xfree(ll->lm_layer_start);
    xfree(ll->layer_order);
    xfree((void *)ll->lightmap_exp);
    pthread_mutex_destroy(&ll->layers_lock);
    xfree(ll);
}
