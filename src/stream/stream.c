/* stream.c - chunk streaming around the camera on worker threads.
 *
 * How it works (docs/streaming.md says the same for users):
 * - Every chunk the streamer cares about has a record in a hash map keyed by its packed chunk
 *   index. Nothing is allocated or visited per grid cell, so memory and per-frame work follow the
 *   radius, not the map (grids go up to 4096 x 256 x 4096).
 * - A view update (stream_create, stream_set_view) visits only the grid positions within the
 *   radius of the camera chunk, clamped to the grid (and only when the camera chunk changed),
 *   skips void ones through the level's chunk index, and wants every present one. The camera
 *   chunk's decoded load regions that hold the camera want their listed chunks too, wherever
 *   they are. It then sweeps the records it holds (bounded by the radius as well): a queued
 *   chunk no longer wanted is dropped, a resident one beyond radius + hysteresis and not wanted
 *   is evicted, a finished one not yet taken is released, and the work heap is rebuilt with the
 *   new priorities: chunks whose box meets the frustum first, then distance from the camera to
 *   the chunk's box.
 * - Workers pop the top of the heap and decode without the lock, copy the load regions into the
 *   record, hand the chunk to desc.prepare and queue the result; a result whose record became
 *   unwanted meanwhile is released instead.
 * Record states: QUEUED -> IN_FLIGHT -> READY -> (stream_poll) RESIDENT or FAILED. A RESIDENT
 * record that leaves range becomes EVICTED until stream_poll_evictions reports it; wanted again
 * before that, it is simply RESIDENT again (the main thread never dropped it).
 */
#include "pmf_budget.h"
#include "pmf_os.h"
#include "pmf_system.h"
#include "stream.h"
#include "base/order.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { REC_QUEUED, REC_IN_FLIGHT, REC_READY, REC_RESIDENT, REC_FAILED, REC_EVICTED };

typedef struct load_region {
    float min[3], max[3];
    uint32_t chunk_count;
    pmf_chunk_coord *chunks;
} load_region;

typedef struct chunk_record {
    uint32_t key;                /* pmf_chunk_index_pack(coord) */
    pmf_chunk_coord coord;
    uint8_t state;               /* REC_* */
    bool drop;                   /* in flight but unwanted: released when it arrives */
    bool in_radius, in_view;     /* as of the last view update */
    bool decoded;                /* regions below are known */
    bool counted;                /* counts in pending_radius (and pending_view when in_view) */
    uint32_t chebyshev;          /* chunks from the camera chunk */
    uint32_t wanted_gen;         /* view generation that last wanted it */
    double distance;             /* camera to chunk box, metres */
    void *payload;               /* READY only; the main thread owns it once polled */
    bool failed;
    bool over_budget;            /* failed because the memory budget was spent (retried after eviction) */
    char *error;
    uint32_t region_count;
    load_region *regions;        /* one allocation, the chunk lists follow the array */
} chunk_record;

typedef struct record_list { chunk_record **items; size_t count; } record_list;

/* Open addressing, linear probing; capacity is a power of two and at most half full. */
typedef struct record_map { chunk_record **slots; uint32_t capacity, count; } record_map;

struct stream {
    stream_desc desc;
    const pmf_level_info *info;
    double chunk_side;
    int radius, hysteresis;

    pthread_mutex_t lock;
    pthread_cond_t work_cv;
    pthread_t *threads;
    int thread_count;
    bool stop;

    record_map records;
    /* Every list below can hold every record: the map grows them together, so a push never fails. */
    record_list heap;            /* QUEUED, binary heap by priority */
    record_list ready;           /* READY */
    record_list evicted;         /* EVICTED */
    record_list scratch;         /* records a sweep frees */

    int64_t camera[3];
    int64_t walked_camera[3];    /* camera chunk of the last complete walk of the radius */
    bool walked;
    float camera_local[3];
    float frustum[6][4];
    bool has_frustum;
    uint32_t gen;
    uint32_t pending_radius, pending_view;

    uint32_t in_flight, decoded;
    double decode_seconds, prepare_seconds;
    uint64_t candidate_visits;
};

/* ---- record map ------------------------------------------------------------------------------ */

static uint32_t map_home(const record_map *m, uint32_t key)
{
    /* murmur3 finaliser: chunk keys are dense in their low bits */
    key ^= key >> 16; key *= 0x85EBCA6Bu; key ^= key >> 13; key *= 0xC2B2AE35u; key ^= key >> 16;
    return key & (m->capacity - 1);
}

static chunk_record *map_find(const record_map *m, uint32_t key)
{
    for (uint32_t i = map_home(m, key);; i = (i + 1) & (m->capacity - 1)) {
        if (!m->slots[i] || m->slots[i]->key == key)
            return m->slots[i];
    }
}

static void map_place(record_map *m, chunk_record *rec)
{
    uint32_t i = map_home(m, rec->key);
    while (m->slots[i])
        i = (i + 1) & (m->capacity - 1);
    m->slots[i] = rec;
}

static void map_remove(record_map *m, const chunk_record *rec)
{
    uint32_t mask = m->capacity - 1, i = map_home(m, rec->key);
    while (m->slots[i] != rec)
        i = (i + 1) & mask;
    /* backward-shift deletion keeps every probe chain unbroken without tombstones */
    for (uint32_t j = (i + 1) & mask; m->slots[j]; j = (j + 1) & mask) {
        uint32_t home = map_home(m, m->slots[j]->key);
        bool movable = (i <= j) ? (home <= i || home > j) : (home <= i && home > j);
        if (movable) {
            m->slots[i] = m->slots[j];
            i = j;
        }
    }
    m->slots[i] = NULL;
    m->count--;
}

static bool list_reserve(record_list *l, size_t capacity)
{
    chunk_record **items = realloc(l->items, capacity * sizeof *items);
    if (!items)
        return false;
    l->items = items;
    return true;
}

/* Makes room for one more record in the map and in every list. */
static bool records_reserve(stream *s)
{
    record_map *m = &s->records;
    if ((m->count + 1) * 2 <= m->capacity)
        return true;
    uint32_t capacity = m->capacity ? m->capacity * 2 : 256;
    if (!list_reserve(&s->heap, capacity) || !list_reserve(&s->ready, capacity) ||
        !list_reserve(&s->evicted, capacity) || !list_reserve(&s->scratch, capacity))
        return false;
    chunk_record **old = m->slots;
    uint32_t old_capacity = m->capacity;
    m->slots = calloc(capacity, sizeof *m->slots);
    if (!m->slots) {
        m->slots = old;
        return false;
    }
    m->capacity = capacity;
    for (uint32_t i = 0; i < old_capacity; i++) {
        if (old[i])
            map_place(m, old[i]);
    }
    free(old);
    return true;
}

static void record_free(chunk_record *rec)
{
    free(rec->error);
    free(rec->regions);
    free(rec);
}

/* ---- priority ---------------------------------------------------------------------------------- */

/* Distance, frustum test and radius flag of rec for the current view. */
static void record_place(stream *s, chunk_record *rec)
{
    const int64_t d[3] = { (int64_t)rec->coord.x - s->camera[0], (int64_t)rec->coord.y - s->camera[1],
                           (int64_t)rec->coord.z - s->camera[2] };
    int64_t chebyshev = 0;
    double lo[3], hi[3], sq = 0.0;
    for (int a = 0; a < 3; a++) {
        int64_t ad = d[a] < 0 ? -d[a] : d[a];
        if (ad > chebyshev)
            chebyshev = ad;
        lo[a] = ((double)d[a] - 0.5) * s->chunk_side;
        hi[a] = ((double)d[a] + 0.5) * s->chunk_side;
        double p = s->camera_local[a], gap = p < lo[a] ? lo[a] - p : p > hi[a] ? p - hi[a] : 0.0;
        sq += gap * gap;
    }
    rec->distance = sqrt(sq);
    rec->chebyshev = chebyshev > UINT32_MAX ? UINT32_MAX : (uint32_t)chebyshev;
    rec->in_radius = chebyshev <= s->radius;
    rec->in_view = true;
    for (int i = 0; s->has_frustum && i < 6; i++) {
        const float *pl = s->frustum[i];
        double v = pl[3];
        for (int a = 0; a < 3; a++)
            v += pl[a] * (pl[a] >= 0.0f ? hi[a] : lo[a]);
        if (v < 0.0) {
            rec->in_view = false;
            break;
        }
    }
}

static bool record_before(const chunk_record *a, const chunk_record *b)
{
    if (a->in_view != b->in_view)
        return a->in_view;
    if (a->distance != b->distance)
        return a->distance < b->distance;
    return a->key < b->key;
}

static void heap_sift_down(record_list *h, size_t i)
{
    for (;;) {
        size_t best = i, l = 2 * i + 1, r = l + 1;
        if (l < h->count && record_before(h->items[l], h->items[best]))
            best = l;
        if (r < h->count && record_before(h->items[r], h->items[best]))
            best = r;
        if (best == i)
            return;
        chunk_record *t = h->items[i];
        h->items[i] = h->items[best];
        h->items[best] = t;
        i = best;
    }
}

static void heap_push(record_list *h, chunk_record *rec)
{
    size_t i = h->count++;
    h->items[i] = rec;
    while (i > 0 && record_before(h->items[i], h->items[(i - 1) / 2])) {
        chunk_record *t = h->items[i];
        h->items[i] = h->items[(i - 1) / 2];
        h->items[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static chunk_record *heap_pop(record_list *h)
{
    chunk_record *top = h->items[0];
    h->items[0] = h->items[--h->count];
    heap_sift_down(h, 0);
    return top;
}

/* ---- wanting chunks ------------------------------------------------------------------------------ */

static bool chunk_present(const pmf_level_info *info, uint32_t x, uint32_t y, uint32_t z)
{
    if (x >= info->count_x || y >= info->count_y || z >= info->count_z)
        return false;
    const pmf_chunk_loc *loc = &info->chunks[pmf_grid_index(info, x, y, z)];
    return loc->compressed[0] | loc->compressed[1] | loc->compressed[2];
}

/* Marks a present chunk wanted by the current view; a new record starts QUEUED (not yet in the
 * heap: *created tells the caller to push it). NULL when out of memory. */
static chunk_record *want_chunk(stream *s, pmf_chunk_coord c, bool *created)
{
    uint32_t key = pmf_chunk_index_pack(c);
    chunk_record *rec = map_find(&s->records, key);
    *created = false;
    if (!rec) {
        if (!records_reserve(s) || !(rec = calloc(1, sizeof *rec)))
            return NULL;
        rec->key = key;
        rec->coord = c;
        rec->state = REC_QUEUED;
        map_place(&s->records, rec);
        s->records.count++;
        record_place(s, rec);
        *created = true;
    }
    rec->drop = false;
    if (rec->state == REC_EVICTED)
        rec->state = REC_RESIDENT;
    rec->wanted_gen = s->gen;
    return rec;
}

/* The camera chunk's load regions that hold the camera want their listed chunks. New records are
 * pushed on the heap when push is set (a worker's call; a view update rebuilds the heap). */
static void want_load_regions(stream *s, const chunk_record *camera_rec, bool push)
{
    for (uint32_t r = 0; r < camera_rec->region_count; r++) {
        const load_region *reg = &camera_rec->regions[r];
        bool inside = true;
        for (int a = 0; a < 3; a++)
            inside = inside && s->camera_local[a] >= reg->min[a] && s->camera_local[a] <= reg->max[a];
        for (uint32_t i = 0; inside && i < reg->chunk_count; i++) {
            pmf_chunk_coord c = reg->chunks[i];
            bool created;
            if (!chunk_present(s->info, c.x, c.y, c.z))
                continue;
            chunk_record *rec = want_chunk(s, c, &created);
            if (rec && created && push) {
                heap_push(&s->heap, rec);
                pthread_cond_signal(&s->work_cv);
            }
        }
    }
}

/* The camera chunk's record; NULL when it has none or the camera is off the grid. */
static chunk_record *camera_record(const stream *s)
{
    const pmf_level_info *info = s->info;
    if (s->camera[0] >= info->count_x || s->camera[1] >= info->count_y || s->camera[2] >= info->count_z)
        return NULL;
    pmf_chunk_coord c = { (uint32_t)s->camera[0], (uint32_t)s->camera[1], (uint32_t)s->camera[2] };
    return map_find(&s->records, pmf_chunk_index_pack(c));
}

/* The view update described at the top of the file. Called with the lock held. */
static void view_update(stream *s)
{
    const pmf_level_info *info = s->info;
    const int64_t r = s->radius, keep_radius = (int64_t)s->radius + s->hysteresis;
    const int64_t count[3] = { info->count_x, info->count_y, info->count_z };
    int64_t lo[3], hi[3];
    bool created;

    s->gen++;
    /* Around an unchanged camera chunk the walk would find nothing new: the last one made a record
     * for every present chunk within the radius, and such records are never freed meanwhile. */
    if (!s->walked || memcmp(s->walked_camera, s->camera, sizeof s->camera) != 0) {
        bool complete = true;
        for (int a = 0; a < 3; a++) {
            lo[a] = s->camera[a] - r < 0 ? 0 : s->camera[a] - r;
            hi[a] = s->camera[a] + r > count[a] - 1 ? count[a] - 1 : s->camera[a] + r;
        }
        for (int64_t y = lo[1]; y <= hi[1]; y++) {
            for (int64_t x = lo[0]; x <= hi[0]; x++) {
                for (int64_t z = lo[2]; z <= hi[2]; z++) {
                    s->candidate_visits++;
                    if (chunk_present(info, (uint32_t)x, (uint32_t)y, (uint32_t)z)) {
                        pmf_chunk_coord c = { (uint32_t)x, (uint32_t)y, (uint32_t)z };
                        complete &= want_chunk(s, c, &created) != NULL;
                    }
                }
            }
        }
        s->walked = complete; /* out of memory: walk again next time */
        memcpy(s->walked_camera, s->camera, sizeof s->camera);
    }
    const chunk_record *camera_rec = camera_record(s);
    if (camera_rec && camera_rec->decoded)
        want_load_regions(s, camera_rec, false);

    s->heap.count = s->ready.count = s->evicted.count = s->scratch.count = 0;
    s->pending_radius = s->pending_view = 0;
    for (uint32_t i = 0; i < s->records.capacity; i++) {
        chunk_record *rec = s->records.slots[i];
        if (!rec)
            continue;
        record_place(s, rec);
        const bool wanted = rec->wanted_gen == s->gen || rec->in_radius;
        const bool keep = wanted || rec->chebyshev <= keep_radius;
        switch (rec->state) {
        case REC_QUEUED:
            if (wanted)
                s->heap.items[s->heap.count++] = rec;
            else
                s->scratch.items[s->scratch.count++] = rec;
            break;
        case REC_IN_FLIGHT:
            rec->drop = !keep;
            break;
        case REC_READY:
            if (keep) {
                s->ready.items[s->ready.count++] = rec;
            } else {
                if (rec->payload && s->desc.release)
                    s->desc.release(s->desc.user, rec->payload);
                s->scratch.items[s->scratch.count++] = rec;
            }
            break;
        case REC_RESIDENT:
        case REC_EVICTED:
            rec->state = keep ? REC_RESIDENT : REC_EVICTED;
            if (!keep)
                s->evicted.items[s->evicted.count++] = rec;
            break;
        case REC_FAILED:
            if (!keep)
                s->scratch.items[s->scratch.count++] = rec;
            break;
        }
        const bool pending = rec->state == REC_QUEUED || rec->state == REC_IN_FLIGHT || rec->state == REC_READY;
        rec->counted = pending && wanted && rec->in_radius;
        s->pending_radius += rec->counted;
        s->pending_view += rec->counted && rec->in_view;
    }
    for (size_t i = 0; i < s->scratch.count; i++) {
        map_remove(&s->records, s->scratch.items[i]);
        record_free(s->scratch.items[i]);
    }
    for (size_t i = s->heap.count / 2; i-- > 0;)
        heap_sift_down(&s->heap, i);
    if (s->heap.count)
        pthread_cond_broadcast(&s->work_cv);
}

/* ---- workers ---------------------------------------------------------------------------------------- */

/* What a worker made of one chunk, moved into its record under the lock. */
typedef struct chunk_result {
    void *payload;
    char *error;                 /* failed when set */
    bool over_budget;            /* failed because the memory budget was spent */
    uint32_t region_count;
    load_region *regions;
    bool decoded;
    double decode_seconds, prepare_seconds;
} chunk_result;

/* Copies the server data's load regions (the chunk itself goes to desc.prepare). */
static void copy_load_regions(const pmf_chunk *chunk, chunk_result *res)
{
    if (!(chunk->parts & PMF_PART_SERVER) || chunk->server.load_region_count == 0)
        return;
    size_t coords = 0, n = chunk->server.load_region_count;
    for (size_t r = 0; r < n; r++)
        coords += chunk->server.load_regions[r].chunk_count;
    load_region *regions = malloc(n * sizeof *regions + coords * sizeof(pmf_chunk_coord));
    if (!regions)
        return; /* the chunk still streams, it just prefetches nothing */
    pmf_chunk_coord *next = (pmf_chunk_coord *)(regions + n);
    for (size_t r = 0; r < n; r++) {
        const pmf_region *src = &chunk->server.load_regions[r];
        memcpy(regions[r].min, src->min, sizeof regions[r].min);
        memcpy(regions[r].max, src->max, sizeof regions[r].max);
        regions[r].chunk_count = src->chunk_count;
        regions[r].chunks = next;
        if (src->chunk_count)
            memcpy(next, src->chunks, src->chunk_count * sizeof *next);
        next += src->chunk_count;
    }
    res->regions = regions;
    res->region_count = (uint32_t)n;
}

/* Decodes and prepares one chunk; runs without the lock. */
static void worker_process(const stream *s, pmf_chunk_coord coord, chunk_result *res)
{
    pmf_chunk chunk;
    pmf_error err;
    char message[sizeof(((stream_item *)0)->error)] = "";
    memset(&chunk, 0, sizeof chunk);
    memset(res, 0, sizeof *res);

    pmf_budget_clear_refused();
    double t0 = pmf_os_thread_cpu_seconds();
    bool ok = pmf_chunk_read(s->desc.file, s->desc.lvl, s->desc.level, coord, PMF_PART_ALL, &chunk, &err);
    double t1 = pmf_os_thread_cpu_seconds();
    res->decode_seconds = t1 - t0;
    if (!ok) {
        res->error = strdup(pmf_error_format(&err, message, sizeof message));
        res->over_budget = pmf_budget_refused();
        return;
    }
    copy_load_regions(&chunk, res);
    res->decoded = true;
    res->payload = s->desc.prepare(s->desc.user, &chunk, message, sizeof message);
    res->prepare_seconds = pmf_os_thread_cpu_seconds() - t1;
    if (!res->payload) {
        if (!message[0])
            snprintf(message, sizeof message, "chunk (%u,%u,%u): prepare failed", coord.x, coord.y, coord.z);
        res->error = strdup(message);
        res->over_budget = pmf_budget_refused();
    }
}

/* With the lock held: the nearest chunk of the queue, now in flight. */
static chunk_record *take_work(stream *s)
{
    chunk_record *rec = heap_pop(&s->heap);
    rec->state = REC_IN_FLIGHT;
    s->in_flight++;
    return rec;
}

/* With the lock held: what was made of rec, handed to the main thread (or dropped with it). */
static void finish_work(stream *s, chunk_record *rec, const chunk_result *res)
{
    s->in_flight--;
    s->decoded++;
    s->decode_seconds += res->decode_seconds;
    s->prepare_seconds += res->prepare_seconds;
    rec->payload = res->payload;
    rec->failed = res->payload == NULL;
    rec->error = res->error;
    rec->over_budget = res->over_budget;
    rec->regions = res->regions;
    rec->region_count = res->region_count;
    rec->decoded = res->decoded;
    if (rec->drop) {
        if (rec->payload && s->desc.release)
            s->desc.release(s->desc.user, rec->payload);
        map_remove(&s->records, rec);
        record_free(rec);
        return;
    }
    rec->state = REC_READY;
    s->ready.items[s->ready.count++] = rec;
    /* the camera chunk just arrived: its load regions may prefetch now, not at the next view update */
    if (rec->decoded && rec == camera_record(s))
        want_load_regions(s, rec, true);
}

static void *worker_main(void *arg)
{
    stream *s = arg;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (!s->stop && s->heap.count == 0)
            pthread_cond_wait(&s->work_cv, &s->lock);
        if (s->stop)
            break;
        chunk_record *rec = take_work(s);
        pthread_mutex_unlock(&s->lock);
        chunk_result res;
        worker_process(s, rec->coord, &res);
        pthread_mutex_lock(&s->lock);
        finish_work(s, rec, &res);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

size_t stream_work(stream *s, double budget_ms)
{
    double start = pmf_seconds();
    size_t done = 0;
    pthread_mutex_lock(&s->lock);
    while (s->heap.count && (!done || (pmf_seconds() - start) * 1000.0 < budget_ms)) {
        chunk_record *rec = take_work(s);
        pthread_mutex_unlock(&s->lock);
        chunk_result res;
        worker_process(s, rec->coord, &res);
        pthread_mutex_lock(&s->lock);
        finish_work(s, rec, &res);
        done++;
    }
    pthread_mutex_unlock(&s->lock);
    return done;
}

/* ---- public API ---------------------------------------------------------------------------------- */

static void stream_stop_workers(stream *s)
{
    pthread_mutex_lock(&s->lock);
    s->stop = true;
    pthread_cond_broadcast(&s->work_cv);
    pthread_mutex_unlock(&s->lock);
    for (int i = 0; i < s->thread_count; i++)
        pthread_join(s->threads[i], NULL);
    s->thread_count = 0;
}

/* Zero means default: every default of a stream_desc, resolved here and nowhere else. */
static stream_desc stream_desc_defaults(const stream_desc *desc)
{
    stream_desc d = *desc;
    d.radius = d.radius > 0 ? d.radius : STREAM_DEFAULT_RADIUS;
    d.hysteresis = d.hysteresis > 0 ? d.hysteresis : STREAM_DEFAULT_HYSTERESIS;
    if (d.workers == 0) {   /* a core left to the thread that draws */
        int cores = pmf_cores();
        d.workers = cores > 1 ? cores - 1 : 1;
    }
    return d;
}

stream *stream_create(const stream_desc *given)
{
    if (!given || !given->file || !given->lvl || !given->prepare || given->level >= given->file->level_count)
        return NULL;
    stream *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->desc = stream_desc_defaults(given);
    const stream_desc *desc = &s->desc;
    s->info = &desc->file->levels[desc->level];
    s->chunk_side = ldexp(1.0, s->info->chunk_size_exp);
    s->radius = desc->radius;
    s->hysteresis = desc->hysteresis;
    s->camera[0] = s->info->center.x;
    s->camera[1] = s->info->center.y;
    s->camera[2] = s->info->center.z;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->work_cv, NULL);

    int workers = desc->workers > 0 ? desc->workers : 0;
    s->threads = calloc((size_t)workers + 1, sizeof *s->threads);
    if (!s->threads || !records_reserve(s)) {
        stream_destroy(s);
        return NULL;
    }
    pthread_mutex_lock(&s->lock);
    view_update(s);
    pthread_mutex_unlock(&s->lock);
    for (; s->thread_count < workers; s->thread_count++) {
        if (pmf_os_thread_start(&s->threads[s->thread_count], worker_main, s) != 0) {
            stream_destroy(s);
            return NULL;
        }
    }
    return s;
}

void stream_destroy(stream *s)
{
    if (!s)
        return;
    stream_stop_workers(s);
    for (uint32_t i = 0; i < s->records.capacity; i++) {
        chunk_record *rec = s->records.slots[i];
        if (!rec)
            continue;
        if (rec->state == REC_READY && rec->payload && s->desc.release)
            s->desc.release(s->desc.user, rec->payload);
        record_free(rec);
    }
    free(s->records.slots);
    free(s->heap.items);
    free(s->ready.items);
    free(s->evicted.items);
    free(s->scratch.items);
    free(s->threads);
    pthread_cond_destroy(&s->work_cv);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

void stream_set_view(stream *s, pmf_chunk_coord camera_chunk, const float camera_local[3],
                     const float (*frustum)[4])
{
    pthread_mutex_lock(&s->lock);
    s->camera[0] = camera_chunk.x;
    s->camera[1] = camera_chunk.y;
    s->camera[2] = camera_chunk.z;
    for (int a = 0; a < 3; a++)
        s->camera_local[a] = camera_local ? camera_local[a] : 0.0f;
    s->has_frustum = frustum != NULL;
    if (frustum)
        memcpy(s->frustum, frustum, sizeof s->frustum);
    view_update(s);
    pthread_mutex_unlock(&s->lock);
}

static int ready_compare(const void *pa, const void *pb)
{
    const chunk_record *a = *(chunk_record *const *)pa, *b = *(chunk_record *const *)pb;
    if (a->distance != b->distance)
        return a->distance < b->distance ? -1 : 1;
    return a->key < b->key ? -1 : a->key > b->key;
}

size_t stream_poll(stream *s, stream_item *out, size_t max)
{
    pthread_mutex_lock(&s->lock);
    size_t n = s->ready.count < max ? s->ready.count : max;
    if (n)
        order_sort(s->ready.items, s->ready.count, sizeof *s->ready.items, ready_compare);
    for (size_t i = 0; i < n; i++) {
        chunk_record *rec = s->ready.items[i];
        stream_item *item = &out[i];
        item->coord = rec->coord;
        item->payload = rec->payload;
        item->failed = rec->failed;
        item->over_budget = rec->over_budget;
        snprintf(item->error, sizeof item->error, "%s", rec->error ? rec->error : "");
        if (rec->counted) {
            s->pending_radius--;
            s->pending_view -= rec->in_view;
            rec->counted = false;
        }
        rec->state = rec->failed ? REC_FAILED : REC_RESIDENT;
        rec->payload = NULL;
        free(rec->error);
        rec->error = NULL;
    }
    s->ready.count -= n;
    memmove(s->ready.items, s->ready.items + n, s->ready.count * sizeof *s->ready.items);
    pthread_mutex_unlock(&s->lock);
    return n;
}

size_t stream_poll_evictions(stream *s, pmf_chunk_coord *out, size_t max)
{
    pthread_mutex_lock(&s->lock);
    size_t n = 0, kept = 0;
    for (size_t i = 0; i < s->evicted.count; i++) {
        chunk_record *rec = s->evicted.items[i];
        if (rec->state != REC_EVICTED)
            continue; /* a load region wanted it again: still resident */
        if (n == max) {
            s->evicted.items[kept++] = rec;
            continue;
        }
        out[n++] = rec->coord;
        map_remove(&s->records, rec);
        record_free(rec);
    }
    s->evicted.count = kept;
    pthread_mutex_unlock(&s->lock);
    return n;
}

bool stream_view_complete(const stream *s)
{
    stream *m = (stream *)s; /* locking is not a change of state */
    pthread_mutex_lock(&m->lock);
    bool complete = m->pending_view == 0;
    pthread_mutex_unlock(&m->lock);
    return complete;
}

int stream_radius(const stream *s)
{
    return s->radius;
}

bool stream_radius_complete(const stream *s)
{
    stream *m = (stream *)s;
    pthread_mutex_lock(&m->lock);
    bool complete = m->pending_radius == 0;
    pthread_mutex_unlock(&m->lock);
    return complete;
}

void stream_get_stats(const stream *s, stream_stats *out)
{
    stream *m = (stream *)s;
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&m->lock);
    for (uint32_t i = 0; i < m->records.capacity; i++) {
        const chunk_record *rec = m->records.slots[i];
        if (!rec)
            continue;
        out->resident += rec->state == REC_RESIDENT;
        out->failed += rec->failed && (rec->state == REC_READY || rec->state == REC_FAILED);
    }
    out->queued = (uint32_t)m->heap.count;
    out->in_flight = m->in_flight;
    out->ready = (uint32_t)m->ready.count;
    out->decode_seconds = m->decode_seconds;
    out->prepare_seconds = m->prepare_seconds;
    out->decoded = m->decoded;
    out->records = m->records.count;
    out->record_capacity = m->records.capacity;
    out->candidate_visits = m->candidate_visits;
    pthread_mutex_unlock(&m->lock);
}
