/* test_ptf.c - PTF encode -> decode gives the exact texels in every format; bad frames are refused. */
#include <stdlib.h>
#include <string.h>

#include <lz4frame.h>

#include "common/check.h"
#include "pmf/ptf.h"

#define W 4u
#define H 2u

/* An 4x2 image that the given format holds exactly. */
static void make_image(ptf_format f, uint8_t rgba[W * H * 4])
{
    for (uint32_t i = 0; i < W * H; i++) {
        uint8_t *t = rgba + i * 4;
        uint8_t v = (uint8_t)(i * 31 + 7);
        t[0] = v;
        t[1] = f == PTF_FORMAT_I || f == PTF_FORMAT_IA ? v : (uint8_t)(255 - v);
        t[2] = f == PTF_FORMAT_I || f == PTF_FORMAT_IA ? v : (uint8_t)(v ^ 0x5A);
        t[3] = f == PTF_FORMAT_IA || f == PTF_FORMAT_RGBA ? (uint8_t)(i * 17) : 255;
    }
}

static void test_round_trips(void)
{
    static const unsigned channels[4] = { 1, 2, 3, 4 };
    for (int f = PTF_FORMAT_I; f <= PTF_FORMAT_RGBA; f++) {
        uint8_t img[W * H * 4];
        make_image((ptf_format)f, img);
        for (int pass = 0; pass < 2; pass++) {
            ptf_format asked = pass == 0 ? (ptf_format)f : PTF_FORMAT_AUTO;
            uint8_t *ptf = NULL, *back = NULL;
            size_t size = 0;
            uint32_t w = 0, h = 0;
            pmf_error err = {0};
            CHECK(ptf_encode(img, W, H, asked, &ptf, &size, &err));
            if (!ptf)
                continue;
            CHECK(memcmp(ptf, "PTF\0", 4) == 0);
            CHECK_EQ(ptf[4], f);          /* AUTO picks the same, smallest exact format */
            CHECK_EQ(ptf[5], 2 | 1 << 4); /* 2^2 x 2^1 */
            ptf_format got;
            CHECK(ptf_info(ptf, size, "t.ptf", &got, &w, &h, &err));
            CHECK_EQ(got, f);
            CHECK_EQ(ptf_format_channels(got), channels[f]);
            CHECK(ptf_decode(ptf, size, "t.ptf", &back, &w, &h, &err));
            CHECK_EQ(w, W);
            CHECK_EQ(h, H);
            CHECK(back && memcmp(back, img, sizeof img) == 0);
            free(ptf);
            free(back);
        }
    }
    /* explicit lossy formats drop channels as documented */
    uint8_t px[4] = { 10, 20, 30, 40 }, *ptf, *back;
    size_t size;
    uint32_t w, h;
    pmf_error err;
    CHECK(ptf_encode(px, 1, 1, PTF_FORMAT_IA, &ptf, &size, &err));
    CHECK(ptf_decode(ptf, size, "ia.ptf", &back, &w, &h, &err));
    CHECK(back[0] == 10 && back[1] == 10 && back[2] == 10 && back[3] == 40);
    free(ptf);
    free(back);
    CHECK_ERROR(ptf_encode(px, 3, 1, PTF_FORMAT_RGBA, &ptf, &size, &err), err, "texture");
    CHECK_ERROR(ptf_encode(px, 1u << 15, 1, PTF_FORMAT_RGBA, &ptf, &size, &err), err, "texture");
}

/* A PTF file from a raw header and a frame of `payload` bytes. */
static uint8_t *make_ptf(uint8_t info, uint8_t res, size_t payload, size_t *size)
{
    uint8_t *texels = calloc(payload ? payload : 1, 1);
    for (size_t i = 0; i < payload; i++)
        texels[i] = (uint8_t)i;
    LZ4F_preferences_t prefs;
    memset(&prefs, 0, sizeof prefs);
    size_t bound = LZ4F_compressFrameBound(payload, &prefs);
    uint8_t *out = malloc(6 + bound);
    size_t n = LZ4F_compressFrame(out + 6, bound, texels, payload, &prefs);
    free(texels);
    memcpy(out, "PTF\0", 4);
    out[4] = info;
    out[5] = res;
    *size = 6 + n;
    return out;
}

static void test_bad(void)
{
    pmf_error err = {0};
    uint8_t *rgba = NULL;
    uint32_t w, h;
    size_t size;
    /* 4x4 RGBA wants 64 bytes */
    uint8_t *ok = make_ptf(PTF_FORMAT_RGBA, 2 | 2 << 4, 64, &size);
    CHECK(ptf_decode(ok, size, "ok.ptf", &rgba, &w, &h, &err));
    CHECK(rgba && rgba[4 * 5 + 1] == 21);
    free(rgba);
    free(ok);

    uint8_t *p = make_ptf(PTF_FORMAT_RGBA, 2 | 2 << 4, 63, &size);
    CHECK_ERROR(ptf_decode(p, size, "short.ptf", &rgba, &w, &h, &err), err, "texture");
    CHECK(strcmp(err.file, "short.ptf") == 0);
    free(p);
    p = make_ptf(PTF_FORMAT_RGBA, 2 | 2 << 4, 65, &size);
    CHECK_ERROR(ptf_decode(p, size, "long.ptf", &rgba, &w, &h, &err), err, "texture");
    free(p);
    p = make_ptf(PTF_FORMAT_I, 2 | 2 << 4, 16, &size);
    CHECK(ptf_decode(p, size, "i.ptf", &rgba, &w, &h, &err));
    free(rgba);
    CHECK_ERROR(ptf_decode(p, size - 1, "cut.ptf", &rgba, &w, &h, &err), err, "texture"); /* truncated frame */
    p[4] |= 0x10;                                                                           /* reserved flag */
    CHECK_ERROR(ptf_decode(p, size, "flag.ptf", &rgba, &w, &h, &err), err, "texture");
    CHECK_EQ(err.offset, 4);
    p[4] = PTF_FORMAT_I;
    p[5] = 0xF2; /* height 2^15 */
    CHECK_ERROR(ptf_decode(p, size, "huge.ptf", &rgba, &w, &h, &err), err, "texture");
    p[5] = 0xEE; /* 2^14 x 2^14 from a few bytes: refused before allocating */
    CHECK_ERROR(ptf_decode(p, size, "ratio.ptf", &rgba, &w, &h, &err), err, "texture");
    p[3] = 1;
    CHECK_ERROR(ptf_decode(p, size, "ver.ptf", &rgba, &w, &h, &err), err, "texture");
    CHECK_ERROR(ptf_decode(p, 5, "hdr.ptf", &rgba, &w, &h, &err), err, "texture");
    free(p);
    /* bytes after the frame */
    p = make_ptf(PTF_FORMAT_I, 0, 1, &size);
    uint8_t *q = malloc(size + 3);
    memcpy(q, p, size);
    memset(q + size, 0, 3);
    CHECK_ERROR(ptf_decode(q, size + 3, "tail.ptf", &rgba, &w, &h, &err), err, "texture");
    free(p);
    free(q);
}

/* ptf_rows: row by row, every format, the texels of the full decode; a cut frame fails on the
 * row it stops in, a frame with bytes to spare fails at the end. */
static void test_rows(void)
{
    enum { FW = 64, FH = 32 };
    static uint8_t img[FW * FH * 4];
    for (uint32_t i = 0; i < FW * FH; i++)
        for (int c = 0; c < 4; c++)
            img[i * 4 + (uint32_t)c] = (uint8_t)((i % FW) * 3 + (i / FW) * 5 + (uint32_t)c * 40);
    for (int f = PTF_FORMAT_I; f <= PTF_FORMAT_RGBA; f++) {
        uint8_t *ptf = NULL, *full = NULL, row[FW * 4];
        size_t size = 0;
        uint32_t w, h;
        pmf_error err = {0};
        ptf_rows *rows;
        CHECK(ptf_encode(img, FW, FH, (ptf_format)f, &ptf, &size, &err));
        CHECK(ptf_decode(ptf, size, "f.ptf", &full, &w, &h, &err));
        CHECK(ptf_rows_begin(ptf, size, "f.ptf", &rows, &w, &h, &err) && w == FW && h == FH);
        bool same = full != NULL;
        for (uint32_t y = 0; y < FH; y++) {
            CHECK(ptf_rows_next(rows, row, &err));
            same = same && memcmp(row, full + (size_t)y * FW * 4, sizeof row) == 0;
        }
        CHECK(same);
        CHECK_ERROR(ptf_rows_next(rows, row, &err), err, "texture"); /* no row past the last */
        CHECK(ptf_rows_end(rows, &err));
        /* cut: some row fails, naming how far the pixel data came */
        CHECK(ptf_rows_begin(ptf, size - 5, "cut.ptf", &rows, &w, &h, &err));
        bool all = true;
        for (uint32_t y = 0; y < FH && all; y++)
            all = ptf_rows_next(rows, row, &err);
        CHECK(!all || !ptf_rows_end(rows, &err));
        if (!all) {
            CHECK(strstr(err.message, "pixel data (") != NULL);
            ptf_rows_end(rows, NULL);
        }
        /* three bytes after the frame: every row reads, the end does not */
        uint8_t *tail = malloc(size + 3);
        memcpy(tail, ptf, size);
        memset(tail + size, 0, 3);
        CHECK(ptf_rows_begin(tail, size + 3, "tail.ptf", &rows, &w, &h, &err));
        for (uint32_t y = 0; y < FH; y++)
            CHECK(ptf_rows_next(rows, row, &err));
        CHECK_ERROR(ptf_rows_end(rows, &err), err, "texture");
        free(tail);
        free(ptf);
        free(full);
    }
}

int main(void)
{
    test_round_trips();
    test_bad();
    test_rows();
    return check_report("test_ptf");
}
