/* The same inputs give byte-identical bakes and visibility on 1, 2 or every thread. */
#include "city_soup.h"

typedef struct snapshot {
    uint8_t *lightmaps;
    size_t lightmap_bytes;
    bake_result result;
} snapshot;

static void bake_snapshot(city *c, int threads, snapshot *out)
{
    bake_desc desc = city_desc(c, threads);
    CHECK(bake_run(&desc, &out->result));
    out->lightmap_bytes = 0;
    for (size_t i = 0; i < c->lightmap_count; i++)
        out->lightmap_bytes += ((size_t)1 << (2 * c->lightmaps[i].size_exp)) * 3;
    out->lightmaps = malloc(out->lightmap_bytes);
    CHECK(out->lightmaps != NULL);
    size_t at = 0;
    for (size_t i = 0; i < c->lightmap_count; i++) {
        size_t bytes = ((size_t)1 << (2 * c->lightmaps[i].size_exp)) * 3;
        memcpy(out->lightmaps + at, c->lightmaps[i].luxels, bytes);
        memset(c->lightmaps[i].luxels, 0x5A, bytes);
        at += bytes;
    }
}

static void check_same(const city *c, const snapshot *a, const snapshot *b)
{
    CHECK(a->lightmap_bytes == b->lightmap_bytes && memcmp(a->lightmaps, b->lightmaps, a->lightmap_bytes) == 0);
    CHECK(a->result.layer_count == b->result.layer_count);
    for (size_t i = 0; i < a->result.layer_count; i++) {
        const bake_layer *x = &a->result.layers[i], *y = &b->result.layers[i];
        CHECK(x->light == y->light && x->lightmap == y->lightmap);
        size_t bytes = ((size_t)1 << (2 * c->lightmaps[x->lightmap].size_exp)) * 3;
        CHECK(memcmp(x->luxels, y->luxels, bytes) == 0);
        if (i > 0)  /* ordered by (light, lightmap) */
            CHECK(x->light > x[-1].light || (x->light == x[-1].light && x->lightmap > x[-1].lightmap));
    }
    CHECK(a->result.fast_light_count == b->result.fast_light_count);
    CHECK(memcmp(a->result.fast_multipliers, b->result.fast_multipliers,
                 a->result.fast_light_count * c->vertex_count) == 0);
    for (size_t i = 0; i < c->probe_count; i++) {
        const bake_probe_result *x = &a->result.probes[i], *y = &b->result.probes[i];
        CHECK(memcmp(x->base, y->base, 3) == 0 && x->ref_count == y->ref_count);
        for (uint32_t r = 0; r < x->ref_count; r++)
            CHECK(x->refs[r].light == y->refs[r].light && x->refs[r].amount == y->refs[r].amount);
    }
}

static void snapshot_free(snapshot *s)
{
    free(s->lightmaps);
    bake_result_free(&s->result);
}

static void check_bake(void)
{
    city c;
    city_build(&c, 99, 40, 60.0f, 0.5f, 24, 8);
    snapshot one, two, all;
    bake_snapshot(&c, 1, &one);
    bake_snapshot(&c, 2, &two);
    bake_snapshot(&c, 0, &all);
    check_same(&c, &one, &two);
    check_same(&c, &one, &all);
    /* The scene is not trivial: layers, lit vertices and probe refs exist. */
    size_t lit = 0, refs = 0;
    for (size_t i = 0; i < one.result.fast_light_count * c.vertex_count; i++)
        lit += one.result.fast_multipliers[i] > 0;
    for (size_t i = 0; i < c.probe_count; i++)
        refs += one.result.probes[i].ref_count;
    printf("threads: %zu triangles, %zu patches, %zu layers, %zu lit vertex multipliers, %zu probe refs\n",
           c.occluders.count, c.patch_count, one.result.layer_count, lit, refs);
    CHECK(one.result.layer_count >= 4 && lit > 20 && refs > 20);
    snapshot_free(&one);
    snapshot_free(&two);
    snapshot_free(&all);
    city_free(&c);
}

static void check_vis(void)
{
    city c;
    city_build(&c, 5, 30, 60.0f, 1.0f, 0, 2);
    vis_box cells[48];
    for (int i = 0; i < 48; i++) {
        float x = -27.0f + 8.0f * (float)(i % 8), z = -27.0f + 9.0f * (float)(i / 8);
        cells[i] = (vis_box){ { x, 0.5f, z }, { x + 2, 2.5f, z + 2 } };
    }
    vis_result results[2];
    for (int t = 0; t < 2; t++) {
        vis_desc desc = {
            .triangles = (const float (*)[9])c.occluders.tris, .triangle_count = c.occluders.count,
            .cells = cells, .cell_count = 48, .targets = c.boxes, .target_count = c.box_count, .threads = t + 1,
        };
        CHECK(vis_run(&desc, &results[t]));
    }
    size_t visible = 0;
    for (int i = 0; i < 48; i++) {
        CHECK(results[0].visible_count[i] == results[1].visible_count[i]);
        CHECK(memcmp(results[0].visible[i], results[1].visible[i], results[0].visible_count[i] * sizeof(uint32_t)) == 0);
        visible += results[0].visible_count[i];
    }
    printf("threads: visibility %zu of %zu pairs visible\n", visible, 48 * c.box_count);
    CHECK(visible > 48 && visible < 48 * c.box_count);
    vis_result_free(&results[0], 48);
    vis_result_free(&results[1], 48);
    city_free(&c);
}

int main(void)
{
    check_bake();
    check_vis();
    puts("test_bake_threads: ok");
    TEST_DONE();
}
