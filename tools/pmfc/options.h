/* options.h - pmfc's command line: one option table over the shared parser (base/cli.h). */
#ifndef PMFC_OPTIONS_H
#define PMFC_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PMFC_VERSION "pmfc 0.1"
#define PMFC_SAMPLES 4             /* light samples per luxel without --samples */

typedef struct pmfc_options {
    const char *source;            /* the map to compile, or NULL with --generate */
    const char *out_path;
    const char *generate;          /* --generate NAME */
    uint32_t chunks[3];            /* --chunks XxYxZ, with --generate */
    uint64_t seed;
    uint64_t created;              /* --time, else SOURCE_DATE_EPOCH, else now (0 for a city) */
    uint64_t threads;              /* 0 = every core */
    uint64_t tile;                 /* a generated city's tile side, chunks */
    uint64_t samples;
    int bounces;                   /* BAKE_BOUNCE_AUTO unless --bounce */
    bool dirt, quiet;
    const char **wads;             /* --wad, in order */
    size_t wad_count;
    const char *game_dir, *rad;
    double scale, max_luxels;      /* 0 = the front end's own */
} pmfc_options;

/* Fills *o from the command line, its defaults resolved here. 0: compile; otherwise the exit
 * status, with what was wrong printed (CLI_DONE: --help or --version was answered). */
int pmfc_options_parse(int argc, char **argv, pmfc_options *o);
void pmfc_options_free(pmfc_options *o);

#endif
