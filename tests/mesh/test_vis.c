/* test_vis.c - visibility selection (conventions §3): deepest cube, ancestor fallback, listed
 * parent = subtree, listed chunk with 0 cubes = whole chunk, no data = everything; frustum. */
#include <string.h>

#include "common/check.h"
#include "fixture_chunk.h"
#include "mesh.h"

/* Chunk (1,2,3), side 16:
 *   cube 0 parent: octant 0 (+X+Y+Z) -> cube 1, octant 7 (-X-Y-Z) -> cube 2
 *   cube 1 parent [0,8]^3: octant 0 -> cube 3, octant 7 -> cube 4
 *   cube 2, 3, 4 geometry (one +X quad each), cube 5 unreachable
 *   vis: cube 1 -> cubes {2}, chunks {(4,0,0): all, (0,0,1): {1}}; cube 3 -> nothing listed */
static uint32_t vis_cubes_1[1] = { 2 }, other_cubes[1] = { 1 };
static pmf_vis_chunk vis_chunks_1[2] = { { { 4, 0, 0 }, 0, NULL }, { { 0, 0, 1 }, 1, other_cubes } };

static fx_input *vis_fixture(void)
{
    fx_input *f = fx_input_new(4, 1, 6, 16, (const uint16_t[]){ 0 }, 1);
    fx_parent(f->c, 0, 0, 1);
    fx_parent(f->c, 0, 7, 2);
    fx_parent(f->c, 1, 0, 3);
    fx_parent(f->c, 1, 7, 4);
    for (int i = 0; i < 4; i++) {   /* cube 3 sits at +6, cube 4 at +2, cube 2 at -4 */
        f->c->verts[8 + i].xyz[0] = 6; f->c->verts[8 + i].xyz[1] = 6; f->c->verts[8 + i].xyz[2] = 6;
        f->c->verts[12 + i].xyz[0] = 2; f->c->verts[12 + i].xyz[1] = 2; f->c->verts[12 + i].xyz[2] = 2;
        f->c->verts[4 + i].xyz[0] = -4; f->c->verts[4 + i].xyz[1] = -4; f->c->verts[4 + i].xyz[2] = -4;
    }
    fx_geom(f->c, 2, 0, PMF_NO_LIGHTMAP, 4, 0x01);
    fx_geom(f->c, 3, 0, PMF_NO_LIGHTMAP, 8, 0x01);
    fx_geom(f->c, 4, 0, PMF_NO_LIGHTMAP, 12, 0x01);
    fx_geom(f->c, 5, 0, PMF_NO_LIGHTMAP, 0, 0x01);
    f->c->cubes[1].flags |= PMF_CUBE_HAS_VISIBILITY;
    f->c->cubes[1].vis = (pmf_visibility){ 1, vis_cubes_1, 2, vis_chunks_1 };
    f->c->cubes[3].flags |= PMF_CUBE_HAS_VISIBILITY;
    f->c->cubes[5].flags |= PMF_CUBE_HAS_VISIBILITY;   /* unreachable: never consulted */
    return f;
}

static uint64_t mark(const mesh_vis_set *set, const mesh_chunk *mc, bool *shown)
{
    uint64_t bits = ~0ull;
    *shown = mesh_vis_set_mark(set, mc, &bits);
    return bits;
}

#define B(c) (1ull << (c))

static void test_vis(void)
{
    mesh_atlas *a = mesh_atlas_create(NULL);
    fx_input *f = vis_fixture();
    mesh_chunk mc, other, far;
    char err[256];
    CHECK(mesh_build_chunk(&f->lvl, &f->c->ch, &(mesh_desc){ .atlas = a }, &mc, err, sizeof err));
    f->c->ch.coord = (pmf_chunk_coord){ 0, 0, 1 };
    CHECK(mesh_build_chunk(&f->lvl, &f->c->ch, &(mesh_desc){ .atlas = a }, &other, err, sizeof err));
    f->c->ch.coord = (pmf_chunk_coord){ 4, 0, 0 };
    CHECK(mesh_build_chunk(&f->lvl, &f->c->ch, &(mesh_desc){ .atlas = a }, &far, err, sizeof err));
    CHECK_EQ(mc.vis_count, 2);

    /* locate: octant descent, ties to the + side, missing child stops, outside = none */
    CHECK_EQ(mesh_vis_locate(&mc, (const float[]){ 6, 6, 6 }), 3);
    CHECK_EQ(mesh_vis_locate(&mc, (const float[]){ 2, 2, 2 }), 4);
    CHECK_EQ(mesh_vis_locate(&mc, (const float[]){ 0, 0, 0 }), 4);
    CHECK_EQ(mesh_vis_locate(&mc, (const float[]){ 4, 4, 4 }), 3);
    CHECK_EQ(mesh_vis_locate(&mc, (const float[]){ -3, -3, -3 }), 2);
    CHECK_EQ(mesh_vis_locate(&mc, (const float[]){ 6, -6, 6 }), 0);
    CHECK_EQ(mesh_vis_locate(&mc, (const float[]){ 5, 7, 2 }), 1);   /* octant 2 of cube 1 is empty */
    CHECK_EQ(mesh_vis_locate(&mc, (const float[]){ 8, 8, 8 }), 3);
    CHECK_EQ(mesh_vis_locate(&mc, (const float[]){ 8.5f, 0, 0 }), MESH_NONE);

    mesh_vis_set set;
    bool shown;
    /* camera in cube 3, which has its own (empty) data: only cube 3 */
    CHECK(mesh_vis_set_build(&mc, (const float[]){ 6, 6, 6 }, &set));
    CHECK(!set.everything);
    CHECK_EQ(set.camera_cube, 3);
    CHECK_EQ(set.source_cube, 3);
    CHECK_EQ(set.entry_count, 1);
    CHECK_EQ(mark(&set, &mc, &shown), B(3));
    CHECK(shown);
    CHECK_EQ(mark(&set, &other, &shown), 0);
    CHECK(!shown);
    mesh_vis_set_free(&set);

    /* camera in cube 4 (no data): cube 1's data applies; cube 1 = its subtree 1 3 4, plus 2 */
    CHECK(mesh_vis_set_build(&mc, (const float[]){ 2, 2, 2 }, &set));
    CHECK_EQ(set.camera_cube, 4);
    CHECK_EQ(set.source_cube, 1);
    CHECK_EQ(set.entry_count, 3);
    CHECK_EQ(mark(&set, &mc, &shown), B(1) | B(2) | B(3) | B(4));
    CHECK_EQ(mark(&set, &far, &shown), B(0) | B(1) | B(2) | B(3) | B(4));   /* 0 listed: whole chunk */
    CHECK(shown);
    CHECK_EQ(mark(&set, &other, &shown), B(1) | B(3) | B(4));
    mesh_vis_set_free(&set);

    /* the set owns its lists: the camera chunk may go */
    CHECK(mesh_vis_set_build(&mc, (const float[]){ 5, 7, 2 }, &set));
    CHECK_EQ(set.source_cube, 1);
    mesh_chunk_free(&mc);
    CHECK_EQ(mark(&set, &other, &shown), B(1) | B(3) | B(4));
    CHECK_EQ(set.entries[1].chunk.z, 1);   /* the listed chunks sorted: (0,0,1) before (4,0,0) */
    CHECK_EQ(set.entries[2].chunk.x, 4);
    mesh_vis_set_free(&set);
    f->c->ch.coord = (pmf_chunk_coord){ 1, 2, 3 };
    CHECK(mesh_vis_set_build(NULL, (const float[]){ 0, 0, 0 }, &set));
    CHECK(set.everything);
    mesh_vis_set_free(&set);
    CHECK(mesh_build_chunk(&f->lvl, &f->c->ch, &(mesh_desc){ .atlas = a }, &mc, err, sizeof err));

    /* camera in cube 2: no data on its path: everything (reachable cubes) */
    CHECK(mesh_vis_set_build(&mc, (const float[]){ -3, -3, -3 }, &set));
    CHECK(set.everything);
    CHECK_EQ(set.camera_cube, 2);
    CHECK_EQ(set.source_cube, MESH_NONE);
    CHECK_EQ(mark(&set, &mc, &shown), B(0) | B(1) | B(2) | B(3) | B(4));
    CHECK_EQ(mark(&set, &other, &shown), B(0) | B(1) | B(2) | B(3) | B(4));
    CHECK(shown);
    mesh_vis_set_free(&set);
    CHECK(mesh_vis_set_build(&mc, (const float[]){ 0, 99, 0 }, &set));
    CHECK(set.everything);
    CHECK_EQ(set.camera_cube, MESH_NONE);
    mesh_vis_set_free(&set);

    /* frustum: keep x >= 1 — cube 2 (x = -4) goes, cubes without geometry stay */
    uint64_t bits = B(0) | B(1) | B(2) | B(3) | B(4);
    const float planes[6][4] = { { 1, 0, 0, -1 }, { 0, 0, 0, 1 }, { 0, 0, 0, 1 }, { 0, 0, 0, 1 }, { 0, 0, 0, 1 }, { 0, 0, 0, 1 } };
    CHECK_EQ(mesh_cull_frustum(&mc, planes, &bits), 4);
    CHECK_EQ(bits, B(0) | B(1) | B(3) | B(4));
    const float planes2[6][4] = { { -1, 0, 0, 3 }, { 0, 0, 0, 1 }, { 0, 0, 0, 1 }, { 0, 0, 0, 1 }, { 0, 0, 0, 1 }, { 0, 0, 0, 1 } };
    CHECK_EQ(mesh_cull_frustum(&mc, planes2, &bits), 3);   /* x <= 3: cube 3 (x = 6) goes */
    CHECK_EQ(bits, B(0) | B(1) | B(4));

    /* The depth-first cull that skips whole subtrees keeps exactly the bits of a test per cube,
     * and returns the same count, for any frustum (here 3000 random ones, planes through the
     * cubes' points and beside them, some planes always passed). */
    CHECK_EQ(mc.tree_count, 5);   /* cube 5 is not in the tree: it is tested on its own */
    uint32_t seed = 12345, differ = 0, culled_some = 0;
    for (int t = 0; t < 3000; t++) {
        float pl[6][4];
        for (int p = 0; p < 6; p++)
            for (int k = 0; k < 4; k++) {
                seed = seed * 1664525u + 1013904223u;
                int v = (int)(seed >> 24) % 9 - 4;   /* -4..4: normals along axes and diagonals */
                pl[p][k] = k < 3 ? (float)v : (float)v * 2.0f;
            }
        uint64_t tree_bits = B(0) | B(1) | B(2) | B(3) | B(4) | B(5), flat_bits = tree_bits;
        uint32_t tree_left = mesh_cull_frustum(&mc, (const float(*)[4])pl, &tree_bits);
        mesh_tree_node *tree = mc.tree;
        mc.tree = NULL;   /* the per-cube path */
        uint32_t flat_left = mesh_cull_frustum(&mc, (const float(*)[4])pl, &flat_bits);
        mc.tree = tree;
        differ += tree_bits != flat_bits || tree_left != flat_left;
        culled_some += tree_bits != (B(0) | B(1) | B(2) | B(3) | B(4) | B(5));
    }
    CHECK_EQ(differ, 0);
    CHECK(culled_some > 100);

    /* every cube with runs shown: each batch's ranges without reading its runs, the same */
    uint64_t all = B(0) | B(1) | B(2) | B(3) | B(4), some = B(0) | B(1) | B(3);
    CHECK(mc.batches_contiguous);
    CHECK(mesh_shows_every_run(&mc, &all) && mesh_shows_every_run(&mc, NULL));
    CHECK(!mesh_shows_every_run(&mc, &some));   /* cubes 2 and 4 have runs */
    for (uint32_t b = 0; b < mc.batch_count; b++) {
        mesh_draw_range whole[4], read[64];
        uint32_t n = mesh_batch_whole(&mc, b, whole), m = mesh_batch_ranges(&mc, b, &all, read);
        CHECK_EQ(n, m);
        CHECK(n == 0 || (whole[0].first_index == read[0].first_index && whole[0].index_count == read[0].index_count));
    }

    mesh_chunk_free(&mc);
    mesh_chunk_free(&other);
    mesh_chunk_free(&far);
    fx_input_free(f);
    mesh_atlas_destroy(a);
}

int main(void)
{
    test_vis();
    return check_report("test_vis");
}
