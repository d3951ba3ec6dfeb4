/* grow.h - room in a growable array: the capacity doubles (from 16) until need items fit, so
 * that appending n items costs O(n) copies. */
#ifndef BASE_GROW_H
#define BASE_GROW_H

#include <stdbool.h>
#include <stddef.h>

/* Makes *items (capacity *cap items of item_size bytes) hold at least need items. False when out
 * of memory (or the size overflows), the array as it was. */
bool grow_array(void **items, size_t *cap, size_t need, size_t item_size);
/* The same, the memory taken from the budget (pmf_budget.h). */
bool grow_array_budget(void **items, size_t *cap, size_t need, size_t item_size);

#endif
