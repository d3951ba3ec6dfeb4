/* test_res_flip.c - truncations and byte flips of a valid PAF and PTF: each gives a clean error
 * or a valid parse, never a crash, hang or out-of-bounds read (run it under ASan). */
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "pmf/paf.h"
#include "pmf/ptf.h"

#define FLIPS 3000

static uint32_t rng_state = 0x9E3779B9u;
static uint32_t rng(void)
{
    rng_state ^= rng_state << 13; /* xorshift32: same sequence every run */
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

static const char *const paths[] = { "a.txt", "dir/b.bin", "dir/sub/c", "link", "dir/sub/up", "nope", "dir" };

/* Opens, lists and reads everything; returns how many files were read. */
static int exercise_paf(const uint8_t *data, size_t size)
{
    pmf_error err;
    paf_archive ar;
    int read = 0;
    if (!paf_open(data, size, "flip.paf", 0, &ar, &err))
        return 0;
    paf_entry *list;
    uint32_t count;
    if (paf_list(&ar, NULL, &list, &count, &err))
        free(list);
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        uint8_t *bytes = NULL;
        size_t n;
        paf_entry e;
        if (paf_lookup(&ar, paths[i], &e, &err) == PAF_FOUND && e.type == PAF_DIRENT_DIR && paf_list(&ar, &e, &list, &count, &err))
            free(list);
        if (paf_read(&ar, paths[i], &bytes, &n, &err) == PAF_FOUND)
            read++;
        free(bytes);
    }
    return read;
}

/* Returns 1 when the mutant still decodes. */
static int exercise_ptf(const uint8_t *data, size_t size)
{
    pmf_error err;
    uint8_t *rgba = NULL;
    uint32_t w, h;
    bool ok = ptf_decode(data, size, "flip.ptf", &rgba, &w, &h, &err);
    free(rgba);
    return ok;
}

/* Every truncation, then FLIPS random byte changes (1-3 bytes each) of a copy. */
static void flip_loop(const uint8_t *valid, size_t size, int (*exercise)(const uint8_t *, size_t), const char *what)
{
    int parsed = 0;
    for (size_t n = 0; n < size; n++) {
        uint8_t *cut = malloc(n ? n : 1);
        memcpy(cut, valid, n);
        exercise(cut, n);
        free(cut);
    }
    uint8_t *copy = malloc(size);
    for (int i = 0; i < FLIPS; i++) {
        memcpy(copy, valid, size);
        int changes = 1 + (int)(rng() % 3);
        for (int c = 0; c < changes; c++) {
            uint32_t r = rng();
            size_t at = r % size;
            /* half the time a single bit, else a whole byte (also 0x00 / 0xFF extremes) */
            copy[at] = (r >> 24) & 1 ? copy[at] ^ (uint8_t)(1u << ((r >> 16) & 7)) : (uint8_t)(r >> 8);
        }
        parsed += exercise(copy, size) > 0;
    }
    free(copy);
    printf("%s: %d of %d mutants still parsed\n", what, parsed, FLIPS);
}

int main(void)
{
    pmf_error err;
    paf_writer *w = paf_writer_create();
    CHECK(paf_writer_add_file(w, "a.txt", "alpha", 5, &err));
    CHECK(paf_writer_add_file(w, "dir/b.bin", "\x01\x02\x03", 3, &err));
    CHECK(paf_writer_add_file(w, "dir/sub/c", "charlie!", 8, &err));
    CHECK(paf_writer_add_link(w, "link", "dir/sub/c", &err));
    CHECK(paf_writer_add_link(w, "dir/sub/up", "../../a.txt", &err));
    uint8_t *arc;
    size_t arc_size;
    CHECK(paf_writer_finish(w, &arc, &arc_size, &err));
    paf_writer_destroy(w);
    CHECK_EQ(exercise_paf(arc, arc_size), 5);
    flip_loop(arc, arc_size, exercise_paf, "paf");
    free(arc);

    uint8_t rgba[8 * 8 * 4];
    for (size_t i = 0; i < sizeof rgba; i++)
        rgba[i] = (uint8_t)(i * 7 + i / 13);
    uint8_t *ptf;
    size_t ptf_size;
    CHECK(ptf_encode(rgba, 8, 8, PTF_FORMAT_RGBA, &ptf, &ptf_size, &err));
    CHECK(exercise_ptf(ptf, ptf_size));
    flip_loop(ptf, ptf_size, exercise_ptf, "ptf");
    free(ptf);
    return check_report("test_res_flip");
}
