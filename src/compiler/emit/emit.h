/* emit.h - a level's chunks encoded as PMF (emit.c). */
#ifndef PMFC_EMIT_H
#define PMFC_EMIT_H

#include "common/level_build.h"

/* Emission (emit.c): the level's pmf_level (once), then one encoded chunk per present chunk of
 * the window outside its margin, handed to the writer later (windows are built in parallel, and
 * put in order). */
bool level_begin(const level_build *lb, pmf_writer *w);
typedef struct encoded_chunks { pmf_chunk_coord *coords; pmf_encoded_chunk *enc; size_t count; } encoded_chunks;
bool level_encode(level_build *lb, level_light *ll, encoded_chunks *out, void (*progress)(void *, const char *, double), void *user);
/* Puts them all into the writer (which takes their bytes), frees the rest. */
bool encoded_chunks_put(encoded_chunks *ec, pmf_writer *w, const char *level_name);

#endif
