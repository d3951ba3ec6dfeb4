/* light_direct.h - a light's direct term computed from its pmfview.lights metadata, with the
 * baker's light model (docs/pmfc-lighting.md, src/compiler/bake/bake.h):
 *     C × I × max(0, n · l) × falloff(d / R) × cone        (suns: C × I × max(0, −n · s))
 * Shadows as the baker casts them, against the LOADED geometry: the segment from the point
 * (2 mm off its surface) to the light, stopping 0.01 % short, through pmfc's own BVH
 * (src/raytrace/bvh.h) over the opaque triangles of the resident chunks within the lights' reach;
 * a sun's ray toward the sun, 10 km long (sky faces are not drawn, so they neither block it nor
 * let it through: a roof the viewer has not loaded lets the sun in). Geometry beyond the streaming
 * radius casts no shadow.
 *
 * light_direct_block spreads the term over one lightmap block of a meshed chunk: each texel of
 * the block takes the world position and normal of the triangle that covers it in lightmap space
 * (the face's plane extended over the one-luxel border ring, as the baker lights it). The scene
 * hands it to the renderer as render_light_filter.static_term for static solo and mute.
 */
#ifndef PMFVIEW_LIGHT_DIRECT_H
#define PMFVIEW_LIGHT_DIRECT_H

#include <stddef.h>
#include <stdint.h>

#include "bvh.h"
#include "mesh.h"
#include "pmf/pmf_lights.h"

/* out = the light's RGB contribution (0..1 per unit of colour, may exceed 1) at world point p
 * with unit normal n. */
void light_direct(const pmf_light_info *light, const float p[3], const float n[3], float out[3]);

typedef struct light_direct_set {
    const pmf_light_info *lights;    /* the static lights whose term is wanted */
    size_t count;
    int32_t center[3];               /* the level's centre chunk: world = (coord − centre) × S + local */
    bvh occluders;                   /* light_direct_occluders; zero = nothing casts shadows */
} light_direct_set;

/* Builds set->occluders over the opaque triangles (materials neither transparent, liquid nor
 * additive: what the baker counts) of the chunks that lie within the set's lights' reach (suns:
 * every chunk). False when out of memory (no shadows then). */
bool light_direct_occluders(light_direct_set *set, const pmf_level *lvl, const mesh_chunk *const *chunks, size_t count);
void light_direct_free(light_direct_set *set);

/* light_direct with the shadow test against set->occluders (world point p, unit normal n). */
void light_direct_shadowed(const light_direct_set *set, const pmf_light_info *light, const float p[3], const float n[3],
                           float out[3]);

/* rgba (block_side² RGBA floats, rows bottom-up) += sign × Σ the set's terms, texel by texel.
 * Blocks that are no lightmap (a cube's base colour) are left as they are. */
void light_direct_block(void *set, const mesh_chunk *mc, uint32_t block, float sign, float *rgba);

/* A point of a chunk in world metres. */
void light_direct_world(const light_direct_set *set, const mesh_chunk *mc, const float local[3], float out[3]);

#endif
