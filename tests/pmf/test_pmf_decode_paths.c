/* test_pmf_decode_paths.c - the decoder's fast paths give what the plain ones gave:
 * - vertices read in place (the client block's vertex array happens to sit 4-aligned) and
 *   copied (it does not) decode to the same chunk, at every alignment of the block;
 * - what a thread keeps between chunks (LZ4F context, read buffer, arena blocks) leaves the
 *   memory budget where it was after every chunk, however many are read, on several threads;
 * - a chunk's blocks read in one pread: a file cut inside the client block still names it. */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "pmf_budget.h"
#include "pmf_internal.h"
#include "sample_map.h"
#include "test_util.h"

static const char *MAP = "decode_paths_test.pmf";

/* The rich chunk of the small sample, encoded then decompressed into its three blocks. */
static void small_chunk_blocks(sample_map *m, uint8_t *blocks[3], size_t sizes[3])
{
    sample_map_build(m, SAMPLE_MAP_SMALL);
    pmf_encoded_chunk enc;
    pmf_error err;
    CHECK(pmf_chunk_encode(&m->levels[0].level, &m->levels[0].chunks[0], &enc, &err), "encode: %s", err.message);
    size_t at = 0;
    for (int i = 0; i < 3; i++) {
        sizes[i] = enc.decompressed[i];
        blocks[i] = malloc(sizes[i] + 8);
        size_t produced;
        const char *problem = enc.compressed[i] ? pmf_lz4_decompress_exact(enc.bytes + at, enc.compressed[i], blocks[i],
                                                                           sizes[i], sizes[i], &produced)
                                                : NULL;
        CHECK(!problem, "block %d: %s", i, problem);
        at += enc.compressed[i];
    }
    pmf_encoded_chunk_free(&enc);
}

static void test_vertices_in_place_and_copied(void)
{
    sample_map m;
    uint8_t *blocks[3];
    size_t sizes[3];
    small_chunk_blocks(&m, blocks, sizes);
    const pmf_chunk *want = &m.levels[0].chunks[0];
    CHECK(want->client.vertex_count > 0, "the sample chunk has vertices");
    int in_place = 0, copied = 0;
    uint8_t *shifted = malloc(sizes[1] + 8);
    for (size_t shift = 0; shift < 4; shift++) {
        /* the client block at each byte alignment: the vertex array's address moves with it */
        uint8_t *client = shifted + shift;
        memcpy(client, blocks[1], sizes[1]);
        const uint8_t *data[3] = { blocks[0], client, blocks[2] };
        pmf_arena *a = pmf_arena_create();
        pmf_chunk got = { 0 };
        got.coord = want->coord;
        pmf_error err;
        CHECK(pmf_decode_chunk_blocks(&m.levels[0].level, "test", "chunk", data, sizes, PMF_PART_ALL, a, &got, &err),
              "shift %zu: %s: %s", shift, err.block, err.message);
        const uint8_t *v = (const uint8_t *)got.client.vertices;
        bool inside = v >= client && v < client + sizes[1];
        in_place += inside;
        copied += !inside;
        CHECK(!inside || (uintptr_t)v % _Alignof(pmf_vertex) == 0, "shift %zu: an unaligned array read in place", shift);
        char why[256];
        CHECK(pmf_compare_chunk(want, &got, why, sizeof why), "shift %zu (%s): %s", shift,
              inside ? "in place" : "copied", why);
        pmf_arena_destroy(a);
    }
    CHECK(in_place == 1 && copied == 3, "in place at %d of 4 alignments, copied at %d (want 1 and 3)", in_place, copied);
    free(shifted);
    for (int i = 0; i < 3; i++)
        free(blocks[i]);
    sample_map_free(&m);
}

typedef struct reader_job {
    const pmf_file *f;
    const pmf_level *lvl;
    uint64_t base;               /* budget in use before any chunk */
    int rounds;
    int failures;
} reader_job;

/* Reads every present chunk of level 0 `rounds` times; after each free the budget is back. */
static void *read_rounds(void *arg)
{
    reader_job *job = arg;
    const pmf_level_info *li = &job->f->levels[0];
    for (int r = 0; r < job->rounds; r++)
        for (uint32_t g = 0; g < li->chunk_count; g++) {
            if (!li->chunks[g].compressed[0])
                continue;
            pmf_chunk_coord c = { (g / li->count_z) % li->count_x, g / (li->count_z * li->count_x), g % li->count_z };
            pmf_chunk ch;
            pmf_error err;
            if (!pmf_chunk_read(job->f, job->lvl, 0, c, PMF_PART_ALL, &ch, &err)) {
                job->failures++;
                continue;
            }
            pmf_chunk_free(&ch);
        }
    return NULL;
}

static void test_kept_memory(void)
{
    pmf_level lvl;
    pmf_file *f = sample_map_open_written(SAMPLE_MAP_KITCHEN_SINK, MAP, &lvl);
    CHECK(f != NULL, "the written sample opens");
    if (!f)
        return;
    uint64_t base = pmf_budget_used();
    reader_job one = { f, &lvl, base, 50, 0 };
    read_rounds(&one);
    CHECK(one.failures == 0 && pmf_budget_used() == base, "one thread, 50 rounds: %d failures, budget %llu -> %llu",
          one.failures, (unsigned long long)base, (unsigned long long)pmf_budget_used());
    /* threads that end free what they kept; the budget never counted it */
    reader_job jobs[3];
    pthread_t threads[3];
    for (int t = 0; t < 3; t++) {
        jobs[t] = (reader_job){ f, &lvl, base, 20, 0 };
        CHECK(pthread_create(&threads[t], NULL, read_rounds, &jobs[t]) == 0, "thread %d", t);
    }
    for (int t = 0; t < 3; t++) {
        pthread_join(threads[t], NULL);
        CHECK(jobs[t].failures == 0, "thread %d: %d failures", t, jobs[t].failures);
    }
    CHECK(pmf_budget_used() == base, "three threads: budget %llu -> %llu", (unsigned long long)base,
          (unsigned long long)pmf_budget_used());
    pmf_level_free(&lvl);
    pmf_close(f);
    unlink(MAP);
}

static void test_cut_inside_client_block(void)
{
    pmf_error err;
    pmf_level lvl;
    pmf_file *f = sample_map_open_written(SAMPLE_MAP_SMALL, MAP, &lvl);
    CHECK(f != NULL && f->data == NULL, "the written sample opens, read through pread");
    if (!f)
        return;
    const pmf_level_info *li = &f->levels[0];
    const pmf_chunk_loc *loc = NULL;
    pmf_chunk_coord c = { 0, 0, 0 };
    for (uint32_t g = 0; g < li->chunk_count && !loc; g++)
        if (li->chunks[g].compressed[0] && li->chunks[g].compressed[1]) {
            loc = &li->chunks[g];
            c = (pmf_chunk_coord){ (g / li->count_z) % li->count_x, g / (li->count_z * li->count_x), g % li->count_z };
        }
    CHECK(loc != NULL, "a chunk with client data");
    if (loc) {
        /* the common block whole, the client block cut after its first byte */
        CHECK(truncate(MAP, (off_t)(loc->offset + loc->compressed[0] + 1)) == 0, "truncate");
        pmf_chunk ch;
        char want[96];
        snprintf(want, sizeof want, "level 0 chunk (%u,%u,%u) client data", c.x, c.y, c.z);
        CHECK(!pmf_chunk_read(f, &lvl, 0, c, PMF_PART_ALL, &ch, &err) && !strcmp(err.block, want)
                  && strstr(err.message, "shrank"),
              "cut in the client block: %s, byte %llu: %s", err.block, (unsigned long long)err.offset, err.message);
    }
    pmf_level_free(&lvl);
    pmf_close(f);
    unlink(MAP);
}

int main(void)
{
    test_vertices_in_place_and_copied();
    test_kept_memory();
    test_cut_inside_client_block();
    TEST_DONE();
}
