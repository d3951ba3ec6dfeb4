/* hostile_maps.c - hostile_maps KIND IN.pmf OUT.pmf: rewrites a generated map (pmfc --generate)
 * into one of issue 11's "memory out of all proportion" repros, by replacing stored blocks
 * (tests/pmf/block_patch.h), so each case is a small file built by the test itself.
 *
 *   cubes   every present chunk of level 0 holds 2^22 empty cubes (~18 KB stored, ~870 MB decoded):
 *           common block = empty string table and lists, then 2^22 zero bytes; no client or server data */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block_patch.h"

#define EMPTY_CUBES (1u << 22)

static bool read_file(const char *path, test_bytes *out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    out->data = n > 0 ? malloc((size_t)n) : NULL;
    out->size = (size_t)n;
    bool ok = out->data && fread(out->data, 1, out->size, f) == out->size;
    fclose(f);
    return ok;
}

/* Common chunk data of `cubes` empty cubes: string table size, 3 used-material counts, 2 region
 * counts, 2 light counts (all 0), cube count, one flags/type byte per cube. */
static uint8_t *empty_cubes_block(uint32_t cubes, size_t *size)
{
    *size = 4 + 3 + 2 + 2 + 4 + (size_t)cubes;
    uint8_t *b = calloc(1, *size);
    if (b)
        memcpy(b + 4 + 3 + 2 + 2, &cubes, 4); /* little-endian host, as the tests assume */
    return b;
}

/* Replaces one block of every present level-0 chunk (content NULL removes it). */
static bool patch_chunks(test_bytes *file, int part, const uint8_t *content, size_t n)
{
    pmf_error err;
    pmf_file *f = pmf_open_memory(file->data, file->size, "in", &err);
    if (!f)
        return false;
    const pmf_level_info *li = &f->levels[0];
    uint32_t cx = li->count_x, cy = li->count_y, cz = li->count_z;
    pmf_close(f);
    for (uint32_t y = 0; y < cy; y++)
        for (uint32_t z = 0; z < cz; z++)
            for (uint32_t x = 0; x < cx; x++) {
                pmf_chunk_coord c = { x, y, z };
                f = pmf_open_memory(file->data, file->size, "in", &err);
                bool present = f && pmf_chunk_present(f, 0, c);
                pmf_close(f);
                if (!present)
                    continue;
                test_bytes next = block_replace(file->data, file->size, (block_ref){ 0, &c, part }, content, n,
                                                (uint32_t)n);
                if (!next.data)
                    return false;
                free(file->data);
                *file = next;
            }
    return true;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: hostile_maps cubes IN.pmf OUT.pmf\n");
        return 1;
    }
    test_bytes file;
    if (!read_file(argv[2], &file)) {
        fprintf(stderr, "hostile_maps: cannot read %s\n", argv[2]);
        return 1;
    }
    bool ok = false;
    if (!strcmp(argv[1], "cubes")) {
        size_t n;
        uint8_t *common = empty_cubes_block(EMPTY_CUBES, &n);
        ok = common && patch_chunks(&file, 2, NULL, 0) && patch_chunks(&file, 1, NULL, 0) &&
             patch_chunks(&file, 0, common, n);
        free(common);
    }
    FILE *out = ok ? fopen(argv[3], "wb") : NULL;
    ok = out && fwrite(file.data, 1, file.size, out) == file.size;
    ok = out && fclose(out) == 0 && ok;
    free(file.data);
    if (!ok)
        fprintf(stderr, "hostile_maps: cannot make the %s map\n", argv[1]);
    return ok ? 0 : 1;
}
