/* smooth.c - smooth shading: the corners of faces whose material smooths get the mean normal of
 * the faces meeting there at less than the smoothing angle, and each lightmap patch gets the
 * linear normal field that best fits its face's corners (bake_patch.shade_*), so that a cylinder
 * of flat brush sides bakes as a round one. */
#include <math.h>
#include <stdlib.h>

#include "light.h"

#define SMOOTH_WELD 1e-4    /* metres: corners this close are the same corner */

struct smooth_normals {
    size_t *first;          /* [face]: its corners' run in `normals`, or SIZE_MAX when flat */
    v3 *normals;
};

typedef struct corner { double x; uint32_t face; int k; } corner;

static int compare_corner(const void *a, const void *b)
{
    const corner *p = a, *q = b;
    if (p->x != q->x) return p->x < q->x ? -1 : 1;
    if (p->face != q->face) return p->face < q->face ? -1 : 1;
    return (p->k > q->k) - (p->k < q->k);
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
            corners[at] = (corner){ f->p[k].x, (uint32_t)i, k };
            sn->normals[at] = f->pl.n;
        }
    }
    /* sorted along x, each corner meets the others within SMOOTH_WELD in a short run */
    qsort(corners, count, sizeof *corners, compare_corner);
    for (size_t a = 0; a < count; a++) {
        const face *fa = &lb->faces[corners[a].face];
        v3 pa = fa->p[corners[a].k];
        for (size_t b = a + 1; b < count && corners[b].x - corners[a].x <= SMOOTH_WELD; b++) {
            if (corners[b].face == corners[a].face) continue;
            const face *fb = &lb->faces[corners[b].face];
            v3 d = v3_sub(fb->p[corners[b].k], pa);
            if (v3_dot(d, d) > SMOOTH_WELD * SMOOTH_WELD) continue;
            double limit = fmin(face_smooth_angle(lb, fa), face_smooth_angle(lb, fb));
            if (v3_dot(fa->pl.n, fb->pl.n) <= cos(limit * M_PI / 180)) continue;
            size_t ia = sn->first[corners[a].face] + (size_t)corners[a].k;
            size_t ib = sn->first[corners[b].face] + (size_t)corners[b].k;
            sn->normals[ia] = v3_add(sn->normals[ia], fb->pl.n);
            sn->normals[ib] = v3_add(sn->normals[ib], fa->pl.n);
        }
    }
    for (size_t i = 0; i < count; i++) sn->normals[i] = v3_normalize(sn->normals[i]);
    free(corners);
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
    free(sn->first);
    free(sn->normals);
    free(sn);
}
