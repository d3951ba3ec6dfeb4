/* test_wad_bad.c - damaged and hostile WAD3 files: targeted cases give the expected one-line
 * error (where, byte, what), every truncation and thousands of seeded byte flips give a clean
 * error or a valid decode, never a crash (the ASan build runs this too), and no allocation is
 * out of proportion to the file: malloc, calloc and realloc are wrapped at link time and the
 * largest request is checked against the file's size. */
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "wad.h"
#include "wad_build.h"

#define FLIPS 6000

/* ---- allocation watch (-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc) ---- */

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_realloc(void *p, size_t size);

static size_t largest_request;
static void note_request(size_t size) { if (size > largest_request) largest_request = size; }
void *__wrap_malloc(size_t size) { note_request(size); return __real_malloc(size); }
void *__wrap_realloc(void *p, size_t size) { note_request(size); return __real_realloc(p, size); }
void *__wrap_calloc(size_t count, size_t size)
{
    size_t total;
    note_request(__builtin_mul_overflow(count, size, &total) ? SIZE_MAX : total);
    return __real_calloc(count, size);
}

/* The bound the reader promises (wad.h): texels are 4 bytes per byte of mip 0 in the file,
 * directory entries smaller than the 32 bytes they come from; the slack covers small fixed structs. */
static size_t allowed_allocation(size_t file_size) { return 4 * file_size + 256; }

/* ---- helpers ---- */

static uint32_t rng_state = 0x2545F491u;
static uint32_t rng(void)
{
    rng_state ^= rng_state << 13; /* xorshift32: same sequence every run */
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

static uint32_t get32(const uint8_t *p) { return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static void put32(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24); }
static uint32_t entry_at(const uint8_t *f, uint32_t i) { return get32(f + 8) + 32 * i; }
static uint32_t lump_at(const uint8_t *f, uint32_t i) { return get32(f + entry_at(f, i)); }

/* One line, printable bytes only, starting "FILE: ". */
static bool clean_line(const char *line, const char *file)
{
    size_t n = strlen(file);
    if (strncmp(line, file, n) != 0 || strncmp(line + n, ": ", 2) != 0)
        return false;
    for (const unsigned char *p = (const unsigned char *)line; *p; p++)
        if (*p < 0x20 || *p == 0x7F)
            return false;
    return true;
}

typedef struct sample { uint8_t *bytes; size_t size; } sample;

/* BRICK1 16x16 (256 colours), {GRATE 16x16 (256), other 32x16 (16 colours). */
static sample build_sample(void)
{
    uint8_t idx[32 * 16], pal[256 * 3];
    for (int i = 0; i < 32 * 16; i++)
        idx[i] = (uint8_t)(i * 3 % 16);
    for (int i = 0; i < 256 * 3; i++)
        pal[i] = (uint8_t)(i * 11);
    wad_build *b = wad_build_create();
    CHECK(wad_build_add_indexed(b, "BRICK1", 16, 16, idx, pal, 256));
    CHECK(wad_build_add_indexed(b, "{GRATE", 16, 16, idx, pal, 256));
    CHECK(wad_build_add_indexed(b, "other", 32, 16, idx, pal, 16));
    sample s = { 0 };
    CHECK(wad_build_finish(b, &s.bytes, &s.size));
    wad_build_destroy(b);
    return s;
}

/* Opens the bytes and loads every texture; returns the number decoded. Every error is checked
 * to be a clean line, every decode to be sane. */
static int exercise(const uint8_t *data, size_t size, int *bad_lines)
{
    pmf_error err;
    char line[600];
    wad_file *w = wad_open_memory(data, size, "flip.wad", &err);
    if (!w) {
        *bad_lines += !clean_line(pmf_error_format(&err, line, sizeof line), "flip.wad");
        return 0;
    }
    int decoded = 0;
    for (uint32_t i = 0; i < wad_count(w); i++) {
        const char *name = wad_name(w, i);
        wad_animation_frames(w, name);
        wad_texture t;
        int r = wad_load_texture(w, name, &t, &err);
        if (r < 0) {
            *bad_lines += !clean_line(pmf_error_format(&err, line, sizeof line), "flip.wad");
        } else if (r > 0) {
            decoded++;
            if (!t.rgba || t.width == 0 || t.height == 0 || t.width > WAD_MAX_SIDE || t.height > WAD_MAX_SIDE)
                (*bad_lines)++;
            wad_texture_free(&t);
        }
    }
    wad_close(w);
    return decoded;
}

/* ---- targeted cases ---- */

typedef enum stage { AT_OPEN, AT_LOAD } stage;

/* Expects the patched file to fail at the given stage with a line containing each of the
 * (non-NULL) fragments. `load` names the texture to load. */
static void expect_error(const char *what, const uint8_t *data, size_t size, stage st, const char *load,
                         const char *where, long long byte, const char *message)
{
    printf("  %s\n", what);
    pmf_error err;
    char line[600], at[160];
    wad_file *w = wad_open_memory(data, size, "bad.wad", &err);
    if (st == AT_OPEN) {
        CHECK(w == NULL);
    } else {
        CHECK(w != NULL);
        if (!w)
            return;
        wad_texture t;
        CHECK_EQ(wad_load_texture(w, load, &t, &err), -1);
        wad_close(w);
    }
    if (st == AT_OPEN && w) {
        wad_close(w);
        return;
    }
    pmf_error_format(&err, line, sizeof line);
    printf("    %s\n", line);
    CHECK(clean_line(line, "bad.wad"));
    snprintf(at, sizeof at, "bad.wad: %s, byte %lld: ", where, byte);
    if (strncmp(line, at, strlen(at)) != 0)
        fprintf(stderr, "  expected to start with \"%s\"\n", at);
    CHECK(strncmp(line, at, strlen(at)) == 0);
    if (!strstr(line, message))
        fprintf(stderr, "  expected \"%s\" in it\n", message);
    CHECK(strstr(line, message) != NULL);
}

static void targeted(const sample *s)
{
    uint8_t *f = malloc(s->size);
    char msg[200];
#define FRESH() memcpy(f, s->bytes, s->size)
    uint32_t e0 = entry_at(s->bytes, 0), e1 = entry_at(s->bytes, 1), e2 = entry_at(s->bytes, 2);
    uint32_t l0 = lump_at(s->bytes, 0), l2 = lump_at(s->bytes, 2);
    uint32_t l0_size = get32(s->bytes + e0 + 4);

    expect_error("shorter than the header", s->bytes, 11, AT_OPEN, NULL, "header", 0, "11 bytes are shorter than the 12-byte header");
    FRESH(); memcpy(f, "IWAD", 4);
    expect_error("Doom WAD", f, s->size, AT_OPEN, NULL, "header", 0, "bad magic 'IWAD' (expected 'WAD2' or 'WAD3') (a Doom WAD)");
    FRESH(); memcpy(f, "PK\x03\x04", 4);
    expect_error("zip magic, escaped", f, s->size, AT_OPEN, NULL, "header", 0, "bad magic 'PK\\x03\\x04' (expected 'WAD2' or 'WAD3')");

    FRESH(); put32(f + 8, (uint32_t)s->size + 1);
    snprintf(msg, sizeof msg, "directory offset %zu is past the end of the file (%zu bytes)", s->size + 1, s->size);
    expect_error("directory past the end", f, s->size, AT_OPEN, NULL, "header", 8, msg);
    FRESH(); put32(f + 4, 4);
    expect_error("directory longer than the file", f, s->size, AT_OPEN, NULL, "header", 4, "directory of 4 entries (128 bytes) at byte");
    FRESH(); put32(f + 4, 0xFFFFFFFFu);
    expect_error("lump count 2^32-1", f, s->size, AT_OPEN, NULL, "header", 4, "directory of 4294967295 entries");

    FRESH(); put32(f + e1 + 4, (uint32_t)(s->size - lump_at(s->bytes, 1) + 1));
    snprintf(msg, sizeof msg, "lump of %zu bytes at byte %u runs past the end of the file (%zu bytes)",
             s->size - lump_at(s->bytes, 1) + 1, lump_at(s->bytes, 1), s->size);
    expect_error("lump overlapping the end", f, s->size, AT_OPEN, NULL, "directory entry 1 ({GRATE)", e1, msg);
    FRESH(); put32(f + e2, 0xFFFFFFF0u);
    expect_error("lump offset 2^32-16", f, s->size, AT_OPEN, NULL, "directory entry 2 (other)", e2, "at byte 4294967280 runs past the end");

    FRESH(); memset(f + e0 + 16, 'A', 16);
    expect_error("name without NUL", f, s->size, AT_OPEN, NULL, "directory entry 0", e0 + 16, "name 'AAAAAAAAAAAAAAAA' has no NUL within 16 bytes");
    FRESH(); memcpy(f + e0 + 16, "\x1b[2J\r\n\x7f\xff\\zzzzzzz", 16);
    expect_error("name without NUL, control bytes", f, s->size, AT_OPEN, NULL, "directory entry 0", e0 + 16,
                 "name '\\x1B[2J\\x0D\\x0A\\x7F\\xFF\\\\zzzzzzz' has no NUL");

    /* escape bytes in a name, echoed by a load error */
    static const char evil[] = "\x1b[31m\n\x7f\xe9\\x";
    FRESH(); memset(f + e2 + 16, 0, 16); memcpy(f + e2 + 16, evil, sizeof evil - 1); put32(f + l2 + 16, 0);
    expect_error("escape bytes in a name", f, s->size, AT_LOAD, evil, "lump 2 (\\x1B[31m\\x0A\\x7F\\xE9\\\\x)", l2 + 16,
                 "width 0: a texture needs at least one texel");

    FRESH(); f[e0 + 13] = 1;
    expect_error("compressed lump", f, s->size, AT_LOAD, "brick1", "lump 0 (BRICK1)", e0 + 13, "lump is compressed (method 1); only uncompressed lumps are read");
    FRESH(); put32(f + e0 + 4, 39);
    expect_error("lump shorter than the miptex header", f, s->size, AT_LOAD, "brick1", "lump 0 (BRICK1)", l0, "lump of 39 bytes is shorter than the 40-byte miptex header");
    FRESH(); put32(f + l0 + 16, 65536);
    expect_error("width 65536", f, s->size, AT_LOAD, "brick1", "lump 0 (BRICK1)", l0 + 16, "width 65536 is more than 4096");
    FRESH(); put32(f + l0 + 20, 0xFFFFFFFFu);
    expect_error("height 2^32-1", f, s->size, AT_LOAD, "brick1", "lump 0 (BRICK1)", l0 + 20, "height 4294967295 is more than 4096");
    FRESH(); put32(f + l0 + 20, 0);
    expect_error("height 0", f, s->size, AT_LOAD, "brick1", "lump 0 (BRICK1)", l0 + 20, "height 0: a texture needs at least one texel");
    FRESH(); put32(f + l0 + 16, 4096); put32(f + l0 + 20, 4096);
    snprintf(msg, sizeof msg, "mip 0 (4096x4096 texels at lump byte 40) runs past the end of the %u-byte lump", l0_size);
    expect_error("4096x4096 in a small lump", f, s->size, AT_LOAD, "brick1", "lump 0 (BRICK1)", l0 + 24, msg);
    FRESH(); put32(f + l0 + 32, l0_size - 15);
    snprintf(msg, sizeof msg, "mip 2 (4x4 texels at lump byte %u) runs past the end of the %u-byte lump", l0_size - 15, l0_size);
    expect_error("mip 2 offset out of the lump", f, s->size, AT_LOAD, "brick1", "lump 0 (BRICK1)", l0 + 32, msg);
    FRESH(); put32(f + l0 + 36, 0xFFFFFFFFu);
    expect_error("mip 3 offset 2^32-1", f, s->size, AT_LOAD, "brick1", "lump 0 (BRICK1)", l0 + 36, "mip 3 (2x2 texels at lump byte 4294967295) runs past");
    FRESH(); put32(f + l0 + 24, 8);
    expect_error("mip 0 inside the header", f, s->size, AT_LOAD, "brick1", "lump 0 (BRICK1)", l0 + 24, "mip 0 offset 8 lies inside the 40-byte miptex header");

    uint32_t pal0 = 40 + 256 + 64 + 16 + 4; /* BRICK1's palette count, lump-relative */
    FRESH(); f[l0 + pal0] = 0; f[l0 + pal0 + 1] = 0;
    expect_error("palette count 0", f, s->size, AT_LOAD, "brick1", "lump 0 (BRICK1)", l0 + pal0, "palette of 0 colours (texels are 8-bit: 1 to 256)");
    FRESH(); f[l0 + pal0] = 0x2C; f[l0 + pal0 + 1] = 0x01;
    expect_error("palette count 300", f, s->size, AT_LOAD, "brick1", "lump 0 (BRICK1)", l0 + pal0, "palette of 300 colours");
    FRESH(); put32(f + e0 + 4, pal0 + 2 + 3 * 255 + 2);
    snprintf(msg, sizeof msg, "palette of 256 colours at lump byte %u runs past the end of the %u-byte lump", pal0 + 2, pal0 + 2 + 3 * 255 + 2);
    expect_error("palette past the end of the lump", f, s->size, AT_LOAD, "brick1", "lump 0 (BRICK1)", l0 + pal0, msg);
    FRESH(); put32(f + e0 + 4, pal0 + 1);
    expect_error("palette count past the end of the lump", f, s->size, AT_LOAD, "brick1", "lump 0 (BRICK1)", l0 + pal0, "palette colour count at lump byte");
    /* "other" has 16 colours: an index of 20 names none */
    uint32_t texel = 40 + 2 * 32 + 3;
    FRESH(); f[l2 + texel] = 20;
    expect_error("texel beyond a 16-colour palette", f, s->size, AT_LOAD, "OTHER", "lump 2 (other)", l2 + texel, "texel (3, 2) is colour 20 of a 16-colour palette");

    /* the file name is escaped too */
    pmf_error err;
    pmf_error_set(&err, "a\nb\x1b.wad", "header", 3, "what");
    char line[200];
    pmf_error_format(&err, line, sizeof line);
    CHECK(strcmp(line, "a\\x0Ab\\x1B.wad: header, byte 3: what") == 0);
    /* a short buffer cuts, never overflows, and never splits an escape */
    char tiny[8];
    pmf_error_set(&err, "\x01\x02", "header", 3, "what");
    pmf_error_format(&err, tiny, sizeof tiny);
    CHECK(strcmp(tiny, "\\x01") == 0);
    char name[4 * WAD_NAME_SIZE];
    CHECK(strcmp(wad_escape_name("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f", name, sizeof name),
                 "\\x01\\x02\\x03\\x04\\x05\\x06\\x07\\x08\\x09\\x0A\\x0B\\x0C\\x0D\\x0E\\x0F") == 0);
    free(f);
#undef FRESH
}

/* ---- truncations and flips ---- */

static void truncations(const sample *s)
{
    int opened = 0, bad_lines = 0;
    size_t worst = 0;
    for (size_t n = 0; n < s->size; n++) {
        uint8_t *cut = malloc(n ? n : 1);
        memcpy(cut, s->bytes, n);
        largest_request = 0;
        pmf_error err;
        wad_file *w = wad_open_memory(cut, n, "cut.wad", &err);
        if (w) {
            opened++;
            wad_close(w);
        }
        exercise(cut, n, &bad_lines);
        if (largest_request > allowed_allocation(n) && largest_request > worst)
            worst = largest_request;
        free(cut);
    }
    printf("truncations: %zu, %d opened, %d unclean lines, largest allocation over the bound: %zu\n", s->size, opened, bad_lines, worst);
    CHECK_EQ(opened, 0); /* the directory is last: every prefix loses some of it */
    CHECK_EQ(bad_lines, 0);
    CHECK_EQ(worst, 0);
}

/* Half the changes hit structure (header, directory, miptex headers, palette counts), half any byte. */
static void flips(const sample *s)
{
    size_t structure[512], n_structure = 0;
    for (size_t i = 0; i < 12; i++)
        structure[n_structure++] = i;
    for (uint32_t l = 0; l < 3; l++) {
        uint32_t e = entry_at(s->bytes, l), at = lump_at(s->bytes, l);
        for (uint32_t i = 0; i < 32; i++)
            structure[n_structure++] = e + i;
        for (uint32_t i = 16; i < 40; i++)
            structure[n_structure++] = at + i;
        uint32_t w = get32(s->bytes + at + 16), h = get32(s->bytes + at + 20);
        uint32_t pal = get32(s->bytes + at + 36) + (w >> 3) * (h >> 3);
        structure[n_structure++] = at + pal;
        structure[n_structure++] = at + pal + 1;
    }
    uint8_t *copy = malloc(s->size);
    int decoded = 0, failed_open = 0, bad_lines = 0;
    size_t worst = 0, largest = 0;
    for (int i = 0; i < FLIPS; i++) {
        memcpy(copy, s->bytes, s->size);
        int changes = 1 + (int)(rng() % 3);
        for (int c = 0; c < changes; c++) {
            uint32_t r = rng();
            size_t at = r & 1 ? structure[(r >> 1) % n_structure] : (r >> 1) % s->size;
            /* a single bit, a random byte, or an extreme (0x00 / 0xFF) */
            switch ((r >> 28) % 3) {
            case 0: copy[at] ^= (uint8_t)(1u << ((r >> 20) & 7)); break;
            case 1: copy[at] = (uint8_t)(r >> 12); break;
            default: copy[at] = (r >> 27) & 1 ? 0xFF : 0x00; break;
            }
        }
        largest_request = 0;
        pmf_error err;
        wad_file *w = wad_open_memory(copy, s->size, "flip.wad", &err);
        failed_open += w == NULL;
        wad_close(w);
        decoded += exercise(copy, s->size, &bad_lines);
        if (largest_request > largest)
            largest = largest_request;
        if (largest_request > allowed_allocation(s->size) && largest_request > worst)
            worst = largest_request;
    }
    free(copy);
    printf("flips: %d mutants of %zu bytes: %d refused at open, %d textures decoded, %d unclean lines, "
           "largest allocation %zu (bound %zu)\n", FLIPS, s->size, failed_open, decoded, bad_lines, largest, allowed_allocation(s->size));
    CHECK_EQ(bad_lines, 0);
    CHECK_EQ(worst, 0);
    CHECK(failed_open > 0 && decoded > 0); /* the loop reaches both sides */
}

/* Hostile directory: many entries all pointing at one big lump, and a count that matches a huge
 * directory of zero-size lumps: both bounded by the file. */
static void hostile_directory(void)
{
    uint8_t idx[256 * 256] = { 0 }, pal[3] = { 1, 2, 3 };
    wad_build *b = wad_build_create();
    CHECK(wad_build_add_indexed(b, "big", 256, 256, idx, pal, 1));
    uint8_t *file;
    size_t size;
    CHECK(wad_build_finish(b, &file, &size));
    wad_build_destroy(b);
    /* append 2000 directory entries that all name the same lump */
    enum { COPIES = 2000 };
    uint8_t *many = calloc(1, size + 32 * COPIES);
    memcpy(many, file, size);
    uint32_t dir = get32(file + 8);
    for (uint32_t i = 0; i < COPIES; i++) {
        memcpy(many + size + 32 * i, file + dir, 32);
        many[size + 32 * i + 16] = (uint8_t)('a' + i % 26);
        many[size + 32 * i + 17] = (uint8_t)('a' + i / 26 % 26);
        many[size + 32 * i + 18] = (uint8_t)('a' + i / 676);
        many[size + 32 * i + 19] = 0;
    }
    put32(many + 4, COPIES);
    put32(many + 8, (uint32_t)size);
    largest_request = 0;
    int bad_lines = 0;
    int decoded = exercise(many, size + 32 * COPIES, &bad_lines);
    printf("hostile directory: %d entries on one 256x256 lump: %d decoded, largest allocation %zu\n", COPIES, decoded, largest_request);
    CHECK_EQ(decoded, COPIES);
    CHECK_EQ(bad_lines, 0);
    CHECK(largest_request <= allowed_allocation(size + 32 * COPIES));
    free(many);
    free(file);
}

int main(void)
{
    sample s = build_sample();
    int bad_lines = 0;
    CHECK_EQ(exercise(s.bytes, s.size, &bad_lines), 3);
    targeted(&s);
    truncations(&s);
    flips(&s);
    hostile_directory();
    free(s.bytes);
    return check_report("test_wad_bad");
}
