/* fuzz_pmf.c - libFuzzer target: open any bytes as a PMF and validate every level and chunk.
 * When the bytes are a valid map, writing it again must give a valid map with identical
 * decoded contents (the writer accepts what the reader accepts, and loses nothing). */
#include <stdio.h>
#include <stdlib.h>

#include "sample_map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pmf_error err;
    pmf_file *f = pmf_open_memory(data, size, "fuzz", &err);
    if (!f)
        return 0;
    if (pmf_validate(f, NULL, &err)) {
        uint8_t *again = NULL;
        size_t again_size = 0;
        char why[256];
        if (!sample_rewrite(f, &again, &again_size, &err)) {
            fprintf(stderr, "a valid map could not be written again: %s: %s\n", err.block, err.message);
            abort();
        }
        pmf_file *g = pmf_open_memory(again, again_size, "again", &err);
        if (!g || !pmf_validate(g, NULL, &err) || !sample_compare_files(f, g, why, sizeof why)) {
            fprintf(stderr, "write(read(f)) differs: %s\n", g ? why : err.message);
            abort();
        }
        pmf_close(g);
        free(again);
    }
    pmf_close(f);
    return 0;
}
