/* info_formats.h - `pmfview info` for the files map_source hands to their own readers: the
 * legacy PMF draft and PM4 files / tile directories (schemas: docs/formats.md). */
#ifndef PMFVIEW_APP_INFO_FORMATS_H
#define PMFVIEW_APP_INFO_FORMATS_H

#include <stdbool.h>

#include "map_source.h"

/* Reads and validates path as src says and prints the summary. Exit code (conventions §4). */
int info_formats(const char *path, const map_source *src, bool json);
/* A compiled Quake-family map read as it is: its format, the compiler its entity lump names,
 * its faces, lightmaps, models, textures, entities and PVS. */
int info_bsp(const char *path, bool json);

#endif
