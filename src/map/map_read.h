/* map_read.h - reading Quake-family .map files: Quake's standard format, Valve 220 (TrenchBroom,
 * J.A.C.K., Hammer's export), Quake 2's (three more numbers per face), as TrenchBroom, J.A.C.K.
 * and NetRadiant write them. No GL, no pmfc internals.
 *
 *   qmap map;
 *   pmf_error err;
 *   if (!qmap_read_file(path, &map, &err)) { print pmf_error_format(&err, ...); exit 2; }
 *   ... map.entities[0] is the worldspawn ...
 *   qmap_free(&map);
 *
 * Grammar (// starts a comment to the end of the line):
 *   file   = entity*
 *   entity = '{' ( "key" "value" | brush )* '}'
 *   brush  = '{' face+ '}'  |  '{' brushDef... '}'  |  '{' patchDef... '}'
 *   face   = ( x y z ) ( x y z ) ( x y z ) TEXTURE params [ contents flags value ]
 *   params = shift_u shift_v rotation scale_u scale_v                               (standard)
 *          | [ ux uy uz shift_u ] [ vx vy vz shift_v ] rotation scale_u scale_v    (Valve 220)
 * TEXTURE is a bare word or a quoted name (spaces allowed). Quake 2's three numbers follow the
 * params on the same line. Quake 3's brushDef / patchDef blocks are skipped (counted in
 * qmap.skipped). Strings have no escapes: a quote ends them, and a line break inside one is an
 * error. Keys, values and words may be any length (Hammer's worldspawn `wad` lists every WAD
 * path): only the memory budget bounds them.
 *
 * Untrusted input: every number must be finite, every token is checked against what the grammar
 * allows, and memory grows with the file (an error names the line and column, the token found
 * shown escaped). Memory is taken from the budget of src/pmf/pmf_budget.h. */
#ifndef PMFC_MAP_READ_H
#define PMFC_MAP_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmf/pmf.h"

typedef struct qmap_kv { const char *key, *value; } qmap_kv;

typedef struct qmap_face {
    double points[3][3];             /* three points on the plane, clockwise seen from outside */
    const char *texture;
    bool valve;                      /* Valve 220: the axes are given */
    double u[4], v[4];               /* Valve 220: axis x y z and shift */
    double shift[2], rotation, scale[2];
    bool quake2;                     /* contents, flags and value were written */
    uint32_t contents, flags;
    int32_t value;
    int line, column;
} qmap_face;

typedef struct qmap_brush {
    uint32_t first_face, face_count;
    int line;
} qmap_brush;

typedef struct qmap_entity {
    uint32_t first_kv, kv_count;
    uint32_t first_brush, brush_count;
    int line;
} qmap_entity;

typedef struct qmap {
    qmap_entity *entities;
    uint32_t entity_count;
    qmap_kv *kvs;
    uint32_t kv_count;
    qmap_brush *brushes;
    uint32_t brush_count;
    qmap_face *faces;
    uint32_t face_count;
    uint32_t skipped;                /* brushDef / patchDef blocks left out */
    int skipped_line;                /* the first of them */
    bool valve, quake2;              /* some face was written that way */
    char game[32];                   /* TrenchBroom's "// Game: NAME" comment, "" without one */
    void *arena_;
} qmap;

bool qmap_read(const uint8_t *data, size_t size, const char *name, qmap *out, pmf_error *err);
/* Regular files only (a FIFO or device is refused at once), at most 1 GiB. */
bool qmap_read_file(const char *path, qmap *out, pmf_error *err);
void qmap_free(qmap *map);

/* An entity's value of key (case-insensitive), or NULL. */
const char *qmap_value(const qmap *map, const qmap_entity *e, const char *key);

#endif
