/* bsp_visibility.h - a BSP's PVS as the level's visibility (world.h's vis_source): a cell sees
 * a target when a leaf the cell reaches into has, in its PVS, a leaf the target touches. */
#ifndef PMFC_BSP_VISIBILITY_H
#define PMFC_BSP_VISIBILITY_H

#include "bsp_read.h"
#include "common/world.h"

/* NULL when the file has no vis data (pmfc computes its own then). The source copies what it
 * needs; b may be freed. scale: metres per unit. */
vis_source *bsp_vis_source_create(const bsp_file *b, double scale);

#endif
