/* test_pmf_roundtrip.c - the kitchen-sink map: write -> read -> compare every field with the
 * original, exact decoded values, write(read(f)) byte-identical, atomic file writing, and
 * decoding one file from several threads at once. */
#include <dirent.h>
#include <pthread.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "block_patch.h"
#include "pmf_budget.h"
#include "sample_map.h"
#include "test_util.h"

static char why[256];

static void check_exact_values(const pmf_file *f)
{
    CHECK(f->header.major == 0, "major");
    CHECK(f->header.created == 1700000000u, "created %llu", (unsigned long long)f->header.created);
    CHECK(!strcmp(f->header.name, "Kitchen Sink"), "name %s", f->header.name);
    CHECK(!strcmp(f->header.compiler, "sample_map.c"), "compiler");
    CHECK(f->header.gamemode_count == 4, "gamemodes %u", f->header.gamemode_count);
    CHECK(!strcmp(f->header.gamemodes[2], "fifteen_chars_x") && !strcmp(f->header.gamemodes[3], ""), "gamemode names");
    CHECK(f->string_table.size == 8 && !memcmp(f->string_table.data, "\0global\0", 8), "data string table");
    CHECK(f->archive.size == 12 && !memcmp(f->data + f->archive.offset, "PAF\0", 4), "archive");
    CHECK(f->extension_count == 3, "extensions");
    CHECK(f->extensions[0].size == 4 && !memcmp(f->data + f->extensions[0].offset, "ext0", 4), "extension 0");
    CHECK(f->extensions[1].size == 0, "extension 1");
    CHECK(f->extensions[2].size == 16 && !memcmp(f->data + f->extensions[2].offset, "second extension", 16), "extension 2");
    CHECK(f->global_entity_count == 3 && f->global_entities.size == 6 &&
              !memcmp(f->data + f->global_entities.offset, "G\1G\2G\3", 6), "global entities");
    CHECK(f->level_count == 3, "levels %u", f->level_count);
    const pmf_level_info *li = &f->levels[0];
    CHECK(li->count_x == 3 && li->count_y == 2 && li->count_z == 2 && li->chunk_count == 12, "grid");
    CHECK(li->present_chunks == 3, "present %u", li->present_chunks);
    CHECK(li->center.x == 1 && li->center.y == 0 && li->center.z == 1, "center");
    CHECK(f->levels[2].present_chunks == 0 && f->levels[2].chunk_count == 2, "void level");
    CHECK(pmf_chunk_present(f, 0, (pmf_chunk_coord){ 1, 0, 1 }) && !pmf_chunk_present(f, 0, (pmf_chunk_coord){ 1, 1, 1 }) &&
              !pmf_chunk_present(f, 0, (pmf_chunk_coord){ 3, 0, 0 }) && !pmf_chunk_present(f, 9, (pmf_chunk_coord){ 0, 0, 0 }),
          "chunk_present");

    pmf_error err;
    pmf_level lvl;
    CHECK(pmf_level_read(f, 0, PMF_PART_ALL, &lvl, &err), "level 0: %s", err.message);
    CHECK(lvl.common.material_count == 10 && !strcmp(lvl.common.materials[2].name, "water") &&
              lvl.common.materials[2].flags == (PMF_MATERIAL_TRANSPARENT | PMF_MATERIAL_LIQUID), "materials");
    CHECK(lvl.common.physics_materials[0].friction == 0.8f && lvl.common.physics_materials[2].damage_per_speed == 2.0f,
          "physics floats");
    CHECK(lvl.common.weather_envs[1].wind_dir_seed == 0xDEADBEEFu, "weather seed");
    CHECK(!strcmp(lvl.client.sky_envs[1].skybox[PMF_FACE_POS_Y], "sky_py") && !strcmp(lvl.client.sky_envs[1].skybox[0], ""),
          "skybox names");
    CHECK(lvl.client.sky_envs[1].flags == PMF_SKY_3D_SKYBOX && lvl.client.sky_envs[1].skybox_chunk.x == 2 &&
              lvl.client.sky_envs[1].skybox_chunk.y == 1 && lvl.client.sky_envs[1].skybox_chunk.z == 1, "3D skybox chunk");
    CHECK(lvl.client.materials[2].extra_texture_count == 2 && !strcmp(lvl.client.materials[2].extra_textures[1], "textures/water2"),
          "extra textures");
    CHECK(lvl.server.entity_count == 1 && lvl.server.entities.size == 5, "level entities");

    pmf_chunk ch;
    CHECK(pmf_chunk_read(f, &lvl, 0, (pmf_chunk_coord){ 1, 0, 1 }, PMF_PART_ALL, &ch, &err), "chunk: %s", err.message);
    CHECK(ch.parts == PMF_PART_ALL, "parts");
    CHECK(ch.common.material_map[0] == 2 && ch.common.material_map[1] == 0 && ch.common.material_map[2] == 1, "material_map");
    CHECK(ch.common.physics_material_map[0] == 1 && ch.common.physics_material_map[1] == 0, "physics_material_map");
    CHECK(!strcmp(ch.common.used_sound_materials[1], ""), "empty sound material name");
    CHECK(ch.common.cube_count == 7 && ch.common.cubes[2].type == PMF_CUBE_EXTGEOMETRY &&
              ch.common.cubes[2].u.ext.points[7][2] == -8.0f, "ext cube");
    CHECK(ch.common.cubes[0].vis.chunks[1].cubes[1] == 3, "vis chunk cubes");
    CHECK(ch.client.vertex_count == 50 && ch.client.vertices[49].uv[1] == -49.0f, "vertices");
    CHECK(ch.client.lightmaps[0].size_exp == 2 && ch.client.lightmaps[0].luxels[47] == (uint8_t)(10 + 47 * 7), "luxels");
    CHECK(ch.client.dynamic_lights[0].layers[1].target == 1 && ch.client.dynamic_lights[0].layers[1].luxels[11] == (uint8_t)(44 + 77),
          "layer luxels");
    CHECK(ch.client.fast_lights[1].ranges[0].skip == 42 && ch.client.fast_lights[1].ranges[0].multipliers[7] == (uint8_t)(3 + 49),
          "fast range");
    CHECK(ch.client.cubes[2].u.ext.first_vertex == 24 && ch.client.cubes[2].u.ext.lightmap[2] == PMF_NO_LIGHTMAP, "client ext");
    CHECK(ch.client.cubes[1].lighting.dynamic[1].amount == 128, "light refs");
    CHECK(!strcmp(ch.client.sky_regions[0].env, "space"), "sky region resolves in the common table");
    CHECK(!strcmp(ch.server.cubes[1].attrs[1].name, "target_a") && ch.server.cubes[4].attrs[0].direction[1] == 1.0f,
          "pathfinding");
    CHECK(ch.server.string_table.size >= 9 && !memcmp(ch.server.string_table.data, "target_a\0", 9), "server table prefix kept");
    CHECK(ch.server.entity_count == 2 && ch.server.entities.size == 6, "chunk entities");
    pmf_chunk_free(&ch);

    /* parts: server alone; common alone is enough for any chunk part */
    pmf_level part;
    CHECK(pmf_level_read(f, 0, PMF_PART_SERVER, &part, &err) && part.parts == PMF_PART_SERVER && part.server.entity_count == 1,
          "level server part: %s", err.message);
    CHECK(!pmf_chunk_read(f, &part, 0, (pmf_chunk_coord){ 1, 0, 1 }, PMF_PART_ALL, &ch, &err) && strstr(err.message, "common"),
          "a chunk needs the level's common part");
    pmf_level_free(&part);
    CHECK(pmf_level_read(f, 0, PMF_PART_COMMON, &part, &err) && part.parts == PMF_PART_COMMON, "level common part");
    CHECK(pmf_chunk_read(f, &part, 0, (pmf_chunk_coord){ 1, 0, 1 }, PMF_PART_SERVER, &ch, &err) &&
              ch.parts == (PMF_PART_COMMON | PMF_PART_SERVER) && ch.server.cubes[4].attr_count == 1 && ch.client.cubes == NULL,
          "chunk server part: %s", err.message);
    pmf_chunk_free(&ch);
    CHECK(pmf_chunk_read(f, &part, 0, (pmf_chunk_coord){ 1, 0, 1 }, PMF_PART_CLIENT, &ch, &err) &&
              ch.parts == (PMF_PART_COMMON | PMF_PART_CLIENT) && ch.client.vertex_count == 50,
          "chunk client part without the level's client part: %s", err.message);
    pmf_chunk_free(&ch);
    pmf_level_free(&part);
    CHECK(!pmf_level_read(f, 3, PMF_PART_ALL, &part, &err) && !strcmp(err.block, "data"), "level 3 does not exist");

    /* a void grid position reads as parts == 0 */
    CHECK(pmf_chunk_read(f, &lvl, 0, (pmf_chunk_coord){ 0, 1, 0 }, PMF_PART_ALL, &ch, &err) && ch.parts == 0, "void chunk");
    CHECK(!pmf_chunk_read(f, &lvl, 0, (pmf_chunk_coord){ 3, 0, 0 }, PMF_PART_ALL, &ch, &err), "outside the grid");
    pmf_level_free(&lvl);

    pmf_level_stats stats[3];
    CHECK(pmf_validate(f, stats, &err), "validate: %s", err.message);
    CHECK(stats[0].present_chunks == 3 && stats[0].cubes == 9 && stats[0].vertices == 50 + 4 + 24 && stats[0].lightmaps == 3 &&
              stats[0].dynamic_lights == 2 && stats[0].fast_lights == 2,
          "stats level 0: %u chunks %llu cubes %llu vertices %llu lightmaps", stats[0].present_chunks,
          (unsigned long long)stats[0].cubes, (unsigned long long)stats[0].vertices, (unsigned long long)stats[0].lightmaps);
    CHECK(stats[1].present_chunks == 1 && stats[1].vertices == 24 && stats[1].cubes == 9 && stats[2].present_chunks == 0, "stats levels 1, 2");
}

/* Every level and chunk of f equals the sample's structs. */
static void compare_with_sample(const pmf_file *f, const sample_map *m)
{
    pmf_error err;
    for (uint32_t l = 0; l < m->level_count; l++) {
        pmf_level lvl;
        if (!pmf_level_read(f, l, PMF_PART_ALL, &lvl, &err)) {
            CHECK(0, "level %u: %s", l, err.message);
            continue;
        }
        CHECK(pmf_compare_level(&m->levels[l].level, &lvl, why, sizeof why), "level %u: %s", l, why);
        for (uint32_t i = 0; i < m->levels[l].chunk_count; i++) {
            const pmf_chunk *orig = &m->levels[l].chunks[i];
            pmf_chunk ch;
            if (!pmf_chunk_read(f, &lvl, l, orig->coord, PMF_PART_ALL, &ch, &err)) {
                CHECK(0, "chunk: %s", err.message);
                continue;
            }
            CHECK(pmf_compare_chunk(orig, &ch, why, sizeof why), "level %u chunk %u: %s", l, i, why);
            pmf_chunk_free(&ch);
        }
        pmf_level_free(&lvl);
    }
}

/* Written string tables start with a NUL and hold each string once. */
static void check_string_tables(const uint8_t *bytes, size_t size)
{
    test_bytes client = block_get(bytes, size, (block_ref){ 0, NULL, 1 });
    CHECK(client.data && client.size > 5, "level 0 client block");
    if (!client.data)
        return;
    uint32_t table = (uint32_t)client.data[0] | (uint32_t)client.data[1] << 8 | (uint32_t)client.data[2] << 16 |
                     (uint32_t)client.data[3] << 24;
    CHECK(table <= client.size - 4 && client.data[4] == 0, "table starts with a NUL");
    int copies = 0;
    for (uint32_t i = 0; i + 15 <= table; i++)
        copies += !memcmp(client.data + 4 + i, "textures/stone", 15);
    CHECK(copies == 1, "'textures/stone' (8 materials) stored %d times", copies);
    free(client.data);
}

typedef struct thread_job {
    const pmf_file *f;
    const pmf_level *lvl;
    const sample_map *m;
    int failures;
} thread_job;

static void *decode_many(void *arg)
{
    thread_job *job = arg;
    char reason[256];
    for (int i = 0; i < 40; i++) {
        const pmf_chunk *orig = &job->m->levels[0].chunks[i % job->m->levels[0].chunk_count];
        pmf_chunk ch;
        pmf_error err;
        if (!pmf_chunk_read(job->f, job->lvl, 0, orig->coord, PMF_PART_ALL, &ch, &err) ||
            !pmf_compare_chunk(orig, &ch, reason, sizeof reason))
            job->failures++;
        pmf_chunk_free(&ch);
    }
    return NULL;
}

static void check_threads(const pmf_file *f, const sample_map *m)
{
    pmf_level lvl;
    pmf_error err;
    if (!pmf_level_read(f, 0, PMF_PART_COMMON | PMF_PART_CLIENT, &lvl, &err)) {
        CHECK(0, "%s", err.message);
        return;
    }
    CHECK(lvl.parts == (PMF_PART_COMMON | PMF_PART_CLIENT), "parts %u", lvl.parts);
    pthread_t t[4];
    thread_job jobs[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (thread_job){ f, &lvl, m, 0 };
        pthread_create(&t[i], NULL, decode_many, &jobs[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        CHECK(jobs[i].failures == 0, "thread %d: %d failures", i, jobs[i].failures);
    }
    pmf_level_free(&lvl);
}

static int entries_in(const char *dir)
{
    DIR *d = opendir(dir);
    int entries = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            entries++;
    if (d)
        closedir(d);
    return entries;
}

static void check_file_writing(const sample_map *m)
{
    char dir[] = "/tmp/pmf_roundtrip_XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp");
        return;
    }
    char path[512];
    snprintf(path, sizeof path, "%s/kitchen.pmf", dir);
    pmf_error err;
    CHECK(sample_map_write_file(m, path, &err), "write file: %s", err.message);
    CHECK(sample_map_write_file(m, path, &err), "overwrite file: %s", err.message);
    pmf_file *f = pmf_open(path, &err);
    CHECK(f != NULL, "open: %s", err.message);
    if (f) {
        CHECK(pmf_validate(f, NULL, &err), "validate: %s", err.message);
        compare_with_sample(f, m);
        pmf_close(f);
    }
    /* nothing but the map is left in the directory (no temp files) */
    int entries = entries_in(dir);
    CHECK(entries == 1, "%d entries in %s", entries, dir);
    /* a path in a missing directory fails cleanly */
    snprintf(path, sizeof path, "%s/missing/x.pmf", dir);
    CHECK(!sample_map_write_file(m, path, &err) && strstr(err.message, "temporary"), "bad path: %s", err.message);
    CHECK(pmf_open(path, &err) == NULL && !strcmp(err.block, "file"), "open missing");
    snprintf(path, sizeof path, "%s/kitchen.pmf", dir);
    unlink(path);
    rmdir(dir);
}

/* Chunks spooled to a scratch file as they are put give the very bytes of the in-memory writer,
 * finished to a file or to memory, and leave nothing but the map behind. */
static void check_streamed_writing(const sample_map *m)
{
    char dir[] = "/tmp/pmf_stream_XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp");
        return;
    }
    char path[512];
    snprintf(path, sizeof path, "%s/kitchen.pmf", dir);
    pmf_error err;
    uint8_t *expected = NULL, *copy = NULL;
    size_t expected_size = 0, copy_size = 0;
    CHECK(sample_map_write_memory(m, &expected, &expected_size, &err), "write memory: %s", err.message);
    CHECK(sample_map_write_streamed(m, path, &copy, &copy_size, &err), "write streamed: %s", err.message);
    CHECK(copy && copy_size == expected_size && !memcmp(copy, expected, expected_size),
          "streamed, finished to memory: %zu bytes, %zu expected", copy_size, expected_size);
    uint8_t *written = NULL;
    size_t written_size = 0;
    CHECK(pmf_read_whole_file(path, 1u << 24, &written, &written_size, &err), "read back: %s", err.message);
    CHECK(written && written_size == expected_size && !memcmp(written, expected, expected_size),
          "streamed file: %zu bytes, %zu expected", written_size, expected_size);
    struct stat st;
    mode_t mask = umask(022);
    umask(mask);
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == (0666 & ~mask), "mode %o", (unsigned)st.st_mode & 0777);
    CHECK(entries_in(dir) == 1, "%d entries in %s", entries_in(dir), dir);
    free(expected);
    free(copy);
    pmf_budget_free(written);
    /* a scratch file that cannot grow (the file size limit): the chunk that did not fit is named */
    struct rlimit old_limit, tiny = { 16, 16 };
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    if (getrlimit(RLIMIT_FSIZE, &old_limit) == 0 && setrlimit(RLIMIT_FSIZE, &tiny) == 0) {
        bool written = sample_map_write_streamed(m, path, NULL, NULL, &err);
        setrlimit(RLIMIT_FSIZE, &old_limit);
        CHECK(!written && strstr(err.message, "cannot write the scratch file") && strstr(err.block, "chunk ("),
              "file size limit: %s: %s", err.block, err.message);
        CHECK(entries_in(dir) == 1, "%d entries in %s after a failed write", entries_in(dir), dir);
    }
    signal(SIGXFSZ, old_handler);
    /* no directory for the scratch file: refused at once, naming it */
    snprintf(path, sizeof path, "%s/missing/x.pmf", dir);
    CHECK(!sample_map_write_streamed(m, path, NULL, NULL, &err) && strstr(err.message, "scratch file") &&
              !strcmp(err.block, "file"), "bad path: %s", err.message);
    snprintf(path, sizeof path, "%s/kitchen.pmf", dir);
    unlink(path);
    rmdir(dir);
}

/* A server string table that already holds every pathfinding name (one as a suffix of another
 * string) is written unchanged: entities may refer into it. Found by fuzzing. */
static void check_server_table_kept(sample_map *m)
{
    static const char table[] = "target_a\0xwalk\0fly\0";
    pmf_chunk *ch = &m->levels[0].chunks[0];
    pmf_blob saved = ch->server.string_table;
    ch->server.string_table = (pmf_blob){ (const uint8_t *)table, sizeof table - 1 };
    uint8_t *bytes = NULL;
    size_t size = 0;
    pmf_error err;
    CHECK(sample_map_write_memory(m, &bytes, &size, &err), "write: %s", err.message);
    pmf_file *f = bytes ? pmf_open_memory(bytes, size, "table.pmf", &err) : NULL;
    pmf_level lvl;
    pmf_chunk got;
    if (f && pmf_level_read(f, 0, PMF_PART_COMMON, &lvl, &err)) {
        CHECK(pmf_chunk_read(f, &lvl, 0, ch->coord, PMF_PART_ALL, &got, &err), "read: %s", err.message);
        CHECK(got.server.string_table.size == sizeof table - 1 && !memcmp(got.server.string_table.data, table, sizeof table - 1),
              "server table grew to %zu bytes", got.server.string_table.size);
        CHECK(!strcmp(got.server.cubes[1].attrs[0].name, "walk"), "suffix string");
        pmf_chunk_free(&got);
        pmf_level_free(&lvl);
    } else {
        CHECK(0, "open: %s", err.message);
    }
    pmf_close(f);
    free(bytes);
    ch->server.string_table = saved;
}

int main(void)
{
    sample_map m;
    sample_map_build(&m, SAMPLE_MAP_KITCHEN_SINK);
    uint8_t *bytes = NULL;
    size_t size = 0;
    pmf_error err;
    if (!sample_map_write_memory(&m, &bytes, &size, &err)) {
        char line[512];
        fprintf(stderr, "write failed: %s\n", pmf_error_format(&err, line, sizeof line));
        return 1;
    }
    pmf_file *f = pmf_open_memory(bytes, size, "kitchen.pmf", &err);
    CHECK(f != NULL, "open: %s", err.message);
    if (f) {
        check_exact_values(f);
        check_string_tables(bytes, size);
        compare_with_sample(f, &m);
        check_threads(f, &m);

        uint8_t *again = NULL;
        size_t again_size = 0;
        CHECK(sample_rewrite(f, &again, &again_size, &err), "rewrite: %s", err.message);
        CHECK(again_size == size && again && !memcmp(again, bytes, size), "write(read(f)) is not byte-identical (%zu vs %zu)",
              again_size, size);
        pmf_file *g = again ? pmf_open_memory(again, again_size, "again.pmf", &err) : NULL;
        CHECK(g != NULL, "reopen: %s", err.message);
        if (g) {
            compare_with_sample(g, &m);
            CHECK(sample_compare_files(f, g, why, sizeof why), "files differ: %s", why);
            pmf_close(g);
        }
        free(again);
        pmf_close(f);
    }
    check_file_writing(&m);
    check_streamed_writing(&m);

    sample_map small;
    sample_map_build(&small, SAMPLE_MAP_SMALL);
    check_server_table_kept(&small);
    uint8_t *small_bytes = NULL;
    size_t small_size = 0;
    CHECK(sample_map_write_memory(&small, &small_bytes, &small_size, &err), "small: %s", err.message);
    pmf_file *s = small_bytes ? pmf_open_memory(small_bytes, small_size, "small.pmf", &err) : NULL;
    CHECK(s && pmf_validate(s, NULL, &err), "small validate: %s", err.message);
    if (s)
        compare_with_sample(s, &small);
    pmf_close(s);
    free(small_bytes);
    sample_map_free(&small);

    free(bytes);
    sample_map_free(&m);
    TEST_DONE();
}
