/* test_pmf_budget.c - the memory budget (pmf_budget.h): takings past the limit are refused and
 * flagged on the refusing thread, decoded levels and chunks take from it and give everything
 * back when freed, and a decode the budget refuses fails with over_budget and a line naming it. */
#include <string.h>

#include "pmf_budget.h"
#include "sample_map.h"
#include "test_util.h"

static void test_take_give(void)
{
    pmf_budget_set_limit(1u << 20);
    uint64_t base = pmf_budget_used();
    pmf_budget_clear_refused();
    CHECK(pmf_budget_take(512u << 10) && !pmf_budget_refused(), "512 KiB of 1 MiB");
    CHECK(!pmf_budget_take(600u << 10) && pmf_budget_refused(), "600 KiB more must be refused");
    CHECK(pmf_budget_used() == base + (512u << 10), "a refusal takes nothing: %llu", (unsigned long long)pmf_budget_used());
    CHECK(pmf_budget_peak() >= base + (512u << 10), "peak");
    CHECK(!pmf_budget_take(UINT64_MAX), "overflow refused");
    pmf_budget_give(512u << 10);
    CHECK(pmf_budget_used() == base, "given back");
    pmf_budget_set_limit(0);
    CHECK(pmf_budget_take(1ull << 40), "unlimited");
    pmf_budget_give(1ull << 40);
    uint64_t d = pmf_budget_default();
    CHECK(d >= (128ull << 20) && d <= (512ull << 20), "default %llu MiB outside 128..512", (unsigned long long)(d >> 20));
}

/* Decodes level 0 and every present chunk of it; false at the first failure (in *err). */
static bool decode_all(const pmf_file *f, pmf_error *err)
{
    pmf_level lvl;
    if (!pmf_level_read(f, 0, PMF_PART_ALL, &lvl, err))
        return false;
    const pmf_level_info *li = &f->levels[0];
    bool ok = true;
    for (uint32_t i = 0; ok && i < li->chunk_count; i++) {
        pmf_chunk_coord c = { i % li->count_x, i / (li->count_x * li->count_z), (i / li->count_x) % li->count_z };
        pmf_chunk ch;
        ok = pmf_chunk_read(f, &lvl, 0, c, PMF_PART_ALL, &ch, err);
        if (ok)
            pmf_chunk_free(&ch);
    }
    pmf_level_free(&lvl);
    return ok;
}

static void test_decoding(void)
{
    sample_map m;
    sample_map_build(&m, SAMPLE_MAP_KITCHEN_SINK);
    uint8_t *bytes = NULL;
    size_t size = 0;
    pmf_error err;
    CHECK(sample_map_write_memory(&m, &bytes, &size, &err), "write: %s", err.message);
    sample_map_free(&m);
    pmf_budget_set_limit(0);
    uint64_t before = pmf_budget_used();
    pmf_file *f = pmf_open_memory(bytes, size, "budget.pmf", &err);
    CHECK(f != NULL, "open: %s", err.message);
    if (!f) {
        free(bytes);
        return;
    }
    uint64_t opened = pmf_budget_used();
    CHECK(opened > before, "the open's chunk index takes from the budget");
    for (int round = 0; round < 3; round++) {
        CHECK(decode_all(f, &err), "decode: %s", err.message);
        CHECK(pmf_budget_used() == opened, "round %d: %llu bytes not given back", round,
              (unsigned long long)(pmf_budget_used() - opened));
    }
    /* room for the open only: the level's decode is refused, naming the budget */
    pmf_budget_set_limit(opened + 1024);
    pmf_budget_clear_refused();
    CHECK(!decode_all(f, &err) && err.over_budget && pmf_budget_refused(), "decode past the budget: %s", err.message);
    CHECK(strstr(err.message, "more than the memory budget leaves") && strstr(err.message, "see --memory"), "message: %s",
          err.message);
    CHECK(pmf_budget_used() == opened, "a refused decode gives back what it took");
    pmf_budget_set_limit(0);
    pmf_close(f);
    CHECK(pmf_budget_used() == before, "pmf_close gives back the open's arena");
    free(bytes);
}

int main(void)
{
    test_take_give();
    test_decoding();
    TEST_DONE();
}
