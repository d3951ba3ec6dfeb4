/* pmf_budget.h - one memory budget for everything a map makes us allocate (docs/memory.md).
 *
 * Decoded levels and chunks (their arenas, decompressed blocks included), meshes, lightmap
 * layers, textures and GPU buffers take bytes from it as they are allocated and give them back
 * when freed. A taking that would pass the limit fails; the caller then degrades (drops a far
 * chunk, lowers a texture) or refuses the map naming the limit. Process-wide and thread-safe.
 * The library starts unlimited; each program sets the limit (--memory, else pmf_budget_default()). */
#ifndef PMF_BUDGET_H
#define PMF_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Who the budget is for: a viewer streams a window of the map, a compiler holds a level whole. */
typedef enum pmf_budget_use {
    PMF_BUDGET_VIEWER,               /* an eighth of physical memory, at least 128 MiB, at most 512 MiB */
    PMF_BUDGET_COMPILER,             /* half of physical memory, at least 1 GiB */
} pmf_budget_use;
/* The default from the machine, the one place it is decided (--memory overrides it). */
uint64_t pmf_budget_default(pmf_budget_use use);
/* 0 = unlimited. */
void pmf_budget_set_limit(uint64_t bytes);
uint64_t pmf_budget_limit(void);

/* Takes bytes; false (nothing taken) when used + bytes would pass the limit. */
bool pmf_budget_take(uint64_t bytes);
void pmf_budget_give(uint64_t bytes);
uint64_t pmf_budget_used(void);
uint64_t pmf_budget_peak(void);   /* the most ever taken at once */
void pmf_budget_reset_peak(void); /* the peak from now on: what is taken now */

/* Whether a taking on this thread was refused since the last clear: lets a caller that sees
 * a failure deep in a decoder or mesher tell "over budget" from "broken". */
void pmf_budget_clear_refused(void);
bool pmf_budget_refused(void);
/* Records a refusal on this thread by a limit derived from the budget (the lightmap atlas). */
void pmf_budget_note_refusal(void);

/* How many takings were refused so far, on any thread (of the ledger): a caller that saw a worker pool fail can
 * tell "over budget" from "out of memory" by comparing counts. */
uint64_t pmf_budget_refusals(void);

/* A ledger with its own limit (0 = unlimited); NULL when out of memory. */
typedef struct pmf_budget_ledger pmf_budget_ledger;
pmf_budget_ledger *pmf_budget_ledger_create(uint64_t limit);
/* This thread's takings and blocks go to l from now on (NULL: the process's budget again). The
 * worker pool (jobs.h) hands its caller's ledger to its workers. */
void pmf_budget_use_ledger(pmf_budget_ledger *l);
pmf_budget_ledger *pmf_budget_thread_ledger(void);
/* The blocks l records: allocated on its threads and not freed yet. */
size_t pmf_budget_ledger_blocks(pmf_budget_ledger *l);
/* Frees every block l records, and forgets what was taken: for work abandoned half way, once
 * none of its threads runs. */
void pmf_budget_ledger_free_blocks(pmf_budget_ledger *l);
void pmf_budget_ledger_destroy(pmf_budget_ledger *l);
/* Hands every block src records, and what they took, to dst, which records none (false, nothing
 * moved, when it does): work kept past its ledger (the viewer's relight state, pmfc.h). */
bool pmf_budget_ledger_hand_over(pmf_budget_ledger *dst, pmf_budget_ledger *src);
/* Moves one block src records, and what it took, to dst: false when src does not record it or
 * dst's record cannot grow (it stays src's). */
bool pmf_budget_ledger_move(pmf_budget_ledger *dst, pmf_budget_ledger *src, void *block);
/* Records a block another allocator made (malloc) in the thread's ledger, to be freed with the
 * rest if the work is abandoned; untrack before freeing it. Nothing without a ledger; false when
 * the record could not grow (out of memory: the block is then not freed with the rest). */
bool pmf_budget_track(void *p);
void pmf_budget_untrack(void *p);
/* For tests: the next count growths of l's record fail as out of memory would. */
void pmf_budget_ledger_fail_growths(pmf_budget_ledger *l, unsigned count);

/* malloc / calloc / realloc / free whose blocks of PMF_BUDGET_MIN_BLOCK bytes or more are taken
 * from the budget by their usable size (and given back when freed): for code that allocates as
 * it goes (pmfc's baker and visibility, the BVH). NULL when the budget or memory runs out (the
 * thread's ledger unable to record the block counts as out of memory); a
 * failed realloc leaves the block as it was. Smaller blocks are many and short-lived and their sum
 * stays small next to the arrays, so they are not counted. */
#define PMF_BUDGET_MIN_BLOCK 4096u
void *pmf_budget_malloc(size_t size);
void *pmf_budget_calloc(size_t count, size_t size);
void *pmf_budget_realloc(void *p, size_t size);
void pmf_budget_free(void *p);

#endif
