/* fuzz_rmf.c - libFuzzer target: read any bytes as an RMF map. A refusal must be one printable
 * line naming a place inside the file; a map that reads, in a version the test writer knows (2.2,
 * 1.8, 0.9), must read back the same after being written again (the writer accepts what the
 * reader accepts, and the reader loses nothing). */
#include <stdio.h>
#include <stdlib.h>

#include "rmf_build.h"
#include "rmf_compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rmf_map map;
    pmf_error err;
    if (!rmf_read(data, size, "fuzz.rmf", &map, &err)) {
        char line[512];
        pmf_error_format(&err, line, sizeof line);
        for (const char *p = line; *p; p++)
            if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7F) {
                fprintf(stderr, "raw byte in the error line: %s\n", line);
                abort();
            }
        if (!err.block[0] || !err.message[0] || err.offset > size) {
            fprintf(stderr, "error names no place in the file: %s\n", line);
            abort();
        }
        return 0;
    }
    uint8_t *again_data;
    size_t again_size;
    if (rmf_build_map(&map, &again_data, &again_size)) {
        rmf_map again;
        char why[256] = "the written map does not read";
        if (!rmf_read(again_data, again_size, "fuzz.rmf", &again, &err) || !rmf_compare_maps(&map, &again, why, sizeof why)) {
            fprintf(stderr, "write(read(f)) differs: %s\n", why);
            abort();
        }
        rmf_free(&again);
        free(again_data);
    }
    rmf_free(&map);
    return 0;
}
