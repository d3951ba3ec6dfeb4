/* order.c - qsort comparators of plain values (order.h). */
#include "order.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Ascending; -1, 0 or 1 without the overflow a subtraction has. */
#define ORDER_BY(type) \
    type x = *(const type *)a, y = *(const type *)b; \
    return x < y ? -1 : x > y

int order_u32(const void *a, const void *b) { ORDER_BY(uint32_t); }
int order_u64(const void *a, const void *b) { ORDER_BY(uint64_t); }
int order_float(const void *a, const void *b) { ORDER_BY(float); }
int order_double(const void *a, const void *b) { ORDER_BY(double); }

/* Merges the sorted runs [lo, mid) and [mid, hi) of a through tmp (the left run wins ties). */
static void merge_runs(char *a, char *tmp, size_t lo, size_t mid, size_t hi, size_t size,
                       int (*compare)(const void *, const void *))
{
    size_t i = lo, j = mid, o = lo;
    while (i < mid && j < hi) {
        if (compare(a + j * size, a + i * size) < 0)
            memcpy(tmp + o++ * size, a + j++ * size, size);
        else
            memcpy(tmp + o++ * size, a + i++ * size, size);
    }
    memcpy(tmp + o * size, a + i * size, (mid - i) * size);
    o += mid - i;
    memcpy(tmp + o * size, a + j * size, (hi - j) * size);
    memcpy(a + lo * size, tmp + lo * size, (hi - lo) * size);
}

void order_sort(void *base, size_t count, size_t size, int (*compare)(const void *, const void *))
{
    if (count < 2 || !size)
        return;
    char *a = base, *tmp = malloc(count * size > size ? count * size : size);
    if (!tmp) {
        /* no memory for the merge: insertion sort, stable too, through one element of room */
        char one[256];
        char *slot = size <= sizeof one ? one : NULL;
        for (size_t i = 1; slot && i < count; i++) {
            memcpy(slot, a + i * size, size);
            size_t j = i;
            for (; j > 0 && compare(a + (j - 1) * size, slot) > 0; j--)
                memcpy(a + j * size, a + (j - 1) * size, size);
            memcpy(a + j * size, slot, size);
        }
        if (!slot)
            qsort(base, count, size, compare); /* an element over 256 bytes and no memory: order as the library does */
        return;
    }
    /* bottom-up: runs of 1, 2, 4 ... merged pairwise */
    for (size_t width = 1; width < count; width *= 2)
        for (size_t lo = 0; lo + width < count; lo += 2 * width) {
            size_t mid = lo + width, hi = lo + 2 * width < count ? lo + 2 * width : count;
            if (compare(a + (mid - 1) * size, a + mid * size) > 0)
                merge_runs(a, tmp, lo, mid, hi, size, compare);
        }
    free(tmp);
}
