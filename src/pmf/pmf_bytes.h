/* pmf_bytes.h - little-endian bytes: a bounds-checked reading cursor and a growable writing buffer.
 *
 * The cursor's error is sticky: after the first failure every read returns 0 / "" and does not
 * move, so a decoder can read a whole struct and check c->failed once. The offset it reports is
 * c->base + the position of the failing read. */
#ifndef PMF_BYTES_H
#define PMF_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmf.h"

typedef struct pmf_cursor {
    const uint8_t *data;
    size_t size, pos;
    uint64_t base;             /* reported offset of data[0]: a file offset, or 0 inside a block */
    const char *file, *block;  /* for errors */
    pmf_error *err;
    bool failed;
    const char *block_part;    /* set: errors name the block "BLOCK PART data" (pmf_block_name) */
} pmf_cursor;

static inline pmf_cursor pmf_cursor_make(const uint8_t *data, size_t size, uint64_t base,
                                         const char *file, const char *block, pmf_error *err)
{
    pmf_cursor c = { data, size, 0, base, file, block, err, false, NULL };
    return c;
}

/* Records the first error at position pos; returns false. */
bool pmf_cursor_fail_at(pmf_cursor *c, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static inline size_t pmf_cursor_left(const pmf_cursor *c) { return c->failed ? 0 : c->size - c->pos; }

static inline const uint8_t *pmf_take(pmf_cursor *c, size_t n, const char *what)
{
    if (c->failed)
        return NULL;
    if (n > c->size - c->pos) {
        pmf_cursor_fail_at(c, c->pos, "%s needs %zu bytes, %zu are left", what, n, c->size - c->pos);
        return NULL;
    }
    if (n == 0)
        return c->data ? c->data + c->pos : NULL;
    const uint8_t *p = c->data + c->pos;
    c->pos += n;
    return p;
}

static inline uint8_t pmf_read_u8(pmf_cursor *c, const char *what)
{
    const uint8_t *p = pmf_take(c, 1, what);
    return p ? p[0] : 0;
}

static inline uint16_t pmf_read_u16(pmf_cursor *c, const char *what)
{
    const uint8_t *p = pmf_take(c, 2, what);
    return p ? (uint16_t)(p[0] | p[1] << 8) : 0;
}

static inline uint32_t pmf_read_u32(pmf_cursor *c, const char *what)
{
    const uint8_t *p = pmf_take(c, 4, what);
    return p ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24 : 0;
}

static inline uint64_t pmf_read_u64(pmf_cursor *c, const char *what)
{
    uint64_t lo = pmf_read_u32(c, what);
    return lo | (uint64_t)pmf_read_u32(c, what) << 32;
}

static inline float pmf_read_f32(pmf_cursor *c, const char *what)
{
    uint32_t u = pmf_read_u32(c, what);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* n little-endian f32s or u32s to out: copied as they are on a little-endian host. */
static inline void pmf_copy_le32s(void *out, const uint8_t *p, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(out, p, n * 4);
#else
    uint8_t *o = out;
    for (size_t i = 0; i < n; i++, p += 4, o += 4) {
        uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        memcpy(o, &u, 4);
    }
#endif
}

/* The bounds checked once for all n; when they do not all fit, read one by one so the error
 * names the same byte as before. */
static inline void pmf_read_f32s(pmf_cursor *c, float *out, size_t n, const char *what)
{
    if (!c->failed && n <= (c->size - c->pos) / 4) {
        pmf_copy_le32s(out, c->data + c->pos, n);
        c->pos += n * 4;
        return;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = pmf_read_f32(c, what);
}

static inline void pmf_read_bytes(pmf_cursor *c, uint8_t *out, size_t n, const char *what)
{
    const uint8_t *p = pmf_take(c, n, what);
    if (p)
        memcpy(out, p, n);
}

/* Fails unless count items of at least min_size bytes each can still follow. */
static inline bool pmf_cursor_fits(pmf_cursor *c, uint64_t count, uint64_t min_size, const char *what)
{
    if (c->failed)
        return false;
    if (min_size && count > (c->size - c->pos) / min_size)
        return pmf_cursor_fail_at(c, c->pos, "%llu %s need at least %llu bytes, %zu left",
                                  (unsigned long long)count, what,
                                  (unsigned long long)(count * min_size), c->size - c->pos);
    return true;
}

/* u32 size + that many bytes. */
pmf_blob pmf_read_table(pmf_cursor *c, const char *what);
/* A String: u32 offset into table, NUL-terminated inside it. "" after an error. */
const char *pmf_read_string(pmf_cursor *c, pmf_blob table, const char *what);
/* A NUL-terminated char array stored in place (header strings), at most max_len bytes before NUL. */
const char *pmf_read_cstring(pmf_cursor *c, size_t max_len, const char *what);

/* ---- growable little-endian buffer (writer) ---- */

typedef struct pmf_buf {
    uint8_t *data;
    size_t size, cap;
    bool oom;                  /* sticky: a failed growth drops every later write */
} pmf_buf;

static inline uint8_t *pmf_buf_grow(pmf_buf *b, size_t n)
{
    if (b->oom)
        return NULL;
    if (n > b->cap - b->size) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->size < n) {
            if (cap > SIZE_MAX / 2) {
                b->oom = true;
                return NULL;
            }
            cap *= 2;
        }
        uint8_t *d = realloc(b->data, cap);
        if (!d) {
            b->oom = true;
            return NULL;
        }
        b->data = d;
        b->cap = cap;
    }
    uint8_t *p = b->data + b->size;
    b->size += n;
    return p;
}

/* Makes room for n more bytes without writing them (one allocation for a known total). */
static inline void pmf_buf_reserve(pmf_buf *b, size_t n)
{
    if (pmf_buf_grow(b, n))
        b->size -= n;
}

static inline void pmf_put_bytes(pmf_buf *b, const void *src, size_t n)
{
    uint8_t *p = n ? pmf_buf_grow(b, n) : NULL;
    if (p)
        memcpy(p, src, n);
}

static inline void pmf_put_u8(pmf_buf *b, uint8_t v) { pmf_put_bytes(b, &v, 1); }

static inline void pmf_put_u16(pmf_buf *b, uint16_t v)
{
    uint8_t p[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
    pmf_put_bytes(b, p, 2);
}

static inline void pmf_put_u32(pmf_buf *b, uint32_t v)
{
    uint8_t p[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
    pmf_put_bytes(b, p, 4);
}

static inline void pmf_put_u64(pmf_buf *b, uint64_t v)
{
    pmf_put_u32(b, (uint32_t)v);
    pmf_put_u32(b, (uint32_t)(v >> 32));
}

static inline void pmf_put_f32(pmf_buf *b, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    pmf_put_u32(b, u);
}

static inline void pmf_put_f32s(pmf_buf *b, const float *f, int n)
{
    for (int i = 0; i < n; i++)
        pmf_put_f32(b, f[i]);
}

/* An encoder's end: the buffer's bytes handed to *out (the caller frees them), or false with an
 * "out of memory" error on block when a write was dropped (the buffer freed). */
bool pmf_buf_take(pmf_buf *b, const char *block, uint8_t **out, size_t *size, pmf_error *err);

static inline void pmf_buf_free(pmf_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

#endif
