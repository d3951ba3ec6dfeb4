/* info_atlas.h - a level's lightmap atlas use for `pmfview info` (docs/info.md): every lightmap of
 * the level placed in the mesher's atlas (src/mesh/atlas.c, default page size), largest first, as
 * if the whole level were resident at once. */
#ifndef PMFVIEW_APP_INFO_ATLAS_H
#define PMFVIEW_APP_INFO_ATLAS_H

#include <stdbool.h>
#include <stdint.h>

#include "pmf/pmf.h"

typedef struct info_atlas {
    uint64_t lightmaps;
    uint64_t luxels;                 /* Σ (2^n)² */
    uint64_t bytes;                  /* the luxels as the file holds them decompressed: RGB8, 3 each */
    uint64_t block_texels;           /* atlas texels the placed ones take, each block with its 1-luxel border */
    uint32_t page_size;              /* texels per side of an atlas page */
    uint32_t pages;                  /* pages they fill */
    double filled;                   /* block_texels / (pages × page_size²); 0 without lightmaps */
    bool complete;                   /* false: not all were placed (past INFO_ATLAS_MAX_PAGES pages or
                                        INFO_ATLAS_MAX_PLACED lightmaps): the last three figures are of
                                        those placed, largest first */
} info_atlas;

#define INFO_ATLAS_MAX_PAGES 65536
/* Placing takes about a microsecond a lightmap: bounded, so a hostile map cannot make info hang. */
#define INFO_ATLAS_MAX_PLACED (1u << 20)

/* False only when out of memory. */
bool info_atlas_measure(const uint64_t lightmaps_by_exp[PMF_MAX_LIGHTMAP_EXP + 1], info_atlas *out);

#endif
