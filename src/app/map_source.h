/* map_source.h - from the FILE a user names to what a command opens: a PMF as it is, an RMF
 * through the compile cache (conventions §4), the legacy draft and PM4 through their readers;
 * anything else is named ("a PNG image", "unknown (first bytes ...)") and refused. */
#ifndef PMFVIEW_APP_MAP_SOURCE_H
#define PMFVIEW_APP_MAP_SOURCE_H

#include "pmf/file_kind.h"

typedef struct map_source {
    pmf_file_id id;
    char pmf_path[4096];     /* PMF_KIND_PMF: the file itself; PMF_KIND_RMF: its compiled cache file */
} map_source;

/* Identifies path and, for an RMF, compiles it (or reuses the cache). Returns 0, or the exit
 * code (conventions §4) after printing one `pmfview:` line. */
int map_source_resolve(const char *path, map_source *out);

#endif
