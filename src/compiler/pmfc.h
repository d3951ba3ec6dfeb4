/* pmfc.h - the map compiler as a library (docs/architecture.md "The compiler"): a source map
 * (.pms, RMF, .map, BSP, or a generated city) to a PMF file, on the caller's thread and its
 * worker threads. `pmfc` (main.c) is a driver over it, the viewer's compile-on-save calls it on a
 * worker thread (src/app/common/map_compile.c), and so does the page (src/web/page.c).
 *
 * The compile never ends the process: a bad or hostile source, a compile over its memory budget
 * or out of memory, on any of its threads, ends that compile with one line (the line pmfc
 * prints) and status 2 or 3; everything it allocated is freed and nothing is left on disk.
 * Its memory is a budget of its own (pmf_budget.h's ledger): desc.memory, counted apart from the
 * caller's.
 *
 * One compile at a time in a process: a second call waits for the first to return (the
 * failure line names the source and stage, which are the compile's, process-wide).
 *
 *   pmfc_result r;
 *   int status = pmfc_compile(&(pmfc_compile_desc){ .source = "room.rmf", .out_path = "room.pmf" }, &r);
 *   if (status) fprintf(stderr, "%s\n", r.error);
 */
#ifndef PMFC_H
#define PMFC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PMFC_VERSION "pmfc 0.1"
#define PMFC_SAMPLES 4             /* light samples per luxel by default */
#define PMFC_TILE 8                /* a generated city's tile side by default, chunks */
#define PMFC_BOUNCE_NONE (-1)      /* pmfc_compile_desc.bounces: direct light only */

/* Where a compile is, for a progress bar: stage (a static string: "geometry", "unwrap",
 * "chunks/octree", "bake", "visibility", "encode", ...) and how far, 0..1. */
typedef struct pmfc_progress {
    const char *stage;
    double fraction;
    int level, levels;             /* level counted from 0 */
    int tile, tiles;               /* a generated city's tile, counted from 0; tiles 1 otherwise */
} pmfc_progress;

typedef enum pmfc_message_kind {
    PMFC_NOTE,                     /* what was read ("pmfc: RMF 2.2, 10 solids, ...") */
    PMFC_WARNING,                  /* something left out or guessed; the compile goes on */
    PMFC_ERROR,                    /* why the compile failed */
} pmfc_message_kind;

/* What to compile; 0 (or NULL) is the default in every field. */
typedef struct pmfc_compile_desc {
    const char *source;            /* the map to compile, its kind told by its content */
    const char *out_path;          /* the PMF to write: replaced whole, and only once it is complete */
    const char *generate;          /* a generated city of this name instead of source ... */
    uint32_t chunks[3];            /* ... of X x Y x Z chunks (X, Z 1..4096, Y 1..256) */
    uint64_t seed;                 /* ... from this seed */
    uint64_t tile;                 /* ... built a tile of this side at a time (0 = PMFC_TILE) */
    uint64_t created;              /* the header's creation time, seconds since 1970 (pmfc_time_now) */
    uint64_t threads;              /* 0 = every core */
    uint64_t samples;              /* light samples per luxel, 1..64 (0 = PMFC_SAMPLES) */
    int bounces;                   /* 0 = until the next would add under 1%, PMFC_BOUNCE_NONE, else 1..32 */
    bool dirt;                     /* ambient occlusion in levels that do not set their own */
    bool no_styled_bounce;         /* bake_desc.static_bounce_only (--no-styled-bounce) */
    bool quiet;                    /* no notes or summary, warnings only */
    const char *const *wads;       /* WAD2 / WAD3 files of the map's textures, in order */
    size_t wad_count;
    const char *game_dir;          /* the game directory: its WADs, lights.rad and textures */
    const char *rad;               /* a GoldSrc map's texture lights (lights.rad) */
    const char *const *fgds;       /* entity definitions (FGD), in order: the models of the classes */
    size_t fgd_count;
    double scale;                  /* metres per editor unit (0 = the front end's own) */
    double max_luxels;             /* an editor map level's lightmap luxels (0 = the most) */
    const char *cache_dir;         /* keep what a relight needs in a file here, and relight from it (NULL = none) */
    struct relight_cache *keep;    /* instead of the file: keep it here, in memory (pmfc_keep_create) */
    bool old_bounce;               /* with keep: a relight adds the bounces kept from before instead of
                                    * bouncing again, and keeps its sums: a second compile then bounces
                                    * (the viewer's first and final picture; result.old_bounce) */
    uint64_t memory;               /* the compile's memory budget, bytes (0 = pmf_budget_default(PMF_BUDGET_COMPILER)) */

    /* Called one at a time, from any of the compile's threads, neither may call pmfc_compile. */
    void (*progress)(void *user, const pmfc_progress *p); /* NULL = none; about every percent */
    void (*message)(void *user, pmfc_message_kind kind, const char *line); /* NULL = stderr; line without '\n' */
    void *user;
    const atomic_bool *cancel;     /* set (from any thread) to end the compile soon: status 3, cancelled */
} pmfc_compile_desc;

#define PMFC_STAGE_COUNT 8
/* The stages timed in pmfc_result.seconds: parse, geometry, chunks/octree, unwrap, bake,
 * visibility, encode, write. */
extern const char *const pmfc_stage_names[PMFC_STAGE_COUNT];

typedef struct pmfc_result {
    int status;                    /* 0; 2 the source (bad, or over the memory budget); 3 the machine, the output, or cancelled */
    bool cancelled;
    char error[1024];              /* the first error line, as pmfc prints it; "" when status is 0 */
    size_t levels;
    uint64_t chunks, cubes, vertices, lightmaps;
    uint64_t dropped;              /* triangles that found no room in their cubes (also warned) */
    bool relit;                    /* with cache_dir: the bake started from the cache ... */
    size_t relit_lights;           /* ... and baked these lights again (added, removed or changed) ... */
    uint64_t relit_luxels;         /* ... over these base luxels, */
    uint64_t bounce_gathers, bounce_cells; /* ... and gathered these bounce cells again, of all */
    bool old_bounce;               /* old_bounce was taken: the bounces are the kept ones */
    size_t built_levels;           /* with cache_dir: levels taken as the cache built them (no stage before the bake ran) ... */
    size_t built_repacked;         /* ... but for these chunks and their neighbours (a dynamic light's chunks or a fast light's faces changed) */
    double seconds[PMFC_STAGE_COUNT];
    double total_seconds;
} pmfc_result;

/* Compiles desc->source (or the city) into desc->out_path. Returns result->status. */
int pmfc_compile(const pmfc_compile_desc *desc, pmfc_result *result);

/* What a relight starts from, kept in memory between the compiles given it as desc.keep (one at a
 * time): after a compile that succeeded it holds that compile's state (its blocks out of the
 * compile's memory budget, still counted apart from the caller's), after one that failed or was
 * cancelled nothing (the next is a full one). NULL when out of memory. */
struct relight_cache *pmfc_keep_create(void);
void pmfc_keep_free(struct relight_cache *keep);

/* The creation time a compile writes when none is asked for: $SOURCE_DATE_EPOCH when it is a
 * number, else now. */
uint64_t pmfc_time_now(void);

#endif
