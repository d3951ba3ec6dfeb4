/* level_file.h - one level of a map file, kept open beside the scene by the overlays that read
 * what the streamer does not hand the renderer (light probes, regions). */
#ifndef PMFVIEW_APP_LEVEL_FILE_H
#define PMFVIEW_APP_LEVEL_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmf.h"

typedef struct level_file {
    pmf_file *file;                  /* NULL when closed */
    pmf_level lvl;
} level_file;

/* Opens path and reads the given parts (PMF_PART_*) of level `level`. False with the reader's
 * one-line error in err (nothing left open). */
bool level_file_open(level_file *lf, const char *path, uint32_t level, unsigned parts, char *err, size_t err_size);
/* Safe on a closed or zeroed level_file. */
void level_file_close(level_file *lf);

/* Walks a decoded chunk's octree from cube 0, calling visit(user, cube, centre, half) for each
 * cube reached: centre = origin + the cube's centre in the chunk, half = half its side (the root's
 * is side / 2). At most cube_count cubes are visited, so a malformed tree cannot loop. visit
 * returns false to stop; so does running out of memory. */
void level_file_walk_cubes(const pmf_chunk *ch, const double origin[3], double side,
                           bool (*visit)(void *user, uint32_t cube, const double center[3], double half), void *user);

#endif
