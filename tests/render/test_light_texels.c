/* test_light_texels.c - the lit atlas's RGB9_E5 texels (src/render/light_texels.c): hand-computed
 * packings (GL's shared exponent encoding: E = max(-16, floor(log2 max)) + 16, m = floor(c x
 * 2^(24 - E) + 0.5), E + 1 when the largest m reaches 512), then the luxel tables against the
 * float packing for every RGB8 colour. No GL. */
#include <math.h>
#include <stdlib.h>

#include "common/check.h"
#include "light_texels.h"

static uint32_t texel(uint32_t r, uint32_t g, uint32_t b, uint32_t exponent)
{
    return r | g << 9 | b << 18 | exponent << 27;
}

static void test_pack(void)
{
    CHECK_EQ(light_texel_pack((const float[3]){ 0.0f, 0.0f, 0.0f }), 0);
    /* 1 = 256 x 2^(16 - 24) */
    CHECK_EQ(light_texel_pack((const float[3]){ 1.0f, 1.0f, 1.0f }), texel(256, 256, 256, 16));
    CHECK_EQ(light_texel_pack((const float[3]){ 0.5f, 0.25f, 0.0f }), texel(256, 128, 0, 15));
    /* above 1 (a lit luxel plus a dynamic layer): 3 x 2^7 = 384, 1.5 -> 192, 0.1 x 128 + 0.5 = 13.3 */
    CHECK_EQ(light_texel_pack((const float[3]){ 3.0f, 1.5f, 0.1f }), texel(384, 192, 13, 17));
    /* 0.9995 x 512 + 0.5 rounds to 512: one exponent up, 0.9995 x 256 + 0.5 -> 256 */
    CHECK_EQ(light_texel_pack((const float[3]){ 0.9995f, 0.0f, 0.0f }), texel(256, 0, 0, 16));
    /* clamped: 65408 = 511 x 2^(31 - 24); negative and NaN are 0 */
    CHECK_EQ(light_texel_pack((const float[3]){ 1e6f, -1.0f, NAN }), texel(511, 0, 0, 31));
    CHECK_EQ(light_texel_pack((const float[3]){ INFINITY, 0.0f, 0.0f }), texel(511, 0, 0, 31));
    /* below 2^-16 the exponent stays at 0: 1e-6 x 2^24 + 0.5 = 17.3 */
    CHECK_EQ(light_texel_pack((const float[3]){ 1e-6f, 0.0f, 0.0f }), texel(17, 0, 0, 0));
    /* the same, RGBA texels at a time (alpha ignored) */
    static const float rgba[3][4] = { { 3.0f, 1.5f, 0.1f, 1.0f }, { 0.9995f, 0.0f, 0.0f, 7.0f }, { 0.5f, 0.25f, 0.0f, -1.0f } };
    uint32_t out[3];
    light_texels_pack(&rgba[0][0], 3, out);
    CHECK_EQ(out[0], texel(384, 192, 13, 17));
    CHECK_EQ(out[1], texel(256, 0, 0, 16));
    CHECK_EQ(out[2], texel(256, 128, 0, 15));
}

static void test_luxels(void)
{
    /* 128 / 255 x 256 + 0.5 = 129.0; 128 / 255 x 512 + 0.5 = 257.5; 1 / 255 x 2^16 + 0.5 = 257.5 */
    static const uint8_t luxels[5][3] = { { 255, 128, 0 }, { 128, 64, 1 }, { 1, 0, 0 }, { 0, 0, 0 }, { 0, 255, 7 } };
    uint32_t out[5];
    light_texels_from_luxels(&luxels[0][0], 5, out);
    CHECK_EQ(out[0], texel(256, 129, 0, 16));
    CHECK_EQ(out[1], texel(257, 129, 2, 15));
    CHECK_EQ(out[2], texel(257, 0, 0, 8));
    CHECK_EQ(out[3], 0);
    CHECK_EQ(out[4], texel(0, 256, 7, 16));   /* 7 / 255 x 256 + 0.5 = 7.53 */
}

/* A block with a dynamic layer: base / 255 + layer / 255 x colour, then packed. */
static void test_layers(void)
{
    static const uint8_t base[2][3] = { { 255, 0, 0 }, { 0, 0, 128 } }, layer[2][3] = { { 255, 51, 0 }, { 0, 0, 255 } };
    float rgba[2][4];
    light_texels_base(&base[0][0], 2, 1.0f / 255.0f, &rgba[0][0]);
    CHECK(rgba[0][0] == 1.0f && rgba[0][1] == 0.0f && rgba[0][3] == 1.0f);
    CHECK(rgba[1][2] == 128 * (1.0f / 255.0f));
    light_texels_add_layer(&layer[0][0], 2, (const float[3]){ 1.0f, 0.5f, 0.25f }, &rgba[0][0]);
    CHECK(rgba[0][0] == 2.0f && rgba[0][1] == 51 / 255.0f * 0.5f && rgba[0][2] == 0.0f && rgba[0][3] == 1.0f);
    CHECK(rgba[1][2] == 128 * (1.0f / 255.0f) + 0.25f);
    uint32_t out[2];
    light_texels_pack(&rgba[0][0], 2, out);
    CHECK_EQ(out[0], texel(256, 13, 0, 17));    /* (2, 0.1, 0): 2^7 x 2, 0.1 x 128 + 0.5 = 13.3 */
    CHECK_EQ(out[1], texel(0, 0, 385, 15));     /* 128 / 255 + 0.25 = 0.75196, x 512 = 385.004, + 0.5 */
}

/* Every RGB8 colour: the tables give exactly the float packing of luxel x (1 / 255.0f). */
static void test_every_colour(void)
{
    uint8_t *rgb = malloc(256 * 256 * 3);
    uint32_t *out = malloc(256 * 256 * sizeof *out);
    uint32_t mismatches = 0;
    for (uint32_t r = 0; rgb && out && r < 256; r++) {
        for (uint32_t i = 0; i < 256 * 256; i++) {
            rgb[i * 3] = (uint8_t)r;
            rgb[i * 3 + 1] = (uint8_t)(i >> 8);
            rgb[i * 3 + 2] = (uint8_t)i;
        }
        light_texels_from_luxels(rgb, 256 * 256, out);
        for (uint32_t i = 0; i < 256 * 256; i++) {
            float c[3] = { rgb[i * 3] * (1.0f / 255.0f), rgb[i * 3 + 1] * (1.0f / 255.0f), rgb[i * 3 + 2] * (1.0f / 255.0f) };
            if (out[i] != light_texel_pack(c) && mismatches++ < 5)
                fprintf(stderr, "luxel %u %u %u: %08x, packed %08x\n", rgb[i * 3], rgb[i * 3 + 1], rgb[i * 3 + 2], out[i],
                        light_texel_pack(c));
        }
    }
    CHECK(rgb && out);
    CHECK_EQ(mismatches, 0);
    free(rgb);
    free(out);
}

int main(void)
{
    test_pack();
    test_luxels();
    test_layers();
    test_every_colour();
    return check_report("test_light_texels");
}
