/* test_view_tools.c - the level designer's tools of issue 16 (docs/viewer.md): the lightmap density
 * heat-map, comparing two compiles, region overlays and the atlas figures of `info --json`.
 * Maps are .pms sources written here and compiled by the real pmfc; pictures come from
 * `pmfview shot` and are read back pixel by pixel.
 * Usage: test_view_tools PMFC PMFVIEW WORKDIR CASE */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "pmf/pmf.h"
#include "sample_map.h"
#include "common/check.h"
#include "common/programs.h"

static test_workdir wd;

/* Compiles source into WORKDIR/NAME.pmf; returns pmfc's exit code. */
static int compile(const char *name, const char *source)
{
    return test_workdir_compile(&wd, name, source, "");
}

static bool shot(const char *map, const char *out, const char *extra, test_image *img)
{
    return test_workdir_shot(&wd, "", map, out, extra, img);
}

static bool near_rgb(const unsigned char *p, int r, int g, int b, int tol)
{
    return abs(p[0] - r) <= tol && abs(p[1] - g) <= tol && abs(p[2] - b) <= tol;
}

#define CHECK_RGB(img, x, y, r, g, b, tol) do { const unsigned char *p_ = test_pixel(img, x, y); \
    if (!near_rgb(p_, r, g, b, tol)) { fprintf(stderr, "%s:%d: pixel (%d, %d) is %d %d %d, expected %d %d %d\n", \
        __FILE__, __LINE__, (int)(x), (int)(y), p_[0], p_[1], p_[2], (int)(r), (int)(g), (int)(b)); check_failures++; } } while (0)

/* ---- density heat-map ---------------------------------------------------------------------- */

/* docs/viewer.md's scale: viridis stops at log2(luxels per metre) 0..4, linear between. */
static void density_ramp(double per_metre, int out[3])
{
    static const int stops[5][3] = { { 68, 1, 84 }, { 59, 82, 139 }, { 33, 145, 140 }, { 94, 201, 98 }, { 253, 231, 37 } };
    double x = log2(per_metre), c = x < 0 ? 0 : x > 4 ? 4 : x;
    int i = c >= 3 ? 3 : (int)c;
    for (int k = 0; k < 3; k++)
        out[k] = (int)lround(stops[i][k] + (stops[i + 1][k] - stops[i][k]) * (c - i));
}

/* Whether window pixel (x, y) from the top-left of an H-high test_image is on a flag stripe. */
static bool on_stripe(int x, int y, int h)
{
    double fx = x + 0.5, fy = (h - 1 - y) + 0.5;
    return (long)floor((fx + fy) / 8.0) % 2 == 0;
}

/* A 4 m floor seen from straight above at several `luxels` densities: every pixel of the floor
 * has the scale's colour of that density; too coarse and wasteful ones are striped; a floor
 * without a lightmap (shading 0) is grey. */
static void test_density(void)
{
    static const struct { const char *luxels; double per_metre; } cases[] = {
        { "4", 4 }, { "2", 2 }, { "8", 8 }, { "1.41421356", 1.41421356 }, { "0.5", 0.5 }, { "32", 32 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char src[1024], name[64];
        snprintf(src, sizeof src,
                 "map \"Density\"\nmaterial floor color 200 200 200\n"
                 "level main {\n  chunk_size 4\n  luxels %s\n  box -2 -1 -2 2 0 2 material floor\n}\n", cases[i].luxels);
        snprintf(name, sizeof name, "density_%zu", i);
        CHECK_EQ(compile(name, src), 0);
        test_image img;
        if (!shot(name, name, "--mode density --size 64x64 --fov 60 --camera 0,3,0,0,-90", &img)) {
            check_failures++;
            continue;
        }
        int want[3];
        density_ramp(cases[i].per_metre, want);
        bool flagged = cases[i].per_metre < 1 || cases[i].per_metre > 16;
        int stripes = 0;
        for (int y = 24; y < 40; y++)
            for (int x = 24; x < 40; x++) {
                if (flagged && on_stripe(x, y, img.h)) {
                    stripes++;
                    if (cases[i].per_metre < 1)
                        CHECK_RGB(&img, x, y, 255, 0, 0, 1);
                    else
                        CHECK_RGB(&img, x, y, 255, 0, 255, 1);
                } else {
                    CHECK_RGB(&img, x, y, want[0], want[1], want[2], 2);
                }
            }
        CHECK(!flagged || stripes > 100);
        test_image_free(&img);
    }
    CHECK_EQ(compile("density_unlit", "map \"Unlit\"\nmaterial floor color 200 200 200 shading 0\n"
                                      "level main {\n  chunk_size 4\n  box -2 -1 -2 2 0 2 material floor\n}\n"), 0);
    test_image img;
    if (shot("density_unlit", "density_unlit", "--mode density --size 64x64 --fov 60 --camera 0,3,0,0,-90", &img)) {
        CHECK_RGB(&img, 32, 32, 128, 128, 128, 1);
        test_image_free(&img);
    } else {
        check_failures++;
    }
}

/* ---- compare two compiles ------------------------------------------------------------------ */

/* A 16 m floor lit by a white light that stays and a warm one at (LIGHT_X, 1, 0), range 3. */
static int compile_lights(const char *name, int light_x)
{
    char src[1024];
    snprintf(src, sizeof src,
             "map \"Compare\"\nmaterial floor color 200 200 200\n"
             "level main {\n  chunk_size 4\n  ambient 20 20 20\n"
             "  light static at 0 2 -5 color 255 255 255 brightness 1 range 3\n"
             "  light static at %d 1 0 color 255 200 100 brightness 1 range 3\n"
             "  box -8 -1 -8 8 0 8 material floor\n}\n", light_x);
    return compile(name, src);
}

static bool read_text(const char *name, char *buf, size_t size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.txt", wd.dir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, size - 1, f);
    buf[n] = 0;
    fclose(f);
    return true;
}

/* The same source compiled twice compares as zero; moving the warm light from x = -4 to x = 4
 * changes pixels only within its reach on the floor (range 3 at height 1: 2.83 m, plus a luxel
 * of filtering), darker where it was, brighter where it went, and the figures on stdout count
 * exactly the changed pixels of the picture. */
static void test_compare(void)
{
    CHECK_EQ(compile_lights("before", -4), 0);
    CHECK_EQ(compile_lights("before_again", -4), 0);
    CHECK_EQ(compile_lights("after", 4), 0);
    const char *view = "--size 256x256 --fov 90 --camera 0,8,0,0,-90";
    char extra[512], text[512];
    test_image img;
    snprintf(extra, sizeof extra, "%s --compare %s/before_again.pmf", view, wd.dir);
    if (shot("before", "same", extra, &img)) {
        CHECK(read_text("same", text, sizeof text));
        CHECK(!strcmp(text, "changed pixels: 0 of 65536 (0.000%), brighter 0, darker 0, max difference 0, mean difference 0.00\n"));
        int coloured = 0;
        for (int i = 0; i < img.w * img.h; i++)
            coloured += img.rgb[i * 3] != img.rgb[i * 3 + 1] || img.rgb[i * 3 + 1] != img.rgb[i * 3 + 2];
        CHECK_EQ(coloured, 0);
        test_image_free(&img);
    } else {
        check_failures++;
    }
    snprintf(extra, sizeof extra, "%s --compare %s/after.pmf", view, wd.dir);
    if (!shot("before", "moved", extra, &img)) {
        check_failures++;
        return;
    }
    unsigned long long changed = 0, total = 0, brighter = 0, darker = 0;
    int max_diff = 0;
    CHECK(read_text("moved", text, sizeof text));
    CHECK_EQ(sscanf(text, "changed pixels: %llu of %llu (%*f%%), brighter %llu, darker %llu, max difference %d", &changed, &total,
                    &brighter, &darker, &max_diff), 5);
    CHECK_EQ(total, 65536);
    CHECK_EQ(brighter + darker, changed);
    CHECK(max_diff > 40);
    /* 8 m above the floor with a 90 degree view: 16 pixels per metre, +X right, -Z up. */
    unsigned long long warm = 0, cold = 0, outside = 0;
    for (int y = 0; y < img.h; y++)
        for (int x = 0; x < img.w; x++) {
            const unsigned char *p = test_pixel(&img, x, y);
            if (p[0] == p[1] && p[1] == p[2])
                continue;
            double wx = (x + 0.5 - 128) / 16.0, wz = (y + 0.5 - 128) / 16.0;
            double to_old = hypot(wx + 4, wz), to_new = hypot(wx - 4, wz);
            bool is_warm = p[0] > p[2];
            if (is_warm ? to_new > 2.83 + 0.5 : to_old > 2.83 + 0.5)
                outside++;
            if (is_warm)
                warm++;
            else
                cold++;
        }
    CHECK_EQ(outside, 0);
    CHECK_EQ(warm, brighter);
    CHECK_EQ(cold, darker);
    /* most of each disc of reach (2.83 m = 45 px radius: 6400 px) changed */
    CHECK(warm > 4000 && cold > 4000);
    test_image_free(&img);
    /* one camera only; B must be a map */
    char a[512], b[512], bad_b[512], png[512], err[512];
    snprintf(a, sizeof a, "%s/before.pmf", wd.dir);
    snprintf(b, sizeof b, "%s/after.pmf", wd.dir);
    snprintf(bad_b, sizeof bad_b, "%s/before.pms", wd.dir);
    snprintf(png, sizeof png, "%s/x.png", wd.dir);
    snprintf(err, sizeof err, "%s/bad.txt", wd.dir);
    CHECK_EQ(test_run(NULL, (const char *[]){ wd.pmfview, "shot", a, "-o", png, "--compare", b, "--frames", "2", NULL }, NULL, err), 1);
    CHECK_EQ(test_run((const char *[]){ "ASAN_OPTIONS=detect_leaks=0", NULL },
                      (const char *[]){ wd.pmfview, "shot", a, "-o", png, "--compare", bad_b, NULL }, NULL, err), 2);
}

/* ---- region overlays --------------------------------------------------------------------------- */

/* Blending as the overlay does: colour over base at REGION_OVERLAY_ALPHA 77 of 255. */
static int tint(int colour, int base)
{
    return (int)lround((colour * 77 + base * (255 - 77)) / 255.0);
}

/* Pixels of a 256x256 top-down view from (0, 10, 0) with a 90 degree field of view: 128 / (10 - y)
 * pixels per metre at height y, +X right, -Z up. */
static bool check_area(const test_image *plain, const test_image *over, int x0, int x1, int y0, int y1, const int *rgb)
{
    bool ok = true;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            const unsigned char *b = test_pixel(plain, x, y), *p = test_pixel(over, x, y);
            bool good = rgb ? near_rgb(p, tint(rgb[0], b[0]), tint(rgb[1], b[1]), tint(rgb[2], b[2]), 2) : near_rgb(p, b[0], b[1], b[2], 1);
            if (!good && ok)
                fprintf(stderr, "pixel (%d, %d): %d %d %d over %d %d %d\n", x, y, p[0], p[1], p[2], b[0], b[1], b[2]);
            ok = ok && good;
        }
    return ok;
}

/* The boxes' bottom edges lie on the floor (y 0): they are drawn all along, never z-fighting with
 * it (the edges are pulled towards the eye as the faces are). Seen from (0, 10, 3) pitched 70
 * degrees down at 160x120, the inner ones (x -2 and 2, z -2..2) run down columns 64 and 95, rows
 * 66..78, opaque in the kinds' colours. */
static void test_overlay_edges_on_floor(void)
{
    test_image img;
    if (!shot("regions", "edges", "--size 160x120 --camera 0,10,3,0,-70 --overlay weather,gravity", &img)) {
        check_failures++;
        return;
    }
    for (int y = 66; y <= 78; y++) {
        CHECK_RGB(&img, 64, y, 60, 140, 255, 0);
        CHECK_RGB(&img, 95, y, 190, 70, 255, 0);
    }
    test_image_free(&img);
}

/* A weather region at x -6..-2 and a gravity region at x 2..6 (z -2..2, y 0..4, in one chunk) seen
 * from above: with their overlay on, every pixel inside a box's picture (away from its edges and
 * label) is the floor tinted with the kind's colour, and every pixel far outside is as without. */
static void test_overlay(void)
{
    CHECK_EQ(compile("regions", "map \"Regions\"\nmaterial floor color 200 200 200\n"
                                "level main {\n  chunk_size 4\n  ambient 120 120 120\n"
                                "  weather rain wind 1 0 0\n  gravity low 0 -3 0\n"
                                "  box -8 -1 -8 8 0 8 material floor\n"
                                "  region weather rain -6 0 -2 -2 4 2\n  region gravity low 2 0 -2 6 4 2\n"
                                "  load -6 0 2.5 -2 2 5.5 activate -8 -8 -8 8 8 8\n}\n"), 0);
    const char *view = "--size 256x256 --fov 90 --camera 0,10,0,0,-90";
    char extra[512];
    test_image plain, weather, all;
    snprintf(extra, sizeof extra, "%s", view);
    bool ok = shot("regions", "plain", extra, &plain);
    snprintf(extra, sizeof extra, "%s --overlay weather", view);
    ok = ok && shot("regions", "weather", extra, &weather);
    snprintf(extra, sizeof extra, "%s --overlay=all", view);
    ok = ok && shot("regions", "all", extra, &all);
    CHECK(ok);
    if (!ok)
        return;
    static const int blue[3] = { 60, 140, 255 }, violet[3] = { 190, 70, 255 }, orange[3] = { 255, 100, 30 };
    /* Weather: its top face (y 4: 21.3 px/m) over x 0..85, its bottom (y 0: 12.8 px/m) over
     * x 51..102, y 102..154; inside both, away from the edges, above and below the label. */
    CHECK(check_area(&plain, &weather, 56, 81, 107, 116, blue));
    CHECK(check_area(&plain, &weather, 56, 81, 141, 149, blue));
    CHECK(check_area(&plain, &all, 56, 81, 107, 116, blue));
    /* gravity, mirrored: shown with all, not with weather alone */
    CHECK(check_area(&plain, &all, 174, 199, 107, 116, violet));
    CHECK(check_area(&plain, &weather, 174, 199, 107, 116, NULL));
    /* the load region (x -6..-2, z 2.5..5.5, y 0..2): top over x 32..96, y 168..216, bottom over
     * x 51..102, y 160..198; above its label */
    CHECK(check_area(&plain, &all, 56, 91, 171, 176, orange));
    CHECK(check_area(&plain, &weather, 56, 91, 171, 176, NULL));
    /* far from the boxes: untouched */
    CHECK(check_area(&plain, &all, 110, 146, 0, 60, NULL));
    CHECK(check_area(&plain, &all, 0, 255, 225, 255, NULL));
    test_image_free(&plain);
    test_image_free(&weather);
    test_image_free(&all);
    char map[512], png[512], err[512];
    snprintf(map, sizeof map, "%s/regions.pmf", wd.dir);
    snprintf(png, sizeof png, "%s/x.png", wd.dir);
    snprintf(err, sizeof err, "%s/overlay_err.txt", wd.dir);
    CHECK_EQ(test_run(NULL, (const char *[]){ wd.pmfview, "shot", map, "-o", png, "--overlay", "weather,fog", NULL }, NULL, err), 1);
    test_overlay_edges_on_floor();
}

/* ---- atlas use in info --json ----------------------------------------------------------------- */

static double number(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* Level 0's lightmaps read with the format library: Σ luxels and Σ padded block texels. */
static void count_lightmaps(const char *name, uint64_t *lightmaps, uint64_t *luxels, uint64_t *blocks)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.pmf", wd.dir, name);
    *lightmaps = *luxels = *blocks = 0;
    pmf_error err;
    pmf_file *f = pmf_open(path, &err);
    pmf_level lvl;
    if (!f || !pmf_level_read(f, 0, PMF_PART_COMMON | PMF_PART_CLIENT, &lvl, &err)) {
        check_failures++;
        if (f)
            pmf_close(f);
        return;
    }
    const pmf_level_info *li = &f->levels[0];
    for (uint32_t x = 0; x < li->count_x; x++)
        for (uint32_t y = 0; y < li->count_y; y++)
            for (uint32_t z = 0; z < li->count_z; z++) {
                pmf_chunk_coord c = { x, y, z };
                pmf_chunk ch;
                if (!pmf_chunk_present(f, 0, c) || !pmf_chunk_read(f, &lvl, 0, c, PMF_PART_COMMON | PMF_PART_CLIENT, &ch, &err))
                    continue;
                for (unsigned m = 0; m < ch.client.lightmap_count; m++) {
                    uint64_t side = 1ull << ch.client.lightmaps[m].size_exp;
                    (*lightmaps)++;
                    *luxels += side * side;
                    *blocks += (side + 2) * (side + 2);
                }
                pmf_chunk_free(&ch);
            }
    pmf_level_free(&lvl);
    pmf_close(f);
}

/* info --json's per-level atlas figures agree with the lightmaps the file holds: luxels, their
 * RGB8 bytes, the padded blocks on one 2048² page and the share of it they fill; a level
 * without lightmaps uses no page. */
static void test_atlas(void)
{
    CHECK_EQ(compile("lit", "map \"Atlas\"\nmaterial floor color 200 200 200\nmaterial wall color 100 100 100\n"
                            "material unlit color 50 50 50 shading 0\n"
                            "level main {\n  chunk_size 4\n  luxels 8\n  box -8 -1 -8 8 0 8 material floor\n"
                            "  box -2 0 -2 2 3 2 material wall\n}\n"
                            "level unlit {\n  chunk_size 4\n  box -2 -1 -2 2 0 2 material unlit\n}\n"), 0);
    char lit[512];
    snprintf(lit, sizeof lit, "%s/lit.pmf", wd.dir);
    cJSON *root = test_info_json(wd.pmfview, lit);
    CHECK(root != NULL);
    if (!root)
        return;
    const cJSON *levels = cJSON_GetObjectItemCaseSensitive(root, "levels");
    CHECK_EQ(cJSON_GetArraySize(levels), 2);
    const cJSON *a0 = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(levels, 0), "atlas");
    const cJSON *a1 = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(levels, 1), "atlas");
    uint64_t lightmaps, luxels, blocks;
    count_lightmaps("lit", &lightmaps, &luxels, &blocks);
    CHECK(lightmaps > 0);
    CHECK_EQ(number(a0, "lightmaps"), lightmaps);
    CHECK_EQ(number(a0, "luxels"), luxels);
    CHECK_EQ(number(a0, "bytes"), luxels * 3);
    CHECK_EQ(number(a0, "block_texels"), blocks);
    CHECK_EQ(number(a0, "page_size"), 2048);
    CHECK_EQ(number(a0, "pages"), 1);
    CHECK(fabs(number(a0, "filled") - (double)blocks / (2048.0 * 2048.0)) < 1e-12);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a0, "complete")));
    CHECK_EQ(number(a1, "lightmaps"), 0);
    CHECK_EQ(number(a1, "luxels"), 0);
    CHECK_EQ(number(a1, "pages"), 0);
    CHECK_EQ(number(a1, "filled"), 0);
    cJSON_Delete(root);
}

/* Pathfinding data: the small sample map (tests/fixtures/sample_map.c) has two cubes with pathfinding
 * attributes; their edges (pink, opaque) show with `--overlay path` only. */
static void test_overlay_path(void)
{
    sample_map m;
    sample_map_build(&m, SAMPLE_MAP_SMALL);
    char path[512];
    snprintf(path, sizeof path, "%s/sample.pmf", wd.dir);
    pmf_error err;
    CHECK(sample_map_write_file(&m, path, &err));
    sample_map_free(&m);
    const char *view = "--size 320x240 --camera 0,40,40,0,-45";
    char extra[256];
    static const char *const kinds[] = { "none", "path", "sky" };
    unsigned long pink[3];
    for (int k = 0; k < 3; k++) {
        test_image img;
        snprintf(extra, sizeof extra, "%s%s %s", k ? "--overlay " : "", k ? kinds[k] : "", view);
        if (!shot("sample", kinds[k], extra, &img)) {
            check_failures++;
            return;
        }
        pink[k] = 0;
        for (int y = 0; y < img.h; y++)
            for (int x = 0; x < img.w; x++)
                pink[k] += near_rgb(test_pixel(&img, x, y), 255, 60, 150, 0);
        test_image_free(&img);
    }
    CHECK_EQ(pink[0], 0);
    CHECK(pink[1] > 100);
    CHECK_EQ(pink[2], 0);
}

static const check_case tests[] = {
    { "density", test_density },
    { "compare", test_compare },
    { "overlay", test_overlay },
    { "overlay_path", test_overlay_path },
    { "atlas", test_atlas },
    { NULL },
};

int main(int argc, char **argv)
{
    if (argc != 5) {
        fputs("usage: test_view_tools PMFC PMFVIEW WORKDIR CASE\n", stderr);
        return 1;
    }
    test_workdir_open(&wd, argv[1], argv[2], argv[3]);
    return check_run_case(tests, argv[4]);
}
