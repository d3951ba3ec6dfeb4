/* test_pmfc.c - compiles small .pms sources with the real pmfc and checks what the format library
 * reads back: header, grid, materials, octree shape, geometry quads, lights, regions, errors,
 * determinism. Usage: test_pmfc PMFC WORKDIR */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "pmf/pmf.h"

static int failures;
static const char *pmfc, *workdir;

#define CHECK(cond) do { if (!(cond)) { fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); failures++; } } while (0)
#define CHECK_EQ(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); if (a_ != b_) { \
    fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, #a, a_, #b, b_); failures++; } } while (0)
#define CHECK_NEAR(a, b) do { double a_ = (a), b_ = (b); if (fabs(a_ - b_) > 1e-4) { \
    fprintf(stderr, "%s:%d: %s == %g, expected %g\n", __FILE__, __LINE__, #a, a_, b_); failures++; } } while (0)

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); exit(1); }
    fputs(text, f);
    fclose(f);
}

/* Runs pmfc on a source text; returns its exit status and what it printed on stderr. */
static int compile(const char *name, const char *source, const char *extra, char *out_pmf, char *stderr_text, size_t size)
{
    char src[512], cmd[2048], log[512];
    snprintf(src, sizeof src, "%s/%s.pms", workdir, name);
    snprintf(out_pmf ? out_pmf : cmd, 512, "%s/%s.pmf", workdir, name);
    snprintf(log, sizeof log, "%s/%s.log", workdir, name);
    write_file(src, source);
    snprintf(cmd, sizeof cmd, "'%s' '%s' -o '%s/%s.pmf' --quiet --time 1234 %s 2>'%s'", pmfc, src, workdir, name, extra ? extra : "", log);
    int st = system(cmd);
    if (stderr_text) {
        stderr_text[0] = 0;
        FILE *f = fopen(log, "rb");
        if (f) {
            size_t n = fread(stderr_text, 1, size - 1, f);
            stderr_text[n] = 0;
            fclose(f);
        }
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
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
        failures++;
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
                CHECK_NEAR(q[k].xyz[axis], q[0].xyz[axis]);
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
        CHECK_NEAR(q[k].xyz[0], 2.5);
        CHECK(fabsf(q[k].xyz[1] - 0.5f) < 1e-5f || fabsf(q[k].xyz[1] - 2.5f) < 1e-5f);
        CHECK(fabsf(q[k].xyz[2] - 0.5f) < 1e-5f || fabsf(q[k].xyz[2] - 2.5f) < 1e-5f);
        CHECK(q[k].lm_uv[0] > 0 && q[k].lm_uv[0] < 1 && q[k].lm_uv[1] > 0 && q[k].lm_uv[1] < 1);
    }
    /* -Y quad (the fifth) at y = 0.5, -Z quad (the sixth) at z = 0.5 */
    for (int k = 0; k < 4; k++) {
        CHECK_NEAR(q[16 + k].xyz[1], 0.5);
        CHECK_NEAR(q[20 + k].xyz[2], 0.5);
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
    CHECK_NEAR(lvl.client.materials[2].wave.scale, 0.2);
    CHECK_EQ(lvl.client.sky_env_count, 1);
    CHECK(!strcmp(lvl.client.sky_envs[0].skybox[PMF_FACE_NEG_Z], "sky"));
    CHECK(!strcmp(lvl.client.default_sky_env, "day"));
    CHECK_EQ(lvl.common.gravity_env_count, 1);
    CHECK_NEAR(lvl.common.gravity_envs[0].gravity[1], -3);
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
        CHECK_NEAR(a.common.gravity_regions[0].corners[0][0], 4);
        CHECK_NEAR(a.common.gravity_regions[0].corners[7][0], -8);
        CHECK_NEAR(a.common.gravity_regions[0].corners[7][1], 0);
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
    /* the water cube has lighting data; every chunk names the load regions of its neighbour */
    int lit = 0;
    for (uint32_t i = 0; i < b.common.cube_count; i++) lit += (b.common.cubes[i].flags & PMF_CUBE_HAS_LIGHTING) != 0;
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
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' 2>/dev/null", pmfc);
    int s = system(cmd);
    CHECK(WIFEXITED(s) && WEXITSTATUS(s) == 1);
    snprintf(cmd, sizeof cmd, "'%s' '%s/box.pms' -o '%s/x.pmf' --frobnicate 2>/dev/null", pmfc, workdir, workdir);
    s = system(cmd);
    CHECK(WIFEXITED(s) && WEXITSTATUS(s) == 1);
}

static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc(*size ? *size : 1);
    if (fread(p, 1, *size, f) != *size) { free(p); p = NULL; }
    fclose(f);
    return p;
}

static void test_determinism(void)
{
    const char *src = "map \"Det\"\nmaterial m\nlevel l {\n  chunk_size 4\n  room -6 0 -6 6 4 6 material m door -z 1 2\n"
                      "  box -2 0 -2 -1 1 -1 material m\n  light static at 0 2 0\n  light fast 1 at 2 2 2\n}\n";
    char a[512], b[512];
    CHECK_EQ(compile("det_a", src, "--threads 1", a, NULL, 0), 0);
    CHECK_EQ(compile("det_b", src, "--threads 2", b, NULL, 0), 0);
    size_t na = 0, nb = 0;
    unsigned char *pa = slurp(a, &na), *pb = slurp(b, &nb);
    CHECK(pa && pb && na == nb && !memcmp(pa, pb, na));
    free(pa);
    free(pb);
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
    char a[512], b[512], c[512], cmd[2048];
    const char *seeds[3] = { "3 --threads 1", "3 --threads 2", "4" };
    char *outs[3] = { a, b, c };
    for (int i = 0; i < 3; i++) {
        snprintf(outs[i], 512, "%s/gen%d.pmf", workdir, i);
        snprintf(cmd, sizeof cmd, "'%s' --generate town --chunks 2x1x2 --seed %s -o '%s' --quiet", pmfc, seeds[i], outs[i]);
        int st = system(cmd);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
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
    unsigned char *pa = slurp(a, &na), *pb = slurp(b, &nb), *pc = slurp(c, &nc);
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
    char whole[512], tiled[512], cmd[2048];
    snprintf(whole, sizeof whole, "%s/tiles_whole.pmf", workdir);
    snprintf(tiled, sizeof tiled, "%s/tiles_%s.pmf", workdir, tile);
    const char *outs[2] = { whole, tiled }, *tiles[2] = { "64", tile };
    for (int i = 0; i < 2; i++) {
        snprintf(cmd, sizeof cmd, "'%s' --generate town --chunks 20x1x4 --seed 5 --tile %s -o '%s' --quiet", pmfc, tiles[i], outs[i]);
        int st = system(cmd);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
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

int main(int argc, char **argv)
{
    if (argc != 3) {
        fputs("usage: test_pmfc PMFC WORKDIR\n", stderr);
        return 1;
    }
    pmfc = argv[1];
    workdir = argv[2];
    mkdir(workdir, 0777);
    test_single_box();
    test_features();
    test_errors();
    test_determinism();
    test_generator();
    test_generator_tiles("8");
    test_generator_tiles("1");
    test_visibility();
    if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
