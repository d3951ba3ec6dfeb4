/* make_map_seeds.c - writes fuzz_map's seed corpus: `make_map_seeds SHARED_MAP_DIR DIR`: the
 * reader test's map in each dialect (tests/fixtures/map_samples.h), and the real .map files
 * of ../shared/data/map, read there (never stored here). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map_samples.h"

static int write_seed(const char *dir, const char *name, const char *text, size_t size)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(text, 1, size, f) == size;
    if (f && fclose(f) != 0) ok = 0;
    if (!ok) fprintf(stderr, "make_map_seeds: cannot write %s\n", path);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fputs("usage: make_map_seeds SHARED_MAP_DIR DIR\n", stderr);
        return 1;
    }
    const char *to = argv[2];
    int ok = write_seed(to, "standard.map", map_sample_standard, sizeof map_sample_standard - 1)
          && write_seed(to, "valve220.map", map_sample_valve, sizeof map_sample_valve - 1)
          && write_seed(to, "quake2.map", map_sample_quake2, sizeof map_sample_quake2 - 1)
          && write_seed(to, "brushdef.map", map_sample_brushdef, sizeof map_sample_brushdef - 1);
    DIR *d = opendir(argv[1]);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".map")) continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        static char buf[1 << 20];
        size_t got = fread(buf, 1, sizeof buf, f);
        fclose(f);
        ok &= write_seed(to, e->d_name, buf, got);
    }
    if (d) closedir(d);
    return ok ? 0 : 1;
}
