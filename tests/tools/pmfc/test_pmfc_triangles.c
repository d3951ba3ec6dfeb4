/* test_pmfc_triangles.c - nothing drawn is dropped (issue 39): sources whose smallest cubes hold
 * more than one extended cube can (more than six materials, more than 6 x 255 triangles, one solid
 * of each direction before another material) compile with no "found no room" warning, every
 * source triangle drawn: the map's triangle count and drawn area are the solids' own. A real map
 * that used to drop triangles compiles without the warning.
 * Usage: test_pmfc_triangles CASE PMFC WORKDIR [MAP]   (CASE: seven_materials one_box_each many
 * real MAP) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmf/pmf.h"
#include "common/check.h"
#include "common/programs.h"

#define WARNING "found no room"

static const char *pmfc, *workdir;

/* Triangles and their summed area over every present chunk of level 0. */
typedef struct drawn { size_t tris; double area; } drawn;

static double tri_area(const pmf_vertex *a, const pmf_vertex *b, const pmf_vertex *c)
{
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = (double)b->xyz[k] - a->xyz[k];
        e2[k] = (double)c->xyz[k] - a->xyz[k];
    }
    double n[3] = { e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0] };
    return sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]) / 2;
}

/* Geometry cubes' quads as (v0 v1 v2)(v0 v2 v3), extended cubes' triangle runs. */
static void chunk_drawn(const pmf_chunk *ch, drawn *d)
{
    const pmf_vertex *v = ch->client.vertices;
    for (uint32_t i = 0; i < ch->common.cube_count; i++) {
        const pmf_cube *c = &ch->common.cubes[i];
        const pmf_client_cube *cc = &ch->client.cubes[i];
        if (c->type == PMF_CUBE_GEOMETRY) {
            uint32_t q = cc->u.geom.first_vertex;
            for (int f = 0; f < PMF_FACE_COUNT; f++)
                if (cc->u.geom.face_mask >> f & 1) {
                    d->area += tri_area(&v[q], &v[q + 1], &v[q + 2]) + tri_area(&v[q], &v[q + 2], &v[q + 3]);
                    d->tris += 2;
                    q += 4;
                }
        } else if (c->type == PMF_CUBE_EXTGEOMETRY) {
            uint32_t t = cc->u.ext.first_vertex;
            for (int f = 0; f < PMF_FACE_COUNT; f++)
                for (int k = 0; k < cc->u.ext.tri_count[f]; k++, t += 3) {
                    d->area += tri_area(&v[t], &v[t + 1], &v[t + 2]);
                    d->tris++;
                }
        }
    }
}

static drawn map_drawn(const char *path)
{
    drawn d = { 0, 0 };
    pmf_error err;
    char msg[768];
    pmf_file *f = pmf_open(path, &err);
    CHECK(f, "cannot open %s: %s", path, pmf_error_format(&err, msg, sizeof msg));
    if (!f) return d;
    CHECK(pmf_validate(f, NULL, &err), "%s does not validate: %s", path, pmf_error_format(&err, msg, sizeof msg));
    pmf_level lvl;
    if (pmf_level_read(f, 0, PMF_PART_ALL, &lvl, &err)) {
        for (uint32_t y = 0; y < lvl.count_y; y++)
            for (uint32_t x = 0; x < lvl.count_x; x++)
                for (uint32_t z = 0; z < lvl.count_z; z++) {
                    pmf_chunk_coord c = { x, y, z };
                    pmf_chunk ch;
                    if (!pmf_chunk_present(f, 0, c)) continue;
                    CHECK(pmf_chunk_read(f, &lvl, 0, c, PMF_PART_ALL, &ch, &err));
                    chunk_drawn(&ch, &d);
                    pmf_chunk_free(&ch);
                }
        pmf_level_free(&lvl);
    }
    pmf_close(f);
    return d;
}

/* Whether pmfc's log (stderr) warned of dropped triangles; prints it when it did. */
static bool log_warns(const char *log)
{
    size_t size;
    char *text = (char *)test_read_file(log, &size);
    CHECK(text, "no log %s", log);
    bool warns = text && strstr(text, WARNING);
    if (warns) fprintf(stderr, "%s", text);
    free(text);
    return warns;
}

/* `n` boxes of side `side` on a grid of pitch `pitch` from (0.2, 0.2, 0.2) (n_x x n_y x n_z),
 * box k of material "m(k mod materials)": compiled, no warning, every triangle drawn. */
static void check_boxes(const char *name, int nx, int ny, int nz, double side, double pitch, int materials)
{
    size_t cap = 4096 + (size_t)nx * ny * nz * 96;
    char *src = malloc(cap), path[512];
    size_t len = (size_t)snprintf(src, cap, "map \"%s\"\n", name);
    for (int m = 0; m < materials; m++)
        len += (size_t)snprintf(src + len, cap - len, "material m%d color %d 100 100\n", m, 40 + 20 * m);
    len += (size_t)snprintf(src + len, cap - len, "level main {\n  chunk_size 4\n  light static at 1 6 1 range 20\n");
    int k = 0;
    for (int x = 0; x < nx; x++)
        for (int y = 0; y < ny; y++)
            for (int z = 0; z < nz; z++, k++) {
                double lo[3] = { 0.2 + x * pitch, 0.2 + y * pitch, 0.2 + z * pitch };
                len += (size_t)snprintf(src + len, cap - len, "  box %g %g %g %g %g %g material m%d\n", lo[0], lo[1], lo[2],
                                        lo[0] + side, lo[1] + side, lo[2] + side, k % materials);
            }
    snprintf(src + len, cap - len, "}\n");
    test_workdir w;
    test_workdir_open(&w, pmfc, NULL, workdir);
    int st = test_workdir_compile(&w, name, src, NULL);
    free(src);
    CHECK_EQ(st, 0);
    snprintf(path, sizeof path, "%s/%s.log", workdir, name);
    CHECK(!log_warns(path), "%s: pmfc left triangles out", name);
    snprintf(path, sizeof path, "%s/%s.pmf", workdir, name);
    drawn d = map_drawn(path);
    CHECK_EQ(d.tris, (size_t)k * 12);
    CHECK_NEAR(d.area, k * 6 * side * side, 1e-4 * k);
}

/* A real map that dropped triangles before (lqdm10: 13 of them in 6 cm cubes where brushes of six
 * materials meet, one material having taken two direction groups), compiled with the cheapest
 * light (the geometry is the same): no warning. */
static void check_real(const char *map)
{
    char args[1024], log[512];
    snprintf(log, sizeof log, "%s/real.log", workdir);
    snprintf(args, sizeof args, "%s -o %s/real.pmf --quiet --bounce 0 --samples 1 --max-luxels 1024", map, workdir);
    CHECK_EQ(test_run_words(NULL, pmfc, args, NULL, log), 0);
    CHECK(!log_warns(log), "%s: pmfc left triangles out", map);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fputs("usage: test_pmfc_triangles CASE PMFC WORKDIR [MAP]\n", stderr);
        return 1;
    }
    const char *which = argv[1];
    pmfc = argv[2];
    workdir = argv[3];
    test_make_dir(workdir);
    if (!strcmp(which, "seven_materials")) {
        /* eight boxes of eight materials in one 2 m cube (min_cube): more than its six groups */
        check_boxes(which, 2, 2, 2, 0.4, 0.8, 8);
    } else if (!strcmp(which, "one_box_each")) {
        /* two boxes of two materials in one 2 m cube: the first box's six faces face six ways */
        check_boxes(which, 2, 1, 1, 0.5, 0.8, 2);
    } else if (!strcmp(which, "many")) {
        /* 256 boxes of one material in one 2 m cube: 3072 triangles, past 6 x 255 */
        check_boxes(which, 8, 8, 4, 0.1, 0.2, 1);
    } else if (!strcmp(which, "real") && argc == 5) {
        check_real(argv[4]);
    } else {
        fprintf(stderr, "unknown case %s\n", which);
        return 1;
    }
    if (check_failures) fprintf(stderr, "%d check(s) failed\n", check_failures);
    return check_failures ? 1 : 0;
}
