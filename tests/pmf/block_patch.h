/* block_patch.h - test helpers that damage one stored block of a PMF on purpose: decompress it,
 * let the test change the bytes, recompress (LZ4F frame without content size) and fix the size
 * tables, so the damage reaches exactly the decoder under test. */
#ifndef PMF_TESTS_BLOCK_PATCH_H
#define PMF_TESTS_BLOCK_PATCH_H

#include "pmf.h"

typedef struct test_bytes {
    uint8_t *data;                   /* malloc'ed */
    size_t size;
} test_bytes;

/* A block: a level's (chunk == NULL) or a chunk's common / client / server (part 0, 1, 2). */
typedef struct block_ref {
    uint32_t level;
    const pmf_chunk_coord *chunk;
    int part;
} block_ref;

/* The block's decompressed bytes (data NULL when the file or block cannot be read). */
test_bytes block_get(const uint8_t *file, size_t size, block_ref ref);
/* A copy of the file whose block holds content, declaring `declared` decompressed bytes.
 * content NULL removes the block: both of its sizes become 0. */
test_bytes block_replace(const uint8_t *file, size_t size, block_ref ref, const uint8_t *content, size_t n,
                         uint32_t declared);

#endif
