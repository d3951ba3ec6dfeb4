/* sweep_probe.c - `pmfsweep probe MAP.pmf [PICTURE.png]`: the figures of one sweep row that the
 * compiled map and its start picture hold (docs/sweep.md "Columns"), one `name: value` a line.
 *
 * Whether the start camera is inside the map: rays in SWEEP_RAYS directions spread evenly over
 * the sphere, from the level's first start camera against the triangles the viewer draws around
 * it (the chunks within shot's streaming radius). Inside, every ray meets the front of a wall,
 * floor or ceiling, or leaves through a sky face (sky faces are holes in the compiled map). From
 * the void the rays escape or meet the backs of the walls (the outside fill removed the faces
 * only the void sees), and from inside a solid brush they meet the backs of the faces around it. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "base/grow.h"
#include "base/pmf_budget.h"
#include "base/text_clean.h"
#include "bvh.h"
#include "mesh.h"
#include "pmf/pmf_cameras.h"
#include "pmf/pmf_map_info.h"
#include "res/res.h"
#include "sweep.h"

#define SWEEP_RAYS 256
/* Inside: at most this % of the rays meet a back face (one may slip through a seam), at least
 * this % meet a front face (the floor's half and some walls: the rest may leave through the sky,
 * whose faces are holes in the compiled map). */
#define SWEEP_INSIDE_MAX_BACK 2.0
#define SWEEP_INSIDE_MIN_FRONT 55.0
/* In a solid brush the faces all around are seen from behind. */
#define SWEEP_SOLID_MIN_BACK 90.0
/* shot's default streaming radius (STREAM_DEFAULT_RADIUS): the chunks its picture can show. */
#define SWEEP_RADIUS 8
/* A pixel is black when no channel passes this (of 255). */
#define SWEEP_BLACK_MAX 8

typedef struct probe_geometry {
    float (*triangles)[9];
    uint8_t *two_sided;              /* per triangle: its batch draws backfaces (liquids, fences) */
    size_t count, cap, two_sided_cap;
    uint64_t level_triangles;        /* every chunk of the level, not only those near the camera */
} probe_geometry;

static int fail(const pmf_error *err, int code)
{
    char line[1024];
    fprintf(stderr, "pmfsweep: %s\n", pmf_error_format(err, line, sizeof line));
    return code;
}

static int bad_input_code(const pmf_error *err) { return err->over_budget ? 3 : 2; }

/* Appends mc's triangles in world metres (its centre at offset). False when out of memory. */
static bool add_chunk_triangles(probe_geometry *g, const mesh_chunk *mc, const double offset[3])
{
    size_t need = g->count + mc->index_count / 3;
    if (!grow_array_budget((void **)&g->triangles, &g->cap, need, sizeof *g->triangles) ||
        !grow_array_budget((void **)&g->two_sided, &g->two_sided_cap, need, 1))
        return false;
    for (uint32_t b = 0; b < mc->batch_count; b++) {
        const mesh_batch *bt = &mc->batches[b];
        for (uint32_t i = bt->first_index; i + 2 < bt->first_index + bt->index_count; i += 3) {
            float *t = g->triangles[g->count];
            for (int k = 0; k < 3; k++) {
                float local[3];
                mesh_vertex_position(mc, &mc->vertices[mc->indices[i + (uint32_t)k]], local);
                for (int a = 0; a < 3; a++)
                    t[k * 3 + a] = (float)(local[a] + offset[a]);
            }
            g->two_sided[g->count++] = bt->backfaces;
        }
    }
    return true;
}

/* Meshes every present chunk of level 0: counts all triangles, keeps those of the chunks within
 * SWEEP_RADIUS of `eye`. Exit code. */
static int read_geometry(const pmf_file *f, const float eye[3], probe_geometry *g)
{
    pmf_error err = { 0 };
    pmf_level lvl;
    if (!pmf_level_read(f, 0, PMF_PART_COMMON | PMF_PART_CLIENT, &lvl, &err))
        return fail(&err, bad_input_code(&err));
    mesh_atlas *atlas = mesh_atlas_create(&(mesh_atlas_desc){ 0 });
    if (!atlas) {
        pmf_level_free(&lvl);
        fprintf(stderr, "pmfsweep: out of memory\n");
        return 3;
    }
    const pmf_level_info *li = &f->levels[0];
    double side = ldexp(1.0, lvl.chunk_size_exp);
    int64_t eye_chunk[3];
    const uint32_t center[3] = { lvl.center.x, lvl.center.y, lvl.center.z };
    for (int a = 0; a < 3; a++)
        eye_chunk[a] = (int64_t)center[a] + (int64_t)floor(eye[a] / side + 0.5);
    int rc = 0;
    for (uint32_t x = 0; x < li->count_x && !rc; x++)
        for (uint32_t y = 0; y < li->count_y && !rc; y++)
            for (uint32_t z = 0; z < li->count_z && !rc; z++) {
                pmf_chunk_coord c = { x, y, z };
                if (!pmf_chunk_present(f, 0, c))
                    continue;
                pmf_chunk ch;
                if (!pmf_chunk_read(f, &lvl, 0, c, PMF_PART_COMMON | PMF_PART_CLIENT, &ch, &err)) {
                    rc = fail(&err, bad_input_code(&err));
                    break;
                }
                mesh_chunk mc;
                char why[256];
                if (!mesh_build_chunk(&lvl, &ch, &(mesh_desc){ .atlas = atlas }, &mc, why, sizeof why)) {
                    fprintf(stderr, "pmfsweep: %s: level 0 %s\n", f->name, why);
                    pmf_chunk_free(&ch);
                    rc = 2;
                    break;
                }
                g->level_triangles += mc.index_count / 3;
                const uint32_t at[3] = { x, y, z };
                bool near = true;
                double offset[3];
                for (int a = 0; a < 3; a++) {
                    near = near && llabs((int64_t)at[a] - eye_chunk[a]) <= SWEEP_RADIUS;
                    offset[a] = ((double)at[a] - (double)center[a]) * side;
                }
                if (near && !add_chunk_triangles(g, &mc, offset)) {
                    fprintf(stderr, "pmfsweep: %s: the triangles around the camera pass the memory budget\n",
                            f->name);
                    rc = 3;
                }
                mesh_chunk_free(&mc);
                pmf_chunk_free(&ch);
            }
    mesh_atlas_destroy(atlas);
    pmf_level_free(&lvl);
    return rc;
}

typedef struct enclosure { unsigned front, back, open; } enclosure;

/* Casts SWEEP_RAYS rays from eye (a Fibonacci spiral over the sphere) as far as reach metres. */
static bool measure_enclosure(const probe_geometry *g, const float eye[3], float reach, enclosure *out)
{
    bvh tree;
    if (!bvh_build((const float(*)[9])g->triangles, g->count, 0, &tree))
        return false;
    *out = (enclosure){ 0 };
    const double golden = M_PI * (3.0 - sqrt(5.0));
    for (int i = 0; i < SWEEP_RAYS; i++) {
        double y = 1.0 - (i + 0.5) * 2.0 / SWEEP_RAYS, r = sqrt(1.0 - y * y), phi = golden * i;
        float dir[3] = { (float)(r * cos(phi)), (float)y, (float)(r * sin(phi)) };
        float to[3] = { eye[0] + dir[0] * reach, eye[1] + dir[1] * reach, eye[2] + dir[2] * reach };
        float s;
        uint32_t hit;
        if (!bvh_segment_nearest_triangle(&tree, eye, to, 0.0f, 1.0f, &s, &hit)) {
            out->open++;
            continue;
        }
        const float *t = g->triangles[hit];
        float e1[3] = { t[3] - t[0], t[4] - t[1], t[5] - t[2] }, e2[3] = { t[6] - t[0], t[7] - t[1], t[8] - t[2] };
        float n[3] = { e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0] };
        /* counter-clockwise seen from the front (the renderer's culling) */
        bool front = g->two_sided[hit] || n[0] * dir[0] + n[1] * dir[1] + n[2] * dir[2] < 0.0f;
        if (front)
            out->front++;
        else
            out->back++;
    }
    bvh_free(&tree);
    return true;
}

static void print_enclosure(const enclosure *e)
{
    double front = 100.0 * e->front / SWEEP_RAYS, back = 100.0 * e->back / SWEEP_RAYS, open = 100.0 * e->open / SWEEP_RAYS;
    const char *verdict = back <= SWEEP_INSIDE_MAX_BACK && front >= SWEEP_INSIDE_MIN_FRONT ? "yes"
                          : back >= SWEEP_SOLID_MIN_BACK                                  ? "no (in a solid)"
                                                                                           : "no (outside)";
    printf("rays: front %.0f%%, back %.0f%%, open %.0f%%\ninside: %s\n", front, back, open, verdict);
}

bool sweep_picture_read(const char *path, res_image *out, char *why, size_t why_size)
{
    pmf_error err = { 0 };
    uint8_t *bytes;
    size_t size;
    bool ok = pmf_read_whole_file(path, (uint64_t)1 << 30, &bytes, &size, &err);
    if (ok) {
        ok = res_image_decode_fit(bytes, size, path, SWEEP_PICTURE_MAX_SIDE, out, &err);
        pmf_budget_free(bytes);
    }
    if (!ok)
        pmf_error_format(&err, why, why_size);
    return ok;
}

/* Share of black pixels and the median Rec. 709 luma (0..255) of the picture. */
static int print_picture(const char *path)
{
    res_image img;
    char why[1024];
    if (!sweep_picture_read(path, &img, why, sizeof why)) {
        fprintf(stderr, "pmfsweep: %s\n", why);
        return 2;
    }
    uint64_t histogram[256] = { 0 }, black = 0, pixels = (uint64_t)img.width * img.height;
    for (uint64_t p = 0; p < pixels; p++) {
        const uint8_t *px = &img.rgba[p * 4];
        black += px[0] <= SWEEP_BLACK_MAX && px[1] <= SWEEP_BLACK_MAX && px[2] <= SWEEP_BLACK_MAX;
        histogram[(int)lround(0.2126 * px[0] + 0.7152 * px[1] + 0.0722 * px[2])]++;
    }
    int median = 0;
    for (uint64_t seen = histogram[0]; seen * 2 < pixels; seen += histogram[++median]) {}
    printf("black: %.1f%%\nmedian brightness: %d\n", 100.0 * (double)black / (double)pixels, median);
    res_image_free(&img);
    return 0;
}

typedef struct probe_options {
    const char *map, *picture;
    bool has_eye;
    float eye[3];
} probe_options;

enum { OPT_PICTURE = 256, OPT_AT };

static const cli_option probe_options_table[] = {
    CLI_OPTION_HELP,
    { "picture", 0, OPT_PICTURE, CLI_TEXT, "PICTURE.png", NULL, 0, 0, 0, "the start picture to measure", NULL },
    { "at", 0, OPT_AT, CLI_TEXT, "X,Y,Z", NULL, 0, 0, 0, "where to test insideness, world metres", "the start camera" },
    { 0 },
};

static const cli_desc probe_cli = {
    .program = "pmfsweep", .command = "probe", .options = probe_options_table,
    .usage = "usage: pmfsweep probe MAP.pmf [--picture PICTURE.png] [--at X,Y,Z]\n"
             "The start camera's name, the leak, the level's triangles, whether the camera (or --at) is\n"
             "inside, and the picture's black share and median brightness (docs/sweep.md).\n\n",
};

static int handle(void *user, int id, const cli_value *v)
{
    probe_options *o = user;
    char end;
    switch (id) {
    case OPT_PICTURE: o->picture = v->text; return 0;
    case OPT_AT:
        if (sscanf(v->text, "%f,%f,%f%c", &o->eye[0], &o->eye[1], &o->eye[2], &end) != 3 ||
            !isfinite(o->eye[0]) || !isfinite(o->eye[1]) || !isfinite(o->eye[2]))
            return cli_bad_value(&probe_cli, cli_find(probe_options_table, id), "X,Y,Z in metres", v->text);
        o->has_eye = true;
        return 0;
    case CLI_OPERAND:
        if (o->map)
            return cli_usage_error("pmfsweep", "probe", "one map only: '%s'", v->text);
        o->map = v->text;
        return 0;
    }
    return 0; /* getopt_long hands over only the ids of the table */
}

int sweep_probe(int argc, char **argv)
{
    probe_options o = { 0 };
    cli_desc cli = probe_cli;
    cli.handle = handle;
    cli.user = &o;
    int rc = cli_parse(&cli, argc, argv);
    if (!rc && !o.map)
        rc = cli_usage_error("pmfsweep", "probe", "%s", "needs a MAP.pmf");
    if (rc)
        return rc == CLI_DONE ? 0 : rc;
    pmf_budget_set_limit(pmf_budget_default(PMF_BUDGET_VIEWER));
    pmf_error err = { 0 };
    pmf_file *f = pmf_open(o.map, &err);
    if (!f)
        return fail(&err, bad_input_code(&err));
    pmf_cameras cams;
    pmf_leak leak;
    if (!pmf_cameras_read(f, &cams, &err)) {
        pmf_close(f);
        return fail(&err, 2);
    }
    if (!pmf_leak_read(f, &leak, &err)) {
        pmf_cameras_free(&cams);
        pmf_close(f);
        return fail(&err, 2);
    }
    /* shot's default camera: the level's first start camera, else the world origin */
    const pmf_camera *start = pmf_cameras_first(&cams, 0);
    float eye[3] = { 0, 0, 0 };
    char name[256];
    if (o.has_eye)
        memcpy(eye, o.eye, sizeof eye);
    else if (start)
        memcpy(eye, start->pos, sizeof eye);
    printf("camera: %s\n", start ? text_clean(start->name, name, sizeof name) : "none");
    printf("leak: %s\n", leak.present ? "yes" : "no");
    probe_geometry g = { 0 };
    rc = f->level_count ? read_geometry(f, eye, &g) : 0;
    if (!rc) {
        printf("triangles: %llu\n", (unsigned long long)g.level_triangles);
        const pmf_level_info *li = f->level_count ? &f->levels[0] : NULL;
        /* past every chunk within the radius, from anywhere in them */
        float reach = li ? (float)ldexp(4.0 * SWEEP_RADIUS, li->chunk_size_exp) : 1.0f;
        enclosure e;
        if (!measure_enclosure(&g, eye, reach, &e)) {
            fprintf(stderr, "pmfsweep: %s: the ray tree passes the memory budget\n", f->name);
            rc = 3;
        } else {
            print_enclosure(&e);
        }
    }
    pmf_budget_free(g.triangles);
    pmf_budget_free(g.two_sided);
    pmf_leak_free(&leak);
    pmf_cameras_free(&cams);
    pmf_close(f);
    if (!rc && o.picture)
        rc = print_picture(o.picture);
    return rc;
}
