/* test_wad_roundtrip.c - textures written by wad_build decode to exactly the texels put in:
 * several sizes (square and not), '{' holes, palettes shorter than 256, names in any case,
 * animation frames, lump listing, and wad_open on real files, directories and FIFOs.
 * Usage: test_wad_roundtrip WORK_DIR */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/programs.h"
#include "common/check.h"
#include "wad.h"
#include "wad_build.h"

/* 200 colours, distinct in red so the RGBA path builds the same palette back. */
static void test_colour(unsigned i, uint8_t rgb[3])
{
    rgb[0] = (uint8_t)i;
    rgb[1] = (uint8_t)(i * 7);
    rgb[2] = (uint8_t)(255 - i);
}

static uint8_t *pattern_rgba(uint32_t w, uint32_t h, unsigned seed)
{
    uint8_t *rgba = malloc((size_t)w * h * 4);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *t = rgba + 4 * ((size_t)y * w + x);
            test_colour((x * 7 + y * 13 + seed) % 200, t);
            t[3] = 255;
        }
    return rgba;
}

static void check_texture(const wad_file *w, const char *name, uint32_t width, uint32_t height, const uint8_t *expected)
{
    wad_texture t;
    pmf_error err;
    int r = wad_load_texture(w, name, &t, &err);
    CHECK_EQ(r, 1);
    if (r != 1)
        return;
    CHECK_EQ(t.width, width);
    CHECK_EQ(t.height, height);
    size_t bytes = (size_t)width * height * 4, first_diff = bytes;
    for (size_t i = 0; i < bytes && first_diff == bytes; i++)
        if (t.rgba[i] != expected[i])
            first_diff = i;
    if (first_diff != bytes)
        fprintf(stderr, "  %s: first difference at byte %zu: %u != %u\n", name, first_diff, t.rgba[first_diff], expected[first_diff]);
    CHECK_EQ(first_diff, bytes);
    wad_texture_free(&t);
    CHECK(t.rgba == NULL);
}

static void test_sizes(void)
{
    static const uint32_t sizes[][2] = { { 16, 16 }, { 32, 64 }, { 64, 32 }, { 128, 128 }, { 256, 128 }, { 48, 16 } };
    enum { N = sizeof sizes / sizeof sizes[0] };
    static const char *const names[N] = { "TILE16", "tall32x64", "Wide64x32", "crate128", "BIG256X128", "strip48" };
    uint8_t *rgba[N];
    wad_build *b = wad_build_create();
    for (int i = 0; i < N; i++) {
        rgba[i] = pattern_rgba(sizes[i][0], sizes[i][1], (unsigned)i * 31);
        CHECK(wad_build_add_rgba(b, names[i], sizes[i][0], sizes[i][1], rgba[i]));
    }
    uint8_t *file;
    size_t size;
    CHECK(wad_build_finish(b, &file, &size));
    wad_build_destroy(b);
    pmf_error err;
    wad_file *w = wad_open_memory(file, size, "x.wad", &err);
    CHECK(w != NULL);
    if (w) {
        CHECK_EQ(wad_count(w), N);
        for (int i = 0; i < N; i++) {
            CHECK(strcmp(wad_name(w, (uint32_t)i), names[i]) == 0);
            CHECK_EQ(wad_type(w, (uint32_t)i), WAD_TYPE_MIPTEX);
            check_texture(w, names[i], sizes[i][0], sizes[i][1], rgba[i]);
        }
        CHECK(wad_name(w, N) == NULL);
        /* any case finds the texture; the decoded name is the directory's */
        check_texture(w, "tile16", 16, 16, rgba[0]);
        check_texture(w, "TALL32X64", 32, 64, rgba[1]);
        check_texture(w, "big256x128", 256, 128, rgba[4]);
        CHECK(wad_has(w, "wIDE64X32"));
        wad_texture t = { .width = 7 };
        CHECK_EQ(wad_load_texture(w, "Crate128", &t, &err), 1);
        CHECK(strcmp(t.name, "crate128") == 0);
        wad_texture_free(&t);
        /* missing names: 0, out untouched */
        t = (wad_texture){ .width = 7 };
        CHECK_EQ(wad_load_texture(w, "crate12", &t, &err), 0);
        CHECK_EQ(wad_load_texture(w, "crate1280", &t, &err), 0);
        CHECK_EQ(wad_load_texture(w, "", &t, &err), 0);
        CHECK_EQ(wad_load_texture(w, "a_name_far_longer_than_15", &t, &err), 0);
        CHECK_EQ(t.width, 7);
        CHECK(t.rgba == NULL);
        CHECK(!wad_has(w, "TILE1"));
        CHECK(!wad_has(w, "TILE16 "));
        wad_close(w);
    }
    printf("sizes: %d textures in a %zu-byte WAD decode exactly\n", N, size);
    for (int i = 0; i < N; i++)
        free(rgba[i]);
    free(file);
}

/* wad.h: any number of threads may load from one wad_file at once. */
typedef struct load_job { const wad_file *w; const char *name; const uint8_t *expected; size_t bytes; int wrong; } load_job;

static void *load_many(void *arg)
{
    load_job *job = arg;
    for (int i = 0; i < 50; i++) {
        wad_texture t;
        pmf_error err;
        if (wad_load_texture(job->w, job->name, &t, &err) != 1) {
            job->wrong++;
            continue;
        }
        job->wrong += memcmp(t.rgba, job->expected, job->bytes) != 0;
        wad_texture_free(&t);
    }
    return NULL;
}

static void test_threads(void)
{
    enum { THREADS = 4 };
    uint8_t *rgba = pattern_rgba(128, 64, 9);
    wad_build *b = wad_build_create();
    CHECK(wad_build_add_rgba(b, "shared", 128, 64, rgba));
    uint8_t *file;
    size_t size;
    CHECK(wad_build_finish(b, &file, &size));
    wad_build_destroy(b);
    pmf_error err;
    wad_file *w = wad_open_memory(file, size, "x.wad", &err);
    CHECK(w != NULL);
    pthread_t threads[THREADS];
    load_job jobs[THREADS];
    int wrong = 0;
    for (int i = 0; w && i < THREADS; i++) {
        jobs[i] = (load_job){ w, i % 2 ? "SHARED" : "shared", rgba, 128 * 64 * 4, 0 };
        CHECK(pthread_create(&threads[i], NULL, load_many, &jobs[i]) == 0);
    }
    for (int i = 0; w && i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        wrong += jobs[i].wrong;
    }
    printf("threads: %d threads x 50 loads of one texture, %d wrong\n", THREADS, wrong);
    CHECK_EQ(wrong, 0);
    wad_close(w);
    free(file);
    free(rgba);
}

/* '{' textures: the last palette colour is a hole (0,0,0,0); every other texel is opaque, even
 * colours equal to the hole's RGB. Names without '{' keep the last colour opaque. */
static void test_holes(void)
{
    enum { W = 32, H = 16 };
    uint8_t indices[W * H], palette[256 * 3], short_palette[16 * 3];
    for (unsigned i = 0; i < 256; i++)
        test_colour(i, palette + 3 * i);
    memcpy(palette + 3 * 255, palette, 3); /* the hole's RGB also names colour 0 */
    memcpy(short_palette, palette, sizeof short_palette);
    size_t holes = 0;
    for (int i = 0; i < W * H; i++) {
        indices[i] = (i % 5 == 0) ? 255 : (uint8_t)(i % 7);
        holes += indices[i] == 255;
    }
    uint8_t short_indices[W * H];
    for (int i = 0; i < W * H; i++)
        short_indices[i] = (uint8_t)(i % 16);
    wad_build *b = wad_build_create();
    CHECK(wad_build_add_indexed(b, "{FENCE", W, H, indices, palette, 256));
    CHECK(wad_build_add_indexed(b, "SOLID", W, H, indices, palette, 256));
    CHECK(wad_build_add_indexed(b, "{short", W, H, short_indices, short_palette, 16));
    uint8_t rgba_in[8 * 8 * 4];
    for (int i = 0; i < 64; i++) {
        test_colour((unsigned)i, rgba_in + 4 * i);
        rgba_in[4 * i + 3] = i % 3 ? 255 : 0;
    }
    CHECK(wad_build_add_rgba(b, "{grate", 8, 8, rgba_in));
    uint8_t *file;
    size_t size;
    CHECK(wad_build_finish(b, &file, &size));
    wad_build_destroy(b);
    pmf_error err;
    wad_file *w = wad_open_memory(file, size, "x.wad", &err);
    CHECK(w != NULL);
    if (!w) {
        free(file);
        return;
    }
    wad_texture fence, solid, shortp, grate;
    CHECK_EQ(wad_load_texture(w, "{fence", &fence, &err), 1);
    CHECK_EQ(wad_load_texture(w, "solid", &solid, &err), 1);
    CHECK_EQ(wad_load_texture(w, "{SHORT", &shortp, &err), 1);
    CHECK_EQ(wad_load_texture(w, "{GRATE", &grate, &err), 1);
    size_t transparent = 0, bad = 0;
    for (int i = 0; i < W * H; i++) {
        const uint8_t *f = fence.rgba + 4 * i, *s = solid.rgba + 4 * i, *p = palette + 3 * indices[i];
        if (indices[i] == 255) {
            transparent += f[3] == 0;
            bad += f[0] || f[1] || f[2] || f[3];
        } else {
            bad += memcmp(f, p, 3) != 0 || f[3] != 255;
        }
        bad += memcmp(s, p, 3) != 0 || s[3] != 255;
        /* a 16-colour palette's last colour is index 15 */
        const uint8_t *q = shortp.rgba + 4 * i;
        if (short_indices[i] == 15)
            bad += q[0] || q[1] || q[2] || q[3];
        else
            bad += memcmp(q, short_palette + 3 * short_indices[i], 3) != 0 || q[3] != 255;
    }
    for (int i = 0; i < 64; i++) {
        const uint8_t *g = grate.rgba + 4 * i;
        if (i % 3)
            bad += memcmp(g, rgba_in + 4 * i, 4) != 0;
        else
            bad += g[0] || g[1] || g[2] || g[3];
    }
    CHECK_EQ(transparent, holes);
    CHECK_EQ(bad, 0);
    printf("holes: %zu of %d texels of {FENCE transparent, %zu wrong texels in 4 textures\n", transparent, W * H, bad);
    wad_texture_free(&fence);
    wad_texture_free(&solid);
    wad_texture_free(&shortp);
    wad_texture_free(&grate);
    wad_close(w);
    free(file);
}

/* Lookups see miptex lumps only (the first of equal names); animation frames by bit. */
static void test_directory(void)
{
    uint8_t a[16 * 16 * 4], c[16 * 16 * 4];
    for (int i = 0; i < 256; i++) {
        test_colour(10, a + 4 * i);
        test_colour(20, c + 4 * i);
        a[4 * i + 3] = c[4 * i + 3] = 255;
    }
    wad_build *b = wad_build_create();
    CHECK(wad_build_add_lump(b, "PALETTE", 0x40, "not a texture", 13));
    CHECK(wad_build_add_rgba(b, "dup", 16, 16, a));
    CHECK(wad_build_add_rgba(b, "DUP", 16, 16, c));
    static const char *const frames[] = { "+0lava", "+1LAVA", "+3lava", "+9Lava", "+alava", "+Jlava", "+5other" };
    for (size_t i = 0; i < sizeof frames / sizeof frames[0]; i++)
        CHECK(wad_build_add_rgba(b, frames[i], 16, 16, a));
    uint8_t *file;
    size_t size;
    CHECK(wad_build_finish(b, &file, &size));
    wad_build_destroy(b);
    pmf_error err;
    wad_file *w = wad_open_memory(file, size, "x.wad", &err);
    CHECK(w != NULL);
    if (!w) {
        free(file);
        return;
    }
    CHECK_EQ(wad_count(w), 10);
    CHECK(strcmp(wad_name(w, 0), "PALETTE") == 0);
    CHECK_EQ(wad_type(w, 0), 0x40);
    CHECK(!wad_has(w, "palette"));
    wad_texture t;
    CHECK_EQ(wad_load_texture(w, "palette", &t, &err), 0);
    check_texture(w, "Dup", 16, 16, a); /* the first in the directory wins */
    uint32_t expect = 1u << 0 | 1u << 1 | 1u << 3 | 1u << 9 | 1u << 10 | 1u << 19;
    CHECK_EQ(wad_animation_frames(w, "+0LAVA"), expect);
    CHECK_EQ(wad_animation_frames(w, "+Alava"), expect);
    CHECK_EQ(wad_animation_frames(w, "lava"), expect);
    CHECK_EQ(wad_animation_frames(w, "+5other"), 1u << 5);
    CHECK_EQ(wad_animation_frames(w, "dup"), 0);
    CHECK_EQ(wad_animation_frames(w, "+"), 0);
    CHECK_EQ(wad_animation_frames(w, ""), 0);
    CHECK_EQ(wad_animation_frames(w, "fourteen_chars"), 0);
    printf("directory: frames of lava = 0x%05x\n", wad_animation_frames(w, "lava"));
    wad_close(w);
    free(file);
}

/* wad_open: a real file decodes like memory; a missing file, a directory and a FIFO are one
 * clean error each, and the FIFO is refused without waiting for a writer. */
static void test_files(const char *dir)
{
    char path[1024], line[1400];
    test_make_dir(dir);
    snprintf(path, sizeof path, "%s/one.wad", dir);
    uint8_t *rgba = pattern_rgba(64, 16, 5);
    wad_build *b = wad_build_create();
    CHECK(wad_build_add_rgba(b, "STONE", 64, 16, rgba));
    CHECK(wad_build_write_file(b, path));
    wad_build_destroy(b);
    pmf_error err;
    wad_file *w = wad_open(path, &err);
    CHECK(w != NULL);
    if (w) {
        check_texture(w, "stone", 64, 16, rgba);
        wad_close(w);
    }
    free(rgba);

    /* damaged files on disk: the same errors as in memory, with the file's name */
    static const struct { const char *name, *bytes; size_t size; const char *line; } damaged[] = {
        { "empty.wad", "", 0, "empty.wad: header, byte 0: 0 bytes are shorter than the 12-byte header" },
        { "text.wad", "{\n\"classname\" \"worldspawn\"\n}\n", 28, "text.wad: header, byte 0: bad magic '{\\x0A\"c' (expected 'WAD2' or 'WAD3')" },
        { "cut.wad", "WAD3\x01\x00\x00\x00\x0c\x00\x00\x00", 12,
          "cut.wad: header, byte 4: directory of 1 entry (32 bytes) at byte 12 runs past the end of the file (12 bytes)" },
    };
    for (size_t i = 0; i < sizeof damaged / sizeof damaged[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, damaged[i].name);
        FILE *fp = fopen(path, "wb");
        CHECK(fp && fwrite(damaged[i].bytes, 1, damaged[i].size, fp) == damaged[i].size);
        if (fp)
            fclose(fp);
        CHECK(wad_open(path, &err) == NULL);
        pmf_error_format(&err, line, sizeof line);
        printf("  %s\n", line);
        const char *tail = strstr(line, damaged[i].name);
        CHECK(tail && strcmp(tail, damaged[i].line) == 0);
    }

    /* a sparse 3 GiB file that starts like a WAD3 is refused unread */
    snprintf(path, sizeof path, "%s/huge.wad", dir);
    FILE *fp = fopen(path, "wb");
    CHECK(fp && fwrite("WAD3\0\0\0\0\x0c\0\0\0", 1, 12, fp) == 12 && ftruncate(fileno(fp), (off_t)3 << 30) == 0);
    if (fp)
        fclose(fp);
    CHECK(wad_open(path, &err) == NULL);
    pmf_error_format(&err, line, sizeof line);
    printf("  %s\n", line);
    CHECK(strstr(line, "huge.wad: file, byte 0: 3221225472 bytes are more than the 2 GiB a WAD3 can address") != NULL);
    remove(path);

    snprintf(path, sizeof path, "%s/missing.wad", dir);
    remove(path);
    CHECK(wad_open(path, &err) == NULL);
    pmf_error_format(&err, line, sizeof line);
    printf("  %s\n", line);
    CHECK(strstr(line, "missing.wad: file, byte 0: cannot open: ") != NULL);

    CHECK(wad_open(dir, &err) == NULL);
    pmf_error_format(&err, line, sizeof line);
    printf("  %s\n", line);
    CHECK(strstr(line, ": file, byte 0: is a directory") != NULL);

    snprintf(path, sizeof path, "%s/fifo.wad", dir);
    remove(path);
    if (mkfifo(path, 0600) == 0) {
        CHECK(wad_open(path, &err) == NULL);
        pmf_error_format(&err, line, sizeof line);
        printf("  %s\n", line);
        CHECK(strstr(line, "fifo.wad: file, byte 0: not a regular file") != NULL);
        remove(path);
    } else {
        fprintf(stderr, "  mkfifo failed (%s): FIFO case skipped\n", strerror(errno));
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: test_wad_roundtrip WORK_DIR\n", stderr);
        return 1;
    }
    test_sizes();
    test_holes();
    test_directory();
    test_threads();
    test_files(argv[1]);
    return check_report("test_wad_roundtrip");
}
