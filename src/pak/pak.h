/* pak.h - Quake and Quake 2 PAK archives, and a game directory seen as one tree of files: its
 * loose files over its pakN.pak over ... over pak0.pak.
 *
 *   pmf_error err;
 *   game_fs *fs = game_fs_open("quake/id1", &err);       // the folder, pak0.pak, pak1.pak ...
 *   uint8_t *bytes;  size_t size;
 *   int r = game_fs_read(fs, "progs/ogre.mdl", PAK_MAX_READ, &bytes, &size, &err); // 1, 0 not there, -1
 *   ... pmf_budget_free(bytes);  game_fs_close(fs);
 *
 * Layout (little-endian, the same in Quake and Quake 2): "PACK", u32 directory offset, u32
 * directory size in bytes (a multiple of 64); the directory: entries of name[56]
 * (NUL-terminated, '/' between folders), u32 file offset, u32 file size.
 *
 * What is checked: the magic; the directory inside the file and a whole number of entries; every
 * name holding its NUL within 56 bytes; every file inside the archive. So the directory's memory
 * is at most the archive's size (and PAK_MAX_ENTRIES entries), and a read at most what the
 * caller's max_size allows. pak_open reads the header and directory; a file's bytes are read
 * when asked for (positional reads: any number of threads may read at once).
 *
 * Override order: a game directory's paks are pak0.pak, pak1.pak ... up to the first number
 * missing (pakN.pak, else PAKN.PAK); a later pak overrides an earlier one, as the engines search
 * them, and a loose file overrides every pak (QuakeSpasm and DarkPlaces; id's original engines
 * searched the paks first). Inside one pak the first entry of a name wins. Names compare without
 * case (ASCII), '\' read as '/'.
 *
 * Functions that can fail fill the shared pmf_error (pmf_error_format: "FILE: WHERE, byte
 * OFFSET: WHAT"); its block is "file", "header", "directory entry 3" or "entry 12
 * (progs/ogre.mdl)" (the name escaped). None prints or exits. */
#ifndef PMF_PAK_H
#define PMF_PAK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmf/pmf.h"

#define PAK_NAME_SIZE 56                   /* 55 characters + NUL */
#define PAK_MAX_ENTRIES (1u << 20)         /* Quake held 2048, Quake 2 4096 */
#define PAK_MAX_PAKS 100                   /* pak0.pak .. pak99.pak */
#define PAK_MAX_READ ((uint64_t)256 << 20) /* the largest file a caller usually reads (models, pictures) */

typedef struct pak_file pak_file;

/* Opens a regular file (a FIFO or directory is refused without blocking) and reads its header and
 * directory; the descriptor stays open until pak_close. */
pak_file *pak_open(const char *path, pmf_error *err);
/* Same over memory it BORROWS (name: the file for errors), kept alive and unchanged until pak_close. */
pak_file *pak_open_memory(const uint8_t *data, size_t size, const char *name, pmf_error *err);
void pak_close(pak_file *p);

/* Every entry in directory order: its raw name (valid until pak_close; print it only through
 * pak_escape_name), its size. NULL / 0 when i >= pak_count. */
uint32_t pak_count(const pak_file *p);
const char *pak_name(const pak_file *p, uint32_t i);
uint32_t pak_entry_size(const pak_file *p, uint32_t i);
/* The first entry named `name` (any case, '\' as '/'), or -1. */
int64_t pak_find(const pak_file *p, const char *name);
/* Entry i's bytes into *bytes (from the memory budget: pmf_budget_free), at most max_size of them.
 * False with err naming the entry when it is larger, the archive shrank or memory ran out. */
bool pak_read(const pak_file *p, uint32_t i, uint64_t max_size, uint8_t **bytes, size_t *size, pmf_error *err);

/* Copies name to buf with bytes < 0x20 or >= 0x7F as "\xNN" (and '\' as "\\"); returns buf. */
const char *pak_escape_name(const char *name, char *buf, size_t size);

typedef struct game_fs game_fs;

/* A game directory and its paks (none is fine). NULL with err when dir is no directory or a pak
 * of it is damaged (err names the pak). */
game_fs *game_fs_open(const char *dir, pmf_error *err);
void game_fs_close(game_fs *fs);
/* How many paks it opened. */
unsigned game_fs_pak_count(const game_fs *fs);
/* The file at path ("progs/ogre.mdl"; relative, no "." or ".." component, no drive) into *bytes
 * (pmf_budget_free), at most max_size bytes: 1 read, 0 in neither the folder nor a pak (or a path
 * refused: err says why), -1 damaged or unreadable (err says where). */
int game_fs_read(const game_fs *fs, const char *path, uint64_t max_size, uint8_t **bytes, size_t *size, pmf_error *err);
/* Where game_fs_read would take path from: "loose", "pak1.pak" ... or NULL when nowhere. */
const char *game_fs_source(const game_fs *fs, const char *path);

#endif
