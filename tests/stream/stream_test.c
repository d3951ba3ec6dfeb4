/* stream_test.c - the chunk streamer against small maps written in memory with the pmf writer.
 *
 * Usage: stream_test CASE   (radius, move, failure, prefetch, unwanted, frustum, destroy, large_grid,
 *                          kitchen_sink)
 * Each case prints what failed and exits non-zero; ctest runs every case on its own.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmf.h"
#include "sample_map.h"
#include "stream.h"
#include "common/check.h"



static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static void die(const char *what, const pmf_error *err)
{
    char buf[700];
    fprintf(stderr, "%s: %s\n", what, err ? pmf_error_format(err, buf, sizeof buf) : "failed");
    exit(1);
}

static bool coord_eq(pmf_chunk_coord a, pmf_chunk_coord b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

static uint32_t chebyshev(pmf_chunk_coord a, pmf_chunk_coord b)
{
    uint32_t dx = a.x > b.x ? a.x - b.x : b.x - a.x, dy = a.y > b.y ? a.y - b.y : b.y - a.y;
    uint32_t dz = a.z > b.z ? a.z - b.z : b.z - a.z, d = dx > dy ? dx : dy;
    return d > dz ? d : dz;
}

/* ---- maps ------------------------------------------------------------------------------------ */

typedef struct map_spec {
    uint32_t count_x, count_y, count_z;
    pmf_chunk_coord center;
    uint8_t chunk_size_exp;
    bool (*present)(pmf_chunk_coord c);
    pmf_chunk_coord region_owner;        /* the chunk that carries `regions` */
    uint8_t region_count;
    pmf_region *regions;
} map_spec;

typedef struct test_map {
    uint8_t *bytes;
    size_t size;
    pmf_file *file;
    pmf_level lvl;                       /* common part, for the streamer */
} test_map;

/* An empty level: no materials, no environments; every chunk is one empty root cube. */
static void level_init(pmf_level *lvl, const map_spec *spec)
{
    memset(lvl, 0, sizeof *lvl);
    lvl->chunk_size_exp = spec->chunk_size_exp;
    lvl->count_x = spec->count_x;
    lvl->count_y = spec->count_y;
    lvl->count_z = spec->count_z;
    lvl->center = spec->center;
    lvl->parts = PMF_PART_ALL;
    lvl->common.air_physics_material = "";
    lvl->common.default_weather_env = "";
    lvl->common.default_gravity_env = "";
    lvl->client.default_sound_env = "";
    lvl->client.default_sky_env = "";
}

static void map_build(test_map *m, const map_spec *spec)
{
    pmf_error err;
    pmf_header header = { .major = 0, .created = 1700000000, .name = "stream test", .description = "",
                          .authors = "", .compiler = "stream_test" };
    pmf_data_desc data = { 0 };
    pmf_level lvl;
    level_init(&lvl, spec);

    pmf_writer *w = pmf_writer_create(&header, &data, &err);
    if (!w || !pmf_writer_begin_level(w, &lvl, &err))
        die("writer", &err);
    for (uint32_t y = 0; y < spec->count_y; y++) {
        for (uint32_t x = 0; x < spec->count_x; x++) {
            for (uint32_t z = 0; z < spec->count_z; z++) {
                pmf_chunk_coord c = { x, y, z };
                if (!spec->present(c))
                    continue;
                pmf_cube cube = { 0 };
                pmf_client_cube client_cube = { 0 };
                pmf_server_cube server_cube = { 0 };
                pmf_chunk chunk = { 0 };
                chunk.coord = c;
                chunk.parts = PMF_PART_ALL;
                cube.type = PMF_CUBE_EMPTY;
                chunk.common.cube_count = 1;
                chunk.common.cubes = &cube;
                chunk.client.cubes = &client_cube;
                chunk.server.cubes = &server_cube;
                if (spec->region_count && coord_eq(c, spec->region_owner)) {
                    chunk.server.load_region_count = spec->region_count;
                    chunk.server.load_regions = spec->regions;
                }
                pmf_encoded_chunk enc;
                if (!pmf_chunk_encode(&lvl, &chunk, &enc, &err) || !pmf_writer_put_chunk(w, c, &enc, &err))
                    die("chunk encode", &err);
            }
        }
    }
    if (!pmf_writer_finish_memory(w, &m->bytes, &m->size, &err))
        die("writer finish", &err);
    pmf_writer_destroy(w);
    m->file = pmf_open_memory(m->bytes, m->size, "stream_test.pmf", &err);
    if (!m->file || !pmf_level_read(m->file, 0, PMF_PART_COMMON, &m->lvl, &err))
        die("open", &err);
}

static void map_free(test_map *m)
{
    pmf_level_free(&m->lvl);
    pmf_close(m->file);
    free(m->bytes);
}

/* ---- the streamer's client ------------------------------------------------------------------- */

#define LOG_MAX 8192

typedef struct payload { pmf_chunk_coord coord; uint32_t cube_count; } payload;

typedef struct client {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    pthread_t main_thread;
    pmf_chunk_coord log[LOG_MAX];        /* prepare calls in order */
    size_t log_count;
    int on_main_thread;                  /* prepare calls made on the main thread (must stay 0) */
    int prepared, released;
    bool refuse;                         /* prepare fails for refuse_coord */
    pmf_chunk_coord refuse_coord;
    bool gate_closed, gate_waiting;      /* prepare waits while the gate is closed ... */
    bool (*gate_holds)(pmf_chunk_coord); /* ... for these chunks (NULL = all) */
    int prepare_sleep_ms;
} client;

static void client_init(client *cl)
{
    memset(cl, 0, sizeof *cl);
    pthread_mutex_init(&cl->lock, NULL);
    pthread_cond_init(&cl->cv, NULL);
    cl->main_thread = pthread_self();
}

static void client_fini(client *cl)
{
    pthread_cond_destroy(&cl->cv);
    pthread_mutex_destroy(&cl->lock);
}

static void *client_prepare(void *user, pmf_chunk *chunk, char *err, size_t err_size)
{
    client *cl = user;
    pthread_mutex_lock(&cl->lock);
    if (cl->log_count < LOG_MAX)
        cl->log[cl->log_count++] = chunk->coord;
    cl->on_main_thread += pthread_equal(pthread_self(), cl->main_thread) != 0;
    while (cl->gate_closed && (!cl->gate_holds || cl->gate_holds(chunk->coord))) {
        cl->gate_waiting = true;
        pthread_cond_broadcast(&cl->cv);
        pthread_cond_wait(&cl->cv, &cl->lock);
    }
    cl->gate_waiting = false;
    bool refuse = cl->refuse && coord_eq(chunk->coord, cl->refuse_coord);
    int sleep = cl->prepare_sleep_ms;
    pthread_mutex_unlock(&cl->lock);
    if (sleep)
        sleep_ms(sleep);

    payload *p = NULL;
    if (refuse) {
        snprintf(err, err_size, "test: refused chunk (%u,%u,%u)", chunk->coord.x, chunk->coord.y, chunk->coord.z);
    } else if ((p = malloc(sizeof *p))) {
        p->coord = chunk->coord;
        p->cube_count = chunk->common.cube_count;
        pthread_mutex_lock(&cl->lock);
        cl->prepared++;
        pthread_mutex_unlock(&cl->lock);
    }
    pmf_chunk_free(chunk);
    return p;
}

static void client_release(void *user, void *payload_ptr)
{
    client *cl = user;
    pthread_mutex_lock(&cl->lock);
    cl->released++;
    pthread_mutex_unlock(&cl->lock);
    free(payload_ptr);
}

static stream *stream_open(const test_map *m, client *cl, int workers, int radius, int hysteresis)
{
    stream_desc desc = { .file = m->file, .level = 0, .lvl = &m->lvl, .workers = workers, .radius = radius,
                         .hysteresis = hysteresis, .prepare = client_prepare, .release = client_release,
                         .user = cl };
    stream *s = stream_create(&desc);
    if (!s) {
        fprintf(stderr, "stream_create failed\n");
        exit(1);
    }
    return s;
}

/* What the main thread holds: chunks delivered and not evicted. */
typedef struct held_set {
    pmf_chunk_coord coords[LOG_MAX];
    size_t count;
    stream_item delivered[LOG_MAX];      /* every item in delivery order */
    size_t delivered_count;
    size_t evicted_count;
} held_set;

static long held_find(const held_set *h, pmf_chunk_coord c)
{
    for (size_t i = 0; i < h->count; i++) {
        if (coord_eq(h->coords[i], c))
            return (long)i;
    }
    return -1;
}

/* Polls until nothing is queued, decoding or waiting; applies deliveries and evictions to h. */
static void drain(stream *s, held_set *h)
{
    double deadline = now_seconds() + 20.0;
    for (;;) {
        stream_item items[16];
        size_t n = stream_poll(s, items, 16);
        for (size_t i = 0; i < n; i++) {
            CHECK(held_find(h, items[i].coord) < 0, "chunk (%u,%u,%u) delivered twice", items[i].coord.x,
                  items[i].coord.y, items[i].coord.z);
            if (h->delivered_count < LOG_MAX)
                h->delivered[h->delivered_count++] = items[i];
            if (!items[i].failed) {
                const payload *p = items[i].payload;
                CHECK(p && coord_eq(p->coord, items[i].coord) && p->cube_count == 1, "payload of (%u,%u,%u)",
                      items[i].coord.x, items[i].coord.y, items[i].coord.z);
                h->coords[h->count++] = items[i].coord;
                free(items[i].payload);
            }
        }
        pmf_chunk_coord ev[16];
        size_t ne = stream_poll_evictions(s, ev, 16);
        for (size_t i = 0; i < ne; i++) {
            long at = held_find(h, ev[i]);
            CHECK(at >= 0, "evicted (%u,%u,%u) that was not held", ev[i].x, ev[i].y, ev[i].z);
            if (at >= 0)
                h->coords[at] = h->coords[--h->count];
            h->evicted_count++;
        }
        stream_stats st;
        stream_get_stats(s, &st);
        if (n == 0 && ne == 0 && st.queued == 0 && st.in_flight == 0 && st.ready == 0)
            return;
        if (now_seconds() > deadline) {
            fprintf(stderr, "drain: timed out (queued %u, in flight %u)\n", st.queued, st.in_flight);
            exit(1);
        }
        if (n == 0)
            sleep_ms(1);
    }
}

/* Distance from a camera at the centre of chunk cam to the box of chunk c (side S). */
static double box_distance(pmf_chunk_coord cam, pmf_chunk_coord c, double side)
{
    double sq = 0;
    const double d[3] = { (double)c.x - cam.x, (double)c.y - cam.y, (double)c.z - cam.z };
    for (int a = 0; a < 3; a++) {
        double gap = (d[a] < 0 ? -d[a] : d[a]) - 0.5;
        gap = gap > 0 ? gap * side : 0;
        sq += gap * gap;
    }
    return sq;
}

/* ---- cases -------------------------------------------------------------------------------------- */

static bool present_some_void(pmf_chunk_coord c) { return (c.x + 2 * c.z) % 5 != 1; }

/* (1) every present chunk within the radius arrives once, none outside; nearest first. */
static void case_radius(void)
{
    map_spec spec = { 8, 1, 8, { 4, 0, 4 }, 4, present_some_void, { 0, 0, 0 }, 0, NULL };
    test_map m;
    map_build(&m, &spec);
    CHECK(present_some_void(spec.center), "camera chunk must be present");
    client cl;
    client_init(&cl);
    static held_set h;
    const int r = 2;
    stream *s = stream_open(&m, &cl, 1, r, 1);
    drain(s, &h);

    size_t expected = 0;
    for (uint32_t x = 0; x < 8; x++) {
        for (uint32_t z = 0; z < 8; z++) {
            pmf_chunk_coord c = { x, 0, z };
            bool want = present_some_void(c) && chebyshev(c, spec.center) <= (uint32_t)r;
            expected += want;
            CHECK((held_find(&h, c) >= 0) == want, "chunk (%u,0,%u) held %d, wanted %d", x, z,
                  held_find(&h, c) >= 0, want);
        }
    }
    CHECK(h.count == expected && expected == 20, "held %zu, expected %zu", h.count, expected);
    CHECK(cl.log_count == expected, "prepared %zu times", cl.log_count);
    CHECK(coord_eq(cl.log[0], spec.center), "first prepared is (%u,%u,%u)", cl.log[0].x, cl.log[0].y, cl.log[0].z);
    CHECK(coord_eq(h.delivered[0].coord, spec.center), "first delivered is not the camera chunk");
    for (size_t i = 1; i < cl.log_count; i++) {
        double a = box_distance(spec.center, cl.log[i - 1], 16.0), b = box_distance(spec.center, cl.log[i], 16.0);
        CHECK(a <= b, "prepare %zu at distance^2 %.0f after %.0f", i, b, a);
    }
    CHECK(cl.on_main_thread == 0, "prepare ran on the main thread");
    CHECK(stream_radius_complete(s) && stream_view_complete(s), "not complete");
    stream_stats st;
    stream_get_stats(s, &st);
    CHECK(st.resident == expected && st.decoded == expected && st.failed == 0, "stats resident %u decoded %u",
          st.resident, st.decoded);
#ifdef _WIN32
    /* without a thread cycle counter (wine) the thread clock moves in 10 ms ticks */
    CHECK(st.decode_seconds >= 0.0 && st.prepare_seconds >= 0.0, "decode time %f", st.decode_seconds);
#else
    CHECK(st.decode_seconds > 0.0 && st.prepare_seconds >= 0.0, "decode time %f", st.decode_seconds);
#endif

    /* the default worker count (cores - 1, at least 1) streams the same set */
    stream_destroy(s);
    static held_set h2;
    s = stream_open(&m, &cl, 0, r, 1);
    drain(s, &h2);
    CHECK(h2.count == expected, "default workers: held %zu", h2.count);
    stream_destroy(s);
    CHECK(cl.released == 0, "released %d payloads the main thread took", cl.released);
    client_fini(&cl);
    map_free(&m);
}

static bool present_all(pmf_chunk_coord c) { (void)c; return true; }
static bool present_checker_void(pmf_chunk_coord c) { return !(c.x % 4 == 3 && c.z % 3 == 2); }

/* Checks the held set against the camera: within r all held, beyond r + h none. */
static void check_held(const stream *s, const held_set *h, const map_spec *spec, pmf_chunk_coord cam, int r, int hy)
{
    for (uint32_t y = 0; y < spec->count_y; y++) {
        for (uint32_t x = 0; x < spec->count_x; x++) {
            for (uint32_t z = 0; z < spec->count_z; z++) {
                pmf_chunk_coord c = { x, y, z };
                uint32_t d = chebyshev(c, cam);
                bool held = held_find(h, c) >= 0;
                if (spec->present(c) && d <= (uint32_t)r)
                    CHECK(held, "camera (%u,%u,%u): (%u,%u,%u) at %u not held", cam.x, cam.y, cam.z, x, y, z, d);
                if (d > (uint32_t)(r + hy))
                    CHECK(!held, "camera (%u,%u,%u): (%u,%u,%u) at %u still held", cam.x, cam.y, cam.z, x, y, z, d);
                if (!spec->present(c))
                    CHECK(!held, "void (%u,%u,%u) held", x, y, z);
            }
        }
    }
    stream_stats st;
    stream_get_stats(s, &st);
    uint32_t bound = (uint32_t)((2 * (r + hy) + 1) * (2 * (r + hy) + 1)) * spec->count_y;
    CHECK(st.resident == h->count, "resident %u, held %zu", st.resident, h->count);
    CHECK(st.resident <= bound, "resident %u above the bound %u", st.resident, bound);
}

/* (2) moving the camera evicts beyond radius + hysteresis and loads what comes into range. */
static void case_move(void)
{
    map_spec spec = { 16, 2, 16, { 8, 0, 8 }, 3, present_checker_void, { 0, 0, 0 }, 0, NULL };
    test_map m;
    map_build(&m, &spec);
    client cl;
    client_init(&cl);
    static held_set h;
    const int r = 2, hy = 1;
    stream *s = stream_open(&m, &cl, 1, r, hy);
    const float local[3] = { 0, 0, 0 };
    pmf_chunk_coord cam = spec.center;
    drain(s, &h);
    check_held(s, &h, &spec, cam, r, hy);

    /* one step: the row that fell to distance r + 1 stays (hysteresis) */
    cam.x = 9;
    stream_set_view(s, cam, local, NULL);
    drain(s, &h);
    check_held(s, &h, &spec, cam, r, hy);
    CHECK(held_find(&h, (pmf_chunk_coord){ 6, 0, 8 }) >= 0, "(6,0,8) evicted inside the hysteresis");
    CHECK(h.evicted_count == 0, "%zu evictions after one step", h.evicted_count);

    /* walk across the map and back along x, then along z */
    const uint32_t path[][2] = { { 11, 8 }, { 13, 8 }, { 15, 9 }, { 12, 12 }, { 8, 15 }, { 3, 10 }, { 0, 0 }, { 8, 8 } };
    for (size_t i = 0; i < sizeof path / sizeof path[0]; i++) {
        cam.x = path[i][0];
        cam.z = path[i][1];
        cam.y = (uint32_t)(i % 2);
        stream_set_view(s, cam, local, NULL);
        drain(s, &h);
        check_held(s, &h, &spec, cam, r, hy);
    }
    CHECK(h.evicted_count > 50, "only %zu evictions", h.evicted_count);
    /* back at the start: the start chunk, evicted on the way, was loaded again */
    int start_deliveries = 0;
    for (size_t i = 0; i < h.delivered_count; i++)
        start_deliveries += coord_eq(h.delivered[i].coord, spec.center);
    CHECK(start_deliveries == 2, "start chunk delivered %d times", start_deliveries);
    stream_stats st;
    stream_get_stats(s, &st);
    CHECK(st.records <= (uint32_t)(2 * (r + hy) + 1) * (2 * (r + hy) + 1) * 2, "records %u", st.records);
    stream_destroy(s);
    CHECK(cl.prepared == (int)h.delivered_count + cl.released, "prepared %d, delivered %zu, released %d",
          cl.prepared, h.delivered_count, cl.released);
    client_fini(&cl);
    map_free(&m);
}

/* (3) a corrupted chunk and a chunk prepare refuses are reported failed once; the rest arrive. */
static void case_failure(void)
{
    map_spec spec = { 6, 1, 6, { 2, 0, 2 }, 4, present_all, { 0, 0, 0 }, 0, NULL };
    test_map m;
    map_build(&m, &spec);
    /* break the LZ4 frame magic of chunk (1,0,1)'s common block */
    const pmf_level_info *li = &m.file->levels[0];
    uint64_t at = li->chunks[pmf_grid_index(li, 1, 0, 1)].offset;
    pmf_error err;
    pmf_close(m.file);
    CHECK(m.bytes[at] == 0x04 && m.bytes[at + 3] == 0x18, "no LZ4 frame at %llu", (unsigned long long)at);
    memset(m.bytes + at, 0, 4);
    m.file = pmf_open_memory(m.bytes, m.size, "stream_test.pmf", &err);
    if (!m.file)
        die("reopen", &err);

    client cl;
    client_init(&cl);
    cl.refuse = true;
    cl.refuse_coord = (pmf_chunk_coord){ 4, 0, 3 };
    static held_set h;
    stream *s = stream_open(&m, &cl, 2, 2, 1);
    drain(s, &h);
    const float local[3] = { 1, 2, 3 };
    for (int i = 0; i < 3; i++) { /* the same view again, and a step within range: no retries */
        stream_set_view(s, (pmf_chunk_coord){ 2, 0, i == 2 ? 3 : 2 }, local, NULL);
        drain(s, &h);
    }
    int failed_corrupt = 0, failed_refused = 0, failed_other = 0;
    for (size_t i = 0; i < h.delivered_count; i++) {
        const stream_item *it = &h.delivered[i];
        if (!it->failed)
            continue;
        CHECK(it->payload == NULL, "failed item with a payload");
        if (coord_eq(it->coord, (pmf_chunk_coord){ 1, 0, 1 })) {
            failed_corrupt++;
            CHECK(strstr(it->error, "stream_test.pmf") && strstr(it->error, "chunk (1,0,1)"), "error '%s'", it->error);
        } else if (coord_eq(it->coord, cl.refuse_coord)) {
            failed_refused++;
            CHECK(strcmp(it->error, "test: refused chunk (4,0,3)") == 0, "error '%s'", it->error);
        } else {
            failed_other++;
        }
    }
    CHECK(failed_corrupt == 1 && failed_refused == 1 && failed_other == 0, "failed: corrupt %d refused %d other %d",
          failed_corrupt, failed_refused, failed_other);
    /* (2,0,3) camera, radius 2 => x 0..4, z 1..5: 25 chunks, 2 failed; plus row z = 0 from the first view */
    for (uint32_t x = 0; x <= 4; x++) {
        for (uint32_t z = 0; z <= 5; z++) {
            pmf_chunk_coord c = { x, 0, z };
            bool bad = coord_eq(c, (pmf_chunk_coord){ 1, 0, 1 }) || coord_eq(c, cl.refuse_coord);
            CHECK((held_find(&h, c) >= 0) == !bad, "(%u,0,%u) held %d", x, z, held_find(&h, c) >= 0);
        }
    }
    for (size_t i = 0; i < cl.log_count; i++)
        CHECK(!coord_eq(cl.log[i], (pmf_chunk_coord){ 1, 0, 1 }), "prepare saw the corrupted chunk");
    stream_stats st;
    stream_get_stats(s, &st);
    CHECK(st.failed == 2 && stream_radius_complete(s), "stats failed %u", st.failed);

    /* out of range and back: a failed chunk is tried again */
    stream_set_view(s, (pmf_chunk_coord){ 5, 0, 5 }, local, NULL);
    drain(s, &h);
    stream_set_view(s, (pmf_chunk_coord){ 2, 0, 2 }, local, NULL);
    drain(s, &h);
    int corrupt_reports = 0;
    for (size_t i = 0; i < h.delivered_count; i++)
        corrupt_reports += h.delivered[i].failed && coord_eq(h.delivered[i].coord, (pmf_chunk_coord){ 1, 0, 1 });
    CHECK(corrupt_reports == 2, "corrupt chunk reported %d times after coming back", corrupt_reports);
    stream_destroy(s);
    client_fini(&cl);
    map_free(&m);
}

/* (4) a load region holding the camera prefetches far chunks while the camera stays inside. */
static void case_prefetch(void)
{
    static pmf_chunk_coord listed[] = { { 13, 0, 13 }, { 14, 0, 2 }, { 7, 0, 8 } /* void */ };
    static pmf_chunk_coord other[] = { { 10, 0, 10 } };
    static pmf_region regions[2] = {
        { { 4, 4, 4 }, { -4, -4, -4 }, 3, listed },
        { { 8, 8, 8 }, { 5, -8, -8 }, 1, other },
    };
    map_spec spec = { 16, 1, 16, { 2, 0, 2 }, 4, present_checker_void, { 2, 0, 2 }, 2, regions };
    CHECK(!present_checker_void(listed[2]) && present_checker_void(listed[0]) && present_checker_void(listed[1]),
          "map layout");
    test_map m;
    map_build(&m, &spec);
    client cl;
    client_init(&cl);
    static held_set h;
    stream *s = stream_open(&m, &cl, 1, 1, 1);
    drain(s, &h);
    CHECK(held_find(&h, listed[0]) >= 0 && held_find(&h, listed[1]) >= 0, "prefetch missing (held %zu)", h.count);
    CHECK(held_find(&h, other[0]) < 0, "a region without the camera prefetched");
    CHECK(h.count == 8 + 2, "held %zu", h.count); /* (3,0,2) is void */

    /* still inside after a view update: kept */
    const float inside[3] = { 3.5f, -1, 2 }, outside[3] = { 6, 0, 0 };
    stream_set_view(s, spec.center, inside, NULL);
    drain(s, &h);
    CHECK(held_find(&h, listed[0]) >= 0 && h.evicted_count == 0, "prefetched chunk evicted while inside");

    /* leaving the region (into the other one) evicts them and prefetches the other list */
    stream_set_view(s, spec.center, outside, NULL);
    drain(s, &h);
    CHECK(held_find(&h, listed[0]) < 0 && held_find(&h, listed[1]) < 0 && h.evicted_count == 2,
          "evictions %zu", h.evicted_count);
    CHECK(held_find(&h, other[0]) >= 0, "second region did not prefetch");

    /* back inside: loaded again */
    stream_set_view(s, spec.center, inside, NULL);
    drain(s, &h);
    CHECK(held_find(&h, listed[0]) >= 0 && held_find(&h, listed[1]) >= 0 && held_find(&h, other[0]) < 0,
          "no prefetch after coming back");

    /* a prefetched chunk near the camera's new place stays within radius + hysteresis */
    stream_set_view(s, (pmf_chunk_coord){ 11, 0, 11 }, outside, NULL);
    drain(s, &h);
    CHECK(held_find(&h, listed[0]) >= 0 && held_find(&h, listed[1]) < 0, "hysteresis for prefetched chunks");

    /* off the grid (x 4098 packs like x 2 in a chunk index): nothing is wanted, nothing prefetched */
    stream_set_view(s, spec.center, inside, NULL);
    drain(s, &h);
    CHECK(held_find(&h, listed[0]) >= 0, "no prefetch at the end");
    stream_set_view(s, (pmf_chunk_coord){ 4098, 0, 2 }, inside, NULL);
    drain(s, &h);
    CHECK(h.count == 0, "held %zu with the camera off the grid", h.count);
    stream_destroy(s);
    client_fini(&cl);
    map_free(&m);
}

static void gate_wait(client *cl)
{
    pthread_mutex_lock(&cl->lock);
    while (!cl->gate_waiting)
        pthread_cond_wait(&cl->cv, &cl->lock);
    pthread_mutex_unlock(&cl->lock);
}

static void gate_open(client *cl)
{
    pthread_mutex_lock(&cl->lock);
    cl->gate_closed = false;
    pthread_cond_broadcast(&cl->cv);
    pthread_mutex_unlock(&cl->lock);
}

/* Takes deliveries until done(s) holds (or 20 s pass). */
static void poll_until(stream *s, held_set *h, bool (*done)(const stream *))
{
    double deadline = now_seconds() + 20.0;
    while (!done(s) && now_seconds() < deadline) {
        stream_item items[4];
        size_t n = stream_poll(s, items, 4);
        for (size_t i = 0; i < n; i++) {
            h->delivered[h->delivered_count++] = items[i];
            free(items[i].payload);
        }
        if (!n)
            sleep_ms(1);
    }
}

static bool behind_camera(pmf_chunk_coord c) { return c.z > 4; }

/* Results nobody wants any more are released, never delivered: one in flight, then unpolled ones. */
static void case_unwanted(void)
{
    map_spec spec = { 16, 1, 16, { 2, 0, 2 }, 4, present_checker_void, { 0, 0, 0 }, 0, NULL };
    test_map m;
    map_build(&m, &spec);
    client cl;
    client_init(&cl);
    cl.gate_closed = true;
    static held_set h;
    stream *s = stream_open(&m, &cl, 1, 1, 1);
    gate_wait(&cl);
    /* the camera chunk is in flight; the camera jumps away */
    const float local[3] = { 0, 0, 0 };
    const pmf_chunk_coord far = { 12, 0, 12 };
    stream_set_view(s, far, local, NULL);
    gate_open(&cl);
    drain(s, &h);
    CHECK(cl.released == 1, "released %d", cl.released);
    for (size_t i = 0; i < h.delivered_count; i++)
        CHECK(chebyshev(h.delivered[i].coord, far) <= 1, "delivered (%u,%u,%u)", h.delivered[i].coord.x,
              h.delivered[i].coord.y, h.delivered[i].coord.z);
    CHECK(h.count == 8, "held %zu around (12,0,12)", h.count); /* (11,0,11) is void */

    /* back: let everything finish without taking it, then leave again */
    stream_set_view(s, spec.center, local, NULL);
    stream_stats st;
    double deadline = now_seconds() + 20.0;
    do {
        sleep_ms(1);
        stream_get_stats(s, &st);
    } while ((st.queued || st.in_flight) && now_seconds() < deadline);
    CHECK(st.ready == 8 && !stream_radius_complete(s), "ready %u", st.ready);
    stream_set_view(s, far, local, NULL);
    drain(s, &h);
    CHECK(cl.released == 1 + 8 && h.evicted_count == 0 && h.count == 8, "released %d evicted %zu held %zu",
          cl.released, h.evicted_count, h.count);
    stream_destroy(s);
    CHECK(cl.prepared == (int)h.delivered_count + cl.released, "prepared %d", cl.prepared);
    client_fini(&cl);
    map_free(&m);
}

/* (5) with a frustum, chunks in it come before equally near (and nearer) ones outside it. */
static void case_frustum(void)
{
    map_spec spec = { 9, 1, 9, { 4, 0, 4 }, 4, present_all, { 0, 0, 0 }, 0, NULL };
    test_map m;
    map_build(&m, &spec);
    client cl;
    client_init(&cl);
    cl.gate_closed = true;
    static held_set h;
    stream *s = stream_open(&m, &cl, 1, 2, 1);

    /* the worker holds the camera chunk at the gate while the view gets its frustum */
    gate_wait(&cl);
    /* 90 degrees each way looking along -Z: planes a x + b y + c z + d >= 0 */
    const float frustum[6][4] = {
        { -1, 0, -1, 0 }, { 1, 0, -1, 0 }, { 0, 1, -1, 0 }, { 0, -1, -1, 0 }, { 0, 0, -1, -0.1f }, { 0, 0, 1, 1000 },
    };
    const float local[3] = { 0, 0, 0 };
    stream_set_view(s, spec.center, local, frustum);
    CHECK(!stream_view_complete(s) && !stream_radius_complete(s), "complete before anything arrived");

    /* the gate now holds only chunks behind the camera: the view completes without them */
    pthread_mutex_lock(&cl.lock);
    cl.gate_holds = behind_camera;
    pthread_cond_broadcast(&cl.cv);
    pthread_mutex_unlock(&cl.lock);
    poll_until(s, &h, stream_view_complete);
    CHECK(stream_view_complete(s) && !stream_radius_complete(s), "view %d radius %d", stream_view_complete(s),
          stream_radius_complete(s));
    gate_open(&cl);
    poll_until(s, &h, stream_radius_complete);
    CHECK(stream_radius_complete(s) && stream_view_complete(s), "never complete");
    CHECK(cl.log_count == 25 && h.delivered_count == 25, "prepared %zu delivered %zu", cl.log_count, h.delivered_count);

    /* every chunk ahead (z < 4) was prepared before every chunk behind (z > 4) */
    size_t last_ahead = 0, first_behind = cl.log_count;
    for (size_t i = 1; i < cl.log_count; i++) {
        if (cl.log[i].z < 4)
            last_ahead = i;
        if (cl.log[i].z > 4 && i < first_behind)
            first_behind = i;
    }
    CHECK(last_ahead < first_behind, "ahead chunk at %zu after behind chunk at %zu", last_ahead, first_behind);
    /* the sides (2,0,4) and (6,0,4) are out of the frustum: after (4,0,2), which is as near */
    long at_side = -1, at_front = -1;
    for (size_t i = 0; i < cl.log_count; i++) {
        if (coord_eq(cl.log[i], (pmf_chunk_coord){ 2, 0, 4 }))
            at_side = (long)i;
        if (coord_eq(cl.log[i], (pmf_chunk_coord){ 4, 0, 2 }))
            at_front = (long)i;
    }
    CHECK(at_front >= 0 && at_side > at_front, "front %ld side %ld", at_front, at_side);
    stream_destroy(s);
    client_fini(&cl);
    map_free(&m);
}

/* (6) destroy with a deep queue and unpolled results returns at once and releases every payload. */
static void case_destroy(void)
{
    map_spec spec = { 64, 1, 64, { 32, 0, 32 }, 4, present_all, { 0, 0, 0 }, 0, NULL };
    test_map m;
    map_build(&m, &spec);
    client cl;
    client_init(&cl);
    cl.prepare_sleep_ms = 2;
    stream *s = stream_open(&m, &cl, 2, 40, 2);
    stream_stats st;
    double deadline = now_seconds() + 20.0;
    do {
        sleep_ms(2);
        stream_get_stats(s, &st);
    } while (st.ready < 8 && now_seconds() < deadline);
    CHECK(st.ready >= 8 && st.queued > 3000, "ready %u queued %u", st.ready, st.queued);
    double t0 = now_seconds();
    stream_destroy(s);
    double took = now_seconds() - t0;
    CHECK(took < 0.5, "destroy took %.3f s", took);
    CHECK(cl.prepared == cl.released && cl.prepared >= 8, "prepared %d released %d", cl.prepared, cl.released);
    printf("destroy with %u queued, %u ready: %.1f ms\n", st.queued, st.ready, took * 1e3);

    /* and right after create, before anything arrived */
    cl.prepared = cl.released = 0;
    s = stream_open(&m, &cl, 0, 40, 2);
    stream_destroy(s);
    CHECK(cl.prepared == cl.released, "prepared %d released %d", cl.prepared, cl.released);
    client_fini(&cl);
    map_free(&m);
}

static bool present_sparse(pmf_chunk_coord c)
{
    return (c.x == 2048 && c.z == 64) || (c.x == 2049 && c.z == 64) || (c.x == 2050 && c.z == 66) ||
           (c.x == 4095 && c.z == 127) || (c.x == 0 && c.z == 0) || (c.x == 2100 && c.z == 60);
}

/* (7) a big declared grid: view updates visit only the radius, records stay few. */
static void case_large_grid(void)
{
    map_spec spec = { 4096, 1, 128, { 2048, 0, 64 }, 5, present_sparse, { 0, 0, 0 }, 0, NULL };
    test_map m;
    map_build(&m, &spec);
    CHECK(m.file->levels[0].present_chunks == 6, "present %u", m.file->levels[0].present_chunks);
    client cl;
    client_init(&cl);
    static held_set h;
    const int r = 4;
    const uint64_t per_view = (2 * r + 1) * (2 * r + 1);
    stream *s = stream_open(&m, &cl, 1, r, 1);
    drain(s, &h);
    CHECK(h.count == 3, "held %zu", h.count);
    stream_stats st;
    stream_get_stats(s, &st);
    CHECK(st.candidate_visits == per_view, "first view visited %llu positions", (unsigned long long)st.candidate_visits);

    const float local[3] = { 0, 0, 0 };
    int views = 1;
    for (uint32_t x = 2040; x <= 2104; x++, views++)
        stream_set_view(s, (pmf_chunk_coord){ x, 0, 64 }, local, NULL);
    drain(s, &h);
    CHECK(held_find(&h, (pmf_chunk_coord){ 2100, 0, 60 }) >= 0 && held_find(&h, (pmf_chunk_coord){ 2048, 0, 64 }) < 0,
          "walk: held %zu", h.count);
    /* turning and moving inside the same chunk walks nothing again */
    stream_get_stats(s, &st);
    uint64_t before = st.candidate_visits;
    const float turned[3] = { 5, -3, 7 };
    for (int i = 0; i < 100; i++)
        stream_set_view(s, (pmf_chunk_coord){ 2104, 0, 64 }, i % 2 ? turned : local, NULL);
    stream_get_stats(s, &st);
    CHECK(st.candidate_visits == before, "same camera chunk: %llu more visits",
          (unsigned long long)(st.candidate_visits - before));
    /* the far corner: packed chunk index with x = 4095 */
    stream_set_view(s, (pmf_chunk_coord){ 4095, 0, 127 }, local, NULL);
    views++;
    drain(s, &h);
    CHECK(h.count == 1 && held_find(&h, (pmf_chunk_coord){ 4095, 0, 127 }) >= 0, "corner: held %zu", h.count);
    stream_get_stats(s, &st);
    /* the corner view is clamped to the grid: 5 x 5 positions */
    uint64_t bound = (uint64_t)(views - 1) * per_view + 25;
    CHECK(st.candidate_visits == bound, "visited %llu grid positions in %d views, expected %llu",
          (unsigned long long)st.candidate_visits, views, (unsigned long long)bound);
    CHECK(st.records <= 3 && st.record_capacity <= 256, "records %u capacity %u", st.records, st.record_capacity);
    printf("large grid: %d views, %llu positions visited of a %u-position grid\n", views,
           (unsigned long long)st.candidate_visits, m.file->levels[0].chunk_count);
    stream_destroy(s);
    client_fini(&cl);
    map_free(&m);
}

/* Workers decode every part of rich chunks (every cube kind, lights, regions, visibility): what
 * prepare receives equals what was written, on every level of the kitchen-sink map. */
static void *keep_chunk(void *user, pmf_chunk *chunk, char *err, size_t err_size)
{
    (void)user;
    pmf_chunk *kept = malloc(sizeof *kept);
    if (!kept) {
        snprintf(err, err_size, "out of memory");
        pmf_chunk_free(chunk);
        return NULL;
    }
    *kept = *chunk;
    return kept;
}

static void free_kept_chunk(void *user, void *kept)
{
    (void)user;
    pmf_chunk_free(kept);
    free(kept);
}

static void case_kitchen_sink(void)
{
    sample_map sm;
    uint8_t *bytes;
    size_t size;
    pmf_error err;
    sample_map_build(&sm, SAMPLE_MAP_KITCHEN_SINK);
    if (!sample_map_write_memory(&sm, &bytes, &size, &err))
        die("kitchen sink", &err);
    pmf_file *f = pmf_open_memory(bytes, size, "kitchen_sink.pmf", &err);
    if (!f)
        die("open", &err);
    for (uint32_t level = 0; level < sm.level_count; level++) {
        pmf_level lvl;
        if (!pmf_level_read(f, level, PMF_PART_COMMON, &lvl, &err))
            die("level", &err);
        stream_desc desc = { .file = f, .level = level, .lvl = &lvl, .workers = 2, .radius = 4,
                             .prepare = keep_chunk, .release = free_kept_chunk };
        stream *s = stream_create(&desc);
        CHECK(s != NULL, "stream_create");
        uint32_t delivered = 0;
        double deadline = now_seconds() + 20.0;
        while (!stream_radius_complete(s) && now_seconds() < deadline) {
            stream_item item;
            if (!stream_poll(s, &item, 1)) {
                sleep_ms(1);
                continue;
            }
            delivered++;
            CHECK(!item.failed, "level %u chunk (%u,%u,%u): %s", level, item.coord.x, item.coord.y, item.coord.z,
                  item.error);
            if (item.failed)
                continue;
            const pmf_chunk *got = item.payload;
            const sample_level *sl = &sm.levels[level];
            bool found = false;
            for (uint32_t i = 0; i < sl->chunk_count; i++) {
                char why[256];
                if (!coord_eq(sl->chunks[i].coord, item.coord))
                    continue;
                found = true;
                CHECK(got->parts == PMF_PART_ALL, "parts %u", got->parts);
                CHECK(pmf_compare_chunk(&sl->chunks[i], got, why, sizeof why), "level %u chunk (%u,%u,%u): %s", level,
                      item.coord.x, item.coord.y, item.coord.z, why);
            }
            CHECK(found, "level %u: chunk (%u,%u,%u) is not in the map", level, item.coord.x, item.coord.y,
                  item.coord.z);
            free_kept_chunk(NULL, item.payload);
        }
        CHECK(delivered == sm.levels[level].chunk_count && delivered == f->levels[level].present_chunks,
              "level %u: delivered %u of %u", level, delivered, sm.levels[level].chunk_count);
        stream_destroy(s);
        pmf_level_free(&lvl);
    }
    pmf_close(f);
    free(bytes);
    sample_map_free(&sm);
}

/* STREAM_NO_THREADS: nothing is decoded until stream_work runs the queue on the calling thread,
 * nearest first, at least one chunk a call; the same set arrives as with workers. */
static void case_no_threads(void)
{
    map_spec spec = { 8, 1, 8, { 4, 0, 4 }, 4, present_some_void, { 0, 0, 0 }, 0, NULL };
    test_map m;
    map_build(&m, &spec);
    client cl;
    client_init(&cl);
    static held_set h;
    const int r = 2;
    stream *s = stream_open(&m, &cl, STREAM_NO_THREADS, r, 1);
    sleep_ms(20);
    stream_stats st;
    stream_get_stats(s, &st);
    CHECK(cl.log_count == 0 && st.queued == 20 && !stream_view_complete(s), "without stream_work: prepared %zu, queued %u",
          cl.log_count, st.queued);
    CHECK(stream_work(s, 0.0) == 1 && cl.log_count == 1, "a budget of 0 ms still decodes one chunk (%zu)", cl.log_count);
    CHECK(coord_eq(cl.log[0], spec.center), "first prepared is (%u,%u,%u)", cl.log[0].x, cl.log[0].y, cl.log[0].z);
    size_t calls = 0;
    while (stream_work(s, 1000.0))
        calls++;
    CHECK(cl.log_count == 20 && cl.on_main_thread == 20, "prepared %zu, %d on this thread", cl.log_count,
          cl.on_main_thread);
    CHECK(calls >= 1 && stream_work(s, 1000.0) == 0, "stream_work with nothing queued");
    drain(s, &h);
    CHECK(h.count == 20 && stream_radius_complete(s) && stream_view_complete(s), "held %zu", h.count);
    for (size_t i = 1; i < cl.log_count; i++) {
        double a = box_distance(spec.center, cl.log[i - 1], 16.0), b = box_distance(spec.center, cl.log[i], 16.0);
        CHECK(a <= b, "prepare %zu at distance^2 %.0f after %.0f", i, b, a);
    }
    stream_destroy(s);
    client_fini(&cl);
    map_free(&m);
}

int main(int argc, char **argv)
{
    static const struct { const char *name; void (*run)(void); } cases[] = {
        { "radius", case_radius },     { "move", case_move },       { "failure", case_failure },
        { "prefetch", case_prefetch }, { "unwanted", case_unwanted }, { "frustum", case_frustum }, { "destroy", case_destroy },
        { "large_grid", case_large_grid }, { "kitchen_sink", case_kitchen_sink }, { "no_threads", case_no_threads },
    };
    if (argc != 2) {
        fprintf(stderr, "usage: stream_test CASE\n");
        return 1;
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            if (check_failures)
                fprintf(stderr, "%s: %d check(s) failed\n", argv[1], check_failures);
            return check_failures ? 1 : 0;
        }
    }
    fprintf(stderr, "stream_test: no case '%s'\n", argv[1]);
    return 1;
}
