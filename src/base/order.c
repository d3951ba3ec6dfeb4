/* order.c - qsort comparators of plain values (order.h). */
#include "order.h"

#include <stdint.h>

/* Ascending; -1, 0 or 1 without the overflow a subtraction has. */
#define ORDER_BY(type) \
    type x = *(const type *)a, y = *(const type *)b; \
    return x < y ? -1 : x > y

int order_u32(const void *a, const void *b) { ORDER_BY(uint32_t); }
int order_u64(const void *a, const void *b) { ORDER_BY(uint64_t); }
int order_float(const void *a, const void *b) { ORDER_BY(float); }
int order_double(const void *a, const void *b) { ORDER_BY(double); }
