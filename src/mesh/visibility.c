/* visibility.c - which cubes to draw (conventions §3 "Visibility"), frustum culling and the
 * draw ranges of a batch for a cube bitset. */
#include "mesh.h"
#include "base/order.h"

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

static int compare_coord(const pmf_chunk_coord *a, const pmf_chunk_coord *b)
{
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    if (a->y != b->y)
        return a->y < b->y ? -1 : 1;
    return a->z < b->z ? -1 : a->z > b->z;
}

static int compare_entry(const void *a, const void *b)
{
    return compare_coord(&((const mesh_vis_entry *)a)->chunk, &((const mesh_vis_entry *)b)->chunk);
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
    /* by chunk, so that marking a chunk finds its entries without reading all (a set can list
     * thousands of chunks, and every loaded chunk is marked again when the camera moves cube) */
    order_sort(out->entries + 1, vis->chunk_count, sizeof *out->entries, compare_entry);
    return true;
}

/* The entries of chunk c: entries[0] when it is the camera chunk, then a span of the sorted rest. */
static const mesh_vis_entry *next_entry(const mesh_vis_set *set, const pmf_chunk_coord *c, const mesh_vis_entry *at)
{
    const mesh_vis_entry *end = set->entries + set->entry_count;
    if (!at) {
        if (!compare_coord(&set->entries[0].chunk, c))
            return &set->entries[0];
        at = &set->entries[0];
    }
    if (at == &set->entries[0]) {   /* the first of the sorted entries not before c */
        const mesh_vis_entry *lo = set->entries + 1, *hi = end;
        while (lo < hi) {
            const mesh_vis_entry *mid = lo + (hi - lo) / 2;
            if (compare_coord(&mid->chunk, c) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo < end && !compare_coord(&lo->chunk, c) ? lo : NULL;
    }
    return at + 1 < end && !compare_coord(&at[1].chunk, c) ? at + 1 : NULL;
}

static void mark_all(const mesh_chunk *mc, uint64_t *bits)
{
    if (mc->reachable_bits) {
        memcpy(bits, mc->reachable_bits, mesh_cube_words(mc) * sizeof *bits);
        return;
    }
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
    for (const mesh_vis_entry *e = whole ? NULL : next_entry(set, &mc->coord, NULL); e && !whole;
         e = next_entry(set, &mc->coord, e)) {
        shown = true;
        whole = e->cube_count == 0;
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
    for (const mesh_vis_entry *e = next_entry(set, &mc->coord, NULL); e; e = next_entry(set, &mc->coord, e))
        for (uint32_t k = 0; k < e->cube_count; k++)
            mark_subtree(mc, e->cubes[k], bits, stack);
    free(stack);
    return true;
}

/* Where a box lies against the planes: wholly behind one, wholly in front of all, or across. The
 * sum is formed the same way for every box, and rounding is monotonic, so a box inside another
 * is never found less outside or less inside than it. */
typedef enum box_side { BOX_OUTSIDE, BOX_INSIDE, BOX_ACROSS } box_side;

static float plane_distance(const float pl[4], float x, float y, float z)
{
    return pl[0] * x + pl[1] * y + pl[2] * z + pl[3];
}

static box_side classify_box(const float planes[6][4], const float mn[3], const float mx[3])
{
    box_side side = BOX_INSIDE;
    for (int p = 0; p < 6; p++) {
        const float *pl = planes[p];
        /* not >= rather than <: a NaN distance counts as outside, as it always has */
        if (!(plane_distance(pl, pl[0] >= 0 ? mx[0] : mn[0], pl[1] >= 0 ? mx[1] : mn[1], pl[2] >= 0 ? mx[2] : mn[2]) >= 0.0f))
            return BOX_OUTSIDE;
        if (!(plane_distance(pl, pl[0] >= 0 ? mn[0] : mx[0], pl[1] >= 0 ? mn[1] : mx[1], pl[2] >= 0 ? mn[2] : mx[2]) >= 0.0f))
            side = BOX_ACROSS;
    }
    return side;
}

/* A cube with runs stays when its box is not wholly behind a plane; one without runs always. */
static void cull_cube(const mesh_chunk *mc, uint32_t c, const float planes[6][4], uint64_t *bits)
{
    const mesh_cube *cube = &mc->cubes[c];
    if (cube->cube_run_count && bit_get(bits, c) && classify_box(planes, cube->min, cube->max) == BOX_OUTSIDE)
        bits[c / 64] &= ~(1ull << (c % 64));
}

uint32_t mesh_cull_frustum(const mesh_chunk *mc, const float planes[6][4], uint64_t *bits)
{
    if (!mc->tree) {   /* a chunk not from mesh_build_chunk: every cube on its own */
        for (uint32_t c = 0; c < mc->cube_count; c++)
            cull_cube(mc, c, planes, bits);
    } else {
        /* Depth first: a subtree wholly out of view loses its cubes with runs, one wholly in view
         * keeps all, without a test each (the same bits as testing each cube). */
        for (uint32_t p = 0; p < mc->tree_count;) {
            const mesh_tree_node *node = &mc->tree[p];
            box_side side = node->exact ? classify_box(planes, node->min, node->max) : BOX_ACROSS;
            if (side == BOX_ACROSS) {
                cull_cube(mc, node->cube, planes, bits);
                p++;
                continue;
            }
            for (; side == BOX_OUTSIDE && p < node->end; p++) {
                uint32_t c = mc->tree[p].cube;
                if (mc->tree[p].has_runs)
                    bits[c / 64] &= ~(1ull << (c % 64));
            }
            p = node->end;
        }
        if (mc->tree_count < mc->cube_count)   /* cubes outside the tree, as a file may have */
            for (uint32_t c = 0; c < mc->cube_count; c++)
                if (!mc->cubes[c].reachable)
                    cull_cube(mc, c, planes, bits);
    }
    uint32_t left = 0, words = mesh_cube_words(mc);
    for (uint32_t w = 0; w < words; w++) {
        uint64_t word = bits[w];
        if (w == words - 1 && mc->cube_count % 64)
            word &= (1ull << (mc->cube_count % 64)) - 1;
        left += (uint32_t)__builtin_popcountll(word);
    }
    return left;
}

bool mesh_shows_every_run(const mesh_chunk *mc, const uint64_t *bits)
{
    if (!mc->run_bits || !mc->batches_contiguous)
        return false;
    for (uint32_t w = 0, words = mesh_cube_words(mc); bits && w < words; w++)
        if ((bits[w] & mc->run_bits[w]) != mc->run_bits[w])
            return false;
    return true;
}

uint32_t mesh_batch_whole(const mesh_chunk *mc, uint32_t batch, mesh_draw_range *out)
{
    const mesh_batch *b = &mc->batches[batch];
    if (!b->index_count)
        return 0;
    out[0] = (mesh_draw_range){ b->first_index, b->index_count };
    return 1;
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
