/* bake_internal.h - what the baker's own files (bake.c, vis.c, jobs.c) share; not for the front end. */
#ifndef PMFC_BAKE_INTERNAL_H
#define PMFC_BAKE_INTERNAL_H

#include <stddef.h>

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
