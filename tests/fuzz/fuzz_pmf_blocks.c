/* fuzz_pmf_blocks.c - libFuzzer target for the block decoders without LZ4 in the way: the input
 * is decompressed block bytes, decoded against the kitchen-sink map's level 0.
 *   byte 0: even = a chunk's blocks, odd = a level's blocks
 *   u32 size of block 0, u32 size of block 1, then block 0, block 1, block 2 (the rest).
 * Each block gets its own exact-size allocation so ASan sees any read past its end. Whatever
 * decodes must also be accepted by the writer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmf_internal.h"
#include "sample_map.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t *map_bytes;
static pmf_file *map;
static pmf_level level0;

/* At exit, so LeakSanitizer in the replay test (replay_main.c) sees only the inputs' leaks. */
static void release_map(void)
{
    pmf_level_free(&level0);
    pmf_close(map);
    free(map_bytes);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    sample_map m;
    sample_map_build(&m, SAMPLE_MAP_KITCHEN_SINK);
    size_t size;
    pmf_error err;
    if (!sample_map_write_memory(&m, &map_bytes, &size, &err) || !(map = pmf_open_memory(map_bytes, size, "kitchen", &err)) ||
        !pmf_level_read(map, 0, PMF_PART_ALL, &level0, &err)) {
        fprintf(stderr, "fuzz_pmf_blocks: setup: %s\n", err.message);
        abort();
    }
    sample_map_free(&m);
    atexit(release_map);
    return 0;
}

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

static void fuzz_chunk(uint8_t *const block[3], const size_t bsize[3])
{
    pmf_arena *a = pmf_arena_create();
    pmf_chunk ch = { 0 };
    ch.coord = (pmf_chunk_coord){ 1, 0, 1 };
    pmf_error err;
    const uint8_t *data[3] = { block[0], block[1], block[2] };
    if (pmf_decode_chunk_blocks(&level0, "fuzz", "chunk (1,0,1)", data, bsize, PMF_PART_ALL, a, &ch, &err)) {
        pmf_encoded_chunk enc;
        if (!pmf_chunk_encode(&level0, &ch, &enc, &err)) {
            fprintf(stderr, "decoded chunk refused by the writer: %s: %s\n", err.block, err.message);
            abort();
        }
        pmf_encoded_chunk_free(&enc);
    }
    pmf_arena_destroy(a);
}

static void fuzz_level(uint8_t *const block[3], const size_t bsize[3])
{
    pmf_arena *a = pmf_arena_create();
    pmf_level lvl = { 0 };
    lvl.chunk_size_exp = level0.chunk_size_exp;
    lvl.count_x = level0.count_x;
    lvl.count_y = level0.count_y;
    lvl.count_z = level0.count_z;
    lvl.center = level0.center;
    pmf_error err;
    static bool (*const decode[3])(pmf_cursor *, pmf_arena *, pmf_level *) = {
        pmf_decode_level_common, pmf_decode_level_client, pmf_decode_level_server };
    bool ok = true;
    for (int i = 0; i < 3 && ok; i++) {
        pmf_cursor c = pmf_cursor_make(block[i], bsize[i], 0, "fuzz", pmf_part_names[i], &err);
        ok = decode[i](&c, a, &lvl);
        lvl.parts |= 1u << i;
    }
    if (ok) {
        pmf_buf out[3];
        if (!pmf_encode_level_blocks(&lvl, "level", out, &err)) {
            fprintf(stderr, "decoded level refused by the writer: %s: %s\n", err.block, err.message);
            abort();
        }
        for (int i = 0; i < 3; i++)
            pmf_buf_free(&out[i]);
    }
    pmf_arena_destroy(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 9)
        return 0;
    bool level = data[0] & 1;
    size_t left = size - 9;
    const uint8_t *p = data + 9;
    size_t bsize[3];
    bsize[0] = rd32(data + 1) < left ? rd32(data + 1) : left;
    left -= bsize[0];
    bsize[1] = rd32(data + 5) < left ? rd32(data + 5) : left;
    bsize[2] = left - bsize[1];
    uint8_t *block[3];
    for (int i = 0; i < 3; i++) {
        block[i] = bsize[i] ? malloc(bsize[i]) : NULL;
        if (bsize[i])
            memcpy(block[i], p, bsize[i]);
        p += bsize[i];
    }
    if (level)
        fuzz_level(block, bsize);
    else
        fuzz_chunk(block, bsize);
    for (int i = 0; i < 3; i++)
        free(block[i]);
    return 0;
}
