/* pmf_lz4.c - LZ4F frames: a stored block decompresses to exactly its declared size.
 *
 * Size caps, checked before anything is allocated: a block may declare at most
 * max(64 MiB, 1024 x its compressed size) and never more than 1 GiB. LZ4 cannot expand data
 * more than about 255:1, so the ratio cap only refuses lies; 1 GiB bounds what one malformed
 * block can make us allocate, far above any real chunk or level block. */
#include <lz4frame.h>
#include <stdio.h>

#include "pmf_internal.h"

#define BLOCK_CAP_FLOOR   (64ull << 20)
#define BLOCK_CAP_RATIO   1024ull
#define BLOCK_CAP_ABSOLUTE (1ull << 30)

uint64_t pmf_block_size_cap(uint64_t compressed)
{
    uint64_t cap = compressed * BLOCK_CAP_RATIO;
    if (cap < BLOCK_CAP_FLOOR)
        cap = BLOCK_CAP_FLOOR;
    return cap < BLOCK_CAP_ABSOLUTE ? cap : BLOCK_CAP_ABSOLUTE;
}

const char *pmf_lz4_decompress_exact(const uint8_t *src, size_t src_size, uint8_t *dst, size_t dst_size,
                                     size_t dst_capacity, size_t *produced)
{
    LZ4F_dctx *dctx = pmf_thread_dctx();
    *produced = 0;
    if (!dctx)
        return "out of memory for an LZ4F context";
    const char *problem = NULL;
    size_t in = 0, out = 0;
    uint8_t probe[64];
    for (;;) {
        /* once dst is full, decompress into a probe: any byte there means the frame is too long */
        bool full = out == dst_capacity;
        uint8_t *to = full ? probe : dst + out;
        size_t to_size = full ? sizeof probe : dst_capacity - out;
        size_t src_len = src_size - in;
        size_t ret = LZ4F_decompress(dctx, to, &to_size, src + in, &src_len, NULL);
        if (LZ4F_isError(ret)) {
            problem = LZ4F_getErrorName(ret);
            break;
        }
        in += src_len;
        if ((full && to_size) || out + to_size > dst_size) {
            problem = "frame decompresses to more bytes than declared";
            out = dst_size;   /* where the bytes too many start */
            break;
        }
        out += full ? 0 : to_size;
        if (ret == 0) {
            if (out != dst_size)
                problem = "frame decompresses to fewer bytes than declared";
            else if (in != src_size)
                problem = "bytes after the end of the LZ4F frame";
            break;
        }
        if (src_len == 0 && to_size == 0) {
            problem = out == dst_size ? "LZ4F frame is truncated" : "frame decompresses to fewer bytes than declared (truncated)";
            break;
        }
    }
    *produced = out;
    return problem;
}

bool pmf_block_load(const pmf_file *f, uint64_t offset, uint32_t compressed, uint32_t decompressed,
                    const uint8_t *read, pmf_arena *a, const char *prefix, const char *part, const uint8_t **out,
                    pmf_error *err)
{
    *out = NULL;
    char name[PMF_BLOCK_NAME_SIZE];
    if (compressed == 0) {
        if (decompressed != 0) {
            pmf_error_set(err, f->name, pmf_block_name(prefix, part, name), 0,
                          "no compressed bytes but %u decompressed bytes declared", decompressed);
            return false;
        }
        return true;
    }
    uint64_t cap = pmf_block_size_cap(compressed);
    if (decompressed > cap) {
        pmf_error_set(err, f->name, pmf_block_name(prefix, part, name), 0,
                      "declared decompressed size %u exceeds the cap of %llu bytes for %u compressed bytes",
                      decompressed, (unsigned long long)cap, compressed);
        return false;
    }
    if (offset > f->size || compressed > f->size - offset) {
        pmf_error_set(err, f->name, pmf_block_name(prefix, part, name), 0, "compressed bytes lie outside the file");
        return false;
    }
    /* room for one more LZ4F block past the end: LZ4F then decodes every block straight into
     * dst (with less room it decodes the last one into its own buffer and copies it over) */
    uint8_t *dst = pmf_arena_alloc_uninit(a, (size_t)decompressed + PMF_LZ4_SLACK);
    if (!dst) {
        char what[64];
        snprintf(what, sizeof what, "%u decompressed bytes", decompressed);
        pmf_error_alloc(err, a, f->name, pmf_block_name(prefix, part, name), 0, decompressed, what);
        return false;
    }
    /* a file's bytes come through pread (they may have gone since pmf_open); memory is read in place */
    const uint8_t *src = read ? read : f->data ? f->data + offset : NULL;
    uint8_t *stored = NULL;
    if (!src) {
        src = stored = pmf_thread_scratch(compressed);
        if (!stored) {
            pmf_error_set(err, f->name, pmf_block_name(prefix, part, name), 0, "out of memory for %u compressed bytes",
                          compressed);
            return false;
        }
        if (!pmf_file_read(f, offset, compressed, stored, prefix, err)) {
            if (err) /* named in full only now: the name is made for errors alone */
                snprintf(err->block, sizeof err->block, "%s", pmf_block_name(prefix, part, name));
            pmf_thread_scratch_return(stored);
            return false;
        }
    }
    size_t produced;
    const char *problem = pmf_lz4_decompress_exact(src, compressed, dst, decompressed, (size_t)decompressed + PMF_LZ4_SLACK,
                                                   &produced);
    pmf_thread_scratch_return(stored);
    if (problem) {
        pmf_error_set(err, f->name, pmf_block_name(prefix, part, name), produced, "LZ4F: %s (declared %u bytes)", problem,
                      decompressed);
        return false;
    }
    *out = dst;
    return true;
}

bool pmf_block_compress(const uint8_t *src, size_t size, uint8_t **out, size_t *out_size)
{
    LZ4F_preferences_t prefs;
    memset(&prefs, 0, sizeof prefs);
    prefs.frameInfo.contentSize = size;
    size_t bound = LZ4F_compressFrameBound(size, &prefs);
    uint8_t *dst = malloc(bound);
    if (!dst)
        return false;
    size_t n = LZ4F_compressFrame(dst, bound, src, size, &prefs);
    if (LZ4F_isError(n)) {
        free(dst);
        return false;
    }
    *out = dst;
    *out_size = n;
    return true;
}
