/* visibility.c - the cubes at the cell depth of every chunk are the camera cells; those with
 * geometry below them are the targets. Each cell then lists what it can see: cubes of its own
 * chunk, and other chunks (0 cubes = all of it). */
#include <stdlib.h>
#include <string.h>

#include "world.h"

typedef struct cell_ref { uint32_t chunk, cube; } cell_ref;

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
                ncells++;
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
            cells[ci] = box;
            cell_of[ci++] = (cell_ref){ (uint32_t)c, i };
            if (inf->has_geometry) {
                targets[ti] = box;
                target_of[ti++] = (cell_ref){ (uint32_t)c, i };
                chunk_targets[c]++;
            }
        }
    }
    vis_desc desc = {
        .triangles = tris, .triangle_count = tri_count,
        .cells = cells, .cell_count = ncells,
        .targets = targets, .target_count = ntargets,
        .rays_per_pair = lb->def->vis_rays,
        .threads = lb->threads,
        .progress = progress, .user = user,
    };
    vis_result res;
    const vis_source *src = lb->def->vis_source;
    bool ok = src ? src->run(src, lb->def->shift, cells, ncells, targets, ntargets, &res) : vis_run(&desc, &res);
    if (ok) {
        for (size_t c = 0; c < ncells; c++) {
            chunk_build *cb = &lb->chunks[cell_of[c].chunk];
            pmf_cube *cube = &cb->cubes[cell_of[c].cube];
            pmf_visibility *vis = &cube->vis;
            memset(vis, 0, sizeof *vis);
            uint32_t n = res.visible_count[c];
            const uint32_t *list = res.visible[c];
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
        vis_result_free(&res, ncells);
    }
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
