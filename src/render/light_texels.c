/* light_texels.c - RGB9_E5 texels of the lit lightmap atlas (light_texels.h). */
#include "light_texels.h"

#include <pthread.h>
#include <string.h>

enum { MANTISSA = 9, BIAS = 15, EXPONENTS = 32 };

/* 2^e for e in [-126, 127], from the bits (no libm call per texel). */
static float power_of_two(int e)
{
    uint32_t bits = (uint32_t)(127 + e) << 23;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static uint32_t mantissa(float c, float scale) { return (uint32_t)(c * scale + 0.5f); }

static inline uint32_t pack(const float rgb[3])
{
    const float max_value = 65408.0f; /* (2^9 - 1) / 2^9 * 2^(31 - 15) */
    float c[3];
    for (int k = 0; k < 3; k++)
        c[k] = rgb[k] > 0.0f ? (rgb[k] < max_value ? rgb[k] : max_value) : 0.0f;
    float top = c[0] > c[1] ? c[0] : c[1];
    top = top > c[2] ? top : c[2];
    /* floor(log2(top)) from the float's exponent bits; below 2^-16 every value is 0 anyway */
    uint32_t bits;
    memcpy(&bits, &top, sizeof bits);
    int exponent = (int)((bits >> 23) & 0xff) - 127;
    if (exponent < -BIAS - 1)
        exponent = -BIAS - 1;
    exponent += 1 + BIAS;
    float scale = power_of_two(MANTISSA + BIAS - exponent);
    if (mantissa(top, scale) == 1u << MANTISSA) {
        exponent++;
        scale *= 0.5f;
    }
    return mantissa(c[0], scale) | mantissa(c[1], scale) << 9 | mantissa(c[2], scale) << 18 | (uint32_t)exponent << 27;
}

uint32_t light_texel_pack(const float rgb[3]) { return pack(rgb); }

void light_texels_pack(const float *rgba, size_t count, uint32_t *out)
{
    for (size_t t = 0; t < count; t++)
        out[t] = pack(&rgba[t * 4]);
}

/* A texel's exponent follows from its largest luxel, and each mantissa from its luxel and the
 * exponent: 256 exponents and 32 x 256 mantissas (filled for the exponents a byte colour reaches).
 * unit[v] = v / 255.0f, the division a layer's luxel takes. */
static uint8_t exponent_of_largest[256];
static uint16_t mantissa_of[EXPONENTS][256];
static float unit[256];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void build_tables(void)
{
    for (int v = 0; v < 256; v++)
        unit[v] = (float)v / 255.0f;
    for (int top = 0; top < 256; top++) {
        float c = (float)top * (1.0f / 255.0f);
        uint32_t exponent = light_texel_pack((const float[3]){ c, c, c }) >> 27;
        exponent_of_largest[top] = (uint8_t)exponent;
        float scale = power_of_two(MANTISSA + BIAS - (int)exponent);
        for (int v = 0; v <= top; v++)
            mantissa_of[exponent][v] = (uint16_t)mantissa((float)v * (1.0f / 255.0f), scale);
    }
}

void light_texels_from_luxels(const uint8_t *rgb8, size_t count, uint32_t *out)
{
    pthread_once(&tables_once, build_tables);
    for (size_t t = 0; t < count; t++, rgb8 += 3) {
        uint8_t top = rgb8[0] > rgb8[1] ? rgb8[0] : rgb8[1];
        top = top > rgb8[2] ? top : rgb8[2];
        uint32_t exponent = exponent_of_largest[top];
        const uint16_t *m = mantissa_of[exponent];
        out[t] = m[rgb8[0]] | (uint32_t)m[rgb8[1]] << 9 | (uint32_t)m[rgb8[2]] << 18 | exponent << 27;
    }
}

void light_texels_base(const uint8_t *rgb8, size_t count, float scale, float *rgba)
{
    for (size_t t = 0; t < count; t++, rgb8 += 3, rgba += 4) {
        for (int c = 0; c < 3; c++)
            rgba[c] = rgb8[c] * scale;
        rgba[3] = 1.0f;
    }
}

void light_texels_add_layer(const uint8_t *rgb8, size_t count, const float colour[3], float *rgba)
{
    pthread_once(&tables_once, build_tables);
    const float r = colour[0], g = colour[1], b = colour[2];
    for (size_t t = 0; t < count; t++, rgb8 += 3, rgba += 4) {
        rgba[0] += unit[rgb8[0]] * r;
        rgba[1] += unit[rgb8[1]] * g;
        rgba[2] += unit[rgb8[2]] * b;
    }
}
