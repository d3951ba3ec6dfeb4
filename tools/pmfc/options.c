/* options.c - pmfc's option table and the checks of each value (options.h). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/cli.h"
#include "base/memory_option.h"
#include "bake.h"
#include "front/world.h"
#include "options.h"

void pmfc_usage(FILE *out)
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

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end || errno || *s == '-') return false;
    *out = v;
    return true;
}

enum { OPT_THREADS = 256, OPT_TIME, OPT_TILE, OPT_GENERATE, OPT_CHUNKS, OPT_SEED, OPT_WAD, OPT_GAME, OPT_SCALE,
       OPT_VERSION, OPT_SAMPLES, OPT_DIRT, OPT_BOUNCE, OPT_MEMORY, OPT_MAX_LUXELS, OPT_RAD };

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

typedef struct parse_state {
    pmfc_options *o;
    const char *chunks_arg;
    bool have_time, have_seed;
} parse_state;

/* A value the option does not take: one line, exit 1. */
static int bad_value(const char *fmt, const char *value)
{
    fprintf(stderr, fmt, value);
    return CLI_EXIT_USAGE;
}

/* One option or operand (cli_desc.handle). */
static int handle(void *user, int id, const char *v)
{
    parse_state *st = user;
    pmfc_options *o = st->o;
    switch (id) {
    case 'h': pmfc_usage(stdout); return CLI_DONE;
    case OPT_VERSION: puts(PMFC_VERSION); return CLI_DONE;
    case 'q': o->quiet = true; return 0;
    case 'o': o->out_path = v; return 0;
    case CLI_OPERAND:
        if (o->source) return cli_usage_error("pmfc", NULL, "more than one source: '%s'", v);
        o->source = v;
        return 0;
    case OPT_THREADS:
        return parse_u64(v, &o->threads) && o->threads <= 256 ? 0 : bad_value("pmfc: bad --threads '%s'\n", v);
    case OPT_TIME:
        st->have_time = true;
        return parse_u64(v, &o->created) ? 0 : bad_value("pmfc: bad --time '%s'\n", v);
    case OPT_BOUNCE: {
        uint64_t n;
        if (!parse_u64(v, &n) || n > BAKE_BOUNCE_MAX) {
            fprintf(stderr, "pmfc: bad --bounce '%s' (0..%d)\n", v, BAKE_BOUNCE_MAX);
            return CLI_EXIT_USAGE;
        }
        o->bounces = (int)n;
        return 0;
    }
    case OPT_TILE:
        return parse_u64(v, &o->tile) && o->tile && o->tile <= 4096 ? 0 : bad_value("pmfc: bad --tile '%s'\n", v);
    case OPT_SAMPLES:
        return parse_u64(v, &o->samples) && o->samples && o->samples <= 64 ? 0 : bad_value("pmfc: bad --samples '%s' (1..64)\n", v);
    case OPT_DIRT: o->dirt = true; return 0;
    case OPT_GENERATE: o->generate = v; return 0;
    case OPT_CHUNKS: st->chunks_arg = v; return 0;
    case OPT_SEED:
        st->have_seed = true;
        return parse_u64(v, &o->seed) ? 0 : bad_value("pmfc: bad --seed '%s'\n", v);
    case OPT_WAD:
        o->wads = xrealloc(o->wads, (o->wad_count + 1) * sizeof *o->wads);
        o->wads[o->wad_count++] = v;
        return 0;
    case OPT_GAME: o->game_dir = v; return 0;
    case OPT_RAD: o->rad = v; return 0;
    case OPT_MEMORY:
        return memory_option_set(v) ? 0 : bad_value("pmfc: --memory wants MiB in 64..1048576, got '%s'\n", v);
    case OPT_MAX_LUXELS: {
        char *end;
        o->max_luxels = strtod(v, &end);
        if (end == v || *end || !(o->max_luxels >= 1024 && o->max_luxels <= PMFC_MAX_LEVEL_LUXELS)) {
            fprintf(stderr, "pmfc: bad --max-luxels '%s' (1024..%.0f)\n", v, PMFC_MAX_LEVEL_LUXELS);
            return CLI_EXIT_USAGE;
        }
        return 0;
    }
    case OPT_SCALE: {
        char *end;
        o->scale = strtod(v, &end);
        return end != v && !*end && o->scale >= 1e-4 && o->scale <= 100
                   ? 0 : bad_value("pmfc: bad --scale '%s' (metres per unit, 0.0001..100)\n", v);
    }
    default: return CLI_EXIT_USAGE;
    }
}

int pmfc_options_parse(int argc, char **argv, pmfc_options *o)
{
    *o = (pmfc_options){ .tile = 8, .samples = PMFC_SAMPLES, .bounces = BAKE_BOUNCE_AUTO };
    parse_state st = { .o = o };
    int rc = cli_parse(&(cli_desc){ .program = "pmfc", .short_options = "ho:q", .long_options = options,
                                    .handle = handle, .user = &st }, argc, argv);
    if (rc)
        return rc;
    if (!o->out_path || (!o->source && !o->generate) || (o->source && o->generate)) {
        pmfc_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (o->generate) {
        if (!st.chunks_arg || !st.have_seed) {
            fputs("pmfc: --generate needs --chunks XxYxZ and --seed N\n", stderr);
            return CLI_EXIT_USAGE;
        }
        uint32_t *c = o->chunks;
        char tail;
        if (sscanf(st.chunks_arg, "%ux%ux%u%c", &c[0], &c[1], &c[2], &tail) != 3 || !c[0] || !c[1] || !c[2] ||
            c[0] > 4096 || c[1] > 256 || c[2] > 4096) {
            fprintf(stderr, "pmfc: bad --chunks '%s' (XxYxZ, X and Z 1..4096, Y 1..256)\n", st.chunks_arg);
            return CLI_EXIT_USAGE;
        }
    }
    if (!st.have_time) {
        const char *env = getenv("SOURCE_DATE_EPOCH");
        if (env && *env) {
            if (!parse_u64(env, &o->created)) {
                fprintf(stderr, "pmfc: bad SOURCE_DATE_EPOCH '%s'\n", env);
                return CLI_EXIT_USAGE;
            }
        } else if (!o->generate) {
            o->created = (uint64_t)time(NULL);
        } /* a generated city is a function of its seed alone: created stays 0 */
    }
    return 0;
}

void pmfc_options_free(pmfc_options *o)
{
    xfree(o->wads);
    o->wads = NULL;
    o->wad_count = 0;
}
