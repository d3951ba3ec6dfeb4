/* ptf.c - PTF 0.0 texture decode / encode (see ptf.h). */
#include "pmf_budget.h"
#include "ptf.h"
#include "pmf_bytes.h"
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
    if (size < PTF_HEADER_SIZE)
        return fail(name, 0, err, "%zu bytes are shorter than the %u-byte header", size, PTF_HEADER_SIZE);
    pmf_cursor c = pmf_cursor_make(data, size, 0, name, "texture", err);
    if (memcmp(pmf_take(&c, 3, "magic"), "PTF", 3) != 0)
        return fail(name, 0, err, "bad magic (expected 'PTF')");
    uint8_t version = pmf_read_u8(&c, "version"), info = pmf_read_u8(&c, "info"), sides = pmf_read_u8(&c, "resolution");
    if (version != PTF_VERSION_MAJOR)
        return fail(name, 3, err, "unsupported major version %u", version);
    if (info & 0xFCu)
        return fail(name, 4, err, "reserved info bits set (0x%02x)", info);
    unsigned wexp = sides & 0x0Fu, hexp = sides >> 4;
    if (wexp > PTF_MAX_SIDE_EXP || hexp > PTF_MAX_SIDE_EXP)
        return fail(name, 5, err, "resolution 2^%u x 2^%u exceeds 2^%d per side", wexp, hexp, PTF_MAX_SIDE_EXP);
    *format = (ptf_format)(info & 3u);
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

struct ptf_rows {
    const uint8_t *src;              /* the LZ4F frame */
    size_t src_size, in;
    ptf_format format;
    uint32_t width, height, rows;    /* rows handed out so far */
    size_t row_bytes;
    uint8_t *row;                    /* one stored row */
    LZ4F_dctx *dctx;
    bool frame_ended;                /* LZ4F said the frame is complete */
    const char *name;
};

bool ptf_rows_begin(const void *data, size_t size, const char *name, ptf_rows **out, uint32_t *width,
                    uint32_t *height, pmf_error *err)
{
    ptf_format format;
    uint32_t w, h;
    *out = NULL;
    if (!ptf_info(data, size, name, &format, &w, &h, err))
        return false;
    unsigned ch = ptf_format_channels(format);
    size_t expected = (size_t)w * h * ch, src_size = size - PTF_HEADER_SIZE;
    if (expected > (uint64_t)src_size * LZ4_MAX_RATIO + LZ4_RATIO_SLACK)
        return fail(name, PTF_HEADER_SIZE, err, "%zu compressed bytes cannot hold %zu bytes of texels", src_size, expected);
    ptf_rows *r = calloc(1, sizeof *r);
    if (!r || !(r->row = malloc((size_t)w * ch)) || LZ4F_isError(LZ4F_createDecompressionContext(&r->dctx, LZ4F_VERSION))) {
        if (r)
            free(r->row);
        free(r);
        return fail(name, 0, err, "out of memory for a row of %u texels", w);
    }
    r->src = (const uint8_t *)data + PTF_HEADER_SIZE;
    r->src_size = src_size;
    r->format = format;
    r->width = w;
    r->height = h;
    r->row_bytes = (size_t)w * ch;
    r->name = name;
    *out = r;
    *width = w;
    *height = h;
    return true;
}

/* Where a failure sits: the decompressed pixel bytes so far. */
static bool rows_fail(const ptf_rows *r, size_t filled, pmf_error *err, const char *problem)
{
    size_t produced = (size_t)r->rows * r->row_bytes + filled, expected = r->row_bytes * r->height;
    return fail(r->name, PTF_HEADER_SIZE, err, "pixel data (%zu of %zu bytes): %s", produced, expected, problem);
}

bool ptf_rows_next(ptf_rows *r, uint8_t *rgba, pmf_error *err)
{
    if (r->rows == r->height)
        return fail(r->name, PTF_HEADER_SIZE, err, "no row past the %u the texture has", r->height);
    size_t filled = 0;
    while (filled < r->row_bytes) {
        if (r->frame_ended)
            return rows_fail(r, filled, err, "frame decompresses to fewer bytes than declared");
        size_t dst_len = r->row_bytes - filled, src_len = r->src_size - r->in;
        size_t ret = LZ4F_decompress(r->dctx, r->row + filled, &dst_len, r->src + r->in, &src_len, NULL);
        if (LZ4F_isError(ret))
            return rows_fail(r, filled, err, LZ4F_getErrorName(ret));
        r->in += src_len;
        filled += dst_len;
        r->frame_ended = ret == 0;
        if (!r->frame_ended && src_len == 0 && dst_len == 0)
            return rows_fail(r, filled, err, "LZ4F frame is truncated");
    }
    r->rows++;
    unsigned ch = ptf_format_channels(r->format);
    for (uint32_t x = 0; x < r->width; x++)
        widen(r->format, r->row + (size_t)x * ch, rgba + (size_t)x * 4);
    return true;
}

bool ptf_rows_end(ptf_rows *r, pmf_error *err)
{
    if (!r)
        return true;
    const char *problem = NULL;
    if (r->rows == r->height && r->frame_ended && r->in != r->src_size)
        problem = "bytes after the end of the LZ4F frame";
    while (r->rows == r->height && !r->frame_ended) { /* every texel is in: the frame must end here */
        uint8_t probe[64];
        size_t dst_len = sizeof probe, src_len = r->src_size - r->in;
        size_t ret = LZ4F_decompress(r->dctx, probe, &dst_len, r->src + r->in, &src_len, NULL);
        r->in += src_len;
        if (LZ4F_isError(ret))
            problem = LZ4F_getErrorName(ret);
        else if (dst_len)
            problem = "frame decompresses to more bytes than declared";
        else if (ret == 0 && r->in != r->src_size)
            problem = "bytes after the end of the LZ4F frame";
        else if (ret != 0 && src_len == 0)
            problem = "LZ4F frame is truncated";
        else if (ret != 0)
            continue;
        break;
    }
    bool ok = !problem || rows_fail(r, 0, err, problem);
    LZ4F_freeDecompressionContext(r->dctx);
    free(r->row);
    free(r);
    return ok;
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
