/* pmf_budget.c - the process-wide memory budget (see pmf_budget.h). */
#include <stdatomic.h>
#include <unistd.h>

#include "pmf_budget.h"

#define MIB (1ull << 20)

static _Atomic uint64_t budget_limit; /* 0 = unlimited */
static _Atomic uint64_t budget_used;
static _Atomic uint64_t budget_peak;
static _Thread_local bool refused_here;

void pmf_budget_clear_refused(void) { refused_here = false; }
bool pmf_budget_refused(void) { return refused_here; }
void pmf_budget_note_refusal(void) { refused_here = true; }

uint64_t pmf_budget_default(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t eighth = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 8 : 0;
    return eighth < 128 * MIB ? 128 * MIB : eighth > 512 * MIB ? 512 * MIB : eighth;
}

void pmf_budget_set_limit(uint64_t bytes) { atomic_store(&budget_limit, bytes); }
uint64_t pmf_budget_limit(void) { return atomic_load(&budget_limit); }
uint64_t pmf_budget_used(void) { return atomic_load(&budget_used); }
uint64_t pmf_budget_peak(void) { return atomic_load(&budget_peak); }

bool pmf_budget_take(uint64_t bytes)
{
    uint64_t limit = atomic_load(&budget_limit);
    uint64_t used = atomic_load(&budget_used), now;
    do {
        now = used + bytes;
        if (now < used || (limit && now > limit)) {
            refused_here = true;
            return false;
        }
    } while (!atomic_compare_exchange_weak(&budget_used, &used, now));
    uint64_t peak = atomic_load(&budget_peak);
    while (now > peak && !atomic_compare_exchange_weak(&budget_peak, &peak, now))
        ;
    return true;
}

void pmf_budget_give(uint64_t bytes) { atomic_fetch_sub(&budget_used, bytes); }
