/* generate.h - `pmfc --generate`: a deterministic city (streets, buildings with lit interiors,
 * parks with ponds, street lamps, flickering signs) written straight into the world model. */
#ifndef PMFC_GENERATE_H
#define PMFC_GENERATE_H

#include "common/world.h"

/* chunks: X, Y, Z counts of the level's grid (32 m chunks). Same seed, same world. */
bool generate_map(map_def *map, const char *name, const uint32_t chunks[3], uint64_t seed);

#endif
