/* light.h - what the baker gave a level, indexed for the chunk writer (light.c, emit.c). */
#ifndef PMFC_LIGHT_H
#define PMFC_LIGHT_H

#include <pthread.h>

#include "world.h"

struct level_light {
    bake_result res;
    size_t light_count;                /* = level_def.light_count, same order as the baker's */
    int32_t *fast_ordinal;             /* [light] -> row in res.fast_multipliers, -1 if not fast */
    size_t vertex_count;               /* row length of res.fast_multipliers */
    uint32_t *probe_base;              /* [chunk] -> its first probe in res.probes */
    uint32_t *lm_layer_start;          /* [bake lightmap + 1] prefix sums into layer_order */
    uint32_t *layer_order;             /* res.layers indices sorted by lightmap */
    size_t lightmap_count;             /* bake lightmaps (every chunk's, in chunk order) */
    const uint8_t *lightmap_exp;       /* [bake lightmap]: its side's exponent (level_bake's, until free) */
    pthread_mutex_t layers_lock;       /* level_light_layer adds layers from several threads */
};

/* Smooth shading (smooth.c): every corner of every face whose material smooths, with the mean
 * normal of the faces meeting there at less than both materials' smoothing angles. */
typedef struct smooth_normals smooth_normals;
/* NULL when no material of the map smooths. */
smooth_normals *level_smooth_normals(const level_build *lb);
/* Fills the patch's shade_* fields for the chunk face (left zero, flat, when nothing smooths it). */
void smooth_patch(const level_build *lb, const smooth_normals *sn, const chunk_face *cf, bake_patch *bp);
void smooth_normals_free(smooth_normals *sn);

#endif
