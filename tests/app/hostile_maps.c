/* hostile_maps.c - hostile_maps KIND IN.pmf OUT.pmf: rewrites a generated map (pmfc --generate)
 * into one of issue 11's "memory out of all proportion" repros, by replacing stored blocks
 * (tests/pmf/block_patch.h), so each case is a small file built by the test itself.
 *
 *   cubes   every present chunk of level 0 holds 2^22 empty cubes (~18 KB stored, ~870 MB decoded):
 *           common block = empty string table and lists, then 2^22 zero bytes; no client or server data
 *
 * hostile_maps lightmaps OUT.pmf: a valid map of 6 chunks (3 x 1 x 2, 16 m, chunk (1,0,0) at the
 * origin), each a wall at z = -4 over x, y in [-8, 8] cut into 6 strips, every strip with its
 * own 2048^2 lightmap of flat colour (96, 160, 48): 36 lightmaps of 2048^2 (~1.1 GiB as
 * RGBA16F atlas pages). Built with the render tests' map writer (tests/render/rt_map.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block_patch.h"
#include "rt_map.h"

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

static int write_lightmaps_map(const char *out)
{
    rt_map m = { 0 };
    rt_level *l = rt_level_add(&m, 4, (pmf_chunk_coord){ 3, 1, 2 }, (pmf_chunk_coord){ 1, 0, 0 });
    uint8_t mat = rt_material(l, "wall", NULL, 0, 0);
    for (uint32_t z = 0; z < 2; z++)
        for (uint32_t x = 0; x < 3; x++) {
            rt_chunk *c = rt_chunk_add(l, (pmf_chunk_coord){ x, 0, z });
            for (uint32_t i = 0; i < 6; i++) {
                float quad[4][3];
                float y0 = -8.0f + 16.0f * (float)i / 6.0f, y1 = -8.0f + 16.0f * (float)(i + 1) / 6.0f;
                rt_wall_z(quad, -8, 8, y0, y1, -4, true);
                rt_parent(c, 0, i, i + 1);
                rt_geom_quad(c, i + 1, mat, rt_lightmap(c, 11, 96, 160, 48), quad);
            }
        }
    bool ok = rt_map_write(&m, out);
    rt_map_free(&m);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "lightmaps"))
        return write_lightmaps_map(argv[2]);
    if (argc != 4) {
        fprintf(stderr, "usage: hostile_maps cubes IN.pmf OUT.pmf | hostile_maps lightmaps OUT.pmf\n");
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
