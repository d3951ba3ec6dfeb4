/* bsp_read.c - GoldSrc BSP v30, Quake BSP v29, BSP2 and 2PSB (see bsp_read.h). */
#include "bsp_read.h"
#include "base/pmf_budget.h"
#include "pmf/pmf_bytes.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LUMP_COUNT 15
#define HEADER_SIZE (4 + LUMP_COUNT * 8)
#define MAX_FILE_SIZE ((uint64_t)1 << 30)
#define MIPTEX_HEADER 40u
#define LUXEL_UNITS 16.0       /* texture units a luxel spans in every engine of this family */
#define MAX_COORD 1.0e6f       /* no map of this family reaches a million units from the origin */

enum { L_ENTITIES, L_PLANES, L_TEXTURES, L_VERTICES, L_VISIBILITY, L_NODES, L_TEXINFO, L_FACES,
       L_LIGHTING, L_CLIPNODES, L_LEAVES, L_MARKS, L_EDGES, L_SURFEDGES, L_MODELS };

static const char *const lump_names[LUMP_COUNT] = {
    "entities", "planes", "textures", "vertices", "visibility", "nodes", "texinfo", "faces",
    "lighting", "clipnodes", "leaves", "mark surfaces", "edges", "surface edges", "models",
};

typedef enum { FORM_CLASSIC, FORM_2PSB, FORM_BSP2 } bsp_form;

typedef struct reader {
    const uint8_t *data;
    size_t size;
    const char *name;
    pmf_error *err;
    uint32_t offset[LUMP_COUNT], length[LUMP_COUNT];
    char block[LUMP_COUNT][32];   /* "lump NAME": the block a cursor's own errors name */
    bsp_form form;
    uint32_t version;
} reader;

/* The error for a record's field: block "lump NAME record N", the field's file offset. */
static bool fail(reader *r, int lump, int64_t record, size_t at, const char *fmt, ...)
{
    char block[96];
    if (record >= 0) snprintf(block, sizeof block, "lump %s record %lld", lump_names[lump], (long long)record);
    else if (lump >= 0) snprintf(block, sizeof block, "lump %s", lump_names[lump]);
    else snprintf(block, sizeof block, "header");
    va_list ap;
    va_start(ap, fmt);
    pmf_error_vset(r->err, r->name, block, at, fmt, ap);
    va_end(ap);
    return false;
}

static bool out_of_memory(reader *r, int lump, size_t bytes)
{
    fail(r, lump, -1, r->offset[lump], "%zu bytes for its records are more than the memory budget leaves (see --memory)", bytes);
    if (r->err) r->err->over_budget = true;
    return false;
}

/* The lump's bytes through the shared cursor; the offsets it reports are the file's. */
static pmf_cursor lump_cursor(reader *r, int lump)
{
    return pmf_cursor_make(r->data + r->offset[lump], r->length[lump], r->offset[lump], r->name, r->block[lump], r->err);
}

/* The same bytes from pos on (pos <= c->size), for records found by offset. */
static pmf_cursor cursor_from(const pmf_cursor *c, size_t pos)
{
    return pmf_cursor_make(c->data + pos, c->size - pos, c->base + pos, c->file, c->block, c->err);
}

static size_t file_offset(const pmf_cursor *c) { return (size_t)(c->base + c->pos); }
static int32_t read_i32(pmf_cursor *c, const char *what) { return (int32_t)pmf_read_u32(c, what); }
static int16_t read_i16(pmf_cursor *c, const char *what) { return (int16_t)pmf_read_u16(c, what); }

/* The lump's record count, after checking it holds whole records of `record` bytes. */
static bool lump_records(reader *r, int lump, size_t record, uint32_t *count)
{
    if (r->length[lump] % record)
        return fail(r, lump, -1, r->offset[lump], "its %u bytes are not whole %zu-byte records", r->length[lump], record);
    *count = (uint32_t)(r->length[lump] / record);
    return true;
}

static void *alloc_records(reader *r, int lump, uint32_t count, size_t each)
{
    size_t bytes = (size_t)(count ? count : 1) * each;
    void *p = pmf_budget_calloc(count ? count : 1, each);
    if (!p) out_of_memory(r, lump, bytes);
    return p;
}

/* A lump of whole records of `each` bytes: their count, a zeroed array of as many `size`-byte
 * items, and a cursor at the lump's start. */
static bool open_records(reader *r, int lump, size_t each, uint32_t *count, void **items, size_t size, pmf_cursor *c)
{
    if (!lump_records(r, lump, each, count) || !(*items = alloc_records(r, lump, *count, size)))
        return false;
    *c = lump_cursor(r, lump);
    return true;
}

static bool finite_coord(float f) { return isfinite(f) && fabsf(f) <= MAX_COORD; }

static bool read_header(reader *r, bsp_file *out)
{
    if (r->size < HEADER_SIZE)
        return fail(r, -1, -1, 0, "%zu bytes are shorter than the %u-byte header", r->size, HEADER_SIZE);
    pmf_cursor c = pmf_cursor_make(r->data, r->size, 0, r->name, "header", r->err);
    uint32_t v = pmf_read_u32(&c, "version");
    if (v == BSP_VERSION_QUAKE || v == BSP_VERSION_GOLDSRC) r->form = FORM_CLASSIC;
    else if (v == BSP_VERSION_2PSB) r->form = FORM_2PSB;
    else if (v == BSP_VERSION_BSP2) r->form = FORM_BSP2;
    else if (v == 38 && memcmp(r->data, "IBSP", 4) == 0) return fail(r, -1, -1, 0, "a Quake 2 BSP (IBSP), which this reader does not open");
    else return fail(r, -1, -1, 0, "version %u is none of 29 (Quake), 30 (GoldSrc), BSP2 or 2PSB", v);
    out->version = r->version = v;
    for (int i = 0; i < LUMP_COUNT; i++) {
        size_t at = c.pos;
        int32_t off = read_i32(&c, "lump offset"), len = read_i32(&c, "lump length");
        if (off < 0 || len < 0)
            return fail(r, i, -1, at, off < 0 ? "negative offset %d" : "negative length %d", off < 0 ? off : len);
        if ((uint64_t)(uint32_t)off + (uint32_t)len > r->size)
            return fail(r, i, -1, at, "bytes %d..%lld lie past the file's end (%zu bytes)", off,
                        (long long)off + len, r->size);
        r->offset[i] = (uint32_t)off;
        r->length[i] = (uint32_t)len;
        snprintf(r->block[i], sizeof r->block[i], "lump %s", lump_names[i]);
    }
    return !c.failed;
}

static bool read_planes(reader *r, bsp_file *out)
{
    pmf_cursor c;
    if (!open_records(r, L_PLANES, 20, &out->plane_count, (void **)&out->planes, sizeof *out->planes, &c))
        return false;
    for (uint32_t i = 0; i < out->plane_count && !c.failed; i++) {
        size_t at = file_offset(&c);
        bsp_plane *pl = &out->planes[i];
        pmf_read_f32s(&c, pl->normal, 3, "plane normal");
        pl->dist = pmf_read_f32(&c, "plane distance");
        pmf_read_u32(&c, "plane type");
        float len2 = pl->normal[0] * pl->normal[0] + pl->normal[1] * pl->normal[1] + pl->normal[2] * pl->normal[2];
        if (!finite_coord(pl->dist) || !(len2 > 0.9f && len2 < 1.1f))
            return fail(r, L_PLANES, i, at, "not a plane (normal of length %g, distance %g)", sqrt(len2), pl->dist);
    }
    return !c.failed;
}

static bool read_vertices(reader *r, bsp_file *out)
{
    pmf_cursor c;
    if (!open_records(r, L_VERTICES, 12, &out->vertex_count, (void **)&out->vertices, sizeof *out->vertices, &c))
        return false;
    for (uint32_t i = 0; i < out->vertex_count && !c.failed; i++) {
        size_t at = file_offset(&c);
        pmf_read_f32s(&c, out->vertices[i], 3, "vertex");
        for (int k = 0; k < 3; k++)
            if (!finite_coord(out->vertices[i][k]))
                return fail(r, L_VERTICES, i, at + 4 * k, "coordinate %g is not a finite number within a million units", out->vertices[i][k]);
    }
    return !c.failed;
}

static bool read_edges(reader *r, bsp_file *out)
{
    size_t each = r->form == FORM_CLASSIC ? 4 : 8;
    pmf_cursor c;
    if (!open_records(r, L_EDGES, each, &out->edge_count, (void **)&out->edges, sizeof *out->edges, &c))
        return false;
    for (uint32_t i = 0; i < out->edge_count && !c.failed; i++) {
        size_t at = file_offset(&c);
        for (int k = 0; k < 2; k++) {
            uint32_t v = each == 4 ? pmf_read_u16(&c, "edge vertex") : pmf_read_u32(&c, "edge vertex");
            if (v >= out->vertex_count && !c.failed)
                return fail(r, L_EDGES, i, at + (each / 2) * k, "vertex %u of %u", v, out->vertex_count);
            out->edges[i][k] = v;
        }
    }
    if (c.failed) return false;
    if (!open_records(r, L_SURFEDGES, 4, &out->surfedge_count, (void **)&out->surfedges, sizeof *out->surfedges, &c))
        return false;
    for (uint32_t i = 0; i < out->surfedge_count && !c.failed; i++) {
        size_t at = file_offset(&c);
        int32_t e = read_i32(&c, "surface edge");
        uint32_t index = e < 0 ? (uint32_t)0 - (uint32_t)e : (uint32_t)e;
        if (index >= out->edge_count && !c.failed)
            return fail(r, L_SURFEDGES, i, at, "edge %d of %u", e, out->edge_count);
        out->surfedges[i] = e;
    }
    return !c.failed;
}

/* One miptex header at lump offset off (40 bytes known to fit): name, size, its texels' extent
 * (four levels and, in GoldSrc, the palette after them) when they are embedded. */
static bool read_miptex(reader *r, const pmf_cursor *lump, uint32_t i, uint32_t off, bsp_texture *t)
{
    pmf_cursor m = cursor_from(lump, off);
    size_t at = file_offset(&m), len = m.size;
    pmf_read_bytes(&m, (uint8_t *)t->name, 16, "texture name");
    t->name[15] = '\0';
    t->offset = at;
    t->width = pmf_read_u32(&m, "texture width");
    t->height = pmf_read_u32(&m, "texture height");
    if (!t->width || !t->height || t->width > 4096 || t->height > 4096 || t->width % 16 || t->height % 16)
        return fail(r, L_TEXTURES, i, at + 16, "size %ux%u is not a multiple of 16 from 16 to 4096", t->width, t->height);
    uint32_t mips[4];
    for (int k = 0; k < 4; k++) mips[k] = pmf_read_u32(&m, "mip level offset");
    if (m.failed) return false;
    if (!mips[0]) return true; /* its texels are in a WAD */
    /* four levels, each a quarter of the one before */
    size_t texels = (size_t)t->width * t->height, need = 0;
    for (int k = 0; k < 4; k++) {
        size_t level = texels >> (2 * k);
        if ((uint64_t)mips[k] + level > len)
            return fail(r, L_TEXTURES, i, at + 24 + 4 * k, "mip level %d (%zu texels at %u) lies past the lump", k, level, mips[k]);
        if (mips[k] + level > need) need = mips[k] + level;
    }
    /* GoldSrc follows the levels with its palette: a 16-bit colour count and the colours */
    if (r->version == BSP_VERSION_GOLDSRC) {
        if ((uint64_t)need + 2 > len)
            return fail(r, L_TEXTURES, i, at + need, "no palette after the texels");
        pmf_cursor palette = cursor_from(&m, need);
        uint16_t colours = pmf_read_u16(&palette, "palette size");
        if (!colours || colours > 256 || (uint64_t)need + 2 + (size_t)colours * 3 > len)
            return fail(r, L_TEXTURES, i, at + need, "palette of %u colours (1 to 256 fitting the lump)", colours);
        need += 2 + (size_t)colours * 3;
    }
    t->embedded = true;
    t->miptex = m.data;
    t->miptex_size = need;
    return !m.failed;
}

static bool read_textures(reader *r, bsp_file *out)
{
    uint32_t base = r->offset[L_TEXTURES], len = r->length[L_TEXTURES];
    if (!len) return true; /* a map with no texture at all */
    if (len < 4) return fail(r, L_TEXTURES, -1, base, "%u bytes hold no texture count", len);
    pmf_cursor c = lump_cursor(r, L_TEXTURES);
    int32_t count = read_i32(&c, "texture count");
    if (count < 0 || (uint64_t)count * 4 + 4 > len)
        return fail(r, L_TEXTURES, -1, base, "%d textures do not fit its %u bytes", count, len);
    out->texture_count = (uint32_t)count;
    if (!(out->textures = alloc_records(r, L_TEXTURES, out->texture_count, sizeof *out->textures))) return false;
    for (uint32_t i = 0; i < out->texture_count && !c.failed; i++) {
        size_t at = file_offset(&c);
        int32_t off = read_i32(&c, "texture offset");
        if (off == -1) continue; /* a missing slot: faces using it are drawn untextured */
        if (off < 0 || (uint64_t)off + MIPTEX_HEADER > len)
            return fail(r, L_TEXTURES, i, at, "offset %d puts its 40-byte header past the lump's %u bytes", off, len);
        if (!read_miptex(r, &c, i, (uint32_t)off, &out->textures[i])) return false;
    }
    return !c.failed;
}

static bool read_texinfo(reader *r, bsp_file *out)
{
    pmf_cursor c;
    if (!open_records(r, L_TEXINFO, 40, &out->texinfo_count, (void **)&out->texinfos, sizeof *out->texinfos, &c))
        return false;
    for (uint32_t i = 0; i < out->texinfo_count && !c.failed; i++) {
        size_t at = file_offset(&c);
        bsp_texinfo *t = &out->texinfos[i];
        pmf_read_f32s(&c, t->s, 4, "texture axis s");
        pmf_read_f32s(&c, t->t, 4, "texture axis t");
        for (int k = 0; k < 4; k++)
            if (!finite_coord(t->s[k]) || !finite_coord(t->t[k]))
                return fail(r, L_TEXINFO, i, at, "texture axes hold a number that is not finite");
        t->texture = pmf_read_u32(&c, "texinfo texture");
        t->flags = pmf_read_u32(&c, "texinfo flags");
        if (t->texture >= out->texture_count && out->texture_count && !c.failed)
            return fail(r, L_TEXINFO, i, at + 32, "texture %u of %u", t->texture, out->texture_count);
        if (!out->texture_count) t->texture = UINT32_MAX;
    }
    return !c.failed;
}

/* A face's lightmap grid the way the engines find it: its corners' texture coordinates, in
 * luxels of 16 units, floored and ceiled. */
static bool face_extents(reader *r, bsp_file *out, uint32_t i, bsp_face *f, size_t at)
{
    const bsp_texinfo *ti = &out->texinfos[f->texinfo];
    double lo[2] = { INFINITY, INFINITY }, hi[2] = { -INFINITY, -INFINITY };
    for (uint32_t k = 0; k < f->edge_count; k++) {
        const float *v = out->vertices[bsp_face_vertex(out, f, k)];
        const float *axes[2] = { ti->s, ti->t };
        for (int a = 0; a < 2; a++) {
            double c = (double)v[0] * axes[a][0] + (double)v[1] * axes[a][1] + (double)v[2] * axes[a][2] + axes[a][3];
            if (c < lo[a]) lo[a] = c;
            if (c > hi[a]) hi[a] = c;
        }
    }
    for (int a = 0; a < 2; a++) {
        double mn = floor(lo[a] / LUXEL_UNITS), mx = ceil(hi[a] / LUXEL_UNITS);
        if (mx - mn + 1 > BSP_MAX_LUXELS)
            return fail(r, L_FACES, i, at, "its lightmap spans %.0f luxels (at most %u)", mx - mn + 1, BSP_MAX_LUXELS);
        f->light_mins[a] = (int32_t)mn;
        f->light_size[a] = (uint32_t)(mx - mn) + 1;
    }
    return true;
}

static bool read_faces(reader *r, bsp_file *out)
{
    bool wide = r->form != FORM_CLASSIC;
    size_t each = wide ? 28 : 20;
    pmf_cursor c;
    if (!open_records(r, L_FACES, each, &out->face_count, (void **)&out->faces, sizeof *out->faces, &c))
        return false;
    for (uint32_t i = 0; i < out->face_count && !c.failed; i++) {
        size_t at = file_offset(&c);
        bsp_face *f = &out->faces[i];
        uint32_t side;
        if (wide) {
            f->plane = pmf_read_u32(&c, "face plane");
            side = pmf_read_u32(&c, "face side");
            f->first_edge = pmf_read_u32(&c, "face first edge");
            f->edge_count = pmf_read_u32(&c, "face edge count");
            f->texinfo = pmf_read_u32(&c, "face texinfo");
        } else {
            f->plane = pmf_read_u16(&c, "face plane");
            side = pmf_read_u16(&c, "face side");
            f->first_edge = pmf_read_u32(&c, "face first edge");
            f->edge_count = pmf_read_u16(&c, "face edge count");
            f->texinfo = pmf_read_u16(&c, "face texinfo");
        }
        pmf_read_bytes(&c, f->styles, 4, "face light styles");
        size_t light_at = file_offset(&c);
        int32_t light = read_i32(&c, "face lightmap offset");
        if (c.failed) break;
        if (f->plane >= out->plane_count) return fail(r, L_FACES, i, at, "plane %u of %u", f->plane, out->plane_count);
        if (side > 1) return fail(r, L_FACES, i, at + (wide ? 4 : 2), "side %u is neither 0 nor 1", side);
        f->back = side == 1;
        if (f->edge_count < 3 || (uint64_t)f->first_edge + f->edge_count > out->surfedge_count)
            return fail(r, L_FACES, i, at + (wide ? 8 : 4), "edges %u..%llu of %u (at least 3)", f->first_edge,
                        (unsigned long long)f->first_edge + f->edge_count, out->surfedge_count);
        if (f->texinfo >= out->texinfo_count) return fail(r, L_FACES, i, at + (wide ? 16 : 10), "texinfo %u of %u", f->texinfo, out->texinfo_count);
        f->light_offset = -1;
        if (light < 0 || f->styles[0] == BSP_NO_STYLE || (out->texinfos[f->texinfo].flags & BSP_TEX_SPECIAL)) continue;
        if (!face_extents(r, out, i, f, at)) return false;
        unsigned styles = 0;
        while (styles < 4 && f->styles[styles] != BSP_NO_STYLE) styles++;
        uint64_t bytes = (uint64_t)f->light_size[0] * f->light_size[1] * styles * out->luxel_bytes;
        if ((uint64_t)(uint32_t)light + bytes > out->lighting_size)
            return fail(r, L_FACES, i, light_at, "its lightmap (%llu bytes at %d) lies past the lighting lump's %zu bytes",
                        (unsigned long long)bytes, light, out->lighting_size);
        f->light_offset = light;
    }
    return !c.failed;
}

static bool read_models(reader *r, bsp_file *out)
{
    if (!lump_records(r, L_MODELS, 64, &out->model_count)) return false;
    if (!out->model_count) return fail(r, L_MODELS, -1, r->offset[L_MODELS], "no model: the world is model 0");
    if (!(out->models = alloc_records(r, L_MODELS, out->model_count, sizeof *out->models))) return false;
    pmf_cursor c = lump_cursor(r, L_MODELS);
    for (uint32_t i = 0; i < out->model_count && !c.failed; i++) {
        size_t at = file_offset(&c);
        bsp_model *m = &out->models[i];
        pmf_read_f32s(&c, m->mins, 3, "model mins");
        pmf_read_f32s(&c, m->maxs, 3, "model maxs");
        pmf_read_f32s(&c, m->origin, 3, "model origin");
        m->headnode = read_i32(&c, "model head node");
        pmf_take(&c, 12, "model clipping hulls");
        m->visleafs = pmf_read_u32(&c, "model visible leaves");
        m->first_face = pmf_read_u32(&c, "model first face");
        m->face_count = pmf_read_u32(&c, "model face count");
        if (c.failed) break;
        for (int k = 0; k < 3; k++)
            if (!finite_coord(m->mins[k]) || !finite_coord(m->maxs[k]) || !finite_coord(m->origin[k]))
                return fail(r, L_MODELS, i, at, "bounds or origin hold a number that is not finite");
        if ((uint64_t)m->first_face + m->face_count > out->face_count)
            return fail(r, L_MODELS, i, at + 56, "faces %u..%llu of %u", m->first_face,
                        (unsigned long long)m->first_face + m->face_count, out->face_count);
        if (m->headnode < 0 ? (uint32_t)-(m->headnode + 1) >= out->leaf_count && out->leaf_count : (uint32_t)m->headnode >= out->node_count && out->node_count)
            return fail(r, L_MODELS, i, at + 36, "head node %d of %u nodes", m->headnode, out->node_count);
        if (m->visleafs > out->leaf_count)
            return fail(r, L_MODELS, i, at + 52, "%u visible leaves of %u", m->visleafs, out->leaf_count);
    }
    return !c.failed;
}

/* A leaf's or node's box: floats in BSP2, else 16-bit integers. */
static void read_bounds(reader *r, pmf_cursor *c, float mins[3], float maxs[3])
{
    if (r->form == FORM_BSP2) {
        pmf_read_f32s(c, mins, 3, "bounds");
        pmf_read_f32s(c, maxs, 3, "bounds");
        return;
    }
    for (int k = 0; k < 3; k++) mins[k] = read_i16(c, "bounds");
    for (int k = 0; k < 3; k++) maxs[k] = read_i16(c, "bounds");
}

static bool read_marks(reader *r, bsp_file *out)
{
    size_t each = r->form == FORM_CLASSIC ? 2 : 4;
    pmf_cursor c;
    if (!open_records(r, L_MARKS, each, &out->mark_count, (void **)&out->marks, sizeof *out->marks, &c))
        return false;
    for (uint32_t i = 0; i < out->mark_count && !c.failed; i++) {
        size_t at = file_offset(&c);
        out->marks[i] = each == 2 ? pmf_read_u16(&c, "mark surface") : pmf_read_u32(&c, "mark surface");
        if (out->marks[i] >= out->face_count && !c.failed)
            return fail(r, L_MARKS, i, at, "face %u of %u", out->marks[i], out->face_count);
    }
    return !c.failed;
}

static bool read_leaves(reader *r, bsp_file *out)
{
    size_t each = r->form == FORM_BSP2 ? 44 : r->form == FORM_2PSB ? 32 : 28;
    if (!lump_records(r, L_LEAVES, each, &out->leaf_count)) return false;
    if (!(out->leaves = alloc_records(r, L_LEAVES, out->leaf_count, sizeof *out->leaves))) return false;
    if (!read_marks(r, out)) return false;
    pmf_cursor c = lump_cursor(r, L_LEAVES);
    for (uint32_t i = 0; i < out->leaf_count && !c.failed; i++) {
        size_t at = file_offset(&c);
        bsp_leaf *l = &out->leaves[i];
        l->contents = read_i32(&c, "leaf contents");
        int32_t vis = read_i32(&c, "leaf visibility offset");
        read_bounds(r, &c, l->mins, l->maxs);
        size_t marks_at = file_offset(&c);
        if (r->form == FORM_CLASSIC) {
            l->first_mark = pmf_read_u16(&c, "leaf first mark");
            l->mark_count = pmf_read_u16(&c, "leaf mark count");
        } else {
            l->first_mark = pmf_read_u32(&c, "leaf first mark");
            l->mark_count = pmf_read_u32(&c, "leaf mark count");
        }
        pmf_take(&c, 4, "leaf ambient sounds");
        if (c.failed) break;
        for (int k = 0; k < 3; k++)
            if (!finite_coord(l->mins[k]) || !finite_coord(l->maxs[k]))
                return fail(r, L_LEAVES, i, at + 8, "bounds hold a number that is not finite");
        if ((uint64_t)l->first_mark + l->mark_count > out->mark_count)
            return fail(r, L_LEAVES, i, marks_at, "mark surfaces %u..%llu of %u", l->first_mark,
                        (unsigned long long)l->first_mark + l->mark_count, out->mark_count);
        if (vis >= 0 && (uint32_t)vis >= out->visibility_size)
            return fail(r, L_LEAVES, i, at + 4, "visibility offset %d past the lump's %zu bytes", vis, out->visibility_size);
        l->vis_offset = vis < 0 ? -1 : vis;
    }
    return !c.failed;
}

static bool read_nodes(reader *r, bsp_file *out)
{
    size_t each = r->form == FORM_BSP2 ? 44 : r->form == FORM_2PSB ? 32 : 24;
    pmf_cursor c;
    if (!open_records(r, L_NODES, each, &out->node_count, (void **)&out->nodes, sizeof *out->nodes, &c))
        return false;
    for (uint32_t i = 0; i < out->node_count && !c.failed; i++) {
        size_t at = file_offset(&c);
        bsp_node *n = &out->nodes[i];
        n->plane = pmf_read_u32(&c, "node plane");
        if (n->plane >= out->plane_count && !c.failed) return fail(r, L_NODES, i, at, "plane %u of %u", n->plane, out->plane_count);
        for (int k = 0; k < 2; k++) {
            int32_t child = r->form == FORM_CLASSIC ? read_i16(&c, "node child") : read_i32(&c, "node child");
            bool ok = child >= 0 ? (uint32_t)child < out->node_count : (uint32_t)-(child + 1) < out->leaf_count;
            if (!ok && !c.failed)
                return fail(r, L_NODES, i, at + 4, "child %d is neither a node of %u nor a leaf of %u", child, out->node_count, out->leaf_count);
            n->children[k] = child;
        }
        read_bounds(r, &c, n->mins, n->maxs);
        pmf_take(&c, r->form == FORM_CLASSIC ? 4 : 8, "node faces");
    }
    return !c.failed;
}

static bool read_entities(reader *r, bsp_file *out)
{
    pmf_cursor c = lump_cursor(r, L_ENTITIES);
    size_t len = c.size;
    char *text = pmf_budget_malloc(len + 1);
    if (!text) return out_of_memory(r, L_ENTITIES, len + 1);
    pmf_read_bytes(&c, (uint8_t *)text, len, "entities");
    text[c.failed ? 0 : len] = '\0';
    out->entities_size = strlen(text); /* the lump ends at its first NUL, as the engines read it */
    out->entities = text;
    return !c.failed;
}

bool bsp_read(const uint8_t *data, size_t size, const char *name, bsp_file *out, pmf_error *err)
{
    memset(out, 0, sizeof *out);
    reader r = { .data = data, .size = size, .name = name, .err = err };
    if (!read_header(&r, out)) return false;
    out->luxel_bytes = out->version == BSP_VERSION_GOLDSRC ? 3 : 1;
    out->lighting = data + r.offset[L_LIGHTING];
    out->lighting_size = r.length[L_LIGHTING];
    out->visibility = data + r.offset[L_VISIBILITY];
    out->visibility_size = r.length[L_VISIBILITY];
    /* in the order each one's indices need the ones before */
    bool ok = read_entities(&r, out) && read_planes(&r, out) && read_vertices(&r, out) && read_edges(&r, out) &&
              read_textures(&r, out) && read_texinfo(&r, out) && read_faces(&r, out) && read_leaves(&r, out) &&
              read_nodes(&r, out) && read_models(&r, out);
    if (!ok) {
        bsp_free(out);
        return false;
    }
    return true;
}

bool bsp_read_file(const char *path, bsp_file *out, pmf_error *err)
{
    memset(out, 0, sizeof *out);
    uint8_t *bytes = NULL;
    size_t size = 0;
    if (!pmf_read_whole_file(path, MAX_FILE_SIZE, &bytes, &size, err)) return false;
    if (!bsp_read(bytes, size, path, out, err)) {
        pmf_budget_free(bytes);
        return false;
    }
    out->data_ = bytes;
    return true;
}

void bsp_free(bsp_file *bsp)
{
    pmf_budget_free((void *)bsp->entities);
    pmf_budget_free(bsp->planes);
    pmf_budget_free(bsp->vertices);
    pmf_budget_free(bsp->edges);
    pmf_budget_free(bsp->surfedges);
    pmf_budget_free(bsp->texinfos);
    pmf_budget_free(bsp->textures);
    pmf_budget_free(bsp->faces);
    pmf_budget_free(bsp->models);
    pmf_budget_free(bsp->leaves);
    pmf_budget_free(bsp->nodes);
    pmf_budget_free(bsp->marks);
    pmf_budget_free(bsp->data_);
    memset(bsp, 0, sizeof *bsp);
}

uint32_t bsp_face_vertex(const bsp_file *bsp, const bsp_face *f, uint32_t k)
{
    int32_t e = bsp->surfedges[f->first_edge + k];
    return e >= 0 ? bsp->edges[e][0] : bsp->edges[(uint32_t)0 - (uint32_t)e][1];
}

void bsp_face_centre(const bsp_file *bsp, const bsp_face *f, double out[3])
{
    out[0] = out[1] = out[2] = 0;
    for (uint32_t k = 0; k < f->edge_count; k++)
        for (int a = 0; a < 3; a++) out[a] += bsp->vertices[bsp_face_vertex(bsp, f, k)][a] / (double)f->edge_count;
}

bool bsp_leaf_pvs(const bsp_file *bsp, uint32_t leaf, uint64_t *vis, size_t words)
{
    uint32_t visleafs = bsp->models[0].visleafs;
    const bsp_leaf *l = &bsp->leaves[leaf];
    if (l->vis_offset < 0) {
        memset(vis, 0xFF, words * sizeof *vis);
        return true;
    }
    memset(vis, 0, words * sizeof *vis);
    pmf_cursor c = pmf_cursor_make(bsp->visibility + l->vis_offset, bsp->visibility_size - (size_t)l->vis_offset,
                                   (uint64_t)l->vis_offset, NULL, NULL, NULL);
    /* a bit per visible leaf from leaf 1; a zero byte then a count of zero bytes */
    uint32_t bit = 0, row_bits = (visleafs + 7) / 8 * 8;
    while (bit < row_bits && !c.failed) {
        uint8_t b = pmf_read_u8(&c, "visibility");
        if (!b) {
            bit += 8u * pmf_read_u8(&c, "visibility run");
            continue;
        }
        for (int k = 0; k < 8; k++, bit++) {
            uint32_t seen = bit + 1;
            if ((b >> k & 1) && seen < bsp->leaf_count && seen / 64 < words)
                vis[seen / 64] |= (uint64_t)1 << (seen % 64);
        }
    }
    return !c.failed;
}

const char *bsp_version_name(uint32_t version)
{
    switch (version) {
    case BSP_VERSION_GOLDSRC: return "GoldSrc BSP v30";
    case BSP_VERSION_QUAKE: return "Quake BSP v29";
    case BSP_VERSION_BSP2: return "Quake BSP2";
    case BSP_VERSION_2PSB: return "Quake 2PSB";
    default: return "BSP";
    }
}
