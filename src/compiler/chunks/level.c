/* level.c - a level's chunk grid: size, extent, centre chunk; the window of it being built; faces
 * clipped into chunks; their occluder triangles. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/session.h"
#include "chunks.h"
#include "common/memory.h"
#include "common/world.h"
#include "fill/fill.h"
#include "base/order.h"

#define PMFC_MAX_SOURCE_CELLS 65536u

static void bounds_add(v3 *lo, v3 *hi, v3 a, v3 b)
{
    for (int i = 0; i < 3; i++) {
        lo->e[i] = fmin(lo->e[i], fmin(a.e[i], b.e[i]));
        hi->e[i] = fmax(hi->e[i], fmax(a.e[i], b.e[i]));
    }
}

static void level_translate(level_def *def, v3 d)
{
    def->shift = v3_add(def->shift, d);
    for (size_t i = 0; i < def->side_count; i++) def->sides[i].pl.d += v3_dot(def->sides[i].pl.n, d);
    /* a projection's value at p + d must equal its value at p */
    for (size_t i = 0; i < def->tex_proj_count; i++) {
        tex_proj *t = &def->tex_projs[i];
        t->ou -= v3_dot(t->u, d);
        t->ov -= v3_dot(t->v, d);
    }
    for (size_t i = 0; i < def->brush_count; i++) {
        brush *b = &def->brushes[i];
        b->lo = v3_add(b->lo, d);
        b->hi = v3_add(b->hi, d);
    }
    for (size_t i = 0; i < def->light_count; i++) def->lights[i].pos = v3_add(def->lights[i].pos, d);
    fill_translate(def->fill, d);
    for (size_t i = 0; i < def->sky_count; i++) def->skies[i].skybox_point = v3_add(def->skies[i].skybox_point, d);
    for (size_t i = 0; i < def->region_count; i++) {
        region_def *r = &def->regions[i];
        r->lo = v3_add(r->lo, d); r->hi = v3_add(r->hi, d);
        r->act_lo = v3_add(r->act_lo, d); r->act_hi = v3_add(r->act_hi, d);
    }
}

/* A brush's luxels: its box's surface at its luxel spacing. */
static double brush_luxels(const level_def *l, const brush *b)
{
    v3 d = v3_sub(b->hi, b->lo);
    double density = l->luxel_density / (b->luxel_scale > 1 ? b->luxel_scale : 1);
    return 2 * (d.x * d.y + d.y * d.z + d.z * d.x) * density * density;
}

level_cost level_lightmap_cost(const level_def *l)
{
    level_cost cost = { 0, 0, 0 };
    for (size_t i = 0; i < l->brush_count; i++) {
        double area = brush_luxels(l, &l->brushes[i]);
        cost.luxels += area;
        if (area > cost.largest_luxels) {
            cost.largest_luxels = area;
            cost.largest = i;
        }
    }
    return cost;
}

typedef struct luxel_cost { double luxels; size_t brush; } luxel_cost;

static int more_luxels(const void *a, const void *b)
{
    const luxel_cost *x = a, *y = b;
    return x->luxels < y->luxels ? 1 : x->luxels > y->luxels ? -1 : (x->brush > y->brush) - (x->brush < y->brush);
}

level_fit level_fit_luxels(level_def *l, double limit)
{
    level_fit fit = { 0, 1 };
    level_cost cost = level_lightmap_cost(l);
    if (cost.luxels <= limit) return fit;
    /* the largest first: doubling a brush's spacing quarters its luxels; each round doubles the
     * brushes that hold the most, until the sum fits */
    luxel_cost *order = xmalloc((l->brush_count ? l->brush_count : 1) * sizeof *order);
    bool *coarser = xcalloc(l->brush_count ? l->brush_count : 1, sizeof *coarser);
    double total = cost.luxels;
    for (int round = 0; total > limit && round < 64; round++) {
        for (size_t i = 0; i < l->brush_count; i++) order[i] = (luxel_cost){ brush_luxels(l, &l->brushes[i]), i };
        order_sort(order, l->brush_count, sizeof *order, more_luxels);
        for (size_t k = 0; k < l->brush_count && total > limit; k++) {
            brush *b = &l->brushes[order[k].brush];
            if (order[k].luxels < order[0].luxels / 4) break; /* the next round takes the new largest */
            b->luxel_scale = (b->luxel_scale > 1 ? b->luxel_scale : 1) * 2;
            total -= order[k].luxels * 0.75;
            coarser[order[k].brush] = true;
        }
    }
    for (size_t i = 0; i < l->brush_count; i++) {
        if (!coarser[i]) continue;
        fit.faces += l->brushes[i].side_count;
        fit.coarsest = fmax(fit.coarsest, l->brushes[i].luxel_scale);
    }
    xfree(order);
    xfree(coarser);
    return fit;
}

bool level_emptiness(const level_def *l, uint64_t built_vertices, char *msg, size_t size)
{
    static const char *const why[FACE_LOSS_COUNT] = {
        [FACE_LOSS_HIDDEN] = "in hidden visgroups",
        [FACE_LOSS_TOOL] = "tool textures (clip, trigger, origin, skip, hint, null...)",
        [FACE_LOSS_VOLUME] = "in volume entities (trigger_*, func_ladder...)",
        [FACE_LOSS_SKY] = "sky",
        [FACE_LOSS_BAD_BRUSH] = "on bad brushes (dropped)",
        [FACE_LOSS_OUTSIDE] = "removed by the outside fill (only the void outside sees them)",
    };
    if (built_vertices || !l->faces.source) return false;
    int n = snprintf(msg, size, "level '%s' has no geometry left of the source's %llu faces", l->name,
                     (unsigned long long)l->faces.source);
    const char *sep = ": ";
    for (int k = 0; k < FACE_LOSS_COUNT; k++) {
        if (!l->faces.lost[k] || n < 0 || (size_t)n >= size) continue;
        const char *unit = k == FACE_LOSS_OUTSIDE ? " pieces" : "";
        n += snprintf(msg + n, size - (size_t)n, "%s%llu%s %s", sep, (unsigned long long)l->faces.lost[k], unit, why[k]);
        sep = ", ";
    }
    if (*sep == ':' && n >= 0 && (size_t)n < size)
        snprintf(msg + n, size - (size_t)n, ": each lies inside other brushes");
    return true;
}

const char *level_layout(level_build *lb)
{
    level_def *def = lb->def;
    static char msg[256];
    if (!def->brush_count && !def->allow_empty) {
        snprintf(msg, sizeof msg, "level '%s' has no solids", def->name);
        return msg;
    }
    v3 lo = v3_make(1e30, 1e30, 1e30), hi = v3_make(-1e30, -1e30, -1e30);
    for (size_t i = 0; i < def->brush_count; i++) bounds_add(&lo, &hi, def->brushes[i].lo, def->brushes[i].hi);
    for (size_t i = 0; i < def->sky_count; i++)
        if (def->skies[i].has_3d) bounds_add(&lo, &hi, def->skies[i].skybox_point, def->skies[i].skybox_point);
    if (!def->brush_count) lo = hi = v3_make(0, 0, 0); /* an empty level: one void chunk */
    if (def->keep_origin) bounds_add(&lo, &hi, v3_make(0, 0, 0), v3_make(0, 0, 0));
    double ext = fmax(hi.x - lo.x, fmax(hi.y - lo.y, hi.z - lo.z));
    int exp = def->chunk_exp;
    if (exp < 0) {
        exp = (int)ceil(log2(fmax(ext, 1) / 4));
        exp = exp < 4 ? 4 : exp > 7 ? 7 : exp;
    }
    lb->exp = exp;
    lb->S = ldexp(1.0, exp);
    double S = lb->S;
    int64_t kmin[3], kmax[3];
    uint32_t limit[3] = { 4096, 256, 4096 };
    for (int a = 0; a < 3; a++) {
        kmin[a] = (int64_t)floor((lo.e[a] + S / 2) / S + 1e-9);
        kmax[a] = (int64_t)floor((hi.e[a] + S / 2) / S - 1e-9);
        if (kmax[a] < kmin[a]) kmax[a] = kmin[a];
        if ((uint64_t)(kmax[a] - kmin[a] + 1) > limit[a]) {
            snprintf(msg, sizeof msg, "level '%s' needs %lld chunks along %c (at most %u): use a bigger chunk_size",
                     def->name, (long long)(kmax[a] - kmin[a] + 1), "XYZ"[a], limit[a]);
            return msg;
        }
    }
    /* a source's level (line > 0; generated cities are built a tile at a time) keeps a build
     * record of ~3 KB per grid cell for the whole grid: bounded here, not by the machine */
    uint64_t cells = (uint64_t)(kmax[0] - kmin[0] + 1) * (uint64_t)(kmax[1] - kmin[1] + 1) * (uint64_t)(kmax[2] - kmin[2] + 1);
    if (def->line > 0 && cells > PMFC_MAX_SOURCE_CELLS) {
        snprintf(msg, sizeof msg, "level '%s' spans %llu chunks of %g m (at most %u): use a bigger chunk_size or bring the solids closer",
                 def->name, (unsigned long long)cells, S, PMFC_MAX_SOURCE_CELLS);
        return msg;
    }
    /* the world origin is the centre of the centre chunk: the source origin's chunk when the grid
     * holds it, else the middle of the grid (and the level moves so that chunk sits at 0) */
    v3 shift = v3_make(0, 0, 0);
    uint32_t centre[3];
    for (int a = 0; a < 3; a++) {
        uint32_t n = (uint32_t)(kmax[a] - kmin[a] + 1);
        if (kmin[a] <= 0 && kmax[a] >= 0) {
            centre[a] = (uint32_t)-kmin[a];
        } else {
            centre[a] = n / 2;
            shift.e[a] = -(double)(kmin[a] + (int64_t)centre[a]) * S;
        }
    }
    if (shift.x != 0 || shift.y != 0 || shift.z != 0) {
        if (!lb->quiet)
            session_say(PMFC_NOTE, "pmfc: level '%s': the source origin is outside the chunk grid; world = source %+g %+g %+g",
                    def->name, shift.x, shift.y, shift.z);
        level_translate(def, shift);
    }
    lb->nx = (uint32_t)(kmax[0] - kmin[0] + 1);
    lb->ny = (uint32_t)(kmax[1] - kmin[1] + 1);
    lb->nz = (uint32_t)(kmax[2] - kmin[2] + 1);
    lb->centre_chunk.x = centre[0];
    lb->centre_chunk.y = centre[1];
    lb->centre_chunk.z = centre[2];
    /* visibility cells: about 8 m, at most chunk/2 deep */
    double cell = def->vis_cell > 0 ? def->vis_cell : 8;
    int depth = 0;
    while (depth < 6 && S / ldexp(1.0, depth) > cell * 1.5) depth++;
    lb->vis_depth = depth;
    return NULL;
}

void level_window(level_build *lb, uint32_t x0, uint32_t z0, uint32_t nx, uint32_t nz, uint32_t margin)
{
    uint32_t c[3] = { lb->centre_chunk.x, lb->centre_chunk.y, lb->centre_chunk.z };
    double S = lb->S;
    lb->wx0 = x0 > margin ? x0 - margin : 0;
    lb->wz0 = z0 > margin ? z0 - margin : 0;
    lb->wnx = (x0 + nx + margin < lb->nx ? x0 + nx + margin : lb->nx) - lb->wx0;
    lb->wnz = (z0 + nz + margin < lb->nz ? z0 + nz + margin : lb->nz) - lb->wz0;
    lb->chunks = xcalloc(level_chunk_count(lb), sizeof *lb->chunks);
    for (uint32_t y = 0; y < lb->ny; y++)
        for (uint32_t x = lb->wx0; x < lb->wx0 + lb->wnx; x++)
            for (uint32_t z = lb->wz0; z < lb->wz0 + lb->wnz; z++) {
                chunk_build *cb = &lb->chunks[level_chunk_index(lb, x, y, z)];
                cb->gx = x; cb->gy = y; cb->gz = z;
                cb->centre = v3_make(((double)x - c[0]) * S, ((double)y - c[1]) * S, ((double)z - c[2]) * S);
                cb->margin = x < x0 || x >= x0 + nx || z < z0 || z >= z0 + nz;
            }
}

chunk_build *level_chunk_at(const level_build *lb, int64_t x, int64_t y, int64_t z)
{
    if (x < lb->wx0 || x >= (int64_t)lb->wx0 + lb->wnx || z < lb->wz0 || z >= (int64_t)lb->wz0 + lb->wnz || y < 0 || y >= lb->ny)
        return NULL;
    return &lb->chunks[level_chunk_index(lb, (uint32_t)x, (uint32_t)y, (uint32_t)z)];
}

/* Whether face f is an occluder: opaque, and for shadows not of a shadowless brush. */
static bool occludes(const level_build *lb, const face *f, bool shadows)
{
    return material_opaque(&lb->map->materials[f->material]) &&
           !(shadows && f->brush >= 0 && (size_t)f->brush < lb->def->brush_count && lb->def->brushes[f->brush].shadowless);
}

float (*level_occluders(const level_build *lb, v3 origin, bool shadows, size_t *count, uint32_t **faces))[9]
{
    size_t tri_count = 0;
    for (int list = 0; list < 2; list++) {
        const face *fs = list ? lb->void_faces : lb->faces;
        size_t n = list ? lb->void_face_count : lb->face_count;
        for (size_t i = 0; i < n; i++)
            if (occludes(lb, &fs[i], shadows)) tri_count += (size_t)fs[i].n - 2;
    }
    float (*tris)[9] = xmalloc((tri_count ? tri_count : 1) * sizeof *tris);
    if (faces) *faces = xmalloc((tri_count ? tri_count : 1) * sizeof **faces);
    size_t t = 0;
    for (int list = 0; list < 2; list++) {
        const face *fs = list ? lb->void_faces : lb->faces;
        size_t n = list ? lb->void_face_count : lb->face_count;
        for (size_t i = 0; i < n; i++) {
            const face *f = &fs[i];
            if (!occludes(lb, f, shadows)) continue;
            for (int k = 1; k + 1 < f->n; k++) {
                const v3 *p[3] = { &f->p[0], &f->p[k], &f->p[k + 1] };
                for (int c = 0; c < 3; c++)
                    for (int a = 0; a < 3; a++) tris[t][c * 3 + a] = (float)(p[c]->e[a] - origin.e[a]);
                if (faces) (*faces)[t] = (uint32_t)(list ? lb->face_count + i : i);
                t++;
            }
        }
    }
    *count = tri_count;
    return tris;
}

/* The chunk's box, widened at the grid's outer sides so faces lying there stay in the grid. */
static void chunk_box(const level_build *lb, const chunk_build *cb, v3 *lo, v3 *hi)
{
    double h = lb->S / 2;
    uint32_t g[3] = { cb->gx, cb->gy, cb->gz }, n[3] = { lb->nx, lb->ny, lb->nz };
    for (int a = 0; a < 3; a++) {
        lo->e[a] = cb->centre.e[a] - h - (g[a] == 0 ? 1e-3 : 0);
        hi->e[a] = cb->centre.e[a] + h + (g[a] == n[a] - 1 ? 1e-3 : 0);
    }
}

void level_clip_to_chunks(level_build *lb)
{
    double S = lb->S;
    for (size_t fi = 0; fi < lb->face_count; fi++) {
        const face *f = &lb->faces[fi];
        v3 lo = f->p[0], hi = f->p[0];
        for (int k = 1; k < f->n; k++) bounds_add(&lo, &hi, f->p[k], f->p[k]);
        int64_t r[6];
        int64_t w0[3] = { lb->wx0, 0, lb->wz0 }, w1[3] = { (int64_t)lb->wx0 + lb->wnx, lb->ny, (int64_t)lb->wz0 + lb->wnz };
        uint32_t c[3] = { lb->centre_chunk.x, lb->centre_chunk.y, lb->centre_chunk.z };
        for (int a = 0; a < 3; a++) {
            r[a] = (int64_t)floor((lo.e[a] + S / 2) / S - 1e-9) + c[a];
            r[a + 3] = (int64_t)floor((hi.e[a] + S / 2) / S + 1e-9) + c[a];
            if (r[a] < w0[a]) r[a] = w0[a];
            if (r[a + 3] > w1[a] - 1) r[a + 3] = w1[a] - 1;
        }
        poly in;
        in.n = f->n < POLY_MAX ? f->n : POLY_MAX;
        memcpy(in.p, f->p, (size_t)in.n * sizeof(v3));
        for (int64_t y = r[1]; y <= r[4]; y++)
            for (int64_t x = r[0]; x <= r[3]; x++)
                for (int64_t z = r[2]; z <= r[5]; z++) {
                    chunk_build *cb = &lb->chunks[level_chunk_index(lb, (uint32_t)x, (uint32_t)y, (uint32_t)z)];
                    v3 blo, bhi;
                    chunk_box(lb, cb, &blo, &bhi);
                    poly out;
                    if (!poly_clip_box(&in, f->pl.n, blo, bhi, &out)) continue;
                    chunk_face *cf = PUSH(cb->faces, cb->face_count, cb->face_cap);
                    cf->face = (int)fi;
                    cf->n = out.n;
                    cf->p = xmalloc((size_t)out.n * sizeof(v3));
                    memcpy(cf->p, out.p, (size_t)out.n * sizeof(v3));
                    cf->lightmap = PMF_NO_LIGHTMAP;
                    cb->present = true;
                }
    }
}

void level_build_free(level_build *lb)
{
    for (size_t i = 0; i < lb->face_count; i++) xfree(lb->faces[i].p);
    xfree(lb->faces);
    for (size_t i = 0; i < lb->sky_face_count; i++) xfree(lb->sky_faces[i].p);
    xfree(lb->sky_faces);
    for (size_t i = 0; i < lb->void_face_count; i++) xfree(lb->void_faces[i].p);
    xfree(lb->void_faces);
    size_t n = level_chunk_count(lb);
    for (size_t i = 0; lb->chunks && i < n; i++) {
        chunk_build *cb = &lb->chunks[i];
        for (size_t k = 0; k < cb->face_count; k++) xfree(cb->faces[k].p);
        xfree(cb->faces);
        for (int k = 0; k < cb->lightmap_count; k++) xfree(cb->lightmaps[k].luxels);
        xfree(cb->lightmaps);
        xfree(cb->cubes); xfree(cb->ccubes); xfree(cb->info);
        xfree(cb->verts); xfree(cb->normals); xfree(cb->mat_used);
        xfree(cb->leaves); xfree(cb->leaf_polys); xfree(cb->leaf_points);
    }
    xfree(lb->chunks);
    memset(lb, 0, sizeof *lb);
}
