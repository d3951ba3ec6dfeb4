/* paf.c - PAF 0.0 archive reader and writer (see paf.h for how the spec is read). */
#include "paf.h"
#include "pmf_bytes.h"
#include "pmf_internal.h"
#include "base/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIR_ENTRY_SIZE 13u
#define HEAD_SIZE 12u                /* Directory / File / String: total, segment size, next */
#define MAX_DEPTH (PAF_MAX_PATH / 2 + 1)
/* Segments that carry no item are legal but pointless; allowing only a few keeps every walk
 * linear in what it reads (a chain of thousands of empty segments could otherwise stall us). */
#define MAX_EMPTY_SEGMENTS 16

/* Every reader error names the archive's file and its position in that file. */
#define fail_at(a, pos, err, ...) \
    (pmf_error_set((err), (a)->name, "embedded archive", (a)->base_offset + (pos), __VA_ARGS__), false)

/* The archive's bytes from pos on (pos <= size, checked by the caller) through the shared cursor;
 * its errors name the archive's file and the byte in it. */
static pmf_cursor cursor_at(const paf_archive *a, uint64_t pos, pmf_error *err)
{
    return pmf_cursor_make(a->data + pos, a->size - pos, a->base_offset + pos, a->name, "embedded archive", err);
}

static bool in_bounds(const paf_archive *a, uint64_t pos, uint64_t len) { return pos <= a->size && len <= a->size - pos; }

uint32_t paf_name_crc(const char *name, size_t len)
{
    /* Bitwise CRC-32 (reflected 0xEDB88320): names are short, and no table means no lazy init race. */
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < len; i++) {
        crc ^= (uint8_t)name[i];
        for (int b = 0; b < 8; b++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return crc ^ 0xFFFFFFFFu;
}

/* ---- segmented arrays: Directory / File / String and their continuation chains -------------- */

typedef struct seg_iter {
    const paf_archive *a;
    const char *what;                /* "directory", "file", "string" */
    uint32_t item_size;              /* 13 for directory entries, 1 for bytes */
    uint32_t cont_header;            /* continuation header size: 8, or 12 for files (prev field) */
    uint64_t remaining;              /* items still to take */
    uint32_t seg_pos, seg_items;     /* current segment's data, not yet handed out when pending */
    bool pending;
    uint32_t next;                   /* next continuation, 0 = none */
    uint32_t empty;                  /* segments seen that carried no item */
    uint32_t tortoise, power, steps; /* Brent's cycle detection over segment positions */
} seg_iter;

static bool seg_begin(seg_iter *it, const paf_archive *a, uint32_t pos, const char *what,
                      uint32_t item_size, uint32_t cont_header, pmf_error *err)
{
    if (pos == 0 || !in_bounds(a, pos, HEAD_SIZE))
        return fail_at(a, pos, err, "%s position %u is outside the archive (%zu bytes)", what, pos, a->size);
    pmf_cursor c = cursor_at(a, pos, err);
    uint32_t total = pmf_read_u32(&c, "item count"), count = pmf_read_u32(&c, "segment item count");
    uint32_t next = pmf_read_u32(&c, "continuation");
    if ((uint64_t)total * item_size > a->size)
        return fail_at(a, pos, err, "%s declares %u items, more than the archive holds", what, total);
    if (!in_bounds(a, (uint64_t)pos + HEAD_SIZE, (uint64_t)count * item_size))
        return fail_at(a, pos + 4, err, "%s segment of %u items runs past the archive end", what, count);
    *it = (seg_iter){ .a = a, .what = what, .item_size = item_size, .cont_header = cont_header,
                      .remaining = total, .seg_pos = pos + HEAD_SIZE, .seg_items = count, .pending = true,
                      .next = next, .tortoise = pos, .power = 1 };
    return true;
}

/* Hands out the next run of items (*n > 0), or *n == 0 once the declared total is reached. */
static bool seg_next(seg_iter *it, uint32_t *data_pos, uint32_t *n, pmf_error *err)
{
    const paf_archive *a = it->a;
    for (;;) {
        if (it->remaining == 0) {
            *n = 0;
            return true;
        }
        if (it->pending) {
            uint32_t take = it->seg_items < it->remaining ? it->seg_items : (uint32_t)it->remaining;
            it->pending = false;
            it->remaining -= take;
            if (take > 0) {
                *data_pos = it->seg_pos;
                *n = take;
                return true;
            }
            if (++it->empty > MAX_EMPTY_SEGMENTS)
                return fail_at(a, it->seg_pos, err, "%s has more than %d empty segments", it->what, MAX_EMPTY_SEGMENTS);
            continue;
        }
        uint32_t pos = it->next;
        if (pos == 0)
            return fail_at(a, it->seg_pos, err, "%s ends %llu items short of its declared total", it->what,
                           (unsigned long long)it->remaining);
        if (pos == it->tortoise)
            return fail_at(a, pos, err, "%s continuation chain loops back to position %u", it->what, pos);
        if (it->steps == it->power) {
            it->tortoise = pos;
            it->power *= 2;
            it->steps = 0;
        }
        it->steps++;
        if (!in_bounds(a, pos, it->cont_header))
            return fail_at(a, pos, err, "%s continuation position %u is outside the archive (%zu bytes)",
                           it->what, pos, a->size);
        pmf_cursor c = cursor_at(a, pos, err);
        uint32_t count = pmf_read_u32(&c, "segment item count"), next = pmf_read_u32(&c, "continuation");
        if (!in_bounds(a, (uint64_t)pos + it->cont_header, (uint64_t)count * it->item_size))
            return fail_at(a, pos, err, "%s continuation segment of %u items runs past the archive end",
                           it->what, count);
        it->seg_pos = pos + it->cont_header;
        it->seg_items = count;
        it->pending = true;
        it->next = next;
    }
}

/* Reads a whole segmented byte array (file or string) into malloc'd memory with a NUL after it;
 * more than max_size bytes is an error. */
static bool read_bytes(const paf_archive *a, uint32_t pos, const char *what, uint32_t cont_header, size_t max_size,
                       char **out, size_t *size, pmf_error *err)
{
    seg_iter it;
    if (!seg_begin(&it, a, pos, what, 1, cont_header, err))
        return false;
    size_t total = (size_t)it.remaining, have = 0;
    if (total > max_size)
        return fail_at(a, pos, err, "%s of %zu bytes is longer than %zu", what, total, max_size);
    char *buf = malloc(total + 1);
    if (!buf)
        return fail_at(a, pos, err, "out of memory reading a %s of %zu bytes", what, total);
    for (;;) {
        uint32_t at, n;
        if (!seg_next(&it, &at, &n, err)) {
            free(buf);
            return false;
        }
        if (n == 0)
            break;
        memcpy(buf + have, a->data + at, n);
        have += n;
    }
    buf[have] = '\0';
    *out = buf;
    *size = have;
    return true;
}

/* Names and link paths: strings of at most PAF_MAX_PATH - 1 bytes. */
static bool read_string(const paf_archive *a, uint32_t pos, char **out, size_t *len, pmf_error *err)
{
    return read_bytes(a, pos, "string", 8, PAF_MAX_PATH - 1, out, len, err);
}

/* Compares the string at pos with name[0..len) segment by segment, without a copy. */
static bool string_equals(const paf_archive *a, uint32_t pos, const char *name, size_t len, bool *equal, pmf_error *err)
{
    seg_iter it;
    if (!seg_begin(&it, a, pos, "string", 1, 8, err))
        return false;
    *equal = it.remaining == len;
    for (size_t have = 0; *equal;) {
        uint32_t at, n;
        if (!seg_next(&it, &at, &n, err))
            return false;
        if (n == 0)
            break;
        *equal = memcmp(a->data + at, name + have, n) == 0;
        have += n;
    }
    return true;
}

/* ---- reading ------------------------------------------------------------------------------ */

bool paf_open(const void *data, size_t size, const char *name, uint64_t base_offset,
              paf_archive *out, pmf_error *err)
{
    paf_archive a = { .data = data, .size = size, .base_offset = base_offset };
    snprintf(a.name, sizeof a.name, "%s", name ? name : "");
    if (size > UINT32_MAX)
        return fail_at(&a, 0, err, "archive of %zu bytes is larger than 32-bit positions reach", size);
    if (size < PAF_HEADER_SIZE)
        return fail_at(&a, 0, err, "archive of %zu bytes is shorter than its %u-byte header", size, PAF_HEADER_SIZE);
    if (memcmp(a.data, "PAF", 3) != 0)
        return fail_at(&a, 0, err, "bad magic (expected 'PAF')");
    if (a.data[3] != PAF_VERSION_MAJOR)
        return fail_at(&a, 3, err, "unsupported major version %u", a.data[3]);
    pmf_cursor c = cursor_at(&a, 4, err);
    a.root = pmf_read_u32(&c, "root directory");
    seg_iter it;
    if (!seg_begin(&it, &a, a.root, "root directory", DIR_ENTRY_SIZE, 8, err))
        return false;
    *out = a;
    return true;
}

typedef struct raw_entry { uint8_t type; uint32_t name, crc, target; uint32_t at; } raw_entry;

static bool read_entry(const paf_archive *a, uint32_t at, raw_entry *e, pmf_error *err)
{
    pmf_cursor c = cursor_at(a, at, err);
    *e = (raw_entry){ .type = pmf_read_u8(&c, "entry type"), .name = pmf_read_u32(&c, "entry name"),
                      .crc = pmf_read_u32(&c, "entry name CRC"), .target = pmf_read_u32(&c, "entry target"), .at = at };
    if (c.failed)
        return false;
    if (e->type > PAF_DIRENT_LINK)
        return fail_at(a, at, err, "directory entry has unknown type %u", e->type);
    return true;
}

/* Finds name in the directory at dir. *found = false when absent. */
static bool find_entry(const paf_archive *a, uint32_t dir, const char *name, size_t len,
                       raw_entry *out, bool *found, pmf_error *err)
{
    seg_iter it;
    uint32_t crc = paf_name_crc(name, len);
    *found = false;
    if (!seg_begin(&it, a, dir, "directory", DIR_ENTRY_SIZE, 8, err))
        return false;
    for (;;) {
        uint32_t at, n;
        if (!seg_next(&it, &at, &n, err))
            return false;
        if (n == 0)
            return true;
        for (uint32_t i = 0; i < n; i++, at += DIR_ENTRY_SIZE) {
            raw_entry e;
            if (!read_entry(a, at, &e, err))
                return false;
            if (e.crc != 0 && e.crc != crc)
                continue;
            bool match;
            if (!string_equals(a, e.name, name, len, &match, err))
                return false;
            if (match) {
                *out = e;
                *found = true;
                return true;
            }
        }
    }
}

typedef struct walk_state {
    uint32_t dirs[MAX_DEPTH];        /* dirs[0] = root, dirs[depth - 1] = current directory */
    int depth;
    int hops;
} walk_state;

/* Walks path from the current directory of st. On PAF_FOUND, *out is the final file, or the
 * directory st now stands in (out->type == PAF_DIRENT_DIR). */
static paf_result walk(const paf_archive *a, walk_state *st, const char *path, paf_entry *out, pmf_error *err)
{
    if (path[0] == '/')
        st->depth = 1;
    *out = (paf_entry){ .type = PAF_DIRENT_DIR, .target = st->dirs[st->depth - 1] };
    const char *p = path;
    while (*p) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        const char *end = strchr(p, '/');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *rest = p + len;
        bool last = rest[strspn(rest, "/")] == '\0';
        if (out->type != PAF_DIRENT_DIR)
            return PAF_NOT_FOUND;        /* a file used as a directory */
        if (len == 1 && p[0] == '.') {
            p = rest;
            continue;
        }
        if (len == 2 && p[0] == '.' && p[1] == '.') {
            if (st->depth > 1)
                st->depth--;
            *out = (paf_entry){ .type = PAF_DIRENT_DIR, .target = st->dirs[st->depth - 1] };
            p = rest;
            continue;
        }
        raw_entry e;
        bool found;
        if (!find_entry(a, st->dirs[st->depth - 1], p, len, &e, &found, err))
            return PAF_ERROR;
        if (!found)
            return PAF_NOT_FOUND;
        if (e.type == PAF_DIRENT_LINK) {
            if (++st->hops > PAF_MAX_LINK_HOPS) {
                pmf_error_set(err, a->name, "embedded archive", a->base_offset + e.at,
                              "more than %d links followed (link loop?)", PAF_MAX_LINK_HOPS);
                return PAF_ERROR;
            }
            char *target;
            size_t tlen;
            if (!read_string(a, e.target, &target, &tlen, err))
                return PAF_ERROR;
            paf_result r = walk(a, st, target, out, err);
            free(target);
            if (r != PAF_FOUND)
                return r;
        } else if (e.type == PAF_DIRENT_DIR) {
            if (st->depth == MAX_DEPTH)
                return PAF_NOT_FOUND;
            st->dirs[st->depth++] = e.target;
            *out = (paf_entry){ .type = PAF_DIRENT_DIR, .target = e.target };
        } else {
            *out = (paf_entry){ .type = PAF_DIRENT_FILE, .target = e.target };
            if (!last)
                return PAF_NOT_FOUND;
        }
        p = rest;
    }
    return PAF_FOUND;
}

paf_result paf_lookup(const paf_archive *a, const char *path, paf_entry *out, pmf_error *err)
{
    if (strlen(path) >= PAF_MAX_PATH)
        return PAF_NOT_FOUND;
    walk_state st = { .dirs = { a->root }, .depth = 1 };
    paf_entry e;
    paf_result r = walk(a, &st, path, &e, err);
    if (r == PAF_FOUND)
        *out = e;
    return r;
}

bool paf_read_file(const paf_archive *a, const paf_entry *file, uint8_t **bytes, size_t *size, pmf_error *err)
{
    char *buf;
    if (!read_bytes(a, file->target, "file", 12, SIZE_MAX, &buf, size, err))
        return false;
    if (*size == 0) {
        free(buf);
        buf = NULL;
    }
    *bytes = (uint8_t *)buf;
    return true;
}

paf_result paf_read(const paf_archive *a, const char *path, uint8_t **bytes, size_t *size, pmf_error *err)
{
    paf_entry e;
    paf_result r = paf_lookup(a, path, &e, err);
    if (r != PAF_FOUND)
        return r;
    if (e.type != PAF_DIRENT_FILE)
        return PAF_NOT_FOUND;
    return paf_read_file(a, &e, bytes, size, err) ? PAF_FOUND : PAF_ERROR;
}

bool paf_list(const paf_archive *a, const paf_entry *dir, paf_entry **entries, uint32_t *count, pmf_error *err)
{
    seg_iter it;
    uint32_t dir_pos = dir ? dir->target : a->root;
    if (!seg_begin(&it, a, dir_pos, "directory", DIR_ENTRY_SIZE, 8, err))
        return false;
    uint32_t total = (uint32_t)it.remaining, got = 0;
    /* Strings first go to their own buffers, then everything moves into one block. */
    paf_entry *tmp = calloc(total ? total : 1, sizeof *tmp);
    size_t text = 0;
    bool ok = tmp != NULL || fail_at(a, dir_pos, err, "out of memory listing %u entries", total);
    while (ok) {
        uint32_t at, n;
        if (!(ok = seg_next(&it, &at, &n, err)) || n == 0)
            break;
        for (uint32_t i = 0; ok && i < n; i++, at += DIR_ENTRY_SIZE) {
            raw_entry e;
            size_t len;
            if (!(ok = read_entry(a, at, &e, err) && read_string(a, e.name, &tmp[got].name, &len, err)))
                break;
            tmp[got].type = e.type;
            tmp[got].target = e.target;
            got++;
            text += len + 1;
            if (e.crc != 0 && e.crc != paf_name_crc(tmp[got - 1].name, len)) {
                ok = fail_at(a, at + 5, err, "name crc %08x does not match name \"%s\"", e.crc, tmp[got - 1].name);
                break;
            }
            if (e.type == PAF_DIRENT_LINK) {
                if (!(ok = read_string(a, e.target, &tmp[got - 1].link, &len, err)))
                    break;
                text += len + 1;
            }
        }
    }
    paf_entry *block = NULL;
    if (ok) {
        block = malloc(got * sizeof *block + text + 1);
        if (!block)
            ok = fail_at(a, dir_pos, err, "out of memory listing %u entries", total);
    }
    if (ok) {
        char *s = (char *)(block + got);
        for (uint32_t i = 0; i < got; i++) {
            block[i] = (paf_entry){ .type = tmp[i].type, .target = tmp[i].target, .name = s };
            size_t n = strlen(tmp[i].name) + 1;
            memcpy(s, tmp[i].name, n);
            s += n;
            if (tmp[i].link) {
                block[i].link = s;
                n = strlen(tmp[i].link) + 1;
                memcpy(s, tmp[i].link, n);
                s += n;
            }
        }
        *entries = block;
        *count = got;
    }
    for (uint32_t i = 0; tmp && i < total; i++) {
        free(tmp[i].name);
        free(tmp[i].link);
    }
    free(tmp);
    return ok;
}

/* ---- writing ------------------------------------------------------------------------------ */

typedef struct wnode {
    char *name;
    uint8_t type;                    /* PAF_DIRENT_* */
    uint8_t *data;                   /* file bytes, or the link path */
    size_t size;
    struct wnode *children;          /* directories */
    uint32_t child_count;
    size_t child_cap;
} wnode;

struct paf_writer {
    wnode root;
    uint8_t *buf;
    size_t size, cap;
};

#define wfail(err, path, ...) (pmf_error_set((err), (path), "embedded archive", 0, __VA_ARGS__), false)

paf_writer *paf_writer_create(void)
{
    paf_writer *w = calloc(1, sizeof *w);
    if (w)
        w->root.type = PAF_DIRENT_DIR;
    return w;
}

static void node_free(wnode *n)
{
    for (uint32_t i = 0; i < n->child_count; i++)
        node_free(&n->children[i]);
    free(n->children);
    free(n->name);
    free(n->data);
}

void paf_writer_destroy(paf_writer *w)
{
    if (!w)
        return;
    node_free(&w->root);
    free(w->buf);
    free(w);
}

static wnode *node_child(wnode *dir, const char *name, size_t len)
{
    for (uint32_t i = 0; i < dir->child_count; i++)
        if (strlen(dir->children[i].name) == len && memcmp(dir->children[i].name, name, len) == 0)
            return &dir->children[i];
    return NULL;
}

static wnode *node_add(wnode *dir, const char *name, size_t len, uint8_t type)
{
    if (!grow_array((void **)&dir->children, &dir->child_cap, (size_t)dir->child_count + 1, sizeof *dir->children))
        return NULL;
    char *copy = malloc(len + 1);
    if (!copy)
        return NULL;
    memcpy(copy, name, len);
    copy[len] = '\0';
    wnode *n = &dir->children[dir->child_count++];
    *n = (wnode){ .name = copy, .type = type };
    return n;
}

/* Creates the directories of path and a new leaf of the given type at its end. */
static bool add_leaf(paf_writer *w, const char *path, uint8_t type, const void *data, size_t size, pmf_error *err)
{
    if (size > UINT32_MAX - 64)
        return wfail(err, path, "entry of %zu bytes is too large for a PAF archive", size);
    wnode *dir = &w->root;
    const char *p = path;
    for (;;) {
        while (*p == '/')
            p++;
        const char *end = strchr(p, '/');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        bool last = !end || p[len + strspn(p + len, "/")] == '\0';
        if (len == 0 || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
            return wfail(err, path, "bad path: empty, \".\" or \"..\" component");
        wnode *n = node_child(dir, p, len);
        if (last) {
            if (n)
                return wfail(err, path, "duplicate path: already in the archive");
            if (!(n = node_add(dir, p, len, type)))
                return wfail(err, path, "out of memory");
            if (size > 0) {
                if (!(n->data = malloc(size)))
                    return wfail(err, path, "out of memory");
                memcpy(n->data, data, size);
            }
            n->size = size;
            return true;
        }
        if (!n && !(n = node_add(dir, p, len, PAF_DIRENT_DIR)))
            return wfail(err, path, "out of memory");
        if (n->type != PAF_DIRENT_DIR)
            return wfail(err, path, "bad path: a file or link stands where a directory is needed");
        dir = n;
        p += len;
    }
}

bool paf_writer_add_file(paf_writer *w, const char *path, const void *data, size_t size, pmf_error *err)
{
    if (strlen(path) >= PAF_MAX_PATH)
        return wfail(err, path, "path longer than %d bytes", PAF_MAX_PATH - 1);
    return add_leaf(w, path, PAF_DIRENT_FILE, data, size, err);
}

bool paf_writer_add_link(paf_writer *w, const char *path, const char *target, pmf_error *err)
{
    if (strlen(path) >= PAF_MAX_PATH || strlen(target) >= PAF_MAX_PATH)
        return wfail(err, path, "path or link target longer than %d bytes", PAF_MAX_PATH - 1);
    return add_leaf(w, path, PAF_DIRENT_LINK, target, strlen(target), err);
}

/* Appends n bytes (data may be NULL: zeros) and returns their position, or UINT32_MAX. */
static uint32_t put(paf_writer *w, const void *data, size_t n)
{
    if (w->size + n > UINT32_MAX - 1)
        return UINT32_MAX;
    if (w->size + n > w->cap) {
        size_t cap = w->cap ? w->cap : 4096;
        while (cap < w->size + n)
            cap *= 2;
        uint8_t *b = realloc(w->buf, cap);
        if (!b)
            return UINT32_MAX;
        w->buf = b;
        w->cap = cap;
    }
    uint32_t pos = (uint32_t)w->size;
    if (data)
        memcpy(w->buf + pos, data, n);
    else
        memset(w->buf + pos, 0, n);
    w->size += n;
    return pos;
}

static void wr32(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24); }

/* A one-segment File or String: total, segment size, no continuation, data. */
static uint32_t put_segmented(paf_writer *w, const void *data, size_t n)
{
    uint8_t head[HEAD_SIZE] = {0};
    wr32(head, (uint32_t)n);
    wr32(head + 4, (uint32_t)n);
    uint32_t pos = put(w, head, sizeof head);
    if (pos == UINT32_MAX || put(w, data, n) == UINT32_MAX)
        return UINT32_MAX;
    return pos;
}

static uint32_t put_dir(paf_writer *w, const wnode *dir)
{
    uint8_t head[HEAD_SIZE] = {0};
    wr32(head, dir->child_count);
    wr32(head + 4, dir->child_count);
    uint32_t pos = put(w, head, sizeof head);
    if (pos == UINT32_MAX || put(w, NULL, (size_t)dir->child_count * DIR_ENTRY_SIZE) == UINT32_MAX)
        return UINT32_MAX;
    for (uint32_t i = 0; i < dir->child_count; i++) {
        const wnode *c = &dir->children[i];
        size_t len = strlen(c->name);
        uint32_t name = put_segmented(w, c->name, len);
        uint32_t target = c->type == PAF_DIRENT_DIR ? put_dir(w, c) : put_segmented(w, c->data, c->size);
        if (name == UINT32_MAX || target == UINT32_MAX)
            return UINT32_MAX;
        uint8_t *e = w->buf + pos + HEAD_SIZE + (size_t)i * DIR_ENTRY_SIZE;
        e[0] = c->type;
        wr32(e + 1, name);
        wr32(e + 5, paf_name_crc(c->name, len));
        wr32(e + 9, target);
    }
    return pos;
}

bool paf_writer_finish(paf_writer *w, uint8_t **out, size_t *size, pmf_error *err)
{
    w->size = 0;
    uint8_t head[PAF_HEADER_SIZE] = { 'P', 'A', 'F', PAF_VERSION_MAJOR };
    uint32_t root = put(w, head, sizeof head) == UINT32_MAX ? UINT32_MAX : put_dir(w, &w->root);
    if (root == UINT32_MAX)
        return wfail(err, "", "archive larger than 4 GiB or out of memory");
    wr32(w->buf + 4, root);
    *out = w->buf;
    *size = w->size;
    w->buf = NULL;
    w->size = w->cap = 0;
    return true;
}
