/* wad.h - Half-Life WAD3 and Quake WAD2 texture archives: the directory, and miptex lumps decoded
 * to RGBA8 (a WAD2's texels through Quake's palette, which the caller gives).
 *
 *   pmf_error err;
 *   wad_file *w = wad_open("halflife.wad", &err);   // header and directory, checked
 *   wad_texture t;
 *   int r = wad_load_texture(w, "crate01", &t, &err); // 1 decoded, 0 not here, -1 damaged
 *   ... t.rgba (t.width * t.height * 4 bytes, row 0 first) ...
 *   wad_texture_free(&t); wad_close(w);
 *
 * Layout (little-endian): "WAD3", u32 lump count, u32 directory offset; the directory is that
 * many 32-byte entries: u32 file offset, u32 disk size, u32 size, u8 type, u8 compression,
 * u16 padding, name[16] (NUL-terminated). A texture is a lump of type 0x43 (miptex):
 * name[16], u32 width, u32 height, u32 mip offsets[4] (from the lump's start), mip level k
 * = (width >> k) * (height >> k) palette indices; after mip 3: u16 colour count and that many
 * RGB triples. A lump's bytes are its disk size; the size field
 * (the uncompressed size) is not needed, as compressed lumps are refused.
 *
 * What is checked: wad_open checks the header, that the directory and every lump lie inside the
 * file, and that every name holds its NUL within 16 bytes. wad_load_texture checks the lump
 * before allocating anything: uncompressed, at least the 40-byte miptex header, width and
 * height 1..WAD_MAX_SIDE, all 4 mips and the palette inside the lump, 1..256 colours, and every
 * texel of mip 0 naming a colour the palette has. So no allocation exceeds the file's size
 * (texture: 4 bytes per texel of a mip 0 that is in the file; directory: one entry per 32 bytes).
 *
 * Names compare without case (ASCII), as Hammer does; when two lumps share a name the first one
 * in the directory wins. Lookups see miptex lumps only; wad_count / wad_name list every lump.
 * Names are raw bytes from the file: print them only through wad_escape_name.
 *
 * A wad_file is immutable after opening: any number of threads may load textures at once.
 * Functions that can fail fill the shared pmf_error (when err is not NULL; pmf_error_format
 * prints it as one line "FILE: WHERE, byte OFFSET: WHAT"); its block is where: "file",
 * "header", "directory entry 3", "lump 12 (BRICK1)" (the name escaped). None prints or exits.
 * The header, directory entries and miptex headers are read through the shared cursor.
 */
#ifndef PMFC_WAD_H
#define PMFC_WAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmf/pmf.h"

#define WAD_NAME_SIZE 16           /* 15 characters + NUL */
#define WAD_MAX_SIDE 4096u         /* widest / tallest texture accepted */
#define WAD_TYPE_MIPTEX 0x43       /* WAD3 */
#define WAD2_TYPE_MIPTEX 0x44      /* WAD2 (Quake): the same miptex, no palette of its own */

typedef struct wad_file wad_file;

typedef struct wad_texture {
    char name[WAD_NAME_SIZE]; /* the lump's name as the directory spells it (raw bytes) */
    uint32_t width, height;
    uint8_t *rgba;            /* width * height * 4 bytes, row 0 first; wad_texture_free() */
} wad_texture;

/* Opens a regular file (a FIFO, device or directory is refused without blocking) and reads it
 * whole into memory the wad_file owns: after its first 12 bytes say "WAD3" or "WAD2", and only up to 2 GiB
 * (Valve's offsets are signed 32-bit; a bigger file is refused unread). */
wad_file *wad_open(const char *path, pmf_error *err);

/* Same over memory it BORROWS (name: the file for errors): the caller keeps data alive and
 * unchanged until wad_close. */
wad_file *wad_open_memory(const uint8_t *data, size_t size, const char *name, pmf_error *err);

void wad_close(wad_file *w);

/* Every lump of the directory, in file order. wad_name is the raw name (NUL-terminated, valid
 * until wad_close), NULL when i >= wad_count; wad_type is the lump's type byte (0x43 miptex). */
uint32_t wad_count(const wad_file *w);
const char *wad_name(const wad_file *w, uint32_t i);
uint8_t wad_type(const wad_file *w, uint32_t i);

/* True when a texture (miptex lump) of that name is in the WAD; case does not matter. */
bool wad_has(const wad_file *w, const char *name);

/* Which frames of a texture animation the WAD holds. name is any member ("+0lava", "+Blava",
 * or the bare "lava"); bit n (0..9) is set when "+<n>lava" exists, bit 10 + n when
 * "+<'a'+n>lava" (the alternate set +a..+j) exists. 0 when none does. */
uint32_t wad_animation_frames(const wad_file *w, const char *name);

/* Finds the texture of that name and decodes mip 0 to RGBA8. Returns 1 when found and decoded,
 * 0 when no texture has that name, -1 when it is damaged (err says where: "lump 12 (BRICK1)"
 * and the byte); out is only written on 1. Each call decodes again: load a texture once.
 * Texels are (r, g, b, 255); in a texture whose name starts with '{' the palette's last colour
 * (index count - 1: 255 in any real WAD) is transparent: those texels are (0, 0, 0, 0). */
int wad_load_texture(const wad_file *w, const char *name, wad_texture *out, pmf_error *err);
/* The same for a WAD2 (Quake), whose texels index `palette` (768 bytes: 256 RGB): -1 without one.
 * A WAD3 ignores it (its textures carry their own). */
int wad_load_texture_palette(const wad_file *w, const char *name, const uint8_t *palette, wad_texture *out, pmf_error *err);
/* 2 or 3. */
int wad_version(const wad_file *w);
/* A Quake 2 .wal texture file of n bytes: name[32], u32 width, u32 height, u32 mip offsets[4],
 * animation name[32], u32 flags, contents, value; mip 0's texels index `palette` (768 bytes).
 * 1 decoded, -1 damaged (where names it, the byte offset is the file's). */
int wad_decode_wal(const uint8_t *data, size_t n, const char *file, const char *where, const uint8_t *palette,
                   wad_texture *out, pmf_error *err);
/* One miptex (a WAD lump, or a BSP's embedded texture) of n bytes decoded, with the checks
 * above: its palette after mip 3 (WAD3, BSP v30) when palette is NULL, else the 256 colours
 * given (WAD2, BSP v29). file, where and base (the lump's byte in its file) name it in errors;
 * name (NULL: the miptex's own) says whether it is a '{' texture. 1 decoded, -1 damaged. */
int wad_decode_miptex(const uint8_t *lump, size_t n, size_t base, const char *file, const char *where, const char *name,
                      const uint8_t *palette, wad_texture *out, pmf_error *err);
void wad_texture_free(wad_texture *t);

/* Copies name to buf with bytes < 0x20 or >= 0x7F as "\xNN" (and '\' as "\\"); returns buf.
 * A buf of 4 * WAD_NAME_SIZE bytes holds any lump name whole. */
const char *wad_escape_name(const char *name, char *buf, size_t size);

#endif
