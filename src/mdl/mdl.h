/* mdl.h - Quake's alias models (.mdl, "IDPO" version 6): skins through the game's palette, one
 * frame's triangles with positions and texture coordinates.
 *
 *   pmf_error err;
 *   mdl_file *m = mdl_open_memory(bytes, size, "progs/ogre.mdl", &err);  // every part checked
 *   mdl_mesh mesh;
 *   if (m && mdl_build_mesh(m, mdl_find_animation(m, "stand"), 0, palette, &mesh, &err)) ...
 *   mdl_mesh_free(&mesh); mdl_close(m);
 *
 * Layout (little-endian): the 84-byte header: "IDPO", i32 version (6), f32 scale[3],
 * f32 origin[3], f32 bounding radius, f32 eye position[3], i32 skin count, skin width, skin
 * height, vertex count, triangle count, frame count, sync type, flags, f32 size. Then the skins:
 * each i32 type: 0 = one picture (width * height palette indices), else a group: i32 pictures,
 * f32 intervals[pictures], the pictures. The texture coordinates: per vertex i32 on-seam, s, t
 * (texels). The triangles: i32 faces-front, i32 vertex[3]. The frames: each i32 type: 0 = one
 * pose, else a group: i32 poses, 4-byte bounding min and max, f32 intervals[poses], the poses. A
 * pose: 4-byte bounding min, max, name[16], then per vertex u8 x, y, z, normal index; the
 * position is scale * xyz + origin. Bytes after the last frame are ignored (the engine does).
 *
 * What is checked, by mdl_open_memory before anything is built: the magic and version; counts
 * in range (skin sides 1..MDL_MAX_SKIN_SIDE, at least one skin and frame, vertex and triangle
 * counts up to MDL_MAX_VERTICES / MDL_MAX_TRIANGLES, groups of at least one picture) and every
 * part inside the file before it is walked; every triangle's vertices among the model's; a
 * frame's name holding its NUL within 16 bytes. So what it keeps is an index of offsets (no
 * more than the file's size), and what mdl_build_mesh allocates at most MDL_MAX_BYTES.
 *
 * Errors fill the shared pmf_error ("FILE: WHERE, byte OFFSET: WHAT"): its block is "header",
 * "skin 2", "texture coordinates", "triangle 17", "frame 3". None prints or exits. An mdl_file is
 * immutable once open: any number of threads may build meshes from it. */
#ifndef PMF_MDL_H
#define PMF_MDL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmf/pmf.h"

#define MDL_MAX_SKIN_SIDE 4096u
#define MDL_MAX_VERTICES 65536u
#define MDL_MAX_TRIANGLES 131072u
#define MDL_MAX_BYTES ((size_t)96 << 20)  /* a skin of 4096 x 4096 and a mesh of the most triangles */
#define MDL_NAME_SIZE 16
#define MDL_FLAG_ROTATE 8                 /* the engine spins the model (items) */
#define MDL_FLAG_HOLEY (1 << 14)          /* QuakeSpasm, FTE: skin index 255 is a hole */

typedef struct mdl_file mdl_file;

typedef struct mdl_info {
    float scale[3], origin[3], radius, eye[3];
    uint32_t skin_count, skin_width, skin_height;
    uint32_t vertex_count, triangle_count, frame_count;
    int32_t sync_type, flags;
} mdl_info;

/* One frame's triangles, unindexed (a vertex on the skin's seam takes two texture places). */
typedef struct mdl_mesh {
    uint32_t triangle_count;
    float *positions;                 /* triangle_count * 3 corners * xyz, model units, corners as the file lists them */
    float *uvs;                       /* triangle_count * 3 * (u, v): texel centres over the skin, 0..1 inside it */
    float mins[3], maxs[3];           /* of the frame's vertices (those no triangle uses too) */
    uint32_t skin_width, skin_height;
    uint8_t *rgba;                    /* skin_width * skin_height * 4, row 0 first; alpha 0 only at a holey model's index 255 */
} mdl_mesh;

/* Over memory it BORROWS (name: the file for errors), kept alive and unchanged until mdl_close. */
mdl_file *mdl_open_memory(const uint8_t *data, size_t size, const char *name, pmf_error *err);
void mdl_close(mdl_file *m);

const mdl_info *mdl_get_info(const mdl_file *m);
/* A frame's name (a group's: its first pose's), NUL-terminated raw bytes valid until mdl_close;
 * NULL when frame >= frame_count. */
const char *mdl_frame_name(const mdl_file *m, uint32_t frame);
/* Poses in a frame (1, or a group's count); pictures in a skin likewise. 0 past the end. */
uint32_t mdl_frame_poses(const mdl_file *m, uint32_t frame);
uint32_t mdl_skin_pictures(const mdl_file *m, uint32_t skin);
/* The first frame named `name` or `name` and digits ("stand" finds "stand1"), any case; 0 when
 * none is (the engines' first frame). */
uint32_t mdl_find_animation(const mdl_file *m, const char *name);

/* Frame `frame`'s first pose with skin `skin`'s first picture, its indices through palette (768
 * bytes: 256 RGB). A frame or skin past the model's is 0, as the engines draw it. False only when
 * out of memory (err says so); out is only written on true. */
bool mdl_build_mesh(const mdl_file *m, uint32_t frame, uint32_t skin, const uint8_t *palette, mdl_mesh *out, pmf_error *err);
void mdl_mesh_free(mdl_mesh *mesh);

#endif
