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

/* The 4-D R-sequence (Roberts): point k is frac(offset + k alpha), alpha_i = 1 / phi4^i with phi4
 * the root of x^5 = x + 1. Every prefix is well spread, so refining a luxel only adds points. */
void sample_point(uint32_t seed, uint32_t k, float out[4])
{
    static const double alpha[4] = { 0.8566748838545029, 0.7338918566271260, 0.6287067210378086, 0.5385972572236101 };
    for (int d = 0; d < 4; d++) {
        double offset = (double)(sample_hash(seed + 0x9e3779b9u * (uint32_t)(d + 1)) >> 8) / 16777216.0;
        double v = offset + (double)k * alpha[d];
        out[d] = (float)(v - floor(v));
    }
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
