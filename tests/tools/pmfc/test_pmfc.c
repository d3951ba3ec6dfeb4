/* test_pmfc.c - compiles small .pms sources with the real pmfc and checks what the format library
 * reads back: header, grid, materials, octree shape, geometry quads, lights, regions, errors,
 * determinism. Usage: test_pmfc PMFC WORKDIR */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pmf/pmf.h"
#include "common/check.h"
#include "common/programs.h"

#define CHECK_CLOSE(a, b) CHECK_NEAR(a, b, 1e-4)

static const char *pmfc, *workdir;


/* Runs pmfc on a source text; returns its exit status and what it printed on stderr. */
static int compile(const char *name, const char *source, const char *extra, char *out_pmf, char *stderr_text, size_t size)
{
    char src[512], args[2048], log[512];
    snprintf(src, sizeof src, "%s/%s.pms", workdir, name);
    snprintf(out_pmf ? out_pmf : args, 512, "%s/%s.pmf", workdir, name);
    snprintf(log, sizeof log, "%s/%s.log", workdir, name);
    test_write_text(src, source);
    snprintf(args, sizeof args, "%s -o %s/%s.pmf --quiet --time 1234 %s", src, workdir, name, extra ? extra : "");
    int st = test_run_words(NULL, pmfc, args, NULL, log);
    if (stderr_text) {
        stderr_text[0] = 0;
        FILE *f = fopen(log, "rb");
        if (f) {
            size_t n = fread(stderr_text, 1, size - 1, f);
            stderr_text[n] = 0;
            fclose(f);
        }
    }
    return st;
}

static pmf_file *open_map(const char *path)
{
    pmf_error err;
    pmf_file *f = pmf_open(path, &err);
    if (!f) {
        char buf[768];
        fprintf(stderr, "cannot open %s: %s\n", path, pmf_error_format(&err, buf, sizeof buf));
        exit(1);
    }
    if (!pmf_validate(f, NULL, &err)) {
        char buf[768];
        fprintf(stderr, "%s does not validate: %s\n", path, pmf_error_format(&err, buf, sizeof buf));
        check_failures++;
    }
    return f;
}

static void read_level(pmf_file *f, uint32_t level, pmf_level *lvl)
{
    pmf_error err;
    if (!pmf_level_read(f, level, PMF_PART_ALL, lvl, &err)) { fprintf(stderr, "level read failed\n"); exit(1); }
}

static void read_chunk(pmf_file *f, const pmf_level *lvl, uint32_t level, uint32_t x, uint32_t y, uint32_t z, pmf_chunk *ch)
{
    pmf_error err;
    if (!pmf_chunk_read(f, lvl, level, (pmf_chunk_coord){ x, y, z }, PMF_PART_ALL, ch, &err)) {
        char buf[768];
        fprintf(stderr, "chunk read failed: %s\n", pmf_error_format(&err, buf, sizeof buf));
        exit(1);
    }
}

/* Walks the octree checking every child spans its octant of the parent; counts leaf types. */
static void walk(const pmf_chunk *ch, uint32_t ci, const float lo[3], const float hi[3], int depth, int counts[4])
{
    CHECK(ci < ch->common.cube_count);
    CHECK(depth < 24);
    if (ci >= ch->common.cube_count || depth >= 24) return;
    const pmf_cube *c = &ch->common.cubes[ci];
    counts[c->type & 3]++;
    if (c->type == PMF_CUBE_GEOMETRY) {
        const pmf_client_cube *cc = &ch->client.cubes[ci];
        uint32_t v = cc->u.geom.first_vertex;
        for (int f = 0; f < PMF_FACE_COUNT; f++) {
            if (!(cc->u.geom.face_mask >> f & 1)) continue;
            const pmf_vertex *q = &ch->client.vertices[v];
            v += 4;
            /* all four corners inside the cube and on one axis plane; counter-clockwise from the front */
            int axis = f % 3;
            float sign = f < 3 ? 1.0f : -1.0f;
            for (int k = 0; k < 4; k++) {
                for (int a = 0; a < 3; a++) CHECK(q[k].xyz[a] >= lo[a] - 1e-4f && q[k].xyz[a] <= hi[a] + 1e-4f);
                CHECK_CLOSE(q[k].xyz[axis], q[0].xyz[axis]);
            }
            float e1[3], e2[3];
            for (int a = 0; a < 3; a++) { e1[a] = q[1].xyz[a] - q[0].xyz[a]; e2[a] = q[2].xyz[a] - q[0].xyz[a]; }
            float n[3] = { e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0] };
            CHECK(n[axis] * sign > 0);
        }
    }
    if (c->type != PMF_CUBE_PARENT) return;
    for (int o = 0; o < 8; o++) {
        if (!(c->u.parent.child_mask >> o & 1)) continue;
        float clo[3], chi[3], mid[3];
        for (int a = 0; a < 3; a++) { mid[a] = (lo[a] + hi[a]) / 2; clo[a] = lo[a]; chi[a] = hi[a]; }
        if (o & PMF_OCTANT_NEG_X) chi[0] = mid[0]; else clo[0] = mid[0];
        if (o & PMF_OCTANT_NEG_Y) chi[1] = mid[1]; else clo[1] = mid[1];
        if (o & PMF_OCTANT_NEG_Z) chi[2] = mid[2]; else clo[2] = mid[2];
        walk(ch, c->u.parent.children[o], clo, chi, depth + 1, counts);
    }
}

/* One 2 m box in the +X+Y+Z octant of one 16 m chunk, and a light. */
static void test_single_box(void)
{
    char pmf[512];
    int st = compile("box", "map \"Box\"\ndescription \"one box\"\nauthors \"tests\"\ngamemode coop ffa\n"
                     "material stone color 200 180 160\n"
                     "level main {\n  chunk_size 4\n  box 0.5 0.5 0.5 2.5 2.5 2.5 material stone\n"
                     "  light static at 6 6 6 range 20\n}\n", NULL, pmf, NULL, 0);
    CHECK_EQ(st, 0);
    if (st) return;
    pmf_file *f = open_map(pmf);
    CHECK(!strcmp(f->header.name, "Box"));
    CHECK(!strcmp(f->header.description, "one box"));
    CHECK_EQ(f->header.created, 1234);
    CHECK_EQ(f->header.gamemode_count, 2);
    CHECK(!strcmp(f->header.gamemodes[1], "ffa"));
    CHECK_EQ(f->level_count, 1);
    pmf_level lvl;
    read_level(f, 0, &lvl);
    CHECK_EQ(lvl.chunk_size_exp, 4);
    CHECK_EQ(lvl.count_x, 1);
    CHECK_EQ(lvl.count_y, 1);
    CHECK_EQ(lvl.count_z, 1);
    CHECK_EQ(lvl.center.x, 0);
    CHECK_EQ(lvl.common.material_count, 1);
    CHECK(!strcmp(lvl.common.materials[0].name, "stone"));
    CHECK_EQ(lvl.client.materials[0].color[1], 180);
    pmf_chunk ch;
    read_chunk(f, &lvl, 0, 0, 0, 0, &ch);
    /* 16 m chunk, 8 m cells: root parent with all 8 octants; the box is in octant 0 */
    const pmf_cube *root = &ch.common.cubes[0];
    CHECK_EQ(root->type, PMF_CUBE_PARENT);
    CHECK_EQ(root->u.parent.child_mask, 0xFF);
    const pmf_cube *box = &ch.common.cubes[root->u.parent.children[0]];
    CHECK_EQ(box->type, PMF_CUBE_GEOMETRY);
    CHECK(box->flags & PMF_CUBE_HAS_VISIBILITY);
    for (int o = 1; o < 8; o++) {
        const pmf_cube *c = &ch.common.cubes[root->u.parent.children[o]];
        CHECK_EQ(c->type, PMF_CUBE_EMPTY);
        CHECK(c->flags & PMF_CUBE_HAS_LIGHTING);
    }
    const pmf_client_cube *cc = &ch.client.cubes[root->u.parent.children[0]];
    CHECK_EQ(cc->u.geom.face_mask, 0x3F);
    CHECK_EQ(cc->u.geom.lightmap, 0);
    CHECK_EQ(ch.client.lightmap_count, 1);
    CHECK_EQ(ch.client.vertex_count, 24);
    /* +X quad first: x = 2.5, corners at 0.5 / 2.5 */
    const pmf_vertex *q = &ch.client.vertices[cc->u.geom.first_vertex];
    for (int k = 0; k < 4; k++) {
        CHECK_CLOSE(q[k].xyz[0], 2.5);
        CHECK(fabsf(q[k].xyz[1] - 0.5f) < 1e-5f || fabsf(q[k].xyz[1] - 2.5f) < 1e-5f);
        CHECK(fabsf(q[k].xyz[2] - 0.5f) < 1e-5f || fabsf(q[k].xyz[2] - 2.5f) < 1e-5f);
        CHECK(q[k].lm_uv[0] > 0 && q[k].lm_uv[0] < 1 && q[k].lm_uv[1] > 0 && q[k].lm_uv[1] < 1);
    }
    /* -Y quad (the fifth) at y = 0.5, -Z quad (the sixth) at z = 0.5 */
    for (int k = 0; k < 4; k++) {
        CHECK_CLOSE(q[16 + k].xyz[1], 0.5);
        CHECK_CLOSE(q[20 + k].xyz[2], 0.5);
    }
    int counts[4] = { 0 };
    float lo[3] = { -8, -8, -8 }, hi[3] = { 8, 8, 8 };
    walk(&ch, 0, lo, hi, 0, counts);
    CHECK_EQ(counts[PMF_CUBE_GEOMETRY], 1);
    CHECK_EQ(counts[PMF_CUBE_EMPTY], 7);
    /* the light above lights the top face: some luxel is well above the ambient */
    const pmf_lightmap *lm = &ch.client.lightmaps[0];
    int brightest = 0;
    for (size_t i = 0; i < (size_t)3 << (2 * lm->size_exp); i++) if (lm->luxels[i] > brightest) brightest = lm->luxels[i];
    CHECK(brightest > 60);
    pmf_chunk_free(&ch);
    pmf_level_free(&lvl);
    pmf_close(f);
}

/* A floor over two chunks along X, a wedge, two levels, lights of every kind, regions, sky. */
static void test_features(void)
{
    char pmf[512];
    int st = compile("features",
        "map \"Features\"\n"
        "texture water procedural water 32 color 40 90 140 color2 150 200 230\n"
        "texture sky procedural sky 16\n"
        "physics stone friction 0.9\n"
        "sound_material stone volume 0.5 frequency 0.25\n"
        "material stone physics stone sound stone\n"
        "material glow emission 255 200 100 shading 0 additive\n"
        "material water {\n  texture water\n  transparent\n  liquid\n  alpha 180\n  scroll 0.1 0\n  wave 1 0 0 0.5 0 0.2\n}\n"
        "material sky texture sky shading 0\n"
        "level one {\n  chunk_size 4\n"
        "  box -8 -1 -8 24 0 8 material stone\n"
        "  wedge 2 0 -2 6 2 2 rise +x material stone\n"
        "  box 10 0 -2 14 0.5 2 material water\n"
        "  light static at 0 4 0 range 12\n"
        "  light dynamic 7 at 4 3 0 color 255 0 0 range 10 off\n"
        "  light fast 9 at 12 3 0 color 0 255 0 range 8 intensity 128\n"
        "  sky day {\n    all sky\n  }\n  default sky day\n"
        "  gravity low 0 -3 0\n  region gravity low -8 0 -8 4 8 8\n"
        "  weather calm wind 1 0 0\n  default weather calm\n"
        "  sound_env hall reverb 0.1 0.5 0.3 0.8 0.1\n  region sound hall 10 0 -4 20 6 4\n"
        "}\n"
        "level two {\n  chunk_size 4\n  room -4 0 -4 4 4 4 thickness 0.5 material stone door +x 1.5 2.5\n"
        "  light static at 0 2 0\n}\n", NULL, pmf, NULL, 0);
    CHECK_EQ(st, 0);
    if (st) return;
    pmf_file *f = open_map(pmf);
    CHECK_EQ(f->level_count, 2);
    CHECK(f->archive.size > 0);
    pmf_level lvl;
    read_level(f, 0, &lvl);
    CHECK_EQ(lvl.count_x, 2);
    CHECK_EQ(lvl.count_y, 1);
    CHECK_EQ(lvl.count_z, 1);
    CHECK_EQ(lvl.center.x, 0);
    CHECK_EQ(f->levels[0].present_chunks, 2);
    CHECK_EQ(lvl.common.material_count, 4);
    CHECK_EQ(lvl.common.materials[2].flags, PMF_MATERIAL_TRANSPARENT | PMF_MATERIAL_LIQUID);
    CHECK_EQ(lvl.common.materials[1].render_mode, PMF_RENDMODE_ADD);
    CHECK(!strcmp(lvl.client.materials[2].texture, "map:textures/water"));
    CHECK_CLOSE(lvl.client.materials[2].wave.scale, 0.2);
    CHECK_EQ(lvl.client.sky_env_count, 1);
    CHECK(!strcmp(lvl.client.sky_envs[0].skybox[PMF_FACE_NEG_Z], "sky"));
    CHECK(!strcmp(lvl.client.default_sky_env, "day"));
    CHECK_EQ(lvl.common.gravity_env_count, 1);
    CHECK_CLOSE(lvl.common.gravity_envs[0].gravity[1], -3);
    CHECK(!strcmp(lvl.common.default_weather_env, "calm"));
    pmf_chunk a, b;
    read_chunk(f, &lvl, 0, 0, 0, 0, &a);
    read_chunk(f, &lvl, 0, 1, 0, 0, &b);
    /* the dynamic light at x = 4 belongs to chunk 0 (and maybe 1), with layers */
    CHECK(a.common.dynamic_light_count >= 1);
    if (a.common.dynamic_light_count) {
        CHECK_EQ(a.common.dynamic_lights[0].id, 7);
        CHECK_EQ(a.common.dynamic_lights[0].flags & PMF_LIGHT_ENABLE, 0);
        CHECK(a.client.dynamic_lights[0].layer_count >= 1);
        CHECK_EQ(a.client.dynamic_lights[0].color[0], 255);
    }
    /* the fast light at x = 12 lights vertices of chunk 1 */
    CHECK(b.common.fast_light_count >= 1);
    if (b.common.fast_light_count) {
        CHECK_EQ(b.common.fast_lights[0].id, 9);
        CHECK_EQ(b.common.fast_lights[0].intensity, 128);
        CHECK(b.client.fast_lights[0].range_count >= 1);
    }
    /* the gravity region lies in chunk 0 only; corners chunk-local, octant order */
    CHECK_EQ(a.common.gravity_region_count, 1);
    CHECK_EQ(b.common.gravity_region_count, 0);
    if (a.common.gravity_region_count) {
        CHECK_CLOSE(a.common.gravity_regions[0].corners[0][0], 4);
        CHECK_CLOSE(a.common.gravity_regions[0].corners[7][0], -8);
        CHECK_CLOSE(a.common.gravity_regions[0].corners[7][1], 0);
        CHECK(!strcmp(a.common.gravity_regions[0].env, "low"));
    }
    CHECK_EQ(b.client.sound_region_count, 1);
    /* the wedge's slope makes an extended cube with moved points */
    int ext = 0, moved = 0;
    for (uint32_t i = 0; i < a.common.cube_count; i++)
        if (a.common.cubes[i].type == PMF_CUBE_EXTGEOMETRY) {
            ext++;
            moved += a.common.cubes[i].u.ext.moved_mask != 0;
        }
    CHECK(ext >= 1);
    CHECK(moved >= 1);
    /* the water is lightmapped like any lit face; every chunk names the load regions of its neighbour */
    int lit = 0;
    for (uint32_t i = 0; i < b.common.cube_count; i++) {
        const pmf_cube *c = &b.common.cubes[i];
        const pmf_client_cube *cc = &b.client.cubes[i];
        if (c->type == PMF_CUBE_GEOMETRY)
            lit += b.common.material_map[c->u.geom.material] == 2 && cc->u.geom.lightmap != PMF_NO_LIGHTMAP;
        if (c->type == PMF_CUBE_EXTGEOMETRY)
            for (int d = 0; d < PMF_FACE_COUNT; d++)
                lit += cc->u.ext.tri_count[d] && b.common.material_map[c->u.ext.material[d]] == 2 && cc->u.ext.lightmap[d] != PMF_NO_LIGHTMAP;
    }
    CHECK(lit >= 1);
    CHECK(a.server.load_region_count >= 1);
    if (a.server.load_region_count) {
        CHECK_EQ(a.server.load_regions[0].chunk_count, 1);
        CHECK_EQ(a.server.load_regions[0].chunks[0].x, 1);
    }
    pmf_chunk_free(&a);
    pmf_chunk_free(&b);
    pmf_level_free(&lvl);
    pmf_close(f);
}

/* Sources past what the format or pmfc can hold: refused at their line, fast, small, no output. */
static void test_limits(void)
{
    char err[4096], out[600];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int st = compile("far", "map \"Far\"\nmaterial s color 9 9 9\nlevel main {\n  box 1e38 0 0 1e38 1 1 material s\n}\n", NULL, out,
                     err, sizeof err);
    CHECK_EQ(st, 2);
    CHECK(strstr(err, "far.pms:4: a corner coordinate 1e+38 is too large") != NULL);
    CHECK(access(out, F_OK) != 0);
    st = compile("reach", "map \"Reach\"\nmaterial s color 9 9 9\nlevel main {\n  box 0 0 0 1 1 1 material s\n"
                          "  box 0 600000 0 1 600001 1 material s\n}\n", NULL, out, err, sizeof err);
    CHECK_EQ(st, 2);
    CHECK(strstr(err, "reach.pms:5: Y coordinate 600000 is beyond the format's reach (-524288..524288 m)") != NULL);
    /* a 65536 m box: 1.4e11 luxels at 4 per metre (the run took 119 s and 4.5 GB) */
    st = compile("wide", "map \"Wide\"\nmaterial s color 9 9 9\nlevel main {\n  box -32768 -1 -32768 32768 0 32768 material s\n}\n",
                 NULL, out, err, sizeof err);
    CHECK_EQ(st, 2);
    CHECK(strstr(err, "wide.pms:5: level 'main' needs about 1.37e+11 lightmap luxels at 4 per metre") != NULL);
    CHECK(strstr(err, "line 4") != NULL);
    CHECK(access(out, F_OK) != 0);
    char src[2048] = "map \"Tex\"\n";
    for (int i = 0; i < 5; i++)
        snprintf(src + strlen(src), sizeof src - strlen(src), "texture t%d procedural checker 4096\n", i);
    st = compile("tex", src, NULL, out, err, sizeof err);
    CHECK_EQ(st, 2);
    CHECK(strstr(err, "tex.pms:6: the textures so far hold 83886080 texels, more than a map may (67108864") != NULL);
    /* two specks 16 km apart in 4 m chunks: 16 M grid cells (a build record each) */
    st = compile("sparse", "map \"S\"\nmaterial s color 9 9 9\nlevel main {\n  chunk_size 2\n  box 0 0 0 1 1 1 material s\n"
                           "  box 16000 0 16000 16001 1 16001 material s\n}\n", NULL, out, err, sizeof err);
    CHECK_EQ(st, 2);
    CHECK(strstr(err, "sparse.pms:3: level 'main' spans 16008001 chunks of 4 m (at most 65536)") != NULL);
    /* names with control bytes are refused, and the message shows them escaped */
    st = compile("esc", "map \"x\x1b[2J\xff\"\nmaterial s color 9 9 9\nlevel main {\n  box 0 0 0 1 1 1 material s\n}\n", NULL, out,
                 err, sizeof err);
    CHECK_EQ(st, 2);
    CHECK(strstr(err, "esc.pms:1: map name 'x\\x1B[2J\\xFF' holds a control character or invalid UTF-8") != NULL);
    CHECK(strchr(err, 0x1b) == NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    long peak_kib = test_children_peak_kib();
    fprintf(stderr, "limits: 6 refusals in %.2f s, children's peak RSS %ld KiB\n", seconds, peak_kib);
    CHECK(seconds < 20);
    CHECK(peak_kib < 512 * 1024);
    if (strstr(err, "tex.pms") == NULL) fprintf(stderr, "%s", err);
}

static void test_errors(void)
{
    char err[4096];
    int st = compile("bad", "map \"Bad\"\nmaterial stone\nlevel main {\n  chunk_size 4\n  box 0 0 0 1 1 1 material x\n}\n",
                     NULL, NULL, err, sizeof err);
    CHECK_EQ(st, 2);
    CHECK(strstr(err, "bad.pms:5: unknown material 'x'") != NULL);
    st = compile("bad2", "map \"Bad\"\nmaterial stone color 300 0 0\n", NULL, NULL, err, sizeof err);
    CHECK_EQ(st, 2);
    CHECK(strstr(err, "bad2.pms:2:") != NULL);
    st = compile("bad3", "level x {\n  box 0 0 0 1 1 1\n}\n", NULL, NULL, err, sizeof err);
    CHECK_EQ(st, 2);
    CHECK(strstr(err, "bad3.pms:2:") != NULL);
    /* the lighting keys: a sun needs a direction that is not zero, a radius is not negative */
    st = compile("bad4", "map \"Bad\"\nmaterial m\nlevel l {\n  box 0 0 0 1 1 1 material m\n  sun color 255 255 255\n}\n",
                 NULL, NULL, err, sizeof err);
    CHECK_EQ(st, 2);
    CHECK(strstr(err, "bad4.pms:5: a sun needs 'toward X Y Z'") != NULL);
    st = compile("bad5", "map \"Bad\"\nmaterial m\nlevel l {\n  box 0 0 0 1 1 1 material m\n  sun toward 0 0 0\n}\n", NULL, NULL,
                 err, sizeof err);
    CHECK_EQ(st, 2);
    CHECK(strstr(err, "bad5.pms:5: the sun's direction is zero") != NULL);
    st = compile("bad6", "map \"Bad\"\nmaterial m smooth 200\n", NULL, NULL, err, sizeof err);
    CHECK_EQ(st, 2);
    CHECK(strstr(err, "bad6.pms:2:") != NULL);
    st = compile("bad7", "map \"Bad\"\nmaterial m\nlevel l {\n  box 0 0 0 1 1 1 material m\n  light static at 0 2 0 radius -1\n}\n",
                 NULL, NULL, err, sizeof err);
    CHECK_EQ(st, 2);
    CHECK(strstr(err, "bad7.pms:5:") != NULL);
    st = compile("bad8", "map \"Bad\"\nmaterial m\nlevel l {\n  box 0 0 0 1 1 1 material m\n  dirt distance 1 sharpness 2\n}\n",
                 NULL, NULL, err, sizeof err);
    CHECK_EQ(st, 2);
    CHECK(strstr(err, "bad8.pms:5: unknown dirt option 'sharpness'") != NULL);
    char args[1024], ignored[600];
    snprintf(ignored, sizeof ignored, "%s/usage.log", workdir);
    snprintf(args, sizeof args, "%s/box.pms -o %s/x.pmf --samples 0", workdir, workdir);
    CHECK_EQ(test_run_words(NULL, pmfc, args, NULL, ignored), 1);
    CHECK_EQ(test_run_words(NULL, pmfc, NULL, NULL, ignored), 1);
    snprintf(args, sizeof args, "%s/box.pms -o %s/x.pmf --frobnicate", workdir, workdir);
    CHECK_EQ(test_run_words(NULL, pmfc, args, NULL, ignored), 1);
    /* --bounce takes 0..32 */
    const char *bad_bounces[3] = { "33", "-1", "x" };
    for (int i = 0; i < 3; i++) {
        char bad[64];
        snprintf(bad, sizeof bad, "--bounce %s", bad_bounces[i]);
        CHECK_EQ(compile("bad_bounce", "map \"B\"\nmaterial m\nlevel l {\n  box 0 0 0 1 1 1 material m\n}\n", bad, NULL, err,
                         sizeof err), 1);
        char want[128];
        snprintf(want, sizeof want, "pmfc: --bounce wants bounces in 0..32, got '%s' (see 'pmfc --help')", bad_bounces[i]);
        CHECK(strstr(err, want) != NULL);
    }
}

static void test_determinism(void)
{
    const char *src = "map \"Det\"\nmaterial m\nlevel l {\n  chunk_size 4\n  room -6 0 -6 6 4 6 material m door -z 1 2\n"
                      "  box -2 0 -2 -1 1 -1 material m\n  light static at 0 2 0\n  light fast 1 at 2 2 2\n}\n";
    char a[512], b[512];
    CHECK_EQ(compile("det_a", src, "--threads 1", a, NULL, 0), 0);
    CHECK_EQ(compile("det_b", src, "--threads 2", b, NULL, 0), 0);
    size_t na = 0, nb = 0;
    unsigned char *pa = test_read_file(a, &na), *pb = test_read_file(b, &nb);
    CHECK(pa && pb && na == nb && !memcmp(pa, pb, na));
    free(pa);
    free(pb);
    /* bounced light (the default above) changes the map; --bounce 0 and --bounce 3 are as
     * reproducible */
    char c[512], d[512];
    const char *extras[2] = { "--bounce 0", "--bounce 3" };
    for (int i = 0; i < 2; i++) {
        char extra[64];
        snprintf(extra, sizeof extra, "%s --threads 1", extras[i]);
        CHECK_EQ(compile("det_c", src, extra, c, NULL, 0), 0);
        snprintf(extra, sizeof extra, "%s --threads 2", extras[i]);
        CHECK_EQ(compile("det_d", src, extra, d, NULL, 0), 0);
        size_t nc = 0, nd = 0;
        unsigned char *pc = test_read_file(c, &nc), *pd = test_read_file(d, &nd);
        pa = test_read_file(a, &na);
        CHECK(pc && pd && nc == nd && !memcmp(pc, pd, nc));
        CHECK(pa && pc && (na != nc || memcmp(pa, pc, na)));
        free(pa);
        free(pc);
        free(pd);
    }
}

/* The deepest cube with visibility data on the way to a chunk-local point. */
static const pmf_cube *vis_cube_at(const pmf_chunk *ch, float S, const float p[3])
{
    const pmf_cube *found = NULL;
    float lo[3] = { -S / 2, -S / 2, -S / 2 }, hi[3] = { S / 2, S / 2, S / 2 };
    uint32_t ci = 0;
    for (int depth = 0; depth < 24 && ci < ch->common.cube_count; depth++) {
        const pmf_cube *c = &ch->common.cubes[ci];
        if (c->flags & PMF_CUBE_HAS_VISIBILITY) found = c;
        if (c->type != PMF_CUBE_PARENT) break;
        int o = 0;
        for (int a = 0; a < 3; a++) {
            float mid = (lo[a] + hi[a]) / 2;
            bool neg = p[a] < mid;
            if (neg) { o |= a == 0 ? PMF_OCTANT_NEG_X : a == 1 ? PMF_OCTANT_NEG_Y : PMF_OCTANT_NEG_Z; hi[a] = mid; }
            else lo[a] = mid;
        }
        if (!(c->u.parent.child_mask >> o & 1)) break;
        ci = c->u.parent.children[o];
    }
    return found;
}

/* Two closed rooms filling chunks -1 and +1 with a solid block between them in chunk 0: no
 * camera cell of one room lists the other room's chunk. */
static void test_visibility(void)
{
    char pmf[512];
    int st = compile("vis", "map \"Vis\"\nmaterial m\nlevel l {\n  chunk_size 4\n  vis_cell 8\n"
                     "  room -24 -8 -8 -8 8 8 material m\n  room 8 -8 -8 24 8 8 material m\n"
                     "  box -4 -8 -8 4 8 8 material m\n"
                     "  light static at -16 3 0\n  light static at 16 3 0\n}\n", NULL, pmf, NULL, 0);
    CHECK_EQ(st, 0);
    if (st) return;
    pmf_file *f = open_map(pmf);
    pmf_level lvl;
    read_level(f, 0, &lvl);
    CHECK_EQ(lvl.count_x, 3);
    CHECK_EQ(f->levels[0].present_chunks, 3);
    pmf_chunk a, b;
    read_chunk(f, &lvl, 0, 0, 0, 0, &a);
    read_chunk(f, &lvl, 0, 2, 0, 0, &b);
    /* inside room A: chunk (0,0,0) is centred at x = -16, so the room's middle is local (0, 3, 0) */
    float p[3] = { 0, 3, 0 };
    const pmf_cube *ca = vis_cube_at(&a, 16, p), *cb = vis_cube_at(&b, 16, p);
    CHECK(ca != NULL);
    CHECK(cb != NULL);
    if (ca) {
        CHECK(ca->vis.cube_count >= 1);
        for (uint32_t k = 0; k < ca->vis.chunk_count; k++) CHECK(ca->vis.chunks[k].chunk.x != 2);
    }
    if (cb)
        for (uint32_t k = 0; k < cb->vis.chunk_count; k++) CHECK(cb->vis.chunks[k].chunk.x != 0);
    pmf_chunk_free(&a);
    pmf_chunk_free(&b);
    pmf_level_free(&lvl);
    pmf_close(f);
}

/* The generator: a valid map, the same bytes for the same seed on any thread count. */
static void test_generator(void)
{
    char a[512], b[512], c[512], args[2048];
    const char *seeds[3] = { "3 --threads 1", "3 --threads 2", "4" };
    char *outs[3] = { a, b, c };
    for (int i = 0; i < 3; i++) {
        snprintf(outs[i], 512, "%s/gen%d.pmf", workdir, i);
        snprintf(args, sizeof args, "--generate town --chunks 2x1x2 --seed %s -o %s --quiet", seeds[i], outs[i]);
        CHECK_EQ(test_run_words(NULL, pmfc, args, NULL, NULL), 0);
    }
    pmf_file *f = open_map(a);
    CHECK_EQ(f->level_count, 1);
    CHECK_EQ(f->header.created, 0);
    CHECK(!strcmp(f->header.name, "town"));
    CHECK_EQ(f->levels[0].count_x, 2);
    CHECK_EQ(f->levels[0].count_y, 1);
    CHECK_EQ(f->levels[0].count_z, 2);
    CHECK_EQ(f->levels[0].present_chunks, 4);
    pmf_close(f);
    size_t na = 0, nb = 0, nc = 0;
    unsigned char *pa = test_read_file(a, &na), *pb = test_read_file(b, &nb), *pc = test_read_file(c, &nc);
    CHECK(pa && pb && na == nb && !memcmp(pa, pb, na));
    CHECK(pc && (nc != na || memcmp(pa, pc, na)));
    free(pa);
    free(pb);
    free(pc);
}

/* A city built tile by tile (--tile 8: 3 tiles along X; --tile 1: a margin wider than the tile)
 * is the city built at once: every chunk validates and has the same vertices, lightmaps (lamps
 * lighting across tile borders included) and light ids. */
static void test_generator_tiles(const char *tile)
{
    char whole[512], tiled[512], args[2048];
    snprintf(whole, sizeof whole, "%s/tiles_whole.pmf", workdir);
    snprintf(tiled, sizeof tiled, "%s/tiles_%s.pmf", workdir, tile);
    const char *outs[2] = { whole, tiled }, *tiles[2] = { "64", tile };
    for (int i = 0; i < 2; i++) {
        /* direct light: bounces stay within a tile and its margin, so they differ at tile borders */
        snprintf(args, sizeof args, "--generate town --chunks 20x1x4 --seed 5 --tile %s --bounce 0 -o %s --quiet", tiles[i], outs[i]);
        CHECK_EQ(test_run_words(NULL, pmfc, args, NULL, NULL), 0);
    }
    pmf_file *fw = open_map(whole), *ft = open_map(tiled);
    CHECK_EQ(ft->levels[0].present_chunks, 80);
    pmf_level lw, lt;
    read_level(fw, 0, &lw);
    read_level(ft, 0, &lt);
    int lightmaps = 0, differing = 0;
    for (uint32_t x = 0; x < 20; x++)
        for (uint32_t z = 0; z < 4; z++) {
            pmf_chunk a, b;
            read_chunk(fw, &lw, 0, x, 0, z, &a);
            read_chunk(ft, &lt, 0, x, 0, z, &b);
            CHECK_EQ(b.client.vertex_count, a.client.vertex_count);
            CHECK_EQ(b.client.lightmap_count, a.client.lightmap_count);
            CHECK_EQ(b.common.dynamic_light_count, a.common.dynamic_light_count);
            CHECK_EQ(b.common.fast_light_count, a.common.fast_light_count);
            /* the chunk's own load region lists its present neighbours, across tile borders too */
            CHECK(a.server.load_region_count >= 1 && b.server.load_region_count >= 1);
            if (a.server.load_region_count && b.server.load_region_count)
                CHECK_EQ(b.server.load_regions[0].chunk_count, a.server.load_regions[0].chunk_count);
            for (uint32_t k = 0; k < a.common.dynamic_light_count && k < b.common.dynamic_light_count; k++)
                CHECK_EQ(b.common.dynamic_lights[k].id, a.common.dynamic_lights[k].id);
            for (uint32_t k = 0; k < a.common.fast_light_count && k < b.common.fast_light_count; k++)
                CHECK_EQ(b.common.fast_lights[k].id, a.common.fast_lights[k].id);
            for (uint32_t m = 0; m < a.client.lightmap_count && m < b.client.lightmap_count; m++) {
                const pmf_lightmap *ma = &a.client.lightmaps[m], *mb = &b.client.lightmaps[m];
                CHECK_EQ(mb->size_exp, ma->size_exp);
                size_t n = (size_t)3 << (2 * ma->size_exp);
                lightmaps++;
                if (mb->size_exp != ma->size_exp || memcmp(ma->luxels, mb->luxels, n)) {
                    differing++;
                    fprintf(stderr, "--tile %s: chunk %u 0 %u lightmap %u differs\n", tile, x, z, m);
                }
            }
            pmf_chunk_free(&a);
            pmf_chunk_free(&b);
        }
    CHECK(lightmaps >= 80);
    CHECK_EQ(differing, 0);
    pmf_level_free(&lw);
    pmf_level_free(&lt);
    pmf_close(fw);
    pmf_close(ft);
}

/* ---- baked light read back: luxels at world points, vertex multipliers, visibility by segments ---- */

/* pmfc's documented falloff and one light's value at p on a surface with normal n. */
static double light_value(const float light[3], double range, const float p[3], const float n[3])
{
    double l[3], d = 0, ndotl = 0;
    for (int a = 0; a < 3; a++) { l[a] = light[a] - p[a]; d += l[a] * l[a]; }
    d = sqrt(d);
    if (d >= range || d == 0) return 0;
    for (int a = 0; a < 3; a++) ndotl += n[a] * l[a] / d;
    double x = 1 - d / range;
    return (ndotl > 0 ? ndotl : 0) * x * x;
}

/* Barycentric weights of p in triangle abc, all in 2D. */
static void barycentric2(const float a[2], const float b[2], const float c[2], const float p[2], double w[3])
{
    double det = (double)(b[0] - a[0]) * (c[1] - a[1]) - (double)(c[0] - a[0]) * (b[1] - a[1]);
    w[1] = ((p[0] - a[0]) * (double)(c[1] - a[1]) - (c[0] - a[0]) * (double)(p[1] - a[1])) / det;
    w[2] = ((b[0] - a[0]) * (double)(p[1] - a[1]) - (p[0] - a[0]) * (double)(b[1] - a[1])) / det;
    w[0] = 1 - w[1] - w[2];
}

/* One drawn triangle of a chunk: geometry cube quads as (v0 v1 v2)(v0 v2 v3) per set face bit,
 * extended cubes' triangle runs per direction group. */
typedef struct chunk_tri {
    const pmf_vertex *v[3];
    uint32_t cube;
    int lightmap;           /* chunk lightmap index or PMF_NO_LIGHTMAP */
} chunk_tri;

/* Every triangle of a chunk; *count of them, to free(). */
static chunk_tri *chunk_triangles(const pmf_chunk *ch, size_t *count)
{
    size_t n = 0, cap = 64;
    chunk_tri *t = malloc(cap * sizeof *t);
    for (uint32_t i = 0; i < ch->common.cube_count; i++) {
        const pmf_cube *c = &ch->common.cubes[i];
        const pmf_client_cube *cc = &ch->client.cubes[i];
        for (int f = 0; f < PMF_FACE_COUNT; f++) {
            int tris = 0, lightmap = 0;
            uint32_t first = 0;
            if (c->type == PMF_CUBE_GEOMETRY && (cc->u.geom.face_mask >> f & 1)) {
                first = cc->u.geom.first_vertex;
                for (int g = 0; g < f; g++) first += (cc->u.geom.face_mask >> g & 1) * 4;
                tris = 2;
                lightmap = cc->u.geom.lightmap;
            } else if (c->type == PMF_CUBE_EXTGEOMETRY) {
                first = cc->u.ext.first_vertex;
                for (int g = 0; g < f; g++) first += cc->u.ext.tri_count[g] * 3;
                tris = cc->u.ext.tri_count[f];
                lightmap = cc->u.ext.lightmap[f];
            }
            for (int k = 0; k < tris; k++) {
                uint32_t a = first, b, d;
                if (c->type == PMF_CUBE_GEOMETRY) { b = first + 1 + k; d = first + 2 + k; }
                else { a = first + 3 * k; b = a + 1; d = a + 2; }
                CHECK(d < ch->client.vertex_count);
                if (d >= ch->client.vertex_count) continue;
                if (n == cap) t = realloc(t, (cap *= 2) * sizeof *t);
                t[n++] = (chunk_tri){ { &ch->client.vertices[a], &ch->client.vertices[b], &ch->client.vertices[d] }, i, lightmap };
            }
        }
    }
    *count = n;
    return t;
}

/* An occluder triangle in world space, with its bounds. */
typedef struct world_tri { float p[3][3], lo[3], hi[3]; } world_tri;

static void world_tri_set(world_tri *w, const chunk_tri *t, const float offset[3])
{
    for (int k = 0; k < 3; k++)
        for (int a = 0; a < 3; a++) w->p[k][a] = t->v[k]->xyz[a] + offset[a];
    for (int a = 0; a < 3; a++) {
        w->lo[a] = fminf(w->p[0][a], fminf(w->p[1][a], w->p[2][a]));
        w->hi[a] = fmaxf(w->p[0][a], fmaxf(w->p[1][a], w->p[2][a]));
    }
}

/* True when the open segment a..b crosses one of the triangles (Moller-Trumbore, edges count). */
static bool segment_blocked(const float a[3], const float b[3], const world_tri *tris, size_t count)
{
    double dir[3] = { b[0] - a[0], b[1] - a[1], b[2] - a[2] };
    float lo[3], hi[3];
    for (int k = 0; k < 3; k++) { lo[k] = fminf(a[k], b[k]); hi[k] = fmaxf(a[k], b[k]); }
    for (size_t i = 0; i < count; i++) {
        const world_tri *t = &tris[i];
        if (t->hi[0] < lo[0] || t->lo[0] > hi[0] || t->hi[1] < lo[1] || t->lo[1] > hi[1] || t->hi[2] < lo[2] || t->lo[2] > hi[2]) continue;
        double e1[3], e2[3], s[3];
        for (int k = 0; k < 3; k++) { e1[k] = t->p[1][k] - t->p[0][k]; e2[k] = t->p[2][k] - t->p[0][k]; s[k] = a[k] - t->p[0][k]; }
        double pv[3] = { dir[1] * e2[2] - dir[2] * e2[1], dir[2] * e2[0] - dir[0] * e2[2], dir[0] * e2[1] - dir[1] * e2[0] };
        double det = e1[0] * pv[0] + e1[1] * pv[1] + e1[2] * pv[2];
        if (fabs(det) < 1e-12) continue;
        double u = (s[0] * pv[0] + s[1] * pv[1] + s[2] * pv[2]) / det;
        if (u < -1e-7 || u > 1 + 1e-7) continue;
        double qv[3] = { s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0] };
        double v = (dir[0] * qv[0] + dir[1] * qv[1] + dir[2] * qv[2]) / det;
        if (v < -1e-7 || u + v > 1 + 1e-7) continue;
        double t_hit = (e2[0] * qv[0] + e2[1] * qv[1] + e2[2] * qv[2]) / det;
        if (t_hit > 1e-6 && t_hit < 1 - 1e-6) return true;
    }
    return false;
}

typedef struct luxel_ref {
    int lightmap;            /* chunk lightmap index */
    size_t index;            /* byte offset of the RGB triple */
    float centre[3];         /* chunk-local point the luxel's centre maps to */
} luxel_ref;

/* The luxel under a chunk-local point p lying on a lightmapped triangle in the plane facing
 * `face`: the triangle's lm_uv interpolated at p, floored. */
static bool find_luxel(const pmf_chunk *ch, int face, const float p[3], luxel_ref *out)
{
    int axis = face % 3, u = (axis + 1) % 3, v = (axis + 2) % 3;
    size_t count;
    chunk_tri *tris = chunk_triangles(ch, &count);
    bool found = false;
    for (size_t i = 0; i < count && !found; i++) {
        const pmf_vertex *const *tri = tris[i].v;
        if (tris[i].lightmap == PMF_NO_LIGHTMAP || tris[i].lightmap >= ch->client.lightmap_count) continue;
        if (fabsf(tri[0]->xyz[axis] - p[axis]) > 1e-4f || fabsf(tri[1]->xyz[axis] - p[axis]) > 1e-4f || fabsf(tri[2]->xyz[axis] - p[axis]) > 1e-4f) continue;
        float a[2] = { tri[0]->xyz[u], tri[0]->xyz[v] }, b[2] = { tri[1]->xyz[u], tri[1]->xyz[v] },
              c[2] = { tri[2]->xyz[u], tri[2]->xyz[v] }, pp[2] = { p[u], p[v] };
        double w[3];
        barycentric2(a, b, c, pp, w);
        if (w[0] < -1e-6 || w[1] < -1e-6 || w[2] < -1e-6) continue;
        const pmf_lightmap *lm = &ch->client.lightmaps[tris[i].lightmap];
        int side = 1 << lm->size_exp;
        float uv[2];
        for (int k = 0; k < 2; k++) uv[k] = (float)(w[0] * tri[0]->lm_uv[k] + w[1] * tri[1]->lm_uv[k] + w[2] * tri[2]->lm_uv[k]);
        int lx = (int)floorf(uv[0] * side), ly = (int)floorf(uv[1] * side);
        /* map the luxel's centre back to the plane: uv -> xyz is affine over the triangle */
        float cuv[2] = { (lx + 0.5f) / side, (ly + 0.5f) / side };
        float ta[2] = { tri[0]->lm_uv[0], tri[0]->lm_uv[1] }, tb[2] = { tri[1]->lm_uv[0], tri[1]->lm_uv[1] },
              tc[2] = { tri[2]->lm_uv[0], tri[2]->lm_uv[1] };
        barycentric2(ta, tb, tc, cuv, w);
        for (int k = 0; k < 3; k++) out->centre[k] = (float)(w[0] * tri[0]->xyz[k] + w[1] * tri[1]->xyz[k] + w[2] * tri[2]->xyz[k]);
        out->lightmap = tris[i].lightmap;
        out->index = ((size_t)ly * side + lx) * 3;
        found = true;
    }
    free(tris);
    return found;
}

/* A floor with ambient 0.2, a white static light (range 10) at (0, 4, 0.5) and a floating box
 * shadowing the floor point (3, 0, 0.5); (-3, 0, 0.5) is lit at the same distance (5 m: 0.8 x
 * 0.25 = 0.2, 51). A dynamic light (id 3, range 3) over (-5, 0, -5) and a fast light (id 4,
 * range 3) over a low block at (5, 0.5, -5). */
static const char *lit_source =
    "map \"Lit\"\nmaterial m\nlevel l {\n  chunk_size 4\n  ambient 51 51 51\n"
    "  box -7 -1 -7 7 0 7 material m\n  box 1 1.5 -0.5 2.5 2.5 1.5 material m\n"
    "  light static at 0 4 0.5 range 10\n"
    "  light dynamic 3 at -5 1 -5 range 3\n"
    "  box 4.5 0 -5.5 5.5 0.5 -4.5 material m\n  light fast 4 at 5 1 -5 range 3\n}\n";

static const float up[3] = { 0, 1, 0 };

/* Lit minus shadowed is the static light's documented value; shadowed is the ambient. */
static void test_static_shadow(const pmf_chunk *ch)
{
    const float light[3] = { 0, 4, 0.5f }, lit_p[3] = { -3, 0, 0.5f }, dark_p[3] = { 3, 0, 0.5f };
    luxel_ref lit, dark;
    CHECK(find_luxel(ch, PMF_FACE_POS_Y, lit_p, &lit));
    CHECK(find_luxel(ch, PMF_FACE_POS_Y, dark_p, &dark));
    if (!find_luxel(ch, PMF_FACE_POS_Y, lit_p, &lit) || !find_luxel(ch, PMF_FACE_POS_Y, dark_p, &dark)) return;
    double lit_value = 255 * light_value(light, 10, lit.centre, up), dark_value = 255 * light_value(light, 10, dark.centre, up);
    for (int k = 0; k < 3; k++) {
        int l = ch->client.lightmaps[lit.lightmap].luxels[lit.index + k], s = ch->client.lightmaps[dark.lightmap].luxels[dark.index + k];
        if (k == 0) printf("static: lit luxel %d (expected %.1f), shadowed %d (ambient 51; the light would give %.1f there)\n",
                           l, 51 + lit_value, s, dark_value);
        CHECK(abs(s - 51) <= 1);
        CHECK(fabs(l - (51 + lit_value)) <= 2);
        CHECK(fabs((l - s) - lit_value) <= 2);
        CHECK(l - s >= 45);
    }
}

/* The dynamic light's layers: zero on every luxel inside a face farther than its range, the
 * documented value under the lamp. */
static void test_dynamic_range(const pmf_chunk *ch)
{
    const float light[3] = { -5, 1, -5 }, under[3] = { -5, 0, -5 };
    int k = -1;
    for (int i = 0; i < ch->common.dynamic_light_count; i++) if (ch->common.dynamic_lights[i].id == 3) k = i;
    CHECK(k >= 0);
    if (k < 0) return;
    const pmf_client_dynamic_light *dl = &ch->client.dynamic_lights[k];
    luxel_ref at;
    CHECK(find_luxel(ch, PMF_FACE_POS_Y, under, &at));
    int checked = 0, zero = 0, lamp = -1;
    for (int j = 0; j < dl->layer_count; j++) {
        const pmf_light_layer *layer = &dl->layers[j];
        int side = 1 << ch->client.lightmaps[layer->target].size_exp;
        if (layer->target == at.lightmap) lamp = layer->luxels[at.index];
        /* every luxel whose centre lies inside a far face of this lightmap */
        for (uint32_t i = 0; i < ch->common.cube_count; i++) {
            if (ch->common.cubes[i].type != PMF_CUBE_GEOMETRY) continue;
            const pmf_client_cube *cc = &ch->client.cubes[i];
            if (cc->u.geom.lightmap != layer->target) continue;
            uint32_t v = cc->u.geom.first_vertex;
            for (int f = 0; f < PMF_FACE_COUNT; f++) {
                if (!(cc->u.geom.face_mask >> f & 1)) continue;
                const pmf_vertex *q = &ch->client.vertices[v];
                v += 4;
                float lo[3], hi[3], uvlo[2] = { 1, 1 }, uvhi[2] = { 0, 0 };
                double d2 = 0;
                for (int a = 0; a < 3; a++) {
                    lo[a] = hi[a] = q[0].xyz[a];
                    for (int c = 1; c < 4; c++) { lo[a] = fminf(lo[a], q[c].xyz[a]); hi[a] = fmaxf(hi[a], q[c].xyz[a]); }
                    double e = light[a] < lo[a] ? lo[a] - light[a] : light[a] > hi[a] ? light[a] - hi[a] : 0;
                    d2 += e * e;
                }
                if (sqrt(d2) <= 3 + 0.5) continue;
                for (int c = 0; c < 4; c++)
                    for (int a = 0; a < 2; a++) { uvlo[a] = fminf(uvlo[a], q[c].lm_uv[a]); uvhi[a] = fmaxf(uvhi[a], q[c].lm_uv[a]); }
                for (int y = (int)floorf(uvlo[1] * side); y < (int)ceilf(uvhi[1] * side); y++)
                    for (int x = (int)floorf(uvlo[0] * side); x < (int)ceilf(uvhi[0] * side); x++) {
                        if ((x + 0.5f) / side < uvlo[0] || (x + 0.5f) / side > uvhi[0] || (y + 0.5f) / side < uvlo[1] || (y + 0.5f) / side > uvhi[1]) continue;
                        const uint8_t *px = &layer->luxels[((size_t)y * side + x) * 3];
                        checked++;
                        zero += !px[0] && !px[1] && !px[2];
                    }
            }
        }
    }
    double expected = 255 * light_value(light, 3, at.centre, up);
    printf("dynamic: %d layer(s), %d far luxels checked, %d zero; under the lamp %d (expected %.1f)\n",
           dl->layer_count, checked, zero, lamp, expected);
    CHECK(checked > 0);
    CHECK_EQ(zero, checked);
    CHECK(fabs(lamp - expected) <= 2);
    CHECK(lamp > 100);
}

/* The fast light's multipliers (ranges walked from vertex 0) match the documented value on every
 * face vertex: non-zero near the light, zero beyond its range. */
static void test_fast_multipliers(const pmf_chunk *ch)
{
    const float light[3] = { 5, 1, -5 };
    int k = -1;
    for (int i = 0; i < ch->common.fast_light_count; i++) if (ch->common.fast_lights[i].id == 4) k = i;
    CHECK(k >= 0);
    if (k < 0) return;
    uint32_t n = ch->client.vertex_count;
    uint8_t *mult = calloc(n ? n : 1, 1);
    const pmf_client_fast_light *fl = &ch->client.fast_lights[k];
    uint64_t cursor = 0;
    for (uint32_t r = 0; r < fl->range_count; r++) {
        cursor += fl->ranges[r].skip;
        CHECK(cursor + fl->ranges[r].count <= n);
        for (uint32_t i = 0; i < fl->ranges[r].count && cursor < n; i++) mult[cursor++] = fl->ranges[r].multipliers[i];
    }
    /* each vertex's face normal, from the triangles using it */
    float (*normals)[3] = calloc(n ? n : 1, sizeof *normals);
    size_t tri_count;
    chunk_tri *tris = chunk_triangles(ch, &tri_count);
    for (size_t t = 0; t < tri_count; t++) {
        const float *a = tris[t].v[0]->xyz, *b = tris[t].v[1]->xyz, *c = tris[t].v[2]->xyz;
        float e1[3] = { b[0] - a[0], b[1] - a[1], b[2] - a[2] }, e2[3] = { c[0] - a[0], c[1] - a[1], c[2] - a[2] };
        float nn[3] = { e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0] };
        float len = sqrtf(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
        for (int k = 0; k < 3; k++)
            for (int a2 = 0; a2 < 3; a2++) normals[tris[t].v[k] - ch->client.vertices][a2] = nn[a2] / len;
    }
    world_tri *occluders = malloc((tri_count ? tri_count : 1) * sizeof *occluders);
    const float origin[3] = { 0, 0, 0 };
    for (size_t t = 0; t < tri_count; t++) world_tri_set(&occluders[t], &tris[t], origin);
    free(tris);
    int near = 0, near_lit = 0, far = 0, far_zero = 0, off = 0, shadowed = 0;
    for (uint32_t v = 0; v < n; v++) {
        const float *p = ch->client.vertices[v].xyz;
        double d = sqrt((p[0] - light[0]) * (p[0] - light[0]) + (p[1] - light[1]) * (p[1] - light[1]) + (p[2] - light[2]) * (p[2] - light[2]));
        double expected = 255 * light_value(light, 3, p, normals[v]);
        /* the documented shadow test: from 2 mm off the vertex along its normal */
        float from[3] = { p[0] + 0.002f * normals[v][0], p[1] + 0.002f * normals[v][1], p[2] + 0.002f * normals[v][2] };
        if (expected > 0 && segment_blocked(from, light, occluders, tri_count)) { expected = 0; shadowed++; }
        if (d >= 3) { far++; far_zero += mult[v] == 0; }
        else if (expected >= 5) { near++; near_lit += mult[v] > 0; }
        if (fabs(mult[v] - expected) > 2) off++;
    }
    free(normals);
    free(occluders);
    printf("fast: %u range(s), %d near lit vertices (%d non-zero), %d far (%d zero), %d shadowed, %d off the formula\n",
           fl->range_count, near, near_lit, far, far_zero, shadowed, off);
    CHECK(near >= 4);
    CHECK_EQ(near_lit, near);
    CHECK(far > 0);
    CHECK_EQ(far_zero, far);
    CHECK_EQ(off, 0);
    free(mult);
}

static void test_baked_light(void)
{
    char pmf[512];
    int st = compile("lit", lit_source, NULL, pmf, NULL, 0);
    CHECK_EQ(st, 0);
    if (st) return;
    pmf_file *f = open_map(pmf);
    pmf_level lvl;
    read_level(f, 0, &lvl);
    CHECK_EQ(lvl.count_x * lvl.count_y * lvl.count_z, 1);
    pmf_chunk ch;
    read_chunk(f, &lvl, 0, 0, 0, 0, &ch);
    test_static_shadow(&ch);
    test_dynamic_range(&ch);
    test_fast_multipliers(&ch);
    pmf_chunk_free(&ch);
    pmf_level_free(&lvl);
    pmf_close(f);
}

/* A .pms sun straight down (brightness 0.4, hard) and a sky dome of 51 over a floor open above,
 * no ambient: an open floor luxel gets 0.4 + 0.2 (102 + 51), the floor under a floating slab
 * none of the sun and, seeing the sky only past the slab's edges, less sky. */
/* A dynamic light's layers cover the lightmaps it reaches (issue 39): a 62 m hall in one 64 m
 * chunk, floored with 4 m tiles, and a dynamic light of 2 m range just over a corner tile. The
 * chunk's blocks go to lightmaps of at most 256 luxels a side, faces near one another together,
 * so the light's layers take at most a quarter of the chunk's lightmap bytes (they took the
 * chunk's whole 1024 x 1024 lightmap, 3 MiB, as many bytes as the lightmap). */
static void test_corner_layers(void)
{
    size_t size = 256 + 15 * 15 * 64, used;
    char *src = malloc(size);
    used = (size_t)snprintf(src, size, "map \"Corner\"\nmaterial stone color 200 200 200\nlevel main {\n"
                                       "    chunk_size 6\n    luxels 8\n    room -31 0 -31 31 4 31 material stone\n");
    for (int i = 0; i < 15; i++)
        for (int j = 0; j < 15; j++)
            used += (size_t)snprintf(src + used, size - used, "    box %d 0 %d %d 0.2 %d material stone\n", -30 + 4 * i,
                                     -30 + 4 * j, -26 + 4 * i, -26 + 4 * j);
    snprintf(src + used, size - used, "    light dynamic 1 at -27 0.7 -27 range 2\n}\n");
    char pmf[512];
    CHECK(compile("corner", src, NULL, pmf, NULL, 0) == 0);
    free(src);
    pmf_file *f = open_map(pmf);
    pmf_level lvl;
    pmf_chunk ch;
    read_level(f, 0, &lvl);
    read_chunk(f, &lvl, 0, 0, 0, 0, &ch);
    uint64_t lightmap_bytes = 0, layer_bytes = 0;
    for (unsigned m = 0; m < ch.client.lightmap_count; m++) lightmap_bytes += (uint64_t)3 << (2 * ch.client.lightmaps[m].size_exp);
    for (unsigned d = 0; d < ch.common.dynamic_light_count; d++)
        for (unsigned k = 0; k < ch.client.dynamic_lights[d].layer_count; k++)
            layer_bytes += (uint64_t)3 << (2 * ch.client.lightmaps[ch.client.dynamic_lights[d].layers[k].target].size_exp);
    printf("corner light: %u lightmaps of %llu bytes, its layers %llu bytes\n", ch.client.lightmap_count,
           (unsigned long long)lightmap_bytes, (unsigned long long)layer_bytes);
    CHECK(ch.common.dynamic_light_count == 1 && layer_bytes > 0 && 4 * layer_bytes <= lightmap_bytes);
    for (unsigned m = 0; m < ch.client.lightmap_count; m++) CHECK(ch.client.lightmaps[m].size_exp <= 8);
    pmf_chunk_free(&ch);
    pmf_level_free(&lvl);
    pmf_close(f);
}

static void test_sun(void)
{
    char pmf[512];
    int st = compile("sun", "map \"Sun\"\nmaterial m\nlevel l {\n  chunk_size 4\n  ambient 0 0 0\n"
                            "  box -7 -1 -7 7 0 7 material m\n  box -2 3 -2 2 3.5 2 material m\n"
                            "  sun toward 0 -1 0 brightness 0.4 size 0 sky 51 51 51\n}\n", "--samples 1", pmf, NULL, 0);
    CHECK_EQ(st, 0);
    if (st) return;
    pmf_file *f = open_map(pmf);
    pmf_level lvl;
    read_level(f, 0, &lvl);
    pmf_chunk ch;
    read_chunk(f, &lvl, 0, 0, 0, 0, &ch);
    const float open_p[3] = { 5, 0, 5 }, under_p[3] = { 0, 0, 0 };
    luxel_ref open_l, under_l;
    if (find_luxel(&ch, PMF_FACE_POS_Y, open_p, &open_l) && find_luxel(&ch, PMF_FACE_POS_Y, under_p, &under_l)) {
        int open_v = ch.client.lightmaps[open_l.lightmap].luxels[open_l.index];
        int under_v = ch.client.lightmaps[under_l.lightmap].luxels[under_l.index];
        printf("sun: open floor %d (sun 102 + sky 51), under the slab %d (some sky, no sun)\n", open_v, under_v);
        CHECK(open_v >= 102 + 51 * 14 / 16 && open_v <= 154);    /* the slab may take one or two of the 16 sky rays */
        CHECK(under_v > 0 && under_v < 51);
    } else {
        CHECK(0);
    }
    pmf_chunk_free(&ch);
    pmf_level_free(&lvl);
    pmf_close(f);
}

/* A room lit on one side of a freestanding wall (2 m high, 3 m wide) whose other side, facing +x,
 * the light cannot see: it is lit by bounced light alone. Its texture is a checker of 255 and 191,
 * which reflects their mean, 223 / 255 (docs/pmfc-lighting.md, ".pms sources"). */
static const char *bounce_source =
    "map \"Bounce\"\ntexture pale procedural checker 64 color 255 255 255 color2 191 191 191\n"
    "material m texture pale\nlevel l {\n  chunk_size 4\n  ambient 0 0 0\n"
    "  room -6 -1 -3 6 3 3 material m\n  box -0.25 -0.75 -1.5 0.25 1.25 1.5 material m\n"
    "  light static at -3 2 0 range 16\n}\n";

/* The room's inside surfaces in front of the hidden face (x > 0.25): a corner, two edge vectors
 * and the inward normal; every point of them sees the face unblocked (the half-room is convex). */
static const struct { float corner[3], edge_u[3], edge_v[3], normal[3]; int face; } bounce_seen[] = {
    { { 0.25f, -0.75f, -2.75f }, { 5.5f, 0, 0 }, { 0, 0, 5.5f }, { 0, 1, 0 }, PMF_FACE_POS_Y },      /* floor */
    { { 0.25f, 2.75f, -2.75f }, { 5.5f, 0, 0 }, { 0, 0, 5.5f }, { 0, -1, 0 }, PMF_FACE_NEG_Y },      /* ceiling */
    { { 5.75f, -0.75f, -2.75f }, { 0, 3.5f, 0 }, { 0, 0, 5.5f }, { -1, 0, 0 }, PMF_FACE_NEG_X },     /* east wall */
    { { 0.25f, -0.75f, -2.75f }, { 5.5f, 0, 0 }, { 0, 3.5f, 0 }, { 0, 0, 1 }, PMF_FACE_POS_Z },      /* south wall */
    { { 0.25f, -0.75f, 2.75f }, { 5.5f, 0, 0 }, { 0, 3.5f, 0 }, { 0, 0, -1 }, PMF_FACE_NEG_Z },      /* north wall */
};

/* The irradiance (0..1 of a byte's range) that surfaces of reflectivity rho whose direct light is
 * `direct`'s luxels give point p of the hidden face: rho x the sum over the seen surfaces' luxels
 * of E x cos(p) x cos(q) / (pi r^2) x area. */
static double first_bounce_at(const pmf_chunk *direct, const float p[3], double rho)
{
    const float np[3] = { 1, 0, 0 }, step = 0.25f;
    double sum = 0;
    for (size_t s = 0; s < sizeof bounce_seen / sizeof bounce_seen[0]; s++) {
        float len_u = 0, len_v = 0;
        for (int a = 0; a < 3; a++) { len_u += fabsf(bounce_seen[s].edge_u[a]); len_v += fabsf(bounce_seen[s].edge_v[a]); }
        for (float u = step / 2; u < len_u; u += step)
            for (float v = step / 2; v < len_v; v += step) {
                float q[3], d[3], r2 = 0, cos_p = 0, cos_q = 0;
                for (int a = 0; a < 3; a++) {
                    q[a] = bounce_seen[s].corner[a] + bounce_seen[s].edge_u[a] * u / len_u + bounce_seen[s].edge_v[a] * v / len_v;
                    d[a] = q[a] - p[a];
                    r2 += d[a] * d[a];
                }
                for (int a = 0; a < 3; a++) { cos_p += np[a] * d[a]; cos_q -= bounce_seen[s].normal[a] * d[a]; }
                luxel_ref at;
                if (!find_luxel(direct, bounce_seen[s].face, q, &at)) { CHECK(0); continue; }
                double e = direct->client.lightmaps[at.lightmap].luxels[at.index] / 255.0;
                sum += e * (cos_p / sqrtf(r2)) * (cos_q / sqrtf(r2)) / (M_PI * r2) * step * step;
            }
    }
    return rho * sum;
}

/* The hidden face's first bounce (pmfc --bounce 1 less --bounce 0) is what its texture's
 * reflectivity makes of the light on the walls it sees, within the bounce's sampling. */
static void test_bounce_hidden_wall(void)
{
    char direct_pmf[512], bounced_pmf[512];
    int st = compile("bounce_direct", bounce_source, "--bounce 0", direct_pmf, NULL, 0);
    st = st ? st : compile("bounce_one", bounce_source, "--bounce 1", bounced_pmf, NULL, 0);
    CHECK_EQ(st, 0);
    if (st) return;
    pmf_file *fd = open_map(direct_pmf), *fb = open_map(bounced_pmf);
    pmf_level ld, lb;
    read_level(fd, 0, &ld);
    read_level(fb, 0, &lb);
    CHECK_EQ(ld.count_x * ld.count_y * ld.count_z, 1);
    pmf_chunk cd, cb;
    read_chunk(fd, &ld, 0, 0, 0, 0, &cd);
    read_chunk(fb, &lb, 0, 0, 0, 0, &cb);
    const double rho = (255 + 191) / 2.0 / 255;
    const float probes[4][3] = { { 0.25f, 0, -0.5f }, { 0.25f, 0, 0.5f }, { 0.25f, 0.75f, 0 }, { 0.25f, -0.25f, 0 } };
    double got_sum = 0, want_sum = 0;
    for (int i = 0; i < 4; i++) {
        const float lit_p[3] = { -0.25f, probes[i][1], probes[i][2] };
        luxel_ref hd, hb, lit;
        if (!find_luxel(&cd, PMF_FACE_POS_X, probes[i], &hd) || !find_luxel(&cb, PMF_FACE_POS_X, probes[i], &hb) ||
            !find_luxel(&cd, PMF_FACE_NEG_X, lit_p, &lit)) {
            CHECK(0);
            continue;
        }
        int dark = cd.client.lightmaps[hd.lightmap].luxels[hd.index], bounced = cb.client.lightmaps[hb.lightmap].luxels[hb.index];
        int lit_side = cd.client.lightmaps[lit.lightmap].luxels[lit.index];
        double want = 255 * first_bounce_at(&cd, hb.centre, rho);
        printf("bounce: hidden face at (%g %g %g): direct %d, first bounce %d, predicted %.1f (the lit side %d)\n", probes[i][0],
               probes[i][1], probes[i][2], dark, bounced - dark, want, lit_side);
        CHECK_EQ(dark, 0);
        CHECK(lit_side >= 100);
        CHECK(bounced - dark >= 0.85 * want);    /* the bounce's 32 rays a cell sample what the sum integrates */
        got_sum += bounced - dark;
        want_sum += want;
    }
    printf("bounce: hidden face's mean first bounce %.1f, predicted %.1f\n", got_sum / 4, want_sum / 4);
    CHECK(want_sum / 4 >= 10);
    CHECK(got_sum >= 0.95 * want_sum && got_sum <= 1.1 * want_sum);
    pmf_chunk_free(&cd);
    pmf_chunk_free(&cb);
    pmf_level_free(&ld);
    pmf_level_free(&lb);
    pmf_close(fd);
    pmf_close(fb);
}

/* A deterministic random float in [lo, hi). */
static float random_in(uint32_t *state, float lo, float hi)
{
    *state = *state * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(*state >> 8) / 16777216.0f;
}

typedef struct vis_target { world_tri tri; float normal[3]; uint32_t chunk, cube; } vis_target;

/* True when the cell (cube `cell` of chunk c) lists target cube t of chunk tc: itself or an
 * ancestor among its chunk's cubes, or its chunk with no cubes (the whole chunk). */
static bool vis_lists(const pmf_chunk *c, uint32_t cell, const pmf_chunk *tc, const uint32_t *parents, uint32_t t)
{
    const pmf_visibility *vis = &c->common.cubes[cell].vis;
    const uint32_t *cubes = NULL;
    uint32_t count = 0;
    if (tc == c) {
        cubes = vis->cubes;
        count = vis->cube_count;
    } else {
        uint32_t k = 0;
        while (k < vis->chunk_count && memcmp(&vis->chunks[k].chunk, &tc->coord, sizeof tc->coord)) k++;
        if (k == vis->chunk_count) return false;
        if (!vis->chunks[k].cube_count) return true;
        cubes = vis->chunks[k].cubes;
        count = vis->chunks[k].cube_count;
    }
    for (uint32_t a = t;; a = parents[a]) {
        if (tc == c && a == cell) return true;
        for (uint32_t i = 0; i < count; i++) if (cubes[i] == a) return true;
        if (a == 0) return false;
    }
}

static void cube_parents(const pmf_chunk *ch, uint32_t ci, int depth, uint32_t *parents)
{
    const pmf_cube *c = &ch->common.cubes[ci];
    if (c->type != PMF_CUBE_PARENT || depth >= 24) return;
    for (int o = 0; o < 8; o++)
        if (c->u.parent.child_mask >> o & 1 && c->u.parent.children[o] < ch->common.cube_count) {
            parents[c->u.parent.children[o]] = ci;
            cube_parents(ch, c->u.parent.children[o], depth + 1, parents);
        }
}

typedef struct cube_box { uint32_t chunk, cube; float lo[3], hi[3]; } cube_box;

/* Every cube with visibility data and its world bounds. */
static void vis_cells(const pmf_chunk *ch, uint32_t chunk, uint32_t ci, const float lo[3], const float hi[3], int depth,
                      cube_box **cells, size_t *count)
{
    const pmf_cube *c = &ch->common.cubes[ci];
    if (c->flags & PMF_CUBE_HAS_VISIBILITY) {
        *cells = realloc(*cells, (*count + 1) * sizeof **cells);
        cube_box *b = &(*cells)[(*count)++];
        b->chunk = chunk;
        b->cube = ci;
        memcpy(b->lo, lo, sizeof b->lo);
        memcpy(b->hi, hi, sizeof b->hi);
    }
    if (c->type != PMF_CUBE_PARENT || depth >= 24) return;
    for (int o = 0; o < 8; o++) {
        if (!(c->u.parent.child_mask >> o & 1) || c->u.parent.children[o] >= ch->common.cube_count) continue;
        float clo[3], chi[3];
        for (int a = 0; a < 3; a++) {
            float mid = (lo[a] + hi[a]) / 2;
            unsigned neg = a == 0 ? PMF_OCTANT_NEG_X : a == 1 ? PMF_OCTANT_NEG_Y : PMF_OCTANT_NEG_Z;
            clo[a] = o & neg ? lo[a] : mid;
            chi[a] = o & neg ? mid : hi[a];
        }
        vis_cells(ch, chunk, c->u.parent.children[o], clo, chi, depth + 1, cells, count);
    }
}

/* Inside (or within 1 cm of) a wall, floor or ceiling of test_visibility_segments' rooms (their
 * doorways count as solid) or its pillar. */
static bool in_solid(const float p[3])
{
    const float rooms[3][2][3] = { { { -12, 0, -6 }, { 0, 5, 6 } }, { { 0, 0, -6 }, { 12, 5, 6 } }, { { 14, 0, -6 }, { 22, 5, 6 } } };
    for (int r = 0; r < 3; r++) {
        bool outer = true, inner = true;
        for (int a = 0; a < 3; a++) {
            outer &= p[a] > rooms[r][0][a] - 0.01f && p[a] < rooms[r][1][a] + 0.01f;
            inner &= p[a] > rooms[r][0][a] + 0.26f && p[a] < rooms[r][1][a] - 0.26f;
        }
        if (outer && !inner) return true;
    }
    return p[0] > -6.01f && p[0] < -3.99f && p[1] > -0.01f && p[1] < 2.01f && p[2] > -1.01f && p[2] < 1.01f;
}

/* Two rooms joined by a doorway and a sealed room, 4 m camera cells over three 16 m chunks:
 * from up to three sampled points in the air of every cell with visibility data, every sampled
 * point on a
 * face that a straight segment reaches unblocked (tested against every triangle of the map) is
 * in the visible set of the camera's cell. */
static void test_visibility_segments(void)
{
    char pmf[512];
    int st = compile("vis_segments", "map \"Vis segments\"\nmaterial m\nlevel l {\n  chunk_size 4\n  vis_cell 4\n"
                     "  room -12 0 -6 0 5 6 material m door +x 2 3\n  room 0 0 -6 12 5 6 material m door -x 2 3\n"
                     "  room 14 0 -6 22 5 6 material m\n  box -6 0 -1 -4 2 1 material m\n"
                     "  light static at -6 3 3\n  light static at 6 3 0\n  light static at 18 3 0\n}\n", NULL, pmf, NULL, 0);
    CHECK_EQ(st, 0);
    if (st) return;
    pmf_file *f = open_map(pmf);
    pmf_level lvl;
    read_level(f, 0, &lvl);
    CHECK_EQ(lvl.count_x, 3);
    CHECK_EQ(lvl.count_y * lvl.count_z, 1);
    const float S = 16;
    uint32_t nchunks = lvl.count_x;
    pmf_chunk *chunks = calloc(nchunks, sizeof *chunks);
    uint32_t **parents = calloc(nchunks, sizeof *parents);
    size_t ntargets = 0;
    vis_target *targets = NULL;
    for (uint32_t x = 0; x < nchunks; x++) {
        read_chunk(f, &lvl, 0, x, 0, 0, &chunks[x]);
        parents[x] = calloc(chunks[x].common.cube_count, sizeof **parents);
        cube_parents(&chunks[x], 0, 0, parents[x]);
        size_t n;
        chunk_tri *tris = chunk_triangles(&chunks[x], &n);
        targets = realloc(targets, (ntargets + n + 1) * sizeof *targets);
        const float offset[3] = { ((float)x - (float)lvl.center.x) * S, ((float)0 - (float)lvl.center.y) * S, ((float)0 - (float)lvl.center.z) * S };
        for (size_t i = 0; i < n; i++) {
            vis_target *t = &targets[ntargets];
            world_tri_set(&t->tri, &tris[i], offset);
            float e1[3], e2[3];
            for (int a = 0; a < 3; a++) { e1[a] = t->tri.p[1][a] - t->tri.p[0][a]; e2[a] = t->tri.p[2][a] - t->tri.p[0][a]; }
            float nn[3] = { e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0] };
            float len = sqrtf(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
            if (len < 1e-9f) continue;
            for (int a = 0; a < 3; a++) t->normal[a] = nn[a] / len;
            t->chunk = x;
            t->cube = tris[i].cube;
            ntargets++;
        }
        free(tris);
    }
    world_tri *occluders = malloc((ntargets + 1) * sizeof *occluders);
    for (size_t i = 0; i < ntargets; i++) occluders[i] = targets[i].tri;
    /* cameras: three points in the air of every cell with visibility data (where it has air) */
    cube_box *cells = NULL;
    size_t ncells = 0;
    for (uint32_t x = 0; x < nchunks; x++) {
        const float centre[3] = { ((float)x - (float)lvl.center.x) * S, -(float)lvl.center.y * S, -(float)lvl.center.z * S };
        const float lo[3] = { centre[0] - S / 2, centre[1] - S / 2, centre[2] - S / 2 }, hi[3] = { centre[0] + S / 2, centre[1] + S / 2, centre[2] + S / 2 };
        vis_cells(&chunks[x], x, 0, lo, hi, 0, &cells, &ncells);
    }
    uint32_t rng = 12345;
    int *sampled = calloc(ncells + 1, sizeof *sampled);
    int cameras = 0, cells_sampled = 0, pairs = 0, unblocked = 0, missing = 0, culled = 0;
    for (size_t i = 0; i < ncells * 12; i++) {
        const cube_box *cb = &cells[i / 12];
        if (sampled[i / 12] >= 3) continue;
        float p[3];
        for (int a = 0; a < 3; a++) p[a] = random_in(&rng, cb->lo[a] + 0.01f, cb->hi[a] - 0.01f);
        if (in_solid(p)) continue;
        sampled[i / 12]++;
        int gx = (int)cb->chunk;
        const pmf_chunk *c = &chunks[gx];
        float local[3] = { p[0] - ((float)gx - (float)lvl.center.x) * S, p[1] + (float)lvl.center.y * S, p[2] + (float)lvl.center.z * S };
        const pmf_cube *cell = vis_cube_at(c, S, local);
        CHECK(cell != NULL);
        if (!cell) continue;
        cameras++;
        uint32_t cell_index = (uint32_t)(cell - c->common.cubes);
        for (int k = 0; k < 100; k++) {
            const vis_target *t = &targets[(size_t)(random_in(&rng, 0, 1) * ntargets) % ntargets];
            float u = random_in(&rng, 0, 1), v = random_in(&rng, 0, 1);
            if (u + v > 1) { u = 1 - u; v = 1 - v; }
            float q[3], facing = 0;
            for (int a = 0; a < 3; a++) {
                q[a] = t->tri.p[0][a] + u * (t->tri.p[1][a] - t->tri.p[0][a]) + v * (t->tri.p[2][a] - t->tri.p[0][a]) + 0.001f * t->normal[a];
                facing += (p[a] - q[a]) * t->normal[a];
            }
            if (facing <= 0.01f) continue;
            pairs++;
            bool listed = vis_lists(c, cell_index, &chunks[t->chunk], parents[t->chunk], t->cube);
            if (segment_blocked(p, q, occluders, ntargets)) { culled += !listed; continue; }
            unblocked++;
            if (!listed) {
                if (missing++ < 5)
                    fprintf(stderr, "camera (%g %g %g) in chunk %d cell %u sees (%g %g %g) of chunk %u cube %u unblocked, not listed\n",
                            p[0], p[1], p[2], gx, cell_index, q[0], q[1], q[2], t->chunk, t->cube);
            }
        }
    }
    for (size_t i = 0; i < ncells; i++) cells_sampled += sampled[i] > 0;
    printf("visibility: %zu cells (%d with cameras), %d cameras, %zu triangles, %d facing pairs, %d unblocked (%d not listed), %d blocked and culled\n",
           ncells, cells_sampled, cameras, ntargets, pairs, unblocked, missing, culled);
    CHECK(ncells >= 100);
    CHECK(cells_sampled >= (int)ncells * 3 / 4);
    CHECK(culled >= 1000); /* the walls do hide things: the lists are not everything */
    CHECK(unblocked >= 1000);
    CHECK_EQ(missing, 0);
    free(sampled);
    free(cells);
    free(occluders);
    free(targets);
    for (uint32_t x = 0; x < nchunks; x++) { free(parents[x]); pmf_chunk_free(&chunks[x]); }
    free(parents);
    free(chunks);
    pmf_level_free(&lvl);
    pmf_close(f);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fputs("usage: test_pmfc PMFC WORKDIR\n", stderr);
        return 1;
    }
    pmfc = argv[1];
    workdir = argv[2];
    test_make_dir(workdir);
    test_single_box();
    test_limits();
    test_features();
    test_errors();
    test_determinism();
    test_generator();
    test_generator_tiles("8");
    test_generator_tiles("1");
    test_visibility();
    test_baked_light();
    test_sun();
    test_corner_layers();
    test_visibility_segments();
    test_bounce_hidden_wall();
    if (check_failures) fprintf(stderr, "%d check(s) failed\n", check_failures);
    return check_failures ? 1 : 0;
}
