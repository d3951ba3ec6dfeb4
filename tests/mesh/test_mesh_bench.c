/* test_mesh_bench.c - meshes a dense chunk (4096 six-faced cubes, 98304 vertices, 64 lightmaps,
 * fast lights) and prints the figures: GPU bytes per vertex, batches, atlas use, milliseconds. */
#include <time.h>

#include "common/check.h"
#include "fixture_chunk.h"
#include "mesh.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(void)
{
    enum { LEAVES = 4096, PARENTS = 1 + 8 + 64 + 512, CUBES = PARENTS + LEAVES, VERTS = LEAVES * 24 };
    fx_input *f = fx_input_new(6, 4, CUBES, VERTS, (const uint16_t[]){ 0, 1, 2, 3 }, 4);
    for (uint32_t p = 0; p < PARENTS; p++)
        for (uint32_t o = 0; o < 8; o++)
            fx_parent(f->c, p, o, 1 + p * 8 + o);
    for (int l = 0; l < 64; l++)
        fx_lightmap_ramp(f->c, 4, (uint8_t)l);
    for (uint32_t i = 0; i < LEAVES; i++) {
        uint32_t c = PARENTS + i;
        fx_geom(f->c, c, (uint8_t)(i % 4), i % 17 == 0 ? PMF_NO_LIGHTMAP : (uint8_t)(i % 64), i * 24, 0x3F);
        f->c->cubes[c].flags = (i % 33 == 0 ? PMF_CUBE_DRAW_BACKFACES : 0) | (i % 5 == 0 ? PMF_CUBE_HAS_LIGHTING : 0);
        f->c->ccubes[c].lighting.base[0] = (uint8_t)i;
    }
    for (uint32_t v = 0; v < VERTS; v++) {
        f->c->verts[v].lm_uv[0] = (v % 4) / 3.0f;
        f->c->verts[v].lm_uv[1] = (v % 3) / 2.0f;
    }
    /* 3 fast lights, each reaching every other vertex of a 30000-vertex range */
    static pmf_fast_range ranges[3];
    static uint8_t mult[30000];
    for (int i = 0; i < 30000; i++)
        mult[i] = (uint8_t)(i & 1 ? 0 : 1 + i % 250);
    f->c->ch.common.fast_light_count = 3;
    for (int l = 0; l < 3; l++) {
        ranges[l] = (pmf_fast_range){ 20000u * l, 30000, mult };
        f->c->fast[l] = (pmf_fast_light){ PMF_LIGHT_ENABLE, 255, 100u + l };
        f->c->cfast[l] = (pmf_client_fast_light){ { 255, 255, 255 }, 1, &ranges[l] };
    }

    mesh_atlas *a = mesh_atlas_create(NULL);
    mesh_chunk mc;
    char err[256];
    double best = 1e9;
    for (int run = 0; run < 5; run++) {
        double t0 = now_ms();
        bool ok = mesh_build_chunk(&f->lvl, &f->c->ch, &(mesh_desc){ .atlas = a }, &mc, err, sizeof err);
        double t = now_ms() - t0;
        CHECK(ok);
        if (!ok) {
            fprintf(stderr, "%s\n", err);
            break;
        }
        if (t < best)
            best = t;
        if (run < 4)
            mesh_chunk_free(&mc);
    }
    if (!check_failures) {
        CHECK_EQ(sizeof(mesh_vertex), 16);
        CHECK_EQ(sizeof(mesh_fast_vertex), 8);
        CHECK_EQ(mc.vertex_count, VERTS);
        CHECK_EQ(mc.index_count, LEAVES * 36);
        CHECK_EQ(mc.run_count, LEAVES);
        /* 64 lightmaps; lightmap 255 on cubes i % 17 == 0: 49 of them lit (i % 85 == 0, base red
         * 85k mod 256, all distinct), the rest white */
        CHECK_EQ(mc.block_count, 64 + 49 + 1);
        uint64_t texels = mesh_atlas_used_texels(a);
        printf("mesh bench: %u cubes, %u vertices, %u indices, %u batches, %u blocks\n", CUBES, mc.vertex_count,
               mc.index_count, mc.batch_count, mc.block_count);
        printf("mesh bench: GPU bytes per vertex %zu (+%zu fast stream), index buffer %zu bytes\n",
               sizeof(mesh_vertex), sizeof(mesh_fast_vertex), (size_t)mc.index_count * 4);
        printf("mesh bench: atlas pages %u, texels used %llu\n", mesh_atlas_page_count(a), (unsigned long long)texels);
        printf("mesh bench: mesh_build_chunk best of 5: %.2f ms (%.1f Mvertices/s)\n", best, mc.vertex_count / best / 1e3);
        mesh_chunk_free(&mc);
    }
    CHECK_EQ(mesh_atlas_used_texels(a), 0);
    mesh_atlas_destroy(a);
    fx_input_free(f);
    return check_report("test_mesh_bench");
}
