/* test_mesh.c - the mesher: geometry and extended cubes, batches, runs, lightmap placement and
 * padding, base-colour blocks, fast-light multipliers and slots, dynamic layers, errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "fixture_chunk.h"
#include "mesh.h"

static mesh_atlas *atlas_2048(void) { return mesh_atlas_create(&(mesh_atlas_desc){ 0 }); }

static bool build(fx_input *f, mesh_atlas *a, mesh_chunk *mc)
{
    char err[256];
    bool ok = mesh_build_chunk(&f->lvl, &f->c->ch, &(mesh_desc){ .atlas = a }, mc, err, sizeof err);
    if (!ok)
        fprintf(stderr, "  mesh_build_chunk: %s\n", err);
    return ok;
}

/* Geometry cube with faces +X +Z -Y: 3 quads from vertex 5, drawn (v0 v1 v2)(v0 v2 v3). */
static void test_geometry_cube(void)
{
    mesh_atlas *a = atlas_2048();
    fx_input *f = fx_input_new(4, 3, 2, 20, (const uint16_t[]){ 2 }, 1);
    fx_parent(f->c, 0, 0, 1);
    uint8_t lm = fx_lightmap_ramp(f->c, 3, 7);
    fx_geom(f->c, 1, 0, lm, 5, 0x01 | 0x04 | 0x10);
    mesh_chunk mc;
    CHECK(build(f, a, &mc));
    CHECK_EQ(mc.vertex_count, 12);
    CHECK_EQ(mc.index_count, 18);
    for (uint32_t v = 0; v < mc.vertex_count; v++) {
        float xyz[3], uv[2];
        mesh_vertex_position(&mc, &mc.vertices[v], xyz);
        mesh_vertex_uv(&mc.batches[0], &mc.vertices[v], uv);
        CHECK(fabsf(xyz[0] - (float)(5 + v)) <= 1e-4f);
        CHECK(fabsf(xyz[2] - 3.0f * (5 + v)) <= 1e-4f);
        CHECK(fabsf(uv[1] + (float)(5 + v)) <= 1e-4f);
    }
    static const uint32_t quad[6] = { 0, 1, 2, 0, 2, 3 };
    for (uint32_t i = 0; i < 18; i++)
        CHECK_EQ(mc.indices[i], i / 6 * 4 + quad[i % 6]);
    CHECK_EQ(mc.batch_count, 1);
    CHECK_EQ(mc.batches[0].material, 2);
    CHECK_EQ(mc.batches[0].backfaces, false);
    CHECK_EQ(mc.batches[0].first_index, 0);
    CHECK_EQ(mc.batches[0].index_count, 18);
    CHECK_EQ(mc.run_count, 1);
    CHECK_EQ(mc.runs[0].cube, 1);
    CHECK_EQ(mc.cubes[1].cube_run_count, 1);
    CHECK_EQ(mc.cubes[0].cube_run_count, 0);
    CHECK(mc.cubes[1].min[0] == 5.0f && mc.cubes[1].max[0] == 16.0f);
    CHECK(mc.cubes[1].min[1] == 10.0f && mc.cubes[1].max[2] == 48.0f);
    CHECK(mc.min[0] == 5.0f && mc.max[1] == 32.0f);
    CHECK(mc.cubes[0].min[0] > mc.cubes[0].max[0]);
    CHECK(mc.size == 16.0f);
    CHECK(mc.fast == NULL);
    mesh_chunk_free(&mc);
    CHECK_EQ(mesh_atlas_used_texels(a), 0);
    fx_input_free(f);
    mesh_atlas_destroy(a);
}

/* lm_uv maps to (x + border + lm_uv * side) / page, stored × 65536; the block holds the padded
 * lightmap with edge luxels repeated. */
static void test_lightmap_placement(void)
{
    mesh_atlas *a = atlas_2048();
    mesh_atlas_rect taken;   /* shifts the chunk's block off the origin */
    CHECK(mesh_atlas_alloc(a, 8, &taken));
    fx_input *f = fx_input_new(4, 1, 2, 4, (const uint16_t[]){ 0 }, 1);
    fx_parent(f->c, 0, 3, 1);
    fx_lightmap_ramp(f->c, 2, 1);   /* unused by any face: gets no block */
    uint8_t lm = fx_lightmap_ramp(f->c, 3, 9);
    fx_geom(f->c, 1, 0, lm, 0, 0x02);
    f->c->verts[0].lm_uv[0] = 0.5f;  f->c->verts[0].lm_uv[1] = 0.5f;
    f->c->verts[1].lm_uv[0] = 4.5f / 8; f->c->verts[1].lm_uv[1] = 0.5f / 8;
    f->c->verts[2].lm_uv[0] = 1.0f;  f->c->verts[2].lm_uv[1] = 0.0f;
    f->c->verts[3].lm_uv[0] = 7.0f;  f->c->verts[3].lm_uv[1] = -2.0f;   /* clamped to [0,1] */
    mesh_chunk mc;
    CHECK(build(f, a, &mc));
    CHECK_EQ(mc.block_count, 1);
    CHECK_EQ(mc.lightmap_block[0], MESH_NONE);
    CHECK_EQ(mc.lightmap_block[1], 0);
    const mesh_lightmap_block *b = &mc.blocks[0];
    CHECK_EQ(b->lightmap, 1);
    CHECK_EQ(b->rect.side, 8);
    CHECK_EQ(b->rect.border, 1);
    CHECK_EQ(b->rect.x, 10);   /* after the 10-texel block taken above, same shelf */
    CHECK_EQ(b->rect.y, 0);
    CHECK_EQ(mc.batches[0].page, b->rect.page);
    uint32_t x = b->rect.x, y = b->rect.y;
    /* 2048-texel page: one texel = 32 units */
    CHECK_EQ(mc.vertices[0].lm_uv[0], (x + 1 + 4) * 32);
    CHECK_EQ(mc.vertices[0].lm_uv[1], (y + 1 + 4) * 32);
    CHECK_EQ(mc.vertices[1].lm_uv[0], (x + 1 + 4) * 32 + 16);   /* centre of luxel 4 */
    CHECK_EQ(mc.vertices[1].lm_uv[1], (y + 1) * 32 + 16);       /* centre of luxel 0 */
    CHECK_EQ(mc.vertices[2].lm_uv[0], (x + 1 + 8) * 32);
    CHECK_EQ(mc.vertices[2].lm_uv[1], (y + 1) * 32);
    CHECK_EQ(mc.vertices[3].lm_uv[0], (x + 1 + 8) * 32);
    CHECK_EQ(mc.vertices[3].lm_uv[1], (y + 1) * 32);
    CHECK((float)mc.vertices[1].lm_uv[0] * MESH_LM_UV_SCALE * 2048 == x + 5.5f);
    /* padded block: 10×10, row r / column c holds luxel (clamp(c-1), clamp(r-1)) */
    for (uint32_t r = 0; r < 10; r++)
        for (uint32_t c = 0; c < 10; c++) {
            const uint8_t *p = &b->luxels[(r * 10 + c) * 3];
            uint32_t lx = c == 0 ? 0 : c == 9 ? 7 : c - 1, ly = r == 0 ? 0 : r == 9 ? 7 : r - 1;
            CHECK_EQ(p[0], lx);
            CHECK_EQ(p[1], ly);
            CHECK_EQ(p[2], 9);
        }
    mesh_chunk_free(&mc);
    mesh_atlas_free(a, &taken);
    CHECK_EQ(mesh_atlas_used_texels(a), 0);
    fx_input_free(f);
    mesh_atlas_destroy(a);
}

/* A lightmap as large as the page fills a page of its own with no border. */
static void test_whole_page_lightmap(void)
{
    mesh_atlas *a = mesh_atlas_create(&(mesh_atlas_desc){ .page_size = 16 });
    fx_input *f = fx_input_new(4, 1, 2, 4, (const uint16_t[]){ 0 }, 1);
    fx_parent(f->c, 0, 0, 1);
    uint8_t lm = fx_lightmap_ramp(f->c, 4, 3);
    fx_geom(f->c, 1, 0, lm, 0, 0x01);
    f->c->verts[0].lm_uv[0] = 0.25f;
    f->c->verts[1].lm_uv[0] = 1.0f;
    mesh_chunk mc;
    CHECK(build(f, a, &mc));
    CHECK_EQ(mc.blocks[0].rect.border, 0);
    CHECK_EQ(mesh_atlas_block_side(&mc.blocks[0].rect), 16);
    CHECK_EQ(mc.vertices[0].lm_uv[0], 16384);
    CHECK_EQ(mc.vertices[1].lm_uv[0], 65535);
    CHECK(memcmp(mc.blocks[0].luxels, f->c->lightmaps[0].luxels, 16 * 16 * 3) == 0);
    mesh_chunk_free(&mc);
    /* 2^5 > page: an error, and nothing stays allocated */
    f->c->lightmaps[0].size_exp = 5;
    free(f->c->lightmaps[0].luxels);
    f->c->lightmaps[0].luxels = calloc(32 * 32, 3);
    char err[256];
    CHECK(!mesh_build_chunk(&f->lvl, &f->c->ch, &(mesh_desc){ .atlas = a }, &mc, err, sizeof err));
    CHECK(strstr(err, "chunk (1,2,3): lightmap 0") == err);
    CHECK_EQ(mesh_atlas_used_texels(a), 0);
    fx_input_free(f);
    mesh_atlas_destroy(a);
}

/* Extended cube: per-face groups, each with its material and lightmap; batches by level
 * material; faces of one batch stay in face order within the cube's run. */
static void test_extended_cube(void)
{
    mesh_atlas *a = atlas_2048();
    fx_input *f = fx_input_new(4, 4, 2, 40, (const uint16_t[]){ 3, 1 }, 2);
    fx_parent(f->c, 0, 5, 1);
    uint8_t lm0 = fx_lightmap_ramp(f->c, 1, 0), lm1 = fx_lightmap_ramp(f->c, 2, 1);
    pmf_cube *c = &f->c->cubes[1];
    c->type = PMF_CUBE_EXTGEOMETRY;
    memcpy(c->u.ext.material, (const uint8_t[]){ 0, 1, 0, 0, 0, 0 }, 6);
    pmf_client_cube *cc = &f->c->ccubes[1];
    cc->u.ext.first_vertex = 10;
    memcpy(cc->u.ext.tri_count, (const uint8_t[]){ 1, 2, 0, 0, 0, 1 }, 6);
    memcpy(cc->u.ext.lightmap, (const uint8_t[]){ lm0, lm1, 0, 0, 0, lm0 }, 6);
    mesh_chunk mc;
    CHECK(build(f, a, &mc));
    CHECK_EQ(mc.vertex_count, 12);
    for (uint32_t v = 0; v < 12; v++) {
        float xyz[3];
        mesh_vertex_position(&mc, &mc.vertices[v], xyz);
        CHECK(fabsf(xyz[0] - (float)(10 + v)) <= 1e-4f);
    }
    CHECK_EQ(mc.batch_count, 2);
    CHECK_EQ(mc.batches[0].material, 1);   /* used 1 -> level 1: the +Y face */
    CHECK_EQ(mc.batches[0].index_count, 6);
    CHECK_EQ(mc.batches[1].material, 3);   /* used 0 -> level 3: +X and -Z */
    CHECK_EQ(mc.batches[1].first_index, 6);
    CHECK_EQ(mc.batches[1].index_count, 6);
    static const uint32_t want[12] = { 3, 4, 5, 6, 7, 8, 0, 1, 2, 9, 10, 11 };
    for (int i = 0; i < 12; i++)
        CHECK_EQ(mc.indices[i], want[i]);
    CHECK_EQ(mc.run_count, 2);
    CHECK_EQ(mc.cubes[1].cube_run_count, 2);
    CHECK_EQ(mc.cube_runs[mc.cubes[1].first_cube_run], 0);
    CHECK_EQ(mc.cube_runs[mc.cubes[1].first_cube_run + 1], 1);
    CHECK_EQ(mc.runs[1].batch, 1);
    /* +Y samples lightmap 1's block, +X and -Z lightmap 0's */
    const mesh_atlas_rect *r0 = &mc.blocks[mc.lightmap_block[lm0]].rect, *r1 = &mc.blocks[mc.lightmap_block[lm1]].rect;
    CHECK_EQ(mc.vertices[0].lm_uv[0], (r0->x + 1) * 32);
    CHECK_EQ(mc.vertices[3].lm_uv[0], (r1->x + 1) * 32);
    CHECK_EQ(mc.vertices[9].lm_uv[1], (r0->y + 1) * 32);
    mesh_chunk_free(&mc);
    fx_input_free(f);
    mesh_atlas_destroy(a);
}

/* Backfaces split batches; runs per cube in cube order; visible ranges merge. Cube 4 is not
 * reachable and is ignored. */
static void test_batches_and_runs(void)
{
    mesh_atlas *a = atlas_2048();
    fx_input *f = fx_input_new(4, 2, 5, 40, (const uint16_t[]){ 0 }, 1);
    fx_parent(f->c, 0, 0, 1);
    fx_parent(f->c, 0, 1, 2);
    fx_parent(f->c, 0, 2, 3);
    uint8_t lm = fx_lightmap_ramp(f->c, 0, 0);
    fx_geom(f->c, 1, 0, lm, 0, 0x03);
    fx_geom(f->c, 2, 0, lm, 8, 0x01);
    fx_geom(f->c, 3, 0, lm, 12, 0x01);
    fx_geom(f->c, 4, 0, lm, 16, 0x3F);
    mesh_chunk mc;
    CHECK(build(f, a, &mc));
    CHECK_EQ(mc.vertex_count, 16);
    CHECK_EQ(mc.batch_count, 1);
    CHECK_EQ(mc.run_count, 3);
    CHECK(!mc.cubes[4].reachable && mc.cubes[3].reachable);
    CHECK_EQ(mc.cubes[4].cube_run_count, 0);
    mesh_draw_range ranges[3];
    uint64_t bits = (1u << 1) | (1u << 3);
    CHECK_EQ(mesh_batch_ranges(&mc, 0, &bits, ranges), 2);
    CHECK_EQ(ranges[0].first_index, 0);
    CHECK_EQ(ranges[0].index_count, 12);
    CHECK_EQ(ranges[1].first_index, 18);
    CHECK_EQ(ranges[1].index_count, 6);
    bits = (1u << 1) | (1u << 2);
    CHECK_EQ(mesh_batch_ranges(&mc, 0, &bits, ranges), 1);
    CHECK_EQ(ranges[0].index_count, 18);
    CHECK_EQ(mesh_batch_ranges(&mc, 0, NULL, ranges), 1);
    CHECK_EQ(ranges[0].index_count, 24);
    bits = 1;
    CHECK_EQ(mesh_batch_ranges(&mc, 0, &bits, ranges), 0);
    mesh_chunk_free(&mc);

    f->c->cubes[2].flags |= PMF_CUBE_DRAW_BACKFACES;
    CHECK(build(f, a, &mc));
    CHECK_EQ(mc.batch_count, 2);
    CHECK_EQ(mc.batches[0].backfaces, false);
    CHECK_EQ(mc.batches[0].run_count, 2);
    CHECK_EQ(mc.runs[0].cube, 1);
    CHECK_EQ(mc.runs[1].cube, 3);
    CHECK_EQ(mc.batches[0].index_count, 18);
    CHECK_EQ(mc.batches[1].backfaces, true);
    CHECK_EQ(mc.batches[1].first_index, 18);
    CHECK_EQ(mc.runs[2].cube, 2);
    CHECK_EQ(mc.indices[18], 8);   /* cube 2's vertices come after cube 1's 8 */
    CHECK_EQ(mc.batches[0].material, mc.batches[1].material);
    mesh_chunk_free(&mc);
    fx_input_free(f);
    mesh_atlas_destroy(a);
}

/* Lightmap 255: a 1×1 block of the cube's base colour (white without lighting data), one per
 * distinct colour, sampled at its centre texel. */
static void test_base_colour(void)
{
    mesh_atlas *a = atlas_2048();
    fx_input *f = fx_input_new(4, 1, 4, 12, (const uint16_t[]){ 0 }, 1);
    fx_parent(f->c, 0, 0, 1);
    fx_parent(f->c, 0, 1, 2);
    fx_parent(f->c, 0, 2, 3);
    fx_geom(f->c, 1, 0, PMF_NO_LIGHTMAP, 0, 0x01);
    fx_geom(f->c, 2, 0, PMF_NO_LIGHTMAP, 4, 0x01);
    fx_geom(f->c, 3, 0, PMF_NO_LIGHTMAP, 8, 0x01);
    f->c->cubes[1].flags |= PMF_CUBE_HAS_LIGHTING;
    f->c->cubes[3].flags |= PMF_CUBE_HAS_LIGHTING;
    memcpy(f->c->ccubes[1].lighting.base, (const uint8_t[]){ 10, 20, 30 }, 3);
    memcpy(f->c->ccubes[3].lighting.base, (const uint8_t[]){ 10, 20, 30 }, 3);
    mesh_chunk mc;
    CHECK(build(f, a, &mc));
    CHECK_EQ(mc.block_count, 2);
    const mesh_lightmap_block *lit = &mc.blocks[0], *white = &mc.blocks[1];
    CHECK_EQ(lit->lightmap, -1);
    CHECK_EQ(lit->rect.side, 1);
    CHECK_EQ(mesh_atlas_block_side(&lit->rect), 3);
    for (int t = 0; t < 9; t++) {
        CHECK(memcmp(&lit->luxels[t * 3], (const uint8_t[]){ 10, 20, 30 }, 3) == 0);
        CHECK(memcmp(&white->luxels[t * 3], (const uint8_t[]){ 255, 255, 255 }, 3) == 0);
    }
    for (uint32_t v = 0; v < 12; v++) {
        const mesh_atlas_rect *r = v / 4 == 1 ? &white->rect : &lit->rect;
        CHECK_EQ(mc.vertices[v].lm_uv[0], r->x * 32 + 48);
        CHECK_EQ(mc.vertices[v].lm_uv[1], r->y * 32 + 48);
    }
    mesh_chunk_free(&mc);
    CHECK_EQ(mesh_atlas_used_texels(a), 0);
    fx_input_free(f);
    mesh_atlas_destroy(a);
}

static void test_fast_multipliers(void)
{
    uint8_t m1[] = { 10, 20, 30 }, m2[] = { 40, 50 }, m3[] = { 1, 2, 3, 4, 5 };
    pmf_fast_range ranges[3] = { { 2, 3, m1 }, { 1, 2, m2 }, { 0, 5, m3 } };
    pmf_client_fast_light light = { { 1, 2, 3 }, 2, ranges };
    uint8_t out[12];
    memset(out, 0xEE, sizeof out);
    mesh_fast_multipliers(&light, 10, out);
    static const uint8_t want[10] = { 0, 0, 10, 20, 30, 0, 40, 50, 0, 0 };
    CHECK(memcmp(out, want, 10) == 0);
    CHECK_EQ(out[10], 0xEE);
    /* a third range running past the vertex count is clamped */
    light.range_count = 3;
    mesh_fast_multipliers(&light, 10, out);
    CHECK_EQ(out[8], 1);
    CHECK_EQ(out[9], 2);
    CHECK_EQ(out[10], 0xEE);
    mesh_fast_multipliers(&light, 4, out);
    CHECK(memcmp(out, (const uint8_t[]){ 0, 0, 10, 20 }, 4) == 0);
    CHECK_EQ(out[4], 30);   /* untouched from the call before */
}

/* Fast slots per output vertex: up to 4, the largest multipliers kept, ties to the lower light. */
static void test_fast_slots(void)
{
    mesh_atlas *a = atlas_2048();
    fx_input *f = fx_input_new(4, 1, 2, 8, (const uint16_t[]){ 0 }, 1);
    fx_parent(f->c, 0, 0, 1);
    fx_geom(f->c, 1, 0, PMF_NO_LIGHTMAP, 4, 0x01);   /* output vertices 0..3 = chunk vertices 4..7 */
    /* light l gives chunk vertex 4 multiplier mult4[l], vertex 5 mult5[l] */
    static uint8_t mult[6][2] = { { 9, 0 }, { 50, 0 }, { 9, 7 }, { 60, 0 }, { 70, 0 }, { 9, 0 } };
    static pmf_fast_range ranges[6];
    f->c->ch.common.fast_light_count = 6;
    for (int l = 0; l < 6; l++) {
        ranges[l] = (pmf_fast_range){ 4, 2, mult[l] };
        f->c->fast[l] = (pmf_fast_light){ PMF_LIGHT_ENABLE, (uint8_t)(100 + l), 500u + l };
        f->c->cfast[l] = (pmf_client_fast_light){ { (uint8_t)l, 0, 0 }, 1, &ranges[l] };
    }
    mesh_chunk mc;
    CHECK(build(f, a, &mc));
    CHECK(mc.fast != NULL);
    CHECK_EQ(mc.fast_light_count, 6);
    CHECK_EQ(mc.fast_lights[3].id, 503);
    CHECK_EQ(mc.fast_lights[3].intensity, 103);
    CHECK_EQ(mc.fast_lights[3].color[0], 3);
    /* vertex 0: lights 0..5 reach it with 9 50 9 60 70 9: keeps 1 3 4 and light 0 (first 9) */
    int seen[6] = { 0 };
    for (int s = 0; s < 4; s++) {
        uint8_t slot = mc.fast[0].slot[s];
        CHECK(slot < 6);
        if (slot < 6) {
            seen[slot] = 1;
            CHECK_EQ(mc.fast[0].mult[s], mult[slot][0]);
        }
    }
    CHECK(seen[0] && seen[1] && seen[3] && seen[4] && !seen[2] && !seen[5]);
    /* vertex 1: only light 2 */
    CHECK_EQ(mc.fast[1].slot[0], 2);
    CHECK_EQ(mc.fast[1].mult[0], 7);
    for (int s = 1; s < 4; s++) {
        CHECK_EQ(mc.fast[1].slot[s], MESH_FAST_UNUSED);
        CHECK_EQ(mc.fast[1].mult[s], 0);
    }
    /* vertices 2, 3: no range reaches them */
    for (int s = 0; s < 4; s++)
        CHECK_EQ(mc.fast[3].slot[s], MESH_FAST_UNUSED);
    mesh_chunk_free(&mc);
    fx_input_free(f);
    mesh_atlas_destroy(a);
}

/* Dynamic layers land on their target lightmap's block, padded the same way; layers of a
 * lightmap no face uses are dropped. */
static void test_dynamic_layers(void)
{
    mesh_atlas *a = atlas_2048();
    fx_input *f = fx_input_new(4, 1, 2, 4, (const uint16_t[]){ 0 }, 1);
    fx_parent(f->c, 0, 0, 1);
    uint8_t unused = fx_lightmap_ramp(f->c, 1, 0), lm = fx_lightmap_ramp(f->c, 1, 1);
    fx_geom(f->c, 1, 0, lm, 0, 0x01);
    static uint8_t layer_lux[4 * 3] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
    static pmf_light_layer layers[2];
    layers[0] = (pmf_light_layer){ unused, layer_lux };
    layers[1] = (pmf_light_layer){ lm, layer_lux };
    f->c->ch.common.dynamic_light_count = 1;
    f->c->dyn[0] = (pmf_dynamic_light){ PMF_LIGHT_ENABLE, 4242 };
    f->c->cdyn[0] = (pmf_client_dynamic_light){ { 200, 100, 50 }, 2, layers };
    mesh_chunk mc;
    CHECK(build(f, a, &mc));
    CHECK_EQ(mc.dynamic_light_count, 1);
    CHECK_EQ(mc.dynamic_lights[0].id, 4242);
    CHECK_EQ(mc.dynamic_lights[0].color[1], 100);
    CHECK_EQ(mc.dynamic_lights[0].flags, PMF_LIGHT_ENABLE);
    CHECK_EQ(mc.layer_count, 1);
    CHECK_EQ(mc.layers[0].light, 0);
    CHECK_EQ(mc.layers[0].block, mc.lightmap_block[lm]);
    /* 4×4 padded: row 0 = luxel row 0 repeated, corner = luxel 0 */
    static const uint8_t want_row0[12] = { 1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6 };
    static const uint8_t want_row3[12] = { 7, 8, 9, 7, 8, 9, 10, 11, 12, 10, 11, 12 };
    CHECK(memcmp(mc.layers[0].luxels, want_row0, 12) == 0);
    CHECK(memcmp(mc.layers[0].luxels + 12, want_row0, 12) == 0);
    CHECK(memcmp(mc.layers[0].luxels + 36, want_row3, 12) == 0);
    mesh_chunk_free(&mc);
    fx_input_free(f);
    mesh_atlas_destroy(a);
}

/* Bad references fail with a message naming chunk and cube, leaving nothing allocated. */
static void test_errors(void)
{
    mesh_atlas *a = atlas_2048();
    fx_input *f = fx_input_new(4, 1, 2, 8, (const uint16_t[]){ 0 }, 1);
    fx_parent(f->c, 0, 0, 1);
    uint8_t lm = fx_lightmap_ramp(f->c, 2, 0);
    char err[256];
    mesh_chunk mc;

    fx_geom(f->c, 1, 0, lm, 5, 0x01);   /* vertices 5..8 of 8 */
    CHECK(!mesh_build_chunk(&f->lvl, &f->c->ch, &(mesh_desc){ .atlas = a }, &mc, err, sizeof err));
    CHECK(strcmp(err, "chunk (1,2,3): cube 1: vertices 5..8 past the vertex count 8") == 0);
    fx_geom(f->c, 1, 1, lm, 0, 0x01);
    CHECK(!mesh_build_chunk(&f->lvl, &f->c->ch, &(mesh_desc){ .atlas = a }, &mc, err, sizeof err));
    CHECK(strstr(err, "cube 1: material 1") != NULL);
    f->c->material_map[0] = 1;          /* level has only 1 material */
    fx_geom(f->c, 1, 0, lm, 0, 0x01);
    CHECK(!mesh_build_chunk(&f->lvl, &f->c->ch, &(mesh_desc){ .atlas = a }, &mc, err, sizeof err));
    f->c->material_map[0] = 0;
    fx_geom(f->c, 1, 0, 3, 0, 0x01);
    CHECK(!mesh_build_chunk(&f->lvl, &f->c->ch, &(mesh_desc){ .atlas = a }, &mc, err, sizeof err));
    CHECK(strstr(err, "lightmap 3 past the lightmap count 1") != NULL);
    fx_geom(f->c, 1, 0, lm, 0, 0x01);
    fx_parent(f->c, 0, 1, 1);           /* cube 1 twice */
    CHECK(!mesh_build_chunk(&f->lvl, &f->c->ch, &(mesh_desc){ .atlas = a }, &mc, err, sizeof err));
    CHECK(strstr(err, "reached twice") != NULL);
    f->c->cubes[0].u.parent.child_mask = 1;
    f->c->ch.parts = PMF_PART_COMMON;
    CHECK(!mesh_build_chunk(&f->lvl, &f->c->ch, &(mesh_desc){ .atlas = a }, &mc, err, sizeof err));
    f->c->ch.parts = PMF_PART_COMMON | PMF_PART_CLIENT;
    CHECK(!mesh_build_chunk(&f->lvl, &f->c->ch, &(mesh_desc){ .atlas = NULL }, &mc, err, sizeof err));
    CHECK(build(f, a, &mc));
    mesh_chunk_free(&mc);
    mesh_chunk_free(&mc);   /* safe twice: zeroed */
    CHECK_EQ(mesh_atlas_used_texels(a), 0);
    fx_input_free(f);
    mesh_atlas_destroy(a);
}

/* The 16-byte vertex at its limits: a 1 km span keeps extent / 2^21 (about 0.5 mm), UVs their
 * batch's extent / 2^19, and NaN or infinite coordinates decode finite, at an end of the frame. */
static void test_quantise_limits(void)
{
    mesh_atlas *a = atlas_2048();
    fx_input *f = fx_input_new(10, 1, 2, 8, (const uint16_t[]){ 0 }, 1);
    fx_parent(f->c, 0, 0, 1);
    fx_geom(f->c, 1, 0, PMF_NO_LIGHTMAP, 0, 0x01 | 0x02);
    static const float xyz[8][3] = {
        { -500.0f, 0, 0 }, { 500.0f, 0, 0 }, { 123.456789f, -7.25f, 0.001f }, { 0.0001f, 0.0002f, 0.0003f },
        { NAN, 1.0f, 2.0f }, { INFINITY, 3.0f, 4.0f }, { -INFINITY, 5.0f, 6.0f }, { 499.99f, -499.99f, 12.5f },
    };
    for (int v = 0; v < 8; v++) {
        memcpy(f->c->verts[v].xyz, xyz[v], sizeof xyz[v]);
        f->c->verts[v].uv[0] = v == 3 ? 100000.0f : 0.37f * v;
        f->c->verts[v].uv[1] = v == 5 ? NAN : -0.5f * v;
    }
    mesh_chunk mc;
    CHECK(build(f, a, &mc));
    CHECK_EQ(mc.vertex_count, 8);
    CHECK_EQ(mc.batch_count, 1);
    for (uint32_t v = 0; v < mc.vertex_count; v++) {
        float p[3], uv[2];
        mesh_vertex_position(&mc, &mc.vertices[v], p);
        mesh_vertex_uv(&mc.batches[0], &mc.vertices[v], uv);
        for (int k = 0; k < 3; k++) {
            CHECK(isfinite(p[k]));
            if (isfinite(xyz[v][k]))
                CHECK(fabsf(p[k] - xyz[v][k]) <= 1000.0f / (1 << 21) + 1e-4f);
        }
        CHECK(isfinite(uv[0]) && isfinite(uv[1]));
        CHECK(fabsf(uv[0] - f->c->verts[v].uv[0]) <= 100000.0f / (1 << 19) * 1.001f);
        if (v != 5)
            CHECK(fabsf(uv[1] + 0.5f * v) <= 3.5f / (1 << 19) * 1.001f);
    }
    float p[3];
    mesh_vertex_position(&mc, &mc.vertices[4], p);
    CHECK(p[0] == mc.origin[0]);                               /* NaN: the frame's low end */
    mesh_vertex_position(&mc, &mc.vertices[5], p);
    CHECK(fabsf(p[0] - 500.0f) <= 1e-3f);                      /* +inf: its high end */
    mesh_vertex_position(&mc, &mc.vertices[6], p);
    CHECK(p[0] == -500.0f);                                    /* -inf: its low end */
    mesh_chunk_free(&mc);
    fx_input_free(f);
    mesh_atlas_destroy(a);
}

/* The vertex words themselves, hand-computed: frames whose steps are powers of two (positions
 * over [-8, 8 - 2^-16]: 2^-16 m; UVs over [0, 262143 / 1024]: 2^-10 repeats), one piece of finite
 * values (quantised without clamping) and one with NaN and infinities (clamped: NaN and -inf to
 * 0, +inf to the top, none of them in a frame). */
static void test_exact_vertex_words(void)
{
    mesh_atlas *a = atlas_2048();
    fx_input *f = fx_input_new(5, 1, 3, 8, (const uint16_t[]){ 0 }, 1);
    fx_parent(f->c, 0, 0, 1);
    fx_parent(f->c, 0, 1, 2);
    uint8_t lm = fx_lightmap_ramp(f->c, 2, 0);
    fx_geom(f->c, 1, 0, lm, 0, 0x01);
    fx_geom(f->c, 2, 0, PMF_NO_LIGHTMAP, 4, 0x01);
    const float top = 8.0f - 1.0f / 65536.0f, uv_top = 262143.0f / 1024.0f;
    const float xyz[8][3] = {
        { -8, -8, -8 }, { top, top, top }, { 0.25f + 1.0f / 131072.0f, 2, 3 }, { 1, 1, 1 },
        { NAN, 0, 0 }, { INFINITY, 0, 0 }, { -INFINITY, 0, 0 }, { 2, 2, 2 },
    };
    const float uv[8][2] = { { 0, 0 }, { uv_top, 1 }, { 0.5f, 0.5f }, { 1, 2 },
                             { INFINITY, 0 }, { NAN, 3 }, { -INFINITY, 4 }, { 2, uv_top } };
    const float lm_uv[4][2] = { { 0, 0 }, { 1, 1 }, { 0.5f, 0.25f }, { -1, NAN } };
    for (int v = 0; v < 8; v++) {
        memcpy(f->c->verts[v].xyz, xyz[v], sizeof xyz[v]);
        memcpy(f->c->verts[v].uv, uv[v], sizeof uv[v]);
        if (v < 4)
            memcpy(f->c->verts[v].lm_uv, lm_uv[v], sizeof lm_uv[v]);
    }
    /* (x + 8) x 2^16 and u x 2^10, + 0.5, truncated: 8.25 + 2^-17 -> 540672.5 + 0.5 */
    static const uint32_t qx[8] = { 0, 1048575, 540673, 589824, 0, 1048575, 0, 655360 };
    static const uint32_t qy[8] = { 0, 1048575, 655360, 589824, 524288, 524288, 524288, 655360 };
    static const uint32_t qz[8] = { 0, 1048575, 720896, 589824, 524288, 524288, 524288, 655360 };
    static const uint32_t qu[8] = { 0, 262143, 512, 1024, 262143, 0, 0, 2048 };
    static const uint32_t qv[8] = { 0, 1024, 512, 2048, 0, 3072, 4096, 262143 };
    mesh_chunk mc;
    CHECK(build(f, a, &mc));
    CHECK_EQ(mc.vertex_count, 8);
    CHECK_EQ(mc.batch_count, 1);
    for (int k = 0; k < 3; k++) {
        CHECK(mc.origin[k] == -8.0f);
        CHECK(mc.step[k] == 1.0f / 65536.0f);
    }
    for (int k = 0; k < 2; k++) {
        CHECK(mc.batches[0].uv_origin[k] == 0.0f);
        CHECK(mc.batches[0].uv_step[k] == 1.0f / 1024.0f);
    }
    /* atlas UV in 1/65536 of the 2048 page: (x + border + lm_uv x 4 luxels) x 32 + 0.5; the base
     * colour block's centre texel */
    const mesh_atlas_rect *r = &mc.blocks[mc.lightmap_block[lm]].rect, *base = &mc.blocks[mc.block_count - 1].rect;
    const uint32_t lm_u[8] = { (r->x + 1) * 32, (r->x + 5) * 32, (r->x + 3) * 32, (r->x + 1) * 32 };
    const uint32_t lm_v[8] = { (r->y + 1) * 32, (r->y + 5) * 32, (r->y + 2) * 32, (r->y + 1) * 32 };
    for (int v = 0; v < 8; v++) {
        const mesh_vertex *mv = &mc.vertices[v];
        CHECK_EQ(mv->pos[0], qx[v] >> 4);
        CHECK_EQ(mv->pos[1], qy[v] >> 4);
        CHECK_EQ(mv->pos[2], qz[v] >> 4);
        CHECK_EQ(mv->pos[3], (qx[v] & 15) | (qy[v] & 15) << 4 | (qz[v] & 15) << 8 | (qu[v] & 3) << 12 | (qv[v] & 3) << 14);
        CHECK_EQ(mv->uv[0], qu[v] >> 2);
        CHECK_EQ(mv->uv[1], qv[v] >> 2);
        CHECK_EQ(mv->lm_uv[0], v < 4 ? lm_u[v] : (uint32_t)((base->x + 1.5f) * 32 + 0.5f));
        CHECK_EQ(mv->lm_uv[1], v < 4 ? lm_v[v] : (uint32_t)((base->y + 1.5f) * 32 + 0.5f));
    }
    /* cube boxes over the values that are not NaN (infinities kept), the chunk's the same */
    CHECK(mc.cubes[1].min[0] == -8.0f && mc.cubes[1].max[0] == top && mc.cubes[1].max[2] == top);
    CHECK(mc.cubes[2].min[0] == -INFINITY && mc.cubes[2].max[0] == INFINITY && mc.cubes[2].max[1] == 2.0f);
    CHECK(mc.min[0] == -INFINITY && mc.max[0] == INFINITY && mc.min[1] == -8.0f && mc.max[1] == top);
    mesh_chunk_free(&mc);
    fx_input_free(f);
    mesh_atlas_destroy(a);
}

/* A frame so narrow its step is a subnormal float (rounded by up to half of itself): the top
 * vertex is still clamped to the top count, not wrapped. x spans 6606022 x 2^-149 from 2e-38:
 * 6.3 x 2^-149 a step, stored as 6 x 2^-149. */
static void test_subnormal_step(void)
{
    mesh_atlas *a = atlas_2048();
    fx_input *f = fx_input_new(5, 1, 2, 4, (const uint16_t[]){ 0 }, 1);
    fx_parent(f->c, 0, 0, 1);
    fx_geom(f->c, 1, 0, PMF_NO_LIGHTMAP, 0, 0x01);
    const float lo = 2e-38f, hi = (float)((double)lo + 6606022.0 * 0x1p-149);
    for (int v = 0; v < 4; v++)
        f->c->verts[v] = (pmf_vertex){ { v == 1 ? hi : lo, 1, 1 }, { 0, 0 }, { 0, 0 } };
    mesh_chunk mc;
    CHECK(build(f, a, &mc));
    CHECK(mc.step[0] == 6 * 0x1p-149f);
    CHECK_EQ(mc.vertices[0].pos[0], 0);
    CHECK_EQ(mc.vertices[1].pos[0], 0xFFFF);
    CHECK_EQ(mc.vertices[1].pos[3] & 15, 15);
    mesh_chunk_free(&mc);
    fx_input_free(f);
    mesh_atlas_destroy(a);
}

int main(void)
{
    test_geometry_cube();
    test_lightmap_placement();
    test_whole_page_lightmap();
    test_extended_cube();
    test_batches_and_runs();
    test_base_colour();
    test_fast_multipliers();
    test_fast_slots();
    test_dynamic_layers();
    test_errors();
    test_quantise_limits();
    test_exact_vertex_words();
    test_subnormal_step();
    return check_report("test_mesh");
}
