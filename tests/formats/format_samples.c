/* format_samples.c - writing the legacy draft map and the PM4 tile of format_samples.h. */
#include <stdio.h>
#include <string.h>

#include "format_samples.h"
#include "pmf_bytes.h"
#include "pmf_internal.h"

#define PMFL_TYPE(flags, type) ((uint8_t)((flags) | (type)))

/* ---- legacy draft ---- */

static void put_cstring(pmf_buf *b, const char *s) { pmf_put_bytes(b, s, strlen(s) + 1); }

/* A quad on z = LEGACY_WALL_Z facing +Z, as two triangles of three points. */
static void put_quad(pmf_buf *b, float x0, float x1, float y0, float y1)
{
    const float corners[4][2] = { { x0, y0 }, { x1, y0 }, { x1, y1 }, { x0, y1 } };
    const int order[6] = { 0, 1, 2, 0, 2, 3 };
    for (int i = 0; i < 6; i++) {
        const float *c = corners[order[i]];
        float point[7] = { c[0], c[1], LEGACY_WALL_Z, (c[0] - x0) / (x1 - x0), (c[1] - y0) / (y1 - y0), 0.5f, 0.5f };
        pmf_put_f32s(b, point, 7);
    }
}

/* server string table: "\0textures/grey\0textures/blue\0red team\0" */
enum { STR_MAT_A = 1, STR_MAT_B = 1 + sizeof LEGACY_MAT_A, STR_TEAM = STR_MAT_B + sizeof LEGACY_MAT_B };

static void put_lighting(pmf_buf *b, uint8_t r, uint8_t g, uint8_t bl, uint8_t dynamic)
{
    uint8_t base[3] = { r, g, bl };
    pmf_put_bytes(b, base, 3);
    pmf_put_u32(b, 0);
    pmf_put_u8(b, dynamic);
}

static void put_block(pmf_buf *out, const pmf_buf *block, bool lz4)
{
    uint8_t *packed = NULL;
    size_t packed_size = block->size;
    if (lz4 && !pmf_block_compress(block->data, block->size, &packed, &packed_size))
        out->oom = true;
    pmf_put_u64(out, packed_size);
    pmf_put_u64(out, block->size);
    pmf_put_bytes(out, packed ? packed : block->data, packed_size);
    free(packed);
}

uint8_t *legacy_sample_build(const legacy_sample_desc *d, size_t *size)
{
    pmf_buf shared = { 0 }, server = { 0 }, client = { 0 }, out = { 0 };
    /* shared: one section, root cube 0 */
    pmf_put_u8(&shared, 1);
    pmf_put_u8(&shared, 1);
    pmf_put_u8(&shared, 4);
    pmf_put_u32(&shared, 0);
    pmf_put_u32(&shared, LEGACY_CUBES);
    /* cube 0: parent, a chunk, children 1..8 */
    pmf_put_u8(&shared, PMFL_TYPE(0x20, 1));
    pmf_put_u16(&shared, 0);
    pmf_put_u16(&shared, 0);
    pmf_put_u32(&shared, 0);
    pmf_put_u32(&shared, 0);
    for (uint32_t k = 1; k <= 8; k++)
        pmf_put_u32(&shared, k);
    /* cube 1: solid, lit grey: +Z face 2 triangles (bits 7..6) */
    pmf_put_u8(&shared, PMFL_TYPE(0x10, 2));
    put_lighting(&shared, 128, 128, 128, d->dynamic_lights);
    pmf_put_u32(&shared, STR_MAT_A);
    pmf_put_u32(&shared, 0);
    pmf_put_u16(&shared, 2u << 6);
    /* cube 2: solid, unlit */
    pmf_put_u8(&shared, PMFL_TYPE(0, 2));
    pmf_put_u32(&shared, STR_MAT_B);
    pmf_put_u32(&shared, 2);
    pmf_put_u16(&shared, 2u << 6);
    /* cube 3: angled, lit orange: plane 2 triangles (bits 13..12) */
    pmf_put_u8(&shared, PMFL_TYPE(0x10, 3));
    put_lighting(&shared, 255, 64, 0, 0);
    pmf_put_u32(&shared, STR_MAT_A);
    pmf_put_u32(&shared, 4);
    pmf_put_u16(&shared, 2u << 12);
    pmf_put_f32(&shared, 0.5f);
    pmf_put_f32(&shared, 0.25f);
    pmf_put_f32(&shared, -0.5f);
    for (int k = 4; k <= 8; k++)
        pmf_put_u8(&shared, PMFL_TYPE(0, 0));
    pmf_put_u32(&shared, d->props);
    pmf_put_u32(&shared, 0);
    static const char shared_strings[] = "\0shared";
    pmf_put_u32(&shared, sizeof shared_strings);
    pmf_put_bytes(&shared, shared_strings, sizeof shared_strings);

    /* server: one team, no entities, the string table */
    pmf_put_u8(&server, 1);
    pmf_put_u32(&server, STR_TEAM);
    pmf_put_f32s(&server, (const float[3]){ 1.0f, 0.0f, 0.0f }, 3);
    pmf_put_u32(&server, d->entities);
    static const char server_strings[] = "\0" LEGACY_MAT_A "\0" LEGACY_MAT_B "\0red team";
    pmf_put_u32(&server, sizeof server_strings);
    pmf_put_bytes(&server, server_strings, sizeof server_strings);

    /* client: the three quads */
    pmf_put_u32(&client, LEGACY_TRIANGLES);
    put_quad(&client, -6, -2, -2, 2);
    put_quad(&client, 2, 6, -2, 2);
    put_quad(&client, -1, 1, 3, 5);

    pmf_put_bytes(&out, "PMF", 4);
    pmf_put_u8(&out, 0);
    pmf_put_u8(&out, 0);
    put_cstring(&out, "Legacy Sample");
    put_cstring(&out, "pmfview tests");
    put_cstring(&out, "two solid cubes and an angled one");
    pmf_put_u64(&out, 1700000000);
    pmf_put_u8(&out, 2);
    put_cstring(&out, "ctf");
    put_cstring(&out, "deathmatch");
    put_block(&out, &shared, d->lz4);
    put_block(&out, &server, d->lz4);
    put_block(&out, &client, d->lz4);
    bool oom = shared.oom || server.oom || client.oom || out.oom;
    pmf_buf_free(&shared);
    pmf_buf_free(&server);
    pmf_buf_free(&client);
    if (oom) {
        pmf_buf_free(&out);
        return NULL;
    }
    *size = out.size;
    return out.data;
}

/* ---- PM4 ---- */

static void begin_chunk(pmf_buf *b, const char *name, size_t *at)
{
    char tag[4] = { name[3], name[2], name[1], name[0] };
    pmf_put_bytes(b, tag, 4);
    *at = b->size;
    pmf_put_u32(b, 0);
}

static void end_chunk(pmf_buf *b, size_t at)
{
    if (b->oom)
        return;
    uint32_t size = (uint32_t)(b->size - at - 4);
    for (int k = 0; k < 4; k++)
        b->data[at + (size_t)k] = (uint8_t)(size >> (8 * k));
}

/* World points (X, Y, Z up) stored as each chunk's spec says. */
static void put_msvt(pmf_buf *b, float x, float y, float z) { pmf_put_f32s(b, (const float[3]){ y, x, z }, 3); }
static void put_mscn(pmf_buf *b, float x, float y, float z) { pmf_put_f32s(b, (const float[3]){ -y, x, z }, 3); }
static void put_mprl(pmf_buf *b, uint16_t a, float x, float y, float z)
{
    pmf_put_u16(b, a);
    pmf_put_u16(b, 0xFFFF);
    pmf_put_u16(b, 0);
    pmf_put_u16(b, 0);
    pmf_put_f32s(b, (const float[3]){ x, z, -y }, 3);
    pmf_put_u16(b, 0);
    pmf_put_u16(b, 0);
}

static void put_msur(pmf_buf *b, uint8_t group_key, uint8_t count, uint8_t attr, const float normal[3], float height,
                     uint32_t first, uint32_t ck24)
{
    pmf_put_u8(b, group_key);
    pmf_put_u8(b, count);
    pmf_put_u8(b, attr);
    pmf_put_u8(b, 0);
    pmf_put_f32s(b, normal, 3);
    pmf_put_f32(b, height);
    pmf_put_u32(b, first);
    pmf_put_u32(b, 0);
    pmf_put_u32(b, ck24 << 8 | 0x01u);
}

static void put_msvt_chunk(pmf_buf *b)
{
    size_t at;
    begin_chunk(b, "MSVT", &at);
    put_msvt(b, 0, 0, 10);
    put_msvt(b, 10, 0, 10);
    put_msvt(b, 10, 10, 10);
    put_msvt(b, 0, 10, 10);
    put_msvt(b, 20, 0, 0);
    put_msvt(b, 20, 10, 0);
    put_msvt(b, 20, 0, 10);
    put_msvt(b, 1, 1, 1);
    end_chunk(b, at);
}

static void put_msvi_chunk(pmf_buf *b)
{
    size_t at;
    begin_chunk(b, "MSVI", &at);
    static const uint32_t indices[7] = { 0, 1, 2, 3, 4, 5, 6 };
    for (int i = 0; i < 7; i++)
        pmf_put_u32(b, indices[i]);
    end_chunk(b, at);
}

uint8_t *pm4_sample_build(const pm4_sample_desc *d, size_t *size)
{
    pmf_buf b = { 0 };
    size_t at;
    begin_chunk(&b, "MVER", &at);
    pmf_put_u32(&b, 1);
    end_chunk(&b, at);
    begin_chunk(&b, "MSHD", &at);
    for (uint32_t i = 0; i < 8; i++)
        pmf_put_u32(&b, i * 3);
    end_chunk(&b, at);
    begin_chunk(&b, "MSLK", &at);
    pmf_put_u8(&b, 1);
    pmf_put_u8(&b, 0);
    pmf_put_u16(&b, 0);
    pmf_put_u32(&b, 77);
    pmf_put_u16(&b, 0); /* MSPI first: 0 (int24) */
    pmf_put_u8(&b, 0);
    pmf_put_u8(&b, 4);
    pmf_put_u32(&b, 0xFFFF2920u);
    pmf_put_u16(&b, 0);
    pmf_put_u16(&b, 0x8000);
    end_chunk(&b, at);
    begin_chunk(&b, "MSPV", &at);
    pmf_put_f32s(&b, (const float[12]){ 0, 0, 0, 5, 0, 0, 5, 5, 0, 0, 5, 0 }, 12);
    end_chunk(&b, at);
    begin_chunk(&b, "MSPI", &at);
    for (uint32_t i = 0; i < 4; i++)
        pmf_put_u32(&b, i);
    end_chunk(&b, at);
    if (d->swap_chunks) {
        put_msvi_chunk(&b);
        put_msvt_chunk(&b);
    } else {
        put_msvt_chunk(&b);
        put_msvi_chunk(&b);
    }
    if (!d->no_unknown_chunk) {
        begin_chunk(&b, "XTRA", &at);
        pmf_put_bytes(&b, "unknown chunk payload", 21);
        end_chunk(&b, at);
    }
    begin_chunk(&b, "MSUR", &at);
    put_msur(&b, 1, 4, 0, (const float[3]){ 0, 0, 1 }, 10, 0, PM4_SAMPLE_CK24_A);
    put_msur(&b, 0, 3, 0x80, (const float[3]){ 1, 0, 0 }, 0, 4, PM4_SAMPLE_CK24_B);
    end_chunk(&b, at);
    begin_chunk(&b, "MSCN", &at);
    put_mscn(&b, 2, -1, 3);
    put_mscn(&b, 5, 4, 0);
    put_mscn(&b, 0, 0, 12);
    end_chunk(&b, at);
    begin_chunk(&b, "MPRL", &at);
    put_mprl(&b, 0, 3, 2, 7);
    put_mprl(&b, 0, 15, 0, 1);
    end_chunk(&b, at);
    begin_chunk(&b, "MPRR", &at);
    pmf_put_u32(&b, 0x00010000u);
    pmf_put_u32(&b, 0xFFFF0000u);
    end_chunk(&b, at);
    if (b.oom) {
        pmf_buf_free(&b);
        return NULL;
    }
    *size = b.size;
    return b.data;
}

bool sample_write_file(const char *path, const uint8_t *bytes, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(bytes, 1, size, f) == size;
    return fclose(f) == 0 && ok;
}
