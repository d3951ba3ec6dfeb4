/* test_pmfc_pictures.c - what compiled maps look like: sources built here, compiled by the real
 * pmfc, rendered by `pmfview shot` and read back pixel by pixel (and with the format library).
 * Usage: test_pmfc_pictures PMFC PMFVIEW WORKDIR CASE */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmf/pmf.h"
#include "common/check.h"
#include "common/programs.h"

static test_workdir wd;

/* Compiles source into WORKDIR/NAME.pmf with pmfc options `extra`; returns pmfc's exit code
 * (stderr into WORKDIR/NAME.log). */
static int compile_with(const char *name, const char *source, const char *extra)
{
    char options[512];
    snprintf(options, sizeof options, "--time 1 %s", extra);
    return test_workdir_compile(&wd, name, source, options);
}

static int compile(const char *name, const char *source)
{
    return compile_with(name, source, "");
}

static bool shot(const char *map, const char *out, const char *extra, test_image *img)
{
    return test_workdir_shot(&wd, "", map, out, extra, img);
}

/* A growing text buffer for generated sources. */
typedef struct text { char *s; size_t len, cap; } text;

static void addf(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addf(text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (t->s && t->len + (size_t)n < t->cap) { t->len += (size_t)n; return; }
        t->cap = (t->cap + (size_t)n + 1) * 2;
        t->s = realloc(t->s, t->cap);
        if (!t->s) exit(1);
    }
}

/* ---- 1: no cracks -------------------------------------------------------------------------- */

/* A closed hall of 16 m chunks, 120 m long, with 60 small boxes on its walls, floor and ceiling:
 * the boxes split the faces behind them into small cubes next to big ones, across cube and
 * chunk boundaries, where T-junctions would be. The sky is magenta and nothing inside is: a
 * magenta pixel anywhere is a crack. */
static void test_cracks(void)
{
    text src = { 0 };
    addf(&src, "map \"Cracks\"\nmaterial wall color 150 150 150 shading 0\nmaterial block color 90 120 90 shading 0\n"
               "material magenta color 255 0 255 shading 0\n"
               "level main {\n  chunk_size 4\n  sky s {\n    all magenta\n  }\n  default sky s\n"
               "  room -3 -1 -60 3 4 60 material wall thickness 0.5\n");
    uint32_t seed = 3;
    for (int i = 0; i < 60; i++) {
        double r[4];
        for (int k = 0; k < 4; k++) {
            seed = seed * 1664525u + 1013904223u;
            r[k] = (seed >> 8) / 16777216.0;
        }
        double z = -58 + i * 1.93, s = (double[]){ 0.1, 0.2, 0.35 }[(int)(r[0] * 3)];
        double a = 1 + r[2] * 2, b = r[2] * 4 - 2;
        switch ((int)(r[1] * 4)) {
        case 0: addf(&src, "  box -2.5 %.3f %.3f %.3f %.3f %.3f material block\n", a, z, -2.5 + s, a + s, z + s); break;
        case 1: addf(&src, "  box %.3f %.3f %.3f 2.5 %.3f %.3f material block\n", 2.5 - s, a, z, a + s, z + s); break;
        case 2: addf(&src, "  box %.3f %.3f %.3f %.3f 3.5 %.3f material block\n", b, 3.5 - s, z, b + s, z + s); break;
        default: addf(&src, "  box %.3f -0.5 %.3f %.3f %.3f %.3f material block\n", b, z, b + s, -0.5 + s, z + s); break;
        }
    }
    addf(&src, "}\n");
    CHECK_EQ(compile("cracks", src.s), 0);
    free(src.s);
    const char *cameras[] = { "0,1.5,55,0,0", "0,1.5,55,5,3", "0,1.5,-55,180,-3", "1.5,3,0,10,8", "-1,0.5,30,-8,-5",
                              "2,0.2,50,-4,6", "-2,3.2,-50,176,-7", "0,1.5,0,0,0" };
    long cracks = 0, views = 0;
    for (size_t c = 0; c < sizeof cameras / sizeof *cameras; c++) {
        char extra[256];
        test_image img;
        snprintf(extra, sizeof extra, "--camera %s --size 1280x720%s", cameras[c], c & 1 ? " --no-vis" : "");
        if (!shot("cracks", "cracks", extra, &img)) { check_failures++; continue; }
        views++;
        for (int y = 0; y < img.h; y++)
            for (int x = 0; x < img.w; x++) {
                const unsigned char *p = test_pixel(&img, x, y);
                if (p[0] - p[1] > 20 && p[2] - p[1] > 20) {
                    if (cracks < 5) fprintf(stderr, "crack: camera %s pixel (%d,%d) = %d %d %d\n", cameras[c], x, y, p[0], p[1], p[2]);
                    cracks++;
                }
            }
        test_image_free(&img);
    }
    printf("cracks: %ld background pixels in %ld views of 1280x720\n", cracks, views);
    CHECK_EQ(views, 8);
    CHECK_EQ(cracks, 0);
}

/* ---- 3: liquids lit smoothly --------------------------------------------------------------- */

/* A 16 m pool of water (transparent liquid) lit by one light near its west end, seen from above
 * in lightmap mode: along the pool the light falls off smoothly (no step between neighbouring
 * pixels bigger than a few levels, where cube lighting gave one flat value per cube). */
static void test_water(void)
{
    CHECK_EQ(compile("water", "map \"Water\"\nmaterial stone color 200 200 200\n"
                             "material water color 255 255 255 transparent liquid alpha 255\n"
                             "level main {\n  chunk_size 5\n  ambient 0 0 0\n"
                             "  box -16 -2 -6 16 -1 6 material stone\n"
                             "  box -8 -1 -2 8 -0.3 2 material water\n"
                             "  light static at -12 5 0 range 40\n}\n"), 0);
    test_image img;
    if (!shot("water", "water", "--camera 0,12,0,0,-90 --size 320x180 --fov 90 --mode lightmap", &img)) { check_failures++; return; }
    /* 90 degrees across 180 rows at 11.3 m: 7.96 pixels a metre, the pool x = 160 -/+ 63 at y = 90 */
    int max_step = 0, lo = 255, hi = 0;
    for (int x = 108; x < 212; x++) {
        int v = test_pixel(&img, x, 90)[1], prev = test_pixel(&img, x - 1, 90)[1];
        max_step = abs(v - prev) > max_step ? abs(v - prev) : max_step;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    printf("water: light along the pool %d..%d, biggest step between neighbouring pixels %d\n", lo, hi, max_step);
    CHECK(hi - lo >= 40);       /* the light does fall off */
    CHECK(max_step <= 3);
    test_image_free(&img);
}

/* ---- 7: shot --frames --path ends on the path's last frame, complete --------------------------- */

static long differing_pixels(const test_image *a, const test_image *b)
{
    if (a->w != b->w || a->h != b->h) return -1;
    long n = 0;
    for (size_t i = 0; i < (size_t)a->w * a->h; i++)
        for (int c = 0; c < 3; c++)
            if (abs(a->rgb[i * 3 + c] - b->rgb[i * 3 + c]) > 1) { n++; break; }
    return n;
}

/* A generated town 12 chunks long flown through in 3 frames with a streaming radius of 2: the
 * frames outrun the streaming, and the PNG is still the path's end with everything in view: the
 * same picture as a plain shot from there. */
static void test_path_end(void)
{
    char town[512], path[512];
    snprintf(town, sizeof town, "%s/town.pmf", wd.dir);
    CHECK_EQ(test_run(NULL, (const char *[]){ wd.pmfc, "--generate", "town", "--chunks", "12x1x2", "--seed", "5", "-o", town, "--quiet", NULL },
                      NULL, NULL), 0);
    snprintf(path, sizeof path, "%s/path.txt", wd.dir);
    test_write_text(path, "150,1.7,-16,90,0\n-150,1.7,-16,270,-5\n");
    char extra[1024];
    snprintf(extra, sizeof extra, "--size 320x180 --radius 2 --frames 3 --path %s --stats", path);
    test_image flown, still;
    if (!shot("town", "flown", extra, &flown) || !shot("town", "still", "--size 320x180 --radius 2 --camera -150,1.7,-16,270,-5", &still)) {
        check_failures++;
        return;
    }
    long diff = differing_pixels(&flown, &still);
    long sky = 0;
    for (size_t i = 0; i < (size_t)still.w * still.h; i++) sky += still.rgb[i * 3 + 2] > still.rgb[i * 3] + 40;
    printf("path_end: %ld of %d pixels differ from a shot at the path's end (%ld sky-blue there)\n", diff, still.w * still.h, sky);
    CHECK_EQ(diff, 0);
    CHECK(sky < still.w * still.h / 2);   /* the end of the street, not an empty sky */
    test_image_free(&flown);
    test_image_free(&still);
}

/* ---- 6: tiled shots ---------------------------------------------------------------------------- */

/* A textured, lit room seen at grazing angles, drawn whole and in 100-pixel tiles
 * (PMFVIEW_SHOT_TILE), with and without MSAA: every pixel within 1 (docs/shot.md). */
static void test_tiles(void)
{
    CHECK_EQ(compile("tiles", "map \"Tiles\"\n"
                             "texture floor procedural tiles 64 color 180 180 190 color2 60 60 70\n"
                             "texture wall procedural bricks 64 color 160 80 60 color2 200 200 190\n"
                             "texture sky procedural sky 64 color 90 140 220 color2 200 220 240\n"
                             "material floor texture floor scale 1\nmaterial wall texture wall scale 2\n"
                             "material sky texture sky shading 0\n"
                             "level main {\n  chunk_size 4\n  sky s {\n    all sky\n  }\n  default sky s\n"
                             "  room -20 -1 -12 20 6 12 floor floor walls wall ceiling wall open +y door +z 4 4\n"
                             "  box -3 0 -3 3 2 3 material wall\n  box 8 0 -8 9 5 -7 material wall\n"
                             "  light static at -10 4 0 range 30\n  light static at 12 3 5 color 255 180 120 range 25\n}\n"), 0);
    const char *cameras[] = { "-18,0.3,0,270,-5", "15,4,9,60,-25", "0,1,-10,180,10" };
    int worst = 0;
    long off = 0;
    for (size_t c = 0; c < sizeof cameras / sizeof *cameras; c++)
        for (int msaa = 0; msaa < 2; msaa++) {
            char extra[256];
            snprintf(extra, sizeof extra, "--camera %s --size 640x360%s", cameras[c], msaa ? " --msaa 4" : "");
            test_image whole, tiled;
            if (!shot("tiles", "whole", extra, &whole) ||
                !test_workdir_shot(&wd, "PMFVIEW_SHOT_TILE=100", "tiles", "tiled", extra, &tiled)) {
                check_failures++;
                continue;
            }
            for (size_t i = 0; i < (size_t)whole.w * whole.h * 3; i++) {
                int d = abs(whole.rgb[i] - tiled.rgb[i]);
                worst = d > worst ? d : worst;
                off += d > 1;
            }
            test_image_free(&whole);
            test_image_free(&tiled);
        }
    printf("tiles: 6 views, %ld channels differ by more than 1, the most by %d\n", off, worst);
    CHECK(worst <= 1);
}

/* ---- 4, 5: far from the origin --------------------------------------------------------------- */

/* A lit room with a table at X, and a marker box at MARKER so the grid stays 1563 chunks of 128 m
 * long (the room's chunk is then 1562 chunks from the origin's, or is the origin's). */
static const char *far_source(text *t, long x, long marker)
{
    t->len = 0;
    addf(t, "map \"Far\"\ntexture tiles procedural tiles 64 color 180 180 190 color2 60 60 70\n"
            "material stone texture tiles scale 2\n"
            "level main {\n  chunk_size 7\n  box %ld -1 -1 %ld 1 1 material stone\n"
            "  room %ld 0 -10 %ld 5 10 material stone door +z 2 3\n  box %ld 0.25 -3.3 %ld.7 1.5 2 material stone\n"
            "  light static at %ld 4 0.5 range 20\n  light static at %ld.25 2 -6 color 255 120 60 range 9\n}\n",
         marker - 1, marker + 1, x - 10, x + 10, x - 3, x + 2, x, x + 5);
    return t->s;
}

static bool read_room_chunk(const char *name, uint32_t gx, pmf_file **f, pmf_level *lvl, pmf_chunk *ch)
{
    char path[512];
    pmf_error err;
    snprintf(path, sizeof path, "%s/%s.pmf", wd.dir, name);
    if (!(*f = pmf_open(path, &err))) return false;
    if (!pmf_level_read(*f, 0, PMF_PART_ALL, lvl, &err)) return false;
    return pmf_chunk_read(*f, lvl, 0, (pmf_chunk_coord){ gx, 0, 0 }, PMF_PART_ALL, ch, &err) && ch->parts;
}

/* The same room compiled at x = 0 and at x = 199,936 m (1562 chunks of 128 m out, a whole number
 * of 2 m texture repeats): the room's chunk holds the same chunk-local vertices (positions,
 * lightmap UVs, texture UVs: chunk-local, whole repeats taken off, so all within 64 m / 2 m + 1
 * repeats) and the same lightmaps (within 1 per channel: the baker's float rounding). */
static void test_far_origin(void)
{
    text src = { 0 };
    /* direct light only: bounce rays (world floats) meet surfaces a few millimetres apart there */
    CHECK_EQ(compile_with("near", far_source(&src, 0, -199936), "--bounce 0"), 0);
    CHECK_EQ(compile_with("far", far_source(&src, 199936, 0), "--bounce 0"), 0);
    free(src.s);
    pmf_file *fn = NULL, *ff = NULL;
    pmf_level ln, lf;
    pmf_chunk cn, cf;
    if (!read_room_chunk("near", 1562, &fn, &ln, &cn) || !read_room_chunk("far", 1562, &ff, &lf, &cf)) {
        fprintf(stderr, "cannot read the room's chunk\n");
        { check_failures++; return; }
    }
    CHECK_EQ(ln.count_x, 1563);
    CHECK_EQ(lf.count_x, 1563);
    CHECK_EQ(ln.center.x, 1562);
    CHECK_EQ(lf.center.x, 0);
    uint32_t nv = cn.client.vertex_count;
    printf("far_origin: the room's chunk has %u vertices near the origin, %u at x = 199936\n", nv, cf.client.vertex_count);
    CHECK(nv > 500);
    CHECK_EQ(cf.client.vertex_count, nv);
    CHECK_EQ(cf.common.cube_count, cn.common.cube_count);
    int pos_off = 0, uv_off = 0, lm_off = 0;
    double uv_worst = 0, uv_max = 0;
    for (uint32_t i = 0; i < nv && i < cf.client.vertex_count; i++) {
        const pmf_vertex *a = &cn.client.vertices[i], *b = &cf.client.vertices[i];
        for (int k = 0; k < 3; k++) pos_off += a->xyz[k] != b->xyz[k];
        for (int k = 0; k < 2; k++) {
            double d = fabs(a->uv[k] - b->uv[k]);
            uv_max = fmax(uv_max, fmax(fabs(a->uv[k]), fabs(b->uv[k])));
            uv_worst = d > uv_worst ? d : uv_worst;
            uv_off += d > 1e-5;
            lm_off += fabs(a->lm_uv[k] - b->lm_uv[k]) > 1e-6;
        }
    }
    long luxels = 0, luxel_off = 0;
    int luxel_worst = 0;
    CHECK_EQ(cf.client.lightmap_count, cn.client.lightmap_count);
    for (uint32_t m = 0; m < cn.client.lightmap_count && m < cf.client.lightmap_count; m++) {
        CHECK_EQ(cf.client.lightmaps[m].size_exp, cn.client.lightmaps[m].size_exp);
        if (cf.client.lightmaps[m].size_exp != cn.client.lightmaps[m].size_exp) continue;
        size_t n = (size_t)3 << (2 * cn.client.lightmaps[m].size_exp);
        for (size_t k = 0; k < n; k++) {
            int d = abs(cn.client.lightmaps[m].luxels[k] - cf.client.lightmaps[m].luxels[k]);
            luxels++;
            luxel_off += d > 1;
            luxel_worst = d > luxel_worst ? d : luxel_worst;
        }
    }
    printf("far_origin: %d position and %d lightmap-UV components differ; texture UVs differ by up to %g (largest %g); "
           "%ld of %ld luxel channels differ by more than 1 (the most by %d)\n",
           pos_off, lm_off, uv_worst, uv_max, luxel_off, luxels, luxel_worst);
    CHECK_EQ(pos_off, 0);
    CHECK_EQ(lm_off, 0);
    CHECK_EQ(uv_off, 0);
    CHECK(uv_max <= 33);
    /* and they look the same: the tiled floor and walls, seen from the same place in the room */
    test_image near, far;
    if (shot("near", "near", "--camera 0,2,8,10,-25 --size 320x180", &near) &&
        shot("far", "far", "--camera 199936,2,8,10,-25 --size 320x180", &far)) {
        long diff = differing_pixels(&near, &far);
        printf("far_origin: %ld of %d pixels differ between the pictures\n", diff, near.w * near.h);
        CHECK_EQ(diff, 0);
        test_image_free(&near);
        test_image_free(&far);
    } else {
        check_failures++;
    }
    CHECK_EQ(luxel_off, 0);
    pmf_chunk_free(&cn);
    pmf_chunk_free(&cf);
    pmf_level_free(&ln);
    pmf_level_free(&lf);
    pmf_close(fn);
    pmf_close(ff);
}

/* ---- 9: fog at the streaming horizon -------------------------------------------------------- */

/* A grey floor 400 m long under a flat orange sky, streamed 4 chunks of 16 m around the camera:
 * without fog the floor ends in a hard edge against the sky; with --fog it fades into the sky's
 * horizon colour, full at 64 m, so no step up the picture is big, and the near floor is as it was. */
static void test_fog(void)
{
    CHECK_EQ(compile("fog", "map \"Fog\"\nmaterial floor color 100 100 100 shading 0\nmaterial sky color 200 100 50 shading 0\n"
                           "level main {\n  chunk_size 4\n  sky s {\n    all sky\n  }\n  default sky s\n"
                           "  box -8 -1 -400 8 0 8 material floor\n}\n"), 0);
    test_image plain, fog;
    const char *view = "--camera 0,2,0,0,-5 --size 320x240 --fov 60 --radius 4";
    char extra[256];
    snprintf(extra, sizeof extra, "%s --fog", view);
    if (!shot("fog", "plain", view, &plain) || !shot("fog", "fogged", extra, &fog)) {
        check_failures++;
        return;
    }
    int step_plain = 0, step_fog = 0;
    for (int y = 80; y < 239; y++)
        for (int c = 0; c < 3; c++) {
            int a = abs(test_pixel(&plain, 160, y)[c] - test_pixel(&plain, 160, y + 1)[c]);
            int b = abs(test_pixel(&fog, 160, y)[c] - test_pixel(&fog, 160, y + 1)[c]);
            step_plain = a > step_plain ? a : step_plain;
            step_fog = b > step_fog ? b : step_fog;
        }
    const unsigned char *near = test_pixel(&fog, 160, 220), *horizon = test_pixel(&fog, 160, 106), *sky = test_pixel(&fog, 160, 60);
    printf("fog: biggest step up the middle column %d without fog, %d with; near floor %d %d %d, "
           "horizon %d %d %d, sky %d %d %d\n", step_plain, step_fog, near[0], near[1], near[2], horizon[0], horizon[1],
           horizon[2], sky[0], sky[1], sky[2]);
    CHECK(step_plain >= 90);
    CHECK(step_fog <= 30);
    CHECK(near[0] == 100 && near[1] == 100 && near[2] == 100);
    CHECK(!memcmp(test_pixel(&plain, 160, 220), near, 3));
    CHECK(abs(horizon[0] - 200) <= 1 && abs(horizon[1] - 100) <= 1 && abs(horizon[2] - 50) <= 1);
    CHECK(!memcmp(sky, (unsigned char[]){ 200, 100, 50 }, 3));
    test_image_free(&plain);
    test_image_free(&fog);
}

/* ---- 10: fast lights as round pools ------------------------------------------------------------ */

/* A 24 m floor lit only by a fast light 1 m above it (range 6), seen from straight above in
 * lightmap mode: the light's pool is round. On rings of 1.5, 3 and 4.5 m around its centre, 32
 * samples each agree within a few levels (per-vertex light over big quads made diamonds). */
static void test_fast_pool(void)
{
    CHECK_EQ(compile("pool", "map \"Pool\"\nmaterial floor color 200 200 200\n"
                            "level main {\n  chunk_size 5\n  ambient 0 0 0\n  box -12 -1 -12 12 0 12 material floor\n"
                            "  light fast 4 at 0.3 1 -0.2 color 255 255 255 range 6\n}\n"), 0);
    test_image img;
    /* 90 degrees across 240 rows at 10 m: 12 pixels a metre (x right = +X, down = +Z), the
     * light's centre at (163.6, 117.6) */
    if (!shot("pool", "pool", "--camera 0,10,0,0,-90 --size 320x240 --fov 90 --mode lightmap", &img)) {
        check_failures++;
        return;
    }
    double ppm = 120.0 / 10.0, cx = 160 + 0.3 * ppm, cy = 120 - 0.2 * ppm;
    int worst = 0, centre = test_pixel(&img, (int)cx, (int)cy)[0];
    for (int ring = 1; ring <= 3; ring++) {
        int lo = 255, hi = 0;
        for (int k = 0; k < 32; k++) {
            double a = k * 2 * M_PI / 32, r = 1.5 * ring * ppm;
            int v = test_pixel(&img, (int)floor(cx + r * cos(a)), (int)floor(cy + r * sin(a)))[0];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        printf("fast_pool: ring %.1f m: %d..%d\n", 1.5 * ring, lo, hi);
        worst = hi - lo > worst ? hi - lo : worst;
    }
    printf("fast_pool: centre %d, the rings vary by up to %d\n", centre, worst);
    CHECK(centre >= 100);
    CHECK(worst <= 6);
    test_image_free(&img);
}

static const check_case tests[] = {
    { "cracks", test_cracks },
    { "water", test_water },
    { "path_end", test_path_end },
    { "tiles", test_tiles },
    { "far_origin", test_far_origin },
    { "fog", test_fog },
    { "fast_pool", test_fast_pool },
    { NULL },
};

int main(int argc, char **argv)
{
    if (argc != 5) {
        fputs("usage: test_pmfc_pictures PMFC PMFVIEW WORKDIR CASE\n", stderr);
        return 1;
    }
    test_workdir_open(&wd, argv[1], argv[2], argv[3]);
    return check_run_case(tests, argv[4]);
}
