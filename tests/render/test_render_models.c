/* test_render_models.c - a Quake map's point entity drawn with its model (docs/models.md):
 * item_armor1 in front of a room's wall, the game directory a pak holding the real
 * progs/armor.mdl and gfx/palette.lmp of ../shared/data/lq. The pixels the model changes (the
 * shot against the same shot with --no-models) are its silhouette computed here from its own
 * triangles at the known camera; a missing or damaged model (a damaged loose file over the pak's)
 * is one warning and the picture without it; two classes of one missing model, one warning.
 * Usage: test_render_models PMFVIEW TEST PMFC PROGS_DIR PALETTE */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/pmf_budget.h"
#include "map_build.h"
#include "mdl.h"
#include "pak_build.h"
#include "pmf/pmf_map_info.h"
#include "rt_shot.h"

#define WIDTH 240
#define HEIGHT 180
#define UNIT 0.0254                  /* metres per Quake unit: pmfc's default */
#define MARGIN 1.5                   /* pixels near the silhouette's edge are not judged */

static const char *pmfc, *progs, *palette_path;

static uint8_t *read_shared(const char *dir, const char *name, size_t *size)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    uint8_t *bytes = test_read_file(path, size);
    if (!bytes)
        check_fail("cannot read %s", path);
    return bytes;
}

/* The room (256 x 256 x 160 units inside), the armour 64 units in front of its north wall. */
static bool compile_map(void)
{
    map_build *m = map_build_new("Quake");
    const double lo[3] = { -128, -128, 0 }, hi[3] = { 128, 128, 160 }, start[3] = { 0, -96, 24 }, armour[3] = { 0, 64, 0 };
    map_build_room(m, lo, hi, "brick", MAP_ROOM_ALL);
    map_build_point(m, "info_player_start", start);
    map_build_point(m, "info_player_deathmatch", start);  /* player.mdl too: the game directory lacks it */
    map_build_point(m, "item_armor1", armour);
    bool ok = map_build_write_file(m, "room.map");
    map_build_free(m);
    const char *argv[] = { pmfc, "room.map", "-o", "room.pmf", NULL };
    return ok && test_run(NULL, argv, "pmfc.txt", "pmfc.txt") == 0;
}

/* game/pak0.pak with the real model and palette. */
static bool write_game(void)
{
    size_t model_size, palette_size;
    uint8_t *model = read_shared(progs, "armor.mdl", &model_size), *palette = test_read_file(palette_path, &palette_size);
    const pak_build_file files[] = { { "gfx/palette.lmp", palette, palette_size }, { "progs/armor.mdl", model, model_size } };
    bool ok = model && palette && test_make_dir("game") && pak_build_write("game/pak0.pak", files, 2);
    free(model);
    free(palette);
    return ok;
}

/* The entity's world place as the map holds it. */
static bool armour_place(float out[3])
{
    pmf_error err;
    pmf_file *f = pmf_open("room.pmf", &err);
    pmf_entities e = { 0 };
    bool found = false;
    if (f && pmf_entities_read(f, &e, &err))
        for (uint32_t i = 0; i < e.count; i++)
            if (!strcmp(e.list[i].classname, "item_armor1")) {
                memcpy(out, e.list[i].position, 3 * sizeof *out);
                found = true;
            }
    pmf_entities_free(&e);
    pmf_close(f);
    return found;
}

/* Which pixel centres the model's triangles cover: 1 inside, 0 outside, 2 within MARGIN of an
 * edge. The camera looks north (yaw 0, pitch 0) from eye: a world point p is at view
 * (p - eye), on screen at x = f / aspect * vx / -vz, y = f * vy / -vz (f = 1: a 90-degree fov). */
static void silhouette(const mdl_mesh *mesh, const float place[3], const double eye[3], uint8_t *mask)
{
    memset(mask, 0, WIDTH * HEIGHT);
    for (uint32_t t = 0; t < mesh->triangle_count; t++) {
        double px[3][2];
        for (int k = 0; k < 3; k++) {
            const float *q = mesh->positions + 9 * (size_t)t + 3 * k;
            double world[3] = { place[0] + q[0] * UNIT, place[1] + q[2] * UNIT, place[2] - q[1] * UNIT };
            double v[3] = { world[0] - eye[0], world[1] - eye[1], world[2] - eye[2] };
            px[k][0] = (1.0 + (double)HEIGHT / WIDTH * v[0] / -v[2]) * 0.5 * WIDTH;
            px[k][1] = (1.0 - v[1] / -v[2]) * 0.5 * HEIGHT;
        }
        double area = (px[1][0] - px[0][0]) * (px[2][1] - px[0][1]) - (px[2][0] - px[0][0]) * (px[1][1] - px[0][1]);
        if (fabs(area) < 1e-12)
            continue;
        for (int y = 0; y < HEIGHT; y++)
            for (int x = 0; x < WIDTH; x++) {
                double c[2] = { x + 0.5, y + 0.5 }, worst = 1e30;
                for (int k = 0; k < 3; k++) {
                    const double *a = px[k], *b = px[(k + 1) % 3];
                    double len = hypot(b[0] - a[0], b[1] - a[1]);
                    double side = ((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])) / len * (area > 0 ? 1 : -1);
                    worst = side < worst ? side : worst;
                }
                uint8_t *m = &mask[y * WIDTH + x];
                if (worst > MARGIN)
                    *m = 1;
                else if (worst > -MARGIN && *m != 1)
                    *m = 2;
            }
    }
}

static bool shoot(const char *out, const double eye[3], const char *extra, char err[1024])
{
    char args[1024];
    snprintf(args, sizeof args, "shot room.pmf -o %s --size %dx%d --fov 90 --camera %.6f,%.6f,%.6f,0,0 --game game %s", out,
             WIDTH, HEIGHT, eye[0], eye[1], eye[2], extra);
    return rt_run(args, err) == 0;
}

static bool build_mesh(mdl_mesh *mesh)
{
    size_t size, palette_size;
    uint8_t *bytes = read_shared(progs, "armor.mdl", &size), *palette = test_read_file(palette_path, &palette_size);
    pmf_error err;
    mdl_file *m = bytes ? mdl_open_memory(bytes, size, "armor.mdl", &err) : NULL;
    bool ok = m && palette && mdl_build_mesh(m, 0, 0, palette, mesh, &err);
    mdl_close(m);
    free(bytes);
    free(palette);
    return ok;
}

static int test_silhouette(void)
{
    float place[3];
    REQUIRE(compile_map() && write_game() && armour_place(place));
    /* 48 units south of the armour, 22 up: (0, -48, 22) in Quake's axes */
    const double eye[3] = { place[0], place[1] + 22 * UNIT, place[2] + 48 * UNIT };
    char err[1024];
    test_image with, without;
    REQUIRE(shoot("with.png", eye, "", err) && shoot("without.png", eye, "--no-models", err));
    REQUIRE(test_image_load(&with, "with.png") && test_image_load(&without, "without.png"));
    mdl_mesh mesh;
    REQUIRE(build_mesh(&mesh));
    uint8_t *mask = malloc(WIDTH * HEIGHT);
    silhouette(&mesh, place, eye, mask);
    int inside = 0, inside_same = 0, outside_changed = 0;
    for (int i = 0; i < WIDTH * HEIGHT; i++) {
        bool changed = memcmp(with.rgb + 3 * i, without.rgb + 3 * i, 3) != 0;
        inside += mask[i] == 1;
        inside_same += mask[i] == 1 && !changed;
        if (mask[i] == 0 && changed && outside_changed++ < 5)
            fprintf(stderr, "  pixel (%d, %d) changed outside the silhouette\n", i % WIDTH, i / WIDTH);
    }
    printf("silhouette: %d pixels well inside, %d of them unchanged; %d changed outside\n", inside, inside_same, outside_changed);
    CHECK(inside > 300, "%d pixels inside", inside);
    CHECK(inside_same * 100 <= inside, "%d of %d pixels inside unchanged", inside_same, inside);  /* a texel as the wall, at most 1% */
    CHECK_EQ(outside_changed, 0);
    free(mask);
    mdl_mesh_free(&mesh);
    test_image_free(&with);
    test_image_free(&without);
    return check_failures;
}

/* No model in the game directory, then a damaged loose one over the pak's: one warning each and
 * the picture --no-models gives. */
static int test_missing_and_broken(void)
{
    float place[3];
    REQUIRE(compile_map() && armour_place(place));
    const double eye[3] = { place[0], place[1] + 22 * UNIT, place[2] + 48 * UNIT };
    size_t palette_size;
    uint8_t *palette = test_read_file(palette_path, &palette_size);
    const pak_build_file files[] = { { "gfx/palette.lmp", palette, palette_size } };
    REQUIRE(palette && test_make_dir("game") && pak_build_write("game/pak0.pak", files, 1));
    free(palette);
    char err[1024];
    test_image plain, missing, broken;
    REQUIRE(shoot("plain.png", eye, "--no-models", err) && test_image_load(&plain, "plain.png"));
    REQUIRE(shoot("missing.png", eye, "", err) && test_image_load(&missing, "missing.png"));
    CHECK(strstr(err, "warning: item_armor1 (progs/armor.mdl)") != NULL, "%s", err);
    const char *player = strstr(err, "progs/player.mdl");  /* two classes, one file: one warning */
    CHECK(player && !strstr(strchr(player, '\n'), "progs/player.mdl"), "%s", err);
    CHECK(!memcmp(plain.rgb, missing.rgb, (size_t)WIDTH * HEIGHT * 3));
    size_t size;
    uint8_t *model = read_shared(progs, "armor.mdl", &size);
    REQUIRE(model && test_make_dir("game/progs") && test_write_file("game/progs/armor.mdl", model, 5000));
    free(model);
    REQUIRE(shoot("broken.png", eye, "", err) && test_image_load(&broken, "broken.png"));
    const char *warning = strstr(err, "warning: item_armor1: progs/armor.mdl: skins, byte 84: 3 skins need");
    CHECK(warning != NULL, "%s", err);
    CHECK(warning && !strstr(strchr(warning, '\n'), "armor.mdl"), "one warning: %s", err);
    CHECK(!memcmp(plain.rgb, broken.rgb, (size_t)WIDTH * HEIGHT * 3));
    test_image_free(&plain);
    test_image_free(&missing);
    test_image_free(&broken);
    return check_failures;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: %s PMFVIEW TEST PMFC PROGS_DIR PALETTE\n", argv[0]);
        return 2;
    }
    pmfc = argv[3];
    progs = argv[4];
    palette_path = argv[5];
    static const rt_test tests[] = {
        { "silhouette", test_silhouette },
        { "missing_and_broken", test_missing_and_broken },
        { NULL, NULL },
    };
    return rt_main(3, argv, tests);
}
