/* rmf_compare.h - whether two read maps hold the same things (for write(read(f)) checks). */
#ifndef TESTS_RMF_COMPARE_H
#define TESTS_RMF_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "rmf.h"

/* Compares every field but byte offsets and the world's colour and visgroups (rmf_build_map
 * does not keep those). On a difference returns false with what differs, and where, in why. */
bool rmf_compare_maps(const rmf_map *a, const rmf_map *b, char *why, size_t why_size);

#endif
