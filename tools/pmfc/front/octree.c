/* octree.c - one chunk's cube octree: cube 0 spans the chunk; cubes down to the visibility-cell
 * depth always exist (cells a camera can stand in); below that, a cube splits until what it
 * holds fits one geometry cube (axis-aligned quads, one per direction, one material and
 * lightmap) or one extended geometry cube (triangles grouped by direction, one material and
 * lightmap per direction, at most 255 per direction). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "world.h"

#define MAX_DEPTH 20

/* facing: the side a face lying in a cube side belongs to (its normal, except on the grid's
 * outer sides where nothing lies beyond) */
typedef struct item { int cf; int dir; v3 facing; poly p; } item;

typedef struct octree_ctx {
    const level_build *lb;
    chunk_build *cb;
} octree_ctx;

static int face_dir(v3 n)
{
    double ax = fabs(n.x), ay = fabs(n.y), az = fabs(n.z);
    if (ax >= ay && ax >= az) return n.x > 0 ? PMF_FACE_POS_X : PMF_FACE_NEG_X;
    if (ay >= az) return n.y > 0 ? PMF_FACE_POS_Y : PMF_FACE_NEG_Y;
    return n.z > 0 ? PMF_FACE_POS_Z : PMF_FACE_NEG_Z;
}

static const face *item_face(const octree_ctx *o, const item *it)
{
    return &o->lb->faces[o->cb->faces[it->cf].face];
}

/* (material, lightmap, double-sided): what one geometry cube or one direction group shares. */
static uint32_t item_key(const octree_ctx *o, const item *it)
{
    const face *f = item_face(o, it);
    const material_def *m = &o->lb->map->materials[f->material];
    return ((uint32_t)f->material << 9) | ((uint32_t)o->cb->faces[it->cf].lightmap << 1) | (m->double_sided ? 1u : 0u);
}

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

static void emit_vertex(const octree_ctx *o, const item *it, v3 p)
{
    chunk_build *cb = o->cb;
    if (cb->vert_count == cb->vert_cap) {
        cb->vert_cap = cb->vert_cap ? cb->vert_cap * 2 : 256;
        cb->verts = xrealloc(cb->verts, cb->vert_cap * sizeof *cb->verts);
        cb->normals = xrealloc(cb->normals, cb->vert_cap * sizeof *cb->normals);
    }
    const chunk_face *cf = &cb->faces[it->cf];
    const face *f = &o->lb->faces[cf->face];
    pmf_vertex *v = &cb->verts[cb->vert_count];
    for (int a = 0; a < 3; a++) {
        v->xyz[a] = (float)(p.e[a] - cb->centre.e[a]);
        cb->normals[cb->vert_count][a] = (float)f->pl.n.e[a];
    }
    v->uv[0] = (float)(v3_dot(p, f->tex.u) + f->tex.ou);
    v->uv[1] = (float)(v3_dot(p, f->tex.v) + f->tex.ov);
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
static bool ext_groups(const octree_ctx *o, const item *items, size_t count, int *group, bool force)
{
    uint32_t key[PMF_FACE_COUNT];
    int tris[PMF_FACE_COUNT] = { 0 };
    bool used[PMF_FACE_COUNT] = { false }, clean = true;
    uint32_t sided = item_key(o, &items[0]) & 1;
    for (size_t i = 0; i < count; i++) {
        uint32_t k = item_key(o, &items[i]);
        int d = items[i].dir, t = items[i].p.n - 2;
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

static void emit_geometry(const octree_ctx *o, uint32_t ci, const item *items, size_t count)
{
    chunk_build *cb = o->cb;
    pmf_cube *c = &cb->cubes[ci];
    pmf_client_cube *cc = &cb->ccubes[ci];
    const face *f = item_face(o, &items[0]);
    c->type = PMF_CUBE_GEOMETRY;
    if (o->lb->map->materials[f->material].double_sided) c->flags |= PMF_CUBE_DRAW_BACKFACES;
    cube_materials(o, f->material, &c->u.geom.material, &c->u.geom.physics_material, &c->u.geom.sound_material);
    cc->u.geom.lightmap = cb->faces[items[0].cf].lightmap;
    cc->u.geom.first_vertex = cb->vert_count;
    for (int d = 0; d < PMF_FACE_COUNT; d++)
        for (size_t i = 0; i < count; i++)
            if (items[i].dir == d) {
                cc->u.geom.face_mask |= (uint8_t)(1u << d);
                for (int k = 0; k < 4; k++) emit_vertex(o, &items[i], items[i].p.p[k]);
            }
}

/* The corners of an extended cube that lie above a wedge's slope move down onto it. */
static void ext_moved_points(const octree_ctx *o, pmf_cube *c, const cube_info *ci, const item *items, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const face *f = item_face(o, &items[i]);
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

static void emit_ext(const octree_ctx *o, uint32_t ci, const item *items, size_t count, const int *group)
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
        int sound = o->lb->map->materials[item_face(o, &items[i])->material].sound;
        size_t tris = 0;
        for (size_t k = 0; k < count; k++)
            if (group[k] >= 0 && o->lb->map->materials[item_face(o, &items[k])->material].sound == sound)
                tris += (size_t)items[k].p.n - 2;
        if (tris > best) {
            best = tris;
            sound_from = item_face(o, &items[i])->material;
        }
    }
    if (sound_from >= 0)
        c->u.ext.sound_material = used_index(cb->sound_used, &cb->sound_used_count, o->lb->map->materials[sound_from].sound, NULL);
    for (int d = 0; d < PMF_FACE_COUNT; d++) {
        cc->u.ext.lightmap[d] = PMF_NO_LIGHTMAP;
        int tris = 0;
        for (size_t i = 0; i < count; i++) {
            if (group[i] != d) continue;
            const face *f = item_face(o, &items[i]);
            if (!tris) {
                cube_materials(o, f->material, &c->u.ext.material[d], &c->u.ext.physics_material[d], NULL);
                cc->u.ext.lightmap[d] = cb->faces[items[i].cf].lightmap;
                if (o->lb->map->materials[f->material].double_sided) c->flags |= PMF_CUBE_DRAW_BACKFACES;
            }
            for (int k = 1; k + 1 < items[i].p.n; k++) {
                emit_vertex(o, &items[i], items[i].p.p[0]);
                emit_vertex(o, &items[i], items[i].p.p[k]);
                emit_vertex(o, &items[i], items[i].p.p[k + 1]);
                tris++;
            }
        }
        cc->u.ext.tri_count[d] = (uint8_t)tris;
    }
    ext_moved_points(o, c, &cb->info[ci], items, count);
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
    if (!split) {
        if (!count) {
            cb->cubes[ci].type = PMF_CUBE_EMPTY;
            cb->info[ci].probe = true;  /* air a camera or an entity can be in */
            return ci;
        }
        cb->info[ci].probe = wants_probe(o, items, count);
        if (fits_geometry(o, items, count)) {
            emit_geometry(o, ci, items, count);
            return ci;
        }
        int *group = xmalloc(count * sizeof *group);
        /* the smallest cubes put what does not fit into free direction groups */
        double min_cube = o->lb->def->min_cube > 0 ? o->lb->def->min_cube : 2.0;
        bool last = size / 2 < min_cube || depth >= MAX_DEPTH;
        if (ext_groups(o, items, count, group, last) || last) {
            emit_ext(o, ci, items, count, group);
            free(group);
            return ci;
        }
        free(group);
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
    free(sub);
    return ci;
}

void chunk_octree(const level_build *lb, chunk_build *cb)
{
    octree_ctx o = { lb, cb };
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
    free(items);
    /* the polygons live on in the vertices; the baker needs only the faces' lightmap blocks */
    for (size_t i = 0; i < cb->face_count; i++) {
        free(cb->faces[i].p);
        cb->faces[i].p = NULL;
        cb->faces[i].n = 0;
    }
}
