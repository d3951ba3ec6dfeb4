/* test_image.c - texture decoding (res_image_decode): PNG (libpng), JPEG (libjpeg-turbo), TGA and
 * BMP (stb_image with only those) decode to the texels written; GIF, PNM and HDR are refused;
 * images declaring more texels than their bytes can hold, or sides past 16384, are refused
 * before their texels are allocated (the data segment is capped at 192 MiB above what the test
 * uses, so allocating a 16384^2 image would fail with "out of memory" instead). */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/resource.h>

#include <png.h>

#include "common/check.h"
#include "fixture_image.h"
#include "res/res.h"

#if defined(__has_feature)
#define UNDER_CLANG_ASAN __has_feature(address_sanitizer)
#else
#define UNDER_CLANG_ASAN 0
#endif

static uint8_t texels[4 * 4 * 4]; /* 4x4 RGBA: a gradient with alpha */

static bool decode(const void *data, size_t size, res_image *img, pmf_error *err)
{
    *err = (pmf_error){0};
    bool ok = res_image_decode(data, size, "t", img, err);
    if (!ok) {
        char line[700];
        fprintf(stderr, "  refused: %s\n", pmf_error_format(err, line, sizeof line));
    }
    return ok;
}

static uint8_t *png_bytes(uint32_t w, uint32_t h, const uint8_t *rgba, size_t *size)
{
    png_image img = { .version = PNG_IMAGE_VERSION, .width = w, .height = h, .format = PNG_FORMAT_RGBA };
    png_alloc_size_t n = 0;
    CHECK(png_image_write_to_memory(&img, NULL, &n, 0, rgba, 0, NULL));
    uint8_t *out = malloc(n);
    CHECK(png_image_write_to_memory(&img, out, &n, 0, rgba, 0, NULL));
    *size = n;
    return out;
}

typedef struct rgb_rows { const uint8_t *rgb; uint32_t w; } rgb_rows;

static void copy_row(void *user, uint32_t y, uint8_t *out)
{
    const rgb_rows *r = user;
    memcpy(out, r->rgb + (size_t)y * r->w * 3, (size_t)r->w * 3);
}

static uint8_t *jpeg_bytes(uint32_t w, uint32_t h, const uint8_t *rgb, size_t *size)
{
    return fx_jpeg(&(fx_jpeg_desc){ .width = w, .height = h, .quality = 100, .row = copy_row, .user = &(rgb_rows){ rgb, w } },
                   size);
}

static void test_png(void)
{
    size_t size;
    uint8_t *png = png_bytes(4, 4, texels, &size);
    res_image img;
    pmf_error err;
    CHECK(decode(png, size, &img, &err));
    CHECK_EQ(img.width, 4);
    CHECK_EQ(img.height, 4);
    CHECK(img.rgba && memcmp(img.rgba, texels, sizeof texels) == 0);
    res_image_free(&img);

    /* cut: libpng reports it, nothing leaks */
    CHECK(!decode(png, size - 20, &img, &err) && strstr(err.message, "cannot decode PNG"));
    CHECK(img.rgba == NULL);

    /* 16384^2 declared by a 69-byte file: deflate cannot expand it that far */
    png[16] = 0, png[17] = 0, png[18] = 0x40, png[19] = 0; /* width 16384 */
    png[20] = 0, png[21] = 0, png[22] = 0x40, png[23] = 0;
    CHECK(!decode(png, size, &img, &err) && strstr(err.message, "cannot be held in"));
    png[18] = 0x40, png[19] = 1;                           /* 16385 */
    CHECK(!decode(png, size, &img, &err) && strstr(err.message, "exceeds 16384 per side"));
    free(png);
}

static void test_jpeg(void)
{
    uint8_t rgb[16 * 16 * 3];
    for (int i = 0; i < 16 * 16; i++)
        rgb[i * 3] = 200, rgb[i * 3 + 1] = 100, rgb[i * 3 + 2] = 50;
    size_t size;
    uint8_t *jpg = jpeg_bytes(16, 16, rgb, &size);
    res_image img;
    pmf_error err;
    CHECK(decode(jpg, size, &img, &err));
    CHECK_EQ(img.width, 16);
    CHECK_EQ(img.height, 16);
    for (int i = 0; img.rgba && i < 16 * 16; i++) {
        const uint8_t *t = img.rgba + i * 4;
        CHECK(abs(t[0] - 200) <= 2 && abs(t[1] - 100) <= 2 && abs(t[2] - 50) <= 2 && t[3] == 255);
    }
    res_image_free(&img);

    /* the same bytes declaring 16384^2 (SOF0: height then width after the precision byte) run out
     * of data in the first rows: refused without allocating the image */
    size_t sof = 0;
    while (sof + 9 < size && !(jpg[sof] == 0xFF && jpg[sof + 1] == 0xC0))
        sof++;
    CHECK(sof + 9 < size);
    jpg[sof + 5] = 0x40, jpg[sof + 6] = 0, jpg[sof + 7] = 0x40, jpg[sof + 8] = 0;
    CHECK(!decode(jpg, size, &img, &err) && strstr(err.message, "cannot decode JPEG"));
    CHECK(strstr(err.message, "out of memory") == NULL);
    jpg[sof + 5] = 0x40, jpg[sof + 6] = 1; /* 16385 rows */
    CHECK(!decode(jpg, size, &img, &err) && strstr(err.message, "exceeds 16384 per side"));
    /* cut inside the entropy-coded data: a premature end is a failure, not a grey image */
    uint8_t *small = jpeg_bytes(16, 16, rgb, &size);
    CHECK(!decode(small, size - 8, &img, &err) && strstr(err.message, "cannot decode JPEG"));
    free(small);
    free(jpg);
}

/* 2x2 uncompressed 32-bit TGA, bottom-up rows of BGRA. */
static void test_tga(void)
{
    uint8_t tga[18 + 16] = { 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 32, 8 };
    static const uint8_t bgra[16] = { 1, 2, 3, 255, 4, 5, 6, 255, 7, 8, 9, 128, 10, 11, 12, 64 };
    memcpy(tga + 18, bgra, sizeof bgra);
    res_image img;
    pmf_error err;
    CHECK(decode(tga, sizeof tga, &img, &err));
    CHECK_EQ(img.width, 2);
    /* first stored row is the bottom one; res rows start at the top */
    static const uint8_t want[16] = { 9, 8, 7, 128, 12, 11, 10, 64, 3, 2, 1, 255, 6, 5, 4, 255 };
    CHECK(img.rgba && memcmp(img.rgba, want, sizeof want) == 0);
    res_image_free(&img);

    /* RLE TGA of 16384^2 in 40 bytes: one packet repeats a texel 128 times at most */
    uint8_t rle[40] = { 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0x40, 24, 0 };
    CHECK(!decode(rle, sizeof rle, &img, &err) && strstr(err.message, "TGA of 16384x16384 texels cannot be held in 40 bytes"));
}

/* 2x1 24-bit BMP (rows padded to 4 bytes, bottom-up). */
static void test_bmp(void)
{
    uint8_t bmp[54 + 8] = { 'B', 'M', 62, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0, 40, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1, 0, 24, 0 };
    static const uint8_t bgr[8] = { 10, 20, 30, 40, 50, 60, 0, 0 };
    memcpy(bmp + 54, bgr, sizeof bgr);
    res_image img;
    pmf_error err;
    CHECK(decode(bmp, sizeof bmp, &img, &err));
    static const uint8_t want[8] = { 30, 20, 10, 255, 60, 50, 40, 255 };
    CHECK(img.width == 2 && img.height == 1 && img.rgba && memcmp(img.rgba, want, sizeof want) == 0);
    res_image_free(&img);
    bmp[18] = 0, bmp[19] = 0x40, bmp[22] = 0, bmp[23] = 0x40; /* 16384^2 in 62 bytes */
    CHECK(!decode(bmp, sizeof bmp, &img, &err) && strstr(err.message, "cannot be held"));
}

/* Formats stb_image knows but the docs do not name. */
static void test_refused_formats(void)
{
    static const char gif[] = "GIF89a\x02\x00\x02\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00,\x00\x00\x00\x00\x02\x00\x02\x00\x00\x02\x02\x84\x51\x00;";
    static const char pnm[] = "P6\n2 2\n255\nabcdefghijkl";
    static const char hdr[] = "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 1 +X 1\n\x80\x80\x80\x80";
    const char *const files[] = { gif, pnm, hdr };
    const size_t sizes[] = { sizeof gif - 1, sizeof pnm - 1, sizeof hdr - 1 };
    for (int i = 0; i < 3; i++) {
        res_image img;
        pmf_error err;
        CHECK(!decode(files[i], sizes[i], &img, &err) && strstr(err.message, "not a PTF, PNG, JPEG, TGA or BMP image"));
        CHECK(img.rgba == NULL);
    }
}

/* Caps the data segment 192 MiB above its current size (not under ASan, whose shadow counts). */
static void cap_memory(void)
{
#if !defined(__SANITIZE_ADDRESS__) && !UNDER_CLANG_ASAN
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long long data_kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmData: %lld kB", &data_kb) == 1)
            break;
    if (f)
        fclose(f);
    if (data_kb > 0) {
        struct rlimit lim = { .rlim_cur = (rlim_t)(data_kb + (192 << 10)) << 10, .rlim_max = RLIM_INFINITY };
        CHECK(setrlimit(RLIMIT_DATA, &lim) == 0);
    }
#endif
}

int main(void)
{
    for (int i = 0; i < 16; i++)
        texels[i * 4] = (uint8_t)(i * 16), texels[i * 4 + 1] = (uint8_t)(255 - i * 16), texels[i * 4 + 2] = 7,
        texels[i * 4 + 3] = (uint8_t)(i * 17);
    cap_memory();
    test_png();
    test_jpeg();
    test_tga();
    test_bmp();
    test_refused_formats();
    return check_report("test_image");
}
