/* rmf.h - reading Worldcraft / Hammer / J.A.C.K. RMF maps, versions 0.8 to 2.2 (no GL, no pmfc).
 *
 *   rmf_map map;
 *   pmf_error err;
 *   char line[700];
 *   if (!rmf_read_file(path, &map, &err)) {
 *       fprintf(stderr, "%s\n", pmf_error_format(&err, line, sizeof line));
 *       return 2;
 *   }
 *   ... walk map.world ...
 *   rmf_free(&map);
 *
 * Layout: specs/rmf.txt, with the version differences of data/rmf/SOURCES.md:
 *   version     0.8   0.9   1.4   1.6   1.8   2.2
 *   texture     16    40    40    40    260   260   bytes of a face's texture name
 *   axes        -     -     -     -     -     yes   u/v axes stored (2.2 order: U, shift u, V,
 *                                                  shift v, rotation; before: rotation, shift u,
 *                                                  shift v), then scale u, scale v
 *   face pad    0     0     4     4     16    16    unused bytes after the scales
 *   visgroups   after the world's entity data (count, then 136-byte records with a u8 id) in
 *               0.8 / 0.9, each object listing visgroup-id bytes; from 1.4 a block after the
 *               header (140-byte records) and one int32 id per object
 *   entity pad  -     -     -     12    12    12    unused bytes closing the entity data
 *   paths       -     -     yes   yes   yes   yes   after the world's entity data
 *   colours     object colours are stored BGR in every version, visgroup colours RGB (every colour
 *               here is RGB). SOURCES.md and the brief said BGR before 2.2 only, but the shared
 *               maps disagree: an object in a visgroup stores its visgroup's colour with the bytes
 *               reversed in all six versions (22.rmf: func_button 00 69 0e, visgroup 1 0e 69 00;
 *               08.rmf: ff 00 00 / 00 00 ff), and the same object keeps the same bytes from 0.8
 *               to 2.2 (tests/rmf checks both on the shared maps).
 * DOCINFO (cameras) is optional and, when present, ends the file.
 *
 * Untrusted input: every count is checked against the bytes left before anything is allocated
 * (an object costs at least its fixed part, so a count above left / that is refused, counting the
 * bytes already promised to enclosing lists), so the memory held is a small multiple of the file
 * size: at most about 10x for the cheapest records (tests/rmf measures 5.2x for 100000
 * nested groups, 5.1x for empty key-values and vertex-less faces), and files over 1 GiB are
 * refused. Groups may nest to any depth: the tree is read without recursion. Errors never echo
 * raw bytes: strings from the file appear escaped (bytes < 0x20 and 0x7F..0xFF as \xNN).
 * NaN or infinite coordinates, axes, shifts, scales, rotations and camera positions are refused.
 *
 * Face orientation (checked on every solid of the shared maps by tests/rmf):
 *   - vertices are stored clockwise seen from outside the solid, so with v0, v1, v2 the first
 *     three stored vertices the outward normal is  normalize((v2 - v0) x (v1 - v0));
 *   - plane[0..2] are three points in the same clockwise order (Hammer writes the face's first
 *     three vertices, as rmf_build_box does), so the outward normal is also
 *     normalize((plane[2] - plane[0]) x (plane[1] - plane[0])),  and the plane is
 *     n . p = n . plane[0]. The solid lies on the side n . p <= n . plane[0].
 * Before 2.2 no texture axes are stored (has_axes false): derive them from the plane as Quake's
 * editors do (TextureAxisFromPlane, then rotate by `rotation` degrees).
 */
#ifndef PMFC_RMF_H
#define PMFC_RMF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmf/pmf.h"

typedef struct rmf_kv { char *key, *value; } rmf_kv;   /* NUL-terminated, as stored */

typedef struct rmf_entity {
    char *classname;           /* "" for none */
    int32_t spawnflags;
    rmf_kv *kv;
    uint32_t kv_count;
    bool point;                /* the entity tail says point entity (flag 2); world: false */
    float origin[3];           /* Hammer units, as stored (point entities) */
} rmf_entity;

typedef struct rmf_face {
    char texture[261];         /* NUL-terminated as stored (16/40/260 bytes by version) */
    bool has_axes;             /* 2.2 only: u_axis / v_axis valid */
    float u_axis[3], v_axis[3];/* right / down axes */
    float shift[2], rotation, scale[2];
    uint32_t vertex_count;
    float (*vertices)[3];      /* clockwise seen from outside (see above) */
    float plane[3][3];         /* three points on the plane, clockwise seen from outside */
    size_t offset;             /* byte offset of the face record */
} rmf_face;

typedef enum rmf_kind { RMF_WORLD, RMF_GROUP, RMF_SOLID, RMF_ENTITY } rmf_kind;

typedef struct rmf_object {
    rmf_kind kind;
    uint32_t index;            /* ordinal among objects of its kind in file order, from 0 */
    int32_t *visgroups;        /* visgroup ids; 0.8/0.9 store a list (zero bytes are dropped),
                                  later versions one id (0 = none -> count 0) */
    uint32_t visgroup_count;
    uint8_t color[3];          /* RGB (stored BGR) */
    struct rmf_object *children;   /* world, groups and entities (a solid with children is refused) */
    uint32_t child_count;
    rmf_face *faces;           /* solids */
    uint32_t face_count;
    rmf_entity entity;         /* world and entities */
    size_t offset;             /* byte offset of the object's type string */
} rmf_object;

typedef struct rmf_visgroup {
    char name[129];
    uint8_t color[3];          /* RGB */
    int32_t id;
    bool visible;
} rmf_visgroup;

typedef struct rmf_path_node {
    float position[3];
    int32_t index;
    char name[129];            /* name override, "" for the generated one */
    rmf_kv *kv;
    uint32_t kv_count;
} rmf_path_node;

typedef struct rmf_path {
    char name[129], classname[129];
    int32_t type;              /* 0 one way, 1 circular, 2 ping-pong */
    rmf_path_node *nodes;
    uint32_t node_count;
} rmf_path;

typedef struct rmf_camera { float eye[3], look[3]; } rmf_camera;

typedef struct rmf_map {
    float version;             /* as stored: 0.8f, 0.9f, 1.4f, 1.6f, 1.8f or 2.2f */
    rmf_visgroup *visgroups;
    uint32_t visgroup_count;
    rmf_object world;          /* kind RMF_WORLD, entity.classname usually "worldspawn" */
    rmf_path *paths;
    uint32_t path_count;
    bool has_docinfo;
    int32_t active_camera;
    rmf_camera *cameras;
    uint32_t camera_count;
    uint32_t solid_count, face_count, entity_count, group_count;   /* totals over the tree */
    struct rmf_arena *arena;   /* owns every allocation above; released by rmf_free */
} rmf_map;

/* Errors are the shared pmf_error (src/pmf/pmf.h), the bytes read through the shared cursor
 * (pmf_bytes.h). Its block says where: "header", "visgroup 3", "world", "solid 37 face 2",
 * "group 12", "entity 5 (light) key 3", "path 1 node 4", "docinfo camera 2", "group 4 child 2"
 * (an object of unknown type), "file"; its offset is the byte in the file; its message is lower
 * case, with no trailing period and the file's bytes escaped. pmf_error_format prints
 * "FILE: WHERE, byte OFFSET: WHAT" on one line, e.g.
 * "x.rmf: solid 37 face 2, byte 1234: vertex count 99999 needs 1199988 bytes, 40 are left". */

/* Reads a whole RMF held in memory (name: the file for errors). On failure returns false, fills
 * err and leaves out empty (rmf_free on it is harmless). data is not kept. */
bool rmf_read(const uint8_t *data, size_t size, const char *name, rmf_map *out, pmf_error *err);

/* Reads a file (regular files only: a FIFO or device is refused at once, never opened
 * blocking; pmf_read_whole_file). Open / read failures report block "file", byte 0. */
bool rmf_read_file(const char *path, rmf_map *out, pmf_error *err);

/* Releases everything rmf_read allocated and zeroes the map. */
void rmf_free(rmf_map *map);

#endif
