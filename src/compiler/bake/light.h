/* light.h - a level described to the baker and baked (light.c), what the baker gave it indexed for
 * the chunk writer (light.c, emit.c), and smooth shading (smooth.c). */
#ifndef PMFC_LIGHT_H
#define PMFC_LIGHT_H

#include <pthread.h>

#include "common/level_build.h"

#define GROUP_LAYERS_MAX 4

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
    /* Dynamic lights sharing an ID (a game's style, editor_lights.c) are one light of the chunks:
     * layers and probe references name the group's first light alone, a layer's light
     * group + j x light_count (j < GROUP_LAYERS_MAX) holding the group's light past j bytes */
    uint32_t *group;                   /* [light] -> the first light of its ID (itself for the others) */
    uint8_t (*group_color)[3];         /* [light]: its group's colour (white when the members' differ:
                                        * the layers then hold their tints) */
    pthread_mutex_t layers_lock;       /* level_light_layer adds layers from several threads */
};

/* Lights (light.c): describes the level to the baker, runs it, and keeps what each chunk gets.
 * light_reaches: true when the light's sphere reaches the box (a sun reaches everything). */
bool light_reaches(const light_def *l, v3 lo, v3 hi);
level_light *level_bake(level_build *lb, void (*progress)(void *, const char *, double), void *user);
/* The layer of the level's light on bake lightmap `lightmap`: NULL when it has none and `add`
 * is false, else made (zeroed) when missing. Thread-safe; call level_light_index_layers after. */
uint8_t *level_light_layer(level_light *ll, uint32_t light, uint32_t lightmap, bool add);
void level_light_index_layers(level_light *ll);
void level_light_free(level_light *ll);

/* Smooth shading (smooth.c): every corner of every face whose material smooths, with the mean
 * normal of the faces meeting there at less than both materials' smoothing angles. */
typedef struct smooth_normals smooth_normals;
/* NULL when no material of the map smooths. */
smooth_normals *level_smooth_normals(const level_build *lb);
/* Fills the patch's shade_* fields for the chunk face (left zero, flat, when nothing smooths it). */
void smooth_patch(const level_build *lb, const smooth_normals *sn, const chunk_face *cf, bake_patch *bp);
void smooth_normals_free(smooth_normals *sn);

#endif
