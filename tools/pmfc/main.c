/* main.c - pmfc, the PMF map compiler: `pmfc SOURCE -o OUT.pmf` compiles a .pms source
 * (docs/pmfc.md); `pmfc --generate NAME --chunks XxYxZ --seed N -o OUT.pmf` builds a city. */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "extensions.h"
#include "front/editor.h"
#include "front/world.h"
#include "front/generate.h"
#include "memory_option.h"
#include "base/atomic_file.h"
#include "base/pmf_budget.h"
#include "pmf/file_kind.h"
#include "pmf/pmf_cameras.h"
#include "pmf/pmf_lights.h"
#include "base/pmf_system.h"

#define PMFC_VERSION "pmfc 0.1"

enum { STAGE_PARSE, STAGE_GEOMETRY, STAGE_CHUNKS, STAGE_UNWRAP, STAGE_BAKE, STAGE_VIS, STAGE_ENCODE, STAGE_WRITE, STAGE_COUNT };
static const char *stage_names[STAGE_COUNT] = { "parse", "geometry", "chunks/octree", "unwrap", "bake", "visibility", "encode", "write" };

typedef struct progress_state {
    pthread_mutex_t lock;
    bool bar;                 /* draw a bar (stderr is a terminal and not --quiet) */
    int level, levels;
    int tile, tiles;
    int last_percent;
    const char *last_stage;
} progress_state;

static void progress(void *user, const char *stage, double fraction)
{
    progress_state *ps = user;
    if (!ps->bar) return;
    pthread_mutex_lock(&ps->lock);
    int percent = (int)(fraction * 100 + 0.5);
    if (percent < 0) percent = 0;
    if (percent > 100) percent = 100;
    if (percent != ps->last_percent || stage != ps->last_stage) {
        char bar[31];
        int fill = percent * 30 / 100;
        for (int i = 0; i < 30; i++) bar[i] = i < fill ? '#' : '-';
        bar[30] = 0;
        if (ps->tiles > 1)
            fprintf(stderr, "\rpmfc: level %d/%d tile %d/%d %-14.14s [%s] %3d%%", ps->level + 1, ps->levels, ps->tile + 1, ps->tiles,
                    stage, bar, percent);
        else
            fprintf(stderr, "\rpmfc: level %d/%d %-14.14s [%s] %3d%%", ps->level + 1, ps->levels, stage, bar, percent);
        fflush(stderr);
        ps->last_percent = percent;
        ps->last_stage = stage;
    }
    pthread_mutex_unlock(&ps->lock);
}

#define PMFC_SAMPLES 4     /* light samples per luxel without --samples */

static void usage(FILE *out)
{
    fputs("usage: pmfc SOURCE -o OUT.pmf [--threads N] [--bounce N] [--samples N] [--dirt] [--quiet] [--time UNIX_TIME]\n"
          "            [--wad FILE]... [--game DIR] [--scale METRES_PER_UNIT] [--max-luxels N] [--rad FILE]   (RMF, .map, BSP)\n"
          "       pmfc --generate NAME --chunks XxYxZ --seed N -o OUT.pmf [--tile N] [--threads N] [--bounce N] [--quiet] [--time UNIX_TIME]\n"
          "both take --memory MIB: the memory budget (default half the machine's memory, at least 1 GiB;\n"
          "docs/memory.md); a map that needs more is refused with exit 2.\n"
          "SOURCE is the project's own source format (docs/pmfc.md) or a Worldcraft/Hammer RMF map\n"
          "(docs/rmf.md), told apart by content. SOURCE_DATE_EPOCH sets the creation time\n"
          "when --time is not given. --bounce N bakes N bounces of light (0 = direct light only;\n"
          "default: until the next would add under 1%, at most 32); --samples: light samples per\n"
          "luxel (default 4, 1 = one at its centre); --dirt: ambient occlusion in every level that\n"
          "does not set its own (docs/pmfc-lighting.md). --max-luxels N: the most lightmap luxels an\n"
          "editor map's level gets before its largest faces get coarser ones (default and most 16777216).\n"
          "--rad FILE: a GoldSrc map's texture lights (lights.rad lines: TEXNAME R G B BRIGHTNESS;\n"
          "default: lights.rad beside the map, then in --game DIR; docs/pmfc-lighting.md).\n", out);
}

/* The per-chunk passes, in order; margin chunks get lightmap blocks and an octree too, as the
 * emission seals each chunk's polygons against its neighbours'. */
enum { PASS_UNWRAP, PASS_OCTREE, PASS_EMIT };
typedef struct chunk_pass { level_build *lb; int pass; size_t *done; size_t total; progress_state *ps; } chunk_pass;

static void chunk_job(void *user, size_t i)
{
    chunk_pass *cp = user;
    chunk_build *cb = &cp->lb->chunks[i];
    if (cb->present) {
        if (cp->pass == PASS_UNWRAP) chunk_unwrap(cp->lb, cb);
        else if (cp->pass == PASS_OCTREE) chunk_octree(cp->lb, cb);
        else if (!cb->margin) chunk_octree_emit(cp->lb, cb);
    }
    size_t done = __atomic_add_fetch(cp->done, 1, __ATOMIC_RELAXED);
    progress(cp->ps, cp->pass == PASS_UNWRAP ? "unwrap" : "chunks/octree", (double)done / (double)cp->total);
}

typedef struct level_totals { uint64_t chunks, cubes, verts, lightmaps, dropped; } level_totals;

/* Whether a brush touches the window of tile (tx, tz): ts x ts columns and a chunk around. */
static bool brush_in_tile(const level_build *lb, const brush *b, uint32_t tx, uint32_t tz, uint32_t ts)
{
    double S = lb->S, eps = 1e-3;
    double lo_x = ((double)tx * ts - 1 - lb->centre_chunk.x) * S - S / 2 - eps, hi_x = lo_x + (ts + 2) * S + 2 * eps;
    double lo_z = ((double)tz * ts - 1 - lb->centre_chunk.z) * S - S / 2 - eps, hi_z = lo_z + (ts + 2) * S + 2 * eps;
    return !(b->hi.x < lo_x || b->lo.x > hi_x || b->hi.z < lo_z || b->lo.z > hi_z);
}

/* Per tile, the brushes touching its window, in brush order. A brush lands in the few tiles around
 * it, so listing them for every tile takes two passes over the brushes. */
typedef struct tile_lists { uint32_t tiles_x, tiles_z, ts; uint32_t *start, *items; } tile_lists;

static size_t tile_lists_pass(const level_build *lb, tile_lists *tl, bool fill)
{
    const level_def *def = lb->def;
    double S = lb->S;
    size_t total = 0;
    for (size_t i = 0; i < def->brush_count; i++) {
        const brush *b = &def->brushes[i];
        int64_t k[4] = { (int64_t)floor((b->lo.x + S / 2) / S) + lb->centre_chunk.x, (int64_t)floor((b->hi.x + S / 2) / S) + lb->centre_chunk.x,
                         (int64_t)floor((b->lo.z + S / 2) / S) + lb->centre_chunk.z, (int64_t)floor((b->hi.z + S / 2) / S) + lb->centre_chunk.z };
        int64_t t[4], n[2] = { tl->tiles_x, tl->tiles_z };
        for (int a = 0; a < 4; a++) {
            /* two tiles of slack either way (a window reaches a chunk and a hair past its tile);
             * brush_in_tile then decides */
            int64_t v = (k[a] < 0 ? k[a] - (int64_t)tl->ts + 1 : k[a]) / (int64_t)tl->ts + (a & 1 ? 2 : -2);
            t[a] = v < 0 ? 0 : v >= n[a / 2] ? n[a / 2] - 1 : v;
        }
        for (int64_t tz = t[2]; tz <= t[3]; tz++)
            for (int64_t tx = t[0]; tx <= t[1]; tx++) {
                if (!brush_in_tile(lb, b, (uint32_t)tx, (uint32_t)tz, tl->ts)) continue;
                size_t tile = (size_t)tz * tl->tiles_x + (size_t)tx;
                if (fill) tl->items[tl->start[tile]++] = (uint32_t)i;
                else tl->start[tile + 1]++;
                total++;
            }
    }
    return total;
}

static void tile_lists_build(const level_build *lb, uint32_t ts, uint32_t tiles_x, uint32_t tiles_z, tile_lists *tl)
{
    size_t tiles = (size_t)tiles_x * tiles_z;
    tl->tiles_x = tiles_x;
    tl->tiles_z = tiles_z;
    tl->ts = ts;
    tl->start = xcalloc(tiles + 1, sizeof *tl->start);
    size_t total = tile_lists_pass(lb, tl, false);
    for (size_t i = 0; i < tiles; i++) tl->start[i + 1] += tl->start[i];
    tl->items = xmalloc((total ? total : 1) * sizeof *tl->items);
    tile_lists_pass(lb, tl, true);
    /* the fill moved each start to the next tile's: shift back */
    memmove(tl->start + 1, tl->start, tiles * sizeof *tl->start);
    tl->start[0] = 0;
}

/* Builds, bakes and encodes the chunks of lb's window, then frees all but the encoded chunks. */
static bool build_window(level_build *lb, encoded_chunks *out, progress_state *ps, double times[STAGE_COUNT], level_totals *totals)
{
    double t = pmf_seconds();
    progress(ps, "geometry", 0);
    memory_where(NULL, 0, "building geometry");
    level_faces(lb);
    level_clip_to_chunks(lb);
    times[STAGE_GEOMETRY] += pmf_seconds() - t;

    size_t nchunks = level_chunk_count(lb), done = 0;
    chunk_pass cp = { lb, PASS_UNWRAP, &done, nchunks, ps };
    t = pmf_seconds();
    memory_where(NULL, 0, "building lightmaps and octrees");
    jobs_parallel_for(nchunks, lb->threads, chunk_job, &cp);
    times[STAGE_UNWRAP] += pmf_seconds() - t;
    t = pmf_seconds();
    done = 0;
    cp.pass = PASS_OCTREE;
    jobs_parallel_for(nchunks, lb->threads, chunk_job, &cp);
    done = 0;
    cp.pass = PASS_EMIT;
    jobs_parallel_for(nchunks, lb->threads, chunk_job, &cp);
    for (size_t c = 0; c < nchunks; c++)
        if (lb->chunks[c].margin) chunk_octree_discard(&lb->chunks[c]);
    times[STAGE_CHUNKS] += pmf_seconds() - t;

    bool ok = true;
    t = pmf_seconds();
    memory_where(NULL, 0, "baking light");
    uint64_t refusals = pmf_budget_refusals();
    level_mark_prelit(lb);
    level_light *ll = level_bake(lb, progress, ps);
    if (ll) level_apply_prelit(lb, ll);
    times[STAGE_BAKE] += pmf_seconds() - t;
    if (!ll && pmf_budget_refusals() != refusals) /* the baker takes from the budget too */
        memory_over_budget(0, NULL);
    if (!ll) {
        fputs("pmfc: out of memory while baking\n", stderr);
        ok = false;
    }
    t = pmf_seconds();
    memory_where(NULL, 0, "computing visibility");
    size_t tri_count;
    float (*tris)[9] = level_occluders(lb, v3_make(0, 0, 0), &tri_count, NULL);
    refusals = pmf_budget_refusals();
    if (ok && !level_visibility(lb, (const float (*)[9])tris, tri_count, progress, ps)) {
        if (pmf_budget_refusals() != refusals)
            memory_over_budget(0, NULL);
        fputs("pmfc: out of memory while computing visibility\n", stderr);
        ok = false;
    }
    xfree(tris);
    times[STAGE_VIS] += pmf_seconds() - t;
    t = pmf_seconds();
    memory_where(NULL, 0, "encoding chunks");
    if (ok) ok = level_encode(lb, ll, out, progress, ps);
    times[STAGE_ENCODE] += pmf_seconds() - t;
    for (size_t c = 0; c < nchunks; c++) {
        const chunk_build *cb = &lb->chunks[c];
        if (!cb->present || cb->margin) continue;
        totals->chunks++;
        totals->cubes += cb->cube_count;
        totals->verts += cb->vert_count;
        totals->lightmaps += cb->lightmap_count;
        totals->dropped += cb->dropped;
    }
    level_light_free(ll);
    level_visibility_free(lb);
    level_build_free(lb);
    return ok;
}

/* A batch of windows built side by side, each on one thread, their chunks then put in order. */
typedef struct tile_batch {
    const level_build *lb;
    const tile_lists *lists;          /* when tiled */
    bool tiled;
    uint32_t ts, tiles_x, first;
    int threads;                      /* per window */
    progress_state *ps;
    encoded_chunks *out;
    bool *ok;
    double (*times)[STAGE_COUNT];
    level_totals *totals;
} tile_batch;

/* A tile keeps only the lights that reach its window (margin included): the per-face and
 * per-chunk light scans then cost the tile's lights, not the whole city's (quadratic in the
 * city's size before). Their order is kept, so the output is the same. */
static void tile_lights(const level_build *win, const level_def *def, level_def *tile_def)
{
    v3 lo = v3_make(1e30, 1e30, 1e30), hi = v3_make(-1e30, -1e30, -1e30);
    double h = win->S / 2;
    for (size_t c = 0; c < level_chunk_count(win); c++)
        for (int a = 0; a < 3; a++) {
            lo.e[a] = fmin(lo.e[a], win->chunks[c].centre.e[a] - h);
            hi.e[a] = fmax(hi.e[a], win->chunks[c].centre.e[a] + h);
        }
    tile_def->lights = xmalloc((def->light_count ? def->light_count : 1) * sizeof *tile_def->lights);
    tile_def->light_count = 0;
    for (size_t i = 0; i < def->light_count; i++)
        if (light_reaches(&def->lights[i], lo, hi)) tile_def->lights[tile_def->light_count++] = def->lights[i];
    tile_def->light_cap = tile_def->light_count;
}

static void tile_job(void *user, size_t i)
{
    tile_batch *tb = user;
    uint32_t tile = tb->first + (uint32_t)i, tx = tile % tb->tiles_x, tz = tile / tb->tiles_x;
    level_build win = *tb->lb;
    level_def tile_def;
    win.tiled = tb->tiled;
    win.threads = tb->threads;
    if (tb->tiled) {
        double t = pmf_seconds();
        const level_def *def = tb->lb->def;
        uint32_t first = tb->lists->start[tile], count = tb->lists->start[tile + 1] - first;
        tile_def = *def;
        tile_def.brushes = xmalloc((count ? count : 1) * sizeof *tile_def.brushes);
        tile_def.brush_count = tile_def.brush_cap = count;
        for (uint32_t k = 0; k < count; k++) tile_def.brushes[k] = def->brushes[tb->lists->items[first + k]];
        win.def = &tile_def;
        tb->times[i][STAGE_GEOMETRY] += pmf_seconds() - t;
    }
    level_window(&win, tx * tb->ts, tz * tb->ts, tb->ts, tb->ts, tb->tiled ? 1 : 0);
    if (tb->tiled) tile_lights(&win, tb->lb->def, &tile_def);
    tb->ok[i] = build_window(&win, &tb->out[i], tb->ps, tb->times[i], &tb->totals[i]);
    if (tb->tiled) {
        xfree(tile_def.brushes);
        xfree(tile_def.lights);
    }
}

/* How many tiles of a generated city are built side by side (one thread each, or the threads
 * shared among them): as many as there are threads, while their peaks together stay within
 * TILES_WORKING_SET (and a quarter of --memory). Each tile's memory is its own until its chunks
 * are written, so sixteen threads would hold sixteen tiles (1 GiB for the 64x2x64 city, issue 21)
 * where two hold two: pmfc's memory must not grow with the machine. */
#define TILES_WORKING_SET (128ull << 20)
static uint32_t tiles_side_by_side(uint64_t tile_peak, uint32_t most)
{
    uint64_t set = TILES_WORKING_SET, limit = pmf_budget_limit();
    if (limit && limit / 4 < set) set = limit / 4;
    uint64_t fit = tile_peak ? set / tile_peak : most;
    return fit < 1 ? 1 : fit > most ? most : (uint32_t)fit;
}

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end || errno || *s == '-') return false;
    *out = v;
    return true;
}

int main(int argc, char **argv)
{
    const char *source = NULL, *out_path = NULL, *gen_name = NULL, *chunks_arg = NULL, *game_dir = NULL;
    uint64_t seed = 0, created = 0, threads = 0, tile = 8, samples = PMFC_SAMPLES;
    bool dirt = false;
    int bounces = BAKE_BOUNCE_AUTO;
    bool quiet = false, have_time = false, have_seed = false;
    const char **wads = NULL;
    size_t wad_count = 0;
    double scale = 0, max_luxels = 0;
    const char *rad = NULL;
    enum { OPT_THREADS = 256, OPT_TIME, OPT_TILE, OPT_GENERATE, OPT_CHUNKS, OPT_SEED, OPT_WAD, OPT_GAME, OPT_SCALE, OPT_VERSION, OPT_SAMPLES, OPT_DIRT, OPT_BOUNCE, OPT_MEMORY, OPT_MAX_LUXELS, OPT_RAD };
    static const struct option options[] = {
        { "help", no_argument, NULL, 'h' },       { "version", no_argument, NULL, OPT_VERSION },
        { "quiet", no_argument, NULL, 'q' },      { "output", required_argument, NULL, 'o' },
        { "threads", required_argument, NULL, OPT_THREADS }, { "time", required_argument, NULL, OPT_TIME },
        { "tile", required_argument, NULL, OPT_TILE }, { "generate", required_argument, NULL, OPT_GENERATE },
        { "chunks", required_argument, NULL, OPT_CHUNKS }, { "seed", required_argument, NULL, OPT_SEED },
        { "wad", required_argument, NULL, OPT_WAD }, { "game", required_argument, NULL, OPT_GAME },
        { "scale", required_argument, NULL, OPT_SCALE }, { "samples", required_argument, NULL, OPT_SAMPLES },
        { "dirt", no_argument, NULL, OPT_DIRT }, { "bounce", required_argument, NULL, OPT_BOUNCE },
        { "memory", required_argument, NULL, OPT_MEMORY }, { "max-luxels", required_argument, NULL, OPT_MAX_LUXELS },
        { "rad", required_argument, NULL, OPT_RAD },
        { NULL, 0, NULL, 0 },
    };
    atomic_file_remove_on_signals(); /* a killed pmfc leaves no temporary map behind */
    /* Blocks of 1 MiB and more go back to the kernel when freed. glibc's own threshold rises to
     * 32 MiB as big blocks are freed, and each thread's arena then keeps what its tiles and
     * chunks freed: RSS grew with the thread count (439 MiB at 16 threads where 2 take 190 on the
     * 64x2x64 city) though the budget's count did not. */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    pmf_budget_set_limit(memory_default_budget());
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, ":ho:q", options, NULL)) != -1) {
        switch (opt) {
        case 'h': usage(stdout); xfree(wads); return 0;
        case OPT_VERSION: puts(PMFC_VERSION); xfree(wads); return 0;
        case 'q': quiet = true; break;
        case 'o': out_path = optarg; break;
        case OPT_THREADS:
            if (!parse_u64(optarg, &threads) || threads > 256) { fprintf(stderr, "pmfc: bad --threads '%s'\n", optarg); xfree(wads); return 1; }
            break;
        case OPT_TIME:
            if (!parse_u64(optarg, &created)) { fprintf(stderr, "pmfc: bad --time '%s'\n", optarg); xfree(wads); return 1; }
            have_time = true;
            break;
        case OPT_BOUNCE: {
            uint64_t n;
            if (!parse_u64(optarg, &n) || n > BAKE_BOUNCE_MAX) {
                fprintf(stderr, "pmfc: bad --bounce '%s' (0..%d)\n", optarg, BAKE_BOUNCE_MAX);
                xfree(wads);
                return 1;
            }
            bounces = (int)n;
            break;
        }
        case OPT_TILE:
            if (!parse_u64(optarg, &tile) || !tile || tile > 4096) { fprintf(stderr, "pmfc: bad --tile '%s'\n", optarg); xfree(wads); return 1; }
            break;
        case OPT_SAMPLES:
            if (!parse_u64(optarg, &samples) || !samples || samples > 64) { fprintf(stderr, "pmfc: bad --samples '%s' (1..64)\n", optarg); xfree(wads); return 1; }
            break;
        case OPT_DIRT: dirt = true; break;
        case OPT_GENERATE: gen_name = optarg; break;
        case OPT_CHUNKS: chunks_arg = optarg; break;
        case OPT_SEED:
            if (!parse_u64(optarg, &seed)) { fprintf(stderr, "pmfc: bad --seed '%s'\n", optarg); xfree(wads); return 1; }
            have_seed = true;
            break;
        case OPT_WAD:
            wads = xrealloc(wads, (wad_count + 1) * sizeof *wads);
            wads[wad_count++] = optarg;
            break;
        case OPT_GAME: game_dir = optarg; break;
        case OPT_RAD: rad = optarg; break;
        case OPT_MEMORY:
            if (!memory_option_set(optarg)) { fprintf(stderr, "pmfc: --memory wants MiB in 64..1048576, got '%s'\n", optarg); xfree(wads); return 1; }
            break;
        case OPT_MAX_LUXELS: {
            char *end;
            max_luxels = strtod(optarg, &end);
            if (end == optarg || *end || !(max_luxels >= 1024 && max_luxels <= PMFC_MAX_LEVEL_LUXELS)) {
                fprintf(stderr, "pmfc: bad --max-luxels '%s' (1024..%.0f)\n", optarg, PMFC_MAX_LEVEL_LUXELS);
                xfree(wads);
                return 1;
            }
            break;
        }
        case OPT_SCALE: {
            char *end;
            scale = strtod(optarg, &end);
            if (end == optarg || *end || !(scale >= 1e-4 && scale <= 100)) {
                fprintf(stderr, "pmfc: bad --scale '%s' (metres per unit, 0.0001..100)\n", optarg);
                xfree(wads);
                return 1;
            }
            break;
        }
        default:
            fprintf(stderr, "pmfc: unknown option or missing value: '%s'\n", argv[optind - 1]);
            usage(stderr);
            xfree(wads);
            return 1;
        }
    }
    for (int i = optind; i < argc; i++) {
        if (source) { fprintf(stderr, "pmfc: more than one source: '%s'\n", argv[i]); usage(stderr); xfree(wads); return 1; }
        source = argv[i];
    }
    if (!out_path || (!source && !gen_name) || (source && gen_name)) {
        usage(stderr);
        xfree(wads);
        return 1;
    }
    uint32_t gen_chunks[3] = { 0, 0, 0 };
    if (gen_name) {
        if (!chunks_arg || !have_seed) { fputs("pmfc: --generate needs --chunks XxYxZ and --seed N\n", stderr); return 1; }
        char tail;
        if (sscanf(chunks_arg, "%ux%ux%u%c", &gen_chunks[0], &gen_chunks[1], &gen_chunks[2], &tail) != 3 ||
            !gen_chunks[0] || !gen_chunks[1] || !gen_chunks[2] || gen_chunks[0] > 4096 || gen_chunks[1] > 256 || gen_chunks[2] > 4096) {
            fprintf(stderr, "pmfc: bad --chunks '%s' (XxYxZ, X and Z 1..4096, Y 1..256)\n", chunks_arg);
            return 1;
        }
    }
    if (!have_time) {
        const char *env = getenv("SOURCE_DATE_EPOCH");
        if (env && *env) {
            if (!parse_u64(env, &created)) { fprintf(stderr, "pmfc: bad SOURCE_DATE_EPOCH '%s'\n", env); return 1; }
        } else if (!gen_name) {
            created = (uint64_t)time(NULL);
        } /* a generated city is a function of its seed alone: created stays 0 */
    }

    double times[STAGE_COUNT] = { 0 }, t0 = pmf_seconds(), t = t0, start = t0;
    progress_state ps = { .lock = PTHREAD_MUTEX_INITIALIZER, .bar = !quiet && isatty(2), .last_percent = -1 };
    map_def map;
    map_init(&map);
    memory_where(source ? source : gen_name, 0, "reading the source");
    bool ok;
    if (gen_name) {
        ok = generate_map(&map, gen_name, gen_chunks, seed);
    } else {
        /* the source's kind is told by its content, not its name (conventions §4) */
        pmf_file_id id;
        char why[256];
        if (!pmf_identify_path(source, &id, why, sizeof why)) {
            fprintf(stderr, "pmfc: %s: %s\n", source, why);
            ok = false;
        } else if (id.kind == PMF_KIND_TEXT) {
            ok = parse_file(source, &map);
        } else if (id.kind == PMF_KIND_RMF || id.kind == PMF_KIND_MAP || id.kind == PMF_KIND_BSP) {
            editor_import_desc ed = { .wads = wads, .wad_count = wad_count, .game_dir = game_dir, .scale = scale, .quiet = quiet, .max_luxels = max_luxels, .rad = rad };
            ok = id.kind == PMF_KIND_RMF ? rmf_import(source, &ed, &map)
               : id.kind == PMF_KIND_MAP ? map_import(source, &ed, &map) : bsp_import(source, &ed, &map);
        } else {
            bool compiled = id.kind == PMF_KIND_PMF || id.kind == PMF_KIND_PMF_LEGACY;
            fprintf(stderr, "pmfc: %s: %s%s, not a source map (pmfc compiles its own .pms sources, RMF, .map and BSP files)\n",
                    source, compiled ? "a compiled map, " : "", id.what);
            ok = false;
        }
    }
    xfree(wads);
    if (!ok) {
        map_free(&map);
        return 2;
    }
    const char *label = source ? source : gen_name;
    memory_where(label, 0, "packing the textures");
    times[STAGE_PARSE] = pmf_seconds() - t;

    uint8_t *archive = NULL;
    size_t archive_size = 0;
    t = pmf_seconds();
    if (!textures_archive(&map, &archive, &archive_size)) {
        map_free(&map);
        return 3;
    }
    times[STAGE_PARSE] += pmf_seconds() - t;

    pmf_header header;
    memset(&header, 0, sizeof header);
    header.major = PMF_VERSION_MAJOR;
    header.created = created;
    header.name = map.name;
    header.description = map.description;
    header.authors = map.authors;
    header.compiler = PMFC_VERSION;
    header.gamemode_count = (uint8_t)map.gamemode_count;
    for (int i = 0; i < map.gamemode_count; i++) header.gamemodes[i] = map.gamemodes[i];
    pmf_data_desc data;
    memset(&data, 0, sizeof data);
    data.archive = (pmf_blob){ archive, archive_size };
    pmf_error err;
    /* every level's grid first: it may move the level (world = source + shift), and the
     * extensions below give world positions */
    level_build *layouts = xcalloc(map.level_count + 1, sizeof *layouts);
    for (size_t li = 0; li < map.level_count; li++) {
        level_build *lb = &layouts[li];
        lb->map = &map;
        lb->def = &map.levels[li];
        lb->index = (int)li;
        lb->threads = (int)threads;
        lb->bounces = bounces;
        lb->quiet = quiet;
        lb->def->samples = (int)samples;
        if (lb->def->prelit) {
            /* the source's light replaces the bake wherever it covers a luxel: what is left (faces
             * the source has no luxels for) needs no more than direct light at one sample */
            lb->bounces = 0;
            lb->def->samples = 1;
        }
        if (dirt && !(lb->def->dirt_distance > 0)) {
            lb->def->dirt_distance = (float)PMFC_DIRT_DISTANCE;
            lb->def->dirt_strength = (float)PMFC_DIRT_STRENGTH;
        }
        const char *msg = level_layout(lb);
        if (msg) {
            if (lb->def->line) fprintf(stderr, "%s:%d: %s\n", label, lb->def->line, msg);
            else fprintf(stderr, "pmfc: %s: %s\n", label, msg);
            xfree(layouts);
            free(archive);
            map_free(&map);
            return 2;
        }
    }
    map_extensions extensions;
    if (!map_extensions_build(&map, &extensions, &err)) {
        char buf[768];
        fprintf(stderr, "pmfc: %s\n", pmf_error_format(&err, buf, sizeof buf));
        xfree(layouts);
        free(archive);
        map_free(&map);
        return 3;
    }
    data.extensions = extensions.blobs;
    data.extension_count = (uint16_t)extensions.count;
    /* chunks go to a scratch file beside the output as tiles finish: memory holds none of them */
    pmf_writer *w = pmf_writer_create(&header, &data, &err);
    int status = 0;
    if (!w || !pmf_writer_stream(w, out_path, &err)) {
        char buf[768];
        fprintf(stderr, "pmfc: %s\n", pmf_error_format(&err, buf, sizeof buf));
        status = 3;
    }
    ps.levels = (int)map.level_count;
    level_totals totals = { 0 };
    for (size_t li = 0; !status && li < map.level_count; li++) {
        ps.level = (int)li;
        level_build lb = layouts[li];
        memory_where(label, lb.def->line, "building the level");
        if (!level_begin(&lb, w)) {
            status = 3;
            break;
        }
        /* a generated city without visibility data is built a tile at a time: what a tile's
         * chunks need lies within a chunk of them (lights reach less than a chunk) */
        uint32_t side = lb.nx > lb.nz ? lb.nx : lb.nz;
        bool tiled = gen_name && lb.def->no_visibility && tile < side;
        uint32_t ts = tiled ? (uint32_t)tile : side, tiles_x = (lb.nx + ts - 1) / ts, tiles_z = (lb.nz + ts - 1) / ts;
        uint32_t tiles = tiles_x * tiles_z, thread_total = (uint32_t)jobs_thread_count((int)threads);
        uint32_t most_side_by_side = tiled ? thread_total : 1, side_by_side = 1;
        ps.tiles = (int)tiles;
        tile_lists lists = { 0 };
        if (tiled) {
            t = pmf_seconds();
            tile_lists_build(&lb, ts, tiles_x, tiles_z, &lists);
            times[STAGE_GEOMETRY] += pmf_seconds() - t;
        }
        encoded_chunks *out = xcalloc(most_side_by_side, sizeof *out);
        bool *oks = xcalloc(most_side_by_side, sizeof *oks);
        double (*tile_times)[STAGE_COUNT] = xcalloc(most_side_by_side, sizeof *tile_times);
        level_totals *tile_totals = xcalloc(most_side_by_side, sizeof *tile_totals);
        for (uint32_t first = 0, n = 0; !status && first < tiles; first += n) {
            n = tiles - first < side_by_side ? tiles - first : side_by_side;
            ps.tile = (int)first;
            uint64_t before = pmf_budget_used();
            pmf_budget_reset_peak();
            tile_batch batch = { &lb, &lists, tiled, ts, tiles_x, first, (int)(thread_total / n), &ps,
                                 out, oks, tile_times, tile_totals };
            jobs_parallel_for(n, (int)n, tile_job, &batch);
            /* the first tile, built alone on every thread, tells what a tile takes at its peak */
            if (first == 0)
                side_by_side = tiles_side_by_side(pmf_budget_peak() - before, most_side_by_side);
            t = pmf_seconds();
            for (uint32_t i = 0; i < n; i++) {
                if (!oks[i]) status = 3;
                if (!encoded_chunks_put(&out[i], w, lb.def->name)) status = 3;
            }
            times[STAGE_WRITE] += pmf_seconds() - t;
        }
        for (uint32_t i = 0; i < most_side_by_side; i++) {
            for (int s = 0; s < STAGE_COUNT; s++) times[s] += tile_times[i][s];
            totals.chunks += tile_totals[i].chunks;
            totals.cubes += tile_totals[i].cubes;
            totals.verts += tile_totals[i].verts;
            totals.lightmaps += tile_totals[i].lightmaps;
            totals.dropped += tile_totals[i].dropped;
        }
        xfree(lists.start);
        xfree(lists.items);
        xfree(out);
        xfree(oks);
        xfree(tile_times);
        xfree(tile_totals);
    }
    t = pmf_seconds();
    memory_where(label, 0, "writing the output");
    if (!status && !pmf_writer_finish(w, out_path, &err)) {
        char buf[768];
        fprintf(stderr, "pmfc: %s\n", pmf_error_format(&err, buf, sizeof buf));
        status = 3;
    }
    times[STAGE_WRITE] += pmf_seconds() - t;
    pmf_writer_destroy(w);
    free(archive);
    map_extensions_free(&extensions);
    xfree(layouts);
    if (ps.bar) fputs("\r\033[K", stderr);
    if (!status && totals.dropped) fprintf(stderr, "pmfc: warning: %llu triangles found no room in their cubes and were left out\n", (unsigned long long)totals.dropped);
    if (!status && !quiet) {
        fprintf(stderr, "pmfc: %s -> %s: %zu level(s), %llu chunks, %llu cubes, %llu vertices, %llu lightmaps\n", label, out_path,
                map.level_count, (unsigned long long)totals.chunks, (unsigned long long)totals.cubes,
                (unsigned long long)totals.verts, (unsigned long long)totals.lightmaps);
        for (int s = 0; s < STAGE_COUNT; s++) fprintf(stderr, "  %-14s %8.3f s\n", stage_names[s], times[s]);
        fprintf(stderr, "  %-14s %8.3f s\n", "total", pmf_seconds() - start);
    }
    map_free(&map);
    return status;
}
