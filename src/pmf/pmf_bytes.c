/* pmf_bytes.c - the cursor's out-of-line parts: errors, string tables, strings. */
#include <stdarg.h>
#include <stdio.h>

#include "pmf_budget.h"
#include "pmf_internal.h"

bool pmf_cursor_fail_at(pmf_cursor *c, size_t pos, const char *fmt, ...)
{
    if (c->failed)
        return false;
    c->failed = true;
    if (c->err) {
        char name[sizeof c->err->block];
        pmf_error_set(c->err, c->file, pmf_block_name(c->block, c->block_part, name), c->base + pos, "%s", "");
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->err->message, sizeof c->err->message, fmt, ap);
        va_end(ap);
    }
    return false;
}

pmf_blob pmf_read_table(pmf_cursor *c, const char *what)
{
    pmf_blob t = { NULL, 0 };
    size_t at = c->pos;
    uint32_t size = pmf_read_u32(c, what);
    if (c->failed)
        return t;
    if (size > pmf_cursor_left(c)) {
        pmf_cursor_fail_at(c, at, "%s size %u is past the block end (%zu bytes left)", what, size, pmf_cursor_left(c));
        return t;
    }
    t.data = pmf_take(c, size, what);
    t.size = size;
    return t;
}

const char *pmf_read_string(pmf_cursor *c, pmf_blob table, const char *what)
{
    size_t at = c->pos;
    uint32_t off = pmf_read_u32(c, what);
    if (c->failed)
        return "";
    if (off >= table.size) {
        pmf_cursor_fail_at(c, at, "%s: string offset %u outside the string table (%zu bytes)", what, off, table.size);
        return "";
    }
    const char *s = (const char *)table.data + off;
    if (!memchr(s, 0, table.size - off)) {
        pmf_cursor_fail_at(c, at, "%s: string at offset %u has no NUL before the string table's end", what, off);
        return "";
    }
    return s;
}

const char *pmf_read_cstring(pmf_cursor *c, size_t max_len, const char *what)
{
    if (c->failed)
        return "";
    size_t left = c->size - c->pos;
    const char *s = (const char *)c->data + c->pos;
    const char *nul = memchr(s, 0, left < max_len + 1 ? left : max_len + 1);
    if (!nul) {
        if (left <= max_len)
            pmf_cursor_fail_at(c, c->pos, "%s: no NUL before the end of the file", what);
        else
            pmf_cursor_fail_at(c, c->pos, "%s: longer than %zu bytes", what, max_len);
        return "";
    }
    c->pos += (size_t)(nul - s) + 1;
    return s;
}

bool pmf_cursor_expect_end(pmf_cursor *c, const char *what)
{
    if (c->failed)
        return false;
    if (c->pos != c->size)
        return pmf_cursor_fail_at(c, c->pos, "%zu bytes after the end of %s", c->size - c->pos, what);
    return true;
}

bool pmf_read_entity_count(pmf_cursor *c, const char *kind, const char *part, uint32_t *count)
{
    char label[48];
    snprintf(label, sizeof label, "%s entity count", kind);
    size_t at = c->pos;
    *count = pmf_read_u32(c, label);
    if (!c->failed && *count > pmf_cursor_left(c))
        return pmf_cursor_fail_at(c, at, "%u %s entities cannot fit in the %zu bytes left", *count, kind,
                                  pmf_cursor_left(c));
    if (!c->failed && *count == 0 && pmf_cursor_left(c))
        return pmf_cursor_expect_end(c, part);
    return !c->failed;
}

static void *read_array(pmf_cursor *c, pmf_arena *a, uint64_t count, size_t min_size, size_t elem_size, bool zeroed,
                        const char *what)
{
    if (!pmf_cursor_fits(c, count, min_size, what) || count == 0)
        return NULL;
    size_t bytes = (size_t)count * elem_size;
    void *p = zeroed ? pmf_arena_alloc(a, bytes) : pmf_arena_alloc_uninit(a, bytes);
    if (!p) {
        char label[96];
        snprintf(label, sizeof label, "%llu %s", (unsigned long long)count, what);
        pmf_cursor_fail_alloc(c, a, c->pos, (uint64_t)count * elem_size, label);
    }
    return p;
}

void *pmf_read_array(pmf_cursor *c, pmf_arena *a, uint64_t count, size_t min_size, size_t elem_size, const char *what)
{
    return read_array(c, a, count, min_size, elem_size, true, what);
}

void *pmf_read_array_uninit(pmf_cursor *c, pmf_arena *a, uint64_t count, size_t min_size, size_t elem_size,
                            const char *what)
{
    return read_array(c, a, count, min_size, elem_size, false, what);
}

void pmf_error_alloc(pmf_error *err, const pmf_arena *a, const char *file, const char *block, uint64_t offset,
                     uint64_t bytes, const char *what)
{
    if (!pmf_arena_over_budget(a)) {
        pmf_error_set(err, file, block, offset, "out of memory for %s", what);
        return;
    }
    pmf_error_set(err, file, block, offset, "%s need %llu MiB, more than the memory budget leaves (%llu of %llu MiB in use; see --memory)",
                  what, (unsigned long long)((bytes + (1u << 20) - 1) >> 20), (unsigned long long)(pmf_budget_used() >> 20),
                  (unsigned long long)(pmf_budget_limit() >> 20));
    if (err)
        err->over_budget = true;
}

bool pmf_cursor_fail_alloc(pmf_cursor *c, const pmf_arena *a, size_t pos, uint64_t bytes, const char *what)
{
    c->failed = true;
    char name[sizeof c->err->block];
    pmf_error_alloc(c->err, a, c->file, pmf_block_name(c->block, c->block_part, name), c->base + pos, bytes, what);
    return false;
}

int pmf_find_name(const void *array, size_t count, size_t stride, const char *name)
{
    const unsigned char *p = array;
    for (size_t i = 0; i < count; i++, p += stride) {
        const char *n;
        memcpy(&n, p, sizeof n);
        if (!strcmp(n, name))
            return (int)i;
    }
    return -1;
}

bool pmf_buf_take(pmf_buf *b, const char *block, uint8_t **out, size_t *size, pmf_error *err)
{
    if (b->oom) {
        pmf_buf_free(b);
        pmf_error_set(err, "(writer)", block, 0, "out of memory");
        return false;
    }
    *out = b->data;
    *size = b->size;
    return true;
}
