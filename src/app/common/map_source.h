/* map_source.h - from the FILE a user names to what a command opens, as its row of the table of
 * formats (file_kind.h) says: a PMF as it is, a source map (RMF, Quake-family .map, GoldSrc /
 * Quake BSP) through the compile cache (conventions §4, map_compile.h), the legacy draft and PM4
 * through their readers; anything else is named ("a PNG image", "unknown (first bytes ...)") and
 * refused. The kind is told by content, never by the file name. */
#ifndef PMFVIEW_APP_MAP_SOURCE_H
#define PMFVIEW_APP_MAP_SOURCE_H

#include <stddef.h>

#include "file_kind.h"

typedef struct map_source_desc {
    const char *path;                /* FILE as given */
    const char *game_dir;            /* --game: passed to pmfc for a source map (and part of its cache key) */
} map_source_desc;

typedef struct map_source {
    pmf_file_id id;
    char pmf_path[4096];     /* PMF_KIND_PMF: the file itself; a source map: its compiled cache file */
} map_source;

/* Whether files of this kind are compiled by pmfc (through the cache, recompiled when saved). */
static inline bool map_source_compiled(pmf_file_kind kind)
{
    return pmf_format_of(kind)->use == PMF_FORMAT_COMPILE;
}

/* Whether files of this kind are read by their own readers into a scene (formats_scene.h). */
static inline bool map_source_converted(pmf_file_kind kind)
{
    return pmf_format_of(kind)->use == PMF_FORMAT_CONVERT;
}

/* Identifies desc->path and, for a source map, compiles it (or reuses the cache), with a progress line
 * on stderr once a compile takes over a second. Returns 0, or the exit code (conventions §4)
 * after printing one `pmfview:` line. */
int map_source_open(const map_source_desc *desc, map_source *out);
/* What map_source_open does short of compiling: identifies path and, for a PMF, names it in
 * out->pmf_path (a source map's is left empty for the caller to compile). Returns 0, or the exit
 * code with the one line (no `pmfview: ` prefix) in why. */
int map_source_identify(const char *path, map_source *out, char *why, size_t why_size);
/* map_source_open with no options. */
int map_source_resolve(const char *path, map_source *out);

#endif
