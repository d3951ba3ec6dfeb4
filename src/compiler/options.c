/* options.c - pmfc's option table and the checks of each value (options.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bake/bake.h"
#include "base/cli.h"
#include "base/memory_option.h"
#include "base/stringify.h"
#include "chunks/chunks.h"
#include "common/memory.h"
#include "common/world.h"
#include "pmfc.h"
#include "options.h"

static const char usage[] =
    "usage: pmfc SOURCE -o OUT.pmf [options]\n"
    "       pmfc --generate NAME --chunks XxYxZ --seed N -o OUT.pmf [options]\n"
    "\n"
    "SOURCE is the project's own source format (docs/pmfc.md), a Worldcraft/Hammer RMF (docs/rmf.md),\n"
    "a Quake or Valve 220 .map (docs/map.md) or a compiled BSP (docs/bsp.md), told apart by content.\n"
    "A map that needs more memory than --memory allows is refused with exit 2.\n"
    "\n";

static const char footer[] =
    "\n"
    "--generate makes a city of --chunks XxYxZ (X and Z 1..4096, Y 1..256) from --seed, for\n"
    "benchmarks. SOURCE_DATE_EPOCH sets the creation time when --time is not given.\n";

enum { OPT_THREADS = 256, OPT_TIME, OPT_TILE, OPT_GENERATE, OPT_CHUNKS, OPT_SEED, OPT_WAD, OPT_FGD, OPT_GAME, OPT_SCALE,
       OPT_VERSION, OPT_SAMPLES, OPT_DIRT, OPT_BOUNCE, OPT_MEMORY, OPT_MAX_LUXELS, OPT_RAD, OPT_CACHE, OPT_NO_STYLED_BOUNCE };

static const cli_option options[] = {
    CLI_OPTION_HELP,
    { "version", 0, OPT_VERSION, CLI_FLAG, NULL, NULL, 0, 0, 0, "print the version", NULL },
    { "output", 'o', 0, CLI_TEXT, "OUT.pmf", NULL, 0, 0, 0, "the map to write (replaced whole, atomically)", NULL },
    { "quiet", 'q', 0, CLI_FLAG, NULL, NULL, 0, 0, 0, "no progress, warnings only", NULL },
    { "threads", 0, OPT_THREADS, CLI_COUNT, "N", "threads", 0, 256, 0, "worker threads, 0 = every core", "0" },
    { "time", 0, OPT_TIME, CLI_COUNT, "UNIX_TIME", "seconds since 1970", 0, 0, CLI_NO_MAX,
      "the map's creation time", "SOURCE_DATE_EPOCH, else now" },
    { "bounce", 0, OPT_BOUNCE, CLI_COUNT, "N", "bounces", 0, BAKE_BOUNCE_MAX, 0,
      "bounces of light to bake, 0 = direct light only", "until the next would add under 1%" },
    { "no-styled-bounce", 0, OPT_NO_STYLED_BOUNCE, CLI_FLAG, NULL, NULL, 0, 0, 0,
      "bounce the static lights only: dynamic lights' layers hold their direct light (ericw-tools' light without -bouncestyled)", NULL },
    { "samples", 0, OPT_SAMPLES, CLI_COUNT, "N", "samples", 1, 64, 0,
      "light samples per luxel, 1 = one at its centre", PMF_STRINGIFY(PMFC_SAMPLES) },
    { "dirt", 0, OPT_DIRT, CLI_FLAG, NULL, NULL, 0, 0, 0,
      "ambient occlusion in every level that does not set its own (docs/pmfc-lighting.md)", NULL },
    { "wad", 0, OPT_WAD, CLI_TEXT, "FILE", NULL, 0, 0, 0, "a WAD2 or WAD3 of the map's textures (repeatable)", NULL },
    { "fgd", 0, OPT_FGD, CLI_TEXT, "FILE", NULL, 0, 0, 0,
      "entity definitions: the model each class shows (repeatable; docs/models.md)", "the FGD the map's _tb_def names" },
    { "game", 0, OPT_GAME, CLI_TEXT, "DIR", NULL, 0, 0, 0, "the game directory: its WADs, lights.rad and textures", NULL },
    { "scale", 0, OPT_SCALE, CLI_NUMBER, "METRES", "metres per unit", 1e-4, 100, 0,
      "metres per editor unit", "the front end's own" },
    { "max-luxels", 0, OPT_MAX_LUXELS, CLI_NUMBER, "N", "luxels", 1024, PMFC_MAX_LEVEL_LUXELS, 0,
      "lightmap luxels an editor map's level gets before its largest faces get coarser ones", "the most" },
    { "rad", 0, OPT_RAD, CLI_TEXT, "FILE", NULL, 0, 0, 0,
      "a GoldSrc map's texture lights (lights.rad: TEXNAME R G B BRIGHTNESS; docs/pmfc-lighting.md)",
      "lights.rad beside the map, then in --game DIR" },
    { "cache", 0, OPT_CACHE, CLI_TEXT, "DIR", NULL, 0, 0, 0,
      "keep what a relight needs in DIR: after a light-only edit the next compile bakes only the lights that changed (docs/pmfc.md)", NULL },
    CLI_OPTION_MEMORY(OPT_MEMORY),
    { "generate", 0, OPT_GENERATE, CLI_TEXT, "NAME", NULL, 0, 0, 0, "make a city instead of reading SOURCE", NULL },
    { "chunks", 0, OPT_CHUNKS, CLI_TEXT, "XxYxZ", NULL, 0, 0, 0, "with --generate: the city's size in chunks", NULL },
    { "seed", 0, OPT_SEED, CLI_COUNT, "N", NULL, 0, 0, CLI_NO_MAX, "with --generate: the city's seed", NULL },
    { "tile", 0, OPT_TILE, CLI_COUNT, "N", "chunks", 1, 4096, 0, "with --generate: a tile's side in chunks", PMF_STRINGIFY(PMFC_TILE) },
    { 0 },
};

typedef struct parse_state {
    pmfc_compile_desc *o;
    const char **wads, **fgds;
    const char *chunks_arg;
    bool have_time, have_seed;
} parse_state;

/* One option or operand (cli_desc.handle); numbers come checked against the table. */
/* A repeatable option's value appended to its list (owned by st, shown through *shown): 0, or 3
 * when out of memory. */
static int append_value(const char ***list, size_t *count, const char *text, const char *const **shown)
{
    const char **grown = realloc(*list, (*count + 1) * sizeof *grown);
    if (!grown) {
        fputs("pmfc: out of memory\n", stderr);
        return 3;
    }
    grown[(*count)++] = text;
    *list = grown;
    *shown = grown;
    return 0;
}

static int handle(void *user, int id, const cli_value *v)
{
    parse_state *st = user;
    pmfc_compile_desc *o = st->o;
    switch (id) {
    case OPT_VERSION: puts(PMFC_VERSION); return CLI_DONE;
    case 'q': o->quiet = true; return 0;
    case 'o': o->out_path = v->text; return 0;
    case CLI_OPERAND:
        if (o->source) return cli_usage_error("pmfc", NULL, "more than one source: '%s'", v->text);
        o->source = v->text;
        return 0;
    case OPT_THREADS: o->threads = v->count; return 0;
    case OPT_TIME:
        st->have_time = true;
        o->created = v->count;
        return 0;
    case OPT_BOUNCE: o->bounces = v->count ? (int)v->count : PMFC_BOUNCE_NONE; return 0;
    case OPT_TILE: o->tile = v->count; return 0;
    case OPT_SAMPLES: o->samples = v->count; return 0;
    case OPT_DIRT: o->dirt = true; return 0;
    case OPT_NO_STYLED_BOUNCE: o->no_styled_bounce = true; return 0;
    case OPT_CACHE: o->cache_dir = v->text; return 0;
    case OPT_GENERATE: o->generate = v->text; return 0;
    case OPT_CHUNKS: st->chunks_arg = v->text; return 0;
    case OPT_SEED:
        st->have_seed = true;
        o->seed = v->count;
        return 0;
    case OPT_WAD: return append_value(&st->wads, &o->wad_count, v->text, &o->wads);
    case OPT_FGD: return append_value(&st->fgds, &o->fgd_count, v->text, &o->fgds);
    case OPT_GAME: o->game_dir = v->text; return 0;
    case OPT_RAD: o->rad = v->text; return 0;
    case OPT_MEMORY: o->memory = (uint64_t)v->count << 20; return 0;
    case OPT_MAX_LUXELS: o->max_luxels = v->number; return 0;
    case OPT_SCALE: o->scale = v->number; return 0;
    }
    return 0; /* getopt_long hands over only the ids of the table */
}

int pmfc_options_parse(int argc, char **argv, pmfc_compile_desc *o)
{
    *o = (pmfc_compile_desc){ 0 };
    parse_state st = { .o = o };
    cli_desc desc = { .program = "pmfc", .usage = usage, .footer = footer, .options = options, .handle = handle, .user = &st };
    int rc = cli_parse(&desc, argc, argv);
    if (rc)
        return rc;
    if (!o->source && !o->generate)
        return cli_usage_error("pmfc", NULL, "no SOURCE given%s", "");
    if (o->source && o->generate)
        return cli_usage_error("pmfc", NULL, "a SOURCE and --generate %s: one or the other", o->generate);
    if (!o->out_path)
        return cli_usage_error("pmfc", NULL, "no output given (-o OUT.pmf)%s", "");
    if (o->generate && o->cache_dir)
        return cli_usage_error("pmfc", NULL, "--cache %s relights a source map, not a generated city", o->cache_dir);
    if (o->generate) {
        if (!st.chunks_arg || !st.have_seed)
            return cli_usage_error("pmfc", NULL, "--generate %s needs --chunks XxYxZ and --seed N", o->generate);
        uint32_t *c = o->chunks;
        char tail;
        if (sscanf(st.chunks_arg, "%ux%ux%u%c", &c[0], &c[1], &c[2], &tail) != 3 || !c[0] || !c[1] || !c[2] ||
            c[0] > 4096 || c[1] > 256 || c[2] > 4096)
            return cli_bad_value(&desc, cli_find(options, OPT_CHUNKS), "XxYxZ with X and Z in 1..4096, Y in 1..256",
                                 st.chunks_arg);
    }
    if (!st.have_time) {
        const char *env = getenv("SOURCE_DATE_EPOCH");
        if (env && *env) {
            unsigned long long created;
            if (!cli_parse_unsigned(env, ~0ull, &created))
                return cli_usage_error("pmfc", NULL, "SOURCE_DATE_EPOCH wants seconds since 1970, got '%s'", env);
            o->created = created;
        } else if (!o->generate) {
            o->created = (uint64_t)time(NULL);
        } /* a generated city is a function of its seed alone: created stays 0 */
    }
    return 0;
}

void pmfc_options_free(pmfc_compile_desc *o)
{
    free((void *)o->wads);
    o->wads = NULL;
    o->wad_count = 0;
    free((void *)o->fgds);
    o->fgds = NULL;
    o->fgd_count = 0;
}
