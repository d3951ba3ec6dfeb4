/* compile_levels.h - the back end's driver for one level: its chunks built, baked and encoded
 * window by window (a generated city a tile at a time, tiles side by side as memory allows) and
 * written in order; the progress and the stage timings. */
#ifndef PMFC_COMPILE_LEVELS_H
#define PMFC_COMPILE_LEVELS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/level_build.h"
#include "pmfc.h"

enum { STAGE_PARSE, STAGE_GEOMETRY, STAGE_CHUNKS, STAGE_UNWRAP, STAGE_BAKE, STAGE_VIS, STAGE_ENCODE, STAGE_WRITE, STAGE_COUNT };

/* The compile's progress, passed on to its callback once a percent or the stage changed. */
typedef struct progress_state {
    pthread_mutex_t lock;
    void (*report)(void *user, const pmfc_progress *p); /* NULL = none */
    void *user;
    int level, levels;
    int tile, tiles;
    int last_percent;
    const char *last_stage;
} progress_state;

/* The progress callback the stages report through (bake, visibility, encode); user: progress_state.
 * It may be called under a lock of the worker pool's: it never fails. */
void progress_report(void *user, const char *stage, double fraction);

typedef struct level_totals { uint64_t chunks, cubes, verts, lightmaps, dropped; } level_totals;

typedef struct compile_level_desc {
    const char *label;        /* the source, for memory messages */
    bool city;                /* a generated city: built a tile at a time when it has no visibility */
    uint32_t tile;            /* the tile side, chunks */
    int threads;              /* 0 = every core */
} compile_level_desc;

/* Builds the laid-out level into w. Stage times and totals are added to. False on failure (said
 * through session.h). */
bool compile_level(const level_build *layout, pmf_writer *w, const compile_level_desc *desc, progress_state *ps,
                   double times[STAGE_COUNT], level_totals *totals);

#endif
