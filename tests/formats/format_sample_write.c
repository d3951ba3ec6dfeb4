/* format_sample_write.c - `format_sample_write PATH VARIANT`: writes the tests' legacy draft map
 * (VARIANT 0) or PM4 tile (VARIANT 1) to PATH, or (VARIANT 2) the legacy map's two textures as a
 * game directory PATH (textures/grey.png 200,200,200 and textures/blue.png 30,60,250), for the
 * window tests (view_window_test.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format_samples.h"

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[2], "0") && strcmp(argv[2], "1") && strcmp(argv[2], "2"))) {
        fputs("usage: format_sample_write PATH 0|1|2\n", stderr);
        return 1;
    }
    if (!strcmp(argv[2], "2"))
        return legacy_sample_write_textures(argv[1]) ? 0 : 1;
    size_t size = 0;
    uint8_t *bytes = !strcmp(argv[2], "0") ? legacy_sample_build(&(legacy_sample_desc){ 0 }, &size)
                                           : pm4_sample_build(&(pm4_sample_desc){ 0 }, &size);
    bool ok = bytes && sample_write_file(argv[1], bytes, size);
    free(bytes);
    return ok ? 0 : 1;
}
