/* relight_reader.h - the relight state's bytes read back (relight.c: the cache file;
 * relight_build.c: the level kept packed in it), every read checked against what is left. The
 * error is sticky: after the first short read every take fails and ok stays false. */
#ifndef PMFC_RELIGHT_READER_H
#define PMFC_RELIGHT_READER_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "common/memory.h"

typedef struct reader { const uint8_t *at, *end; bool ok; } reader;

/* size bytes in place, or NULL when fewer are left. */
static inline const void *take(reader *r, size_t size)
{
    if (!r->ok || (size_t)(r->end - r->at) < size) {
        r->ok = false;
        return NULL;
    }
    const void *p = r->at;
    r->at += size;
    return p;
}

/* size bytes copied into out; false when fewer are left. */
static inline bool take_into(reader *r, void *out, size_t size)
{
    const void *p = take(r, size);
    if (p && size) memcpy(out, p, size);
    return p != NULL;
}

static inline uint64_t take_u64(reader *r)
{
    uint64_t v = 0;
    take_into(r, &v, sizeof v);
    return v;
}

/* count items of size bytes each into a new block of the compile's (NULL when fewer are left; a
 * count no bytes left could hold fails before anything is allocated). */
static inline void *take_array(reader *r, uint64_t count, size_t size)
{
    if (!r->ok || count > (uint64_t)(r->end - r->at) / size) {
        r->ok = false;
        return NULL;
    }
    void *out = xmalloc(count * size + 1);
    take_into(r, out, count * size);
    return out;
}

#endif
