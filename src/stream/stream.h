/* stream.h - streams a level's chunks around the camera on worker threads.
 *
 * Workers (cores - 1, at least 1) read, decompress and decode chunks (common + client + server)
 * nearest the camera's chunk first — chunks inside the view frustum before the others — within
 * a radius in chunks; each decoded chunk is handed to desc.prepare (on the worker: meshing) and
 * the result is queued for the main thread, which takes it with stream_poll() and uploads it
 * within its own per-frame budget. Chunks beyond radius + hysteresis are evicted (the main thread
 * learns which with stream_poll_evictions), so memory depends on the radius, not the map. The
 * load regions (server chunk data) of the camera's chunk that hold the camera prefetch their
 * listed chunks. A chunk that fails to decode is reported once (stream_item.failed) and skipped.
 */
#ifndef PMFVIEW_STREAM_H
#define PMFVIEW_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmf.h"

typedef struct stream stream;

#define STREAM_DEFAULT_RADIUS 8      /* chunks, when stream_desc.radius is 0 */
#define STREAM_MAX_RADIUS 64         /* the most --radius takes */
#define STREAM_DEFAULT_HYSTERESIS 2  /* chunks past the radius before a resident one goes */
#define STREAM_NO_THREADS (-1)       /* stream_desc.workers: everything on the caller's thread */

typedef struct stream_desc {
    const pmf_file *file;
    uint32_t level;
    const pmf_level *lvl;            /* decoded with at least PMF_PART_COMMON; outlives the stream */
    int workers;                     /* 0 = cores - 1, at least 1; STREAM_NO_THREADS = none: the
                                      * caller does the work with stream_work */
    int radius;                      /* chunks (Chebyshev distance); 0 = STREAM_DEFAULT_RADIUS */
    int hysteresis;                  /* extra chunks before eviction; 0 = STREAM_DEFAULT_HYSTERESIS */
    /* On a worker thread: turns a decoded chunk into a payload for the main thread. Takes
     * ownership of *chunk (free it or keep it). Returns NULL and fills err on failure. */
    void *(*prepare)(void *user, pmf_chunk *chunk, char *err, size_t err_size);
    /* Frees a payload the main thread never took (at eviction or destroy). May run on a worker
     * or the main thread with the streamer's lock held: keep it short, don't call the streamer.
     * NULL = nothing to free. */
    void (*release)(void *user, void *payload);
    void *user;
} stream_desc;

typedef struct stream_item {
    pmf_chunk_coord coord;
    void *payload;                   /* NULL when failed */
    bool failed;
    bool over_budget;                /* failed because the memory budget (pmf_budget.h) was spent */
    char error[320];                 /* pmf_error_format text when failed */
} stream_item;

typedef struct stream_stats {
    uint32_t resident;               /* delivered and not evicted */
    uint32_t queued, in_flight, ready;
    uint32_t failed;                 /* failed chunks held: reported, or waiting in the ready queue */
    double decode_seconds;           /* CPU summed over workers: read + LZ4F + decode */
    double prepare_seconds;          /* CPU summed over workers: desc.prepare */
    uint32_t decoded;                /* chunks the workers have read (decode_seconds covers them) */
    uint32_t records;                /* chunks the streamer tracks: bounded by the radius, not the map */
    uint32_t record_capacity;        /* slots of its chunk hash map */
    uint64_t candidate_visits;       /* grid positions examined by view updates since stream_create */
} stream_stats;

/* NULL when threads cannot be started. */
stream *stream_create(const stream_desc *desc);
/* Joins the workers and releases every payload still held. */
void stream_destroy(stream *s);

/* Re-prioritises around the camera: its chunk, its position inside that chunk (chunk-local
 * metres) and the view frustum as 6 planes (a x + b y + c z + d >= 0 inside) in coordinates
 * relative to the camera chunk's centre (NULL = no frustum: distance order only). */
void stream_set_view(stream *s, pmf_chunk_coord camera_chunk, const float camera_local[3],
                     const float (*frustum)[4]);

/* Reads, decodes and prepares queued chunks on the calling thread, nearest first, until budget_ms
 * milliseconds have passed (at least one chunk when any is queued): the work of the workers
 * where there are none (STREAM_NO_THREADS; a page without threads). Returns how many. */
size_t stream_work(stream *s, double budget_ms);

/* Main thread: takes up to max finished chunks (nearest first). Returns how many. */
size_t stream_poll(stream *s, stream_item *out, size_t max);
/* Main thread: chunks that left radius + hysteresis since the last call; drop their GPU data. */
size_t stream_poll_evictions(stream *s, pmf_chunk_coord *out, size_t max);

/* True when every present chunk within the radius that intersects the frustum given to
 * stream_set_view has been delivered (taken by stream_poll) or has failed. */
bool stream_view_complete(const stream *s);
/* The radius the stream keeps, in chunks (stream_desc.radius with its default resolved). */
int stream_radius(const stream *s);
/* True when every present chunk within the radius has been delivered or has failed. */
bool stream_radius_complete(const stream *s);

void stream_get_stats(const stream *s, stream_stats *out);

#endif
