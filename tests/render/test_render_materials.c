/* test_render_materials.c - textures (embedded PAF: PNG and PTF; --game dir; missing ->
 * checkerboard), animation, UV scroll, blending, emission, shading, matcap shine and the sky
 * (skybox faces, sky regions, cloud layer, 3D skybox chunk), checked pixel by pixel (±1).
 *
 * usage: test_render_materials PMFVIEW TEST */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ptf.h"
#include "common/programs.h"
#include "fixture_map.h"
#include "rt_shot.h"

static const pmf_chunk_coord ONE = { 1, 1, 1 }, ORIGIN = { 0, 0, 0 };

/* round(255 × Π x_i / 255) over n 8-bit factors. */
static int prod(int n, const int *f)
{
    double v = 255.0;
    for (int i = 0; i < n; i++)
        v *= f[i] / 255.0;
    return (int)lround(v);
}
#define PROD(...) prod((int)(sizeof((int[]){ __VA_ARGS__ }) / sizeof(int)), (int[]){ __VA_ARGS__ })

/* A solid w x h RGBA image. */
static uint8_t *solid(int w, int h, uint8_t r, uint8_t g, uint8_t b, uint8_t a)
{
    uint8_t *p = malloc((size_t)w * h * 4);
    for (int i = 0; i < w * h; i++) {
        p[i * 4] = r;
        p[i * 4 + 1] = g;
        p[i * 4 + 2] = b;
        p[i * 4 + 3] = a;
    }
    return p;
}

static uint8_t *solid_png(uint8_t r, uint8_t g, uint8_t b, size_t *size)
{
    uint8_t *px = solid(4, 4, r, g, b, 255), *png = NULL;
    fx_png(px, 4, 4, &png, size);
    free(px);
    return png;
}

/* Left half (cube 1) and right half (cube 2) walls at z, of materials a and b, luxel 255. */
static fx_chunk *two_walls(fx_level *l, uint8_t a, uint8_t b)
{
    fx_chunk *c = fx_chunk_add(l, ORIGIN);
    uint8_t lm = fx_lightmap(c, 1, 255, 255, 255);
    fx_two_walls(c, a, lm, b, lm);
    return c;
}

static int test_texture_archive(void)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, ONE, ORIGIN);
    uint8_t png_mat = fx_material(l, "png", "map:textures/t", 0, 0);
    uint8_t ptf_mat = fx_material(l, "ptf", "map:textures/p", 0, 0);
    memcpy(fx_cmat(l, png_mat)->color, (uint8_t[]){ 255, 200, 255 }, 3);
    fx_chunk *c = two_walls(l, png_mat, ptf_mat);
    memset(c->lightmaps[0].luxels, 200, 4 * 3);

    size_t png_size, ptf_size;
    uint8_t *png = solid_png(128, 255, 64, &png_size);
    uint8_t *px = solid(4, 4, 10, 20, 30, 255), *ptf = NULL;
    pmf_error err;
    REQUIRE(ptf_encode(px, 4, 4, PTF_FORMAT_RGB, &ptf, &ptf_size, &err));
    const char *paths[2] = { "textures/t.png", "textures/p.ptf" };
    uint8_t *data[2] = { png, ptf };
    size_t sizes[2] = { png_size, ptf_size };
    REQUIRE(fx_map_archive(&m, 2, paths, data, sizes));
    test_image img;
    REQUIRE(rt_shot_map(&m, "", &img));
    /* colour × texel × luxel. */
    REQUIRE(rt_expect(&img, 16, 32, PROD(255, 128, 200), PROD(200, 255, 200), PROD(255, 64, 200)));
    REQUIRE(rt_expect(&img, 48, 32, PROD(10, 200), PROD(20, 200), PROD(30, 200)));
    test_image_free(&img);
    free(png);
    free(px);
    free(ptf);
    fx_map_free(&m);
    return 0;
}

static int test_texture_game_dir(void)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, ONE, ORIGIN);
    uint8_t found = fx_material(l, "found", "textures/g", 0, 0);
    /* the missing texture's path tries OSC 52 (clipboard write) and ESC [2J on the terminal */
    uint8_t missing = fx_material(l, "missing", "textures/none\x1b]52;c;ZXZpbA==\x07\x1b[2J\x9b", 0, 0);
    two_walls(l, found, missing);
    REQUIRE(fx_map_write(&m, "map.pmf"));
    REQUIRE(test_make_dir("game") && test_make_dir("game/textures"));
    size_t size;
    uint8_t *png = solid_png(90, 45, 180, &size);
    REQUIRE(test_write_file("game/textures/g.png", png, size));
    free(png);
    char err[1024];
    REQUIRE(rt_run("shot map.pmf -o out.png --size 64x64 --fov 90 --game game", err) == 0);
    /* The missing texture is reported once, as one line. */
    REQUIRE(strstr(err, "checkerboard") && strchr(err, '\n') == err + strlen(err) - 1);
    /* ... with every control byte and bad byte of the path shown as \xNN */
    REQUIRE(strstr(err, "textures/none\\x1B]52;c;ZXZpbA==\\x07\\x1B[2J\\x9B"));
    for (const char *c = err; *c; c++)
        REQUIRE(*c == '\n' || ((unsigned char)*c >= 0x20 && (unsigned char)*c < 0x7F));
    test_image img;
    REQUIRE(test_image_load(&img, "out.png"));
    REQUIRE(rt_expect(&img, 16, 32, 90, 45, 180));
    /* Checkerboard: magenta or black texels (8-texel cells over 64 texels across 32 pixels). */
    for (int y = 8; y < 64; y += 16) {
        const uint8_t *p = &img.rgb[((size_t)y * 64 + 40) * 3];
        REQUIRE((p[0] > 200 && p[1] < 60 && p[2] > 200) || (p[0] < 60 && p[1] < 60 && p[2] < 60));
    }
    test_image_free(&img);
    fx_map_free(&m);
    return 0;
}

static int test_animation(void)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, ONE, ORIGIN);
    uint8_t mat = fx_material(l, "anim", "map:textures/a", 0, 0);
    pmf_client_material *cm = fx_cmat(l, mat);
    l->extra[mat][0] = "map:textures/b";
    l->extra[mat][1] = "map:textures/c";
    cm->extra_texture_count = 2;
    cm->advance_time_us = 500000;
    fx_wall_chunk(l, ORIGIN, mat, 1, (uint8_t[]){ 255, 255, 255 });
    size_t s[3];
    uint8_t *d[3] = { solid_png(255, 0, 0, &s[0]), solid_png(0, 255, 0, &s[1]), solid_png(0, 0, 255, &s[2]) };
    const char *paths[3] = { "textures/a.png", "textures/b.png", "textures/c.png" };
    REQUIRE(fx_map_archive(&m, 3, paths, d, s));
    REQUIRE(fx_map_write(&m, "map.pmf"));
    static const struct { const char *time; int r, g, b; } frames[] = {
        { "0", 255, 0, 0 }, { "0.6", 0, 255, 0 }, { "1.2", 0, 0, 255 }, { "1.7", 255, 0, 0 },
    };
    for (int i = 0; i < 4; i++) {
        char args[64];
        test_image img;
        snprintf(args, sizeof args, "--time %s", frames[i].time);
        REQUIRE(rt_shot("map.pmf", "out.png", args) == 0 && test_image_load(&img, "out.png"));
        REQUIRE(rt_expect(&img, 32, 32, frames[i].r, frames[i].g, frames[i].b));
        test_image_free(&img);
    }
    for (int i = 0; i < 3; i++)
        free(d[i]);
    fx_map_free(&m);
    return 0;
}

/* A 4x1 texture red red blue blue across a wall that exactly fills the view (u 0..1 over the
 * 64 pixels); scrolling u by 0.5 swaps the halves. */
static int test_uv_scroll(void)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, ONE, ORIGIN);
    uint8_t mat = fx_material(l, "scroll", "map:textures/s", 0, 0);
    fx_cmat(l, mat)->uv_scroll[0] = 0.25f;
    fx_chunk *c = fx_chunk_add(l, ORIGIN);
    float q[4][3];
    fx_wall_z(q, -4, 4, -4, 4, -4, true);
    fx_geom_quad(c, 0, mat, fx_lightmap(c, 1, 255, 255, 255), q);
    uint8_t px[16] = { 255, 0, 0, 255, 255, 0, 0, 255, 0, 0, 255, 255, 0, 0, 255, 255 }, *png;
    size_t size;
    REQUIRE(fx_png(px, 4, 1, &png, &size));
    const char *paths[1] = { "textures/s.png" };
    REQUIRE(fx_map_archive(&m, 1, paths, &png, &size));
    REQUIRE(fx_map_write(&m, "map.pmf"));
    test_image a, b;
    REQUIRE(rt_shot("map.pmf", "a.png", "") == 0 && test_image_load(&a, "a.png"));
    REQUIRE(rt_shot("map.pmf", "b.png", "--time 2") == 0 && test_image_load(&b, "b.png"));
    REQUIRE(rt_expect(&a, 16, 32, 255, 0, 0) && rt_expect(&a, 48, 32, 0, 0, 255));
    REQUIRE(rt_expect(&b, 16, 32, 0, 0, 255) && rt_expect(&b, 48, 32, 255, 0, 0));
    test_image_free(&a);
    test_image_free(&b);
    free(png);
    fx_map_free(&m);
    return 0;
}

/* An opaque back wall at z = -6 and a blended wall at z = -4 covering the left half. */
static int blend_case(uint8_t flags, uint8_t mode, const uint8_t front[3], uint8_t alpha, test_image *img)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, ONE, ORIGIN);
    uint8_t back = fx_material(l, "back", NULL, 0, 0);
    uint8_t glass = fx_material(l, "glass", NULL, flags, mode);
    memcpy(fx_cmat(l, back)->color, (uint8_t[]){ 200, 100, 100 }, 3);
    memcpy(fx_cmat(l, glass)->color, front, 3);
    fx_cmat(l, glass)->alpha = alpha;
    fx_chunk *c = fx_chunk_add(l, ORIGIN);
    uint8_t lm = fx_lightmap(c, 1, 255, 255, 255);
    float q[4][3];
    fx_parent(c, 0, PMF_OCTANT_NEG_Z | PMF_OCTANT_NEG_X, 1);
    fx_parent(c, 0, PMF_OCTANT_NEG_Z | PMF_OCTANT_NEG_X | PMF_OCTANT_NEG_Y, 2);
    fx_wall_z(q, -8, 8, -8, 8, -6, true);
    fx_geom_quad(c, 2, back, lm, q);
    fx_wall_z(q, -8, 0, -8, 8, -4, true);
    fx_geom_quad(c, 1, glass, lm, q);
    REQUIRE(fx_map_write(&m, "map.pmf"));
    REQUIRE(rt_shot("map.pmf", "out.png", "") == 0 && test_image_load(img, "out.png"));
    fx_map_free(&m);
    return 0;
}

static int test_transparency(void)
{
    test_image img;
    REQUIRE(blend_case(PMF_MATERIAL_TRANSPARENT, PMF_RENDMODE_NORMAL, (uint8_t[]){ 0, 0, 255 }, 128, &img) == 0);
    double a = 128 / 255.0;
    REQUIRE(rt_expect(&img, 16, 32, (int)lround(200 * (1 - a)), (int)lround(100 * (1 - a)),
                       (int)lround(255 * a + 100 * (1 - a))));
    REQUIRE(rt_expect(&img, 48, 32, 200, 100, 100));
    test_image_free(&img);
    return 0;
}

static int test_additive(void)
{
    test_image img;
    REQUIRE(blend_case(0, PMF_RENDMODE_ADD, (uint8_t[]){ 0, 100, 50 }, 255, &img) == 0);
    REQUIRE(rt_expect(&img, 16, 32, 200, 200, 150));
    REQUIRE(rt_expect(&img, 48, 32, 200, 100, 100));
    test_image_free(&img);
    return 0;
}

/* Blended batches of different chunks draw far to near: a red glass in the far chunk (z < -8)
 * and a blue glass in the near chunk, both α = 0.5, over black: blue over (red over black). */
static int test_blend_order(void)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, (pmf_chunk_coord){ 1, 1, 2 }, (pmf_chunk_coord){ 0, 0, 1 });
    uint8_t red = fx_material(l, "red", NULL, PMF_MATERIAL_TRANSPARENT, 0);
    uint8_t blue = fx_material(l, "blue", NULL, PMF_MATERIAL_TRANSPARENT, 0);
    memcpy(fx_cmat(l, red)->color, (uint8_t[]){ 255, 0, 0 }, 3);
    memcpy(fx_cmat(l, blue)->color, (uint8_t[]){ 0, 0, 255 }, 3);
    fx_cmat(l, red)->alpha = fx_cmat(l, blue)->alpha = 128;
    float q[4][3];
    /* Near chunk (0,0,1) holds the camera; its glass is at z = -4. The blue one is listed first
     * in the file and the near chunk is added second, so only sorting gets the order right. */
    fx_wall_chunk(l, (pmf_chunk_coord){ 0, 0, 1 }, blue, 1, (uint8_t[]){ 255, 255, 255 });
    /* Far chunk (0,0,0), centre at world z = -16: its glass at world z = -12. */
    fx_chunk *far = fx_chunk_add(l, (pmf_chunk_coord){ 0, 0, 0 });
    fx_wall_z(q, -8, 8, -8, 8, 4, true);
    fx_geom_quad(far, 0, red, fx_lightmap(far, 1, 255, 255, 255), q);
    test_image img;
    REQUIRE(rt_shot_map(&m, "", &img));
    double a = 128 / 255.0;
    int r = (int)lround(255 * a * (1 - a)), b = (int)lround(255 * a);
    REQUIRE(rt_expect(&img, 32, 32, r, 0, b));
    test_image_free(&img);
    fx_map_free(&m);
    return 0;
}

/* Inside one chunk, blended cubes draw far to near too: the blue glass (cube 1, material 0,
 * z = -4) over the red glass (cube 2, material 1, z = -6). */
static int test_blend_order_cubes(void)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, ONE, ORIGIN);
    uint8_t blue = fx_material(l, "blue", NULL, PMF_MATERIAL_TRANSPARENT, 0);
    uint8_t red = fx_material(l, "red", NULL, PMF_MATERIAL_TRANSPARENT, 0);
    memcpy(fx_cmat(l, red)->color, (uint8_t[]){ 255, 0, 0 }, 3);
    memcpy(fx_cmat(l, blue)->color, (uint8_t[]){ 0, 0, 255 }, 3);
    fx_cmat(l, red)->alpha = fx_cmat(l, blue)->alpha = 128;
    fx_chunk *c = fx_chunk_add(l, ORIGIN);
    uint8_t lm = fx_lightmap(c, 1, 255, 255, 255);
    float q[4][3];
    fx_parent(c, 0, PMF_OCTANT_NEG_Z | PMF_OCTANT_NEG_X, 1);
    fx_parent(c, 0, PMF_OCTANT_NEG_Z | PMF_OCTANT_NEG_X | PMF_OCTANT_NEG_Y, 2);
    fx_wall_z(q, -8, 8, -8, 8, -4, true);
    fx_geom_quad(c, 1, blue, lm, q);
    fx_wall_z(q, -8, 8, -8, 8, -6, true);
    fx_geom_quad(c, 2, red, lm, q);
    test_image img;
    REQUIRE(rt_shot_map(&m, "", &img));
    double a = 128 / 255.0;
    REQUIRE(rt_expect(&img, 32, 32, (int)lround(255 * a * (1 - a)), 0, (int)lround(255 * a)));
    test_image_free(&img);
    fx_map_free(&m);
    return 0;
}

/* Blended cubes are sorted far to near, then regrouped by material where their screen
 * rectangles do not meet: red and blue glass, each a far and a near 4 m cube, red on the left
 * and blue on the right, sort as red, blue, red, blue and draw in two multi-draws. Where the
 * two red glasses overlap: red over (red over black). */
static int test_blend_groups(void)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, ONE, ORIGIN);
    uint8_t red = fx_material(l, "red", NULL, PMF_MATERIAL_TRANSPARENT, 0);
    uint8_t blue = fx_material(l, "blue", NULL, PMF_MATERIAL_TRANSPARENT, 0);
    memcpy(fx_cmat(l, red)->color, (uint8_t[]){ 255, 0, 0 }, 3);
    memcpy(fx_cmat(l, blue)->color, (uint8_t[]){ 0, 0, 255 }, 3);
    fx_cmat(l, red)->alpha = fx_cmat(l, blue)->alpha = 128;
    fx_chunk *c = fx_chunk_add(l, ORIGIN);
    uint8_t lm = fx_lightmap(c, 1, 255, 255, 255);
    /* Cubes 1 (x < 0) and 2 (x > 0) at z < 0, y > 0; in each, a 4 m cube at x far from 0 for
     * z in [-8, -4] (3, 5) and z in [-4, 0] (4, 6). */
    fx_parent(c, 0, PMF_OCTANT_NEG_X | PMF_OCTANT_NEG_Z, 1);
    fx_parent(c, 0, PMF_OCTANT_NEG_Z, 2);
    fx_parent(c, 1, PMF_OCTANT_NEG_X | PMF_OCTANT_NEG_Z, 3);
    fx_parent(c, 1, PMF_OCTANT_NEG_X, 4);
    fx_parent(c, 2, PMF_OCTANT_NEG_Z, 5);
    fx_parent(c, 2, 0, 6);
    float q[4][3];
    fx_wall_z(q, -8, -4, 4, 8, -6, true);
    fx_geom_quad(c, 3, red, lm, q);
    fx_wall_z(q, -8, -4, 4, 8, -2, true);
    fx_geom_quad(c, 4, red, lm, q);
    fx_wall_z(q, 4, 8, 4, 8, -6, true);
    fx_geom_quad(c, 5, blue, lm, q);
    fx_wall_z(q, 4, 8, 4, 8, -2, true);
    fx_geom_quad(c, 6, blue, lm, q);
    REQUIRE(fx_map_write(&m, "map.pmf"));
    REQUIRE(rt_run("shot map.pmf -o out.png --size 64x64 --fov 90 --camera 0,6,6,0,0 --stats", NULL) == 0);
    static char text[4096];
    FILE *f = fopen("stderr.txt", "r");
    REQUIRE(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    const char *baseline = getenv("PMFVIEW_GL_BASELINE");
    bool mdi = !(baseline && baseline[0] == '1');
    REQUIRE(strstr(text, "\nvisible materials: 2\n"));
    REQUIRE(strstr(text, mdi ? "\nworld draw calls: 2\n" : "\nworld draw calls: 4\n"));
    test_image img;
    REQUIRE(test_image_load(&img, "out.png"));
    double a = 128 / 255.0;
    int twice = (int)lround(255 * a * (2 - a));
    REQUIRE(rt_expect(&img, 13, 32, twice, 0, 0));
    REQUIRE(rt_expect(&img, 50, 32, 0, 0, twice));
    test_image_free(&img);
    fx_map_free(&m);
    return 0;
}

/* A liquid is where the map puts it at t = 0, and moves at t > 0. */
static int test_liquid(void)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, ONE, ORIGIN);
    uint8_t water = fx_material(l, "water", NULL, PMF_MATERIAL_LIQUID, 0);
    memcpy(fx_cmat(l, water)->color, (uint8_t[]){ 40, 90, 200 }, 3);
    fx_cmat(l, water)->wave = (pmf_wave_info){ .velocity = { 2, 0, 0 }, .scale = 0.5f };
    fx_chunk *c = fx_chunk_add(l, ORIGIN);
    float q[4][3];
    fx_floor_y(q, -8, 8, -8, 0, -1, true);
    fx_geom_quad(c, 0, water, fx_lightmap(c, 1, 255, 255, 255), q);
    REQUIRE(fx_map_write(&m, "map.pmf"));
    test_image still, moving;
    REQUIRE(rt_shot("map.pmf", "still.png", "") == 0 && test_image_load(&still, "still.png"));
    REQUIRE(rt_shot("map.pmf", "moving.png", "--time 0.7") == 0 && test_image_load(&moving, "moving.png"));
    /* At t = 0 the floor at y = -1 (z in [-8, 0]) fills the view below row 36 (its far edge). */
    REQUIRE(rt_expect(&still, 32, 50, 40, 90, 200) && rt_expect(&still, 32, 29, 0, 0, 0));
    REQUIRE(rt_expect(&still, 10, 60, 40, 90, 200) && rt_expect(&still, 10, 3, 0, 0, 0));
    int differ = 0;
    for (int i = 0; i < 64 * 64 * 3; i++)
        differ += still.rgb[i] != moving.rgb[i];
    REQUIRE(differ > 0);
    test_image_free(&still);
    test_image_free(&moving);
    fx_map_free(&m);
    return 0;
}

static int test_emission_shading(void)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, ONE, ORIGIN);
    uint8_t glow = fx_material(l, "glow", NULL, 0, 0), flat = fx_material(l, "flat", NULL, 0, 0);
    memcpy(fx_cmat(l, glow)->color, (uint8_t[]){ 100, 100, 100 }, 3);
    memcpy(fx_cmat(l, glow)->emission, (uint8_t[]){ 20, 30, 40 }, 3);
    memcpy(fx_cmat(l, flat)->color, (uint8_t[]){ 100, 150, 200 }, 3);
    fx_cmat(l, flat)->shading = 0;
    fx_chunk *c = two_walls(l, glow, flat);
    memset(c->lightmaps[0].luxels, 128, 4 * 3);
    test_image img;
    REQUIRE(rt_shot_map(&m, "", &img));
    REQUIRE(rt_expect(&img, 16, 32, PROD(100, 128) + 20, PROD(100, 128) + 30, PROD(100, 128) + 40));
    REQUIRE(rt_expect(&img, 48, 32, 100, 150, 200));          /* shading 0: L ignored */
    test_image_free(&img);
    /* Half shading: a × ((1 - s) + s × L). */
    fx_cmat(l, flat)->shading = 128;
    REQUIRE(fx_map_write(&m, "map2.pmf"));
    REQUIRE(rt_shot("map2.pmf", "half.png", "") == 0 && test_image_load(&img, "half.png"));
    double s = 128 / 255.0, L = 128 / 255.0;
    REQUIRE(rt_expect(&img, 48, 32, (int)lround(100 * ((1 - s) + s * L)), (int)lround(150 * ((1 - s) + s * L)),
                       (int)lround(200 * ((1 - s) + s * L))));
    test_image_free(&img);
    fx_map_free(&m);
    return 0;
}

static int test_matcap(void)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, ONE, ORIGIN);
    uint8_t mat = fx_material(l, "shiny", NULL, 0, 0);
    pmf_client_material *cm = fx_cmat(l, mat);
    memcpy(cm->color, (uint8_t[]){ 100, 100, 100 }, 3);
    cm->shine = 255;
    cm->matcap = "map:textures/m";
    fx_wall_chunk(l, ORIGIN, mat, 1, (uint8_t[]){ 255, 255, 255 });
    size_t size;
    uint8_t *png = solid_png(40, 60, 80, &size);
    const char *paths[1] = { "textures/m.png" };
    REQUIRE(fx_map_archive(&m, 1, paths, &png, &size));
    test_image img;
    REQUIRE(rt_shot_map(&m, "", &img));
    REQUIRE(rt_expect(&img, 32, 32, 140, 160, 180));          /* a × L + shine × m */
    test_image_free(&img);
    free(png);
    fx_map_free(&m);
    return 0;
}

/* A level with an empty chunk and sky environments: "outer" (default) and "inner". Skybox
 * face f of env e has colour (40 f + 10, 100 e + 20, 200). */
static fx_level *sky_level(fx_map *m, bool with_region)
{
    static const char *names[2][6] = {
        { "o0", "o1", "o2", "o3", "o4", "o5" }, { "i0", "i1", "i2", "i3", "i4", "i5" },
    };
    fx_level *l = fx_level_add(m, 4, (pmf_chunk_coord){ 2, 1, 1 }, ORIGIN);
    for (int e = 0; e < 2; e++) {
        for (int f = 0; f < 6; f++) {
            uint8_t mat = fx_material(l, names[e][f], NULL, 0, 0);
            memcpy(fx_cmat(l, mat)->color, (uint8_t[]){ (uint8_t)(40 * f + 10), (uint8_t)(100 * e + 20), 200 }, 3);
        }
        pmf_sky_env *sky = &l->skies[l->lvl.client.sky_env_count++];
        *sky = (pmf_sky_env){ .name = e ? "inner" : "outer", .cloud_top = "", .cloud_bottom = "" };
        for (int f = 0; f < 6; f++)
            sky->skybox[f] = names[e][f];
    }
    l->lvl.client.default_sky_env = "outer";
    fx_chunk *c = fx_chunk_add(l, ORIGIN);
    if (with_region) {
        pmf_env_region *r = &c->sky_regions[c->ch.client.sky_region_count++];
        for (int o = 0; o < 8; o++) {
            r->corners[o][0] = (o & PMF_OCTANT_NEG_X) ? -2.0f : 2.0f;
            r->corners[o][1] = (o & PMF_OCTANT_NEG_Y) ? -2.0f : 2.0f;
            r->corners[o][2] = (o & PMF_OCTANT_NEG_Z) ? -2.0f : 2.0f;
        }
        r->env = "inner";
    }
    return l;
}

static int test_skybox(void)
{
    fx_map m = { 0 };
    sky_level(&m, false);
    REQUIRE(fx_map_write(&m, "map.pmf"));
    /* +X, +Y, +Z, -X, -Y, -Z. */
    static const char *dirs[6] = { "0,0,0,-90,0", "0,0,0,0,90", "0,0,0,180,0", "0,0,0,90,0", "0,0,0,0,-90", "0,0,0,0,0" };
    for (int f = 0; f < 6; f++) {
        char args[64];
        test_image img;
        snprintf(args, sizeof args, "--camera %s", dirs[f]);
        REQUIRE(rt_shot("map.pmf", "out.png", args) == 0 && test_image_load(&img, "out.png"));
        REQUIRE(rt_expect(&img, 32, 32, 40 * f + 10, 20, 200));
        test_image_free(&img);
    }
    fx_map_free(&m);
    return 0;
}

/* Skybox faces meet without seams: one texture of four flat quadrants on all six faces, so a face
 * filtered with its opposite edge (GL_REPEAT) would draw a line of another colour along every
 * cube edge. Along a vertical edge (yaw 135: between +Z and -X) and a horizontal one (pitch 45:
 * between +Z and +Y), the pixels next to the edge equal those four pixels further in (away from
 * the quadrant boundaries crossing the middle of the picture and the cube's corners). */
static int test_skybox_seams(void)
{
    fx_map m = { 0 };
    fx_level *l = sky_level(&m, false);
    fx_material(l, "quadrants", "map:textures/q", 0, 0);
    for (int f = 0; f < 6; f++)
        l->skies[0].skybox[f] = "quadrants";
    uint8_t px[8 * 8 * 4], *png = NULL;
    size_t png_size;
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 8; x++) {
            uint8_t *p = &px[(y * 8 + x) * 4];
            p[0] = (uint8_t)((x < 4 ? 40 : 140) + (y < 4 ? 0 : 100));
            p[1] = (uint8_t)(x < 4 ? 200 : 30);
            p[2] = (uint8_t)(y < 4 ? 60 : 220);
            p[3] = 255;
        }
    REQUIRE(fx_png(px, 8, 8, &png, &png_size));
    const char *paths[1] = { "textures/q.png" };
    REQUIRE(fx_map_archive(&m, 1, paths, &png, &png_size));
    REQUIRE(fx_map_write(&m, "map.pmf"));
    test_image v, h;
    REQUIRE(rt_shot("map.pmf", "v.png", "--camera 0,0,0,135,0") == 0 && test_image_load(&v, "v.png"));
    REQUIRE(rt_shot("map.pmf", "h.png", "--camera 0,0,0,180,45") == 0 && test_image_load(&h, "h.png"));
    int seams = 0;
    for (int i = 12; i < 52; i++) {
        if (abs(i - 32) < 5) continue;
        const uint8_t *row = v.rgb + (size_t)i * 64 * 3;
        for (int c = 0; c < 3; c++) {
            seams += abs(row[31 * 3 + c] - row[27 * 3 + c]) > 1 || abs(row[32 * 3 + c] - row[36 * 3 + c]) > 1;
            seams += abs(h.rgb[(31 * 64 + i) * 3 + c] - h.rgb[(27 * 64 + i) * 3 + c]) > 1 ||
                     abs(h.rgb[(32 * 64 + i) * 3 + c] - h.rgb[(36 * 64 + i) * 3 + c]) > 1;
        }
    }
    if (seams) fprintf(stderr, "skybox_seams: %d edge pixel channels differ from their neighbours\n", seams);
    REQUIRE(seams == 0);
    test_image_free(&v);
    test_image_free(&h);
    free(png);
    fx_map_free(&m);
    return 0;
}

static int test_sky_region(void)
{
    fx_map m = { 0 };
    sky_level(&m, true);
    REQUIRE(fx_map_write(&m, "map.pmf"));
    test_image in, out;
    REQUIRE(rt_shot("map.pmf", "in.png", "--camera 1,0,0,0,0") == 0 && test_image_load(&in, "in.png"));
    REQUIRE(rt_shot("map.pmf", "out.png", "--camera 3,0,0,0,0") == 0 && test_image_load(&out, "out.png"));
    REQUIRE(rt_expect(&in, 32, 32, 40 * 5 + 10, 120, 200));
    REQUIRE(rt_expect(&out, 32, 32, 40 * 5 + 10, 20, 200));
    test_image_free(&in);
    test_image_free(&out);
    fx_map_free(&m);
    return 0;
}

/* The default sky's top cloud layer covers the +Y face. */
static int test_clouds(void)
{
    fx_map m = { 0 };
    fx_level *l = sky_level(&m, false);
    uint8_t cloud = fx_material(l, "cloud", NULL, 0, 0);
    memcpy(fx_cmat(l, cloud)->color, (uint8_t[]){ 0, 255, 0 }, 3);
    l->skies[0].cloud_top = "cloud";
    REQUIRE(fx_map_write(&m, "map.pmf"));
    test_image up, ahead;
    REQUIRE(rt_shot("map.pmf", "up.png", "--camera 0,0,0,0,90") == 0 && test_image_load(&up, "up.png"));
    REQUIRE(rt_shot("map.pmf", "ahead.png", "--camera 0,0,0,0,-30") == 0 && test_image_load(&ahead, "ahead.png"));
    REQUIRE(rt_expect(&up, 32, 32, 0, 255, 0));
    REQUIRE(rt_expect(&ahead, 32, 32, 40 * 5 + 10, 20, 200));   /* below the horizon: no cloud */
    test_image_free(&up);
    test_image_free(&ahead);
    fx_map_free(&m);
    return 0;
}

/* The sky uses a 3D skybox chunk (1,0,0) whose wall, seen from its centre, fills the view
 * behind the camera chunk's wall (left half only). */
static int test_skybox_3d(void)
{
    fx_map m = { 0 };
    fx_level *l = sky_level(&m, false);
    l->skies[0].flags = PMF_SKY_3D_SKYBOX;
    l->skies[0].skybox_chunk = (pmf_chunk_coord){ 1, 0, 0 };
    uint8_t near = fx_material(l, "near", NULL, 0, 0), far = fx_material(l, "far", NULL, 0, 0);
    memcpy(fx_cmat(l, near)->color, (uint8_t[]){ 250, 250, 250 }, 3);
    memcpy(fx_cmat(l, far)->color, (uint8_t[]){ 5, 150, 5 }, 3);
    fx_chunk *c = l->chunks[0];
    float q[4][3];
    fx_wall_z(q, -8, 0, -8, 8, -4, true);
    fx_geom_quad(c, 0, near, fx_lightmap(c, 1, 255, 255, 255), q);
    fx_chunk *sb = fx_chunk_add(l, (pmf_chunk_coord){ 1, 0, 0 });
    fx_wall_z(q, -8, 8, -8, 8, -6, true);
    fx_geom_quad(sb, 0, far, fx_lightmap(sb, 1, 255, 255, 255), q);
    test_image img;
    REQUIRE(rt_shot_map(&m, "", &img));
    REQUIRE(rt_expect(&img, 16, 32, 250, 250, 250));
    REQUIRE(rt_expect(&img, 48, 32, 5, 150, 5));
    test_image_free(&img);
    fx_map_free(&m);
    return 0;
}

static const rt_test tests[] = {
    { "texture_archive", test_texture_archive },
    { "texture_game_dir", test_texture_game_dir },
    { "animation", test_animation },
    { "uv_scroll", test_uv_scroll },
    { "transparency", test_transparency },
    { "additive", test_additive },
    { "blend_order", test_blend_order },
    { "blend_order_cubes", test_blend_order_cubes },
    { "blend_groups", test_blend_groups },
    { "liquid", test_liquid },
    { "emission_shading", test_emission_shading },
    { "matcap", test_matcap },
    { "skybox", test_skybox },
    { "skybox_seams", test_skybox_seams },
    { "sky_region", test_sky_region },
    { "clouds", test_clouds },
    { "skybox_3d", test_skybox_3d },
    { NULL, NULL },
};

int main(int argc, char **argv)
{
    return rt_main(argc, argv, tests);
}
