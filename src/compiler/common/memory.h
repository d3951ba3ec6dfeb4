/* memory.h - the compiler's allocations (memory.c): growable arrays, and every block accounted
 * against the memory budget. */
#ifndef PMFC_MEMORY_H
#define PMFC_MEMORY_H

#include <stddef.h>
#include <stdint.h>

/* Grows a dynamic array by one zeroed element and returns it (ends the compile on out of memory). */
void *grow(void **items, size_t *count, size_t *cap, size_t size);
#define PUSH(arr, count, cap) grow((void **)&(arr), &(count), &(cap), sizeof *(arr))
/* The front end's allocations, accounted against the memory budget (memory.c): out of memory
 * exits 3, over the budget exits 2 naming it. What they return is freed with xfree. */
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
void xfree(void *p);
/* Budget for the bytes of a buffer another allocator makes (the baker's, the encoder's), taken
 * as xmalloc would; given back with memory_give. */
void memory_take(uint64_t bytes, const char *what);
void memory_give(uint64_t bytes);
/* Ends the compile over the budget: bytes more were needed (0 = unknown) for what (NULL = the
 * stage's work). One line, status 2. */
_Noreturn void memory_over_budget(uint64_t bytes, const char *what);
/* What pmfc is building, for the over-budget line: the source file (and the line of the level's
 * definition, 0 = none; NULL keeps them) and the stage. The compile's (one a process, pmfc.h); the
 * stage is a static string. */
void memory_where(const char *source, int line, const char *stage);

#endif
