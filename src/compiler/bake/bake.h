/* bake.h - pmfc's light and visibility baker: the interface between the compiler's front end
 * (source -> world -> chunks, owned by pmfc-core) and the baker (owned by pmfc-bake).
 *
 * All positions are WORLD metres (origin = centre of the level's centre chunk, Y up).
 * The front end describes occluders, lights and where luxels/vertices/cubes sit; the baker fills
 * the output buffers. Every entry point spreads its work over all cores (bake_desc.threads).
 *
 * Light model (documented for users in docs/pmfc-lighting.md): a light of colour C (0..1),
 * intensity I and range R lights a point p with normal n at distance d < R by
 *     C * I * max(0, n . l) * falloff(d / R) * cone     (falloff(0) = 1, falloff(1) = 0)
 * when the segment from p (nudged off its surface) to the light hits no occluder; cone is 1 for
 * point lights and a smooth step from the outer to the inner cone for spots. A sun lights p by
 * C * I * max(0, n . l) when p sees the sky toward it. A light with a radius (a sun with an angular
 * radius) gives the mean of that over points of its disc: soft shadows. Static lights
 * and the ambient term go into the base lightmaps; each dynamic light into its own layers
 * (layer luxel = I * max(0, n.l) * falloff * 255, grey; the renderer multiplies by the light's
 * RGB); each fast light into per-vertex multipliers (same value, per vertex).
 *
 * Bounced light (bake_bounce.c, bake_desc.bounces): each patch reflects the share `albedo` of the
 * light it receives (static lights, suns and sky light; not the ambient term) diffusely; every
 * bounce, each luxel gathers the previous bounce's exitance over its hemisphere. A dynamic light's
 * layers hold its direct and bounced light together (RGB: tinted by the albedos it bounced off);
 * fast-light multipliers stay direct.
 */
#ifndef PMFC_BAKE_H
#define PMFC_BAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bvh.h"

typedef enum bake_light_kind { BAKE_LIGHT_STATIC, BAKE_LIGHT_DYNAMIC, BAKE_LIGHT_FAST } bake_light_kind;

typedef enum bake_light_shape {
    BAKE_SHAPE_POINT,       /* all around its position, falling off to 0 at its range */
    BAKE_SHAPE_SPOT,        /* a point light limited to a cone around `direction` */
    BAKE_SHAPE_SUN,         /* parallel light along `direction`, everywhere, no falloff; it reaches a
                             * point only through open sky (see bake_desc.sky_triangles) */
} bake_light_shape;

typedef struct bake_light {
    bake_light_kind kind;
    float position[3];
    float color[3];         /* 0..1 */
    float intensity;        /* 1 = full colour at the light */
    float range;            /* metres (suns: ignored) */
    bake_light_shape shape; /* zero: a point light */
    float direction[3];     /* spot: the cone's axis; sun: the way its light travels (unit vectors) */
    float cos_inner, cos_outer; /* spot: full strength inside the inner cone, 0 at the outer */
    int cone;               /* LIGHT_CONE_* (src/raytrace/light_model.h); zero: pmfc's smooth step */
    float radius;           /* point and spot: the light's radius, metres; sun: its angular radius,
                             * radians. 0 = a point (a parallel sun): hard shadows. Shadow rays
                             * then aim at points over a disc of this size (penumbrae) */
    int falloff;            /* LIGHT_FALLOFF_* (src/raytrace/light_model.h); zero: pmfc's smooth curve */
    float falloff_distance; /* metres: where the inverse falloffs give `intensity` */
    float anglescale;       /* 0: the plain cosine; else (1 - a) + a cos (Quake's _anglescale) */
    bool no_dirt;           /* static: ambient occlusion (bake_desc.dirt_*) leaves its light alone */
} bake_light;

/* A sky dome (ericw-tools' _sunlight2 above the horizon, _sunlight3 below it): light from every
 * direction of one half of the sky, as a dome of suns. */
typedef struct bake_dome {
    float color[3];         /* 0..1 (the dome's value / 255 x its colour); zero = no dome */
    float anglescale;       /* as bake_light's */
    bool no_dirt;           /* ambient occlusion leaves its light alone */
} bake_dome;

#define BAKE_DOME_SAMPLES 100   /* directions of a dome without bake_desc.dome_samples (ericw's -sunsamples) */

/* A planar face's w x h block of luxels inside lightmap `lightmap` (an index into
 * bake_desc.lightmaps). Luxel (i, j) of the block sits at origin + (i + 0.5) step_u + (j + 0.5) step_v. */
typedef struct bake_patch {
    float origin[3], step_u[3], step_v[3], normal[3];
    uint32_t lightmap;
    uint16_t x, y, w, h;    /* placement inside the lightmap, luxels */
    /* Its luxels' samples' seed (with their place in the block): not their place in the lightmap,
     * so a block packed elsewhere (a dynamic light's chunks take smaller lightmaps) bakes the same
     * and a relight keeps its sums */
    uint32_t seed;
    /* Smooth shading: the normal light is measured against at block coordinates (s, t) (luxel
     * (i, j)'s centre is (i + 0.5, j + 0.5)) is normalise(shade_normal + s shade_du + t shade_dv);
     * shade_normal zero = the flat `normal`. Shadow rays always leave along the flat one. */
    float shade_normal[3], shade_du[3], shade_dv[3];
    float albedo[3];        /* 0..1: the share of each colour it reflects (0 = bounces nothing) */
    uint32_t surface;       /* the occluder surface it lies on (see bake_desc.triangle_surfaces) */
    /* 0..1: the least light of each of its base luxels, after the bounces (Quake's minlight: a brush
     * entity's `_minlight`); dirt darkens it unless ambient_no_dirt. Negative: no floor at all, not
     * even bake_desc.ambient's */
    float minlight[3];
    /* A lit liquid's surface (ericw-tools'): static lights behind it light it as from in front (the
     * angle term of |n . l|), and ambient occlusion leaves it alone */
    bool two_sided;
    /* The face's box in the block's luxels (luxel (i, j) covers [i, i + 1] x [j, j + 1]; none when
     * face_hi is not past face_lo): a luxel whose centre falls outside it (a border luxel, or one
     * past the end of a face narrower than a luxel) is lit at the nearest point a hair inside it,
     * as ericw-tools' light moves a sample onto its face, not where the wall the face meets is. */
    float face_lo[2], face_hi[2];
} bake_patch;

typedef struct bake_lightmap {
    uint8_t size_exp;       /* side 2^size_exp */
    uint8_t *luxels;        /* RGB8, (2^n)^2 * 3 bytes, allocated by the front end, filled by bake */
} bake_lightmap;

/* One dynamic light's layer on one lightmap, produced only where the light adds something. */
typedef struct bake_layer {
    uint32_t light;         /* index into bake_desc.lights */
    uint32_t lightmap;
    uint8_t *luxels;        /* RGB8, same size as the lightmap; free with bake_result_free */
} bake_layer;

/* A point that receives fast-light multipliers (a mesh vertex). */
typedef struct bake_vertex { float position[3], normal[3]; } bake_vertex;

/* A cube whose lighting data is wanted (sampled at its centre, over its extent). */
typedef struct bake_probe { float min[3], max[3]; } bake_probe;

typedef struct bake_light_ref { uint32_t light; uint8_t amount; } bake_light_ref;
typedef struct bake_probe_result {
    uint8_t base[3];                /* static + ambient light at the centre, 0..255 */
    uint32_t ref_count;             /* dynamic and fast lights whose range reaches the cube */
    bake_light_ref *refs;           /* amount = their unshadowed strength at the centre, 0..255 */
} bake_probe_result;

/* What a bake sums per base luxel before it stores it (a relight starts from them: bake_relight.c).
 * A luxel is stored as ((dirtied + domes + sky) x keep + clean), the domes and sky by their
 * colours. The lights' sums are doubles: the float light of each light adds to them exactly, so
 * taking a light out again leaves the very sum of the others (a luxel at a byte's half stays). */
typedef struct bake_term {
    double dirtied[3], clean[3];    /* the ambient term and static lights: those dirt darkens, those it leaves alone */
    float dome[2];                  /* the upper and lower sky domes' shares */
    float sky;                      /* the sky's share */
    float keep;                     /* what dirt leaves (1 without dirt) */
} bake_term;

typedef struct bake_terms {
    uint32_t *patch_base;           /* [patch_count + 1]: each patch's first luxel (each baked patch's
                                     * w x h luxels inside its lightmap, row by row) */
    bake_term *luxels;              /* [luxel_count] */
    size_t patch_count, luxel_count;
    bool domes[2], sky;             /* whether the dome and sky shares were traced (they were lit) */
    /* The probes' stored static light, domes and ambient term, and the hash of what else they were
     * lit from (bake_probe_inputs): a relight keeps those no changed light reaches. */
    uint8_t (*probe_base)[3];       /* [probe_count], NULL when the bake had no probes */
    size_t probe_count;
    uint64_t probe_inputs;
    /* Each dynamic light's direct light on each patch it reaches (its layer's luxels there before
     * the bounces and dilation, one grey byte each, row by row): a relight keeps those of the
     * lights that did not change on the patches it keeps (bake_patch_kept) instead of tracing them. */
    uint64_t *layer_keys;           /* [layer_piece_count]: light << 32 | patch, ascending */
    uint32_t *layer_base;           /* [layer_piece_count + 1]: each one's first byte in layer_luxels */
    uint8_t *layer_luxels;          /* [layer_luxel_count] */
    size_t layer_piece_count, layer_luxel_count;
} bake_terms;

/* A relight: a bake whose geometry (bake_geometry_hash) equals the bake that left `terms`, with
 * these lights, this ambient term and these patches. Only the lights that differ are traced
 * again, on the luxels they reach at their old and their new place; the rest is the terms,
 * composed again. A patch placed elsewhere in the lightmaps (a dynamic light's chunks take
 * smaller ones) keeps its terms: its luxels' samples follow its seed, not their place. */
typedef struct bake_relight {
    const bake_terms *terms;
    const bake_patch *patches;      /* [terms->patch_count] */
    const bake_light *lights;
    size_t light_count;
    float ambient[3];
} bake_relight;

/* Bounced light's transport (bake_bounce.c): the luxel each bounce ray meets, the cells that
 * gather and what each luxel sees of them. It follows from the geometry alone (the hash of what it
 * was traced from), so a bake given one traced for the same geometry takes it as it is. */
typedef struct bake_transport {
    uint64_t hash;
    size_t ray_count, cell_count, luxel_count;
    uint32_t *hits;                 /* [ray_count] */
    uint8_t *cell_open, *cell_clear;/* [cell_count] */
    float *cell_send;               /* [cell_count] */
    uint8_t *luxel_sees;            /* [luxel_count] */
    float (*indirect)[3];           /* [cell_count]: the base lightmaps' bounced light of the last bake
                                     * that bounced (bake_desc.old_bounce), NULL when not kept */
    /* The base lightmaps' bounces of the last bake that bounced, so that the next gathers again
     * only the cells whose rays meet light that changed (the rest keep theirs): */
    uint64_t *direct;               /* [cell_count]: the hash of the direct light its luxels bounced, as stored */
    float (*gathered)[3];           /* [bounce_count x cell_count]: what each cell gathered in each bounce */
    size_t bounce_count;
    float direct_read[5];           /* how those bytes were read: the floor taken off them, store_scale, store_gamma */
    /* Each dynamic light's bounced light per cell of its set as the last bake left it, under a hash
     * of what it was bounced from (its patches, their direct light, the settings): a light whose
     * layers are the same again takes it instead of bouncing. */
    uint64_t *layer_keys;           /* [layer_count] */
    uint32_t *layer_base;           /* [layer_count + 1]: each one's first cell in layer_indirect */
    float (*layer_indirect)[3];
    size_t layer_count;
    /* Built when first needed from hits, kept in memory only: the cells whose rays meet each cell. */
    uint32_t *receiver_base;        /* [cell_count + 1] */
    uint32_t *receivers;
} bake_transport;

/* The trees rays walk, over a bake's occluders and open sky: what a caller that bakes the same
 * triangles again keeps between bakes (pmfc's relight, bake_desc.trees) instead of building them. */
typedef struct bake_trees {
    uint64_t triangles;             /* bake_trees_key of the triangles they were built over; 0: none */
    bvh tree, sky_tree;
} bake_trees;

typedef struct bake_desc {
    const float (*triangles)[9];    /* occluders: opaque world triangles (x0 y0 z0 x1 ... z2) */
    size_t triangle_count;
    const bake_light *lights;
    size_t light_count;
    float ambient[3];               /* 0..1, added to every base luxel and probe */
    bool ambient_floor;             /* the ambient is base luxels' least light (bake_patch.minlight's
                                     * where that is brighter), not added to them (ericw-tools' minlight) */
    /* Open sky: triangles that are not drawn and block nothing, through which sunlight and sky
     * light enter. A point sees the sun (or the sky in a direction) when the ray that way meets
     * no occluder before it passes a sky triangle or leaves the occluders' bounds. */
    const float (*sky_triangles)[9];
    size_t sky_triangle_count;
    /* With sky triangles, only they let the sky in: a ray that leaves the occluders' bounds without
     * crossing one sees none (hlrad's and ericw-tools' rule for sealed maps, whose outside is
     * solid; a border luxel's point inside a wall would otherwise see the void beyond it). */
    bool sky_faces_only;
    float sky_light[3];             /* 0..1: a base luxel adds sky_light x the cosine-weighted
                                     * fraction of its hemisphere that sees sky (0 = none) */
    /* Sky domes: [0] the upper half of the sky (directions with +Y), [1] the lower half. A base
     * luxel (and a probe, unoriented) adds color x the mean, over the dome's directions d, of
     * angle(sn . d) (bake_light.anglescale's) where it sees sky along d. The directions are
     * ericw-tools' dome of suns: R rings even in elevation (the first half a step over the
     * horizon, steps of 90 / (R + 1) degrees), 4R directions around each, and the pole, 4R^2 + 1
     * with R = round(sqrt((dome_samples - 1) / 4)) (at least 1); each luxel turns them about Y
     * by its own share of a step, so their shadows blend instead of banding. */
    bake_dome domes[2];
    int dome_samples;               /* 0 = BAKE_DOME_SAMPLES */
    /* Samples per luxel, spread over its square (jittered the same way on every run): 0 or 1 =
     * one at its centre; at most 64. Luxels where a light's rays disagree (a shadow's edge) take 4x more. */
    int samples;
    /* Ambient occlusion ("dirt"): base luxels darken by dirt_strength (0..1) x the mean of
     * (1 - hit distance / dirt_distance) over rays into their half-sphere. 0 = off. It darkens
     * all their light but what is marked no_dirt (a light's, a dome's, the ambient term's). */
    float dirt_distance, dirt_strength;
    bool ambient_no_dirt;
    bake_lightmap *lightmaps;
    size_t lightmap_count;
    const bake_patch *patches;
    size_t patch_count;
    const bake_vertex *vertices;
    size_t vertex_count;
    const bake_probe *probes;
    size_t probe_count;
    /* Bounced light: the surface each occluder triangle belongs to ([triangle_count], NULL = no
     * bounces). A bounce ray meeting triangle t takes its light from the patch whose surface is
     * triangle_surfaces[t] and whose block holds the point met. */
    const uint32_t *triangle_surfaces;
    /* Bounced light as the classic hlrad transfers it: a surface reflects its albedo's share of its
     * light onto the surfaces it sees, none of it lost to the sky or the void (hlrad normalises each
     * patch's transfers over the patches it sees). false: what a ray takes out of the map is lost. */
    bool bounce_no_sky_loss;
    /* Only the base lightmaps' light bounces: dynamic lights' layers keep their direct light alone
     * (ericw-tools' light bounces a styled light's only with -bouncestyled). */
    bool static_bounce_only;
    int bounce_cell;                /* luxels a side of the cells bounces gather over (0 = 8); fewer
                                     * where more memory would be needed (bake_bounce.c) */
    int bounces;                    /* 0 = none (direct light only), BAKE_BOUNCE_AUTO = until the
                                     * next would add < 1% of the light (at most BAKE_BOUNCE_MAX) */
    /* How light L (0..1 = one byte's range, bounces included) is stored in base luxels, layers
     * and probes: min(1, (store_scale x L)^store_gamma), as a game's compiler stores it (hlrad:
     * its light x 2 through gamma 0.5). store_gamma 0 = as it is (linear). Bounces gather the
     * light linear again. */
    float store_scale, store_gamma;
    int threads;                    /* 0 = every core */
    void (*progress)(void *user, const char *stage, double fraction); /* may be NULL */
    void *user;
    bake_terms *terms;              /* non-NULL: filled with the luxels' sums (bake_terms_free) */
    bake_transport *transport;      /* non-NULL: bounces take it when it was traced for this geometry;
                                     * else the bounces' own replaces it (bake_transport_free) */
    const bake_relight *relight;    /* non-NULL: a relight from an earlier bake's sums */
    bake_trees *trees;              /* non-NULL: taken when built over these triangles, else built
                                     * and left here (the caller's: bake_trees_free) */
    /* With transport: the base lightmaps take the bounced light it keeps (an earlier bake's) and
     * the layers none, instead of bouncing again: the new direct light on screen at once, before
     * a bake without it refines the bounces (bake_result.old_bounce says whether it could). */
    bool old_bounce;
} bake_desc;

#define BAKE_BOUNCE_AUTO (-1)
#define BAKE_BOUNCE_MAX 32

typedef struct bake_result {
    bake_layer *layers;
    size_t layer_count;
    uint32_t (*layer_boxes)[4];     /* [layer_count]: the box x0 y0 x1 y1 of its lightmap outside which a
                                     * layer is 0 (its pieces and the rings dilated around them) */
    uint8_t *fast_multipliers;      /* [fast light ordinal][vertex_count]: one row per BAKE_LIGHT_FAST light, in light order */
    size_t fast_light_count;
    bake_probe_result *probes;      /* probe_count of them */
    size_t relit_lights;            /* a relight: the lights that differ (added, removed or changed) */
    uint64_t relit_luxels;          /* ... and the base luxels they reach, traced again */
    bool old_bounce;                /* the bounces were the transport's kept ones (bake_desc.old_bounce) */
    uint64_t patch_light_checks;    /* lights checked against a patch's box, each once per patch (a
                                     * relight checks those that changed, not every light reaching it) */
    size_t relit_probes;            /* probes whose static light was traced (a relight keeps the rest) */
    size_t traced_layer_pieces;     /* (dynamic light, patch) pieces of layers traced (a relight keeps
                                     * those of the lights that did not change: bake_terms.layer_keys) */
    uint64_t dilated_luxels;        /* luxels the dilation went over (a layer's: around its pieces) */
    uint64_t dilate_looked;         /* uncovered luxels whose neighbours it read: a lightmap's next to its
                                     * rings (runs of 8 covered, or far from any, skipped whole), a
                                     * layer's in its lightmap's rings next to its lit luxels */
    uint64_t bounce_gathers;        /* cells of the base lightmaps gathered, over all bounces (a bake
                                     * with the transport's kept bounces gathers again only those a
                                     * change reaches) ... */
    uint64_t bounce_cells;          /* ... of their cells times the bounces */
    size_t bounce_layers_kept;      /* dynamic lights whose bounced light the transport kept (not bounced again) */
} bake_result;

/* Fills desc->lightmaps' luxels and the result. Returns false only when out of memory. */
bool bake_run(const bake_desc *desc, bake_result *out);
void bake_result_free(bake_result *res);
void bake_terms_free(bake_terms *terms);
void bake_transport_free(bake_transport *transport);
/* What the trees are built over: the occluders and the open sky. */
uint64_t bake_trees_key(const bake_desc *desc);
void bake_trees_free(bake_trees *trees);
/* What a relight needs to equal of the earlier bake: the occluders, the open sky, the number of
 * patches and the settings (not the lights, the ambient term, the sky's and the domes' colours,
 * the patches' places, the vertices and probes, which every bake lights whole). */
uint64_t bake_geometry_hash(const bake_desc *desc);
/* What a probe's static light depends on besides the geometry and the lights reaching it: the
 * probes' boxes, the ambient term and the domes (bake_terms.probe_inputs). */
uint64_t bake_probe_inputs(const bake_desc *desc);

/* ---- visibility ------------------------------------------------------------------------ */

/* An axis-aligned box: a cell a camera can stand in, or a target that may be seen. */
typedef struct vis_box { float min[3], max[3]; } vis_box;

typedef struct vis_desc {
    const float (*triangles)[9];    /* occluders (opaque world triangles) */
    size_t triangle_count;
    const vis_box *cells;
    size_t cell_count;
    const vis_box *targets;
    size_t target_count;
    int rays_per_pair;              /* 0 = default; more = slower, tighter */
    int threads;                    /* 0 = every core */
    void (*progress)(void *user, const char *stage, double fraction);
    void *user;
} vis_desc;

/* For each cell, the sorted indices of the targets visible from anywhere in it. Conservative:
 * a target any straight unblocked segment reaches from the cell is never left out (a target
 * overlapping or touching the cell, or within one cell size, is always visible). */
typedef struct vis_result {
    uint32_t **visible;             /* [cell] -> array of target indices */
    uint32_t *visible_count;        /* [cell] */
} vis_result;

bool vis_run(const vis_desc *desc, vis_result *out);
void vis_result_free(vis_result *res, size_t cell_count);
/* Sorts a cell's list of target indices ascending, as vis_result holds them. */
void vis_list_sort(uint32_t *list, size_t count);

/* The worker pool (also used by the front end for parallel chunk encoding): src/raytrace/jobs.h. */
#include "jobs.h"

#endif
