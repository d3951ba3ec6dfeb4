/* pmf_read.c - opening a PMF: header, Data, the per-level chunk offset index; level and chunk
 * reads that decompress their blocks and hand them to the decoders. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "pmf_budget.h"
#include "pmf_os.h"
#include "pmf_internal.h"

const char *const pmf_part_names[3] = { "common", "client", "server" };

typedef struct file_impl {
    int fd;            /* the open file blocks are read from with pread, -1 for memory */
    pmf_arena *arena;  /* header strings, extension ranges, level infos, chunk index */
} file_impl;

static bool parse_header(pmf_cursor *c, pmf_header *h)
{
    const uint8_t *magic = pmf_take(c, 3, "header magic");
    if (magic && memcmp(magic, "PMF", 3) != 0)
        return pmf_cursor_fail_at(c, 0, "bad magic (not a PMF file)");
    size_t at = c->pos;
    h->major = pmf_read_u8(c, "major version");
    if (!c->failed && h->major != PMF_VERSION_MAJOR)
        return pmf_cursor_fail_at(c, at, "unsupported major version %u", h->major);
    h->created = pmf_read_u64(c, "creation time");
    h->name = pmf_read_cstring(c, SIZE_MAX - 1, "name");
    h->description = pmf_read_cstring(c, SIZE_MAX - 1, "description");
    h->authors = pmf_read_cstring(c, SIZE_MAX - 1, "authors");
    h->compiler = pmf_read_cstring(c, SIZE_MAX - 1, "compiler info");
    at = c->pos;
    h->gamemode_count = pmf_read_u8(c, "gamemode count");
    if (!c->failed && h->gamemode_count > PMF_MAX_GAMEMODES)
        return pmf_cursor_fail_at(c, at, "gamemode count %u is more than %d", h->gamemode_count, PMF_MAX_GAMEMODES);
    for (unsigned i = 0; i < h->gamemode_count; i++)
        h->gamemodes[i] = pmf_read_cstring(c, PMF_MAX_GAMEMODE_LEN, "gamemode name");
    return !c->failed;
}

/* One level's framing: sizes, chunk grid, chunk size table; c spans exactly the level's bytes. */
static bool parse_level(pmf_cursor *c, pmf_arena *a, pmf_level_info *li)
{
    size_t start = c->pos;
    li->offset = c->base + start;
    li->flags = pmf_read_u8(c, "level flags");
    if (!c->failed && (li->flags & ~7u))
        return pmf_cursor_fail_at(c, start, "level flags 0x%02x set reserved bits", li->flags);
    for (int i = 0; i < 3; i++)
        li->compressed[i] = pmf_read_u32(c, "level block compressed size");
    for (int i = 0; i < 3; i++)
        li->decompressed[i] = pmf_read_u32(c, "level block decompressed size");
    for (int i = 0; i < 3; i++) {
        li->block_offset[i] = c->base + c->pos;
        pmf_take(c, li->compressed[i], "level block");
    }
    size_t at = c->pos;
    li->chunk_size_exp = pmf_read_u8(c, "chunk size");
    if (!c->failed && li->chunk_size_exp > PMF_MAX_CHUNK_SIZE_EXP)
        return pmf_cursor_fail_at(c, at, "chunk size 2^%u is more than 2^%d", li->chunk_size_exp, PMF_MAX_CHUNK_SIZE_EXP);
    uint32_t counts = pmf_read_u32(c, "chunk count");
    li->count_y = (counts >> 24) + 1;
    li->count_x = ((counts >> 12) & 0xFFFu) + 1;
    li->count_z = (counts & 0xFFFu) + 1;
    at = c->pos;
    li->center = pmf_chunk_index_unpack(pmf_read_u32(c, "center chunk"));
    if (c->failed)
        return false;
    if (li->center.x >= li->count_x || li->center.y >= li->count_y || li->center.z >= li->count_z)
        return pmf_cursor_fail_at(c, at, "center chunk (%u,%u,%u) is outside the %ux%ux%u grid", li->center.x,
                                  li->center.y, li->center.z, li->count_x, li->count_y, li->count_z);
    uint64_t n = (uint64_t)li->count_x * li->count_y * li->count_z;
    if (!pmf_cursor_fits(c, n, 24, "chunk size entries"))
        return false;
    li->chunk_count = (uint32_t)n;
    li->chunks = pmf_arena_alloc(a, n * sizeof *li->chunks);
    if (!li->chunks)
        return pmf_cursor_fail_at(c, c->pos, "out of memory for the chunk index");
    for (uint32_t i = 0; i < li->chunk_count; i++) {
        pmf_chunk_loc *loc = &li->chunks[i];
        at = c->pos;
        for (int k = 0; k < 3; k++)
            loc->compressed[k] = pmf_read_u32(c, "chunk compressed size");
        for (int k = 0; k < 3; k++)
            loc->decompressed[k] = pmf_read_u32(c, "chunk decompressed size");
        if (loc->compressed[0] | loc->compressed[1] | loc->compressed[2]) {
            if (loc->compressed[0] == 0)
                return pmf_cursor_fail_at(c, at, "chunk %u has client or server data but no common data", i);
            li->present_chunks++;
        } else if (loc->decompressed[0] | loc->decompressed[1] | loc->decompressed[2]) {
            return pmf_cursor_fail_at(c, at, "void chunk %u declares decompressed bytes", i);
        }
    }
    for (uint32_t i = 0; i < li->chunk_count && !c->failed; i++) {
        pmf_chunk_loc *loc = &li->chunks[i];
        uint64_t bytes = (uint64_t)loc->compressed[0] + loc->compressed[1] + loc->compressed[2];
        loc->offset = c->base + c->pos;
        if (bytes > pmf_cursor_left(c))
            return pmf_cursor_fail_at(c, c->pos, "chunk %u data (%llu bytes) is past the level's end", i,
                                      (unsigned long long)bytes);
        pmf_take(c, (size_t)bytes, "chunk data");
    }
    if (c->failed)
        return false;
    if (c->pos != c->size)
        return pmf_cursor_fail_at(c, start, "level data size is %zu but the level takes %zu bytes", c->size, c->pos);
    return true;
}

static bool parse_data(pmf_cursor *c, pmf_arena *a, pmf_file *f)
{
    f->string_table = pmf_read_table(c, "data string table");
    size_t at = c->pos;
    uint32_t archive = pmf_read_u32(c, "archive size");
    f->archive.offset = c->base + c->pos;
    f->archive.size = archive;
    if (!c->failed && archive > pmf_cursor_left(c))
        return pmf_cursor_fail_at(c, at, "archive size %u is past the end of the file", archive);
    pmf_take(c, archive, "archive");

    at = c->pos;
    f->extension_count = pmf_read_u16(c, "extension count");
    if (!pmf_cursor_fits(c, f->extension_count, 4, "extension sizes"))
        return false;
    f->extensions = pmf_arena_alloc(a, (size_t)f->extension_count * sizeof *f->extensions + 1);
    if (!f->extensions)
        return pmf_cursor_fail_at(c, at, "out of memory");
    for (unsigned i = 0; i < f->extension_count; i++)
        f->extensions[i].size = pmf_read_u32(c, "extension size");
    for (unsigned i = 0; i < f->extension_count && !c->failed; i++) {
        at = c->pos;
        f->extensions[i].offset = c->base + c->pos;
        if (f->extensions[i].size > pmf_cursor_left(c))
            return pmf_cursor_fail_at(c, at, "extension %u (%llu bytes) is past the end of the file", i,
                                      (unsigned long long)f->extensions[i].size);
        pmf_take(c, f->extensions[i].size, "extension");
    }

    f->level_count = pmf_read_u8(c, "level count");
    if (!pmf_cursor_fits(c, f->level_count, 4, "level sizes"))
        return false;
    uint32_t sizes[256];
    for (unsigned i = 0; i < f->level_count; i++)
        sizes[i] = pmf_read_u32(c, "level data size");
    f->levels = pmf_arena_alloc(a, (size_t)f->level_count * sizeof *f->levels + 1);
    if (!f->levels)
        return pmf_cursor_fail_at(c, c->pos, "out of memory");
    for (unsigned i = 0; i < f->level_count && !c->failed; i++) {
        if (sizes[i] > pmf_cursor_left(c))
            return pmf_cursor_fail_at(c, c->pos, "level %u data size %u is past the end of the file", i, sizes[i]);
        pmf_cursor level = pmf_cursor_make(c->data + c->pos, sizes[i], c->base + c->pos, c->file, c->block, c->err);
        level.block_part = c->block_part;
        if (!parse_level(&level, a, &f->levels[i])) {
            c->failed = true;
            return false;
        }
        c->pos += sizes[i];
    }

    if (!pmf_read_entity_count(c, "global", "the file", &f->global_entity_count))
        return false;
    f->global_entities.offset = c->base + c->pos;
    f->global_entities.size = pmf_cursor_left(c);
    return !c->failed;
}

static pmf_file *file_new(const char *name, pmf_error *err)
{
    pmf_file *f = calloc(1, sizeof *f);
    file_impl *impl = calloc(1, sizeof *impl);
    pmf_arena *a = pmf_arena_create();
    if (!f || !impl || !a) {
        free(f);
        free(impl);
        pmf_arena_destroy(a);
        pmf_error_set(err, name, "header", 0, "out of memory");
        return NULL;
    }
    impl->arena = a;
    impl->fd = -1;
    f->impl_ = impl;
    snprintf(f->name, sizeof f->name, "%s", name ? name : "");
    return f;
}

typedef struct parse_job {
    pmf_file *f;
    pmf_error *err;
} parse_job;

static bool parse_file(void *user)
{
    parse_job *job = user;
    pmf_file *f = job->f;
    file_impl *impl = f->impl_;
    pmf_cursor c = pmf_cursor_make(f->data, f->size, 0, f->name, "header", job->err);
    if (!parse_header(&c, &f->header))
        return false;
    c.block = "data";
    return parse_data(&c, impl->arena, f);
}

pmf_file *pmf_open_memory(const void *data, size_t size, const char *name, pmf_error *err)
{
    pmf_file *f = file_new(name, err);
    if (!f)
        return NULL;
    f->data = data;
    f->size = size;
    parse_job job = { f, err };
    if (!parse_file(&job)) {
        pmf_close(f);
        return NULL;
    }
    return f;
}

/* Header strings and Data's string table into the arena, so nothing points into the mapping. */
static bool copy_out_of_map(pmf_file *f)
{
    pmf_arena *a = ((file_impl *)f->impl_)->arena;
    const char **strings[4 + PMF_MAX_GAMEMODES] = { &f->header.name, &f->header.description, &f->header.authors,
                                                    &f->header.compiler };
    for (unsigned i = 0; i < f->header.gamemode_count; i++)
        strings[4 + i] = &f->header.gamemodes[i];
    for (unsigned i = 0; i < 4u + f->header.gamemode_count; i++) {
        size_t n = strlen(*strings[i]) + 1;
        char *copy = pmf_arena_alloc_uninit(a, n);
        if (!copy)
            return false;
        memcpy(copy, *strings[i], n);
        *strings[i] = copy;
    }
    if (f->string_table.size) {
        uint8_t *copy = pmf_arena_alloc_uninit(a, f->string_table.size);
        if (!copy)
            return false;
        memcpy(copy, f->string_table.data, f->string_table.size);
        f->string_table.data = copy;
    }
    return true;
}

static bool parse_mapped_file(void *user)
{
    parse_job *job = user;
    if (!parse_file(job))
        return false;
    if (!copy_out_of_map(job->f)) {
        pmf_error_set(job->err, job->f->name, "header", 0, "out of memory");
        return false;
    }
    return true;
}

int pmf_open_regular(const char *path, pmf_os_file_info *st, pmf_error *err)
{
    int fd = pmf_os_open_regular(path, st);
    if (fd < 0 && (errno == EISDIR || errno == ENODEV))
        pmf_error_set(err, path, "file", 0, "%s", errno == EISDIR ? "is a directory" : "not a regular file");
    else if (fd < 0)
        pmf_error_set(err, path, "file", 0, "cannot open: %s", strerror(errno));
    return fd;
}

pmf_file *pmf_open(const char *path, pmf_error *err)
{
    pmf_os_file_info st;
    int fd = pmf_open_regular(path, &st, err);
    if (fd < 0) {
        /* a PMF says "not a regular file" for a directory too, as pmfview always has */
        if (err && !strcmp(err->message, "is a directory"))
            pmf_error_set(err, path, "file", 0, "not a regular file");
        return NULL;
    }
    size_t size = (size_t)st.size;
    const void *map = NULL;
    if (size) {
        map = pmf_os_map(fd, size);
        if (!map) {
            pmf_error_set(err, path, "file", 0, "cannot map: %s", strerror(errno));
            close(fd);
            return NULL;
        }
    }
    pmf_file *f = file_new(path, err);
    bool ok = f != NULL, faulted = false;
    if (ok) {
        f->data = map ? map : (const uint8_t *)"";
        f->size = size;
        /* the framing is parsed from a mapping (the chunk index spans the file); afterwards
         * every block is read with pread, so a file that shrinks later gives an error, not a signal */
        parse_job job = { f, err };
        ok = pmf_os_run_mapped(parse_mapped_file, &job, &faulted);
        f->data = NULL;
    }
    if (map)
        pmf_os_unmap(map, size);
    if (faulted)
        pmf_error_set(err, path, "file", 0, "the file shrank below %zu bytes while it was being read", size);
    if (!ok) {
        pmf_close(f);
        close(fd);
        return NULL;
    }
    ((file_impl *)f->impl_)->fd = fd;
    return f;
}

void pmf_close(pmf_file *f)
{
    if (!f)
        return;
    file_impl *impl = f->impl_;
    if (impl) {
        if (impl->fd >= 0)
            close(impl->fd);
        pmf_arena_destroy(impl->arena);
        free(impl);
    }
    free(f);
}

bool pmf_read_whole_file(const char *path, uint64_t max_size, uint8_t **bytes, size_t *size, pmf_error *err)
{
    *bytes = NULL;
    *size = 0;
    pmf_os_file_info st;
    int fd = pmf_open_regular(path, &st, err);
    if (fd < 0)
        return false;
    if (st.size > max_size) {
        close(fd);
        pmf_error_set(err, path, "file", 0, "%llu bytes, more than the %llu this kind of file may have",
                      (unsigned long long)st.size, (unsigned long long)max_size);
        return false;
    }
    size_t want = (size_t)st.size;
    uint8_t *data = pmf_budget_malloc(want ? want : 1);
    size_t done = data ? pmf_pread_full(fd, 0, data, want) : 0;
    close(fd);
    if (!data || done < want) {
        pmf_budget_free(data);
        if (data) pmf_error_set(err, path, "file", done, "cannot read (the file shrank or a read failed)");
        else pmf_error_set(err, path, "file", 0, "%zu bytes are more than the memory budget leaves (see --memory)", want);
        return false;
    }
    *bytes = data;
    *size = want;
    return true;
}

bool pmf_extension_read(const pmf_file *f, const char *name, uint8_t **bytes, unsigned *index, const char *block,
                        pmf_error *err)
{
    size_t name_size = strlen(name) + 1;
    *bytes = NULL;
    uint8_t head[256];
    if (name_size > sizeof head)
        return true;
    for (unsigned i = 0; i < f->extension_count; i++) {
        const pmf_range *r = &f->extensions[i];
        if (r->size < name_size)
            continue;
        if (!pmf_file_read(f, r->offset, name_size, head, block, err))
            return false;
        if (memcmp(head, name, name_size) != 0)
            continue;
        *bytes = malloc(r->size ? (size_t)r->size : 1);
        if (!*bytes) {
            pmf_error_set(err, f->name, block, r->offset, "out of memory for %llu bytes", (unsigned long long)r->size);
            return false;
        }
        if (!pmf_file_read(f, r->offset, (size_t)r->size, *bytes, block, err)) {
            free(*bytes);
            *bytes = NULL;
            return false;
        }
        *index = i;
        return true;
    }
    return true;
}

bool pmf_file_read(const pmf_file *f, uint64_t offset, size_t size, void *dst, const char *block, pmf_error *err)
{
    if (offset > f->size || size > f->size - offset) {
        pmf_error_set(err, f->name, block, offset, "%zu bytes lie outside the %zu-byte file", size, f->size);
        return false;
    }
    const file_impl *impl = f->impl_;
    if (impl->fd < 0) {
        memcpy(dst, f->data + offset, size);
        return true;
    }
    size_t done = pmf_pread_full(impl->fd, offset, dst, size);
    if (done == size)
        return true;
    if (errno) {
        pmf_error_set(err, f->name, block, offset + done, "cannot read: %s", strerror(errno));
        return false;
    }
    pmf_os_file_info st;
    long long now = pmf_os_fstat(impl->fd, &st) == 0 ? (long long)st.size : -1;
    pmf_error_set(err, f->name, block, offset + done, "the file shrank while open (now %lld bytes, was %zu): %zu bytes missing",
                  now, f->size, size - done);
    return false;
}

size_t pmf_pread_full(int fd, uint64_t offset, void *dst, size_t len)
{
    size_t done = 0;
    while (done < len) {
        long long n = pmf_os_pread(fd, (uint8_t *)dst + done, len - done, offset + done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = 0;
            break;
        }
        done += (size_t)n;
    }
    return done;
}

/* ---- levels ---- */

bool pmf_level_read(const pmf_file *f, uint32_t level, unsigned parts, pmf_level *out, pmf_error *err)
{
    memset(out, 0, sizeof *out);
    if (level >= f->level_count) {
        pmf_error_set(err, f->name, "data", 0, "level %u does not exist (the file has %u)", level, f->level_count);
        return false;
    }
    const pmf_level_info *li = &f->levels[level];
    pmf_arena *a = pmf_arena_create();
    if (!a) {
        pmf_error_set(err, f->name, "data", li->offset, "out of memory");
        return false;
    }
    out->arena_ = a;
    out->flags = li->flags;
    out->chunk_size_exp = li->chunk_size_exp;
    out->count_x = li->count_x;
    out->count_y = li->count_y;
    out->count_z = li->count_z;
    out->center = li->center;
    if (parts & PMF_PART_CLIENT)
        parts |= PMF_PART_COMMON;
    static bool (*const decode[3])(pmf_cursor *, pmf_arena *, pmf_level *) = {
        pmf_decode_level_common, pmf_decode_level_client, pmf_decode_level_server };
    for (int i = 0; i < 3; i++) {
        if (!(parts & (1u << i)))
            continue;
        char prefix[32];
        snprintf(prefix, sizeof prefix, "level %u", level);
        const uint8_t *data;
        if (!pmf_block_load(f, li->block_offset[i], li->compressed[i], li->decompressed[i], NULL, a, prefix,
                            pmf_part_names[i], &data, err)) {
            pmf_level_free(out);
            return false;
        }
        pmf_cursor c = pmf_cursor_make(data, li->decompressed[i], 0, f->name, prefix, err);
        c.block_part = pmf_part_names[i];
        if (!decode[i](&c, a, out)) {
            pmf_level_free(out);
            return false;
        }
        out->parts |= 1u << i;
    }
    return true;
}

void pmf_level_free(pmf_level *lvl)
{
    pmf_arena_destroy(lvl->arena_);
    memset(lvl, 0, sizeof *lvl);
}

/* ---- chunks ---- */

bool pmf_chunk_present(const pmf_file *f, uint32_t level, pmf_chunk_coord c)
{
    if (level >= f->level_count)
        return false;
    const pmf_level_info *li = &f->levels[level];
    if (c.x >= li->count_x || c.y >= li->count_y || c.z >= li->count_z)
        return false;
    return li->chunks[pmf_grid_index(li, c.x, c.y, c.z)].compressed[0] != 0;
}

bool pmf_chunk_read(const pmf_file *f, const pmf_level *lvl, uint32_t level, pmf_chunk_coord c, unsigned parts,
                    pmf_chunk *out, pmf_error *err)
{
    memset(out, 0, sizeof *out);
    out->coord = c;
    char prefix[80];
    snprintf(prefix, sizeof prefix, "level %u chunk (%u,%u,%u)", level, c.x, c.y, c.z);
    if (level >= f->level_count) {
        pmf_error_set(err, f->name, prefix, 0, "level %u does not exist (the file has %u)", level, f->level_count);
        return false;
    }
    const pmf_level_info *li = &f->levels[level];
    if (c.x >= li->count_x || c.y >= li->count_y || c.z >= li->count_z) {
        pmf_error_set(err, f->name, prefix, 0, "outside the %ux%ux%u grid", li->count_x, li->count_y, li->count_z);
        return false;
    }
    if (!lvl || !(lvl->parts & PMF_PART_COMMON)) {
        pmf_error_set(err, f->name, prefix, 0, "the level's common data must be decoded first");
        return false;
    }
    const pmf_chunk_loc *loc = &li->chunks[pmf_grid_index(li, c.x, c.y, c.z)];
    if (loc->compressed[0] == 0)
        return true;
    pmf_arena *a = pmf_arena_create();
    if (!a) {
        pmf_error_set(err, f->name, prefix, 0, "out of memory");
        return false;
    }
    parts |= PMF_PART_COMMON;
    /* the blocks lie back to back: one read for all that are wanted (when it falls short, each
     * block reads its own, to name the one that cannot be read) */
    int last = parts & PMF_PART_SERVER ? 2 : parts & PMF_PART_CLIENT ? 1 : 0;
    uint64_t span = 0;
    for (int i = 0; i <= last; i++)
        span += loc->compressed[i];
    uint8_t *stored = !f->data && last && span <= f->size ? pmf_thread_scratch((size_t)span) : NULL;
    if (stored && !pmf_file_read(f, loc->offset, (size_t)span, stored, prefix, NULL)) {
        pmf_thread_scratch_return(stored);
        stored = NULL;
    }
    const uint8_t *data[3] = { NULL, NULL, NULL };
    size_t size[3] = { 0, 0, 0 };
    uint64_t offset = loc->offset;
    bool ok = true;
    for (int i = 0; i < 3 && ok; i++) {
        if (parts & (1u << i)) {
            ok = pmf_block_load(f, offset, loc->compressed[i], loc->decompressed[i],
                                stored ? stored + (offset - loc->offset) : NULL, a, prefix, pmf_part_names[i], &data[i],
                                err);
            size[i] = loc->decompressed[i];
        }
        offset += loc->compressed[i];
    }
    pmf_thread_scratch_return(stored);
    if (!ok) {
        pmf_arena_destroy(a);
        return false;
    }
    if (!pmf_decode_chunk_blocks(lvl, f->name, prefix, data, size, parts, a, out, err)) {
        pmf_arena_destroy(a);
        memset(out, 0, sizeof *out);
        out->coord = c;
        return false;
    }
    out->arena_ = a;
    return true;
}

void pmf_chunk_free(pmf_chunk *chunk)
{
    pmf_arena_destroy(chunk->arena_);
    memset(chunk, 0, sizeof *chunk);
}
