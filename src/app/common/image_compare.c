/* image_compare.c - the signed difference picture of two renders (image_compare.h). */
#include "image_compare.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static double luma(const uint8_t *p)
{
    return 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
}

static uint8_t ramp(int from, int to, double t)
{
    return (uint8_t)lround(from + (to - from) * t);
}

void image_compare(const uint8_t *a, const uint8_t *b, size_t pixel_count, uint8_t *out, image_compare_stats *stats)
{
    static const int warm[2][3] = { { 96, 32, 0 }, { 255, 220, 0 } };
    static const int cold[2][3] = { { 0, 32, 96 }, { 0, 220, 255 } };
    memset(stats, 0, sizeof *stats);
    stats->pixels = pixel_count;
    double sum = 0;
    for (size_t i = 0; i < pixel_count; i++) {
        const uint8_t *pa = a + i * 4, *pb = b + i * 4;
        uint8_t *o = out + i * 4;
        int d = 0;
        for (int k = 0; k < 3; k++) {
            int c = pa[k] > pb[k] ? pa[k] - pb[k] : pb[k] - pa[k];
            if (c > d)
                d = c;
        }
        if (d > stats->max_difference)
            stats->max_difference = d;
        o[3] = 255;
        double la = luma(pa);
        if (d <= IMAGE_COMPARE_TOLERANCE) {
            o[0] = o[1] = o[2] = (uint8_t)lround(0.25 * la);
            continue;
        }
        stats->changed++;
        sum += d;
        bool brighter = luma(pb) >= la;
        if (brighter)
            stats->brighter++;
        else
            stats->darker++;
        const int (*scale)[3] = brighter ? warm : cold;
        double t = (d < 64 ? d : 64) / 64.0;
        for (int k = 0; k < 3; k++)
            o[k] = ramp(scale[0][k], scale[1][k], t);
    }
    stats->mean_difference = stats->changed ? sum / (double)stats->changed : 0.0;
}

void image_compare_format(const image_compare_stats *s, char *buf, size_t size)
{
    snprintf(buf, size, "changed pixels: %llu of %llu (%.3f%%), brighter %llu, darker %llu, max difference %d, mean difference %.2f",
             (unsigned long long)s->changed, (unsigned long long)s->pixels,
             s->pixels ? 100.0 * (double)s->changed / (double)s->pixels : 0.0, (unsigned long long)s->brighter,
             (unsigned long long)s->darker, s->max_difference, s->mean_difference);
}
