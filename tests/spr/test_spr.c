/* test_spr.c - sprites: the real Quake ones of ../shared/data/lq/progs (header, frames, holes, a
 * texel through the game's palette, against a separate reading of the files), and sprites built
 * here (fixtures/spr_build.h): GoldSrc's in each render mode with its own palette, a group of
 * pictures and its intervals, a Quake group; every truncation and damage one clean error line.
 * Usage: test_spr real|built PROGS_DIR PALETTE */
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/programs.h"
#include "spr.h"
#include "spr_build.h"

static const char *progs;
static uint8_t *palette;

typedef struct real_sprite {
    const char *file;
    uint32_t side, frames;
    float radius;
    unsigned holes_first, holes_last;   /* index 255 in the first and last frame */
    uint32_t solid_x, solid_y;          /* frame 0's first texel that is no hole, and its colour */
    uint8_t solid[3];
} real_sprite;

/* from a reading of the files apart from this reader (Python's struct) */
static const real_sprite real_sprites[] = {
    { "s_bubble.spr", 16, 2, 11.3137f, 211, 235, 6, 4, { 139, 139, 203 } },
    { "s_light.spr", 32, 1, 22.6274f, 543, 543, 14, 4, { 99, 63, 43 } },
    { "s_explod.spr", 64, 6, 45.2548f, 3383, 4096, 31, 16, { 67, 51, 39 } },
};

static unsigned count_holes(const spr_picture *p)
{
    unsigned holes = 0;
    for (size_t t = 0; t < (size_t)p->width * p->height; t++)
        holes += p->rgba[4 * t + 3] == 0;
    return holes;
}

static void check_real(const real_sprite *r)
{
    char path[2048];
    size_t size;
    snprintf(path, sizeof path, "%s/%s", progs, r->file);
    uint8_t *bytes = test_read_file(path, &size);
    pmf_error err;
    spr_file *s = bytes ? spr_open_memory(bytes, size, r->file, &err) : NULL;
    CHECK(s != NULL, "%s: %s", r->file, bytes ? err.message : "cannot read");
    if (!s) {
        free(bytes);
        return;
    }
    const spr_info *i = spr_get_info(s);
    CHECK_EQ(i->version, 1);
    CHECK_EQ(i->type, SPR_TYPE_PARALLEL);
    CHECK_EQ(i->render, SPR_RENDER_ALPHA_TEST);
    CHECK_EQ(i->width, r->side);
    CHECK_EQ(i->height, r->side);
    CHECK_EQ(i->frame_count, r->frames);
    CHECK_NEAR(i->radius, r->radius, 1e-4);
    spr_picture first, last;
    CHECK(!spr_load_picture(s, 0, 0, NULL, &first, &err));  /* a Quake sprite needs the palette */
    if (spr_load_picture(s, 0, 0, palette, &first, &err) && spr_load_picture(s, r->frames - 1, 0, palette, &last, &err)) {
        CHECK_EQ(first.width, r->side);
        CHECK_EQ(first.origin[0], -(int32_t)r->side / 2);
        CHECK_EQ(first.origin[1], (int32_t)r->side / 2);
        CHECK_EQ(count_holes(&first), r->holes_first);
        CHECK_EQ(count_holes(&last), r->holes_last);
        const uint8_t *texel = first.rgba + 4 * ((size_t)r->solid_y * first.width + r->solid_x);
        CHECK(!memcmp(texel, r->solid, 3) && texel[3] == 255, "%s: %u %u %u %u", r->file, texel[0], texel[1], texel[2], texel[3]);
        CHECK_EQ(first.rgba[3], 0);
        spr_picture_free(&first);
        spr_picture_free(&last);
    } else {
        check_fail("%s: %s", r->file, err.message);
    }
    spr_close(s);
    free(bytes);
}

static void test_real(void)
{
    for (size_t i = 0; i < sizeof real_sprites / sizeof *real_sprites; i++)
        check_real(&real_sprites[i]);
}

/* Frame `frame`'s built picture decoded as the render mode says. */
static void check_built_picture(const spr_file *s, uint32_t frame, uint32_t picture, int shown, spr_render render)
{
    spr_picture p;
    pmf_error err;
    if (!spr_load_picture(s, frame, picture, palette, &p, &err)) {
        check_fail("frame %u picture %u: %s", frame, picture, err.message);
        return;
    }
    CHECK(p.width == SPR_BUILD_WIDTH && p.height == SPR_BUILD_HEIGHT && p.origin[0] == -4 && p.origin[1] == 2);
    bool goldsrc = spr_get_info(s)->version == 2;
    for (int y = 0; y < SPR_BUILD_HEIGHT; y++)
        for (int x = 0; x < SPR_BUILD_WIDTH; x++) {
            uint8_t index = spr_build_index(shown, x, y), want[4] = { 0, 0, 0, 255 };
            if (!goldsrc)
                memcpy(want, palette + 3 * index, 3);
            else
                spr_build_colour(render == SPR_RENDER_INDEX_ALPHA ? 255 : index, want);
            if (render == SPR_RENDER_INDEX_ALPHA)
                want[3] = index;
            if (index == 255 && render == SPR_RENDER_ALPHA_TEST)
                memset(want, 0, 4);
            const uint8_t *got = p.rgba + 4 * (y * SPR_BUILD_WIDTH + x);
            CHECK(!memcmp(got, want, 4), "frame %u (%d, %d): %u %u %u %u, not %u %u %u %u", frame, x, y, got[0], got[1], got[2],
                  got[3], want[0], want[1], want[2], want[3]);
        }
    spr_picture_free(&p);
}

static void test_built_whole(void)
{
    for (int version = 1; version <= 2; version++)
        for (int render = 0; render < 4; render++) {
            if (version == 1 && render != SPR_RENDER_ALPHA_TEST)
                continue;
            uint8_t *bytes;
            size_t size;
            if (!spr_build(version, SPR_TYPE_ORIENTED, render, 3, &bytes, &size))
                return;
            pmf_error err;
            spr_file *s = spr_open_memory(bytes, size, "built.spr", &err);
            CHECK(s != NULL, "version %d render %d: %s", version, render, err.message);
            if (s) {
                const spr_info *i = spr_get_info(s);
                CHECK(i->version == version && i->type == SPR_TYPE_ORIENTED && i->render == (spr_render)render);
                CHECK_EQ(i->colour_count, version == 2 ? 256 : 0);
                CHECK(spr_frame_pictures(s, 0) == 1 && spr_frame_pictures(s, 1) == 3 && spr_frame_pictures(s, 2) == 0);
                CHECK_NEAR(spr_picture_interval(s, 1, 2), 0.3, 1e-6);
                CHECK_NEAR(spr_picture_interval(s, 0, 0), 0.0, 0);
                check_built_picture(s, 0, 0, 0, (spr_render)render);
                check_built_picture(s, 1, 2, 3, (spr_render)render);
                check_built_picture(s, 9, 0, 0, (spr_render)render);  /* past the end: frame 0, as the engines */
                spr_close(s);
            }
            free(bytes);
        }
}

static void put_at(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* A GoldSrc sprite (3 pictures in frame 1) with the u32 at byte `at` set: refused with block and words. */
static void check_damage(size_t at, uint32_t value, const char *block, const char *words)
{
    uint8_t *bytes;
    size_t size;
    if (!spr_build(2, 2, 0, 3, &bytes, &size))
        return;
    put_at(bytes + at, value);
    pmf_error err;
    spr_file *s = spr_open_memory(bytes, size, "bad.spr", &err);
    CHECK(s == NULL, "byte %zu = %u opened", at, value);
    spr_close(s);
    if (!s) {
        check_error_line_clean(&err);
        CHECK(!strcmp(err.block, block), "byte %zu: block '%s', not '%s'", at, err.block, block);
        CHECK(strstr(err.message, words) != NULL, "byte %zu: '%s'", at, err.message);
    }
    free(bytes);
}

/* 100 colours (the palette's other 156 cut out), alpha-tested: the hole at (0, 0) is fine, the
 * first index past 99 is refused when the picture is loaded. */
static void check_short_palette(void)
{
    uint8_t *bytes;
    size_t size;
    if (!spr_build(2, 2, SPR_RENDER_ALPHA_TEST, 1, &bytes, &size))
        return;
    bytes[40] = 100;
    bytes[41] = 0;
    memmove(bytes + 42 + 300, bytes + 42 + 768, size - 42 - 768);
    pmf_error err;
    spr_file *s = spr_open_memory(bytes, size - 468, "short.spr", &err);
    CHECK(s != NULL, "%s", err.message);
    spr_picture p;
    if (s) {
        CHECK_ERROR(spr_load_picture(s, 0, 0, NULL, &p, &err), err, "frame 0 picture 0");
        CHECK(strstr(err.message, "pixel (7, 1) is colour 105 of a 100-colour palette") != NULL, "%s", err.message);
    }
    spr_close(s);
    free(bytes);
}

static void test_built_damaged(void)
{
    uint8_t *bytes;
    size_t size;
    if (!spr_build(2, 2, 0, 3, &bytes, &size))
        return;
    for (size_t n = 0; n < size; n++) {
        pmf_error err;
        spr_file *s = spr_open_memory(bytes, n, "short.spr", &err);
        CHECK(s == NULL, "%zu of %zu bytes opened", n, size);
        spr_close(s);
        if (!s)
            check_error_line_clean(&err);
    }
    free(bytes);
    /* header 40, palette 2 + 768, frame 0 at 810 (4 + 16 + 32), frame 1 at 862: kind, count, intervals at 870 */
    check_damage(0, 0x50534449u + 1, "header", "bad magic");
    check_damage(4, 3, "header", "version 3");
    check_damage(8, 5, "header", "type 5");
    check_damage(12, 4, "header", "render mode 4");
    check_damage(28, 0, "header", "frame count 0");
    check_damage(28, 1000, "header", "1000 frames need");
    check_damage(40, 0, "palette", "0 colours");
    check_damage(810 + 12, 0, "frame 0", "width 0");
    check_damage(810 + 16, 5000, "frame 0", "height 5000");
    check_damage(810 + 12, 1000, "frame 0", "pixels needs");
    check_damage(862 + 4, 0, "frame 1", "a group of 0");
    check_damage(862 + 4, 100, "frame 1", "group's pictures need");
    check_damage(870 + 4, 0, "frame 1", "interval 1 is 0");
    check_damage(870, 0x7F800000u, "frame 1", "interval 0 is inf");
    check_damage(870 + 12 + 48 + 8, 0, "frame 1 picture 1", "width 0");
    check_short_palette();
}

static void test_built(void)
{
    test_built_whole();
    test_built_damaged();
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fputs("usage: test_spr real|built PROGS_DIR PALETTE\n", stderr);
        return 2;
    }
    progs = argv[2];
    size_t size;
    palette = test_read_file(argv[3], &size);
    if (!palette || size != 768) {
        fprintf(stderr, "%s: not a 768-byte palette\n", argv[3]);
        return 1;
    }
    static const check_case cases[] = { { "real", test_real }, { "built", test_built }, { NULL, NULL } };
    int status = check_run_case(cases, argv[1]);
    free(palette);
    return status;
}
