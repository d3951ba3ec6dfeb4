/* ptf.h - PTF 0.0 textures (../shared/specs/ptf.md): decode to RGBA8, encode from RGBA8.
 *
 * Layout: 'P' 'T' 'F', u8 major (0), u8 info (bits 0..1 pixel format, 2..7 reserved = 0),
 * u8 resolution (bits 0..3 width exponent, 4..7 height exponent), then ONE LZ4F frame that
 * decompresses to exactly width * height * channels bytes, rows in stored order (row 0 first).
 * Sides are 2^n with n <= PTF_MAX_SIDE_EXP. Nonzero reserved bits are refused.
 * I expands to (i, i, i, 255), IA to (i, i, i, a), RGB to (r, g, b, 255).
 *
 * Errors are pmf_error values with file = the name passed in, block "texture", offset in the
 * PTF bytes (header) or in the decompressed pixel data.
 */
#ifndef PMF_PTF_H
#define PMF_PTF_H

#include "pmf.h"

#define PTF_VERSION_MAJOR 0
#define PTF_HEADER_SIZE 6u
#define PTF_MAX_SIDE_EXP 14          /* 16384 texels per side */

typedef enum ptf_format {
    PTF_FORMAT_AUTO = -1,            /* encode: the smallest format that keeps every texel exact */
    PTF_FORMAT_I = 0,
    PTF_FORMAT_IA = 1,
    PTF_FORMAT_RGB = 2,
    PTF_FORMAT_RGBA = 3,
} ptf_format;

/* Channels per texel of a format (1..4). */
unsigned ptf_format_channels(ptf_format format);

/* Reads only the header: format and size. */
bool ptf_info(const void *data, size_t size, const char *name, ptf_format *format,
              uint32_t *width, uint32_t *height, pmf_error *err);

/* Decodes to malloc'd RGBA8 (width * height * 4 bytes; free()). */
bool ptf_decode(const void *data, size_t size, const char *name, uint8_t **rgba,
                uint32_t *width, uint32_t *height, pmf_error *err);

/* The texels a row at a time, streaming out of the LZ4F frame (memory for one stored row), so a
 * texture too large to hold can be reduced as it is decoded (src/res/image_reduce.h):
 *   ptf_rows *r;
 *   if (!ptf_rows_begin(data, size, name, &r, &w, &h, err)) fail;
 *   for each of the h rows: ptf_rows_next(r, rgba_row, err)   (w RGBA8 texels, widened as above)
 *   ptf_rows_end(r, err)   (frees; after the last row it checks the frame ends exactly there)
 * A row that cannot be read, or a frame longer or shorter than the texels, is an error naming the
 * decompressed byte it stopped at. */
typedef struct ptf_rows ptf_rows;
bool ptf_rows_begin(const void *data, size_t size, const char *name, ptf_rows **rows, uint32_t *width,
                    uint32_t *height, pmf_error *err);
bool ptf_rows_next(ptf_rows *rows, uint8_t *rgba, pmf_error *err);
bool ptf_rows_end(ptf_rows *rows, pmf_error *err);

/* Encodes RGBA8 texels (width and height powers of two <= 2^PTF_MAX_SIDE_EXP) in the given
 * format (PTF_FORMAT_AUTO = smallest exact one; a lossy explicit format drops channels: I keeps
 * red, IA red and alpha, RGB drops alpha). *out is malloc'd (free()). */
bool ptf_encode(const uint8_t *rgba, uint32_t width, uint32_t height, ptf_format format,
                uint8_t **out, size_t *size, pmf_error *err);

#endif
