/* pmf_arena.c - bump allocator for decoded structs: one free releases a whole level or chunk. */
#include <stdlib.h>
#include <string.h>

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
};

void pmf_arena_set_user(pmf_arena *a, void *user) { a->user = user; }
void *pmf_arena_user(const pmf_arena *a) { return a->user; }

pmf_arena *pmf_arena_create(void)
{
    return calloc(1, sizeof(pmf_arena));
}

static arena_block *block_new(size_t size)
{
    arena_block *b = malloc(sizeof *b + size);
    if (b) {
        b->next = NULL;
        b->size = size;
        b->used = 0;
    }
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
        arena_block *b = block_new(size);
        if (!b)
            return NULL;
        b->next = a->large;
        a->large = b;
        return b->data;
    }
    if (!a->head || a->head->size - a->head->used < size) {
        arena_block *b = block_new(ARENA_BLOCK_SIZE);
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
    free(a);
}
