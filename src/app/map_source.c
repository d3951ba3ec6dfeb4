/* map_source.c - what a command opens for the FILE it was given (see map_source.h). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "map_source.h"
#include "pm4_world.h"

int map_source_resolve(const char *path, map_source *out)
{
    memset(out, 0, sizeof *out);
    char why[256];
    if (pm4_directory_has_tiles(path)) {
        out->id.kind = PMF_KIND_PM4;
        snprintf(out->id.what, sizeof out->id.what, "a directory of PM4 tiles");
        return 0;
    }
    if (!pmf_identify_path(path, &out->id, why, sizeof why)) {
        fprintf(stderr, "pmfview: %s: file, byte 0: %s\n", path, why);
        return EXIT_BAD_INPUT;
    }
    switch (out->id.kind) {
    case PMF_KIND_PMF:
        if (strlen(path) >= sizeof out->pmf_path) {
            fprintf(stderr, "pmfview: %s: path too long\n", path);
            return EXIT_BAD_INPUT;
        }
        strcpy(out->pmf_path, path);
        return 0;
    case PMF_KIND_PMF_LEGACY:
    case PMF_KIND_PM4:
        return 0; /* read by their own modules (formats_*.c) */
    case PMF_KIND_TEXT:
        fprintf(stderr, "pmfview: %s: file, byte 0: a text file, not a map (a pmfc source? compile it with 'pmfc %s -o MAP.pmf')\n", path, path);
        return EXIT_BAD_INPUT;
    default:
        fprintf(stderr, "pmfview: %s: file, byte 0: %s, not a map this program opens\n", path, out->id.what);
        return EXIT_BAD_INPUT;
    }
}
