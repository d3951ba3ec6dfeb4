/* pmf_arena.c - bump allocator for decoded structs: one free releases a whole level or chunk. */
#include <stdlib.h>
#include <string.h>

#include "pmf_budget.h"
#include "pmf_internal.h"

#define ARENA_BLOCK_SIZE (64u * 1024u)
#define ARENA_ALIGN 16u

typedef struct arena_block {
    struct arena_block *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
} arena_block;

struct pmf_arena {
    arena_block *head;   /* current block for small allocations */
    arena_block *large;  /* blocks holding one big allocation each */
    void *user;          /* what the arena's owner keeps with it (a level's name index) */
    uint64_t charged;    /* bytes taken from the memory budget, given back at destroy */
    bool over_budget;    /* the last failed allocation was refused by the budget */
};

bool pmf_arena_over_budget(const pmf_arena *a) { return a->over_budget; }

void pmf_arena_set_user(pmf_arena *a, void *user) { a->user = user; }
void *pmf_arena_user(const pmf_arena *a) { return a->user; }

pmf_arena *pmf_arena_create(void)
{
    return calloc(1, sizeof(pmf_arena));
}

/* Blocks are rounded up to a step of an eighth of their power of two, so that a block freed by
 * one chunk fits a similar request of the next (pmf_thread_block_take). */
static size_t block_capacity(size_t size)
{
    if (size < 64)
        return size;
    size_t step = (size_t)1 << (63 - __builtin_clzll((unsigned long long)size) - 3);
    return size > SIZE_MAX - step ? size : (size + step - 1) & ~(step - 1);
}

static arena_block *block_new(pmf_arena *a, size_t size)
{
    size_t capacity;
    arena_block *b = pmf_thread_block_take(sizeof *b + size, &capacity);
    if (!b)
        capacity = sizeof *b + block_capacity(size);
    a->over_budget = !pmf_budget_take(capacity);
    if (a->over_budget) {
        if (b && !pmf_thread_block_keep(b, capacity))
            free(b);
        return NULL;
    }
    if (!b && !(b = malloc(capacity))) {
        pmf_budget_give(capacity);
        return NULL;
    }
    a->charged += capacity;
    b->next = NULL;
    b->size = capacity - sizeof *b;
    b->used = 0;
    return b;
}

void *pmf_arena_alloc_uninit(pmf_arena *a, size_t size)
{
    if (size > SIZE_MAX - ARENA_ALIGN - sizeof(arena_block))
        return NULL;
    size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (size == 0)
        size = ARENA_ALIGN;
    if (size > ARENA_BLOCK_SIZE / 4) {
        arena_block *b = block_new(a, size);
        if (!b)
            return NULL;
        b->next = a->large;
        a->large = b;
        return b->data;
    }
    if (!a->head || a->head->size - a->head->used < size) {
        arena_block *b = block_new(a, ARENA_BLOCK_SIZE);
        if (!b)
            return NULL;
        b->next = a->head;
        a->head = b;
    }
    void *p = a->head->data + a->head->used;
    a->head->used += size;
    return p;
}

void *pmf_arena_alloc(pmf_arena *a, size_t size)
{
    void *p = pmf_arena_alloc_uninit(a, size);
    if (p)
        memset(p, 0, size);
    return p;
}

static void free_chain(arena_block *b)
{
    while (b) {
        arena_block *next = b->next;
        if (!pmf_thread_block_keep(b, sizeof *b + b->size))
            free(b);
        b = next;
    }
}

void pmf_arena_destroy(pmf_arena *a)
{
    if (!a)
        return;
    free_chain(a->head);
    free_chain(a->large);
    pmf_budget_give(a->charged);
    free(a);
}
