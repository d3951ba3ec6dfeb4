/* test_pmf_build.c - triangles to PMF 0.0 (src/pmf_build): the map written validates with the
 * PMF library, keeps every triangle (vertex count), bins by chunk, packs more triangles than one
 * cube slot holds, gives lit triangles their own lightmaps, refuses what a chunk cannot hold. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/check.h"
#include "pmf_build.h"

static char path[] = "/tmp/pmf_build_XXXXXX";

static pmf_build_triangle triangle(float x, float y, float z, uint16_t material, bool lit, uint8_t light)
{
    pmf_build_triangle t = { .material = material, .lit = lit, .light = { light, light, (uint8_t)(255 - light) } };
    const float corner[3][3] = { { x, y, z }, { x + 0.5f, y, z }, { x, y + 0.5f, z } };
    memcpy(t.xyz, corner, sizeof corner);
    return t;
}

static const pmf_build_material mats[3] = {
    { "red", "", { 255, 0, 0 } }, { "green", "textures/g", { 0, 255, 0 } }, { "blue", "", { 0, 0, 255 } },
};

/* Writes the triangles, reopens and validates; returns level 0's stats. */
static bool build_and_read(const pmf_build_triangle *tris, size_t n, uint8_t exp, pmf_level_stats *stats, pmf_file **out)
{
    pmf_error err;
    pmf_build_desc d = { .name = "build test", .materials = mats, .material_count = 3, .triangles = tris,
                         .triangle_count = n, .chunk_size_exp = exp };
    if (!pmf_build_write(&d, path, &err)) {
        fprintf(stderr, "  build: %s\n", err.message);
        return false;
    }
    pmf_file *f = pmf_open(path, &err);
    bool ok = f && pmf_validate(f, stats, &err);
    if (!ok) {
        char line[800];
        fprintf(stderr, "  %s\n", pmf_error_format(&err, line, sizeof line));
    }
    *out = f;
    return ok;
}

static void test_many(void)
{
    /* 3000 triangles with centroids over x 0.17..300.07 m (16 m chunks centred on multiples of
     * 16: cells 0..19), three materials, 10 light colours */
    enum { N = 3000 };
    pmf_build_triangle *tris = malloc(N * sizeof *tris);
    for (int i = 0; i < N; i++)
        tris[i] = triangle((float)i * 0.1f, 1, -2, (uint16_t)(i % 3), i % 4 != 0, (uint8_t)(i % 10 * 20));
    pmf_level_stats stats[1];
    pmf_file *f = NULL;
    CHECK(build_and_read(tris, N, 4, stats, &f));
    if (f) {
        CHECK_EQ(f->levels[0].chunk_size_exp, 4);
        CHECK_EQ(stats[0].vertices, 3 * N);
        CHECK_EQ(stats[0].present_chunks, 20);
        CHECK_EQ(f->levels[0].count_x, 20);
        CHECK(stats[0].lightmaps >= 10 && stats[0].lightmaps <= 20 * 10);
        pmf_level lvl;
        pmf_error err;
        CHECK(pmf_level_read(f, 0, PMF_PART_ALL, &lvl, &err));
        CHECK_EQ(lvl.common.material_count, 3);
        CHECK(!strcmp(lvl.client.materials[1].texture, "textures/g") && lvl.client.materials[2].color[2] == 255);
        /* the chunk holding x = 0: its first leaf's vertices are chunk-local */
        pmf_chunk ch;
        pmf_chunk_coord c = { (uint32_t)lvl.center.x, lvl.center.y, lvl.center.z };
        CHECK(pmf_chunk_read(f, &lvl, 0, c, PMF_PART_ALL, &ch, &err));
        CHECK(ch.common.cube_count > 1 && ch.client.vertex_count > 0);
        for (uint32_t v = 0; v < ch.client.vertex_count; v++)
            CHECK(ch.client.vertices[v].xyz[0] >= -8.0f && ch.client.vertices[v].xyz[0] <= 8.5f);
        pmf_chunk_free(&ch);
        pmf_level_free(&lvl);
    }
    pmf_close(f);
    /* 2000 triangles on one spot, one material and light: more than one 6 x 255 cube holds */
    for (int i = 0; i < 2000; i++)
        tris[i] = triangle(1, 1, 1, 0, true, 100);
    CHECK(build_and_read(tris, 2000, 0, stats, &f));
    if (f)
        CHECK_EQ(stats[0].vertices, 6000);
    pmf_close(f);
    /* 300 light colours in one chunk: refused */
    for (int i = 0; i < 300; i++) {
        tris[i] = triangle(1, 1, 1, 0, true, 0);
        tris[i].light[0] = (uint8_t)i;
        tris[i].light[1] = (uint8_t)(i >> 8);
    }
    pmf_error err;
    pmf_build_desc d = { .materials = mats, .material_count = 3, .triangles = tris, .triangle_count = 300 };
    CHECK(!pmf_build_write(&d, path, &err));
    CHECK(strstr(err.message, "254 distinct light colours") != NULL);
    free(tris);
}

static void test_empty(void)
{
    pmf_level_stats stats[1];
    pmf_file *f = NULL;
    CHECK(build_and_read(NULL, 0, 0, stats, &f));
    if (f)
        CHECK_EQ(stats[0].present_chunks, 0);
    pmf_close(f);
}

int main(void)
{
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    test_many();
    test_empty();
    unlink(path);
    return check_report("test_pmf_build");
}
