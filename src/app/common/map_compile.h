/* map_compile.h - the compile cache for RMF maps (conventions §4): `pmfc SOURCE -o OUT --quiet
 * [--game DIR]` run without a shell into $XDG_CACHE_HOME/pmfview/ (else ~/.cache/pmfview/).
 *
 * A cache file is named SRC-KEY-NAME.pmf: SRC hashes the source's real path, KEY hashes
 * everything that changes the output (that path, the source's size and mtime, --game, and pmfc's
 * own real path, size and mtime, so a rebuilt compiler recompiles), NAME is the source's file
 * name for people. A hit is reused as it is; after a compile, the other SRC-* files of the same
 * source (stale versions) are removed, and so are its temporary files whose process is gone. pmfc writes a temporary file unique to this process in the
 * cache directory, renamed to the final name only once pmfc exited 0, so a concurrent pmfview
 * never reads a half-written cache file (at worst two processes compile the same version and the
 * last rename wins, both whole).
 *
 * pmfc is $PMFVIEW_PMFC when set, else the `pmfc` beside the running program. Its stdout and
 * stderr go to an unlinked temporary file; on failure its last stderr line is relayed with
 * control bytes shown as \xNN.
 *
 *   map_compile mc;
 *   if (map_compile_start(&mc, &(map_compile_desc){ .source = "room.rmf" }) == MAP_COMPILE_RUNNING)
 *       while (!map_compile_poll(&mc)) wait...;      // the window polls once per frame instead
 *   if (mc.exit_code) fprintf(stderr, "pmfview: %s\n", mc.message); else open(mc.out_path);
 */
#ifndef PMFVIEW_APP_MAP_COMPILE_H
#define PMFVIEW_APP_MAP_COMPILE_H

#include <stdbool.h>
#include <stdio.h>

#include "pmf_os.h"

typedef struct map_compile_desc {
    const char *source;              /* the RMF as the user named it */
    const char *game_dir;            /* --game: passed to pmfc, part of the key; NULL = none */
} map_compile_desc;

typedef enum map_compile_state {
    MAP_COMPILE_IDLE = 0,            /* nothing started (or cancelled) */
    MAP_COMPILE_FAILED,              /* exit_code and message say why */
    MAP_COMPILE_CACHED,              /* out_path is ready */
    MAP_COMPILE_RUNNING,             /* pmfc runs: poll */
    MAP_COMPILE_DONE,                /* pmfc exited 0, out_path is ready */
} map_compile_state;

typedef struct map_compile {
    map_compile_state state;
    int exit_code;                   /* 0, or 2 (pmfc said the source is bad) / 3 (anything else) */
    char message[1024];              /* failure: one clean line, no "pmfview: " prefix */
    char out_path[4096];             /* the cache file */
    char tmp_path[4096];             /* where pmfc writes while it runs */
    char cache_dir[3800];
    char source_key[17];             /* SRC: hex hash of the source's real path */
    pmf_os_process pmfc;             /* while RUNNING */
    FILE *log;                       /* pmfc's stdout + stderr */
    double started;                  /* CLOCK_MONOTONIC seconds */
} map_compile;

/* Finds the source's current version in the cache or starts pmfc. Returns mc->state. */
map_compile_state map_compile_start(map_compile *mc, const map_compile_desc *desc);
/* Non-blocking while RUNNING: true once finished (state DONE or FAILED). */
bool map_compile_poll(map_compile *mc);
/* Seconds since pmfc started. */
double map_compile_elapsed(const map_compile *mc);
/* Stops a running pmfc (SIGTERM, reaped), removes its temporary file, and leaves mc IDLE; safe
 * on any state. */
void map_compile_cancel(map_compile *mc);

/* Writes text into out with every control byte, DEL and byte that is not part of valid UTF-8
 * shown as \xNN, so it cannot drive a terminal. */
void map_compile_clean_line(const char *text, size_t len, char *out, size_t out_size);

#endif
