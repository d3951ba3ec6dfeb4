/* test_render_models.c - a Quake map's point entity drawn with its model (docs/models.md):
 * item_armor1 in front of a room's wall, the game directory a pak holding the real
 * progs/armor.mdl and gfx/palette.lmp of ../shared/data/lq. The pixels the model changes (the
 * shot against the same shot with --no-models) are its silhouette computed here from its own
 * triangles at the known camera; a missing or damaged model (a damaged loose file over the pak's)
 * is one warning and the picture without it; two classes of one missing model, one warning.
 * light_globe's sprite (progs/s_light.spr), turned to the view plane: the pixels it changes are
 * its opaque texels' squares. A GoldSrc studio model (the fixture library's) by its `model` key and
 * by Half-Life's built-in item_healthkit; the inspector naming the dog's entity, file and frame.
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
#include "spr.h"
#include "studio.h"
#include "studio_build.h"

#define WIDTH 240
#define HEIGHT 180
#define UNIT 0.0254                  /* metres per Quake unit: pmfc's default */
#define MARGIN 2                     /* pixels this near the silhouette's edge are not judged */

static const char *pmfc, *progs, *palette_path;
static const char *world_keys, *pmfc_fgd;  /* the worldspawn's more keys, pmfc's --fgd (NULL: none) */
static int shown_height = 24;              /* units over the floor of the entity shown */
static const char *game_name = "Quake";    /* the map's game (map_build_new) */

static uint8_t *read_shared(const char *dir, const char *name, size_t *size)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    uint8_t *bytes = test_read_file(path, size);
    if (!bytes)
        check_fail("cannot read %s", path);
    return bytes;
}

/* The room (256 x 256 x 160 units inside), `shown` (item_armor1 or light_globe) 64 units in front
 * of its north wall, with more keys (or NULL). */
static bool compile_map_keys(const char *shown, const char *keys)
{
    map_build *m = map_build_new(game_name);
    if (world_keys)
        map_build_keys(m, world_keys);
    const double lo[3] = { -128, -128, 0 }, hi[3] = { 128, 128, 160 }, start[3] = { 0, -96, 24 };
    char place_keys[512];
    snprintf(place_keys, sizeof place_keys, "\"origin\" \"0 64 %d\"\n%s", shown_height, keys ? keys : "");
    map_build_room(m, lo, hi, "brick", MAP_ROOM_ALL);
    map_build_point(m, "info_player_start", start);
    map_build_point(m, "info_player_deathmatch", start);  /* player.mdl too: the game directory lacks it */
    map_build_entity(m, shown, place_keys);
    bool ok = map_build_write_file(m, "room.map");
    map_build_free(m);
    const char *argv[] = { pmfc, "room.map", "-o", "room.pmf", pmfc_fgd ? "--fgd" : NULL, pmfc_fgd, NULL };
    return ok && test_run(NULL, argv, "pmfc.txt", "pmfc.txt") == 0;
}

/* game/pak0.pak with the real models (the armour, the dog; the dog again as progs/flame.mdl, a
 * model QuakeSpasm does not blend), sprite and palette. */
static bool write_game(void)
{
    size_t model_size, sprite_size, palette_size;
    uint8_t *model = read_shared(progs, "armor.mdl", &model_size), *sprite = read_shared(progs, "s_light.spr", &sprite_size);
    uint8_t *palette = test_read_file(palette_path, &palette_size);
    size_t dog_size;
    uint8_t *dog = read_shared(progs, "dog.mdl", &dog_size);
    const pak_build_file files[] = { { "gfx/palette.lmp", palette, palette_size }, { "progs/armor.mdl", model, model_size },
                                     { "progs/s_light.spr", sprite, sprite_size }, { "progs/dog.mdl", dog, dog_size },
                                     { "progs/flame.mdl", dog, dog_size } };
    bool ok = model && sprite && palette && dog && test_make_dir("game") && pak_build_write("game/pak0.pak", files, 5);
    free(dog);
    free(model);
    free(sprite);
    free(palette);
    return ok;
}

/* An entity's world place as the room's map holds it. */
static bool entity_place(const char *classname, float out[3])
{
    return rt_entity_place("room.pmf", classname, out);
}

/* Which pixel centres count world triangles cover, then judged with their neighbours: 1 when
 * every pixel within MARGIN is covered, 0 when none is, 2 (not judged) between. The camera looks
 * north (yaw 0, pitch 0) from eye: a world point p is at view (p - eye), on screen at
 * x = f / aspect * vx / -vz, y = f * vy / -vz (f = 1: a 90-degree fov). */
static void silhouette(const double (*triangles)[3][3], size_t count, const double eye[3], uint8_t *mask)
{
    uint8_t *covered = calloc(WIDTH * HEIGHT, 1);
    for (size_t t = 0; t < count; t++) {
        double px[3][2];
        for (int k = 0; k < 3; k++) {
            const double *world = triangles[t][k];
            double v[3] = { world[0] - eye[0], world[1] - eye[1], world[2] - eye[2] };
            px[k][0] = (1.0 + (double)HEIGHT / WIDTH * v[0] / -v[2]) * 0.5 * WIDTH;
            px[k][1] = (1.0 - v[1] / -v[2]) * 0.5 * HEIGHT;
        }
        double area = (px[1][0] - px[0][0]) * (px[2][1] - px[0][1]) - (px[2][0] - px[0][0]) * (px[1][1] - px[0][1]);
        for (int y = 0; fabs(area) > 1e-12 && y < HEIGHT; y++)
            for (int x = 0; x < WIDTH; x++) {
                bool inside = true;
                for (int k = 0; k < 3 && inside; k++) {
                    const double *a = px[k], *b = px[(k + 1) % 3];
                    double side = (b[0] - a[0]) * (y + 0.5 - a[1]) - (b[1] - a[1]) * (x + 0.5 - a[0]);
                    inside = side * area >= 0;
                }
                covered[y * WIDTH + x] |= inside;
            }
    }
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) {
            int seen = 0, all = 0;
            for (int dy = -MARGIN; dy <= MARGIN; dy++)
                for (int dx = -MARGIN; dx <= MARGIN; dx++) {
                    int nx = x + dx, ny = y + dy;
                    bool in = nx >= 0 && ny >= 0 && nx < WIDTH && ny < HEIGHT && covered[ny * WIDTH + nx];
                    seen += in;
                    all++;
                }
            mask[y * WIDTH + x] = seen == all ? 1 : seen == 0 ? 0 : 2;
        }
    free(covered);
}

/* The shots with and without models against mask: pixels well inside change (but unchanged_percent
 * of them: a texel as the wall), none well outside does; how many are well inside. */
static int compare_shots(const uint8_t *mask, int unchanged_percent)
{
    test_image with, without;
    if (!test_image_load(&with, "with.png") || !test_image_load(&without, "without.png")) {
        check_fail("cannot read the shots");
        return 0;
    }
    int inside = 0, inside_same = 0, outside_changed = 0;
    for (int i = 0; i < WIDTH * HEIGHT; i++) {
        bool changed = memcmp(with.rgb + 3 * i, without.rgb + 3 * i, 3) != 0;
        inside += mask[i] == 1;
        inside_same += mask[i] == 1 && !changed;
        if (mask[i] == 0 && changed && outside_changed++ < 5)
            fprintf(stderr, "  pixel (%d, %d) changed outside the silhouette\n", i % WIDTH, i / WIDTH);
    }
    printf("silhouette: %d pixels well inside, %d of them unchanged; %d changed outside\n", inside, inside_same, outside_changed);
    CHECK(inside_same * 100 <= inside * unchanged_percent, "%d of %d pixels inside unchanged", inside_same, inside);
    CHECK_EQ(outside_changed, 0);
    test_image_free(&with);
    test_image_free(&without);
    return inside;
}

static bool shoot(const char *out, const double eye[3], const char *extra, char err[1024])
{
    char args[1024];
    snprintf(args, sizeof args, "shot room.pmf -o %s --size %dx%d --fov 90 --camera %.6f,%.6f,%.6f,0,0 --game game %s", out,
             WIDTH, HEIGHT, eye[0], eye[1], eye[2], extra);
    return rt_run(args, err) == 0;
}

/* Frame `frame` of the animation `animation` (NULL: frame 0) of progs/NAME. */
static bool build_mesh_of(const char *name, const char *animation, uint32_t frame, mdl_mesh *mesh)
{
    size_t size, palette_size;
    uint8_t *bytes = read_shared(progs, name, &size), *palette = test_read_file(palette_path, &palette_size);
    pmf_error err;
    mdl_file *m = bytes ? mdl_open_memory(bytes, size, name, &err) : NULL;
    bool ok = m && palette && mdl_build_mesh(m, (animation ? mdl_find_animation(m, animation) : 0) + frame, 0, palette, mesh, &err);
    mdl_close(m);
    free(bytes);
    free(palette);
    return ok;
}

static bool build_mesh(mdl_mesh *mesh)
{
    return build_mesh_of("armor.mdl", NULL, 0, mesh);
}

/* The armour's frame 0 in the world: each corner (Quake units, the model's axes) turned as Quake
 * turns an alias model (roll about x, then pitch about y raising its front, then yaw about z),
 * scaled, then placed: a Quake point (x, y, z) is the world's (x, z, -y). */
static double (*armour_in_world(const mdl_mesh *mesh, const float place[3], const double angles[3], double scale))[3][3]
{
    double (*triangles)[3][3] = malloc(mesh->triangle_count * sizeof *triangles);
    const double d = M_PI / 180, p = angles[0] * d, y = angles[1] * d, r = angles[2] * d;
    for (size_t c = 0; triangles && c < (size_t)mesh->triangle_count * 3; c++) {
        const float *q = mesh->positions + 3 * c;
        double v[3] = { q[0], q[1] * cos(r) - q[2] * sin(r), q[1] * sin(r) + q[2] * cos(r) };
        double w[3] = { v[0] * cos(p) - v[2] * sin(p), v[1], v[0] * sin(p) + v[2] * cos(p) };
        double u[3] = { w[0] * cos(y) - w[1] * sin(y), w[0] * sin(y) + w[1] * cos(y), w[2] };
        double *out = triangles[c / 3][c % 3];
        out[0] = place[0] + scale * u[0] * UNIT;
        out[1] = place[1] + scale * u[2] * UNIT;
        out[2] = place[2] - scale * u[1] * UNIT;
    }
    return triangles;
}

/* `classname` (keys: more of its keys) seen from 48 units south and 22 up, shot_extra given to the
 * shots: the pixels it changes are the armour's triangles' silhouette turned and scaled as angles
 * and scale say; how many are well inside. */
static int armour_silhouette_of(const char *classname, const char *keys, const char *shot_extra, const double angles[3],
                                double scale)
{
    float place[3];
    if (!compile_map_keys(classname, keys) || !write_game() || !entity_place(classname, place)) {
        check_fail("cannot compile the room");
        return 0;
    }
    const double eye[3] = { place[0], place[1] + 22 * UNIT, place[2] + 48 * UNIT };
    char err[1024], without[256];
    snprintf(without, sizeof without, "%s --no-models", shot_extra);
    mdl_mesh mesh;
    if (!shoot("with.png", eye, shot_extra, err) || !shoot("without.png", eye, without, err) || !build_mesh(&mesh)) {
        check_fail("cannot shoot: %s", err);
        return 0;
    }
    double (*triangles)[3][3] = armour_in_world(&mesh, place, angles, scale);
    uint8_t *mask = malloc(WIDTH * HEIGHT);
    silhouette((const double (*)[3][3])triangles, mesh.triangle_count, eye, mask);
    int inside = compare_shots(mask, 1);
    free(mask);
    free(triangles);
    mdl_mesh_free(&mesh);
    return inside;
}

static int armour_silhouette(const char *keys, const double angles[3], double scale)
{
    return armour_silhouette_of("item_armor1", keys, "", angles, scale);
}

static int test_silhouette(void)
{
    const double level[3] = { 0, 0, 0 };
    CHECK(armour_silhouette(NULL, level, 1) > 300);
    return check_failures;
}

/* The entity's angles and scale (pmfview.entity_placement): yawed a quarter turn, its front
 * raised 30 degrees and 1.5 times as large (and `info --json` saying so), then a plain `angle`. */
static int test_turned(void)
{
    const double turned[3] = { 30, 90, 0 }, yawed[3] = { 0, 135, 0 };
    int inside = armour_silhouette("\"angles\" \"30 90 0\"\n\"scale\" \"1.5\"\n\"skin\" \"0\"\n", turned, 1.5);
    printf("turned: %d pixels well inside\n", inside);
    CHECK(inside > 600);
    char err[1024];
    size_t size;
    char *json = rt_run("info --json room.pmf", err) == 0 ? (char *)test_read_file("stdout.txt", &size) : NULL;
    CHECK(json && strstr(json, "[30, 90, 0]") && strstr(json, "\"scale\":\t1.5") && strstr(json, "\"skin\":\t0"), "%s",
          json ? json : err);
    free(json);
    CHECK(armour_silhouette("\"angle\" \"135\"\n", yawed, 1) > 300);
    return check_failures;
}

/* Keys that do not read or are out of range: pmfc says one warning each and keeps the default;
 * a skin the model lacks is one warning of the viewer and the class's skin. The picture is the
 * plain entity's. */
static int test_bad_keys(void)
{
    float place[3];
    REQUIRE(compile_map_keys("item_armor1", NULL) && write_game() && entity_place("item_armor1", place));
    const double eye[3] = { place[0], place[1] + 22 * UNIT, place[2] + 48 * UNIT };
    char err[1024];
    test_image plain, bad;
    REQUIRE(shoot("plain.png", eye, "", err) && test_image_load(&plain, "plain.png"));
    REQUIRE(compile_map_keys("item_armor1", "\"angles\" \"nan 0 0\"\n\"scale\" \"1e9\"\n\"skin\" \"7\"\n\"frame\" \"-2\"\n"));
    size_t size;
    char *log = (char *)test_read_file("pmfc.txt", &size);
    REQUIRE(log != NULL);
    CHECK(strstr(log, "\"angles\" \"nan 0 0\" is not three finite numbers: 0 0 0 kept") != NULL, "%s", log);
    CHECK(strstr(log, "\"scale\" \"1e9\" is not a number in 1/256..256: 1 kept") != NULL, "%s", log);
    CHECK(strstr(log, "\"frame\" \"-2\" is not a whole number in 0..65535: the class's own kept") != NULL, "%s", log);
    free(log);
    REQUIRE(shoot("bad.png", eye, "", err) && test_image_load(&bad, "bad.png"));
    const char *warning = strstr(err, "warning: item_armor1 at (");
    CHECK(warning && strstr(warning, "skin 7, but progs/armor.mdl has 3: skin 0 drawn"), "%s", err);
    CHECK(!memcmp(plain.rgb, bad.rgb, (size_t)WIDTH * HEIGHT * 3));
    test_image_free(&plain);
    test_image_free(&bad);
    return check_failures;
}

/* misc_armour, a class the built-in table does not know, shown with the model its definition
 * gives (through a base class): by pmfc's --fgd, by the worldspawn's _tb_def naming the file
 * beside the map, by the viewer's --fgd. A malformed FGD: pmfc's one line and exit 2, the
 * viewer's one warning and the picture without the model. */
static int test_fgd(void)
{
    const char defs[] = "@BaseClass model({\"path\": \":progs/armor.mdl\", \"skin\": 0}) = Armour []\n"
                        "@PointClass base(Armour) size(-16 -16 0, 16 16 32) = misc_armour : \"An armour\" [ ]\n";
    const char bad[] = "@PointClass = misc_armour [ model(";
    REQUIRE(test_write_file("defs.fgd", defs, strlen(defs)) && test_write_file("bad.fgd", bad, strlen(bad)));
    const double level[3] = { 0, 0, 0 };
    pmfc_fgd = "defs.fgd";
    CHECK(armour_silhouette_of("misc_armour", NULL, "", level, 1) > 300, "pmfc --fgd");
    pmfc_fgd = NULL;
    world_keys = "\"_tb_def\" \"external:defs.fgd\"\n";
    CHECK(armour_silhouette_of("misc_armour", NULL, "", level, 1) > 300, "_tb_def");
    world_keys = NULL;
    CHECK(armour_silhouette_of("misc_armour", NULL, "--fgd defs.fgd", level, 1) > 300, "pmfview --fgd");

    const char *argv[] = { pmfc, "room.map", "-o", "bad.pmf", "--fgd", "bad.fgd", NULL };
    CHECK_EQ(test_run(NULL, argv, "pmfc.txt", "pmfc.txt"), 2);
    size_t size;
    char *log = (char *)test_read_file("pmfc.txt", &size);
    CHECK(log && !strcmp(log, "pmfc: bad.fgd:1:27: '[' not closed\n"), "%s", log ? log : "(no log)");
    free(log);
    float place[3];
    REQUIRE(entity_place("misc_armour", place));
    const double eye[3] = { place[0], place[1] + 22 * UNIT, place[2] + 48 * UNIT };
    char err[1024];
    test_image plain, warned;
    REQUIRE(shoot("plain.png", eye, "--no-models", err) && test_image_load(&plain, "plain.png"));
    REQUIRE(shoot("warned.png", eye, "--fgd bad.fgd", err) && test_image_load(&warned, "warned.png"));
    CHECK(strstr(err, "pmfview: warning: bad.fgd:1:27: '[' not closed: its classes from there on are not used") != NULL, "%s", err);
    CHECK(!memcmp(plain.rgb, warned.rgb, (size_t)WIDTH * HEIGHT * 3));
    test_image_free(&plain);
    test_image_free(&warned);
    return check_failures;
}

/* The inspector at a pixel well inside mask (the one nearest the picture's middle) names the
 * entity, the file and the frame; at the top left corner (the ceiling) no model. */
static void check_inspected(const uint8_t *mask, const double eye[3], const char *time, const char *classname,
                            const char *file, uint32_t frame)
{
    int best = -1;
    for (int i = 0; i < WIDTH * HEIGHT; i++) {
        int dx = i % WIDTH - WIDTH / 2, dy = i / WIDTH - HEIGHT / 2, bx = best % WIDTH - WIDTH / 2, by = best / WIDTH - HEIGHT / 2;
        if (mask[i] == 1 && (best < 0 || dx * dx + dy * dy < bx * bx + by * by))
            best = i;
    }
    char extra[128], err[1024], want[3][160];
    snprintf(want[0], sizeof want[0], "\"class\":\t\"%s\"", classname);
    snprintf(want[1], sizeof want[1], "\"file\":\t\"%s\"", file);
    snprintf(want[2], sizeof want[2], "\"frame\":\t%u,", frame);
    for (int k = 0; k < 2; k++) {
        snprintf(extra, sizeof extra, "%s --inspect %d,%d", time, k ? 2 : best % WIDTH, k ? 2 : best / WIDTH);
        size_t size;
        char *json = best >= 0 && shoot("inspected.png", eye, extra, err) ? (char *)test_read_file("stdout.txt", &size) : NULL;
        CHECK(json && (k ? !strstr(json, "\"model\"") : strstr(json, want[0]) && strstr(json, want[1]) && strstr(json, want[2])),
              "%s: %s", extra, json ? json : err);
        free(json);
    }
}

/* How many pixels are well inside one mask and not the other. */
static int masks_apart(const uint8_t *a, const uint8_t *b)
{
    int apart = 0;
    for (int i = 0; i < WIDTH * HEIGHT; i++)
        apart += (a[i] == 1) != (b[i] == 1);
    return apart;
}

/* The dog's frames `from` and `to` blended as QuakeSpasm blends them: from + (to - from) * blend. */
static bool dog_blended(uint32_t from, uint32_t to, double blend, mdl_mesh *mesh)
{
    mdl_mesh next;
    if (!build_mesh_of("dog.mdl", NULL, from, mesh))
        return false;
    if (!build_mesh_of("dog.mdl", NULL, to, &next)) {
        mdl_mesh_free(mesh);
        return false;
    }
    for (size_t i = 0; i < (size_t)mesh->triangle_count * 9; i++)
        mesh->positions[i] += (float)((next.positions[i] - mesh->positions[i]) * blend);
    mdl_mesh_free(&next);
    return true;
}

typedef struct dog_case {
    const char *time;
    uint32_t from, to;                 /* the frames drawn, blended by `blend` */
    double blend;
    uint32_t named;                    /* the frame the inspector names */
} dog_case;

/* `classname` (keys: more keys) showing the dog at the case's time: the pixels it changes are the
 * silhouette of the case's blend of two frames (into mask), the inspector names the case's frame. */
static void dog_shown(const char *classname, const char *keys, const char *file, const dog_case *c, uint8_t *mask)
{
    float place[3];
    shown_height = 48;
    bool ok = compile_map_keys(classname, keys) && write_game() && entity_place(classname, place);
    shown_height = 24;
    CHECK(ok, "cannot compile the room");
    const double eye[3] = { place[0], place[1] + 22 * UNIT, place[2] + 64 * UNIT }, level[3] = { 0, 0, 0 };
    char err[1024], without[64];
    snprintf(without, sizeof without, "%s --no-models", c->time);
    mdl_mesh mesh;
    if (!ok || !shoot("with.png", eye, c->time, err) || !shoot("without.png", eye, without, err)
        || !dog_blended(c->from, c->to, c->blend, &mesh)) {
        check_fail("cannot shoot: %s", err);
        return;
    }
    double (*triangles)[3][3] = armour_in_world(&mesh, place, level, 1);
    silhouette((const double (*)[3][3])triangles, mesh.triangle_count, eye, mask);
    printf("%s at %s: frames %u and %u blended by %g\n", classname, c->time, c->from, c->to, c->blend);
    CHECK(compare_shots(mask, 1) > 500, "%s", c->time);
    check_inspected(mask, eye, c->time, classname, file, c->named);
    free(triangles);
    mdl_mesh_free(&mesh);
}

/* monster_dog (its frames one animation, frame1 .. frame64, at 10 frames a second) blended as
 * QuakeSpasm draws it: at 0 s its first frame whole, at 0.35 s half way from its third to its
 * fourth (the fourth began at 0.3 s), at 0.4 s its fourth whole (the fifth begins); the
 * inspector names the frame of the moment (the one the blend heads for). The same file as
 * progs/flame.mdl (on QuakeSpasm's r_nolerp_list) steps: at 0.35 s its fourth frame whole. */
static int test_animated(void)
{
    const dog_case cases[] = { { "--time 0", 0, 0, 0, 0 }, { "--time 0.35", 2, 3, 0.5, 3 }, { "--time 0.4", 3, 4, 0, 4 } };
    enum { CASES = sizeof cases / sizeof cases[0] };
    uint8_t *masks[CASES + 1];
    for (int k = 0; k <= CASES; k++)
        REQUIRE((masks[k] = malloc(WIDTH * HEIGHT)) != NULL);
    for (int k = 0; k < CASES; k++)
        dog_shown("monster_dog", NULL, "progs/dog.mdl", &cases[k], masks[k]);
    dog_shown("misc_flame", "\"model\" \"progs/flame.mdl\"\n", "progs/flame.mdl", &(dog_case){ "--time 0.35", 3, 3, 0, 3 }, masks[CASES]);
    const int pairs[3][2] = { { 0, 1 }, { 1, 2 }, { 1, CASES } };  /* each apart; the last: blended and stepped at 0.35 s */
    for (int k = 0; k < 3; k++) {
        int apart = masks_apart(masks[pairs[k][0]], masks[pairs[k][1]]);
        printf("cases %d and %d: %d pixels well inside one and not the other\n", pairs[k][0], pairs[k][1], apart);
        CHECK(apart > 100, "cases %d and %d: %d", pairs[k][0], pairs[k][1], apart);
    }
    for (int k = 0; k <= CASES; k++)
        free(masks[k]);
    return check_failures;
}

/* Three rooms side by side, item_armor1 in each, 64 units north of the middle, and over it by 72
 * units room r's light keys (NULL: none). */
static const double room_x[3] = { 0, 320, 640 };

static bool compile_lit_rooms(const char *const light_keys[3])
{
    map_build *m = map_build_new("Quake");
    const double start[3] = { 0, -96, 24 };
    for (int r = 0; r < 3; r++) {
        const double lo[3] = { room_x[r] - 128, -128, 0 }, hi[3] = { room_x[r] + 128, 128, 160 };
        map_build_room(m, lo, hi, "brick", MAP_ROOM_ALL);
    }
    map_build_point(m, "info_player_start", start);
    for (int r = 0; r < 3; r++) {
        char keys[256];
        snprintf(keys, sizeof keys, "\"origin\" \"%g 64 24\"\n", room_x[r]);
        map_build_entity(m, "item_armor1", keys);
        snprintf(keys, sizeof keys, "\"origin\" \"%g 64 96\"\n%s", room_x[r], light_keys[r] ? light_keys[r] : "");
        if (light_keys[r])
            map_build_entity(m, "light", keys);
    }
    bool ok = map_build_write_file(m, "room.map");
    map_build_free(m);
    const char *argv[] = { pmfc, "room.map", "-o", "room.pmf", NULL };
    return ok && test_run(NULL, argv, "pmfc.txt", "pmfc.txt") == 0;
}

/* The armour of room r's place (world metres): the one whose x is the room's. */
static bool room_armour(int r, float out[3])
{
    pmf_error err;
    pmf_file *f = pmf_open("room.pmf", &err);
    pmf_entities e = { 0 };
    bool found = false;
    if (f && pmf_entities_read(f, &e, &err))
        for (uint32_t i = 0; i < e.count; i++)
            if (!strcmp(e.list[i].classname, "item_armor1") && fabs(e.list[i].position[0] - room_x[r] * UNIT) < 1e-3) {
                memcpy(out, e.list[i].position, 3 * sizeof *out);
                found = true;
            }
    pmf_entities_free(&e);
    pmf_close(f);
    return found;
}

/* The median, over the pixels well inside the armour's silhouette and not dark in the first
 * room, of a room's pixel over the first room's (each seen from the same place beside its
 * armour). */
static double median_ratio(const uint8_t *mask, const test_image *room, const test_image *first)
{
    double *ratios = malloc(WIDTH * HEIGHT * sizeof *ratios);
    size_t n = 0;
    for (int i = 0; ratios && i < WIDTH * HEIGHT; i++) {
        int a = room->rgb[3 * i] + room->rgb[3 * i + 1] + room->rgb[3 * i + 2];
        int b = first->rgb[3 * i] + first->rgb[3 * i + 1] + first->rgb[3 * i + 2];
        if (mask[i] == 1 && b >= 100)
            ratios[n++] = (double)a / b;
    }
    qsort(ratios, n, sizeof *ratios, rt_compare_doubles);
    double median = n ? ratios[n / 2] : 0;
    CHECK(n > 150, "%zu pixels compared", n);
    free(ratios);
    return median;
}

/* Each room's armour shot (extra: more options) and its floor's light; the armour's silhouette
 * into mask. */
static bool shoot_rooms(const char *extra, test_image shots[3], double floor[3], uint8_t *mask)
{
    mdl_mesh mesh;
    if (!build_mesh(&mesh))
        return false;
    bool ok = true;
    for (int r = 0; r < 3 && ok; r++) {
        float place[3];
        char err[1024], name[32];
        snprintf(name, sizeof name, "room%d.png", r);
        ok = room_armour(r, place);
        const double eye[3] = { place[0], place[1] + 22 * UNIT, place[2] + 48 * UNIT };
        ok = ok && shoot(name, eye, extra, err) && test_image_load(&shots[r], name);
        floor[r] = ok ? rt_floor_light(place, extra) : 0;
        if (ok && r == 0) {
            const double level[3] = { 0, 0, 0 };
            double (*triangles)[3][3] = armour_in_world(&mesh, place, level, 1);
            silhouette((const double (*)[3][3])triangles, mesh.triangle_count, eye, mask);
            free(triangles);
        }
    }
    mdl_mesh_free(&mesh);
    return ok;
}

/* The same model in a lit, a dimmer and a dark room of one map: its pixels follow the light of
 * the floor under it (the world's lightmap there, through Quake's look), the dark room's at the
 * floor of 8 / 255 (never black). */
static int test_lit(void)
{
    const char *const lights[3] = { "\"light\" \"180\"\n", "\"light\" \"130\"\n", NULL };
    test_image shots[3];
    double floor[3];
    uint8_t *mask = malloc(WIDTH * HEIGHT);
    REQUIRE(mask && compile_lit_rooms(lights) && write_game() && shoot_rooms("", shots, floor, mask));
    printf("floor light (Quake's 2L): %.3f %.3f %.3f\n", floor[0], floor[1], floor[2]);
    CHECK(floor[0] > 0.5 && floor[0] < 0.95 && floor[1] > 0.2 && floor[1] < floor[0] * 0.8, "%g %g", floor[0], floor[1]);
    CHECK_EQ(floor[2], 0.0);
    double dimmer = median_ratio(mask, &shots[1], &shots[0]), dark = median_ratio(mask, &shots[2], &shots[0]);
    const double least = 2 * 8 / 255.0;
    printf("model over the lit room's: %.3f (floor %.3f), dark %.3f (floor %.3f)\n", dimmer, floor[1] / floor[0], dark,
           least / floor[0]);
    CHECK_NEAR(dimmer, floor[1] / floor[0], 0.05 * floor[1] / floor[0]);
    CHECK_NEAR(dark, least / floor[0], 0.3 * least / floor[0]);
    for (int r = 0; r < 3; r++)
        test_image_free(&shots[r]);
    free(mask);
    return check_failures;
}

/* A light of style 2 (Quake's slow pulse, 10 letters a second) over the second room: at 0.65 s
 * its letter g (0.5), at 1.25 s m (1), and the model follows its floor at each. */
static int test_styled(void)
{
    const char *const lights[3] = { "\"light\" \"180\"\n", "\"light\" \"180\"\n\"style\" \"2\"\n", NULL };
    const char *times[2] = { "--time 0.65", "--time 1.25" };
    uint8_t *mask = malloc(WIDTH * HEIGHT);
    REQUIRE(mask && compile_lit_rooms(lights) && write_game());
    double ratios[2];
    for (int t = 0; t < 2; t++) {
        test_image shots[3];
        double floor[3];
        REQUIRE(shoot_rooms(times[t], shots, floor, mask));
        double model = median_ratio(mask, &shots[1], &shots[0]);
        printf("%s: floor %.3f over %.3f, model %.3f\n", times[t], floor[1], floor[0], model);
        CHECK_NEAR(model, floor[1] / floor[0], 0.05 * floor[1] / floor[0]);
        ratios[t] = model;
        for (int r = 0; r < 3; r++)
            test_image_free(&shots[r]);
    }
    CHECK(ratios[0] < 0.7 * ratios[1], "%g %g", ratios[0], ratios[1]);
    free(mask);
    return check_failures;
}

/* Each pixel well inside shows the texel its centre sees (nearest sampling; centres within 2% of
 * a texel's edge are not judged): the view axis meets the sprite's plane square on. */
static void check_sprite_colours(const spr_picture *p, const float place[3], const double eye[3], const uint8_t *mask)
{
    test_image with;
    if (!test_image_load(&with, "with.png")) {
        check_fail("cannot read with.png");
        return;
    }
    double distance = eye[2] - place[2];
    int judged = 0, wrong = 0;
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) {
            double vx = (2.0 * (x + 0.5) / WIDTH - 1.0) * WIDTH / HEIGHT * distance, vy = (1.0 - 2.0 * (y + 0.5) / HEIGHT) * distance;
            double u = (eye[0] + vx - place[0]) / UNIT - p->origin[0], v = p->origin[1] - (eye[1] + vy - place[1]) / UNIT;
            if (mask[y * WIDTH + x] != 1 || fabs(u - floor(u + 0.5)) < 0.02 || fabs(v - floor(v + 0.5)) < 0.02)
                continue;
            const uint8_t *texel = p->rgba + 4 * ((size_t)floor(v) * p->width + (size_t)floor(u)), *got = with.rgb + 3 * (y * WIDTH + x);
            judged++;
            if (memcmp(texel, got, 3) && wrong++ < 5)
                fprintf(stderr, "  pixel (%d, %d): %u %u %u, texel (%d, %d) %u %u %u\n", x, y, got[0], got[1], got[2], (int)u, (int)v,
                        texel[0], texel[1], texel[2]);
        }
    printf("sprite: %d pixels judged, %d not their texel's colour\n", judged, wrong);
    CHECK(judged > 1000);
    CHECK_EQ(wrong, 0);
    test_image_free(&with);
}

/* light_globe: s_light.spr (type parallel) 24 units in front of the camera, which looks at it
 * along the view axis: each opaque texel a square of one unit in the view plane. */
static int test_sprite(void)
{
    float place[3];
    REQUIRE(compile_map_keys("light_globe", NULL) && write_game() && entity_place("light_globe", place));
    const double eye[3] = { place[0], place[1], place[2] + 24 * UNIT };
    char err[1024];
    REQUIRE(shoot("with.png", eye, "", err) && shoot("without.png", eye, "--no-models", err));
    size_t size, palette_size;
    uint8_t *bytes = read_shared(progs, "s_light.spr", &size), *palette = test_read_file(palette_path, &palette_size);
    pmf_error perr;
    spr_file *sprite = bytes ? spr_open_memory(bytes, size, "s_light.spr", &perr) : NULL;
    spr_picture p;
    REQUIRE(sprite && palette && spr_get_info(sprite)->type == SPR_TYPE_PARALLEL && spr_load_picture(sprite, 0, 0, palette, &p, &perr));
    double (*triangles)[3][3] = malloc((size_t)p.width * p.height * 2 * sizeof *triangles);
    size_t count = 0;
    for (uint32_t j = 0; j < p.height; j++)
        for (uint32_t i = 0; i < p.width; i++) {
            if (p.rgba[4 * ((size_t)j * p.width + i) + 3] < 128)
                continue;
            double x0 = place[0] + (p.origin[0] + (double)i) * UNIT, x1 = x0 + UNIT;
            double y1 = place[1] + (p.origin[1] - (double)j) * UNIT, y0 = y1 - UNIT;
            const double quad[4][3] = { { x0, y1, place[2] }, { x1, y1, place[2] }, { x1, y0, place[2] }, { x0, y0, place[2] } };
            memcpy(triangles[count][0], quad[0], sizeof quad[0]);
            memcpy(triangles[count][1], quad[1], sizeof quad[0]);
            memcpy(triangles[count++][2], quad[2], sizeof quad[0]);
            memcpy(triangles[count][0], quad[0], sizeof quad[0]);
            memcpy(triangles[count][1], quad[2], sizeof quad[0]);
            memcpy(triangles[count++][2], quad[3], sizeof quad[0]);
        }
    uint8_t *mask = malloc(WIDTH * HEIGHT);
    silhouette((const double (*)[3][3])triangles, count, eye, mask);
    CHECK(compare_shots(mask, 10) > 1000);  /* its white middle over the wall's white squares */
    check_sprite_colours(&p, place, eye, mask);
    free(mask);
    free(triangles);
    spr_picture_free(&p);
    spr_close(sprite);
    free(bytes);
    free(palette);
    return check_failures;
}

/* No model in the game directory, then a damaged loose one over the pak's: one warning each, and
 * the entity's marker where the model would stand: the picture --no-models --overlay entities
 * gives (the player starts' markers are behind the camera), not the bare --no-models one. */
static int test_missing_and_broken(void)
{
    float place[3];
    REQUIRE(compile_map_keys("item_armor1", NULL) && entity_place("item_armor1", place));
    const double eye[3] = { place[0], place[1] + 22 * UNIT, place[2] + 48 * UNIT };
    size_t palette_size;
    uint8_t *palette = test_read_file(palette_path, &palette_size);
    const pak_build_file files[] = { { "gfx/palette.lmp", palette, palette_size } };
    REQUIRE(palette && test_make_dir("game") && pak_build_write("game/pak0.pak", files, 1));
    free(palette);
    char err[1024];
    test_image plain, marked, missing, broken;
    REQUIRE(shoot("plain.png", eye, "--no-models", err) && test_image_load(&plain, "plain.png"));
    REQUIRE(shoot("marked.png", eye, "--no-models --overlay entities", err) && test_image_load(&marked, "marked.png"));
    CHECK(memcmp(plain.rgb, marked.rgb, (size_t)WIDTH * HEIGHT * 3), "the armour's marker is not in the view");
    REQUIRE(shoot("missing.png", eye, "", err) && test_image_load(&missing, "missing.png"));
    CHECK(strstr(err, "warning: item_armor1 (progs/armor.mdl)") != NULL, "%s", err);
    const char *player = strstr(err, "progs/player.mdl");  /* two classes, one file: one warning */
    CHECK(player && !strstr(strchr(player, '\n'), "progs/player.mdl"), "%s", err);
    CHECK(!memcmp(marked.rgb, missing.rgb, (size_t)WIDTH * HEIGHT * 3), "a missing model is not its marker");
    size_t size;
    uint8_t *model = read_shared(progs, "armor.mdl", &size);
    REQUIRE(model && test_make_dir("game/progs") && test_write_file("game/progs/armor.mdl", model, 5000));
    free(model);
    REQUIRE(shoot("broken.png", eye, "", err) && test_image_load(&broken, "broken.png"));
    const char *warning = strstr(err, "warning: item_armor1: progs/armor.mdl: skins, byte 84: 3 skins need");
    CHECK(warning != NULL, "%s", err);
    CHECK(warning && !strstr(strchr(warning, '\n'), "armor.mdl"), "one warning: %s", err);
    CHECK(!memcmp(marked.rgb, broken.rgb, (size_t)WIDTH * HEIGHT * 3), "a broken model is not its marker");
    test_image_free(&plain);
    test_image_free(&marked);
    test_image_free(&missing);
    test_image_free(&broken);
    return check_failures;
}

/* How the fixture's studio model is shown: built with `options`, the reader's pose of `sequence`'s
 * `frame` (-1: the bind pose; between two frames: blended) with its bone controllers as
 * `controllers` says expected, the shot at `time` (seconds); mask (when given) gets the
 * silhouette. */
typedef struct studio_case {
    unsigned options;
    int sequence;
    double frame;
    double time;
    uint8_t *mask;
    studio_controllers controllers;
} studio_case;

/* The reader's mesh of the case's pose, body `body`. */
static bool studio_case_mesh(const studio_case *sc, const uint8_t *model, size_t model_size, const uint8_t *textures, size_t textures_size,
                             uint32_t body, studio_mesh *mesh)
{
    pmf_error err;
    studio_file *m = studio_open_memory(model, model_size, "thing.mdl", &err);
    studio_file *t = m ? studio_open_memory(textures, textures_size, "thingt.mdl", &err) : NULL;
    const studio_pose pose = { sc->sequence < 0 ? STUDIO_BIND_POSE : (uint32_t)sc->sequence, sc->frame, sc->controllers };
    bool ok = t && studio_attach_textures(m, t, &err) && studio_build_pose_mesh(m, &pose, body, 0, false, mesh, &err);
    CHECK(ok, "the studio reader: %s", err.message);
    studio_close(m);
    studio_close(t);
    return ok;
}

/* The fixture's studio model (tests/fixtures/studio_build.c, its textures in its own NAMEt.mdl)
 * as game/FILE.mdl, shown by `classname` with more keys: the pixels it changes are the silhouette
 * of the pose the studio reader builds for `body` (the case's), placed as an alias model is at
 * `scale`. How many are well inside. */
static int studio_shown_case(const char *classname, const char *keys, const char *file, uint32_t body, double scale, const studio_case *sc)
{
    uint8_t *model = NULL, *textures = NULL;
    size_t model_size = 0, textures_size = 0;
    char model_path[256], textures_path[256];
    snprintf(model_path, sizeof model_path, "game/%s.mdl", file);
    snprintf(textures_path, sizeof textures_path, "game/%st.mdl", file);
    bool ok = studio_build(STUDIO_BUILD_EXTERNAL | sc->options, &model, &model_size, &textures, &textures_size) && write_game()
              && test_make_dir("game/models") && test_write_file(model_path, model, model_size)
              && test_write_file(textures_path, textures, textures_size) && compile_map_keys(classname, keys);
    float place[3];
    CHECK(ok && entity_place(classname, place), "cannot build the model or compile the room");
    studio_mesh mesh;
    ok = ok && studio_case_mesh(sc, model, model_size, textures, textures_size, body, &mesh);
    const double eye[3] = { place[0], place[1] + 22 * UNIT, place[2] + 48 * UNIT }, level[3] = { 0, 0, 0 };
    char shot_err[1024], time[64], without[80];
    snprintf(time, sizeof time, "--time %g", sc->time);
    snprintf(without, sizeof without, "%s --no-models", time);
    int inside = 0;
    if (ok && shoot("with.png", eye, time, shot_err) && shoot("without.png", eye, without, shot_err)) {
        const mdl_mesh as_alias = { .triangle_count = mesh.triangle_count, .positions = mesh.positions };
        double (*triangles)[3][3] = armour_in_world(&as_alias, place, level, scale);
        uint8_t *mask = sc->mask ? sc->mask : malloc(WIDTH * HEIGHT);
        silhouette((const double (*)[3][3])triangles, mesh.triangle_count, eye, mask);
        inside = compare_shots(mask, 1);
        printf("%s: studio model, body %u, sequence %d frame %g at %g s: %u triangles, %d pixels well inside\n", classname, body,
               sc->sequence, sc->frame, sc->time, mesh.triangle_count, inside);
        if (mask != sc->mask)
            free(mask);
        free(triangles);
    } else if (ok) {
        check_fail("cannot shoot: %s", shot_err);
    }
    if (ok)
        studio_mesh_free(&mesh);
    free(model);
    free(textures);
    return inside;
}

static int studio_shown(const char *classname, const char *keys, const char *file, uint32_t body, double scale)
{
    return studio_shown_case(classname, keys, file, body, scale, &(studio_case){ 0, -1, 0, 0, NULL, STUDIO_CONTROLLERS_SET });
}

/* The fixture's sequence 1 (bone 1 moved 4 units along its x at frame 0, 12 at frame 1, turned
 * about its z 0 then 1 radian; 10 frames a second, looping) by the entity's `sequence`, its frames
 * blended as the engine's StudioCalcRotations: at 0 s its frame 0, at 0.05 s half way to frame 1
 * (8 units, 0.5 radians), at 0.1 s frame 1, at 0.125 s a quarter of the way back, at 0.25 s half
 * way again (a looping sequence's last frame is its first); each exactly the reader's silhouette
 * of that frame, each apart from the one before, the first from the bind pose's (sequence 0). */
static int test_studio_sequence(void)
{
    const char *keys = "\"model\" \"models/thing.mdl\"\n\"sequence\" \"1\"\n\"scale\" \"2\"\n";
    enum { CASES = 6 };
    const double frames[CASES] = { 0, 0, 0.5, 1, 1.25, 0.5 }, times[CASES] = { 0, 0, 0.05, 0.1, 0.125, 0.25 };
    uint8_t *masks[CASES];
    for (int k = 0; k < CASES; k++)
        REQUIRE((masks[k] = malloc(WIDTH * HEIGHT)) != NULL);
    const unsigned options = STUDIO_BUILD_SEQUENCE1 | STUDIO_BUILD_TURN;
    CHECK(studio_shown_case("prop_thing", "\"model\" \"models/thing.mdl\"\n\"scale\" \"2\"\n", "models/thing", 0, 2,
                            &(studio_case){ options, 0, 0, 0, masks[0], STUDIO_CONTROLLERS_UNSET }) > 100);
    for (int k = 1; k < CASES; k++)
        CHECK(studio_shown_case("prop_thing", keys, "models/thing", 0, 2,
                                &(studio_case){ options, 1, frames[k], times[k], masks[k], STUDIO_CONTROLLERS_UNSET }) > 100,
              "case %d", k);
    for (int k = 1; k < CASES - 1; k++) {
        int apart = masks_apart(masks[k - 1], masks[k]);
        printf("cases %d and %d: %d pixels well inside one and not the other\n", k - 1, k, apart);
        CHECK(apart > 30, "%d", apart);
    }
    for (int k = 0; k < CASES; k++)
        free(masks[k]);
    return check_failures;
}

/* The 12 triangles of the box [lo, hi] (36 corners, xyz). */
static void box_triangles(const float lo[3], const float hi[3], float *out)
{
    static const int quads[6][4] = { { 0, 1, 3, 2 }, { 4, 5, 7, 6 }, { 0, 1, 5, 4 }, { 2, 3, 7, 6 }, { 0, 2, 6, 4 }, { 1, 3, 7, 5 } };
    static const int halves[2][3] = { { 0, 1, 2 }, { 0, 2, 3 } };
    for (int q = 0; q < 6; q++)
        for (int h = 0; h < 2; h++)
            for (int k = 0; k < 3; k++) {
                int corner = quads[q][halves[h][k]];
                for (int a = 0; a < 3; a++)
                    *out++ = corner & (1 << a) ? hi[a] : lo[a];
            }
}

/* The silhouettes (into mask, into box) of the mesh and of the box of its corners, placed at
 * `place` turned by angles and scaled by 2, seen from eye. */
static void studio_silhouettes(const studio_mesh *mesh, const float place[3], const double angles[3], const double eye[3],
                               uint8_t *mask, uint8_t *box)
{
    float lo[3], hi[3], corners[36 * 3];
    for (int a = 0; a < 3; a++) {
        lo[a] = hi[a] = mesh->positions[a];
        for (size_t c = 1; c < (size_t)mesh->triangle_count * 3; c++) {
            lo[a] = fminf(lo[a], mesh->positions[3 * c + a]);
            hi[a] = fmaxf(hi[a], mesh->positions[3 * c + a]);
        }
    }
    box_triangles(lo, hi, corners);
    const mdl_mesh shapes[2] = { { .triangle_count = mesh->triangle_count, .positions = mesh->positions },
                                 { .triangle_count = 12, .positions = corners } };
    uint8_t *masks[2] = { mask, box };
    for (int k = 0; k < 2; k++) {
        double (*triangles)[3][3] = armour_in_world(&shapes[k], place, angles, 2);
        silhouette((const double (*)[3][3])triangles, shapes[k].triangle_count, eye, masks[k]);
        free(triangles);
    }
}

/* The inspector takes a studio model's box from the pose drawn, blended: prop_thing turned a
 * quarter (its left towards the camera's right) at 0.15 s (the fixture's sequence 1 half way from
 * its frame 1 to 2: bone 1 8 units out, turned 0.5 radian) is named (its frame 1) at a pixel of
 * that pose's silhouette, and not at a pixel inside frame 1's box (12 units, 1 radian: the whole
 * frame the time falls in) but outside the pose's. */
static int test_studio_inspect(void)
{
    const unsigned options = STUDIO_BUILD_EXTERNAL | STUDIO_BUILD_SEQUENCE1 | STUDIO_BUILD_TURN;
    const char *keys = "\"model\" \"models/thing.mdl\"\n\"sequence\" \"1\"\n\"scale\" \"2\"\n\"angles\" \"0 90 0\"\n";
    uint8_t *masks[2] = { malloc(WIDTH * HEIGHT), malloc(WIDTH * HEIGHT) }, *boxes[2] = { malloc(WIDTH * HEIGHT), malloc(WIDTH * HEIGHT) };
    uint8_t *model = NULL, *textures = NULL;
    size_t model_size, textures_size;
    float place[3];
    REQUIRE(masks[0] && masks[1] && boxes[0] && boxes[1]);
    REQUIRE(studio_build(options, &model, &model_size, &textures, &textures_size) && write_game() && test_make_dir("game/models")
            && test_write_file("game/models/thing.mdl", model, model_size)
            && test_write_file("game/models/thingt.mdl", textures, textures_size)
            && compile_map_keys("prop_thing", keys) && entity_place("prop_thing", place));
    const double eye[3] = { place[0], place[1] + 22 * UNIT, place[2] + 48 * UNIT }, frames[2] = { 1.5, 1 }, turned[3] = { 0, 90, 0 };
    for (int k = 0; k < 2; k++) {
        studio_mesh mesh;
        REQUIRE(studio_case_mesh(&(studio_case){ options, 1, frames[k], 0, NULL, STUDIO_CONTROLLERS_UNSET }, model, model_size, textures,
                                 textures_size, 0, &mesh));
        studio_silhouettes(&mesh, place, turned, eye, masks[k], boxes[k]);
        studio_mesh_free(&mesh);
    }
    check_inspected(masks[0], eye, "--time 0.15", "prop_thing", "models/thing.mdl", 1);
    int best = -1, apart = 0;
    for (int i = 0; i < WIDTH * HEIGHT; i++)
        if (boxes[1][i] == 1 && boxes[0][i] == 0) {
            apart++;
            int dx = i % WIDTH - WIDTH / 2, dy = i / WIDTH - HEIGHT / 2, bx = best % WIDTH - WIDTH / 2, by = best / WIDTH - HEIGHT / 2;
            if (best < 0 || dx * dx + dy * dy < bx * bx + by * by)
                best = i;
        }
    printf("pixels inside frame 1's box and outside the blended pose's: %d\n", apart);
    char extra[64], err[1024];
    size_t size;
    snprintf(extra, sizeof extra, "--time 0.15 --inspect %d,%d", best % WIDTH, best / WIDTH);
    char *json = best >= 0 && shoot("inspected.png", eye, extra, err) ? (char *)test_read_file("stdout.txt", &size) : NULL;
    CHECK(json && !strstr(json, "\"model\""), "%s: %s", extra, json ? json : err);
    free(json);
    free(model);
    free(textures);
    for (int k = 0; k < 2; k++) {
        free(masks[k]);
        free(boxes[k]);
    }
    return check_failures;
}

/* A monster without a `sequence` key starts in its idle (MonsterInit's ACT_IDLE): the fixture's
 * sequences both play ACT_IDLE, sequence 1 the heavier, and monster_generic shows sequence 1's
 * frame 0 (its silhouette); a prop of the same model shows sequence 0, its `sequence` key wins
 * over the idle. */
static int test_studio_idle(void)
{
    const char *keys = "\"model\" \"models/thing.mdl\"\n\"scale\" \"2\"\n";
    uint8_t *idle = malloc(WIDTH * HEIGHT), *first = malloc(WIDTH * HEIGHT);
    REQUIRE(idle && first);
    const unsigned options = STUDIO_BUILD_SEQUENCE1 | STUDIO_BUILD_IDLE;
    CHECK(studio_shown_case("monster_generic", keys, "models/thing", 0, 2, &(studio_case){ options, 1, 0, 0, idle, STUDIO_CONTROLLERS_SET }) > 100);
    CHECK(studio_shown_case("prop_thing", keys, "models/thing", 0, 2, &(studio_case){ options, 0, 0, 0, first, STUDIO_CONTROLLERS_UNSET }) > 100);
    CHECK(studio_shown_case("monster_generic", "\"model\" \"models/thing.mdl\"\n\"scale\" \"2\"\n\"sequence\" \"0\"\n", "models/thing", 0, 2,
                            &(studio_case){ options, 0, 0, 0, NULL, STUDIO_CONTROLLERS_SET }) > 100);
    int apart = masks_apart(idle, first);
    printf("idle and sequence 0: %d pixels apart\n", apart);
    CHECK(apart > 30, "%d", apart);
    free(idle);
    free(first);
    return check_failures;
}

/* Bone controller 0 moving bone 1 along its x from -10 to 30 units: a monster's set by
 * InitBoneControllers to the value 0 (-0.118 units), a prop's never set: its start (-10 units);
 * each silhouette the reader's pose of its controllers, the two apart. */
static int test_studio_controllers(void)
{
    const char *keys = "\"model\" \"models/thing.mdl\"\n\"scale\" \"2\"\n";
    uint8_t *set = malloc(WIDTH * HEIGHT), *unset = malloc(WIDTH * HEIGHT);
    REQUIRE(set && unset);
    CHECK(studio_shown_case("monster_generic", keys, "models/thing", 0, 2,
                            &(studio_case){ STUDIO_BUILD_CONTROLLER, 0, 0, 0, set, STUDIO_CONTROLLERS_SET }) > 100);
    CHECK(studio_shown_case("prop_thing", keys, "models/thing", 0, 2,
                            &(studio_case){ STUDIO_BUILD_CONTROLLER, 0, 0, 0, unset, STUDIO_CONTROLLERS_UNSET }) > 100);
    int apart = masks_apart(set, unset);
    printf("controllers set and unset: %d pixels apart\n", apart);
    CHECK(apart > 30, "%d", apart);
    free(set);
    free(unset);
    return check_failures;
}

/* The fixture's sequence 0 kept in its second sequence group's file (models/thing01.mdl): while
 * that file is missing, one warning names it and the bind pose is drawn (its silhouette); once it
 * is there, no warning, and the pose it animates is drawn instead. */
static int test_studio_group(void)
{
    const char *keys = "\"model\" \"models/thing.mdl\"\n\"scale\" \"2\"\n";
    uint8_t *bind = malloc(WIDTH * HEIGHT);
    REQUIRE(bind != NULL);
    CHECK(studio_shown_case("prop_thing", keys, "models/thing", 0, 2, &(studio_case){ STUDIO_BUILD_GROUP1, -1, 0, 0, bind, STUDIO_CONTROLLERS_SET }) > 100);
    float place[3];
    REQUIRE(entity_place("prop_thing", place));
    const double eye[3] = { place[0], place[1] + 22 * UNIT, place[2] + 48 * UNIT };
    char err[1024];
    REQUIRE(shoot("missing.png", eye, "", err));
    const char *warning = strstr(err, "warning: prop_thing: models/thing.mdl: sequence 0: ");
    CHECK(warning && strstr(warning, "thing01.mdl") && strstr(warning, "the bind pose drawn"), "%s", err);
    CHECK(warning && !strstr(strchr(warning, '\n'), "thing01.mdl"), "one warning: %s", err);

    uint8_t *model = NULL, *textures = NULL;
    size_t model_size = 0, textures_size = 0;
    REQUIRE(studio_build(STUDIO_BUILD_EXTERNAL | STUDIO_BUILD_GROUP1, &model, &model_size, &textures, &textures_size));
    memcpy(model, "IDSQ", 4); /* the model's bytes as its group file: the animation at the same offsets */
    REQUIRE(test_write_file("game/models/thing01.mdl", model, model_size));
    free(model);
    free(textures);
    test_image missing, found;
    REQUIRE(shoot("found.png", eye, "", err) && test_image_load(&missing, "missing.png") && test_image_load(&found, "found.png"));
    CHECK(!strstr(err, "thing01.mdl"), "%s", err);
    int moved = 0;
    for (int i = 0; i < WIDTH * HEIGHT; i++)
        moved += bind[i] == 1 && memcmp(missing.rgb + 3 * i, found.rgb + 3 * i, 3) != 0;
    printf("group file found: %d pixels of the bind pose's silhouette changed\n", moved);
    CHECK(moved > 30, "%d", moved);
    test_image_free(&missing);
    test_image_free(&found);
    free(bind);
    return check_failures;
}

/* A studio model named by the entity's `model` key with body groups `body` 1 and twice as large. */
static int test_studio(void)
{
    CHECK(studio_shown("prop_thing", "\"model\" \"models/thing.mdl\"\n\"body\" \"1\"\n\"scale\" \"2\"\n", "models/thing", 1, 2)
          > 100);
    return check_failures;
}

/* The fixture's studio model shot again with render keys: the shot into `out`, true when taken. */
static bool studio_shot_keys(const char *keys, const double eye[3], const char *out)
{
    char err[1024];
    bool ok = compile_map_keys("prop_thing", keys) && shoot(out, eye, "", err);
    CHECK(ok, "cannot compile or shoot with %s: %s", keys, err);
    return ok;
}

/* GoldSrc's render keys on a studio model, as the engine blends models: renderamt 0 hides it;
 * texture (2) at 128 lays half the opaque model over the wall (where two of its layers overlap,
 * half of that again: every blended pixel between the two, most half and half); additive (5) only
 * adds, and at 128 half of what it adds at 255 (where 255 does not clip). Judged over the pixels
 * the opaque model changes. */
static int test_studio_render_modes(void)
{
    REQUIRE(studio_shown("prop_thing", "\"model\" \"models/thing.mdl\"\n", "models/thing", 0, 1) > 50);
    float place[3];
    REQUIRE(entity_place("prop_thing", place));
    const double eye[3] = { place[0], place[1] + 22 * UNIT, place[2] + 48 * UNIT };
    const char *model = "\"model\" \"models/thing.mdl\"\n\"rendermode\" ";
    char keys[4][160];
    const int modes[4] = { 2, 2, 5, 5 }, amounts[4] = { 0, 128, 255, 128 };
    const char *names[4] = { "hidden.png", "half.png", "added.png", "half_added.png" };
    test_image opaque, without, shots[4];
    REQUIRE(test_image_load(&opaque, "with.png") && test_image_load(&without, "without.png"));
    for (int i = 0; i < 4; i++) {
        snprintf(keys[i], sizeof keys[i], "%s\"%d\"\n\"renderamt\" \"%d\"\n", model, modes[i], amounts[i]);
        REQUIRE(studio_shot_keys(keys[i], eye, names[i]) && test_image_load(&shots[i], names[i]));
    }
    CHECK(!memcmp(shots[0].rgb, without.rgb, (size_t)WIDTH * HEIGHT * 3), "renderamt 0 drew the model");
    int covered = 0, half_off = 0, between_off = 0, darker = 0, added = 0, added_off = 0;
    for (int i = 0; i < WIDTH * HEIGHT * 3; i++) {
        int o = opaque.rgb[i], w = without.rgb[i], full = shots[2].rgb[i] - w, half = shots[3].rgb[i] - w;
        if (abs(o - w) < 8)
            continue;
        covered++;
        int blended = shots[1].rgb[i];
        half_off += abs(2 * blended - (o + w)) > 4;  /* src * 128/255 + dst * 127/255 */
        between_off += blended < (o < w ? o : w) - 2 || blended > (o > w ? o : w) + 2;
        darker += full < 0 || half < 0;
        if (full > 8 && shots[2].rgb[i] < 250) {
            added++;
            added_off += abs(2 * half - full) > 4;
        }
    }
    printf("render keys: %d channels covered, %d not half and half (%d not between), %d darkened, %d added (%d not half "
           "at 128)\n", covered, half_off, between_off, darker, added, added_off);
    CHECK(covered > 150);
    CHECK_EQ(between_off, 0);
    CHECK(half_off * 2 <= covered, "%d of %d channels not the alpha blend", half_off, covered);
    CHECK_EQ(darker, 0);
    CHECK(added > 50);
    CHECK(added_off * 100 <= added, "%d of %d channels not half the addition", added_off, added);
    test_image_free(&opaque);
    test_image_free(&without);
    for (int i = 0; i < 4; i++)
        test_image_free(&shots[i]);
    return check_failures;
}

/* Half-Life's classes built in: item_healthkit of a GoldSrc map (Valve 220, Half-Life's game) with
 * no definitions draws models/w_medkit.mdl of the game directory; the same entity of a Quake map
 * draws nothing (Quake's table has no such class). */
static int test_halflife_class(void)
{
    game_name = "Half-Life";
    int inside = studio_shown("item_healthkit", NULL, "models/w_medkit", 0, 1);
    game_name = "Quake";
    CHECK(inside > 50);  /* body 0 is the smaller */
    REQUIRE(compile_map_keys("item_healthkit", NULL));
    float place[3];
    REQUIRE(entity_place("item_healthkit", place));
    const double eye[3] = { place[0], place[1] + 22 * UNIT, place[2] + 48 * UNIT };
    char err[1024];
    test_image with, without;
    REQUIRE(shoot("with.png", eye, "", err) && shoot("without.png", eye, "--no-models", err));
    REQUIRE(test_image_load(&with, "with.png") && test_image_load(&without, "without.png"));
    CHECK(!memcmp(with.rgb, without.rgb, (size_t)WIDTH * HEIGHT * 3), "a Quake map's item_healthkit drew a model");
    test_image_free(&with);
    test_image_free(&without);
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
        { "turned", test_turned },
        { "bad_keys", test_bad_keys },
        { "lit", test_lit },
        { "styled", test_styled },
        { "fgd", test_fgd },
        { "animated", test_animated },
        { "missing_and_broken", test_missing_and_broken },
        { "sprite", test_sprite },
        { "studio", test_studio },
        { "halflife_class", test_halflife_class },
        { "studio_render_modes", test_studio_render_modes },
        { "studio_sequence", test_studio_sequence },
        { "studio_group", test_studio_group },
        { "studio_idle", test_studio_idle },
        { "studio_controllers", test_studio_controllers },
        { "studio_inspect", test_studio_inspect },
        { NULL, NULL },
    };
    return rt_main(3, argv, tests);
}
