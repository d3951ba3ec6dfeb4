/* pm4_to_pmf.c - a PM4 world as a PMF 0.0 file for the viewer, layer by layer (see pm4_world.h
 * and docs/formats.md for the colours, the shading and the marker sizes). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm4_world.h"
#include "pmf_build.h"
#include "pmf_internal.h"
#include "base/grow.h"

#define WALKABLE_COLORS 12
#define PROP_COLORS 6
#define PATH_HALF_WIDTH 0.15f
#define EXTERIOR_RADIUS 0.3f
#define REFERENCE_RADIUS 0.5f
/* Surfaces of 255 indices and 8-triangle markers multiply a file's bytes: this bounds the memory
 * a drawn world takes (about 1.5 GiB at the cap) */
#define MAX_DRAWN_TRIANGLES (16u << 20)

/* Materials: walkable colours, M2 prop colours, both again marked as liquid, then the layers. */
enum { MAT_WALKABLE = 0, MAT_PROP = MAT_WALKABLE + WALKABLE_COLORS, MAT_LIQUID = MAT_PROP + PROP_COLORS,
       MAT_PATH = MAT_LIQUID + WALKABLE_COLORS + PROP_COLORS, MAT_EXTERIOR, MAT_REFERENCE, MAT_COUNT };

static void hsv(float h, float s, float v, uint8_t out[3])
{
    float rgb[3];
    for (int k = 0; k < 3; k++) {
        float x = fmodf(h * 6.0f + (float[3]){ 5, 3, 1 }[k], 6.0f);
        float f = fminf(fminf(x, 4.0f - x), 1.0f);
        rgb[k] = v - v * s * fmaxf(f, 0.0f);
    }
    for (int k = 0; k < 3; k++)
        out[k] = (uint8_t)lroundf(rgb[k] * 255.0f);
}

static void material_color(int m, uint8_t out[3])
{
    static const uint8_t water[3] = { 40, 110, 255 };
    if (m >= MAT_LIQUID && m < MAT_PATH) {
        material_color(m - MAT_LIQUID, out);
        for (int k = 0; k < 3; k++)
            out[k] = (uint8_t)((out[k] + water[k] + 1) / 2);
    } else if (m >= MAT_PROP) {
        hsv((float)(m - MAT_PROP) / PROP_COLORS + 0.08f, 0.25f, 0.65f, out);
    } else {
        hsv((float)(m - MAT_WALKABLE) / WALKABLE_COLORS, 0.7f, 0.95f, out);
    }
    if (m == MAT_PATH)
        memcpy(out, (const uint8_t[3]){ 255, 220, 0 }, 3);
    else if (m == MAT_EXTERIOR)
        memcpy(out, (const uint8_t[3]){ 0, 230, 230 }, 3);
    else if (m == MAT_REFERENCE)
        memcpy(out, (const uint8_t[3]){ 255, 0, 200 }, 3);
}

static int surface_material(const pm4_msur *s)
{
    uint32_t h = pm4_msur_ck24(s) * 2654435761u;
    int m = s->group_key ? MAT_WALKABLE + (int)(h >> 16) % WALKABLE_COLORS : MAT_PROP + (int)(h >> 16) % PROP_COLORS;
    return s->attribute_mask & PM4_MSUR_LIQUID ? MAT_LIQUID + m : m;
}

void pm4_surface_color(const pm4_msur *s, uint8_t out[3])
{
    material_color(surface_material(s), out);
}

/* Light from above and a little to the side, both faces alike: 0.3 + 0.7 |n . l|, in 64 steps. */
uint8_t pm4_surface_shade(const float view_normal[3])
{
    static const float l[3] = { 0.3f, 1.0f, 0.5f };
    float ll = sqrtf(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]);
    float nl = sqrtf(view_normal[0] * view_normal[0] + view_normal[1] * view_normal[1] + view_normal[2] * view_normal[2]);
    float d = nl > 0 ? fabsf(view_normal[0] * l[0] + view_normal[1] * l[1] + view_normal[2] * l[2]) / (nl * ll) : 1.0f;
    float shade = 0.3f + 0.7f * fminf(d, 1.0f);
    return (uint8_t)lroundf(roundf(shade * 63.0f) / 63.0f * 255.0f);
}

typedef struct tri_list { pmf_build_triangle *items; size_t count, cap; bool oom, too_many; } tri_list;

static pmf_build_triangle *push(tri_list *l)
{
    if (l->count == MAX_DRAWN_TRIANGLES) {
        l->too_many = true;
        return NULL;
    }
    if (l->oom || !grow_array((void **)&l->items, &l->cap, l->count + 1, sizeof *l->items)) {
        l->oom = true;
        return NULL;
    }
    pmf_build_triangle *t = &l->items[l->count++];
    memset(t, 0, sizeof *t);
    return t;
}

static void add_triangle(tri_list *l, const float a[3], const float b[3], const float c[3], int material, bool lit,
                         uint8_t shade)
{
    pmf_build_triangle *t = push(l);
    if (!t)
        return;
    memcpy(t->xyz[0], a, 12);
    memcpy(t->xyz[1], b, 12);
    memcpy(t->xyz[2], c, 12);
    t->material = (uint16_t)material;
    t->lit = lit;
    memset(t->light, shade, 3);
}

static void view_point(const float world[3], float out[3]) { pm4_world_to_view(world, out); }

static void add_surfaces(tri_list *l, const pm4_tile *t)
{
    for (uint32_t i = 0; i < t->entries[PM4_MSUR]; i++) {
        const pm4_msur *s = &t->msur[i];
        if (s->index_count < 3)
            continue;
        float p[3][3], w[3], normal[3];
        /* the stored normal is in the spec's world frame; a zero one falls back to the polygon's */
        pm4_world_to_view(s->normal, normal);
        if (normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2] < 0.25f) {
            float a[3], b[3], c[3];
            pm4_msvt_world(t, t->msvi[s->msvi_first], w), view_point(w, a);
            pm4_msvt_world(t, t->msvi[s->msvi_first + 1], w), view_point(w, b);
            pm4_msvt_world(t, t->msvi[s->msvi_first + 2], w), view_point(w, c);
            float u[3] = { b[0] - a[0], b[1] - a[1], b[2] - a[2] }, v[3] = { c[0] - a[0], c[1] - a[1], c[2] - a[2] };
            normal[0] = u[1] * v[2] - u[2] * v[1];
            normal[1] = u[2] * v[0] - u[0] * v[2];
            normal[2] = u[0] * v[1] - u[1] * v[0];
        }
        uint8_t shade = pm4_surface_shade(normal);
        int material = surface_material(s);
        pm4_msvt_world(t, t->msvi[s->msvi_first], w);
        view_point(w, p[0]);
        for (uint32_t k = 2; k < s->index_count; k++) {
            pm4_msvt_world(t, t->msvi[s->msvi_first + k - 1], w);
            view_point(w, p[1]);
            pm4_msvt_world(t, t->msvi[s->msvi_first + k], w);
            view_point(w, p[2]);
            add_triangle(l, p[0], p[1], p[2], material, true, shade);
        }
    }
}

/* A segment as two crossed ribbons (horizontal and vertical), so it shows from any side. */
static void add_segment(tri_list *l, const float a[3], const float b[3])
{
    float d[3] = { b[0] - a[0], b[1] - a[1], b[2] - a[2] };
    float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (len <= 0)
        return;
    /* side: horizontal, perpendicular to d (or +X for a vertical segment); up: d x side */
    float side[3] = { -d[2], 0, d[0] };
    float sl = sqrtf(side[0] * side[0] + side[2] * side[2]);
    if (sl < 1e-6f * len)
        side[0] = 1, side[2] = 0, sl = 1;
    for (int k = 0; k < 3; k++)
        side[k] *= PATH_HALF_WIDTH / sl;
    float up[3] = { d[1] * side[2] - d[2] * side[1], d[2] * side[0] - d[0] * side[2], d[0] * side[1] - d[1] * side[0] };
    float ul = sqrtf(up[0] * up[0] + up[1] * up[1] + up[2] * up[2]);
    for (int k = 0; k < 3; k++)
        up[k] *= PATH_HALF_WIDTH / ul;
    const float *offsets[2] = { side, up };
    for (int r = 0; r < 2; r++) {
        const float *o = offsets[r];
        float a0[3], a1[3], b0[3], b1[3];
        for (int k = 0; k < 3; k++) {
            a0[k] = a[k] - o[k], a1[k] = a[k] + o[k];
            b0[k] = b[k] - o[k], b1[k] = b[k] + o[k];
        }
        add_triangle(l, a0, b0, b1, MAT_PATH, false, 0);
        add_triangle(l, a0, b1, a1, MAT_PATH, false, 0);
    }
}

static void add_paths(tri_list *l, const pm4_tile *t)
{
    float w[3], a[3], b[3];
    /* each MSLK entry with geometry is one strip; without MSLK, MSPI is one strip */
    uint32_t strips = t->entries[PM4_MSLK] ? t->entries[PM4_MSLK] : 1;
    for (uint32_t s = 0; s < strips; s++) {
        uint32_t first = 0, count = t->entries[PM4_MSPI];
        if (t->entries[PM4_MSLK]) {
            if (t->mslk[s].mspi_first < 0)
                continue;
            first = (uint32_t)t->mslk[s].mspi_first;
            count = t->mslk[s].mspi_count;
        }
        for (uint32_t k = 1; k < count; k++) {
            pm4_mspv_world(t, t->mspi[first + k - 1], w), view_point(w, a);
            pm4_mspv_world(t, t->mspi[first + k], w), view_point(w, b);
            add_segment(l, a, b);
        }
    }
}

/* An octahedron of radius r around p. */
static void add_marker(tri_list *l, const float p[3], float r, int material)
{
    for (int oct = 0; oct < 8; oct++) {
        float x[3] = { p[0] + (oct & 1 ? -r : r), p[1], p[2] };
        float y[3] = { p[0], p[1] + (oct & 2 ? -r : r), p[2] };
        float z[3] = { p[0], p[1], p[2] + (oct & 4 ? -r : r) };
        add_triangle(l, x, y, z, material, false, 0);
    }
}

bool pm4_world_overview(const pm4_world *w, float pos[3], float *yaw, float *pitch)
{
    if (!w->has_bounds)
        return false;
    /* from above and behind (+Z), 0.6 and 0.8 of the largest extent away: pitch atan(0.6/0.8) down */
    float c[3], e = 1;
    for (int k = 0; k < 3; k++) {
        c[k] = (w->bounds_min[k] + w->bounds_max[k]) * 0.5f;
        e = fmaxf(e, w->bounds_max[k] - w->bounds_min[k]);
    }
    pos[0] = c[0];
    pos[1] = c[1] + 0.6f * e;
    pos[2] = c[2] + 0.8f * e;
    *yaw = 0;
    *pitch = -36.87f;
    return true;
}

bool pm4_world_to_pmf(const pm4_world *w, unsigned layers, const char *path, pmf_error *err)
{
    tri_list l = { 0 };
    float wp[3], v[3];
    for (uint32_t i = 0; i < w->tile_count; i++) {
        const pm4_tile *t = w->tiles[i];
        if (layers & PM4_LAYER_SURFACES)
            add_surfaces(&l, t);
        if (layers & PM4_LAYER_PATHS)
            add_paths(&l, t);
        for (uint32_t k = 0; (layers & PM4_LAYER_EXTERIOR) && k < t->entries[PM4_MSCN]; k++)
            pm4_mscn_world(t, k, wp), view_point(wp, v), add_marker(&l, v, EXTERIOR_RADIUS, MAT_EXTERIOR);
        for (uint32_t k = 0; (layers & PM4_LAYER_REFERENCES) && k < t->entries[PM4_MPRL]; k++)
            pm4_mprl_world(t, k, wp), view_point(wp, v), add_marker(&l, v, REFERENCE_RADIUS, MAT_REFERENCE);
    }
    if (l.oom || l.too_many) {
        free(l.items);
        const char *file = w->tile_count ? w->tiles[0]->file : "";
        if (l.too_many)
            pmf_error_set(err, file, "build", 0, "more than %u triangles to draw (leave out a layer with --layer)",
                          MAX_DRAWN_TRIANGLES);
        else
            pmf_error_set(err, file, "build", 0, "out of memory for %zu triangles", l.count);
        return false;
    }
    char names[MAT_COUNT][32];
    pmf_build_material mats[MAT_COUNT];
    for (int m = 0; m < MAT_COUNT; m++) {
        if (m < MAT_PATH)
            snprintf(names[m], sizeof names[m], "pm4 %s %d%s", m % MAT_LIQUID < MAT_PROP ? "walkable" : "m2 prop",
                     m % MAT_LIQUID < MAT_PROP ? m % MAT_LIQUID : m % MAT_LIQUID - MAT_PROP, m >= MAT_LIQUID ? " liquid" : "");
        else
            snprintf(names[m], sizeof names[m], "pm4 %s", m == MAT_PATH ? "path" : m == MAT_EXTERIOR ? "exterior" : "reference");
        mats[m] = (pmf_build_material){ .name = names[m], .texture = "" };
        material_color(m, mats[m].color);
    }
    pmf_build_desc d = { .name = "PM4", .description = "PM4 nav mesh tiles", .materials = mats, .material_count = MAT_COUNT,
                         .triangles = l.items, .triangle_count = l.count, .chunk_size_exp = 9 };
    d.has_camera = pm4_world_overview(w, d.camera_pos, &d.camera_yaw, &d.camera_pitch);
    bool ok = pmf_build_write(&d, path, err);
    if (!ok && w->tile_count)
        snprintf(err->file, sizeof err->file, "%s", w->tiles[0]->file);
    free(l.items);
    return ok;
}
