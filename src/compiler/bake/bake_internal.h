/* bake_internal.h - what the baker's own files (bake.c, bake_sample.c, bake_bounce.c, vis.c) share;
 * the worker pool and the BVH are src/raytrace's; not for the front end. */
#ifndef PMFC_BAKE_INTERNAL_H
#define PMFC_BAKE_INTERNAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "bake.h"
#include "bvh.h"
#include "jobs.h"

#define BAKE_NUDGE 0.002f           /* metres a ray starts off its surface (no self-shadowing) */
#define BAKE_WEAK_LIGHT (0.5f / 255.0f) /* a light adding less to every luxel of a patch is shadowed patch-wide (patch_light) */
#define BAKE_FACE_INSET 0.0625f     /* luxels inside its face a luxel outside it is lit (1 unit of Quake's 16) */

/* bake_desc.store_scale / store_gamma: light (0..1 a byte's range) to the stored 0..1, and a
 * stored byte back to light. */
static inline float bake_store(const bake_desc *d, float light)
{
    if (!(d->store_gamma > 0.0f) || !(light > 0.0f))
        return light > 0.0f ? light : 0.0f;
    float v = powf(d->store_scale * light, d->store_gamma);
    return v < 1.0f ? v : 1.0f;
}

static inline float bake_unstore(const bake_desc *d, uint8_t byte)
{
    float v = byte / 255.0f;
    if (!(d->store_gamma > 0.0f) || !(d->store_scale > 0.0f))
        return v;
    return powf(v, 1.0f / d->store_gamma) / d->store_scale;
}


/* ---- sampling (bake_sample.c) ---- */

uint32_t sample_hash(uint32_t x);
/* Point k of a luxel's own low-discrepancy sequence in [0, 1)^4 (seed: the luxel's hash). */
void sample_point(uint32_t seed, uint32_t k, float out[4]);
/* sample_point in two steps, for many k of one seed: the seed's shift of the four dimensions once,
 * then each point. */
void sample_shift(uint32_t seed, double shift[4]);
void sample_point_shifted(const double shift[4], uint32_t k, float out[4]);
/* The unit square onto the unit disc, area-preserving. */
void sample_disc(float u, float v, float out[2]);
/* Unit t, b with (t, b, n) orthonormal, for unit n. */
void sample_basis(const float n[3], float t[3], float b[3]);
/* in / |in| into out; false (out untouched) for a zero or NaN length. */
bool bake_unit(const float in[3], float out[3]);
/* The unit square onto the half-sphere around n, in proportion to cos theta. */
void sample_cosine(const float n[3], const float t[3], const float b[3], float u, float v, float dir[3]);
/* One dynamic light's work on one patch; its luxels go to out->layers[layer]. */
typedef struct layer_task {
    uint32_t light, lightmap, patch, layer;
} layer_task;

/* What bake_bounce needs of a bake in progress: direct light already in the lightmaps and layers. */
typedef struct bounce_input {
    const bake_desc *desc;
    const bvh *tree, *sky_tree;     /* occluders, open sky */
    float reach;                    /* a ray this long leaves the map */
    uint8_t *const *masks;          /* [lightmap]: NULL for a lightmap that is not baked */
    const layer_task *tasks;        /* sorted by light, then lightmap, then patch */
    size_t task_count;
    uint8_t *task_lit;              /* [task]: set when bouncing lights one of its luxels */
    bake_layer *layers;
    const jobs_progress *progress;
    bool *old_bounce;               /* set when the base took the transport's kept bounces (bake_desc.old_bounce) */
    uint64_t *gathers, *cells;      /* the base cells gathered, of cells x bounces (bake_result.bounce_gathers) */
    size_t *layers_kept;            /* bake_result.bounce_layers_kept */
} bounce_input;

/* ---- relighting (bake_relight.c) ---- */

/* desc->terms' patch_base over desc's patches (each baked patch's luxels inside its lightmap)
 * and its luxels, zeroed, with which shares will be traced. False when out of memory. */
bool bake_terms_plan(const bake_desc *desc, bake_terms *terms);
/* FNV-1a over bytes, 64 bits (the hashes a relight compares). */
uint64_t bake_hash_bytes(uint64_t h, const void *data, size_t size);
/* The trees of desc's triangles into *tree and *sky_tree: desc->trees' (built first when they are
 * not over these triangles), the caller's to free only without desc->trees. False when out of memory. */
bool bake_trees_build(const bake_desc *desc, bvh *tree, bvh *sky_tree);
/* Whether desc->relight's sums of patch `index` hold for it: the patch is the same but for which
 * lightmap it is on. */
bool bake_patch_kept(const bake_desc *desc, size_t index);
/* The lights of desc->relight that desc does not have (*removed) and those of desc it did not
 * (*added), each matched once by value, and for each light of desc the index of the earlier one
 * equal to it (*earlier, UINT32_MAX for an added one). False when out of memory. */
bool bake_light_changes(const bake_desc *desc, uint32_t **earlier, bake_light **removed, size_t *removed_count,
                        bake_light **added, size_t *added_count);

/* Adds desc->bounces bounces of diffuse interreflection to the base lightmaps and to each dynamic
 * light's layers (bake.h). False only when out of memory. */
bool bake_bounce(const bounce_input *in);


#endif
