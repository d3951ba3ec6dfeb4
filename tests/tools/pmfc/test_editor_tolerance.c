/* test_editor_tolerance.c - what real editor maps hold and pmfc must take (issue 33, points 1 and
 * 2), compiled by the real pmfc and read back with `pmfview info --json`:
 *   - long values: a Valve 220 .map whose worldspawn `wad` lists 40-odd WADs in 1700+ bytes of
 *     Windows paths (the two that exist listed last), a 3000-byte `message`, a 2000-byte `_tb_def`;
 *     an RMF with 254-byte values. Both compile, take their textures from the WADs that exist, and
 *     cut names longer than the compiled map keeps with one warning line; long texture names stay
 *     distinct textures;
 *   - bad brushes: a .map and an RMF each holding a brush reaching past +-32768 units, one of 3
 *     planes, one with a duplicate plane, one with two opposite planes (no thickness) and one whose
 *     planes enclose nothing (the RMF also an inside-out solid, its faces wound into it), next to
 *     good brushes (one of them huge but inside the grid). pmfc exits 0 with exactly one warning
 *     per bad brush naming its entity, brush and line / solid, and the map has the good brushes'
 *     geometry: that of the same map without the bad brushes.
 * Usage: test_editor_tolerance PMFC PMFVIEW WORKDIR */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "common/check.h"
#include "common/programs.h"
#include "rmf_build.h"
#include "wad_build.h"

static const char *pmfc, *pmfview, *workdir;

/* ---- text built piece by piece ------------------------------------------------------------ */

typedef struct text { char *s; size_t len, cap; } text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->len + (size_t)n + 1) * 2;
        t->s = realloc(t->s, t->cap);
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

static int line_now(const text *t)
{
    int line = 1;
    for (size_t i = 0; i < t->len; i++) line += t->s[i] == '\n';
    return line;
}

static char *repeat(char c, size_t n)
{
    char *s = malloc(n + 1);
    memset(s, c, n);
    s[n] = 0;
    return s;
}

/* ---- running the programs ------------------------------------------------------------------ */

static void path_of(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s/%s", workdir, name);
}

/* pmfc SRC -o PMF: its exit status; its stderr in *log (malloc'd). */
static int compile(const char *src, const char *pmf, char **log)
{
    char log_path[700];
    snprintf(log_path, sizeof log_path, "%s.log", pmf);
    int st = test_run(NULL, (const char *[]){ pmfc, src, "-o", pmf, "--time", "1", NULL }, NULL, log_path);
    size_t size;
    *log = (char *)test_read_file(log_path, &size);
    if (!*log) *log = calloc(1, 1);
    return st;
}

/* WORKDIR/NAME.map written from text and compiled (exit 0) to WORKDIR/NAME.pmf (in pmf): the log. */
static char *compile_map_text(const char *name, const char *text, char *pmf, size_t size)
{
    char file[128], path[700];
    snprintf(file, sizeof file, "%s.map", name);
    path_of(path, sizeof path, file);
    snprintf(file, sizeof file, "%s.pmf", name);
    path_of(pmf, size, file);
    test_write_text(path, text);
    char *log;
    CHECK_EQ(compile(path, pmf, &log), 0);
    fputs(log, stdout);
    return log;
}

/* How many lines of the log hold `what`. */
static int lines_with(const char *log, const char *what)
{
    int n = 0;
    for (const char *line = log; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char *copy = malloc(len + 1);
        memcpy(copy, line, len);
        copy[len] = 0;
        n += strstr(copy, what) != NULL;
        free(copy);
        line += len + (end ? 1 : 0);
    }
    return n;
}

static cJSON *level0(cJSON *root)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItem(root, "levels"), 0);
}

static bool has_material(cJSON *root, const char *name)
{
    cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItem(level0(root), "materials"))
        if (cJSON_IsString(m) && !strcmp(m->valuestring, name)) return true;
    return false;
}

/* The compiled map has the same geometry as the reference: vertices and bounds. */
static void check_same_geometry(const char *pmf, const char *reference)
{
    cJSON *a = test_info_json(pmfview, pmf), *b = test_info_json(pmfview, reference);
    CHECK(a && b);
    if (a && b) {
        double va = cJSON_GetNumberValue(cJSON_GetObjectItem(level0(a), "vertices"));
        double vb = cJSON_GetNumberValue(cJSON_GetObjectItem(level0(b), "vertices"));
        printf("%s: %g vertices, the good brushes alone %g\n", pmf, va, vb);
        CHECK(va > 0);
        CHECK_EQ(va, vb);
        cJSON *ba = cJSON_GetObjectItem(level0(a), "bounds"), *bb = cJSON_GetObjectItem(level0(b), "bounds");
        for (int k = 0; k < 2; k++)
            for (int axis = 0; axis < 3; axis++) {
                const char *key = k ? "max" : "min";
                double x = cJSON_GetArrayItem(cJSON_GetObjectItem(ba, key), axis)->valuedouble;
                double y = cJSON_GetArrayItem(cJSON_GetObjectItem(bb, key), axis)->valuedouble;
                CHECK_NEAR(x, y, 1e-4);
                /* the huge beam (x +-32000 units: +-812.8 m) is inside the grid: it stays */
                if (axis == 0) CHECK(fabs(x) > 800, "bounds %s[%d] = %g m: the huge beam is missing", key, axis, x);
            }
    }
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* ---- WADs ------------------------------------------------------------------------------------ */

static void write_wad(const char *name, const char *texture, uint8_t r, uint8_t g, uint8_t b)
{
    wad_build *w = wad_build_create();
    CHECK(wad_build_add_solid(w, texture, r, g, b));
    char path[700];
    path_of(path, sizeof path, name);
    CHECK(wad_build_write_file(w, path));
    wad_build_destroy(w);
}

/* ---- .map brushes ------------------------------------------------------------------------------ */

/* A face in Valve 220 form (its axes written) or Quake's standard one. */
static void map_face(text *t, const rmf_face *f, const char *tex, bool valve)
{
    for (int k = 0; k < 3; k++) put(t, "( %g %g %g ) ", f->plane[k][0], f->plane[k][1], f->plane[k][2]);
    if (valve)
        put(t, "%s [ %g %g %g 0 ] [ %g %g %g 0 ] 0 1 1\n", tex, f->u_axis[0], f->u_axis[1], f->u_axis[2], f->v_axis[0],
            f->v_axis[1], f->v_axis[2]);
    else
        put(t, "%s 0 0 0 1 1\n", tex);
}

/* A box as Hammer writes it (rmf_build_box_faces' planes and axes) in Valve 220 form; `edit` may
 * change the faces (their count too) first. Returns the line of the brush's '{'. */
static int map_box_as(text *t, const float lo[3], const float hi[3], const char *tex, void (*edit)(rmf_face *, int *),
                      bool valve)
{
    rmf_face faces[8];
    float vertices[24][3];
    rmf_build_box_faces(lo, hi, tex, faces, vertices);
    int count = 6;
    if (edit) edit(faces, &count);
    int line = line_now(t);
    put(t, "{\n");
    for (int f = 0; f < count; f++) map_face(t, &faces[f], tex, valve);
    put(t, "}\n");
    return line;
}

static int map_box(text *t, const float lo[3], const float hi[3], const char *tex, void (*edit)(rmf_face *, int *))
{
    return map_box_as(t, lo, hi, tex, edit, true);
}

/* The bad brushes' edits, shared by the .map and the RMF. */
static void three_planes(rmf_face *faces, int *count) { (void)faces; *count = 3; }
static void duplicate_plane(rmf_face *faces, int *count) { faces[(*count)++] = faces[0]; }
/* the top face (+Z) lowered onto the bottom one: the same plane, facing up and down */
static void opposite_planes(rmf_face *faces, int *count)
{
    (void)count;
    float z = faces[1].plane[0][2];
    for (int k = 0; k < 3; k++) faces[0].plane[k][2] = z;
}
/* the +X face moved 16 units behind the -X one: x <= x0 - 16 and x >= x0 hold nowhere */
static void empty_solid(rmf_face *faces, int *count)
{
    (void)count;
    float x = faces[2].plane[0][0] - 16;
    for (int k = 0; k < 3; k++) faces[3].plane[k][0] = x;
}

typedef struct good_box { float lo[3], hi[3]; } good_box;
static const good_box world_boxes[3] = {
    { { 0, 0, 0 }, { 64, 64, 64 } },
    { { 128, 128, 0 }, { 192, 192, 64 } },
    { { -32000, 0, -272 }, { 32000, 16, -256 } },   /* huge, inside the grid: a beam 1.6 km long */
};
static const good_box wall_box = { { 0, 128, 0 }, { 64, 192, 64 } };
static const float huge_lo[3] = { 256, 0, 0 }, huge_hi[3] = { 40000, 64, 64 };
static const float bad_lo[3] = { 256, 256, 0 }, bad_hi[3] = { 320, 320, 64 };

/* The test map as a .map, with the bad brushes or without; lines[] gets the bad brushes' lines in
 * the order: huge, 3 planes, duplicate, opposite, empty. */
static void write_bad_map(const char *path, bool bad, int lines[5])
{
    text t = { 0 };
    put(&t, "// Game: Half-Life\n// Format: Valve\n{\n\"classname\" \"worldspawn\"\n\"mapversion\" \"220\"\n\"wad\" \"longa.wad\"\n");
    map_box(&t, world_boxes[0].lo, world_boxes[0].hi, "GRIDA", NULL);                 /* brush 0 */
    if (bad) {
        lines[0] = map_box(&t, huge_lo, huge_hi, "GRIDA", NULL);                       /* brush 1 */
        lines[1] = map_box(&t, bad_lo, bad_hi, "GRIDA", three_planes);                 /* brush 2 */
    }
    map_box(&t, world_boxes[1].lo, world_boxes[1].hi, "GRIDA", NULL);                 /* brush 3 */
    if (bad) {
        lines[2] = map_box(&t, bad_lo, bad_hi, "GRIDA", duplicate_plane);              /* brush 4 */
        lines[3] = map_box(&t, bad_lo, bad_hi, "GRIDA", opposite_planes);              /* brush 5 */
    }
    map_box(&t, world_boxes[2].lo, world_boxes[2].hi, "GRIDA", NULL);                 /* brush 6 */
    put(&t, "}\n{\n\"classname\" \"func_wall\"\n");
    map_box(&t, wall_box.lo, wall_box.hi, "GRIDA", NULL);                             /* brush 0 */
    if (bad) lines[4] = map_box(&t, bad_lo, bad_hi, "GRIDA", empty_solid);            /* brush 1 */
    put(&t, "}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"400 400 36\"\n}\n");
    test_write_text(path, t.s);
    free(t.s);
}

/* ---- RMF brushes --------------------------------------------------------------------------------- */

static void rmf_box(rmf_build *b, const float lo[3], const float hi[3], const char *tex, void (*edit)(rmf_face *, int *))
{
    rmf_face faces[8];
    float vertices[24][3];
    rmf_build_box_faces(lo, hi, tex, faces, vertices);
    int count = 6;
    if (edit) edit(faces, &count);
    rmf_build_solid(b, faces, (uint32_t)count, NULL);
}

/* RMF orients each plane away from the mean of the solid's vertices, so the .map's opposite and
 * empty brushes read as good ones there. Opposite: a flat box (every vertex at z = 0) whose side
 * planes stand 64 units tall: its top and bottom planes both pass through the centre. */
static void rmf_flat_box(rmf_build *b, const float lo[3], const float hi[3])
{
    rmf_face faces[6];
    float vertices[24][3];
    rmf_build_box_faces(lo, hi, "GRIDA", faces, vertices);
    opposite_planes(faces, NULL);
    for (int v = 0; v < 24; v++) vertices[v][2] = lo[2];
    rmf_build_solid(b, faces, 6, NULL);
}

/* Empty: four planes through one point c whose normals sum to zero (a tetrahedron's, turned
 * inside out): only c is on the inside of all four. Each face's vertices are its plane points,
 * whose mean is c, so no plane is turned. */
static void rmf_empty_solid(rmf_build *b, const float c[3])
{
    static const int normals[4][3] = { { 1, 1, 1 }, { 1, -1, -1 }, { -1, 1, -1 }, { -1, -1, 1 } };
    static const int along[4][2][3] = { { { 1, -1, 0 }, { 1, 1, -2 } }, { { 1, 1, 0 }, { 1, -1, 2 } },
                                        { { 1, 1, 0 }, { -1, 1, 2 } }, { { 1, -1, 0 }, { 1, 1, 2 } } };
    rmf_face faces[4];
    float vertices[4][3][3];
    for (int f = 0; f < 4; f++) {
        memset(&faces[f], 0, sizeof faces[f]);
        snprintf(faces[f].texture, sizeof faces[f].texture, "GRIDA");
        faces[f].scale[0] = faces[f].scale[1] = 1;
        faces[f].u_axis[0] = 1;
        faces[f].v_axis[1] = -1;
        float p[3][3];
        for (int a = 0; a < 3; a++) {
            p[0][a] = c[a] + 16.0f * (float)along[f][0][a];
            p[1][a] = c[a] + 16.0f * (float)along[f][1][a];
            p[2][a] = c[a] - 16.0f * (float)(along[f][0][a] + along[f][1][a]);
        }
        /* the outward normal is (p2 - p0) x (p1 - p0): swap p1 and p2 when it points inward */
        float e1[3], e2[3];
        for (int a = 0; a < 3; a++) { e1[a] = p[2][a] - p[0][a]; e2[a] = p[1][a] - p[0][a]; }
        float n[3] = { e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0] };
        if (n[0] * normals[f][0] + n[1] * normals[f][1] + n[2] * normals[f][2] < 0)
            for (int a = 0; a < 3; a++) { float s = p[1][a]; p[1][a] = p[2][a]; p[2][a] = s; }
        memcpy(faces[f].plane, p, sizeof p);
        memcpy(vertices[f], p, sizeof p);
        faces[f].vertices = vertices[f];
        faces[f].vertex_count = 3;
    }
    rmf_build_solid(b, faces, 4, NULL);
}

/* Inside out: every face's plane points and vertices wound the other way, as no editor saves
 * them (the planes enclose nothing; RMF's vertices say where the solid is). */
static void inside_out(rmf_face *faces, int *count)
{
    for (int f = 0; f < *count; f++) {
        float swap[3];
        memcpy(swap, faces[f].plane[1], sizeof swap);
        memcpy(faces[f].plane[1], faces[f].plane[2], sizeof swap);
        memcpy(faces[f].plane[2], swap, sizeof swap);
        for (uint32_t v = 0; v < faces[f].vertex_count / 2; v++) {
            float *a = faces[f].vertices[v], *b = faces[f].vertices[faces[f].vertex_count - 1 - v];
            memcpy(swap, a, sizeof swap);
            memcpy(a, b, sizeof swap);
            memcpy(b, swap, sizeof swap);
        }
    }
}

static void write_bad_rmf(const char *path, bool bad)
{
    rmf_build *b = rmf_build_new(&(rmf_build_desc){ .world = { .kv = (rmf_kv[]){ { "wad", "longa.wad" } }, .kv_count = 1 } });
    rmf_box(b, world_boxes[0].lo, world_boxes[0].hi, "GRIDA", NULL);               /* solid 0 */
    if (bad) {
        rmf_box(b, huge_lo, huge_hi, "GRIDA", NULL);                               /* solid 1 */
        rmf_box(b, bad_lo, bad_hi, "GRIDA", three_planes);                         /* solid 2 */
    }
    rmf_box(b, world_boxes[1].lo, world_boxes[1].hi, "GRIDA", NULL);               /* solid 3 */
    if (bad) {
        rmf_box(b, bad_lo, bad_hi, "GRIDA", duplicate_plane);                      /* solid 4 */
        rmf_flat_box(b, bad_lo, bad_hi);                                           /* solid 5 */
    }
    rmf_box(b, world_boxes[2].lo, world_boxes[2].hi, "GRIDA", NULL);               /* solid 6 */
    rmf_build_begin_brush_entity(b, &(rmf_entity){ .classname = "func_wall" }, NULL);
    rmf_box(b, wall_box.lo, wall_box.hi, "GRIDA", NULL);                           /* solid 7 */
    if (bad) {
        rmf_empty_solid(b, (const float[3]){ 512, 512, 32 });                       /* solid 8 */
        rmf_box(b, bad_lo, bad_hi, "GRIDA", inside_out);                           /* solid 9 */
    }
    rmf_build_end(b);
    rmf_build_point_entity(b, &(rmf_entity){ .classname = "info_player_start", .point = true, .origin = { 400, 400, 36 } }, NULL);
    CHECK(rmf_build_write_file(b, path));
}

/* The byte of each solid of the file, in file order. */
static void solid_offsets(const rmf_object *o, size_t *offsets, size_t *count)
{
    if (o->kind == RMF_SOLID) offsets[(*count)++] = o->offset;
    for (uint32_t i = 0; i < o->child_count; i++) solid_offsets(&o->children[i], offsets, count);
}

/* ---- the tests --------------------------------------------------------------------------------- */

static void check_one_warning(const char *log, const char *where, const char *why)
{
    char line[512];
    snprintf(line, sizeof line, "%s: %s: brush left out", where, why);
    int n = lines_with(log, line);
    CHECK_EQ(n, 1);
    if (n != 1) fprintf(stderr, "  want one line with '%s'\n", line);
}

/* A map with the bad brushes and the same map without them, both compiled. */
typedef struct bad_and_good { char bad[700], good[700], bad_pmf[700], good_pmf[700]; char *log, *good_log; } bad_and_good;

static void bad_and_good_paths(bad_and_good *r, const char *ext)
{
    char name[64];
    snprintf(name, sizeof name, "bad.%s", ext);
    path_of(r->bad, sizeof r->bad, name);
    snprintf(name, sizeof name, "good.%s", ext);
    path_of(r->good, sizeof r->good, name);
    snprintf(name, sizeof name, "bad_%s.pmf", ext);
    path_of(r->bad_pmf, sizeof r->bad_pmf, name);
    snprintf(name, sizeof name, "good_%s.pmf", ext);
    path_of(r->good_pmf, sizeof r->good_pmf, name);
}

static void bad_and_good_compile(bad_and_good *r)
{
    CHECK_EQ(compile(r->bad, r->bad_pmf, &r->log), 0);
    CHECK_EQ(compile(r->good, r->good_pmf, &r->good_log), 0);
    fputs(r->log, stdout);
}

/* The bad brushes left out, none in the good map, and the good brushes' geometry. */
static void bad_and_good_check(bad_and_good *r, int bad)
{
    CHECK_EQ(lines_with(r->log, "brush left out"), bad);
    CHECK_EQ(lines_with(r->good_log, "brush left out"), 0);
    check_same_geometry(r->bad_pmf, r->good_pmf);
    free(r->log);
    free(r->good_log);
}

static void test_bad_brushes_map(void)
{
    bad_and_good r;
    bad_and_good_paths(&r, "map");
    int lines[5];
    write_bad_map(r.bad, true, lines);
    write_bad_map(r.good, false, NULL);
    bad_and_good_compile(&r);
    static const struct { const char *entity; unsigned brush; const char *why; } bad[] = {
        { "entity 0 (worldspawn)", 1, "its planes enclose a solid reaching outside the editor's grid (+-32768 units)" },
        { "entity 0 (worldspawn)", 2, "3 plane(s), fewer than the 4 that enclose a solid" },
        { "entity 0 (worldspawn)", 4, "faces 0 and 6 lie on the same plane" },
        { "entity 0 (worldspawn)", 5, "faces 0 and 1 lie on the same plane facing each other: it has no thickness" },
        { "entity 1 (func_wall)", 1, "its planes enclose nothing (an empty solid)" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char where[160];
        snprintf(where, sizeof where, "%s brush %u, line %d", bad[i].entity, bad[i].brush, lines[i]);
        check_one_warning(r.log, where, bad[i].why);
    }
    bad_and_good_check(&r, 5);
}

static void test_bad_brushes_rmf(void)
{
    bad_and_good r;
    bad_and_good_paths(&r, "rmf");
    write_bad_rmf(r.bad, true);
    write_bad_rmf(r.good, false);
    rmf_map m;
    pmf_error err;
    size_t offsets[16], count = 0;
    if (!rmf_read_file(r.bad, &m, &err)) {
        check_fail("bad.rmf does not read back");
        return;
    }
    solid_offsets(&m.world, offsets, &count);
    rmf_free(&m);
    CHECK_EQ(count, 10);
    if (count != 10) return;
    bad_and_good_compile(&r);
    static const struct { const char *entity; unsigned brush, solid; const char *why; } bad[] = {
        { "entity 0 (worldspawn)", 1, 1, "a vertex at 40000 units, outside the editor's grid (+-32768 units)" },
        { "entity 0 (worldspawn)", 2, 2, "3 plane(s), fewer than the 4 that enclose a solid" },
        { "entity 0 (worldspawn)", 4, 4, "faces 0 and 6 lie on the same plane" },
        { "entity 0 (worldspawn)", 5, 5, "faces 0 and 1 lie on the same plane facing each other: it has no thickness" },
        { "entity 0 (func_wall)", 1, 8, "its planes enclose nothing (an empty solid)" },
        { "entity 0 (func_wall)", 2, 9, "face 0's plane points wind into the solid its vertices draw" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char where[160];
        snprintf(where, sizeof where, "%s brush %u, solid %u, byte %zu", bad[i].entity, bad[i].brush, bad[i].solid,
                 offsets[bad[i].solid]);
        check_one_warning(r.log, where, bad[i].why);
    }
    bad_and_good_check(&r, 6);
}

/* A `wad` list: `missing` WADs that exist nowhere written as Hammer and J.A.C.K. write them, then
 * the two that exist beside the map (longa.wad, longb.wad). */
static char *wad_list(int missing)
{
    text t = { 0 };
    for (int i = 0; i < missing; i++)
        put(&t, i % 2 ? "C:\\Program Files\\Valve Hammer Editor\\wads\\missing%02d.wad;" : "\\\\sierra\\half-life\\valve\\missing%02d.wad;", i);
    put(&t, "\\\\sierra\\half-life\\valve\\longa.wad;C:\\Games\\zhlt\\longb.wad");
    return t.s;
}

static void check_long_values(const char *log, const char *pmf, int missing)
{
    char want[160];
    snprintf(want, sizeof want, "%d WAD file(s) of the map's wad key not found", missing);
    CHECK_EQ(lines_with(log, want), 1);
    CHECK_EQ(lines_with(log, "longa.wad"), 0);
    CHECK_EQ(lines_with(log, "longb.wad"), 0);
    CHECK_EQ(lines_with(log, "drawn as checkers"), 0);       /* both textures came from their WADs */
    CHECK_EQ(lines_with(log, "cut short"), 1);
    CHECK_EQ(lines_with(log, "warning: 2 name(s) longer than the 63 bytes a compiled map keeps, cut short"), 1);
    cJSON *root = test_info_json(pmfview, pmf);
    CHECK(root != NULL);
    if (!root) return;
    CHECK(has_material(root, "GRIDA") && has_material(root, "GRIDB"));
    const char *format = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "source"), "format"));
    CHECK(format && !strncmp(format, "GoldSrc ", 8), "source format %s", format ? format : "none");
    /* the entities keep the first 63 bytes of their long names */
    int cut = 0;
    cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(root, "entities")) {
        const char *cls = cJSON_GetStringValue(cJSON_GetObjectItem(e, "class"));
        const char *target = cJSON_GetStringValue(cJSON_GetObjectItem(e, "targetname"));
        if (cls && strlen(cls) == 63 && strspn(cls, "c") == 63) cut++;
        if (target && strlen(target) == 63 && strspn(target, "t") == 63) cut++;
    }
    CHECK_EQ(cut, 2);
    cJSON_Delete(root);
}

static void test_long_values_map(void)
{
    int missing = 40;
    char *wads = wad_list(missing), *message = repeat('m', 3000), *def = repeat('d', 2000);
    char *cls = repeat('c', 80), *target = repeat('t', 200);
    CHECK(strlen(wads) >= 1688, "the wad list is %zu bytes", strlen(wads));
    text t = { 0 };
    /* Quake's standard form and no game comment: only the first WAD of the list that exists (a
     * WAD3) makes it a GoldSrc map */
    put(&t, "{\n\"classname\" \"worldspawn\"\n\"wad\" \"%s\"\n\"message\" \"%s\"\n\"_tb_def\" \"%s\"\n", wads, message, def);
    map_box_as(&t, world_boxes[0].lo, world_boxes[0].hi, "GRIDA", NULL, false);
    map_box_as(&t, world_boxes[1].lo, world_boxes[1].hi, "GRIDB", NULL, false);
    put(&t, "}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"400 400 36\"\n}\n"
            "{\n\"classname\" \"%s\"\n\"origin\" \"300 300 36\"\n}\n"
            "{\n\"classname\" \"info_target\"\n\"targetname\" \"%s\"\n\"origin\" \"300 400 36\"\n}\n", cls, target);
    char pmf[700];
    char *log = compile_map_text("long", t.s, pmf, sizeof pmf);
    check_long_values(log, pmf, missing);
    free(log);
    free(t.s);
    free(wads); free(message); free(def); free(cls); free(target);
}

static void test_long_values_rmf(void)
{
    /* RMF stores a key or value with a length byte: 254 bytes and its NUL are the longest */
    int missing = 4;
    char *wads = wad_list(missing), *message = repeat('m', 254), *cls = repeat('c', 80), *target = repeat('t', 254);
    CHECK(strlen(wads) <= 254, "the wad list is %zu bytes", strlen(wads));
    rmf_kv world_kv[2] = { { "wad", wads }, { "message", message } };
    rmf_build *b = rmf_build_new(&(rmf_build_desc){ .world = { .kv = world_kv, .kv_count = 2 } });
    rmf_box(b, world_boxes[0].lo, world_boxes[0].hi, "GRIDA", NULL);
    rmf_box(b, world_boxes[1].lo, world_boxes[1].hi, "GRIDB", NULL);
    rmf_build_point_entity(b, &(rmf_entity){ .classname = "info_player_start", .point = true, .origin = { 400, 400, 36 } }, NULL);
    rmf_build_point_entity(b, &(rmf_entity){ .classname = cls, .point = true, .origin = { 300, 300, 36 } }, NULL);
    rmf_build_point_entity(b, &(rmf_entity){ .classname = "info_target", .point = true, .origin = { 300, 400, 36 },
                                             .kv = (rmf_kv[]){ { "targetname", target } }, .kv_count = 1 }, NULL);
    char path[700], pmf[700];
    path_of(path, sizeof path, "long.rmf");
    path_of(pmf, sizeof pmf, "long_rmf.pmf");
    CHECK(rmf_build_write_file(b, path));
    char *log;
    CHECK_EQ(compile(path, pmf, &log), 0);
    fputs(log, stdout);
    check_long_values(log, pmf, missing);
    free(log);
    free(wads); free(message); free(cls); free(target);
}

/* Texture names past what the compiled map keeps: two of 72 bytes that differ only in their last
 * ones, and two of 42 whose file names (each '/' written as _2f) pass the 63 bytes a texture's
 * file name keeps. All four stay four textures (before, two shared one file and the archive
 * refused the map), and the two long names are said in the one warning. */
static void test_long_texture_names(void)
{
    char *b = repeat('B', 70);
    text slashes = { 0 }, names[4] = { { 0 } };
    for (int i = 0; i < 20; i++) put(&slashes, "a/");
    put(&names[0], "%s01", b);
    put(&names[1], "%s02", b);
    put(&names[2], "%s01", slashes.s);
    put(&names[3], "%s02", slashes.s);
    text t = { 0 };
    put(&t, "{\n\"classname\" \"worldspawn\"\n");
    for (int i = 0; i < 4; i++) {
        float lo[3] = { (float)(i * 128), 0, 0 }, hi[3] = { (float)(i * 128 + 64), 64, 64 };
        map_box_as(&t, lo, hi, names[i].s, NULL, false);
    }
    put(&t, "}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 400 36\"\n}\n");
    char pmf[700];
    char *log = compile_map_text("long_textures", t.s, pmf, sizeof pmf);
    CHECK_EQ(lines_with(log, "warning: 2 name(s) longer than the 63 bytes a compiled map keeps, cut short; the first: texture"), 1);
    cJSON *root = test_info_json(pmfview, pmf);
    CHECK(root != NULL);
    if (root) {
        int textures = 0;
        cJSON *m;
        cJSON_ArrayForEach(m, cJSON_GetObjectItem(level0(root), "materials"))
            textures += cJSON_IsString(m) && m->valuestring[0] != '#';
        CHECK_EQ(textures, 4);
        CHECK(has_material(root, "A/A/A/A/A/A/A/A/A/A/A/A/A/A/A/A/A/A/A/A/01"));
        cJSON_Delete(root);
    }
    free(log);
    free(t.s);
    free(b);
    free(slashes.s);
    for (int i = 0; i < 4; i++) free(names[i].s);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fputs("usage: test_editor_tolerance PMFC PMFVIEW WORKDIR\n", stderr);
        return 2;
    }
    pmfc = argv[1];
    pmfview = argv[2];
    workdir = argv[3];
    test_make_dir(workdir);
    write_wad("longa.wad", "GRIDA", 200, 60, 40);
    write_wad("longb.wad", "GRIDB", 40, 60, 200);
    test_long_values_map();
    test_long_values_rmf();
    test_long_texture_names();
    test_bad_brushes_map();
    test_bad_brushes_rmf();
    return check_report("test_editor_tolerance");
}
