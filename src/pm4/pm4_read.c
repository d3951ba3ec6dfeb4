/* pm4_read.c - reading and validating PM4 chunks (see pm4.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pm4.h"
#include "pmf_budget.h"
#include "pmf_internal.h"
#include "base/order.h"

#define MAX_FILE_SIZE (1ull << 30)

const char *const pm4_chunk_names[PM4_CHUNK_KINDS] = { "MVER", "MSHD", "MSLK", "MSPI", "MSPV", "MSVT", "MSVI",
                                                       "MSUR", "MSCN", "MPRL", "MPRR", "MDBH", "MDOS", "MDSF" };
/* Bytes per entry; 0 = variable (MDBH). */
static const uint32_t entry_sizes[PM4_CHUNK_KINDS] = { 4, 32, 20, 4, 12, 12, 4, 32, 12, 24, 4, 0, 8, 8 };

typedef struct pm4_impl {
    pmf_arena *arena;
    uint8_t *owned;
    uint64_t chunk_offset[PM4_CHUNK_KINDS]; /* file offset of each chunk's data, for errors */
} pm4_impl;

static void *alloc_array(pmf_arena *a, uint32_t count, size_t size)
{
    return count ? pmf_arena_alloc(a, (size_t)count * size) : NULL;
}

static bool read_floats(pmf_cursor *c, float (*out)[3], uint32_t count, const char *name)
{
    for (uint32_t i = 0; i < count && !c->failed; i++) {
        size_t at = c->pos;
        pmf_read_f32s(c, out[i], 3, name);
        for (int k = 0; k < 3; k++)
            if (!c->failed && !(out[i][k] >= -1e30f && out[i][k] <= 1e30f))
                return pmf_cursor_fail_at(c, at + 4 * (size_t)k, "entry %u: coordinate %d is not a finite number", i, k);
    }
    return !c->failed;
}

/* Decodes one known chunk's entries (the cursor spans exactly its data). */
static bool decode_chunk(pmf_cursor *c, pmf_arena *a, pm4_tile *t, int kind)
{
    uint32_t n = t->entries[kind];
    switch (kind) {
    case PM4_MVER: t->version = pmf_read_u32(c, "version"); break;
    case PM4_MSHD:
        for (int i = 0; i < 8; i++)
            t->header[i] = pmf_read_u32(c, "header field");
        break;
    case PM4_MSLK:
        if (!(t->mslk = alloc_array(a, n, sizeof *t->mslk)) && n)
            return pmf_cursor_fail_at(c, 0, "out of memory");
        for (uint32_t i = 0; i < n; i++) {
            pm4_mslk *e = &t->mslk[i];
            e->type_flags = pmf_read_u8(c, "type");
            e->subtype = pmf_read_u8(c, "subtype");
            e->padding = pmf_read_u16(c, "padding");
            e->group_object_id = pmf_read_u32(c, "group object id");
            uint32_t first = pmf_read_u16(c, "MSPI first");
            first |= (uint32_t)pmf_read_u8(c, "MSPI first") << 16;
            e->mspi_first = first & 0x800000u ? (int32_t)(first | 0xFF000000u) : (int32_t)first;
            e->mspi_count = pmf_read_u8(c, "MSPI count");
            e->link_id = pmf_read_u32(c, "link id");
            e->ref_index = pmf_read_u16(c, "reference index");
            e->system_flag = pmf_read_u16(c, "system flag");
        }
        break;
    case PM4_MSPI:
    case PM4_MSVI: {
        uint32_t **out = kind == PM4_MSPI ? &t->mspi : &t->msvi;
        if (!(*out = alloc_array(a, n, 4)) && n)
            return pmf_cursor_fail_at(c, 0, "out of memory");
        for (uint32_t i = 0; i < n; i++)
            (*out)[i] = pmf_read_u32(c, "index");
        break;
    }
    case PM4_MSPV:
    case PM4_MSVT:
    case PM4_MSCN: {
        float(**out)[3] = kind == PM4_MSPV ? &t->mspv : kind == PM4_MSVT ? &t->msvt : &t->mscn;
        if (!(*out = alloc_array(a, n, sizeof **out)) && n)
            return pmf_cursor_fail_at(c, 0, "out of memory");
        return read_floats(c, *out, n, pm4_chunk_names[kind]);
    }
    case PM4_MSUR:
        if (!(t->msur = alloc_array(a, n, sizeof *t->msur)) && n)
            return pmf_cursor_fail_at(c, 0, "out of memory");
        for (uint32_t i = 0; i < n; i++) {
            pm4_msur *e = &t->msur[i];
            e->group_key = pmf_read_u8(c, "group key");
            e->index_count = pmf_read_u8(c, "index count");
            e->attribute_mask = pmf_read_u8(c, "attribute mask");
            e->padding = pmf_read_u8(c, "padding");
            pmf_read_f32s(c, e->normal, 3, "normal");
            e->height = pmf_read_f32(c, "height");
            e->msvi_first = pmf_read_u32(c, "MSVI first");
            e->mdos_index = pmf_read_u32(c, "MDOS index");
            e->packed_params = pmf_read_u32(c, "packed params");
        }
        break;
    case PM4_MPRL:
        if (!(t->mprl = alloc_array(a, n, sizeof *t->mprl)) && n)
            return pmf_cursor_fail_at(c, 0, "out of memory");
        for (uint32_t i = 0; i < n; i++) {
            pm4_mprl *e = &t->mprl[i];
            size_t at = c->pos + 8;
            e->unknown0 = pmf_read_u16(c, "field 0x00");
            e->unknown2 = (int16_t)pmf_read_u16(c, "field 0x02");
            e->unknown4 = pmf_read_u16(c, "field 0x04");
            e->unknown6 = pmf_read_u16(c, "field 0x06");
            pmf_read_f32s(c, e->pos, 3, "position");
            e->unknown14 = (int16_t)pmf_read_u16(c, "field 0x14");
            e->unknown16 = pmf_read_u16(c, "field 0x16");
            for (int k = 0; k < 3; k++)
                if (!c->failed && !(e->pos[k] >= -1e30f && e->pos[k] <= 1e30f))
                    return pmf_cursor_fail_at(c, at + 4 * (size_t)k, "entry %u: coordinate %d is not a finite number", i, k);
        }
        break;
    case PM4_MPRR:
        if (!(t->mprr = alloc_array(a, n, sizeof *t->mprr)) && n)
            return pmf_cursor_fail_at(c, 0, "out of memory");
        for (uint32_t i = 0; i < n; i++) {
            t->mprr[i].value0 = pmf_read_u16(c, "value 0");
            t->mprr[i].value1 = pmf_read_u16(c, "value 1");
        }
        break;
    case PM4_MDOS:
    case PM4_MDSF: {
        uint32_t *pairs = alloc_array(a, n, 8);
        if (!pairs && n)
            return pmf_cursor_fail_at(c, 0, "out of memory");
        for (uint32_t i = 0; i < 2 * n; i++)
            pairs[i] = pmf_read_u32(c, "value");
        if (kind == PM4_MDOS)
            t->mdos = (pm4_mdos *)pairs;
        else
            t->mdsf = (pm4_mdsf *)pairs;
        break;
    }
    case PM4_MDBH: {
        /* u32 count, then its entries' sub-chunks (MDBI index, MDBF names), walked by size */
        t->entries[kind] = pmf_read_u32(c, "destructible building count");
        while (!c->failed && pmf_cursor_left(c)) {
            size_t at = c->pos;
            pmf_take(c, 4, "sub-chunk name");
            uint32_t size = pmf_read_u32(c, "sub-chunk size");
            if (!c->failed && size > pmf_cursor_left(c))
                return pmf_cursor_fail_at(c, at, "sub-chunk %u: size %u is past the chunk end (%zu bytes left)",
                                          t->mdbh_subchunks, size, pmf_cursor_left(c));
            pmf_take(c, size, "sub-chunk data");
            t->mdbh_subchunks++;
        }
        break;
    }
    }
    return !c->failed;
}

static int chunk_kind(const uint8_t tag[4])
{
    /* on disk the FourCC is reversed: "REVM" is MVER */
    char name[4] = { (char)tag[3], (char)tag[2], (char)tag[1], (char)tag[0] };
    for (int k = 0; k < PM4_CHUNK_KINDS; k++)
        if (!memcmp(name, pm4_chunk_names[k], 4))
            return k;
    return -1;
}

/* Index ranges between chunks, checked once every chunk is read (chunks come in any order). */
static bool check_links(pm4_tile *t, pmf_error *err)
{
    pm4_impl *impl = t->impl_;
    const uint32_t *n = t->entries;
#define LINK_FAIL(kind, i, entry_size, field_at, ...)                                                                  \
    do {                                                                                                           \
        pmf_error_set(err, t->file, "", impl->chunk_offset[kind] + (uint64_t)(i) * (entry_size) + (field_at), __VA_ARGS__); \
        snprintf(err->block, sizeof err->block, "chunk %s", pm4_chunk_names[kind]);                                 \
        return false;                                                                                              \
    } while (0)
    for (uint32_t i = 0; i < n[PM4_MSPI]; i++)
        if (t->mspi[i] >= n[PM4_MSPV])
            LINK_FAIL(PM4_MSPI, i, 4, 0, "entry %u: index %u is past the %u MSPV vertices", i, t->mspi[i], n[PM4_MSPV]);
    for (uint32_t i = 0; i < n[PM4_MSVI]; i++)
        if (t->msvi[i] >= n[PM4_MSVT])
            LINK_FAIL(PM4_MSVI, i, 4, 0, "entry %u: index %u is past the %u MSVT vertices", i, t->msvi[i], n[PM4_MSVT]);
    for (uint32_t i = 0; i < n[PM4_MSLK]; i++) {
        const pm4_mslk *e = &t->mslk[i];
        if (e->mspi_first < 0 ? e->mspi_first != -1
                              : (uint64_t)e->mspi_first + e->mspi_count > n[PM4_MSPI])
            LINK_FAIL(PM4_MSLK, i, 20, 8, "entry %u: MSPI entries %d (+%u) are past the %u MSPI indices", i, e->mspi_first,
                      e->mspi_count, n[PM4_MSPI]);
    }
    for (uint32_t i = 0; i < n[PM4_MSUR]; i++) {
        const pm4_msur *e = &t->msur[i];
        if ((uint64_t)e->msvi_first + e->index_count > n[PM4_MSVI])
            LINK_FAIL(PM4_MSUR, i, 32, 20, "entry %u: MSVI indices %u (+%u) are past the %u MSVI indices", i, e->msvi_first,
                      e->index_count, n[PM4_MSVI]);
        for (int k = 0; k < 4; k++) {
            float v = k < 3 ? e->normal[k] : e->height;
            if (!(v >= -1e30f && v <= 1e30f))
                LINK_FAIL(PM4_MSUR, i, 32, 4 + 4 * k, "entry %u: %s is not a finite number", i, k < 3 ? "normal" : "height");
        }
    }
    for (uint32_t i = 0; i < n[PM4_MDSF]; i++) {
        if (t->mdsf[i].msur_index >= n[PM4_MSUR])
            LINK_FAIL(PM4_MDSF, i, 8, 0, "entry %u: surface %u is past the %u MSUR surfaces", i, t->mdsf[i].msur_index,
                      n[PM4_MSUR]);
        if (t->mdsf[i].mdos_index >= n[PM4_MDOS])
            LINK_FAIL(PM4_MDSF, i, 8, 4, "entry %u: MDOS entry %u is past the %u MDOS entries", i, t->mdsf[i].mdos_index,
                      n[PM4_MDOS]);
    }
#undef LINK_FAIL
    return true;
}

static void grow_bounds(pm4_tile *t, const float world[3], bool *any)
{
    float v[3];
    pm4_world_to_view(world, v);
    for (int k = 0; k < 3; k++) {
        if (!*any || v[k] < t->bounds_min[k])
            t->bounds_min[k] = v[k];
        if (!*any || v[k] > t->bounds_max[k])
            t->bounds_max[k] = v[k];
    }
    *any = true;
}

static bool derive(pm4_tile *t, pmf_arena *a, pmf_error *err)
{
    uint32_t n = t->entries[PM4_MSUR];
    uint32_t *keys = alloc_array(a, n, 4);
    if (n && !keys) {
        pmf_error_set(err, t->file, "chunk MSUR", 0, "out of memory");
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        keys[i] = pm4_msur_ck24(&t->msur[i]);
        if (t->msur[i].index_count >= 3)
            t->triangles += t->msur[i].index_count - 2u;
    }
    if (n)
        order_sort(keys, n, 4, order_u32);
    for (uint32_t i = 0; i < n; i++)
        t->groups += !i || keys[i] != keys[i - 1];
    bool any = false;
    float w[3];
    for (uint32_t i = 0; i < t->entries[PM4_MSVT]; i++)
        pm4_msvt_world(t, i, w), grow_bounds(t, w, &any);
    for (uint32_t i = 0; i < t->entries[PM4_MSPV]; i++)
        pm4_mspv_world(t, i, w), grow_bounds(t, w, &any);
    for (uint32_t i = 0; i < t->entries[PM4_MSCN]; i++)
        pm4_mscn_world(t, i, w), grow_bounds(t, w, &any);
    for (uint32_t i = 0; i < t->entries[PM4_MPRL]; i++)
        pm4_mprl_world(t, i, w), grow_bounds(t, w, &any);
    t->has_bounds = any;
    return true;
}

bool pm4_tile_coords(const char *name, int *x, int *y)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    size_t len = strlen(base);
    if (len < 4 || strcmp(base + len - 4, ".pm4"))
        return false;
    /* the last two "_NN" fields before the extension */
    int values[2];
    const char *end = base + len - 4;
    for (int k = 1; k >= 0; k--) {
        const char *p = end;
        while (p > base && p[-1] >= '0' && p[-1] <= '9')
            p--;
        if (p == end || end - p > 3 || p == base || p[-1] != '_')
            return false;
        values[k] = atoi(p);
        end = p - 1;
    }
    *x = values[0];
    *y = values[1];
    return true;
}

pm4_tile *pm4_open_memory(const void *data, size_t size, const char *name, pmf_error *err)
{
    pm4_tile *t = calloc(1, sizeof *t);
    pm4_impl *impl = calloc(1, sizeof *impl);
    pmf_arena *a = pmf_arena_create();
    if (!t || !impl || !a) {
        free(t);
        free(impl);
        pmf_arena_destroy(a);
        pmf_error_set(err, name, "file", 0, "out of memory");
        return NULL;
    }
    impl->arena = a;
    t->impl_ = impl;
    snprintf(t->file, sizeof t->file, "%s", name ? name : "");
    t->has_tile_xy = pm4_tile_coords(t->file, &t->tile_x, &t->tile_y);

    pmf_cursor c = pmf_cursor_make(data, size, 0, t->file, "file", err);
    bool ok = true;
    while (ok && pmf_cursor_left(&c)) {
        size_t at = c.pos;
        const uint8_t *tag = pmf_take(&c, 4, "chunk name");
        uint32_t chunk_size = pmf_read_u32(&c, "chunk size");
        if (c.failed) {
            ok = false;
            break;
        }
        char shown[8];
        for (int k = 0; k < 4; k++)
            shown[k] = tag[3 - k] >= 0x20 && tag[3 - k] < 0x7F ? (char)tag[3 - k] : '?';
        shown[4] = 0;
        if (at == 0 && chunk_kind(tag) != PM4_MVER) {
            ok = pmf_cursor_fail_at(&c, 0, "not a PM4 file (first chunk is '%s', not MVER)", shown);
            break;
        }
        if (chunk_size > pmf_cursor_left(&c)) {
            ok = pmf_cursor_fail_at(&c, at + 4, "chunk %s: size %u is past the end of the file (%zu bytes left)", shown,
                                    chunk_size, pmf_cursor_left(&c));
            break;
        }
        int kind = chunk_kind(tag);
        if (kind < 0) {
            t->unknown_chunks++;
            pmf_take(&c, chunk_size, "chunk data");
            continue;
        }
        if (t->present[kind]) {
            ok = pmf_cursor_fail_at(&c, at, "chunk %s appears twice", pm4_chunk_names[kind]);
            break;
        }
        uint32_t es = entry_sizes[kind];
        bool single = kind == PM4_MVER || kind == PM4_MSHD;
        if (es && (single ? chunk_size < es : chunk_size % es)) {
            ok = pmf_cursor_fail_at(&c, at + 4, "chunk %s: size %u is not %s %u bytes", pm4_chunk_names[kind], chunk_size,
                                    single ? "at least" : "a multiple of", es);
            break;
        }
        t->present[kind] = true;
        t->entries[kind] = single ? 1 : es ? chunk_size / es : 0;
        impl->chunk_offset[kind] = c.pos;
        char block[32];
        snprintf(block, sizeof block, "chunk %s", pm4_chunk_names[kind]);
        pmf_cursor sub = pmf_cursor_make(c.data + c.pos, chunk_size, c.pos, t->file, block, err);
        ok = decode_chunk(&sub, a, t, kind);
        /* MVER / MSHD may carry more than the spec's fields: the rest is skipped */
        ok = ok && (single || pmf_cursor_expect_end(&sub, "the chunk"));
        pmf_take(&c, chunk_size, "chunk data");
    }
    if (ok && !t->present[PM4_MVER])
        ok = pmf_cursor_fail_at(&c, 0, "not a PM4 file (no MVER chunk)");
    ok = ok && check_links(t, err) && derive(t, a, err);
    if (!ok) {
        pm4_close(t);
        return NULL;
    }
    return t;
}

pm4_tile *pm4_open(const char *path, pmf_error *err)
{
    uint8_t *bytes;
    size_t size;
    if (!pmf_read_whole_file(path, MAX_FILE_SIZE, &bytes, &size, err))
        return NULL;
    pm4_tile *t = pm4_open_memory(bytes, size, path, err);
    if (!t) {
        pmf_budget_free(bytes);
        return NULL;
    }
    ((pm4_impl *)t->impl_)->owned = bytes;
    return t;
}

void pm4_close(pm4_tile *t)
{
    if (!t)
        return;
    pm4_impl *impl = t->impl_;
    if (impl) {
        pmf_arena_destroy(impl->arena);
        pmf_budget_free(impl->owned);
        free(impl);
    }
    free(t);
}

void pm4_msvt_world(const pm4_tile *t, uint32_t i, float out[3])
{
    out[0] = t->msvt[i][1];
    out[1] = t->msvt[i][0];
    out[2] = t->msvt[i][2];
}

void pm4_mspv_world(const pm4_tile *t, uint32_t i, float out[3])
{
    memcpy(out, t->mspv[i], sizeof(float[3]));
}

void pm4_mscn_world(const pm4_tile *t, uint32_t i, float out[3])
{
    out[0] = t->mscn[i][1];
    out[1] = -t->mscn[i][0];
    out[2] = t->mscn[i][2];
}

void pm4_mprl_world(const pm4_tile *t, uint32_t i, float out[3])
{
    out[0] = t->mprl[i].pos[0];
    out[1] = -t->mprl[i].pos[2];
    out[2] = t->mprl[i].pos[1];
}

void pm4_world_to_view(const float world[3], float out[3])
{
    float x = world[0], y = world[1], z = world[2];
    out[0] = x;
    out[1] = z;
    out[2] = -y;
}
