/* seal.c - watertight chunk meshes. Faces are cut by CSG, by chunk boundaries and by octree cubes
 * of different sizes, so a vertex of one polygon can lie inside an edge of its neighbour (a
 * T-junction): rasterised, the two edges round differently and pixels fall through. Sealing puts
 * every such vertex into the edge it lies on, in the chunk and across its boundary, so shared
 * edges are made of the same vertex pairs on both sides. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chunks.h"
#include "common/memory.h"
#include "common/world.h"
#include "base/order.h"

typedef struct on_edge { double t; v3 p; } on_edge;

static int cmp_t(const void *a, const void *b)
{
    double x = ((const on_edge *)a)->t, y = ((const on_edge *)b)->t;
    return x < y ? -1 : x > y;
}

static bool in_box(v3 p, v3 lo, v3 hi)
{
    for (int a = 0; a < 3; a++)
        if (p.e[a] < lo.e[a] || p.e[a] > hi.e[a]) return false;
    return true;
}

/* The vertices an edge of this chunk may meet (its own, and its neighbours' on its boundary) in
 * a uniform grid of GRID_N^3 cells over the chunk (one more on each side for the boundary). */
#define GRID_N 32
typedef struct point_grid {
    v3 lo;
    double cell;
    uint32_t *start;                 /* [(GRID_N + 2)^3 + 1] */
    v3 *pts;
} point_grid;

static int grid_coord(const point_grid *g, double v, int a)
{
    double c = floor((v - g->lo.e[a]) / g->cell) + 1;
    return c < 0 ? 0 : c > GRID_N + 1 ? GRID_N + 1 : (int)c;
}

static size_t grid_cell(const point_grid *g, v3 p)
{
    const size_t side = GRID_N + 2;
    return ((size_t)grid_coord(g, p.x, 0) * side + (size_t)grid_coord(g, p.y, 1)) * side + (size_t)grid_coord(g, p.z, 2);
}

static void grid_build(const level_build *lb, const chunk_build *cb, point_grid *g)
{
    double h = lb->S / 2;
    v3 lo = v3_sub(cb->centre, v3_make(h, h, h)), hi = v3_add(cb->centre, v3_make(h, h, h));
    v3 elo = v3_sub(lo, v3_make(GEOM_EPS, GEOM_EPS, GEOM_EPS)), ehi = v3_add(hi, v3_make(GEOM_EPS, GEOM_EPS, GEOM_EPS));
    memset(g, 0, sizeof *g);
    g->lo = lo;
    g->cell = lb->S / GRID_N;
    const size_t cells = (size_t)(GRID_N + 2) * (GRID_N + 2) * (GRID_N + 2);
    g->start = xcalloc(cells + 1, sizeof *g->start);
    const chunk_build *sources[27];
    int nsources = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            for (int dz = -1; dz <= 1; dz++) {
                const chunk_build *nb = level_chunk_at(lb, (int64_t)cb->gx + dx, (int64_t)cb->gy + dy, (int64_t)cb->gz + dz);
                if (nb) sources[nsources++] = nb;
            }
    /* two passes: count per cell, then place (the chunk's own points all, the others' on its boundary) */
    size_t total = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < nsources; k++) {
            const chunk_build *src = sources[k];
            for (size_t i = 0; i < src->leaf_point_count; i++) {
                v3 p = src->leaf_points[i];
                if (src != cb && !in_box(p, elo, ehi)) continue;
                size_t c = grid_cell(g, p);
                if (pass) g->pts[g->start[c]++] = p;
                else g->start[c + 1]++, total++;
            }
        }
        if (!pass) {
            for (size_t c = 0; c < cells; c++) g->start[c + 1] += g->start[c];
            g->pts = xmalloc((total ? total : 1) * sizeof *g->pts);
        }
    }
    /* the placing moved each start to the next cell's: shift back */
    memmove(g->start + 1, g->start, cells * sizeof *g->start);
    g->start[0] = 0;
}

/* Appends the points of grid cell (cx, cy, cz) that lie inside edge a -> a + d (not at its ends). */
static void cell_on_edge(const point_grid *g, int cx, int cy, int cz, v3 a, v3 d, on_edge **found, size_t *count, size_t *cap)
{
    const size_t side = GRID_N + 2, cell = ((size_t)cx * side + (size_t)cy) * side + (size_t)cz;
    double len2 = v3_dot(d, d), len = sqrt(len2);
    for (uint32_t c = g->start[cell]; c < g->start[cell + 1]; c++) {
        v3 q = v3_sub(g->pts[c], a);
        double t = v3_dot(q, d) / len2;
        if (t * len <= GEOM_EPS || (1 - t) * len <= GEOM_EPS) continue;
        v3 off = v3_sub(q, v3_scale(d, t));
        if (v3_dot(off, off) > GEOM_EPS * GEOM_EPS) continue;
        if (*count == *cap) {
            *cap = *cap ? *cap * 2 : 16;
            *found = xrealloc(*found, *cap * sizeof **found);
        }
        (*found)[(*count)++] = (on_edge){ t, g->pts[c] };
    }
}

static v3 *push_point(sealed_polys *out)
{
    return PUSH(out->points, out->point_count, out->point_cap);
}

void chunk_seal(const level_build *lb, const chunk_build *cb, sealed_polys *out)
{
    memset(out, 0, sizeof *out);
    out->start = xmalloc((cb->leaf_poly_count + 1) * sizeof *out->start);
    point_grid grid;
    grid_build(lb, cb, &grid);
    on_edge *found = NULL;
    size_t found_cap = 0;
    for (size_t i = 0; i < cb->leaf_poly_count; i++) {
        const leaf_poly *lp = &cb->leaf_polys[i];
        const v3 *p = &cb->leaf_points[lp->first];
        out->start[i] = (uint32_t)out->point_count;
        for (int k = 0; k < lp->n; k++) {
            v3 a = p[k], b = p[(k + 1) % lp->n], d = v3_sub(b, a);
            double len2 = v3_dot(d, d), len = sqrt(len2);
            *push_point(out) = a;
            if (len <= 2 * GEOM_EPS) continue;
            /* the points in the cells the edge's bounds cross, then the exact test */
            int r[6];
            for (int e = 0; e < 3; e++) {
                r[e] = grid_coord(&grid, fmin(a.e[e], b.e[e]) - GEOM_EPS, e);
                r[e + 3] = grid_coord(&grid, fmax(a.e[e], b.e[e]) + GEOM_EPS, e);
            }
            size_t nfound = 0;
            for (int cx = r[0]; cx <= r[3]; cx++)
                for (int cy = r[1]; cy <= r[4]; cy++)
                    for (int cz = r[2]; cz <= r[5]; cz++)
                        cell_on_edge(&grid, cx, cy, cz, a, d, &found, &nfound, &found_cap);
            if (nfound) order_sort(found, nfound, sizeof *found, cmp_t);
            double last = 0;
            for (size_t f = 0; f < nfound; f++) {
                if ((found[f].t - last) * len <= GEOM_EPS) continue;   /* the same vertex again */
                *push_point(out) = found[f].p;
                last = found[f].t;
            }
        }
    }
    out->start[cb->leaf_poly_count] = (uint32_t)out->point_count;
    xfree(found);
    xfree(grid.start);
    xfree(grid.pts);
}
