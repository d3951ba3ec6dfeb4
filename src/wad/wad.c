/* wad.c - WAD2 / WAD3 reader: directory, name lookup, miptex decoding (see wad.h). */
#include "wad.h"
#include "base/pmf_budget.h"
#include "base/pmf_os.h"
#include "pmf/pmf_bytes.h"
#include "base/order.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEADER_SIZE 12u
#define DIR_ENTRY_SIZE 32u
#define DIR_NAME_AT 16u            /* name's offset inside a directory entry */
#define MIPTEX_HEADER_SIZE 40u
#define MIP_LEVELS 4
#define MAX_COLOURS 256u           /* texels are 8-bit indices */
/* Valve's lump offsets and sizes are signed 32-bit: no WAD3 needs more, so no file gets more memory */
#define MAX_FILE_SIZE ((uint64_t)1 << 31)

typedef struct wad_lump {
    uint32_t offset, disk_size;
    uint8_t type, compression;
    char name[WAD_NAME_SIZE];
} wad_lump;

typedef struct texture_key {
    char folded[WAD_NAME_SIZE];    /* the name in lower case */
    uint32_t lump;
} texture_key;

struct wad_file {
    const uint8_t *data;
    size_t size;
    uint8_t *owned;                /* wad_open's copy of the file; NULL over borrowed memory */
    wad_lump *lumps;
    uint32_t count;
    uint32_t directory;            /* the directory's file offset */
    texture_key *textures;         /* the miptex lumps, sorted by (folded name, lump index) */
    uint32_t texture_count;
    int version;                   /* 2 (Quake) or 3 (Half-Life) */
    char name[];                   /* the file, for errors */
};


static void set_error(pmf_error *err, const char *file, const char *where, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void set_error(pmf_error *err, const char *file, const char *where, size_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pmf_error_vset(err, file, where, offset, fmt, ap);
    va_end(ap);
}

/* Appends bytes to buf (of size, holding a string) with escapes; stops when full, keeping whole escapes. */
static void append_escaped(char *buf, size_t size, const uint8_t *bytes, size_t n, bool escape_high)
{
    size_t len = strlen(buf);
    for (size_t i = 0; i < n; i++) {
        uint8_t c = bytes[i];
        char one[5];
        if (c < 0x20 || c == 0x7F || (escape_high && c > 0x7F))
            snprintf(one, sizeof one, "\\x%02X", c);
        else if (c == '\\' && escape_high)
            snprintf(one, sizeof one, "\\\\");
        else
            snprintf(one, sizeof one, "%c", c);
        size_t add = strlen(one);
        if (len + add >= size)
            return;
        memcpy(buf + len, one, add + 1);
        len += add;
    }
}

const char *wad_escape_name(const char *name, char *buf, size_t size)
{
    if (!size)
        return buf;
    buf[0] = '\0';
    append_escaped(buf, size, (const uint8_t *)name, strnlen(name, WAD_NAME_SIZE - 1), true);
    return buf;
}

static void fold_name(const char *name, char folded[WAD_NAME_SIZE])
{
    size_t i = 0;
    for (; i < WAD_NAME_SIZE - 1 && name[i]; i++)
        folded[i] = name[i] >= 'A' && name[i] <= 'Z' ? (char)(name[i] + ('a' - 'A')) : name[i];
    memset(folded + i, 0, WAD_NAME_SIZE - i);
}

static int compare_textures(const void *a, const void *b)
{
    const texture_key *ka = a, *kb = b;
    int c = memcmp(ka->folded, kb->folded, WAD_NAME_SIZE);
    return c ? c : (ka->lump > kb->lump) - (ka->lump < kb->lump);
}

static void lump_where(const wad_file *w, uint32_t i, const char *prefix, char *buf, size_t size)
{
    char name[4 * WAD_NAME_SIZE];
    snprintf(buf, size, "%s %u (%s)", prefix, i, wad_escape_name(w->lumps[i].name, name, sizeof name));
}

/* The header's size and magic: what wad_open checks before reading the rest of a file. */
static bool check_magic(const uint8_t *d, size_t size, const char *file, pmf_error *err)
{
    if (size < HEADER_SIZE) {
        set_error(err, file, "header", 0, "%zu bytes are shorter than the %u-byte header", size, HEADER_SIZE);
        return false;
    }
    if (memcmp(d, "WAD3", 4) != 0 && memcmp(d, "WAD2", 4) != 0) {
        char magic[24] = "";
        append_escaped(magic, sizeof magic, d, 4, true);
        const char *kind = memcmp(d, "IWAD", 4) == 0 || memcmp(d, "PWAD", 4) == 0 ? " (a Doom WAD)" : "";
        set_error(err, file, "header", 0, "bad magic '%s' (expected 'WAD2' or 'WAD3')%s", magic, kind);
        return false;
    }
    return true;
}

static bool read_directory(wad_file *w, pmf_error *err)
{
    if (!check_magic(w->data, w->size, w->name, err))
        return false;
    pmf_cursor c = pmf_cursor_make(w->data, w->size, 0, w->name, "header", err);
    w->version = pmf_take(&c, 4, "magic")[3] == '2' ? 2 : 3;
    uint32_t count = pmf_read_u32(&c, "lump count"), dir = pmf_read_u32(&c, "directory offset");
    if (dir > w->size) {
        set_error(err, w->name, "header", 8, "directory offset %u is past the end of the file (%zu bytes)", dir, w->size);
        return false;
    }
    if (count > (w->size - dir) / DIR_ENTRY_SIZE) {
        set_error(err, w->name, "header", 4, "directory of %u %s (%llu bytes) at byte %u runs past the end of the file (%zu bytes)",
                  count, count == 1 ? "entry" : "entries", (unsigned long long)count * DIR_ENTRY_SIZE, dir, w->size);
        return false;
    }
    w->count = count;
    w->directory = dir;
    uint8_t miptex = w->version == 2 ? WAD2_TYPE_MIPTEX : WAD_TYPE_MIPTEX;
    w->lumps = pmf_budget_calloc(count ? count : 1, sizeof *w->lumps);
    w->textures = pmf_budget_calloc(count ? count : 1, sizeof *w->textures);
    if (!w->lumps || !w->textures) {
        set_error(err, w->name, "directory", dir, "out of memory for %u entries", count);
        return false;
    }
    pmf_cursor entries = pmf_cursor_make(w->data + dir, (size_t)count * DIR_ENTRY_SIZE, dir, w->name, "directory", err);
    for (uint32_t i = 0; i < count; i++) {
        size_t at = (size_t)(entries.base + entries.pos);
        wad_lump *l = &w->lumps[i];
        char where[sizeof err->block];
        l->offset = pmf_read_u32(&entries, "lump offset");
        l->disk_size = pmf_read_u32(&entries, "lump size");
        pmf_read_u32(&entries, "lump uncompressed size");
        l->type = pmf_read_u8(&entries, "lump type");
        l->compression = pmf_read_u8(&entries, "lump compression");
        pmf_read_u16(&entries, "lump padding");
        const uint8_t *name = pmf_take(&entries, WAD_NAME_SIZE, "lump name");
        if (!name)
            return false;
        if (!memchr(name, '\0', WAD_NAME_SIZE)) {
            char shown[4 * WAD_NAME_SIZE + 8] = "";
            append_escaped(shown, sizeof shown, name, WAD_NAME_SIZE, true);
            snprintf(where, sizeof where, "directory entry %u", i);
            set_error(err, w->name, where, at + DIR_NAME_AT, "name '%s' has no NUL within %u bytes", shown, WAD_NAME_SIZE);
            return false;
        }
        memcpy(l->name, name, WAD_NAME_SIZE);
        if (l->offset > w->size || l->disk_size > w->size - l->offset) {
            lump_where(w, i, "directory entry", where, sizeof where);
            set_error(err, w->name, where, at, "lump of %u bytes at byte %u runs past the end of the file (%zu bytes)",
                      l->disk_size, l->offset, w->size);
            return false;
        }
        if (l->type == miptex) {
            texture_key *k = &w->textures[w->texture_count++];
            fold_name(l->name, k->folded);
            k->lump = i;
        }
    }
    order_sort(w->textures, w->texture_count, sizeof *w->textures, compare_textures);
    return true;
}

wad_file *wad_open_memory(const uint8_t *data, size_t size, const char *name, pmf_error *err)
{
    wad_file *w = pmf_reader_handle(sizeof *w, offsetof(wad_file, name), name, err);
    if (!w)
        return NULL;
    w->data = data;
    w->size = size;
    if (!read_directory(w, err)) {
        wad_close(w);
        return NULL;
    }
    return w;
}

/* Reads size bytes at the file position (byte `at`); a short file is an error, not a hang. */
static bool read_fully(int fd, uint8_t *buf, size_t size, size_t at, const char *path, pmf_error *err)
{
    size_t done = 0;
    while (done < size) {
        ssize_t r = read(fd, buf + done, size - done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            set_error(err, path, "file", at + done, "cannot read: %s", r < 0 ? strerror(errno) : "the file shrank while being read");
            return false;
        }
        done += (size_t)r;
    }
    return true;
}

wad_file *wad_open(const char *path, pmf_error *err)
{
    pmf_os_file_info st;
    int fd = pmf_open_regular(path, &st, err);
    if (fd < 0)
        return NULL;
    if (st.size > MAX_FILE_SIZE) {
        set_error(err, path, "file", 0, "%llu bytes are more than the 2 GiB a WAD3 can address (signed 32-bit offsets)",
                  (unsigned long long)st.size);
        close(fd);
        return NULL;
    }
    size_t size = (size_t)st.size;
    /* a file that is no WAD3 is refused before it is read whole */
    uint8_t head[HEADER_SIZE];
    size_t head_size = size < HEADER_SIZE ? size : HEADER_SIZE;
    if (!read_fully(fd, head, head_size, 0, path, err) || !check_magic(head, head_size, path, err)) {
        close(fd);
        return NULL;
    }
    uint8_t *bytes = pmf_budget_malloc(size ? size : 1);
    if (!bytes) {
        set_error(err, path, "file", 0, "out of memory for %zu bytes", size);
        close(fd);
        return NULL;
    }
    memcpy(bytes, head, head_size);
    if (!read_fully(fd, bytes + head_size, size - head_size, head_size, path, err)) {
        pmf_budget_free(bytes);
        close(fd);
        return NULL;
    }
    close(fd);
    wad_file *w = wad_open_memory(bytes, size, path, err);
    if (!w) {
        pmf_budget_free(bytes);
        return NULL;
    }
    w->owned = bytes;
    return w;
}

void wad_close(wad_file *w)
{
    if (!w)
        return;
    pmf_budget_free(w->lumps);
    pmf_budget_free(w->textures);
    pmf_budget_free(w->owned);
    pmf_budget_free(w);
}

uint32_t wad_count(const wad_file *w) { return w->count; }
const char *wad_name(const wad_file *w, uint32_t i) { return i < w->count ? w->lumps[i].name : NULL; }
uint8_t wad_type(const wad_file *w, uint32_t i) { return i < w->count ? w->lumps[i].type : 0; }

/* The first texture named `name` (any case) in directory order, or -1. */
static int64_t find_texture(const wad_file *w, const char *name)
{
    if (strnlen(name, WAD_NAME_SIZE) >= WAD_NAME_SIZE)
        return -1;
    char key[WAD_NAME_SIZE];
    fold_name(name, key);
    uint32_t lo = 0, hi = w->texture_count; /* lower bound: ties are sorted by lump index */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (memcmp(w->textures[mid].folded, key, WAD_NAME_SIZE) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < w->texture_count && memcmp(w->textures[lo].folded, key, WAD_NAME_SIZE) == 0)
        return w->textures[lo].lump;
    return -1;
}

bool wad_has(const wad_file *w, const char *name)
{
    return find_texture(w, name) >= 0;
}

uint32_t wad_animation_frames(const wad_file *w, const char *name)
{
    const char *base = name[0] == '+' && name[1] ? name + 2 : name;
    static const char frames[] = "0123456789abcdefghij";
    uint32_t found = 0;
    for (unsigned n = 0; n < sizeof frames - 1; n++) {
        char member[WAD_NAME_SIZE + 2];
        if (snprintf(member, sizeof member, "+%c%s", frames[n], base) < (int)WAD_NAME_SIZE && wad_has(w, member))
            found |= 1u << n;
    }
    return found;
}

int wad_decode_miptex(const uint8_t *lump, size_t n, size_t base, const char *file, const char *where, const char *name,
                      const uint8_t *palette, wad_texture *out, pmf_error *err)
{
    if (n < MIPTEX_HEADER_SIZE) {
        set_error(err, file, where, base, "lump of %zu bytes is shorter than the %u-byte miptex header", n, MIPTEX_HEADER_SIZE);
        return -1;
    }
    if (!memchr(lump, 0, WAD_NAME_SIZE)) {
        set_error(err, file, where, base, "the miptex name has no NUL within %u bytes", WAD_NAME_SIZE);
        return -1;
    }
    pmf_cursor c = pmf_cursor_make(lump, n, base, file, where, err);
    pmf_take(&c, WAD_NAME_SIZE, "miptex name");
    uint32_t width = pmf_read_u32(&c, "miptex width"), height = pmf_read_u32(&c, "miptex height");
    const char *side_name[2] = { "width", "height" };
    uint32_t side[2] = { width, height };
    for (int s = 0; s < 2; s++) {
        if (side[s] == 0) {
            set_error(err, file, where, base + 16 + 4 * s, "%s 0: a texture needs at least one texel", side_name[s]);
            return -1;
        }
        if (side[s] > WAD_MAX_SIDE) {
            set_error(err, file, where, base + 16 + 4 * s, "%s %u is more than %u", side_name[s], side[s], WAD_MAX_SIDE);
            return -1;
        }
    }
    uint32_t mip_offset[MIP_LEVELS];
    size_t mip_size[MIP_LEVELS];
    for (int k = 0; k < MIP_LEVELS; k++) {
        mip_offset[k] = pmf_read_u32(&c, "mip offset");
        mip_size[k] = (size_t)(width >> k) * (height >> k);
        if (mip_offset[k] < MIPTEX_HEADER_SIZE) {
            set_error(err, file, where, base + 24 + 4 * k, "mip %d offset %u lies inside the %u-byte miptex header",
                      k, mip_offset[k], MIPTEX_HEADER_SIZE);
            return -1;
        }
        if (mip_offset[k] > n || mip_size[k] > n - mip_offset[k]) {
            set_error(err, file, where, base + 24 + 4 * k, "mip %d (%ux%u texels at lump byte %u) runs past the end of the %zu-byte lump",
                      k, width >> k, height >> k, mip_offset[k], n);
            return -1;
        }
    }
    const uint8_t *rgb = palette;
    unsigned colours = MAX_COLOURS;
    if (!palette) {
        size_t at = mip_offset[3] + mip_size[3];
        if (n - at < 2) {
            set_error(err, file, where, base + at, "palette colour count at lump byte %zu is past the end of the %zu-byte lump", at, n);
            return -1;
        }
        pmf_cursor count_at = pmf_cursor_make(lump + at, n - at, base + at, file, where, err);
        colours = pmf_read_u16(&count_at, "palette colour count");
        if (colours == 0 || colours > MAX_COLOURS) {
            set_error(err, file, where, base + at, "palette of %u colours (texels are 8-bit: 1 to %u)", colours, MAX_COLOURS);
            return -1;
        }
        if ((n - at - 2) / 3 < colours) {
            set_error(err, file, where, base + at, "palette of %u colours at lump byte %zu runs past the end of the %zu-byte lump",
                      colours, at + 2, n);
            return -1;
        }
        rgb = lump + at + 2;
    }
    const uint8_t *texels = lump + mip_offset[0];
    size_t count = mip_size[0];
    if (colours < MAX_COLOURS) {
        for (size_t i = 0; i < count; i++) {
            if (texels[i] >= colours) {
                set_error(err, file, where, base + mip_offset[0] + i, "texel (%zu, %zu) is colour %u of a %u-colour palette",
                          i % width, i / width, texels[i], colours);
                return -1;
            }
        }
    }
    uint8_t *rgba = pmf_budget_malloc(count * 4);
    if (!rgba) {
        set_error(err, file, where, base, "out of memory for %ux%u texels", width, height);
        return -1;
    }
    /* '{' textures: the last palette entry marks holes (alpha-tested; Quake's index 255 too) */
    int transparent = (name ? name[0] : (char)lump[0]) == '{' ? (int)colours - 1 : -1;
    for (size_t i = 0; i < count; i++) {
        uint8_t *o = rgba + 4 * i;
        if (texels[i] == transparent) {
            memset(o, 0, 4);
        } else {
            memcpy(o, rgb + 3 * texels[i], 3);
            o[3] = 255;
        }
    }
    memcpy(out->name, lump, WAD_NAME_SIZE);
    out->name[WAD_NAME_SIZE - 1] = 0;
    out->width = width;
    out->height = height;
    out->rgba = rgba;
    return 1;
}

int wad_load_texture_palette(const wad_file *w, const char *name, const uint8_t *palette, wad_texture *out, pmf_error *err)
{
    int64_t index = find_texture(w, name);
    if (index < 0)
        return 0;
    const wad_lump *l = &w->lumps[index];
    size_t entry = (size_t)w->directory + (size_t)index * DIR_ENTRY_SIZE;
    char where[sizeof err->block];
    lump_where(w, (uint32_t)index, "lump", where, sizeof where);
    if (l->compression != 0) {
        set_error(err, w->name, where, entry + 13, "lump is compressed (method %u); only uncompressed lumps are read", l->compression);
        return -1;
    }
    if (w->version == 2 && !palette) {
        set_error(err, w->name, where, l->offset, "a WAD2 texture needs Quake's palette");
        return -1;
    }
    int r = wad_decode_miptex(w->data + l->offset, l->disk_size, l->offset, w->name, where, l->name,
                              w->version == 2 ? palette : NULL, out, err);
    if (r > 0)
        memcpy(out->name, l->name, WAD_NAME_SIZE); /* the directory's spelling */
    return r;
}

int wad_load_texture(const wad_file *w, const char *name, wad_texture *out, pmf_error *err)
{
    return wad_load_texture_palette(w, name, NULL, out, err);
}

int wad_decode_wal(const uint8_t *data, size_t n, const char *file, const char *where, const uint8_t *palette,
                   wad_texture *out, pmf_error *err)
{
    enum { WAL_HEADER = 32 + 4 + 4 + 16 + 32 + 12 };
    if (n < WAL_HEADER) {
        set_error(err, file, where, 0, "%zu bytes are shorter than the %d-byte .wal header", n, WAL_HEADER);
        return -1;
    }
    pmf_cursor c = pmf_cursor_make(data, n, 0, file, where, err);
    pmf_take(&c, 32, "name");
    uint32_t width = pmf_read_u32(&c, "width"), height = pmf_read_u32(&c, "height"), offset = pmf_read_u32(&c, "mip offset");
    if (!width || !height || width > WAD_MAX_SIDE || height > WAD_MAX_SIDE) {
        set_error(err, file, where, 32, "size %ux%u (1 to %u a side)", width, height, WAD_MAX_SIDE);
        return -1;
    }
    size_t count = (size_t)width * height;
    if (offset < WAL_HEADER || offset > n || count > n - offset) {
        set_error(err, file, where, 40, "mip 0 (%ux%u texels at byte %u) runs past the end of the %zu-byte file", width, height,
                  offset, n);
        return -1;
    }
    uint8_t *rgba = pmf_budget_malloc(count * 4);
    if (!rgba) {
        set_error(err, file, where, 0, "out of memory for %ux%u texels", width, height);
        return -1;
    }
    for (size_t i = 0; i < count; i++) {
        memcpy(rgba + 4 * i, palette + 3 * data[offset + i], 3);
        rgba[4 * i + 3] = 255;
    }
    memset(out->name, 0, WAD_NAME_SIZE);
    memcpy(out->name, data, WAD_NAME_SIZE - 1);
    out->width = width;
    out->height = height;
    out->rgba = rgba;
    return 1;
}

int wad_version(const wad_file *w)
{
    return w->version;
}

void wad_texture_free(wad_texture *t)
{
    if (!t)
        return;
    pmf_budget_free(t->rgba);
    t->rgba = NULL;
}
