/* visibility.c - the cubes at the cell depth of every chunk are the camera cells; those with
 * geometry below them are the targets. Each cell then lists what it can see: cubes of its own
 * chunk, and other chunks (0 cubes = all of it).
 *
 * Cells of open air (no geometry below them) in whole 4x4x4 or 2x2x2 blocks of a chunk are asked
 * as one box, as a BSP's large empty leaf has one PVS: what the block sees is a superset of what
 * each of its cells sees, so the answer stays conservative, and the pairs to test (cells x
 * targets, most of them air over terrain or in a sky volume) drop by up to 64 there. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/memory.h"
#include "common/world.h"
#include "fill/fill.h"
#include "relight/relight.h"
#include "visibility.h"
#include "base/order.h"

typedef struct cell_ref { uint32_t chunk, cube; } cell_ref;

/* A cell a camera may stand in: in a sealed map, one that reaches empty space inside (fill.h);
 * the others (the void's or solid) get no visibility data, so a camera there draws everything. */
static bool camera_cell(const level_build *lb, const cube_info *inf)
{
    return inf->has_geometry || fill_box_inside(lb->def->fill, inf->lo, inf->hi);
}

#define AIR_BLOCK_LEVELS 2           /* blocks of 2^2 = 4 cells a side at most */

typedef struct block_key { uint64_t key; uint32_t cell; } block_key;

static int compare_block_key(const void *a, const void *b)
{
    const block_key *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->cell > y->cell) - (x->cell < y->cell);
}

/* The boxes asked for: whole blocks of air cells as one (largest first), every other cell alone.
 * box_of[cell] gets its box; returns the box count (boxes: ncells long). */
static size_t camera_boxes(const level_build *lb, const vis_box *cells, const cell_ref *cell_of, size_t ncells,
                           uint32_t *box_of, vis_box *boxes)
{
    size_t nboxes = 0;
    block_key *keys = xmalloc(ncells * sizeof *keys);
    for (size_t c = 0; c < ncells; c++) box_of[c] = UINT32_MAX;
    for (int level = AIR_BLOCK_LEVELS; level >= 1; level--) {
        size_t n = 0;
        for (size_t c = 0; c < ncells; c++) {
            const chunk_build *cb = &lb->chunks[cell_of[c].chunk];
            if (box_of[c] != UINT32_MAX || cb->info[cell_of[c].cube].has_geometry) continue;
            /* the cell's place on its chunk's grid of cells (at most 64 a side) */
            const cube_info *whole = &cb->info[0];
            double size = cells[c].max[0] - cells[c].min[0];
            uint64_t key = cell_of[c].chunk;
            for (int a = 0; a < 3; a++) key = key << 8 | (uint64_t)(lround((cells[c].min[a] - whole->lo.e[a]) / size) >> level);
            keys[n++] = (block_key){ key, (uint32_t)c };
        }
        order_sort(keys, n, sizeof *keys, compare_block_key);
        size_t full = (size_t)1 << (3 * level);
        for (size_t k = 0; k < n;) {
            size_t run = 1;
            while (k + run < n && keys[k + run].key == keys[k].key) run++;
            if (run == full) {
                vis_box box = cells[keys[k].cell];
                for (size_t r = 1; r < run; r++)
                    for (int a = 0; a < 3; a++) {
                        box.min[a] = fminf(box.min[a], cells[keys[k + r].cell].min[a]);
                        box.max[a] = fmaxf(box.max[a], cells[keys[k + r].cell].max[a]);
                    }
                for (size_t r = 0; r < run; r++) box_of[keys[k + r].cell] = (uint32_t)nboxes;
                boxes[nboxes++] = box;
            }
            k += run;
        }
    }
    for (size_t c = 0; c < ncells; c++)
        if (box_of[c] == UINT32_MAX) {
            box_of[c] = (uint32_t)nboxes;
            boxes[nboxes++] = cells[c];
        }
    xfree(keys);
    return nboxes;
}

bool level_visibility(level_build *lb, const float (*tris)[9], size_t tri_count,
                      void (*progress)(void *, const char *, double), void *user)
{
    size_t nchunks = level_chunk_count(lb);
    size_t ncells = 0, ntargets = 0;
    if (lb->def->no_visibility) return true;
    for (size_t c = 0; c < nchunks; c++) {
        const chunk_build *cb = &lb->chunks[c];
        if (!cb->present) continue;
        for (uint32_t i = 0; i < cb->cube_count; i++)
            if (cb->info[i].cell) {
                ncells += camera_cell(lb, &cb->info[i]);
                ntargets += cb->info[i].has_geometry;
            }
    }
    if (!ncells) return true;
    vis_box *cells = xmalloc(ncells * sizeof *cells), *targets = xmalloc((ntargets ? ntargets : 1) * sizeof *targets);
    cell_ref *cell_of = xmalloc(ncells * sizeof *cell_of), *target_of = xmalloc((ntargets ? ntargets : 1) * sizeof *target_of);
    uint32_t *chunk_targets = xcalloc(nchunks, sizeof *chunk_targets);
    size_t ci = 0, ti = 0;
    for (size_t c = 0; c < nchunks; c++) {
        const chunk_build *cb = &lb->chunks[c];
        if (!cb->present) continue;
        for (uint32_t i = 0; i < cb->cube_count; i++) {
            const cube_info *inf = &cb->info[i];
            if (!inf->cell) continue;
            vis_box box;
            for (int a = 0; a < 3; a++) {
                box.min[a] = (float)inf->lo.e[a];
                box.max[a] = (float)inf->hi.e[a];
            }
            if (camera_cell(lb, inf)) {
                cells[ci] = box;
                cell_of[ci++] = (cell_ref){ (uint32_t)c, i };
            }
            if (inf->has_geometry) {
                targets[ti] = box;
                target_of[ti++] = (cell_ref){ (uint32_t)c, i };
                chunk_targets[c]++;
            }
        }
    }
    /* pmfc's own visibility asks blocks of air as one; a source's (a BSP's PVS) is cheap per cell */
    const vis_source *src = lb->def->vis_source;
    uint32_t *box_of = xmalloc(ncells * sizeof *box_of);
    vis_box *boxes = xmalloc(ncells * sizeof *boxes);
    size_t nboxes = src ? ncells : camera_boxes(lb, cells, cell_of, ncells, box_of, boxes);
    if (src)
        for (size_t c = 0; c < ncells; c++) {
            box_of[c] = (uint32_t)c;
            boxes[c] = cells[c];
        }
    vis_desc desc = {
        .triangles = tris, .triangle_count = tri_count,
        .cells = boxes, .cell_count = nboxes,
        .targets = targets, .target_count = ntargets,
        .rays_per_pair = lb->def->vis_rays,
        .threads = lb->threads,
        .progress = progress, .user = user,
    };
    vis_result res;
    /* with --cache: the lists of the compile before when nothing they depend on changed */
    relight_level *rl = lb->tiled || src ? NULL : lb->relight;
    bool ok = src ? src->run(src, lb->def->shift, cells, ncells, targets, ntargets, &res)
                  : (rl && relight_vis_lookup(rl, &desc, &res)) || vis_run(&desc, &res);
    if (ok && rl) relight_vis_keep(rl, &desc, &res);
    if (ok) {
        for (size_t c = 0; c < ncells; c++) {
            chunk_build *cb = &lb->chunks[cell_of[c].chunk];
            pmf_cube *cube = &cb->cubes[cell_of[c].cube];
            pmf_visibility *vis = &cube->vis;
            memset(vis, 0, sizeof *vis);
            uint32_t n = res.visible_count[box_of[c]];
            const uint32_t *list = res.visible[box_of[c]];
            vis->cubes = xmalloc((n ? n : 1) * sizeof *vis->cubes);
            vis->chunks = xmalloc((n ? n : 1) * sizeof *vis->chunks);
            for (uint32_t k = 0; k < n;) {
                uint32_t chunk = target_of[list[k]].chunk, run = 0;
                while (k + run < n && target_of[list[k + run]].chunk == chunk) run++;
                if (chunk == cell_of[c].chunk) {
                    for (uint32_t r = 0; r < run; r++)
                        if (target_of[list[k + r]].cube != cell_of[c].cube)
                            vis->cubes[vis->cube_count++] = target_of[list[k + r]].cube;
                } else {
                    const chunk_build *other = &lb->chunks[chunk];
                    pmf_vis_chunk *vc = &vis->chunks[vis->chunk_count++];
                    vc->chunk = (pmf_chunk_coord){ other->gx, other->gy, other->gz };
                    vc->cube_count = run == chunk_targets[chunk] ? 0 : run;
                    vc->cubes = vc->cube_count ? xmalloc(run * sizeof *vc->cubes) : NULL;
                    for (uint32_t r = 0; r < vc->cube_count; r++) vc->cubes[r] = target_of[list[k + r]].cube;
                }
                k += run;
            }
            cube->flags |= PMF_CUBE_HAS_VISIBILITY;
        }
        vis_result_free(&res, nboxes);
    }
    xfree(box_of);
    xfree(boxes);
    xfree(cells);
    xfree(targets);
    xfree(cell_of);
    xfree(target_of);
    xfree(chunk_targets);
    return ok;
}

void level_visibility_free(level_build *lb)
{
    size_t nchunks = level_chunk_count(lb);
    for (size_t c = 0; lb->chunks && c < nchunks; c++) {
        chunk_build *cb = &lb->chunks[c];
        for (uint32_t i = 0; i < cb->cube_count; i++) {
            pmf_visibility *vis = &cb->cubes[i].vis;
            if (!(cb->cubes[i].flags & PMF_CUBE_HAS_VISIBILITY)) continue;
            for (uint32_t k = 0; k < vis->chunk_count; k++) xfree(vis->chunks[k].cubes);
            xfree(vis->cubes);
            xfree(vis->chunks);
            cb->cubes[i].flags &= (uint8_t)~PMF_CUBE_HAS_VISIBILITY;
        }
    }
}
