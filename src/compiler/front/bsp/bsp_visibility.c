/* bsp_visibility.c - a BSP's PVS as the level's visibility (bsp_visibility.h).
 *
 * The leaves a box reaches into are found down the world model's tree (a box goes to each side
 * of a plane it touches). A cell's visible leaves are the union of the PVS rows of the leaves it
 * reaches; it sees every target touching one of them. Conservative where the two grids differ:
 * a cell or target is widened by a unit, and one reaching no open leaf (inside solid, or a
 * target the tree does not hold) sees or is seen by everything. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/pmf_budget.h"
#include "bsp_visibility.h"
#include "common/memory.h"

#define TOUCH_UNITS 1.0          /* boxes widened by this, so a face on a leaf's side touches it */
#define MAX_DEPTH 1024           /* as bsp_import.c: deeper than any compiler builds */

enum { CONTENTS_SOLID = -2 };

typedef struct bsp_vis {
    vis_source base;
    double s;                    /* metres per unit */
    int32_t head;
    bsp_node *nodes; uint32_t node_count;
    bsp_plane *planes; uint32_t plane_count;
    /* what bsp_leaf_pvs reads, copied: leaves, the world model's leaf count and the vis lump */
    bsp_file pvs;
    bsp_model world;
    uint8_t *visibility;
} bsp_vis;

/* The source-unit box of a world-metre box (world = (x, z, -y) x s + shift), widened. */
static void units_box(const bsp_vis *v, v3 shift, const vis_box *b, double lo[3], double hi[3])
{
    double s = v->s;
    lo[0] = (b->min[0] - shift.x) / s; hi[0] = (b->max[0] - shift.x) / s;
    lo[1] = -(b->max[2] - shift.z) / s; hi[1] = -(b->min[2] - shift.z) / s;
    lo[2] = (b->min[1] - shift.y) / s; hi[2] = (b->max[1] - shift.y) / s;
    for (int a = 0; a < 3; a++) { lo[a] -= TOUCH_UNITS; hi[a] += TOUCH_UNITS; }
}

typedef struct leaf_list { uint32_t *items; size_t count, cap; } leaf_list;

/* The open leaves the box reaches into, appended to *out. */
static void box_leaves(const bsp_vis *v, const double lo[3], const double hi[3], leaf_list *out)
{
    int32_t stack[MAX_DEPTH];
    int sp = 0;
    stack[sp++] = v->head;
    while (sp > 0) {
        int32_t node = stack[--sp];
        if (node < 0) {
            uint32_t leaf = (uint32_t)-(node + 1);
            if (leaf == 0 || leaf >= v->pvs.leaf_count || v->pvs.leaves[leaf].contents == CONTENTS_SOLID) continue;
            if (out->count == out->cap) {
                out->cap = out->cap ? out->cap * 2 : 64;
                out->items = xrealloc(out->items, out->cap * sizeof *out->items);
            }
            out->items[out->count++] = leaf;
            continue;
        }
        if ((uint32_t)node >= v->node_count) continue;
        const bsp_node *n = &v->nodes[node];
        const bsp_plane *pl = &v->planes[n->plane];
        double dmin = -pl->dist, dmax = -pl->dist;
        for (int a = 0; a < 3; a++) {
            double k = pl->normal[a];
            dmin += k * (k > 0 ? lo[a] : hi[a]);
            dmax += k * (k > 0 ? hi[a] : lo[a]);
        }
        /* the reader checked children against the node and leaf counts */
        if (dmax >= 0 && sp < MAX_DEPTH) stack[sp++] = n->children[0];
        if (dmin < 0 && sp < MAX_DEPTH) stack[sp++] = n->children[1];
    }
}

static bool run(const vis_source *src, v3 shift, const vis_box *cells, size_t cell_count, const vis_box *targets,
                size_t target_count, vis_result *out)
{
    const bsp_vis *v = (const bsp_vis *)src;
    uint32_t leaf_count = v->pvs.leaf_count;
    size_t words = ((size_t)leaf_count + 63) / 64;
    memset(out, 0, sizeof *out);
    out->visible = pmf_budget_calloc(cell_count + 1, sizeof *out->visible);
    out->visible_count = pmf_budget_calloc(cell_count + 1, sizeof *out->visible_count);
    /* targets by leaf (leaf_first[l] .. leaf_first[l + 1] into by_leaf), and those no leaf holds */
    uint32_t *leaf_first = xcalloc((size_t)leaf_count + 2, sizeof *leaf_first);
    leaf_list scratch = { 0 }, pairs = { 0 };
    uint32_t *always = xmalloc((target_count + 1) * sizeof *always);
    size_t always_count = 0;
    for (size_t t = 0; t < target_count; t++) {
        double lo[3], hi[3];
        units_box(v, shift, &targets[t], lo, hi);
        scratch.count = 0;
        box_leaves(v, lo, hi, &scratch);
        if (!scratch.count) always[always_count++] = (uint32_t)t;
        for (size_t k = 0; k < scratch.count; k++) {
            leaf_first[scratch.items[k] + 1]++;
            if (pairs.count + 2 > pairs.cap) {
                pairs.cap = pairs.cap ? pairs.cap * 2 : 256;
                pairs.items = xrealloc(pairs.items, pairs.cap * sizeof *pairs.items);
            }
            pairs.items[pairs.count++] = scratch.items[k];
            pairs.items[pairs.count++] = (uint32_t)t;
        }
    }
    for (uint32_t l = 0; l < leaf_count; l++) leaf_first[l + 1] += leaf_first[l];
    uint32_t *by_leaf = xmalloc((pairs.count / 2 + 1) * sizeof *by_leaf);
    uint32_t *fill = xmalloc(((size_t)leaf_count + 1) * sizeof *fill);
    memcpy(fill, leaf_first, ((size_t)leaf_count + 1) * sizeof *fill);
    for (size_t k = 0; k < pairs.count; k += 2) by_leaf[fill[pairs.items[k]]++] = pairs.items[k + 1];
    xfree(fill);
    xfree(pairs.items);

    uint64_t *seen = xmalloc((words + 1) * sizeof *seen), *row = xmalloc((words + 1) * sizeof *row);
    uint32_t *stamp = xcalloc(target_count + 1, sizeof *stamp);
    uint32_t *list = xmalloc((target_count + 1) * sizeof *list);
    bool ok = out->visible && out->visible_count;
    for (size_t c = 0; c < cell_count && ok; c++) {
        double lo[3], hi[3];
        units_box(v, shift, &cells[c], lo, hi);
        scratch.count = 0;
        box_leaves(v, lo, hi, &scratch);
        size_t n = 0;
        if (!scratch.count) {
            for (size_t t = 0; t < target_count; t++) list[n++] = (uint32_t)t;
        } else {
            memset(seen, 0, words * sizeof *seen);
            for (size_t k = 0; k < scratch.count; k++) {
                uint32_t leaf = scratch.items[k];
                seen[leaf / 64] |= (uint64_t)1 << (leaf % 64);
                if (!bsp_leaf_pvs(&v->pvs, leaf, row, words)) memset(row, 0xFF, words * sizeof *row);
                for (size_t w = 0; w < words; w++) seen[w] |= row[w];
            }
            uint32_t mark = (uint32_t)c + 1;
            for (uint32_t leaf = 1; leaf < leaf_count; leaf++) {
                if (!(seen[leaf / 64] >> (leaf % 64) & 1)) continue;
                for (uint32_t k = leaf_first[leaf]; k < leaf_first[leaf + 1]; k++)
                    if (stamp[by_leaf[k]] != mark) {
                        stamp[by_leaf[k]] = mark;
                        list[n++] = by_leaf[k];
                    }
            }
            for (size_t k = 0; k < always_count; k++)
                if (stamp[always[k]] != mark) {
                    stamp[always[k]] = mark;
                    list[n++] = always[k];
                }
        }
        out->visible[c] = pmf_budget_malloc((n ? n : 1) * sizeof *list);
        if (!out->visible[c]) { ok = false; break; }
        memcpy(out->visible[c], list, n * sizeof *list);
        vis_list_sort(out->visible[c], n);
        out->visible_count[c] = (uint32_t)n;
    }
    xfree(scratch.items);
    xfree(leaf_first);
    xfree(by_leaf);
    xfree(always);
    xfree(seen);
    xfree(row);
    xfree(stamp);
    xfree(list);
    if (!ok) vis_result_free(out, cell_count);
    return ok;
}

static void source_free(vis_source *src)
{
    bsp_vis *v = (bsp_vis *)src;
    xfree(v->nodes);
    xfree(v->planes);
    xfree(v->pvs.leaves);
    xfree(v->visibility);
    xfree(v);
}

static void *copy(const void *data, size_t size)
{
    void *p = xmalloc(size ? size : 1);
    if (size) memcpy(p, data, size);
    return p;
}

vis_source *bsp_vis_source_create(const bsp_file *b, double scale)
{
    if (!b->visibility_size || !b->model_count || !b->leaf_count) return NULL;
    bsp_vis *v = xcalloc(1, sizeof *v);
    v->base = (vis_source){ run, source_free };
    v->s = scale;
    v->head = b->models[0].headnode;
    if (v->head >= 0 && (uint32_t)v->head >= b->node_count) v->head = -1;   /* as bsp_import: its one leaf */
    v->nodes = copy(b->nodes, b->node_count * sizeof *b->nodes);
    v->node_count = b->node_count;
    v->planes = copy(b->planes, b->plane_count * sizeof *b->planes);
    v->plane_count = b->plane_count;
    v->visibility = copy(b->visibility, b->visibility_size);
    v->world = b->models[0];
    v->pvs = (bsp_file){ .version = b->version, .models = &v->world, .model_count = 1,
                         .leaves = copy(b->leaves, b->leaf_count * sizeof *b->leaves), .leaf_count = b->leaf_count,
                         .visibility = v->visibility, .visibility_size = b->visibility_size };
    return &v->base;
}
