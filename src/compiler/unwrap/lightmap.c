/* lightmap.c - every lit face of a chunk gets a block of luxels; the blocks of faces near one
 * another are packed together into square 2^n lightmaps of a bounded side (stb_rect_pack). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/order.h"

/* stb_rect_pack sorts the blocks by height with qsort; Windows' is not stable, and packed blocks
 * of one height in an order of its own: lightmaps laid out unlike Linux's, and a --tile build's
 * unlike a one-tile build's */
#define STBRP_SORT order_sort
#define STB_RECT_PACK_IMPLEMENTATION
#include <stb_rect_pack.h>

#include "bake/light.h"
#include "common/memory.h"
#include "common/world.h"
#include "unwrap.h"

#define LM_MAX_EXP 11
#define LM_MAX_BLOCK 256   /* luxels per side of one face's block; bigger faces get coarser luxels */

/* Where the luxel grid lies: along t from u_phase in steps of 1 / density (and w the same). */
typedef struct luxel_grid { v3 t, b; double u_phase, w_phase; } luxel_grid;

/* The first luxel centre on the grid's phase at or before `min` less the border's luxel. */
static double snap_start(double min, double phase, double density)
{
    return phase + (floor((min - 1.0 / density - phase) * density + 0.5) - 0.5) / density + 1.0 / density;
}

static void face_unwrap(chunk_face *cf, const face *f, double density, const luxel_grid *grid)
{
    v3 n = f->pl.n;
    v3 hint = fabs(n.y) > 0.7 ? v3_make(0, 0, 1) : v3_make(0, 1, 0);
    v3 t = grid ? grid->t : v3_normalize(v3_cross(hint, n));
    v3 b = grid ? grid->b : v3_cross(n, t);
    double u0 = 1e30, u1 = -1e30, w0 = 1e30, w1 = -1e30;
    for (int i = 0; i < cf->n; i++) {
        double u = v3_dot(cf->p[i], t), w = v3_dot(cf->p[i], b);
        u0 = fmin(u0, u); u1 = fmax(u1, u);
        w0 = fmin(w0, w); w1 = fmax(w1, w);
    }
    double ext = fmax(u1 - u0, w1 - w0);
    /* a block laid on the source's grid may need one luxel more for its phase */
    double most = grid ? LM_MAX_BLOCK - 3 : LM_MAX_BLOCK - 2;
    if (ext * density > most) {
        density = most / ext;
        grid = NULL;
    }
    if (grid) {
        /* the source's luxel centres are this block's: its light is copied, not resampled */
        u0 = snap_start(u0, grid->u_phase, density);
        w0 = snap_start(w0, grid->w_phase, density);
    }
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

/* The prelit source's luxel grid on this face, when its axes lie in the face's plane at right
 * angles with one spacing (walls and floors of a BSP); NULL otherwise. */
static const luxel_grid *source_grid(const level_build *lb, const chunk_face *cf, const face *f, double *density, luxel_grid *out)
{
    const prelit_source *src = lb->def->prelit;
    if (!src || !src->grid || !cf->n) return NULL;
    v3 centre = v3_make(0, 0, 0);
    for (int i = 0; i < cf->n; i++) centre = v3_add(centre, v3_scale(cf->p[i], 1.0 / cf->n));
    v3 t, b, luxel;
    double spacing;
    /* the source knows its own coordinates: world less the level's shift */
    if (!src->grid(src, v3_sub(centre, lb->def->shift), f->pl.n, &t, &b, &spacing, &luxel)) return NULL;
    luxel = v3_add(luxel, lb->def->shift);
    if (fabs(v3_dot(t, f->pl.n)) > 1e-4 || fabs(v3_dot(b, f->pl.n)) > 1e-4 || fabs(v3_dot(t, b)) > 1e-4) return NULL;
    out->t = t;
    out->b = b;
    out->u_phase = v3_dot(luxel, t);
    out->w_phase = v3_dot(luxel, b);
    *density = 1.0 / spacing;
    return out;
}

/* A chunk that a dynamic light reaches has its blocks go to lightmaps of at most 2^LM_SPLIT_EXP
 * luxels a side, filled with blocks of faces near one another: a dynamic light's layer covers a
 * whole lightmap, so a light that reaches a corner of a chunk takes a few small lightmaps, not the
 * chunk's whole atlas. The side grows where a chunk would need more than LM_SPLIT_MOST lightmaps
 * (255 at most). Other chunks take as few lightmaps as hold their blocks: a cube holds faces of
 * one lightmap, so more lightmaps split more cubes. */
#define LM_SPLIT_EXP 8
#define LM_SPLIT_MOST 128
#define LM_SPLIT_FILL 0.7  /* the share of a lightmap its blocks' area is planned to fill */

/* The largest lightmap side the chunk's blocks of `area` luxels go to. */
static int split_exp(double area)
{
    int exp = LM_SPLIT_EXP;
    while (exp < LM_MAX_EXP && area > LM_SPLIT_MOST * LM_SPLIT_FILL * ldexp(1.0, 2 * exp)) exp++;
    return exp;
}

/* (A dynamic light without a range, a source's light style of a BSP, may light anything.) */
bool chunk_dynamic_lit(const level_build *lb, const chunk_build *cb)
{
    double h = lb->S / 2;
    v3 lo = v3_sub(cb->centre, v3_make(h, h, h)), hi = v3_add(cb->centre, v3_make(h, h, h));
    for (size_t i = 0; i < lb->def->light_count; i++) {
        const light_def *l = &lb->def->lights[i];
        if (l->kind == BAKE_LIGHT_DYNAMIC && (!(l->range > 0) || light_reaches(l, lo, hi))) return true;
    }
    return false;
}

/* The position of a face's middle along a Z-order curve through the chunk (10 bits an axis). */
static uint32_t face_order(const level_build *lb, const chunk_build *cb, const chunk_face *cf)
{
    v3 mid = v3_make(0, 0, 0);
    for (int i = 0; i < cf->n; i++) mid = v3_add(mid, v3_scale(cf->p[i], 1.0 / cf->n));
    uint32_t key = 0;
    for (int a = 0; a < 3; a++) {
        double t = (mid.e[a] - cb->centre.e[a]) / lb->S + 0.5;
        uint32_t q = (uint32_t)fmin(fmax(t * 1024.0, 0.0), 1023.0);
        for (int bit = 0; bit < 10; bit++) key |= ((q >> bit) & 1u) << (3 * bit + a);
    }
    return key;
}

typedef struct block_order { uint32_t key, face; } block_order;

static int compare_block_order(const void *a, const void *b)
{
    const block_order *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->face > y->face) - (x->face < y->face);
}

/* A new lightmap of side 2^exp for the chunk; its index. */
static uint8_t add_lightmap(chunk_build *cb, int exp, size_t *cap)
{
    uint8_t index = cb->lightmap_count;
    if ((size_t)cb->lightmap_count + 1 > *cap) {
        *cap = *cap ? *cap * 2 : 4;
        cb->lightmaps = xrealloc(cb->lightmaps, *cap * sizeof *cb->lightmaps);
    }
    cb->lightmaps[index].size_exp = (uint8_t)exp;
    cb->lightmaps[index].luxels = xcalloc((size_t)3 << (2 * exp), 1);
    cb->lightmap_count++;
    return index;
}

/* Packs the blocks rects[0, *remaining) (in face order) into the chunk's lightmaps: each takes
 * the next blocks up to its planned fill, in the smallest side that holds them all, or as many
 * as the largest side holds; the others stay first for the next. */
static void pack_blocks(chunk_build *cb, stbrp_rect *rects, size_t remaining, const size_t *owner, int most_exp)
{
    stbrp_node *nodes = xmalloc((1u << LM_MAX_EXP) * sizeof *nodes);
    size_t cap = 0;
    double budget = LM_SPLIT_FILL * ldexp(1.0, 2 * most_exp);
    while (remaining && cb->lightmap_count < 254) {
        size_t take = 0;
        double area = 0;
        for (; take < remaining; take++) {
            double block = (double)rects[take].w * rects[take].h;
            if (take && area + block > budget) break;
            area += block;
        }
        int exp = 4;
        while (exp < most_exp && ldexp(1.0, 2 * exp) < area * 1.1) exp++;
        for (;; exp++) {
            int side = 1 << exp;
            stbrp_context ctx;
            stbrp_init_target(&ctx, side, side, nodes, side);
            if (stbrp_pack_rects(&ctx, rects, (int)take) || exp >= most_exp) break;
        }
        uint8_t index = add_lightmap(cb, exp, &cap);
        size_t keep = 0;
        for (size_t r = 0; r < remaining; r++) {
            chunk_face *cf = &cb->faces[owner[rects[r].id]];
            if (r < take && rects[r].was_packed) {
                cf->lightmap = index;
                cf->lm_x = rects[r].x;
                cf->lm_y = rects[r].y;
            } else {
                rects[keep++] = rects[r];
            }
        }
        remaining = keep;
    }
    xfree(nodes);
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
        double scale = lb->def->brushes[f->brush].luxel_scale, face_density = scale > 1 ? density / scale : density;
        luxel_grid grid;
        const luxel_grid *g = scale > 1 ? NULL : source_grid(lb, cf, f, &face_density, &grid);
        face_unwrap(cf, f, face_density, g);
        area += (double)cf->lm_w * cf->lm_h;
        lit++;
    }
    if (!lit) return;
    block_order *order = xmalloc(lit * sizeof *order);
    size_t n = 0;
    for (size_t i = 0; i < cb->face_count; i++)
        if (cb->faces[i].lm_w) order[n++] = (block_order){ face_order(lb, cb, &cb->faces[i]), (uint32_t)i };
    order_sort(order, n, sizeof *order, compare_block_order);
    stbrp_rect *rects = xmalloc(lit * sizeof *rects);
    size_t *owner = xmalloc(lit * sizeof *owner);
    for (size_t r = 0; r < n; r++) {
        owner[r] = order[r].face;
        cb->faces[order[r].face].lm_seed = order[r].key;
        rects[r].id = (int)r;
        rects[r].w = (stbrp_coord)cb->faces[order[r].face].lm_w;
        rects[r].h = (stbrp_coord)cb->faces[order[r].face].lm_h;
    }
    pack_blocks(cb, rects, n, owner, chunk_dynamic_lit(lb, cb) ? split_exp(area) : LM_MAX_EXP);
    xfree(order);
    xfree(rects);
    xfree(owner);
}

/* The dynamic lights that carry the source's light styles: style[k]'s light is the level's
 * light[k] (the first dynamic light with that style). */
#define PRELIT_MAX_STYLED 64
typedef struct styled_lights { int count; uint8_t style[PRELIT_MAX_STYLED]; uint32_t light[PRELIT_MAX_STYLED]; } styled_lights;

/* Where a face's block writes: the base lightmap and, per styled light, its layer on that
 * lightmap (NULL until the source shows the style on this lightmap). */
typedef struct block_out {
    uint8_t *luxels;                 /* NULL: only count (level_mark_prelit) */
    size_t side;
    uint8_t *covered;                /* lm_w x lm_h: what the source covers */
    level_light *ll;
    uint32_t lightmap;               /* bake lightmap */
    const styled_lights *styled;
    uint8_t *layers[PRELIT_MAX_STYLED];
} block_out;

static void put_luxel(uint8_t *luxels, size_t side, const chunk_face *cf, int x, int y, const uint8_t rgb[3])
{
    memcpy(luxels + (((size_t)cf->lm_y + y) * side + cf->lm_x + x) * 3, rgb, 3);
}

/* Samples the source's light at each luxel centre of the face's block (source coordinates:
 * world less the level's shift), writing what it covers where `out` says. Returns whether it
 * covers every luxel but the block's border ring (the luxels past the face's edges, which a
 * compiler's face may not reach). */
static bool face_prelit(const level_build *lb, const chunk_face *cf, block_out *out)
{
    const prelit_source *src = lb->def->prelit;
    v3 n = lb->faces[cf->face].pl.n;
    bool inside = true;
    static const uint8_t dark[3] = { 0, 0, 0 };
    for (int y = 0; y < cf->lm_h && (inside || out->luxels); y++)
        for (int x = 0; x < cf->lm_w && (inside || out->luxels); x++) {
            v3 p = v3_add(cf->lm_origin, v3_add(v3_scale(cf->lm_t, (x + 0.5) / cf->lm_density),
                                                v3_scale(cf->lm_b, (y + 0.5) / cf->lm_density)));
            uint8_t rgb[3];
            prelit_styles styles;
            bool hit = src->sample(src, v3_sub(p, lb->def->shift), n, rgb, out->luxels ? &styles : NULL);
            if (!hit && x > 0 && y > 0 && x < cf->lm_w - 1 && y < cf->lm_h - 1) inside = false;
            if (!out->luxels) continue;
            out->covered[y * cf->lm_w + x] = hit;
            if (!hit) continue;
            put_luxel(out->luxels, out->side, cf, x, y, rgb);
            /* each styled light's layer: the source's style here, else dark (pmfc's bake of it goes) */
            for (int k = 0; k < out->styled->count; k++) {
                const uint8_t *value = dark;
                for (int j = 0; j < styles.count; j++)
                    if (styles.style[j] == out->styled->style[k]) value = styles.rgb[j];
                if (!out->layers[k] && value != dark)
                    out->layers[k] = level_light_layer(out->ll, out->styled->light[k], out->lightmap, true);
                if (out->layers[k]) put_luxel(out->layers[k], out->side, cf, x, y, value);
            }
        }
    return inside;
}

/* The luxels of a block the source left uncovered take the mean of their covered neighbours,
 * ring by ring (the border luxels past the compiler's face); `covered` is left as it was. */
static void dilate_block(const chunk_face *cf, uint8_t *luxels, size_t side, uint8_t *covered)
{
    int w = cf->lm_w, h = cf->lm_h;
    for (bool more = true; more;) {
        more = false;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                if (covered[y * w + x]) continue;
                unsigned sum[3] = { 0, 0, 0 }, n = 0;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        int nx = x + dx, ny = y + dy;
                        if (nx < 0 || ny < 0 || nx >= w || ny >= h || covered[ny * w + nx] != 1) continue;
                        const uint8_t *c = luxels + (((size_t)cf->lm_y + ny) * side + cf->lm_x + nx) * 3;
                        for (int k = 0; k < 3; k++) sum[k] += c[k];
                        n++;
                    }
                if (!n) continue;
                uint8_t rgb[3];
                for (int k = 0; k < 3; k++) rgb[k] = (uint8_t)((sum[k] + n / 2) / n);
                put_luxel(luxels, side, cf, x, y, rgb);
                covered[y * w + x] = 2;   /* filled this ring: a source for the next one only */
                more = true;
            }
        for (int k = 0; k < w * h; k++) covered[k] = covered[k] == 1 || covered[k] == 2;
    }
}

typedef struct prelit_job { level_build *lb; level_light *ll; styled_lights styled; } prelit_job;

/* One chunk: marks its faces (before the bake, no ll) or lays the source's light on them. */
static void prelit_chunk(void *user, size_t c)
{
    const prelit_job *job = user;
    level_build *lb = job->lb;
    chunk_build *cb = &lb->chunks[c];
    if (!cb->present || cb->margin) return;
    /* a block with its phase luxel, and a copy for each layer's dilation */
    size_t most = (size_t)(LM_MAX_BLOCK + 2) * (LM_MAX_BLOCK + 2);
    uint8_t *covered = job->ll ? xmalloc(2 * most) : NULL;
    for (size_t i = 0; i < cb->face_count; i++) {
        chunk_face *cf = &cb->faces[i];
        if (cf->lightmap == PMF_NO_LIGHTMAP) continue;
        if (!job->ll) {
            /* the compiler's light inside, its border filled from it; else pmfc bakes the face */
            cf->prelit = face_prelit(lb, cf, &(block_out){ 0 });
            continue;
        }
        pmf_lightmap *lm = &cb->lightmaps[cf->lightmap];
        block_out out = { .luxels = lm->luxels, .side = (size_t)1 << lm->size_exp, .covered = covered, .ll = job->ll,
                          .lightmap = cb->bake_lightmap_base + cf->lightmap, .styled = &job->styled };
        for (int k = 0; k < job->styled.count; k++)
            out.layers[k] = level_light_layer(job->ll, job->styled.light[k], out.lightmap, false);
        face_prelit(lb, cf, &out);
        if (!cf->prelit) continue;
        size_t cells = (size_t)cf->lm_w * cf->lm_h;
        memcpy(covered + most, covered, cells);
        dilate_block(cf, lm->luxels, out.side, covered);
        for (int k = 0; k < job->styled.count; k++)
            if (out.layers[k]) {
                memcpy(covered, covered + most, cells);
                dilate_block(cf, out.layers[k], out.side, covered);
            }
    }
    xfree(covered);
}

void level_mark_prelit(level_build *lb)
{
    if (lb->def->prelit) jobs_parallel_for(level_chunk_count(lb), lb->threads, prelit_chunk, &(prelit_job){ .lb = lb });
}

void level_apply_prelit(level_build *lb, level_light *ll)
{
    if (!lb->def->prelit) return;
    prelit_job job = { .lb = lb, .ll = ll };
    bool taken[256] = { false };
    for (size_t i = 0; i < lb->def->light_count && job.styled.count < PRELIT_MAX_STYLED; i++) {
        const light_def *l = &lb->def->lights[i];
        if (l->kind != BAKE_LIGHT_DYNAMIC || l->style <= 0 || l->style > 254 || taken[l->style]) continue;
        taken[l->style] = true;
        job.styled.style[job.styled.count] = (uint8_t)l->style;
        job.styled.light[job.styled.count++] = (uint32_t)i;
    }
    jobs_parallel_for(level_chunk_count(lb), lb->threads, prelit_chunk, &job);
    level_light_index_layers(ll);
}
