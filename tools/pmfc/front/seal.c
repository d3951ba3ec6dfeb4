/* seal.c - watertight chunk meshes. Faces are cut by CSG, by chunk boundaries and by octree cubes
 * of different sizes, so a vertex of one polygon can lie inside an edge of its neighbour (a
 * T-junction): rasterised, the two edges round differently and pixels fall through. Sealing puts
 * every such vertex into the edge it lies on, in the chunk and across its boundary, so shared
 * edges are made of the same vertex pairs on both sides. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "world.h"

typedef struct on_edge { double t; v3 p; } on_edge;

static int cmp_x(const void *a, const void *b)
{
    double x = ((const v3 *)a)->x, y = ((const v3 *)b)->x;
    return x < y ? -1 : x > y;
}

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

/* The vertices an edge of this chunk may meet: its own, and its neighbours' on its boundary,
 * sorted by x. */
static v3 *seal_candidates(const level_build *lb, const chunk_build *cb, size_t *count)
{
    double h = lb->S / 2 + GEOM_EPS;
    v3 lo = v3_sub(cb->centre, v3_make(h, h, h)), hi = v3_add(cb->centre, v3_make(h, h, h));
    size_t n = cb->leaf_point_count, cap = n ? n : 1;
    v3 *pts = xmalloc(cap * sizeof *pts);
    if (n) memcpy(pts, cb->leaf_points, n * sizeof *pts);
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            for (int dz = -1; dz <= 1; dz++) {
                if (!dx && !dy && !dz) continue;
                const chunk_build *nb = level_chunk_at(lb, (int64_t)cb->gx + dx, (int64_t)cb->gy + dy, (int64_t)cb->gz + dz);
                if (!nb) continue;
                for (size_t i = 0; i < nb->leaf_point_count; i++) {
                    if (!in_box(nb->leaf_points[i], lo, hi)) continue;
                    if (n == cap) pts = xrealloc(pts, (cap *= 2) * sizeof *pts);
                    pts[n++] = nb->leaf_points[i];
                }
            }
    if (n) qsort(pts, n, sizeof *pts, cmp_x);
    *count = n;
    return pts;
}

static v3 *push_point(sealed_polys *out)
{
    return PUSH(out->points, out->point_count, out->point_cap);
}

void chunk_seal(const level_build *lb, const chunk_build *cb, sealed_polys *out)
{
    memset(out, 0, sizeof *out);
    out->start = xmalloc((cb->leaf_poly_count + 1) * sizeof *out->start);
    size_t cand_count;
    v3 *cand = seal_candidates(lb, cb, &cand_count);
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
            /* candidates with x in the edge's range (binary search), then the exact test */
            double x0 = fmin(a.x, b.x) - GEOM_EPS, x1 = fmax(a.x, b.x) + GEOM_EPS;
            size_t lo = 0, hi = cand_count;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (cand[mid].x < x0) lo = mid + 1; else hi = mid;
            }
            size_t nfound = 0;
            for (size_t c = lo; c < cand_count && cand[c].x <= x1; c++) {
                v3 q = v3_sub(cand[c], a);
                double t = v3_dot(q, d) / len2;
                if (t * len <= GEOM_EPS || (1 - t) * len <= GEOM_EPS) continue;
                v3 off = v3_sub(q, v3_scale(d, t));
                if (v3_dot(off, off) > GEOM_EPS * GEOM_EPS) continue;
                if (nfound == found_cap) {
                    found_cap = found_cap ? found_cap * 2 : 16;
                    found = xrealloc(found, found_cap * sizeof *found);
                }
                found[nfound++] = (on_edge){ t, cand[c] };
            }
            if (nfound) qsort(found, nfound, sizeof *found, cmp_t);
            double last = 0;
            for (size_t f = 0; f < nfound; f++) {
                if ((found[f].t - last) * len <= GEOM_EPS) continue;   /* the same vertex again */
                *push_point(out) = found[f].p;
                last = found[f].t;
            }
        }
    }
    out->start[cb->leaf_poly_count] = (uint32_t)out->point_count;
    free(found);
    free(cand);
}
