/* test_pmf_truncate_flip.c - damaged copies of a small valid map: every truncation of the file
 * and of every decompressed block, and thousands of seeded byte flips (in the file and inside
 * decompressed blocks). Each copy is opened and fully validated: a clean error or a valid
 * parse, never a crash (the sanitizer build turns any overread into a failure). */
#include <string.h>

#include "block_patch.h"
#include "sample_map.h"
#include "test_util.h"

static uint32_t rng_state = 0x12345678u;
static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

static int valid_count, error_count;

/* Opens and validates; returns true when the file is valid. */
static bool try_parse(const uint8_t *data, size_t size)
{
    pmf_error err;
    memset(&err, 0, sizeof err);
    pmf_file *f = pmf_open_memory(data, size, "damaged.pmf", &err);
    bool ok = f && pmf_validate(f, NULL, &err);
    pmf_close(f);
    if (ok) {
        valid_count++;
    } else {
        error_count++;
        CHECK(err.block[0] && err.message[0] && !strcmp(err.file, "damaged.pmf"), "error without block or message");
    }
    return ok;
}

static void truncate_file(const uint8_t *file, size_t size)
{
    int accepted = 0;
    for (size_t n = 0; n < size; n++) {
        uint8_t *copy = malloc(n + 1); /* a fresh allocation of exactly n bytes for ASan */
        memcpy(copy, file, n);
        accepted += try_parse(copy, n);
        free(copy);
    }
    /* nothing in the small map is optional: every cut is an error */
    CHECK(accepted == 0, "%d truncated files accepted", accepted);
}

static void truncate_blocks(const uint8_t *file, size_t size, block_ref ref)
{
    test_bytes block = block_get(file, size, ref);
    CHECK(block.data != NULL, "block %d", ref.part);
    int accepted = 0;
    for (size_t n = 0; block.data && n < block.size; n++) {
        test_bytes b = block_replace(file, size, ref, block.data, n, (uint32_t)n);
        accepted += try_parse(b.data, b.size);
        free(b.data);
    }
    /* only the server blocks end in undecoded entity bytes that may shrink */
    CHECK(ref.part == 2 || accepted == 0, "part %d: %d truncated blocks accepted", ref.part, accepted);
    free(block.data);
}

static void flip_file(const uint8_t *file, size_t size, int rounds)
{
    uint8_t *copy = malloc(size);
    for (int r = 0; r < rounds; r++) {
        memcpy(copy, file, size);
        int flips = 1 + (int)(rng() % 4);
        for (int k = 0; k < flips; k++)
            copy[rng() % size] ^= (uint8_t)(1 + rng() % 255);
        try_parse(copy, size);
    }
    free(copy);
}

static void flip_blocks(const uint8_t *file, size_t size, block_ref ref, int rounds)
{
    test_bytes block = block_get(file, size, ref);
    if (!block.data)
        return;
    for (int r = 0; r < rounds; r++) {
        test_bytes copy = { malloc(block.size), block.size };
        memcpy(copy.data, block.data, block.size);
        int flips = 1 + (int)(rng() % 3);
        for (int k = 0; k < flips; k++) {
            size_t at = rng() % block.size;
            /* small numbers are the interesting ones for counts and indices */
            copy.data[at] = (rng() & 1) ? (uint8_t)(copy.data[at] ^ (1u << (rng() % 8))) : (uint8_t)(rng() % 8);
        }
        test_bytes b = block_replace(file, size, ref, copy.data, copy.size, (uint32_t)copy.size);
        try_parse(b.data, b.size);
        free(b.data);
        free(copy.data);
    }
    free(block.data);
}

int main(void)
{
    sample_map m;
    sample_map_build(&m, SAMPLE_MAP_SMALL);
    uint8_t *file;
    size_t size;
    pmf_error err;
    if (!sample_map_write_memory(&m, &file, &size, &err)) {
        fprintf(stderr, "setup: %s\n", err.message);
        return 1;
    }
    sample_map_free(&m);
    CHECK(try_parse(file, size), "the undamaged map is valid");

    truncate_file(file, size);
    static const pmf_chunk_coord rich = { 1, 0, 0 };
    for (int part = 0; part < 3; part++) {
        truncate_blocks(file, size, (block_ref){ 0, NULL, part });
        truncate_blocks(file, size, (block_ref){ 0, &rich, part });
    }
    flip_file(file, size, 3000);
    for (int part = 0; part < 3; part++) {
        flip_blocks(file, size, (block_ref){ 0, NULL, part }, 300);
        flip_blocks(file, size, (block_ref){ 0, &rich, part }, 700);
    }
    printf("%zu-byte map: %d damaged copies valid, %d clean errors\n", size, valid_count, error_count);
    CHECK(error_count > 5000, "only %d errors", error_count);
    free(file);
    TEST_DONE();
}
