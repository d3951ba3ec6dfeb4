/* relight.h - what a compile keeps so that the next one, after a light-only edit, bakes only the
 * lights that changed (issue 40; docs/pmfc.md "Relight"). Per level: the lights and the ambient
 * term its bake was given, the hash of everything else the bake depends on (its geometry:
 * bake_geometry_hash), the luxels' sums before they are stored (bake_terms), and the level as the
 * stages before the bake built it (relight_build_*: none of them runs again when all they read is
 * the same). pmfc keeps it in
 * a file of --cache DIR (relight_cache_read / relight_cache_write). The viewer's compile-on-save
 * keeps the same structure in memory instead (pmfc_compile_desc.keep): its blocks are the
 * compile's, so pmfc.c hands them from the compile's ledger to the cache's own (ledger) once the
 * compile ends (after a cancel, the ones relight_cache_blocks lists), back at the next compile's
 * start, and relight_cache_take puts the structure in place of relight_cache_read, same key.
 *
 * A bake given a level's earlier state (relight_start) starts from its sums when the geometry is
 * the same; anything else (another geometry, settings, lightmap layout) bakes in full and says why
 * in one line. Either way the bake's new state replaces the old (relight_keep). */
#ifndef PMFC_RELIGHT_H
#define PMFC_RELIGHT_H

#include "bake/bake.h"
#include "common/level_build.h"
#include "pmfc.h"

typedef struct relight_level {
    bool have;                      /* an earlier bake of this level is held */
    uint64_t geometry;              /* its bake_geometry_hash */
    bake_light *lights;
    size_t light_count;
    float ambient[3];
    bake_patch *patches;            /* [terms.patch_count] */
    bake_terms terms;
    bake_transport transport;       /* bounced light's, kept and taken by the bake (bake_desc.transport) */
    bake_trees trees;               /* the bake's rays' trees (bake_desc.trees): in memory only, never in the file */
    /* visibility: what vis_run gave for these occluders, cells and targets (the same lists again) */
    bool have_vis;
    uint64_t vis_hash;
    size_t vis_cells, vis_total;
    uint32_t *vis_count;            /* [vis_cells] */
    uint32_t *vis_lists;            /* [vis_total]: each cell's list in turn */
    /* the level as the stages before the bake built it (relight_build.c), for an edit they do not
     * see: its faces, chunks, lightmap blocks, octrees and vertices in one block of bytes */
    uint64_t built_key;             /* relight_build_key of the source that built it; 0: none held */
    uint8_t *built;
    size_t built_size;
    bool built_kept;                /* this compile took its level from built, not from its stages ... */
    size_t built_repacked;          /* ... but built again this many chunks (a dynamic light reaches them
                                     * now or no longer does, or a fast light other faces of them) */
    bool relit;                     /* this compile's bake was a relight ... */
    size_t relit_lights;            /* ... of this many lights */
    uint64_t relit_luxels;          /* ... over this many base luxels */
    uint64_t bounce_gathers, bounce_cells; /* bake_result's: bounce cells gathered again, of all */
    bool old_bounce;                /* ... with the bounces kept from before (bake_result.old_bounce) */
} relight_level;

typedef struct relight_cache {
    char dir[4096], path[4096];     /* --cache DIR and the cache file in it */
    uint64_t key;                   /* the source's path, the options and the compiler */
    size_t level_count;
    relight_level *levels;
    struct pmf_budget_ledger *ledger; /* in memory between compiles (pmfc_compile_desc.keep): its blocks' */
} relight_cache;

/* The cache of desc's source and options in desc->cache_dir, for level_count levels: read when it
 * is there and whole; a stale or damaged one is said in one line and left (the compile is then a
 * full one). */
void relight_cache_read(relight_cache *rc, const pmfc_compile_desc *desc, size_t level_count);
/* A cache file's bytes read into rc's levels (rc's key and level count set): NULL, or why they
 * are not a cache of rc's compile (its levels then hold what was read: relight_cache_free). What
 * relight_cache_read does with the file's bytes, and the fuzz targets fuzz_relight*. */
const char *relight_cache_parse(relight_cache *rc, const uint8_t *bytes, size_t size);
/* Writes into a cache file's last 8 bytes the checksum of the bytes before them (size >= 8): how
 * tests and fuzz targets damage a cache that still reads as whole. */
void relight_cache_seal(uint8_t *bytes, size_t size);
/* Replaces the cache file (atomically). False with one warning line when it cannot. */
bool relight_cache_write(const relight_cache *rc);
void relight_cache_free(relight_cache *rc);
/* Calls each for every block rc holds (its levels' and theirs). */
void relight_cache_blocks(const relight_cache *rc, void (*each)(void *user, void *block), void *user);
/* The cache of desc's source and options from *kept (pmfc_compile_desc.keep: its blocks already
 * the compile's) when it holds that, else from desc->cache_dir's file (relight_cache_read) when
 * there is one, else none; *kept is left empty. */
void relight_cache_take(relight_cache *rc, relight_cache *kept, const pmfc_compile_desc *desc, size_t level_count);

/* The earlier bake a bake of desc starts from (filled in *out), or NULL: none, or its geometry
 * differs (said in one line). */
const bake_relight *relight_start(const relight_level *rl, const bake_desc *desc, bake_relight *out);
/* After a bake of desc: its lights, ambient term and sums (taken from *terms) replace rl's. */
void relight_keep(relight_level *rl, const bake_desc *desc, bake_terms *terms, const bake_result *res);
/* Visibility: *out as vis_run would give it when rl holds the result for desc's occluders, cells
 * and targets (true), else false; relight_vis_keep holds a result for the next compile. */
bool relight_vis_lookup(const relight_level *rl, const vis_desc *desc, vis_result *out);
void relight_vis_keep(relight_level *rl, const vis_desc *desc, const vis_result *res);

/* The level before the bake: relight_build_key hashes all that the stages before the bake read (the
 * geometry, materials, layout and settings, not the lights, the sun or the sky; 0 for a level
 * they cannot be kept for: prelit, or with a source's visibility). relight_build_restore fills
 * lb's faces and window chunks (laid out by level_window) from rl when rl holds them for that key,
 * true, the chunks whose dynamic or fast lights changed what the stages read built again
 * (built_repacked); relight_build_keep holds lb's for the next compile. */
uint64_t relight_build_key(const level_build *lb);
bool relight_build_restore(relight_level *rl, level_build *lb);
void relight_build_keep(relight_level *rl, const level_build *lb);

#endif
