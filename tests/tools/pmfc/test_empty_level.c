/* test_empty_level.c - never an empty map without a word (issue 33): RMF and .map sources written
 * by the test, compiled by the real pmfc, read back with `pmfview info --json`.
 *   - a sealed room whose only entity stands inside a solid brush: "no entities in empty space --
 *     no filling performed", every face kept (exit 0), as qbsp and hlbsp do; the same room with the
 *     entity in the room loses its outside (the fill still runs);
 *   - a leaky map whose one entity stands in a cell the fill counts as solid (on a floor): the
 *     leak is found, every face kept;
 *   - a map of tool-textured brushes only, one whose brushes are all in a hidden visgroup, and one
 *     whose outside fill takes every drawn face: exit 2, one line naming where the faces went,
 *     with their counts, and no output file.
 * Usage: test_empty_level PMFC PMFVIEW WORKDIR */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "common/check.h"
#include "common/programs.h"
#include "rmf_build.h"
#include "wad_build.h"

#define S 0.0254                /* metres per unit (conventions §5) */

static const char *pmfc, *pmfview, *workdir;
static char wad_path[600];

static void path_of(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s/%s", workdir, name);
}

static void write_wad(void)
{
    wad_build *w = wad_build_create();
    uint8_t rgba[16 * 16 * 4];
    for (int i = 0; i < 16 * 16; i++) {
        rgba[i * 4] = rgba[i * 4 + 1] = rgba[i * 4 + 2] = 200;
        rgba[i * 4 + 3] = 255;
    }
    CHECK(wad_build_add_rgba(w, "WHITE", 16, 16, rgba));
    path_of(wad_path, sizeof wad_path, "empty.wad");
    CHECK(wad_build_write_file(w, wad_path));
    wad_build_destroy(w);
}

static rmf_build *new_map(void)
{
    static rmf_kv kv[1];
    kv[0] = (rmf_kv){ "wad", wad_path };
    rmf_build_desc d = { .world = { .classname = "worldspawn", .kv = kv, .kv_count = 1 } };
    return rmf_build_new(&d);
}

static void box(rmf_build *b, float x0, float y0, float z0, float x1, float y1, float z1, const char *tex,
                const rmf_build_object *object)
{
    rmf_face faces[6];
    float verts[24][3];
    rmf_build_box_faces((float[3]){ x0, y0, z0 }, (float[3]){ x1, y1, z1 }, tex, faces, verts);
    rmf_build_solid(b, faces, 6, object);
}

/* A closed room of 16-unit walls around the inside box [lo, hi]: six solids, 36 faces. */
static void room(rmf_build *b, const float lo[3], const float hi[3], const char *tex, const rmf_build_object *object)
{
    float t = 16;
    box(b, lo[0] - t, lo[1] - t, lo[2] - t, hi[0] + t, hi[1] + t, lo[2], tex, object);
    box(b, lo[0] - t, lo[1] - t, hi[2], hi[0] + t, hi[1] + t, hi[2] + t, tex, object);
    box(b, lo[0] - t, lo[1] - t, lo[2], lo[0], hi[1] + t, hi[2], tex, object);
    box(b, hi[0], lo[1] - t, lo[2], hi[0] + t, hi[1] + t, hi[2], tex, object);
    box(b, lo[0], lo[1] - t, lo[2], hi[0], lo[1], hi[2], tex, object);
    box(b, lo[0], hi[1], lo[2], hi[0], hi[1] + t, hi[2], tex, object);
}

static void spawn(rmf_build *b, float x, float y, float z)
{
    rmf_build_point_entity(b, &(rmf_entity){ .classname = "info_player_start", .origin = { x, y, z } }, NULL);
}

/* `pmfc SOURCE -o SOURCE.pmf --quiet --bounce 0`: the exit status; its stderr in *log (malloc'd). */
static int compile(const char *source, char **log)
{
    char pmf[700], log_path[720];
    snprintf(pmf, sizeof pmf, "%s.pmf", source);
    snprintf(log_path, sizeof log_path, "%s.log", pmf);
    unlink(pmf);
    int st = test_run(NULL, (const char *[]){ pmfc, source, "-o", pmf, "--quiet", "--bounce", "0", "--samples", "1",
                                              "--time", "1", NULL }, NULL, log_path);
    size_t size;
    *log = (char *)test_read_file(log_path, &size);
    if (!*log) *log = calloc(1, 1);
    return st;
}

/* Level 0 of SOURCE.pmf: its vertices and world bounds (metres). */
static bool level_info(const char *source, int *vertices, double lo[3], double hi[3])
{
    char pmf[700];
    snprintf(pmf, sizeof pmf, "%s.pmf", source);
    cJSON *root = test_info_json(pmfview, pmf);
    if (!root) return false;
    cJSON *level = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "levels"), 0);
    cJSON *bounds = cJSON_GetObjectItem(level, "bounds");
    cJSON *bmin = cJSON_GetObjectItem(bounds, "min"), *bmax = cJSON_GetObjectItem(bounds, "max");
    bool ok = cJSON_GetArraySize(bmin) == 3 && cJSON_GetArraySize(bmax) == 3;
    if (ok) {
        *vertices = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(level, "vertices"));
        for (int a = 0; a < 3; a++) {
            lo[a] = cJSON_GetArrayItem(bmin, a)->valuedouble;
            hi[a] = cJSON_GetArrayItem(bmax, a)->valuedouble;
        }
    }
    cJSON_Delete(root);
    return ok;
}

/* The world box (x, z, -y) x S of the editor box [lo, hi]. */
static void world_box(const float lo[3], const float hi[3], double wlo[3], double whi[3])
{
    wlo[0] = lo[0] * S; whi[0] = hi[0] * S;
    wlo[1] = lo[2] * S; whi[1] = hi[2] * S;
    wlo[2] = -hi[1] * S; whi[2] = -lo[1] * S;
}

static double box_error(const double lo[3], const double hi[3], const double elo[3], const double ehi[3])
{
    double worst = 0;
    for (int a = 0; a < 3; a++) worst = fmax(worst, fmax(fabs(lo[a] - elo[a]), fabs(hi[a] - ehi[a])));
    return worst;
}

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* A refused compile: exit 2, one line on stderr (--quiet) holding each of `says`, no output. */
static void check_refused(const char *source, const char *const *says, int say_count)
{
    char *log;
    int st = compile(source, &log);
    CHECK_EQ(st, 2);
    int lines = 0;
    for (const char *p = log; *p; p++) lines += *p == '\n';
    CHECK_EQ(lines, 1);
    CHECK(!strncmp(log, "pmfc: ", 6), "stderr: %s", log);
    for (int i = 0; i < say_count; i++) CHECK(strstr(log, says[i]) != NULL, "'%s' not in: %s", says[i], log);
    char pmf[700];
    snprintf(pmf, sizeof pmf, "%s.pmf", source);
    CHECK(!file_exists(pmf));
    printf("%s: exit %d: %s", strrchr(source, '/') + 1, st, log);
    free(log);
}

/* ---- (a) and (d): the outside fill -------------------------------------------------------- */

static const float room_lo[3] = { -128, -128, 0 }, room_hi[3] = { 128, 128, 128 };
static const float outer_lo[3] = { -144, -144, -16 }, outer_hi[3] = { 144, 144, 144 };

/* The room with a pillar in it; the spawn inside the pillar or standing in the room. */
static void write_room(const char *name, bool spawn_in_pillar, char *path, size_t size)
{
    rmf_build *b = new_map();
    room(b, room_lo, room_hi, "WHITE", NULL);
    box(b, -16, -16, 0, 16, 16, 128, "WHITE", NULL);
    if (spawn_in_pillar) spawn(b, 0, 0, 36);
    else spawn(b, 64, 64, 36);
    path_of(path, size, name);
    CHECK(rmf_build_write_file(b, path));
}

static void test_spawn_in_solid(void)
{
    char inside[600], in_solid[600];
    write_room("spawn_in_room.rmf", false, inside, sizeof inside);
    write_room("spawn_in_pillar.rmf", true, in_solid, sizeof in_solid);
    int v_inside = 0, v_solid = 0;
    double lo[3], hi[3], elo[3], ehi[3];

    /* sealed, the spawn in the room: the fill runs, the outside goes (the bounds are the room's
     * inside), as before */
    char *log;
    CHECK_EQ(compile(inside, &log), 0);
    CHECK(strstr(log, "no entities in empty space") == NULL, "stderr: %s", log);
    free(log);
    if (level_info(inside, &v_inside, lo, hi)) {
        world_box(room_lo, room_hi, elo, ehi);
        printf("spawn in the room: %d vertices, bounds off the inside by %.4f m\n", v_inside, box_error(lo, hi, elo, ehi));
        CHECK(box_error(lo, hi, elo, ehi) < 1e-3);
    } else {
        CHECK(0, "no info for %s", inside);
    }

    /* the only entity inside the pillar: no fill, one warning, every face kept (the bounds are
     * the walls' outside) */
    CHECK_EQ(compile(in_solid, &log), 0);
    CHECK(strstr(log, "pmfc: warning: no entities in empty space -- no filling performed") != NULL, "stderr: %s", log);
    int warnings = 0;
    for (const char *p = log; (p = strstr(p, "no entities in empty space")); p++) warnings++;
    CHECK_EQ(warnings, 1);
    free(log);
    if (level_info(in_solid, &v_solid, lo, hi)) {
        world_box(outer_lo, outer_hi, elo, ehi);
        printf("spawn in the pillar: %d vertices, bounds off the walls' outside by %.4f m\n", v_solid, box_error(lo, hi, elo, ehi));
        CHECK(box_error(lo, hi, elo, ehi) < 1e-3);
    } else {
        CHECK(0, "no info for %s", in_solid);
    }
    CHECK(v_solid > v_inside);
}

/* An open floor (its top off the fill's 8-unit grid, so the cells over it are solid: a brush
 * touches them) and a closed pocket of NULL brushes (solid, not drawn). */
static void write_floor_and_pocket(const char *name, const float spawn_at[3], char *path, size_t size)
{
    rmf_build *b = new_map();
    box(b, -256, -256, -16, 256, 256, 4, "WHITE", NULL);
    float plo[3] = { 128, 128, 64 }, phi[3] = { 192, 192, 128 };
    room(b, plo, phi, "NULL", NULL);                          /* 36 NULL faces around an empty pocket */
    spawn(b, spawn_at[0], spawn_at[1], spawn_at[2]);
    path_of(path, size, name);
    CHECK(rmf_build_write_file(b, path));
}

/* The spawn standing on the floor, in a solid cell: the fill saw no leak, found the pocket inside
 * and took every drawn face (issue 33). Its space is found beside its cell: the void reaches it, a
 * leak, every face kept. */
static void test_leak_from_a_solid_cell(void)
{
    char path[600];
    write_floor_and_pocket("floor_leaks.rmf", (float[3]){ 0, 0, 4 }, path, sizeof path);
    char *log;
    CHECK_EQ(compile(path, &log), 0);
    free(log);
    char pmf[700];
    snprintf(pmf, sizeof pmf, "%s.pmf", path);
    cJSON *root = test_info_json(pmfview, pmf);
    CHECK(root != NULL);
    cJSON *leak = cJSON_GetObjectItem(root, "leak");
    CHECK(cJSON_IsObject(leak));
    const char *entity = cJSON_GetStringValue(cJSON_GetObjectItem(leak, "entity"));
    CHECK(entity && !strcmp(entity, "info_player_start"));
    cJSON_Delete(root);
    int vertices = 0;
    double lo[3], hi[3], elo[3], ehi[3];
    if (level_info(path, &vertices, lo, hi)) {
        world_box((float[3]){ -256, -256, -16 }, (float[3]){ 256, 256, 4 }, elo, ehi);
        printf("floor that leaks: %d vertices, bounds off the floor's by %.4f m\n", vertices, box_error(lo, hi, elo, ehi));
        CHECK(box_error(lo, hi, elo, ehi) < 1e-3);
    } else {
        CHECK(0, "no info for %s", path);
    }
}

/* The spawn inside the pocket: the fill is right (only the void sees the floor), and nothing
 * drawn is left. Exit 2 naming the fill, and the NULL faces as tool textures. */
static void test_fill_takes_everything(void)
{
    char path[600];
    write_floor_and_pocket("fill_takes_all.rmf", (float[3]){ 160, 160, 80 }, path, sizeof path);
    static const char *const says[] = { "level 'world' has no geometry left of the source's 42 faces",
                                        "6 pieces removed by the outside fill", "36 tool textures" };
    check_refused(path, says, 3);
}

/* ---- (b) and (c): nothing drawn ---------------------------------------------------------------- */

static void test_tool_textures_only(void)
{
    rmf_build *b = new_map();
    box(b, -64, -64, -16, 64, 64, 0, "CLIP", NULL);
    box(b, -64, -64, 0, -48, 64, 64, "ORIGIN", NULL);
    box(b, -16, -16, 16, 16, 16, 48, "AAATRIGGER", NULL);
    rmf_build_begin_brush_entity(b, &(rmf_entity){ .classname = "trigger_multiple" }, NULL);
    box(b, 16, 16, 16, 48, 48, 48, "WHITE", NULL);
    rmf_build_end(b);
    spawn(b, 0, 0, 8);
    char path[600];
    path_of(path, sizeof path, "tools_only.rmf");
    CHECK(rmf_build_write_file(b, path));
    static const char *const says[] = { "the source's 24 faces", "18 tool textures (clip, trigger, origin",
                                        "6 in volume entities" };
    check_refused(path, says, 3);
}

static void test_hidden_visgroup_only(void)
{
    rmf_build *b = new_map();
    rmf_build_visgroup(b, &(rmf_visgroup){ .name = "hidden", .id = 3, .visible = false });
    int32_t group = 3;
    rmf_build_object in_group = { .visgroups = &group, .visgroup_count = 1 };
    room(b, room_lo, room_hi, "WHITE", &in_group);
    rmf_build_begin_group(b, &in_group);                      /* a hidden group hides what it holds */
    box(b, -16, -16, 0, 16, 16, 32, "WHITE", NULL);
    rmf_build_end(b);
    spawn(b, 0, 0, 36);
    char path[600];
    path_of(path, sizeof path, "hidden_only.rmf");
    CHECK(rmf_build_write_file(b, path));
    static const char *const says[] = { "the source's 42 faces: 42 in hidden visgroups" };
    check_refused(path, says, 1);
}

/* ---- the same in .map ------------------------------------------------------------------------- */

/* A Quake standard brush: the box [lo, hi] (units), one texture. */
static void map_box(char *out, size_t size, const float lo[3], const float hi[3], const char *tex)
{
    snprintf(out + strlen(out), size - strlen(out),
             "{\n( %g %g %g ) ( %g %g %g ) ( %g %g %g ) %s 0 0 0 1 1\n( %g %g %g ) ( %g %g %g ) ( %g %g %g ) %s 0 0 0 1 1\n"
             "( %g %g %g ) ( %g %g %g ) ( %g %g %g ) %s 0 0 0 1 1\n( %g %g %g ) ( %g %g %g ) ( %g %g %g ) %s 0 0 0 1 1\n"
             "( %g %g %g ) ( %g %g %g ) ( %g %g %g ) %s 0 0 0 1 1\n( %g %g %g ) ( %g %g %g ) ( %g %g %g ) %s 0 0 0 1 1\n}\n",
             lo[0], lo[1], lo[2], lo[0], lo[1] + 1, lo[2], lo[0], lo[1], lo[2] + 1, tex,      /* -X */
             hi[0], hi[1], hi[2], hi[0], hi[1], hi[2] + 1, hi[0], hi[1] + 1, hi[2], tex,      /* +X */
             lo[0], lo[1], lo[2], lo[0], lo[1], lo[2] + 1, lo[0] + 1, lo[1], lo[2], tex,      /* -Y */
             hi[0], hi[1], hi[2], hi[0] + 1, hi[1], hi[2], hi[0], hi[1], hi[2] + 1, tex,      /* +Y */
             lo[0], lo[1], lo[2], lo[0] + 1, lo[1], lo[2], lo[0], lo[1] + 1, lo[2], tex,      /* -Z */
             hi[0], hi[1], hi[2], hi[0], hi[1] + 1, hi[2], hi[0] + 1, hi[1], hi[2], tex);     /* +Z */
}

/* The room of test_spawn_in_solid as a Quake .map: the spawn in the pillar keeps every face; a map
 * of clip brushes only is refused naming them. */
static void test_map_source(void)
{
    char text[16384] = "// Game: Quake\n// Format: Standard\n{\n\"classname\" \"worldspawn\"\n";
    float t = 16;
    const float *lo = room_lo, *hi = room_hi;
    const float walls[7][2][3] = {
        { { lo[0] - t, lo[1] - t, lo[2] - t }, { hi[0] + t, hi[1] + t, lo[2] } },
        { { lo[0] - t, lo[1] - t, hi[2] }, { hi[0] + t, hi[1] + t, hi[2] + t } },
        { { lo[0] - t, lo[1] - t, lo[2] }, { lo[0], hi[1] + t, hi[2] } },
        { { hi[0], lo[1] - t, lo[2] }, { hi[0] + t, hi[1] + t, hi[2] } },
        { { lo[0], lo[1] - t, lo[2] }, { hi[0], lo[1], hi[2] } },
        { { lo[0], hi[1], lo[2] }, { hi[0], hi[1] + t, hi[2] } },
        { { -16, -16, 0 }, { 16, 16, 128 } },
    };
    for (int i = 0; i < 7; i++) map_box(text, sizeof text, walls[i][0], walls[i][1], "brick");
    snprintf(text + strlen(text), sizeof text - strlen(text),
             "}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 0 36\"\n}\n");
    char path[600];
    path_of(path, sizeof path, "spawn_in_pillar.map");
    test_write_text(path, text);
    char *log;
    CHECK_EQ(compile(path, &log), 0);
    CHECK(strstr(log, "pmfc: warning: no entities in empty space -- no filling performed") != NULL, "stderr: %s", log);
    free(log);
    int vertices = 0;
    double blo[3], bhi[3], elo[3], ehi[3];
    if (level_info(path, &vertices, blo, bhi)) {
        world_box(outer_lo, outer_hi, elo, ehi);
        printf("spawn in the pillar (.map): %d vertices, bounds off the walls' outside by %.4f m\n", vertices,
               box_error(blo, bhi, elo, ehi));
        CHECK(box_error(blo, bhi, elo, ehi) < 1e-3);
    } else {
        CHECK(0, "no info for %s", path);
    }

    char clip[4096] = "{\n\"classname\" \"worldspawn\"\n";
    map_box(clip, sizeof clip, walls[0][0], walls[0][1], "clip");
    map_box(clip, sizeof clip, walls[6][0], walls[6][1], "clip");
    snprintf(clip + strlen(clip), sizeof clip - strlen(clip), "}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"64 64 36\"\n}\n");
    path_of(path, sizeof path, "clip_only.map");
    test_write_text(path, clip);
    static const char *const says[] = { "the source's 12 faces: 12 tool textures" };
    check_refused(path, says, 1);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fputs("usage: test_empty_level PMFC PMFVIEW WORKDIR\n", stderr);
        return 2;
    }
    pmfc = argv[1];
    pmfview = argv[2];
    workdir = argv[3];
    test_make_dir(workdir);
    write_wad();
    test_spawn_in_solid();
    test_leak_from_a_solid_cell();
    test_fill_takes_everything();
    test_tool_textures_only();
    test_hidden_visgroup_only();
    test_map_source();
    return check_report("test_empty_level");
}
