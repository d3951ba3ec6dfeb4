/* pmf_budget.c - the process-wide memory budget (see pmf_budget.h). */
#include <stdint.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmf_budget.h"
#include "pmf_os.h"

#define MIB (1ull << 20)

static _Atomic uint64_t budget_limit; /* 0 = unlimited */
static _Atomic uint64_t budget_used;
static _Atomic uint64_t budget_peak;
static _Atomic uint64_t budget_refusals;
static _Thread_local bool refused_here;

void pmf_budget_clear_refused(void) { refused_here = false; }
bool pmf_budget_refused(void) { return refused_here; }
void pmf_budget_note_refusal(void) { refused_here = true; }

uint64_t pmf_budget_default(pmf_budget_use use)
{
    uint64_t physical = pmf_os_physical_memory();
    if (use == PMF_BUDGET_COMPILER)
        return physical / 2 < 1024 * MIB ? 1024 * MIB : physical / 2;
    uint64_t eighth = physical / 8;
    return eighth < 128 * MIB ? 128 * MIB : eighth > 512 * MIB ? 512 * MIB : eighth;
}

void pmf_budget_set_limit(uint64_t bytes) { atomic_store(&budget_limit, bytes); }
uint64_t pmf_budget_limit(void) { return atomic_load(&budget_limit); }
uint64_t pmf_budget_used(void) { return atomic_load(&budget_used); }
uint64_t pmf_budget_peak(void) { return atomic_load(&budget_peak); }
void pmf_budget_reset_peak(void) { atomic_store(&budget_peak, atomic_load(&budget_used)); }

bool pmf_budget_take(uint64_t bytes)
{
    uint64_t limit = atomic_load(&budget_limit);
    uint64_t used = atomic_load(&budget_used), now;
    do {
        now = used + bytes;
        if (now < used || (limit && now > limit)) {
            refused_here = true;
            atomic_fetch_add(&budget_refusals, 1);
            return false;
        }
    } while (!atomic_compare_exchange_weak(&budget_used, &used, now));
    uint64_t peak = atomic_load(&budget_peak);
    while (now > peak && !atomic_compare_exchange_weak(&budget_peak, &peak, now))
        ;
    return true;
}

void pmf_budget_give(uint64_t bytes) { atomic_fetch_sub(&budget_used, bytes); }

uint64_t pmf_budget_refusals(void) { return atomic_load(&budget_refusals); }

/* What a block takes from the budget: its usable size, or nothing for a small one. */
static size_t charge_of(void *p)
{
    size_t size = p ? pmf_os_allocation_size(p) : 0;
    return size >= PMF_BUDGET_MIN_BLOCK ? size : 0;
}

static void *taken(void *p)
{
    size_t charge = charge_of(p);
    if (charge && !pmf_budget_take(charge)) {
        free(p);
        return NULL;
    }
    return p;
}

/* Refuses before allocating what cannot fit (a hostile count asks for more than the machine has). */
static bool may_fit(size_t size)
{
    uint64_t limit = atomic_load(&budget_limit);
    if (size < PMF_BUDGET_MIN_BLOCK || !limit || atomic_load(&budget_used) + (uint64_t)size <= limit)
        return true;
    refused_here = true;
    atomic_fetch_add(&budget_refusals, 1);
    return false;
}

void *pmf_budget_malloc(size_t size) { return may_fit(size) ? taken(malloc(size)) : NULL; }

void *pmf_budget_calloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    return may_fit(count * size) ? taken(calloc(count, size)) : NULL;
}

/* A new block and a copy, so that a refusal leaves the old block untouched. */
void *pmf_budget_realloc(void *p, size_t size)
{
    if (!p)
        return pmf_budget_malloc(size);
    size_t old = pmf_os_allocation_size(p);
    if (size < PMF_BUDGET_MIN_BLOCK && old < PMF_BUDGET_MIN_BLOCK) {
        void *q = realloc(p, size); /* an uncounted block; one that grew past the line is counted */
        size_t charge = charge_of(q);
        if (charge)
            atomic_fetch_add(&budget_used, charge);
        return q;
    }
    void *q = pmf_budget_malloc(size);
    if (!q)
        return NULL;
    memcpy(q, p, old < size ? old : size);
    pmf_budget_free(p);
    return q;
}

void pmf_budget_free(void *p)
{
    size_t charge = charge_of(p);
    if (charge)
        pmf_budget_give(charge);
    free(p);
}
