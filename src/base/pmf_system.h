/* pmf_system.h - what the programs ask of the machine, asked one way: a monotonic clock, the
 * number of cores online, handing freed memory back. */
#ifndef PMF_SYSTEM_H
#define PMF_SYSTEM_H

#include <stddef.h>
#include <stdlib.h> /* the C library's own macros (__GLIBC__) */

/* Seconds on a monotonic clock (only differences mean anything). */
double pmf_seconds(void);
/* The cores online, at least 1. */
int pmf_cores(void);
/* Hands the allocator's free memory back to the system where the C library can (glibc keeps what
 * worker threads free in per-thread arenas); elsewhere nothing. */
void pmf_release_free_memory(void);
/* Where the C library takes the hint (glibc): blocks of mmap_threshold bytes and more are mapped
 * on their own and go back to the kernel when freed; the heap's free top is kept up to
 * trim_threshold bytes (0: the library's own). Elsewhere nothing. */
void pmf_tune_allocator(size_t mmap_threshold, size_t trim_threshold);

/* A function compiled twice, for AVX2 and for any x86-64, chosen at load time: only where the
 * C library resolves indirect functions (glibc on x86-64); elsewhere one plain build. */
#if defined(__x86_64__) && defined(__GLIBC__) && !defined(__clang_analyzer__)
#define PMF_CLONES_AVX2 __attribute__((target_clones("avx2", "default")))
#else
#define PMF_CLONES_AVX2
#endif

#endif
