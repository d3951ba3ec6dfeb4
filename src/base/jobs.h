/* jobs.h - the worker pool for CPU-bound loops: the baker's, the compiler's (parallel chunk
 * encoding), the BVH build and full validation of a PMF (pmf_validate). */
#ifndef BASE_JOBS_H
#define BASE_JOBS_H

#include <stddef.h>

/* Runs fn(user, i) for i in [0, count) on `threads` threads (0 = every core) and waits.
 * When the calling thread has an escape point (escape.h), its workers take on its stop flag and
 * memory ledger (pmf_budget.h): an item that escapes, or a stop flag seen between items, ends the
 * loop, which then escapes on the calling thread once the items begun have ended. */
void jobs_parallel_for(size_t count, int threads, void (*fn)(void *user, size_t i), void *user);
/* The number of threads `threads` stands for (0 = every core). */
int jobs_thread_count(int threads);

typedef struct jobs_progress {
    void (*fn)(void *user, const char *stage, double fraction);    /* NULL = no reports */
    void *user;
    const char *stage;
} jobs_progress;

/* jobs_parallel_for that also reports the stage's progress: 0 first, 1 last, and about every
 * percent between. Reports never overlap (they are serialised), but may come from any thread. */
void jobs_parallel_for_progress(size_t count, int threads, void (*fn)(void *user, size_t i), void *user,
                                const jobs_progress *progress);

/* Reports 0 or 1 for a stage done on the calling thread alone. */
void jobs_report(const jobs_progress *progress, double fraction);

#endif
