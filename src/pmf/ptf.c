/* ptf.c - PTF 0.0 texture decode / encode (see ptf.h). */
#include "ptf.h"
#include "pmf_internal.h"

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

/* Decompresses the texels: one LZ4F frame that must fill exactly `expected` bytes and end the input. */
static bool decompress_exact(const uint8_t *src, size_t src_size, size_t expected, const char *name,
                             uint8_t **out_texels, pmf_error *err)
{
    if (expected > (uint64_t)src_size * LZ4_MAX_RATIO + LZ4_RATIO_SLACK)
        return fail(name, PTF_HEADER_SIZE, err, "%zu compressed bytes cannot hold %zu bytes of texels", src_size, expected);
    uint8_t *dst = malloc(expected ? expected : 1);
    if (!dst)
        return fail(name, PTF_HEADER_SIZE, err, "out of memory for %zu bytes of texels", expected);
    size_t produced;
    const char *problem = pmf_lz4_decompress_exact(src, src_size, dst, expected, &produced);
    if (problem) {
        free(dst);
        return fail(name, PTF_HEADER_SIZE, err, "pixel data (%zu of %zu bytes): %s", produced, expected, problem);
    }
    *out_texels = dst;
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
    size_t texels = (size_t)w * h;
    uint8_t *src;
    if (!decompress_exact((const uint8_t *)data + PTF_HEADER_SIZE, size - PTF_HEADER_SIZE, texels * ch, name, &src, err))
        return false;
    uint8_t *out = format == PTF_FORMAT_RGBA ? src : malloc(texels * 4);
    if (!out) {
        free(src);
        return fail(name, 0, err, "out of memory for %ux%u texels", w, h);
    }
    if (format != PTF_FORMAT_RGBA) {
        for (size_t i = 0; i < texels; i++) {
            const uint8_t *s = src + i * ch;
            uint8_t *d = out + i * 4;
            switch (format) {
            case PTF_FORMAT_I:   d[0] = d[1] = d[2] = s[0]; d[3] = 255; break;
            case PTF_FORMAT_IA:  d[0] = d[1] = d[2] = s[0]; d[3] = s[1]; break;
            default:             d[0] = s[0]; d[1] = s[1]; d[2] = s[2]; d[3] = 255; break;
            }
        }
        free(src);
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
