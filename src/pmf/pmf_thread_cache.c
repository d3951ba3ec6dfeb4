/* pmf_thread_cache.c - what a decoding thread keeps from one chunk to the next: its LZ4F
 * context, the buffer stored bytes are read into, and the memory blocks of freed arenas.
 *
 * Why: a new LZ4F context allocates its own window buffers on its first frame, and blocks the
 * size of a chunk go back to the kernel on free and come back page by page on the next malloc.
 * Per chunk that was more CPU than the decoding itself (page faults, munmap). What is kept is
 * bounded per thread (THREAD_KEEP_BYTES), is not charged to the memory budget (it is not in use),
 * and is freed when the thread ends. */
#include <lz4frame.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pmf_internal.h"

#define THREAD_KEEP_BYTES (8u << 20)    /* blocks kept per thread, in all */
#define THREAD_KEEP_BLOCKS 32
#define THREAD_SCRATCH_MAX (4u << 20)   /* larger reads get a buffer of their own */

typedef struct kept_block {
    void *block;
    size_t capacity;
} kept_block;

typedef struct thread_cache {
    LZ4F_dctx *dctx;
    void *scratch;               /* NULL while lent */
    void *lent;
    size_t scratch_size;
    kept_block kept[THREAD_KEEP_BLOCKS];
    int kept_count;
    size_t kept_bytes;
} thread_cache;

static pthread_key_t cache_key;
static pthread_once_t cache_key_once = PTHREAD_ONCE_INIT;
static _Thread_local thread_cache *this_thread;

static void cache_destroy(void *p)
{
    thread_cache *tc = p;
    if (tc->dctx)
        LZ4F_freeDecompressionContext(tc->dctx);
    free(tc->scratch);
    for (int i = 0; i < tc->kept_count; i++)
        free(tc->kept[i].block);
    free(tc);
    if (this_thread == tc)
        this_thread = NULL;
}

static void cache_key_create(void)
{
    pthread_key_create(&cache_key, cache_destroy);
}

/* This thread's cache, made on first use; NULL out of memory (callers then allocate as usual). */
static thread_cache *cache(void)
{
    if (this_thread)
        return this_thread;
    pthread_once(&cache_key_once, cache_key_create);
    thread_cache *tc = calloc(1, sizeof *tc);
    if (!tc)
        return NULL;
    if (pthread_setspecific(cache_key, tc) != 0) {
        free(tc);
        return NULL;
    }
    this_thread = tc;
    return tc;
}

LZ4F_dctx *pmf_thread_dctx(void)
{
    thread_cache *tc = cache();
    if (!tc)
        return NULL;
    if (!tc->dctx && LZ4F_isError(LZ4F_createDecompressionContext(&tc->dctx, LZ4F_VERSION))) {
        tc->dctx = NULL;
        return NULL;
    }
    LZ4F_resetDecompressionContext(tc->dctx);
    return tc->dctx;
}

void *pmf_thread_scratch(size_t size)
{
    thread_cache *tc = cache();
    /* large or nested reads get a buffer of their own */
    if (!tc || tc->lent || size > THREAD_SCRATCH_MAX)
        return malloc(size ? size : 1);
    if (tc->scratch_size < size) {
        size_t grown = tc->scratch_size ? tc->scratch_size : 64u << 10;
        while (grown < size)
            grown *= 2;
        void *p = realloc(tc->scratch, grown);
        if (!p)
            return NULL;
        tc->scratch = p;
        tc->scratch_size = grown;
    }
    tc->lent = tc->scratch;
    tc->scratch = NULL;
    return tc->lent;
}

void pmf_thread_scratch_return(void *p)
{
    thread_cache *tc = this_thread;
    if (tc && p && p == tc->lent) {
        tc->scratch = p;
        tc->lent = NULL;
    } else {
        free(p);
    }
}

void *pmf_thread_block_take(size_t min, size_t *capacity)
{
    thread_cache *tc = this_thread;
    if (!tc)
        return NULL;
    /* the most recently kept block that fits: it is the likeliest still in the cache. One much
     * larger than asked for would hold the budget's bytes for nothing. */
    for (int i = tc->kept_count - 1; i >= 0; i--) {
        if (tc->kept[i].capacity < min || tc->kept[i].capacity / 2 > min)
            continue;
        void *block = tc->kept[i].block;
        *capacity = tc->kept[i].capacity;
        tc->kept_bytes -= *capacity;
        memmove(&tc->kept[i], &tc->kept[i + 1], (size_t)(tc->kept_count - i - 1) * sizeof *tc->kept);
        tc->kept_count--;
        return block;
    }
    return NULL;
}

bool pmf_thread_block_keep(void *block, size_t capacity)
{
    thread_cache *tc = cache();
    if (!tc || capacity > THREAD_KEEP_BYTES - tc->kept_bytes)
        return false;
    if (tc->kept_count == THREAD_KEEP_BLOCKS) {
        /* the smallest kept block makes room: it saves the least */
        int smallest = 0;
        for (int i = 1; i < tc->kept_count; i++)
            if (tc->kept[i].capacity < tc->kept[smallest].capacity)
                smallest = i;
        if (tc->kept[smallest].capacity >= capacity)
            return false;
        free(tc->kept[smallest].block);
        tc->kept_bytes -= tc->kept[smallest].capacity;
        memmove(&tc->kept[smallest], &tc->kept[smallest + 1],
                (size_t)(tc->kept_count - smallest - 1) * sizeof *tc->kept);
        tc->kept_count--;
    }
    tc->kept[tc->kept_count++] = (kept_block){ block, capacity };
    tc->kept_bytes += capacity;
    return true;
}
