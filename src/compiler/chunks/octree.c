/* octree.c - one chunk's cube octree: cube 0 spans the chunk; cubes down to the visibility-cell
 * depth always exist (cells a camera can stand in); below that, a cube splits until what it
 * holds fits one geometry cube (axis-aligned quads, one per direction, one material and
 * lightmap) or one extended geometry cube (triangles grouped by direction, one material and
 * lightmap per direction, at most 255 per direction). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chunks.h"
#include "common/memory.h"
#include "common/world.h"

#define MAX_DEPTH 20
/* Faces a fast light reaches carry its light per vertex: they are cut into cells of at most
 * this side (metres, on a world-aligned grid), in cubes of at most FAST_LIT_CUBE, so the
 * interpolated light reads as a round pool, not as diamonds over two big triangles. */
#define FAST_LIT_CELL 0.5
#define FAST_LIT_CUBE 2.0

/* facing: the side a face lying in a cube side belongs to (its normal, except on the grid's
 * outer sides where nothing lies beyond) */
typedef struct item { int cf; int dir; v3 facing; poly p; } item;

typedef struct octree_ctx {
    const level_build *lb;
    chunk_build *cb;
    bool *fast_lit;                  /* [chunk face]: a fast light's range reaches it */
} octree_ctx;

static int face_dir(v3 n)
{
    double ax = fabs(n.x), ay = fabs(n.y), az = fabs(n.z);
    if (ax >= ay && ax >= az) return n.x > 0 ? PMF_FACE_POS_X : PMF_FACE_NEG_X;
    if (ay >= az) return n.y > 0 ? PMF_FACE_POS_Y : PMF_FACE_NEG_Y;
    return n.z > 0 ? PMF_FACE_POS_Z : PMF_FACE_NEG_Z;
}

/* A leaf polygon on its way out: its outline after sealing; `fan` when sealing added vertices to
 * it (then it is drawn as a fan around its centre, as a fan from a corner would give triangles
 * of no area along the split edges and leave the seam open). */
typedef struct shape { int cf, dir, n; const v3 *p; bool fan; } shape;

static const face *cf_face(const octree_ctx *o, int cf)
{
    return &o->lb->faces[o->cb->faces[cf].face];
}

static const face *item_face(const octree_ctx *o, const item *it) { return cf_face(o, it->cf); }

/* (material, lightmap, double-sided): what one geometry cube or one direction group shares. */
static uint32_t cf_key(const octree_ctx *o, int cf)
{
    const face *f = cf_face(o, cf);
    const material_def *m = &o->lb->map->materials[f->material];
    return ((uint32_t)f->material << 9) | ((uint32_t)o->cb->faces[cf].lightmap << 1) | (m->double_sided ? 1u : 0u);
}

static uint32_t item_key(const octree_ctx *o, const item *it) { return cf_key(o, it->cf); }

static bool item_is_quad(const octree_ctx *o, const item *it)
{
    v3 n = item_face(o, it)->pl.n;
    int a = it->dir % 3;
    if (fabs(fabs(n.e[a]) - 1.0) > 1e-12 || it->p.n != 4) return false;
    v3 lo = it->p.p[0], hi = it->p.p[0];
    for (int i = 1; i < 4; i++)
        for (int e = 0; e < 3; e++) {
            lo.e[e] = fmin(lo.e[e], it->p.p[i].e[e]);
            hi.e[e] = fmax(hi.e[e], it->p.p[i].e[e]);
        }
    for (int i = 0; i < 4; i++)
        for (int e = 0; e < 3; e++) {
            if (e == a) continue;
            double v = it->p.p[i].e[e];
            if (fabs(v - lo.e[e]) > 1e-9 && fabs(v - hi.e[e]) > 1e-9) return false;
        }
    /* four distinct corners of the rectangle */
    for (int i = 0; i < 4; i++) {
        v3 d = v3_sub(it->p.p[i], it->p.p[(i + 2) % 4]);
        int differing = 0;
        for (int e = 0; e < 3; e++) differing += e != a && fabs(d.e[e]) > 1e-9;
        if (differing != 2) return false;
    }
    return true;
}

static uint32_t new_cube(chunk_build *cb)
{
    if (cb->cube_count == cb->cube_cap) {
        cb->cube_cap = cb->cube_cap ? cb->cube_cap * 2 : 64;
        cb->cubes = xrealloc(cb->cubes, cb->cube_cap * sizeof *cb->cubes);
        cb->ccubes = xrealloc(cb->ccubes, cb->cube_cap * sizeof *cb->ccubes);
        cb->info = xrealloc(cb->info, cb->cube_cap * sizeof *cb->info);
    }
    uint32_t i = cb->cube_count++;
    memset(&cb->cubes[i], 0, sizeof cb->cubes[i]);
    memset(&cb->ccubes[i], 0, sizeof cb->ccubes[i]);
    memset(&cb->info[i], 0, sizeof cb->info[i]);
    return i;
}

static uint8_t used_index(int *list, int *count, int value, int *lookup)
{
    if (lookup) {
        if (lookup[value] < 0) {
            if (*count >= 255) return 0;
            lookup[value] = *count;
            list[(*count)++] = value;
        }
        return (uint8_t)lookup[value];
    }
    for (int i = 0; i < *count; i++)
        if (list[i] == value) return (uint8_t)i;
    if (*count >= 255) return 0;
    list[*count] = value;
    return (uint8_t)(*count)++;
}

static uint8_t chunk_material(chunk_build *cb, int material)
{
    return used_index(cb->used_mats, &cb->used_count, material, cb->mat_used);
}

static void cube_materials(const octree_ctx *o, int material, uint8_t *mat, uint8_t *phys, uint8_t *sound)
{
    chunk_build *cb = o->cb;
    const material_def *m = &o->lb->map->materials[material];
    *mat = chunk_material(cb, material);
    *phys = used_index(cb->phys_used, &cb->phys_used_count, m->physics, NULL);
    if (sound) *sound = used_index(cb->sound_used, &cb->sound_used_count, m->sound, NULL);
}

static void emit_vertex(const octree_ctx *o, int cfi, v3 p)
{
    chunk_build *cb = o->cb;
    if (cb->vert_count == cb->vert_cap) {
        cb->vert_cap = cb->vert_cap ? cb->vert_cap * 2 : 256;
        cb->verts = xrealloc(cb->verts, cb->vert_cap * sizeof *cb->verts);
        cb->normals = xrealloc(cb->normals, cb->vert_cap * sizeof *cb->normals);
    }
    const chunk_face *cf = &cb->faces[cfi];
    const face *f = &o->lb->faces[cf->face];
    pmf_vertex *v = &cb->verts[cb->vert_count];
    for (int a = 0; a < 3; a++) {
        v->xyz[a] = (float)(p.e[a] - cb->centre.e[a]);
        cb->normals[cb->vert_count][a] = (float)f->pl.n.e[a];
    }
    /* texture UVs chunk-local: the projection's phase at the chunk centre (whole repeats taken
     * off) plus the chunk-local part, so they stay small (and exact in float) anywhere */
    double phase_u = v3_dot(cb->centre, f->tex.u) + f->tex.ou, phase_v = v3_dot(cb->centre, f->tex.v) + f->tex.ov;
    v3 local = v3_sub(p, cb->centre);
    v->uv[0] = (float)(v3_dot(local, f->tex.u) + (phase_u - floor(phase_u)));
    v->uv[1] = (float)(v3_dot(local, f->tex.v) + (phase_v - floor(phase_v)));
    if (cf->lightmap != PMF_NO_LIGHTMAP) {
        double side = ldexp(1.0, cb->lightmaps[cf->lightmap].size_exp);
        v3 d = v3_sub(p, cf->lm_origin);
        v->lm_uv[0] = (float)((cf->lm_x + v3_dot(d, cf->lm_t) * cf->lm_density) / side);
        v->lm_uv[1] = (float)((cf->lm_y + v3_dot(d, cf->lm_b) * cf->lm_density) / side);
    } else {
        v->lm_uv[0] = v->lm_uv[1] = 0;
    }
    cb->vert_count++;
}

static bool fits_geometry(const octree_ctx *o, const item *items, size_t count)
{
    if (count > PMF_FACE_COUNT) return false;
    unsigned dirs = 0;
    uint32_t key = item_key(o, &items[0]);
    for (size_t i = 0; i < count; i++) {
        if ((dirs >> items[i].dir) & 1 || item_key(o, &items[i]) != key || !item_is_quad(o, &items[i])) return false;
        dirs |= 1u << items[i].dir;
    }
    return true;
}

/* Group of each item for an extended cube; -1 = no room. A group is a label with one material and
 * lightmap (the reader draws each group with its own, whatever way its triangles face): an item
 * goes to its own direction's group when that shares its key, else to any group holding its key,
 * else to a free one. Returns false when the items need more than the six groups or mix
 * double-sided with single-sided ones; with `force` (the smallest cube size) what does not fit is
 * dropped instead. */
static bool ext_groups(const octree_ctx *o, const shape *shapes, size_t count, int *group, bool force)
{
    uint32_t key[PMF_FACE_COUNT];
    int tris[PMF_FACE_COUNT] = { 0 };
    bool used[PMF_FACE_COUNT] = { false }, clean = true;
    uint32_t sided = cf_key(o, shapes[0].cf) & 1;
    for (size_t i = 0; i < count; i++) {
        uint32_t k = cf_key(o, shapes[i].cf);
        int d = shapes[i].dir, t = shapes[i].fan ? shapes[i].n : shapes[i].n - 2;
        if ((k & 1) != sided) {
            clean = false;
            if (!force) return false;
        }
        group[i] = -1;
        if (!used[d] || (key[d] == k && tris[d] + t <= 255)) group[i] = d;
        for (int e = 0; e < PMF_FACE_COUNT && group[i] < 0; e++)
            if (used[e] && key[e] == k && tris[e] + t <= 255) group[i] = e;
        for (int e = 0; e < PMF_FACE_COUNT && group[i] < 0; e++)
            if (!used[e]) group[i] = e;
        if (group[i] >= 0) {
            used[group[i]] = true;
            key[group[i]] = k;
            tris[group[i]] += t;
            continue;
        }
        clean = false;
        if (!force) return false;
        o->cb->dropped += (uint32_t)t;
    }
    return clean;
}

static void emit_geometry(const octree_ctx *o, uint32_t ci, const shape *items, size_t count)
{
    chunk_build *cb = o->cb;
    pmf_cube *c = &cb->cubes[ci];
    pmf_client_cube *cc = &cb->ccubes[ci];
    const face *f = cf_face(o, items[0].cf);
    c->type = PMF_CUBE_GEOMETRY;
    if (o->lb->map->materials[f->material].double_sided) c->flags |= PMF_CUBE_DRAW_BACKFACES;
    cube_materials(o, f->material, &c->u.geom.material, &c->u.geom.physics_material, &c->u.geom.sound_material);
    cc->u.geom.lightmap = cb->faces[items[0].cf].lightmap;
    cc->u.geom.first_vertex = cb->vert_count;
    for (int d = 0; d < PMF_FACE_COUNT; d++)
        for (size_t i = 0; i < count; i++)
            if (items[i].dir == d) {
                cc->u.geom.face_mask |= (uint8_t)(1u << d);
                for (int k = 0; k < 4; k++) emit_vertex(o, items[i].cf, items[i].p[k]);
            }
}

/* The corners of an extended cube that lie above a wedge's slope move down onto it. */
static void ext_moved_points(const octree_ctx *o, pmf_cube *c, const cube_info *ci, const shape *items, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const face *f = cf_face(o, items[i].cf);
        const brush *b = &o->lb->def->brushes[f->brush];
        if (b->kind != BRUSH_WEDGE || fabs(f->pl.n.y) < 1e-6 || fabs(fabs(f->pl.n.y) - 1) < 1e-9) continue;
        for (int oc = 0; oc < 8; oc++) {
            v3 p = v3_make(oc & PMF_OCTANT_NEG_X ? ci->lo.x : ci->hi.x, oc & PMF_OCTANT_NEG_Y ? ci->lo.y : ci->hi.y,
                           oc & PMF_OCTANT_NEG_Z ? ci->lo.z : ci->hi.z);
            if (v3_dot(f->pl.n, p) - f->pl.d <= GEOM_EPS) continue;
            double y = (f->pl.d - f->pl.n.x * p.x - f->pl.n.z * p.z) / f->pl.n.y;
            y = fmax(ci->lo.y, fmin(ci->hi.y, y));
            c->u.ext.moved_mask |= (uint8_t)(1u << oc);
            c->u.ext.points[oc][0] = (float)(p.x - o->cb->centre.x);
            c->u.ext.points[oc][1] = (float)(y - o->cb->centre.y);
            c->u.ext.points[oc][2] = (float)(p.z - o->cb->centre.z);
        }
        return;
    }
}

static void emit_ext(const octree_ctx *o, uint32_t ci, const shape *items, size_t count, const int *group)
{
    chunk_build *cb = o->cb;
    pmf_cube *c = &cb->cubes[ci];
    pmf_client_cube *cc = &cb->ccubes[ci];
    c->type = PMF_CUBE_EXTGEOMETRY;
    cc->u.ext.first_vertex = cb->vert_count;
    /* an extended cube has one sound material: that of the material with the most triangles */
    int sound_from = -1;
    size_t best = 0;
    for (size_t i = 0; i < count; i++) {
        if (group[i] < 0) continue;
        int sound = o->lb->map->materials[cf_face(o, items[i].cf)->material].sound;
        size_t tris = 0;
        for (size_t k = 0; k < count; k++)
            if (group[k] >= 0 && o->lb->map->materials[cf_face(o, items[k].cf)->material].sound == sound)
                tris += (size_t)(items[k].fan ? items[k].n : items[k].n - 2);
        if (tris > best) {
            best = tris;
            sound_from = cf_face(o, items[i].cf)->material;
        }
    }
    if (sound_from >= 0)
        c->u.ext.sound_material = used_index(cb->sound_used, &cb->sound_used_count, o->lb->map->materials[sound_from].sound, NULL);
    for (int d = 0; d < PMF_FACE_COUNT; d++) {
        cc->u.ext.lightmap[d] = PMF_NO_LIGHTMAP;
        int tris = 0;
        for (size_t i = 0; i < count; i++) {
            if (group[i] != d) continue;
            const face *f = cf_face(o, items[i].cf);
            if (!tris) {
                cube_materials(o, f->material, &c->u.ext.material[d], &c->u.ext.physics_material[d], NULL);
                cc->u.ext.lightmap[d] = cb->faces[items[i].cf].lightmap;
                if (o->lb->map->materials[f->material].double_sided) c->flags |= PMF_CUBE_DRAW_BACKFACES;
            }
            const shape *s = &items[i];
            if (s->fan) {
                v3 centre = v3_make(0, 0, 0);
                for (int k = 0; k < s->n; k++) centre = v3_add(centre, s->p[k]);
                centre = v3_scale(centre, 1.0 / s->n);
                for (int k = 0; k < s->n; k++) {
                    emit_vertex(o, s->cf, centre);
                    emit_vertex(o, s->cf, s->p[k]);
                    emit_vertex(o, s->cf, s->p[(k + 1) % s->n]);
                    tris++;
                }
                continue;
            }
            for (int k = 1; k + 1 < s->n; k++) {
                emit_vertex(o, s->cf, s->p[0]);
                emit_vertex(o, s->cf, s->p[k]);
                emit_vertex(o, s->cf, s->p[k + 1]);
                tris++;
            }
        }
        cc->u.ext.tri_count[d] = (uint8_t)tris;
    }
    ext_moved_points(o, c, &cb->info[ci], items, count);
}

static void leaf_poly_add(chunk_build *cb, const item *it, const poly *p)
{
    leaf_poly *lp = PUSH(cb->leaf_polys, cb->leaf_poly_count, cb->leaf_poly_cap);
    *lp = (leaf_poly){ it->cf, it->dir, p->n, (uint32_t)cb->leaf_point_count };
    for (int k = 0; k < p->n; k++) *(v3 *)PUSH(cb->leaf_points, cb->leaf_point_count, cb->leaf_point_cap) = p->p[k];
}

/* A fast-lit polygon cut into FAST_LIT_CELL cells across its plane; returns the piece count. */
static int leaf_add_cells(chunk_build *cb, const item *it)
{
    int a = it->dir % 3, b = (a + 1) % 3, c = (a + 2) % 3;
    v3 lo = it->p.p[0], hi = it->p.p[0];
    for (int k = 1; k < it->p.n; k++)
        for (int e = 0; e < 3; e++) {
            lo.e[e] = fmin(lo.e[e], it->p.p[k].e[e]);
            hi.e[e] = fmax(hi.e[e], it->p.p[k].e[e]);
        }
    int pieces = 0;
    for (double u = floor(lo.e[b] / FAST_LIT_CELL) * FAST_LIT_CELL; u < hi.e[b] - GEOM_EPS; u += FAST_LIT_CELL)
        for (double w = floor(lo.e[c] / FAST_LIT_CELL) * FAST_LIT_CELL; w < hi.e[c] - GEOM_EPS; w += FAST_LIT_CELL) {
            v3 clo = lo, chi = hi;
            clo.e[a] -= 1;
            chi.e[a] += 1;
            clo.e[b] = fmax(lo.e[b], u);
            chi.e[b] = fmin(hi.e[b], u + FAST_LIT_CELL);
            clo.e[c] = fmax(lo.e[c], w);
            chi.e[c] = fmin(hi.e[c], w + FAST_LIT_CELL);
            poly cell;
            if (!poly_clip_box(&it->p, it->facing, clo, chi, &cell)) continue;
            leaf_poly_add(cb, it, &cell);
            pieces++;
        }
    return pieces;
}

/* Keeps a leaf's polygons for sealing and emission (chunk_octree_emit); fast-lit ones in cells
 * (the leaf is then an extended cube). */
static void leaf_add(const octree_ctx *o, uint32_t ci, const item *items, size_t count, bool geometry)
{
    chunk_build *cb = o->cb;
    size_t leaf = cb->leaf_count;
    octree_leaf *lf = PUSH(cb->leaves, cb->leaf_count, cb->leaf_cap);
    *lf = (octree_leaf){ ci, (uint32_t)cb->leaf_poly_count, 0, geometry };
    uint32_t polys = 0;
    for (size_t i = 0; i < count; i++) {
        if (o->fast_lit[items[i].cf]) {
            int pieces = leaf_add_cells(cb, &items[i]);
            polys += (uint32_t)pieces;
            if (pieces != 1) cb->leaves[leaf].geometry = false;
        } else {
            leaf_poly_add(cb, &items[i], &items[i].p);
            polys++;
        }
    }
    cb->leaves[leaf].count = polys;
}

/* Whether a fast light's sphere reaches the polygon's bounds. */
static bool reaches_fast_light(const level_def *def, const v3 *p, int n)
{
    v3 lo = p[0], hi = p[0];
    for (int k = 1; k < n; k++)
        for (int e = 0; e < 3; e++) {
            lo.e[e] = fmin(lo.e[e], p[k].e[e]);
            hi.e[e] = fmax(hi.e[e], p[k].e[e]);
        }
    for (size_t l = 0; l < def->light_count; l++) {
        const light_def *ld = &def->lights[l];
        if (ld->kind != BAKE_LIGHT_FAST) continue;
        double d2 = 0;
        for (int e = 0; e < 3; e++) {
            double d = ld->pos.e[e] < lo.e[e] ? lo.e[e] - ld->pos.e[e] : ld->pos.e[e] > hi.e[e] ? ld->pos.e[e] - hi.e[e] : 0;
            d2 += d * d;
        }
        if (d2 < (double)ld->range * ld->range) return true;
    }
    return false;
}

static bool any_fast_lit(const octree_ctx *o, const item *items, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (o->fast_lit[items[i].cf]) return true;
    return false;
}

static bool wants_probe(const octree_ctx *o, const item *items, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const material_def *m = &o->lb->map->materials[item_face(o, &items[i])->material];
        if (o->cb->faces[items[i].cf].lightmap == PMF_NO_LIGHTMAP && m->shading > 0) return true;
    }
    return false;
}

static uint32_t build_node(const octree_ctx *o, int depth, v3 lo, v3 hi, item *items, size_t count)
{
    chunk_build *cb = o->cb;
    uint32_t ci = new_cube(cb);
    cb->info[ci].lo = lo;
    cb->info[ci].hi = hi;
    cb->info[ci].depth = depth;
    cb->info[ci].cell = depth == o->lb->vis_depth;
    cb->info[ci].has_geometry = count > 0;
    double size = hi.x - lo.x;
    bool split = depth < o->lb->vis_depth;
    if (!split && count && size > FAST_LIT_CUBE + GEOM_EPS && depth < MAX_DEPTH && any_fast_lit(o, items, count))
        split = true;
    if (!split) {
        if (!count) {
            cb->cubes[ci].type = PMF_CUBE_EMPTY;
            cb->info[ci].probe = !o->lb->def->fullbright;  /* air a camera or an entity can be in */
            return ci;
        }
        cb->info[ci].probe = !o->lb->def->fullbright && wants_probe(o, items, count);
        if (fits_geometry(o, items, count)) {
            leaf_add(o, ci, items, count, true);
            return ci;
        }
        int *group = xmalloc(count * sizeof *group);
        shape *shapes = xmalloc(count * sizeof *shapes);
        for (size_t i = 0; i < count; i++) shapes[i] = (shape){ items[i].cf, items[i].dir, items[i].p.n, items[i].p.p, false };
        /* the smallest cubes put what does not fit into free direction groups */
        double min_cube = o->lb->def->min_cube > 0 ? o->lb->def->min_cube : 2.0;
        bool last = size / 2 < min_cube || depth >= MAX_DEPTH;
        bool fits = ext_groups(o, shapes, count, group, false) || last;
        xfree(shapes);
        xfree(group);
        if (fits) {
            leaf_add(o, ci, items, count, false);
            return ci;
        }
        cb->info[ci].probe = false;
    }
    /* parent: octants in PMF order (bit 0 = -X, bit 1 = -Z, bit 2 = -Y) */
    cb->cubes[ci].type = PMF_CUBE_PARENT;
    v3 mid = v3_scale(v3_add(lo, hi), 0.5);
    item *sub = xmalloc((count ? count : 1) * sizeof *sub);
    for (int oc = 0; oc < 8; oc++) {
        v3 clo = lo, chi = hi;
        if (oc & PMF_OCTANT_NEG_X) chi.x = mid.x; else clo.x = mid.x;
        if (oc & PMF_OCTANT_NEG_Y) chi.y = mid.y; else clo.y = mid.y;
        if (oc & PMF_OCTANT_NEG_Z) chi.z = mid.z; else clo.z = mid.z;
        size_t n = 0;
        for (size_t i = 0; i < count; i++) {
            sub[n].cf = items[i].cf;
            sub[n].dir = items[i].dir;
            sub[n].facing = items[i].facing;
            if (poly_clip_box(&items[i].p, items[i].facing, clo, chi, &sub[n].p)) n++;
        }
        if (!n && depth + 1 > o->lb->vis_depth) continue;
        uint32_t child = build_node(o, depth + 1, clo, chi, sub, n);
        /* cb->cubes may have moved */
        cb->cubes[ci].u.parent.child_mask |= (uint8_t)(1u << oc);
        cb->cubes[ci].u.parent.children[oc] = child;
        if (cb->info[child].has_geometry) cb->info[ci].has_geometry = true;
    }
    xfree(sub);
    return ci;
}

void chunk_octree(const level_build *lb, chunk_build *cb)
{
    octree_ctx o = { lb, cb, xmalloc((cb->face_count ? cb->face_count : 1) * sizeof(bool)) };
    for (size_t i = 0; i < cb->face_count; i++) o.fast_lit[i] = reaches_fast_light(lb->def, cb->faces[i].p, cb->faces[i].n);
    cb->mat_used = xmalloc(lb->map->material_count * sizeof *cb->mat_used);
    for (size_t i = 0; i < lb->map->material_count; i++) cb->mat_used[i] = -1;
    item *items = xmalloc((cb->face_count ? cb->face_count : 1) * sizeof *items);
    double h = lb->S / 2;
    v3 lo = v3_sub(cb->centre, v3_make(h, h, h)), hi = v3_add(cb->centre, v3_make(h, h, h));
    for (size_t i = 0; i < cb->face_count; i++) {
        chunk_face *cf = &cb->faces[i];
        item *it = &items[i];
        v3 n = lb->faces[cf->face].pl.n;
        it->cf = (int)i;
        it->dir = face_dir(n);
        it->facing = n;
        it->p.n = cf->n < POLY_MAX ? cf->n : POLY_MAX;
        memcpy(it->p.p, cf->p, (size_t)it->p.n * sizeof(v3));
        for (int a = 0; a < 3; a++) {
            bool at_lo = true, at_hi = true;
            for (int k = 0; k < it->p.n; k++) {
                double *e = &it->p.p[k].e[a];
                *e = fmax(lo.e[a], fmin(hi.e[a], *e));
                at_lo = at_lo && *e == lo.e[a];
                at_hi = at_hi && *e == hi.e[a];
            }
            if ((at_lo && n.e[a] < 0) || (at_hi && n.e[a] > 0)) it->facing = v3_scale(n, -1);
        }
    }
    build_node(&o, 0, lo, hi, items, cb->face_count);
    xfree(items);
    xfree(o.fast_lit);
}

/* A leaf's cube: a geometry cube while sealing left its quads alone, else an extended one. */
static void emit_leaf(const octree_ctx *o, const octree_leaf *lf, const sealed_polys *sp)
{
    chunk_build *cb = o->cb;
    shape *shapes = xmalloc(lf->count * sizeof *shapes);
    int *group = xmalloc(lf->count * sizeof *group);
    bool sealed = false;
    for (uint32_t i = 0; i < lf->count; i++) {
        uint32_t k = lf->first + i;
        const leaf_poly *lp = &cb->leaf_polys[k];
        int n = (int)(sp->start[k + 1] - sp->start[k]);
        shapes[i] = (shape){ lp->cf, lp->dir, n, &sp->points[sp->start[k]], n != lp->n };
        sealed = sealed || shapes[i].fan;
    }
    if (lf->geometry && !sealed) {
        emit_geometry(o, lf->cube, shapes, lf->count);
    } else {
        ext_groups(o, shapes, lf->count, group, true);
        emit_ext(o, lf->cube, shapes, lf->count, group);
    }
    xfree(group);
    xfree(shapes);
}

void chunk_octree_emit(const level_build *lb, chunk_build *cb)
{
    octree_ctx o = { lb, cb, NULL };
    sealed_polys sp;
    chunk_seal(lb, cb, &sp);
    for (size_t i = 0; i < cb->leaf_count; i++) emit_leaf(&o, &cb->leaves[i], &sp);
    xfree(sp.start);
    xfree(sp.points);
}

void chunk_octree_discard(chunk_build *cb)
{
    for (int k = 0; k < cb->lightmap_count; k++) xfree(cb->lightmaps[k].luxels);
    xfree(cb->lightmaps);
    cb->lightmaps = NULL;
    cb->lightmap_count = 0;
    for (size_t i = 0; i < cb->face_count; i++) cb->faces[i].lightmap = PMF_NO_LIGHTMAP;
    cb->cube_count = 0;
    cb->leaf_count = cb->leaf_poly_count = cb->leaf_point_count = 0;
}
