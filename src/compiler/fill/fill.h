/* fill.h - the outside fill, as qbsp and hlbsp do it: which empty space of a level the void
 * around it reaches, which entity it reaches first (a leak, with the way there), and where the
 * inside is. On a grid of cells over the level's sealing brushes (world solids and sky: the sky
 * is outside) a cell is solid when a sealing brush may touch it (conservative: a gap narrower
 * than a cell seals), and the void is flooded from beyond the bounds through the empty cells.
 *
 *   fill_grid *g = fill_build(&(fill_desc){ .level = l, ... });
 *   if (!fill_occupied(g)) ... warn, keep every face
 *   else if (fill_leak(g, &leak)) ... warn, keep every face
 *   else if (fill_sealed(g)) ... drop the faces fill_face_seen says only the void sees
 *
 * World metres throughout; fill_translate follows the level when level_layout moves it. */
#ifndef PMFC_FILL_H
#define PMFC_FILL_H

#include <stdbool.h>
#include <stddef.h>

#include "common/world.h"

typedef struct fill_grid fill_grid;

typedef struct fill_point { v3 pos; const char *classname; } fill_point;

typedef struct fill_desc {
    const level_def *level;          /* its brushes that seal: see fill_brush_seals */
    const bool *seals;               /* [brush_count]: whether each brush seals */
    const fill_point *entities;      /* point entities, file order: the first the void reaches leaks */
    size_t entity_count;
    double cell;                     /* metres; 0 = from the bounds (at least FILL_MIN_CELL_UNITS) */
    double units;                    /* metres per editor unit (the default cell and the camera) */
} fill_desc;

typedef struct fill_leak_info {
    size_t entity;                   /* index in fill_desc.entities */
    v3 *points;                      /* from outside the bounds to the entity, empty space only */
    size_t point_count;
} fill_leak_info;

/* NULL when the level has no sealing brush (nothing to flood around). */
fill_grid *fill_build(const fill_desc *desc);
void fill_free(fill_grid *g);
/* The first entity (file order) in empty space the void reaches; *out's points are the
 * caller's to free (xfree). An entity in a cell a brush touches (on a floor, by a wall) stands in
 * the space it sees beside it, along an axis through no brush. */
bool fill_leak(const fill_grid *g, fill_leak_info *out);
/* Empty space the void does not reach exists. */
bool fill_sealed(const fill_grid *g);
/* Whether an entity stands in empty space, inside or out: its origin raised one editor unit (as
 * hlbsp raises it: one on a floor stands in the room) inside no sealing brush. qbsp and hlbsp fill
 * nothing when none does ("no entities in empty space"): the void would take every face. */
bool fill_occupied(const fill_grid *g);
/* Whether the face (its polygon and outward normal) is seen from empty space inside; false only
 * when the cells in front of it are the void's and none is inside's. */
bool fill_face_seen(const fill_grid *g, const v3 *p, int n, v3 normal);
/* A camera inside (else as deep in the empty space as the map goes): at eye_height over a floor,
 * looking along the longest open way (yaw in conventions §2 degrees). False when no cell is empty. */
bool fill_camera(const fill_grid *g, double eye_height, v3 *pos, double *yaw);
/* Whether the box (world metres) reaches empty space inside: false when every cell it meets is
 * the void's or solid. NULL grid: true. */
bool fill_box_inside(const fill_grid *g, v3 lo, v3 hi);
/* Whether p lies in a solid cell. */
bool fill_point_solid(const fill_grid *g, v3 p);
void fill_translate(fill_grid *g, v3 d);

#endif
