/* order.h - the small ordering helpers every layer used to write for itself: qsort comparators of
 * plain values (ascending) and the smaller or larger of two numbers. The min / max are plain
 * comparisons, not fminf / fmaxf: no libm NaN rules, so they compile to one instruction in the
 * hot loops (a BVH build, the visibility sweep). */
#ifndef PMFVIEW_BASE_ORDER_H
#define PMFVIEW_BASE_ORDER_H

#include <stddef.h>

int order_u32(const void *a, const void *b);
int order_u64(const void *a, const void *b);
int order_float(const void *a, const void *b);
int order_double(const void *a, const void *b);

/* qsort's interface, but stable (equal elements keep their order), as glibc's qsort is (a merge
 * sort): the same order on every C library, so pmfc's output bytes do not depend on the system
 * it runs on (Windows' qsort is not stable). */
void order_sort(void *base, size_t count, size_t size, int (*compare)(const void *, const void *));

static inline float min_float(float a, float b) { return a < b ? a : b; }
static inline float max_float(float a, float b) { return a > b ? a : b; }
static inline double min_double(double a, double b) { return a < b ? a : b; }
static inline double max_double(double a, double b) { return a > b ? a : b; }

#endif
