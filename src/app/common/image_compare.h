/* image_compare.h - where two renders of the same view differ (`pmfview shot A --compare B`, the
 * window's difference mode; docs/viewer.md "Comparing two compiles"), as a signed colour picture
 * and changed-pixel figures. Pure CPU, no GL.
 *
 * Per pixel: d = the largest channel difference |B - A| (0..255); the pixel changed when d >
 * IMAGE_COMPARE_TOLERANCE (the renderer's run-to-run noise is 1: lightmap blocks land on atlas
 * places in the order stream workers finish). The sign is that of luma(B) - luma(A) (Rec. 709
 * weights): B as bright or brighter = warm, darker = cold, stronger with d:
 *   unchanged       grey round(0.25 × luma(A))            (the scene, dimmed, for orientation)
 *   brighter in B   (96, 32, 0) → (255, 220, 0) as t = min(d, 64) / 64 goes 0 → 1
 *   darker in B     (0, 32, 96) → (0, 220, 255)
 * linear in t per channel, rounded. */
#ifndef PMFVIEW_APP_IMAGE_COMPARE_H
#define PMFVIEW_APP_IMAGE_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#define IMAGE_COMPARE_TOLERANCE 2

typedef struct image_compare_stats {
    uint64_t pixels;                 /* compared */
    uint64_t changed;                /* d > IMAGE_COMPARE_TOLERANCE */
    uint64_t brighter, darker;       /* of the changed: luma(B) >= luma(A), luma(B) < luma(A) */
    int max_difference;              /* largest d over all pixels */
    double mean_difference;          /* mean d over the changed pixels (0 when none) */
} image_compare_stats;

/* a, b: RGBA8 (alpha ignored), the same size; out: RGBA8 (alpha 255), may alias neither. */
void image_compare(const uint8_t *a, const uint8_t *b, size_t pixel_count, uint8_t *out, image_compare_stats *stats);

/* The one-line summary `shot --compare` prints on stdout:
 * "changed pixels: N of T (P%), brighter B, darker D, max difference M, mean difference X" */
void image_compare_format(const image_compare_stats *stats, char *buf, size_t size);

#endif
