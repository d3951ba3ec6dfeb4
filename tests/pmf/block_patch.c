/* block_patch.c - see block_patch.h. */
#include <lz4frame.h>
#include <stdlib.h>
#include <string.h>

#include "block_patch.h"

typedef struct block_loc {
    uint64_t offset;                 /* file offset of the frame */
    uint32_t compressed, decompressed;
    uint64_t size_entry;             /* file offset of the u32 compressed size (decompressed is +12) */
    uint64_t level_size_at;          /* file offset of the level's data size */
    bool ok;
} block_loc;

static block_loc locate(const uint8_t *file, size_t size, block_ref ref)
{
    block_loc b = { 0 };
    pmf_error err;
    pmf_file *f = pmf_open_memory(file, size, "patch", &err);
    if (!f || ref.level >= f->level_count) {
        pmf_close(f);
        return b;
    }
    const pmf_level_info *li = &f->levels[ref.level];
    b.level_size_at = f->levels[0].offset - 4ull * f->level_count + 4ull * ref.level;
    if (ref.chunk) {
        uint32_t gi = pmf_grid_index(li, ref.chunk->x, ref.chunk->y, ref.chunk->z);
        const pmf_chunk_loc *loc = &li->chunks[gi];
        b.offset = loc->offset;
        for (int i = 0; i < ref.part; i++)
            b.offset += loc->compressed[i];
        b.compressed = loc->compressed[ref.part];
        b.decompressed = loc->decompressed[ref.part];
        b.size_entry = li->offset + 1 + 24 + (uint64_t)li->compressed[0] + li->compressed[1] + li->compressed[2] + 1 + 4 + 4 +
                       24ull * gi + 4ull * ref.part;
    } else {
        b.offset = li->block_offset[ref.part];
        b.compressed = li->compressed[ref.part];
        b.decompressed = li->decompressed[ref.part];
        b.size_entry = li->offset + 1 + 4ull * ref.part;
    }
    b.ok = true;
    pmf_close(f);
    return b;
}

test_bytes block_get(const uint8_t *file, size_t size, block_ref ref)
{
    test_bytes out = { NULL, 0 };
    block_loc at = locate(file, size, ref);
    if (!at.ok)
        return out;
    out.data = malloc(at.decompressed + 1);
    out.size = at.decompressed;
    LZ4F_dctx *d;
    LZ4F_createDecompressionContext(&d, LZ4F_VERSION);
    size_t dst = out.size, src = at.compressed;
    size_t ret = LZ4F_decompress(d, out.data, &dst, file + at.offset, &src, NULL);
    LZ4F_freeDecompressionContext(d);
    if (LZ4F_isError(ret) || dst != out.size) {
        free(out.data);
        out.data = NULL;
        out.size = 0;
    }
    return out;
}

static void wr32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

test_bytes block_replace(const uint8_t *file, size_t size, block_ref ref, const uint8_t *content, size_t n,
                         uint32_t declared)
{
    test_bytes b = { NULL, 0 };
    block_loc at = locate(file, size, ref);
    if (!at.ok)
        return b;
    size_t bound = LZ4F_compressFrameBound(n, NULL);
    uint8_t *frame = malloc(bound);
    size_t fn = content ? LZ4F_compressFrame(frame, bound, content, n, NULL) : 0;
    b.size = size - at.compressed + fn;
    b.data = malloc(b.size);
    memcpy(b.data, file, at.offset);
    memcpy(b.data + at.offset, frame, fn);
    memcpy(b.data + at.offset + fn, file + at.offset + at.compressed, size - at.offset - at.compressed);
    wr32(b.data + at.size_entry, (uint32_t)fn);
    wr32(b.data + at.size_entry + 12, declared);
    wr32(b.data + at.level_size_at, rd32(b.data + at.level_size_at) - at.compressed + (uint32_t)fn);
    free(frame);
    return b;
}
