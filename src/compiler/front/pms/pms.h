/* pms.h - the .pms front end (parse.c): pmfc's own source format (docs/pmfc.md) into the world
 * model. */
#ifndef PMFC_PMS_H
#define PMFC_PMS_H

#include "common/world.h"

/* Parses a source file into map (after map_init). On error prints "FILE:LINE: message" to
 * stderr and returns false. */
bool parse_file(const char *path, map_def *map);
/* The same over size bytes in memory; name stands for the file in messages and image paths. */
bool parse_source(const char *name, const char *text, size_t size, map_def *map);

#endif
