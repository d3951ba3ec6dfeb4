/* map_source.c - what a command opens for the FILE it was given (see map_source.h). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "map_source.h"
#include "text_clean.h"

int map_source_resolve(const char *path, map_source *out)
{
    memset(out, 0, sizeof *out);
    char why[256], shown[1024]; /* the path as the terminal may show it */
    text_clean(path, shown, sizeof shown);
    if (!pmf_identify_path(path, &out->id, why, sizeof why)) {
        fprintf(stderr, "pmfview: %s: file, byte 0: %s\n", shown, why);
        return EXIT_BAD_INPUT;
    }
    switch (out->id.kind) {
    case PMF_KIND_PMF:
        if (strlen(path) >= sizeof out->pmf_path) {
            fprintf(stderr, "pmfview: %s: path too long\n", shown);
            return EXIT_BAD_INPUT;
        }
        strcpy(out->pmf_path, path);
        return 0;
    case PMF_KIND_TEXT:
        fprintf(stderr, "pmfview: %s: file, byte 0: a text file, not a map (a pmfc source? compile it with 'pmfc %s -o MAP.pmf')\n", shown, shown);
        return EXIT_BAD_INPUT;
    default:
        fprintf(stderr, "pmfview: %s: file, byte 0: %s, not a map this program opens\n", shown, out->id.what);
        return EXIT_BAD_INPUT;
    }
}
