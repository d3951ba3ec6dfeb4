/* bake_internal.h - what the baker's own files (bake.c, bake_sample.c, vis.c, jobs.c) share; not for the front end. */
#ifndef PMFC_BAKE_INTERNAL_H
#define PMFC_BAKE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

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

/* ---- sampling (bake_sample.c) ---- */

uint32_t sample_hash(uint32_t x);
/* Point k of a luxel's own low-discrepancy sequence in [0, 1)^4 (seed: the luxel's hash). */
void sample_point(uint32_t seed, uint32_t k, float out[4]);
/* The unit square onto the unit disc, area-preserving. */
void sample_disc(float u, float v, float out[2]);
/* Unit t, b with (t, b, n) orthonormal, for unit n. */
void sample_basis(const float n[3], float t[3], float b[3]);
/* The unit square onto the half-sphere around n, in proportion to cos theta. */
void sample_cosine(const float n[3], const float t[3], const float b[3], float u, float v, float dir[3]);

#endif
