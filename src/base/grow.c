/* grow.c - room in a growable array (grow.h). */
#include <stdint.h>
#include <stdlib.h>

#include "grow.h"
#include "pmf_budget.h"

static bool grow_with(void **items, size_t *cap, size_t need, size_t item_size, void *(*reallocate)(void *, size_t))
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap : 16;
    while (n < need) {
        if (n > SIZE_MAX / 2)
            return false;
        n *= 2;
    }
    if (item_size && n > SIZE_MAX / item_size)
        return false;
    void *grown = reallocate(*items, n * item_size);
    if (!grown)
        return false;
    *items = grown;
    *cap = n;
    return true;
}

bool grow_array(void **items, size_t *cap, size_t need, size_t item_size)
{
    return grow_with(items, cap, need, item_size, realloc);
}

bool grow_array_budget(void **items, size_t *cap, size_t need, size_t item_size)
{
    return grow_with(items, cap, need, item_size, pmf_budget_realloc);
}
