/* ptf.c - PTF 0.0 texture decode / encode (see ptf.h). */
#include "pmf_budget.h"
#include "ptf.h"
#include "pmf_internal.h"

#include <lz4frame.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* LZ4 cannot expand data by more than ~255x (a match costs at least one byte per 255 bytes of
 * length); a frame that claims more is refused before any allocation. */
#define LZ4_MAX_RATIO 256u
#define LZ4_RATIO_SLACK 65536u

#define fail(name, offset, err, ...) (pmf_error_set((err), (name), "texture", (offset), __VA_ARGS__), false)

unsigned ptf_format_channels(ptf_format format)
{
    return format >= PTF_FORMAT_I && format <= PTF_FORMAT_RGBA ? (unsigned)format + 1 : 0;
}

bool ptf_info(const void *data, size_t size, const char *name, ptf_format *format,
              uint32_t *width, uint32_t *height, pmf_error *err)
{
    const uint8_t *p = data;
    if (size < PTF_HEADER_SIZE)
        return fail(name, 0, err, "%zu bytes are shorter than the %u-byte header", size, PTF_HEADER_SIZE);
    if (memcmp(p, "PTF", 3) != 0)
        return fail(name, 0, err, "bad magic (expected 'PTF')");
    if (p[3] != PTF_VERSION_MAJOR)
        return fail(name, 3, err, "unsupported major version %u", p[3]);
    if (p[4] & 0xFCu)
        return fail(name, 4, err, "reserved info bits set (0x%02x)", p[4]);
    unsigned wexp = p[5] & 0x0Fu, hexp = p[5] >> 4;
    if (wexp > PTF_MAX_SIDE_EXP || hexp > PTF_MAX_SIDE_EXP)
        return fail(name, 5, err, "resolution 2^%u x 2^%u exceeds 2^%d per side", wexp, hexp, PTF_MAX_SIDE_EXP);
    *format = (ptf_format)(p[4] & 3u);
    *width = 1u << wexp;
    *height = 1u << hexp;
    return true;
}

static void widen(ptf_format format, const uint8_t *s, uint8_t t[4])
{
    switch (format) {
    case PTF_FORMAT_I:    t[0] = t[1] = t[2] = s[0]; t[3] = 255; break;
    case PTF_FORMAT_IA:   t[0] = t[1] = t[2] = s[0]; t[3] = s[1]; break;
    case PTF_FORMAT_RGB:  t[0] = s[0]; t[1] = s[1]; t[2] = s[2]; t[3] = 255; break;
    default:              memcpy(t, s, 4); break;
    }
}

/* One band of fy rows (w texels each) box-filtered into one output row of w / fx texels. */
static void reduce_band(const uint8_t *band, ptf_format format, uint32_t w, uint32_t fx, uint32_t fy, uint8_t *row)
{
    unsigned ch = ptf_format_channels(format);
    uint64_t count = (uint64_t)fx * fy;
    for (uint32_t x = 0; x < w / fx; x++) {
        uint64_t sum[4] = { 0, 0, 0, 0 };
        for (uint32_t y = 0; y < fy; y++)
            for (uint32_t i = 0; i < fx; i++) {
                uint8_t t[4];
                widen(format, band + ((size_t)y * w + (size_t)x * fx + i) * ch, t);
                for (int c = 0; c < 4; c++)
                    sum[c] += t[c];
            }
        for (int c = 0; c < 4; c++)
            row[(size_t)x * 4 + (size_t)c] = (uint8_t)((sum[c] + count / 2) / count);
    }
}

/* The texels of a texture larger than max_side stream out of the LZ4F frame a band of rows at
 * a time and are box-filtered down as they come: the full size is never held. */
static const char *decode_reduced(const uint8_t *src, size_t src_size, ptf_format format, uint32_t w, uint32_t fx,
                                  uint32_t fy, uint32_t out_h, uint8_t *band, uint8_t *out, size_t *produced)
{
    LZ4F_dctx *dctx = NULL;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)))
        return "out of memory for an LZ4F context";
    size_t band_bytes = (size_t)w * fy * ptf_format_channels(format), filled = 0, in = 0;
    uint32_t rows = 0;
    const char *problem = NULL;
    *produced = 0;
    for (;;) {
        uint8_t probe[64];
        bool full = rows == out_h; /* every texel is in: anything more is too long */
        size_t dst_len = full ? sizeof probe : band_bytes - filled, src_len = src_size - in;
        size_t ret = LZ4F_decompress(dctx, full ? probe : band + filled, &dst_len, src + in, &src_len, NULL);
        if (LZ4F_isError(ret)) {
            problem = LZ4F_getErrorName(ret);
            break;
        }
        in += src_len;
        if (full && dst_len) {
            problem = "frame decompresses to more bytes than declared";
            break;
        }
        filled += full ? 0 : dst_len;
        *produced += full ? 0 : dst_len;
        if (!full && filled == band_bytes) {
            reduce_band(band, format, w, fx, fy, out + (size_t)rows * (w / fx) * 4);
            rows++;
            filled = 0;
        }
        if (ret == 0) {
            problem = rows != out_h ? "frame decompresses to fewer bytes than declared"
                      : in != src_size ? "bytes after the end of the LZ4F frame" : NULL;
            break;
        }
        if (src_len == 0 && dst_len == 0) {
            problem = "LZ4F frame is truncated";
            break;
        }
    }
    LZ4F_freeDecompressionContext(dctx);
    return problem;
}

bool ptf_decode_fit(const void *data, size_t size, const char *name, uint32_t max_side, uint8_t **rgba,
                    uint32_t *width, uint32_t *height, pmf_error *err)
{
    ptf_format format;
    uint32_t w, h, fx = 1, fy = 1;
    if (!ptf_info(data, size, name, &format, &w, &h, err))
        return false;
    while (w / fx > max_side)
        fx *= 2;
    while (h / fy > max_side)
        fy *= 2;
    if (fx == 1 && fy == 1)
        return ptf_decode(data, size, name, rgba, width, height, err);
    unsigned ch = ptf_format_channels(format);
    size_t expected = (size_t)w * h * ch, src_size = size - PTF_HEADER_SIZE;
    if (expected > (uint64_t)src_size * LZ4_MAX_RATIO + LZ4_RATIO_SLACK)
        return fail(name, PTF_HEADER_SIZE, err, "%zu compressed bytes cannot hold %zu bytes of texels", src_size, expected);
    uint32_t out_w = w / fx, out_h = h / fy;
    size_t band_bytes = (size_t)w * fy * ch, out_bytes = (size_t)out_w * out_h * 4;
    if (!pmf_budget_take(band_bytes + out_bytes))
        return fail(name, 5, err, "%ux%u texels reduced to %ux%u need %zu MiB, more than the memory budget leaves (see --memory)",
                    w, h, out_w, out_h, (band_bytes + out_bytes) >> 20);
    uint8_t *band = malloc(band_bytes), *out = malloc(out_bytes);
    size_t produced = 0;
    const char *problem = band && out ? decode_reduced((const uint8_t *)data + PTF_HEADER_SIZE, src_size, format, w, fx,
                                                       fy, out_h, band, out, &produced)
                                      : "out of memory";
    free(band);
    pmf_budget_give(band_bytes + out_bytes);
    if (problem) {
        free(out);
        return fail(name, PTF_HEADER_SIZE, err, "pixel data (%zu of %zu bytes): %s", produced, expected, problem);
    }
    *rgba = out;
    *width = out_w;
    *height = out_h;
    return true;
}

bool ptf_decode(const void *data, size_t size, const char *name, uint8_t **rgba,
                uint32_t *width, uint32_t *height, pmf_error *err)
{
    ptf_format format;
    uint32_t w, h;
    if (!ptf_info(data, size, name, &format, &w, &h, err))
        return false;
    unsigned ch = ptf_format_channels(format);
    size_t texels = (size_t)w * h, expected = texels * ch, src_size = size - PTF_HEADER_SIZE;
    if (expected > (uint64_t)src_size * LZ4_MAX_RATIO + LZ4_RATIO_SLACK)
        return fail(name, PTF_HEADER_SIZE, err, "%zu compressed bytes cannot hold %zu bytes of texels", src_size, expected);
    /* the decode is transient (the caller keeps what it uploads), but it must fit the budget */
    if (!pmf_budget_take(texels * 4))
        return fail(name, 5, err, "%ux%u texels need %zu MiB, more than the memory budget leaves (%llu of %llu MiB in use; see --memory)",
                    w, h, (texels * 4) >> 20, (unsigned long long)(pmf_budget_used() >> 20),
                    (unsigned long long)(pmf_budget_limit() >> 20));
    /* one buffer: the texels decompress into its start and widen to RGBA in place, last first */
    uint8_t *out = malloc(texels * 4);
    if (!out) {
        pmf_budget_give(texels * 4);
        return fail(name, 0, err, "out of memory for %ux%u texels", w, h);
    }
    size_t produced;
    const char *problem = pmf_lz4_decompress_exact((const uint8_t *)data + PTF_HEADER_SIZE, src_size, out, expected,
                                                   expected, &produced);
    pmf_budget_give(texels * 4);
    if (problem) {
        free(out);
        return fail(name, PTF_HEADER_SIZE, err, "pixel data (%zu of %zu bytes): %s", produced, expected, problem);
    }
    for (size_t i = texels; format != PTF_FORMAT_RGBA && i-- > 0;) {
        uint8_t t[4];
        widen(format, out + i * ch, t);
        memcpy(out + i * 4, t, 4);
    }
    *rgba = out;
    *width = w;
    *height = h;
    return true;
}

static int side_exp(uint32_t side)
{
    for (int e = 0; e <= PTF_MAX_SIDE_EXP; e++)
        if (side == 1u << e)
            return e;
    return -1;
}

static ptf_format smallest_format(const uint8_t *rgba, size_t texels)
{
    bool gray = true, opaque = true;
    for (size_t i = 0; i < texels && (gray || opaque); i++) {
        const uint8_t *t = rgba + i * 4;
        gray = gray && t[0] == t[1] && t[0] == t[2];
        opaque = opaque && t[3] == 255;
    }
    return gray ? (opaque ? PTF_FORMAT_I : PTF_FORMAT_IA) : (opaque ? PTF_FORMAT_RGB : PTF_FORMAT_RGBA);
}

bool ptf_encode(const uint8_t *rgba, uint32_t width, uint32_t height, ptf_format format,
                uint8_t **out, size_t *size, pmf_error *err)
{
    int wexp = side_exp(width), hexp = side_exp(height);
    if (wexp < 0 || hexp < 0)
        return fail("", 0, err, "%ux%u is not a power-of-two size up to 2^%d", width, height, PTF_MAX_SIDE_EXP);
    size_t texels = (size_t)width * height;
    if (format == PTF_FORMAT_AUTO)
        format = smallest_format(rgba, texels);
    unsigned ch = ptf_format_channels(format);
    if (ch == 0)
        return fail("", 0, err, "unknown pixel format %d", (int)format);
    uint8_t *packed = malloc(texels * ch);
    if (!packed)
        return fail("", 0, err, "out of memory");
    for (size_t i = 0; i < texels; i++) {
        const uint8_t *s = rgba + i * 4;
        uint8_t *d = packed + i * ch;
        d[0] = s[0];
        if (format == PTF_FORMAT_IA)
            d[1] = s[3];
        else if (ch >= 3)
            memcpy(d + 1, s + 1, ch - 1);
    }
    uint8_t *frame, *buf = NULL;
    size_t n;
    bool ok = pmf_block_compress(packed, texels * ch, &frame, &n);
    free(packed);
    if (ok) {
        buf = malloc(PTF_HEADER_SIZE + n);
        if (buf)
            memcpy(buf + PTF_HEADER_SIZE, frame, n);
        free(frame);
    }
    if (!buf)
        return fail("", 0, err, "out of memory");
    memcpy(buf, "PTF", 3);
    buf[3] = PTF_VERSION_MAJOR;
    buf[4] = (uint8_t)format;
    buf[5] = (uint8_t)(wexp | hexp << 4);
    *out = buf;
    *size = PTF_HEADER_SIZE + n;
    return true;
}
