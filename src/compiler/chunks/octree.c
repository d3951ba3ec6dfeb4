/* octree.c - one chunk's cube octree: cube 0 spans the chunk; cubes down to the visibility-cell
 * depth always exist (cells a camera can stand in); below that, a cube splits until what it
 * holds fits one geometry cube (axis-aligned quads, one per direction, one material and
 * lightmap) or one extended geometry cube (six groups of triangles, one material and lightmap
 * each, at most 255 per group), or it is of the smallest size: what such a leaf cannot hold
 * spills into extended cubes in its octants, so every triangle is drawn. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chunks.h"
#include "common/memory.h"
#include "common/world.h"

#define MAX_DEPTH 20
/* The deepest cube the format allows (an octree of at most 24 levels, cube 0 the first): a leaf
 * whose triangles need more than one extended cube spills them into octants down to it. */
#define DEEPEST_CUBE 23
/* Faces a fast light reaches carry its light per vertex: they are cut into cells of at most
 * this side (metres, on a world-aligned grid), in cubes of at most FAST_LIT_CUBE, so the
 * interpolated light reads as a round pool, not as diamonds over two big triangles. */
#define FAST_LIT_CELL 0.5
#define FAST_LIT_CUBE 2.0

/* facing: the side a face lying in a cube side belongs to (its normal, except on the grid's
 * outer sides where nothing lies beyond) */
typedef struct item { int cf; int dir; v3 facing; poly p; } item;

/* A depth's octant items: a parent's, kept for its siblings' (a poly is 2 KiB: a block per node
 * would be mapped, faulted in and unmapped again for each). */
typedef struct item_block { item *items; size_t cap; } item_block;

typedef struct octree_ctx {
    const level_build *lb;
    chunk_build *cb;
    bool *fast_lit;                  /* [chunk face]: a fast light's range reaches it */
    item_block *scratch;             /* [MAX_DEPTH + 1], by the depth of the parent */
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

/* The six direction groups of one extended cube as runs of triangles go in. A group is a label with
 * one material and lightmap (the reader draws each group with its own, whatever way its triangles
 * face) and at most 255 triangles; a cube is all double-sided or all single-sided (sided: -1 while
 * empty). */
typedef struct group_set {
    uint32_t key[PMF_FACE_COUNT];
    int tris[PMF_FACE_COUNT];
    bool used[PMF_FACE_COUNT];
    int sided;
} group_set;

#define GROUP_TRIS 255
#define NO_GROUPS ((group_set){ .sided = -1 })

/* The group `tris` triangles of `key` facing `dir` go to, or -1 when the cube has no room: a group
 * of the same key with room (its own direction's first), else its own direction's group if free,
 * else any free one. A key opens a second group only when its first is full, so six keys always fit. */
static int group_place(group_set *g, uint32_t key, int dir, int tris)
{
    if (g->sided >= 0 && (uint32_t)g->sided != (key & 1)) return -1;
    int at = -1;
    if (g->used[dir] && g->key[dir] == key && g->tris[dir] + tris <= GROUP_TRIS) at = dir;
    for (int e = 0; e < PMF_FACE_COUNT && at < 0; e++)
        if (g->used[e] && g->key[e] == key && g->tris[e] + tris <= GROUP_TRIS) at = e;
    if (at < 0 && !g->used[dir]) at = dir;
    for (int e = 0; e < PMF_FACE_COUNT && at < 0; e++)
        if (!g->used[e]) at = e;
    if (at < 0) return -1;
    g->used[at] = true;
    g->key[at] = key;
    g->tris[at] += tris;
    g->sided = (int)(key & 1);
    return at;
}

static int shape_tris(const shape *s) { return s->fan ? s->n : s->n - 2; }

/* A run of one shape's triangles [first, first + count) that goes into one group (a shape of more
 * than a group's 255 triangles is cut into several runs). */
typedef struct tri_run { uint32_t shape; int first, count; } tri_run;

/* The runs of the shapes (free the result). */
static tri_run *shape_runs(const shape *shapes, size_t count, size_t *run_count)
{
    size_t n = 0;
    for (size_t i = 0; i < count; i++) n += (size_t)(shape_tris(&shapes[i]) + GROUP_TRIS - 1) / GROUP_TRIS;
    tri_run *runs = xmalloc((n ? n : 1) * sizeof *runs);
    n = 0;
    for (size_t i = 0; i < count; i++)
        for (int first = 0, t = shape_tris(&shapes[i]); first < t; first += GROUP_TRIS)
            runs[n++] = (tri_run){ (uint32_t)i, first, t - first < GROUP_TRIS ? t - first : GROUP_TRIS };
    *run_count = n;
    return runs;
}

/* Whether the items fit one extended cube. */
static bool ext_fits(const octree_ctx *o, const item *items, size_t count)
{
    group_set g = NO_GROUPS;
    for (size_t i = 0; i < count; i++)
        for (int left = items[i].p.n - 2; left > 0; left -= GROUP_TRIS)
            if (group_place(&g, item_key(o, &items[i]), items[i].dir, left < GROUP_TRIS ? left : GROUP_TRIS) < 0) return false;
    return true;
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
static void ext_moved_points(const octree_ctx *o, pmf_cube *c, const cube_info *ci, const shape *shapes, const tri_run *runs,
                             size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const face *f = cf_face(o, shapes[runs[i].shape].cf);
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

static v3 shape_centre(const shape *s)
{
    v3 centre = v3_make(0, 0, 0);
    for (int k = 0; k < s->n; k++) centre = v3_add(centre, s->p[k]);
    return v3_scale(centre, 1.0 / s->n);
}

/* A run's triangles: around the shape's centre when sealing added vertices to it, else from its
 * first corner. */
static void emit_run(const octree_ctx *o, const shape *s, const tri_run *r)
{
    v3 centre = s->fan ? shape_centre(s) : v3_make(0, 0, 0);
    for (int k = r->first; k < r->first + r->count; k++) {
        emit_vertex(o, s->cf, s->fan ? centre : s->p[0]);
        emit_vertex(o, s->cf, s->fan ? s->p[k] : s->p[k + 1]);
        emit_vertex(o, s->cf, s->fan ? s->p[(k + 1) % s->n] : s->p[k + 2]);
    }
}

/* An extended cube has one sound material: that of the material with the most triangles. */
static void ext_sound(const octree_ctx *o, pmf_cube *c, const shape *shapes, const tri_run *runs, size_t count, const int *group)
{
    const material_def *mats = o->lb->map->materials;
    int sound_from = -1;
    size_t best = 0;
    for (size_t i = 0; i < count; i++) {
        if (group[i] < 0) continue;
        int sound = mats[cf_face(o, shapes[runs[i].shape].cf)->material].sound;
        size_t tris = 0;
        for (size_t k = 0; k < count; k++)
            if (group[k] >= 0 && mats[cf_face(o, shapes[runs[k].shape].cf)->material].sound == sound) tris += (size_t)runs[k].count;
        if (tris > best) {
            best = tris;
            sound_from = cf_face(o, shapes[runs[i].shape].cf)->material;
        }
    }
    if (sound_from >= 0)
        c->u.ext.sound_material = used_index(o->cb->sound_used, &o->cb->sound_used_count, mats[sound_from].sound, NULL);
}

/* The runs as an extended cube, each in its group (-1: left out). */
static void emit_ext(const octree_ctx *o, uint32_t ci, const shape *shapes, const tri_run *runs, size_t count, const int *group)
{
    chunk_build *cb = o->cb;
    pmf_cube *c = &cb->cubes[ci];
    pmf_client_cube *cc = &cb->ccubes[ci];
    c->type = PMF_CUBE_EXTGEOMETRY;
    cc->u.ext.first_vertex = cb->vert_count;
    ext_sound(o, c, shapes, runs, count, group);
    for (int d = 0; d < PMF_FACE_COUNT; d++) {
        cc->u.ext.lightmap[d] = PMF_NO_LIGHTMAP;
        int tris = 0;
        for (size_t i = 0; i < count; i++) {
            if (group[i] != d) continue;
            const shape *s = &shapes[runs[i].shape];
            const face *f = cf_face(o, s->cf);
            if (!tris) {
                cube_materials(o, f->material, &c->u.ext.material[d], &c->u.ext.physics_material[d], NULL);
                cc->u.ext.lightmap[d] = cb->faces[s->cf].lightmap;
                if (o->lb->map->materials[f->material].double_sided) c->flags |= PMF_CUBE_DRAW_BACKFACES;
            }
            emit_run(o, s, &runs[i]);
            tris += runs[i].count;
        }
        cc->u.ext.tri_count[d] = (uint8_t)tris;
    }
    ext_moved_points(o, c, &cb->info[ci], shapes, runs, count);
}

static void emit_ext_tree(const octree_ctx *o, uint32_t ci, const shape *shapes, const tri_run *runs, size_t count);

/* The octant of the cube's box that holds the run's shape's centre. */
static int run_octant(const cube_info *inf, const shape *s)
{
    v3 c = shape_centre(s), mid = v3_scale(v3_add(inf->lo, inf->hi), 0.5);
    return (c.x < mid.x ? PMF_OCTANT_NEG_X : 0) | (c.y < mid.y ? PMF_OCTANT_NEG_Y : 0) | (c.z < mid.z ? PMF_OCTANT_NEG_Z : 0);
}

/* A leaf whose triangles need more than one extended cube (more than six materials or lightmaps,
 * more than 255 triangles of one, or double-sided with single-sided) becomes a parent: each run
 * goes to the child of its octant when that has room, else to the first that has; what none has
 * room for goes to the last octant, which splits again. The triangles stay inside the leaf's box
 * (the reader bounds a cube by its vertices, not by its octant). */
static void spill_ext(const octree_ctx *o, uint32_t ci, const shape *shapes, const tri_run *runs, size_t count)
{
    chunk_build *cb = o->cb;
    group_set child[8];
    for (int oc = 0; oc < 8; oc++) child[oc] = NO_GROUPS;
    uint8_t *octant = xmalloc(count);
    for (size_t i = 0; i < count; i++) {
        const shape *s = &shapes[runs[i].shape];
        uint32_t key = cf_key(o, s->cf);
        int home = run_octant(&cb->info[ci], s), at = -1;
        if (group_place(&child[home], key, s->dir, runs[i].count) >= 0) at = home;
        for (int oc = 0; oc < 8 && at < 0; oc++)
            if (oc != home && group_place(&child[oc], key, s->dir, runs[i].count) >= 0) at = oc;
        octant[i] = (uint8_t)(at >= 0 ? at : 7);
    }
    cb->cubes[ci].type = PMF_CUBE_PARENT;
    bool probe = cb->info[ci].probe;
    cb->info[ci].probe = false;
    tri_run *sub = xmalloc(count * sizeof *sub);
    for (int oc = 0; oc < 8; oc++) {
        size_t n = 0;
        for (size_t i = 0; i < count; i++)
            if (octant[i] == oc) sub[n++] = runs[i];
        if (!n) continue;
        uint32_t c = new_cube(cb);
        cube_info *inf = &cb->info[c], *parent = &cb->info[ci];
        v3 mid = v3_scale(v3_add(parent->lo, parent->hi), 0.5);
        *inf = (cube_info){ parent->lo, parent->hi, parent->depth + 1, false, probe, true };
        if (oc & PMF_OCTANT_NEG_X) inf->hi.x = mid.x; else inf->lo.x = mid.x;
        if (oc & PMF_OCTANT_NEG_Y) inf->hi.y = mid.y; else inf->lo.y = mid.y;
        if (oc & PMF_OCTANT_NEG_Z) inf->hi.z = mid.z; else inf->lo.z = mid.z;
        cb->cubes[ci].u.parent.child_mask |= (uint8_t)(1u << oc);
        cb->cubes[ci].u.parent.children[oc] = c;
        emit_ext_tree(o, c, shapes, sub, n);
    }
    xfree(sub);
    xfree(octant);
}

/* The runs as one extended cube when they fit it, else spilled into its octants. Only past the
 * format's deepest cube is anything left out (counted as dropped). */
static void emit_ext_tree(const octree_ctx *o, uint32_t ci, const shape *shapes, const tri_run *runs, size_t count)
{
    int *group = xmalloc((count ? count : 1) * sizeof *group);
    group_set g = NO_GROUPS;
    size_t placed = 0;
    for (size_t i = 0; i < count; i++) {
        const shape *s = &shapes[runs[i].shape];
        group[i] = group_place(&g, cf_key(o, s->cf), s->dir, runs[i].count);
        placed += group[i] >= 0;
    }
    if (placed < count && o->cb->info[ci].depth < DEEPEST_CUBE) {
        spill_ext(o, ci, shapes, runs, count);
    } else {
        for (size_t i = 0; i < count; i++)
            if (group[i] < 0) o->cb->dropped += (uint32_t)runs[i].count;
        emit_ext(o, ci, shapes, runs, count, group);
    }
    xfree(group);
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

bool reaches_fast_light(const level_def *def, const v3 *p, int n)
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
        /* what the smallest cubes cannot hold spills into octants when they are emitted */
        double min_cube = o->lb->def->min_cube > 0 ? o->lb->def->min_cube : 2.0;
        bool last = size / 2 < min_cube || depth >= MAX_DEPTH;
        if (last || ext_fits(o, items, count)) {
            leaf_add(o, ci, items, count, false);
            return ci;
        }
        cb->info[ci].probe = false;
    }
    /* parent: octants in PMF order (bit 0 = -X, bit 1 = -Z, bit 2 = -Y) */
    cb->cubes[ci].type = PMF_CUBE_PARENT;
    v3 mid = v3_scale(v3_add(lo, hi), 0.5);
    item_block *block = &o->scratch[depth];
    if (block->cap < count) {
        xfree(block->items);
        block->cap = count;
        block->items = xmalloc(count * sizeof *block->items);
    }
    item *sub = block->items;
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
    return ci;
}

void chunk_octree(const level_build *lb, chunk_build *cb)
{
    octree_ctx o = { lb, cb, xmalloc((cb->face_count ? cb->face_count : 1) * sizeof(bool)),
                     xcalloc(MAX_DEPTH + 1, sizeof(item_block)) };
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
    for (int d = 0; d <= MAX_DEPTH; d++) xfree(o.scratch[d].items);
    xfree(o.scratch);
    xfree(items);
    xfree(o.fast_lit);
}

/* A leaf's cube: a geometry cube while sealing left its quads alone, else an extended one. */
static void emit_leaf(const octree_ctx *o, const octree_leaf *lf, const sealed_polys *sp)
{
    chunk_build *cb = o->cb;
    shape *shapes = xmalloc(lf->count * sizeof *shapes);
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
        size_t run_count;
        tri_run *runs = shape_runs(shapes, lf->count, &run_count);
        emit_ext_tree(o, lf->cube, shapes, runs, run_count);
        xfree(runs);
    }
    xfree(shapes);
}

void chunk_octree_emit(const level_build *lb, chunk_build *cb)
{
    octree_ctx o = { lb, cb, NULL, NULL };
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
