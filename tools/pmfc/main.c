/* main.c - pmfc, the PMF map compiler: `pmfc SOURCE -o OUT.pmf` compiles a .pms source
 * (docs/pmfc.md), an RMF, a .map or a BSP; `pmfc --generate NAME --chunks XxYxZ --seed N -o
 * OUT.pmf` builds a city. The driver: options (options.c), then the stages below in order, each a
 * function, and one cleanup. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/atomic_file.h"
#include "base/cli.h"
#include "base/pmf_budget.h"
#include "base/pmf_system.h"
#include "chunks/chunks.h"
#include "common/memory.h"
#include "common/texture.h"
#include "common/world.h"
#include "emit/compile_levels.h"
#include "emit/extensions.h"
#include "front/editor/editor.h"
#include "front/pms/generate.h"
#include "front/pms/pms.h"
#include "base/pmf_os.h"
#include "options.h"
#include "file_kind.h"

/* Everything a compile holds between its stages; compile_free releases what is set. */
typedef struct compile_run {
    const pmfc_options *o;
    const char *label;               /* the source (or the generator's name) in messages */
    map_def map;
    uint8_t *archive;                /* the textures' PAF */
    size_t archive_size;
    level_build *layouts;            /* a level's grid each */
    map_extensions extensions;
    bool have_extensions;
    pmf_writer *writer;
    progress_state ps;
    double times[STAGE_COUNT], start;
    level_totals totals;
} compile_run;

static void print_error(const pmf_error *err)
{
    char buf[768];
    fprintf(stderr, "pmfc: %s\n", pmf_error_format(err, buf, sizeof buf));
}

/* The front end of each kind the table of formats (file_kind.h) marks PMF_FORMAT_COMPILE. */
typedef bool (*source_import_fn)(const char *path, const editor_import_desc *desc, map_def *out);
static const source_import_fn importers[] = {
    [PMF_KIND_RMF] = rmf_import, [PMF_KIND_MAP] = map_import, [PMF_KIND_BSP] = bsp_import,
};

/* The source into c->map, its kind told by its content, not its name (conventions §4). */
static bool read_source(compile_run *c)
{
    const pmfc_options *o = c->o;
    memory_where(c->label, 0, "reading the source");
    if (o->generate)
        return generate_map(&c->map, o->generate, o->chunks, o->seed);
    pmf_file_id id;
    char why[256];
    if (!pmf_identify_path(o->source, &id, why, sizeof why)) {
        fprintf(stderr, "pmfc: %s: %s\n", o->source, why);
        return false;
    }
    pmf_format_use use = pmf_format_of(id.kind)->use;
    if (use == PMF_FORMAT_PMFC_SOURCE)
        return parse_file(o->source, &c->map);
    if (use == PMF_FORMAT_COMPILE) {
        editor_import_desc ed = { .wads = o->wads, .wad_count = o->wad_count, .game_dir = o->game_dir, .scale = o->scale,
                                  .quiet = o->quiet, .max_luxels = o->max_luxels, .rad = o->rad };
        return importers[id.kind](o->source, &ed, &c->map);
    }
    bool compiled = id.kind == PMF_KIND_PMF || id.kind == PMF_KIND_PMF_LEGACY;
    fprintf(stderr, "pmfc: %s: %s%s, not a source map (pmfc compiles its own .pms sources, RMF, .map and BSP files)\n",
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
    const pmfc_options *o = c->o;
    c->layouts = xcalloc(c->map.level_count + 1, sizeof *c->layouts);
    for (size_t li = 0; li < c->map.level_count; li++) {
        level_build *lb = &c->layouts[li];
        lb->map = &c->map;
        lb->def = &c->map.levels[li];
        lb->index = (int)li;
        lb->threads = (int)o->threads;
        lb->bounces = o->bounces;
        lb->quiet = o->quiet;
        lb->def->samples = (int)o->samples;
        if (lb->def->prelit) {
            /* the source's light replaces the bake wherever it covers a luxel: what is left (faces
             * the source has no luxels for) needs no more than direct light at one sample */
            lb->bounces = 0;
            lb->def->samples = 1;
        }
        if (o->dirt && !(lb->def->dirt_distance > 0)) {
            lb->def->dirt_distance = (float)PMFC_DIRT_DISTANCE;
            lb->def->dirt_strength = (float)PMFC_DIRT_STRENGTH;
        }
        const char *msg = level_layout(lb);
        if (msg) {
            if (lb->def->line) fprintf(stderr, "%s:%d: %s\n", c->label, lb->def->line, msg);
            else fprintf(stderr, "pmfc: %s: %s\n", c->label, msg);
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

/* The progress bar's line cleared, once. */
static void end_bar(compile_run *c)
{
    if (c->ps.bar) fputs("\r\033[K", stderr);
    c->ps.bar = false;
}

/* 0, or the exit status: 3 when a level fails to build, 2 when one keeps no geometry of a source
 * that had faces (level_emptiness: never an empty map without a word). */
static int build_levels(compile_run *c)
{
    c->ps.levels = (int)c->map.level_count;
    compile_level_desc d = { .label = c->label, .city = c->o->generate != NULL, .tile = (uint32_t)c->o->tile,
                             .threads = (int)c->o->threads };
    for (size_t li = 0; li < c->map.level_count; li++) {
        c->ps.level = (int)li;
        uint64_t vertices = c->totals.verts;
        if (!compile_level(&c->layouts[li], c->writer, &d, &c->ps, c->times, &c->totals))
            return 3;
        char msg[768];
        if (level_emptiness(&c->map.levels[li], c->totals.verts - vertices, msg, sizeof msg)) {
            end_bar(c);
            fprintf(stderr, "pmfc: %s: %s\n", c->label, msg);
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

static void report(compile_run *c)
{
    end_bar(c);
    if (c->totals.dropped)
        fprintf(stderr, "pmfc: warning: %llu triangles found no room in their cubes and were left out\n",
                (unsigned long long)c->totals.dropped);
    if (c->o->quiet)
        return;
    fprintf(stderr, "pmfc: %s -> %s: %zu level(s), %llu chunks, %llu cubes, %llu vertices, %llu lightmaps\n", c->label,
            c->o->out_path, c->map.level_count, (unsigned long long)c->totals.chunks, (unsigned long long)c->totals.cubes,
            (unsigned long long)c->totals.verts, (unsigned long long)c->totals.lightmaps);
    for (int s = 0; s < STAGE_COUNT; s++) fprintf(stderr, "  %-14s %8.3f s\n", pmfc_stage_names[s], c->times[s]);
    fprintf(stderr, "  %-14s %8.3f s\n", "total", pmf_seconds() - c->start);
}

/* The stages in order; the exit status (2 the source, 3 the machine or the output). */
static int compile(compile_run *c)
{
    double t = pmf_seconds();
    if (!read_source(c))
        return 2;
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
    report(c);
    return 0;
}

static void compile_free(compile_run *c)
{
    end_bar(c);
    pmf_writer_destroy(c->writer);
    if (c->have_extensions) map_extensions_free(&c->extensions);
    free(c->archive);
    xfree(c->layouts);
    map_free(&c->map);
}

int main(int argc, char **argv)
{
    pmf_os_start(&argc, &argv); /* UTF-8 arguments, output bytes as on Linux */
    atomic_file_remove_on_signals(); /* a killed pmfc leaves no temporary map behind */
    /* Blocks of 1 MiB and more go back to the kernel when freed. glibc's own threshold rises to
     * 32 MiB as big blocks are freed, and each thread's arena then keeps what its tiles and
     * chunks freed: RSS grew with the thread count (439 MiB at 16 threads where 2 take 190 on the
     * 64x2x64 city) though the budget's count did not. */
    pmf_tune_allocator(1u << 20, 0);
    pmf_budget_set_limit(pmf_budget_default(PMF_BUDGET_COMPILER));
    pmfc_options o;
    int rc = pmfc_options_parse(argc, argv, &o);
    if (rc) {
        pmfc_options_free(&o);
        return rc == CLI_DONE ? 0 : rc;
    }
    compile_run c = { .o = &o, .label = o.source ? o.source : o.generate, .start = pmf_seconds(),
                      .ps = { .lock = PTHREAD_MUTEX_INITIALIZER, .bar = !o.quiet && isatty(2), .last_percent = -1 } };
    map_init(&c.map);
    rc = compile(&c);
    compile_free(&c);
    pmfc_options_free(&o);
    return rc;
}
