/* pmfc.c - the compiler library's one entry (pmfc.h): the stages below in order, each a
 * function over one compile_run, with one cleanup; and the way out of a compile that failed
 * deep in a stage or on a worker (session.h), its memory freed through its ledger. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bake/bake.h"
#include "base/escape.h"
#include "base/pmf_budget.h"
#include "base/pmf_system.h"
#include "chunks/chunks.h"
#include "common/memory.h"
#include "common/session.h"
#include "common/texture.h"
#include "common/world.h"
#include "emit/compile_levels.h"
#include "emit/extensions.h"
#include "file_kind.h"
#include "front/editor/editor.h"
#include "front/pms/generate.h"
#include "front/pms/pms.h"
#include "pmfc.h"
#include "relight/relight.h"

/* Between stages, the compile's thread ends a cancelled compile (its workers do between items). */
static void stop_if_cancelled(void)
{
    if (escape_stop_requested())
        escape_now();
}

/* Everything a compile holds between its stages; compile_free releases what is set. */
typedef struct compile_run {
    const pmfc_compile_desc *o;
    const char *label;               /* the source (or the generator's name) in messages */
    map_def map;
    uint8_t *archive;                /* the textures' PAF */
    size_t archive_size;
    level_build *layouts;            /* a level's grid each */
    map_extensions extensions;
    bool have_extensions;
    pmf_writer *writer;
    progress_state ps;
    double times[STAGE_COUNT];
    level_totals totals;
    relight_cache cache;             /* with --cache: what the bake starts from and keeps */
} compile_run;

static void print_error(const pmf_error *err)
{
    char buf[768];
    session_say(PMFC_ERROR, "pmfc: %s", pmf_error_format(err, buf, sizeof buf));
}

/* The front end of each kind the table of formats (file_kind.h) marks PMF_FORMAT_COMPILE. */
typedef bool (*source_import_fn)(const char *path, const editor_import_desc *desc, map_def *out);
static const source_import_fn importers[] = {
    [PMF_KIND_RMF] = rmf_import, [PMF_KIND_MAP] = map_import, [PMF_KIND_BSP] = bsp_import,
};

/* The source into c->map, its kind told by its content, not its name (conventions §4). */
static bool read_source(compile_run *c)
{
    const pmfc_compile_desc *o = c->o;
    memory_where(c->label, 0, "reading the source");
    if (o->generate)
        return generate_map(&c->map, o->generate, o->chunks, o->seed);
    pmf_file_id id;
    char why[256];
    if (!pmf_identify_path(o->source, &id, why, sizeof why)) {
        session_say(PMFC_ERROR, "pmfc: %s: %s", o->source, why);
        return false;
    }
    pmf_format_use use = pmf_format_of(id.kind)->use;
    if (use == PMF_FORMAT_PMFC_SOURCE)
        return parse_file(o->source, &c->map);
    bool has_front_end = (size_t)id.kind < sizeof importers / sizeof *importers && importers[id.kind];
    if (use == PMF_FORMAT_COMPILE && has_front_end) {
        editor_import_desc ed = { .wads = (const char **)o->wads, .wad_count = o->wad_count, .game_dir = o->game_dir, .scale = o->scale,
                                  .quiet = o->quiet, .max_luxels = o->max_luxels, .rad = o->rad, .fgds = o->fgds,
                                  .fgd_count = o->fgd_count };
        return importers[id.kind](o->source, &ed, &c->map);
    }
    bool compiled = id.kind == PMF_KIND_PMF || id.kind == PMF_KIND_PMF_LEGACY;
    session_say(PMFC_ERROR, "pmfc: %s: %s%s, not a source map (pmfc compiles its own .pms sources, RMF, .map and BSP files)",
                o->source, compiled ? "a compiled map, " : "", id.what);
    return false;
}

/* The textures the map uses, in one archive for the data block. */
static bool pack_textures(compile_run *c)
{
    memory_where(c->label, 0, "packing the textures");
    return textures_archive(&c->map, &c->archive, &c->archive_size);
}

/* Every level's grid first: it may move the level (world = source + shift), and the extensions
 * give world positions. 0, or the exit status. */
static int lay_out_levels(compile_run *c)
{
    const pmfc_compile_desc *o = c->o;
    c->layouts = xcalloc(c->map.level_count + 1, sizeof *c->layouts);
    if (o->keep && !o->generate) /* a city is built a tile at a time: nothing to relight */
        relight_cache_take(&c->cache, o->keep, o, c->map.level_count);
    else if (o->cache_dir && !o->generate)
        relight_cache_read(&c->cache, o, c->map.level_count);
    for (size_t li = 0; li < c->map.level_count; li++) {
        level_build *lb = &c->layouts[li];
        lb->map = &c->map;
        lb->def = &c->map.levels[li];
        lb->index = (int)li;
        lb->threads = (int)o->threads;
        lb->bounces = o->bounces == 0 ? BAKE_BOUNCE_AUTO : o->bounces == PMFC_BOUNCE_NONE ? 0 : o->bounces;
        lb->static_bounce_only = o->no_styled_bounce;
        lb->old_bounce = o->old_bounce && o->keep;
        lb->quiet = o->quiet;
        lb->relight = c->cache.levels ? &c->cache.levels[li] : NULL;
        lb->def->samples = o->samples ? (int)o->samples : PMFC_SAMPLES;
        if (lb->def->prelit) {
            /* the source's light replaces the bake wherever it covers a luxel: what is left (faces
             * the source has no luxels for) needs no more than direct light at one sample */
            lb->bounces = 0;
            lb->def->samples = 1;
        }
        if (o->dirt && !(lb->def->dirt_distance > 0)) {
            bool dialect = lb->def->dirt_flag_distance > 0;
            lb->def->dirt_distance = dialect ? lb->def->dirt_flag_distance : (float)PMFC_DIRT_DISTANCE;
            lb->def->dirt_strength = dialect ? lb->def->dirt_flag_strength : (float)PMFC_DIRT_STRENGTH;
        }
        const char *msg = level_layout(lb);
        if (msg) {
            if (lb->def->line) session_say(PMFC_ERROR, "%s:%d: %s", c->label, lb->def->line, msg);
            else session_say(PMFC_ERROR, "pmfc: %s: %s", c->label, msg);
            return 2;
        }
    }
    return 0;
}

/* The header, the data block (archive and extensions) and the writer streaming to the output:
 * chunks go to a scratch file beside it as they finish, so memory holds none of them. */
static bool open_output(compile_run *c)
{
    pmf_header header;
    memset(&header, 0, sizeof header);
    header.major = PMF_VERSION_MAJOR;
    header.created = c->o->created;
    header.name = c->map.name;
    header.description = c->map.description;
    header.authors = c->map.authors;
    header.compiler = PMFC_VERSION;
    header.gamemode_count = (uint8_t)c->map.gamemode_count;
    for (int i = 0; i < c->map.gamemode_count; i++) header.gamemodes[i] = c->map.gamemodes[i];
    pmf_error err;
    if (!map_extensions_build(&c->map, &c->extensions, &err)) {
        print_error(&err);
        return false;
    }
    c->have_extensions = true;
    pmf_data_desc data;
    memset(&data, 0, sizeof data);
    data.archive = (pmf_blob){ c->archive, c->archive_size };
    data.extensions = c->extensions.blobs;
    data.extension_count = (uint16_t)c->extensions.count;
    c->writer = pmf_writer_create(&header, &data, &err);
    if (!c->writer || !pmf_writer_stream(c->writer, c->o->out_path, &err)) {
        print_error(&err);
        return false;
    }
    return true;
}

/* 0, or the exit status: 3 when a level fails to build, 2 when one keeps no geometry of a source
 * that had faces (level_emptiness: never an empty map without a word). */
static int build_levels(compile_run *c)
{
    c->ps.levels = (int)c->map.level_count;
    compile_level_desc d = { .label = c->label, .city = c->o->generate != NULL,
                             .tile = c->o->tile ? (uint32_t)c->o->tile : PMFC_TILE,
                             .threads = (int)c->o->threads };
    for (size_t li = 0; li < c->map.level_count; li++) {
        c->ps.level = (int)li;
        uint64_t vertices = c->totals.verts;
        if (!compile_level(&c->layouts[li], c->writer, &d, &c->ps, c->times, &c->totals))
            return 3;
        stop_if_cancelled();
        char msg[768];
        if (level_emptiness(&c->map.levels[li], c->totals.verts - vertices, msg, sizeof msg)) {
            session_say(PMFC_ERROR, "pmfc: %s: %s", c->label, msg);
            return 2;
        }
    }
    return 0;
}

static bool finish_output(compile_run *c)
{
    double t = pmf_seconds();
    memory_where(c->label, 0, "writing the output");
    pmf_error err;
    bool ok = pmf_writer_finish(c->writer, c->o->out_path, &err);
    if (!ok)
        print_error(&err);
    c->times[STAGE_WRITE] += pmf_seconds() - t;
    return ok;
}

/* With --cache: the levels' new state replaces the file's, and a relight says what it baked. */
static void keep_cache(compile_run *c, pmfc_result *r)
{
    for (size_t li = 0; li < c->cache.level_count; li++) {
        const relight_level *rl = &c->cache.levels[li];
        r->relit = r->relit || rl->relit;
        r->relit_lights += rl->relit_lights;
        r->relit_luxels += rl->relit_luxels;
        r->bounce_gathers += rl->bounce_gathers;
        r->bounce_cells += rl->bounce_cells;
        r->old_bounce = r->old_bounce || rl->old_bounce;
        r->built_levels += rl->built_kept;
        r->built_repacked += rl->built_repacked;
    }
    if (r->relit) {
        char bounce[96] = "", built[96] = "";
        if (r->bounce_cells)
            snprintf(bounce, sizeof bounce, ", %llu of %llu bounce cells gathered", (unsigned long long)r->bounce_gathers,
                     (unsigned long long)r->bounce_cells);
        if (r->built_repacked)
            snprintf(built, sizeof built, " (geometry as cached, %zu chunks built again for their lights)", r->built_repacked);
        else if (r->built_levels)
            snprintf(built, sizeof built, " (geometry, chunks and lightmaps as cached)");
        session_say(PMFC_NOTE, "relit: %zu lights changed, %llu luxels%s%s", r->relit_lights,
                    (unsigned long long)r->relit_luxels, bounce, built);
    }
    /* kept in memory, a full bake in the file too: what a later process starts from */
    if (!c->o->keep || (!r->relit && c->o->cache_dir))
        relight_cache_write(&c->cache);
    if (!c->o->keep)
        return;
    c->cache.ledger = c->o->keep->ledger; /* pmfc_compile hands the blocks over */
    *c->o->keep = c->cache;
    memset(&c->cache, 0, sizeof c->cache);
}

/* What was built, for the caller's summary; the dropped triangles are a warning of their own. */
static void report(compile_run *c, pmfc_result *r)
{
    if (c->totals.dropped)
        session_say(PMFC_WARNING, "pmfc: warning: %llu triangles found no room in their cubes and were left out",
                    (unsigned long long)c->totals.dropped);
    r->levels = c->map.level_count;
    r->chunks = c->totals.chunks;
    r->cubes = c->totals.cubes;
    r->vertices = c->totals.verts;
    r->lightmaps = c->totals.lightmaps;
    r->dropped = c->totals.dropped;
    memcpy(r->seconds, c->times, sizeof r->seconds);
}

/* The stages in order; the exit status (2 the source, 3 the machine or the output). */
static int compile(compile_run *c, pmfc_result *r)
{
    double t = pmf_seconds();
    if (!read_source(c))
        return 2;
    stop_if_cancelled();
    if (!pack_textures(c))
        return 3;
    c->times[STAGE_PARSE] = pmf_seconds() - t;
    int rc = lay_out_levels(c);
    if (rc)
        return rc;
    if (!open_output(c))
        return 3;
    rc = build_levels(c);
    if (rc)
        return rc;
    if (!finish_output(c))
        return 3;
    if (c->cache.levels)
        keep_cache(c, r);
    report(c, r);
    return 0;
}

static void compile_free(compile_run *c)
{
    pmf_writer_destroy(c->writer);
    if (c->have_extensions) map_extensions_free(&c->extensions);
    free(c->archive);
    xfree(c->layouts);
    relight_cache_free(&c->cache);
    map_free(&c->map);
}

/* What an abandoned compile holds outside its ledger (made by the format library's malloc):
 * the writer (and its scratch file), the extensions' blobs, the textures' archive. Its
 * structures are not walked: the ledger frees every block of theirs. */
static void compile_abandon(compile_run *c)
{
    pmf_writer_destroy(c->writer);
    map_extensions_free(&c->extensions);
    free(c->archive);
}

typedef struct block_move { pmf_budget_ledger *to, *from; bool ok; } block_move;

static void move_block(void *user, void *block)
{
    block_move *m = user;
    m->ok = m->ok && pmf_budget_ledger_move(m->to, m->from, block);
}

/* After a compile given keep, the kept state goes from its ledger to keep's own: after one that
 * succeeded, every block left there (the state's alone); after a cancel, the state's blocks, whole
 * at any point a cancel ends a compile (between two items of work: a bake's keeping and a
 * transport's replacing have none), so the next save still relights. After any other failure
 * they are freed with the rest, and keep holds nothing. */
static void keep_blocks(relight_cache *keep, compile_run *c, pmf_budget_ledger *ledger, const pmfc_result *r)
{
    if ((r->status == 0 || r->cancelled) && !keep->ledger)
        keep->ledger = pmf_budget_ledger_create(0);
    if (keep->ledger && r->status == 0 && pmf_budget_ledger_hand_over(keep->ledger, ledger))
        return;
    relight_cache *state = c->cache.levels ? &c->cache : keep; /* taken by the compile, or not yet */
    block_move m = { keep->ledger, ledger, keep->ledger && r->cancelled };
    relight_cache_blocks(state, move_block, &m);
    pmf_budget_ledger *own = keep->ledger;
    if (m.ok && state != keep)
        *keep = c->cache;
    else if (!m.ok)
        memset(keep, 0, sizeof *keep);
    keep->ledger = own;
}

relight_cache *pmfc_keep_create(void)
{
    return calloc(1, sizeof(relight_cache));
}

void pmfc_keep_free(relight_cache *keep)
{
    if (!keep)
        return;
    if (keep->ledger) {
        pmf_budget_ledger_free_blocks(keep->ledger);
        pmf_budget_ledger_destroy(keep->ledger);
    }
    free(keep);
}

static pthread_mutex_t one_compile = PTHREAD_MUTEX_INITIALIZER;

int pmfc_compile(const pmfc_compile_desc *desc, pmfc_result *result)
{
    memset(result, 0, sizeof *result);
    double start = pmf_seconds();
    pthread_mutex_lock(&one_compile);
    pmf_budget_ledger *ledger = pmf_budget_ledger_create(desc->memory ? desc->memory : pmf_budget_default(PMF_BUDGET_COMPILER));
    compile_run *c = calloc(1, sizeof *c);
    if (!ledger || !c) {
        free(c);
        pmf_budget_ledger_destroy(ledger);
        pthread_mutex_unlock(&one_compile);
        snprintf(result->error, sizeof result->error, "pmfc: out of memory");
        return result->status = 3;
    }
    pmf_budget_ledger *caller_ledger = pmf_budget_thread_ledger();
    const atomic_bool *caller_stop = escape_stop_flag();
    if (desc->keep && desc->keep->ledger) /* the kept state's blocks are the compile's while it runs */
        pmf_budget_ledger_hand_over(ledger, desc->keep->ledger);
    pmf_budget_use_ledger(ledger);
    escape_set_stop_flag(desc->cancel);
    session_begin(desc, result);
    *c = (compile_run){ .o = desc, .label = desc->source ? desc->source : desc->generate,
                        .ps = { .lock = PTHREAD_MUTEX_INITIALIZER, .report = desc->progress, .user = desc->user,
                                .last_percent = -1 } };
    memory_where(c->label, 0, "reading the source");
    map_init(&c->map);
    escape_point e;
    escape_push(&e);
    if (setjmp(e.at) == 0) {
        result->status = compile(c, result);
        escape_pop(&e);
        compile_free(c);
    } else {
        result->status = session_escaped_status();
        compile_abandon(c);
    }
    if (desc->keep)
        keep_blocks(desc->keep, c, ledger, result);
    /* all of an abandoned compile's blocks; none after one that ended by itself */
    pmf_budget_ledger_free_blocks(ledger);
    session_end();
    escape_set_stop_flag(caller_stop);
    pmf_budget_use_ledger(caller_ledger);
    pmf_budget_ledger_destroy(ledger);
    pthread_mutex_destroy(&c->ps.lock);
    free(c);
    pthread_mutex_unlock(&one_compile);
    result->total_seconds = pmf_seconds() - start;
    return result->status;
}

uint64_t pmfc_time_now(void)
{
    const char *env = getenv("SOURCE_DATE_EPOCH");
    char *end;
    unsigned long long t = env && *env ? strtoull(env, &end, 10) : 0;
    return env && *env && !*end && *env != '-' ? (uint64_t)t : (uint64_t)time(NULL);
}
