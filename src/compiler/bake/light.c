/* light.c - describes a level to the baker (occluders, lights, luxel patches, vertices for fast
 * lights, probes for cube lighting) and indexes what comes back for the chunk writer. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/order.h"
#include "base/pmf_budget.h"
#include "chunks/chunks.h"
#include "common/memory.h"
#include "light.h"
#include "pmf/pmf_map_info.h"
#include "relight/relight.h"

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

/* Reflectivity, by the game the map came from (docs/pmfc-lighting.md "Bounced light"). pmfc's own
 * maps: a texel of byte value c reflects c / 255, what the rendering equation multiplies light by
 * there. GoldSrc maps: hlrad's (VHLT / SDHLT) default, HLRAD_REFLECT_SCALE x (c / 255)^
 * HLRAD_REFLECT_GAMMA, the texel taken back to linear light as the game shows it and scaled down
 * (its texreflectgamma, texreflectscale); a texture found nowhere reflects what hlrad gives one,
 * mid grey. Quake maps: ericw-tools light's default bounce colour, grey 127 whatever the texture
 * (its bouncecolorscale 0, bouncescale 1). */
#define HLRAD_REFLECT_GAMMA 1.76
#define HLRAD_REFLECT_SCALE 0.7
#define HLRAD_MISSING_GREY 128.0
#define ERICW_BOUNCE_GREY 127.0

static double texel_reflectivity(const map_def *map, double byte_value)
{
    if (map->look == PMF_LOOK_GOLDSRC) return HLRAD_REFLECT_SCALE * pow(byte_value / 255.0, HLRAD_REFLECT_GAMMA);
    return byte_value / 255.0;
}

/* The share of light a material reflects diffusely: colour / 255 x shading / 255 x its texture's
 * reflectivity, the mean over the texels that are not holes (alpha < 128) of texel_reflectivity
 * (a texture found in no WAD, a stand-in: hlrad's missing grey; untextured, or a texture that is
 * not the map's own: white's; a Quake map: ericw-tools' grey). */
static void material_albedo(const map_def *map, const material_def *m, float out[3])
{
    double white = texel_reflectivity(map, 255), mean[3] = { white, white, white };
    const char *prefix = "map:textures/";
    if (map->look == PMF_LOOK_QUAKE)
        for (int c = 0; c < 3; c++) mean[c] = ERICW_BOUNCE_GREY / 255.0;
    else if (!strncmp(m->texture, prefix, strlen(prefix)))
        for (size_t t = 0; t < map->texture_count; t++) {
            const texture_def *tex = &map->textures[t];
            if (strcmp(tex->name, m->texture + strlen(prefix)) || !tex->rgba) continue;
            if (tex->standin) {
                for (int c = 0; c < 3; c++) mean[c] = texel_reflectivity(map, HLRAD_MISSING_GREY);
                break;
            }
            double sum[3] = { 0, 0, 0 };
            size_t texels = (size_t)tex->width * tex->height, solid = 0;
            for (size_t k = 0; k < texels; k++) {
                const uint8_t *px = tex->rgba + k * 4;
                if (px[3] < 128) continue;
                for (int c = 0; c < 3; c++) sum[c] += texel_reflectivity(map, px[c]);
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

/* ---- light groups ------------------------------------------------------------------------- */

/* Dynamic lights that share an ID are one light of the chunks (a game's style, editor_lights.c):
 * the first of them carries the group's layers and probe references. When the members' colours
 * differ, the group's colour is white and each member's light is scaled by its own colour. */
static void find_groups(level_light *ll, const level_def *def, uint8_t (*scale)[3])
{
    size_t n = def->light_count ? def->light_count : 1;
    ll->group = xmalloc(n * sizeof *ll->group);
    ll->group_color = xmalloc(n * sizeof *ll->group_color);
    bool *mixed = xcalloc(n, sizeof *mixed);
    for (size_t i = 0; i < def->light_count; i++) {
        const light_def *l = &def->lights[i];
        ll->group[i] = (uint32_t)i;
        for (size_t j = 0; l->kind == BAKE_LIGHT_DYNAMIC && j < i; j++)
            if (def->lights[j].kind == BAKE_LIGHT_DYNAMIC && def->lights[j].id == l->id) {
                ll->group[i] = ll->group[j];
                mixed[ll->group[j]] |= memcmp(def->lights[ll->group[j]].color, l->color, 3) != 0;
                break;
            }
    }
    for (size_t i = 0; i < def->light_count; i++) {
        bool white = mixed[ll->group[i]];
        memcpy(ll->group_color[i], white ? (const uint8_t[3]){ 255, 255, 255 } : def->lights[ll->group[i]].color, 3);
        memcpy(scale[i], white ? def->lights[i].color : (const uint8_t[3]){ 255, 255, 255 }, 3);
    }
    xfree(mixed);
}

static unsigned scaled(uint8_t value, uint8_t scale)
{
    return ((unsigned)value * scale + 127) / 255;
}

typedef struct layer_key { uint32_t group, lightmap, index; } layer_key;

static int compare_layer_key(const void *a, const void *b)
{
    const layer_key *x = a, *y = b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    if (x->lightmap != y->lightmap) return x->lightmap < y->lightmap ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* The members' layers res->layers[keys[0, count)] (one group, one lightmap of `side` luxels a side)
 * summed into sum[] (RGB luxels). Each member's scaling is a table per channel, and what it does
 * not reach is skipped: a member only inside its box (bake_result.layer_boxes), and there eight
 * luxels at a time where it is 0. A level with many switchable lights sums layers of whole
 * lightmaps, on every compile and relight. */
static void sum_members(const level_light *ll, const layer_key *keys, size_t count, const uint8_t (*scale)[3],
                        size_t side, uint16_t *sum)
{
    uint8_t table[3][256];
    for (size_t m = 0; m < count; m++) {
        const bake_layer *src = &ll->res.layers[keys[m].index];
        const uint32_t whole[4] = { 0, 0, (uint32_t)side, (uint32_t)side };
        const uint32_t *box = ll->res.layer_boxes ? ll->res.layer_boxes[keys[m].index] : whole;
        for (int c = 0; c < 3; c++)
            for (unsigned v = 0; v < 256; v++) table[c][v] = (uint8_t)scaled((uint8_t)v, scale[src->light][c]);
        for (size_t y = box[1]; y < box[3] && box[0] < box[2]; y++) {
            size_t row = y * side * 3, bytes = row + (size_t)box[2] * 3;
            for (size_t k = row + (size_t)box[0] * 3; k < bytes; k += 24) {
                size_t end = k + 24 < bytes ? k + 24 : bytes;
                uint64_t words[3] = { 0 };
                memcpy(words, src->luxels + k, end - k);
                if (!(words[0] | words[1] | words[2]))
                    continue;
                for (size_t at = k; at < end; at++) {
                    unsigned v = sum[at] + table[(at - row) % 3][src->luxels[at]];
                    sum[at] = (uint16_t)(v > UINT16_MAX ? UINT16_MAX : v);
                }
            }
        }
    }
}

/* One layer per group and lightmap, the members' layers summed into the first's; where the sum
 * passes a byte, more layers of the group's ID hold the rest (up to GROUP_LAYERS_MAX in all:
 * the group's light then reaches what its members' did alone). */
static void merge_group_layers(level_light *ll, const uint8_t (*scale)[3])
{
    bake_result *res = &ll->res;
    size_t n = res->layer_count, kept = 0;
    layer_key *keys = xmalloc((n ? n : 1) * sizeof *keys);
    bake_layer *merged = xmalloc((n ? n : 1) * sizeof *merged);
    for (size_t i = 0; i < n; i++) keys[i] = (layer_key){ ll->group[res->layers[i].light], res->layers[i].lightmap, (uint32_t)i };
    order_sort(keys, n, sizeof *keys, compare_layer_key);
    for (size_t s = 0, e = 0; s < n; s = e) {
        while (e < n && keys[e].group == keys[s].group && keys[e].lightmap == keys[s].lightmap) e++;
        bake_layer first = res->layers[keys[s].index];
        if (e - s == 1 && !memcmp(scale[first.light], (const uint8_t[3]){ 255, 255, 255 }, 3)) {
            merged[kept++] = (bake_layer){ keys[s].group, first.lightmap, first.luxels }; /* its own sum */
            continue;
        }
        size_t bytes = (size_t)3 << (2 * ll->lightmap_exp[first.lightmap]);
        uint16_t *sum = xcalloc(bytes, sizeof *sum);
        sum_members(ll, keys + s, e - s, scale, (size_t)1 << ll->lightmap_exp[first.lightmap], sum);
        unsigned most = 0;
        for (size_t k = 0; k < bytes; k++) most = sum[k] > most ? sum[k] : most;
        /* a run of m members gives at most m layers: merged[] never outgrows res->layers */
        size_t layers = most > 255 ? (most + 254) / 255 : 1;
        if (layers > GROUP_LAYERS_MAX) layers = GROUP_LAYERS_MAX;
        for (size_t m = s + 1; m < e; m++) pmf_budget_free(res->layers[keys[m].index].luxels);
        for (size_t j = 0; j < layers; j++) {
            uint8_t *luxels = j ? xmalloc(bytes) : first.luxels;
            for (size_t k = 0; k < bytes; k++) {
                int rest = (int)sum[k] - 255 * (int)j;
                luxels[k] = (uint8_t)(rest < 0 ? 0 : rest > 255 ? 255 : rest);
            }
            merged[kept++] = (bake_layer){ keys[s].group + (uint32_t)(j * ll->light_count), first.lightmap, luxels };
        }
        xfree(sum);
    }
    if (kept) memcpy(res->layers, merged, kept * sizeof *merged);
    res->layer_count = kept;
    pmf_budget_free(res->layer_boxes); /* the bake's layers' */
    res->layer_boxes = NULL;
    xfree(merged);
    xfree(keys);
}

/* One reference per group in each probe, the members' amounts summed (saturating; a group of
 * mixed colours counts each member's mean channel). */
static void merge_group_probes(level_light *ll, const uint8_t (*scale)[3], size_t probe_count)
{
    for (size_t p = 0; p < probe_count; p++) {
        bake_probe_result *pr = &ll->res.probes[p];
        uint32_t kept = 0;
        for (uint32_t r = 0; r < pr->ref_count; r++) {
            bake_light_ref ref = pr->refs[r];
            const uint8_t *c = scale[ref.light];
            uint8_t mean = (uint8_t)(((unsigned)c[0] + c[1] + c[2] + 1) / 3);
            ref.light = ll->group[ref.light];
            uint32_t k = 0;
            while (k < kept && pr->refs[k].light != ref.light) k++;
            if (k == kept) pr->refs[kept++] = (bake_light_ref){ ref.light, 0 };
            unsigned amount = pr->refs[k].amount + scaled(ref.amount, mean);
            pr->refs[k].amount = (uint8_t)(amount > 255 ? 255 : amount);
        }
        pr->ref_count = kept;
    }
}

static void group_lights(level_light *ll, const level_def *def, size_t probe_count)
{
    uint8_t (*scale)[3] = xmalloc((def->light_count ? def->light_count : 1) * sizeof *scale);
    find_groups(ll, def, scale);
    merge_group_layers(ll, (const uint8_t (*)[3])scale);
    merge_group_probes(ll, (const uint8_t (*)[3])scale, probe_count);
    xfree(scale);
}

/* What level_bake hands the baker (positions less the baker's frame), freed once it has run. */
typedef struct bake_input {
    v3 frame;
    uint32_t *light_ids;                         /* the baker's light -> the level's */
    bake_light *lights; size_t light_count;
    size_t fast_count;
    bake_lightmap *lightmaps; size_t lightmap_count;
    bake_patch *patches; size_t patch_count;
    bake_vertex *vertices; size_t vertex_count;  /* NULL without fast lights */
    bake_probe *probes; size_t probe_count;
    float (*tris)[9]; size_t tri_count; uint32_t *tri_faces;
    float (*sky)[9]; size_t sky_count;
} bake_input;

static void bake_input_free(bake_input *in)
{
    xfree(in->light_ids);
    xfree(in->lights);
    xfree(in->lightmaps);
    xfree(in->patches);
    xfree(in->vertices);
    xfree(in->probes);
    xfree(in->tris);
    xfree(in->tri_faces);
    xfree(in->sky);
}

/* The lights: all of them, or (in a tile) those reaching it; the baker numbers them from 0. */
static void describe_lights(const level_build *lb, level_light *ll, bake_input *in)
{
    const level_def *def = lb->def;
    v3 tlo, thi;
    tile_box(lb, &tlo, &thi);
    in->light_ids = xmalloc((def->light_count ? def->light_count : 1) * sizeof *in->light_ids);
    for (size_t i = 0; i < def->light_count; i++)
        if (!lb->tiled || light_reaches(&def->lights[i], tlo, thi)) in->light_ids[in->light_count++] = (uint32_t)i;
    in->lights = xcalloc(in->light_count ? in->light_count : 1, sizeof *in->lights);
    ll->fast_ordinal = xmalloc((def->light_count ? def->light_count : 1) * sizeof *ll->fast_ordinal);
    for (size_t i = 0; i < def->light_count; i++) ll->fast_ordinal[i] = -1;
    for (size_t i = 0; i < in->light_count; i++) {
        const light_def *l = &def->lights[in->light_ids[i]];
        bake_light *bl = &in->lights[i];
        bl->kind = l->kind;
        for (int a = 0; a < 3; a++) {
            bl->position[a] = (float)(l->pos.e[a] - in->frame.e[a]);
            bl->color[a] = l->color[a] / 255.0f;
            bl->direction[a] = (float)l->direction.e[a];
        }
        bl->intensity = l->brightness;
        bl->range = l->range;
        bl->shape = l->shape;
        bl->cos_inner = l->cos_inner;
        bl->cos_outer = l->cos_outer;
        bl->radius = l->radius;
        bl->falloff = l->falloff;
        bl->cone = l->cone;
        bl->falloff_distance = l->falloff_distance;
        bl->anglescale = l->anglescale;
        bl->no_dirt = l->no_dirt;
        if (l->kind == BAKE_LIGHT_FAST) ll->fast_ordinal[in->light_ids[i]] = (int32_t)in->fast_count++;
    }
    ll->light_count = def->light_count;
}

/* Each chunk's first lightmap, vertex and probe in the level's lists, and their counts. */
static void count_surfaces(level_build *lb, level_light *ll, bake_input *in)
{
    size_t nchunks = level_chunk_count(lb);
    ll->probe_base = xmalloc(nchunks * sizeof *ll->probe_base);
    for (size_t c = 0; c < nchunks; c++) {
        chunk_build *cb = &lb->chunks[c];
        cb->bake_lightmap_base = (uint32_t)in->lightmap_count;
        cb->bake_vertex_base = (uint32_t)in->vertex_count;
        ll->probe_base[c] = (uint32_t)in->probe_count;
        in->lightmap_count += cb->lightmap_count;
        in->vertex_count += cb->vert_count;
        for (size_t i = 0; i < cb->face_count; i++)
            in->patch_count += cb->faces[i].lightmap != PMF_NO_LIGHTMAP && !cb->faces[i].prelit;
        for (uint32_t i = 0; i < cb->cube_count; i++) in->probe_count += cb->info[i].probe;
    }
}

/* The chunk face's box in its block's luxels (bake_patch.face_lo). */
static void face_box(const chunk_face *cf, bake_patch *bp)
{
    for (int k = 0; k < 2; k++) {
        bp->face_lo[k] = 1e30f;
        bp->face_hi[k] = -1e30f;
    }
    for (int i = 0; i < cf->n; i++) {
        v3 d = v3_sub(cf->p[i], cf->lm_origin);
        float at[2] = { (float)(v3_dot(d, cf->lm_t) * cf->lm_density), (float)(v3_dot(d, cf->lm_b) * cf->lm_density) };
        for (int k = 0; k < 2; k++) {
            bp->face_lo[k] = fminf(bp->face_lo[k], at[k]);
            bp->face_hi[k] = fmaxf(bp->face_hi[k], at[k]);
        }
    }
}

/* The luxel patch of a chunk face (its block on the bake lightmap list). */
static void describe_patch(const level_build *lb, const chunk_build *cb, const chunk_face *cf, v3 frame,
                           const smooth_normals *smooth, const float albedo[3], bake_patch *bp)
{
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
    bp->seed = cf->lm_seed;
    face_box(cf, bp);
    if (smooth) smooth_patch(lb, smooth, cf, bp);
    memcpy(bp->albedo, albedo, sizeof bp->albedo);
    bp->surface = (uint32_t)cf->face;
    bp->two_sided = lb->def->liquids_two_sided && (lb->map->materials[lb->faces[cf->face].material].flags & PMF_MATERIAL_LIQUID);
    int b = lb->faces[cf->face].brush;
    if (b >= 0 && (size_t)b < lb->def->brush_count) memcpy(bp->minlight, lb->def->brushes[b].minlight, sizeof bp->minlight);
}

/* Lightmaps, patches, vertices (for fast lights) and probes of every chunk. */
static void describe_surfaces(level_build *lb, bake_input *in)
{
    in->lightmaps = xcalloc(in->lightmap_count ? in->lightmap_count : 1, sizeof *in->lightmaps);
    in->patches = xcalloc(in->patch_count ? in->patch_count : 1, sizeof *in->patches);
    in->vertices = in->fast_count ? xcalloc(in->vertex_count ? in->vertex_count : 1, sizeof *in->vertices) : NULL;
    in->probes = xcalloc(in->probe_count ? in->probe_count : 1, sizeof *in->probes);
    smooth_normals *smooth = level_smooth_normals(lb);
    float (*albedo)[3] = xmalloc((lb->map->material_count ? lb->map->material_count : 1) * sizeof *albedo);
    for (size_t i = 0; i < lb->map->material_count; i++) material_albedo(lb->map, &lb->map->materials[i], albedo[i]);
    for (size_t i = 0; i < lb->map->material_count && lb->def->bounce_albedo > 0; i++)
        albedo[i][0] = albedo[i][1] = albedo[i][2] = lb->def->bounce_albedo;
    size_t p = 0, q = 0;
    v3 frame = in->frame;
    for (size_t c = 0; c < level_chunk_count(lb); c++) {
        chunk_build *cb = &lb->chunks[c];
        for (int i = 0; i < cb->lightmap_count; i++)
            in->lightmaps[cb->bake_lightmap_base + i] = (bake_lightmap){ cb->lightmaps[i].size_exp, cb->lightmaps[i].luxels };
        for (size_t i = 0; i < cb->face_count; i++) {
            const chunk_face *cf = &cb->faces[i];
            if (cf->lightmap != PMF_NO_LIGHTMAP && !cf->prelit)
                describe_patch(lb, cb, cf, frame, smooth, albedo[lb->faces[cf->face].material], &in->patches[p++]);
        }
        for (uint32_t i = 0; in->vertices && i < cb->vert_count; i++)
            for (int a = 0; a < 3; a++) {
                bake_vertex *v = &in->vertices[cb->bake_vertex_base + i];
                v->position[a] = (float)(cb->verts[i].xyz[a] + cb->centre.e[a] - frame.e[a]);
                v->normal[a] = cb->normals[i][a];
            }
        for (uint32_t i = 0; i < cb->cube_count; i++) {
            if (!cb->info[i].probe) continue;
            for (int a = 0; a < 3; a++) {
                in->probes[q].min[a] = (float)(cb->info[i].lo.e[a] - frame.e[a]);
                in->probes[q].max[a] = (float)(cb->info[i].hi.e[a] - frame.e[a]);
            }
            q++;
        }
    }
    smooth_normals_free(smooth);
    xfree(albedo);
}

/* Open sky, fan-triangulated. */
static void describe_sky(const level_build *lb, bake_input *in)
{
    for (size_t i = 0; i < lb->sky_face_count; i++) in->sky_count += (size_t)lb->sky_faces[i].n - 2;
    in->sky = xmalloc((in->sky_count ? in->sky_count : 1) * sizeof *in->sky);
    size_t st = 0;
    for (size_t i = 0; i < lb->sky_face_count; i++) {
        const face *f = &lb->sky_faces[i];
        for (int k = 1; k + 1 < f->n; k++, st++) {
            const v3 *c[3] = { &f->p[0], &f->p[k], &f->p[k + 1] };
            for (int v = 0; v < 3; v++)
                for (int a = 0; a < 3; a++) in->sky[st][v * 3 + a] = (float)(c[v]->e[a] - in->frame.e[a]);
        }
    }
}

static bool run_baker(const level_build *lb, const bake_input *in, bake_result *res,
                      void (*progress)(void *, const char *, double), void *user)
{
    const level_def *def = lb->def;
    bake_desc desc = {
        .triangles = (const float (*)[9])in->tris, .triangle_count = in->tri_count,
        .sky_triangles = (const float (*)[9])in->sky, .sky_triangle_count = in->sky_count,
        .lights = in->lights, .light_count = in->light_count,
        .lightmaps = in->lightmaps, .lightmap_count = in->lightmap_count,
        .patches = in->patches, .patch_count = in->patch_count,
        .vertices = in->vertices, .vertex_count = in->vertices ? in->vertex_count : 0,
        .probes = in->probes, .probe_count = in->probe_count,
        .samples = def->samples,
        .dirt_distance = def->dirt_distance, .dirt_strength = def->dirt_strength, .ambient_no_dirt = def->ambient_no_dirt,
        .dome_samples = def->dome_samples,
        .triangle_surfaces = in->tri_faces, .bounces = lb->bounces,
        .threads = lb->threads,
        .progress = progress, .user = user,
    };
    desc.store_scale = def->store_scale;
    desc.store_gamma = def->store_gamma;
    desc.sky_faces_only = def->sky_faces_only;
    desc.ambient_floor = def->ambient_floor;
    desc.bounce_no_sky_loss = def->bounce_no_sky_loss;
    desc.static_bounce_only = lb->static_bounce_only;
    desc.old_bounce = lb->old_bounce;
    desc.bounce_cell = def->bounce_cell;
    memcpy(desc.ambient, def->ambient, sizeof desc.ambient);
    memcpy(desc.sky_light, def->sky_light, sizeof desc.sky_light);
    memcpy(desc.domes, def->sky_domes, sizeof desc.domes);
    /* with --cache (a level built whole): start from the earlier bake's sums, keep the new ones */
    relight_level *rl = lb->tiled ? NULL : lb->relight;
    bake_terms terms = { 0 };
    bake_relight from;
    desc.terms = rl ? &terms : NULL;
    desc.transport = rl ? &rl->transport : NULL;
    desc.trees = rl ? &rl->trees : NULL;
    desc.relight = rl ? relight_start(rl, &desc, &from) : NULL;
    bool ok = bake_run(&desc, res);
    if (ok && rl)
        relight_keep(rl, &desc, &terms, res);
    bake_terms_free(&terms);
    return ok;
}

/* The baker's light numbers in its layers and probe references back to the level's. */
static void level_light_numbers(level_light *ll, const bake_input *in)
{
    for (size_t i = 0; i < ll->res.layer_count; i++) ll->res.layers[i].light = in->light_ids[ll->res.layers[i].light];
    for (size_t i = 0; i < in->probe_count; i++)
        for (uint32_t r = 0; r < ll->res.probes[i].ref_count; r++)
            ll->res.probes[i].refs[r].light = in->light_ids[ll->res.probes[i].refs[r].light];
}

level_light *level_bake(level_build *lb, void (*progress)(void *, const char *, double), void *user)
{
    bake_input in = { .frame = bake_frame(lb) };
    in.tris = level_occluders(lb, in.frame, true, &in.tri_count, lb->bounces ? &in.tri_faces : NULL);
    level_light *ll = xcalloc(1, sizeof *ll);
    pthread_mutex_init(&ll->layers_lock, NULL);
    describe_lights(lb, ll, &in);
    count_surfaces(lb, ll, &in);
    describe_surfaces(lb, &in);
    describe_sky(lb, &in);
    bool ok = run_baker(lb, &in, &ll->res, progress, user);
    ll->vertex_count = in.vertices ? in.vertex_count : 0;
    ll->lightmap_count = in.lightmap_count;
    if (ok) {
        level_light_numbers(ll, &in);
        ll->lightmap_exp = xmalloc(ll->lightmap_count + 1);
        for (size_t c = 0; c < level_chunk_count(lb); c++)
            for (int i = 0; i < lb->chunks[c].lightmap_count; i++)
                ((uint8_t *)ll->lightmap_exp)[lb->chunks[c].bake_lightmap_base + i] = lb->chunks[c].lightmaps[i].size_exp;
        group_lights(ll, lb->def, in.probe_count);
    }
    bake_input_free(&in);
    if (!ok) {
        level_light_free(ll);
        return NULL;
    }
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
    xfree(ll->group);
    xfree(ll->group_color);
    pthread_mutex_destroy(&ll->layers_lock);
    xfree(ll);
}
