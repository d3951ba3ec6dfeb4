/* unwrap.h - every lit face's lightmap block, packed per chunk, and the source's own light over
 * them (lightmap.c). */
#ifndef PMFC_UNWRAP_H
#define PMFC_UNWRAP_H

#include "common/level_build.h"

/* Per chunk: lightmap blocks and packing (lightmap.c). */
void chunk_unwrap(const level_build *lb, chunk_build *cb);
/* Whether a dynamic light of the level reaches the chunk: its blocks then go to smaller lightmaps.
 * The one thing of the dynamic lights the stages before the bake read (a relight packs again the
 * kept level's chunks where it changed: relight_build.c). */
bool chunk_dynamic_lit(const level_build *lb, const chunk_build *cb);
/* Before the bake: marks the faces whose every luxel the source's light (level_def.prelit)
 * covers, which the bake then leaves out (lightmap.c). */
void level_mark_prelit(level_build *lb);
/* After it: the source's own light over the luxels it covers, its light styles into the layers
 * of the dynamic lights with those styles (level_light_layer). */
void level_apply_prelit(level_build *lb, level_light *ll);

#endif
