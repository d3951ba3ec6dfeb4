/* test_mesh_pmf.c - meshes chunks that went through the real writer and reader (the kitchen-sink
 * sample map of tests/pmf): exact figures for the rich chunk, structural invariants for every
 * chunk, visibility over real data, and a mutation loop over decoded chunks (bad indices must
 * fail cleanly or mesh consistently, never crash). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "mesh.h"
#include "sample_map.h"

/* Everything mesh.h promises about the layout, checked against the source chunk. */
static void check_invariants(const mesh_chunk *mc, const pmf_chunk *ch, const mesh_atlas *atlas)
{
    uint32_t page = mesh_atlas_page_size(atlas);
    uint32_t index_sum = 0, run_sum = 0;
    for (uint32_t b = 0; b < mc->batch_count; b++) {
        const mesh_batch *bt = &mc->batches[b];
        CHECK_EQ(bt->first_index, index_sum);
        CHECK_EQ(bt->first_run, run_sum);
        index_sum += bt->index_count;
        run_sum += bt->run_count;
        if (b) {
            const mesh_batch *pb = &mc->batches[b - 1];
            uint64_t k0 = (uint64_t)pb->material << 17 | (uint64_t)pb->backfaces << 16 | pb->page;
            uint64_t k1 = (uint64_t)bt->material << 17 | (uint64_t)bt->backfaces << 16 | bt->page;
            CHECK(k0 < k1);
        }
        uint32_t at = bt->first_index;
        for (uint32_t r = bt->first_run; r < bt->first_run + bt->run_count; r++) {
            const mesh_run *run = &mc->runs[r];
            CHECK_EQ(run->batch, b);
            CHECK_EQ(run->first_index, at);
            at += run->index_count;
            if (r > bt->first_run)
                CHECK(run->cube > mc->runs[r - 1].cube);
            CHECK(run->cube < mc->cube_count && mc->cubes[run->cube].reachable);
            /* every vertex of the run samples a block on the batch's page */
            for (uint32_t i = run->first_index; i < run->first_index + run->index_count; i++) {
                CHECK(mc->indices[i] < mc->vertex_count);
                if (mc->indices[i] >= mc->vertex_count)
                    return;
                const mesh_vertex *v = &mc->vertices[mc->indices[i]];
                float u = v->lm_uv[0] * MESH_LM_UV_SCALE * page, w = v->lm_uv[1] * MESH_LM_UV_SCALE * page;
                bool inside = false;
                for (uint32_t k = 0; k < mc->block_count && !inside; k++) {
                    const mesh_atlas_rect *rect = &mc->blocks[k].rect;
                    float lo_x = rect->x + rect->border, lo_y = rect->y + rect->border;
                    inside = rect->page == bt->page && u >= lo_x - 0.02f && u <= lo_x + rect->side + 0.02f &&
                             w >= lo_y - 0.02f && w <= lo_y + rect->side + 0.02f;
                }
                CHECK(inside);
            }
        }
        CHECK_EQ(at, bt->first_index + bt->index_count);
    }
    CHECK_EQ(index_sum, mc->index_count);
    CHECK_EQ(run_sum, mc->run_count);
    uint32_t cube_run_sum = 0;
    for (uint32_t c = 0; c < mc->cube_count; c++) {
        const mesh_cube *cube = &mc->cubes[c];
        CHECK_EQ(cube->first_cube_run, cube_run_sum);
        cube_run_sum += cube->cube_run_count;
        for (uint32_t k = 0; k < cube->cube_run_count; k++)
            CHECK_EQ(mc->runs[mc->cube_runs[cube->first_cube_run + k]].cube, c);
        if (!cube->reachable)
            CHECK_EQ(cube->cube_run_count, 0);
    }
    CHECK_EQ(cube_run_sum, mc->run_count);
    CHECK(mc->fast_vertex_count <= mc->vertex_count);
    for (uint32_t v = 0; mc->fast && v < mc->fast_vertex_count; v++)
        for (int s = 0; s < MESH_FAST_SLOTS; s++) {
            uint8_t slot = mc->fast[v].slot[s];
            CHECK(slot == MESH_FAST_UNUSED ? mc->fast[v].mult[s] == 0 : slot < mc->fast_light_count);
        }
    /* With sources: the vertices past the fast stream are those no fast light reaches, and the
     * stream's slots carry the file's multipliers. */
    uint8_t *mult = mc->sources && mc->fast ? malloc(ch->client.vertex_count + 1u) : NULL;
    for (uint32_t f = 0; mult && f < ch->common.fast_light_count; f++) {
        mesh_fast_multipliers(&ch->client.fast_lights[f], ch->client.vertex_count, mult);
        for (uint32_t v = 0; v < mc->vertex_count; v++) {
            uint8_t m = mult[mc->sources[v]];
            if (v >= mc->fast_vertex_count) {
                CHECK_EQ(m, 0);
                continue;
            }
            for (int s = 0; s < MESH_FAST_SLOTS; s++)
                if (mc->fast[v].slot[s] == f)
                    CHECK_EQ(mc->fast[v].mult[s], m);
        }
    }
    free(mult);
    CHECK_EQ(mc->fast_light_count, ch->common.fast_light_count);
    CHECK((mc->fast != NULL) == (ch->common.fast_light_count > 0));
}

/* The kitchen-sink chunk: cube 1 geometry (6 faces, lightmap 0, backfaces, "stone"), cube 2
 * extended (+X 1 tri water lm 0, +Y 2 tris stone lm 1, -X 1 tri water lm 0, -Z 2 tris glass
 * no lightmap, base 1 2 3), cube 5 geometry (+X +Z, glass, no lightmap, base 200 100 0), cube 6
 * unreachable. Level materials: stone 0, glass 1, water 2. */
/* The output vertex meshed from chunk vertex src. */
static uint32_t out_of(const mesh_chunk *mc, uint32_t src)
{
    for (uint32_t v = 0; v < mc->vertex_count; v++)
        if (mc->sources[v] == src)
            return v;
    CHECK(!"a chunk vertex meshed");
    return 0;
}

static void check_kitchen(const mesh_chunk *mc)
{
    CHECK_EQ(mc->vertex_count, 50);
    CHECK_EQ(mc->index_count, 36 + 18 + 12);
    CHECK_EQ(mc->batch_count, 4);
    CHECK_EQ(mc->run_count, 5);
    static const struct { uint16_t material; bool backfaces; uint32_t first, count, runs; } want[4] = {
        { 0, false, 0, 6, 1 }, { 0, true, 6, 36, 1 }, { 1, false, 42, 18, 2 }, { 2, false, 60, 6, 1 } };
    for (int b = 0; b < 4 && mc->batch_count == 4; b++) {
        CHECK_EQ(mc->batches[b].material, want[b].material);
        CHECK_EQ(mc->batches[b].backfaces, want[b].backfaces);
        CHECK_EQ(mc->batches[b].first_index, want[b].first);
        CHECK_EQ(mc->batches[b].index_count, want[b].count);
        CHECK_EQ(mc->batches[b].run_count, want[b].runs);
    }
    /* in chunk vertices: +Y of cube 2 is 27..32, water is 24..26 33..35 */
    CHECK_EQ(mc->sources[mc->indices[0]], 27);
    CHECK_EQ(mc->sources[mc->indices[5]], 32);
    static const uint32_t water[6] = { 24, 25, 26, 33, 34, 35 };
    for (int i = 0; i < 6; i++)
        CHECK_EQ(mc->sources[mc->indices[60 + i]], water[i]);
    CHECK_EQ(mc->sources[mc->indices[42]], 36);   /* glass: cube 2 -Z, then cube 5's quads */
    CHECK_EQ(mc->sources[mc->indices[48]], 42);
    CHECK_EQ(mc->sources[mc->indices[53]], 45);
    CHECK(!mc->cubes[6].reachable);
    CHECK_EQ(mc->cubes[2].cube_run_count, 3);
    /* blocks: lightmaps 0 and 1, then base colours (1,2,3) and (200,100,0) */
    CHECK_EQ(mc->block_count, 4);
    CHECK_EQ(mc->blocks[0].rect.side, 4);
    CHECK_EQ(mc->blocks[1].rect.side, 2);
    CHECK(memcmp(mc->blocks[2].luxels, (const uint8_t[]){ 1, 2, 3 }, 3) == 0);
    CHECK(memcmp(mc->blocks[3].luxels + 12, (const uint8_t[]){ 200, 100, 0 }, 3) == 0);
    /* layers: light 0 on lightmaps 0 and 1, light 1 on lightmap 1 */
    CHECK_EQ(mc->layer_count, 3);
    CHECK_EQ(mc->layers[0].light, 0);
    CHECK_EQ(mc->layers[0].block, 0);
    CHECK_EQ(mc->layers[2].light, 1);
    CHECK_EQ(mc->layers[2].block, 1);
    CHECK_EQ(mc->dynamic_lights[1].id, 0xFFFFFFF0u);
    /* fast: light 0 reaches chunk vertices 0..3 and 24..29, light 1 42..49 (multipliers 3 + i *
     * 7); their face groups come first: cube 1 (one group of 24), cube 2 +X and +Y (3 + 6),
     * cube 5 (8) */
    CHECK_EQ(mc->fast_vertex_count, 24 + 3 + 6 + 8);
    CHECK_EQ(mc->fast[out_of(mc, 0)].slot[0], 0);
    CHECK_EQ(mc->fast[out_of(mc, 0)].mult[0], 1);
    CHECK_EQ(mc->fast[out_of(mc, 24)].slot[0], 0);
    CHECK_EQ(mc->fast[out_of(mc, 24)].mult[0], 2);
    CHECK_EQ(mc->fast[out_of(mc, 30)].slot[0], MESH_FAST_UNUSED);   /* in a lit face group */
    CHECK(out_of(mc, 33) >= mc->fast_vertex_count);                /* cube 2 -X: no fast light */
    CHECK(out_of(mc, 36) >= mc->fast_vertex_count);                /* cube 2 -Z */
    CHECK_EQ(mc->fast[out_of(mc, 43)].slot[0], 1);
    CHECK_EQ(mc->fast[out_of(mc, 43)].mult[0], 10);
    CHECK_EQ(mc->fast_lights[0].intensity, 200);
    CHECK_EQ(mc->vis_count, 2);
}

static uint64_t vis_bits(const mesh_vis_set *set, const mesh_chunk *mc, bool *shown)
{
    uint64_t bits = 0;
    *shown = mesh_vis_set_mark(set, mc, &bits);
    return bits;
}

/* Visibility over the real chunks: cube 0 lists cubes 1 2, chunk (0,0,0) whole and (2,1,1)
 * cubes 0 3; cube 2 lists chunk (0,0,0) cube 0. */
static void check_kitchen_vis(const mesh_chunk *kitchen, const mesh_chunk *origin, const mesh_chunk *far)
{
    mesh_vis_set set;
    bool shown;
    CHECK(mesh_vis_set_build(kitchen, (const float[]){ 8, 8, 8 }, &set));
    CHECK_EQ(set.camera_cube, 1);
    CHECK_EQ(set.source_cube, 0);
    CHECK_EQ(vis_bits(&set, kitchen, &shown), 0x3F);   /* the root's subtree: all but cube 6 */
    CHECK_EQ(vis_bits(&set, origin, &shown), 1);
    CHECK(shown);
    CHECK_EQ(vis_bits(&set, far, &shown), 1);          /* cube 3 is past its cube count */
    CHECK(shown);
    mesh_vis_set_free(&set);
    CHECK(mesh_vis_set_build(kitchen, (const float[]){ -8, 8, 8 }, &set));
    CHECK_EQ(set.camera_cube, 2);
    CHECK_EQ(set.source_cube, 2);
    CHECK_EQ(vis_bits(&set, kitchen, &shown), 1u << 2);
    CHECK_EQ(vis_bits(&set, origin, &shown), 1);
    CHECK_EQ(vis_bits(&set, far, &shown), 0);
    CHECK(!shown);
    mesh_vis_set_free(&set);
}

/* Random index damage on a decoded chunk: the mesher must refuse it with a message or mesh it
 * consistently. Only indices and counts-downwards change, so the chunk's arrays stay valid. */
static void mutate_and_mesh(const pmf_level *lvl, pmf_chunk *ch, mesh_atlas *atlas)
{
    pmf_chunk_common *cm = &ch->common;
    pmf_chunk_client *cl = &ch->client;
    pmf_cube saved_cubes[16];
    pmf_client_cube saved_client[16];
    if (cm->cube_count > 16)
        return;
    memcpy(saved_cubes, cm->cubes, cm->cube_count * sizeof *saved_cubes);
    memcpy(saved_client, cl->cubes, cm->cube_count * sizeof *saved_client);
    uint32_t cubes = cm->cube_count, vertices = cl->vertex_count;
    uint8_t lightmaps = cl->lightmap_count, used = cm->used_material_count;
    uint32_t failures = 0, successes = 0;
    srand(1234);
    for (int iter = 0; iter < 2000; iter++) {
        uint32_t c = (uint32_t)rand() % cm->cube_count;
        switch (rand() % 8) {
        case 0: cl->cubes[c].u.geom.face_mask = (uint8_t)rand(); break;
        case 1: cl->cubes[c].u.geom.first_vertex = (uint32_t)rand() % 64; break;
        case 2: cl->cubes[c].u.ext.tri_count[rand() % 6] = (uint8_t)(rand() % 8); break;
        case 3: cl->cubes[c].u.ext.lightmap[rand() % 6] = (uint8_t)(rand() % 4 == 0 ? 255 : rand() % 4); break;
        case 4: cm->cubes[c].u.parent.children[rand() % 8] = (uint32_t)rand() % (cubes + 2); break;
        case 5: cm->cubes[c].u.parent.child_mask = (uint8_t)rand(); break;
        case 6: cl->vertex_count = (uint32_t)rand() % (vertices + 1); break;
        case 7: cm->cubes[c].u.ext.material[rand() % 6] = (uint8_t)(rand() % 5); break;
        }
        if (rand() % 4 == 0)
            cl->lightmap_count = (uint8_t)(rand() % (lightmaps + 1));
        if (rand() % 4 == 0)
            cm->used_material_count = (uint8_t)(rand() % (used + 1));
        mesh_chunk mc;
        char err[256] = "";
        if (mesh_build_chunk(lvl, ch, &(mesh_desc){ .atlas = atlas }, &mc, err, sizeof err)) {
            check_invariants(&mc, ch, atlas);
            float p[3] = { (float)(rand() % 33 - 16), (float)(rand() % 33 - 16), (float)(rand() % 33 - 16) };
            mesh_vis_set set;
            uint64_t bits = 0;
            if (mesh_vis_set_build(&mc, p, &set)) {
                mesh_vis_set_mark(&set, &mc, &bits);
                mesh_vis_set_free(&set);
            }
            mesh_chunk_free(&mc);
            successes++;
        } else {
            CHECK(strncmp(err, "chunk (", 7) == 0);
            failures++;
        }
        if (rand() % 4 == 0) {   /* back to the good chunk now and then */
            memcpy(cm->cubes, saved_cubes, cubes * sizeof *saved_cubes);
            memcpy(cl->cubes, saved_client, cubes * sizeof *saved_client);
            cl->vertex_count = vertices;
            cl->lightmap_count = lightmaps;
            cm->used_material_count = used;
        }
    }
    memcpy(cm->cubes, saved_cubes, cubes * sizeof *saved_cubes);
    memcpy(cl->cubes, saved_client, cubes * sizeof *saved_client);
    cl->vertex_count = vertices;
    cl->lightmap_count = lightmaps;
    cm->used_material_count = used;
    printf("mutations: %u meshed, %u refused\n", successes, failures);
    CHECK(successes > 0 && failures > 0);
    CHECK_EQ(mesh_atlas_used_texels(atlas), 0);
}

int main(void)
{
    sample_map map;
    sample_map_build(&map, SAMPLE_MAP_KITCHEN_SINK);
    uint8_t *bytes = NULL;
    size_t size = 0;
    pmf_error e;
    char buf[800];
    if (!sample_map_write_memory(&map, &bytes, &size, &e)) {
        fprintf(stderr, "write: %s\n", pmf_error_format(&e, buf, sizeof buf));
        return 1;
    }
    pmf_file *f = pmf_open_memory(bytes, size, "kitchen.pmf", &e);
    CHECK(f != NULL);
    mesh_atlas *atlas = mesh_atlas_create(&(mesh_atlas_desc){ .page_size = 256 });
    uint32_t meshed = 0;
    for (uint32_t l = 0; f && l < f->level_count; l++) {
        pmf_level lvl;
        if (!pmf_level_read(f, l, PMF_PART_COMMON | PMF_PART_CLIENT, &lvl, &e)) {
            CHECK(!"level read");
            fprintf(stderr, "%s\n", pmf_error_format(&e, buf, sizeof buf));
            continue;
        }
        pmf_chunk_coord kitchen_at = { 1, 0, 1 }, origin_at = { 0, 0, 0 }, far_at = { 2, 1, 1 };
        pmf_chunk kitchen_ch = { 0 };
        mesh_chunk kitchen = { 0 }, origin = { 0 }, far = { 0 };
        const pmf_level_info *li = &f->levels[l];
        for (uint32_t y = 0; y < li->count_y; y++)
            for (uint32_t x = 0; x < li->count_x; x++)
                for (uint32_t z = 0; z < li->count_z; z++) {
                    pmf_chunk_coord at = { x, y, z };
                    if (!pmf_chunk_present(f, l, at))
                        continue;
                    pmf_chunk ch;
                    if (!pmf_chunk_read(f, &lvl, l, at, PMF_PART_COMMON | PMF_PART_CLIENT, &ch, &e)) {
                        CHECK(!"chunk read");
                        fprintf(stderr, "%s\n", pmf_error_format(&e, buf, sizeof buf));
                        continue;
                    }
                    mesh_chunk mc;
                    char err[256];
                    bool ok = mesh_build_chunk(&lvl, &ch, &(mesh_desc){ .atlas = atlas, .sources = true }, &mc, err,
                                               sizeof err);
                    CHECK(ok);
                    if (!ok) {
                        fprintf(stderr, "%s\n", err);
                        pmf_chunk_free(&ch);
                        continue;
                    }
                    meshed++;
                    check_invariants(&mc, &ch, atlas);
                    CHECK(mc.size == (float)(1u << lvl.chunk_size_exp));
                    bool is_l0 = l == 0;
                    if (is_l0 && x == kitchen_at.x && y == kitchen_at.y && z == kitchen_at.z) {
                        check_kitchen(&mc);
                        kitchen = mc;
                        kitchen_ch = ch;
                        continue;
                    }
                    if (is_l0 && x == origin_at.x && y == origin_at.y && z == origin_at.z)
                        origin = mc;
                    else if (is_l0 && x == far_at.x && y == far_at.y && z == far_at.z)
                        far = mc;
                    else
                        mesh_chunk_free(&mc);
                    pmf_chunk_free(&ch);
                }
        if (l == 0) {
            CHECK(kitchen.cube_count == 7 && origin.cube_count == 1 && far.cube_count == 1);
            if (kitchen.cube_count == 7 && origin.cube_count && far.cube_count)
                check_kitchen_vis(&kitchen, &origin, &far);
            mesh_chunk_free(&kitchen);
            mesh_chunk_free(&origin);
            mesh_chunk_free(&far);
            if (kitchen_ch.parts)
                mutate_and_mesh(&lvl, &kitchen_ch, atlas);
            pmf_chunk_free(&kitchen_ch);
        }
        pmf_level_free(&lvl);
    }
    CHECK_EQ(meshed, 4);
    CHECK_EQ(mesh_atlas_used_texels(atlas), 0);
    mesh_atlas_destroy(atlas);
    pmf_close(f);
    free(bytes);
    sample_map_free(&map);
    return check_report("test_mesh_pmf");
}
