/* test_render_arena.c - render_arena growth while it holds data (issue 21): the growth copies the
 * live spans only, so nothing it copies lies where the next uploads write; every span reads back
 * as written, through growth by allocation and by reservation. `test_render_arena` on a headless
 * context; exit 77 without one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "render_internal.h"

/* Writes count u32 values seed, seed+1, ... at element offset. */
static void write_span(const render_arena *a, uint32_t offset, uint32_t count, uint32_t seed)
{
    uint32_t *v = malloc((size_t)count * 4);
    for (uint32_t i = 0; i < count; i++)
        v[i] = seed + i;
    glBindBuffer(GL_COPY_WRITE_BUFFER, a->buffer);
    glBufferSubData(GL_COPY_WRITE_BUFFER, (GLintptr)offset * 4, (GLsizeiptr)count * 4, v);
    free(v);
}

/* How many of the span's values read back wrong. */
static uint32_t wrong_in_span(const render_arena *a, uint32_t offset, uint32_t count, uint32_t seed)
{
    uint32_t *v = malloc((size_t)count * 4);
    glBindBuffer(GL_COPY_READ_BUFFER, a->buffer);
    glGetBufferSubData(GL_COPY_READ_BUFFER, (GLintptr)offset * 4, (GLsizeiptr)count * 4, v);
    uint32_t wrong = 0;
    for (uint32_t i = 0; i < count; i++)
        wrong += v[i] != seed + i;
    free(v);
    return wrong;
}

int main(void)
{
    char err[600];
    render_headless *ctx = render_headless_create(err, sizeof err);
    if (!ctx) {
        fprintf(stderr, "no headless GL: %s: skipped\n", err);
        return 77;
    }
    render_arena a;
    render_arena_init(&a, GL_ARRAY_BUFFER, 4);
    bool moved = false;
    uint32_t first, second, big, reuse;

    /* two spans, the first freed: live [1000, 2000) of a 4096-element buffer */
    CHECK(render_arena_alloc(&a, 1000, &first, &moved));
    write_span(&a, first, 1000, 100000);
    CHECK(render_arena_alloc(&a, 1000, &second, &moved));
    write_span(&a, second, 1000, 200000);
    CHECK_EQ(first, 0);
    CHECK_EQ(second, 1000);
    CHECK_EQ(a.capacity, 4096);
    render_arena_free(&a, first, 1000);

    /* growth while holding data: only the live span is copied */
    moved = false;
    CHECK(render_arena_alloc(&a, 5000, &big, &moved));
    CHECK(moved);
    CHECK_EQ(a.capacity, 16384); /* doubled until capacity + need fit */
    CHECK_EQ(a.copies, 1);
    CHECK_EQ(a.copied_elements, 1000);
    write_span(&a, big, 5000, 300000);
    /* the next allocation falls inside the old capacity, where a whole-buffer copy would have
     * landed: first fit gives the freed span at 0 */
    CHECK(render_arena_alloc(&a, 600, &reuse, &moved));
    CHECK_EQ(reuse, 0);
    write_span(&a, reuse, 600, 400000);
    CHECK_EQ(wrong_in_span(&a, second, 1000, 200000), 0);
    CHECK_EQ(wrong_in_span(&a, big, 5000, 300000), 0);
    CHECK_EQ(wrong_in_span(&a, reuse, 600, 400000), 0);

    /* growth by reservation: the three live spans, nothing else */
    uint64_t before = a.copied_elements;
    moved = false;
    CHECK(render_arena_reserve(&a, 40000, &moved));
    CHECK(moved);
    CHECK_EQ(a.capacity, 40960);
    CHECK_EQ(a.copied_elements - before, 1000 + 5000 + 600);
    CHECK_EQ(render_arena_used(&a), 6600);
    uint32_t gap;
    CHECK(render_arena_alloc(&a, 400, &gap, &moved));
    CHECK_EQ(gap, 600); /* between the reused span and the second */
    write_span(&a, gap, 400, 500000);
    CHECK_EQ(wrong_in_span(&a, reuse, 600, 400000), 0);
    CHECK_EQ(wrong_in_span(&a, gap, 400, 500000), 0);
    CHECK_EQ(wrong_in_span(&a, second, 1000, 200000), 0);
    CHECK_EQ(wrong_in_span(&a, big, 5000, 300000), 0);
    CHECK_EQ(glGetError(), GL_NO_ERROR);

    render_arena_release(&a);
    render_headless_destroy(ctx);
    return check_report("render_arena");
}
