/* bake_sample.c - where the baker's many rays per luxel go: a low-discrepancy sequence turned per
 * luxel by a hash of its place (so the result is the same on any thread), and the maps from the
 * unit square onto a disc and a cosine-weighted half-sphere. */
#include "bake_internal.h"

#include <math.h>

uint32_t sample_hash(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static double radical_inverse(uint32_t k, uint32_t base)
{
    double inverse = 1.0 / base, scale = inverse, v = 0.0;
    for (; k; k /= base, scale *= inverse)
        v += (double)(k % base) * scale;
    return v;
}

/* radical_inverse(k, 2) by reversing k's bits: a sum of at most 32 powers of two, exact in a double
 * either way. */
static double radical_inverse_2(uint32_t k)
{
    k = (k << 16) | (k >> 16);
    k = ((k & 0x00ff00ffu) << 8) | ((k >> 8) & 0x00ff00ffu);
    k = ((k & 0x0f0f0f0fu) << 4) | ((k >> 4) & 0x0f0f0f0fu);
    k = ((k & 0x33333333u) << 2) | ((k >> 2) & 0x33333333u);
    k = ((k & 0x55555555u) << 1) | ((k >> 1) & 0x55555555u);
    return (double)k * (1.0 / 4294967296.0);
}

/* Point k: the Halton sequence (bases 2, 3) in the first two dimensions (where on the luxel) and
 * Roberts' R2 sequence in the last two (where on a light, or which way to the sky): each pair is
 * well spread for every prefix, so refining a luxel only adds points, and the two pairs do not
 * line up with each other. Each luxel's seed shifts all four (mod 1). */
void sample_shift(uint32_t seed, double shift[4])
{
    for (int d = 0; d < 4; d++)
        shift[d] = (double)(sample_hash(seed + 0x9e3779b9u * (uint32_t)(d + 1)) >> 8) / 16777216.0;
}

void sample_point_shifted(const double shift[4], uint32_t k, float out[4])
{
    double v[4] = { radical_inverse_2(k), radical_inverse(k, 3), (double)k * 0.7548776662466927,
                    (double)k * 0.5698402909980532 };
    for (int d = 0; d < 4; d++) {
        double x = v[d] + shift[d];
        out[d] = (float)(x - floor(x));
    }
}

void sample_point(uint32_t seed, uint32_t k, float out[4])
{
    double shift[4];
    sample_shift(seed, shift);
    sample_point_shifted(shift, k, out);
}

void sample_disc(float u, float v, float out[2])
{
    /* concentric map (Shirley-Chiu): equal areas stay equal, strata stay compact */
    float a = 2.0f * u - 1.0f, b = 2.0f * v - 1.0f, r, phi;
    if (a == 0.0f && b == 0.0f) {
        out[0] = out[1] = 0.0f;
        return;
    }
    if (fabsf(a) > fabsf(b)) {
        r = a;
        phi = 0.78539816f * (b / a);
    } else {
        r = b;
        phi = 1.57079633f - 0.78539816f * (a / b);
    }
    out[0] = r * cosf(phi);
    out[1] = r * sinf(phi);
}

bool bake_unit(const float in[3], float out[3])
{
    float len = sqrtf(in[0] * in[0] + in[1] * in[1] + in[2] * in[2]);
    if (!(len > 0.0f))
        return false;
    for (int a = 0; a < 3; a++)
        out[a] = in[a] / len;
    return true;
}

void sample_basis(const float n[3], float t[3], float b[3])
{
    float hint[3] = { fabsf(n[1]) < 0.9f ? 0.0f : 1.0f, fabsf(n[1]) < 0.9f ? 1.0f : 0.0f, 0.0f };
    t[0] = hint[1] * n[2] - hint[2] * n[1];
    t[1] = hint[2] * n[0] - hint[0] * n[2];
    t[2] = hint[0] * n[1] - hint[1] * n[0];
    float len = sqrtf(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
    for (int a = 0; a < 3; a++)
        t[a] /= len;
    b[0] = n[1] * t[2] - n[2] * t[1];
    b[1] = n[2] * t[0] - n[0] * t[2];
    b[2] = n[0] * t[1] - n[1] * t[0];
}

void sample_cosine(const float n[3], const float t[3], const float b[3], float u, float v, float dir[3])
{
    float d[2];
    sample_disc(u, v, d);
    float w = sqrtf(fmaxf(0.0f, 1.0f - d[0] * d[0] - d[1] * d[1]));
    for (int a = 0; a < 3; a++)
        dir[a] = t[a] * d[0] + b[a] * d[1] + n[a] * w;
}
