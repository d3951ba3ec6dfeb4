/* file_kind.c - telling a file's kind from its bytes (see file_kind.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "file_kind.h"
#include "pmf_bytes.h"
#include "pmf_internal.h"
#include "pmf_os.h"

/* Bytes of the file read through a small window: head first, then read_at. */
typedef struct byte_source {
    const uint8_t *head;
    size_t head_len;
    uint64_t size;
    pmf_read_at_fn read_at;
    void *user;
    uint8_t window[4096];
    uint64_t window_start;
    size_t window_len;
} byte_source;

static bool source_byte(byte_source *s, uint64_t at, uint8_t *out)
{
    if (at >= s->size) return false;
    if (at < s->head_len) { *out = s->head[at]; return true; }
    if (at < s->window_start || at >= s->window_start + s->window_len) {
        if (!s->read_at) return false;
        uint64_t left = s->size - at;
        size_t len = left < sizeof s->window ? (size_t)left : sizeof s->window;
        if (!s->read_at(s->user, at, s->window, len)) return false;
        s->window_start = at;
        s->window_len = len;
    }
    *out = s->window[at - s->window_start];
    return true;
}

static bool source_u64(byte_source *s, uint64_t at, uint64_t *out)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) {
        uint8_t b;
        if (!source_byte(s, at + (uint64_t)i, &b)) return false;
        v |= (uint64_t)b << (8 * i);
    }
    *out = v;
    return true;
}

/* Skips a NUL-terminated string of at most max bytes (NUL included) starting at *at. */
static bool source_cstring(byte_source *s, uint64_t *at, size_t max)
{
    for (size_t n = 0; n < max; n++) {
        uint8_t b;
        if (!source_byte(s, *at + n, &b)) return false;
        if (!b) { *at += n + 1; return true; }
    }
    return false;
}

/* The legacy draft: "PMF\0", major, minor, name, authors, description, u64 time, gamemodes, then
 * three blocks (u64 compressed size, u64 size, bytes) that end exactly at the end of the file. A
 * PMF 0.0 file with a creation time whose low bytes are 0 shares the first six bytes; only the
 * whole framing tells them apart. */
static bool legacy_framing(byte_source *s)
{
    uint64_t at = 6;
    for (int i = 0; i < 3; i++)
        if (!source_cstring(s, &at, 65536)) return false;
    uint64_t created;
    uint8_t gamemodes;
    if (!source_u64(s, at, &created) || !source_byte(s, at + 8, &gamemodes) || gamemodes > 16) return false;
    at += 9;
    for (int i = 0; i < gamemodes; i++)
        if (!source_cstring(s, &at, 256)) return false;
    for (int i = 0; i < 3; i++) {
        uint64_t packed, unpacked;
        if (!source_u64(s, at, &packed) || !source_u64(s, at + 8, &unpacked)) return false;
        at += 16;
        if (at > s->size || packed > s->size - at) return false;
        at += packed;
    }
    return at == s->size;
}

static bool starts(const uint8_t *head, size_t len, const char *magic, size_t magic_len)
{
    return len >= magic_len && memcmp(head, magic, magic_len) == 0;
}


/* A .map begins (after blanks and // comments) with the first entity's `{` and a "key". */
static bool map_text(const uint8_t *p, size_t n)
{
    int seen_brace = 0;
    for (size_t i = 0; i < n;) {
        if (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n') {
            i++;
        } else if (p[i] == '/' && i + 1 < n && p[i + 1] == '/') {
            while (i < n && p[i] != '\n') i++;
        } else if (p[i] == '{' && !seen_brace) {
            seen_brace = 1;
            i++;
        } else {
            return seen_brace && p[i] == '"';
        }
    }
    return false;
}

void pmf_identify(const uint8_t *head, size_t head_len, uint64_t size, pmf_read_at_fn read_at, void *user,
                  pmf_file_id *out)
{
    memset(out, 0, sizeof *out);
    static const struct { const char *magic; size_t len; const char *what; } others[] = {
        { "\x89PNG\r\n\x1a\n", 8, "a PNG image" },  { "\xff\xd8\xff", 3, "a JPEG image" },
        { "GIF8", 4, "a GIF image" },                 { "BM", 2, "a BMP image" },
        { "PAF", 3, "a PAF archive" },                { "PTF", 3, "a PTF texture" },
        { "WAD3", 4, "a WAD3 texture archive" },      { "WAD2", 4, "a WAD2 texture archive" },
        { "PK\x03\x04", 4, "a ZIP archive" },         { "\x1f\x8b", 2, "a gzip archive" },
        { "\x04\x22\x4d\x18", 4, "an LZ4 frame" },    { "\x28\xb5\x2f\xfd", 4, "a Zstandard frame" },
        { "IBSP", 4, "a Quake II / III BSP" },        { "VBSP", 4, "a Source BSP" },
        { "\x7f" "ELF", 4, "an ELF executable" },
        { "%PDF", 4, "a PDF document" },
    };
    if (starts(head, head_len, "PMF", 3) && head_len >= 4) {
        byte_source s = { .head = head, .head_len = head_len, .size = size, .read_at = read_at, .user = user };
        if (head[3] == 0 && head_len >= 6 && head[4] == 0 && head[5] < 16 && legacy_framing(&s)) {
            out->kind = PMF_KIND_PMF_LEGACY;
            out->legacy_major = head[4];
            out->legacy_minor = head[5];
            snprintf(out->what, sizeof out->what, "legacy PMF draft %u.%u", head[4], head[5]);
        } else if (head[3] == 0) {
            out->kind = PMF_KIND_PMF;
            snprintf(out->what, sizeof out->what, "PMF 0.0");
        } else {
            out->kind = PMF_KIND_OTHER;
            snprintf(out->what, sizeof out->what, "a PMF of major version %u (this program reads 0)", head[3]);
        }
        return;
    }
    if (starts(head, head_len, "REVM", 4)) {
        out->kind = PMF_KIND_PM4;
        snprintf(out->what, sizeof out->what, "PM4");
        return;
    }
    if (head_len >= 7 && memcmp(head + 4, "RMF", 3) == 0) {
        pmf_cursor c = pmf_cursor_make(head, head_len, 0, NULL, NULL, NULL);
        float version = pmf_read_f32(&c, "RMF version");
        if (version > 0.05f && version < 100.0f) {
            out->kind = PMF_KIND_RMF;
            out->rmf_version = version;
            snprintf(out->what, sizeof out->what, "RMF %.1f", (double)version);
            return;
        }
    }
    static const struct { const char *magic; uint32_t version; const char *what; } bsps[] = {
        { "\x1d\0\0\0", 29, "Quake BSP v29" }, { "\x1e\0\0\0", 30, "GoldSrc BSP v30" },
        { "BSP2", 0x32505342u, "Quake BSP2" },   { "2PSB", 0x42535032u, "Quake 2PSB" },
    };
    for (size_t i = 0; i < sizeof bsps / sizeof bsps[0]; i++)
        if (head_len >= 8 && starts(head, head_len, bsps[i].magic, 4)) {
            out->kind = PMF_KIND_BSP;
            out->bsp_version = bsps[i].version;
            snprintf(out->what, sizeof out->what, "%s", bsps[i].what);
            return;
        }
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        if (starts(head, head_len, others[i].magic, others[i].len)) {
            out->kind = PMF_KIND_OTHER;
            snprintf(out->what, sizeof out->what, "%s", others[i].what);
            return;
        }
    if (head_len && !memchr(head, 0, head_len) && map_text(head, head_len)) {
        out->kind = PMF_KIND_MAP;
        snprintf(out->what, sizeof out->what, "a Quake-family .map");
        return;
    }
    if (head_len && !memchr(head, 0, head_len)) {
        out->kind = PMF_KIND_TEXT;
        snprintf(out->what, sizeof out->what, "a text file");
        return;
    }
    out->kind = PMF_KIND_UNKNOWN;
    int n = snprintf(out->what, sizeof out->what, "unknown (first bytes");
    for (size_t i = 0; i < head_len && i < 16 && n > 0 && (size_t)n + 4 < sizeof out->what; i++)
        n += snprintf(out->what + n, sizeof out->what - (size_t)n, " %02x", head[i]);
    if (!head_len) snprintf(out->what, sizeof out->what, "an empty file");
    else if (n > 0 && (size_t)n + 2 < sizeof out->what) snprintf(out->what + n, sizeof out->what - (size_t)n, ")");
}

static bool fd_read_at(void *user, uint64_t offset, void *buf, size_t len)
{
    return pmf_pread_full(*(int *)user, offset, buf, len) == len;
}

bool pmf_identify_path(const char *path, pmf_file_id *out, char *err, size_t err_size)
{
    pmf_os_file_info st;
    pmf_error perr;
    int fd = pmf_open_regular(path, &st, &perr);
    if (fd < 0) {
        snprintf(err, err_size, "%s", perr.message);
        return false;
    }
    uint8_t head[512];
    size_t want = st.size < sizeof head ? (size_t)st.size : sizeof head;
    if (!fd_read_at(&fd, 0, head, want)) {
        snprintf(err, err_size, "cannot read: %s", errno ? strerror(errno) : "file shrank");
        close(fd);
        return false;
    }
    pmf_identify(head, want, st.size, fd_read_at, &fd, out);
    close(fd);
    return true;
}
