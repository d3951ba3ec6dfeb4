/* format_sample_write.c - `format_sample_write PATH VARIANT`: writes the tests' legacy draft map
 * (VARIANT 0) or PM4 tile (VARIANT 1) to PATH, for the window tests (view_window_test.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format_samples.h"

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[2], "0") && strcmp(argv[2], "1"))) {
        fputs("usage: format_sample_write PATH 0|1\n", stderr);
        return 1;
    }
    size_t size = 0;
    uint8_t *bytes = !strcmp(argv[2], "0") ? legacy_sample_build(&(legacy_sample_desc){ 0 }, &size)
                                           : pm4_sample_build(&(pm4_sample_desc){ 0 }, &size);
    bool ok = bytes && sample_write_file(argv[1], bytes, size);
    free(bytes);
    return ok ? 0 : 1;
}
