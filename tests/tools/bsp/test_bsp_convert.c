/* test_bsp_convert.c - a converted BSP holds the BSP's faces and nothing else (issue 33): every
 * vertex of the PMF lies within 1 cm of a face of the BSP (its brush models placed at their
 * entities' origins), the PMF's triangles cover the area of the faces it draws, no more and no
 * less, and pmfc says it drew each face the BSP draws (not tool textures, volumes or sky). On
 * a room built in code with a world pool of !water over its floor, a func_water and a model
 * built around its origin; then on the shared GoldSrc map. Both are sealed (hlbsp's verdict:
 * they carry a PVS): no leak is reported, and `info` names the source once. The leak verdict is
 * the BSP's own, not pmfc's flood (check_leak_verdict). The .map dialects' sources are named with
 * their game once too (check_source_names).
 *
 *   test_bsp_convert PMFC PMFVIEW WORKDIR [SHARED.bsp] */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/pmf_os.h"
#include "bsp_build.h"
#include "bsp_read.h"
#include "common/check.h"
#include "common/programs.h"
#include "map_read.h"
#include "map_samples.h"
#include "pmf/pmf.h"

#define UNITS_M 0.0254          /* pmfc's default scale: metres per unit */
#define REACH_UNITS (0.01 / UNITS_M)

static const char *pmfc, *pmfview, *workdir;

/* A BSP face where the map places it (units). */
typedef struct placed_face {
    int n;
    double (*p)[3];
    double normal[3];
    double lo[3], hi[3];
    double area;
    bool drawn;                  /* what pmfc draws: not a tool texture, not a volume's */
} placed_face;

typedef struct placed { placed_face *faces; size_t count, cap; } placed;

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void sub3(const double a[3], const double b[3], double out[3]) { for (int k = 0; k < 3; k++) out[k] = a[k] - b[k]; }
static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static double triangle_area(const double a[3], const double b[3], const double c[3])
{
    double e1[3], e2[3], x[3];
    sub3(b, a, e1);
    sub3(c, a, e2);
    cross3(e1, e2, x);
    return sqrt(dot3(x, x)) / 2;
}

/* docs/rmf.md and docs/map.md: the tool textures and volume entities, which draw nothing */
static bool tool_texture(const char *t)
{
    static const char *const tools[] = { "clip", "null", "origin", "aaatrigger", "hint", "skip", "bevel", "solidhint",
                                         "boundingbox", "clipbevel", "cliphull1", "cliphull2", "cliphull3", "splitface",
                                         "hintskip", "trigger", "nodraw", "*trigger", "waterskip", "slimeskip", "lavaskip",
                                         "noclip" };
    for (size_t i = 0; i < sizeof tools / sizeof *tools; i++)
        if (!strcasecmp(t, tools[i])) return true;
    return false;
}

static bool volume_class(const char *cls)
{
    static const char *const volumes[] = { "func_ladder", "func_buyzone", "func_bomb_target", "func_hostage_rescue",
                                           "func_vip_safetyzone", "func_escapezone", "func_clip", "func_areaportal" };
    if (!strncasecmp(cls, "trigger_", 8)) return true;
    for (size_t i = 0; i < sizeof volumes / sizeof *volumes; i++)
        if (!strcasecmp(cls, volumes[i])) return true;
    return false;
}

static void place_model(const bsp_file *b, uint32_t model, const double offset[3], bool volume, placed *out)
{
    const bsp_model *m = &b->models[model];
    for (uint32_t i = 0; i < m->face_count; i++) {
        const bsp_face *f = &b->faces[m->first_face + i];
        if (out->count == out->cap) {
            out->cap = out->cap ? out->cap * 2 : 256;
            out->faces = realloc(out->faces, out->cap * sizeof *out->faces);
        }
        placed_face *pf = &out->faces[out->count++];
        pf->n = (int)f->edge_count;
        pf->p = malloc(f->edge_count * sizeof *pf->p);
        for (int a = 0; a < 3; a++) { pf->lo[a] = 1e30; pf->hi[a] = -1e30; }
        for (uint32_t k = 0; k < f->edge_count; k++)
            for (int a = 0; a < 3; a++) {
                pf->p[k][a] = b->vertices[bsp_face_vertex(b, f, k)][a] + offset[a];
                pf->lo[a] = fmin(pf->lo[a], pf->p[k][a] - REACH_UNITS);
                pf->hi[a] = fmax(pf->hi[a], pf->p[k][a] + REACH_UNITS);
            }
        const bsp_plane *pl = &b->planes[f->plane];
        for (int a = 0; a < 3; a++) pf->normal[a] = (f->back ? -1 : 1) * pl->normal[a];
        pf->area = 0;
        for (int k = 1; k + 1 < pf->n; k++) pf->area += triangle_area(pf->p[0], pf->p[k], pf->p[k + 1]);
        const bsp_texinfo *ti = &b->texinfos[f->texinfo];
        const char *name = ti->texture != UINT32_MAX ? b->textures[ti->texture].name : "";
        pf->drawn = !volume && name[0] && !tool_texture(name) && strncasecmp(name, "sky", 3) != 0 && pf->area > 1e-3;
    }
}

/* The faces of every model an entity draws, where it draws them: "model" "*N", at the entity's
 * origin when it has one (its model was built around it). */
static bool place_faces(const char *path, const bsp_file *b, placed *out)
{
    qmap q;
    pmf_error err;
    if (!bsp_read_entities(b, path, &q, &err)) return false;
    for (uint32_t i = 0; i < q.entity_count; i++) {
        const qmap_entity *e = &q.entities[i];
        const char *model = qmap_value(&q, e, "model"), *origin = qmap_value(&q, e, "origin");
        const char *cls = qmap_value(&q, e, "classname");
        long index = i == 0 ? 0 : model && model[0] == '*' ? strtol(model + 1, NULL, 10) : -1;
        if (index < 0 || (uint32_t)index >= b->model_count) continue;
        double offset[3] = { 0, 0, 0 };
        if (index > 0 && origin) sscanf(origin, "%lf %lf %lf", &offset[0], &offset[1], &offset[2]);
        place_model(b, (uint32_t)index, offset, cls && volume_class(cls), out);
    }
    qmap_free(&q);
    return true;
}

/* How far p lies from face f (units): to its plane when p is over the polygon, else to its
 * nearest edge. */
static double face_distance(const placed_face *f, const double p[3])
{
    double rel[3];
    sub3(p, f->p[0], rel);
    double h = dot3(rel, f->normal);
    bool over = true;
    double best = 1e30;
    for (int k = 0; k < f->n; k++) {
        const double *a = f->p[k], *b = f->p[(k + 1) % f->n];
        double e[3], ap[3], en[3];
        sub3(b, a, e);
        sub3(p, a, ap);
        cross3(e, f->normal, en);
        double len2 = dot3(e, e);
        if (len2 < 1e-12) continue;
        /* the corners run clockwise seen from the front: e x normal points into the polygon */
        if (dot3(ap, en) < 0) over = false;
        double t = fmin(fmax(dot3(ap, e) / len2, 0), 1), d[3];
        for (int c = 0; c < 3; c++) d[c] = ap[c] - t * e[c];
        best = fmin(best, sqrt(dot3(d, d)));
    }
    return over ? fabs(h) : best;
}

static double nearest_face(const placed *faces, const double p[3])
{
    double best = 1e30;
    for (size_t i = 0; i < faces->count; i++) {
        const placed_face *f = &faces->faces[i];
        if (p[0] < f->lo[0] || p[1] < f->lo[1] || p[2] < f->lo[2] || p[0] > f->hi[0] || p[1] > f->hi[1] || p[2] > f->hi[2])
            continue;
        best = fmin(best, face_distance(f, p));
    }
    return best;
}

typedef struct pmf_geometry { size_t vertices, far; double worst, area, worst_at[3]; } pmf_geometry;

/* world metres (x, z, -y) back to units */
static void to_units(const double w[3], double u[3])
{
    u[0] = w[0] / UNITS_M;
    u[1] = -w[2] / UNITS_M;
    u[2] = w[1] / UNITS_M;
}

static void chunk_geometry(const pmf_chunk *ch, const double centre[3], const placed *faces, pmf_geometry *g)
{
    const pmf_vertex *v = ch->client.vertices;
    for (uint32_t i = 0; i < ch->client.vertex_count; i++) {
        double w[3], u[3];
        for (int a = 0; a < 3; a++) w[a] = centre[a] + v[i].xyz[a];
        to_units(w, u);
        double d = nearest_face(faces, u);
        g->vertices++;
        if (d > REACH_UNITS) g->far++;
        if (d > g->worst) { g->worst = d; memcpy(g->worst_at, u, sizeof u); }
    }
    for (uint32_t c = 0; c < ch->common.cube_count; c++) {
        const pmf_cube *cube = &ch->common.cubes[c];
        const pmf_client_cube *cc = &ch->client.cubes[c];
        uint32_t first = 0, tris = 0;
        bool quads = false;
        if (cube->type == PMF_CUBE_GEOMETRY) {
            first = cc->u.geom.first_vertex;
            for (int f = 0; f < PMF_FACE_COUNT; f++) tris += cc->u.geom.face_mask >> f & 1;
            quads = true;
        } else if (cube->type == PMF_CUBE_EXTGEOMETRY) {
            first = cc->u.ext.first_vertex;
            for (int f = 0; f < PMF_FACE_COUNT; f++) tris += cc->u.ext.tri_count[f];
        }
        for (uint32_t k = 0; k < tris; k++) {
            const pmf_vertex *p = &v[first + k * (quads ? 4 : 3)];
            double a[3], b[3], d[3];
            for (int e = 0; e < 3; e++) { a[e] = p[0].xyz[e]; b[e] = p[1].xyz[e]; d[e] = p[2].xyz[e]; }
            g->area += triangle_area(a, b, d);
            if (quads) {
                double q[3];
                for (int e = 0; e < 3; e++) q[e] = p[3].xyz[e];
                g->area += triangle_area(a, d, q);
            }
        }
    }
}

/* Every vertex and triangle of the PMF's first level; area in square units. */
static bool pmf_geometry_of(const char *path, const placed *faces, pmf_geometry *g)
{
    memset(g, 0, sizeof *g);
    pmf_error err;
    pmf_file *pf = pmf_open(path, &err);
    if (!pf) return false;
    pmf_level lvl;
    if (!pmf_level_read(pf, 0, PMF_PART_COMMON, &lvl, &err)) { pmf_close(pf); return false; }
    double side = ldexp(1.0, lvl.chunk_size_exp);
    bool ok = true;
    for (uint32_t y = 0; y < lvl.count_y && ok; y++)
        for (uint32_t x = 0; x < lvl.count_x && ok; x++)
            for (uint32_t z = 0; z < lvl.count_z && ok; z++) {
                pmf_chunk_coord cc = { x, y, z };
                if (!pmf_chunk_present(pf, 0, cc)) continue;
                pmf_chunk ch;
                if (!(ok = pmf_chunk_read(pf, &lvl, 0, cc, PMF_PART_COMMON | PMF_PART_CLIENT, &ch, &err))) break;
                double centre[3] = { ((double)x - lvl.center.x) * side, ((double)y - lvl.center.y) * side,
                                     ((double)z - lvl.center.z) * side };
                chunk_geometry(&ch, centre, faces, g);
                pmf_chunk_free(&ch);
            }
    g->area /= UNITS_M * UNITS_M;
    pmf_level_free(&lvl);
    pmf_close(pf);
    return ok;
}

/* Converts bsp, then holds the PMF to its faces: nothing more, nothing less. */
static void check_conversion(const char *name, const char *bsp)
{
    char pmf[1100], log[1100];
    snprintf(pmf, sizeof pmf, "%s/%s.pmf", workdir, name);
    snprintf(log, sizeof log, "%s/%s.log", workdir, name);
    int st = test_run(NULL, (const char *[]){ pmfc, bsp, "-o", pmf, NULL }, NULL, log);
    CHECK_EQ(st, 0);
    if (st) return;
    bsp_file b;
    pmf_error err;
    CHECK(bsp_read_file(bsp, &b, &err));
    placed faces = { 0 };
    CHECK(place_faces(bsp, &b, &faces));
    double drawn = 0;
    long drawn_faces = 0;
    for (size_t i = 0; i < faces.count; i++) {
        drawn += faces.faces[i].drawn ? faces.faces[i].area : 0;
        drawn_faces += faces.faces[i].drawn;
    }
    pmf_geometry g;
    CHECK(pmf_geometry_of(pmf, &faces, &g));
    printf("%s: %zu vertices, %zu more than 1 cm from every face of the BSP (the worst %.2f m at %g %g %g); "
           "area %.0f square units, the BSP's drawn faces %.0f\n",
           name, g.vertices, g.far, g.worst * UNITS_M, g.worst_at[0], g.worst_at[1], g.worst_at[2], g.area, drawn);
    CHECK(g.vertices > 0);
    CHECK_EQ(g.far, 0);
    CHECK(g.area <= drawn * 1.001 + 1, "%.0f square units drawn, the BSP's faces %.0f", g.area, drawn);
    CHECK(g.area >= drawn * 0.999 - 1, "%.0f square units drawn, the BSP's faces %.0f", g.area, drawn);
    /* every face the BSP draws is drawn, one brush each; hlbsp sealed it (it has a PVS): no leak */
    size_t size;
    char *text = (char *)test_read_file(log, &size);
    const char *summary = text ? strstr(text, "pmfc: GoldSrc BSP v30, ") : NULL;
    long placed_faces = -1, drawn_by_pmfc = -1;
    CHECK(summary && sscanf(summary, "pmfc: GoldSrc BSP v30, %ld faces, %ld drawn", &placed_faces, &drawn_by_pmfc) == 2,
          "%s", text ? text : "no log");
    CHECK_EQ(placed_faces, (long)faces.count);
    CHECK_EQ(drawn_by_pmfc, drawn_faces);
    printf("%s: %ld of the BSP's %zu faces drawn, as the BSP draws them\n", name, drawn_by_pmfc, faces.count);
    CHECK(text && !strstr(text, "leak"), "%s", text ? text : "no log");
    free(text);
    snprintf(log, sizeof log, "%s/%s.info", workdir, name);
    CHECK_EQ(test_run(NULL, (const char *[]){ pmfview, "info", pmf, NULL }, log, log), 0);
    text = (char *)test_read_file(log, &size);
    CHECK(text && strstr(text, "Compiled from a GoldSrc BSP v30 map\n") && !strstr(text, "GoldSrc GoldSrc")
              && strstr(text, "GoldSrc BSP v30") && !strstr(text, "(GoldSrc)") && !strstr(text, "leak:"),
          "%s", text ? text : "no info");
    free(text);
    for (size_t i = 0; i < faces.count; i++) free(faces.faces[i].p);
    free(faces.faces);
    bsp_free(&b);
}

/* The room: a pit in its floor holds a pool of !water, 16 units under the floor; a pillar; a
 * func_water standing on the floor; a func_rotating built around its origin. With a PVS. */
static bsp_build_scene pool_room(void)
{
    static const bsp_build_box world[] = {
        { { -128, -128, 0 }, { 128, 128, 128 }, BSP_BUILD_EMPTY, "" },
        { { -48, -48, -64 }, { 48, 48, 0 }, BSP_BUILD_EMPTY, "" },
        { { -48, -48, -64 }, { 48, 48, -16 }, BSP_BUILD_WATER, "!water" },
        { { 64, 64, 0 }, { 96, 96, 64 }, BSP_BUILD_SOLID, "pillar" },
    };
    static const bsp_build_box water[] = { { { -112, -112, 0 }, { -80, -80, 24 }, BSP_BUILD_WATER, "!toxic" } };
    static const bsp_build_box spinner[] = { { { -8, -8, -8 }, { 8, 8, 8 }, BSP_BUILD_SOLID, "pillar" } };
    static const bsp_build_model models[] = {
        { world, 4, BSP_BUILD_SOLID, "room_wall", { -160, -160, -96 }, { 160, 160, 160 } },
        { water, 1, BSP_BUILD_EMPTY, "", { -128, -128, -16 }, { -64, -64, 40 } },
        { spinner, 1, BSP_BUILD_EMPTY, "", { -24, -24, -24 }, { 24, 24, 24 } },
    };
    const char *entities =
        "{\n\"classname\" \"worldspawn\"\n\"_compiler\" \"bsp_build 1.0\"\n}\n"
        "{\n\"classname\" \"info_player_start\"\n\"origin\" \"-32 -64 36\"\n\"angle\" \"90\"\n}\n"
        "{\n\"classname\" \"light\"\n\"origin\" \"0 0 96\"\n\"light\" \"300\"\n}\n"
        "{\n\"classname\" \"func_water\"\n\"model\" \"*1\"\n}\n"
        "{\n\"classname\" \"func_rotating\"\n\"model\" \"*2\"\n\"origin\" \"64 -96 24\"\n}\n";
    return (bsp_build_scene){ entities, models, 3, true };
}

static void check_pool_room(const bsp_build_scene *scene)
{
    uint8_t *bytes;
    size_t size;
    uint32_t faces;
    bsp_build_scene_write(scene, &bytes, &size, &faces);
    char path[1100];
    snprintf(path, sizeof path, "%s/pool.bsp", workdir);
    CHECK(test_write_file(path, bytes, size));
    free(bytes);
    /* the file reads, and holds what the scene says: liquid faces in the world and a model */
    bsp_file b;
    pmf_error err;
    CHECK(bsp_read_file(path, &b, &err), "%s", err.message);
    CHECK_EQ(b.model_count, 3);
    CHECK_EQ(b.face_count, faces);
    uint32_t world_liquid = 0;
    for (uint32_t f = 0; f < b.models[0].face_count; f++)
        world_liquid += b.textures[b.texinfos[b.faces[b.models[0].first_face + f].texinfo].texture].name[0] == '!';
    CHECK(world_liquid >= 2, "%u liquid faces in the world", world_liquid);
    bsp_free(&b);
    check_conversion("pool", path);
}

/* Converts a scene written as DIR/NAME.bsp: whether pmfc reports the void reaching the start. */
static bool scene_leaks(const char *name, const bsp_build_scene *scene)
{
    uint8_t *bytes;
    size_t size;
    bsp_build_scene_write(scene, &bytes, &size, NULL);
    char bsp[1100], pmf[1200], log[1200];
    snprintf(bsp, sizeof bsp, "%s/%s.bsp", workdir, name);
    snprintf(pmf, sizeof pmf, "%s.pmf", bsp);
    snprintf(log, sizeof log, "%s.log", bsp);
    CHECK(test_write_file(bsp, bytes, size));
    free(bytes);
    CHECK_EQ(test_run(NULL, (const char *[]){ pmfc, bsp, "-o", pmf, NULL }, NULL, log), 0);
    char *text = (char *)test_read_file(log, &size);
    bool leak = text && strstr(text, "leak: the void reaches info_player_start");
    printf("%s: %s\n", name, leak ? "leaks" : "sealed");
    free(text);
    return leak;
}

/* The leak verdict is the compiler's. A room whose wall has a hole, the void outside it left open
 * as hlbsp leaves a map that leaks: written with a PVS (which says hlbsp sealed it) no leak is
 * reported, though pmfc's own flood finds the hole; without one, the open leaves outside say it
 * leaks, and the leak is reported. The pool room without a PVS: its leaves say sealed. */
static void check_leak_verdict(const bsp_build_scene *pool)
{
    static const bsp_build_box world[] = {
        { { -160, -160, -32 }, { 160, 160, 160 }, BSP_BUILD_SOLID, "room_wall" },
        { { -128, -128, 0 }, { 128, 128, 128 }, BSP_BUILD_EMPTY, "" },
        { { 100, -16, 16 }, { 200, 16, 48 }, BSP_BUILD_EMPTY, "" },
    };
    static const bsp_build_model models[] = { { world, 3, BSP_BUILD_EMPTY, "", { -192, -192, -64 }, { 192, 192, 192 } } };
    const char *entities =
        "{\n\"classname\" \"worldspawn\"\n}\n"
        "{\n\"classname\" \"info_player_start\"\n\"origin\" \"-32 -64 36\"\n}\n"
        "{\n\"classname\" \"light\"\n\"origin\" \"0 0 96\"\n\"light\" \"300\"\n}\n";
    CHECK(!scene_leaks("hole_vis", &(bsp_build_scene){ entities, models, 1, true }));
    CHECK(scene_leaks("hole_novis", &(bsp_build_scene){ entities, models, 1, false }));
    bsp_build_scene unvised = *pool;
    unvised.vis = false;
    CHECK(!scene_leaks("pool_novis", &unvised));
}

/* `info` names every source's game once (a BSP's format names it already): the .map dialects
 * compiled by pmfc, their description and source lines. */
static void check_source_names(void)
{
    static const struct { const char *name, *text, *description, *source; } maps[] = {
        { "standard", map_sample_standard, "Compiled from a Quake .map (standard)\n", "Quake .map (standard)\n" },
        { "valve", map_sample_valve, "Compiled from a GoldSrc .map (Valve 220)\n", "GoldSrc .map (Valve 220)\n" },
        { "quake2", map_sample_quake2, "Compiled from a Quake 2 .map\n", "Quake 2 .map\n" },
    };
    for (size_t i = 0; i < sizeof maps / sizeof *maps; i++) {
        char path[1000], info[1100];
        snprintf(path, sizeof path, "%s/%s.map", workdir, maps[i].name);
        snprintf(info, sizeof info, "%s.info", path);
        test_write_text(path, maps[i].text);
        char compiled[1100];
        snprintf(compiled, sizeof compiled, "%s.pmf", path);
        CHECK_EQ(test_run(NULL, (const char *[]){ pmfc, path, "-o", compiled, "-q", NULL }, info, info), 0);
        CHECK_EQ(test_run(NULL, (const char *[]){ pmfview, "info", compiled, NULL }, info, info), 0);
        size_t size;
        char *text = (char *)test_read_file(info, &size);
        const char *source = text ? strstr(text, "source:") : NULL;
        CHECK(text && strstr(text, maps[i].description) && source && strstr(source, maps[i].source) == source + 14,
              "%s: %s", maps[i].name, text ? text : "no info");
        free(text);
    }
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: test_bsp_convert PMFC PMFVIEW WORKDIR [SHARED.bsp]\n");
        return 2;
    }
    pmfc = argv[1];
    pmfview = argv[2];
    workdir = argv[3];
    test_remove_tree(workdir);
    if (!test_make_dir(workdir)) return 1;
    pmf_os_setenv("XDG_CACHE_HOME", workdir);
    bsp_build_scene pool = pool_room();
    check_pool_room(&pool);
    check_leak_verdict(&pool);
    check_source_names();
    if (argc > 4) {
        FILE *f = fopen(argv[4], "rb");
        if (f) {
            fclose(f);
            check_conversion("shared", argv[4]);
        } else {
            printf("no shared BSP: skipped\n");
        }
    }
    TEST_DONE();
}
