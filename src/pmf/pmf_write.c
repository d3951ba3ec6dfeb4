/* pmf_write.c - assembling a PMF file: header and Data, levels with their chunk grids, written
 * atomically (temp file in the same directory, then rename) or to memory. */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "pmf_internal.h"

/* A chunk put in the current or a finished level: its frames in memory, or in the spool. */
typedef struct chunk_slot {
    uint8_t *bytes;              /* NULL when spooled (or absent: compressed[0] == 0) */
    uint64_t spool_at;
    uint32_t compressed[3], decompressed[3];
} chunk_slot;

/* A level as it will be written: its head, then the chunk table and the chunks in grid order. */
typedef struct level_out {
    pmf_buf head;                /* flags, block sizes, level blocks, chunk size, grid, centre */
    chunk_slot *grid;            /* [pmf_grid_index] */
    size_t grid_count;           /* up to 2^32: not a u32 */
    uint64_t size;               /* the whole level's bytes */
} level_out;

struct pmf_writer {
    pmf_buf head;                /* header, Data string table, archive, extensions */
    level_out *levels;           /* finished levels */
    uint32_t level_count;
    uint8_t *global_entities;
    size_t global_entities_size;
    uint32_t global_entity_count;
    /* the level being written */
    bool in_level;
    level_out level;
    pmf_chunk_coord grid;        /* its counts */
    /* chunks go to the spool once pmf_writer_stream has opened it: memory keeps their sizes only */
    int spool_fd;
    uint64_t spool_size;
    char *spool_dir;             /* for errors */
};

static void put_cstring(pmf_buf *b, const char *s)
{
    if (!s)
        s = "";
    pmf_put_bytes(b, s, strlen(s) + 1);
}

pmf_writer *pmf_writer_create(const pmf_header *header, const pmf_data_desc *data, pmf_error *err)
{
    if (header->gamemode_count > PMF_MAX_GAMEMODES) {
        pmf_error_set(err, "(writer)", "header", 0, "gamemode count %u is more than %d", header->gamemode_count,
                      PMF_MAX_GAMEMODES);
        return NULL;
    }
    for (unsigned i = 0; i < header->gamemode_count; i++) {
        if (header->gamemodes[i] && strlen(header->gamemodes[i]) > PMF_MAX_GAMEMODE_LEN) {
            pmf_error_set(err, "(writer)", "header", 0, "gamemode name '%s' is longer than %d bytes", header->gamemodes[i],
                          PMF_MAX_GAMEMODE_LEN);
            return NULL;
        }
    }
    if (data->string_table.size > UINT32_MAX || data->archive.size > UINT32_MAX) {
        pmf_error_set(err, "(writer)", "data", 0, "string table or archive larger than 4 GiB");
        return NULL;
    }
    pmf_writer *w = calloc(1, sizeof *w);
    if (!w) {
        pmf_error_set(err, "(writer)", "header", 0, "out of memory");
        return NULL;
    }
    w->spool_fd = -1;
    pmf_buf *b = &w->head;
    pmf_put_bytes(b, "PMF", 3);
    pmf_put_u8(b, PMF_VERSION_MAJOR);
    pmf_put_u64(b, header->created);
    put_cstring(b, header->name);
    put_cstring(b, header->description);
    put_cstring(b, header->authors);
    put_cstring(b, header->compiler);
    pmf_put_u8(b, header->gamemode_count);
    for (unsigned i = 0; i < header->gamemode_count; i++)
        put_cstring(b, header->gamemodes[i]);

    pmf_put_u32(b, (uint32_t)data->string_table.size);
    pmf_put_bytes(b, data->string_table.data, data->string_table.size);
    pmf_put_u32(b, (uint32_t)data->archive.size);
    pmf_put_bytes(b, data->archive.data, data->archive.size);
    pmf_put_u16(b, data->extension_count);
    for (unsigned i = 0; i < data->extension_count; i++) {
        if (data->extensions[i].size > UINT32_MAX)
            b->oom = true;
        pmf_put_u32(b, (uint32_t)data->extensions[i].size);
    }
    for (unsigned i = 0; i < data->extension_count; i++)
        pmf_put_bytes(b, data->extensions[i].data, data->extensions[i].size);

    w->global_entity_count = data->global_entity_count;
    if (data->global_entities.size) {
        w->global_entities = malloc(data->global_entities.size);
        if (w->global_entities) {
            memcpy(w->global_entities, data->global_entities.data, data->global_entities.size);
            w->global_entities_size = data->global_entities.size;
        } else {
            b->oom = true;
        }
    }
    if (b->oom) {
        pmf_error_set(err, "(writer)", "data", 0, "out of memory or an extension larger than 4 GiB");
        pmf_writer_destroy(w);
        return NULL;
    }
    if (w->global_entity_count > w->global_entities_size ||
        (w->global_entity_count == 0 && w->global_entities_size)) {
        pmf_error_set(err, "(writer)", "data", 0, "%u global entities in %zu bytes", w->global_entity_count,
                      w->global_entities_size);
        pmf_writer_destroy(w);
        return NULL;
    }
    return w;
}

static void level_out_free(level_out *l)
{
    for (size_t i = 0; i < l->grid_count; i++)
        free(l->grid[i].bytes);
    free(l->grid);
    pmf_buf_free(&l->head);
    memset(l, 0, sizeof *l);
}

static uint64_t slot_size(const chunk_slot *s)
{
    return (uint64_t)s->compressed[0] + s->compressed[1] + s->compressed[2];
}

/* Moves the current level to the finished ones. */
static bool end_level(pmf_writer *w, pmf_error *err)
{
    if (!w->in_level)
        return true;
    w->in_level = false;
    level_out *l = &w->level;
    l->size = l->head.size + (uint64_t)l->grid_count * 6 * 4;
    for (size_t i = 0; i < l->grid_count; i++)
        l->size += slot_size(&l->grid[i]);
    uint32_t index = w->level_count;
    if (l->head.oom || l->size > UINT32_MAX) {
        pmf_error_set(err, "(writer)", "data", 0, "level %u: out of memory or larger than 4 GiB", index);
        level_out_free(l);
        return false;
    }
    level_out *levels = realloc(w->levels, (w->level_count + 1) * sizeof *levels);
    if (!levels) {
        pmf_error_set(err, "(writer)", "data", 0, "out of memory");
        level_out_free(l);
        return false;
    }
    w->levels = levels;
    w->levels[w->level_count++] = *l;
    memset(l, 0, sizeof *l);
    return true;
}

bool pmf_writer_begin_level(pmf_writer *w, const pmf_level *lvl, pmf_error *err)
{
    if (!end_level(w, err))
        return false;
    char prefix[32];
    snprintf(prefix, sizeof prefix, "level %u", w->level_count);
    if (w->level_count >= 255) {
        pmf_error_set(err, "(writer)", prefix, 0, "a file holds at most 255 levels");
        return false;
    }
    pmf_buf blocks[3];
    uint8_t *level_blocks = NULL;
    uint32_t compressed[3], decompressed[3];
    bool ok = pmf_encode_level_blocks(lvl, prefix, blocks, err) &&
              pmf_compress_blocks(blocks, prefix, &level_blocks, compressed, decompressed, err);
    for (int i = 0; i < 3; i++)
        pmf_buf_free(&blocks[i]);
    if (!ok)
        return false;
    level_out *l = &w->level;
    memset(l, 0, sizeof *l);
    pmf_buf *b = &l->head;
    pmf_put_u8(b, lvl->flags);
    for (int i = 0; i < 3; i++)
        pmf_put_u32(b, compressed[i]);
    for (int i = 0; i < 3; i++)
        pmf_put_u32(b, decompressed[i]);
    pmf_put_bytes(b, level_blocks, (size_t)compressed[0] + compressed[1] + compressed[2]);
    free(level_blocks);
    pmf_put_u8(b, lvl->chunk_size_exp);
    pmf_put_u32(b, (lvl->count_y - 1) << 24 | (lvl->count_x - 1) << 12 | (lvl->count_z - 1));
    pmf_put_u32(b, pmf_chunk_index_pack(lvl->center));
    w->grid = (pmf_chunk_coord){ lvl->count_x, lvl->count_y, lvl->count_z };
    l->grid_count = (size_t)lvl->count_x * lvl->count_y * lvl->count_z;
    l->grid = calloc(l->grid_count, sizeof *l->grid);
    if (!l->grid || b->oom) {
        pmf_error_set(err, "(writer)", prefix, 0, "out of memory for a %zu-chunk grid", l->grid_count);
        l->grid_count = 0;
        level_out_free(l);
        return false;
    }
    w->in_level = true;
    return true;
}

bool pmf_writer_stream(pmf_writer *w, const char *path, pmf_error *err)
{
    if (w->spool_fd >= 0)
        return true;
    char why[sizeof err->message];
    w->spool_fd = atomic_file_scratch(path, why, sizeof why);
    if (w->spool_fd < 0) {
        pmf_error_set(err, path, "file", 0, "%s", why);
        return false;
    }
    w->spool_dir = strdup(path);
    return true;
}

static size_t write_full(int fd, const void *data, size_t size)
{
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, (const uint8_t *)data + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    return done;
}

bool pmf_writer_put_chunk(pmf_writer *w, pmf_chunk_coord c, pmf_encoded_chunk *enc, pmf_error *err)
{
    pmf_encoded_chunk taken = *enc;
    memset(enc, 0, sizeof *enc);
    char prefix[80];
    snprintf(prefix, sizeof prefix, "level %u chunk (%u,%u,%u)", w->level_count, c.x, c.y, c.z);
    const char *problem = NULL;
    chunk_slot *slot = NULL;
    if (!w->in_level)
        problem = "no level begun";
    else if (c.x >= w->grid.x || c.y >= w->grid.y || c.z >= w->grid.z)
        problem = "outside the level's grid";
    else if (taken.compressed[0] == 0 || !taken.bytes)
        problem = "not an encoded chunk";
    else if ((slot = &w->level.grid[((size_t)c.y * w->grid.x + c.x) * w->grid.z + c.z])->compressed[0])
        problem = "chunk put twice";
    if (problem) {
        pmf_error_set(err, "(writer)", prefix, 0, "%s", problem);
        pmf_encoded_chunk_free(&taken);
        return false;
    }
    memcpy(slot->compressed, taken.compressed, sizeof slot->compressed);
    memcpy(slot->decompressed, taken.decompressed, sizeof slot->decompressed);
    if (w->spool_fd < 0) {
        slot->bytes = taken.bytes;
        return true;
    }
    size_t size = (size_t)slot_size(slot);
    errno = 0;
    bool ok = write_full(w->spool_fd, taken.bytes, size) == size;
    pmf_encoded_chunk_free(&taken);
    if (!ok) {
        pmf_error_set(err, w->spool_dir, prefix, w->spool_size, "cannot write the scratch file next to it: %s",
                      strerror(errno ? errno : ENOSPC));
        memset(slot, 0, sizeof *slot);
        return false;
    }
    slot->spool_at = w->spool_size;
    w->spool_size += size;
    return true;
}

/* Where the file goes: memory or a stdio stream. */
typedef struct sink {
    pmf_buf *buf;
    FILE *fp;
} sink;

static bool sink_put(sink *s, const void *data, size_t size)
{
    if (s->buf) {
        pmf_put_bytes(s->buf, data, size);
        return !s->buf->oom;
    }
    return size == 0 || fwrite(data, 1, size, s->fp) == size;
}

/* The whole file, in order; chunks copied back from the spool through one buffer. */
static bool emit(pmf_writer *w, sink *s, const char *name, pmf_error *err)
{
    uint8_t index[1 + 4 * 255], *p = index;
    *p++ = (uint8_t)w->level_count;
    for (uint32_t i = 0; i < w->level_count; i++, p += 4) {
        uint32_t size = (uint32_t)w->levels[i].size;
        p[0] = (uint8_t)size, p[1] = (uint8_t)(size >> 8), p[2] = (uint8_t)(size >> 16), p[3] = (uint8_t)(size >> 24);
    }
    bool ok = sink_put(s, w->head.data, w->head.size) && sink_put(s, index, (size_t)(p - index));
    uint8_t *copy = NULL;
    size_t copy_cap = 0;
    for (uint32_t i = 0; ok && i < w->level_count; i++) {
        const level_out *l = &w->levels[i];
        ok = sink_put(s, l->head.data, l->head.size);
        for (size_t k = 0; ok && k < l->grid_count; k++) {
            uint8_t loc[24];
            for (int j = 0; j < 6; j++) {
                uint32_t v = j < 3 ? l->grid[k].compressed[j] : l->grid[k].decompressed[j - 3];
                loc[4 * j] = (uint8_t)v, loc[4 * j + 1] = (uint8_t)(v >> 8), loc[4 * j + 2] = (uint8_t)(v >> 16),
                loc[4 * j + 3] = (uint8_t)(v >> 24);
            }
            ok = sink_put(s, loc, sizeof loc);
        }
        for (size_t k = 0; ok && k < l->grid_count; k++) {
            const chunk_slot *c = &l->grid[k];
            size_t size = (size_t)slot_size(c);
            if (c->bytes || !size) {
                ok = sink_put(s, c->bytes, size);
                continue;
            }
            if (size > copy_cap) {
                uint8_t *grown = realloc(copy, size);
                if (!grown) {
                    pmf_error_set(err, "(writer)", "data", 0, "out of memory");
                    free(copy);
                    return false;
                }
                copy = grown;
                copy_cap = size;
            }
            errno = 0;
            if (pmf_pread_full(w->spool_fd, c->spool_at, copy, size) != size) {
                pmf_error_set(err, w->spool_dir, "file", c->spool_at, "cannot read the scratch file back: %s",
                              strerror(errno ? errno : EIO));
                free(copy);
                return false;
            }
            ok = sink_put(s, copy, size);
        }
    }
    free(copy);
    uint8_t count[4] = { (uint8_t)w->global_entity_count, (uint8_t)(w->global_entity_count >> 8),
                         (uint8_t)(w->global_entity_count >> 16), (uint8_t)(w->global_entity_count >> 24) };
    ok = ok && sink_put(s, count, 4) && sink_put(s, w->global_entities, w->global_entities_size);
    if (!ok && s->buf)
        pmf_error_set(err, "(writer)", "data", 0, "out of memory");
    else if (!ok)
        pmf_error_set(err, name, "file", 0, "cannot write: %s", strerror(errno ? errno : EIO));
    return ok;
}

static uint64_t file_size(const pmf_writer *w)
{
    uint64_t size = w->head.size + 1 + 4ull * w->level_count + 4 + w->global_entities_size;
    for (uint32_t i = 0; i < w->level_count; i++)
        size += w->levels[i].size;
    return size;
}

bool pmf_writer_finish_memory(pmf_writer *w, uint8_t **out, size_t *size, pmf_error *err)
{
    if (!end_level(w, err))
        return false;
    pmf_buf b = { 0 };
    uint64_t total = file_size(w);
    if (total > SIZE_MAX) {
        pmf_error_set(err, "(writer)", "data", 0, "out of memory");
        return false;
    }
    pmf_buf_reserve(&b, (size_t)total);
    sink s = { &b, NULL };
    if (!emit(w, &s, "(writer)", err)) {
        pmf_buf_free(&b);
        return false;
    }
    *out = b.data;
    *size = b.size;
    return true;
}

bool pmf_writer_finish(pmf_writer *w, const char *path, pmf_error *err)
{
    if (!end_level(w, err))
        return false;
    atomic_file af;
    char why[sizeof err->message];
    if (!atomic_file_open(&af, path, why, sizeof why)) {
        pmf_error_set(err, path, "file", 0, "%s", why);
        return false;
    }
    errno = 0;
    sink s = { NULL, af.fp };
    if (!emit(w, &s, path, err)) {
        atomic_file_abort(&af);
        return false;
    }
    if (!atomic_file_commit(&af, why, sizeof why)) {
        pmf_error_set(err, path, "file", 0, "%s", why);
        return false;
    }
    return true;
}

void pmf_writer_destroy(pmf_writer *w)
{
    if (!w)
        return;
    level_out_free(&w->level);
    for (uint32_t i = 0; i < w->level_count; i++)
        level_out_free(&w->levels[i]);
    free(w->levels);
    free(w->global_entities);
    pmf_buf_free(&w->head);
    if (w->spool_fd >= 0)
        close(w->spool_fd);
    free(w->spool_dir);
    free(w);
}
