/* pmf_validate.c - decodes every level and every present chunk with all parts.
 *
 * Chunks are decoded on the base layer's worker pool, a thread per core (pmf_chunk_read is
 * thread-safe): full validation of a large map is bound by LZ4F decompression, and a single
 * thread would leave a core idle. The error reported is always the one of the first failing
 * chunk in grid order, as a single-threaded walk would find it. */
#include <pthread.h>
#include <stdlib.h>

#include "jobs.h"
#include "pmf_internal.h"
#include "pmf_system.h"

#define VALIDATE_MAX_THREADS 16

typedef struct validate_job {
    const pmf_file *f;
    const pmf_level *lvl;
    uint32_t level;
    const uint32_t *present;         /* grid indices of the present chunks, ascending */
    uint32_t present_count;
    pthread_mutex_t lock;            /* guards what follows */
    uint32_t failed_at;              /* lowest failing position so far; present_count = none */
    pmf_error error;
    pmf_level_stats stats;           /* the chunks validated so far */
    pmf_chunk_figures *figures;      /* [present_count] or NULL */
} validate_job;

/* Widens the stats' bounds to hold the box [lo, hi]. */
static void stats_add_box(pmf_level_stats *s, const double lo[3], const double hi[3])
{
    for (int k = 0; k < 3; k++) {
        if (!s->has_bounds || lo[k] < s->min[k])
            s->min[k] = lo[k];
        if (!s->has_bounds || hi[k] > s->max[k])
            s->max[k] = hi[k];
    }
    s->has_bounds = true;
}

/* The box around a chunk's vertices (chunk-local); false when it has none. Four vertices at a
 * time, as lanes of VERTEX_GROUP floats that repeat every vertex: a loop the compiler keeps in
 * vector registers (the whole file's vertices pass through here), in AVX2 where the CPU has it. */
#define VERTEX_FLOATS (sizeof(pmf_vertex) / sizeof(float))
#define VERTEX_GROUP (4 * VERTEX_FLOATS)
PMF_CLONES_AVX2
static bool chunk_vertex_box(const pmf_chunk_client *cl, float lo[3], float hi[3])
{
    if (cl->vertex_count == 0)
        return false;
    const float *f = (const float *)(const void *)cl->vertices;
    size_t floats = (size_t)cl->vertex_count * VERTEX_FLOATS, i = 0;
    float lane_lo[VERTEX_GROUP], lane_hi[VERTEX_GROUP];
    for (size_t j = 0; j < VERTEX_GROUP; j++)
        lane_lo[j] = lane_hi[j] = f[j % VERTEX_FLOATS];
    for (; i + VERTEX_GROUP <= floats; i += VERTEX_GROUP)
        for (size_t j = 0; j < VERTEX_GROUP; j++) {
            float x = f[i + j];
            lane_lo[j] = x < lane_lo[j] ? x : lane_lo[j];
            lane_hi[j] = x > lane_hi[j] ? x : lane_hi[j];
        }
    for (size_t j = 0; i < floats; i++, j++) {
        lane_lo[j] = f[i] < lane_lo[j] ? f[i] : lane_lo[j];
        lane_hi[j] = f[i] > lane_hi[j] ? f[i] : lane_hi[j];
    }
    for (int k = 0; k < 3; k++) {
        lo[k] = lane_lo[k];
        hi[k] = lane_hi[k];
        for (size_t j = k + VERTEX_FLOATS; j < VERTEX_GROUP; j += VERTEX_FLOATS) {
            lo[k] = lane_lo[j] < lo[k] ? lane_lo[j] : lo[k];
            hi[k] = lane_hi[j] > hi[k] ? lane_hi[j] : hi[k];
        }
    }
    return true;
}

/* Adds one chunk's (or a set of chunks') totals to *s. */
static void stats_merge(pmf_level_stats *s, const pmf_level_stats *w)
{
    s->present_chunks += w->present_chunks;
    s->cubes += w->cubes;
    s->vertices += w->vertices;
    s->lightmaps += w->lightmaps;
    for (int n = 0; n <= PMF_MAX_LIGHTMAP_EXP; n++)
        s->lightmaps_by_exp[n] += w->lightmaps_by_exp[n];
    s->dynamic_lights += w->dynamic_lights;
    s->fast_lights += w->fast_lights;
    s->decompressed_bytes += w->decompressed_bytes;
    if (w->has_bounds)
        stats_add_box(s, w->min, w->max);
}

static pmf_chunk_figures chunk_figures(const pmf_chunk *ch, pmf_chunk_coord c, const pmf_chunk_loc *loc)
{
    pmf_chunk_figures fig = { .coord = c, .lightmaps = ch->client.lightmap_count,
                              .dynamic_lights = ch->common.dynamic_light_count };
    for (int b = 0; b < 3; b++) {
        fig.compressed[b] = loc->compressed[b];
        fig.decompressed[b] = loc->decompressed[b];
    }
    for (unsigned m = 0; m < ch->client.lightmap_count; m++)
        fig.lightmap_bytes += (uint64_t)3 << (2 * ch->client.lightmaps[m].size_exp);
    for (unsigned d = 0; d < ch->common.dynamic_light_count; d++) {
        const pmf_client_dynamic_light *cd = &ch->client.dynamic_lights[d];
        fig.layers += cd->layer_count;
        for (unsigned k = 0; k < cd->layer_count; k++)
            fig.layer_bytes += (uint64_t)3 << (2 * ch->client.lightmaps[cd->layers[k].target].size_exp);
    }
    return fig;
}

/* Position i of the present chunks (a worker pool item). */
static void validate_chunk(void *user, size_t i)
{
    validate_job *job = user;
    const pmf_level_info *li = &job->f->levels[job->level];
    pthread_mutex_lock(&job->lock);
    bool past_failure = i > job->failed_at;
    pthread_mutex_unlock(&job->lock);
    if (past_failure)
        return;
    uint32_t g = job->present[i];
    pmf_chunk_coord c = { (g / li->count_z) % li->count_x, g / (li->count_z * li->count_x), g % li->count_z };
    pmf_chunk ch;
    pmf_error err;
    if (!pmf_chunk_read(job->f, job->lvl, job->level, c, PMF_PART_ALL, &ch, &err)) {
        pthread_mutex_lock(&job->lock);
        if (i < job->failed_at) {
            job->failed_at = (uint32_t)i;
            job->error = err;
        }
        pthread_mutex_unlock(&job->lock);
        return;
    }
    const pmf_chunk_loc *loc = &li->chunks[g];
    pmf_level_stats s = { 0 };
    s.present_chunks = 1;
    s.cubes = ch.common.cube_count;
    s.vertices = ch.client.vertex_count;
    s.lightmaps = ch.client.lightmap_count;
    for (unsigned m = 0; m < ch.client.lightmap_count; m++)
        s.lightmaps_by_exp[ch.client.lightmaps[m].size_exp]++;
    s.dynamic_lights = ch.common.dynamic_light_count;
    s.fast_lights = ch.common.fast_light_count;
    s.decompressed_bytes = (uint64_t)loc->decompressed[0] + loc->decompressed[1] + loc->decompressed[2];
    double side = (double)(1ull << li->chunk_size_exp);
    double centre[3] = { ((double)c.x - li->center.x) * side, ((double)c.y - li->center.y) * side,
                         ((double)c.z - li->center.z) * side };
    /* the chunk's own box first: adding the centre keeps the order, so the bounds are the same */
    float lo[3], hi[3];
    if (chunk_vertex_box(&ch.client, lo, hi)) {
        double wlo[3], whi[3];
        for (int k = 0; k < 3; k++) {
            wlo[k] = centre[k] + lo[k];
            whi[k] = centre[k] + hi[k];
        }
        stats_add_box(&s, wlo, whi);
    }
    if (job->figures)
        job->figures[i] = chunk_figures(&ch, c, loc);
    pmf_chunk_free(&ch);
    pthread_mutex_lock(&job->lock);
    stats_merge(&job->stats, &s);
    pthread_mutex_unlock(&job->lock);
}

static int validate_thread_count(uint32_t chunks)
{
    int cores = pmf_cores();
    int n = cores > VALIDATE_MAX_THREADS ? VALIDATE_MAX_THREADS : cores;
    return chunks < (uint32_t)n ? (chunks ? (int)chunks : 1) : n;
}

/* Validates one level's present chunks; adds their totals to *s. */
static bool validate_level_chunks(const pmf_file *f, const pmf_level *lvl, uint32_t level, int max_threads,
                                  pmf_level_stats *s, pmf_chunk_figures **figures, pmf_error *err)
{
    const pmf_level_info *li = &f->levels[level];
    validate_job job = { .f = f, .lvl = lvl, .level = level };
    uint32_t count = 0;
    for (uint32_t g = 0; g < li->chunk_count; g++)
        count += li->chunks[g].compressed[0] != 0;
    uint32_t *present = malloc(((size_t)count + 1) * sizeof *present);
    if (!present) {
        pmf_error_set(err, f->name, "data", li->offset, "out of memory");
        return false;
    }
    for (uint32_t g = 0; g < li->chunk_count; g++)
        if (li->chunks[g].compressed[0])
            present[job.present_count++] = g;
    job.present = present;
    job.failed_at = job.present_count;
    if (figures) {
        job.figures = *figures = calloc((size_t)count + 1, sizeof **figures);
        if (!job.figures) {
            free(present);
            pmf_error_set(err, f->name, "data", li->offset, "out of memory");
            return false;
        }
    }
    pthread_mutex_init(&job.lock, NULL);
    int n = validate_thread_count(job.present_count);
    jobs_parallel_for(job.present_count, n < max_threads ? n : max_threads, validate_chunk, &job);
    pthread_mutex_destroy(&job.lock);
    free(present);
    if (job.failed_at < job.present_count) {
        *err = job.error;
        return false;
    }
    stats_merge(s, &job.stats);
    return true;
}

bool pmf_validate_chunks(const pmf_file *f, pmf_level_stats *stats, void (*each)(void *user, uint32_t level,
                         const pmf_chunk_figures *chunk), void *user, pmf_error *err)
{
    for (uint32_t l = 0; l < f->level_count; l++) {
        const pmf_level_info *li = &f->levels[l];
        pmf_level_stats s = { 0 };
        pmf_level lvl;
        pmf_chunk_figures *figures = NULL;
        if (!pmf_level_read(f, l, PMF_PART_ALL, &lvl, err))
            return false;
        s.decompressed_bytes = (uint64_t)li->decompressed[0] + li->decompressed[1] + li->decompressed[2];
        bool ok = validate_level_chunks(f, &lvl, l, VALIDATE_MAX_THREADS, &s, each ? &figures : NULL, err);
        if (!ok && err && err->over_budget) { /* the chunks decoded beside it held the budget: alone, does it fit? */
            free(figures);
            figures = NULL;
            ok = validate_level_chunks(f, &lvl, l, 1, &s, each ? &figures : NULL, err);
        }
        pmf_level_free(&lvl);
        for (uint32_t i = 0; ok && each && i < s.present_chunks; i++)
            each(user, l, &figures[i]);
        free(figures);
        if (!ok)
            return false;
        if (stats)
            stats[l] = s;
    }
    return true;
}

bool pmf_validate(const pmf_file *f, pmf_level_stats *stats, pmf_error *err)
{
    return pmf_validate_chunks(f, stats, NULL, NULL, err);
}
