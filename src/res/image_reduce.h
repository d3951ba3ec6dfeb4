/* image_reduce.h - an image taken a row at a time and box-filtered down (by powers of two on each
 * side) until both sides fit a limit, so a decoder never holds more than one band of a huge
 * image: the texels kept and what summing them takes, both charged to the memory budget. An
 * image that fits passes through unchanged. No GL. */
#ifndef PMF_RES_IMAGE_REDUCE_H
#define PMF_RES_IMAGE_REDUCE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct image_reducer {
    uint32_t width, height;          /* of the rows that come in */
    uint32_t fx, fy;                 /* texels per box on each side: powers of two */
    uint32_t out_width, out_height;  /* ceil(width / fx), ceil(height / fy) */
    uint32_t rows_in;
    uint64_t *sums;                  /* out_width x 4 channel sums of the band under way */
    uint8_t *out;                    /* out_width x out_height RGBA8 */
    uint64_t charged;                /* what it holds of the memory budget */
} image_reducer;

/* Sizes the boxes for an image of width x height that must come out at most max_side a side.
 * False when the memory budget cannot hold the result (nothing held then). */
bool image_reducer_init(image_reducer *r, uint32_t width, uint32_t height, uint32_t max_side);
/* The next row: width RGBA8 texels. The last box of a row or column averages the texels it has. */
void image_reducer_add(image_reducer *r, const uint8_t *rgba_row);
/* Once every row is in: the reduced texels (malloc'd; the caller frees them, and the budget no
 * longer counts them). */
uint8_t *image_reducer_take(image_reducer *r);
void image_reducer_free(image_reducer *r);

#endif
