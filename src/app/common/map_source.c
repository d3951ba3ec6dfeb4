/* map_source.c - what a command opens for the FILE it was given (see map_source.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "map_compile.h"
#include "map_source.h"
#include "pm4_world.h"
#include "text_clean.h"

#define PROGRESS_AFTER_SECONDS 1.0

/* Compiles (or finds in the cache) the source map (RMF, .map, BSP) at path into out->pmf_path. */
static int compile_source(const map_source_desc *desc, map_source *out)
{
    map_compile mc;
    map_compile_start(&mc, &(map_compile_desc){ .source = desc->path, .game_dir = desc->game_dir });
    bool announced = false;
    while (!map_compile_poll(&mc)) {
        if (!announced && map_compile_elapsed(&mc) > PROGRESS_AFTER_SECONDS) {
            fprintf(stderr, "pmfview: compiling %s (first open or changed since) ...", desc->path);
            fflush(stderr);
            announced = true;
        }
        nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
    }
    if (announced)
        fprintf(stderr, " %s after %.1f s\n", mc.state == MAP_COMPILE_DONE ? "done" : "failed", map_compile_elapsed(&mc));
    if (mc.state == MAP_COMPILE_FAILED) {
        fprintf(stderr, "pmfview: %s\n", mc.message);
        return mc.exit_code;
    }
    snprintf(out->pmf_path, sizeof out->pmf_path, "%s", mc.out_path);
    return 0;
}

int map_source_resolve(const char *path, map_source *out)
{
    return map_source_open(&(map_source_desc){ .path = path }, out);
}

int map_source_identify(const char *path, map_source *out, char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    char reason[256], shown[1024]; /* the path as the terminal may show it */
    text_clean(path, shown, sizeof shown);
    if (pm4_directory_has_tiles(path)) {
        out->id.kind = PMF_KIND_PM4;
        snprintf(out->id.what, sizeof out->id.what, "a directory of PM4 tiles");
        return 0;
    }
    if (!pmf_identify_path(path, &out->id, reason, sizeof reason)) {
        snprintf(why, why_size, "%s: file, byte 0: %s", shown, reason);
        return EXIT_BAD_INPUT;
    }
    switch (pmf_format_of(out->id.kind)->use) {
    case PMF_FORMAT_OPEN:
        if (strlen(path) >= sizeof out->pmf_path) {
            snprintf(why, why_size, "%s: path too long", shown);
            return EXIT_BAD_INPUT;
        }
        strcpy(out->pmf_path, path);
        return 0;
    case PMF_FORMAT_COMPILE:
    case PMF_FORMAT_CONVERT:
        return 0; /* compiled by the caller; read by their own modules (formats_*.c) */
    case PMF_FORMAT_PMFC_SOURCE:
        snprintf(why, why_size, "%s: file, byte 0: a text file, not a map (a pmfc source? compile it with 'pmfc %s -o MAP.pmf')", shown, shown);
        return EXIT_BAD_INPUT;
    case PMF_FORMAT_REFUSED:
        break;
    }
    snprintf(why, why_size, "%s: file, byte 0: %s, not a map this program opens", shown, out->id.what);
    return EXIT_BAD_INPUT;
}

int map_source_open(const map_source_desc *desc, map_source *out)
{
    char why[2600];
    int rc = map_source_identify(desc->path, out, why, sizeof why);
    if (rc) {
        fprintf(stderr, "pmfview: %s\n", why);
        return rc;
    }
    return map_source_compiled(out->id.kind) ? compile_source(desc, out) : 0;
}
