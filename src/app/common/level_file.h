/* level_file.h - one level of a map file, kept open beside the scene by the overlays that read
 * what the streamer does not hand the renderer (light probes, regions). */
#ifndef PMFVIEW_APP_LEVEL_FILE_H
#define PMFVIEW_APP_LEVEL_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "camera.h"
#include "pmf.h"

typedef struct level_file {
    pmf_file *file;                  /* NULL when closed */
    pmf_level lvl;
    uint32_t level;
    bool walked;                     /* level_file_walk_near has run since the opening */
    int32_t walked_chunk[3];         /* the camera's chunk then: what it found is relative to its centre */
    char error[512];                 /* the first chunk of that walk that failed to decode, "" if none */
} level_file;

/* Opens path and reads the given parts (PMF_PART_*) of level `level`. False with the reader's
 * one-line error in err (nothing left open). */
bool level_file_open(level_file *lf, const char *path, uint32_t level, unsigned parts, char *err, size_t err_size);
/* Safe on a closed or zeroed level_file. */
void level_file_close(level_file *lf);

/* True when no walk has run yet or the camera is in another chunk than at the last. */
bool level_file_moved(const level_file *lf, const camera *cam);
/* Decodes `parts` of every present chunk within `radius` chunks of the grid chunk nearest the
 * camera's (so a camera outside the grid still sees some; none when radius < 0) and hands each to
 * visit with its origin relative to the camera's chunk and its side. Records the camera's chunk
 * and the first chunk that failed to decode (in error). */
void level_file_walk_near(level_file *lf, const camera *cam, int radius, unsigned parts,
                          void (*visit)(void *user, const pmf_chunk *ch, const double origin[3], double side),
                          void *user);

/* Walks a decoded chunk's octree from cube 0, calling visit(user, cube, centre, half) for each
 * cube reached: centre = origin + the cube's centre in the chunk, half = half its side (the root's
 * is side / 2). At most cube_count cubes are visited, so a malformed tree cannot loop. visit
 * returns false to stop; so does running out of memory. */
void level_file_walk_cubes(const pmf_chunk *ch, const double origin[3], double side,
                           bool (*visit)(void *user, uint32_t cube, const double center[3], double half), void *user);

#endif
