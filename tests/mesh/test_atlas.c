/* test_atlas.c - the lightmap atlas: blocks never overlap, stay inside their page with their
 * border, freed space is reused, and concurrent workers are safe. */
#include <pthread.h>
#include <stdlib.h>

#include "common/check.h"
#include "mesh.h"

#define MAX_LIVE 4096

typedef struct live_set { mesh_atlas_rect r[MAX_LIVE]; uint32_t n; } live_set;

static bool overlap(const mesh_atlas_rect *a, const mesh_atlas_rect *b)
{
    uint32_t sa = mesh_atlas_block_side(a), sb = mesh_atlas_block_side(b);
    return a->page == b->page && a->x < b->x + sb && b->x < a->x + sa && a->y < b->y + sb && b->y < a->y + sa;
}

/* Checks the new block r against the page bounds and every live block, then adds it. */
static void add_checked(live_set *s, const mesh_atlas_rect *r, uint32_t page_size, uint32_t side)
{
    CHECK_EQ(r->side, side);
    CHECK_EQ(r->border, side == page_size ? 0 : 1);
    CHECK(r->x + mesh_atlas_block_side(r) <= page_size);
    CHECK(r->y + mesh_atlas_block_side(r) <= page_size);
    for (uint32_t i = 0; i < s->n; i++)
        if (overlap(r, &s->r[i])) {
            CHECK(!"blocks overlap");
            fprintf(stderr, "  page %u (%u,%u)+%u vs (%u,%u)+%u\n", r->page, r->x, r->y, mesh_atlas_block_side(r),
                    s->r[i].x, s->r[i].y, mesh_atlas_block_side(&s->r[i]));
            return;
        }
    s->r[s->n++] = *r;
}

static uint64_t live_texels(const live_set *s)
{
    uint64_t t = 0;
    for (uint32_t i = 0; i < s->n; i++)
        t += (uint64_t)mesh_atlas_block_side(&s->r[i]) * mesh_atlas_block_side(&s->r[i]);
    return t;
}

static void test_random_sequences(void)
{
    static live_set s;
    for (uint32_t seed = 1; seed <= 4; seed++) {
        mesh_atlas *a = mesh_atlas_create(&(mesh_atlas_desc){ .page_size = 128, .max_pages = 16 });
        CHECK(a != NULL);
        srand(seed);
        s.n = 0;
        for (int op = 0; op < 3000; op++) {
            if (s.n && (rand() % 100 < 45 || s.n == MAX_LIVE)) {
                uint32_t i = (uint32_t)rand() % s.n;
                mesh_atlas_free(a, &s.r[i]);
                s.r[i] = s.r[--s.n];
            } else {
                uint32_t exp = (uint32_t)(rand() % 100 < 2 ? 7 : rand() % 6);   /* 1..32 luxels, rarely a whole page */
                mesh_atlas_rect r;
                if (mesh_atlas_alloc(a, 1u << exp, &r))
                    add_checked(&s, &r, 128, 1u << exp);
                else
                    CHECK_EQ(mesh_atlas_page_count(a), 16);   /* only a full atlas refuses */
            }
            CHECK_EQ(mesh_atlas_used_texels(a), live_texels(&s));
        }
        /* everything freed: the rows merge back, so a whole page fits on page 0 again */
        for (uint32_t i = 0; i < s.n; i++)
            mesh_atlas_free(a, &s.r[i]);
        CHECK_EQ(mesh_atlas_used_texels(a), 0);
        mesh_atlas_rect whole;
        CHECK(mesh_atlas_alloc(a, 128, &whole));
        CHECK_EQ(whole.page, 0);
        CHECK_EQ(whole.x, 0);
        CHECK_EQ(whole.border, 0);
        mesh_atlas_destroy(a);
    }
}

static void test_exact_layout(void)
{
    mesh_atlas *a = mesh_atlas_create(&(mesh_atlas_desc){ .page_size = 64, .max_pages = 2 });
    mesh_atlas_rect r[8];
    /* 8-luxel lightmaps are 10-texel blocks: 6 per 64-texel shelf */
    for (int i = 0; i < 7; i++)
        CHECK(mesh_atlas_alloc(a, 8, &r[i]));
    for (int i = 0; i < 6; i++) {
        CHECK_EQ(r[i].x, 10 * i);
        CHECK_EQ(r[i].y, 0);
    }
    CHECK_EQ(r[6].x, 0);
    CHECK_EQ(r[6].y, 10);
    /* a freed slot is the next one handed out */
    mesh_atlas_free(a, &r[2]);
    CHECK(mesh_atlas_alloc(a, 8, &r[7]));
    CHECK_EQ(r[7].x, 20);
    CHECK_EQ(r[7].y, 0);
    CHECK_EQ(r[7].page, 0);
    /* whole page: page 0 is in use, so page 1; then the atlas is full */
    mesh_atlas_rect w;
    CHECK(mesh_atlas_alloc(a, 64, &w));
    CHECK_EQ(w.page, 1);
    CHECK(!mesh_atlas_alloc(a, 64, &w));
    /* bad sides */
    CHECK(!mesh_atlas_alloc(a, 128, &w));
    CHECK(!mesh_atlas_alloc(a, 12, &w));
    CHECK(!mesh_atlas_alloc(a, 0, &w));
    CHECK_EQ(mesh_atlas_page_size(a), 64);
    mesh_atlas_destroy(a);

    CHECK(mesh_atlas_create(&(mesh_atlas_desc){ .page_size = 100 }) == NULL);
    mesh_atlas *d = mesh_atlas_create(NULL);
    CHECK_EQ(mesh_atlas_page_size(d), 2048);
    CHECK_EQ(mesh_atlas_page_count(d), 0);
    mesh_atlas_destroy(d);
}

typedef struct worker_arg { mesh_atlas *atlas; live_set *mine; unsigned seed; } worker_arg;

static void *worker(void *p)
{
    worker_arg *w = p;
    for (int op = 0; op < 2000; op++) {
        w->seed = w->seed * 1103515245u + 12345u;
        uint32_t rnd = w->seed >> 8;
        if (w->mine->n > 32 && rnd % 3 == 0) {
            uint32_t i = rnd % w->mine->n;
            mesh_atlas_free(w->atlas, &w->mine->r[i]);
            w->mine->r[i] = w->mine->r[--w->mine->n];
        } else if (w->mine->n < MAX_LIVE) {
            mesh_atlas_rect r;
            if (mesh_atlas_alloc(w->atlas, 1u << (rnd % 5), &r))
                w->mine->r[w->mine->n++] = r;
        }
    }
    return NULL;
}

static void test_threads(void)
{
    static live_set sets[2], all;
    mesh_atlas *a = mesh_atlas_create(&(mesh_atlas_desc){ .page_size = 256, .max_pages = 64 });
    pthread_t t[2];
    worker_arg args[2] = { { a, &sets[0], 7 }, { a, &sets[1], 99 } };
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, &args[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    all.n = 0;
    for (int i = 0; i < 2; i++)
        for (uint32_t k = 0; k < sets[i].n; k++)
            add_checked(&all, &sets[i].r[k], 256, sets[i].r[k].side);
    CHECK_EQ(mesh_atlas_used_texels(a), live_texels(&all));
    mesh_atlas_destroy(a);
}

int main(void)
{
    test_random_sequences();
    test_exact_layout();
    test_threads();
    return check_report("test_atlas");
}
