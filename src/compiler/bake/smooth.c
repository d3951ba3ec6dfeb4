/* smooth.c - smooth shading: the corners of faces whose material smooths get the mean normal of
 * the faces meeting there at less than the smoothing angle, and each lightmap patch gets the
 * linear normal field that best fits its face's corners (bake_patch.shade_*), so that a cylinder
 * of flat brush sides bakes as a round one. */
#include <math.h>
#include <stdlib.h>

#include "common/memory.h"
#include "light.h"
#include "base/order.h"

#define SMOOTH_WELD 1e-4    /* metres: corners in the same cell of this size are the same corner */
#define SMOOTH_RUN_MAX 256  /* a corner shared by more faces than this stays flat (bounded work) */

struct smooth_normals {
    size_t *first;          /* [face]: its corners' run in `normals`, or SIZE_MAX when flat */
    v3 *normals;
};

typedef struct corner { int64_t cell[3]; uint32_t face; int k; } corner;

static int compare_corner(const void *a, const void *b)
{
    const corner *p = a, *q = b;
    for (int i = 0; i < 3; i++)
        if (p->cell[i] != q->cell[i]) return p->cell[i] < q->cell[i] ? -1 : 1;
    if (p->face != q->face) return p->face < q->face ? -1 : 1;
    return (p->k > q->k) - (p->k < q->k);
}

static bool same_cell(const corner *p, const corner *q)
{
    return p->cell[0] == q->cell[0] && p->cell[1] == q->cell[1] && p->cell[2] == q->cell[2];
}

static double face_smooth_angle(const level_build *lb, const face *f)
{
    return f->material >= 0 ? lb->map->materials[f->material].smooth_angle : 0;
}

smooth_normals *level_smooth_normals(const level_build *lb)
{
    size_t count = 0;
    for (size_t i = 0; i < lb->face_count; i++)
        if (face_smooth_angle(lb, &lb->faces[i]) > 0) count += (size_t)lb->faces[i].n;
    if (!count) return NULL;
    smooth_normals *sn = xcalloc(1, sizeof *sn);
    sn->first = xmalloc(lb->face_count * sizeof *sn->first);
    sn->normals = xmalloc(count * sizeof *sn->normals);
    corner *corners = xmalloc(count * sizeof *corners);
    size_t at = 0;
    for (size_t i = 0; i < lb->face_count; i++) {
        const face *f = &lb->faces[i];
        sn->first[i] = SIZE_MAX;
        if (!(face_smooth_angle(lb, f) > 0)) continue;
        sn->first[i] = at;
        for (int k = 0; k < f->n; k++, at++) {
            corners[at] = (corner){ { llround(f->p[k].x / SMOOTH_WELD), llround(f->p[k].y / SMOOTH_WELD),
                                      llround(f->p[k].z / SMOOTH_WELD) }, (uint32_t)i, k };
            sn->normals[at] = f->pl.n;
        }
    }
    /* sorted by cell, the faces meeting at a corner form one run */
    order_sort(corners, count, sizeof *corners, compare_corner);
    for (size_t start = 0, end; start < count; start = end) {
        for (end = start + 1; end < count && same_cell(&corners[end], &corners[start]); end++) {}
        if (end - start > SMOOTH_RUN_MAX) continue;
        for (size_t a = start; a < end; a++)
            for (size_t b = a + 1; b < end; b++) {
                if (corners[b].face == corners[a].face) continue;
                const face *fa = &lb->faces[corners[a].face], *fb = &lb->faces[corners[b].face];
                double limit = fmin(face_smooth_angle(lb, fa), face_smooth_angle(lb, fb));
                if (v3_dot(fa->pl.n, fb->pl.n) <= cos(limit * M_PI / 180)) continue;
                size_t ia = sn->first[corners[a].face] + (size_t)corners[a].k;
                size_t ib = sn->first[corners[b].face] + (size_t)corners[b].k;
                sn->normals[ia] = v3_add(sn->normals[ia], fb->pl.n);
                sn->normals[ib] = v3_add(sn->normals[ib], fa->pl.n);
            }
    }
    for (size_t i = 0; i < count; i++) sn->normals[i] = v3_normalize(sn->normals[i]);
    xfree(corners);
    return sn;
}

static double det3(const double m[3][3])
{
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

void smooth_patch(const level_build *lb, const smooth_normals *sn, const chunk_face *cf, bake_patch *bp)
{
    const face *f = &lb->faces[cf->face];
    size_t first = sn->first[cf->face];
    if (first == SIZE_MAX) return;
    bool curved = false;
    for (int k = 0; k < f->n; k++) {
        v3 d = v3_sub(sn->normals[first + (size_t)k], f->pl.n);
        curved = curved || v3_dot(d, d) > 1e-12;
    }
    if (!curved) return;
    /* least squares: normal(s, t) = A + s Ds + t Dt over the corners, (s, t) in the patch's
     * luxel coordinates */
    double m[3][3] = { { 0 } }, rhs[3][3] = { { 0 } };
    for (int k = 0; k < f->n; k++) {
        v3 d = v3_sub(f->p[k], cf->lm_origin);
        double row[3] = { 1, v3_dot(d, cf->lm_t) * cf->lm_density, v3_dot(d, cf->lm_b) * cf->lm_density };
        v3 nk = sn->normals[first + (size_t)k];
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 3; c++) m[r][c] += row[r] * row[c];
            for (int a = 0; a < 3; a++) rhs[r][a] += row[r] * nk.e[a];
        }
    }
    double det = det3(m);
    double coef[3][3] = { { 0 } };      /* [A, Ds, Dt][axis] */
    if (fabs(det) > 1e-9 * (m[1][1] * m[2][2] + 1)) {
        for (int r = 0; r < 3; r++) {   /* Cramer: column r replaced by the right-hand side */
            for (int a = 0; a < 3; a++) {
                double mr[3][3];
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++) mr[i][j] = j == r ? rhs[i][a] : m[i][j];
                coef[r][a] = det3(mr) / det;
            }
        }
    } else {
        for (int a = 0; a < 3; a++) coef[0][a] = rhs[0][a] / m[0][0];
    }
    for (int a = 0; a < 3; a++) {
        bp->shade_normal[a] = (float)coef[0][a];
        bp->shade_du[a] = (float)coef[1][a];
        bp->shade_dv[a] = (float)coef[2][a];
    }
}

void smooth_normals_free(smooth_normals *sn)
{
    if (!sn) return;
    xfree(sn->first);
    xfree(sn->normals);
    xfree(sn);
}
