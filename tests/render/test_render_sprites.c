/* test_render_sprites.c - GoldSrc sprites as the engine draws them (docs/models.md): an env_sprite
 * of a GoldSrc map showing a sprite built by tests/fixtures/spr_build.c (a loose file of the game
 * directory), turned to the view plane 24 units in front of the camera at 4 times its size. Each
 * pixel well inside one of its texels is that texel laid over the same pixel of the shot without
 * models as the entity's rendermode blends it (computed here from the fixture's own indices and
 * palette); none well outside changes. Its frames played at its framerate (else 10 a second),
 * wrapping at the last frame as env_sprite does; a group's pictures by their intervals. Each
 * orientation type turned as the engines turn it.
 * Usage: test_render_sprites PMFVIEW TEST PMFC */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "map_build.h"
#include "pmf/pmf_map_info.h"
#include "rt_shot.h"
#include "spr.h"
#include "spr_build.h"

#define WIDTH 240
#define HEIGHT 180
#define UNIT 0.0254                  /* metres per unit: pmfc's default */
#define SCALE 4                      /* the entity's scale: a texel 4 units a side */
#define DISTANCE 24                  /* units from the eye to the sprite */
#define EDGE 0.05                    /* texel places this near a texel's edge are not judged */
#define TOLERANCE 2                  /* an 8-bit channel's rounding through the blend */

static const char *pmfc;
static bool quarter_turned;          /* the sprite turned a quarter (its right the view's up) */
static const char *shown_class = "env_sprite";
static double entity_scale = SCALE;  /* the entity's scale key: SCALE but for a glow (drawn at it times its distance / 200) */

/* A render mode's case: the sprite's texture format, the entity's keys. */
typedef struct blend_case {
    int tex_format, render_mode, amount;
    uint8_t colour[3];
} blend_case;

/* The room (256 x 256 x 160 units inside) of a GoldSrc map, an env_sprite of sprites/test.spr 64
 * units in front of its north wall with more keys; game/sprites/test.spr the sprite. */
static bool compile_sprite_room(const uint8_t *sprite, size_t sprite_size, const char *keys)
{
    map_build *m = map_build_new("Half-Life");
    const double lo[3] = { -128, -128, 0 }, hi[3] = { 128, 128, 160 }, start[3] = { 0, -96, 24 };
    char entity_keys[512];
    snprintf(entity_keys, sizeof entity_keys, "\"origin\" \"0 64 24\"\n\"model\" \"sprites/test.spr\"\n\"scale\" \"%g\"\n%s",
             entity_scale, keys);
    map_build_room(m, lo, hi, "brick", MAP_ROOM_ALL);
    map_build_point(m, "info_player_start", start);
    map_build_entity(m, shown_class, entity_keys);
    bool ok = map_build_write_file(m, "room.map");
    map_build_free(m);
    const char *argv[] = { pmfc, "room.map", "-o", "room.pmf", NULL };
    return ok && test_run(NULL, argv, "pmfc.txt", "pmfc.txt") == 0 && test_make_dir("game") && test_make_dir("game/sprites")
           && test_write_file("game/sprites/test.spr", sprite, sprite_size);
}

static bool sprite_place(float out[3])
{
    return rt_entity_place("room.pmf", shown_class, out);
}

/* The shot with models (at `time`) and without (when `without` is not NULL) from `east` and
 * `south` units off the sprite at its height, turned `yaw` degrees from looking north. */
static bool shoot_from(const float place[3], double east, double south, double yaw, double time, test_image *with,
                       test_image *without)
{
    char args[1024], err[1024];
    const double eye[3] = { place[0] + east * UNIT, place[1], place[2] + south * UNIT };
    for (int k = 0; k < (without ? 2 : 1); k++) {
        snprintf(args, sizeof args, "shot room.pmf -o %s --size %dx%d --fov 90 --camera %.6f,%.6f,%.6f,%g,0 --game game --time %g %s",
                 k ? "without.png" : "with.png", WIDTH, HEIGHT, eye[0], eye[1], eye[2], yaw, time, k ? "--no-models" : "");
        if (rt_run(args, err) != 0) {
            check_fail("cannot shoot: %s", err);
            return false;
        }
    }
    return test_image_load(with, "with.png") && (!without || test_image_load(without, "without.png"));
}

/* The pair from DISTANCE units in front of the sprite. */
static bool shoot_pair(const float place[3], double time, test_image *with, test_image *without)
{
    return shoot_from(place, 0, DISTANCE, 0, time, with, without);
}

/* The texel (x, y) of the fixture's frame as the texture format decodes it: rgb, alpha. */
static void fixture_texel(int tex_format, int frame, int x, int y, uint8_t rgba[4])
{
    uint8_t index = spr_build_index(frame, x, y);
    spr_build_colour(tex_format == SPR_RENDER_INDEX_ALPHA ? 255 : index, rgba);
    rgba[3] = tex_format == SPR_RENDER_INDEX_ALPHA ? index : tex_format == SPR_RENDER_ALPHA_TEST && index == 255 ? 0 : 255;
}

/* What the engine's blend makes of a texel over bg: GL's GL_SRC_ALPHA with GL_ONE_MINUS_SRC_ALPHA
 * (colour, texture, solid) or GL_ONE (glow, additive), normal replacing it; the texel times
 * rendercolor (0 0 0: white), its alpha times renderamt (normal: whole); alpha 0 a hole. */
static void expected_blend(const blend_case *c, const uint8_t texel[4], const uint8_t bg[3], double out[3])
{
    bool tinted = c->colour[0] || c->colour[1] || c->colour[2];
    double a = texel[3] / 255.0 * (c->render_mode ? c->amount / 255.0 : 1.0);
    for (int k = 0; k < 3; k++) {
        double src = fmin(texel[k] / 255.0 * (tinted ? c->colour[k] / 255.0 : 1.0), 1.0), dst = bg[k] / 255.0;
        if (texel[3] == 0)
            out[k] = dst;
        else if (c->render_mode == 0)
            out[k] = src;
        else if (c->render_mode == 3 || c->render_mode == 5)
            out[k] = fmin(dst + src * a, 1.0);
        else
            out[k] = src * a + dst * (1 - a);
        out[k] *= 255;
    }
}

/* Where pixel (x, y) of a shot from DISTANCE units in front of the sprite (SCALE times its size)
 * falls on the fixture's frame, in texels: false when well outside it. *judged: well inside a
 * texel. */
static bool pixel_texel(int x, int y, double *u, double *v, bool *judged)
{
    const double distance = DISTANCE * UNIT;
    double vx = (2.0 * (x + 0.5) / WIDTH - 1.0) * WIDTH / HEIGHT * distance, vy = (1.0 - 2.0 * (y + 0.5) / HEIGHT) * distance;
    double a = quarter_turned ? vy : vx, b = quarter_turned ? -vx : vy;  /* along the sprite's right and up */
    *u = a / UNIT / SCALE + 4;                                           /* the fixture's origin: (-4, 2) */
    *v = 2 - b / UNIT / SCALE;
    *judged = *u >= 0 && *v >= 0 && *u < SPR_BUILD_WIDTH && *v < SPR_BUILD_HEIGHT && fabs(*u - floor(*u + 0.5)) >= EDGE
              && fabs(*v - floor(*v + 0.5)) >= EDGE;
    return !(*u < -0.3 || *v < -0.3 || *u > SPR_BUILD_WIDTH + 0.3 || *v > SPR_BUILD_HEIGHT + 0.3);
}

/* Every pixel well inside a texel of frame `frame` against expected_blend over the shot without
 * models; every pixel well outside unchanged. The pixels judged inside. */
static int check_blend(const blend_case *c, int frame, const test_image *with, const test_image *without)
{
    int judged = 0, wrong = 0, outside_changed = 0;
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) {
            double u, v;
            bool inside;
            const uint8_t *got = with->rgb + 3 * (y * WIDTH + x), *bg = without->rgb + 3 * (y * WIDTH + x);
            if (!pixel_texel(x, y, &u, &v, &inside)) {
                outside_changed += memcmp(got, bg, 3) != 0;
                continue;
            }
            if (!inside)
                continue;
            uint8_t texel[4];
            fixture_texel(c->tex_format, frame, (int)u, (int)v, texel);
            double want[3];
            expected_blend(c, texel, bg, want);
            judged++;
            bool off = false;
            for (int k = 0; k < 3; k++)
                off |= fabs(got[k] - want[k]) > TOLERANCE;
            if (off && wrong++ < 5)
                fprintf(stderr, "  pixel (%d, %d): %u %u %u, expected %.1f %.1f %.1f (texel (%d, %d) %u %u %u a %u over %u %u %u)\n", x, y,
                        got[0], got[1], got[2], want[0], want[1], want[2], (int)u, (int)v, texel[0], texel[1], texel[2], texel[3],
                        bg[0], bg[1], bg[2]);
        }
    printf("frame %d: %d pixels judged, %d not their blend; %d changed outside\n", frame, judged, wrong, outside_changed);
    CHECK_EQ(wrong, 0);
    CHECK_EQ(outside_changed, 0);
    return judged;
}

/* An env_sprite of the case's format and rendermode: its pixels are its blend. */
static int blend_test(const blend_case *c)
{
    uint8_t *sprite;
    size_t size;
    char keys[256];
    snprintf(keys, sizeof keys, "\"rendermode\" \"%d\"\n\"renderamt\" \"%d\"\n\"rendercolor\" \"%u %u %u\"\n", c->render_mode,
             c->amount, c->colour[0], c->colour[1], c->colour[2]);
    REQUIRE(spr_build(2, SPR_TYPE_PARALLEL, c->tex_format, 1, &sprite, &size));
    float place[3];
    bool ok = compile_sprite_room(sprite, size, keys) && sprite_place(place);
    free(sprite);
    REQUIRE(ok, "cannot compile the room");
    char err[1024], want[64];
    size_t json_size;
    char *json = rt_run("info --json room.pmf", err) == 0 ? (char *)test_read_file("stdout.txt", &json_size) : NULL;
    snprintf(want, sizeof want, "\"rendermode\":\t%d,\n\t\t\t\"renderamt\":\t%d,", c->render_mode, c->amount);
    CHECK(json && strstr(json, want), "info --json: %s", json ? json : err);
    free(json);
    test_image with, without;
    REQUIRE(shoot_pair(place, 0, &with, &without));
    CHECK(check_blend(c, 0, &with, &without) > 4000);
    test_image_free(&with);
    test_image_free(&without);
    return check_failures;
}

/* rendermode 0 with an opaque sprite: the texels, renderamt not used. Keys out of range: one
 * warning of pmfc each and the default kept. */
static int test_normal(void)
{
    uint8_t *sprite;
    size_t size, log_size;
    REQUIRE(spr_build(2, SPR_TYPE_PARALLEL, SPR_RENDER_NORMAL, 1, &sprite, &size));
    bool ok = compile_sprite_room(sprite, size, "\"rendermode\" \"9\"\n\"renderamt\" \"-1\"\n\"rendercolor\" \"1 2 300\"\n\"framerate\" \"x\"\n");
    free(sprite);
    char *log = ok ? (char *)test_read_file("pmfc.txt", &log_size) : NULL;
    REQUIRE(log != NULL);
    CHECK(strstr(log, "\"rendermode\" \"9\" is not a whole number in 0..5: 0 kept") != NULL, "%s", log);
    CHECK(strstr(log, "\"renderamt\" \"-1\" is not a whole number in 0..255: 0 kept") != NULL, "%s", log);
    CHECK(strstr(log, "\"rendercolor\" \"1 2 300\" is not three whole numbers in 0..255: 0 0 0 kept") != NULL, "%s", log);
    CHECK(strstr(log, "\"framerate\" \"x\" is not a number in 0..1000") != NULL, "%s", log);
    free(log);
    return blend_test(&(blend_case){ SPR_RENDER_NORMAL, 0, 60, { 0, 0, 0 } });
}

/* rendermode 1 (colour): the texel times rendercolor, blended by renderamt. */
static int test_colour(void)
{
    return blend_test(&(blend_case){ SPR_RENDER_NORMAL, 1, 150, { 255, 128, 64 } });
}

/* rendermode 2 (texture) with an index-alpha sprite: the palette's last colour, its index times
 * renderamt as alpha (index 0 a hole). */
static int test_texture(void)
{
    return blend_test(&(blend_case){ SPR_RENDER_INDEX_ALPHA, 2, 200, { 0, 0, 0 } });
}

/* rendermode 3 (glow) with an additive sprite: added by renderamt (24 units away, unfaded), drawn
 * at its scale times 24 / 200. */
static int test_glow(void)
{
    entity_scale = SCALE * 200.0 / DISTANCE;
    return blend_test(&(blend_case){ SPR_RENDER_ADDITIVE, 3, 160, { 0, 0, 0 } });
}

/* rendermode 4 (solid) with an alpha-tested sprite: index 255 a hole, the rest blended by renderamt. */
static int test_solid(void)
{
    return blend_test(&(blend_case){ SPR_RENDER_ALPHA_TEST, 4, 230, { 0, 0, 0 } });
}

/* rendermode 5 (additive), as env_sprite's glows are placed: added by renderamt, tinted. */
static int test_additive(void)
{
    return blend_test(&(blend_case){ SPR_RENDER_ADDITIVE, 5, 180, { 200, 255, 100 } });
}

/* A sprite of type `type` shown by `shown_class` with more keys: at 0 s, judged (turned a quarter
 * or not) as an opaque sprite's texels; how many pixels, or -1 when none changes. */
static int oriented_case(int type, const char *keys, bool turned)
{
    uint8_t *sprite;
    size_t size;
    if (!spr_build(2, type, SPR_RENDER_NORMAL, 1, &sprite, &size))
        return 0;
    float place[3];
    bool ok = compile_sprite_room(sprite, size, keys) && sprite_place(place);
    free(sprite);
    test_image with, without;
    if (!ok || !shoot_pair(place, 0, &with, &without)) {
        check_fail("cannot compile or shoot the room");
        return 0;
    }
    const blend_case normal = { SPR_RENDER_NORMAL, 0, 255, { 0, 0, 0 } };
    quarter_turned = turned;
    int judged = memcmp(with.rgb, without.rgb, (size_t)WIDTH * HEIGHT * 3) ? check_blend(&normal, 0, &with, &without) : -1;
    quarter_turned = false;
    test_image_free(&with);
    test_image_free(&without);
    return judged;
}

/* Oriented (cycler_sprite): fixed by its angles, yaw 90 facing the camera as a parallel sprite
 * does, yaw 0 edge on (nothing drawn). Parallel oriented (env_sprite): Hammer's yaw 90 taken as
 * the roll, the sprite turned a quarter in the view plane (its right the view's up). Parallel
 * upright and facing upright seen level: as parallel. */
static int test_oriented(void)
{
    shown_class = "cycler_sprite";
    CHECK(oriented_case(SPR_TYPE_ORIENTED, "\"angles\" \"0 90 0\"\n", false) > 4000);
    CHECK_EQ(oriented_case(SPR_TYPE_ORIENTED, "\"angles\" \"0 0 0\"\n", false), -1);
    CHECK(oriented_case(SPR_TYPE_PARALLEL_UPRIGHT, "", false) > 4000);
    CHECK(oriented_case(SPR_TYPE_FACING_UPRIGHT, "", false) > 4000);
    shown_class = "env_sprite";
    CHECK(oriented_case(SPR_TYPE_PARALLEL_ORIENTED, "\"angles\" \"0 90 0\"\n", true) > 4000);
    return check_failures;
}

/* A sprite of `frames` frames (group > 1: two frames, the second a group of that many pictures;
 * group < -1: `frames` frames, the first a group of -group pictures) with more keys: at each time
 * the frame each shows. */
static int frames_at(int frames, int group, const char *keys, const double *times, const int *shown, int count)
{
    uint8_t *sprite;
    size_t size;
    bool built = group > 1    ? spr_build(2, SPR_TYPE_PARALLEL, SPR_RENDER_NORMAL, group, &sprite, &size)
                 : group < -1 ? spr_build_group_first(frames, -group, &sprite, &size)
                              : spr_build_frames(2, SPR_TYPE_PARALLEL, SPR_RENDER_NORMAL, frames, &sprite, &size);
    REQUIRE(built);
    float place[3];
    bool ok = compile_sprite_room(sprite, size, keys) && sprite_place(place);
    free(sprite);
    REQUIRE(ok, "cannot compile the room");
    const blend_case normal = { SPR_RENDER_NORMAL, 0, 255, { 0, 0, 0 } };
    for (int t = 0; t < count; t++) {
        test_image with, without;
        REQUIRE(shoot_pair(place, times[t], &with, &without));
        printf("%.*s at %g s: ", (int)strcspn(keys, "\n"), keys, times[t]);
        CHECK(check_blend(&normal, shown[t], &with, &without) > 4000, "at %g s, frame %d", times[t], shown[t]);
        test_image_free(&with);
        test_image_free(&without);
    }
    return check_failures;
}

/* Four frames at framerate 5: frames 0, 1, 2 and round again (the last never shown: env_sprite
 * wraps its frame at the last); no framerate: 10 a second; framerate 0: still. A group (frame 1
 * of pictures ending at 0.1, 0.2, 0.3 s): its pictures by their intervals, round again. Four
 * frames at framerate 5 whose frame 0 is a group of pictures ending at 0.1 and 0.2 s ("frames" 4
 * and 5): its second picture after its first's interval, each time frame 0 comes round. */
static int test_frames(void)
{
    const double rated[4] = { 0, 0.25, 0.45, 0.65 }, plain[2] = { 0.15, 0.25 }, group[3] = { 0.05, 0.15, 0.35 };
    const int rated_shown[4] = { 0, 1, 2, 0 }, plain_shown[2] = { 1, 2 }, still[2] = { 0, 0 }, group_shown[3] = { 1, 2, 1 };
    const double played_group[5] = { 0, 0.15, 0.25, 0.65, 0.75 };
    const int played_group_shown[5] = { 4, 5, 1, 4, 5 };
    frames_at(4, -2, "\"framerate\" \"5\"\n", played_group, played_group_shown, 5);
    frames_at(4, 1, "\"framerate\" \"5\"\n", rated, rated_shown, 4);
    frames_at(4, 1, "", plain, plain_shown, 2);
    frames_at(4, 1, "\"framerate\" \"0\"\n", plain, still, 2);
    frames_at(2, 3, "\"frame\" \"1\"\n", group, group_shown, 3);
    return check_failures;
}

static const char *lit_amount = "\"renderamt\" \"255\"\n";  /* the env_sprite's renderamt key (or none) */

/* A GoldSrc room as compile_sprite_room's lit by a light (`_light` keys) 56 units over the floor
 * between an env_sprite of an alpha-test sprite (sprites/lit.spr, rendermode 0, lit_amount) 40 units west
 * and a cycler_sprite of an additive one (sprites/add.spr, rendermode 5, renderamt 255) 40 east,
 * both 64 units north of the middle, 24 over the floor; an env_glow of the alpha-test sprite in
 * rendermode 4 at renderamt 127 between them, 100 over the floor. */
static bool compile_lit_room(const char *light_keys)
{
    uint8_t *lit = NULL, *add = NULL;
    size_t lit_size, add_size;
    bool ok = spr_build(2, SPR_TYPE_PARALLEL, SPR_RENDER_ALPHA_TEST, 1, &lit, &lit_size)
              && spr_build(2, SPR_TYPE_PARALLEL, SPR_RENDER_ADDITIVE, 1, &add, &add_size);
    map_build *m = map_build_new("Half-Life");
    const double lo[3] = { -128, -128, 0 }, hi[3] = { 128, 128, 160 }, start[3] = { 0, -96, 24 };
    char keys[512];
    map_build_room(m, lo, hi, "brick", MAP_ROOM_ALL);
    map_build_point(m, "info_player_start", start);
    map_build_entity(m, "light", light_keys);
    map_build_keys(m, "\"origin\" \"0 64 80\"\n");
    snprintf(keys, sizeof keys, "\"origin\" \"-40 64 24\"\n\"model\" \"sprites/lit.spr\"\n\"scale\" \"%d\"\n%s", SCALE, lit_amount);
    map_build_entity(m, "env_sprite", keys);
    snprintf(keys, sizeof keys, "\"origin\" \"40 64 24\"\n\"model\" \"sprites/add.spr\"\n\"scale\" \"%d\"\n\"rendermode\" \"5\"\n"
             "\"renderamt\" \"255\"\n", SCALE);
    map_build_entity(m, "cycler_sprite", keys);
    snprintf(keys, sizeof keys, "\"origin\" \"0 64 100\"\n\"model\" \"sprites/lit.spr\"\n\"scale\" \"%d\"\n\"rendermode\" \"4\"\n"
             "\"renderamt\" \"127\"\n", SCALE);
    map_build_entity(m, "env_glow", keys);
    ok = ok && map_build_write_file(m, "room.map");
    map_build_free(m);
    const char *argv[] = { pmfc, "room.map", "-o", "room.pmf", NULL };
    ok = ok && test_run(NULL, argv, "pmfc.txt", "pmfc.txt") == 0 && test_make_dir("game") && test_make_dir("game/sprites")
         && test_write_file("game/sprites/lit.spr", lit, lit_size) && test_write_file("game/sprites/add.spr", add, add_size);
    free(lit);
    free(add);
    return ok;
}

/* The median, over the pixels well inside the alpha-test sprite's texels (frame 0) and their
 * channels of at least 64, of the pixel over the texel. */
static double lit_ratio(const test_image *with)
{
    static double ratios[WIDTH * HEIGHT * 3];
    size_t n = 0;
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) {
            double u, v;
            bool inside;
            uint8_t texel[4];
            if (!pixel_texel(x, y, &u, &v, &inside) || !inside)
                continue;
            fixture_texel(SPR_RENDER_ALPHA_TEST, 0, (int)u, (int)v, texel);
            for (int k = 0; k < 3 && texel[3]; k++)
                if (texel[k] >= 64)
                    ratios[n++] = with->rgb[3 * (y * WIDTH + x) + k] / (double)texel[k];
        }
    qsort(ratios, n, sizeof *ratios, rt_compare_doubles);
    CHECK(n > 3000, "%zu channels compared", n);
    return n ? ratios[n / 2] : 0;
}

/* The room lit by light_keys: the alpha-test sprite's pixels over its texels (the light it takes)
 * into *ratio, the floor's light under it into *floor; the additive sprite and the one at
 * renderamt 127 exactly their blends, as bright as without a light. */
static void lit_room(const char *light_keys, double *ratio, double *floor)
{
    float lit_place[3], add_place[3], faint_place[3];
    *ratio = *floor = 0;
    if (!compile_lit_room(light_keys) || !rt_entity_place("room.pmf", "env_sprite", lit_place)
        || !rt_entity_place("room.pmf", "cycler_sprite", add_place) || !rt_entity_place("room.pmf", "env_glow", faint_place)) {
        check_fail("cannot compile the room");
        return;
    }
    test_image with, without;
    if (shoot_pair(lit_place, 0, &with, NULL)) {
        *ratio = lit_ratio(&with);
        test_image_free(&with);
    }
    *floor = rt_floor_light(lit_place, "");
    const blend_case unlit[2] = { { SPR_RENDER_ADDITIVE, 5, 255, { 0, 0, 0 } }, { SPR_RENDER_ALPHA_TEST, 4, 127, { 0, 0, 0 } } };
    const float *unlit_places[2] = { add_place, faint_place };
    for (int k = 0; k < 2; k++)
        if (shoot_pair(unlit_places[k], 0, &with, &without)) {
            CHECK(check_blend(&unlit[k], 0, &with, &without) > 4000);
            test_image_free(&with);
            test_image_free(&without);
        }
}

/* An alpha-test sprite in rendermode 0 takes the level's light where it stands (Xash3D's
 * R_SpriteHasLightmap): in a bright and a dim room its pixels are its texels times the floor's
 * light under it; an additive sprite beside it, and an alpha-test one at renderamt 127, stay
 * fullbright in both. */
static int test_lit(void)
{
    double bright, bright_floor, dim, dim_floor;
    lit_room("\"_light\" \"255 255 255 150\"\n", &bright, &bright_floor);
    lit_room("\"_light\" \"255 255 255 60\"\n", &dim, &dim_floor);
    printf("lit sprite over its texels: %.3f (floor %.3f), dim room %.3f (floor %.3f)\n", bright, bright_floor, dim, dim_floor);
    CHECK(bright_floor > 0.4 && bright_floor < 0.95 && dim_floor < bright_floor * 0.8, "%g %g", bright_floor, dim_floor);
    CHECK_NEAR(bright, bright_floor, 0.05 * bright_floor);
    CHECK_NEAR(dim, dim_floor, 0.05 * dim_floor);
    return check_failures;
}

/* A GoldSrc hall (256 x 448 x 160 units inside) with an env_glow of an additive sprite
 * (sprites/test.spr, rendermode 3, renderamt 120, scale 16) 64 units before its north wall, 80
 * over the floor, a wall from the east side 104 units long, 8 thick, 112 to 120 units south of
 * the glow, and the same of glass from the west side (a func_wall of rendermode 2). */
static bool compile_glow_hall(const char *glass_keys)
{
    uint8_t *sprite;
    size_t size;
    if (!spr_build(2, SPR_TYPE_PARALLEL, SPR_RENDER_ADDITIVE, 1, &sprite, &size))
        return false;
    map_build *m = map_build_new("Half-Life");
    const double lo[3] = { -128, -320, 0 }, hi[3] = { 128, 128, 160 }, start[3] = { 0, -96, 24 };
    const double wall_lo[3] = { 24, -56, 0 }, wall_hi[3] = { 128, -48, 160 };
    map_build_room(m, lo, hi, "brick", MAP_ROOM_ALL);
    const double glass_lo[3] = { -128, -56, 0 }, glass_hi[3] = { -24, -48, 160 };
    map_build_box(m, wall_lo, wall_hi, "brick");
    map_build_point(m, "info_player_start", start);
    map_build_entity(m, "func_wall", glass_keys);
    map_build_box(m, glass_lo, glass_hi, "brick");
    map_build_entity(m, "env_glow", "\"origin\" \"0 64 80\"\n\"model\" \"sprites/test.spr\"\n\"scale\" \"16\"\n"
                                   "\"rendermode\" \"3\"\n\"renderamt\" \"120\"\n");
    bool ok = map_build_write_file(m, "room.map");
    map_build_free(m);
    const char *argv[] = { pmfc, "room.map", "-o", "room.pmf", NULL };
    ok = ok && test_run(NULL, argv, "pmfc.txt", "pmfc.txt") == 0 && test_make_dir("game") && test_make_dir("game/sprites")
         && test_write_file("game/sprites/test.spr", sprite, size);
    free(sprite);
    return ok;
}

/* The pixels the glow changes seen from east and south units off it, turned yaw degrees. With
 * added (not NULL): each pixel's most added channel, -1 where one is at the top (clamped). */
static int glow_pixels(const float place[3], double east, double south, double yaw, int *added)
{
    test_image with, without;
    if (!shoot_from(place, east, south, yaw, 0, &with, &without)) {
        check_fail("cannot shoot the glow");
        return -1;
    }
    int changed = 0;
    for (int i = 0; i < WIDTH * HEIGHT; i++) {
        int most = 0, top = 0;
        for (int k = 0; k < 3; k++) {
            int a = with.rgb[3 * i + k] - without.rgb[3 * i + k];
            most = a > most ? a : most;
            top |= with.rgb[3 * i + k] >= 254;
        }
        changed += memcmp(with.rgb + 3 * i, without.rgb + 3 * i, 3) != 0;
        if (added)
            added[i] = top ? -1 : most;
    }
    test_image_free(&with);
    test_image_free(&without);
    return changed;
}

/* A glow seen from 100 and 250 units: drawn at its scale times distance / 200, it covers as many
 * pixels at both; faded by 19000 / distance² (held to 1 at 100 units), what it adds at 250 units
 * is 0.304 of what it adds at 100 (the median over the pixels it adds 40 or more to at 100). */
static int test_glow_distance(void)
{
    float place[3];
    REQUIRE(compile_glow_hall("\"rendermode\" \"2\"\n\"renderamt\" \"128\"\n") && rt_entity_place("room.pmf", "env_glow", place));
    static int added_close[WIDTH * HEIGHT], added_away[WIDTH * HEIGHT];  /* not near, far: Windows' macros */
    static double ratios[WIDTH * HEIGHT];
    int near_count = glow_pixels(place, 0, 100, 0, added_close), far_count = glow_pixels(place, 0, 250, 0, added_away);
    size_t n = 0;
    for (int i = 0; i < WIDTH * HEIGHT; i++)
        if (added_close[i] >= 40 && added_away[i] >= 0)
            ratios[n++] = added_away[i] / (double)added_close[i];
    qsort(ratios, n, sizeof *ratios, rt_compare_doubles);
    double fade = n ? ratios[n / 2] : 0;
    printf("glow at 100 units: %d pixels, at 250: %d; added at 250 over 100: %.3f (%zu pixels)\n", near_count, far_count, fade, n);
    CHECK(near_count > 1200 && abs(far_count - near_count) < near_count / 50, "%d %d", near_count, far_count);
    CHECK(n > 600, "%zu", n);
    CHECK_NEAR(fade, 19000.0 / (250 * 250), 0.01);
    return check_failures;
}

/* A glow behind the wall (seen from 64 units east and 214 south: the wall stops the trace 125
 * units short) draws nothing; behind the glass (64 west) it is drawn, the trace passing through
 * glass; one whose centre is just off the frame (turned 55 degrees, the frame's half width 53.1)
 * draws nothing, while its quad would reach 40 pixels into it; turned 50 degrees it is drawn. */
static int test_glow_hidden(void)
{
    float place[3];
    REQUIRE(compile_glow_hall("\"rendermode\" \"2\"\n\"renderamt\" \"128\"\n") && rt_entity_place("room.pmf", "env_glow", place));
    int behind = glow_pixels(place, 64, 214, 0, NULL), glass = glow_pixels(place, -64, 214, 0, NULL);
    int off = glow_pixels(place, 0, 100, 55, NULL), edge = glow_pixels(place, 0, 100, 50, NULL);
    printf("glow behind the wall: %d pixels; behind the glass: %d; centre off the frame: %d; just inside it: %d\n", behind, glass,
           off, edge);
    CHECK_EQ(behind, 0);
    CHECK(glass > 600, "%d", glass);
    CHECK_EQ(off, 0);
    CHECK(edge > 600, "%d", edge);
    return check_failures;
}

/* renderamt not given is 0, as the game's entity has it: an env_sprite in rendermode 5 without it
 * changes no pixel; the lit room's alpha-test env_sprite in rendermode 0 without it stays
 * fullbright (Xash3D's R_SpriteHasLightmap wants renderamt over 127): its pixels its texels; the
 * hall's glass (a func_wall of rendermode 2) without it is drawn as with renderamt 0, unseen. */
static int test_no_amount(void)
{
    uint8_t *sprite;
    size_t size;
    float place[3];
    test_image with, without;
    REQUIRE(spr_build(2, SPR_TYPE_PARALLEL, SPR_RENDER_ADDITIVE, 1, &sprite, &size));
    bool ok = compile_sprite_room(sprite, size, "\"rendermode\" \"5\"\n");
    free(sprite);
    REQUIRE(ok && rt_entity_place("room.pmf", "env_sprite", place) && shoot_pair(place, 0, &with, &without));
    CHECK(!memcmp(with.rgb, without.rgb, (size_t)WIDTH * HEIGHT * 3), "an additive sprite without renderamt drew");
    test_image_free(&with);
    test_image_free(&without);

    lit_amount = "";
    ok = compile_lit_room("\"_light\" \"255 255 255 150\"\n") && rt_entity_place("room.pmf", "env_sprite", place);
    lit_amount = "\"renderamt\" \"255\"\n";
    REQUIRE(ok && shoot_pair(place, 0, &with, &without));
    int shown = check_blend(&(blend_case){ SPR_RENDER_ALPHA_TEST, 0, 0, { 0, 0, 0 } }, 0, &with, &without);
    printf("the alpha-test sprite without renderamt in the lit room: %d pixels its texels\n", shown);
    CHECK(shown > 4000, "%d", shown);
    test_image_free(&with);
    test_image_free(&without);

    test_image glass[2];
    const char *glass_keys[2] = { "\"rendermode\" \"2\"\n", "\"rendermode\" \"2\"\n\"renderamt\" \"0\"\n" };
    for (int k = 0; k < 2; k++) {
        REQUIRE(compile_glow_hall(glass_keys[k]) && rt_entity_place("room.pmf", "env_glow", place));
        REQUIRE(shoot_from(place, -64, 214, 0, 0, &glass[k], NULL));
    }
    CHECK(!memcmp(glass[0].rgb, glass[1].rgb, (size_t)WIDTH * HEIGHT * 3), "the glass without renderamt is not the glass at 0");
    test_image_free(&glass[0]);
    test_image_free(&glass[1]);
    return check_failures;
}

/* The inspector at the picture's middle (the sprite's) from DISTANCE units in front of it: its
 * JSON, NULL when the shot fails. */
static char *inspected_middle(const float place[3])
{
    char args[1024], err[1024];
    size_t size;
    snprintf(args, sizeof args, "shot room.pmf -o inspected.png --size %dx%d --fov 90 --camera %.6f,%.6f,%.6f,0,0 --game game "
             "--inspect %d,%d", WIDTH, HEIGHT, place[0], place[1], place[2] + DISTANCE * UNIT, WIDTH / 2, HEIGHT / 2);
    char *json = rt_run(args, err) == 0 ? (char *)test_read_file("stdout.txt", &size) : NULL;
    CHECK(json != NULL, "%s", err);
    return json;
}

/* The inspector names a glow it shows (renderamt 160, the sprite before the wall at the picture's
 * middle), not one the frame did not show (renderamt 0: GoldSrc skips it). */
static int test_inspect_hidden(void)
{
    uint8_t *sprite;
    size_t size;
    float place[3];
    const int amounts[2] = { 160, 0 };
    entity_scale = SCALE * 200.0 / DISTANCE;
    REQUIRE(spr_build(2, SPR_TYPE_PARALLEL, SPR_RENDER_ADDITIVE, 1, &sprite, &size));
    for (int k = 0; k < 2; k++) {
        char keys[128];
        snprintf(keys, sizeof keys, "\"rendermode\" \"3\"\n\"renderamt\" \"%d\"\n", amounts[k]);
        REQUIRE(compile_sprite_room(sprite, size, keys) && sprite_place(place));
        char *json = inspected_middle(place);
        bool named = json && strstr(json, "\"model\"") && strstr(json, "\"file\":\t\"sprites/test.spr\"");
        CHECK(named == (amounts[k] > 0), "renderamt %d: %s", amounts[k], json ? json : "(none)");
        free(json);
    }
    free(sprite);
    return check_failures;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s PMFVIEW TEST PMFC\n", argv[0]);
        return 2;
    }
    pmfc = argv[3];
    static const rt_test tests[] = {
        { "normal", test_normal },
        { "colour", test_colour },
        { "texture", test_texture },
        { "glow", test_glow },
        { "solid", test_solid },
        { "additive", test_additive },
        { "frames", test_frames },
        { "oriented", test_oriented },
        { "lit", test_lit },
        { "glow_distance", test_glow_distance },
        { "glow_hidden", test_glow_hidden },
        { "no_amount", test_no_amount },
        { "inspect_hidden", test_inspect_hidden },
        { NULL, NULL },
    };
    return rt_main(3, argv, tests);
}
