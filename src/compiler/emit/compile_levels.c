/* compile_levels.c - one level's chunks built, baked, encoded and written (compile_levels.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/session.h"
#include "bake/light.h"
#include "base/jobs.h"
#include "base/pmf_budget.h"
#include "base/pmf_system.h"
#include "chunks/chunks.h"
#include "common/memory.h"
#include "compile_levels.h"
#include "csg/csg.h"
#include "emit.h"
#include "relight/relight.h"
#include "unwrap/unwrap.h"
#include "visibility/visibility.h"

_Static_assert(STAGE_COUNT == PMFC_STAGE_COUNT, "pmfc.h names every stage");
const char *const pmfc_stage_names[PMFC_STAGE_COUNT] = { "parse", "geometry", "chunks/octree", "unwrap", "bake", "visibility", "encode", "write" };

void progress_report(void *user, const char *stage, double fraction)
{
    progress_state *ps = user;
    if (!ps->report) return;
    pthread_mutex_lock(&ps->lock);
    int percent = (int)(fraction * 100 + 0.5);
    if (percent < 0) percent = 0;
    if (percent > 100) percent = 100;
    if (percent != ps->last_percent || stage != ps->last_stage) {
        ps->report(ps->user, &(pmfc_progress){ .stage = stage, .fraction = percent / 100.0, .level = ps->level,
                                               .levels = ps->levels, .tile = ps->tile, .tiles = ps->tiles });
        ps->last_percent = percent;
        ps->last_stage = stage;
    }
    pthread_mutex_unlock(&ps->lock);
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
    progress_report(cp->ps, cp->pass == PASS_UNWRAP ? "unwrap" : "chunks/octree", (double)done / (double)cp->total);
}


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

/* The stages before the bake: geometry, lightmap blocks, octrees and their polygons. */
static void build_chunks(level_build *lb, progress_state *ps, double times[STAGE_COUNT])
{
    double t = pmf_seconds();
    progress_report(ps, "geometry", 0);
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
}

/* Builds, bakes and encodes the chunks of lb's window, then frees all but the encoded chunks. */
static bool build_window(level_build *lb, encoded_chunks *out, progress_state *ps, double times[STAGE_COUNT], level_totals *totals)
{
    size_t nchunks = level_chunk_count(lb);
    double t = pmf_seconds();
    /* after a light-only edit, the level as the cached compile built it (relight_build.c) */
    bool kept = lb->relight && relight_build_restore(lb->relight, lb);
    times[STAGE_GEOMETRY] += pmf_seconds() - t;
    if (!kept) build_chunks(lb, ps, times);
    if (!kept && lb->relight) relight_build_keep(lb->relight, lb);

    bool ok = true;
    t = pmf_seconds();
    memory_where(NULL, 0, "baking light");
    uint64_t refusals = pmf_budget_refusals();
    level_mark_prelit(lb);
    level_light *ll = level_bake(lb, progress_report, ps);
    if (ll) level_apply_prelit(lb, ll);
    times[STAGE_BAKE] += pmf_seconds() - t;
    if (!ll && pmf_budget_refusals() != refusals) /* the baker takes from the budget too */
        memory_over_budget(0, NULL);
    if (!ll) {
        session_say(PMFC_ERROR, "pmfc: out of memory while baking");
        ok = false;
    }
    t = pmf_seconds();
    memory_where(NULL, 0, "computing visibility");
    size_t tri_count;
    float (*tris)[9] = level_occluders(lb, v3_make(0, 0, 0), false, &tri_count, NULL);
    refusals = pmf_budget_refusals();
    if (ok && !level_visibility(lb, (const float (*)[9])tris, tri_count, progress_report, ps)) {
        if (pmf_budget_refusals() != refusals)
            memory_over_budget(0, NULL);
        session_say(PMFC_ERROR, "pmfc: out of memory while computing visibility");
        ok = false;
    }
    xfree(tris);
    times[STAGE_VIS] += pmf_seconds() - t;
    t = pmf_seconds();
    memory_where(NULL, 0, "encoding chunks");
    if (ok) ok = level_encode(lb, ll, out, progress_report, ps);
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

bool compile_level(const level_build *layout, pmf_writer *w, const compile_level_desc *desc, progress_state *ps,
                   double times[STAGE_COUNT], level_totals *totals)
{
    level_build lb = *layout;
    memory_where(desc->label, lb.def->line, "building the level");
    if (!level_begin(&lb, w))
        return false;
    /* a generated city without visibility data is built a tile at a time: what a tile's
     * chunks need lies within a chunk of them (lights reach less than a chunk) */
    uint32_t side = lb.nx > lb.nz ? lb.nx : lb.nz;
    bool tiled = desc->city && lb.def->no_visibility && desc->tile < side;
    uint32_t ts = tiled ? desc->tile : side, tiles_x = (lb.nx + ts - 1) / ts, tiles_z = (lb.nz + ts - 1) / ts;
    uint32_t tiles = tiles_x * tiles_z, thread_total = (uint32_t)jobs_thread_count(desc->threads);
    uint32_t most_side_by_side = tiled ? thread_total : 1, side_by_side = 1;
    ps->tiles = (int)tiles;
    tile_lists lists = { 0 };
    double t;
    if (tiled) {
        t = pmf_seconds();
        tile_lists_build(&lb, ts, tiles_x, tiles_z, &lists);
        times[STAGE_GEOMETRY] += pmf_seconds() - t;
    }
    encoded_chunks *out = xcalloc(most_side_by_side, sizeof *out);
    bool *oks = xcalloc(most_side_by_side, sizeof *oks);
    double (*tile_times)[STAGE_COUNT] = xcalloc(most_side_by_side, sizeof *tile_times);
    level_totals *tile_totals = xcalloc(most_side_by_side, sizeof *tile_totals);
    bool ok = true;
    for (uint32_t first = 0, n = 0; ok && first < tiles; first += n) {
        n = tiles - first < side_by_side ? tiles - first : side_by_side;
        ps->tile = (int)first;
        uint64_t before = pmf_budget_used();
        pmf_budget_reset_peak();
        tile_batch batch = { &lb, &lists, tiled, ts, tiles_x, first, (int)(thread_total / n), ps,
                             out, oks, tile_times, tile_totals };
        jobs_parallel_for(n, (int)n, tile_job, &batch);
        /* the first tile, built alone on every thread, tells what a tile takes at its peak */
        if (first == 0)
            side_by_side = tiles_side_by_side(pmf_budget_peak() - before, most_side_by_side);
        t = pmf_seconds();
        for (uint32_t i = 0; i < n; i++) {
            if (!oks[i]) ok = false;
            if (!encoded_chunks_put(&out[i], w, lb.def->name)) ok = false;
        }
        times[STAGE_WRITE] += pmf_seconds() - t;
    }
    for (uint32_t i = 0; i < most_side_by_side; i++) {
        for (int s = 0; s < STAGE_COUNT; s++) times[s] += tile_times[i][s];
        totals->chunks += tile_totals[i].chunks;
        totals->cubes += tile_totals[i].cubes;
        totals->verts += tile_totals[i].verts;
        totals->lightmaps += tile_totals[i].lightmaps;
        totals->dropped += tile_totals[i].dropped;
    }
    xfree(lists.start);
    xfree(lists.items);
    xfree(out);
    xfree(oks);
    xfree(tile_times);
    xfree(tile_totals);
    return ok;
}
