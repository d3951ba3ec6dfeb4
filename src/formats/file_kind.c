/* file_kind.c - the table of formats, and telling a file's kind from its bytes with it (see
 * file_kind.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bsp_read.h"
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

/* The rows' detections: each is told the file as pmf_identify is (file_kind.h). */
#define DETECT_ARGS const uint8_t *head, size_t head_len, uint64_t size, pmf_read_at_fn read_at, void *user, \
                    pmf_file_id *out

static bool detect_pmf_legacy(DETECT_ARGS)
{
    byte_source s = { .head = head, .head_len = head_len, .size = size, .read_at = read_at, .user = user };
    if (!starts(head, head_len, "PMF", 3) || head_len < 6 || head[3] || head[4] || head[5] >= 16 || !legacy_framing(&s))
        return false;
    out->legacy_major = head[4];
    out->legacy_minor = head[5];
    snprintf(out->what, sizeof out->what, "legacy PMF draft %u.%u", head[4], head[5]);
    return true;
}

static bool detect_pmf(DETECT_ARGS)
{
    (void)size, (void)read_at, (void)user;
    if (!starts(head, head_len, "PMF", 3) || head_len < 4 || head[3]) return false;
    snprintf(out->what, sizeof out->what, "PMF 0.0");
    return true;
}

/* "PMF" and a major version this program does not read: named before any other magic is tried. */
static bool detect_pmf_other_major(DETECT_ARGS)
{
    (void)size, (void)read_at, (void)user;
    if (!starts(head, head_len, "PMF", 3) || head_len < 4) return false;
    snprintf(out->what, sizeof out->what, "a PMF of major version %u (this program reads 0)", head[3]);
    return true;
}

static bool detect_pm4(DETECT_ARGS)
{
    (void)size, (void)read_at, (void)user;
    if (!starts(head, head_len, "REVM", 4)) return false;
    snprintf(out->what, sizeof out->what, "PM4");
    return true;
}

static bool detect_rmf(DETECT_ARGS)
{
    (void)size, (void)read_at, (void)user;
    if (head_len < 7 || memcmp(head + 4, "RMF", 3) != 0) return false;
    pmf_cursor c = pmf_cursor_make(head, head_len, 0, NULL, NULL, NULL);
    float version = pmf_read_f32(&c, "RMF version");
    if (!(version > 0.05f && version < 100.0f)) return false;
    out->rmf_version = version;
    snprintf(out->what, sizeof out->what, "RMF %.1f", (double)version);
    return true;
}

/* The versions and their names are the BSP reader's (bsp_read.h). */
static bool detect_bsp(DETECT_ARGS)
{
    (void)size, (void)read_at, (void)user;
    if (head_len < 8) return false;
    pmf_cursor c = pmf_cursor_make(head, head_len, 0, NULL, NULL, NULL);
    uint32_t version = pmf_read_u32(&c, "BSP version");
    if (version != BSP_VERSION_QUAKE && version != BSP_VERSION_GOLDSRC && version != BSP_VERSION_BSP2 &&
        version != BSP_VERSION_2PSB)
        return false;
    out->bsp_version = version;
    snprintf(out->what, sizeof out->what, "%s", bsp_version_name(version));
    return true;
}

/* Images, archives and other programs' maps, named so that the refusal says what the file is. */
static bool detect_named_other(DETECT_ARGS)
{
    (void)size, (void)read_at, (void)user;
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
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        if (starts(head, head_len, others[i].magic, others[i].len)) {
            snprintf(out->what, sizeof out->what, "%s", others[i].what);
            return true;
        }
    return false;
}

static bool detect_map(DETECT_ARGS)
{
    (void)size, (void)read_at, (void)user;
    if (!head_len || memchr(head, 0, head_len) || !map_text(head, head_len)) return false;
    snprintf(out->what, sizeof out->what, "a Quake-family .map");
    return true;
}

static bool detect_text(DETECT_ARGS)
{
    (void)size, (void)read_at, (void)user;
    if (!head_len || memchr(head, 0, head_len)) return false;
    snprintf(out->what, sizeof out->what, "a text file");
    return true;
}

/* The last row: anything else, named by its first bytes. */
static bool detect_unknown(DETECT_ARGS)
{
    (void)size, (void)read_at, (void)user;
    int n = snprintf(out->what, sizeof out->what, "unknown (first bytes");
    for (size_t i = 0; i < head_len && i < 16 && n > 0 && (size_t)n + 4 < sizeof out->what; i++)
        n += snprintf(out->what + n, sizeof out->what - (size_t)n, " %02x", head[i]);
    if (!head_len) snprintf(out->what, sizeof out->what, "an empty file");
    else if (n > 0 && (size_t)n + 2 < sizeof out->what) snprintf(out->what + n, sizeof out->what - (size_t)n, ")");
    return true;
}

/* The table, in the order detection tries it: the legacy draft before PMF 0.0 (they share their
 * first bytes), the magic numbers, then text (.map before any other text). */
static const pmf_format formats[] = {
    { PMF_KIND_PMF_LEGACY, "legacy PMF", "pmf_legacy", PMF_FORMAT_CONVERT, detect_pmf_legacy },
    { PMF_KIND_PMF, "PMF", "pmf", PMF_FORMAT_OPEN, detect_pmf },
    { PMF_KIND_OTHER, "PMF of another major version", NULL, PMF_FORMAT_REFUSED, detect_pmf_other_major },
    { PMF_KIND_PM4, "PM4", "pm4", PMF_FORMAT_CONVERT, detect_pm4 },
    { PMF_KIND_RMF, "RMF", "rmf", PMF_FORMAT_COMPILE, detect_rmf },
    { PMF_KIND_BSP, "BSP", "bsp", PMF_FORMAT_COMPILE, detect_bsp },
    { PMF_KIND_OTHER, "other known file", NULL, PMF_FORMAT_REFUSED, detect_named_other },
    { PMF_KIND_MAP, ".map", "map", PMF_FORMAT_COMPILE, detect_map },
    { PMF_KIND_TEXT, ".pms source", NULL, PMF_FORMAT_PMFC_SOURCE, detect_text },
    { PMF_KIND_UNKNOWN, "unknown", NULL, PMF_FORMAT_REFUSED, detect_unknown },
};

const pmf_format *pmf_format_of(pmf_file_kind kind)
{
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (formats[i].kind == kind) return &formats[i];
    return &formats[sizeof formats / sizeof formats[0] - 1];
}

void pmf_identify(const uint8_t *head, size_t head_len, uint64_t size, pmf_read_at_fn read_at, void *user,
                  pmf_file_id *out)
{
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        memset(out, 0, sizeof *out);
        if (formats[i].detect(head, head_len, size, read_at, user, out)) {
            out->kind = formats[i].kind;
            return;
        }
    }
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
