/* info_chunks.h - what each chunk of a level takes for `pmfview info` (docs/info.md): its three
 * blocks compressed and decompressed, its lightmaps and its dynamic lights' layers decoded, and
 * the level's largest client block and largest lightmaps + layers. */
#ifndef PMFVIEW_APP_INFO_CHUNKS_H
#define PMFVIEW_APP_INFO_CHUNKS_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#include "pmf/pmf.h"

typedef struct info_chunks {
    pmf_chunk_figures *list;         /* the level's present chunks in grid order */
    uint32_t count, cap;
    bool failed;                     /* out of memory while collecting */
} info_chunks;

/* One more chunk, in grid order (from pmf_validate_chunks). */
void info_chunks_add(info_chunks *chunks, const pmf_chunk_figures *chunk);
void info_chunks_free(info_chunks *chunks);

/* The level's largest client block and largest lightmaps + layers; `all`: every chunk too. */
void info_chunks_print(FILE *out, const info_chunks *chunks, bool all);
/* The same as the level object's `largest` and (all) `chunks`. */
void info_chunks_json(cJSON *level, const info_chunks *chunks, bool all);

#endif
