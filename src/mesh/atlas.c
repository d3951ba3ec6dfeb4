/* atlas.c - the lightmap atlas: square pages split into shelves, one block size per shelf.
 *
 * Lightmaps are 2^n squares, padded by a 1-luxel border to 2^n + 2. A shelf is a full-width
 * strip of the page as high as one block and holds page_size / block blocks side by side; a
 * bitmap tells which slots are live. A shelf whose last block is freed gives its rows back to
 * the page's free row spans, which merge, so any block size can reuse them.
 */
#include "atlas.h"
#include "pmf.h"
#include "base/grow.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct atlas_shelf {
    uint32_t y, block;           /* first row, block side = shelf height = slot width */
    uint32_t slots, used;
    uint64_t *live;              /* slots bits */
} atlas_shelf;

typedef struct atlas_span { uint32_t y0, y1; } atlas_span;   /* free rows [y0, y1) */

typedef struct atlas_page {
    bool whole;                  /* one lightmap as large as the page */
    atlas_shelf *shelves;
    uint32_t shelf_count;
    size_t shelf_cap;
    atlas_span *spans;           /* sorted, disjoint, never adjacent */
    uint32_t span_count, span_cap;
} atlas_page;

struct mesh_atlas {
    pthread_mutex_t lock;
    uint32_t page_size, max_pages;
    atlas_page *pages;
    uint32_t page_count;
    uint64_t used_texels;
    uint8_t lightmap_cap;        /* under lock */
};

mesh_atlas *mesh_atlas_create(const mesh_atlas_desc *desc)
{
    uint32_t size = desc && desc->page_size ? desc->page_size : 2048;
    uint32_t max_pages = desc && desc->max_pages ? desc->max_pages : 64;
    if (size < 4 || size > 32768 || (size & (size - 1)) || max_pages > 65536)
        return NULL;
    mesh_atlas *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->pages = calloc(max_pages, sizeof *a->pages);
    if (!a->pages || pthread_mutex_init(&a->lock, NULL) != 0) {
        free(a->pages);
        free(a);
        return NULL;
    }
    a->page_size = size;
    a->max_pages = max_pages;
    a->lightmap_cap = PMF_MAX_LIGHTMAP_EXP;
    return a;
}

void mesh_atlas_destroy(mesh_atlas *a)
{
    if (!a)
        return;
    for (uint32_t p = 0; p < a->page_count; p++) {
        for (uint32_t s = 0; s < a->pages[p].shelf_count; s++)
            free(a->pages[p].shelves[s].live);
        free(a->pages[p].shelves);
        free(a->pages[p].spans);
    }
    free(a->pages);
    pthread_mutex_destroy(&a->lock);
    free(a);
}

uint32_t mesh_atlas_page_size(const mesh_atlas *a) { return a->page_size; }
uint32_t mesh_atlas_max_pages(const mesh_atlas *a) { return a->max_pages; }

uint8_t mesh_atlas_lightmap_cap(mesh_atlas *a)
{
    pthread_mutex_lock(&a->lock);
    uint8_t cap = a->lightmap_cap;
    pthread_mutex_unlock(&a->lock);
    return cap;
}

uint8_t mesh_atlas_lower_lightmap_cap(mesh_atlas *a, uint8_t from)
{
    pthread_mutex_lock(&a->lock);
    if (a->lightmap_cap >= from && from > 0)
        a->lightmap_cap = (uint8_t)(from - 1);
    uint8_t cap = a->lightmap_cap;
    pthread_mutex_unlock(&a->lock);
    return cap;
}

uint32_t mesh_atlas_page_count(mesh_atlas *a)
{
    pthread_mutex_lock(&a->lock);
    uint32_t n = a->page_count;
    pthread_mutex_unlock(&a->lock);
    return n;
}

uint64_t mesh_atlas_used_texels(mesh_atlas *a)
{
    pthread_mutex_lock(&a->lock);
    uint64_t n = a->used_texels;
    pthread_mutex_unlock(&a->lock);
    return n;
}

static bool new_page(mesh_atlas *a)
{
    if (a->page_count == a->max_pages)
        return false;
    atlas_page *pg = &a->pages[a->page_count];
    memset(pg, 0, sizeof *pg);
    pg->spans = malloc(sizeof *pg->spans);
    if (!pg->spans)
        return false;
    pg->spans[0] = (atlas_span){ 0, a->page_size };
    pg->span_count = pg->span_cap = 1;
    a->page_count++;
    return true;
}

static bool page_empty(const mesh_atlas *a, const atlas_page *pg)
{
    return !pg->whole && pg->span_count == 1 && pg->spans[0].y0 == 0 && pg->spans[0].y1 == a->page_size;
}

/* Takes a free slot of shelf s: returns its column. */
static uint32_t shelf_take(atlas_shelf *s)
{
    for (uint32_t w = 0;; w++) {
        uint64_t freebits = ~s->live[w];
        if (!freebits)
            continue;
        uint32_t slot = w * 64 + (uint32_t)__builtin_ctzll(freebits);
        s->live[w] |= 1ull << (slot & 63);
        s->used++;
        return slot * s->block;
    }
}

/* Carves a new shelf of height block from the first free span that fits. */
static atlas_shelf *shelf_open(mesh_atlas *a, atlas_page *pg, uint32_t block)
{
    uint32_t i = 0;
    while (i < pg->span_count && pg->spans[i].y1 - pg->spans[i].y0 < block)
        i++;
    if (i == pg->span_count)
        return NULL;
    if (!grow_array((void **)&pg->shelves, &pg->shelf_cap, (size_t)pg->shelf_count + 1, sizeof *pg->shelves))
        return NULL;
    uint32_t slots = a->page_size / block;
    uint64_t *live = calloc((slots + 63) / 64, sizeof *live);
    if (!live)
        return NULL;
    if (slots % 64)   /* bits past the last slot stay "live" so shelf_take never returns them */
        live[slots / 64] = ~0ull << (slots % 64);
    atlas_shelf *s = &pg->shelves[pg->shelf_count++];
    *s = (atlas_shelf){ pg->spans[i].y0, block, slots, 0, live };
    pg->spans[i].y0 += block;
    if (pg->spans[i].y0 == pg->spans[i].y1) {
        memmove(&pg->spans[i], &pg->spans[i + 1], (pg->span_count - i - 1) * sizeof *pg->spans);
        pg->span_count--;
    }
    return s;
}

static bool alloc_locked(mesh_atlas *a, uint32_t side, mesh_atlas_rect *out)
{
    if (side == a->page_size) {
        uint32_t p = 0;
        while (p < a->page_count && !page_empty(a, &a->pages[p]))
            p++;
        if (p == a->page_count && !new_page(a))
            return false;
        a->pages[p].whole = true;
        *out = (mesh_atlas_rect){ (uint16_t)p, 0, 0, (uint16_t)side, 0 };
        return true;
    }
    uint32_t block = side + 2;
    for (uint32_t p = 0; p < a->page_count; p++) {
        atlas_page *pg = &a->pages[p];
        for (uint32_t s = 0; s < pg->shelf_count; s++) {
            atlas_shelf *sh = &pg->shelves[s];
            if (sh->block == block && sh->used < sh->slots) {
                uint32_t x = shelf_take(sh);
                *out = (mesh_atlas_rect){ (uint16_t)p, (uint16_t)x, (uint16_t)sh->y, (uint16_t)side, 1 };
                return true;
            }
        }
    }
    atlas_shelf *sh = NULL;
    uint32_t p = 0;
    for (; p < a->page_count && !sh; p++)
        if (!a->pages[p].whole)
            sh = shelf_open(a, &a->pages[p], block);
    if (!sh) {
        if (!new_page(a))
            return false;
        p = a->page_count;
        sh = shelf_open(a, &a->pages[p - 1], block);
        if (!sh)
            return false;
    }
    uint32_t x = shelf_take(sh);
    *out = (mesh_atlas_rect){ (uint16_t)(p - 1), (uint16_t)x, (uint16_t)sh->y, (uint16_t)side, 1 };
    return true;
}

bool mesh_atlas_alloc(mesh_atlas *a, uint32_t side, mesh_atlas_rect *out)
{
    if (side == 0 || (side & (side - 1)) || side > a->page_size)
        return false;
    pthread_mutex_lock(&a->lock);
    bool ok = alloc_locked(a, side, out);
    if (ok) {
        uint64_t b = mesh_atlas_block_side(out);
        a->used_texels += b * b;
    }
    pthread_mutex_unlock(&a->lock);
    return ok;
}

/* Returns rows [y0, y1) to the page's sorted span list, merging with neighbours. */
static void span_release(atlas_page *pg, uint32_t y0, uint32_t y1)
{
    uint32_t i = 0;
    while (i < pg->span_count && pg->spans[i].y0 < y0)
        i++;
    bool join_prev = i > 0 && pg->spans[i - 1].y1 == y0;
    bool join_next = i < pg->span_count && pg->spans[i].y0 == y1;
    if (join_prev && join_next) {
        pg->spans[i - 1].y1 = pg->spans[i].y1;
        memmove(&pg->spans[i], &pg->spans[i + 1], (pg->span_count - i - 1) * sizeof *pg->spans);
        pg->span_count--;
    } else if (join_prev) {
        pg->spans[i - 1].y1 = y1;
    } else if (join_next) {
        pg->spans[i].y0 = y0;
    } else {
        /* out of memory: the rows stay unusable, nothing else breaks */
        if (pg->span_count == pg->span_cap) {
            uint32_t cap = pg->span_cap * 2;
            atlas_span *grown = realloc(pg->spans, cap * sizeof *grown);
            if (!grown)
                return;
            pg->spans = grown;
            pg->span_cap = cap;
        }
        memmove(&pg->spans[i + 1], &pg->spans[i], (pg->span_count - i) * sizeof *pg->spans);
        pg->spans[i] = (atlas_span){ y0, y1 };
        pg->span_count++;
    }
}

void mesh_atlas_free(mesh_atlas *a, const mesh_atlas_rect *r)
{
    pthread_mutex_lock(&a->lock);
    if (r->page >= a->page_count)
        goto done;
    atlas_page *pg = &a->pages[r->page];
    uint64_t b = mesh_atlas_block_side(r);
    if (r->border == 0) {
        if (pg->whole) {
            pg->whole = false;
            a->used_texels -= b * b;
        }
        goto done;
    }
    for (uint32_t s = 0; s < pg->shelf_count; s++) {
        atlas_shelf *sh = &pg->shelves[s];
        if (sh->y != r->y || sh->block != b)
            continue;
        uint32_t slot = r->x / sh->block;
        uint64_t bit = 1ull << (slot & 63);
        if (slot >= sh->slots || !(sh->live[slot / 64] & bit))
            break;
        sh->live[slot / 64] &= ~bit;
        sh->used--;
        a->used_texels -= b * b;
        if (sh->used == 0) {
            span_release(pg, sh->y, sh->y + sh->block);
            free(sh->live);
            *sh = pg->shelves[--pg->shelf_count];
        }
        break;
    }
done:
    pthread_mutex_unlock(&a->lock);
}
