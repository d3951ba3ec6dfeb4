/* make_seeds.c - writes the fuzzer's seed corpus: `make_seeds DIR` writes the small and the
 * kitchen-sink sample maps and one map per level of the kitchen sink into DIR. */
#include <stdio.h>
#include <stdlib.h>

#include "sample_map.h"

static bool write_seed(const char *dir, const char *name, const sample_map *m)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.pmf", dir, name);
    pmf_error err;
    if (!sample_map_write_file(m, path, &err)) {
        char line[600];
        fprintf(stderr, "make_seeds: %s\n", pmf_error_format(&err, line, sizeof line));
        return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: make_seeds DIR\n", stderr);
        return 1;
    }
    bool ok = true;
    sample_map m;
    sample_map_build(&m, SAMPLE_MAP_SMALL);
    ok &= write_seed(argv[1], "small", &m);
    sample_map_free(&m);

    sample_map_build(&m, SAMPLE_MAP_KITCHEN_SINK);
    ok &= write_seed(argv[1], "kitchen_sink", &m);
    /* each level alone: smaller inputs that still reach every decoder */
    sample_map one = m;
    one.data = (pmf_data_desc){ 0 };
    one.level_count = 1;
    for (uint32_t l = 0; l < m.level_count; l++) {
        char name[32];
        snprintf(name, sizeof name, "level%u", l);
        one.levels[0] = m.levels[l];
        ok &= write_seed(argv[1], name, &one);
    }
    sample_map_free(&m);
    return ok ? 0 : 2;
}
