/* csg.h - convex brushes and the CSG that turns them into visible faces (brush.c). */
#ifndef PMFC_CSG_H
#define PMFC_CSG_H

#include "common/level_build.h"

/* Brush construction (brush.c): each appends a brush and its sides to the level and returns it.
 * Materials: per face direction (PMF face order), and the slope. */
brush *brush_box(level_def *l, v3 lo, v3 hi, const int material[PMF_FACE_COUNT]);
/* rise: the PMF face direction (+X, +Z, -X or -Z) toward which the wedge's top slopes up. */
brush *brush_wedge(level_def *l, v3 lo, v3 hi, int rise, const int material[PMF_FACE_COUNT], int slope_material);
/* An empty convex brush around the box [lo, hi] (a box holding it: its sides' polygons start as
 * squares that size): add sides with brush_add_side, then call brush_finish, which sets the
 * exact bounds from the sides' polygons and returns false (dropping the brush) when nothing of
 * volume is left. */
brush *brush_begin(level_def *l, int kind, v3 lo, v3 hi);
void brush_add_side(level_def *l, brush *b, plane pl, int material, int tex);
/* The polygon of side i of a brush (its plane cut by every other side); false when it has none. */
bool brush_side_poly(const level_def *l, const brush *b, uint32_t i, poly *out);
bool brush_finish(level_def *l, brush *b);
/* Whether p lies inside brush b by more than margin (metres) from each of its sides: a point on
 * its surface is outside. */
bool brush_holds_point(const level_def *l, const brush *b, v3 p, double margin);
static inline brush_side *brush_sides(const level_def *l, const brush *b) { return &l->sides[b->first_side]; }
/* Brushes -> visible faces (CSG): lb->faces, sky_faces and void_faces. */
void level_faces(level_build *lb);

#endif
