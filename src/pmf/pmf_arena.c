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

static arena_block *block_new(pmf_arena *a, size_t size)
{
    uint64_t bytes = sizeof(arena_block) + size;
    a->over_budget = !pmf_budget_take(bytes);
    if (a->over_budget)
        return NULL;
    arena_block *b = malloc(sizeof *b + size);
    if (!b) {
        pmf_budget_give(bytes);
        return NULL;
    }
    a->charged += bytes;
    b->next = NULL;
    b->size = size;
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
