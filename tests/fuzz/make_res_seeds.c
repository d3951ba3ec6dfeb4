/* make_res_seeds.c - writes the resource fuzzers' seed corpora: `make_res_seeds paf|ptf|image DIR`.
 *   paf:   archives from the writer: files in nested directories, an empty file, absolute,
 *          relative and "../" links, a link to a directory
 *   ptf:   every PTF format at several sizes (1x1 to 32x16), patterned texels
 *   image: PNG (RGBA, RGB, grey, grey + alpha), JPEG (baseline, progressive, grey), TGA (raw and
 *          RLE), BMP (24 and 32 bit), PTF, and the refusals kept as regressions: images declaring
 *          16384^2 in a few bytes, a GIF */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "fixture_image.h"
#include "pmf/paf.h"
#include "pmf/ptf.h"

static bool ok = true;
static const char *dir;

static void seed(const char *name, const void *data, size_t size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "make_res_seeds: cannot write %s\n", path);
        ok = false;
    }
}

/* w x h RGBA texels: a gradient with a checker in alpha. */
static uint8_t *pattern(uint32_t w, uint32_t h)
{
    uint8_t *p = malloc((size_t)w * h * 4);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *t = p + ((size_t)y * w + x) * 4;
            t[0] = (uint8_t)(x * 255 / (w > 1 ? w - 1 : 1));
            t[1] = (uint8_t)(y * 255 / (h > 1 ? h - 1 : 1));
            t[2] = (uint8_t)(x * 7 + y * 13);
            t[3] = ((x ^ y) & 1) ? 255 : 96;
        }
    return p;
}

static void paf_seeds(void)
{
    static const uint8_t bytes[] = "PTF texels, or anything";
    paf_writer *w = paf_writer_create();
    pmf_error err;
    bool built = paf_writer_add_file(w, "textures/a.ptf", bytes, sizeof bytes, &err) &&
                 paf_writer_add_file(w, "textures/b.png", bytes, 5, &err) &&
                 paf_writer_add_file(w, "textures/deep/er/c.ptf", bytes, 9, &err) &&
                 paf_writer_add_file(w, "empty", bytes, 0, &err) &&
                 paf_writer_add_link(w, "link", "/textures/a.ptf", &err) &&
                 paf_writer_add_link(w, "textures/deep/up", "../b.png", &err) &&
                 paf_writer_add_link(w, "dirlink", "textures/deep", &err);
    uint8_t *out = NULL;
    size_t size = 0;
    if (built && paf_writer_finish(w, &out, &size, &err))
        seed("nested.paf", out, size);
    else
        ok = false, fprintf(stderr, "make_res_seeds: paf: %s\n", err.message);
    free(out);
    paf_writer_destroy(w);

    w = paf_writer_create();
    if (paf_writer_finish(w, &out, &size, &err))
        seed("empty.paf", out, size);
    else
        ok = false;
    free(out);
    paf_writer_destroy(w);
}

static void ptf_seeds(void)
{
    static const uint32_t sides[][2] = { { 1, 1 }, { 4, 2 }, { 8, 8 }, { 32, 16 } };
    static const char *const names[] = { "i", "ia", "rgb", "rgba" };
    for (int f = PTF_FORMAT_I; f <= PTF_FORMAT_RGBA; f++)
        for (size_t s = 0; s < sizeof sides / sizeof *sides; s++) {
            uint8_t *texels = pattern(sides[s][0], sides[s][1]);
            uint8_t *out = NULL;
            size_t size;
            pmf_error err;
            char name[64];
            snprintf(name, sizeof name, "%s_%ux%u.ptf", names[f], sides[s][0], sides[s][1]);
            if (ptf_encode(texels, sides[s][0], sides[s][1], (ptf_format)f, &out, &size, &err))
                seed(name, out, size);
            else
                ok = false;
            free(out);
            free(texels);
        }
}

static void png_seed(const char *name, uint32_t w, uint32_t h, uint32_t format, bool huge)
{
    uint8_t *texels = pattern(w, h);
    png_image img = { .version = PNG_IMAGE_VERSION, .width = w, .height = h, .format = format };
    png_alloc_size_t size = 0;
    uint8_t *out = NULL;
    if (png_image_write_to_memory(&img, NULL, &size, 0, texels, 0, NULL) && (out = malloc(size)) &&
        png_image_write_to_memory(&img, out, &size, 0, texels, 0, NULL)) {
        if (huge) /* IHDR width and height 16384: the bytes cannot hold it */
            memcpy(out + 16, "\0\0\x40\0\0\0\x40\0", 8);
        seed(name, out, size);
    } else {
        ok = false;
        fprintf(stderr, "make_res_seeds: %s: %s\n", name, img.message);
    }
    free(out);
    free(texels);
}

typedef struct pattern_rows { const uint8_t *rgba; uint32_t w; int components; } pattern_rows;

/* The first `components` channels of the RGBA pattern's row y. */
static void pattern_row(void *user, uint32_t y, uint8_t *out)
{
    const pattern_rows *p = user;
    for (uint32_t x = 0; x < p->w; x++)
        for (int k = 0; k < p->components; k++)
            out[x * (uint32_t)p->components + (uint32_t)k] = p->rgba[((size_t)y * p->w + x) * 4 + (uint32_t)k];
}

static void jpeg_seed(const char *name, uint32_t w, uint32_t h, int components, bool progressive, bool huge)
{
    uint8_t *texels = pattern(w, h);
    size_t size = 0;
    uint8_t *out = fx_jpeg(&(fx_jpeg_desc){ .width = w, .height = h, .components = components, .progressive = progressive,
                                            .row = pattern_row, .user = &(pattern_rows){ texels, w, components } },
                           &size);
    if (!out) {
        ok = false;
        fprintf(stderr, "make_res_seeds: %s: out of memory\n", name);
        free(texels);
        return;
    }
    for (size_t i = 0; huge && i + 9 < size; i++)
        if (out[i] == 0xFF && (out[i + 1] == 0xC0 || out[i + 1] == 0xC2)) { /* SOF: 16384 x 16384 */
            out[i + 5] = 0x40, out[i + 6] = 0, out[i + 7] = 0x40, out[i + 8] = 0;
            break;
        }
    seed(name, out, size);
    free(out);
    free(texels);
}

static void image_seeds(void)
{
    png_seed("rgba.png", 8, 8, PNG_FORMAT_RGBA, false);
    png_seed("grey.png", 5, 3, PNG_FORMAT_GRAY, false);
    png_seed("rgb.png", 16, 4, PNG_FORMAT_RGB, false);
    png_seed("grey_alpha.png", 4, 4, PNG_FORMAT_GA, false);
    png_seed("huge.png", 8, 8, PNG_FORMAT_RGBA, true);
    jpeg_seed("baseline.jpg", 16, 16, 4, false, false);
    jpeg_seed("progressive.jpg", 24, 8, 4, true, false);
    jpeg_seed("grey.jpg", 9, 7, 1, false, false);
    jpeg_seed("huge.jpg", 16, 16, 4, false, true);
    jpeg_seed("huge_progressive.jpg", 16, 16, 4, true, true);

    /* TGA: 2x2 raw 32-bit, 4x1 RLE 24-bit (one run, one raw packet), RLE declaring 16384^2 */
    static const uint8_t tga[18 + 16] = { 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 32, 8,
                                          1, 2, 3, 255, 4, 5, 6, 255, 7, 8, 9, 128, 10, 11, 12, 64 };
    seed("raw.tga", tga, sizeof tga);
    static const uint8_t rle[18 + 10] = { 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 1, 0, 24, 0,
                                          0x82, 10, 20, 30, 0x00, 40, 50, 60 };
    seed("rle.tga", rle, sizeof rle);
    static const uint8_t huge_tga[40] = { 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0x40, 24, 0 };
    seed("huge.tga", huge_tga, sizeof huge_tga);

    /* BMP: 2x1 24-bit (row padded to 4 bytes), 1x2 32-bit, 16384^2 in 62 bytes */
    uint8_t bmp[54 + 8] = { 'B', 'M', 62, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0, 40, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1, 0, 24, 0 };
    memcpy(bmp + 54, (const uint8_t[8]){ 10, 20, 30, 40, 50, 60, 0, 0 }, 8);
    seed("rgb24.bmp", bmp, sizeof bmp);
    uint8_t bmp32[54 + 8] = { 'B', 'M', 62, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0, 40, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 32, 0 };
    memcpy(bmp32 + 54, (const uint8_t[8]){ 1, 2, 3, 4, 5, 6, 7, 8 }, 8);
    seed("rgba32.bmp", bmp32, sizeof bmp32);
    bmp[18] = 0, bmp[19] = 0x40, bmp[22] = 0, bmp[23] = 0x40;
    seed("huge.bmp", bmp, sizeof bmp);

    uint8_t *texels = pattern(4, 4), *out = NULL;
    size_t size;
    pmf_error err;
    if (ptf_encode(texels, 4, 4, PTF_FORMAT_AUTO, &out, &size, &err))
        seed("texture.ptf", out, size);
    free(out);
    free(texels);
    static const char gif[] = "GIF89a\x02\x00\x02\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00,\x00\x00\x00\x00\x02\x00\x02\x00\x00\x02\x02\x84\x51\x00;";
    seed("refused.gif", gif, sizeof gif - 1);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fputs("usage: make_res_seeds paf|ptf|image DIR\n", stderr);
        return 1;
    }
    dir = argv[2];
    if (!strcmp(argv[1], "paf"))
        paf_seeds();
    else if (!strcmp(argv[1], "ptf"))
        ptf_seeds();
    else if (!strcmp(argv[1], "image"))
        image_seeds();
    else {
        fputs("usage: make_res_seeds paf|ptf|image DIR\n", stderr);
        return 1;
    }
    return ok ? 0 : 2;
}
