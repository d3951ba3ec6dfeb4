/* test_formats_shot.c - `pmfview shot` draws the legacy draft map and the PM4 tile the tests
 * write (format_samples.h): pixels at predicted screen positions (64 x 64, fov 90, so a point
 * (x, y, -d) ahead lands at column (x/d + 1) x 32), PM4 layers toggled off disappearing, a tile
 * directory drawn as one world. `test_formats_shot PMFVIEW TEST`. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/programs.h"
#include "format_samples.h"
#include "pm4_world.h"
#include "rt_shot.h"

static bool write_bytes(const char *path, uint8_t *bytes, size_t size)
{
    bool ok = bytes && sample_write_file(path, bytes, size);
    free(bytes);
    return ok;
}

/* Walls on z = -8 seen from the origin: the lit grey quad at column 16, the fullbright blue one
 * at column 48, the angled cube's orange-lit quad at row 16. */
static int test_legacy(void)
{
    size_t size;
    uint8_t *bytes = legacy_sample_build(&(legacy_sample_desc){ .lz4 = true }, &size);
    REQUIRE(write_bytes("old.pmf", bytes, size));
    REQUIRE(legacy_sample_write_textures("game"));
    REQUIRE(rt_shot("old.pmf", "legacy.png", "--game game") == 0);
    test_image img;
    REQUIRE(test_image_load(&img, "legacy.png"));
    int lit = rt_eq(200, 128);
    REQUIRE(rt_expect(&img, 16, 32, lit, lit, lit));
    REQUIRE(rt_expect(&img, 48, 32, 30, 60, 250));
    REQUIRE(rt_expect(&img, 32, 16, rt_eq(200, 255), rt_eq(200, 64), 0));
    REQUIRE(rt_expect(&img, 32, 32, 0, 0, 0));
    test_image_free(&img);
    /* without the textures: the missing-texture checkerboard, still lit by the base light */
    REQUIRE(rt_shot("old.pmf", "plain.png", "") == 0);
    REQUIRE(test_image_load(&img, "plain.png"));
    const uint8_t *p = &img.rgb[(32 * 64 + 48) * 3];
    REQUIRE((p[0] == 255 && p[1] == 0 && p[2] == 255) || (p[0] == 0 && p[1] == 0 && p[2] == 0));
    test_image_free(&img);
    return 0;
}

static bool write_pm4(const char *path)
{
    size_t size;
    uint8_t *bytes = pm4_sample_build(&(pm4_sample_desc){ 0 }, &size);
    return write_bytes(path, bytes, size);
}

/* The colour a surface of the sample shows: its group colour x its shade. */
static void surface_pixel(uint8_t group_key, uint8_t attr, uint32_t ck24, const float normal[3], int out[3])
{
    pm4_msur s = { .group_key = group_key, .attribute_mask = attr, .packed_params = ck24 << 8 };
    uint8_t color[3];
    pm4_surface_color(&s, color);
    uint8_t shade = pm4_surface_shade(normal);
    for (int k = 0; k < 3; k++)
        out[k] = rt_eq(color[k], shade);
}

/* Looking straight down from 30 m above the walkable square (view y = 10): the point (7, 10, -3)
 * is at column 32 + 2/30 x 32, row likewise. The M2 prop triangle (view x = 20) seen along -X. */
static int test_pm4_surfaces(void)
{
    REQUIRE(write_pm4("w_29_31.pm4"));
    REQUIRE(rt_shot("w_29_31.pm4", "top.png", "--camera 5,40,-5,0,-90") == 0);
    test_image img;
    REQUIRE(test_image_load(&img, "top.png"));
    int walkable[3], prop[3];
    surface_pixel(1, 0, PM4_SAMPLE_CK24_A, (const float[3]){ 0, 1, 0 }, walkable);
    surface_pixel(0, 0x80, PM4_SAMPLE_CK24_B, (const float[3]){ 1, 0, 0 }, prop);
    REQUIRE(rt_expect(&img, 34, 34, walkable[0], walkable[1], walkable[2]));
    REQUIRE(walkable[0] + walkable[1] + walkable[2] > 100);
    REQUIRE(rt_expect(&img, 2, 2, 0, 0, 0)); /* past the square's corner (x < 0) */
    test_image_free(&img);
    REQUIRE(rt_shot("w_29_31.pm4", "side.png", "--camera 30,2,-2,90,0") == 0);
    REQUIRE(test_image_load(&img, "side.png"));
    REQUIRE(rt_expect(&img, 32, 32, prop[0], prop[1], prop[2]));
    REQUIRE(prop[0] != walkable[0] || prop[1] != walkable[1] || prop[2] != walkable[2]);
    test_image_free(&img);
    /* no --camera: the overview start camera at (10, 18, 11.5), pitch -36.87 (bounds (0,0,-10) ..
     * (20,12,1)): the square's middle (5, 10, -5) is 5 m left, 3.5 m up and 18 m deep in its view,
     * so at column (1 - 5/18) x 32 = 23, row (1 - 3.5/18) x 32 = 26 */
    REQUIRE(rt_shot("w_29_31.pm4", "overview.png", "") == 0);
    REQUIRE(test_image_load(&img, "overview.png"));
    REQUIRE(rt_expect(&img, 23, 26, walkable[0], walkable[1], walkable[2]));
    test_image_free(&img);
    /* with the surfaces layer off, the square is gone */
    REQUIRE(rt_shot("w_29_31.pm4", "off.png", "--camera 5,40,-5,0,-90 --layer surfaces=off") == 0);
    REQUIRE(test_image_load(&img, "off.png"));
    REQUIRE(rt_expect(&img, 34, 34, 0, 0, 0));
    test_image_free(&img);
    return 0;
}

/* A layer's pixel straight below a top-down camera, on and then off. */
static int layer_pixel(const char *camera, const char *layer, int r, int g, int b)
{
    char extra[256];
    snprintf(extra, sizeof extra, "--camera %s", camera);
    REQUIRE(rt_shot("w_29_31.pm4", "on.png", extra) == 0);
    test_image img;
    REQUIRE(test_image_load(&img, "on.png"));
    REQUIRE(rt_expect(&img, 32, 32, r, g, b));
    test_image_free(&img);
    snprintf(extra, sizeof extra, "--camera %s --layer %s=off", camera, layer);
    REQUIRE(rt_shot("w_29_31.pm4", "off.png", extra) == 0);
    REQUIRE(test_image_load(&img, "off.png"));
    REQUIRE(rt_expect(&img, 32, 32, 0, 0, 0));
    test_image_free(&img);
    return 0;
}

/* The path ribbon at view x = 5 (world MSPV (5,0,0)..(5,5,0)), the MSCN point at view (2,3,1)
 * (world (2,-1,3)), the MPRL reference at view (15,1,0) (world (15,0,1)). */
static int test_pm4_layers(void)
{
    REQUIRE(write_pm4("w_29_31.pm4"));
    REQUIRE(layer_pixel("5,4,-2.5,0,-90", "paths", 255, 220, 0) == 0);
    REQUIRE(layer_pixel("2,8,1,0,-90", "exterior", 0, 230, 230) == 0);
    REQUIRE(layer_pixel("15,5,0,0,-90", "references", 255, 0, 200) == 0);
    char err[1024];
    REQUIRE(rt_run("shot w_29_31.pm4 -o x.png --layer water=off", err) == 1);
    REQUIRE(strstr(err, "--layer wants") != NULL);
    return 0;
}

/* `pmfview shot DIR`: three tiles of a directory drawn as one world. */
static int test_pm4_directory(void)
{
    REQUIRE(test_make_dir("tiles"));
    REQUIRE(write_pm4("tiles/w_30_30.pm4") && write_pm4("tiles/w_31_30.pm4") && write_pm4("tiles/w_30_31.pm4"));
    REQUIRE(rt_shot("tiles", "dir.png", "--camera 5,40,-5,0,-90") == 0);
    test_image img;
    REQUIRE(test_image_load(&img, "dir.png"));
    int walkable[3];
    surface_pixel(1, 0, PM4_SAMPLE_CK24_A, (const float[3]){ 0, 1, 0 }, walkable);
    REQUIRE(rt_expect(&img, 34, 34, walkable[0], walkable[1], walkable[2]));
    test_image_free(&img);
    /* a damaged tile: exit 2, one line naming it */
    size_t size;
    uint8_t *bytes = pm4_sample_build(&(pm4_sample_desc){ 0 }, &size);
    REQUIRE(write_bytes("tiles/w_31_30.pm4", bytes, 100));
    char err[1024];
    REQUIRE(rt_run("shot tiles -o dir.png", err) == 2);
    REQUIRE(strstr(err, "w_31_30.pm4: file, byte ") != NULL && strchr(err, '\n') == strrchr(err, '\n'));
    return 0;
}

int main(int argc, char **argv)
{
    static const rt_test tests[] = {
        { "legacy", test_legacy },
        { "pm4_surfaces", test_pm4_surfaces },
        { "pm4_layers", test_pm4_layers },
        { "pm4_directory", test_pm4_directory },
        { NULL, NULL },
    };
    return rt_main(argc, argv, tests);
}
