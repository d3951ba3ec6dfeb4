/* visibility.h - which cubes and chunks each camera cell of a level sees (visibility.c, over the
 * baker's ray caster vis.c). */
#ifndef PMFC_VISIBILITY_H
#define PMFC_VISIBILITY_H

#include "common/level_build.h"

/* Visibility (visibility.c): fills cube visibility data of the cells. */
bool level_visibility(level_build *lb, const float (*tris)[9], size_t tri_count,
                      void (*progress)(void *, const char *, double), void *user);
void level_visibility_free(level_build *lb);

#endif
