/* bake_relight.c - what a relight starts from (bake.h, bake_terms and bake_relight): the luxels'
 * sums a bake keeps, the lights that differ from the earlier bake's, and the hash of everything
 * else a bake depends on, which must be the earlier bake's for its sums to hold. */
#include "bake_internal.h"
#include "base/pmf_budget.h"

#include <string.h>

/* A patch bake_run bakes: on a lightmap of at most 2^15 luxels a side that has luxels. */
static bool patch_baked(const bake_desc *desc, const bake_patch *patch)
{
    if (patch->lightmap >= desc->lightmap_count)
        return false;
    const bake_lightmap *lm = &desc->lightmaps[patch->lightmap];
    return lm->size_exp <= 15 && lm->luxels;
}

static size_t patch_luxels(const bake_desc *desc, const bake_patch *patch)
{
    if (!patch_baked(desc, patch))
        return 0;
    uint32_t side = 1u << desc->lightmaps[patch->lightmap].size_exp;
    size_t w = patch->x < side ? (side - patch->x < patch->w ? side - patch->x : patch->w) : 0;
    size_t h = patch->y < side ? (side - patch->y < patch->h ? side - patch->y : patch->h) : 0;
    return w * h;
}

bool bake_terms_plan(const bake_desc *desc, bake_terms *terms)
{
    bake_terms_free(terms);
    terms->patch_count = desc->patch_count;
    terms->patch_base = pmf_budget_malloc((desc->patch_count + 1) * sizeof *terms->patch_base);
    if (!terms->patch_base)
        return false;
    size_t luxels = 0;
    for (size_t p = 0; p < desc->patch_count; p++) {
        terms->patch_base[p] = (uint32_t)luxels;
        luxels += patch_luxels(desc, &desc->patches[p]);
    }
    terms->patch_base[desc->patch_count] = (uint32_t)luxels;
    terms->luxel_count = luxels;
    terms->luxels = pmf_budget_calloc(luxels + 1, sizeof *terms->luxels);
    const bake_terms *before = desc->relight ? desc->relight->terms : NULL;
    for (int d = 0; d < 2; d++) {
        const float *c = desc->domes[d].color;
        terms->domes[d] = (before && before->domes[d]) || c[0] > 0.0f || c[1] > 0.0f || c[2] > 0.0f;
    }
    const float *sky = desc->sky_light;
    terms->sky = (before && before->sky) || sky[0] > 0.0f || sky[1] > 0.0f || sky[2] > 0.0f;
    terms->probe_count = desc->probe_count;
    terms->probe_inputs = bake_probe_inputs(desc);
    terms->probe_base = desc->probe_count ? pmf_budget_calloc(desc->probe_count, sizeof *terms->probe_base) : NULL;
    return terms->luxels != NULL && (terms->probe_base || !desc->probe_count);
}

void bake_terms_free(bake_terms *terms)
{
    pmf_budget_free(terms->patch_base);
    pmf_budget_free(terms->luxels);
    pmf_budget_free(terms->probe_base);
    pmf_budget_free(terms->layer_keys);
    pmf_budget_free(terms->layer_base);
    pmf_budget_free(terms->layer_luxels);
    memset(terms, 0, sizeof *terms);
}

/* For each of `from`'s lights the one of `in` equal to it (each light of `in` matched once) into
 * match[], UINT32_MAX where none is. False when out of memory. */
static bool match_lights(const bake_light *from, size_t from_count, const bake_light *in, size_t in_count, uint32_t *match)
{
    uint8_t *taken = pmf_budget_calloc(in_count + 1, 1);
    if (!taken)
        return false;
    for (size_t i = 0, next = 0; i < from_count; i++) {
        /* most lights follow the one before in both lists (a light added or deleted shifts the
         * rest by one): look there first */
        size_t j = next < in_count && !taken[next] && !memcmp(&from[i], &in[next], sizeof *from) ? next : in_count;
        for (size_t k = 0; j == in_count && k < in_count; k++)
            if (!taken[k] && !memcmp(&from[i], &in[k], sizeof *from))
                j = k;
        match[i] = j < in_count ? (uint32_t)j : UINT32_MAX;
        if (j < in_count) {
            taken[j] = 1;
            next = j + 1;
        }
    }
    pmf_budget_free(taken);
    return true;
}

/* Which of `from`'s lights find no equal in `in` (match_lights): into *out. */
static bool unmatched(const bake_light *from, size_t from_count, const uint32_t *match, bake_light **out,
                      size_t *out_count)
{
    *out_count = 0;
    *out = pmf_budget_malloc((from_count + 1) * sizeof **out);
    if (!*out)
        return false;
    for (size_t i = 0; i < from_count; i++)
        if (match[i] == UINT32_MAX)
            (*out)[(*out_count)++] = from[i];
    return true;
}

bool bake_patch_kept(const bake_desc *desc, size_t index)
{
    const bake_relight *r = desc->relight;
    const bake_terms *t = r->terms;
    if (index >= t->patch_count)
        return false;
    /* the same luxels, wherever they lie in the lightmaps (their samples follow the patch's seed,
     * not their place: a chunk a dynamic light reaches takes smaller lightmaps), whole in both */
    const bake_patch *now = &desc->patches[index];
    bake_patch moved = r->patches[index];
    moved.lightmap = now->lightmap;
    moved.x = now->x;
    moved.y = now->y;
    size_t luxels = patch_luxels(desc, now);
    return !memcmp(&moved, now, sizeof moved) && luxels == (size_t)now->w * now->h &&
           t->patch_base[index + 1] - t->patch_base[index] == luxels;
}

bool bake_light_changes(const bake_desc *desc, uint32_t **earlier, bake_light **removed, size_t *removed_count,
                        bake_light **added, size_t *added_count)
{
    const bake_relight *r = desc->relight;
    uint32_t *later = pmf_budget_malloc((r->light_count + 1) * sizeof *later);
    *earlier = pmf_budget_malloc((desc->light_count + 1) * sizeof **earlier);
    bool ok = later && *earlier && match_lights(r->lights, r->light_count, desc->lights, desc->light_count, later) &&
              match_lights(desc->lights, desc->light_count, r->lights, r->light_count, *earlier) &&
              unmatched(r->lights, r->light_count, later, removed, removed_count) &&
              unmatched(desc->lights, desc->light_count, *earlier, added, added_count);
    pmf_budget_free(later);
    return ok;
}

uint64_t bake_hash_bytes(uint64_t h, const void *data, size_t size)
{
    const uint8_t *p = data;
    for (size_t i = 0; i < size; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

#define HASH_FIELD(h, v) bake_hash_bytes((h), &(v), sizeof(v))

uint64_t bake_geometry_hash(const bake_desc *desc)
{
    uint64_t h = 0xcbf29ce484222325ull;
    h = HASH_FIELD(h, desc->triangle_count);
    h = bake_hash_bytes(h, desc->triangles, desc->triangle_count * sizeof *desc->triangles);
    h = bake_hash_bytes(h, desc->triangle_surfaces, desc->triangle_surfaces ? desc->triangle_count * sizeof *desc->triangle_surfaces : 0);
    h = HASH_FIELD(h, desc->sky_triangle_count);
    h = bake_hash_bytes(h, desc->sky_triangles, desc->sky_triangle_count * sizeof *desc->sky_triangles);
    h = HASH_FIELD(h, desc->patch_count);
    /* a liquid's patch sums its lights from both sides and takes no dirt */
    for (size_t p = 0; p < desc->patch_count; p++)
        h = HASH_FIELD(h, desc->patches[p].two_sided);
    for (int d = 0; d < 2; d++) {
        h = HASH_FIELD(h, desc->domes[d].anglescale);
        h = HASH_FIELD(h, desc->domes[d].no_dirt);
    }
    float values[] = { desc->dirt_distance, desc->dirt_strength, desc->store_scale, desc->store_gamma };
    int settings[] = { desc->samples, desc->dome_samples, desc->bounce_cell, desc->bounces, desc->sky_faces_only,
                       desc->ambient_no_dirt, desc->bounce_no_sky_loss, desc->ambient_floor, desc->static_bounce_only };
    h = bake_hash_bytes(h, values, sizeof values);
    return bake_hash_bytes(h, settings, sizeof settings);
}

uint64_t bake_probe_inputs(const bake_desc *desc)
{
    uint64_t h = 0xcbf29ce484222325ull;
    h = HASH_FIELD(h, desc->probe_count);
    h = bake_hash_bytes(h, desc->probes, desc->probe_count * sizeof *desc->probes);
    h = bake_hash_bytes(h, desc->ambient, sizeof desc->ambient);
    for (int d = 0; d < 2; d++) {   /* field by field: a bool's padding is not the dome */
        h = bake_hash_bytes(h, desc->domes[d].color, sizeof desc->domes[d].color);
        h = HASH_FIELD(h, desc->domes[d].anglescale);
        h = HASH_FIELD(h, desc->domes[d].no_dirt);
    }
    return h;
}

uint64_t bake_trees_key(const bake_desc *desc)
{
    uint64_t h = 0xcbf29ce484222325ull;
    h = HASH_FIELD(h, desc->triangle_count);
    h = bake_hash_bytes(h, desc->triangles, desc->triangle_count * sizeof *desc->triangles);
    h = HASH_FIELD(h, desc->sky_triangle_count);
    h = bake_hash_bytes(h, desc->sky_triangles, desc->sky_triangle_count * sizeof *desc->sky_triangles);
    return h ? h : 1;
}

bool bake_trees_build(const bake_desc *desc, bvh *tree, bvh *sky_tree)
{
    bake_trees *kept = desc->trees;
    uint64_t key = kept ? bake_trees_key(desc) : 0;
    if (kept && kept->triangles != key) {
        bake_trees_free(kept);
        if (!bvh_build(desc->triangles, desc->triangle_count, desc->threads, &kept->tree) ||
            !bvh_build(desc->sky_triangles, desc->sky_triangle_count, desc->threads, &kept->sky_tree)) {
            bake_trees_free(kept);
            return false;
        }
        kept->triangles = key;
    }
    if (kept) {
        *tree = kept->tree;
        *sky_tree = kept->sky_tree;
        return true;
    }
    return bvh_build(desc->triangles, desc->triangle_count, desc->threads, tree) &&
           bvh_build(desc->sky_triangles, desc->sky_triangle_count, desc->threads, sky_tree);
}

void bake_trees_free(bake_trees *trees)
{
    bvh_free(&trees->tree);
    bvh_free(&trees->sky_tree);
    trees->triangles = 0;
}

void bake_transport_free(bake_transport *transport)
{
    pmf_budget_free(transport->hits);
    pmf_budget_free(transport->cell_open);
    pmf_budget_free(transport->cell_clear);
    pmf_budget_free(transport->cell_send);
    pmf_budget_free(transport->luxel_sees);
    pmf_budget_free(transport->indirect);
    pmf_budget_free(transport->direct);
    pmf_budget_free(transport->gathered);
    pmf_budget_free(transport->receiver_base);
    pmf_budget_free(transport->layer_keys);
    pmf_budget_free(transport->layer_base);
    pmf_budget_free(transport->layer_indirect);
    pmf_budget_free(transport->receivers);
    memset(transport, 0, sizeof *transport);
}
