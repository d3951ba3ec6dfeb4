/* test_pm4.c - the PM4 reader on the sample tile (format_samples.h): every chunk read back with
 * the spec's transforms, the unknown chunk skipped, chunk order free, damaged chunks named with
 * their offset, every truncation and thousands of byte flips clean; tile names and directories. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/programs.h"
#include "common/check.h"
#include "format_samples.h"
#include "pm4_world.h"

static void check_vec(const float v[3], float x, float y, float z)
{
    CHECK(v[0] == x && v[1] == y && v[2] == z);
    if (!(v[0] == x && v[1] == y && v[2] == z))
        fprintf(stderr, "  got (%g, %g, %g), want (%g, %g, %g)\n", (double)v[0], (double)v[1], (double)v[2], (double)x,
                (double)y, (double)z);
}

static void test_values(const pm4_sample_desc *d)
{
    size_t size;
    uint8_t *bytes = pm4_sample_build(d, &size);
    pmf_error err;
    pm4_tile *t = pm4_open_memory(bytes, size, "dir/development_29_32.pm4", &err);
    CHECK(t != NULL);
    if (!t) {
        char line[800];
        fprintf(stderr, "  %s\n", pmf_error_format(&err, line, sizeof line));
        free(bytes);
        return;
    }
    CHECK(t->has_tile_xy && t->tile_x == 29 && t->tile_y == 32);
    CHECK_EQ(t->version, 1);
    CHECK_EQ(t->header[7], 21);
    CHECK_EQ(t->unknown_chunks, d->no_unknown_chunk ? 0 : 1);
    CHECK_EQ(t->entries[PM4_MSVT], 8);
    CHECK_EQ(t->entries[PM4_MSVI], 7);
    CHECK_EQ(t->entries[PM4_MSUR], 2);
    CHECK_EQ(t->entries[PM4_MSPV], 4);
    CHECK_EQ(t->entries[PM4_MSPI], 4);
    CHECK_EQ(t->entries[PM4_MSLK], 1);
    CHECK_EQ(t->entries[PM4_MSCN], 3);
    CHECK_EQ(t->entries[PM4_MPRL], 2);
    CHECK_EQ(t->entries[PM4_MPRR], 2);
    CHECK(!t->present[PM4_MDBH] && !t->present[PM4_MDOS]);
    CHECK_EQ(t->groups, 2);
    CHECK_EQ(t->triangles, 3);
    CHECK_EQ(pm4_msur_ck24(&t->msur[0]), PM4_SAMPLE_CK24_A);
    CHECK_EQ(pm4_msur_ck24(&t->msur[1]), PM4_SAMPLE_CK24_B);
    CHECK(t->msur[1].attribute_mask & PM4_MSUR_LIQUID);
    CHECK_EQ(t->mslk[0].mspi_first, 0);
    CHECK_EQ(t->mslk[0].mspi_count, 4);
    CHECK_EQ(t->mslk[0].link_id, 0xFFFF2920u);
    CHECK_EQ(t->mslk[0].system_flag, 0x8000);
    float w[3], v[3];
    pm4_msvt_world(t, 2, w);
    check_vec(w, 10, 10, 10);
    pm4_msvt_world(t, 5, w);
    check_vec(w, 20, 10, 0);
    pm4_mspv_world(t, 2, w);
    check_vec(w, 5, 5, 0);
    pm4_mscn_world(t, 0, w);
    check_vec(w, 2, -1, 3);
    pm4_mprl_world(t, 0, w);
    check_vec(w, 3, 2, 7);
    pm4_world_to_view((const float[3]){ 3, 2, 7 }, v);
    check_vec(v, 3, 7, -2);
    CHECK(t->has_bounds);
    check_vec(t->bounds_min, 0, 0, -10);
    check_vec(t->bounds_max, 20, 12, 1);
    pm4_close(t);
    free(bytes);
}

static void expect_patch(size_t at, const void *patch, size_t len, const char *block, long long offset, const char *words)
{
    size_t size;
    uint8_t *bytes = pm4_sample_build(&(pm4_sample_desc){ 0 }, &size);
    memcpy(bytes + at, patch, len);
    pmf_error err;
    pm4_tile *t = pm4_open_memory(bytes, size, "patched.pm4", &err);
    CHECK_ERROR(t != NULL, err, block);
    if (offset >= 0)
        CHECK_EQ(err.offset, offset);
    CHECK(strstr(err.message, words) != NULL);
    pm4_close(t);
    free(bytes);
}

/* Chunk offsets of the sample: MVER 0 (12 bytes), MSHD 12 (40), MSLK 52 (28), MSPV 80 (56),
 * MSPI 136 (24), MSVT 160 (104), MSVI 264 (36), XTRA 300 (29), MSUR 329. */
static void test_damaged(void)
{
    expect_patch(0, "XXXX", 4, "file", 0, "not a PM4 file");
    /* MSPI index 3 -> 9, past the 4 path vertices */
    expect_patch(136 + 8 + 12, "\x09", 1, "chunk MSPI", 156, "past the 4 MSPV vertices");
    /* MSVI index 6 -> 8 */
    expect_patch(264 + 8 + 24, "\x08", 1, "chunk MSVI", 296, "past the 8 MSVT vertices");
    /* MSUR 1's MSVI first 4 -> 5: 5 + 3 > 7 */
    expect_patch(329 + 8 + 32 + 20, "\x05", 1, "chunk MSUR", 329 + 8 + 32 + 20, "past the 7 MSVI indices");
    /* MSLK MSPI count 4 -> 5 */
    expect_patch(52 + 8 + 11, "\x05", 1, "chunk MSLK", 52 + 8 + 8, "past the 4 MSPI indices");
    /* MSVT size 96 -> 95: not a multiple of 12 */
    expect_patch(160 + 4, "\x5f", 1, "file", 164, "not a multiple of 12");
    /* the unknown chunk's size runs past the end */
    expect_patch(300 + 4, "\xff\xff\0\0", 4, "file", 304, "past the end of the file");
    /* MSVT twice: the unknown chunk renamed */
    expect_patch(300, "TVSM", 4, "file", 300, "appears twice");
    /* a NaN coordinate in MSPV */
    expect_patch(80 + 8 + 4, "\0\0\xc0\x7f", 4, "chunk MSPV", 92, "not a finite number");
}

static void test_truncate_flip(void)
{
    size_t size;
    uint8_t *bytes = pm4_sample_build(&(pm4_sample_desc){ 0 }, &size);
    uint8_t *copy = malloc(size);
    int opened = 0, failed = 0, cut_ok = 0;
    for (size_t n = 0; n < size; n++) {
        memcpy(copy, bytes, n);
        pmf_error err;
        pm4_tile *t = pm4_open_memory(copy, n, "cut.pm4", &err);
        /* a cut exactly between chunks is a valid shorter file */
        cut_ok += t != NULL;
        CHECK(t || (err.block[0] && err.message[0]));
        pm4_close(t);
    }
    uint32_t seed = 5;
    for (int i = 0; i < 3000; i++) {
        memcpy(copy, bytes, size);
        seed = seed * 1664525u + 1013904223u;
        size_t at = (seed >> 8) % size;
        seed = seed * 1664525u + 1013904223u;
        copy[at] ^= (uint8_t)(1u + (seed >> 24) % 255u);
        pmf_error err;
        pm4_tile *t = pm4_open_memory(copy, size, "flip.pm4", &err);
        opened += t != NULL;
        failed += t == NULL;
        CHECK(t || (err.block[0] && err.message[0] && !strchr(err.message, '\n')));
        pm4_close(t);
    }
    printf("%zu truncations: %d opened (cut between chunks); 3000 flips: %d opened, %d refused\n", size, cut_ok, opened,
           failed);
    CHECK(failed > 0);
    free(copy);
    free(bytes);
}

static void test_directory(void)
{
    char dir[256];
    CHECK(test_temp_dir(dir, sizeof dir, "pm4_world"));
    size_t size;
    uint8_t *bytes = pm4_sample_build(&(pm4_sample_desc){ 0 }, &size);
    const char *names[] = { "w_31_30.pm4", "w_30_30.pm4", "w_30_31.pm4", "notes.txt", "w.pm4" };
    char path[sizeof dir + 32];
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        CHECK(sample_write_file(path, bytes, size));
    }
    CHECK(pm4_directory_has_tiles(dir));
    pmf_error err;
    pm4_world *w = pm4_world_open(dir, &err);
    CHECK(w != NULL);
    if (w) {
        CHECK(w->directory);
        CHECK_EQ(w->tile_count, 3);
        CHECK(w->tiles[0]->tile_x == 30 && w->tiles[0]->tile_y == 30);
        CHECK(w->tiles[1]->tile_x == 31 && w->tiles[1]->tile_y == 30);
        CHECK(w->tiles[2]->tile_x == 30 && w->tiles[2]->tile_y == 31);
        check_vec(w->bounds_max, 20, 12, 1);
    }
    pm4_world_close(w);
    int x, y;
    CHECK(!pm4_tile_coords("w_1234_3.pm4", &x, &y));
    CHECK(!pm4_tile_coords("w_3.pm4", &x, &y));
    CHECK(pm4_tile_coords("a_b_0_63.pm4", &x, &y) && x == 0 && y == 63);
    /* a damaged tile fails the whole world, naming it */
    bytes[0] = 'X';
    snprintf(path, sizeof path, "%s/%s", dir, "w_31_30.pm4");
    CHECK(sample_write_file(path, bytes, size));
    w = pm4_world_open(dir, &err);
    CHECK_ERROR(w != NULL, err, "file");
    CHECK(strstr(err.file, "w_31_30.pm4") != NULL);
    pm4_world_close(w);
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
    free(bytes);
}

int main(void)
{
    test_values(&(pm4_sample_desc){ 0 });
    test_values(&(pm4_sample_desc){ .swap_chunks = true });
    test_values(&(pm4_sample_desc){ .no_unknown_chunk = true });
    test_damaged();
    test_truncate_flip();
    test_directory();
    return check_report("test_pm4");
}
