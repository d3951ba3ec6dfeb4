/* mesh.c - turns a decoded chunk into GPU-ready buffers (see mesh.h for the layout). */
#include "mesh.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmf_budget.h"
#include "base/order.h"

/* Memory a mesh_chunk owns besides its arrays. */
typedef struct mesh_pools {
    uint8_t *luxels;             /* every block's and layer's padded luxels */
    uint32_t *vis_cubes;
    pmf_vis_chunk *vis_chunks;
    uint64_t charged;            /* bytes taken from the memory budget (pmf_budget.h) */
} mesh_pools;

/* A run of a cube's vertices drawn with one material and lightmap. */
typedef struct face_group {
    uint8_t material, lightmap;
    uint32_t first, count;       /* chunk vertices */
    bool quads;
} face_group;

/* One face group placed in the output vertex buffer. */
typedef struct piece {
    uint64_t key;                /* material << 17 | backfaces << 16 | page */
    uint32_t cube, batch;
    uint32_t source;             /* its first chunk vertex */
    uint32_t first_vertex, vertex_count;
    uint32_t colour;             /* lightmap 255: index of its cube's base colour */
    uint32_t block;              /* its lightmap's or base colour's atlas block */
    uint8_t material, lightmap;
    bool quads;
    bool lit;                    /* a fast light reaches one of its vertices */
    bool finite;                 /* all its positions and UVs are finite */
} piece;

#define WHITE 0xFFFFFFu

__attribute__((format(printf, 4, 5)))
static bool fail(char *err, size_t size, const pmf_chunk *ch, const char *fmt, ...)
{
    if (size) {
        int n = snprintf(err, size, "chunk (%u,%u,%u): ", ch->coord.x, ch->coord.y, ch->coord.z);
        if (n >= 0 && (size_t)n < size) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err + n, size - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return false;
}

/* The non-empty face groups of a geometry or extended geometry cube, in face order. */
static uint32_t cube_groups(const pmf_chunk *ch, uint32_t c, face_group g[PMF_FACE_COUNT])
{
    const pmf_cube *cube = &ch->common.cubes[c];
    const pmf_client_cube *cc = &ch->client.cubes[c];
    if (cube->type == PMF_CUBE_GEOMETRY) {
        uint32_t faces = (uint32_t)__builtin_popcount(cc->u.geom.face_mask & 0x3Fu);
        if (!faces)
            return 0;
        g[0] = (face_group){ cube->u.geom.material, cc->u.geom.lightmap, cc->u.geom.first_vertex, faces * 4, true };
        return 1;
    }
    if (cube->type != PMF_CUBE_EXTGEOMETRY)
        return 0;
    uint32_t n = 0, first = cc->u.ext.first_vertex;
    for (int f = 0; f < PMF_FACE_COUNT; f++) {
        uint32_t count = cc->u.ext.tri_count[f] * 3u;
        if (count)
            g[n++] = (face_group){ cube->u.ext.material[f], cc->u.ext.lightmap[f], first, count, false };
        first += count;
    }
    return n;
}

static uint32_t base_colour(const pmf_chunk *ch, uint32_t c)
{
    if (!(ch->common.cubes[c].flags & PMF_CUBE_HAS_LIGHTING))
        return WHITE;
    const uint8_t *b = ch->client.cubes[c].lighting.base;
    return (uint32_t)b[0] << 16 | (uint32_t)b[1] << 8 | b[2];
}

/* Open-addressing set of keys (base colours, batch keys) -> their index in first-use order. */
typedef struct key_set { uint32_t *slots; uint32_t mask, count; uint64_t *keys; } key_set;

/* Room for `most` keys at half load at most. */
static bool key_set_init(key_set *s, uint32_t most)
{
    uint32_t cap = 8;
    while (cap < 2 * most)
        cap *= 2;
    *s = (key_set){ calloc(cap, sizeof *s->slots), cap - 1, 0, malloc(((size_t)most + 1) * sizeof *s->keys) };
    return s->slots && s->keys;
}

static uint32_t key_find_or_add(key_set *s, uint64_t key)
{
    uint32_t h = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & s->mask;
    for (;; h = (h + 1) & s->mask) {
        if (s->slots[h] == 0) {
            s->slots[h] = s->count + 1;
            s->keys[s->count] = key;
            return s->count++;
        }
        if (s->keys[s->slots[h] - 1] == key)
            return s->slots[h] - 1;
    }
}

static void key_set_free(key_set *s)
{
    free(s->slots);
    free(s->keys);
}

/* Copies a side×side RGB lightmap into a (side + 2 border)^2 block, edges repeated. */
static void pad_luxels(const uint8_t *src, uint32_t side, uint32_t border, uint8_t *dst)
{
    uint32_t b = side + 2 * border;
    for (uint32_t r = 0; r < b; r++) {
        uint32_t sr = r < border ? 0 : r - border >= side ? side - 1 : r - border;
        const uint8_t *s = src + (size_t)sr * side * 3;
        uint8_t *d = dst + (size_t)r * b * 3;
        memcpy(d + border * 3, s, (size_t)side * 3);
        if (border) {
            memcpy(d, s, 3);
            memcpy(d + (size_t)(side + 1) * 3, s + (size_t)(side - 1) * 3, 3);
        }
    }
}

/* texel >= 0 (an atlas position) */
static uint16_t lm_coord(float texel, float scale)
{
    float v = texel * scale + 0.5f;
    return (uint16_t)(v < 65535.0f ? v : 65535.0f);
}

static float clamp01(float v)
{
    v = v > 0.0f ? v : 0.0f;   /* NaN: 0 */
    return v < 1.0f ? v : 1.0f;
}

/* Walks a fast light's ranges (conventions §3): into mult[] and/or the vertices' slots. */
static void fast_walk(const pmf_client_fast_light *light, uint32_t vertex_count, uint8_t *mult,
                      mesh_fast_vertex *slots, uint8_t index)
{
    uint64_t cursor = 0;
    for (uint32_t r = 0; r < light->range_count && cursor < vertex_count; r++) {
        const pmf_fast_range *range = &light->ranges[r];
        cursor += range->skip;
        uint64_t end = cursor + range->count;
        if (end > vertex_count)
            end = vertex_count;
        for (uint64_t v = cursor; v < end; v++) {
            uint8_t m = range->multipliers[v - cursor];
            if (mult)
                mult[v] = m;
            if (!slots || !m)
                continue;
            /* keep the 4 largest; on equal multipliers the lower light index stays */
            mesh_fast_vertex *fv = &slots[v];
            int weakest = -1;
            for (int i = 0; i < MESH_FAST_SLOTS; i++) {
                if (fv->slot[i] == MESH_FAST_UNUSED) {
                    weakest = i;
                    break;
                }
                if (weakest < 0 || fv->mult[i] < fv->mult[weakest] ||
                    (fv->mult[i] == fv->mult[weakest] && fv->slot[i] > fv->slot[weakest]))
                    weakest = i;
            }
            if (fv->slot[weakest] == MESH_FAST_UNUSED || m > fv->mult[weakest]) {
                fv->slot[weakest] = index;
                fv->mult[weakest] = m;
            }
        }
        cursor += range->count;
    }
}

void mesh_fast_multipliers(const pmf_client_fast_light *light, uint32_t vertex_count, uint8_t *out)
{
    memset(out, 0, vertex_count);
    fast_walk(light, vertex_count, out, NULL, 0);
}

void mesh_chunk_free(mesh_chunk *mc)
{
    if (!mc)
        return;
    for (uint32_t i = 0; i < mc->block_count; i++)
        mesh_atlas_free(mc->atlas, &mc->blocks[i].rect);
    mesh_pools *pools = mc->mem_;
    if (pools) {
        free(pools->luxels);
        free(pools->vis_cubes);
        free(pools->vis_chunks);
        pmf_budget_give(pools->charged);
        free(pools);
    }
    free(mc->vertices);
    free(mc->sources);
    free(mc->fast);
    free(mc->indices);
    free(mc->batches);
    free(mc->runs);
    free(mc->cubes);
    free(mc->cube_runs);
    free(mc->tree);
    free(mc->reachable_bits);
    free(mc->run_bits);
    free(mc->blocks);
    free(mc->layers);
    free(mc->dynamic_lights);
    free(mc->fast_lights);
    free(mc->vis);
    memset(mc, 0, sizeof *mc);
}

/* Marks the tree of cube 0 and copies child links. */
static bool build_tree(const pmf_chunk *ch, mesh_chunk *mc, char *err, size_t n)
{
    uint32_t count = ch->common.cube_count;
    uint32_t *stack = malloc(count * sizeof *stack);
    if (!stack)
        return fail(err, n, ch, "out of memory");
    uint32_t top = 0;
    stack[top++] = 0;
    mc->cubes[0].reachable = true;
    while (top) {
        uint32_t c = stack[--top];
        const pmf_cube *cube = &ch->common.cubes[c];
        if (cube->type != PMF_CUBE_PARENT)
            continue;
        for (uint32_t o = 0; o < 8; o++) {
            if (!(cube->u.parent.child_mask & (1u << o)))
                continue;
            uint32_t child = cube->u.parent.children[o];
            if (child >= count || mc->cubes[child].reachable) {
                free(stack);
                return fail(err, n, ch, "cube %u: child %u is %s", c, child,
                            child >= count ? "past the cube count" : "reached twice");
            }
            mc->cubes[child].reachable = true;
            mc->cubes[c].children[o] = child;
            stack[top++] = child;
        }
    }
    free(stack);
    return true;
}

/* Copies the visibility data of reachable cubes. */
static bool copy_visibility(const pmf_chunk *ch, mesh_chunk *mc, mesh_pools *pools, char *err, size_t n)
{
    uint64_t vis = 0, cubes = 0, chunks = 0;
    for (uint32_t c = 0; c < mc->cube_count; c++) {
        const pmf_cube *cube = &ch->common.cubes[c];
        if (!mc->cubes[c].reachable || !(cube->flags & PMF_CUBE_HAS_VISIBILITY))
            continue;
        vis++;
        cubes += cube->vis.cube_count;
        chunks += cube->vis.chunk_count;
        for (uint32_t k = 0; k < cube->vis.chunk_count; k++)
            cubes += cube->vis.chunks[k].cube_count;
    }
    if (!vis)
        return true;
    mc->vis = malloc(vis * sizeof *mc->vis);
    pools->vis_cubes = malloc((cubes ? cubes : 1) * sizeof *pools->vis_cubes);
    pools->vis_chunks = malloc((chunks ? chunks : 1) * sizeof *pools->vis_chunks);
    if (!mc->vis || !pools->vis_cubes || !pools->vis_chunks)
        return fail(err, n, ch, "out of memory");
    uint32_t *cube_out = pools->vis_cubes;
    pmf_vis_chunk *chunk_out = pools->vis_chunks;
    for (uint32_t c = 0; c < mc->cube_count; c++) {
        const pmf_cube *cube = &ch->common.cubes[c];
        if (!mc->cubes[c].reachable || !(cube->flags & PMF_CUBE_HAS_VISIBILITY))
            continue;
        pmf_visibility *v = &mc->vis[mc->vis_count];
        mc->cubes[c].vis = mc->vis_count++;
        v->cube_count = cube->vis.cube_count;
        v->cubes = cube_out;
        if (v->cube_count)
            memcpy(cube_out, cube->vis.cubes, v->cube_count * sizeof *cube_out);
        cube_out += v->cube_count;
        v->chunk_count = cube->vis.chunk_count;
        v->chunks = chunk_out;
        for (uint32_t k = 0; k < v->chunk_count; k++) {
            const pmf_vis_chunk *src = &cube->vis.chunks[k];
            *chunk_out = (pmf_vis_chunk){ src->chunk, src->cube_count, cube_out };
            if (src->cube_count)
                memcpy(cube_out, src->cubes, src->cube_count * sizeof *cube_out);
            cube_out += src->cube_count;
            chunk_out++;
        }
    }
    return true;
}

/* State of one mesh_build_chunk call, stage to stage. */
typedef struct builder {
    const pmf_level *lvl;
    const pmf_chunk *ch;
    mesh_chunk *mc;
    mesh_pools *pools;
    char *err;
    size_t err_size;
    bool lightmap_used[256];
    uint8_t lightmap_exp[256];   /* the side its block got: 2^exp, below the file's when lowered */
    uint32_t lightmaps_used;     /* blocks [0, lightmaps_used) hold lightmaps, the rest base colours */
    uint64_t vertex_total, index_total;
    uint32_t piece_count;
    piece *pieces;               /* one per face group, cube order */
    key_set colours;             /* base colours of lightmap-255 pieces */
    key_set keys;                /* batch keys */
    bool keep_sources;           /* mesh_desc.sources */
    mesh_fast_vertex *slots;     /* per chunk vertex: its fast lights (NULL without fast lights) */
    uint8_t *lux;                /* next free byte of pools->luxels */
} builder;

#define OOM(b) fail((b)->err, (b)->err_size, (b)->ch, "out of memory")

/* Takes the chunk's big arrays from the memory budget before they are allocated. */
static bool charge(builder *b, uint64_t bytes, const char *what)
{
    if (pmf_budget_take(bytes)) {
        b->pools->charged += bytes;
        return true;
    }
    return fail(b->err, b->err_size, b->ch, "%s need %llu MiB, more than the memory budget leaves (%llu of %llu MiB in use; see --memory)",
                what, (unsigned long long)((bytes + (1u << 20) - 1) >> 20), (unsigned long long)(pmf_budget_used() >> 20),
                (unsigned long long)(pmf_budget_limit() >> 20));
}

/* Quads v0 v1 v2 v3 draw as (v0 v1 v2)(v0 v2 v3): 6 indices per 4 vertices. */
static uint32_t index_count_of(uint32_t vertices, bool quads) { return quads ? vertices / 4 * 6 : vertices; }

/* Cubes, tree, visibility copies. */
static bool stage_cubes(builder *b)
{
    mesh_chunk *mc = b->mc;
    const pmf_chunk_common *cm = &b->ch->common;
    mc->cube_count = cm->cube_count;
    mc->cubes = calloc(cm->cube_count, sizeof *mc->cubes);
    if (!mc->cubes)
        return OOM(b);
    for (uint32_t c = 0; c < cm->cube_count; c++) {
        mesh_cube *mcube = &mc->cubes[c];
        for (int i = 0; i < 3; i++) {
            mcube->min[i] = FLT_MAX;
            mcube->max[i] = -FLT_MAX;
        }
        memset(mcube->children, 0xFF, sizeof mcube->children);
        mcube->vis = MESH_NONE;
        mcube->type = cm->cubes[c].type;
        mcube->flags = cm->cubes[c].flags;
    }
    return build_tree(b->ch, mc, b->err, b->err_size) && copy_visibility(b->ch, mc, b->pools, b->err, b->err_size);
}

/* The reachable cubes depth first with each subtree's box (needs the cubes' boxes and runs), for
 * mesh_cull_frustum and mesh_vis_set_mark. */
static bool stage_cull_tree(builder *b)
{
    mesh_chunk *mc = b->mc;
    uint32_t words = mesh_cube_words(mc);
    mesh_tree_node *tree = malloc(mc->cube_count * sizeof *tree);
    uint32_t *stack = malloc(mc->cube_count * sizeof *stack), *place = malloc(mc->cube_count * sizeof *place);
    mc->reachable_bits = calloc(words, sizeof *mc->reachable_bits);
    mc->run_bits = calloc(words, sizeof *mc->run_bits);
    if (!tree || !stack || !place || !mc->reachable_bits || !mc->run_bits) {
        free(tree);
        free(stack);
        free(place);
        return OOM(b);
    }
    /* Popping a cube and pushing its children keeps every subtree one span of the walk. */
    uint32_t count = 0, top = 0;
    stack[top++] = 0;
    while (top) {
        uint32_t c = stack[--top];
        place[c] = count;
        tree[count++].cube = c;
        mc->reachable_bits[c / 64] |= 1ull << (c % 64);
        for (int o = 7; o >= 0; o--)
            if (mc->cubes[c].children[o] != MESH_NONE)
                stack[top++] = mc->cubes[c].children[o];
    }
    /* Children come after their parent: backwards, each subtree is complete when its root is met. */
    for (uint32_t p = count; p-- > 0;) {
        mesh_tree_node *node = &tree[p];
        const mesh_cube *cube = &mc->cubes[node->cube];
        node->has_runs = cube->cube_run_count != 0;
        node->exact = true;
        for (int a = 0; node->has_runs && a < 3; a++)
            node->exact = node->exact && isfinite(cube->min[a]) && isfinite(cube->max[a]) && cube->min[a] <= cube->max[a];
        memcpy(node->min, cube->min, sizeof node->min);
        memcpy(node->max, cube->max, sizeof node->max);
        node->end = p + 1;
        for (int o = 0; o < 8; o++) {
            if (cube->children[o] == MESH_NONE)
                continue;
            const mesh_tree_node *child = &tree[place[cube->children[o]]];
            node->exact = node->exact && child->exact;
            node->end = child->end > node->end ? child->end : node->end;
            for (int a = 0; a < 3; a++) {
                node->min[a] = child->min[a] < node->min[a] ? child->min[a] : node->min[a];
                node->max[a] = child->max[a] > node->max[a] ? child->max[a] : node->max[a];
            }
        }
    }
    free(stack);
    free(place);
    mc->tree = tree;
    mc->tree_count = count;
    for (uint32_t c = 0; c < mc->cube_count; c++)
        if (mc->cubes[c].cube_run_count)
            mc->run_bits[c / 64] |= 1ull << (c % 64);
    mc->batches_contiguous = true;
    for (uint32_t k = 0; k < mc->batch_count; k++) {
        const mesh_batch *bt = &mc->batches[k];
        uint32_t at = bt->first_index;
        for (uint32_t r = bt->first_run; r < bt->first_run + bt->run_count; r++) {
            mc->batches_contiguous = mc->batches_contiguous && mc->runs[r].first_index == at;
            at += mc->runs[r].index_count;
        }
        mc->batches_contiguous = mc->batches_contiguous && at == bt->first_index + bt->index_count;
    }
    return true;
}

/* Validates every face group of the tree and counts vertices, indices and pieces. */
static bool stage_count(builder *b)
{
    const pmf_chunk_common *cm = &b->ch->common;
    const pmf_chunk_client *cl = &b->ch->client;
    face_group g[PMF_FACE_COUNT];
    for (uint32_t c = 0; c < cm->cube_count; c++) {
        if (!b->mc->cubes[c].reachable)
            continue;
        uint32_t groups = cube_groups(b->ch, c, g);
        for (uint32_t i = 0; i < groups; i++) {
            if ((uint64_t)g[i].first + g[i].count > cl->vertex_count)
                return fail(b->err, b->err_size, b->ch, "cube %u: vertices %u..%u past the vertex count %u", c,
                            g[i].first, g[i].first + g[i].count - 1, cl->vertex_count);
            if (g[i].material >= cm->used_material_count ||
                cm->material_map[g[i].material] >= b->lvl->common.material_count)
                return fail(b->err, b->err_size, b->ch, "cube %u: material %u past the used material list", c,
                            g[i].material);
            if (g[i].lightmap != PMF_NO_LIGHTMAP && g[i].lightmap >= cl->lightmap_count)
                return fail(b->err, b->err_size, b->ch, "cube %u: lightmap %u past the lightmap count %u", c,
                            g[i].lightmap, cl->lightmap_count);
            if (g[i].lightmap != PMF_NO_LIGHTMAP)
                b->lightmap_used[g[i].lightmap] = true;
            b->vertex_total += g[i].count;
            b->index_total += index_count_of(g[i].count, g[i].quads);
            b->piece_count++;
        }
    }
    if (b->index_total > UINT32_MAX)
        return fail(b->err, b->err_size, b->ch, "too many vertices to index");
    for (uint32_t l = 0; l < cl->lightmap_count; l++) {
        if (b->lightmap_used[l] && cl->lightmaps[l].size_exp > PMF_MAX_LIGHTMAP_EXP)
            return fail(b->err, b->err_size, b->ch, "lightmap %u: size 2^%u too large", l, cl->lightmaps[l].size_exp);
        b->lightmaps_used += b->lightmap_used[l];
    }
    for (uint32_t d = 0; d < cm->dynamic_light_count; d++)
        for (uint32_t k = 0; k < cl->dynamic_lights[d].layer_count; k++)
            if (cl->dynamic_lights[d].layers[k].target >= cl->lightmap_count)
                return fail(b->err, b->err_size, b->ch, "dynamic light %u: layer target %u past the lightmap count %u",
                            d, cl->dynamic_lights[d].layers[k].target, cl->lightmap_count);
    return true;
}

/* The pieces (one per face group, cube order) and the distinct base colours of lightmap-255
 * pieces in first-use order. */
static bool stage_pieces(builder *b)
{
    b->pieces = malloc((b->piece_count + 1) * sizeof *b->pieces);
    if (!b->pieces || !key_set_init(&b->colours, b->piece_count) || !key_set_init(&b->keys, b->piece_count))
        return OOM(b);
    face_group g[PMF_FACE_COUNT];
    uint32_t pi = 0;
    for (uint32_t c = 0; c < b->mc->cube_count; c++) {
        if (!b->mc->cubes[c].reachable)
            continue;
        uint32_t groups = cube_groups(b->ch, c, g);
        for (uint32_t i = 0; i < groups; i++, pi++) {
            bool base = g[i].lightmap == PMF_NO_LIGHTMAP;
            b->pieces[pi] = (piece){ .cube = c, .source = g[i].first, .vertex_count = g[i].count,
                                     .colour = base ? key_find_or_add(&b->colours, base_colour(b->ch, c)) : 0,
                                     .material = g[i].material, .lightmap = g[i].lightmap, .quads = g[i].quads };
        }
    }
    return true;
}

static size_t padded_bytes(uint32_t size_exp)
{
    size_t side = ((size_t)1 << size_exp) + 2;
    return side * side * 3;
}

/* Box-filters a side×side RGB lightmap down by 2^shift per axis into dst. */
static void shrink_luxels(const uint8_t *src, uint32_t side, uint32_t shift, uint8_t *dst)
{
    uint32_t out = side >> shift, f = 1u << shift;
    for (uint32_t r = 0; r < out; r++)
        for (uint32_t c = 0; c < out; c++)
            for (int ch = 0; ch < 3; ch++) {
                uint64_t sum = 0;
                for (uint32_t y = 0; y < f; y++)
                    for (uint32_t x = 0; x < f; x++)
                        sum += src[((size_t)(r * f + y) * side + c * f + x) * 3 + (size_t)ch];
                dst[((size_t)r * out + c) * 3 + (size_t)ch] = (uint8_t)((sum + (f * f) / 2) >> (2 * shift));
            }
}

/* pad_luxels into a block whose side may be smaller than the lightmap's (a lowered lightmap). */
static bool place_luxels(builder *b, const uint8_t *src, uint32_t src_side, const mesh_atlas_rect *rect, uint8_t *dst)
{
    if (src_side == rect->side) {
        pad_luxels(src, src_side, rect->border, dst);
        return true;
    }
    uint8_t *small = malloc((size_t)rect->side * rect->side * 3);
    if (!small)
        return OOM(b);
    shrink_luxels(src, src_side, (uint32_t)__builtin_ctz(src_side / rect->side), small);
    pad_luxels(small, rect->side, rect->border, dst);
    free(small);
    return true;
}

/* Places the used lightmaps' blocks, each at most 2^cap luxels a side. When the atlas is full
 * (its pages are bounded by the memory budget) the atlas-wide cap is lowered and the chunk
 * placed again: every later chunk then gets lightmaps that much smaller. */
static bool place_lightmap_blocks(builder *b)
{
    const pmf_chunk_client *cl = &b->ch->client;
    mesh_chunk *mc = b->mc;
    for (uint32_t l = 0; l < cl->lightmap_count; l++)
        if (b->lightmap_used[l] && (1u << cl->lightmaps[l].size_exp) > mesh_atlas_page_size(mc->atlas))
            return fail(b->err, b->err_size, b->ch, "lightmap %u: no room in the lightmap atlas (%u luxels, page %u)", l,
                        1u << cl->lightmaps[l].size_exp, mesh_atlas_page_size(mc->atlas));
    for (uint8_t cap = mesh_atlas_lightmap_cap(mc->atlas);;) {
        bool placed = true;
        for (uint32_t l = 0; l < cl->lightmap_count && placed; l++) {
            if (!b->lightmap_used[l])
                continue;
            mesh_lightmap_block *blk = &mc->blocks[mc->block_count];
            uint8_t exp = cl->lightmaps[l].size_exp < cap ? cl->lightmaps[l].size_exp : cap;
            placed = mesh_atlas_alloc(mc->atlas, 1u << exp, &blk->rect);
            if (placed) {
                blk->lightmap = (int16_t)l;
                mc->lightmap_block[l] = mc->block_count++;
                b->lightmap_exp[l] = exp;
            }
        }
        if (placed)
            return true;
        for (uint32_t i = 0; i < mc->block_count; i++)
            mesh_atlas_free(mc->atlas, &mc->blocks[i].rect);
        mc->block_count = 0;
        if (cap == 0) {
            pmf_budget_note_refusal(); /* the atlas's pages come from the budget: the chunk is dropped, not broken */
            return fail(b->err, b->err_size, b->ch, "no room in the lightmap atlas (%u pages of %u luxels) even for 1-luxel lightmaps",
                        mesh_atlas_max_pages(mc->atlas), mesh_atlas_page_size(mc->atlas));
        }
        cap = mesh_atlas_lower_lightmap_cap(mc->atlas, cap);
    }
}

/* Atlas blocks: used lightmaps in index order, then one 1×1 block per base colour. */
static bool stage_blocks(builder *b)
{
    const pmf_chunk_client *cl = &b->ch->client;
    mesh_chunk *mc = b->mc;
    size_t layers = 0;
    for (uint32_t d = 0; d < b->ch->common.dynamic_light_count; d++)
        for (uint32_t k = 0; k < cl->dynamic_lights[d].layer_count; k++)
            layers += b->lightmap_used[cl->dynamic_lights[d].layers[k].target];
    mc->blocks = malloc((b->lightmaps_used + b->colours.count + 1) * sizeof *mc->blocks);
    mc->layers = malloc((layers + 1) * sizeof *mc->layers);
    if (!mc->blocks || !mc->layers)
        return OOM(b);
    if (!place_lightmap_blocks(b))
        return false;
    size_t bytes = (size_t)b->colours.count * 9 * 3;
    for (uint32_t l = 0; l < cl->lightmap_count; l++)
        if (b->lightmap_used[l]) {
            bytes += padded_bytes(b->lightmap_exp[l]);
            if (b->lightmap_exp[l] < cl->lightmaps[l].size_exp &&
                (!mc->lightmaps_lowered || b->lightmap_exp[l] < mc->lightmap_exp_cap)) {
                mc->lightmaps_lowered = true;
                mc->lightmap_exp_cap = b->lightmap_exp[l];
            }
        }
    for (uint32_t d = 0; d < b->ch->common.dynamic_light_count; d++)
        for (uint32_t k = 0; k < cl->dynamic_lights[d].layer_count; k++) {
            uint8_t t = cl->dynamic_lights[d].layers[k].target;
            if (b->lightmap_used[t])
                bytes += padded_bytes(b->lightmap_exp[t]);
        }
    if (!charge(b, bytes, layers ? "lightmap blocks and dynamic light layers" : "lightmap blocks"))
        return false;
    b->pools->luxels = b->lux = malloc(bytes + 1);
    if (!b->lux)
        return OOM(b);
    for (uint32_t i = 0; i < mc->block_count; i++) {
        mesh_lightmap_block *blk = &mc->blocks[i];
        const pmf_lightmap *lm = &cl->lightmaps[blk->lightmap];
        blk->luxels = b->lux;
        if (!place_luxels(b, lm->luxels, 1u << lm->size_exp, &blk->rect, b->lux))
            return false;
        b->lux += padded_bytes(b->lightmap_exp[blk->lightmap]);
    }
    for (uint32_t k = 0; k < b->colours.count; k++) {
        mesh_lightmap_block *blk = &mc->blocks[mc->block_count];
        if (!mesh_atlas_alloc(mc->atlas, 1, &blk->rect))
            return fail(b->err, b->err_size, b->ch, "no room in the lightmap atlas for base colours");
        uint32_t colour = (uint32_t)b->colours.keys[k];
        uint8_t rgb[3] = { (uint8_t)(colour >> 16), (uint8_t)(colour >> 8), (uint8_t)colour };
        blk->lightmap = -1;
        blk->luxels = b->lux;
        pad_luxels(rgb, 1, blk->rect.border, b->lux);
        b->lux += padded_bytes(0);
        mc->block_count++;
    }
    return true;
}

/* Each chunk vertex's fast lights: up to 4, the strongest (mesh.h). */
static bool stage_fast_slots(builder *b)
{
    const pmf_chunk_common *cm = &b->ch->common;
    const pmf_chunk_client *cl = &b->ch->client;
    if (!cm->fast_light_count)
        return true;
    b->slots = malloc(((size_t)cl->vertex_count + 1) * sizeof *b->slots);
    if (!b->slots)
        return OOM(b);
    for (uint32_t v = 0; v < cl->vertex_count; v++)
        b->slots[v] = (mesh_fast_vertex){ { MESH_FAST_UNUSED, MESH_FAST_UNUSED, MESH_FAST_UNUSED, MESH_FAST_UNUSED }, { 0 } };
    for (uint32_t f = 0; f < cm->fast_light_count; f++)
        fast_walk(&cl->fast_lights[f], cl->vertex_count, NULL, b->slots, (uint8_t)f);
    return true;
}

/* Whether a fast light reaches a vertex of the piece (a vertex's first slot fills first). */
static bool piece_lit(const builder *b, const piece *p)
{
    for (uint32_t k = 0; b->slots && k < p->vertex_count; k++)
        if (b->slots[p->source + k].slot[0] != MESH_FAST_UNUSED)
            return true;
    return false;
}

/* Each piece's block, batch and place in the vertex buffer (the pieces a fast light reaches
 * first: the fast stream then covers only them); the batches, one per distinct key in order. */
static bool stage_layout(builder *b)
{
    const pmf_chunk_common *cm = &b->ch->common;
    mesh_chunk *mc = b->mc;
    mc->vertex_count = (uint32_t)b->vertex_total;
    if (!charge(b, (uint64_t)b->vertex_total * sizeof *mc->vertices, "vertices"))
        return false;
    mc->vertices = malloc((b->vertex_total + 1) * sizeof *mc->vertices);
    if (!mc->vertices)
        return OOM(b);
    uint32_t lit_vertices = 0;
    for (uint32_t i = 0; i < b->piece_count; i++) {
        piece *p = &b->pieces[i];
        p->block = p->lightmap == PMF_NO_LIGHTMAP ? b->lightmaps_used + p->colour : mc->lightmap_block[p->lightmap];
        uint64_t backfaces = (cm->cubes[p->cube].flags & PMF_CUBE_DRAW_BACKFACES) ? 1 : 0;
        p->key = (uint64_t)cm->material_map[p->material] << 17 | backfaces << 16 | mc->blocks[p->block].rect.page;
        p->batch = key_find_or_add(&b->keys, p->key);   /* first-use index until the keys are sorted */
        p->lit = piece_lit(b, p);
        lit_vertices += p->lit ? p->vertex_count : 0;
    }
    mc->fast_vertex_count = b->slots ? lit_vertices : 0;
    uint32_t lit_at = 0, unlit_at = lit_vertices;
    for (uint32_t i = 0; i < b->piece_count; i++) {
        piece *p = &b->pieces[i];
        uint32_t *at = p->lit ? &lit_at : &unlit_at;
        p->first_vertex = *at;
        *at += p->vertex_count;
    }
    uint32_t batch_count = b->keys.count;
    mc->batch_count = batch_count;
    mc->batches = calloc(batch_count + 1, sizeof *mc->batches);
    uint64_t *sorted = malloc((batch_count + 1) * sizeof *sorted);
    uint32_t *rank = malloc((batch_count + 1) * sizeof *rank);   /* first-use index -> batch */
    if (!mc->batches || !sorted || !rank) {
        free(sorted);
        free(rank);
        return OOM(b);
    }
    memcpy(sorted, b->keys.keys, batch_count * sizeof *sorted);
    order_sort(sorted, batch_count, sizeof *sorted, order_u64);
    for (uint32_t k = 0; k < batch_count; k++) {
        mc->batches[k].material = (uint16_t)(sorted[k] >> 17);
        mc->batches[k].backfaces = (sorted[k] >> 16) & 1;
        mc->batches[k].page = (uint16_t)sorted[k];
        uint64_t *at = bsearch(&b->keys.keys[k], sorted, batch_count, sizeof *sorted, order_u64);
        rank[k] = (uint32_t)(at - sorted);
    }
    for (uint32_t i = 0; i < b->piece_count; i++)
        b->pieces[i].batch = rank[b->pieces[i].batch];
    free(sorted);
    free(rank);
    return true;
}

/* Runs ((batch, cube) groups) and indices batch by batch. */
static bool stage_batches(builder *b)
{
    mesh_chunk *mc = b->mc;
    uint32_t batch_count = mc->batch_count;
    mc->index_count = (uint32_t)b->index_total;
    if (!charge(b, (uint64_t)b->index_total * sizeof *mc->indices, "indices"))
        return false;
    mc->indices = malloc((b->index_total + 1) * sizeof *mc->indices);
    if (!mc->indices)
        return OOM(b);
    for (uint32_t k = 0; k < batch_count; k++)
        mc->batches[k].first_run = MESH_NONE;   /* here: the last cube seen, to count runs */
    for (uint32_t i = 0; i < b->piece_count; i++) {
        const piece *p = &b->pieces[i];
        mesh_batch *bt = &mc->batches[p->batch];
        bt->index_count += index_count_of(p->vertex_count, p->quads);
        if (bt->first_run != p->cube) {
            bt->first_run = p->cube;
            bt->run_count++;
            mc->run_count++;
        }
    }
    uint32_t first_index = 0, first_run = 0;
    for (uint32_t k = 0; k < batch_count; k++) {
        mesh_batch *bt = &mc->batches[k];
        bt->first_index = first_index;
        bt->first_run = first_run;
        first_index += bt->index_count;
        first_run += bt->run_count;
        bt->index_count = bt->run_count = 0;   /* refilled below as write cursors */
    }
    mc->runs = malloc((mc->run_count + 1) * sizeof *mc->runs);
    mc->cube_runs = malloc((mc->run_count + 1) * sizeof *mc->cube_runs);
    if (!mc->runs || !mc->cube_runs)
        return OOM(b);
    for (uint32_t i = 0; i < b->piece_count; i++) {
        const piece *p = &b->pieces[i];
        mesh_batch *bt = &mc->batches[p->batch];
        uint32_t at = bt->first_index + bt->index_count;
        uint32_t *ix = &mc->indices[at];
        if (p->quads) {
            for (uint32_t v = p->first_vertex, end = v + p->vertex_count; v < end; v += 4, ix += 6) {
                ix[0] = v; ix[1] = v + 1; ix[2] = v + 2;
                ix[3] = v; ix[4] = v + 2; ix[5] = v + 3;
            }
        } else {
            for (uint32_t v = 0; v < p->vertex_count; v++)
                ix[v] = p->first_vertex + v;
        }
        uint32_t added = index_count_of(p->vertex_count, p->quads);
        bt->index_count += added;
        mesh_run *last = bt->run_count ? &mc->runs[bt->first_run + bt->run_count - 1] : NULL;
        if (last && last->cube == p->cube) {
            last->index_count += added;
        } else {
            mc->runs[bt->first_run + bt->run_count++] = (mesh_run){ p->cube, p->batch, at, added };
            mc->cubes[p->cube].cube_run_count++;
        }
    }
    /* cube_runs: runs grouped by cube, each cube's in batch order */
    uint32_t at = 0;
    for (uint32_t c = 0; c < mc->cube_count; c++) {
        mc->cubes[c].first_cube_run = at;
        at += mc->cubes[c].cube_run_count;
        mc->cubes[c].cube_run_count = 0;
    }
    for (uint32_t r = 0; r < mc->run_count; r++) {
        mesh_cube *mcube = &mc->cubes[mc->runs[r].cube];
        mc->cube_runs[mcube->first_cube_run + mcube->cube_run_count++] = r;
    }
    return true;
}

/* The step that splits [lo, hi] into 2^bits - 1 (1 for an empty or degenerate span). */
static float quantum(float lo, float hi, int bits)
{
    float step = (float)(((double)hi - lo) / (double)((1u << bits) - 1u));
    return step > 0 && step <= FLT_MAX ? step : 1.0f;
}

/* x in steps from origin, rounded, within [0, top = 2^bits - 1] (NaN: 0). A finite x inside the
 * frame lands there unclamped when step is a normal float: origin is the frame's smallest value
 * and step splits its span into top steps rounded by at most 2^-24, so the count reaches at most
 * top + 0.57 (a subnormal step is rounded by up to half of itself). */
static inline uint32_t quantise(float x, double origin, double step, double top, bool clamp)
{
    double q = ((double)x - origin) / step + 0.5;
    if (clamp) {
        q = q > 0.0 ? q : 0.0;
        q = q < top ? q : top;
    }
    return (uint32_t)q;
}

/* What a piece's vertices are written with: the chunk's position frame, its batch's UV frame and
 * its atlas block. */
typedef struct piece_frame {
    double origin[3], step[3], uv_origin[2], uv_step[2];
    float scale;                 /* atlas texels to lm_uv units */
    bool base;                   /* a base colour block: every vertex samples its centre */
    float lm_origin[2], lm_side;
    uint16_t centre[2];
} piece_frame;

/* Written for clamp true and false apart (inlined into each call), so the loop has no test. */
static inline __attribute__((always_inline)) void write_vertices(const piece_frame *f, const pmf_vertex *sv, uint32_t count,
                                                                 bool clamp, mesh_vertex *dv)
{
    const double pos_top = (double)((1u << MESH_POS_BITS) - 1u), uv_top = (double)((1u << MESH_UV_BITS) - 1u);
    for (uint32_t k = 0; k < count; k++, sv++, dv++) {
        uint32_t x = quantise(sv->xyz[0], f->origin[0], f->step[0], pos_top, clamp);
        uint32_t y = quantise(sv->xyz[1], f->origin[1], f->step[1], pos_top, clamp);
        uint32_t z = quantise(sv->xyz[2], f->origin[2], f->step[2], pos_top, clamp);
        uint32_t u = quantise(sv->uv[0], f->uv_origin[0], f->uv_step[0], uv_top, clamp);
        uint32_t v = quantise(sv->uv[1], f->uv_origin[1], f->uv_step[1], uv_top, clamp);
        *dv = (mesh_vertex){
            .pos = { (uint16_t)(x >> (MESH_POS_BITS - 16)), (uint16_t)(y >> (MESH_POS_BITS - 16)),
                     (uint16_t)(z >> (MESH_POS_BITS - 16)),
                     (uint16_t)((x & 15u) | (y & 15u) << 4 | (z & 15u) << 8 | (u & 3u) << 12 | (v & 3u) << 14) },
            .uv = { (uint16_t)(u >> (MESH_UV_BITS - 16)), (uint16_t)(v >> (MESH_UV_BITS - 16)) },
            .lm_uv = { f->base ? f->centre[0] : lm_coord(f->lm_origin[0] + clamp01(sv->lm_uv[0]) * f->lm_side, f->scale),
                       f->base ? f->centre[1] : lm_coord(f->lm_origin[1] + clamp01(sv->lm_uv[1]) * f->lm_side, f->scale) },
        };
    }
}

/* The smallest and largest finite position on axis a, later values winning ties (+0 against -0). */
static void finite_span(const builder *b, int a, float *lo, float *hi)
{
    const pmf_vertex *src = b->ch->client.vertices;
    *lo = FLT_MAX;
    *hi = -FLT_MAX;
    for (uint32_t i = 0; i < b->piece_count; i++) {
        const piece *p = &b->pieces[i];
        for (uint32_t k = p->source; k < p->source + p->vertex_count; k++) {
            float x = src[k].xyz[a];
            if (isfinite(x)) {
                *lo = *lo < x ? *lo : x;
                *hi = *hi > x ? *hi : x;
            }
        }
    }
}

/* Cube and chunk boxes; the position frame and the batches' UV frames (mesh.h, vertex format). */
static bool stage_frames(builder *b)
{
    mesh_chunk *mc = b->mc;
    const pmf_vertex *src = b->ch->client.vertices;
    float (*uv_span)[4] = malloc(((size_t)mc->batch_count + 1) * sizeof *uv_span);   /* min u, v, max u, v */
    if (!uv_span)
        return OOM(b);
    for (uint32_t k = 0; k < mc->batch_count; k++)
        uv_span[k][0] = uv_span[k][1] = FLT_MAX, uv_span[k][2] = uv_span[k][3] = -FLT_MAX;
    /* Boxes over the positions that are not NaN, the first of equal values winning; UV frames
     * over the finite UVs, the last winning (an infinite or NaN value decodes to an end of the
     * frame). A piece whose values are all finite, nearly every one, takes its UV spans without a
     * test per value and is quantised without clamping. */
    for (uint32_t i = 0; i < b->piece_count; i++) {
        piece *p = &b->pieces[i];
        mesh_cube *mcube = &mc->cubes[p->cube];
        float *span = uv_span[p->batch];
        float lo[3] = { mcube->min[0], mcube->min[1], mcube->min[2] }, hi[3] = { mcube->max[0], mcube->max[1], mcube->max[2] };
        float uv_lo[2] = { span[0], span[1] }, uv_hi[2] = { span[2], span[3] };
        float sum[5] = { 0 };   /* not finite when a value is not (or the sum overflows) */
        const pmf_vertex *first = &src[p->source], *end = first + p->vertex_count;
        for (const pmf_vertex *sv = first; sv < end; sv++) {
            for (int a = 0; a < 3; a++) {
                lo[a] = sv->xyz[a] < lo[a] ? sv->xyz[a] : lo[a];
                hi[a] = sv->xyz[a] > hi[a] ? sv->xyz[a] : hi[a];
                sum[a] += sv->xyz[a];
            }
            for (int a = 0; a < 2; a++) {
                uv_lo[a] = uv_lo[a] < sv->uv[a] ? uv_lo[a] : sv->uv[a];
                uv_hi[a] = uv_hi[a] > sv->uv[a] ? uv_hi[a] : sv->uv[a];
                sum[3 + a] += sv->uv[a];
            }
        }
        p->finite = isfinite(sum[0] + sum[1] + sum[2] + sum[3] + sum[4]);
        memcpy(mcube->min, lo, sizeof lo);
        memcpy(mcube->max, hi, sizeof hi);
        if (p->finite) {
            span[0] = uv_lo[0], span[1] = uv_lo[1], span[2] = uv_hi[0], span[3] = uv_hi[1];
        } else {   /* the spans again, over the finite UVs */
            for (const pmf_vertex *sv = first; sv < end; sv++)
                for (int a = 0; a < 2; a++)
                    if (isfinite(sv->uv[a])) {
                        span[a] = span[a] < sv->uv[a] ? span[a] : sv->uv[a];
                        span[a + 2] = span[a + 2] > sv->uv[a] ? span[a + 2] : sv->uv[a];
                    }
        }
    }
    for (uint32_t c = 0; c < mc->cube_count; c++) {
        const mesh_cube *mcube = &mc->cubes[c];
        for (int a = 0; mcube->reachable && a < 3; a++) {
            if (mcube->min[a] < mc->min[a]) mc->min[a] = mcube->min[a];
            if (mcube->max[a] > mc->max[a]) mc->max[a] = mcube->max[a];
        }
    }
    /* The chunk's box is the position frame unless an axis has infinities or a zero bound (the
     * box keeps the first of +0 and -0, the frame the last). */
    for (int a = 0; a < 3; a++) {
        float lo = mc->min[a], hi = mc->max[a];
        if (!isfinite(lo) || !isfinite(hi) || lo == 0.0f || hi == 0.0f)
            finite_span(b, a, &lo, &hi);
        mc->origin[a] = lo <= hi ? lo : 0.0f;
        mc->step[a] = lo <= hi ? quantum(lo, hi, MESH_POS_BITS) : 1.0f;
    }
    for (uint32_t k = 0; k < mc->batch_count; k++) {
        for (int a = 0; a < 2; a++) {
            bool any = uv_span[k][a] <= uv_span[k][a + 2];
            mc->batches[k].uv_origin[a] = any ? uv_span[k][a] : 0.0f;
            mc->batches[k].uv_step[a] = any ? quantum(uv_span[k][a], uv_span[k][a + 2], MESH_UV_BITS) : 1.0f;
        }
    }
    free(uv_span);
    return true;
}

/* The vertices: positions in the chunk's frame, UVs in their batch's, lightmap UVs moved into the
 * atlas; the fast stream and the sources. */
static bool stage_vertices(builder *b)
{
    mesh_chunk *mc = b->mc;
    const pmf_vertex *src = b->ch->client.vertices;
    uint32_t *sources = b->keep_sources ? malloc((b->vertex_total + 1) * sizeof *sources) : NULL;
    mc->fast = b->slots ? malloc(((size_t)mc->fast_vertex_count + 1) * sizeof *mc->fast) : NULL;
    if ((b->keep_sources && !sources) || (b->slots && !mc->fast)) {
        free(sources);
        return OOM(b);
    }
    mc->sources = sources;
    piece_frame f = { .origin = { mc->origin[0], mc->origin[1], mc->origin[2] }, .step = { mc->step[0], mc->step[1], mc->step[2] },
                      .scale = 65536.0f / (float)mesh_atlas_page_size(mc->atlas) };
    const bool normal_steps = mc->step[0] >= FLT_MIN && mc->step[1] >= FLT_MIN && mc->step[2] >= FLT_MIN;
    for (uint32_t i = 0; i < b->piece_count; i++) {
        const piece *p = &b->pieces[i];
        const mesh_batch *bt = &mc->batches[p->batch];
        const mesh_atlas_rect *r = &mc->blocks[p->block].rect;
        f.uv_origin[0] = bt->uv_origin[0], f.uv_origin[1] = bt->uv_origin[1];
        f.uv_step[0] = bt->uv_step[0], f.uv_step[1] = bt->uv_step[1];
        f.base = p->lightmap == PMF_NO_LIGHTMAP;
        f.lm_origin[0] = (float)(r->x + r->border), f.lm_origin[1] = (float)(r->y + r->border), f.lm_side = (float)r->side;
        f.centre[0] = lm_coord((float)r->x + 1.5f, f.scale), f.centre[1] = lm_coord((float)r->y + 1.5f, f.scale);
        const pmf_vertex *sv = &src[p->source];
        mesh_vertex *dv = &mc->vertices[p->first_vertex];
        if (p->finite && normal_steps && bt->uv_step[0] >= FLT_MIN && bt->uv_step[1] >= FLT_MIN)
            write_vertices(&f, sv, p->vertex_count, false, dv);
        else
            write_vertices(&f, sv, p->vertex_count, true, dv);
        if (sources)
            for (uint32_t k = 0; k < p->vertex_count; k++)
                sources[p->first_vertex + k] = p->source + k;
        if (p->first_vertex < mc->fast_vertex_count)
            memcpy(&mc->fast[p->first_vertex], &b->slots[p->source], p->vertex_count * sizeof *mc->fast);
    }
    return true;
}

void mesh_vertex_position(const mesh_chunk *mc, const mesh_vertex *v, float out[3])
{
    for (int a = 0; a < 3; a++) {
        uint32_t q = (uint32_t)v->pos[a] << (MESH_POS_BITS - 16) | ((v->pos[3] >> (4 * a)) & 15u);
        out[a] = (float)q * mc->step[a] + mc->origin[a];
    }
}

void mesh_vertex_uv(const mesh_batch *bt, const mesh_vertex *v, float out[2])
{
    for (int a = 0; a < 2; a++) {
        uint32_t q = (uint32_t)v->uv[a] << (MESH_UV_BITS - 16) | ((v->pos[3] >> (12 + 2 * a)) & 3u);
        out[a] = (float)q * bt->uv_step[a] + bt->uv_origin[a];
    }
}

/* Dynamic lights with their layers on their target blocks; fast lights. */
static bool stage_lights(builder *b)
{
    const pmf_chunk_common *cm = &b->ch->common;
    const pmf_chunk_client *cl = &b->ch->client;
    mesh_chunk *mc = b->mc;
    mc->dynamic_light_count = cm->dynamic_light_count;
    mc->dynamic_lights = malloc((cm->dynamic_light_count + 1u) * sizeof *mc->dynamic_lights);
    mc->fast_light_count = cm->fast_light_count;
    mc->fast_lights = malloc((cm->fast_light_count + 1u) * sizeof *mc->fast_lights);
    if (!mc->dynamic_lights || !mc->fast_lights)
        return OOM(b);
    for (uint32_t d = 0; d < cm->dynamic_light_count; d++) {
        const pmf_client_dynamic_light *cd = &cl->dynamic_lights[d];
        mc->dynamic_lights[d] = (mesh_dynamic_light){ cm->dynamic_lights[d].id,
            { cd->color[0], cd->color[1], cd->color[2] }, cm->dynamic_lights[d].flags };
        for (uint32_t k = 0; k < cd->layer_count; k++) {
            uint8_t t = cd->layers[k].target;
            if (!b->lightmap_used[t])
                continue;
            const mesh_lightmap_block *blk = &mc->blocks[mc->lightmap_block[t]];
            mc->layers[mc->layer_count++] = (mesh_light_layer){ d, mc->lightmap_block[t], b->lux };
            if (!place_luxels(b, cd->layers[k].luxels, 1u << cl->lightmaps[t].size_exp, &blk->rect, b->lux))
                return false;
            b->lux += padded_bytes(b->lightmap_exp[t]);
        }
    }
    for (uint32_t f = 0; f < cm->fast_light_count; f++) {
        const pmf_client_fast_light *cf = &cl->fast_lights[f];
        mc->fast_lights[f] = (mesh_fast_light){ cm->fast_lights[f].id, { cf->color[0], cf->color[1], cf->color[2] },
                                                cm->fast_lights[f].intensity, cm->fast_lights[f].flags };
    }
    return true;
}

bool mesh_build_chunk(const pmf_level *lvl, const pmf_chunk *ch, const mesh_desc *desc,
                      mesh_chunk *mc, char *err, size_t n)
{
    memset(mc, 0, sizeof *mc);
    if (!desc || !desc->atlas)
        return fail(err, n, ch, "no lightmap atlas given");
    if ((ch->parts & (PMF_PART_COMMON | PMF_PART_CLIENT)) != (PMF_PART_COMMON | PMF_PART_CLIENT))
        return fail(err, n, ch, "common and client data are needed to mesh");
    if (ch->common.cube_count == 0)
        return fail(err, n, ch, "no cubes");
    builder b = { .lvl = lvl, .ch = ch, .mc = mc, .err = err, .err_size = n, .keep_sources = desc->sources };
    mc->coord = ch->coord;
    mc->size = 1.0f;
    for (uint32_t i = 0; i < lvl->chunk_size_exp; i++)   /* 2^n for any u8 n, no shift overflow */
        mc->size *= 2.0f;
    mc->atlas = desc->atlas;
    memset(mc->lightmap_block, 0xFF, sizeof mc->lightmap_block);
    for (int i = 0; i < 3; i++) {
        mc->min[i] = FLT_MAX;
        mc->max[i] = -FLT_MAX;
    }
    b.pools = mc->mem_ = calloc(1, sizeof *b.pools);
    bool ok = b.pools ? stage_cubes(&b) : OOM(&b);
    ok = ok && stage_count(&b) && stage_pieces(&b) && stage_blocks(&b) && stage_fast_slots(&b) && stage_layout(&b) &&
         stage_batches(&b) && stage_frames(&b) && stage_cull_tree(&b) && stage_vertices(&b) && stage_lights(&b);
    key_set_free(&b.colours);
    key_set_free(&b.keys);
    free(b.pieces);
    free(b.slots);
    if (!ok)
        mesh_chunk_free(mc);
    return ok;
}
