/* pak_read.c - one PAK archive: header, directory, name lookup, entries read on demand (see pak.h). */
#include "pak.h"
#include "base/order.h"
#include "base/pmf_budget.h"
#include "base/pmf_os.h"
#include "pmf/pmf_bytes.h"

#include <errno.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#define HEADER_SIZE 12u
#define ENTRY_SIZE 64u

typedef struct pak_entry {
    char name[PAK_NAME_SIZE];
    uint32_t offset, size;
} pak_entry;

typedef struct name_key {
    char folded[PAK_NAME_SIZE];    /* lower case, '/' for '\' */
    uint32_t entry;
} name_key;

struct pak_file {
    const uint8_t *data;           /* the archive in memory (pak_open_memory), else NULL */
    int fd;                        /* pak_open's descriptor, else -1 */
    uint64_t size;
    pak_entry *entries;
    name_key *by_name;             /* sorted by folded name; a stable sort keeps directory order within a name */
    uint32_t count;
    char name[];                   /* the file, for errors */
};

const char *pak_escape_name(const char *name, char *buf, size_t size)
{
    size_t len = 0;
    if (!size)
        return buf;
    buf[0] = '\0';
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
        char one[5];
        if (*c < 0x20 || *c >= 0x7F)
            snprintf(one, sizeof one, "\\x%02X", *c);
        else
            snprintf(one, sizeof one, *c == '\\' ? "\\\\" : "%c", *c);
        size_t add = strlen(one);
        if (len + add >= size)
            break;
        memcpy(buf + len, one, add + 1);
        len += add;
    }
    return buf;
}

static void fold_name(const char *name, char folded[PAK_NAME_SIZE])
{
    size_t i = 0;
    for (; i < PAK_NAME_SIZE - 1 && name[i]; i++) {
        char c = name[i] == '\\' ? '/' : name[i];
        folded[i] = c >= 'A' && c <= 'Z' ? (char)(c + ('a' - 'A')) : c;
    }
    memset(folded + i, 0, PAK_NAME_SIZE - i);
}

static int compare_keys(const void *a, const void *b)
{
    return memcmp(((const name_key *)a)->folded, ((const name_key *)b)->folded, PAK_NAME_SIZE);
}

/* Reads exactly size bytes at offset of the archive (memory or descriptor); false when it shrank. */
static bool read_at(const pak_file *p, uint64_t offset, void *dst, size_t size)
{
    if (p->data) {
        memcpy(dst, p->data + offset, size);
        return true;
    }
    size_t done = 0;
    while (done < size) {
        long long r = pmf_os_pread(p->fd, (uint8_t *)dst + done, size - done, offset + done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        done += (size_t)r;
    }
    return true;
}

static bool read_entry(pak_file *p, uint32_t i, pmf_cursor *c)
{
    pak_entry *e = &p->entries[i];
    uint64_t at = c->base + c->pos;
    const uint8_t *name = pmf_take(c, PAK_NAME_SIZE, "entry name");
    e->offset = pmf_read_u32(c, "file offset");
    e->size = pmf_read_u32(c, "file size");
    if (c->failed)
        return false;
    char where[64];
    snprintf(where, sizeof where, "directory entry %u", i);
    if (!memchr(name, '\0', PAK_NAME_SIZE)) {
        pmf_error_set(c->err, p->name, where, at, "name has no NUL within %u bytes", PAK_NAME_SIZE);
        return false;
    }
    memcpy(e->name, name, PAK_NAME_SIZE);
    fold_name(e->name, p->by_name[i].folded);
    p->by_name[i].entry = i;
    if (e->offset > p->size || e->size > p->size - e->offset) {
        char shown[4 * PAK_NAME_SIZE];
        pmf_error_set(c->err, p->name, where, at + PAK_NAME_SIZE, "%s: %u bytes at byte %u run past the end of the %llu-byte archive",
                      pak_escape_name(e->name, shown, sizeof shown), e->size, e->offset, (unsigned long long)p->size);
        return false;
    }
    return true;
}

static bool read_directory(pak_file *p, pmf_error *err)
{
    uint8_t head[HEADER_SIZE];
    if (p->size < HEADER_SIZE) {
        pmf_error_set(err, p->name, "header", 0, "%llu bytes are shorter than the %u-byte header", (unsigned long long)p->size,
                      HEADER_SIZE);
        return false;
    }
    if (!read_at(p, 0, head, HEADER_SIZE)) {
        pmf_error_set(err, p->name, "file", 0, "cannot read the header (the file shrank or a read failed)");
        return false;
    }
    if (memcmp(head, "PACK", 4) != 0) {
        char magic[5] = { 0 }, shown[24];
        memcpy(magic, head, 4);
        pmf_error_set(err, p->name, "header", 0, "bad magic '%s' (expected 'PACK')", pak_escape_name(magic, shown, sizeof shown));
        return false;
    }
    pmf_cursor c = pmf_cursor_make(head, HEADER_SIZE, 0, p->name, "header", err);
    pmf_take(&c, 4, "magic");
    uint32_t dir = pmf_read_u32(&c, "directory offset"), dir_size = pmf_read_u32(&c, "directory size");
    if (dir > p->size || dir_size > p->size - dir) {
        pmf_error_set(err, p->name, "header", 4, "directory of %u bytes at byte %u runs past the end of the %llu-byte archive",
                      dir_size, dir, (unsigned long long)p->size);
        return false;
    }
    if (dir_size % ENTRY_SIZE || dir_size / ENTRY_SIZE > PAK_MAX_ENTRIES) {
        pmf_error_set(err, p->name, "header", 8, "directory of %u bytes is not a whole number of %u-byte entries, up to %u",
                      dir_size, ENTRY_SIZE, PAK_MAX_ENTRIES);
        return false;
    }
    p->count = dir_size / ENTRY_SIZE;
    uint8_t *bytes = pmf_budget_malloc(dir_size ? dir_size : 1);
    p->entries = pmf_budget_calloc(p->count ? p->count : 1, sizeof *p->entries);
    p->by_name = pmf_budget_calloc(p->count ? p->count : 1, sizeof *p->by_name);
    bool ok = bytes && p->entries && p->by_name;
    if (!ok)
        pmf_error_set(err, p->name, "directory", dir, "out of memory for %u entries", p->count);
    else if (!(ok = read_at(p, dir, bytes, dir_size)))
        pmf_error_set(err, p->name, "file", dir, "cannot read the directory (the file shrank or a read failed)");
    pmf_cursor entries = pmf_cursor_make(bytes, dir_size, dir, p->name, "directory", err);
    for (uint32_t i = 0; ok && i < p->count; i++)
        ok = read_entry(p, i, &entries);
    pmf_budget_free(bytes);
    if (ok)
        order_sort(p->by_name, p->count, sizeof *p->by_name, compare_keys);
    return ok;
}

static pak_file *pak_new(const char *name, pmf_error *err)
{
    pak_file *p = pmf_reader_handle(sizeof *p, offsetof(pak_file, name), name, err);
    if (!p)
        return NULL;
    p->fd = -1;
    return p;
}

pak_file *pak_open_memory(const uint8_t *data, size_t size, const char *name, pmf_error *err)
{
    pak_file *p = pak_new(name, err);
    if (!p)
        return NULL;
    p->data = data;
    p->size = size;
    if (!read_directory(p, err)) {
        pak_close(p);
        return NULL;
    }
    return p;
}

pak_file *pak_open(const char *path, pmf_error *err)
{
    pmf_os_file_info st;
    int fd = pmf_open_regular(path, &st, err);
    if (fd < 0)
        return NULL;
    pak_file *p = pak_new(path, err);
    if (!p) {
        close(fd);
        return NULL;
    }
    p->fd = fd;
    p->size = st.size;
    if (!read_directory(p, err)) {
        pak_close(p);
        return NULL;
    }
    return p;
}

void pak_close(pak_file *p)
{
    if (!p)
        return;
    if (p->fd >= 0)
        close(p->fd);
    pmf_budget_free(p->entries);
    pmf_budget_free(p->by_name);
    pmf_budget_free(p);
}

uint32_t pak_count(const pak_file *p) { return p->count; }
const char *pak_name(const pak_file *p, uint32_t i) { return i < p->count ? p->entries[i].name : NULL; }
uint32_t pak_entry_size(const pak_file *p, uint32_t i) { return i < p->count ? p->entries[i].size : 0; }

int64_t pak_find(const pak_file *p, const char *name)
{
    if (strnlen(name, PAK_NAME_SIZE) >= PAK_NAME_SIZE)
        return -1;
    char key[PAK_NAME_SIZE];
    fold_name(name, key);
    uint32_t lo = 0, hi = p->count;  /* lower bound: the first entry of the name wins */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (memcmp(p->by_name[mid].folded, key, PAK_NAME_SIZE) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < p->count && memcmp(p->by_name[lo].folded, key, PAK_NAME_SIZE) == 0)
        return p->by_name[lo].entry;
    return -1;
}

bool pak_read(const pak_file *p, uint32_t i, uint64_t max_size, uint8_t **bytes, size_t *size, pmf_error *err)
{
    *bytes = NULL;
    *size = 0;
    const pak_entry *e = &p->entries[i];
    char where[sizeof err->block], shown[sizeof err->block - 20];  /* "entry N (" and ")" fit beside it */
    snprintf(where, sizeof where, "entry %u (%s)", i, pak_escape_name(e->name, shown, sizeof shown));
    if (e->size > max_size) {
        pmf_error_set(err, p->name, where, e->offset, "%u bytes, more than the %llu this kind of file may have", e->size,
                      (unsigned long long)max_size);
        return false;
    }
    uint8_t *data = pmf_budget_malloc(e->size ? e->size : 1);
    if (!data) {
        pmf_error_set(err, p->name, where, e->offset, "%u bytes are more than the memory budget leaves (see --memory)", e->size);
        return false;
    }
    if (!read_at(p, e->offset, data, e->size)) {
        pmf_budget_free(data);
        pmf_error_set(err, p->name, where, e->offset, "cannot read (the archive shrank or a read failed)");
        return false;
    }
    *bytes = data;
    *size = e->size;
    return true;
}
