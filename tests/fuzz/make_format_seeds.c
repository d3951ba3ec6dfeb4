/* make_format_seeds.c - seed corpora of fuzz_pmf_legacy and fuzz_pm4:
 * `make_format_seeds legacy|pm4 DIR` writes the tests' legacy draft map (stored and LZ4 blocks)
 * or PM4 tile (with and without the unknown chunk, chunks in two orders). */
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

#include "format_samples.h"

static bool write_seed(const char *dir, const char *name, uint8_t *bytes, size_t size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    bool ok = bytes && sample_write_file(path, bytes, size);
    free(bytes);
    if (!ok)
        fprintf(stderr, "make_format_seeds: cannot write %s\n", path);
    return ok;
}

int main(int argc, char **argv)
{
    bool legacy = argc == 3 && !strcmp(argv[1], "legacy"), pm4 = argc == 3 && !strcmp(argv[1], "pm4");
    if (!legacy && !pm4) {
        fputs("usage: make_format_seeds legacy|pm4 DIR\n", stderr);
        return 1;
    }
    size_t size = 0;
    bool ok = true;
    if (legacy) {
        uint8_t *b = legacy_sample_build(&(legacy_sample_desc){ 0 }, &size);
        ok &= write_seed(argv[2], "stored.pmf", b, size);
        b = legacy_sample_build(&(legacy_sample_desc){ .lz4 = true }, &size);
        ok &= write_seed(argv[2], "lz4.pmf", b, size);
    } else {
        uint8_t *b = pm4_sample_build(&(pm4_sample_desc){ 0 }, &size);
        ok &= write_seed(argv[2], "sample.pm4", b, size);
        b = pm4_sample_build(&(pm4_sample_desc){ .swap_chunks = true, .no_unknown_chunk = true }, &size);
        ok &= write_seed(argv[2], "swapped.pm4", b, size);
    }
    return ok ? 0 : 1;
}
