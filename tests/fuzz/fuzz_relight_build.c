/* fuzz_relight_build.c - libFuzzer target: any bytes as the level pmfc keeps for a relight
 * (relight_build.c: faces, chunks, lightmap blocks, octrees, vertices), unpacked, for a level of
 * the source in fuzz_relight_level.h: packed with LZ4 as relight_build_keep packs it and taken
 * back by relight_build_restore, which checks every count against what is left and every index
 * against what it indexes (fuzz_relight reaches these bytes only through LZ4's). */
#include <lz4.h>
#include <stdlib.h>

#include "fuzz_relight_level.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static relight_fuzz_map fuzz_map;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (!relight_fuzz_map_load(&fuzz_map)) {
        fputs("fuzz_relight_build: the source in fuzz_relight_level.h does not compile\n", stderr);
        abort();
    }
    return 0;
}

/* The first byte picks the level; the rest is its block. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size - 1 > LZ4_MAX_INPUT_SIZE) return 0;
    const level_build *layout = &fuzz_map.layouts[data[0] % RELIGHT_FUZZ_LEVELS];
    uint64_t raw = size - 1;
    int bound = LZ4_compressBound((int)raw);
    relight_level rl = { 0 };
    rl.built = xmalloc(sizeof raw + (size_t)bound);
    memcpy(rl.built, &raw, sizeof raw);
    int n = LZ4_compress_default((const char *)data + 1, (char *)rl.built + sizeof raw, (int)raw, bound);
    rl.built_size = sizeof raw + (size_t)(n > 0 ? n : 0);
    relight_fuzz_restore(&rl, layout);
    xfree(rl.built);
    return 0;
}
