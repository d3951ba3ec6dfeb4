/* test_pmf_legacy.c - the legacy PMF draft reader on the sample map (format_samples.h): every
 * value read back, stored and LZ4 blocks, what the draft leaves undefined refused, damaged
 * framing named by block and offset, every truncation and thousands of byte flips clean. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "format_samples.h"
#include "pmf_legacy.h"

static pmfl_map *open_sample(const legacy_sample_desc *d, uint8_t **bytes, size_t *size, pmf_error *err)
{
    *bytes = legacy_sample_build(d, size);
    CHECK(*bytes != NULL);
    return *bytes ? pmfl_open_memory(*bytes, *size, "sample.pmf", err) : NULL;
}

static void test_values(bool lz4)
{
    uint8_t *bytes;
    size_t size;
    pmf_error err;
    pmfl_map *m = open_sample(&(legacy_sample_desc){ .lz4 = lz4 }, &bytes, &size, &err);
    CHECK(m != NULL);
    if (!m) {
        char line[800];
        fprintf(stderr, "  %s\n", pmf_error_format(&err, line, sizeof line));
        free(bytes);
        return;
    }
    CHECK(!strcmp(m->name, "Legacy Sample"));
    CHECK(!strcmp(m->authors, "pmfview tests"));
    CHECK_EQ(m->created, 1700000000);
    CHECK_EQ(m->gamemode_count, 2);
    CHECK(!strcmp(m->gamemodes[1], "deathmatch"));
    for (int i = 0; i < 3; i++)
        CHECK_EQ(m->blocks[i].lz4, lz4);
    CHECK_EQ(m->sections_x, 1);
    CHECK_EQ(m->section_size_exp, 4);
    CHECK_EQ(m->cube_count, LEGACY_CUBES);
    CHECK_EQ(m->cubes_by_type[PMFL_CUBE_PARENT], 1);
    CHECK_EQ(m->cubes_by_type[PMFL_CUBE_SOLID], 2);
    CHECK_EQ(m->cubes_by_type[PMFL_CUBE_ANGLED], 1);
    CHECK_EQ(m->cubes_by_type[PMFL_CUBE_EMPTY], 5);
    CHECK_EQ(m->lit_cubes, 2);
    CHECK(m->cubes[0].flags & PMFL_CUBE_IS_CHUNK);
    CHECK_EQ(m->cubes[1].base_light[0], 128);
    CHECK_EQ(m->cubes[1].face_triangles[PMFL_FACE_POS_Z], 2);
    CHECK_EQ(m->cubes[1].triangle_count, 2);
    CHECK(!strcmp(m->cubes[2].material, LEGACY_MAT_B));
    CHECK_EQ(m->cubes[2].triangle_index, 2);
    CHECK_EQ(m->cubes[3].face_triangles[PMFL_FACE_PLANE], 2);
    CHECK(m->cubes[3].fill == 0.5f && m->cubes[3].pitch == 0.25f && m->cubes[3].yaw == -0.5f);
    CHECK_EQ(m->cubes[3].parent, 0);
    CHECK_EQ(m->cubes[3].depth, 1);
    CHECK_EQ(m->triangle_count, LEGACY_TRIANGLES);
    CHECK_EQ(m->triangle_cube[5], 3);
    CHECK(m->triangles[0].p[1].pos[0] == -2.0f && m->triangles[0].p[1].pos[2] == LEGACY_WALL_Z);
    CHECK(m->triangles[0].p[1].uv[0] == 1.0f && m->triangles[0].p[1].lightmap_uv[1] == 0.5f);
    CHECK_EQ(m->materials_count, 2);
    CHECK(!strcmp(m->materials[0], LEGACY_MAT_A));
    CHECK_EQ(m->team_count, 1);
    CHECK(!strcmp(m->teams[0].name, "red team") && m->teams[0].color[0] == 1.0f);
    CHECK(m->bounds_min[0] == -6 && m->bounds_max[0] == 6 && m->bounds_min[1] == -2 && m->bounds_max[1] == 5);
    pmfl_close(m);
    free(bytes);
}

/* A sample variant that must fail with a message holding `words` in `block`. */
static void expect_refused(const legacy_sample_desc *d, const char *block, const char *words)
{
    uint8_t *bytes;
    size_t size;
    pmf_error err;
    pmfl_map *m = open_sample(d, &bytes, &size, &err);
    CHECK_ERROR(m != NULL, err, block);
    CHECK(strstr(err.message, words) != NULL);
    pmfl_close(m);
    free(bytes);
}

/* Patches bytes of the stored (uncompressed) sample and expects a failure in block at offset. */
static void expect_patch(size_t at, const void *patch, size_t len, const char *block, long long offset, const char *words)
{
    size_t size;
    uint8_t *bytes = legacy_sample_build(&(legacy_sample_desc){ 0 }, &size);
    memcpy(bytes + at, patch, len);
    pmf_error err;
    pmfl_map *m = pmfl_open_memory(bytes, size, "patched.pmf", &err);
    CHECK_ERROR(m != NULL, err, block);
    if (offset >= 0)
        CHECK_EQ(err.offset, offset);
    CHECK(strstr(err.message, words) != NULL);
    pmfl_close(m);
    free(bytes);
}

/* Offsets inside the stored sample: the header is 6 + 14 + 14 + 34 + 8 + 1 + 4 + 11 = 92 bytes,
 * then the shared block's two sizes. */
enum { HEADER_END = 92, SHARED = HEADER_END + 16 };

static void test_damaged(void)
{
    expect_refused(&(legacy_sample_desc){ .props = 3 }, "shared data", "does not define the prop layout");
    expect_refused(&(legacy_sample_desc){ .entities = 2 }, "server data", "does not define the entity layout");
    expect_refused(&(legacy_sample_desc){ .dynamic_lights = 1 }, "shared data", "does not define light references");
    expect_refused(&(legacy_sample_desc){ .lz4 = true, .entities = 1 }, "server data", "entity layout");
    /* a section root past the cube count */
    expect_patch(SHARED + 3, "\x09\0\0\0", 4, "shared data", 3, "past the cube count");
    /* cube 0's first child (at 11 + 1 + 12) made cube 0: a cycle */
    expect_patch(SHARED + 24, "\0\0\0\0", 4, "shared data", 24, "already in the tree");
    /* cube 0's child 0 past the count */
    expect_patch(SHARED + 24, "\x40\0\0\0", 4, "shared data", 24, "past the cube count");
    /* unknown cube type 7 in cube 1 (at 24 + 32 = 56) */
    expect_patch(SHARED + 56, "\x17", 1, "shared data", 56, "unknown cube type");
    /* cube 1's triangle index (56 + 1 + 8 + 4) moved past the triangles */
    expect_patch(SHARED + 69, "\x05\0\0\0", 4, "shared data", 69, "past the triangle count");
    /* the stored shared block's sizes disagree */
    expect_patch(HEADER_END, "\x01", 1, "data", HEADER_END, "sizes differ");
    /* a draft major version of 1 */
    expect_patch(4, "\x01", 1, "header", 4, "major version");
}

/* Every prefix and 3000 single-byte changes of both variants: open fails cleanly or succeeds. */
static void test_truncate_flip(bool lz4)
{
    size_t size;
    uint8_t *bytes = legacy_sample_build(&(legacy_sample_desc){ .lz4 = lz4 }, &size);
    uint8_t *copy = malloc(size);
    int opened = 0, failed = 0;
    for (size_t n = 0; n < size; n++) {
        memcpy(copy, bytes, n);
        pmf_error err;
        pmfl_map *m = pmfl_open_memory(copy, n, "cut.pmf", &err);
        CHECK(m == NULL);
        CHECK(m || (err.block[0] && err.message[0]));
        pmfl_close(m);
    }
    uint32_t seed = lz4 ? 7u : 11u;
    for (int i = 0; i < 3000; i++) {
        memcpy(copy, bytes, size);
        seed = seed * 1664525u + 1013904223u;
        size_t at = (seed >> 8) % size;
        seed = seed * 1664525u + 1013904223u;
        copy[at] ^= (uint8_t)(1u + (seed >> 24) % 255u);
        pmf_error err;
        pmfl_map *m = pmfl_open_memory(copy, size, "flip.pmf", &err);
        if (m)
            opened++;
        else
            failed++;
        CHECK(m || (err.block[0] && err.message[0] && !strchr(err.message, '\n')));
        pmfl_close(m);
    }
    printf("%s: %zu truncations refused; 3000 flips: %d opened, %d refused\n", lz4 ? "lz4" : "stored", size, opened, failed);
    CHECK(failed > 0);
    free(copy);
    free(bytes);
}

int main(void)
{
    test_values(false);
    test_values(true);
    test_damaged();
    test_truncate_flip(false);
    test_truncate_flip(true);
    return check_report("test_pmf_legacy");
}
