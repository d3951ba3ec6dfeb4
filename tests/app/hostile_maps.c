/* hostile_maps.c - hostile_maps KIND IN.pmf OUT.pmf: rewrites a generated map (pmfc --generate)
 * into one of issue 11's "memory out of all proportion" repros, by replacing stored blocks
 * (tests/pmf/block_patch.h), so each case is a small file built by the test itself.
 *
 *   cubes   every present chunk of level 0 holds 2^22 empty cubes (~18 KB stored, ~870 MB decoded):
 *           common block = empty string table and lists, then 2^22 zero bytes; no client or server data
 *   sizes   every present chunk of level 0 but (1,0,1) declares 60 MiB of client data in the chunk
 *           index (its stored bytes unchanged): what a viewer sizing its buffers from the index sees
 *
 * hostile_maps lightmaps OUT.pmf: a valid map of 6 chunks (3 x 1 x 2, 16 m, chunk (1,0,0) at the
 * origin), each a wall at z = -4 over x, y in [-8, 8] cut into 6 strips, every strip with its
 * own 2048^2 lightmap of flat colour (96, 160, 48): 36 lightmaps of 2048^2 (~1.1 GiB as
 * RGBA16F atlas pages). Built with the fixture library's map builder (tests/fixtures/fixture_map.h).
 *
 * hostile_maps layers OUT.pmf: one 16 m chunk, the wall in 4 strips with 1024^2 lightmaps (black),
 * and 255 dynamic lights (IDs 1..255, white, on), each with a flat layer (luxel 1) on one of
 * them: ~800 MB of layers in a small file (issue 11's "255 dynamic lights x layers").
 *
 * hostile_maps textures OUT.pmf: one 16 m chunk, the same wall in two halves (x < 0, x > 0)
 * with materials textured by two 16384^2 RGB PTF textures in the embedded archive, flat colours
 * (200, 100, 50) and (40, 80, 160) (~3 MB each: LZ4 of 768 MiB of texels), lightmap white.
 *
 * hostile_maps texture FORMAT OUT.pmf: the same wall whole, textured by one 16384^2 image of colour
 * (200, 100, 50) in FORMAT: ptf, png, png-interlaced or jpeg (issue 22: each is reduced while it
 * is decoded, but an interlaced PNG, which is decoded whole). */
#include <lz4frame.h>
#include <stdio.h>

#include <png.h>
#include <stdlib.h>
#include <string.h>

#include "ptf.h"

#include "block_patch.h"
#include "fixture_map.h"
#include "rt_shot.h"

#define EMPTY_CUBES (1u << 22)

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

/* Replaces one block of every present level-0 chunk but `keep` (content NULL removes it, or
 * with `declared` keeps its own bytes), declaring `declared` decompressed bytes (0: n). */
static bool patch_chunks_but(test_bytes *file, int part, const uint8_t *content, size_t n, uint32_t declared,
                             const pmf_chunk_coord *keep)
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
                if (!present || (keep && !memcmp(keep, &c, sizeof c)))
                    continue;
                test_bytes block = { .data = (uint8_t *)content, .size = n };
                if (!content && declared) {
                    block = block_get(file->data, file->size, (block_ref){ 0, &c, part });
                    if (!block.data)
                        return false;
                }
                test_bytes next = block_replace(file->data, file->size, (block_ref){ 0, &c, part }, block.data,
                                                block.size, declared ? declared : (uint32_t)n);
                if (block.data != content)
                    free(block.data);
                if (!next.data)
                    return false;
                free(file->data);
                *file = next;
            }
    return true;
}

static bool patch_chunks(test_bytes *file, int part, const uint8_t *content, size_t n)
{
    return patch_chunks_but(file, part, content, n, 0, NULL);
}

static int write_lightmaps_map(const char *out)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, (pmf_chunk_coord){ 3, 1, 2 }, (pmf_chunk_coord){ 1, 0, 0 });
    uint8_t mat = fx_material(l, "wall", NULL, 0, 0);
    for (uint32_t z = 0; z < 2; z++)
        for (uint32_t x = 0; x < 3; x++) {
            fx_chunk *c = fx_chunk_add(l, (pmf_chunk_coord){ x, 0, z });
            for (uint32_t i = 0; i < 6; i++) {
                float quad[4][3];
                float y0 = -8.0f + 16.0f * (float)i / 6.0f, y1 = -8.0f + 16.0f * (float)(i + 1) / 6.0f;
                fx_wall_z(quad, -8, 8, y0, y1, -4, true);
                fx_parent(c, 0, i, i + 1);
                fx_geom_quad(c, i + 1, mat, fx_lightmap(c, 11, 96, 160, 48), quad);
            }
        }
    bool ok = fx_map_write(&m, out);
    fx_map_free(&m);
    return ok ? 0 : 1;
}

static int write_layers_map(const char *out)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, (pmf_chunk_coord){ 1, 1, 1 }, (pmf_chunk_coord){ 0, 0, 0 });
    uint8_t mat = fx_material(l, "wall", NULL, 0, 0);
    fx_chunk *c = fx_chunk_add(l, (pmf_chunk_coord){ 0, 0, 0 });
    uint8_t lm[4];
    for (uint32_t i = 0; i < 4; i++) {
        float quad[4][3];
        float y0 = -8.0f + 4.0f * (float)i, y1 = y0 + 4.0f;
        fx_wall_z(quad, -8, 8, y0, y1, -4, true);
        fx_parent(c, 0, i, i + 1);
        lm[i] = fx_lightmap(c, 10, 0, 0, 0);
        fx_geom_quad(c, i + 1, mat, lm[i], quad);
    }
    static const uint8_t white[3] = { 255, 255, 255 };
    for (uint32_t id = 1; id <= 255; id++)
        fx_dynamic_light(c, id, true, white, lm[id % 4], 1);
    bool ok = fx_map_write(&m, out);
    fx_map_free(&m);
    return ok ? 0 : 1;
}

/* A PTF of 2^exp x 2^exp RGB texels of one colour, compressed in slices (never held whole). */
static uint8_t *flat_ptf(unsigned exp, const uint8_t rgb[3], size_t *size)
{
    size_t row = (size_t)3 << exp, rows = (size_t)1 << exp, slice_rows = 64;
    uint64_t total = (uint64_t)row * rows;
    LZ4F_preferences_t prefs = { 0 };
    prefs.frameInfo.contentSize = total;
    size_t slice = row * slice_rows, bound = LZ4F_compressBound(slice, &prefs);
    size_t cap = PTF_HEADER_SIZE + LZ4F_HEADER_SIZE_MAX + bound * (rows / slice_rows + 1);
    uint8_t *out = malloc(cap), *texels = malloc(slice);
    LZ4F_cctx *cctx = NULL;
    if (!out || !texels || LZ4F_isError(LZ4F_createCompressionContext(&cctx, LZ4F_VERSION))) {
        free(out);
        free(texels);
        return NULL;
    }
    for (size_t i = 0; i < slice; i++)
        texels[i] = rgb[i % 3];
    memcpy(out, "PTF", 3);
    out[3] = PTF_VERSION_MAJOR;
    out[4] = PTF_FORMAT_RGB;
    out[5] = (uint8_t)(exp | exp << 4);
    size_t n = PTF_HEADER_SIZE, r = LZ4F_compressBegin(cctx, out + n, cap - n, &prefs);
    bool ok = !LZ4F_isError(r);
    n += ok ? r : 0;
    for (size_t y = 0; ok && y < rows; y += slice_rows) {
        r = LZ4F_compressUpdate(cctx, out + n, cap - n, texels, slice, NULL);
        ok = !LZ4F_isError(r);
        n += ok ? r : 0;
    }
    r = ok ? LZ4F_compressEnd(cctx, out + n, cap - n, NULL) : 0;
    ok = ok && !LZ4F_isError(r);
    n += ok ? r : 0;
    LZ4F_freeCompressionContext(cctx);
    free(texels);
    if (!ok) {
        free(out);
        return NULL;
    }
    *size = n;
    return realloc(out, n);
}

static int write_textures_map(const char *path)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, (pmf_chunk_coord){ 1, 1, 1 }, (pmf_chunk_coord){ 0, 0, 0 });
    uint8_t mats[2] = { fx_material(l, "huge1", "map:textures/huge1", 0, 0), fx_material(l, "huge2", "map:textures/huge2", 0, 0) };
    fx_chunk *c = fx_chunk_add(l, (pmf_chunk_coord){ 0, 0, 0 });
    uint8_t lm = fx_lightmap(c, 1, 255, 255, 255);
    fx_two_walls(c, mats[0], lm, mats[1], lm);
    static const uint8_t colours[2][3] = { { 200, 100, 50 }, { 40, 80, 160 } };
    uint8_t *data[2] = { NULL, NULL };
    size_t sizes[2] = { 0, 0 };
    const char *paths[2] = { "textures/huge1.ptf", "textures/huge2.ptf" };
    bool ok = true;
    for (int i = 0; i < 2; i++)
        ok = ok && (data[i] = flat_ptf(14, colours[i], &sizes[i])) != NULL;
    ok = ok && fx_map_archive(&m, 2, paths, data, sizes) && fx_map_write(&m, path);
    free(data[0]);
    free(data[1]);
    fx_map_free(&m);
    return ok ? 0 : 1;
}

/* A growing buffer for the encoders' output. */
typedef struct out_bytes { uint8_t *data; size_t size, cap; } out_bytes;

static void png_append(png_structp png, png_bytep data, size_t n)
{
    out_bytes *o = png_get_io_ptr(png);
    if (o->size + n > o->cap) {
        size_t cap = (o->size + n) * 2;
        uint8_t *grown = realloc(o->data, cap);
        if (!grown)
            png_error(png, "out of memory");
        o->data = grown;
        o->cap = cap;
    }
    memcpy(o->data + o->size, data, n);
    o->size += n;
}

static void png_flush_nothing(png_structp png) { (void)png; }

/* A PNG of 2^exp x 2^exp RGB texels of one colour, a row at a time (deflate gets ~1000:1),
 * Adam7-interlaced when asked. */
static uint8_t *flat_png(unsigned exp, const uint8_t rgb[3], bool interlaced, size_t *size)
{
    uint32_t side = 1u << exp;
    out_bytes o = { 0 };
    uint8_t *row = malloc((size_t)side * 3);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!row || !info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(row);
        free(o.data);
        return NULL;
    }
    for (uint32_t x = 0; x < side; x++)
        memcpy(row + (size_t)x * 3, rgb, 3);
    png_set_write_fn(png, &o, png_append, png_flush_nothing);
    png_set_compression_level(png, 1);
    png_set_filter(png, 0, PNG_FILTER_NONE);
    png_set_IHDR(png, info, side, side, 8, PNG_COLOR_TYPE_RGB, interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    int passes = png_set_interlace_handling(png);
    for (int p = 0; p < passes; p++)
        for (uint32_t y = 0; y < side; y++)
            png_write_row(png, row);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    free(row);
    *size = o.size;
    return o.data;
}

typedef struct flat_rows { const uint8_t *rgb; uint32_t side; } flat_rows;

static void flat_row(void *user, uint32_t y, uint8_t *out)
{
    (void)y;
    const flat_rows *f = user;
    for (uint32_t x = 0; x < f->side; x++)
        memcpy(out + (size_t)x * 3, f->rgb, 3);
}

/* A baseline JPEG of 2^exp x 2^exp texels of one colour, a row at a time. */
static uint8_t *flat_jpeg(unsigned exp, const uint8_t rgb[3], size_t *size)
{
    flat_rows rows = { rgb, 1u << exp };
    return fx_jpeg(&(fx_jpeg_desc){ .width = rows.side, .height = rows.side, .quality = 95, .row = flat_row, .user = &rows },
                   size);
}

/* One wall textured by "map:textures/big", a 16384^2 image of colour (200, 100, 50) in the given
 * format (ptf, png, png-interlaced, jpeg) in the embedded archive, lightmap white. */
static int write_texture_map(const char *format, const char *path)
{
    static const uint8_t colour[3] = { 200, 100, 50 };
    size_t size = 0;
    uint8_t *data = NULL;
    const char *name;
    if (!strcmp(format, "ptf")) {
        data = flat_ptf(14, colour, &size);
        name = "textures/big.ptf";
    } else if (!strcmp(format, "png") || !strcmp(format, "png-interlaced")) {
        data = flat_png(14, colour, !strcmp(format, "png-interlaced"), &size);
        name = "textures/big.png";
    } else if (!strcmp(format, "jpeg")) {
        data = flat_jpeg(14, colour, &size);
        name = "textures/big.jpg";
    } else {
        fprintf(stderr, "hostile_maps: unknown texture format '%s'\n", format);
        return 1;
    }
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, (pmf_chunk_coord){ 1, 1, 1 }, (pmf_chunk_coord){ 0, 0, 0 });
    uint8_t mat = fx_material(l, "big", "map:textures/big", 0, 0);
    fx_chunk *c = fx_chunk_add(l, (pmf_chunk_coord){ 0, 0, 0 });
    uint8_t lm = fx_lightmap(c, 1, 255, 255, 255);
    fx_two_walls(c, mat, lm, mat, lm);
    bool ok = data && fx_map_archive(&m, 1, &name, &data, &size) && fx_map_write(&m, path);
    free(data);
    fx_map_free(&m);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "texture"))
        return write_texture_map(argv[2], argv[3]);
    if (argc == 3 && !strcmp(argv[1], "lightmaps"))
        return write_lightmaps_map(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "textures"))
        return write_textures_map(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "layers"))
        return write_layers_map(argv[2]);
    if (argc != 4) {
        fprintf(stderr, "usage: hostile_maps cubes|sizes IN.pmf OUT.pmf | hostile_maps lightmaps|layers|textures OUT.pmf\n"
                        "       hostile_maps texture ptf|png|png-interlaced|jpeg OUT.pmf\n");
        return 1;
    }
    test_bytes file;
    if (!(file.data = test_read_file(argv[2], &file.size))) {
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
    } else if (!strcmp(argv[1], "sizes")) {
        ok = patch_chunks_but(&file, 1, NULL, 0, 60u << 20, &(pmf_chunk_coord){ 1, 0, 1 });
    }
    FILE *out = ok ? fopen(argv[3], "wb") : NULL;
    ok = out && fwrite(file.data, 1, file.size, out) == file.size;
    ok = out && fclose(out) == 0 && ok;
    free(file.data);
    if (!ok)
        fprintf(stderr, "hostile_maps: cannot make the %s map\n", argv[1]);
    return ok ? 0 : 1;
}
