/* wad_build.h - writes WAD3 files for tests: miptex textures from palette indices or from RGBA,
 * and raw lumps of any type. The layout is the one Valve's tools write (see tools/pmfc/wad/wad.h):
 * "WAD3" header, the lumps from byte 12 in the order added (each padded to 4 bytes), then the
 * directory. A miptex lump is its 40-byte header, mips 0..3 (mips 1..3 point-sampled from mip 0),
 * u16 colour count, the palette.
 *
 *   wad_build *b = wad_build_create();
 *   wad_build_add_rgba(b, "{fence", 16, 16, rgba);
 *   wad_build_finish(b, &bytes, &size);   // or wad_build_write_file(b, "x.wad")
 *   wad_build_destroy(b);
 *
 * The add functions return false (and add nothing) on arguments no WAD3 can hold: a name that
 * is empty or longer than 15 characters, a side of 0 or more than 65535, no colours, more than 256.
 */
#ifndef TESTS_WAD_BUILD_H
#define TESTS_WAD_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct wad_build wad_build;

wad_build *wad_build_create(void);
void wad_build_destroy(wad_build *b);

/* A texture from width * height palette indices (row 0 first) and `colours` RGB triples. */
bool wad_build_add_indexed(wad_build *b, const char *name, uint32_t width, uint32_t height,
                           const uint8_t *indices, const uint8_t *palette_rgb, unsigned colours);

/* A texture from RGBA8 texels: the palette is their distinct RGB colours in order of first
 * appearance, padded with black to 256. In a '{' texture a texel with alpha < 128 becomes the
 * last colour (index 255, blue as Half-Life's tools make it), so at most 255 other colours fit;
 * elsewhere alpha is ignored. False when the colours do not fit. */
bool wad_build_add_rgba(wad_build *b, const char *name, uint32_t width, uint32_t height, const uint8_t *rgba);

/* A lump of any type with the given bytes (stored uncompressed). */
bool wad_build_add_lump(wad_build *b, const char *name, uint8_t type, const void *data, size_t size);

/* The whole file, malloc'd (free()); false when out of memory. */
bool wad_build_finish(const wad_build *b, uint8_t **out, size_t *size);
bool wad_build_write_file(const wad_build *b, const char *path);

#endif
