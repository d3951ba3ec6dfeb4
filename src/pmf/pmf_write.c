/* pmf_write.c - assembling a PMF file: header and Data, levels with their chunk grids, written
 * atomically (temp file in the same directory, then rename) or to memory. */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "pmf_internal.h"

struct pmf_writer {
    pmf_buf head;                /* header, Data string table, archive, extensions */
    pmf_buf *levels;             /* finished levels' data */
    uint32_t level_count;
    uint8_t *global_entities;
    size_t global_entities_size;
    uint32_t global_entity_count;
    /* the level being written */
    bool in_level;
    pmf_level frame;             /* flags, chunk size, grid, centre (no parts) */
    uint8_t *level_blocks;
    uint32_t compressed[3], decompressed[3];
    pmf_encoded_chunk *grid;     /* [pmf_grid_index] */
    size_t grid_count;           /* up to 2^32: not a u32 */
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

static void drop_level(pmf_writer *w)
{
    for (size_t i = 0; i < w->grid_count; i++)
        pmf_encoded_chunk_free(&w->grid[i]);
    free(w->grid);
    free(w->level_blocks);
    w->grid = NULL;
    w->grid_count = 0;
    w->level_blocks = NULL;
    w->in_level = false;
}

/* Lays out the current level's data and frees its pieces. */
static bool end_level(pmf_writer *w, pmf_error *err)
{
    if (!w->in_level)
        return true;
    /* Sized exactly up front and each chunk freed once copied: the peak stays near one copy of
     * the level (a generated city's chunks run to hundreds of MiB). */
    size_t total = 1 + 6 * 4 + (size_t)w->compressed[0] + w->compressed[1] + w->compressed[2] + 1 + 4 + 4;
    for (size_t i = 0; i < w->grid_count; i++) {
        const pmf_encoded_chunk *e = &w->grid[i];
        total += 6 * 4 + (size_t)e->compressed[0] + e->compressed[1] + e->compressed[2];
    }
    pmf_buf b = { 0 };
    pmf_buf_reserve(&b, total);
    pmf_put_u8(&b, w->frame.flags);
    for (int i = 0; i < 3; i++)
        pmf_put_u32(&b, w->compressed[i]);
    for (int i = 0; i < 3; i++)
        pmf_put_u32(&b, w->decompressed[i]);
    pmf_put_bytes(&b, w->level_blocks, (size_t)w->compressed[0] + w->compressed[1] + w->compressed[2]);
    pmf_put_u8(&b, w->frame.chunk_size_exp);
    pmf_put_u32(&b, (w->frame.count_y - 1) << 24 | (w->frame.count_x - 1) << 12 | (w->frame.count_z - 1));
    pmf_put_u32(&b, pmf_chunk_index_pack(w->frame.center));
    for (size_t i = 0; i < w->grid_count; i++) {
        for (int k = 0; k < 3; k++)
            pmf_put_u32(&b, w->grid[i].compressed[k]);
        for (int k = 0; k < 3; k++)
            pmf_put_u32(&b, w->grid[i].decompressed[k]);
    }
    for (size_t i = 0; i < w->grid_count; i++) {
        pmf_encoded_chunk *e = &w->grid[i];
        pmf_put_bytes(&b, e->bytes, (size_t)e->compressed[0] + e->compressed[1] + e->compressed[2]);
        pmf_encoded_chunk_free(e);
    }
    uint32_t index = w->level_count;
    drop_level(w);
    if (b.oom || b.size > UINT32_MAX) {
        pmf_error_set(err, "(writer)", "data", 0, "level %u: out of memory or larger than 4 GiB", index);
        pmf_buf_free(&b);
        return false;
    }
    pmf_buf *levels = realloc(w->levels, (w->level_count + 1) * sizeof *levels);
    if (!levels) {
        pmf_error_set(err, "(writer)", "data", 0, "out of memory");
        pmf_buf_free(&b);
        return false;
    }
    w->levels = levels;
    w->levels[w->level_count++] = b;
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
    bool ok = pmf_encode_level_blocks(lvl, prefix, blocks, err) &&
              pmf_compress_blocks(blocks, prefix, &w->level_blocks, w->compressed, w->decompressed, err);
    for (int i = 0; i < 3; i++)
        pmf_buf_free(&blocks[i]);
    if (!ok)
        return false;
    memset(&w->frame, 0, sizeof w->frame);
    w->frame.flags = lvl->flags;
    w->frame.chunk_size_exp = lvl->chunk_size_exp;
    w->frame.count_x = lvl->count_x;
    w->frame.count_y = lvl->count_y;
    w->frame.count_z = lvl->count_z;
    w->frame.center = lvl->center;
    w->grid_count = (size_t)lvl->count_x * lvl->count_y * lvl->count_z;
    w->grid = calloc(w->grid_count, sizeof *w->grid);
    if (!w->grid) {
        free(w->level_blocks);
        w->level_blocks = NULL;
        pmf_error_set(err, "(writer)", prefix, 0, "out of memory for a %zu-chunk grid", w->grid_count);
        w->grid_count = 0;
        return false;
    }
    w->in_level = true;
    return true;
}

bool pmf_writer_put_chunk(pmf_writer *w, pmf_chunk_coord c, pmf_encoded_chunk *enc, pmf_error *err)
{
    pmf_encoded_chunk taken = *enc;
    memset(enc, 0, sizeof *enc);
    char prefix[80];
    snprintf(prefix, sizeof prefix, "level %u chunk (%u,%u,%u)", w->level_count, c.x, c.y, c.z);
    const char *problem = NULL;
    if (!w->in_level)
        problem = "no level begun";
    else if (c.x >= w->frame.count_x || c.y >= w->frame.count_y || c.z >= w->frame.count_z)
        problem = "outside the level's grid";
    else if (taken.compressed[0] == 0 || !taken.bytes)
        problem = "not an encoded chunk";
    else if (w->grid[((size_t)c.y * w->frame.count_x + c.x) * w->frame.count_z + c.z].bytes)
        problem = "chunk put twice";
    if (problem) {
        pmf_error_set(err, "(writer)", prefix, 0, "%s", problem);
        pmf_encoded_chunk_free(&taken);
        return false;
    }
    w->grid[((size_t)c.y * w->frame.count_x + c.x) * w->frame.count_z + c.z] = taken;
    return true;
}

/* The whole file as pieces, in order. */
static bool gather(pmf_writer *w, pmf_buf *index, pmf_error *err)
{
    if (!end_level(w, err))
        return false;
    memset(index, 0, sizeof *index);
    pmf_put_u8(index, (uint8_t)w->level_count);
    for (uint32_t i = 0; i < w->level_count; i++)
        pmf_put_u32(index, (uint32_t)w->levels[i].size);
    if (index->oom) {
        pmf_error_set(err, "(writer)", "data", 0, "out of memory");
        return false;
    }
    return true;
}

static void put_tail(pmf_buf *b, const pmf_writer *w)
{
    pmf_put_u32(b, w->global_entity_count);
    pmf_put_bytes(b, w->global_entities, w->global_entities_size);
}

bool pmf_writer_finish_memory(pmf_writer *w, uint8_t **out, size_t *size, pmf_error *err)
{
    pmf_buf index;
    if (!gather(w, &index, err))
        return false;
    pmf_buf b = { 0 };
    pmf_put_bytes(&b, w->head.data, w->head.size);
    pmf_put_bytes(&b, index.data, index.size);
    for (uint32_t i = 0; i < w->level_count; i++)
        pmf_put_bytes(&b, w->levels[i].data, w->levels[i].size);
    put_tail(&b, w);
    pmf_buf_free(&index);
    if (b.oom) {
        pmf_buf_free(&b);
        pmf_error_set(err, "(writer)", "data", 0, "out of memory");
        return false;
    }
    *out = b.data;
    *size = b.size;
    return true;
}

static bool write_all(FILE *fp, const void *data, size_t size)
{
    return size == 0 || fwrite(data, 1, size, fp) == size;
}

bool pmf_writer_finish(pmf_writer *w, const char *path, pmf_error *err)
{
    pmf_buf index;
    if (!gather(w, &index, err))
        return false;
    pmf_buf tail = { 0 };
    put_tail(&tail, w);
    atomic_file af;
    char why[sizeof err->message];
    if (tail.oom || !atomic_file_open(&af, path, why, sizeof why)) {
        pmf_error_set(err, path, "file", 0, "%s", tail.oom ? "out of memory" : why);
        pmf_buf_free(&index);
        pmf_buf_free(&tail);
        return false;
    }
    bool ok = write_all(af.fp, w->head.data, w->head.size) && write_all(af.fp, index.data, index.size);
    for (uint32_t i = 0; ok && i < w->level_count; i++)
        ok = write_all(af.fp, w->levels[i].data, w->levels[i].size);
    ok = ok && write_all(af.fp, tail.data, tail.size);
    if (!ok) {
        pmf_error_set(err, path, "file", 0, "cannot write: %s", strerror(errno ? errno : EIO));
        atomic_file_abort(&af);
    } else if (!atomic_file_commit(&af, why, sizeof why)) {
        pmf_error_set(err, path, "file", 0, "%s", why);
        ok = false;
    }
    pmf_buf_free(&index);
    pmf_buf_free(&tail);
    return ok;
}

void pmf_writer_destroy(pmf_writer *w)
{
    if (!w)
        return;
    drop_level(w);
    for (uint32_t i = 0; i < w->level_count; i++)
        pmf_buf_free(&w->levels[i]);
    free(w->levels);
    free(w->global_entities);
    pmf_buf_free(&w->head);
    free(w);
}
