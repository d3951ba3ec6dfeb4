/* test_render_shot.c - renders maps built in code with `pmfview shot` (headless EGL) and checks
 * pixels against the rendering equation of conventions §3 (±1).
 *
 * usage: test_render_shot PMFVIEW TEST   (one ctest per TEST; see the table at the end)
 *
 * Geometry sits in a 16 m chunk; the camera looks along -Z with a 90° field of view on a
 * 64x64 image, so a wall at distance d covers the screen's [-d, d] square. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb_image.h>

#include "base/pmf_os.h"
#include "fixture_map.h"
#include "common/programs.h"
#include "rt_shot.h"

static const pmf_chunk_coord ONE = { 1, 1, 1 }, ORIGIN = { 0, 0, 0 };

/* A level with one 16 m chunk whose cube 0 is a full-screen wall at z = -4 of a material with
 * colour col, lit by a flat lightmap. */
static fx_chunk *wall_level(fx_map *m, const uint8_t col[3], const uint8_t lux[3], uint8_t *material)
{
    fx_level *l = fx_level_add(m, 4, ONE, ORIGIN);
    uint8_t mat = fx_material(l, "wall", NULL, 0, 0);
    memcpy(fx_cmat(l, mat)->color, col, 3);
    fx_chunk *c = fx_wall_chunk(l, ORIGIN, mat, 2, lux);
    if (material)
        *material = mat;
    return c;
}

static int test_lit_quad(void)
{
    fx_map m = { 0 };
    wall_level(&m, (uint8_t[]){ 200, 100, 50 }, (uint8_t[]){ 128, 64, 255 }, NULL);
    REQUIRE(fx_map_write(&m, "map.pmf"));
    REQUIRE(rt_shot("map.pmf", "out.png", "") == 0);
    test_image img;
    REQUIRE(test_image_load(&img, "out.png"));
    /* a × L = colour/255 × luxel/255. */
    REQUIRE(rt_expect_all(&img, rt_eq(200, 128), rt_eq(100, 64), rt_eq(50, 255)));
    test_image_free(&img);

    fx_map m2 = { 0 };
    wall_level(&m2, (uint8_t[]){ 255, 255, 255 }, (uint8_t[]){ 128, 128, 128 }, NULL);
    REQUIRE(fx_map_write(&m2, "map2.pmf"));
    /* the PNG: mode from the umask (not mkstemp's 0600), no temporary file left beside it */
    mode_t old_mask = umask(027);
    REQUIRE(rt_shot("map2.pmf", "out2.png", "") == 0);
    umask(old_mask);
    struct stat st;
#ifdef _WIN32
    REQUIRE(stat("out2.png", &st) == 0); /* no permission bits: files take their folder's */
#else
    REQUIRE(stat("out2.png", &st) == 0 && (st.st_mode & 0777) == 0640);
#endif
    DIR *d = opendir(".");
    for (struct dirent *e; d && (e = readdir(d));)
        REQUIRE(strncmp(e->d_name, ".out", 4) != 0);
    if (d)
        closedir(d);
    REQUIRE(test_image_load(&img, "out2.png"));
    REQUIRE(rt_expect_all(&img, 128, 128, 128));
    test_image_free(&img);
    fx_map_free(&m);
    fx_map_free(&m2);
    return 0;
}

static int test_dynamic_light(void)
{
    fx_map m = { 0 };
    fx_chunk *c = wall_level(&m, (uint8_t[]){ 255, 255, 255 }, (uint8_t[]){ 50, 50, 50 }, NULL);
    fx_dynamic_light(c, 7, true, (uint8_t[]){ 255, 128, 0 }, 0, 100);
    REQUIRE(fx_map_write(&m, "map.pmf"));
    test_image on, off, forced;
    REQUIRE(rt_shot("map.pmf", "on.png", "") == 0 && test_image_load(&on, "on.png"));
    REQUIRE(rt_shot("map.pmf", "off.png", "--light 7=off") == 0 && test_image_load(&off, "off.png"));
    /* L = 50/255 + 100/255 × colour/255. */
    REQUIRE(rt_expect_all(&on, 150, (int)lround(50 + 100 * 128 / 255.0), 50));
    REQUIRE(rt_expect_all(&off, 50, 50, 50));
    /* A light the file disables, switched on. */
    fx_map m2 = { 0 };
    c = wall_level(&m2, (uint8_t[]){ 255, 255, 255 }, (uint8_t[]){ 50, 50, 50 }, NULL);
    fx_dynamic_light(c, 9, false, (uint8_t[]){ 0, 255, 255 }, 0, 60);
    REQUIRE(fx_map_write(&m2, "map2.pmf"));
    REQUIRE(rt_shot("map2.pmf", "forced.png", "--light 9=on") == 0 && test_image_load(&forced, "forced.png"));
    REQUIRE(rt_expect_all(&forced, 50, 110, 110));
    test_image_free(&on);
    test_image_free(&off);
    test_image_free(&forced);
    fx_map_free(&m);
    fx_map_free(&m2);
    return 0;
}

/* Two walls side by side (left vertices 0..3, right 4..7); a fast light's range skips the
 * left wall's 4 vertices and gives the right wall's multiplier 255. */
static int test_fast_light(void)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, ONE, ORIGIN);
    uint8_t mat = fx_material(l, "wall", NULL, 0, 0);
    fx_chunk *c = fx_chunk_add(l, ORIGIN);
    uint8_t lm = fx_lightmap(c, 1, 40, 40, 40);
    fx_two_walls(c, mat, lm, mat, lm);
    fx_fast_light(c, 3, 255, (uint8_t[]){ 200, 100, 0 }, 4, 4, 255);
    REQUIRE(fx_map_write(&m, "map.pmf"));
    test_image full, zero, half;
    REQUIRE(rt_shot("map.pmf", "full.png", "") == 0 && test_image_load(&full, "full.png"));
    REQUIRE(rt_shot("map.pmf", "zero.png", "--fast 3=0") == 0 && test_image_load(&zero, "zero.png"));
    REQUIRE(rt_shot("map.pmf", "half.png", "--fast 3=128") == 0 && test_image_load(&half, "half.png"));
    REQUIRE(rt_expect(&full, 16, 32, 40, 40, 40));          /* skipped: multiplier 0 */
    REQUIRE(rt_expect(&full, 48, 32, 240, 140, 40));        /* 40 + colour × 255/255 × 255/255 */
    REQUIRE(rt_expect(&zero, 48, 32, 40, 40, 40));
    REQUIRE(rt_expect(&half, 48, 32, (int)lround(40 + 200 * 128 / 255.0), (int)lround(40 + 100 * 128 / 255.0), 40));
    /* A fast light the file disables stays off whatever its intensity. */
    c->fast[0].flags = 0;
    REQUIRE(fx_map_write(&m, "off.pmf"));
    test_image off;
    REQUIRE(rt_shot("off.pmf", "off.png", "--fast 3=255") == 0 && test_image_load(&off, "off.png"));
    REQUIRE(rt_expect(&off, 48, 32, 40, 40, 40));
    test_image_free(&off);
    test_image_free(&full);
    test_image_free(&zero);
    test_image_free(&half);
    fx_map_free(&m);
    return 0;
}

static int test_modes(void)
{
    fx_map m = { 0 };
    uint8_t mat;
    wall_level(&m, (uint8_t[]){ 200, 100, 50 }, (uint8_t[]){ 128, 64, 32 }, &mat);
    fx_cmat(&m.levels[0], mat)->emission[2] = 10;
    REQUIRE(fx_map_write(&m, "map.pmf"));
    test_image lmap, fb;
    REQUIRE(rt_shot("map.pmf", "lm.png", "--mode lightmap") == 0 && test_image_load(&lmap, "lm.png"));
    REQUIRE(rt_shot("map.pmf", "fb.png", "--mode fullbright") == 0 && test_image_load(&fb, "fb.png"));
    REQUIRE(rt_expect_all(&lmap, 128, 64, 32));               /* L alone */
    REQUIRE(rt_expect_all(&fb, 200, 100, 60));                /* L = 1: a + e */
    test_image_free(&lmap);
    test_image_free(&fb);
    fx_map_free(&m);
    return 0;
}

/* The wall's 4x4 lightmap spans 16 m, 4 m a luxel; the view at 4 m sees its middle 6.1 m, so
 * the one luxel edge in view is the wall's centre line: yellow there, L on either side. */
static int test_luxel_grid(void)
{
    fx_map m = { 0 };
    wall_level(&m, (uint8_t[]){ 255, 255, 255 }, (uint8_t[]){ 128, 64, 32 }, NULL);
    REQUIRE(fx_map_write(&m, "map.pmf"));
    test_image img;
    REQUIRE(rt_shot("map.pmf", "grid.png", "--mode lightmap --luxel-grid") == 0 && test_image_load(&img, "grid.png"));
    int y = img.h * 5 / 8, lines = 0;
    for (int x = 2; x < img.w - 2; x++) {
        const uint8_t *p = img.rgb + 3 * ((size_t)y * img.w + x);
        lines += p[0] > 140 && p[1] > 90 && p[2] < 50;
    }
    bool plain = rt_expect(&img, img.w / 4, y, 128, 64, 32) && rt_expect(&img, img.w * 3 / 4, y, 128, 64, 32);
    bool centre = rt_expect(&img, img.w / 2, y, 172, 117, 30);
    test_image_free(&img);
    fx_map_free(&m);
    REQUIRE(plain && centre);
    REQUIRE(lines >= 1 && lines <= 3);
    REQUIRE(rt_shot("map.pmf", "bad.png", "--luxel-grid=1") == 1);
    return 0;
}

static int test_exposure(void)
{
    fx_map m = { 0 };
    wall_level(&m, (uint8_t[]){ 255, 255, 255 }, (uint8_t[]){ 60, 100, 200 }, NULL);
    test_image img;
    REQUIRE(rt_shot_map(&m, "--exposure 2", &img));
    REQUIRE(rt_expect_all(&img, 120, 200, 255));              /* clamp(k × out) */
    test_image_free(&img);
    REQUIRE(rt_shot("map.pmf", "half.png", "--exposure 0.5") == 0 && test_image_load(&img, "half.png"));
    REQUIRE(rt_expect_all(&img, 30, 50, 100));
    test_image_free(&img);
    fx_map_free(&m);
    return 0;
}

/* A 3x1x1 grid: chunks 0 and 2 hold walls facing -X... seen from outside the grid at x < 0
 * looking along +X (yaw -90): the near chunk's wall covers the left half of the view, the far
 * chunk's (through the void chunk 1) the right half. */
static int test_grid_void(void)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, (pmf_chunk_coord){ 3, 1, 1 }, ORIGIN);
    uint8_t mat = fx_material(l, "wall", NULL, 0, 0);
    fx_chunk *near = fx_chunk_add(l, (pmf_chunk_coord){ 0, 0, 0 });
    fx_chunk *far = fx_chunk_add(l, (pmf_chunk_coord){ 2, 0, 0 });
    float q[4][3];
    /* Looking +X, the left of the screen is -Z. Near wall at world x = 0 (chunk 0 centre). */
    fx_wall_x(q, -8, 0, -8, 8, 0, false);
    fx_geom_quad(near, 0, mat, fx_lightmap(near, 1, 90, 90, 90), q);
    /* Far wall at world x = 32 (chunk 2 centre), covering z in [0, 64]. */
    fx_wall_x(q, 0, 64, -64, 64, 0, false);
    fx_geom_quad(far, 0, mat, fx_lightmap(far, 1, 30, 160, 30), q);
    REQUIRE(fx_map_write(&m, "map.pmf"));
    test_image img;
    char err[1024];
    REQUIRE(rt_run("shot map.pmf -o out.png --size 64x64 --fov 90 --camera -20,0,0,-90,0 --stats", err) == 0);
    REQUIRE(test_image_load(&img, "out.png"));
    REQUIRE(rt_expect(&img, 20, 32, 90, 90, 90));
    REQUIRE(rt_expect(&img, 44, 32, 30, 160, 30));
    test_image_free(&img);
    /* One material over two chunks: one multi-draw (GL 4.3), else a draw per chunk range. */
    const char *baseline = getenv("PMFVIEW_GL_BASELINE");
    bool mdi = !(baseline && baseline[0] == '1');
    REQUIRE(strstr(err, "chunks loaded: 2 ") && strstr(err, "triangles: 4\n"));
    REQUIRE(strstr(err, mdi ? "draw calls: 1\n" : "draw calls: 2\n"));
    fx_map_free(&m);
    return 0;
}

/* The first number after `name` in text, or -1. */
static double stat_value(const char *text, const char *name)
{
    const char *p = strstr(text, name);
    return p ? atof(p + strlen(name)) : -1.0;
}

/* The figures `shot --stats --frames` prints for the benchmarks (docs/bench.md): 3 chunks in a
 * row seen from the side, material "a" in the first and last, "b" in the middle. */
static int test_stats(void)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, (pmf_chunk_coord){ 3, 1, 1 }, ORIGIN);
    uint8_t a = fx_material(l, "a", NULL, 0, 0), b = fx_material(l, "b", NULL, 0, 0);
    fx_chunk *c[3];
    for (uint32_t i = 0; i < 3; i++)
        c[i] = fx_chunk_add(l, (pmf_chunk_coord){ i, 0, 0 });
    float q[4][3];
    fx_wall_x(q, -8, 0, -8, 8, 0, false);
    fx_geom_quad(c[0], 0, a, fx_lightmap(c[0], 1, 90, 90, 90), q);
    fx_wall_x(q, 0, 8, -8, 8, 0, false);
    fx_geom_quad(c[1], 0, b, fx_lightmap(c[1], 1, 90, 90, 90), q);
    fx_wall_x(q, 0, 64, -64, 64, 0, false);
    fx_geom_quad(c[2], 0, a, fx_lightmap(c[2], 1, 90, 90, 90), q);
    REQUIRE(fx_map_write(&m, "map.pmf"));
    REQUIRE(rt_run("shot map.pmf -o out.png --size 64x64 --fov 90 --camera -20,0,0,-90,0 --frames 3 --stats", NULL) == 0);
    static char text[8192];
    FILE *f = fopen("stderr.txt", "r");
    REQUIRE(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    const char *baseline = getenv("PMFVIEW_GL_BASELINE");
    bool mdi = !(baseline && baseline[0] == '1');
    REQUIRE(stat_value(text, "\ntriangles: ") == 6);
    /* One multi-draw per material (GL 4.3), else one draw per chunk range. */
    REQUIRE(stat_value(text, "\nvisible materials: ") == 2);
    REQUIRE(stat_value(text, "\nworld draw calls: ") == (mdi ? 2 : 3));
    /* 12 vertices of 16 bytes (no fast lights), 18 u16 indices. */
    REQUIRE(fabs(stat_value(text, "\ngpu bytes per vertex: ") - 19.0) < 0.006);
    double first = stat_value(text, "\nprocess time to first complete frame: ");
    double from_open = stat_value(text, "\ntime to first complete frame: ");
    REQUIRE(first > 0 && first < 60 && from_open >= 0 && from_open <= first);
    double render = stat_value(text, "render time: average ");
    REQUIRE(render > 0 && render < 10000);
    double fmin = stat_value(text, "frame times: min "), fmed = stat_value(text, ", median "), fmax = stat_value(text, ", max ");
    REQUIRE(fmin > 0 && fmin <= fmed && fmed <= fmax && render <= fmax);
    fx_map_free(&m);
    return 0;
}

/* Index types and the fast-light stream: the camera at x = 8 m (the border of chunks 0 and 1)
 * sees chunk 0's wall on the left (4 vertices: u16 indices, no fast lights) and chunk 1's on
 * the right, the last two of 24480 triangles of 16 extended cubes (the rest degenerate): u32
 * indices, and a fast light on the wall's 6 vertices, read past vertex 65535. One material:
 * one multi-draw per index type. */
static int test_index_types(void)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, (pmf_chunk_coord){ 2, 1, 1 }, ORIGIN);
    uint8_t mat = fx_material(l, "wall", NULL, 0, 0);
    fx_chunk *near = fx_chunk_add(l, ORIGIN), *wide = fx_chunk_add(l, (pmf_chunk_coord){ 1, 0, 0 });
    float q[4][3];
    fx_wall_z(q, 0, 8, -8, 8, -4, true);
    fx_geom_quad(near, 0, mat, fx_lightmap(near, 1, 90, 90, 90), q);

    uint8_t lm = fx_lightmap(wide, 1, 40, 40, 40);
    fx_parent(wide, 0, 0, 1);
    fx_parent(wide, 0, 1, 2);
    for (uint32_t leaf = 0; leaf < 16; leaf++)
        fx_parent(wide, 1 + leaf / 8, leaf % 8, 3 + leaf);
    for (uint32_t cube = 3; cube < 19; cube++) {
        pmf_cube *pc = &wide->cubes[cube];
        pmf_client_cube *cc = &wide->ccubes[cube];
        pc->type = PMF_CUBE_EXTGEOMETRY;
        cc->u.ext.first_vertex = wide->ch.client.vertex_count;
        for (int f = 0; f < PMF_FACE_COUNT; f++) {
            pc->u.ext.material[f] = mat;
            cc->u.ext.lightmap[f] = lm;
            cc->u.ext.tri_count[f] = 255;
            for (int v = 0; v < 255 * 3; v++) {
                pmf_vertex *pv = &wide->verts[wide->ch.client.vertex_count++];
                memcpy(pv->xyz, (float[]){ -4, 0, -4 }, 12);
            }
        }
    }
    uint32_t vertex_count = wide->ch.client.vertex_count;
    fx_wall_z(q, -8, 0, -8, 8, -4, true);
    static const int tri[6] = { 0, 1, 2, 0, 2, 3 };
    static const float uv[4][2] = { { 0, 0 }, { 1, 0 }, { 1, 1 }, { 0, 1 } };
    for (int i = 0; i < 6; i++) {
        pmf_vertex *pv = &wide->verts[vertex_count - 6 + i];
        memcpy(pv->xyz, q[tri[i]], 12);
        memcpy(pv->uv, uv[tri[i]], 8);
        memcpy(pv->lm_uv, uv[tri[i]], 8);
    }
    fx_fast_light(wide, 3, 255, (uint8_t[]){ 200, 100, 0 }, vertex_count - 6, 6, 255);
    REQUIRE(fx_map_write(&m, "map.pmf"));
    REQUIRE(rt_run("shot map.pmf -o out.png --size 64x64 --fov 90 --camera 8,0,0,0,0 --stats", NULL) == 0);
    test_image img;
    REQUIRE(test_image_load(&img, "out.png"));
    REQUIRE(rt_expect(&img, 16, 32, 90, 90, 90));
    REQUIRE(rt_expect(&img, 48, 32, 240, 140, 40));
    test_image_free(&img);
    static char text[8192];
    FILE *f = fopen("stderr.txt", "r");
    REQUIRE(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    const char *baseline = getenv("PMFVIEW_GL_BASELINE");
    if (!(baseline && baseline[0] == '1'))
        REQUIRE(stat_value(text, "\nworld draw calls: ") == 2);
    /* near: 4 × 16 vertex bytes + 6 u16 indices; wide: 16 + a u32 index each, and 8 fast bytes
     * for the 255 × 3 vertices of the one face group the fast light reaches. */
    double expected = (4 * 16 + 6 * 2 + vertex_count * (16.0 + 4) + 255 * 3 * 8) / (vertex_count + 4);
    REQUIRE(fabs(stat_value(text, "\ngpu bytes per vertex: ") - expected) < 0.006);
    fx_map_free(&m);
    return 0;
}

/* Root cube 0 with children: the camera's cube (+X,+Y,+Z octant, cube 1) lists only cube 2
 * (the left wall) as visible; cube 3 (the right wall) is in the frustum but hidden. */
static int test_visibility(void)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, ONE, ORIGIN);
    fx_visibility_chunk(l, fx_material(l, "wall", NULL, 0, 0), 100);
    REQUIRE(fx_map_write(&m, "map.pmf"));
    test_image vis, novis;
    /* Camera at (0.5, 4, 4): looking -Z the walls at z = -4 are 8 m away, split at x = 0. */
    REQUIRE(rt_shot("map.pmf", "vis.png", "--camera 0.5,4,4,0,0") == 0 && test_image_load(&vis, "vis.png"));
    REQUIRE(rt_shot("map.pmf", "novis.png", "--camera 0.5,4,4,0,0 --no-vis") == 0 && test_image_load(&novis, "novis.png"));
    REQUIRE(rt_expect(&vis, 16, 20, 100, 100, 100));
    REQUIRE(rt_expect(&vis, 50, 20, 0, 0, 0));
    REQUIRE(rt_expect(&novis, 16, 20, 100, 100, 100));
    REQUIRE(rt_expect(&novis, 50, 20, 100, 100, 100));
    test_image_free(&vis);
    test_image_free(&novis);
    fx_map_free(&m);
    return 0;
}

static int test_levels(void)
{
    fx_map m = { 0 };
    wall_level(&m, (uint8_t[]){ 255, 255, 255 }, (uint8_t[]){ 10, 20, 30 }, NULL);
    wall_level(&m, (uint8_t[]){ 255, 255, 255 }, (uint8_t[]){ 70, 80, 90 }, NULL);
    REQUIRE(fx_map_write(&m, "map.pmf"));
    test_image a, b;
    REQUIRE(rt_shot("map.pmf", "l0.png", "") == 0 && test_image_load(&a, "l0.png"));
    REQUIRE(rt_shot("map.pmf", "l1.png", "--level 1") == 0 && test_image_load(&b, "l1.png"));
    REQUIRE(rt_expect_all(&a, 10, 20, 30));
    REQUIRE(rt_expect_all(&b, 70, 80, 90));
    REQUIRE(rt_shot("map.pmf", "l2.png", "--level 2") == 2);
    test_image_free(&a);
    test_image_free(&b);
    fx_map_free(&m);
    return 0;
}

/* An extended cube with two face groups: +X (two triangles, left half, material A, lightmap A)
 * and -Z (two triangles, right half, material B, lightmap B). */
static int test_extended_cube(void)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, ONE, ORIGIN);
    uint8_t ma = fx_material(l, "a", NULL, 0, 0), mb = fx_material(l, "b", NULL, 0, 0);
    memcpy(fx_cmat(l, ma)->color, (uint8_t[]){ 255, 0, 255 }, 3);
    memcpy(fx_cmat(l, mb)->color, (uint8_t[]){ 255, 255, 0 }, 3);
    fx_chunk *c = fx_chunk_add(l, ORIGIN);
    uint8_t la = fx_lightmap(c, 1, 200, 200, 200), lb = fx_lightmap(c, 1, 100, 100, 100);
    float left[4][3], right[4][3];
    fx_wall_z(left, -8, 0, -8, 8, -4, true);
    fx_wall_z(right, 0, 8, -8, 8, -4, true);
    uint32_t first = c->ch.client.vertex_count;
    const float(*quads[2])[3] = { left, right };
    for (int qd = 0; qd < 2; qd++) {
        static const int tri[6] = { 0, 1, 2, 0, 2, 3 };
        static const float uv[4][2] = { { 0, 0 }, { 1, 0 }, { 1, 1 }, { 0, 1 } };
        for (int i = 0; i < 6; i++) {
            pmf_vertex *v = &c->verts[c->ch.client.vertex_count++];
            memcpy(v->xyz, quads[qd][tri[i]], 12);
            memcpy(v->uv, uv[tri[i]], 8);
            memcpy(v->lm_uv, uv[tri[i]], 8);
        }
    }
    pmf_cube *cube = &c->cubes[0];
    cube->type = PMF_CUBE_EXTGEOMETRY;
    cube->u.ext.material[PMF_FACE_POS_X] = ma;
    cube->u.ext.material[PMF_FACE_NEG_Z] = mb;
    pmf_client_cube *cc = &c->ccubes[0];
    cc->u.ext.first_vertex = first;
    memset(cc->u.ext.lightmap, PMF_NO_LIGHTMAP, sizeof cc->u.ext.lightmap);
    cc->u.ext.lightmap[PMF_FACE_POS_X] = la;
    cc->u.ext.lightmap[PMF_FACE_NEG_Z] = lb;
    cc->u.ext.tri_count[PMF_FACE_POS_X] = 2;
    cc->u.ext.tri_count[PMF_FACE_NEG_Z] = 2;
    test_image img;
    REQUIRE(rt_shot_map(&m, "", &img));
    REQUIRE(rt_expect(&img, 16, 32, 200, 0, 200));
    REQUIRE(rt_expect(&img, 48, 32, 100, 100, 0));
    test_image_free(&img);
    fx_map_free(&m);
    return 0;
}

/* A face without a lightmap takes its cube's lighting base colour, else L = 1. */
static int test_no_lightmap(void)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, ONE, ORIGIN);
    uint8_t mat = fx_material(l, "wall", NULL, 0, 0);
    memcpy(fx_cmat(l, mat)->color, (uint8_t[]){ 100, 150, 200 }, 3);
    fx_chunk *c = fx_chunk_add(l, ORIGIN);
    fx_two_walls(c, mat, PMF_NO_LIGHTMAP, mat, PMF_NO_LIGHTMAP);
    c->cubes[2].flags |= PMF_CUBE_HAS_LIGHTING;
    c->ccubes[2].lighting = (pmf_cube_lighting){ .base = { 255, 51, 102 } };
    test_image img;
    REQUIRE(rt_shot_map(&m, "", &img));
    REQUIRE(rt_expect(&img, 16, 32, 100, 150, 200));
    REQUIRE(rt_expect(&img, 48, 32, 100, 30, 80));
    test_image_free(&img);
    fx_map_free(&m);
    return 0;
}

static int test_cli(void)
{
    fx_map m = { 0 };
    wall_level(&m, (uint8_t[]){ 255, 255, 255 }, (uint8_t[]){ 128, 128, 128 }, NULL);
    REQUIRE(fx_map_write(&m, "map.pmf"));
    REQUIRE(rt_run("shot --help", NULL) == 0);
    REQUIRE(rt_run("shot map.pmf", NULL) == 1);                        /* no -o */
    REQUIRE(rt_run("shot map.pmf -o x.png --size 0x5", NULL) == 1);
    REQUIRE(rt_run("shot map.pmf -o x.png --mode nope", NULL) == 1);
    REQUIRE(rt_run("shot map.pmf -o x.png --bogus", NULL) == 1);
    REQUIRE(rt_run("shot missing.pmf -o x.png", NULL) == 2);
    FILE *f = fopen("junk.pmf", "wb");
    fputs("PMF\x01 not a map", f);
    fclose(f);
    char err[1024];
    REQUIRE(rt_run("shot junk.pmf -o x.png", err) == 2);
    REQUIRE(!strncmp(err, "pmfview: ", 9) && strchr(err, '\n') == err + strlen(err) - 1);
    /* Cameras file: one PNG per line, named or numbered. */
    f = fopen("cams.txt", "w");
    fputs("# two views\n0,0,0,0,0 front\n\n0,0,0,180,0\n", f);
    fclose(f);
    REQUIRE(rt_run("shot map.pmf -o cam_%s.png --size 16x8 --cameras cams.txt", NULL) == 0);
    test_image a, b;
    REQUIRE(test_image_load(&a, "cam_front.png") && a.w == 16 && a.h == 8);
    REQUIRE(rt_expect_all(&a, 128, 128, 128));
    REQUIRE(test_image_load(&b, "cam_001.png"));
    REQUIRE(rt_expect_all(&b, 0, 0, 0));                             /* looking away: black */
    test_image_free(&a);
    test_image_free(&b);
    REQUIRE(rt_run("shot map.pmf -o shot_%03d.png --size 8x8 --cameras cams.txt", NULL) == 0);
    REQUIRE(access("shot_000.png", F_OK) == 0 && access("shot_001.png", F_OK) == 0);
    REQUIRE(test_make_dir("outdir"));
    REQUIRE(rt_run("shot map.pmf -o outdir --size 8x8 --cameras cams.txt", NULL) == 0);
    REQUIRE(access("outdir/front.png", F_OK) == 0 && access("outdir/001.png", F_OK) == 0);
    /* MSAA and stats. */
    REQUIRE(rt_run("shot map.pmf -o msaa.png --size 32x32 --msaa 4 --stats", err) == 0);
    REQUIRE(strstr(err, "triangles: 2\n") && strstr(err, "draw calls: 1\n") && strstr(err, "chunks loaded: 1"));
    REQUIRE(test_image_load(&a, "msaa.png"));
    REQUIRE(rt_expect_all(&a, 128, 128, 128));
    test_image_free(&a);
    REQUIRE(rt_run("shot map.pmf -o bench.png --size 32x32 --frames 3", err) == 0);
    REQUIRE(strstr(err, "frames: 3, average frame time:") != NULL);
    f = fopen("path.txt", "w");
    fputs("0,0,0,-20,0\n0,0,0,20,0\n", f);
    fclose(f);
    REQUIRE(rt_run("shot map.pmf -o path.png --size 32x32 --frames 4 --path path.txt", err) == 0);
    REQUIRE(strstr(err, "frames: 4, average frame time:") != NULL);
    REQUIRE(rt_run("shot map.pmf -o path.png --path path.txt", NULL) == 1);       /* --path needs --frames */
    fx_map_free(&m);
    return 0;
}

/* Output patterns with both %d and %s, directories made when missing (before rendering),
 * warnings for --light / --fast IDs the level has no such light for, naming those it has, and
 * --wireframe. */
static int test_cli_batch(void)
{
    fx_map m = { 0 };
    fx_chunk *c = wall_level(&m, (uint8_t[]){ 255, 255, 255 }, (uint8_t[]){ 50, 50, 50 }, NULL);
    fx_dynamic_light(c, 7, true, (uint8_t[]){ 255, 128, 0 }, 0, 100);
    fx_fast_light(c, 3, 255, (uint8_t[]){ 200, 100, 0 }, 0, 4, 255);
    REQUIRE(fx_map_write(&m, "map.pmf"));
    FILE *f = fopen("cams.txt", "w");
    fputs("0,0,0,0,0 front\n0,0,0,180,0\n", f);
    fclose(f);
    REQUIRE(rt_run("shot map.pmf -o out/c_%d_%s.png --size 8x8 --cameras cams.txt", NULL) == 0);
    REQUIRE(access("out/c_0_front.png", F_OK) == 0 && access("out/c_1_001.png", F_OK) == 0);
    REQUIRE(rt_run("shot map.pmf -o newdir/ --size 8x8", NULL) == 0);
    REQUIRE(access("newdir/000.png", F_OK) == 0);
    REQUIRE(rt_run("shot map.pmf -o deep/er/x.png --size 8x8", NULL) == 0);
    REQUIRE(access("deep/er/x.png", F_OK) == 0);
    char err[1024];
    f = fopen("file", "w");
    fclose(f);
    REQUIRE(rt_run("shot map.pmf -o file/x.png --size 8x8", err) == 3);
    REQUIRE(strstr(err, "pmfview: shot: cannot create directory 'file'") == err);
    REQUIRE(rt_run("shot map.pmf -o l.png --size 8x8 --light 99=off --fast 7=100 --light 7=off --fast 3=9", err) == 0);
    REQUIRE(strstr(err, "pmfview: shot: warning: --light 99: level 0 has no dynamic light 99 (dynamic lights: 7; fast lights: 3)\n"));
    REQUIRE(strstr(err, "pmfview: shot: warning: --fast 7: level 0 has no fast light 7 (fast lights: 3; dynamic lights: 7)\n"));
    REQUIRE(!strstr(err, "--light 7") && !strstr(err, "--fast 3"));
    REQUIRE(rt_run("shot map.pmf -o l.png --size 8x8 --light 7=on --fast 3=0", err) == 0);
    REQUIRE(!strstr(err, "warning"));
    /* --wireframe: white lines over the wall (its edges and the quad's diagonal), the rest as shaded */
    test_image plain, wire;
    REQUIRE(rt_shot("map.pmf", "plain.png", "--light 7=off --fast 3=0") == 0 && test_image_load(&plain, "plain.png"));
    REQUIRE(rt_shot("map.pmf", "wire.png", "--light 7=off --fast 3=0 --wireframe") == 0 && test_image_load(&wire, "wire.png"));
    REQUIRE(rt_run("shot map.pmf -o x.png --wireframe=1", NULL) == 1);
    int white = 0, other = 0;
    for (int i = 0; i < 64 * 64; i++) {
        bool same = !memcmp(&plain.rgb[i * 3], &wire.rgb[i * 3], 3);
        white += !same && wire.rgb[i * 3] == 255 && wire.rgb[i * 3 + 1] == 255 && wire.rgb[i * 3 + 2] == 255;
        other += !same && !(wire.rgb[i * 3] == 255 && wire.rgb[i * 3 + 1] == 255 && wire.rgb[i * 3 + 2] == 255);
    }
    REQUIRE(rt_expect_all(&plain, 50, 50, 50));
    REQUIRE(white >= 64 && other == 0);
    test_image_free(&plain);
    test_image_free(&wire);
    fx_map_free(&m);
    return 0;
}

/* A chunk that fails to decode: exit 2 when it is in view, a normal render when it is not. */
static int test_bad_chunk(void)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, (pmf_chunk_coord){ 3, 1, 1 }, (pmf_chunk_coord){ 1, 0, 0 });
    uint8_t mat = fx_material(l, "wall", NULL, 0, 0);
    for (uint32_t x = 0; x < 3; x++)
        fx_wall_chunk(l, (pmf_chunk_coord){ x, 0, 0 }, mat, 1, (uint8_t[]){ 100, 100, 100 });
    REQUIRE(fx_map_write(&m, "map.pmf"));
    pmf_error err;
    pmf_file *f = pmf_open("map.pmf", &err);
    REQUIRE(f);
    const pmf_chunk_loc *loc = &f->levels[0].chunks[pmf_grid_index(&f->levels[0], 2, 0, 0)];
    uint64_t at = loc->offset + loc->compressed[0] / 2;
    pmf_close(f);
    FILE *fp = fopen("map.pmf", "r+b");
    REQUIRE(fp && fseek(fp, (long)at, SEEK_SET) == 0);
    for (int i = 0; i < 8; i++)
        fputc(0xA5, fp);
    fclose(fp);
    char msg[1024];
    /* Chunk (2,0,0) spans world x 8..24: looking -Z from x = -16 it is out of view. */
    REQUIRE(rt_run("shot map.pmf -o ok.png --size 16x16 --fov 90 --camera -16,0,0,0,0", msg) == 0);
    REQUIRE(rt_run("shot map.pmf -o bad.png --size 16x16 --fov 90 --camera 16,0,0,0,0", msg) == 2);
    REQUIRE(!strncmp(msg, "pmfview: ", 9) && strstr(msg, "chunk (2,0,0)") && strchr(msg, '\n') == msg + strlen(msg) - 1);
    REQUIRE(access("bad.png", F_OK) != 0);
    fx_map_free(&m);
    return 0;
}

/* A frame drawn in 24-pixel tiles (sub-frustums) is the frame drawn at once. */
static int test_tiles(void)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, ONE, ORIGIN);
    uint8_t a = fx_material(l, "a", NULL, 0, 0), b = fx_material(l, "b", NULL, 0, 0);
    memcpy(fx_cmat(l, b)->color, (uint8_t[]){ 30, 200, 90 }, 3);
    fx_chunk *c = fx_chunk_add(l, ORIGIN);
    uint8_t lm = fx_lightmap(c, 1, 200, 150, 100);
    float q[4][3];
    fx_parent(c, 0, PMF_OCTANT_NEG_Z | PMF_OCTANT_NEG_X, 1);
    fx_parent(c, 0, PMF_OCTANT_NEG_Z | PMF_OCTANT_NEG_Y, 2);
    fx_wall_z(q, -3, 1, -1, 2, -4, true);
    fx_geom_quad(c, 1, a, lm, q);
    fx_floor_y(q, -2, 3, -6, -1, -1.5f, true);
    fx_geom_quad(c, 2, b, lm, q);
    REQUIRE(fx_map_write(&m, "map.pmf"));
    test_image whole, tiled;
    REQUIRE(rt_run("shot map.pmf -o whole.png --size 70x50 --camera 0.3,0.2,0,10,-5", NULL) == 0);
    REQUIRE(pmf_os_setenv("PMFVIEW_SHOT_TILE", "24") == 0);
    REQUIRE(rt_run("shot map.pmf -o tiled.png --size 70x50 --camera 0.3,0.2,0,10,-5", NULL) == 0);
    pmf_os_setenv("PMFVIEW_SHOT_TILE", NULL);
    REQUIRE(test_image_load(&whole, "whole.png") && test_image_load(&tiled, "tiled.png"));
    REQUIRE(whole.w == 70 && whole.h == 50 && tiled.w == 70 && tiled.h == 50);
    int differ = 0, lit = 0;
    for (int i = 0; i < 70 * 50 * 3; i++) {
        differ += abs(whole.rgb[i] - tiled.rgb[i]) > 1;
        lit += whole.rgb[i] > 0;
    }
    /* Edge pixels may fall on either side of a triangle edge after the sub-frustum's rounding. */
    REQUIRE(differ <= 6 && lit > 1000);
    test_image_free(&whole);
    test_image_free(&tiled);
    fx_map_free(&m);
    return 0;
}

/* Floating origin: 4 km chunks, the only present chunk 999 is centred at world x = 4091904,
 * where a float's step is 0.5 m. A material edge at chunk-local x = 0.25 seen from x = 0.25
 * must fall exactly on the image's centre column. */
static int test_far_origin(void)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 12, (pmf_chunk_coord){ 1000, 1, 1 }, ORIGIN);
    uint8_t a = fx_material(l, "a", NULL, 0, 0), b = fx_material(l, "b", NULL, 0, 0);
    memcpy(fx_cmat(l, a)->color, (uint8_t[]){ 250, 0, 0 }, 3);
    memcpy(fx_cmat(l, b)->color, (uint8_t[]){ 0, 0, 250 }, 3);
    fx_chunk *c = fx_chunk_add(l, (pmf_chunk_coord){ 999, 0, 0 });
    uint8_t lm = fx_lightmap(c, 1, 255, 255, 255);
    float q[4][3];
    fx_parent(c, 0, PMF_OCTANT_NEG_Z | PMF_OCTANT_NEG_X, 1);
    fx_parent(c, 0, PMF_OCTANT_NEG_Z, 2);
    fx_wall_z(q, -2, 0.25f, -2, 2, -2, true);
    fx_geom_quad(c, 1, a, lm, q);
    fx_wall_z(q, 0.25f, 3, -2, 2, -2, true);
    fx_geom_quad(c, 2, b, lm, q);
    test_image img;
    REQUIRE(rt_shot_map(&m, "--camera 4091904.25,0,0,0,0", &img));
    REQUIRE(rt_expect(&img, 31, 32, 250, 0, 0) && rt_expect(&img, 32, 32, 0, 0, 250));
    REQUIRE(rt_expect(&img, 1, 5, 250, 0, 0) && rt_expect(&img, 62, 60, 0, 0, 250));
    test_image_free(&img);
    fx_map_free(&m);
    return 0;
}

static const rt_test tests[] = {
    { "lit_quad", test_lit_quad },
    { "dynamic_light", test_dynamic_light },
    { "fast_light", test_fast_light },
    { "modes", test_modes },
    { "exposure", test_exposure },
    { "luxel_grid", test_luxel_grid },
    { "grid_void", test_grid_void },
    { "stats", test_stats },
    { "visibility", test_visibility },
    { "levels", test_levels },
    { "extended_cube", test_extended_cube },
    { "no_lightmap", test_no_lightmap },
    { "cli", test_cli },
    { "cli_batch", test_cli_batch },
    { "bad_chunk", test_bad_chunk },
    { "tiles", test_tiles },
    { "far_origin", test_far_origin },
    { "index_types", test_index_types },
    { NULL, NULL },
};

int main(int argc, char **argv)
{
    return rt_main(argc, argv, tests);
}
