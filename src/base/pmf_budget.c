/* pmf_budget.c - the process-wide memory budget and the ledgers of work that keeps its own
 * (see pmf_budget.h). */
#include <pthread.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmf_budget.h"
#include "pmf_os.h"

#define MIB (1ull << 20)

/* A limit and what is taken against it. */
typedef struct account {
    _Atomic uint64_t limit; /* 0 = unlimited */
    _Atomic uint64_t used;
    _Atomic uint64_t peak;
    _Atomic uint64_t refusals;
} account;

/* The blocks a ledger's threads allocated and have not freed: a set of addresses in shards, each
 * an open-addressed table (linear probing, deletion by backward shift) under its own lock. */
#define LEDGER_SHARDS 64
typedef struct ledger_shard {
    pthread_mutex_t lock;
    uintptr_t *slots;               /* 0 = empty */
    size_t cap, count;              /* cap a power of two, or 0 */
} ledger_shard;

struct pmf_budget_ledger {
    account acc;
    ledger_shard shards[LEDGER_SHARDS];
    _Atomic unsigned failing_growths; /* pmf_budget_ledger_fail_growths */
};

static account process_account;
static _Thread_local pmf_budget_ledger *thread_ledger;
static _Thread_local bool refused_here;

static account *here(void) { return thread_ledger ? &thread_ledger->acc : &process_account; }

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

void pmf_budget_set_limit(uint64_t bytes) { atomic_store(&here()->limit, bytes); }
uint64_t pmf_budget_limit(void) { return atomic_load(&here()->limit); }
uint64_t pmf_budget_used(void) { return atomic_load(&here()->used); }
uint64_t pmf_budget_peak(void) { return atomic_load(&here()->peak); }
void pmf_budget_reset_peak(void) { atomic_store(&here()->peak, atomic_load(&here()->used)); }
uint64_t pmf_budget_refusals(void) { return atomic_load(&here()->refusals); }

static void refuse(account *a)
{
    refused_here = true;
    atomic_fetch_add(&a->refusals, 1);
}

static bool take_from(account *a, uint64_t bytes)
{
    uint64_t limit = atomic_load(&a->limit);
    uint64_t used = atomic_load(&a->used), now;
    do {
        now = used + bytes;
        if (now < used || (limit && now > limit)) {
            refuse(a);
            return false;
        }
    } while (!atomic_compare_exchange_weak(&a->used, &used, now));
    uint64_t peak = atomic_load(&a->peak);
    while (now > peak && !atomic_compare_exchange_weak(&a->peak, &peak, now))
        ;
    return true;
}

bool pmf_budget_take(uint64_t bytes) { return take_from(here(), bytes); }
void pmf_budget_give(uint64_t bytes) { atomic_fetch_sub(&here()->used, bytes); }

/* ---- ledgers ---- */

static size_t slot_of(uintptr_t key, size_t cap)
{
    return (size_t)(((uint64_t)(key >> 4) * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
}

static ledger_shard *shard_of(pmf_budget_ledger *l, uintptr_t key)
{
    return &l->shards[((key >> 4) ^ (key >> 12)) % LEDGER_SHARDS];
}

/* Inserts key into a table with room (no lock, no growth). */
static void shard_put(uintptr_t *slots, size_t cap, uintptr_t key)
{
    size_t i = slot_of(key, cap);
    while (slots[i])
        i = (i + 1) & (cap - 1);
    slots[i] = key;
}

/* Whether the next growth of l's record is to fail (a test's out of memory). */
static bool growth_fails(pmf_budget_ledger *l)
{
    unsigned n = atomic_load(&l->failing_growths);
    while (n && !atomic_compare_exchange_weak(&l->failing_growths, &n, n - 1))
        ;
    return n != 0;
}

/* Adds key; false when the table could not grow (the block is then not recorded). */
static bool shard_add(pmf_budget_ledger *l, ledger_shard *s, uintptr_t key)
{
    if ((s->count + 1) * 2 > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        uintptr_t *slots = growth_fails(l) ? NULL : calloc(cap, sizeof *slots);
        if (!slots)
            return false;
        for (size_t i = 0; i < s->cap; i++)
            if (s->slots[i])
                shard_put(slots, cap, s->slots[i]);
        free(s->slots);
        s->slots = slots;
        s->cap = cap;
    }
    shard_put(s->slots, s->cap, key);
    s->count++;
    return true;
}

/* Removes key; false when it was not there. */
static bool shard_remove(ledger_shard *s, uintptr_t key)
{
    if (!s->cap)
        return false;
    size_t mask = s->cap - 1, i = slot_of(key, s->cap);
    while (s->slots[i] != key) {
        if (!s->slots[i])
            return false;
        i = (i + 1) & mask;
    }
    /* backward shift: move up every later entry of the run whose home lies at or before the hole */
    for (size_t hole = i, j = (i + 1) & mask;; j = (j + 1) & mask) {
        if (!s->slots[j]) {
            s->slots[hole] = 0;
            break;
        }
        size_t home = slot_of(s->slots[j], s->cap);
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            s->slots[hole] = s->slots[j];
            hole = j;
        }
    }
    s->count--;
    return true;
}

pmf_budget_ledger *pmf_budget_ledger_create(uint64_t limit)
{
    pmf_budget_ledger *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    atomic_init(&l->acc.limit, limit);
    for (int i = 0; i < LEDGER_SHARDS; i++)
        pthread_mutex_init(&l->shards[i].lock, NULL);
    return l;
}

void pmf_budget_use_ledger(pmf_budget_ledger *l) { thread_ledger = l; }
pmf_budget_ledger *pmf_budget_thread_ledger(void) { return thread_ledger; }

size_t pmf_budget_ledger_blocks(pmf_budget_ledger *l)
{
    size_t n = 0;
    for (int i = 0; i < LEDGER_SHARDS; i++) {
        pthread_mutex_lock(&l->shards[i].lock);
        n += l->shards[i].count;
        pthread_mutex_unlock(&l->shards[i].lock);
    }
    return n;
}

void pmf_budget_ledger_free_blocks(pmf_budget_ledger *l)
{
    for (int i = 0; i < LEDGER_SHARDS; i++) {
        ledger_shard *s = &l->shards[i];
        pthread_mutex_lock(&s->lock);
        for (size_t k = 0; k < s->cap; k++) {
            free((void *)s->slots[k]);
            s->slots[k] = 0;
        }
        s->count = 0;
        pthread_mutex_unlock(&s->lock);
    }
    atomic_store(&l->acc.used, 0);
}

void pmf_budget_ledger_destroy(pmf_budget_ledger *l)
{
    if (!l)
        return;
    for (int i = 0; i < LEDGER_SHARDS; i++) {
        free(l->shards[i].slots);
        pthread_mutex_destroy(&l->shards[i].lock);
    }
    free(l);
}

bool pmf_budget_ledger_hand_over(pmf_budget_ledger *dst, pmf_budget_ledger *src)
{
    if (pmf_budget_ledger_blocks(dst))
        return false;
    for (int i = 0; i < LEDGER_SHARDS; i++) {
        ledger_shard *a = &dst->shards[i], *b = &src->shards[i];
        pthread_mutex_lock(&a->lock);
        pthread_mutex_lock(&b->lock);
        uintptr_t *slots = a->slots;
        size_t cap = a->cap;
        a->slots = b->slots;
        a->cap = b->cap;
        a->count = b->count;
        b->slots = slots;
        b->cap = cap;
        b->count = 0;
        pthread_mutex_unlock(&b->lock);
        pthread_mutex_unlock(&a->lock);
    }
    atomic_fetch_add(&dst->acc.used, atomic_exchange(&src->acc.used, 0));
    return true;
}

void pmf_budget_ledger_fail_growths(pmf_budget_ledger *l, unsigned count) { atomic_store(&l->failing_growths, count); }

/* Records p in this thread's ledger; false when the record could not grow (out of memory). */
static bool record(void *p)
{
    pmf_budget_ledger *l = thread_ledger;
    if (!l || !p)
        return true;
    ledger_shard *s = shard_of(l, (uintptr_t)p);
    pthread_mutex_lock(&s->lock);
    bool added = shard_add(l, s, (uintptr_t)p);
    pthread_mutex_unlock(&s->lock);
    return added;
}

bool pmf_budget_track(void *p) { return record(p); }

/* Whether p was this thread's ledger's, which it no longer records. */
static bool untrack(void *p)
{
    pmf_budget_ledger *l = thread_ledger;
    if (!l || !p)
        return false;
    ledger_shard *s = shard_of(l, (uintptr_t)p);
    pthread_mutex_lock(&s->lock);
    bool was = shard_remove(s, (uintptr_t)p);
    pthread_mutex_unlock(&s->lock);
    return was;
}

void pmf_budget_untrack(void *p) { untrack(p); }

/* ---- the allocator ---- */

/* What a block takes from the budget: its usable size, or nothing for a small one. */
static size_t charge_of(void *p)
{
    size_t size = p ? pmf_os_allocation_size(p) : 0;
    return size >= PMF_BUDGET_MIN_BLOCK ? size : 0;
}

/* A block the ledger could not record fails as out of memory: freed, it would be given back to
 * the process's budget, which never held it. */
static void *taken(void *p)
{
    size_t charge = charge_of(p);
    if (charge && !pmf_budget_take(charge)) {
        free(p);
        return NULL;
    }
    if (!record(p)) {
        if (charge)
            pmf_budget_give(charge);
        free(p);
        return NULL;
    }
    return p;
}

/* Refuses before allocating what cannot fit (a hostile count asks for more than the machine has). */
static bool may_fit(size_t size)
{
    account *a = here();
    uint64_t limit = atomic_load(&a->limit);
    if (size < PMF_BUDGET_MIN_BLOCK || !limit || atomic_load(&a->used) + (uint64_t)size <= limit)
        return true;
    refuse(a);
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
        bool tracked = untrack(p);
        void *q = realloc(p, size); /* an uncounted block; one that grew past the line is counted */
        /* by the account pmf_budget_free will give it back to: the process's unless recorded */
        bool recorded = tracked && record(q ? q : p);
        size_t charge = charge_of(q);
        if (charge)
            atomic_fetch_add(recorded ? &thread_ledger->acc.used : &process_account.used, charge);
        return q;
    }
    void *q = pmf_budget_malloc(size);
    if (!q)
        return NULL;
    memcpy(q, p, old < size ? old : size);
    pmf_budget_free(p);
    return q;
}

bool pmf_budget_ledger_move(pmf_budget_ledger *dst, pmf_budget_ledger *src, void *block)
{
    ledger_shard *from = shard_of(src, (uintptr_t)block), *to = shard_of(dst, (uintptr_t)block);
    pthread_mutex_lock(&to->lock);
    bool added = shard_add(dst, to, (uintptr_t)block);
    pthread_mutex_unlock(&to->lock);
    pthread_mutex_lock(&from->lock);
    bool was = added && shard_remove(from, (uintptr_t)block);
    pthread_mutex_unlock(&from->lock);
    if (added && !was) {
        pthread_mutex_lock(&to->lock);
        shard_remove(to, (uintptr_t)block);
        pthread_mutex_unlock(&to->lock);
    }
    if (!was)
        return false;
    size_t charge = charge_of(block);
    atomic_fetch_sub(&src->acc.used, charge);
    atomic_fetch_add(&dst->acc.used, charge);
    return true;
}

void pmf_budget_free(void *p)
{
    size_t charge = charge_of(p);
    /* a block the ledger does not know was taken from the process's budget */
    account *a = untrack(p) ? &thread_ledger->acc : &process_account;
    if (charge)
        atomic_fetch_sub(&a->used, charge);
    free(p);
}
