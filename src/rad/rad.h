/* rad.h - hlrad's texture light files (lights.rad, MAPNAME.rad): one "TEXNAME R G B V",
 * "TEXNAME R G B" or "TEXNAME V" line a texture, "//" comments; what a value means is the
 * compiler's (src/compiler/front/editor/editor_lights.c, docs/pmfc-lighting.md). */
#ifndef PMF_RAD_H
#define PMF_RAD_H

#include <stdbool.h>
#include <stddef.h>

#define RAD_NAME_MAX 64              /* a name's bytes with its NUL: a longer one is cut */

/* Called once for each line holding a name and 1..4 numbers, in file order. */
typedef void (*rad_entry_fn)(void *user, const char *name, const double *values, int count);

/* Reads the file at path, handing each entry to fn; false when it cannot be opened. */
bool rad_read(const char *path, rad_entry_fn fn, void *user);
/* The same over a file's bytes in memory (a NUL among them ends its line there): a lights.rad
 * read out of the game's paks. */
void rad_read_memory(const char *text, size_t size, rad_entry_fn fn, void *user);

#endif
