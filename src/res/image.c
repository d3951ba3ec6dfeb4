/* image.c - map texture bytes to RGBA8 (res_image_decode, see res.h). Only the formats the docs
 * name, each told by its content: PTF (the pmf library), PNG (libpng), JPEG (libjpeg-turbo), BMP
 * and TGA (stb_image compiled here with only those two decoders). Every image's size is checked
 * against the format's limit and against what its bytes can hold before a texel is allocated. */
#include "res.h"

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
    if (err) {
        va_list ap;
        snprintf(err->file, sizeof err->file, "%s", name);
        snprintf(err->block, sizeof err->block, "texture");
        err->offset = offset;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
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

static bool alloc_rgba(uint32_t w, uint32_t h, res_image *out, const char *name, pmf_error *err)
{
    out->rgba = malloc((size_t)w * h * 4);
    if (!out->rgba)
        return fail(err, name, 0, "out of memory for an image of %ux%u texels", w, h);
    out->width = w;
    out->height = h;
    return true;
}

/* ---- PNG ------------------------------------------------------------------------------------- */

static bool decode_png(const uint8_t *data, size_t size, const char *name, res_image *out, pmf_error *err)
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

    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&img, data, size))
        return fail(err, name, 0, "cannot decode PNG: %s", img.message);
    img.format = PNG_FORMAT_RGBA;
    if (!alloc_rgba(img.width, img.height, out, name, err)) {
        png_image_free(&img);
        return false;
    }
    if (!png_image_finish_read(&img, NULL, out->rgba, 0, NULL)) {
        fail(err, name, 0, "cannot decode PNG: %s", img.message);
        png_image_free(&img);
        res_image_free(out);
        return false;
    }
    return true;
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
    uint8_t *rgba;
    uint32_t rows_allocated;
} jpeg_state;

static bool decode_jpeg(const uint8_t *data, size_t size, const char *name, res_image *out, pmf_error *err)
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
    if (!check_sides(s->cinfo.image_width, s->cinfo.image_height, name, err))
        goto done;
    s->cinfo.out_color_space = JCS_EXT_RGBA;
    jpeg_start_decompress(&s->cinfo);
    uint32_t w = s->cinfo.output_width, h = s->cinfo.output_height;
    if (!check_sides(w, h, name, err))
        goto done;
    /* Rows are allocated as they are decoded, doubling: a few bytes declaring a huge image fail
     * on their missing data long before the whole image is allocated. */
    while (s->cinfo.output_scanline < h) {
        uint32_t row = s->cinfo.output_scanline;
        if (row == s->rows_allocated) {
            uint32_t more = row ? row : 16;
            uint32_t rows = row + more < h ? row + more : h;
            uint8_t *grown = realloc(s->rgba, (size_t)w * rows * 4);
            if (!grown) {
                fail(err, name, 0, "out of memory for an image of %ux%u texels", w, h);
                goto done;
            }
            s->rgba = grown;
            s->rows_allocated = rows;
        }
        JSAMPROW dst = s->rgba + (size_t)row * w * 4;
        jpeg_read_scanlines(&s->cinfo, &dst, 1);
    }
    jpeg_finish_decompress(&s->cinfo);
    *out = (res_image){ .width = w, .height = h, .rgba = s->rgba };
    s->rgba = NULL;
    ok = true;
done:
    jpeg_destroy_decompress(&s->cinfo);
    free(s->rgba);
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

static bool decode_stb(const uint8_t *data, size_t size, const char *name, bool bmp, res_image *out, pmf_error *err)
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
    uint8_t *rgba = stbi_load_from_memory(data, (int)size, &w, &h, &n, 4);
    if (!rgba)
        return fail(err, name, 0, "cannot decode %s: %s", bmp ? "BMP" : "TGA", stbi_failure_reason());
    /* stb_image allocates with malloc (its default), so res_image_free's free() fits */
    *out = (res_image){ .width = (uint32_t)w, .height = (uint32_t)h, .rgba = rgba };
    return true;
}

bool res_image_decode(const void *data, size_t size, const char *name, res_image *out, pmf_error *err)
{
    static const uint8_t png_signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n' };
    const uint8_t *bytes = data;
    *out = (res_image){0};
    if (size == 0)
        return fail(err, name, 0, "empty file");
    if (size >= 3 && memcmp(bytes, "PTF", 3) == 0) {
        /* a PTF larger than the cache keeps is decoded straight to its reduction (docs/memory.md) */
        ptf_format format;
        return ptf_info(data, size, name, &format, &out->stored_width, &out->stored_height, err) &&
               ptf_decode_fit(data, size, name, RES_MAX_TEXTURE_SIDE, &out->rgba, &out->width, &out->height, err);
    }
    if (size >= 8 && memcmp(bytes, png_signature, 8) == 0)
        return decode_png(bytes, size, name, out, err);
    if (size >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF)
        return decode_jpeg(bytes, size, name, out, err);
    return decode_stb(bytes, size, name, size >= 2 && bytes[0] == 'B' && bytes[1] == 'M', out, err);
}
