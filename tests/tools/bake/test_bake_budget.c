/* The baker, its BVH and the visibility pass take their memory from the budget (pmf_budget.h) as
 * they allocate it: every byte taken is given back once the results are freed, a budget too small
 * for the bake fails it cleanly (false, a refusal counted, nothing left taken), and the same bake
 * under a budget that fits gives the same bytes as unlimited. */
#include "city_soup.h"
#include "base/pmf_budget.h"

static uint8_t *copy_lightmaps(const city *c, size_t *bytes)
{
    *bytes = 0;
    for (size_t i = 0; i < c->lightmap_count; i++)
        *bytes += ((size_t)1 << (2 * c->lightmaps[i].size_exp)) * 3;
    uint8_t *all = malloc(*bytes), *at = all;
    CHECK(all != NULL);
    for (size_t i = 0; i < c->lightmap_count; i++) {
        size_t n = ((size_t)1 << (2 * c->lightmaps[i].size_exp)) * 3;
        memcpy(at, c->lightmaps[i].luxels, n);
        memset(c->lightmaps[i].luxels, 0, n);
        at += n;
    }
    return all;
}

static void check_bake(void)
{
    city c;
    city_build(&c, 7, 30, 60.0f, 0.5f, 16, 6);
    bake_desc desc = city_desc(&c, 2);
    desc.bounces = 2;

    pmf_budget_set_limit(0);
    uint64_t before = pmf_budget_used();
    bake_result free_run;
    CHECK(bake_run(&desc, &free_run));
    uint64_t peak = pmf_budget_peak() - before;
    size_t bytes;
    uint8_t *unlimited = copy_lightmaps(&c, &bytes);
    CHECK(pmf_budget_used() > before); /* the result's layers and probes stay taken until freed */
    bake_result_free(&free_run);
    CHECK(pmf_budget_used() == before);
    printf("budget: the bake took up to %.1f MiB\n", (double)peak / (1 << 20));
    CHECK(peak > (1u << 20));

    /* half of what it needs: refused, nothing left taken */
    uint64_t refusals = pmf_budget_refusals();
    pmf_budget_set_limit(before + peak / 2);
    bake_result refused;
    CHECK(!bake_run(&desc, &refused));
    CHECK(pmf_budget_refusals() > refusals);
    CHECK(pmf_budget_used() == before);

    /* enough: the same bytes as unlimited */
    pmf_budget_set_limit(before + peak + (1u << 20));
    bake_result fits;
    CHECK(bake_run(&desc, &fits));
    size_t again_bytes;
    uint8_t *again = copy_lightmaps(&c, &again_bytes);
    CHECK(again_bytes == bytes && memcmp(again, unlimited, bytes) == 0);
    bake_result_free(&fits);
    CHECK(pmf_budget_used() == before);
    pmf_budget_set_limit(0);
    free(unlimited);
    free(again);
    city_free(&c);
}

static void check_vis(void)
{
    city c;
    city_build(&c, 5, 30, 60.0f, 1.0f, 0, 2);
    vis_box cells[16];
    for (int i = 0; i < 16; i++) {
        float x = -27.0f + 14.0f * (float)(i % 4), z = -27.0f + 14.0f * (float)(i / 4);
        cells[i] = (vis_box){ { x, 0.5f, z }, { x + 2, 2.5f, z + 2 } };
    }
    vis_desc desc = { .triangles = (const float (*)[9])c.occluders.tris, .triangle_count = c.occluders.count,
                      .cells = cells, .cell_count = 16, .targets = c.boxes, .target_count = c.box_count, .threads = 2 };
    uint64_t before = pmf_budget_used();
    vis_result res;
    CHECK(vis_run(&desc, &res));
    uint64_t peak = pmf_budget_peak() - before;
    vis_result_free(&res, 16);
    CHECK(pmf_budget_used() == before);
    uint64_t refusals = pmf_budget_refusals();
    pmf_budget_set_limit(before + peak / 2);
    CHECK(!vis_run(&desc, &res));
    CHECK(pmf_budget_refusals() > refusals);
    CHECK(pmf_budget_used() == before);
    pmf_budget_set_limit(0);
    printf("budget: visibility took up to %.1f MiB\n", (double)peak / (1 << 20));
    city_free(&c);
}

int main(void)
{
    check_vis(); /* first: the budget's peak is then its own (the bake's is larger) */
    check_bake();
    puts("test_bake_budget: ok");
    TEST_DONE();
}
