/* paf.h - PAF 0.0 archives (../shared/specs/paf.txt): a bounds-checked reader over a byte range
 * and an in-memory writer. No GL, no SDL, no file I/O.
 *
 * Our reading of the spec:
 *   - Positions are byte offsets from the first byte of the archive (its 'P'); 0 means "none".
 *   - Header: 'P' 'A' 'F', u8 major (0), u32 root directory, u32 free space tracker (ignored).
 *   - A directory holds "Total entries" used entries spread over segments whose "entry slots"
 *     may be more than they use; a reader takes entries until the total is reached. Files and
 *     strings likewise: segments are read in chain order until "Total size" / "String length"
 *     bytes are collected. Every entry is 13 bytes (u8 type, u32 name, u32 CRC, u32 target).
 *   - Name CRC: the standard CRC-32 (IEEE 802.3 / zlib polynomial 0xEDB88320 reflected, init and
 *     final xor 0xFFFFFFFF) of the name's bytes without a terminator. 0 means "not computed";
 *     any other value must match, else the archive is corrupt.
 *   - A link's target is a String holding a path: "/a/b" from the root, "a/b" from the directory
 *     that holds the link; "." and ".." components are honoured. At most PAF_MAX_LINK_HOPS links
 *     are followed per lookup.
 *   - A string, file or directory cannot be longer than the archive; a name or link path not
 *     longer than PAF_MAX_PATH - 1 bytes. A continuation chain that comes back to a segment it
 *     already visited, or that holds more than 16 segments without data, is an error (not a hang).
 *
 * Errors are pmf_error values: block "embedded archive", offset = base_offset + archive position.
 */
#ifndef PMF_PAF_H
#define PMF_PAF_H

#include "pmf.h"

#define PAF_VERSION_MAJOR 0
#define PAF_HEADER_SIZE 12u
#define PAF_MAX_LINK_HOPS 16
#define PAF_MAX_PATH 1024            /* paths, names and link targets are shorter than this */

enum { PAF_DIRENT_DIR = 0, PAF_DIRENT_FILE = 1, PAF_DIRENT_LINK = 2 };

/* An archive opened over bytes the caller keeps alive (e.g. pmf_file->data + archive.offset). */
typedef struct paf_archive {
    const uint8_t *data;
    size_t size;
    uint64_t base_offset;            /* where data sits in its file, for error offsets */
    char name[256];                  /* file name for errors */
    uint32_t root;                   /* position of the root directory */
} paf_archive;

/* Checks the header and the root directory's header. */
bool paf_open(const void *data, size_t size, const char *name, uint64_t base_offset,
              paf_archive *out, pmf_error *err);

/* A directory entry. For a link, target is the link path's String. */
typedef struct paf_entry {
    uint8_t type;                    /* PAF_DIRENT_* */
    uint32_t target;                 /* position of the Directory, File or link String */
    char *name;                      /* from paf_list only (points into the listing) */
    char *link;                      /* from paf_list only: the link path, NULL for others */
} paf_entry;

typedef enum paf_result { PAF_ERROR = -1, PAF_NOT_FOUND = 0, PAF_FOUND = 1 } paf_result;

/* Finds "dir/sub/name" from the root (leading/duplicate '/' ignored; "" or "/" = the root
 * directory itself). Names match exactly, byte for byte. Links are followed, also the last
 * one, so *out is a directory or a file. */
paf_result paf_lookup(const paf_archive *a, const char *path, paf_entry *out, pmf_error *err);

/* Reads a whole file (all its continuation segments) into a malloc'd buffer (free()). A file of
 * size 0 gives *bytes == NULL. */
bool paf_read_file(const paf_archive *a, const paf_entry *file, uint8_t **bytes, size_t *size,
                   pmf_error *err);

/* Lookup + read. PAF_NOT_FOUND also when path names a directory. */
paf_result paf_read(const paf_archive *a, const char *path, uint8_t **bytes, size_t *size,
                    pmf_error *err);

/* Lists one directory (dir == NULL: the root) without following links. *entries is one malloc'd
 * block holding the entries and their names (free() it). */
bool paf_list(const paf_archive *a, const paf_entry *dir, paf_entry **entries, uint32_t *count,
              pmf_error *err);

/* CRC-32 (IEEE) of a name, as stored in directory entries. */
uint32_t paf_name_crc(const char *name, size_t len);

/* ---- writing ---------------------------------------------------------------------------- */

/* Builds an archive in memory: every file and link in one segment, directories created from
 * the paths, no free space tracker (position 0). Usage:
 *   paf_writer *w = paf_writer_create();
 *   paf_writer_add_file(w, "textures/brick.ptf", bytes, size, &err);
 *   paf_writer_finish(w, &archive, &archive_size, &err);   // malloc'd, free()
 *   paf_writer_destroy(w);
 */
typedef struct paf_writer paf_writer;
paf_writer *paf_writer_create(void);
/* Adds a file; missing directories are created. Fails on a duplicate name, a name clash
 * between a file and a directory, or a path of PAF_MAX_PATH bytes or more. The data is copied. */
bool paf_writer_add_file(paf_writer *w, const char *path, const void *data, size_t size, pmf_error *err);
/* Adds a link at path whose target path is stored as given. */
bool paf_writer_add_link(paf_writer *w, const char *path, const char *target, pmf_error *err);
bool paf_writer_finish(paf_writer *w, uint8_t **out, size_t *size, pmf_error *err);
void paf_writer_destroy(paf_writer *w);

#endif
