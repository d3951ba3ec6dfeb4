/* studio.h - GoldSrc's studio models (.mdl, "IDST" version 10): the bind pose of sequence 0
 * frame 0 or any sequence's frame, a body group per body part, a skin family, each texture
 * through its own palette.
 *
 *   pmf_error err;
 *   studio_file *m = studio_open_memory(bytes, size, "models/barney.mdl", &err);  // every part checked
 *   studio_file *t = NULL;
 *   if (m && studio_get_info(m)->external_textures) {   // its textures are in models/barneyT.mdl
 *       t = studio_open_memory(tbytes, tsize, "models/barneyT.mdl", &err);
 *       ok = t && studio_attach_textures(m, t, &err);
 *   }
 *   studio_mesh mesh;
 *   if (ok && studio_build_mesh(m, body, skin, &mesh, &err)) ...
 *   studio_mesh_free(&mesh); studio_close(m); studio_close(t);
 *
 * Layout (little-endian; every index a byte offset from the file's start): the 244-byte header:
 * "IDST", i32 version (10), name[64], i32 length, f32 eye[3], hull min[3], max[3], clip box
 * min[3], max[3], i32 flags, then count and index pairs: bones, bone controllers, hit boxes,
 * sequences, sequence groups, textures (count, index, data index), skin references, skin families,
 * skin index, body parts, attachments, sounds (4 i32), transitions.
 *   bone (112 bytes): name[32], i32 parent (-1: none), flags, controller[6], f32 value[6] (x y z,
 *     then angles about x y z in radians), f32 scale[6] (of the animation's values).
 *   sequence (176 bytes): label[32], ... i32 blends at 120, animation index at 124, i32 group at
 *     156. Its animation (group 0: in this file, at the group's data + the animation index; any
 *     other group: in NAMEnn.mdl) is per bone 6 u16 offsets from that bone's entry to its values:
 *     runs of u8 valid, u8 total (frames), then `valid` i16 values (the last repeats to `total`).
 *   sequence group (104 bytes): label[32], name[64], i32 unused, i32 data.
 *   texture (80 bytes): name[64], i32 flags, width, height, index: width * height palette
 *     indices, then the texture's own 256 RGB colours.
 *   skins: i16 [skin families][skin references], each a texture.
 *   body part (76 bytes): name[64], i32 models, base, model index.
 *   model (112 bytes): name[64], i32 type, f32 radius, i32 meshes, mesh index, vertices, vertex
 *     bone index (u8 bone per vertex), vertex index (f32 xyz per vertex), normals...
 *   mesh (20 bytes): i32 triangles, triangle-command index, skin reference, normals, normal index.
 *   triangle commands: i16 count (> 0 a strip, < 0 a fan of -count vertices, 0 the end), then
 *     per vertex i16 vertex, normal, s, t (texels).
 * A model whose texture count is 0 keeps its textures and skins in NAMEt.mdl (the engine spells it
 * "T.mdl"; studio_texture_file_name), a studio file of textures and skins only.
 *
 * What a mesh is (studio_build_mesh: the bind pose, sequence 0's frame 0; studio_build_sequence_mesh:
 * any sequence's frame): each bone's value (position, angles), plus the frame's animation value *
 * the bone's scale where the sequence animates that channel (blend 0; its runs walked as the
 * engine's StudioCalcBoneQuaterion does; group 0's in this file at the group's data + the
 * animation index, another group's in its attached NAMEnn.mdl at the animation index; the bind
 * pose of a sequence 0 in a group file: the values alone), plus the channel's bone controller's
 * adjustment as the game starts it (studio_read.c default_adjustment); angles to a rotation as Half-Life's AngleQuaternion (z, then y, then x: R = Rz Ry Rx),
 * concatenated with the parent's. Body part p shows its model (body / base) % models; each vertex
 * moved by its bone; each mesh's strips and fans as unindexed triangles in the corner order GL
 * draws them (a strip's odd triangles swap their first two corners); a mesh's texture is its skin
 * reference through the skin family `skin` (a family past the file's is family 0, as the engine
 * does). Hit boxes, attachments, a sequence's other blends, normals and chrome are not read.
 *
 * What is checked, by studio_open_memory before anything is built: the magic and version; counts
 * in range (STUDIO_MAX_*); every table inside the file before it is walked; every bone
 * controller's start and end finite within STUDIO_MAX_COORD and every bone's controllers -1 or
 * among them; every bone's parent
 * before it (or none) and its values finite and within STUDIO_MAX_COORD; sequence 0's group among
 * the file's and, in group 0, its animation: every run of frame 0 inside the file and of at least
 * one frame; every body part's base at least 1 and at least one model; every vertex's bone among
 * the bones and its position finite within STUDIO_MAX_COORD; every triangle command inside the
 * file, ended by a 0, its vertices among the model's; the meshes, vertices, triangles and command
 * vertices of all models together at most STUDIO_MAX_MESHES, _VERTICES, _TRIANGLES,
 * _COMMAND_VERTICES (tables may share bytes: the limits bound the work); every mesh's skin reference among the skin references (of the texture
 * file, at studio_attach_textures); every skin a texture of the file; texture sides
 * 1..STUDIO_MAX_TEXTURE_SIDE, their pixels and palette inside the file. What a mesh allocates is
 * at most STUDIO_MAX_BYTES (a build over that is refused). The header's length is not trusted.
 *
 * Errors fill the shared pmf_error ("FILE: WHERE, byte OFFSET: WHAT"): its block is "header",
 * "bone 3", "sequence 0", "sequence groups", "texture 4", "skins", "body part 1",
 * "body part 1 model 0", "body part 1 model 0 mesh 2", "mesh". None prints or exits. A studio_file
 * is immutable once open (and its texture file attached): any number of threads may build meshes
 * from it. */
#ifndef PMF_STUDIO_H
#define PMF_STUDIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmf/pmf.h"

#define STUDIO_MAX_BONES 128u              /* the engine's MAXSTUDIOBONES */
#define STUDIO_MAX_CONTROLLERS 8u          /* the engine's MAXSTUDIOCONTROLLERS */
#define STUDIO_MAX_SEQUENCES 65536u
#define STUDIO_MAX_SEQUENCE_GROUPS 4096u
#define STUDIO_MAX_TEXTURES 1024u
#define STUDIO_MAX_SKIN_FAMILIES 1024u
#define STUDIO_MAX_TEXTURE_SIDE 4096u
#define STUDIO_MAX_BODY_PARTS 64u
#define STUDIO_MAX_MODELS 256u             /* a body part's */
#define STUDIO_MAX_MESHES 65536u           /* all models' together, as the next three */
#define STUDIO_MAX_VERTICES (1u << 20)
#define STUDIO_MAX_TRIANGLES (1u << 20)
#define STUDIO_MAX_COMMAND_VERTICES (3u << 20)  /* the vertices of all triangle commands */
#define STUDIO_MAX_COORD 1e6f              /* bone values and vertex positions, either sign */
#define STUDIO_MAX_BYTES ((size_t)256 << 20)
#define STUDIO_NF_MASKED 0x40              /* a texture's palette index 255 is a hole */

typedef struct studio_file studio_file;

typedef struct studio_info {
    float eye[3], hull_min[3], hull_max[3], clip_min[3], clip_max[3];
    int32_t flags;
    uint32_t bone_count, sequence_count, sequence_group_count;
    uint32_t texture_count, skin_ref_count, skin_family_count;  /* this file's own */
    uint32_t body_part_count;
    bool external_textures;           /* texture_count 0: the textures and skins are in NAMEt.mdl */
} studio_info;

/* A texture a mesh uses, through its palette. */
typedef struct studio_texture {
    uint32_t index;                   /* in the texture file */
    uint32_t width, height;
    int32_t flags;                    /* the file's (STUDIO_NF_MASKED, additive 0x20, chrome 0x02 ...) */
    uint8_t *rgba;                    /* width * height * 4, row 0 first; alpha 0 only at a masked texture's index 255 */
} studio_texture;

/* The bind pose's triangles, unindexed, each with one of the mesh's textures. */
typedef struct studio_mesh {
    uint32_t triangle_count;
    float *positions;                 /* triangle_count * 3 corners * xyz, model units (x forward, y left, z up) */
    float *uvs;                       /* triangle_count * 3 * (u, v): s / width, t / height, as the engine */
    uint32_t *triangle_textures;      /* triangle_count indices into textures */
    float mins[3], maxs[3];           /* of the shown models' vertices (those no triangle uses too); 0 when none */
    uint32_t texture_count;           /* the textures the triangles use, in the order first used */
    studio_texture *textures;
} studio_mesh;

/* A sequence: its frames a second, frames (at least 1), group (0: in the model's own file),
 * whether it loops (STUDIO_LOOPING), and the game's activity it plays (ACT_IDLE 1 ...) with its
 * weight among the sequences of that activity. */
typedef struct studio_sequence {
    float fps;
    uint32_t frame_count, group;
    bool loops;
    int32_t activity, activity_weight;
} studio_sequence;

#define STUDIO_ACT_IDLE 1                  /* the game's ACT_IDLE: the activity a monster starts in */
#define STUDIO_BIND_POSE UINT32_MAX        /* studio_pose.sequence of the bind pose (studio_build_mesh) */

/* How the game left an entity's bone controllers. */
typedef enum studio_controllers {
    STUDIO_CONTROLLERS_SET,          /* InitBoneControllers ran (monsters, cyclers): 0..3 set to the value 0, the mouth closed */
    STUDIO_CONTROLLERS_UNSET,        /* never set (items, weapons): every byte 0, each controller at its start */
} studio_controllers;

/* A pose: the bind pose or a sequence's frame (between two: the bones' positions lerped and their
 * rotations slerped as quaternions, as the engine's StudioCalcRotations blends them), with the
 * bone controllers as the game left them. */
typedef struct studio_pose {
    uint32_t sequence;               /* or STUDIO_BIND_POSE */
    double frame;                    /* 0 .. its frames - 1 (past: the last) */
    studio_controllers controllers;
} studio_pose;

/* Over memory it BORROWS (name: the file for errors), kept alive and unchanged until studio_close. */
studio_file *studio_open_memory(const uint8_t *data, size_t size, const char *name, pmf_error *err);
void studio_close(studio_file *m);

const studio_info *studio_get_info(const studio_file *m);
/* Models in body part `part` (0 past the end). */
uint32_t studio_body_part_models(const studio_file *m, uint32_t part);
/* The engine's name of a model's texture file: "models/barney.mdl" -> "models/barneyT.mdl" (its
 * last 4 bytes replaced by "T.mdl"). False when out is too small or path shorter than 4 bytes. */
bool studio_texture_file_name(const char *path, char *out, size_t size);

/* Takes m's textures and skins from t (an open texture file, kept open and unchanged until m is
 * closed). False (err says why, m unchanged) when m has textures of its own, t has none, or one of
 * m's meshes uses a skin reference t lacks. */
bool studio_attach_textures(studio_file *m, const studio_file *t, pmf_error *err);

/* Sequence `sequence`'s figures; false (err says why) for no such sequence, or one whose fps is
 * not a number within 0..STUDIO_MAX_COORD, whose frames are not 1..2^24 or whose group is not the
 * model's. */
bool studio_get_sequence(const studio_file *m, uint32_t sequence, studio_sequence *out, pmf_error *err);
/* The sequence playing `activity` of the greatest weight (the first of equal ones), -1 when none
 * does: the game's LookupActivity picks among them at random by weight, the viewer the one it
 * picks most often. */
int64_t studio_find_activity(const studio_file *m, int32_t activity);
/* The engine's name of sequence group `group`'s file: "models/barney.mdl", 1 -> "models/barney01.mdl"
 * (the path's last 4 bytes replaced by the group / 10, group % 10 and ".mdl"). False when out is too
 * small, path is shorter than 4 bytes or group is past STUDIO_MAX_SEQUENCE_GROUPS. */
bool studio_group_file_name(const char *path, uint32_t group, char *out, size_t size);
/* Attaches group `group`'s file (its bytes BORROWED, kept alive and unchanged until m is closed;
 * name for errors): its sequences' animation offsets count from its first byte. False (err says
 * why) for group 0 or one past the model's, or bytes not beginning "IDSQ". Its runs are checked
 * when a mesh is built from them. */
bool studio_attach_group(studio_file *m, uint32_t group, const uint8_t *data, size_t size, const char *name, pmf_error *err);

/* The bind pose with body groups `body` and skin family `skin`. False when the model's textures
 * are in a texture file not attached, when the mesh would take more than STUDIO_MAX_BYTES, or
 * out of memory (err says which); out is only written on true. */
bool studio_build_mesh(const studio_file *m, uint32_t body, uint32_t skin, studio_mesh *out, pmf_error *err);
/* The pose of sequence `sequence`'s frame `frame` (a frame past its last: its last; blend 0; the
 * bone controllers as the game starts them, studio_read.c default_adjustment), as studio_build_mesh
 * otherwise. False (err says why) also when the sequence is damaged (studio_get_sequence), its
 * group's file is not attached, or a run of its animation lies outside the file holding it or
 * holds no frame. */
bool studio_build_sequence_mesh(const studio_file *m, uint32_t sequence, uint32_t frame, uint32_t body, uint32_t skin, studio_mesh *out,
                                pmf_error *err);
/* The mesh at `pose` as studio_build_sequence_mesh (which is the pose { sequence, frame,
 * STUDIO_CONTROLLERS_SET }; studio_build_mesh the bind pose's) builds it; positions_only: its
 * triangle count, positions and bounds alone (uvs, triangle_textures and textures NULL, none
 * decoded), the triangles in the same order, for a pose built again each frame. */
bool studio_build_pose_mesh(const studio_file *m, const studio_pose *pose, uint32_t body, uint32_t skin, bool positions_only, studio_mesh *out,
                            pmf_error *err);
void studio_mesh_free(studio_mesh *mesh);

#endif
