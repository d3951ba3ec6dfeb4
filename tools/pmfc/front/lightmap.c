/* lightmap.c - every lit face of a chunk gets a block of luxels; the blocks are packed into as
 * few square 2^n lightmaps as fit (stb_rect_pack). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STB_RECT_PACK_IMPLEMENTATION
#include <stb_rect_pack.h>

#include "world.h"

#define LM_MAX_EXP 11
#define LM_MAX_BLOCK 256   /* luxels per side of one face's block; bigger faces get coarser luxels */

static void face_unwrap(chunk_face *cf, const face *f, double density)
{
    v3 n = f->pl.n;
    v3 hint = fabs(n.y) > 0.7 ? v3_make(0, 0, 1) : v3_make(0, 1, 0);
    v3 t = v3_normalize(v3_cross(hint, n));
    v3 b = v3_cross(n, t);
    double u0 = 1e30, u1 = -1e30, w0 = 1e30, w1 = -1e30;
    for (int i = 0; i < cf->n; i++) {
        double u = v3_dot(cf->p[i], t), w = v3_dot(cf->p[i], b);
        u0 = fmin(u0, u); u1 = fmax(u1, u);
        w0 = fmin(w0, w); w1 = fmax(w1, w);
    }
    double ext = fmax(u1 - u0, w1 - w0);
    if (ext * density > LM_MAX_BLOCK - 2) density = (LM_MAX_BLOCK - 2) / ext;
    cf->lm_w = (int)ceil((u1 - u0) * density - 1e-6) + 2;
    cf->lm_h = (int)ceil((w1 - w0) * density - 1e-6) + 2;
    if (cf->lm_w < 3) cf->lm_w = 3;
    if (cf->lm_h < 3) cf->lm_h = 3;
    cf->lm_density = density;
    cf->lm_t = t;
    cf->lm_b = b;
    /* the block's luxel (0, 0) corner: one luxel of border before the face */
    double border = 1.0 / density;
    cf->lm_origin = v3_add(v3_scale(n, f->pl.d), v3_add(v3_scale(t, u0 - border), v3_scale(b, w0 - border)));
}

void chunk_unwrap(const level_build *lb, chunk_build *cb)
{
    double density = lb->def->luxel_density > 0 ? lb->def->luxel_density : 4;
    size_t lit = 0;
    double area = 0;
    for (size_t i = 0; i < cb->face_count; i++) {
        chunk_face *cf = &cb->faces[i];
        const face *f = &lb->faces[cf->face];
        cf->lightmap = PMF_NO_LIGHTMAP;
        if (lb->def->fullbright || !material_lightmapped(&lb->map->materials[f->material])) continue;
        double scale = lb->def->brushes[f->brush].luxel_scale;
        face_unwrap(cf, f, scale > 1 ? density / scale : density);
        area += (double)cf->lm_w * cf->lm_h;
        lit++;
    }
    if (!lit) return;
    stbrp_rect *rects = xmalloc(lit * sizeof *rects);
    size_t *owner = xmalloc(lit * sizeof *owner);
    size_t remaining = 0;
    for (size_t i = 0; i < cb->face_count; i++)
        if (cb->faces[i].lm_w) {
            owner[remaining] = i;
            rects[remaining].id = (int)remaining;
            rects[remaining].w = (stbrp_coord)cb->faces[i].lm_w;
            rects[remaining].h = (stbrp_coord)cb->faces[i].lm_h;
            remaining++;
        }
    stbrp_node *nodes = xmalloc((1u << LM_MAX_EXP) * sizeof *nodes);
    size_t cap = 0;
    while (remaining) {
        if (cb->lightmap_count >= 254) break;
        int exp = 4;
        while (exp < LM_MAX_EXP && ldexp(1.0, 2 * exp) < area * 1.1) exp++;
        bool all = false;
        for (; exp <= LM_MAX_EXP; exp++) {
            int side = 1 << exp;
            stbrp_context ctx;
            stbrp_init_target(&ctx, side, side, nodes, side);
            all = stbrp_pack_rects(&ctx, rects, (int)remaining) != 0;
            if (all) break;
        }
        if (exp > LM_MAX_EXP) exp = LM_MAX_EXP;
        uint8_t index = cb->lightmap_count;
        if ((size_t)cb->lightmap_count + 1 > cap) {
            cap = cap ? cap * 2 : 4;
            cb->lightmaps = xrealloc(cb->lightmaps, cap * sizeof *cb->lightmaps);
        }
        cb->lightmaps[index].size_exp = (uint8_t)exp;
        cb->lightmaps[index].luxels = xcalloc((size_t)3 << (2 * exp), 1);
        cb->lightmap_count++;
        size_t keep = 0;
        area = 0;
        for (size_t r = 0; r < remaining; r++) {
            chunk_face *cf = &cb->faces[owner[rects[r].id]];
            if (rects[r].was_packed) {
                cf->lightmap = index;
                cf->lm_x = rects[r].x;
                cf->lm_y = rects[r].y;
            } else {
                rects[keep] = rects[r];
                area += (double)rects[r].w * rects[r].h;
                keep++;
            }
        }
        remaining = keep;
    }
    xfree(nodes);
    xfree(rects);
    xfree(owner);
}
