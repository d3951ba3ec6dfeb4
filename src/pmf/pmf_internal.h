/* pmf_internal.h - what the library's files share and nobody else sees: arena, LZ4F blocks,
 * error helpers and the block decoders the reader and the writer's validation both run. */
#ifndef PMF_INTERNAL_H
#define PMF_INTERNAL_H

#include "pmf.h"
#include "pmf_bytes.h"

/* ---- arena: every decoded struct's arrays and strings, freed at once ---- */
typedef struct pmf_arena pmf_arena;
pmf_arena *pmf_arena_create(void);
void *pmf_arena_alloc(pmf_arena *a, size_t size); /* zeroed, 16-byte aligned; NULL when out of memory */
void *pmf_arena_alloc_uninit(pmf_arena *a, size_t size); /* the same, not zeroed (about to be overwritten) */
void pmf_arena_destroy(pmf_arena *a);
/* True when the last failed allocation failed because the memory budget (pmf_budget.h) is spent. */
bool pmf_arena_over_budget(const pmf_arena *a);
/* Fails c at pos for an allocation of `bytes` for `what` the arena refused: names the memory
 * budget (and marks the error over_budget) when that is why, else "out of memory". */
bool pmf_cursor_fail_alloc(pmf_cursor *c, const pmf_arena *a, size_t pos, uint64_t bytes, const char *what);
/* The same wording for errors outside a cursor. */
void pmf_error_alloc(pmf_error *err, const pmf_arena *a, const char *file, const char *block, uint64_t offset,
                     uint64_t bytes, const char *what);
void pmf_arena_set_user(pmf_arena *a, void *user);
void *pmf_arena_user(const pmf_arena *a);

/* ---- what a decoding thread reuses from chunk to chunk (pmf_thread_cache.c) ---- */
/* This thread's LZ4F context, reset for a new frame; NULL out of memory. */
struct LZ4F_dctx_s *pmf_thread_dctx(void);
/* A buffer of at least size bytes for stored bytes; give it back with pmf_thread_scratch_return
 * once read. NULL out of memory. */
void *pmf_thread_scratch(size_t size);
void pmf_thread_scratch_return(void *p);
/* A kept block of at least min (and at most 2 x min) bytes, its size in *capacity; NULL when none. */
void *pmf_thread_block_take(size_t min, size_t *capacity);
/* Keeps a malloc'ed block for a later take on this thread; false when the keep is full (free it). */
bool pmf_thread_block_keep(void *block, size_t capacity);

/* ---- errors ---- */
/* A block's name for an error, "PREFIX PART data" ("level 0 chunk (3,0,5)" + "client"), or PREFIX
 * when part is NULL: made only when an error names it, not for every block read. */
#define PMF_BLOCK_NAME_SIZE 96
const char *pmf_block_name(const char *prefix, const char *part, char buf[PMF_BLOCK_NAME_SIZE]);

/* ---- reading files ---- */
/* Reads len bytes at offset, through EINTR and short reads. Returns how many it got: fewer at the
 * end of the file (errno 0) or on a read error (errno set). */
size_t pmf_pread_full(int fd, uint64_t offset, void *dst, size_t len);

/* ---- LZ4F blocks ---- */
/* Decompresses one LZ4F frame that must fill dst_size bytes exactly and end src. dst_capacity
 * (>= dst_size) is what may be written: with PMF_LZ4_SLACK bytes past dst_size, LZ4F decodes
 * every block in place. Returns NULL on success, else what went wrong; *produced = bytes of the
 * frame in dst. Also used for PTF texels and legacy blocks. */
#define PMF_LZ4_SLACK (64u << 10)   /* LZ4F's default (and our writer's) largest block */
const char *pmf_lz4_decompress_exact(const uint8_t *src, size_t src_size, uint8_t *dst, size_t dst_size,
                                     size_t dst_capacity, size_t *produced);

/* Largest decompressed size we accept for a block of `compressed` bytes (see pmf_lz4.c). */
uint64_t pmf_block_size_cap(uint64_t compressed);
/* Decompresses one stored block into arena memory; exact size or an error naming the block
 * (pmf_block_name(prefix, part)). read: its compressed bytes when the caller has read them, else
 * NULL (read here). A block with both sizes 0 gives *out = NULL. */
bool pmf_block_load(const pmf_file *f, uint64_t offset, uint32_t compressed, uint32_t decompressed,
                    const uint8_t *read, pmf_arena *a, const char *prefix, const char *part, const uint8_t **out,
                    pmf_error *err);
/* Compresses into one LZ4 frame (content size recorded). *out is malloc'ed. */
bool pmf_block_compress(const uint8_t *src, size_t size, uint8_t **out, size_t *out_size);

/* ---- block decoders (shared by reading and by the writer's validation) ---- */
/* Names of the level's blocks for errors: "level N common data" etc. */
extern const char *const pmf_part_names[3];

bool pmf_decode_level_common(pmf_cursor *c, pmf_arena *a, pmf_level *lvl);
bool pmf_decode_level_client(pmf_cursor *c, pmf_arena *a, pmf_level *lvl);
bool pmf_decode_level_server(pmf_cursor *c, pmf_arena *a, pmf_level *lvl);
/* Index of the level material / physics material named `name`, or -1 (the first one when names
 * repeat). Binary search over a sorted index kept in a decoded level's arena; a level built by
 * hand (writer input) is searched linearly. */
int pmf_level_find_material(const pmf_level *lvl, const char *name);
int pmf_level_find_physics_material(const pmf_level *lvl, const char *name);

/* Index of the element whose name (every named struct's first member) is `name`, or -1. */
int pmf_find_name(const void *array, size_t count, size_t stride, const char *name);
#define PMF_FIND(array, count, name) pmf_find_name((array), (count), sizeof *(array), (name))

/* Allocates count zeroed elements after checking count items of min_size bytes still fit.
 * NULL for count 0 or after an error (which it records). */
void *pmf_read_array(pmf_cursor *c, pmf_arena *a, uint64_t count, size_t min_size, size_t elem_size, const char *what);
/* The same, not zeroed: for arrays the caller fills whole. */
void *pmf_read_array_uninit(pmf_cursor *c, pmf_arena *a, uint64_t count, size_t min_size, size_t elem_size,
                            const char *what);

/* Reads a String into out that must be empty or make ok_expr (which sees it as `name`) true. */
#define PMF_READ_NAME_REF(c, table, what, ok_expr, out)                                                      \
    do {                                                                                                 \
        size_t at_ = (c)->pos;                                                                           \
        const char *name = pmf_read_string((c), (table), (what));                                        \
        if (!(c)->failed && name[0] && !(ok_expr))                                                       \
            return pmf_cursor_fail_at((c), at_, "%s '%s' does not exist in the level", (what), name);    \
        (out) = name;                                                                                    \
    } while (0)

/* Fails at pos unless the block was read to its last byte. */
bool pmf_cursor_expect_end(pmf_cursor *c, const char *what);

/* The entity count that the file and the server data parts end with; every byte after it is the
 * entities (they have no published layout, so each takes at least one byte and a count past the
 * bytes left fails). kind names them ("chunk", "level-wide", "global"); part is what must end
 * there when the count is 0. Leaves the cursor on the entities' first byte. */
bool pmf_read_entity_count(pmf_cursor *c, const char *kind, const char *part, uint32_t *count);

/* Decodes a chunk's decompressed blocks (data[i] NULL with size 0 for an empty block).
 * block_prefix is e.g. "level 0 chunk (3,0,5)"; parts must include PMF_PART_COMMON. The chunk
 * points into data (luxels, names, and the vertices when they sit aligned): keep data as long. */
bool pmf_decode_chunk_blocks(const pmf_level *lvl, const char *file, const char *block_prefix,
                             const uint8_t *const data[3], const size_t size[3], unsigned parts,
                             pmf_arena *a, pmf_chunk *out, pmf_error *err);

/* ---- writer side ---- */
/* Fails unless the level's frame (flags, chunk size, grid, centre, parts) can be written. */
bool pmf_check_level_frame(const pmf_level *lvl, const char *block, pmf_error *err);
/* Serialises a level's three blocks (uncompressed) and validates them with the decoders. */
bool pmf_encode_level_blocks(const pmf_level *lvl, const char *block_prefix, pmf_buf out[3], pmf_error *err);
/* Compresses three blocks into LZ4F frames back to back in *bytes (malloc'ed). */
bool pmf_compress_blocks(const pmf_buf blocks[3], const char *block, uint8_t **bytes, uint32_t compressed[3],
                         uint32_t decompressed[3], pmf_error *err);

#define PMF_MAX_CHUNK_SIZE_EXP 30 /* 2^30 m chunks: beyond that float chunk offsets are useless */

#endif
