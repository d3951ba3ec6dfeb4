/* bench_lz4.c - figure 1's baseline: read (pread, as the reader does) and LZ4F-decompress every
 * stored block of a PMF file (each level's common/client/server data and every chunk's three
 * blocks), single thread, no parsing of what comes out. The blocks are found through the
 * reader's chunk index (pmf_open).
 *
 *   bench_lz4 FILE
 *
 * Prints "blocks: N", "compressed bytes: C", "decompressed bytes: D" and
 * "decompress time: T s" on stdout. Exit 0, or 2 when the file cannot be read. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <lz4frame.h>

#include "pmf.h"

typedef struct lz4_totals {
    uint64_t blocks, compressed, decompressed;
} lz4_totals;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct lz4_buffers {
    uint8_t *in, *out;
    size_t in_cap, out_cap;
} lz4_buffers;

static bool ensure(uint8_t **buf, size_t *cap, size_t size)
{
    if (size <= *cap)
        return true;
    uint8_t *grown = realloc(*buf, size);
    if (!grown)
        return false;
    *buf = grown;
    *cap = size;
    return true;
}

/* Reads and decompresses one frame (buffers grown as needed). False when it is broken or the wrong size. */
static bool decompress_block(LZ4F_dctx *dctx, const pmf_file *f, uint64_t offset, uint32_t compressed,
                             uint32_t decompressed, lz4_buffers *b, lz4_totals *totals)
{
    if (!compressed)
        return true;
    pmf_error err;
    if (!ensure(&b->in, &b->in_cap, compressed) || !ensure(&b->out, &b->out_cap, decompressed) ||
        !pmf_file_read(f, offset, compressed, b->in, "block", &err))
        return false;
    LZ4F_resetDecompressionContext(dctx);
    size_t in = 0, out = 0;
    for (;;) {
        size_t src_len = compressed - in, dst_len = b->out_cap - out;
        size_t ret = LZ4F_decompress(dctx, b->out + out, &dst_len, b->in + in, &src_len, NULL);
        if (LZ4F_isError(ret))
            return false;
        in += src_len;
        out += dst_len;
        if (ret == 0)
            break;
        if (src_len == 0 && dst_len == 0)
            return false;
    }
    totals->blocks++;
    totals->compressed += compressed;
    totals->decompressed += out;
    return out == decompressed;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: bench_lz4 FILE\n", stderr);
        return 1;
    }
    pmf_error err;
    pmf_file *f = pmf_open(argv[1], &err);
    if (!f) {
        char msg[768];
        fprintf(stderr, "bench_lz4: %s\n", pmf_error_format(&err, msg, sizeof msg));
        return 2;
    }
    LZ4F_dctx *dctx;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION))) {
        fputs("bench_lz4: out of memory\n", stderr);
        pmf_close(f);
        return 3;
    }
    lz4_buffers buffers = { 0 };
    lz4_totals totals = { 0 };
    bool ok = true;
    double t0 = now_seconds();
    for (uint32_t l = 0; ok && l < f->level_count; l++) {
        const pmf_level_info *li = &f->levels[l];
        for (int b = 0; ok && b < 3; b++)
            ok = decompress_block(dctx, f, li->block_offset[b], li->compressed[b], li->decompressed[b], &buffers, &totals);
        for (uint32_t c = 0; ok && c < li->chunk_count; c++) {
            const pmf_chunk_loc *loc = &li->chunks[c];
            uint64_t offset = loc->offset;
            for (int b = 0; ok && b < 3; b++) {
                ok = decompress_block(dctx, f, offset, loc->compressed[b], loc->decompressed[b], &buffers, &totals);
                offset += loc->compressed[b];
            }
        }
    }
    double elapsed = now_seconds() - t0;
    LZ4F_freeDecompressionContext(dctx);
    free(buffers.in);
    free(buffers.out);
    pmf_close(f);
    if (!ok) {
        fprintf(stderr, "bench_lz4: %s: a block does not decompress to its declared size\n", argv[1]);
        return 2;
    }
    printf("blocks: %llu\ncompressed bytes: %llu\ndecompressed bytes: %llu\ndecompress time: %.6f s\n",
           (unsigned long long)totals.blocks, (unsigned long long)totals.compressed,
           (unsigned long long)totals.decompressed, elapsed);
    return 0;
}
