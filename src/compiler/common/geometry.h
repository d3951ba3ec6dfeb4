/* geometry.h - vectors, planes and convex polygons in world metres (double: CSG and clipping want
 * the headroom); the functions are in world.c. */
#ifndef PMFC_GEOMETRY_H
#define PMFC_GEOMETRY_H

#include <stdbool.h>
#include <string.h>

typedef union v3 { struct { double x, y, z; }; double e[3]; } v3;

static inline v3 v3_make(double x, double y, double z) { v3 r = { { x, y, z } }; return r; }
static inline v3 v3_add(v3 a, v3 b) { return v3_make(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline v3 v3_sub(v3 a, v3 b) { return v3_make(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline v3 v3_scale(v3 a, double s) { return v3_make(a.x * s, a.y * s, a.z * s); }
static inline double v3_dot(v3 a, v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline v3 v3_cross(v3 a, v3 b) { return v3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }
v3 v3_normalize(v3 a);

/* Plane: points p with dot(n, p) == d; the front is where dot(n, p) > d. */
typedef struct plane { v3 n; double d; } plane;

/* A convex polygon, counter-clockwise seen from its front. */
#define POLY_MAX 96                      /* a convex face of a brush of up to 92 sides */
typedef struct poly { int n; v3 p[POLY_MAX]; } poly;

#define GEOM_EPS 1e-5

/* Its points only: a poly has room for POLY_MAX (2 KiB), most hold three or four. */
static inline void poly_copy(poly *to, const poly *from)
{
    to->n = from->n;
    memcpy(to->p, from->p, (size_t)from->n * sizeof *from->p);
}

/* Splits in by pl into the parts in front and behind (either may be NULL). A polygon lying in the
 * plane goes wholly to the side its own normal `facing` points to. */
void poly_split(const poly *in, plane pl, v3 facing, poly *front, poly *back);
/* Keeps the part of in inside [lo, hi] on every axis; a polygon lying in a box side is kept only
 * when it faces into the box. Returns false when nothing (of area) is left. */
bool poly_clip_box(const poly *in, v3 facing, v3 lo, v3 hi, poly *out);
double poly_area(const poly *p);
/* Drops repeated and collinear points. */
void poly_simplify(poly *p);

#endif
