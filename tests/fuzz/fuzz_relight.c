/* fuzz_relight.c - libFuzzer target: any bytes as pmfc's relight cache file (pmfc --cache DIR,
 * relight.c) of the source in fuzz_relight_level.h, through relight_cache_parse, then each level's
 * kept build through relight_build_restore. The input's key is taken as the compile's and its
 * checksum sealed again, so the fuzzer reaches what a cache whole to both holds: every count and
 * offset must still be checked, and what a refused cache read is freed (LeakSanitizer). */
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
        fputs("fuzz_relight: the source in fuzz_relight_level.h does not compile\n", stderr);
        abort();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *bytes = malloc(size ? size : 1);
    if (!bytes) return 0;
    memcpy(bytes, data, size);
    relight_cache rc = { .level_count = RELIGHT_FUZZ_LEVELS };
    if (size >= 24) memcpy(&rc.key, bytes + 16, sizeof rc.key);
    if (size >= 8) relight_cache_seal(bytes, size);
    rc.levels = xcalloc(RELIGHT_FUZZ_LEVELS + 1, sizeof *rc.levels);
    if (!relight_cache_parse(&rc, bytes, size))
        for (size_t li = 0; li < RELIGHT_FUZZ_LEVELS; li++)
            if (rc.levels[li].built) relight_fuzz_restore(&rc.levels[li], &fuzz_map.layouts[li]);
    relight_cache_free(&rc);
    free(bytes);
    return 0;
}
