/* A relight (bake_desc.relight): one light of 300 moved over a floor of 64 patches that every
 * light reaches. The relight checks against each patch only the lights that changed, not the
 * 300 that reach it (bake_result.patch_light_checks: lqdm5 hangs grids of hundreds of faint lights,
 * and listing them per patch was most of a relight's time), a full bake each light once per patch
 * (a light in several of a patch's grid cells is checked once); the relit floor equals the full
 * bake's within 1 on every luxel. The probes a changed light does not reach keep their light; the
 * layer pieces of the dynamic lights that did not change are kept, not traced again (test_layers).
 * The trees a bake's rays walk are kept for the next bake of the same triangles (bake_desc.trees).
 * Under a ceiling, the bounced light is gathered again only where it changed (test_bounce). */
#include "bake.h"
#include "soup.h"

#include <math.h>

#define PATCHES 8       /* per floor side */
#define LUXELS 8        /* per patch side */
#define SIDE (PATCHES * LUXELS)
#define LIGHTS 300

typedef struct floor_scene {
    soup occluders;
    bake_patch patches[PATCHES * PATCHES];
    bake_light lights[LIGHTS];
    bake_lightmap lightmap;
    bake_desc desc;
} floor_scene;

/* The floor y = 0, x and z in [-4, 4), facing up: 8 x 8 patches of 8 x 8 luxels; lights above it. */
static void floor_init(floor_scene *f)
{
    memset(f, 0, sizeof *f);
    const float h = PATCHES / 2.0f;
    soup_quad(&f->occluders, (float[3]){ -h, 0, -h }, (float[3]){ -h, 0, h }, (float[3]){ h, 0, h }, (float[3]){ h, 0, -h });
    for (int j = 0; j < PATCHES; j++)
        for (int i = 0; i < PATCHES; i++) {
            bake_patch *p = &f->patches[j * PATCHES + i];
            p->origin[0] = -h + (float)i;
            p->origin[2] = -h + (float)j;
            p->step_u[0] = p->step_v[2] = 1.0f / LUXELS;
            p->normal[1] = 1.0f;
            p->x = (uint16_t)(i * LUXELS);
            p->y = (uint16_t)(j * LUXELS);
            p->w = p->h = LUXELS;
            p->seed = (uint32_t)(j * PATCHES + i);
            p->minlight[0] = -1.0f;
        }
    uint32_t state = 12345;
    for (int k = 0; k < LIGHTS; k++) {
        float at[3];
        for (int a = 0; a < 3; a++) {
            state = state * 1664525u + 1013904223u;
            at[a] = (float)(state >> 8) / (float)(1u << 24);
        }
        f->lights[k] = (bake_light){ .kind = BAKE_LIGHT_STATIC, .position = { (at[0] - 0.5f) * 8, 0.5f + 2.5f * at[1], (at[2] - 0.5f) * 8 },
                                     .color = { 1, 0.8f, 0.6f }, .intensity = 0.002f, .range = 20.0f };
    }
    f->lightmap.size_exp = 6;
    f->lightmap.luxels = malloc(SIDE * SIDE * 3);
    CHECK(f->lightmap.luxels != NULL);
    f->desc = (bake_desc){ .triangles = (const float (*)[9])f->occluders.tris, .triangle_count = f->occluders.count,
                           .lights = f->lights, .light_count = LIGHTS, .lightmaps = &f->lightmap, .lightmap_count = 1,
                           .patches = f->patches, .patch_count = PATCHES * PATCHES, .samples = 1, .threads = 2 };
}

/* Bakes f as its desc says; its luxels copied into out and its checks into *checks. */
static bool bake_floor(floor_scene *f, uint8_t *out, uint64_t *checks, bake_result *res)
{
    if (!bake_run(&f->desc, res))
        return false;
    memcpy(out, f->lightmap.luxels, SIDE * SIDE * 3);
    *checks = res->patch_light_checks;
    return true;
}

#define PROBES (PATCHES * PATCHES)

/* A probe above each patch's middle; light 0 made small so that it reaches only a few of them. */
static void probes_init(floor_scene *f, bake_probe *probes)
{
    for (int k = 0; k < PROBES; k++) {
        const bake_patch *p = &f->patches[k];
        float at[3] = { p->origin[0] + 0.5f, 0.5f, p->origin[2] + 0.5f };
        for (int a = 0; a < 3; a++) {
            probes[k].min[a] = at[a] - 0.125f;
            probes[k].max[a] = at[a] + 0.125f;
        }
    }
    f->lights[0].range = 1.0f;
    f->lights[0].intensity = 0.5f;
    f->desc.probes = probes;
    f->desc.probe_count = PROBES;
}

static bool same_probes(const bake_probe_result *a, const bake_probe_result *b)
{
    for (int k = 0; k < PROBES; k++)
        if (memcmp(a[k].base, b[k].base, sizeof a[k].base) || a[k].ref_count != b[k].ref_count)
            return false;
    return true;
}

/* A relight lights again only the probes a changed light reaches, and they and the kept ones are
 * the full bake's; another ambient term lights them all again. */
static int test_probes(void)
{
    static bake_probe probes[PROBES];
    static bake_probe_result relit[PROBES];
    floor_scene f;
    floor_init(&f);
    probes_init(&f, probes);
    bake_terms first = { 0 }, second = { 0 };
    bake_light old_lights[LIGHTS];
    memcpy(old_lights, f.lights, sizeof old_lights);
    bake_result res;
    f.desc.terms = &first;
    REQUIRE(bake_run(&f.desc, &res));
    CHECK_EQ(res.relit_probes, (size_t)PROBES);
    bake_result_free(&res);

    f.lights[0].position[0] += 1.0f;
    f.desc.terms = &second;
    f.desc.relight = &(bake_relight){ .terms = &first, .patches = f.patches, .lights = old_lights, .light_count = LIGHTS };
    REQUIRE(bake_run(&f.desc, &res));
    printf("relight: %zu of %d probes lit again\n", res.relit_probes, PROBES);
    CHECK(res.relit_probes > 0 && res.relit_probes <= 8, "%zu probes lit again", res.relit_probes);
    memcpy(relit, res.probes, sizeof relit);
    f.desc.relight = NULL;
    f.desc.terms = NULL;
    bake_result full;
    REQUIRE(bake_run(&f.desc, &full));
    CHECK(same_probes(relit, full.probes), "the relit probes are the full bake's");
    bake_result_free(&full);
    bake_result_free(&res);

    /* the earlier bake's probes were lit with another ambient term: none is kept */
    f.desc.ambient[1] = 0.25f;
    f.desc.relight = &(bake_relight){ .terms = &second, .patches = f.patches, .lights = f.lights, .light_count = LIGHTS };
    REQUIRE(bake_run(&f.desc, &res));
    CHECK_EQ(res.relit_probes, (size_t)PROBES);
    bake_result_free(&res);
    bake_terms_free(&first);
    bake_terms_free(&second);
    free(f.lightmap.luxels);
    soup_free(&f.occluders);
    return 0;
}

/* Kept trees (bake_desc.trees): the first bake builds them, a bake of the same triangles takes
 * them as they are (a tree over other triangles, named as the floor's, shadows what the floor's
 * would not: it was taken, not built again), one of other triangles builds its own; each equals a
 * bake that builds its trees. */
static int test_trees(void)
{
    static uint8_t kept[SIDE * SIDE * 3], built[SIDE * SIDE * 3];
    floor_scene f;
    floor_init(&f);
    bake_trees trees = { 0 };
    bake_result res;
    uint64_t checks;
    f.desc.trees = &trees;
    REQUIRE(bake_floor(&f, kept, &checks, &res));
    bake_result_free(&res);
    CHECK(trees.triangles == bake_trees_key(&f.desc) && trees.tree.node_count > 0, "trees kept over the floor");
    f.desc.trees = NULL;
    REQUIRE(bake_floor(&f, built, &checks, &res));
    bake_result_free(&res);
    CHECK(!memcmp(kept, built, sizeof kept), "the first bake with trees is the bake without");

    /* the floor's key on a tree that also holds a roof low over the floor's -x half */
    soup roofed = { 0 };
    soup_quad(&roofed, (float[3]){ -4, 0, -4 }, (float[3]){ -4, 0, 4 }, (float[3]){ 4, 0, 4 }, (float[3]){ 4, 0, -4 });
    soup_quad(&roofed, (float[3]){ -4, 0.25f, -4 }, (float[3]){ 0, 0.25f, -4 }, (float[3]){ 0, 0.25f, 4 }, (float[3]){ -4, 0.25f, 4 });
    bvh_free(&trees.tree);
    REQUIRE(bvh_build((const float (*)[9])roofed.tris, roofed.count, 1, &trees.tree));
    f.desc.trees = &trees;
    REQUIRE(bake_floor(&f, kept, &checks, &res));
    bake_result_free(&res);
    size_t darker = 0;
    for (size_t i = 0; i < sizeof kept; i++) darker += kept[i] < built[i];
    printf("trees: %zu of %zu channels darker under the kept tree's roof\n", darker, sizeof kept);
    CHECK(darker > sizeof kept / 8, "the kept tree was taken: %zu channels darker", darker);

    /* other triangles (the roof, really there): their own trees, the bake without kept trees' */
    f.desc.triangles = (const float (*)[9])roofed.tris;
    f.desc.triangle_count = roofed.count;
    REQUIRE(bake_floor(&f, kept, &checks, &res));
    bake_result_free(&res);
    CHECK(trees.triangles == bake_trees_key(&f.desc) && trees.tree.triangle_count == roofed.count, "trees built again");
    f.desc.trees = NULL;
    REQUIRE(bake_floor(&f, built, &checks, &res));
    bake_result_free(&res);
    CHECK(!memcmp(kept, built, sizeof kept), "a bake of other triangles with kept trees is the bake without");
    bake_trees_free(&trees);
    soup_free(&roofed);
    free(f.lightmap.luxels);
    soup_free(&f.occluders);
    return 0;
}

#define DYNAMIC 8     /* lights 0 .. DYNAMIC - 1 made dynamic, each reaching a few patches */

/* The pieces (patches) of light `light`'s layers a bake kept in its terms. */
static size_t pieces_of(const bake_terms *terms, uint32_t light)
{
    size_t count = 0;
    for (size_t k = 0; k < terms->layer_piece_count; k++)
        count += terms->layer_keys[k] >> 32 == light;
    return count;
}

/* Whether a and b hold the same layers, byte for byte. */
static bool same_layers(const bake_result *a, const bake_result *b)
{
    if (a->layer_count != b->layer_count)
        return false;
    for (size_t i = 0; i < a->layer_count; i++)
        if (a->layers[i].light != b->layers[i].light || a->layers[i].lightmap != b->layers[i].lightmap ||
            memcmp(a->layers[i].luxels, b->layers[i].luxels, SIDE * SIDE * 3))
            return false;
    return true;
}

/* Each layer is 0 outside its box (bake_result.layer_boxes: what the level's group layers sum
 * over, not the whole lightmap), and its box is the smaller part of the lightmap. */
static void check_layer_boxes(const bake_result *res)
{
    CHECK(res->layer_boxes != NULL);
    if (!res->layer_boxes)
        return;
    uint64_t area = 0;
    for (size_t i = 0; i < res->layer_count; i++) {
        const uint32_t *box = res->layer_boxes[i];
        size_t outside = 0;
        for (uint32_t y = 0; y < SIDE; y++)
            for (uint32_t x = 0; x < SIDE; x++) {
                const uint8_t *luxel = &res->layers[i].luxels[((size_t)y * SIDE + x) * 3];
                bool inside = x >= box[0] && x < box[2] && y >= box[1] && y < box[3];
                outside += !inside && (luxel[0] | luxel[1] | luxel[2]);
            }
        CHECK_EQ(outside, 0);
        area += (uint64_t)(box[2] - box[0]) * (box[3] - box[1]);
    }
    CHECK(area < (uint64_t)SIDE * SIDE * res->layer_count / 2, "layer boxes of %llu luxels", (unsigned long long)area);
}

/* A relight traces again only the layer pieces of the dynamic lights that changed (bake_terms'
 * layer pieces: lq_e1m7's 42 styled lights were traced whole on every relight), and each layer
 * is dilated around its pieces, not over its whole lightmap; the layers are the full bake's. */
static int test_layers(void)
{
    floor_scene f;
    floor_init(&f);
    for (int k = 0; k < DYNAMIC; k++)
        f.lights[k] = (bake_light){ .kind = BAKE_LIGHT_DYNAMIC, .position = { -3.0f + (float)k, 0.5f, (float)(k % 3) - 1.0f },
                                    .color = { 1, 1, 1 }, .intensity = 0.5f, .range = 1.5f };
    bake_terms first = { 0 }, second = { 0 }, third = { 0 };
    bake_light old_lights[LIGHTS], moved_lights[LIGHTS];
    memcpy(old_lights, f.lights, sizeof old_lights);
    bake_result res, full;
    f.desc.terms = &first;
    REQUIRE(bake_run(&f.desc, &res));
    size_t pieces = first.layer_piece_count;
    CHECK_EQ(res.traced_layer_pieces, pieces);
    CHECK(pieces >= DYNAMIC * 4 && pieces < DYNAMIC * PATCHES * PATCHES / 2, "%zu pieces", pieces);
    printf("layers: %zu layers of %zu pieces, %llu luxels dilated (%d a lightmap)\n", res.layer_count, pieces,
           (unsigned long long)res.dilated_luxels, SIDE * SIDE);
    CHECK(res.dilated_luxels < (uint64_t)SIDE * SIDE * (1 + res.layer_count) / 2, "%llu luxels dilated",
          (unsigned long long)res.dilated_luxels);
    check_layer_boxes(&res);
    bake_result_free(&res);

    /* a static light moved: every piece kept */
    f.lights[100].position[0] += 1.0f;
    f.desc.terms = &second;
    f.desc.relight = &(bake_relight){ .terms = &first, .patches = f.patches, .lights = old_lights, .light_count = LIGHTS };
    REQUIRE(bake_run(&f.desc, &res));
    CHECK_EQ(res.traced_layer_pieces, 0);
    CHECK_EQ(second.layer_piece_count, pieces);
    memcpy(moved_lights, f.lights, sizeof moved_lights);
    f.desc.relight = NULL;
    f.desc.terms = NULL;
    REQUIRE(bake_run(&f.desc, &full));
    CHECK(same_layers(&res, &full), "the kept layers are the full bake's");
    bake_result_free(&full);
    bake_result_free(&res);

    /* a dynamic light moved: its pieces at its new place traced, the rest kept */
    f.lights[3].position[2] += 1.0f;
    f.desc.terms = &third;
    f.desc.relight = &(bake_relight){ .terms = &second, .patches = f.patches, .lights = moved_lights, .light_count = LIGHTS };
    REQUIRE(bake_run(&f.desc, &res));
    printf("layers: a dynamic light moved: %zu of %zu pieces traced\n", res.traced_layer_pieces, third.layer_piece_count);
    CHECK_EQ(res.traced_layer_pieces, pieces_of(&third, 3));
    CHECK(res.traced_layer_pieces > 0 && res.traced_layer_pieces < third.layer_piece_count / 4);
    f.desc.relight = NULL;
    f.desc.terms = NULL;
    REQUIRE(bake_run(&f.desc, &full));
    CHECK(same_layers(&res, &full), "the relit layers are the full bake's");
    bake_result_free(&full);
    bake_result_free(&res);
    bake_terms_free(&first);
    bake_terms_free(&second);
    bake_terms_free(&third);
    free(f.lightmap.luxels);
    soup_free(&f.occluders);
    return 0;
}

/* A floor and, ROOM_HEIGHT above it, a ceiling, each 8 x 8 patches (one bounce cell each) of one
 * surface that bounce light between them; the lights between them, light 0 small. */
#define ROOM_HEIGHT 1.0f
#define ROOM_DYNAMIC 3      /* lights 1..3 are dynamic: their layers bounce too */

typedef struct room_scene {
    floor_scene f;
    bake_patch patches[2 * PATCHES * PATCHES];
    uint32_t surfaces[4];
    bake_lightmap lightmap;
} room_scene;

static void room_init(room_scene *r, int bounces)
{
    floor_init(&r->f);
    const float h = PATCHES / 2.0f;
    soup_quad(&r->f.occluders, (float[3]){ -h, ROOM_HEIGHT, -h }, (float[3]){ h, ROOM_HEIGHT, -h },
              (float[3]){ h, ROOM_HEIGHT, h }, (float[3]){ -h, ROOM_HEIGHT, h });
    r->surfaces[0] = r->surfaces[1] = 0;
    r->surfaces[2] = r->surfaces[3] = 1;
    for (int k = 0; k < PATCHES * PATCHES; k++) {
        bake_patch *floor_patch = &r->patches[k], *ceiling = &r->patches[PATCHES * PATCHES + k];
        *floor_patch = r->f.patches[k];
        *ceiling = *floor_patch;
        ceiling->origin[1] = ROOM_HEIGHT;
        ceiling->normal[1] = -1.0f;
        ceiling->x = (uint16_t)(ceiling->x + SIDE);
        ceiling->seed += PATCHES * PATCHES;
        ceiling->surface = 1;
        for (int c = 0; c < 3; c++)
            floor_patch->albedo[c] = ceiling->albedo[c] = 0.5f;
    }
    for (int k = 0; k < LIGHTS; k++)
        r->f.lights[k].position[1] = 0.2f + 0.6f * (r->f.lights[k].position[1] - 0.5f) / 2.5f;
    r->f.lights[0].range = 1.0f;
    r->f.lights[0].intensity = 0.3f;
    for (int k = 1; k <= ROOM_DYNAMIC; k++) {
        r->f.lights[k].kind = BAKE_LIGHT_DYNAMIC;
        r->f.lights[k].intensity = 0.05f;   /* a layer holds its light alone: bright enough to keep */
    }
    r->lightmap.size_exp = 7;
    r->lightmap.luxels = malloc(4 * SIDE * SIDE * 3);
    CHECK(r->lightmap.luxels != NULL);
    r->f.desc.triangles = (const float (*)[9])r->f.occluders.tris;
    r->f.desc.triangle_count = r->f.occluders.count;
    r->f.desc.triangle_surfaces = r->surfaces;
    r->f.desc.patches = r->patches;
    r->f.desc.patch_count = 2 * PATCHES * PATCHES;
    r->f.desc.lightmaps = &r->lightmap;
    r->f.desc.bounces = bounces;
}

/* A relight with bounced light gathers again only the cells whose rays meet light that changed
 * (bake_transport.gathered: one light moved, 46 of 128 with one bounce), each exactly as the full
 * bake does, and the dynamic lights, unchanged, take their bounced light as it was
 * (bake_transport.layer_indirect): its map and layers are the full bake's byte for byte, with one
 * bounce and with bounces until under 1 % (as many as the full bake's). */
static int test_bounce(int bounces)
{
    static uint8_t before[4 * SIDE * SIDE * 3], relit[4 * SIDE * SIDE * 3];
    static room_scene r;
    room_init(&r, bounces);
    bake_terms first = { 0 }, second = { 0 };
    bake_transport transport = { 0 };
    bake_light old_lights[LIGHTS];
    memcpy(old_lights, r.f.lights, sizeof old_lights);
    bake_result res;
    r.f.desc.terms = &first;
    r.f.desc.transport = &transport;
    REQUIRE(bake_run(&r.f.desc, &res));
    uint64_t all = res.bounce_gathers;
    memcpy(before, r.lightmap.luxels, sizeof before);
    CHECK_EQ(res.bounce_layers_kept, 0);
    bake_result_free(&res);
    CHECK(all >= 2 * PATCHES * PATCHES && all % (2 * PATCHES * PATCHES) == 0, "%llu cells gathered", (unsigned long long)all);

    r.f.lights[0].position[0] += 1.0f;
    r.f.desc.terms = &second;
    r.f.desc.relight = &(bake_relight){ .terms = &first, .patches = r.patches, .lights = old_lights, .light_count = LIGHTS };
    REQUIRE(bake_run(&r.f.desc, &res));
    uint64_t again = res.bounce_gathers;
    memcpy(relit, r.lightmap.luxels, sizeof relit);
    bake_result relit_res = res;
    CHECK_EQ(res.bounce_layers_kept, ROOM_DYNAMIC);

    r.f.desc.relight = NULL;
    r.f.desc.terms = NULL;
    r.f.desc.transport = NULL;
    REQUIRE(bake_run(&r.f.desc, &res));
    size_t moved = 0;
    for (size_t i = 0; i < sizeof relit; i++)
        moved += relit[i] != before[i];
    printf("relight, bounces %d: %llu cells gathered, the full bake %llu; %zu channels moved\n", bounces,
           (unsigned long long)again, (unsigned long long)res.bounce_gathers, moved);
    CHECK_EQ(res.bounce_gathers, all);
    /* each bounce reaches further (a cell a changed one's light reaches changes in turn) */
    CHECK(again > 0 && again * (bounces == 1 ? 2 : 1) < all, "%llu of %llu cells gathered", (unsigned long long)again,
          (unsigned long long)all);
    CHECK(memcmp(relit, r.lightmap.luxels, sizeof relit) == 0, "the relit map is the full bake's");
    CHECK(moved > 0);
    CHECK_EQ(relit_res.layer_count, res.layer_count);
    CHECK(relit_res.layer_count >= ROOM_DYNAMIC);
    for (size_t k = 0; k < res.layer_count && k < relit_res.layer_count; k++)
        CHECK(relit_res.layers[k].light == res.layers[k].light &&
                  !memcmp(relit_res.layers[k].luxels, res.layers[k].luxels, sizeof relit),
              "layer %zu is the full bake's", k);
    bake_result_free(&relit_res);
    bake_result_free(&res);
    bake_terms_free(&first);
    bake_terms_free(&second);
    bake_transport_free(&transport);
    free(r.lightmap.luxels);
    free(r.f.lightmap.luxels);
    soup_free(&r.f.occluders);
    return 0;
}

int main(void)
{
    static uint8_t before[SIDE * SIDE * 3], relit[SIDE * SIDE * 3], full[SIDE * SIDE * 3];
    floor_scene f;
    floor_init(&f);
    bake_terms first = { 0 }, second = { 0 };
    bake_light old_lights[LIGHTS];
    memcpy(old_lights, f.lights, sizeof old_lights);
    bake_result res;
    uint64_t checks = 0;
    f.desc.terms = &first;
    REQUIRE(bake_floor(&f, before, &checks, &res));
    bake_result_free(&res);
    CHECK_EQ(checks, (uint64_t)PATCHES * PATCHES * LIGHTS); /* each light once per patch */

    f.lights[0].position[0] += 1.0f;
    f.desc.terms = &second;
    f.desc.relight = &(bake_relight){ .terms = &first, .patches = f.patches, .lights = old_lights, .light_count = LIGHTS };
    REQUIRE(bake_floor(&f, relit, &checks, &res));
    CHECK_EQ(res.relit_lights, 1);
    CHECK_EQ(res.relit_luxels, (uint64_t)SIDE * SIDE);
    bake_result_free(&res);
    /* the moved light at its old and new place: one light found reaching each patch, or two */
    printf("relight: %llu lights checked over %d patches\n", (unsigned long long)checks, PATCHES * PATCHES);
    CHECK(checks >= (uint64_t)PATCHES * PATCHES && checks <= 2ull * PATCHES * PATCHES, "%llu checks", (unsigned long long)checks);

    f.desc.relight = NULL;
    f.desc.terms = NULL;
    REQUIRE(bake_floor(&f, full, &checks, &res));
    bake_result_free(&res);
    size_t equal = 0, moved = 0, off = 0;
    for (size_t i = 0; i < sizeof full; i++) {
        equal += relit[i] == full[i];
        moved += relit[i] != before[i];
        off += abs(relit[i] - full[i]) > 1;
    }
    printf("relight: %zu of %zu channels as the full bake's, %zu moved\n", equal, sizeof full, moved);
    CHECK_EQ(off, 0);
    CHECK(equal * 1000 >= sizeof full * 999, "%zu of %zu equal", equal, sizeof full);
    CHECK(moved > 0);
    bake_terms_free(&first);
    bake_terms_free(&second);
    free(f.lightmap.luxels);
    soup_free(&f.occluders);
    REQUIRE(test_probes() == 0);
    REQUIRE(test_trees() == 0);
    REQUIRE(test_layers() == 0);
    REQUIRE(test_bounce(1) == 0);
    REQUIRE(test_bounce(BAKE_BOUNCE_AUTO) == 0);
    printf("bake_relight: ok\n");
    TEST_DONE();
}
