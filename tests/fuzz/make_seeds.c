/* make_seeds.c - writes the PMF fuzzers' seed corpora: `make_seeds files|blocks DIR`.
 * files: the small and kitchen-sink sample maps and one map per level of the kitchen sink
 * (fuzz_pmf); blocks: the kitchen sink's level 0 blocks and its chunks' blocks in
 * fuzz_pmf_blocks' input format. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block_patch.h"
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

static void put32(FILE *fp, uint32_t v)
{
    uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
    fwrite(b, 1, 4, fp);
}

/* kind 0 = chunk, 1 = level; then the three decompressed blocks. */
static bool write_block_seed(const char *dir, const char *name, const uint8_t *file, size_t size, uint8_t kind,
                             const pmf_chunk_coord *chunk)
{
    test_bytes b[3];
    bool ok = true;
    for (int i = 0; i < 3; i++) {
        b[i] = block_get(file, size, (block_ref){ 0, chunk, i });
        ok &= b[i].data != NULL;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = ok ? fopen(path, "wb") : NULL;
    if (fp) {
        fputc(kind, fp);
        put32(fp, (uint32_t)b[0].size);
        put32(fp, (uint32_t)b[1].size);
        for (int i = 0; i < 3; i++)
            fwrite(b[i].data, 1, b[i].size, fp);
        ok = fclose(fp) == 0;
    } else {
        ok = false;
    }
    for (int i = 0; i < 3; i++)
        free(b[i].data);
    if (!ok)
        fprintf(stderr, "make_seeds: cannot write %s\n", path);
    return ok;
}

int main(int argc, char **argv)
{
    bool files = argc == 3 && !strcmp(argv[1], "files"), blocks = argc == 3 && !strcmp(argv[1], "blocks");
    if (!files && !blocks) {
        fputs("usage: make_seeds files|blocks DIR\n", stderr);
        return 1;
    }
    const char *dir = argv[2];
    bool ok = true;
    sample_map m;
    if (files) {
        sample_map_build(&m, SAMPLE_MAP_SMALL);
        ok &= write_seed(dir, "small", &m);
        sample_map_free(&m);
    }

    sample_map_build(&m, SAMPLE_MAP_KITCHEN_SINK);
    if (files) {
        ok &= write_seed(dir, "kitchen_sink", &m);
        /* each level alone: smaller inputs that still reach every decoder */
        sample_map one = m;
        one.data = (pmf_data_desc){ 0 };
        one.level_count = 1;
        for (uint32_t l = 0; l < m.level_count; l++) {
            char name[32];
            snprintf(name, sizeof name, "level%u", l);
            one.levels[0] = m.levels[l];
            ok &= write_seed(dir, name, &one);
        }
    } else {
        uint8_t *file = NULL;
        size_t size = 0;
        pmf_error err;
        ok &= sample_map_write_memory(&m, &file, &size, &err);
        if (file) {
            ok &= write_block_seed(dir, "level0", file, size, 1, NULL);
            for (uint32_t i = 0; i < m.levels[0].chunk_count; i++) {
                char name[32];
                snprintf(name, sizeof name, "chunk%u", i);
                ok &= write_block_seed(dir, name, file, size, 0, &m.levels[0].chunks[i].coord);
            }
        }
        free(file);
    }
    sample_map_free(&m);
    return ok ? 0 : 2;
}
