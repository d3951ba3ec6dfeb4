/* visibility.c - which cubes to draw (conventions §3 "Visibility"), frustum culling and the
 * draw ranges of a batch for a cube bitset. */
#include "mesh.h"

#include <stdlib.h>
#include <string.h>

static inline void bit_set(uint64_t *bits, uint32_t i) { bits[i / 64] |= 1ull << (i % 64); }
static inline bool bit_get(const uint64_t *bits, uint32_t i) { return (bits[i / 64] >> (i % 64)) & 1; }

/* Descends from cube 0; *vis_cube gets the deepest cube on the path with visibility data. */
static uint32_t locate(const mesh_chunk *mc, const float p[3], uint32_t *vis_cube)
{
    *vis_cube = MESH_NONE;
    if (!mc->cube_count)
        return MESH_NONE;
    float half = mc->size * 0.5f;
    for (int a = 0; a < 3; a++)
        if (!(p[a] >= -half && p[a] <= half))
            return MESH_NONE;
    float centre[3] = { 0.0f, 0.0f, 0.0f };
    uint32_t c = 0;
    for (;;) {
        const mesh_cube *cube = &mc->cubes[c];
        if (cube->vis != MESH_NONE)
            *vis_cube = c;
        if (cube->type != PMF_CUBE_PARENT)
            return c;
        uint32_t o = (p[0] < centre[0] ? PMF_OCTANT_NEG_X : 0) | (p[2] < centre[2] ? PMF_OCTANT_NEG_Z : 0) |
                     (p[1] < centre[1] ? PMF_OCTANT_NEG_Y : 0);
        if (cube->children[o] == MESH_NONE)
            return c;
        half *= 0.5f;
        centre[0] += (o & PMF_OCTANT_NEG_X) ? -half : half;
        centre[1] += (o & PMF_OCTANT_NEG_Y) ? -half : half;
        centre[2] += (o & PMF_OCTANT_NEG_Z) ? -half : half;
        c = cube->children[o];
    }
}

uint32_t mesh_vis_locate(const mesh_chunk *mc, const float p[3])
{
    uint32_t vis_cube;
    return locate(mc, p, &vis_cube);
}

void mesh_vis_set_free(mesh_vis_set *set)
{
    if (set->entry_count)
        free(set->entries[0].cubes);   /* the pool every entry's list points into */
    free(set->entries);
    memset(set, 0, sizeof *set);
}

bool mesh_vis_set_build(const mesh_chunk *mc, const float cam_local[3], mesh_vis_set *out)
{
    memset(out, 0, sizeof *out);
    out->everything = true;
    out->camera_cube = out->source_cube = MESH_NONE;
    if (!mc)
        return true;
    out->camera_cube = locate(mc, cam_local, &out->source_cube);
    if (out->source_cube == MESH_NONE)
        return true;
    const pmf_visibility *vis = &mc->vis[mc->cubes[out->source_cube].vis];
    uint64_t cubes = 1 + (uint64_t)vis->cube_count;
    for (uint32_t k = 0; k < vis->chunk_count; k++)
        cubes += vis->chunks[k].cube_count;
    out->entries = calloc(1 + (size_t)vis->chunk_count, sizeof *out->entries);
    uint32_t *pool = malloc(cubes * sizeof *pool);
    if (!out->entries || !pool) {
        free(out->entries);
        free(pool);
        out->entries = NULL;
        return false;
    }
    out->everything = false;
    out->entry_count = 1 + vis->chunk_count;
    out->entries[0] = (mesh_vis_entry){ mc->coord, 1 + vis->cube_count, pool };
    pool[0] = out->source_cube;
    memcpy(pool + 1, vis->cubes, vis->cube_count * sizeof *pool);
    pool += 1 + vis->cube_count;
    for (uint32_t k = 0; k < vis->chunk_count; k++) {
        const pmf_vis_chunk *vc = &vis->chunks[k];
        out->entries[1 + k] = (mesh_vis_entry){ vc->chunk, vc->cube_count, pool };
        memcpy(pool, vc->cubes, vc->cube_count * sizeof *pool);
        pool += vc->cube_count;
    }
    return true;
}

static void mark_all(const mesh_chunk *mc, uint64_t *bits)
{
    for (uint32_t c = 0; c < mc->cube_count; c++)
        if (mc->cubes[c].reachable)
            bit_set(bits, c);
}

/* Marks cube root and its subtree; stack holds cube_count entries. A cube already marked has
 * its subtree marked already. */
static void mark_subtree(const mesh_chunk *mc, uint32_t root, uint64_t *bits, uint32_t *stack)
{
    if (root >= mc->cube_count || !mc->cubes[root].reachable || bit_get(bits, root))
        return;
    uint32_t top = 0;
    stack[top++] = root;
    bit_set(bits, root);
    while (top) {
        const mesh_cube *cube = &mc->cubes[stack[--top]];
        for (int o = 0; o < 8; o++) {
            uint32_t child = cube->children[o];
            if (child != MESH_NONE && !bit_get(bits, child)) {
                bit_set(bits, child);
                stack[top++] = child;
            }
        }
    }
}

bool mesh_vis_set_mark(const mesh_vis_set *set, const mesh_chunk *mc, uint64_t *bits)
{
    uint32_t words = mesh_cube_words(mc);
    memset(bits, 0, words * sizeof *bits);
    bool shown = false, whole = set->everything;
    for (uint32_t e = 0; e < set->entry_count && !whole; e++) {
        const mesh_vis_entry *entry = &set->entries[e];
        if (entry->chunk.x != mc->coord.x || entry->chunk.y != mc->coord.y || entry->chunk.z != mc->coord.z)
            continue;
        shown = true;
        if (entry->cube_count == 0)
            whole = true;
    }
    if (whole) {
        mark_all(mc, bits);
        return true;
    }
    if (!shown)
        return false;
    uint32_t *stack = malloc(mc->cube_count * sizeof *stack);
    if (!stack) {   /* drawing too much is harmless, drawing too little is not */
        mark_all(mc, bits);
        return true;
    }
    for (uint32_t e = 0; e < set->entry_count; e++) {
        const mesh_vis_entry *entry = &set->entries[e];
        if (entry->chunk.x != mc->coord.x || entry->chunk.y != mc->coord.y || entry->chunk.z != mc->coord.z)
            continue;
        for (uint32_t k = 0; k < entry->cube_count; k++)
            mark_subtree(mc, entry->cubes[k], bits, stack);
    }
    free(stack);
    return true;
}

uint32_t mesh_cull_frustum(const mesh_chunk *mc, const float planes[6][4], uint64_t *bits)
{
    uint32_t left = 0;
    for (uint32_t c = 0; c < mc->cube_count; c++) {
        if (!bit_get(bits, c))
            continue;
        const mesh_cube *cube = &mc->cubes[c];
        bool inside = true;
        for (int p = 0; p < 6 && inside && cube->cube_run_count; p++) {
            const float *pl = planes[p];
            float x = pl[0] >= 0 ? cube->max[0] : cube->min[0];
            float y = pl[1] >= 0 ? cube->max[1] : cube->min[1];
            float z = pl[2] >= 0 ? cube->max[2] : cube->min[2];
            inside = pl[0] * x + pl[1] * y + pl[2] * z + pl[3] >= 0.0f;
        }
        if (inside)
            left++;
        else
            bits[c / 64] &= ~(1ull << (c % 64));
    }
    return left;
}

uint32_t mesh_batch_ranges(const mesh_chunk *mc, uint32_t batch, const uint64_t *bits, mesh_draw_range *out)
{
    const mesh_batch *b = &mc->batches[batch];
    uint32_t count = 0;
    for (uint32_t r = b->first_run; r < b->first_run + b->run_count; r++) {
        const mesh_run *run = &mc->runs[r];
        if (bits && !bit_get(bits, run->cube))
            continue;
        if (count && out[count - 1].first_index + out[count - 1].index_count == run->first_index)
            out[count - 1].index_count += run->index_count;
        else
            out[count++] = (mesh_draw_range){ run->first_index, run->index_count };
    }
    return count;
}
