/* file_kind.h - the one table of file formats, and what a file is, told from its bytes before
 * any parser sees it: PMF 0.0, the legacy PMF draft, PM4, RMF, a .map, a BSP, a text source, or
 * something recognisable that no command opens (another PMF major version, an image, an
 * archive). conventions §4 and §6. Each kind's row (file_kind.c) holds its name, its content
 * detection, the library that reads it and what the programs do with it: pmf_identify walks the
 * rows in order, pmfc, `pmfview info` and the viewer's open-any-file dispatch on the row's use.
 * Adding a format: docs/architecture.md, "Add a format". */
#ifndef PMF_FILE_KIND_H
#define PMF_FILE_KIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum pmf_file_kind {
    PMF_KIND_UNKNOWN,        /* binary of no known kind: `what` shows its first bytes in hex */
    PMF_KIND_PMF,            /* PMF 0.0 */
    PMF_KIND_PMF_LEGACY,     /* the legacy PMF draft (specs/pmf-legacy-draft.txt) */
    PMF_KIND_PM4,            /* PM4 nav mesh (reversed FourCCs, "REVM" first) */
    PMF_KIND_RMF,            /* Worldcraft / Hammer RMF */
    PMF_KIND_MAP,            /* a Quake-family .map: text, `{` then a "key" "value" pair first */
    PMF_KIND_BSP,            /* a compiled Quake BSP v29, GoldSrc BSP v30, or BSP2 / 2PSB */
    PMF_KIND_TEXT,           /* text with no NUL byte: pmfc's own source format */
    PMF_KIND_OTHER,          /* recognised, but nothing here opens it (`what` names it) */
} pmf_file_kind;

typedef struct pmf_file_id {
    pmf_file_kind kind;
    char what[96];           /* "PMF 0.0", "legacy PMF draft 0.0", "RMF 2.2", "PNG image", ... */
    float rmf_version;       /* PMF_KIND_RMF */
    uint32_t bsp_version;    /* PMF_KIND_BSP: 29, 30, or the BSP2 / 2PSB magic as stored */
    uint8_t legacy_major, legacy_minor;  /* PMF_KIND_PMF_LEGACY */
} pmf_file_id;

/* Reads len bytes of the file at offset; false when they are not there. */
typedef bool (*pmf_read_at_fn)(void *user, uint64_t offset, void *buf, size_t len);

/* What the programs do with a kind. */
typedef enum pmf_format_use {
    PMF_FORMAT_OPEN,         /* a PMF: opened as it is */
    PMF_FORMAT_COMPILE,      /* a source map: pmfc compiles it (its front end), the viewer through its compile cache */
    PMF_FORMAT_CONVERT,      /* read by its own reader and turned into a scene in memory, no pmfc (formats_scene.c) */
    PMF_FORMAT_PMFC_SOURCE,  /* pmfc's own text source: pmfc compiles it, the viewer names it and refuses it */
    PMF_FORMAT_REFUSED,      /* named, but nothing here opens it */
} pmf_format_use;

typedef struct pmf_format {
    pmf_file_kind kind;
    const char *name;        /* the kind as docs name it: "RMF", ".map", "BSP", ... */
    const char *reader;      /* the library that reads it: its folder under src/ (NULL: none) */
    pmf_format_use use;
    /* Content detection: whether head (head_len bytes of a file of size bytes; read_at reads
     * more of it, may be NULL) is of this kind; when it is, fills out->what and the kind's own
     * fields (out->kind is the row's). Rows are tried in table order. */
    bool (*detect)(const uint8_t *head, size_t head_len, uint64_t size, pmf_read_at_fn read_at, void *user,
                   pmf_file_id *out);
} pmf_format;

/* The row of kind (the first one where several share it, as PMF_KIND_OTHER's do). */
const pmf_format *pmf_format_of(pmf_file_kind kind);

/* Identifies a file from its first bytes. head holds min(file size, what was read) bytes; the
 * legacy draft is told from PMF 0.0 only by walking its framing, so size is the whole file's and
 * read_at (may be NULL: then only head is used) reads more of it. */
void pmf_identify(const uint8_t *head, size_t head_len, uint64_t size, pmf_read_at_fn read_at, void *user,
                  pmf_file_id *out);

/* Opens path (regular files only: a FIFO or device is refused at once, never read) and
 * identifies it. On failure returns false with a one-line reason in err (no file name). */
bool pmf_identify_path(const char *path, pmf_file_id *out, char *err, size_t err_size);

#endif
