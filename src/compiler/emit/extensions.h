/* extensions.h - the pmfview.* extensions pmfc writes for a map (conventions §4): its lights and
 * their models, start cameras, source and look, point entities (and their models' placement and
 * render keys) and leak. */
#ifndef PMFC_EXTENSIONS_H
#define PMFC_EXTENSIONS_H

#include "common/world.h"

#define MAP_EXTENSIONS_MAX 8   /* lights and their models, cameras, source, entities, placement, render, leak */

typedef struct map_extensions {
    pmf_blob blobs[MAP_EXTENSIONS_MAX];   /* each malloc'ed: map_extensions_free */
    size_t count;
} map_extensions;

/* Every extension the map has something for, in a fixed order. After level_layout: positions are
 * written in world metres (the levels' shifts applied). False with err filled on a number that
 * is not finite or out of memory (what was made is freed). */
bool map_extensions_build(const map_def *map, map_extensions *out, pmf_error *err);
void map_extensions_free(map_extensions *ext);

#endif
