/* write_sample.c - writes a sample map to a file: `pmf_write_sample OUT.pmf [small]`. Used by
 * the pmfview info tests and the fuzzer's seed corpus. */
#include <stdio.h>
#include <string.h>

#include "sample_map.h"

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "small"))) {
        fputs("usage: pmf_write_sample OUT.pmf [small]\n", stderr);
        return 1;
    }
    sample_map m;
    sample_map_build(&m, argc == 3 ? SAMPLE_MAP_SMALL : SAMPLE_MAP_KITCHEN_SINK);
    pmf_error err;
    bool ok = sample_map_write_file(&m, argv[1], &err);
    sample_map_free(&m);
    if (!ok) {
        char line[600];
        fprintf(stderr, "pmf_write_sample: %s\n", pmf_error_format(&err, line, sizeof line));
        return 2;
    }
    return 0;
}
