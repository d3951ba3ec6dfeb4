/* map_compile.h - the compile cache for source maps (RMF, .map, BSP; conventions §4): compiled
 * into $XDG_CACHE_HOME/pmfview/ (else ~/.cache/pmfview/) by the compiler library (pmfc.h) on a
 * thread of this process, or, when $PMFVIEW_PMFC names a pmfc program, by `pmfc SOURCE -o OUT
 * --quiet [--game DIR]` as a child process, run without a shell: a crash of the compiler then
 * cannot take the viewer with it.
 *
 * A cache file is named SRC-KEY-NAME.pmf: SRC hashes the source's real path, KEY hashes
 * everything that changes the output (that path, the source's size and mtime, --game, and the
 * compiler's own real path, size and mtime: this program's, or $PMFVIEW_PMFC's, so a rebuilt
 * compiler recompiles), NAME is the source's file name for people. A hit is reused as it is;
 * after a compile, the other SRC-* files of the same source (stale versions) are removed, and so
 * are its temporary files whose process is gone. The compile writes a temporary file unique to
 * this process in the cache directory, renamed to the final name only once it succeeded, so a
 * concurrent pmfview never reads a half-written cache file (at worst two processes compile the
 * same version and the last rename wins, both whole).
 *
 * On a thread, the compile keeps what a relight needs in this process's memory (pmfc.h's keep),
 * so a save that changed only lights bakes only those lights, in two pictures: the new direct
 * light with the bounces as they were (map_compile_first), then the final one, bounced again; a
 * full compile also writes it beside the compiled maps (SOURCE-HASH.relight, pmfc --cache), where
 * the first compile of a later process starts from.
 * On a thread, the compile has the compiler's memory budget, counted apart from the viewer's
 * (docs/memory.md); a source that is bad, hostile or over that budget ends it with pmfc's one
 * line, and the process goes on. One compile runs at a time in a process (pmfc.h). The child
 * process's stdout and stderr go to an unlinked temporary file; on failure its last stderr line
 * is relayed. Either way the line is shown with control bytes as \xNN, and the compile's
 * warnings are kept (mc.warnings).
 *
 *   map_compile mc;
 *   if (map_compile_start(&mc, &(map_compile_desc){ .source = "room.rmf" }) == MAP_COMPILE_RUNNING)
 *       while (!map_compile_poll(&mc)) wait...;      // the window polls once per frame instead
 *   if (mc.exit_code) fprintf(stderr, "pmfview: %s\n", mc.message); else open(mc.out_path);
 */
#ifndef PMFVIEW_APP_MAP_COMPILE_H
#define PMFVIEW_APP_MAP_COMPILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pmf_os.h"

typedef struct map_compile_desc {
    const char *source;              /* the RMF as the user named it */
    const char *game_dir;            /* --game: passed to pmfc, part of the key; NULL = none */
    const char *const *fgds;         /* --fgd, in order: passed to pmfc, part of the key (each file's
                                      * path, size and time); they outlive the compile */
    size_t fgd_count;
} map_compile_desc;

typedef enum map_compile_state {
    MAP_COMPILE_IDLE = 0,            /* nothing started (or cancelled) */
    MAP_COMPILE_FAILED,              /* exit_code and message say why */
    MAP_COMPILE_CACHED,              /* out_path is ready */
    MAP_COMPILE_RUNNING,             /* the compile runs: poll */
    MAP_COMPILE_DONE,                /* it succeeded, out_path is ready */
} map_compile_state;

typedef struct map_compile_job map_compile_job;

#define MAP_COMPILE_WARNINGS_KEPT 32

/* The warnings of a compile: how many, and the first ones as clean lines ("warning: ..."). */
typedef struct map_compile_warnings {
    unsigned count;
    unsigned kept;
    char lines[MAP_COMPILE_WARNINGS_KEPT][256];
} map_compile_warnings;

typedef struct map_compile {
    map_compile_state state;
    int exit_code;                   /* 0, or 2 (pmfc said the source is bad) / 3 (anything else) */
    char message[1024];              /* failure: one clean line, no "pmfview: " prefix */
    char out_path[4096];             /* the cache file */
    char tmp_path[4096];             /* where the compile writes while it runs */
    char cache_dir[3800];
    char source_key[17];             /* SRC: hex hash of the source's real path */
    bool separate;                   /* pmfc as a child process ($PMFVIEW_PMFC) */
    map_compile_job *job;            /* on a thread: while RUNNING */
    pmf_os_process pmfc;             /* as a child process: while RUNNING */
    FILE *log;                       /* the child's stdout + stderr */
    double started;                  /* CLOCK_MONOTONIC seconds */
    map_compile_warnings warnings;   /* once DONE or FAILED (none for a cache hit) */
    /* once DONE on a thread: the compile's own seconds, and whether it relit from the relight
     * cache (pmfc --cache; not for the child process) or why it baked in full ("" = no cache) */
    double seconds;
    bool relit;
    size_t relit_lights;
    unsigned long long relit_luxels;
    char full_why[256];
    /* a relight on a thread comes in two pictures: first_path once map_compile_first said so (the
     * seconds and relit_* above are its compile's), then out_path once DONE, bounce_seconds the
     * second compile's (0 when there was one picture only) */
    char first_path[4096];
    double bounce_seconds;
} map_compile;

/* The relight files (pmfc --cache, NAME-HASH.relight) a cache directory keeps: the newest always;
 * the others while used (written: each compile of its source writes its file) within max_age_ns
 * of now_ns and, newest first, while all of them together take at most max_bytes. A temporary
 * file of pmfc's (".NAME-HASH.relight.XXXXXX") an hour old is one a killed compile left. After
 * each compile the viewer keeps MAP_COMPILE_RELIGHT_DAYS and MAP_COMPILE_RELIGHT_BYTES. Returns
 * how many files were removed. */
#define MAP_COMPILE_RELIGHT_DAYS 30
#define MAP_COMPILE_RELIGHT_BYTES (1024ull << 20)
typedef struct map_compile_bound { uint64_t max_bytes; int64_t max_age_ns, now_ns; } map_compile_bound;
size_t map_compile_prune_relight(const char *dir, const map_compile_bound *bound);

/* Finds the source's current version in the cache or starts the compile. Returns mc->state. */
map_compile_state map_compile_start(map_compile *mc, const map_compile_desc *desc);
/* Non-blocking while RUNNING: true once finished (state DONE or FAILED). */
bool map_compile_poll(map_compile *mc);
/* Non-blocking while RUNNING on a thread: true once, when a relight's first picture is ready at
 * mc->first_path: the changed lights' new direct light with the bounces as they were before (the
 * compile then bounces the new light: the final picture is out_path once DONE). */
bool map_compile_first(map_compile *mc);
/* Whether a compile on a thread has something for map_compile_poll to take, or (first) for
 * map_compile_first: a window waiting out a frame wakes for it. */
bool map_compile_news(const map_compile *mc, bool first);
/* Seconds since the compile started. */
double map_compile_elapsed(const map_compile *mc);
/* Where a compile on a thread is ("bake 42%"): false when nothing is known (not started yet, or
 * a child process). */
bool map_compile_progress(const map_compile *mc, char *text, size_t size);
/* Stops a running compile without waiting (a thread: cancelled, and joined by a later call once
 * it has ended the item it is on, its temporary file removed then; a child process: SIGTERM,
 * reaped) and leaves mc IDLE; safe on any state. A compile started next waits on its own thread
 * for the cancelled one to end (one compile at a time, pmfc.h). */
void map_compile_cancel(map_compile *mc);
/* Waits for the cancelled compiles still ending: before the process exits. */
void map_compile_shutdown(void);
/* Counts a warning line (its "pmfc: " dropped) and keeps it, cleaned, if there is room. */
void map_compile_warnings_add(map_compile_warnings *w, const char *line, size_t len);

/* Writes text into out with every control byte, DEL and byte that is not part of valid UTF-8
 * shown as \xNN, so it cannot drive a terminal. */
void map_compile_clean_line(const char *text, size_t len, char *out, size_t out_size);

#endif
