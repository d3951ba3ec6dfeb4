/* rmf_build.h - writes RMF maps for tests (versions 2.2, 1.8 and 0.9), written independently of
 * the reader so that a round trip checks both. Inputs reuse the reader's structs (rmf.h).
 *
 *   rmf_build *b = rmf_build_new(NULL);                      // 2.2, worldspawn
 *   rmf_build_box(b, (float[3]){ 0, 0, 0 }, (float[3]){ 64, 64, 64 }, "CRATE");
 *   rmf_build_begin_group(b, NULL);
 *   rmf_build_point_entity(b, &(rmf_entity){ .classname = "light", .origin = { 32, 32, 96 } }, NULL);
 *   rmf_build_end(b);
 *   rmf_build_write_file(b, "x.rmf");                         // or rmf_build_finish: bytes
 *
 * Objects are streamed in file order: rmf_build_begin_group / rmf_build_begin_brush_entity open
 * an object that takes the following objects as children until rmf_build_end. Misuse (an end
 * without a begin, a string over 255 bytes, a path in 0.9) aborts with a message: it is a bug in
 * the test. */
#ifndef TESTS_RMF_BUILD_H
#define TESTS_RMF_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rmf.h"

typedef struct rmf_build rmf_build;

typedef struct rmf_build_desc {
    float version;                 /* 2.2f (0 = default), 1.8f or 0.9f */
    rmf_entity world;              /* classname NULL = "worldspawn"; kv, spawnflags */
    bool docinfo;                  /* write DOCINFO even without cameras (cameras imply it) */
} rmf_build_desc;

/* How an object is stored besides its content; NULL or zero = no visgroup, colour (0, 0, 0). */
typedef struct rmf_build_object {
    const int32_t *visgroups;      /* 2.2 / 1.8: at most one id; 0.9: ids 1..255 */
    uint32_t visgroup_count;
    uint8_t color[3];              /* RGB (written BGR, as every version stores it) */
} rmf_build_object;

rmf_build *rmf_build_new(const rmf_build_desc *desc);

/* Visgroup records (name up to 128 bytes; 0.9 ids 0..255). */
void rmf_build_visgroup(rmf_build *b, const rmf_visgroup *visgroup);

/* A solid of the given faces (texture, axes when the version stores them, shift, rotation,
 * scale, vertices, plane points; offset and has_axes are ignored). */
void rmf_build_solid(rmf_build *b, const rmf_face *faces, uint32_t face_count, const rmf_build_object *object);

/* The six faces of an axis-aligned box exactly as Hammer saves one: faces +Z, -Z, -X, +X, +Y, -Y,
 * four vertices each clockwise from outside, plane points = the first three vertices, Hammer's
 * default world-aligned axes (U, V) = ((1,0,0), (0,-1,0)) on Z faces, ((0,1,0), (0,0,-1)) on X
 * faces, ((1,0,0), (0,0,-1)) on Y faces, scale 1, shift 0, rotation 0. vertices holds the 24
 * corners the faces point into. */
void rmf_build_box_faces(const float lo[3], const float hi[3], const char *texture, rmf_face faces[6],
                         float vertices[24][3]);
/* rmf_build_box_faces as a solid with no visgroup and colour (0, 0, 0). */
void rmf_build_box(rmf_build *b, const float lo[3], const float hi[3], const char *texture);

/* Entities: classname, spawnflags, kv and origin are written. A point entity is stored with the
 * point flag; a brush entity with the flag as entity->point says (false for every real one). */
void rmf_build_point_entity(rmf_build *b, const rmf_entity *entity, const rmf_build_object *object);
void rmf_build_begin_brush_entity(rmf_build *b, const rmf_entity *entity, const rmf_build_object *object);
void rmf_build_begin_group(rmf_build *b, const rmf_build_object *object);
void rmf_build_end(rmf_build *b);

/* Paths (1.8 and 2.2): name, classname, type, nodes with position, index, name and kv. */
void rmf_build_path(rmf_build *b, const rmf_path *path);

/* DOCINFO cameras; the last one added with active set is the active camera (else -1). */
void rmf_build_camera(rmf_build *b, const rmf_camera *camera, bool active);
/* Stores any active camera index, even one that names no camera (as a damaged file may). */
void rmf_build_active_camera(rmf_build *b, int32_t index);

/* A small map with every kind of record, for damage tests and fuzz seeds: 5 visgroups, a group
 * (visgroup 2) holding a box and a nested group holding a box, a light with two keys, a func_wall
 * with a box, a path of two nodes (not in 0.9), two cameras. */
bool rmf_build_sample(float version, uint8_t **data, size_t *size);

/* Writes a map read by rmf_read again, in its own version (2.2, 1.8 or 0.9; false for others):
 * everything but the world's colour and visgroups, which the writer fixes, and byte offsets. */
bool rmf_build_map(const rmf_map *map, uint8_t **data, size_t *size);

/* The file's bytes (malloc'd, the caller frees them); frees b. False only when out of memory. */
bool rmf_build_finish(rmf_build *b, uint8_t **data, size_t *size);
/* rmf_build_finish written to path; frees b. */
bool rmf_build_write_file(rmf_build *b, const char *path);

#endif
