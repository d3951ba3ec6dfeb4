/* image_reduce.c - row-at-a-time box reduction of decoded images (image_reduce.h). */
#include <stdlib.h>
#include <string.h>

#include "image_reduce.h"
#include "base/pmf_budget.h"

bool image_reducer_init(image_reducer *r, uint32_t width, uint32_t height, uint32_t max_side)
{
    memset(r, 0, sizeof *r);
    r->width = width;
    r->height = height;
    r->fx = r->fy = 1;
    if (max_side < 1)
        max_side = 1;
    while ((width + r->fx - 1) / r->fx > max_side)
        r->fx *= 2;
    while ((height + r->fy - 1) / r->fy > max_side)
        r->fy *= 2;
    r->out_width = (width + r->fx - 1) / r->fx;
    r->out_height = (height + r->fy - 1) / r->fy;
    uint64_t out_bytes = (uint64_t)r->out_width * r->out_height * 4;
    uint64_t sum_bytes = r->fx * r->fy > 1 ? (uint64_t)r->out_width * 4 * sizeof *r->sums : 0;
    if (!pmf_budget_take(out_bytes + sum_bytes))
        return false;
    r->charged = out_bytes + sum_bytes;
    r->out = malloc(out_bytes ? out_bytes : 1);
    r->sums = sum_bytes ? calloc(1, sum_bytes) : NULL;
    if (!r->out || (sum_bytes && !r->sums)) {
        image_reducer_free(r);
        return false;
    }
    return true;
}

void image_reducer_add(image_reducer *r, const uint8_t *rgba_row)
{
    if (r->rows_in >= r->height)
        return;
    uint32_t y = r->rows_in++;
    if (r->fx == 1 && r->fy == 1) {
        memcpy(r->out + (size_t)y * r->width * 4, rgba_row, (size_t)r->width * 4);
        return;
    }
    for (uint32_t x = 0; x < r->width; x++)
        for (int c = 0; c < 4; c++)
            r->sums[(x / r->fx) * 4 + c] += rgba_row[(size_t)x * 4 + c];
    bool band_done = (y + 1) % r->fy == 0 || y + 1 == r->height;
    if (!band_done)
        return;
    uint32_t band_rows = y % r->fy + 1;
    uint8_t *row = r->out + (size_t)(y / r->fy) * r->out_width * 4;
    for (uint32_t ox = 0; ox < r->out_width; ox++) {
        uint32_t cols = ox + 1 < r->out_width ? r->fx : r->width - ox * r->fx;
        uint64_t count = (uint64_t)cols * band_rows;
        for (int c = 0; c < 4; c++)
            row[ox * 4 + c] = (uint8_t)((r->sums[ox * 4 + c] + count / 2) / count);
    }
    memset(r->sums, 0, (size_t)r->out_width * 4 * sizeof *r->sums);
}

uint8_t *image_reducer_take(image_reducer *r)
{
    uint8_t *out = r->out;
    r->out = NULL;
    image_reducer_free(r);
    return out;
}

void image_reducer_free(image_reducer *r)
{
    free(r->out);
    free(r->sums);
    pmf_budget_give(r->charged);
    memset(r, 0, sizeof *r);
}
