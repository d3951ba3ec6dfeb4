/* png_write.h - the one PNG writer of pmfview's pictures (`pmfview shot`, the window's F12
 * screenshots, the bench's floor program): RGBA8 pixels written as an RGB PNG through libpng at
 * zlib level 1 (docs/shot.md), atomically (atomic_file.h: a temporary file beside the path, mode
 * 0666 minus the umask, fsync, rename). */
#ifndef PMF_RES_PNG_WRITE_H
#define PMF_RES_PNG_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* rgba: width x height pixels, top row first, 4 bytes each (alpha dropped). False with the
 * reason in why ("cannot ...", without the path). */
bool png_write_rgba(const char *path, uint32_t width, uint32_t height, const uint8_t *rgba, char *why,
                    size_t why_size);

#endif
