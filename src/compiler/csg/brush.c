/* brush.c - convex brushes (boxes, wedges) and the CSG that turns them into visible faces. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/jobs.h"
#include "common/memory.h"
#include "common/world.h"
#include "csg.h"
#include "fill/fill.h"

static const v3 face_normals[PMF_FACE_COUNT] = {
    { { 1, 0, 0 } }, { { 0, 1, 0 } }, { { 0, 0, 1 } }, { { -1, 0, 0 } }, { { 0, -1, 0 } }, { { 0, 0, -1 } },
};

static brush *brush_push(level_def *l, int kind)
{
    brush *b = PUSH(l->brushes, l->brush_count, l->brush_cap);
    b->kind = kind;
    b->first_side = (uint32_t)l->side_count;
    return b;
}

void brush_add_side(level_def *l, brush *b, plane pl, int material, int tex)
{
    brush_side *s = PUSH(l->sides, l->side_count, l->side_cap);
    s->pl = pl;
    s->material = material;
    s->tex = tex;
    b->side_count++;
}

static void brush_axis_sides(level_def *l, brush *b, v3 lo, v3 hi, const int material[PMF_FACE_COUNT], int skip)
{
    for (int f = 0; f < PMF_FACE_COUNT; f++) {
        if (f == skip) continue;
        plane pl = { face_normals[f], f < 3 ? hi.e[f] : -lo.e[f - 3] };
        brush_add_side(l, b, pl, material[f], -1);
    }
}

brush *brush_box(level_def *l, v3 lo, v3 hi, const int material[PMF_FACE_COUNT])
{
    brush *b = brush_push(l, BRUSH_BOX);
    b->lo = lo;
    b->hi = hi;
    brush_axis_sides(l, b, lo, hi, material, -1);
    return b;
}

brush *brush_wedge(level_def *l, v3 lo, v3 hi, int rise, const int material[PMF_FACE_COUNT], int slope_material)
{
    brush *b = brush_push(l, BRUSH_WEDGE);
    b->lo = lo;
    b->hi = hi;
    /* the top face is replaced by the slope; the low end's side shrinks to an edge and drops out */
    brush_axis_sides(l, b, lo, hi, material, PMF_FACE_POS_Y);
    int axis = rise % 3;                 /* 0 = X, 2 = Z */
    double sign = rise < 3 ? 1.0 : -1.0;
    double run = hi.e[axis] - lo.e[axis], h = hi.y - lo.y;
    /* up the slope: from (low end, lo.y) to (high end, hi.y) */
    v3 n = v3_make(0, run, 0);
    n.e[axis] = -sign * h;
    n = v3_normalize(n);
    v3 p = lo;
    p.e[axis] = sign > 0 ? lo.e[axis] : hi.e[axis];
    brush_add_side(l, b, (plane){ n, v3_dot(n, p) }, slope_material, -1);
    return b;
}

bool brush_holds_point(const level_def *l, const brush *b, v3 p, double margin)
{
    for (int a = 0; a < 3; a++)
        if (!(p.e[a] > b->lo.e[a] && p.e[a] < b->hi.e[a])) return false;
    const brush_side *sides = brush_sides(l, b);
    for (uint32_t s = 0; s < b->side_count; s++)
        if (!(v3_dot(sides[s].pl.n, p) < sides[s].pl.d - margin)) return false;
    return true;
}

/* The polygon of side i of a brush: a square on its plane around the brush (centred on its
 * bounds, not on the world origin: far out the square would miss it), cut by every other side. */
bool brush_side_poly(const level_def *l, const brush *b, uint32_t i, poly *out)
{
    const brush_side *sides = brush_sides(l, b);
    plane pl = sides[i].pl;
    v3 n = pl.n;
    v3 hint = fabs(n.y) > 0.9 ? v3_make(0, 0, 1) : v3_make(0, 1, 0);
    v3 t = v3_normalize(v3_cross(hint, n));
    v3 bt = v3_cross(n, t);
    v3 mid = v3_scale(v3_add(b->lo, b->hi), 0.5), size = v3_sub(b->hi, b->lo);
    v3 c = v3_sub(mid, v3_scale(n, v3_dot(n, mid) - pl.d));
    double r = sqrt(v3_dot(size, size)) + 1;
    out->n = 4;
    out->p[0] = v3_add(c, v3_add(v3_scale(t, -r), v3_scale(bt, -r)));
    out->p[1] = v3_add(c, v3_add(v3_scale(t, r), v3_scale(bt, -r)));
    out->p[2] = v3_add(c, v3_add(v3_scale(t, r), v3_scale(bt, r)));
    out->p[3] = v3_add(c, v3_add(v3_scale(t, -r), v3_scale(bt, r)));
    for (uint32_t j = 0; j < b->side_count && out->n >= 3; j++) {
        if (j == i) continue;
        poly back;
        poly_split(out, sides[j].pl, v3_scale(n, -1), NULL, &back);
        poly_copy(out, &back);
    }
    poly_simplify(out);
    return out->n >= 3 && poly_area(out) > 1e-8;
}

brush *brush_begin(level_def *l, int kind, v3 lo, v3 hi)
{
    brush *b = brush_push(l, kind);
    b->lo = lo;
    b->hi = hi;
    return b;
}

bool brush_finish(level_def *l, brush *b)
{
    v3 lo = v3_make(1e30, 1e30, 1e30), hi = v3_make(-1e30, -1e30, -1e30);
    bool any = false;
    for (uint32_t i = 0; i < b->side_count; i++) {
        poly p;
        if (!brush_side_poly(l, b, i, &p)) continue;
        any = true;
        for (int k = 0; k < p.n; k++)
            for (int a = 0; a < 3; a++) {
                lo.e[a] = fmin(lo.e[a], p.p[k].e[a]);
                hi.e[a] = fmax(hi.e[a], p.p[k].e[a]);
            }
    }
    bool solid = any && hi.x - lo.x > GEOM_EPS && hi.y - lo.y > GEOM_EPS && hi.z - lo.z > GEOM_EPS;
    if (!solid) {
        /* the brush and its sides are the last ones pushed */
        l->side_count = b->first_side;
        l->brush_count--;
        return false;
    }
    b->lo = lo;
    b->hi = hi;
    return true;
}

/* World-space planar texture projection: walls upright, floors seen from above unmirrored. */
static tex_proj face_tex_proj(v3 n, double scale, const double offset[2])
{
    tex_proj tp;
    memset(&tp, 0, sizeof tp);
    double ax = fabs(n.x), ay = fabs(n.y), az = fabs(n.z);
    if (ay >= ax && ay >= az) {
        tp.u = v3_make(1, 0, 0);
        tp.v = v3_make(0, 0, n.y > 0 ? 1 : -1);
    } else if (ax >= az) {
        tp.u = v3_make(0, 0, n.x > 0 ? -1 : 1);
        tp.v = v3_make(0, -1, 0);
    } else {
        tp.u = v3_make(n.z > 0 ? 1 : -1, 0, 0);
        tp.v = v3_make(0, -1, 0);
    }
    double inv = 1.0 / (scale > 0 ? scale : 1.0);
    tp.u = v3_scale(tp.u, inv);
    tp.v = v3_scale(tp.v, inv);
    tp.ou = offset[0];
    tp.ov = offset[1];
    return tp;
}

/* ---- CSG --------------------------------------------------------------------------------- */

/* A uniform grid over the brushes' bounds so a face meets only the brushes near it. */
typedef struct brush_grid {
    v3 lo;
    double cell;
    int nx, ny, nz;
    uint32_t *start;       /* [cell + 1] prefix sums into items */
    uint32_t *items;
} brush_grid;

static void grid_range(const brush_grid *g, v3 lo, v3 hi, int r[6])
{
    int n[3] = { g->nx, g->ny, g->nz };
    for (int a = 0; a < 3; a++) {
        int i0 = (int)floor((lo.e[a] - g->lo.e[a]) / g->cell - 1e-6);
        int i1 = (int)floor((hi.e[a] - g->lo.e[a]) / g->cell + 1e-6);
        r[a] = i0 < 0 ? 0 : i0 >= n[a] ? n[a] - 1 : i0;
        r[a + 3] = i1 < 0 ? 0 : i1 >= n[a] ? n[a] - 1 : i1;
    }
}

static void grid_build(brush_grid *g, const brush *brushes, size_t count)
{
    v3 lo = v3_make(1e30, 1e30, 1e30), hi = v3_make(-1e30, -1e30, -1e30);
    for (size_t i = 0; i < count; i++)
        for (int a = 0; a < 3; a++) {
            lo.e[a] = fmin(lo.e[a], brushes[i].lo.e[a]);
            hi.e[a] = fmax(hi.e[a], brushes[i].hi.e[a]);
        }
    double vol = (hi.x - lo.x + 1) * (hi.y - lo.y + 1) * (hi.z - lo.z + 1);
    g->cell = fmax(4.0, cbrt(vol / (double)(count + 1) * 4));
    g->lo = lo;
    g->nx = (int)((hi.x - lo.x) / g->cell) + 1;
    g->ny = (int)((hi.y - lo.y) / g->cell) + 1;
    g->nz = (int)((hi.z - lo.z) / g->cell) + 1;
    size_t cells = (size_t)g->nx * g->ny * g->nz;
    g->start = xcalloc(cells + 1, sizeof *g->start);
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            for (size_t c = 0; c < cells; c++) g->start[c + 1] += g->start[c];
            g->items = xmalloc((g->start[cells] + 1) * sizeof *g->items);
        }
        for (size_t i = 0; i < count; i++) {
            int r[6];
            grid_range(g, brushes[i].lo, brushes[i].hi, r);
            for (int y = r[1]; y <= r[4]; y++)
                for (int x = r[0]; x <= r[3]; x++)
                    for (int z = r[2]; z <= r[5]; z++) {
                        size_t c = ((size_t)y * g->nx + x) * g->nz + z;
                        if (pass == 0) g->start[c + 1]++;
                        else g->items[g->start[c]++] = (uint32_t)i;
                    }
        }
        if (pass == 1) {
            for (size_t c = cells; c > 0; c--) g->start[c] = g->start[c - 1];
            g->start[0] = 0;
        }
    }
}

static bool boxes_touch(v3 alo, v3 ahi, v3 blo, v3 bhi)
{
    for (int a = 0; a < 3; a++)
        if (alo.e[a] > bhi.e[a] + GEOM_EPS || blo.e[a] > ahi.e[a] + GEOM_EPS) return false;
    return true;
}

typedef struct frag_list { poly *items; size_t count, cap; } frag_list;

static void frag_push(frag_list *l, const poly *p)
{
    if (l->count == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->items = xrealloc(l->items, l->cap * sizeof *l->items);
    }
    poly_copy(&l->items[l->count++], p);
}

/* Removes from the fragments of face (of brush a, on plane pl) what lies inside brush b. The
 * result is built in *spare and the two lists swap: they are reused for every clip, as a face cut
 * by many brushes (a floor under a thousand pillars) holds megabytes of fragments that a fresh
 * list each time would map, fault in and unmap again. */
static void csg_clip(frag_list *frags, frag_list *spare, const level_def *l, size_t a, size_t bi, plane pl)
{
    const brush *b = &l->brushes[bi];
    const brush_side *sides = brush_sides(l, b);
    frag_list out = *spare;
    out.count = 0;
    for (size_t k = 0; k < frags->count; k++) {
        poly cur;
        poly_copy(&cur, &frags->items[k]);
        for (uint32_t j = 0; j < b->side_count; j++) {
            plane bp = sides[j].pl;
            bool coplanar = true;
            for (int i = 0; i < cur.n && coplanar; i++)
                coplanar = fabs(v3_dot(bp.n, cur.p[i]) - bp.d) <= GEOM_EPS;
            if (coplanar) {
                if (v3_dot(bp.n, pl.n) > 0 && bi < a) {
                    /* the same surface twice: the later brush keeps it */
                    frag_push(&out, &cur);
                    break;
                }
                continue; /* facing into b, or b's later twin: hidden */
            }
            poly front, back;
            poly_split(&cur, bp, pl.n, &front, &back);
            if (front.n >= 3 && poly_area(&front) > 1e-8)
                frag_push(&out, &front);
            if (back.n < 3 || poly_area(&back) <= 1e-8) break;
            poly_copy(&cur, &back);
        }
    }
    *spare = *frags;
    *frags = out;
}

/* The outside fill (fill.h): faces only the void outside a sealed map sees are not drawn, lit or
 * seen through; `unseen` (when not NULL) keeps them as occluders only, so light does not slip
 * between the inner faces of two brushes where the outer ones used to stop it. */
static void drop_unseen(level_build *lb, face **faces, size_t *count, bool keep_unseen)
{
    size_t kept = 0;
    for (size_t i = 0; i < *count; i++) {
        face *f = &(*faces)[i];
        if (fill_face_seen(lb->def->fill, f->p, f->n, f->pl.n)) {
            (*faces)[kept++] = *f;
            continue;
        }
        if (keep_unseen) {
            *(face *)PUSH(lb->void_faces, lb->void_face_count, lb->void_face_cap) = *f;
            lb->def->faces.lost[FACE_LOSS_OUTSIDE]++;   /* sky faces are counted as sky already */
        } else {
            xfree(f->p);
        }
    }
    *count = kept;
}

/* A share of level_faces: the faces of brushes [first, end), in their order, made on a worker
 * with lists of its own. */
typedef struct faces_part {
    size_t first, end;
    face *faces; size_t face_count, face_cap;
    face *sky_faces; size_t sky_face_count, sky_face_cap;
} faces_part;

typedef struct faces_job { const level_build *lb; const brush_grid *grid; faces_part *parts; } faces_job;

/* What of side i of brush a no other brush hides, into frags. */
static void side_fragments(const faces_job *job, size_t a, uint32_t i, const poly *p, uint32_t *stamp, uint32_t stamp_id,
                           frag_list *frags, frag_list *spare)
{
    const level_def *def = job->lb->def;
    const brush *brushes = def->brushes, *ba = &brushes[a];
    const brush_side *sides = brush_sides(def, ba);
    frags->count = 0;
    frag_push(frags, p);
    v3 flo = p->p[0], fhi = p->p[0];
    for (int k = 1; k < p->n; k++)
        for (int e = 0; e < 3; e++) {
            flo.e[e] = fmin(flo.e[e], p->p[k].e[e]);
            fhi.e[e] = fmax(fhi.e[e], p->p[k].e[e]);
        }
    int r[6];
    grid_range(job->grid, flo, fhi, r);
    for (int y = r[1]; y <= r[4] && frags->count && !ba->exact; y++)
        for (int x = r[0]; x <= r[3] && frags->count; x++)
            for (int z = r[2]; z <= r[5] && frags->count; z++) {
                size_t c = ((size_t)y * job->grid->nx + x) * job->grid->nz + z;
                for (uint32_t it = job->grid->start[c]; it < job->grid->start[c + 1] && frags->count; it++) {
                    uint32_t bi = job->grid->items[it];
                    if (bi == a || stamp[bi] == stamp_id) continue;
                    stamp[bi] = stamp_id;
                    const brush *bb = &brushes[bi];
                    if ((!bb->opaque && ba->opaque) || bb->exact) continue;
                    if (!boxes_touch(flo, fhi, bb->lo, bb->hi)) continue;
                    csg_clip(frags, spare, def, a, bi, sides[i].pl);
                }
            }
}

static void faces_part_job(void *user, size_t pi)
{
    const faces_job *job = user;
    const level_build *lb = job->lb;
    const level_def *def = lb->def;
    faces_part *part = &job->parts[pi];
    uint32_t *stamp = xcalloc(def->brush_count, sizeof *stamp);
    uint32_t stamp_id = 0;
    frag_list frags = { 0 }, spare = { 0 };
    for (size_t a = part->first; a < part->end; a++) {
        const brush *ba = &def->brushes[a];
        const brush_side *sides = brush_sides(def, ba);
        for (uint32_t i = 0; i < ba->side_count; i++) {
            int mat = sides[i].material;
            poly p;
            if (mat == BRUSH_SIDE_NODRAW || !brush_side_poly(def, ba, i, &p)) continue;
            side_fragments(job, a, i, &p, stamp, ++stamp_id, &frags, &spare);
            tex_proj tp = { 0 };
            if (sides[i].tex >= 0)
                tp = def->tex_projs[sides[i].tex];
            else if (mat >= 0)
                tp = face_tex_proj(sides[i].pl.n, ba->tex_scale > 0 ? ba->tex_scale : lb->map->materials[mat].tex_scale,
                                   ba->tex_offset);
            for (size_t k = 0; k < frags.count; k++) {
                poly_simplify(&frags.items[k]);
                if (frags.items[k].n < 3) continue;
                face *f = mat == BRUSH_SIDE_SKY ? PUSH(part->sky_faces, part->sky_face_count, part->sky_face_cap)
                                                : PUSH(part->faces, part->face_count, part->face_cap);
                f->material = mat;
                f->brush = (int)a;
                f->pl = sides[i].pl;
                f->tex = tp;
                f->n = frags.items[k].n;
                f->p = xmalloc((size_t)f->n * sizeof(v3));
                memcpy(f->p, frags.items[k].p, (size_t)f->n * sizeof(v3));
            }
        }
    }
    xfree(frags.items);
    xfree(spare.items);
    xfree(stamp);
}

/* The parts' faces after the level's, in brush order. */
static void take_faces(face **faces, size_t *count, size_t *cap, const face *add, size_t add_count)
{
    for (size_t i = 0; i < add_count; i++) *(face *)grow((void **)faces, count, cap, sizeof **faces) = add[i];
}

void level_faces(level_build *lb)
{
    const level_def *def = lb->def;
    size_t count = def->brush_count;
    if (!count) return;
    brush_grid grid;
    grid_build(&grid, def->brushes, count);
    /* four parts a worker, so one busy corner does not hold up the rest; few, as each part's
     * fragment lists grow (and fault their pages in) anew */
    size_t part_count = 4 * (size_t)jobs_thread_count(lb->threads);
    part_count = part_count < count ? part_count : count;
    faces_part *parts = xcalloc(part_count, sizeof *parts);
    for (size_t pi = 0; pi < part_count; pi++) {
        parts[pi].first = count * pi / part_count;
        parts[pi].end = count * (pi + 1) / part_count;
    }
    faces_job job = { lb, &grid, parts };
    jobs_parallel_for(part_count, lb->threads, faces_part_job, &job);
    for (size_t pi = 0; pi < part_count; pi++) {
        take_faces(&lb->faces, &lb->face_count, &lb->face_cap, parts[pi].faces, parts[pi].face_count);
        take_faces(&lb->sky_faces, &lb->sky_face_count, &lb->sky_face_cap, parts[pi].sky_faces, parts[pi].sky_face_count);
        xfree(parts[pi].faces);
        xfree(parts[pi].sky_faces);
    }
    xfree(parts);
    xfree(grid.start);
    xfree(grid.items);
    if (def->fill) {
        drop_unseen(lb, &lb->faces, &lb->face_count, true);
        drop_unseen(lb, &lb->sky_faces, &lb->sky_face_count, false);
    }
}
