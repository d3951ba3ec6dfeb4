/* image.c - map texture bytes to RGBA8 (res_image_decode, see res.h). Only the formats the docs
 * name, each told by its content: PTF (the pmf library), PNG (libpng), JPEG (libjpeg-turbo), BMP
 * and TGA (stb_image compiled here with only those two decoders). Every image's size is checked
 * against the format's limit and against what its bytes can hold before a texel is allocated. */
#include "res.h"

#include "image_reduce.h"
#include "base/pmf_budget.h"
#include "pmf/ptf.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h> /* before jpeglib.h, which uses FILE */

#include <jpeglib.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>

#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_BMP
#define STBI_ONLY_TGA
#define STBI_NO_STDIO
#define STBI_NO_LINEAR
#define STBI_NO_HDR
#define STBI_MAX_DIMENSIONS (1 << PTF_MAX_SIDE_EXP)
#include <stb_image.h> /* built -Wno-unused-function: the other decoders' entry points stay declared */

#define MAX_SIDE (1u << PTF_MAX_SIDE_EXP)
/* Deflate cannot expand a byte to more than 1032 (zlib's documented maximum ratio). */
#define DEFLATE_MAX_RATIO 1032u
/* libjpeg's own working memory (progressive coefficients, row buffers) for one image. */
#define JPEG_MAX_WORKING_BYTES (256ull << 20)

static bool fail(pmf_error *err, const char *name, uint64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pmf_error_vset(err, name, "texture", offset, fmt, ap);
    va_end(ap);
    return false;
}

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static uint32_t le16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }

static bool check_sides(uint64_t w, uint64_t h, const char *name, pmf_error *err)
{
    if (w == 0 || h == 0)
        return fail(err, name, 0, "image of %llux%llu texels is empty", (unsigned long long)w, (unsigned long long)h);
    if (w > MAX_SIDE || h > MAX_SIDE)
        return fail(err, name, 0, "image of %llux%llu texels exceeds %u per side", (unsigned long long)w,
                    (unsigned long long)h, MAX_SIDE);
    return true;
}

/* ---- PNG ------------------------------------------------------------------------------------- */

#define PNG_MESSAGE_SIZE 200

typedef struct png_source { const uint8_t *data; size_t size, at; } png_source;

static void png_read_bytes(png_structp png, png_bytep out, size_t n)
{
    png_source *src = png_get_io_ptr(png);
    if (n > src->size - src->at)
        png_error(png, "the file ends inside its image data");
    memcpy(out, src->data + src->at, n);
    src->at += n;
}

static void png_fail(png_structp png, png_const_charp message)
{
    snprintf(png_get_error_ptr(png), PNG_MESSAGE_SIZE, "%s", message);
    png_longjmp(png, 1);
}

static void png_ignore_warning(png_structp png, png_const_charp message)
{
    (void)png;
    (void)message;
}

/* What a decode owns, kept outside the setjmp frame's locals. */
typedef struct png_state {
    png_structp png;
    png_infop info;
    uint8_t *whole;                  /* an interlaced image: every pass lands in it */
    uint64_t whole_charged;
    uint8_t *row;
    image_reducer reducer;
    char message[PNG_MESSAGE_SIZE];
} png_state;

/* Row by row into the reduction (libpng's transforms give RGBA8 whatever the colour type): only an
 * interlaced image is held whole, its passes land in every row, and that is charged to the budget. */
static bool decode_png(const uint8_t *data, size_t size, const char *name, uint32_t max_side, res_image *out,
                       pmf_error *err)
{
    /* IHDR is the first chunk: width 16, height 20, bit depth 24, colour type 25 */
    if (size < 33 || memcmp(data + 12, "IHDR", 4) != 0)
        return fail(err, name, 8, "PNG without an IHDR chunk first");
    uint32_t w = be32(data + 16), h = be32(data + 20);
    if (!check_sides(w, h, name, err))
        return false;
    static const uint8_t channels_of_type[7] = { 1, 0, 3, 1, 2, 0, 4 };
    uint32_t bits = data[24] * (data[25] < 7 ? channels_of_type[data[25]] : 0u);
    if (bits == 0)
        return fail(err, name, 25, "PNG colour type %u / bit depth %u is not valid", data[25], data[24]);
    uint64_t raw = (uint64_t)h * (1 + ((uint64_t)w * bits + 7) / 8); /* filter byte + packed row */
    if (raw > (uint64_t)size * DEFLATE_MAX_RATIO)
        return fail(err, name, 16, "PNG of %ux%u texels cannot be held in %zu bytes", w, h, size);

    png_state *s = calloc(1, sizeof *s);
    if (!s)
        return fail(err, name, 0, "out of memory");
    png_source src = { data, size, 0 };
    bool ok = false;
    s->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, s->message, png_fail, png_ignore_warning);
    if (!s->png || !(s->info = png_create_info_struct(s->png))) {
        fail(err, name, 0, "out of memory");
        goto done;
    }
    if (setjmp(png_jmpbuf(s->png))) {
        fail(err, name, src.at, "cannot decode PNG: %s", s->message);
        goto done;
    }
    png_set_read_fn(s->png, &src, png_read_bytes);
    png_read_info(s->png, s->info);
    int depth = png_get_bit_depth(s->png, s->info), type = png_get_color_type(s->png, s->info);
    if (type == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(s->png);
    if (type == PNG_COLOR_TYPE_GRAY && depth < 8)
        png_set_expand_gray_1_2_4_to_8(s->png);
    if (png_get_valid(s->png, s->info, PNG_INFO_tRNS))
        png_set_tRNS_to_alpha(s->png);
    if (depth == 16)
        png_set_scale_16(s->png);
    if (type == PNG_COLOR_TYPE_GRAY || type == PNG_COLOR_TYPE_GRAY_ALPHA)
        png_set_gray_to_rgb(s->png);
    png_set_filler(s->png, 0xFF, PNG_FILLER_AFTER);
    int passes = png_set_interlace_handling(s->png);
    png_read_update_info(s->png, s->info);
    if (png_get_rowbytes(s->png, s->info) != (size_t)w * 4) {
        fail(err, name, 0, "cannot decode PNG: rows of %zu bytes, not RGBA8", png_get_rowbytes(s->png, s->info));
        goto done;
    }
    if (!image_reducer_init(&s->reducer, w, h, max_side)) {
        fail(err, name, 0, "%ux%u texels need more memory than the budget leaves (see --memory)", w, h);
        goto done;
    }
    if (passes > 1) {
        s->whole_charged = (uint64_t)w * h * 4;
        if (!pmf_budget_take(s->whole_charged)) {
            s->whole_charged = 0;
            fail(err, name, 0, "an interlaced PNG of %ux%u texels is decoded whole: %llu MiB, more than the memory budget leaves (see --memory)",
                 w, h, (unsigned long long)(((uint64_t)w * h * 4) >> 20));
            goto done;
        }
        if (!(s->whole = malloc((size_t)w * h * 4))) {
            fail(err, name, 0, "out of memory for an image of %ux%u texels", w, h);
            goto done;
        }
        for (int pass = 0; pass < passes; pass++)
            for (uint32_t y = 0; y < h; y++)
                png_read_row(s->png, s->whole + (size_t)y * w * 4, NULL);
        for (uint32_t y = 0; y < h; y++)
            image_reducer_add(&s->reducer, s->whole + (size_t)y * w * 4);
    } else {
        if (!(s->row = malloc((size_t)w * 4))) {
            fail(err, name, 0, "out of memory for a row of %u texels", w);
            goto done;
        }
        for (uint32_t y = 0; y < h; y++) {
            png_read_row(s->png, s->row, NULL);
            image_reducer_add(&s->reducer, s->row);
        }
    }
    *out = (res_image){ .width = s->reducer.out_width, .height = s->reducer.out_height, .stored_width = w,
                        .stored_height = h };
    out->rgba = image_reducer_take(&s->reducer);
    ok = true;
done:
    if (s->png)
        png_destroy_read_struct(&s->png, &s->info, NULL);
    image_reducer_free(&s->reducer);
    free(s->whole);
    pmf_budget_give(s->whole_charged);
    free(s->row);
    free(s);
    return ok;
}

/* ---- JPEG ------------------------------------------------------------------------------------ */

typedef struct jpeg_failure {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
} jpeg_failure;

static void jpeg_fail(j_common_ptr cinfo)
{
    jpeg_failure *f = (jpeg_failure *)cinfo->err;
    f->mgr.format_message(cinfo, f->message);
    longjmp(f->jump, 1);
}

/* A warning (corrupt data, premature end) is a failure: a texture is decoded exactly or not at all. */
static void jpeg_message(j_common_ptr cinfo, int level)
{
    if (level < 0)
        jpeg_fail(cinfo);
}

/* What a decode owns, kept outside the setjmp frame's locals. */
typedef struct jpeg_state {
    struct jpeg_decompress_struct cinfo;
    jpeg_failure failure;
    uint8_t *row;
    image_reducer reducer;
} jpeg_state;

/* Scaled in the decoder where that reaches max_side (libjpeg-turbo's DCT scaling, 1/8 at most),
 * then row by row into the reduction for what is left. */
static bool decode_jpeg(const uint8_t *data, size_t size, const char *name, uint32_t max_side, res_image *out,
                        pmf_error *err)
{
    jpeg_state *s = calloc(1, sizeof *s);
    if (!s)
        return fail(err, name, 0, "out of memory");
    bool ok = false;
    s->cinfo.err = jpeg_std_error(&s->failure.mgr);
    s->failure.mgr.error_exit = jpeg_fail;
    s->failure.mgr.emit_message = jpeg_message;
    if (setjmp(s->failure.jump)) {
        fail(err, name, 0, "cannot decode JPEG: %s", s->failure.message);
        goto done;
    }
    jpeg_create_decompress(&s->cinfo);
    s->cinfo.mem->max_memory_to_use = JPEG_MAX_WORKING_BYTES;
    jpeg_mem_src(&s->cinfo, data, (unsigned long)size);
    jpeg_read_header(&s->cinfo, TRUE);
    uint32_t stored_w = s->cinfo.image_width, stored_h = s->cinfo.image_height;
    if (!check_sides(stored_w, stored_h, name, err))
        goto done;
    s->cinfo.out_color_space = JCS_EXT_RGBA;
    uint32_t larger = stored_w > stored_h ? stored_w : stored_h;
    if (larger > max_side) {
        /* the largest eighths that still reach max_side: the reduction does the rest exactly */
        s->cinfo.scale_denom = 8;
        s->cinfo.scale_num = 1;
        for (unsigned num = 7; num >= 1; num--)
            if (((uint64_t)larger * num + 7) / 8 <= max_side) {
                s->cinfo.scale_num = num;
                break;
            }
    }
    jpeg_start_decompress(&s->cinfo);
    uint32_t w = s->cinfo.output_width, h = s->cinfo.output_height;
    if (!check_sides(w, h, name, err))
        goto done;
    if (!image_reducer_init(&s->reducer, w, h, max_side)) {
        fail(err, name, 0, "%ux%u texels need more memory than the budget leaves (see --memory)", stored_w, stored_h);
        goto done;
    }
    if (!(s->row = malloc((size_t)w * 4))) {
        fail(err, name, 0, "out of memory for a row of %u texels", w);
        goto done;
    }
    while (s->cinfo.output_scanline < h) {
        JSAMPROW dst = s->row;
        jpeg_read_scanlines(&s->cinfo, &dst, 1);
        image_reducer_add(&s->reducer, s->row);
    }
    jpeg_finish_decompress(&s->cinfo);
    *out = (res_image){ .width = s->reducer.out_width, .height = s->reducer.out_height, .stored_width = stored_w,
                        .stored_height = stored_h };
    out->rgba = image_reducer_take(&s->reducer);
    ok = true;
done:
    jpeg_destroy_decompress(&s->cinfo);
    image_reducer_free(&s->reducer);
    free(s->row);
    free(s);
    return ok;
}

/* ---- BMP and TGA (stb_image) ----------------------------------------------------------------- */

/* The fewest bytes a BMP or TGA of texels texels needs: BMP stores every texel (1 bit at least,
 * stb_image reads no RLE BMP), a TGA RLE packet repeats one texel up to 128 times. */
static uint64_t stb_min_bytes(const uint8_t *data, size_t size, bool bmp, uint64_t texels)
{
    if (bmp) {
        uint32_t bpp = size >= 30 ? le16(data + 28) : 1;
        return texels * (bpp ? bpp : 1) / 8;
    }
    bool rle = data[2] >= 9;
    return rle ? texels / 128 : texels * ((data[16] + 7u) / 8u);
}

/* stb_image decodes whole: that, and its own copy in the file's format while it converts, is
 * charged to the budget before it starts; the rows then go through the reduction. */
static bool decode_stb(const uint8_t *data, size_t size, const char *name, bool bmp, uint32_t max_side,
                       res_image *out, pmf_error *err)
{
    int w, h, n;
    if (size > INT32_MAX)
        return fail(err, name, 0, "image of %zu bytes is too large", size);
    if (!stbi_info_from_memory(data, (int)size, &w, &h, &n))
        return fail(err, name, 0, "not a PTF, PNG, JPEG, TGA or BMP image (%s)", stbi_failure_reason());
    if (!check_sides((uint64_t)w, (uint64_t)h, name, err))
        return false;
    if (size < 18 || stb_min_bytes(data, size, bmp, (uint64_t)w * (uint64_t)h) > size)
        return fail(err, name, 0, "%s of %dx%d texels cannot be held in %zu bytes", bmp ? "BMP" : "TGA", w, h, size);
    uint64_t charge = (uint64_t)w * (uint64_t)h * 8;
    if (!pmf_budget_take(charge))
        return fail(err, name, 0, "a %s of %dx%d texels is decoded whole: %llu MiB, more than the memory budget leaves (see --memory)",
                    bmp ? "BMP" : "TGA", w, h, (unsigned long long)(charge >> 20));
    uint8_t *rgba = stbi_load_from_memory(data, (int)size, &w, &h, &n, 4);
    if (!rgba) {
        pmf_budget_give(charge);
        return fail(err, name, 0, "cannot decode %s: %s", bmp ? "BMP" : "TGA", stbi_failure_reason());
    }
    image_reducer r;
    bool ok = image_reducer_init(&r, (uint32_t)w, (uint32_t)h, max_side);
    if (ok) {
        for (int y = 0; y < h; y++)
            image_reducer_add(&r, rgba + (size_t)y * (size_t)w * 4);
        *out = (res_image){ .width = r.out_width, .height = r.out_height, .stored_width = (uint32_t)w,
                            .stored_height = (uint32_t)h };
        out->rgba = image_reducer_take(&r);
    }
    stbi_image_free(rgba);
    pmf_budget_give(charge);
    return ok || fail(err, name, 0, "%dx%d texels need more memory than the budget leaves (see --memory)", w, h);
}

/* A PTF is read a row at a time out of its LZ4F frame. */
static bool decode_ptf(const uint8_t *data, size_t size, const char *name, uint32_t max_side, res_image *out,
                       pmf_error *err)
{
    ptf_rows *rows;
    uint32_t w, h;
    if (!ptf_rows_begin(data, size, name, &rows, &w, &h, err))
        return false;
    image_reducer r;
    uint8_t *row = malloc((size_t)w * 4);
    bool ok = row && image_reducer_init(&r, w, h, max_side);
    if (!ok) {
        free(row);
        ptf_rows_end(rows, NULL);
        return fail(err, name, 0, "%ux%u texels need more memory than the budget leaves (see --memory)", w, h);
    }
    for (uint32_t y = 0; y < h && ok; y++) {
        ok = ptf_rows_next(rows, row, err);
        if (ok)
            image_reducer_add(&r, row);
    }
    ok = ptf_rows_end(rows, ok ? err : NULL) && ok;
    free(row);
    if (ok) {
        *out = (res_image){ .width = r.out_width, .height = r.out_height, .stored_width = w, .stored_height = h };
        out->rgba = image_reducer_take(&r);
    }
    image_reducer_free(&r);
    return ok;
}

bool res_image_decode(const void *data, size_t size, const char *name, res_image *out, pmf_error *err)
{
    return res_image_decode_fit(data, size, name, RES_MAX_TEXTURE_SIDE, out, err);
}

bool res_image_decode_fit(const void *data, size_t size, const char *name, uint32_t max_side, res_image *out,
                          pmf_error *err)
{
    static const uint8_t png_signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n' };
    const uint8_t *bytes = data;
    *out = (res_image){0};
    if (size == 0)
        return fail(err, name, 0, "empty file");
    if (size >= 3 && memcmp(bytes, "PTF", 3) == 0)
        return decode_ptf(bytes, size, name, max_side, out, err);
    if (size >= 8 && memcmp(bytes, png_signature, 8) == 0)
        return decode_png(bytes, size, name, max_side, out, err);
    if (size >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF)
        return decode_jpeg(bytes, size, name, max_side, out, err);
    return decode_stb(bytes, size, name, size >= 2 && bytes[0] == 'B' && bytes[1] == 'M', max_side, out, err);
}
