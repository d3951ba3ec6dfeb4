/* test_pmf_budget.c - the memory budget (pmf_budget.h): takings past the limit are refused and
 * flagged on the refusing thread, decoded levels and chunks take from it and give everything
 * back when freed, and a decode the budget refuses fails with over_budget and a line naming it;
 * the accounted allocator (pmf_budget_malloc family) charges and gives back exactly. */
#include <stdint.h>
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
    uint64_t d = pmf_budget_default(PMF_BUDGET_VIEWER);
    CHECK(d >= (128ull << 20) && d <= (512ull << 20), "default %llu MiB outside 128..512", (unsigned long long)(d >> 20));
    uint64_t c = pmf_budget_default(PMF_BUDGET_COMPILER);
    CHECK(c >= (1024ull << 20) && c >= d, "compiler's default %llu MiB", (unsigned long long)(c >> 20));
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

/* The accounted allocator: blocks of 4 KiB or more are charged by their usable size and given
 * back when freed; what cannot fit is refused before anything is allocated; small blocks are
 * not charged; realloc across the line keeps the count exact. */
static void test_allocator(void)
{
    uint64_t base = pmf_budget_used(), refusals = pmf_budget_refusals();
    pmf_budget_set_limit(base + (1u << 20));
    uint8_t *big = pmf_budget_malloc(256u << 10);
    CHECK(big != NULL && pmf_budget_used() >= base + (256u << 10), "256 KiB charged: %llu", (unsigned long long)(pmf_budget_used() - base));
    big[0] = 7;
    CHECK(pmf_budget_malloc((size_t)1 << 40) == NULL && pmf_budget_refusals() == refusals + 1, "1 TiB refused before allocating");
    CHECK(pmf_budget_calloc(SIZE_MAX / 2, 4) == NULL, "calloc's count x size overflow refused");
    uint8_t *small = pmf_budget_malloc(100);
    uint64_t with_small = pmf_budget_used();
    CHECK(small != NULL, "a small block");
    small = pmf_budget_realloc(small, 64u << 10);
    CHECK(small != NULL && pmf_budget_used() >= with_small + (64u << 10), "a block grown past the line is charged");
    small = pmf_budget_realloc(small, 50);
    CHECK(small != NULL && pmf_budget_used() == with_small, "and given back when it shrinks below it");
    CHECK(pmf_budget_realloc(big, 2u << 20) == NULL && big[0] == 7, "a refused realloc keeps the block");
    pmf_budget_free(small);
    pmf_budget_free(big);
    CHECK(pmf_budget_used() == base, "everything given back: %lld", (long long)(pmf_budget_used() - base));
    pmf_budget_set_limit(0);
}

/* A ledger out of memory for its record of blocks: the block it cannot record is refused (freed,
 * its charge given back), never handed out to be given back later to the process's budget, which
 * never held it; a process's block grown past the line on a ledger's thread is charged to the
 * process, where its free gives it back. Both budgets end where they began. */
static void test_ledger_out_of_memory(void)
{
    uint64_t process = pmf_budget_used();
    uint8_t *small = pmf_budget_malloc(100);
    pmf_budget_ledger *l = pmf_budget_ledger_create(0);
    CHECK(l != NULL, "a ledger");
    pmf_budget_use_ledger(l);
    pmf_budget_ledger_fail_growths(l, 1);
    uint8_t *big = pmf_budget_malloc(64u << 10);
    CHECK(big == NULL, "a block the ledger cannot record is refused");
    CHECK(pmf_budget_used() == 0 && pmf_budget_ledger_blocks(l) == 0, "and nothing kept: %llu bytes, %zu blocks",
          (unsigned long long)pmf_budget_used(), pmf_budget_ledger_blocks(l));
    pmf_budget_free(big);
    small = pmf_budget_realloc(small, 4095);
    CHECK(small != NULL && pmf_budget_used() == 0, "a process's block grown on the ledger's thread is not the ledger's: %llu",
          (unsigned long long)pmf_budget_used());
    pmf_budget_free(small);
    pmf_budget_use_ledger(NULL);
    pmf_budget_ledger_destroy(l);
    CHECK(pmf_budget_used() == process, "the process's budget where it was: %lld", (long long)(pmf_budget_used() - process));
}

/* Blocks handed from one ledger to another that records none (the compile's to the viewer's kept
 * relight state, pmfc.h): freeing the first's blocks then frees none of them, the second records
 * them and what they took, freed there as on the thread of the first; a ledger that records a
 * block takes none; one block moved alone. */
static void test_ledger_hand_over(void)
{
    pmf_budget_ledger *work = pmf_budget_ledger_create(0), *kept = pmf_budget_ledger_create(0);
    CHECK(work && kept, "two ledgers");
    pmf_budget_use_ledger(work);
    uint8_t *a = pmf_budget_malloc(64u << 10), *b = pmf_budget_malloc(100);
    CHECK(a && b, "two blocks");
    uint64_t used = pmf_budget_used();
    CHECK(used >= 64u << 10, "the big block is counted: %llu", (unsigned long long)used);
    pmf_budget_use_ledger(NULL);
    CHECK(pmf_budget_ledger_hand_over(kept, work), "handed over");
    CHECK(pmf_budget_ledger_blocks(work) == 0 && pmf_budget_ledger_blocks(kept) == 2, "%zu and %zu blocks",
          pmf_budget_ledger_blocks(work), pmf_budget_ledger_blocks(kept));
    pmf_budget_ledger_free_blocks(work);
    a[0] = 1; /* still held (the ASan build would see a use after free) */
    pmf_budget_use_ledger(kept);
    CHECK(pmf_budget_used() == used, "the kept ledger took what they took: %llu", (unsigned long long)pmf_budget_used());
    pmf_budget_free(a);
    CHECK(pmf_budget_used() + (64u << 10) <= used, "freed, given back to the kept ledger: %llu", (unsigned long long)pmf_budget_used());
    pmf_budget_use_ledger(work);
    uint8_t *c = pmf_budget_malloc(100);
    CHECK(!pmf_budget_ledger_hand_over(work, kept), "a ledger that records a block takes none");
    pmf_budget_free(c);
    /* one block moved (a cancelled compile's kept state) */
    uint8_t *d = pmf_budget_malloc(64u << 10);
    CHECK(d && pmf_budget_ledger_move(kept, work, d) && !pmf_budget_ledger_move(kept, work, d), "moved once");
    CHECK(pmf_budget_ledger_blocks(work) == 0 && pmf_budget_used() == 0, "nothing left: %zu blocks, %llu bytes",
          pmf_budget_ledger_blocks(work), (unsigned long long)pmf_budget_used());
    pmf_budget_use_ledger(NULL);
    CHECK(pmf_budget_ledger_blocks(kept) == 2, "%zu blocks kept", pmf_budget_ledger_blocks(kept));
    pmf_budget_ledger_free_blocks(kept);
    pmf_budget_ledger_destroy(work);
    pmf_budget_ledger_destroy(kept);
}

int main(void)
{
    test_take_give();
    test_decoding();
    test_allocator();
    test_ledger_out_of_memory();
    test_ledger_hand_over();
    TEST_DONE();
}
