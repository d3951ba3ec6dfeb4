/* pmf_system.c - the machine's clock and cores (pmf_system.h). */
#include <time.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "pmf_os.h"
#include "pmf_system.h"

double pmf_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int pmf_cores(void)
{
    int cores = pmf_os_processors();
    return cores > 0 ? (cores > 4096 ? 4096 : cores) : 1;
}

void pmf_release_free_memory(void)
{
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

void pmf_tune_allocator(size_t mmap_threshold, size_t trim_threshold)
{
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, (int)mmap_threshold);
    if (trim_threshold)
        mallopt(M_TRIM_THRESHOLD, (int)trim_threshold);
#else
    (void)mmap_threshold;
    (void)trim_threshold;
#endif
}
