/* fuzz_relight_level.h - what fuzz_relight and fuzz_relight_build share with their seed program
 * (make_relight_seeds): the small source whose compile with --cache made the seeds, and its
 * levels laid out as pmfc lays them out, so that a kept level read back (relight_build_restore)
 * is checked against the level it was built for. */
#ifndef TESTS_FUZZ_RELIGHT_LEVEL_H
#define TESTS_FUZZ_RELIGHT_LEVEL_H

#include <stdio.h>
#include <string.h>

#include "chunks/chunks.h"
#include "common/memory.h"
#include "common/session.h"
#include "common/world.h"
#include "front/pms/pms.h"
#include "relight/relight.h"

/* Two levels, a glass box (a second material), two static lights and a dynamic one (its layer's
 * pieces kept) in the first; small luxels and chunks
 * keep the cache some 100 KB. */
static const char relight_fuzz_source[] =
    "map \"Relight\"\n"
    "texture stone procedural noise 64 color 160 160 160 color2 90 90 90\n"
    "texture glass procedural noise 32 color 120 160 200 color2 100 140 180\n"
    "material stone texture stone scale 2\n"
    "material glass texture glass\n"
    "level main {\n"
    "    chunk_size 4\n"
    "    luxels 1\n"
    "    box -4 -1 -4 4 0 4 material stone\n"
    "    room -4 0 -4 4 3 4 material stone door +z 1.2 2.2\n"
    "    box -1 0 -1 1 1 1 material glass\n"
    "    light static at 0 2.5 0 color 255 230 200 range 10\n"
    "    light static at 2 1.5 2 color 100 200 255 range 6\n"
    "    light dynamic 1 at -2 1.5 -2 color 255 200 120 range 4\n"
    "}\n"
    "level annex {\n"
    "    luxels 1\n"
    "    room -2 0 -2 2 2 2 material stone\n"
    "    light static at 0 1.5 0 color 255 255 255 range 5\n"
    "}\n";

#define RELIGHT_FUZZ_LEVELS 2

typedef struct relight_fuzz_map {
    map_def map;
    level_build layouts[RELIGHT_FUZZ_LEVELS];
} relight_fuzz_map;

static inline void relight_fuzz_quiet(void *user, pmfc_message_kind kind, const char *line)
{
    (void)user;
    (void)kind;
    (void)line;
}

/* The source parsed and its levels laid out (pmfc.c's lay_out_levels); false when it is not
 * (a change to the .pms format: the seeds and the targets say so). The compile's lines are
 * dropped from here on: a fuzzer prints nothing per input. */
static inline bool relight_fuzz_map_load(relight_fuzz_map *m)
{
    static const pmfc_compile_desc quiet = { .message = relight_fuzz_quiet };
    session_begin(&quiet, NULL);
    map_init(&m->map);
    if (!parse_source("relight.pms", relight_fuzz_source, sizeof relight_fuzz_source - 1, &m->map) ||
        m->map.level_count != RELIGHT_FUZZ_LEVELS)
        return false;
    for (size_t li = 0; li < RELIGHT_FUZZ_LEVELS; li++) {
        level_build *lb = &m->layouts[li];
        memset(lb, 0, sizeof *lb);
        lb->map = &m->map;
        lb->def = &m->map.levels[li];
        lb->index = (int)li;
        lb->threads = 1;
        lb->def->samples = PMFC_SAMPLES;
        if (level_layout(lb)) return false;
    }
    return true;
}

/* The level rl keeps taken back into a window over layout's whole grid (compile_levels.c's
 * build_window), its key made the level's so that its bytes are read whatever the input's key;
 * whether it was whole. */
static inline bool relight_fuzz_restore(relight_level *rl, const level_build *layout)
{
    level_build lb = *layout;
    uint32_t side = lb.nx > lb.nz ? lb.nx : lb.nz;
    level_window(&lb, 0, 0, side, side, 0);
    rl->built_key = relight_build_key(&lb);
    bool whole = relight_build_restore(rl, &lb);
    level_build_free(&lb);
    return whole;
}

#endif
