/* render_arena.c - sub-allocating ranges of one growable GL buffer (vertices, indices, fast
 * lights of every chunk share one buffer each, so one multi-draw can span chunks). */
#include <stdlib.h>
#include <string.h>

#include "pmf_budget.h"
#include "render_internal.h"
#include "base/grow.h"

void render_arena_init(render_arena *a, GLenum target, uint32_t elem_size)
{
    memset(a, 0, sizeof *a);
    a->target = target;
    a->elem_size = elem_size;
}

void render_arena_release(render_arena *a)
{
    if (a->buffer)
        glDeleteBuffers(1, &a->buffer);
    pmf_budget_give((uint64_t)a->capacity * a->elem_size);
    free(a->free);
    memset(a, 0, sizeof *a);
}

/* Inserts a free span, merging with its neighbours. */
static bool put_free(render_arena *a, uint32_t offset, uint32_t size)
{
    uint32_t i = 0;
    while (i < a->free_count && a->free[i].offset < offset)
        i++;
    bool join_prev = i > 0 && a->free[i - 1].offset + a->free[i - 1].size == offset;
    bool join_next = i < a->free_count && offset + size == a->free[i].offset;
    if (join_prev && join_next) {
        a->free[i - 1].size += size + a->free[i].size;
        memmove(&a->free[i], &a->free[i + 1], (a->free_count - i - 1) * sizeof *a->free);
        a->free_count--;
    } else if (join_prev) {
        a->free[i - 1].size += size;
    } else if (join_next) {
        a->free[i].offset = offset;
        a->free[i].size += size;
    } else {
        if (!grow_array((void **)&a->free, &a->free_cap, (size_t)a->free_count + 1, sizeof *a->free))
            return false;
        memmove(&a->free[i + 1], &a->free[i], (a->free_count - i) * sizeof *a->free);
        a->free[i] = (render_span){ offset, size };
        a->free_count++;
    }
    return true;
}

/* Copies the allocated spans of the buffer into `to`, and only those. The free spans were never
 * written, or hold what a freed chunk left: a copy of them would land where the next chunk's
 * glBufferSubData writes, and a driver that runs the copy after that write (an NVIDIA H200 did,
 * issue 21) loses the chunk. Nothing later writes into a span copied here while it stays live. */
static void copy_live_spans(render_arena *a, GLuint to)
{
    glBindBuffer(GL_COPY_READ_BUFFER, a->buffer);
    glBindBuffer(GL_COPY_WRITE_BUFFER, to);
    uint32_t start = 0;
    for (uint32_t i = 0; i <= a->free_count; i++) {
        uint32_t end = i < a->free_count ? a->free[i].offset : a->capacity;
        if (end > start) {
            GLintptr at = (GLintptr)start * a->elem_size;
            glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, at, at,
                                (GLsizeiptr)(end - start) * a->elem_size);
            a->copied_elements += end - start;
        }
        if (i < a->free_count)
            start = a->free[i].offset + a->free[i].size;
    }
}

/* Replaces the buffer by one of cap elements (more than it has), its contents copied. */
static bool grow_to(render_arena *a, uint64_t cap)
{
    if (cap * a->elem_size > (uint64_t)1 << 31)
        return false;
    /* the GL's copy is memory too (llvmpipe keeps it in RAM): the new buffer takes from the
     * budget before it exists, the old one gives back once deleted */
    if (!pmf_budget_take(cap * a->elem_size))
        return false;
    GLuint buffer;
    glGenBuffers(1, &buffer);
    /* first bound to what it is for: WebGL fixes a buffer's kind at its first binding, and one
     * first bound as a copy target can never hold indices */
    glBindBuffer(a->target, buffer);
    glBufferData(a->target, (GLsizeiptr)(cap * a->elem_size), NULL, GL_DYNAMIC_DRAW);
    if (glGetError() == GL_OUT_OF_MEMORY) {
        glDeleteBuffers(1, &buffer);
        pmf_budget_give(cap * a->elem_size);
        return false;
    }
    if (a->buffer) {
        if (render_arena_used(a))
            a->copies++;
        copy_live_spans(a, buffer);
        glDeleteBuffers(1, &a->buffer);
    }
    uint32_t old = a->capacity;
    pmf_budget_give((uint64_t)old * a->elem_size);
    a->buffer = buffer;
    a->capacity = (uint32_t)cap;
    return put_free(a, old, a->capacity - old);
}

/* Doubling, from 4096 elements, until need more fit. */
static bool grow(render_arena *a, uint32_t need)
{
    uint64_t cap = a->capacity ? a->capacity : 4096;
    while (cap < (uint64_t)a->capacity + need)
        cap *= 2;
    return grow_to(a, cap);
}

bool render_arena_alloc(render_arena *a, uint32_t count, uint32_t *offset, bool *moved)
{
    if (count == 0) {
        *offset = 0;
        return true;
    }
    for (int attempt = 0; attempt < 2; attempt++) {
        for (uint32_t i = 0; i < a->free_count; i++) {
            if (a->free[i].size < count)
                continue;
            *offset = a->free[i].offset;
            a->free[i].offset += count;
            a->free[i].size -= count;
            if (a->free[i].size == 0) {
                memmove(&a->free[i], &a->free[i + 1], (a->free_count - i - 1) * sizeof *a->free);
                a->free_count--;
            }
            return true;
        }
        if (attempt == 0) {
            if (!grow(a, count))
                return false;
            *moved = true;
        }
    }
    return false;
}

uint64_t render_arena_used(const render_arena *a)
{
    uint64_t used = a->capacity;
    for (uint32_t i = 0; i < a->free_count; i++)
        used -= a->free[i].size;
    return used;
}

bool render_arena_reserve(render_arena *a, uint64_t capacity, bool *moved)
{
    if (capacity <= a->capacity)
        return true;
    /* in whole 4096-element steps, as the doubling grows */
    capacity = (capacity + 4095u) / 4096u * 4096u;
    if (capacity > UINT32_MAX || !grow_to(a, capacity))
        return false;
    *moved = true;
    return true;
}

void render_arena_free(render_arena *a, uint32_t offset, uint32_t count)
{
    /* Out of memory here only leaks the span (it stays allocated), which is harmless. */
    if (count)
        put_free(a, offset, count);
}
