/* test_leaks.c - leaks as the games' compilers find them (issue 39 point 3): .map sources built by
 * map_build.h, compiled by the real pmfc, read back with `pmfview info --json`. Each room lies
 * away from the editor's origin, which is in the void (a world rock beyond it puts it in the
 * fill's grid).
 *   group     a room whose east wall is a func_group, with an empty TrenchBroom group and layer
 *             (func_group entities with no brush and no origin): sealed, its outside filled (the
 *             bounds are the room's inside); no func_group among the point entities;
 *   detail    the same room with a func_detail (then a func_detail_wall) east wall in Quake:
 *             qbsp lets the void through detail, so the map leaks at the player start; in a
 *             Half-Life map hlbsp seals with func_detail: sealed;
 *   void      a sealed room, a func_wall and an empty func_group out in the void: sealed (no
 *             brush entity is a fill seed, none is reached);
 *   leak      the room without its east wall, an empty func_group first in the file: the leak
 *             names the player start at its origin, its path runs from outside the walls to it;
 * Usage: test_leaks CASE PMFC PMFVIEW WORKDIR
 *        test_leaks lq MAP: a full-size level imported in the test's process (no bake) compiles
 *        sealed, its outside filled, and no func_group is a point entity. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "common/check.h"
#include "common/programs.h"
#include "common/world.h"
#include "front/editor/editor.h"
#include "map_build.h"

#define S 0.0254                /* metres per unit (conventions §5) */

static const char *pmfc, *pmfview, *workdir;

/* The room's inside (units), away from the origin. */
static const double room_lo[3] = { 512, 512, 0 }, room_hi[3] = { 768, 768, 128 };
static const double start[3] = { 640, 640, 40 };
/* TrenchBroom's keys of an empty group and an empty layer: entities with no brush, no origin */
static const char tb_group[] = "\"_tb_type\" \"_tb_group\"\n\"_tb_name\" \"lights\"\n\"_tb_id\" \"7\"\n";
static const char tb_layer[] = "\"_tb_type\" \"_tb_layer\"\n\"_tb_name\" \"Multiplayer\"\n\"_tb_id\" \"8\"\n";

/* The world's brushes: the room (its east wall when `east`) and a rock out in the void across the
 * editor's origin, so the fill's grid spans the origin, where an entity without origin stands. */
static void world_brushes(map_build *m, bool east)
{
    map_build_room(m, room_lo, room_hi, "brick", east ? MAP_ROOM_ALL : MAP_ROOM_ALL & ~(1u << MAP_ROOM_EAST));
    map_build_box(m, (double[3]){ -256, -256, -64 }, (double[3]){ -192, -192, 0 }, "rock");
}

/* The room of the world's brushes but its east wall, which `east_class` holds (NULL: the world;
 * "": none), with a light and the player start; `game` as TrenchBroom names it. */
static map_build *room_map(const char *game, const char *east_class)
{
    map_build *m = map_build_new(game);
    bool world_east = east_class == NULL;
    world_brushes(m, world_east);
    if (east_class && *east_class) {
        map_build_entity(m, east_class, NULL);
        map_build_room(m, room_lo, room_hi, "brick", 1u << MAP_ROOM_EAST);
    }
    map_build_point(m, "info_player_start", start);
    map_build_point(m, "light", (double[3]){ 640, 640, 100 });
    return m;
}

/* NAME.map written from m (freed), compiled to NAME.pmf: pmfc's exit status, its stderr in *log. */
static int compile(const char *name, map_build *m, char **log)
{
    char source[600], pmf[600], log_path[620];
    snprintf(source, sizeof source, "%s/%s.map", workdir, name);
    snprintf(pmf, sizeof pmf, "%s/%s.pmf", workdir, name);
    snprintf(log_path, sizeof log_path, "%s.log", pmf);
    CHECK(map_build_write_file(m, source));
    map_build_free(m);
    unlink(pmf);
    int st = test_run(NULL, (const char *[]){ pmfc, source, "-o", pmf, "--bounce", "0", "--samples", "1", "--time", "1", NULL },
                      NULL, log_path);
    size_t size;
    *log = (char *)test_read_file(log_path, &size);
    if (!*log) *log = calloc(1, 1);
    return st;
}

static cJSON *info(const char *name)
{
    char pmf[600];
    snprintf(pmf, sizeof pmf, "%s/%s.pmf", workdir, name);
    cJSON *root = test_info_json(pmfview, pmf);
    CHECK(root != NULL, "no info for %s", pmf);
    return root;
}

/* The world point (metres) of an editor point (units): (x, z, -y) x S. */
static void to_world(const double u[3], double w[3])
{
    w[0] = u[0] * S;
    w[1] = u[2] * S;
    w[2] = -u[1] * S;
}

/* Sealed: no leak line, no leak in the map, the outside filled (level 0's bounds are the room's
 * inside: only faces seen from inside are left), no func_group among the point entities. */
static void check_sealed(const char *name, const char *log)
{
    CHECK(strstr(log, "warning: leak") == NULL, "%s leaks: %s", name, log);
    cJSON *root = info(name);
    cJSON *leak = cJSON_GetObjectItem(root, "leak");
    CHECK(cJSON_IsNull(leak), "%s: info has a leak at %s", name, cJSON_GetStringValue(cJSON_GetObjectItem(leak, "entity")));
    cJSON *bounds = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "levels"), 0), "bounds");
    double lo[3], hi[3], worst = 0;
    to_world(room_lo, lo);
    to_world(room_hi, hi);
    for (int a = 0; a < 3; a++) {
        double want_lo = fmin(lo[a], hi[a]), want_hi = fmax(lo[a], hi[a]);
        worst = fmax(worst, fabs(cJSON_GetArrayItem(cJSON_GetObjectItem(bounds, "min"), a)->valuedouble - want_lo));
        worst = fmax(worst, fabs(cJSON_GetArrayItem(cJSON_GetObjectItem(bounds, "max"), a)->valuedouble - want_hi));
    }
    CHECK(worst < 1e-3, "%s: bounds off the room's inside by %.4f m (the outside is not filled)", name, worst);
    cJSON *e;
    int points = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(root, "entities")) {
        const char *cls = cJSON_GetStringValue(cJSON_GetObjectItem(e, "class"));
        CHECK(cls && strcasecmp(cls, "func_group") != 0, "%s: a func_group among the point entities", name);
        points++;
    }
    CHECK_EQ(points, 2);
    printf("%s: sealed, bounds the room's inside (off by %.5f m), %d point entities\n", name, worst, points);
    cJSON_Delete(root);
}

/* Leaks at the player start: one leak line naming it at its origin, and the stored way in from
 * outside the walls to its origin. */
static void check_leaks_at_start(const char *name, const char *log)
{
    static const char want_line[] = "warning: leak: the void reaches info_player_start at 640 640 40\n";
    const char *line = strstr(log, "warning: leak");
    if (!line) {
        CHECK(0, "%s does not leak: %s", name, log);
        return;
    }
    CHECK(!strncmp(line, want_line, strlen(want_line)), "%s: %s", name, line);
    CHECK(strstr(line + 1, "warning: leak") == NULL, "%s: more than one leak line", name);
    cJSON *root = info(name);
    cJSON *leak = cJSON_GetObjectItem(root, "leak");
    const char *entity = cJSON_GetStringValue(cJSON_GetObjectItem(leak, "entity"));
    CHECK(entity && !strcmp(entity, "info_player_start"), "%s: info's leak names %s", name, entity ? entity : "nothing");
    cJSON *points = cJSON_GetObjectItem(leak, "points");
    int n = cJSON_GetArraySize(points);
    CHECK(n >= 2, "%s: %d leak points", name, n);
    double want[3], outer_lo[3], outer_hi[3];
    to_world(start, want);
    double lo_u[3] = { room_lo[0] - MAP_ROOM_WALL, room_lo[1] - MAP_ROOM_WALL, room_lo[2] - MAP_ROOM_WALL };
    double hi_u[3] = { room_hi[0] + MAP_ROOM_WALL, room_hi[1] + MAP_ROOM_WALL, room_hi[2] + MAP_ROOM_WALL };
    to_world(lo_u, outer_lo);
    to_world(hi_u, outer_hi);
    cJSON *first = cJSON_GetArrayItem(points, 0), *last = cJSON_GetArrayItem(points, n - 1);
    bool outside = false;
    for (int a = 0; a < 3 && n >= 2; a++) {
        CHECK_NEAR(cJSON_GetArrayItem(last, a)->valuedouble, want[a], 1e-4);
        double v = cJSON_GetArrayItem(first, a)->valuedouble;
        outside = outside || v < fmin(outer_lo[a], outer_hi[a]) || v > fmax(outer_lo[a], outer_hi[a]);
    }
    CHECK(outside, "%s: the leak path starts inside the walls' box", name);
    printf("%s: %.*s; %d points, from outside the walls to the start's origin\n", name, (int)strcspn(line, "\n"), line, n);
    cJSON_Delete(root);
}

static void test_group(void)
{
    map_build *m = room_map("Quake", "func_group");
    map_build_entity(m, "func_group", tb_group);
    map_build_entity(m, "func_group", tb_layer);
    char *log;
    CHECK_EQ(compile("group", m, &log), 0);
    check_sealed("group", log);
    free(log);
}

static void test_detail(void)
{
    static const char *const classes[] = { "func_detail", "func_detail_wall" };
    char *log;
    for (int i = 0; i < 2; i++) {
        CHECK_EQ(compile(classes[i], room_map("Quake", classes[i]), &log), 0);
        check_leaks_at_start(classes[i], log);
        free(log);
    }
    CHECK_EQ(compile("goldsrc_detail", room_map("Half-Life", "func_detail"), &log), 0);
    check_sealed("goldsrc_detail", log);
    free(log);
}

static void test_void(void)
{
    map_build *m = room_map("Quake", NULL);
    map_build_entity(m, "func_wall", NULL);
    map_build_box(m, (double[3]){ 1024, 1024, 0 }, (double[3]){ 1088, 1088, 64 }, "brick");
    map_build_entity(m, "func_group", tb_group);
    char *log;
    CHECK_EQ(compile("void", m, &log), 0);
    CHECK(strstr(log, "warning: leak") == NULL, "void leaks: %s", log);
    cJSON *root = info("void");
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(root, "leak")), "void: info has a leak");
    printf("void: sealed, the func_wall and the empty func_group out in the void reached by nothing\n");
    cJSON_Delete(root);
    free(log);
}

static void test_leak(void)
{
    map_build *m = map_build_new("Quake");
    world_brushes(m, false);
    map_build_entity(m, "func_group", tb_group);
    map_build_point(m, "info_player_start", start);
    map_build_point(m, "light", (double[3]){ 640, 640, 100 });
    char *log;
    CHECK_EQ(compile("leak", m, &log), 0);
    check_leaks_at_start("leak", log);
    free(log);
}

/* A full-size level imported as pmfc does (map_import), in the test's process: sealed, its
 * outside filled (the level keeps the fill), no func_group a point entity. */
static void test_lq(const char *path)
{
    map_def map;
    map_init(&map);
    CHECK(map_import(path, &(editor_import_desc){ .quiet = true }, &map), "%s does not import", path);
    CHECK(!map.leak, "%s leaks at %s", path, map.leak_class);
    CHECK(map.level_count == 1 && map.levels[0].fill != NULL, "%s: no outside fill", path);
    size_t groups = 0;
    for (size_t i = 0; i < map.entity_count; i++) groups += !strcasecmp(map.entities[i].classname, "func_group");
    CHECK_EQ(groups, 0);
    printf("%s: sealed, outside filled, %zu point entities, none a func_group\n", path, map.entity_count);
    map_free(&map);
}

int main(int argc, char **argv)
{
    static const check_case cases[] = {
        { "group", test_group }, { "detail", test_detail }, { "void", test_void }, { "leak", test_leak }, { NULL, NULL },
    };
    if (argc == 3 && !strcmp(argv[1], "lq")) {
        test_lq(argv[2]);
        return check_report("lq");
    }
    if (argc != 5) {
        fprintf(stderr, "usage: test_leaks CASE PMFC PMFVIEW WORKDIR | test_leaks lq MAP\n");
        return 2;
    }
    pmfc = argv[2];
    pmfview = argv[3];
    workdir = argv[4];
    CHECK(test_make_dir(workdir));
    return check_run_case(cases, argv[1]);
}
