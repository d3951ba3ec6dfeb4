/* studio_read.c - GoldSrc studio models: the header, the bind pose, an index of body parts, models
 * and textures, meshes (see studio.h). */
#include "studio.h"
#include "base/pmf_budget.h"
#include "pmf/pmf_bytes.h"

#include <math.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#define HEADER_SIZE 244u
#define VERSION 10
#define COUNTS_AT 140u             /* the header's first count (bones) */
#define BONE_SIZE 112u
#define SEQUENCE_SIZE 176u
#define GROUP_SIZE 104u
#define TEXTURE_SIZE 80u
#define BODY_PART_SIZE 76u
#define MODEL_SIZE 112u
#define MESH_SIZE 20u
#define ANIMATION_SIZE 12u         /* a bone's 6 u16 offsets */
#define CONTROLLER_SIZE 24u
#define SEQUENCE_LOOPS 0x1         /* STUDIO_LOOPING */
#define MAX_SEQUENCE_FRAMES (1 << 24)
#define PALETTE_SIZE 768u
#define COMMAND_VERTEX 8u          /* vertex, normal, s, t */

/* The header's count and index fields, in their order from COUNTS_AT. */
enum {
    H_BONES, H_BONE_INDEX, H_CONTROLLERS, H_CONTROLLER_INDEX, H_HIT_BOXES, H_HIT_BOX_INDEX,
    H_SEQUENCES, H_SEQUENCE_INDEX, H_GROUPS, H_GROUP_INDEX, H_TEXTURES, H_TEXTURE_INDEX,
    H_TEXTURE_DATA, H_SKIN_REFS, H_SKIN_FAMILIES, H_SKIN_INDEX, H_BODY_PARTS, H_BODY_PART_INDEX,
    H_FIELDS
};

/* A bone controller's type (STUDIO_X ... STUDIO_RLOOP). */
enum {
    CONTROLLER_X = 0x1, CONTROLLER_Y = 0x2, CONTROLLER_Z = 0x4, CONTROLLER_XR = 0x8, CONTROLLER_YR = 0x10, CONTROLLER_ZR = 0x20,
    CONTROLLER_TYPES = 0x7FFF, CONTROLLER_LOOP = 0x8000
};

typedef struct bone_def {
    int32_t parent;                    /* a bone before it, or -1 */
    int32_t controller[6];             /* per channel: a bone controller, or -1 */
    float value[6], scale[6];
} bone_def;

/* A sequence group's file (NAMEnn.mdl), attached. */
typedef struct group_file {
    const uint8_t *data;
    size_t size;
    char *name;
} group_file;

typedef struct model_index {
    size_t meshes_at, vertex_bones_at, vertices_at;
    uint32_t mesh_count, vertex_count, triangle_count;
} model_index;

typedef struct body_part {
    uint32_t model_count, base, first;  /* first: its first model in studio_file.models */
} body_part;

/* The walk's totals over every model, against the STUDIO_MAX_ limits. */
typedef struct totals {
    uint64_t meshes, vertices, triangles, command_vertices;
} totals;

struct studio_file {
    const uint8_t *data;
    size_t size;
    studio_info info;
    int32_t head[H_FIELDS];
    bone_def *bones;
    uint32_t controller_count;
    float adjust[2][STUDIO_MAX_CONTROLLERS];  /* [studio_controllers]: each controller's adjustment */
    float (*pose[2])[3][4];            /* [studio_controllers]: each bone's bind-pose transform in model space */
    group_file *groups;                /* [sequence groups]: the attached files (group 0: none, the model's own) */
    body_part *parts;
    model_index *models;
    uint32_t skin_refs_used;           /* 1 + the largest skin reference of a mesh, 0 without meshes */
    const studio_file *texture_file;   /* itself, the attached texture file, or NULL */
    char name[];                       /* the file, for errors */
};

static int32_t read_i32(const uint8_t *p)
{
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

static int16_t read_i16(const uint8_t *p) { return (int16_t)(uint16_t)(p[0] | p[1] << 8); }

static float read_f32(const uint8_t *p)
{
    uint32_t u = (uint32_t)read_i32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Moves c to a table of count entries of `each` bytes at byte `index` (read from the field at
 * field_at), or fails there; an empty table leaves c where it is. */
static bool seek_table(pmf_cursor *c, size_t field_at, int64_t index, uint64_t count, uint64_t each, const char *what)
{
    if (c->failed)
        return false;
    if (count == 0)
        return true;  /* an empty table's index is not read (files leave it 0 or stale) */
    if (index < 0 || (uint64_t)index > c->size)
        return pmf_cursor_fail_at(c, field_at, "%s at byte %lld, outside the %zu-byte file", what, (long long)index, c->size);
    if (each && count > (c->size - (size_t)index) / each)
        return pmf_cursor_fail_at(c, field_at, "%llu %s of %llu bytes at byte %lld run past the end of the %zu-byte file",
                                  (unsigned long long)count, what, (unsigned long long)each, (long long)index, c->size);
    c->pos = (size_t)index;
    return true;
}

/* A count read at byte `at` inside 0..most. */
static bool check_count(pmf_cursor *c, size_t at, int32_t v, uint32_t most, const char *what)
{
    if (v < 0 || (uint32_t)v > most)
        return pmf_cursor_fail_at(c, at, "%s %d (0 to %u)", what, v, most);
    return true;
}

static bool read_header(studio_file *m, pmf_cursor *c)
{
    const uint8_t *magic = pmf_take(c, 4, "magic");
    if (!magic)
        return false;
    if (memcmp(magic, "IDST", 4) != 0)
        return pmf_cursor_fail_at(c, 0, "bad magic (expected 'IDST': a GoldSrc studio model)");
    int32_t version = (int32_t)pmf_read_u32(c, "version");
    if (version != VERSION && !c->failed)
        return pmf_cursor_fail_at(c, 4, "version %d (a GoldSrc studio model is version %d)", version, VERSION);
    studio_info *i = &m->info;
    pmf_take(c, 64 + 4, "name and length");
    float *vectors[] = { i->eye, i->hull_min, i->hull_max, i->clip_min, i->clip_max };
    for (int v = 0; v < 5; v++)
        pmf_read_f32s(c, vectors[v], 3, "header vectors");
    i->flags = (int32_t)pmf_read_u32(c, "flags");
    for (int k = 0; k < H_FIELDS; k++)
        m->head[k] = (int32_t)pmf_read_u32(c, "counts and indices");
    if (c->failed)
        return false;
    static const int field[] = { H_BONES, H_SEQUENCES, H_GROUPS, H_TEXTURES, H_SKIN_REFS, H_SKIN_FAMILIES, H_BODY_PARTS };
    static const uint32_t most[] = { STUDIO_MAX_BONES, STUDIO_MAX_SEQUENCES, STUDIO_MAX_SEQUENCE_GROUPS, STUDIO_MAX_TEXTURES,
                                     STUDIO_MAX_TEXTURES, STUDIO_MAX_SKIN_FAMILIES, STUDIO_MAX_BODY_PARTS };
    static const char *const what[] = { "bone count", "sequence count", "sequence group count", "texture count",
                                        "skin reference count", "skin family count", "body part count" };
    uint32_t *counts[] = { &i->bone_count, &i->sequence_count, &i->sequence_group_count, &i->texture_count,
                           &i->skin_ref_count, &i->skin_family_count, &i->body_part_count };
    for (int k = 0; k < 7; k++) {
        if (!check_count(c, COUNTS_AT + 4 * (size_t)field[k], m->head[field[k]], most[k], what[k]))
            return false;
        *counts[k] = (uint32_t)m->head[field[k]];
    }
    i->external_textures = i->texture_count == 0;
    return true;
}

/* n floats at c, each finite and within STUDIO_MAX_COORD. */
static bool read_coords(pmf_cursor *c, float *out, size_t n, const char *what)
{
    for (size_t k = 0; k < n; k++) {
        size_t at = c->pos;
        out[k] = pmf_read_f32(c, what);
        if (c->failed)
            return false;
        if (!(fabsf(out[k]) <= STUDIO_MAX_COORD))
            return pmf_cursor_fail_at(c, at, "%s %g (finite, within %g)", what, out[k], STUDIO_MAX_COORD);
    }
    return true;
}

/* A channel's value at `frame` (GoldSrc's StudioCalcBoneQuaterion / StudioCalcBonePosition walk):
 * runs of u8 valid, u8 frames, then `valid` i16 values, the last repeating to the run's end (its
 * header itself when it holds none: the engine reads value[valid]); a run of more values than
 * frames starts the count again, as the engine does. Every run inside c's bytes, of at least one frame. */
static bool channel_value(pmf_cursor *c, size_t field_at, size_t at, uint32_t frame, int32_t *value)
{
    uint32_t k = frame;
    const uint8_t *run;
    for (;;) {
        if (!seek_table(c, field_at, (int64_t)at, 1, 2, "animation run") || !(run = pmf_take(c, 2, "animation run")))
            return false;
        if (run[1] == 0)
            return pmf_cursor_fail_at(c, at, "an animation run of 0 frames");
        if (run[1] < run[0])
            k = 0;
        if (k < run[1])
            break;
        k -= run[1];
        field_at = at;
        at += 2 * ((size_t)run[0] + 1);
    }
    uint32_t entry = run[0] > k ? k + 1 : run[0];
    if (entry && !pmf_take(c, 2 * (size_t)entry, "animation value"))
        return false;
    *value = read_i16(c->data + at + 2 * (size_t)entry);
    return true;
}

/* Each bone's values at the sequence's `frame`: its own, plus (where the channel animates) the
 * animation value times its scale, plus its controller's adjustment (adjust: per controller). c's
 * bytes hold the animation (the model or its group's file), its entries at `animations`; false (c
 * says why) when one lies outside them. */
static bool frame_values(const studio_file *m, pmf_cursor *c, size_t field_at, int64_t animations, uint32_t frame, const float *adjust,
                         float (*value)[6])
{
    const studio_info *i = &m->info;
    if (!seek_table(c, field_at, animations, i->bone_count, ANIMATION_SIZE, "bone animations"))
        return false;
    for (uint32_t b = 0; b < i->bone_count; b++)
        for (int j = 0; j < 6; j++) {
            const bone_def *bone = &m->bones[b];
            size_t entry = (size_t)animations + (size_t)b * ANIMATION_SIZE + 2 * (size_t)j;
            uint16_t offset = (uint16_t)read_i16(c->data + entry);
            int32_t v = 0;
            if (offset && !channel_value(c, entry, entry - 2 * (size_t)j + offset, frame, &v))
                return false;
            value[b][j] = bone->value[j] + (float)v * bone->scale[j] + (bone->controller[j] >= 0 ? adjust[bone->controller[j]] : 0.0f);
        }
    return true;
}

/* Half-Life's AngleQuaternion: the rotation Rz(a[2]) Ry(a[1]) Rx(a[0]) as (x, y, z, w). */
static void angle_quaternion(const float *angles, double q[4])
{
    double sr = sin(angles[0] * 0.5), cr = cos(angles[0] * 0.5), sp = sin(angles[1] * 0.5), cp = cos(angles[1] * 0.5);
    double sy = sin(angles[2] * 0.5), cy = cos(angles[2] * 0.5);
    q[0] = sr * cp * cy - cr * sp * sy;
    q[1] = cr * sp * cy + sr * cp * sy;
    q[2] = cr * cp * sy - sr * sp * cy;
    q[3] = cr * cp * cy + sr * sp * sy;
}

/* The rotation s of the way from p to q the shorter way round (q's sign turned when they lie in
 * opposite halves, as the engine's QuaternionSlerp does), linear where they nearly agree. */
static void quaternion_slerp(const double p[4], const double q[4], double s, double out[4])
{
    double cosine = p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3], sign = cosine < 0 ? -1 : 1;
    double a = 1 - s, b = s;
    cosine *= sign;
    if (1 - cosine > 1e-6) {
        double angle = acos(cosine), sine = sin(angle);
        a = sin((1 - s) * angle) / sine;
        b = sin(s * angle) / sine;
    }
    for (int k = 0; k < 4; k++)
        out[k] = a * p[k] + b * sign * q[k];
}

/* Half-Life's QuaternionMatrix with the bone's position in its last column. */
static void quaternion_matrix(const double q[4], const float *position, float m[3][4])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    const double r[3][3] = { { 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y) },
                             { 2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x) },
                             { 2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y) } };
    for (int row = 0; row < 3; row++) {
        for (int col = 0; col < 3; col++)
            m[row][col] = (float)r[row][col];
        m[row][3] = position[row];
    }
}

static void bone_matrix(const float *value, float m[3][4])
{
    double q[4];
    angle_quaternion(value + 3, q);
    quaternion_matrix(q, value, m);
}

/* out = parent * local (R_ConcatTransforms). */
static void concat(const float parent[3][4], const float local[3][4], float out[3][4])
{
    for (int row = 0; row < 3; row++)
        for (int col = 0; col < 4; col++)
            out[row][col] = parent[row][0] * local[0][col] + parent[row][1] * local[1][col] + parent[row][2] * local[2][col]
                          + (col == 3 ? parent[row][3] : 0.0f);
}

/* Each bone's place in model space from its values (R_ConcatTransforms down from the root); with
 * next (the values of the frame after, s of the way there: StudioCalcRotations) its position
 * lerped and its rotation slerped between the two. */
static void bone_pose(const studio_file *m, const float (*value)[6], const float (*next)[6], double s, float (*pose)[3][4])
{
    for (uint32_t b = 0; b < m->info.bone_count; b++) {
        float local[3][4], position[3];
        double q[4], from[4], to[4];
        if (next && s > 0) {
            for (int k = 0; k < 3; k++)
                position[k] = (float)(value[b][k] * (1 - s) + next[b][k] * s);
            angle_quaternion(value[b] + 3, from);
            angle_quaternion(next[b] + 3, to);
            quaternion_slerp(from, to, s, q);
            quaternion_matrix(q, position, local);
        } else {
            bone_matrix(value[b], local);
        }
        if (m->bones[b].parent < 0)
            memcpy(pose[b], local, sizeof local);
        else
            concat((const float (*)[4])pose[m->bones[b].parent], (const float (*)[4])local, pose[b]);
    }
}

/* A controller's adjustment as the game starts it. Where InitBoneControllers ran (set: monsters,
 * cyclers) controllers 0..3 hold the value 0 (SetController: a turn's 0 brought within 180 degrees
 * of its range's middle, then the setting 255 * (0 - start) / (end - start) truncated and clamped
 * to a byte); elsewhere (items, weapons) every byte is 0. The engine turns the byte back into a
 * value (StudioCalcBoneAdj: a looping one 360/256 degrees a step from start, else start to end),
 * so a byte of 0 is the start, as is the mouth's (4, or any other: mouth closed). Angles in
 * radians, positions in units; a type of none of the six adjusts nothing. */
static float default_adjustment(int32_t type, float start, float end, int32_t index, bool set)
{
    double value = start;
    bool turn = (type & (CONTROLLER_XR | CONTROLLER_YR | CONTROLLER_ZR)) != 0;
    if (set && index >= 0 && index <= 3 && end != start) {
        double wanted = 0, middle = ((double)start + end) / 2;
        if (turn && start + 359.0 >= end)
            wanted = wanted > middle + 180 ? wanted - 360 : wanted < middle - 180 ? wanted + 360 : wanted;
        double setting = 255 * (wanted - start) / ((double)end - start);
        setting = setting < 0 ? 0 : setting > 255 ? 255 : (double)(int)setting;
        value = type & CONTROLLER_LOOP ? setting * (360.0 / 256.0) + start : setting / 255 * ((double)end - start) + start;
    }
    switch (type & CONTROLLER_TYPES) {
    case CONTROLLER_XR: case CONTROLLER_YR: case CONTROLLER_ZR: return (float)(value * (M_PI / 180));
    case CONTROLLER_X: case CONTROLLER_Y: case CONTROLLER_Z: return (float)value;
    default: return 0;
    }
}

static bool read_controllers(studio_file *m, pmf_cursor *c)
{
    c->block = "bone controllers";
    if (!check_count(c, COUNTS_AT + 4 * H_CONTROLLERS, m->head[H_CONTROLLERS], STUDIO_MAX_CONTROLLERS, "bone controller count"))
        return false;
    m->controller_count = (uint32_t)m->head[H_CONTROLLERS];
    if (!seek_table(c, COUNTS_AT + 4 * H_CONTROLLER_INDEX, m->head[H_CONTROLLER_INDEX], m->controller_count, CONTROLLER_SIZE,
                    "bone controllers"))
        return false;
    for (uint32_t k = 0; k < m->controller_count; k++) {
        const uint8_t *p = m->data + c->pos;
        float range[2];
        pmf_take(c, 8, "bone and type");
        if (!read_coords(c, range, 2, "start and end") || !pmf_take(c, 8, "rest and index"))
            return false;
        for (int set = 0; set < 2; set++)
            m->adjust[set ? STUDIO_CONTROLLERS_SET : STUDIO_CONTROLLERS_UNSET][k]
                = default_adjustment(read_i32(p + 4), range[0], range[1], read_i32(p + 20), set);
    }
    return true;
}

/* One bind pose: sequence 0's frame 0 where it lies in this file (group 0), else the bones' own
 * values, each with its controller's adjustment (adjust: per controller). */
static bool bind_pose_of(studio_file *m, pmf_cursor *c, const float *adjust, float (*pose)[3][4])
{
    const studio_info *i = &m->info;
    float value[STUDIO_MAX_BONES][6];
    for (uint32_t b = 0; b < i->bone_count; b++)
        for (int j = 0; j < 6; j++)
            value[b][j] = m->bones[b].value[j] + (m->bones[b].controller[j] >= 0 ? adjust[m->bones[b].controller[j]] : 0.0f);
    c->block = "sequence groups";
    if (!seek_table(c, COUNTS_AT + 4 * H_GROUP_INDEX, m->head[H_GROUP_INDEX], i->sequence_group_count, GROUP_SIZE, "sequence groups"))
        return false;
    c->block = "sequence 0";
    if (i->sequence_count
        && !seek_table(c, COUNTS_AT + 4 * H_SEQUENCE_INDEX, m->head[H_SEQUENCE_INDEX], i->sequence_count, SEQUENCE_SIZE, "sequences"))
        return false;
    if (i->sequence_count) {
        size_t at = c->pos;
        int32_t group = read_i32(m->data + at + 156);
        if (group < 0 || (uint32_t)group >= i->sequence_group_count)
            return pmf_cursor_fail_at(c, at + 156, "sequence group %d of %u", group, i->sequence_group_count);
        int64_t animations = (int64_t)read_i32(m->data + m->head[H_GROUP_INDEX] + 100) + read_i32(m->data + at + 124);
        if (group == 0 && !frame_values(m, c, at + 124, animations, 0, adjust, value))
            return false;
    }
    bone_pose(m, (const float (*)[6])value, NULL, 0, pose);
    return true;
}

/* The bind pose, with the controllers as each studio_controllers starts them (bind_pose_of). */
static bool bind_pose(studio_file *m, pmf_cursor *c)
{
    for (int set = 0; set < 2; set++) {
        m->pose[set] = pmf_budget_malloc((m->info.bone_count ? m->info.bone_count : 1) * sizeof *m->pose[set]);
        if (!m->pose[set])
            return pmf_cursor_fail_at(c, 0, "out of memory for %u bones", m->info.bone_count);
        if (!bind_pose_of(m, c, m->adjust[set], m->pose[set]))
            return false;
    }
    return true;
}

static bool read_bones(studio_file *m, pmf_cursor *c)
{
    const studio_info *i = &m->info;
    c->block = "bones";
    if (!seek_table(c, COUNTS_AT + 4 * H_BONE_INDEX, m->head[H_BONE_INDEX], i->bone_count, BONE_SIZE, "bones"))
        return false;
    m->bones = pmf_budget_calloc(i->bone_count ? i->bone_count : 1, sizeof *m->bones);
    if (!m->bones)
        return pmf_cursor_fail_at(c, 0, "out of memory for %u bones", i->bone_count);
    for (uint32_t b = 0; b < i->bone_count; b++) {
        char block[32];
        snprintf(block, sizeof block, "bone %u", b);
        c->block = block;
        bone_def *bone = &m->bones[b];
        size_t at = c->pos;
        pmf_take(c, 32, "name");
        bone->parent = (int32_t)pmf_read_u32(c, "parent");
        if (!c->failed && (bone->parent < -1 || bone->parent >= (int32_t)b))
            return pmf_cursor_fail_at(c, at + 32, "parent %d (a bone before it, or -1)", bone->parent);
        pmf_take(c, 4, "flags");
        for (int j = 0; j < 6; j++) {
            bone->controller[j] = (int32_t)pmf_read_u32(c, "controllers");
            if (!c->failed && (bone->controller[j] < -1 || bone->controller[j] >= (int32_t)m->controller_count))
                return pmf_cursor_fail_at(c, at + 40 + 4 * (size_t)j, "controller %d (-1 or one of the model's %u)", bone->controller[j],
                                          m->controller_count);
        }
        bool ok = read_coords(c, bone->value, 6, "value") && read_coords(c, bone->scale, 6, "scale");
        c->block = "bones";  /* the name above ends with its loop */
        if (!ok)
            return false;
    }
    return bind_pose(m, c);
}

static bool read_textures(studio_file *m, pmf_cursor *c)
{
    const studio_info *i = &m->info;
    if (i->external_textures)
        return true;  /* the skins are the texture file's too */
    c->block = "textures";
    if (!seek_table(c, COUNTS_AT + 4 * H_TEXTURE_INDEX, m->head[H_TEXTURE_INDEX], i->texture_count, TEXTURE_SIZE, "textures"))
        return false;
    for (uint32_t t = 0; t < i->texture_count; t++) {
        char block[32];
        snprintf(block, sizeof block, "texture %u", t);
        c->block = block;
        size_t at = c->pos + 64;
        const uint8_t *p = pmf_take(c, TEXTURE_SIZE, "texture");
        int32_t width = p ? read_i32(p + 68) : 0, height = p ? read_i32(p + 72) : 0;
        if (p && (width < 1 || height < 1 || (uint32_t)width > STUDIO_MAX_TEXTURE_SIDE || (uint32_t)height > STUDIO_MAX_TEXTURE_SIDE))
            return pmf_cursor_fail_at(c, at + 4, "%d x %d pixels (sides 1 to %u)", width, height, STUDIO_MAX_TEXTURE_SIDE);
        size_t next = c->pos;
        if (p && !seek_table(c, at + 12, read_i32(p + 76), 1, (uint64_t)width * (uint64_t)height + PALETTE_SIZE, "pixels and palette"))
            return false;
        c->pos = next;
        c->block = "textures";  /* the name above ends with its loop */
        if (c->failed)
            return false;
    }
    c->block = "skins";
    uint64_t skins = (uint64_t)i->skin_family_count * i->skin_ref_count;
    if (!seek_table(c, COUNTS_AT + 4 * H_SKIN_INDEX, m->head[H_SKIN_INDEX], skins, 2, "skin entries"))
        return false;
    for (uint64_t s = 0; s < skins; s++) {
        int16_t texture = read_i16(m->data + c->pos + 2 * s);
        if (texture < 0 || (uint32_t)texture >= i->texture_count)
            return pmf_cursor_fail_at(c, c->pos + 2 * s, "family %u reference %u: texture %d of %u", (unsigned)(s / i->skin_ref_count),
                                      (unsigned)(s % i->skin_ref_count), texture, i->texture_count);
    }
    return true;
}

/* A mesh's triangle commands: inside the file, ended by a 0, vertices among the model's. */
static bool walk_commands(pmf_cursor *c, size_t field_at, int32_t index, uint32_t vertices, totals *sum)
{
    if (!seek_table(c, field_at, index, 1, 2, "triangle commands"))
        return false;
    for (;;) {
        int32_t n = (int16_t)pmf_read_u16(c, "triangle command");
        if (c->failed || n == 0)
            return !c->failed;
        uint32_t count = (uint32_t)(n < 0 ? -n : n);
        sum->triangles += count > 2 ? count - 2 : 0;
        sum->command_vertices += count;
        if (sum->triangles > STUDIO_MAX_TRIANGLES || sum->command_vertices > STUDIO_MAX_COMMAND_VERTICES)
            return pmf_cursor_fail_at(c, c->pos - 2, "more than %u triangles or %u command vertices in all models", STUDIO_MAX_TRIANGLES,
                                      STUDIO_MAX_COMMAND_VERTICES);
        const uint8_t *p = pmf_take(c, (size_t)count * COMMAND_VERTEX, "command vertices");
        for (uint32_t k = 0; p && k < count; k++) {
            int16_t v = read_i16(p + COMMAND_VERTEX * k);
            if (v < 0 || (uint32_t)v >= vertices)
                return pmf_cursor_fail_at(c, (size_t)(p - c->data) + COMMAND_VERTEX * k, "vertex %d of a model of %u", v, vertices);
        }
    }
}

static bool read_meshes(studio_file *m, pmf_cursor *c, model_index *model, uint32_t part, uint32_t index, totals *sum)
{
    for (uint32_t k = 0; k < model->mesh_count; k++) {
        char block[80];
        snprintf(block, sizeof block, "body part %u model %u mesh %u", part, index, k);
        c->block = block;
        size_t at = model->meshes_at + (size_t)k * MESH_SIZE;
        const uint8_t *mesh = m->data + at;
        int32_t ref = read_i32(mesh + 8);
        const studio_info *i = &m->info;
        if (ref < 0 || (uint32_t)ref >= (i->external_textures ? STUDIO_MAX_TEXTURES : i->skin_ref_count)
            || (!i->external_textures && !i->skin_family_count))
            return pmf_cursor_fail_at(c, at + 8, "skin reference %d of %u (in %u families)", ref, i->skin_ref_count, i->skin_family_count);
        m->skin_refs_used = (uint32_t)ref + 1 > m->skin_refs_used ? (uint32_t)ref + 1 : m->skin_refs_used;
        uint64_t before = sum->triangles;
        if (!walk_commands(c, at + 4, read_i32(mesh + 4), model->vertex_count, sum))
            return false;
        model->triangle_count += (uint32_t)(sum->triangles - before);
    }
    return true;
}

/* A model's table of meshes, vertex bones (among the bones) and vertices (finite, in range). */
static bool read_model(studio_file *m, pmf_cursor *c, size_t at, model_index *model, totals *sum)
{
    const uint8_t *p = m->data + at;
    int32_t meshes = read_i32(p + 72), vertices = read_i32(p + 80);
    if (meshes < 0 || vertices < 0 || (sum->meshes += (uint32_t)meshes) > STUDIO_MAX_MESHES
        || (sum->vertices += (uint32_t)vertices) > STUDIO_MAX_VERTICES)
        return pmf_cursor_fail_at(c, at + 72, "%d meshes and %d vertices (all models' together at most %u and %u)", meshes, vertices,
                                  STUDIO_MAX_MESHES, STUDIO_MAX_VERTICES);
    model->mesh_count = (uint32_t)meshes;
    model->vertex_count = (uint32_t)vertices;
    if (!seek_table(c, at + 76, read_i32(p + 76), model->mesh_count, MESH_SIZE, "meshes"))
        return false;
    model->meshes_at = c->pos;
    if (!seek_table(c, at + 84, read_i32(p + 84), model->vertex_count, 1, "vertex bones"))
        return false;
    model->vertex_bones_at = c->pos;
    for (uint32_t v = 0; v < model->vertex_count; v++)
        if (m->data[c->pos + v] >= m->info.bone_count)
            return pmf_cursor_fail_at(c, c->pos + v, "vertex %u: bone %u of %u", v, m->data[c->pos + v], m->info.bone_count);
    if (!seek_table(c, at + 88, read_i32(p + 88), model->vertex_count, 12, "vertices"))
        return false;
    model->vertices_at = c->pos;
    float xyz[3];
    for (uint32_t v = 0; v < model->vertex_count; v++)
        if (!read_coords(c, xyz, 3, "vertex"))
            return false;
    return true;
}

static bool read_body_parts(studio_file *m, pmf_cursor *c)
{
    const studio_info *i = &m->info;
    c->block = "body parts";
    if (!seek_table(c, COUNTS_AT + 4 * H_BODY_PART_INDEX, m->head[H_BODY_PART_INDEX], i->body_part_count, BODY_PART_SIZE, "body parts"))
        return false;
    size_t parts_at = c->pos;
    m->parts = pmf_budget_calloc(i->body_part_count ? i->body_part_count : 1, sizeof *m->parts);
    m->models = pmf_budget_calloc((size_t)(i->body_part_count ? i->body_part_count : 1) * STUDIO_MAX_MODELS, sizeof *m->models);
    if (!m->parts || !m->models)
        return pmf_cursor_fail_at(c, parts_at, "out of memory for %u body parts", i->body_part_count);
    totals sum = { 0 };
    uint32_t first = 0;
    for (uint32_t b = 0; b < i->body_part_count; b++) {
        char block[80];
        snprintf(block, sizeof block, "body part %u", b);
        c->block = block;
        size_t at = parts_at + (size_t)b * BODY_PART_SIZE;
        const uint8_t *p = m->data + at;
        int32_t models = read_i32(p + 64), base = read_i32(p + 68);
        if (models < 1 || (uint32_t)models > STUDIO_MAX_MODELS || base < 1)
            return pmf_cursor_fail_at(c, at + 64, "%d models of base %d (1 to %u models, a base of at least 1)", models, base, STUDIO_MAX_MODELS);
        if (!seek_table(c, at + 72, read_i32(p + 72), (uint32_t)models, MODEL_SIZE, "models"))
            return false;
        m->parts[b] = (body_part){ (uint32_t)models, (uint32_t)base, first };
        size_t models_at = c->pos;
        for (uint32_t k = 0; k < (uint32_t)models; k++) {
            snprintf(block, sizeof block, "body part %u model %u", b, k);
            model_index *model = &m->models[first + k];
            if (!read_model(m, c, models_at + (size_t)k * MODEL_SIZE, model, &sum) || !read_meshes(m, c, model, b, k, &sum))
                return false;
            c->block = block;
        }
        first += (uint32_t)models;
        c->block = "body parts";  /* the name above ends with its loop */
    }
    return true;
}

studio_file *studio_open_memory(const uint8_t *data, size_t size, const char *name, pmf_error *err)
{
    studio_file *m = pmf_reader_handle(sizeof *m, offsetof(studio_file, name), name, err);
    if (!m)
        return NULL;
    m->data = data;
    m->size = size;
    pmf_cursor c = pmf_cursor_make(data, size, 0, m->name, "header", err);
    if (size < HEADER_SIZE)
        pmf_cursor_fail_at(&c, 0, "%zu bytes are shorter than the %u-byte header", size, HEADER_SIZE);
    if (c.failed || !read_header(m, &c) || !read_controllers(m, &c) || !read_bones(m, &c) || !read_textures(m, &c) || !read_body_parts(m, &c)) {
        studio_close(m);
        return NULL;
    }
    m->texture_file = m->info.external_textures ? NULL : m;
    m->groups = pmf_budget_calloc(m->info.sequence_group_count ? m->info.sequence_group_count : 1, sizeof *m->groups);
    if (!m->groups) {
        pmf_error_set(err, m->name, "sequence groups", 0, "out of memory for %u sequence groups", m->info.sequence_group_count);
        studio_close(m);
        return NULL;
    }
    return m;
}

void studio_close(studio_file *m)
{
    if (!m)
        return;
    for (uint32_t g = 0; m->groups && g < m->info.sequence_group_count; g++)
        pmf_budget_free(m->groups[g].name);
    pmf_budget_free(m->groups);
    pmf_budget_free(m->bones);
    pmf_budget_free(m->pose[0]);
    pmf_budget_free(m->pose[1]);
    pmf_budget_free(m->parts);
    pmf_budget_free(m->models);
    pmf_budget_free(m);
}

const studio_info *studio_get_info(const studio_file *m) { return &m->info; }

uint32_t studio_body_part_models(const studio_file *m, uint32_t part)
{
    return part < m->info.body_part_count ? m->parts[part].model_count : 0;
}

bool studio_texture_file_name(const char *path, char *out, size_t size)
{
    size_t n = strlen(path);
    if (n < 4 || n + 2 > size)
        return false;
    memcpy(out, path, n - 4);
    memcpy(out + n - 4, "T.mdl", 6);
    return true;
}

bool studio_attach_textures(studio_file *m, const studio_file *t, pmf_error *err)
{
    const studio_info *ti = &t->info;
    if (!m->info.external_textures) {
        pmf_error_set(err, m->name, "header", COUNTS_AT + 4 * H_TEXTURES, "%u textures of its own (a texture file is for a model of none)",
                      m->info.texture_count);
        return false;
    }
    if (ti->external_textures || m->skin_refs_used > ti->skin_ref_count || (m->skin_refs_used && !ti->skin_family_count)) {
        pmf_error_set(err, t->name, "skins", COUNTS_AT + 4 * H_SKIN_REFS,
                      "%u textures, %u skin references in %u families (%s needs %u references)", ti->texture_count, ti->skin_ref_count,
                      ti->skin_family_count, m->name, m->skin_refs_used);
        return false;
    }
    m->texture_file = t;
    return true;
}

bool studio_get_sequence(const studio_file *m, uint32_t sequence, studio_sequence *out, pmf_error *err)
{
    char block[32];
    snprintf(block, sizeof block, "sequence %u", sequence);
    if (sequence >= m->info.sequence_count) {
        pmf_error_set(err, m->name, block, COUNTS_AT + 4 * H_SEQUENCES, "no such sequence (the model has %u)", m->info.sequence_count);
        return false;
    }
    size_t at = (size_t)m->head[H_SEQUENCE_INDEX] + (size_t)sequence * SEQUENCE_SIZE;  /* the table was checked at open */
    const uint8_t *p = m->data + at;
    float fps = read_f32(p + 32);
    int32_t frames = read_i32(p + 56), group = read_i32(p + 156);
    if (!(fps >= 0 && fps <= STUDIO_MAX_COORD) || frames < 1 || frames > MAX_SEQUENCE_FRAMES || group < 0
        || (uint32_t)group >= m->info.sequence_group_count) {
        pmf_error_set(err, m->name, block, at + 32, "%g frames a second, %d frames, group %d of %u (0 to %g, 1 to %d, a group of the model)",
                      (double)fps, frames, group, m->info.sequence_group_count, STUDIO_MAX_COORD, MAX_SEQUENCE_FRAMES);
        return false;
    }
    *out = (studio_sequence){ fps, (uint32_t)frames, (uint32_t)group, (read_i32(p + 36) & SEQUENCE_LOOPS) != 0, read_i32(p + 40),
                              read_i32(p + 44) };
    return true;
}

int64_t studio_find_activity(const studio_file *m, int32_t activity)
{
    int64_t found = -1;
    int32_t heaviest = 0;
    for (uint32_t k = 0; k < m->info.sequence_count; k++) {
        const uint8_t *p = m->data + m->head[H_SEQUENCE_INDEX] + (size_t)k * SEQUENCE_SIZE;
        if (read_i32(p + 40) == activity && (found < 0 || read_i32(p + 44) > heaviest)) {
            found = k;
            heaviest = read_i32(p + 44);
        }
    }
    return found;
}

bool studio_group_file_name(const char *path, uint32_t group, char *out, size_t size)
{
    size_t n = strlen(path);
    if (n < 4 || group >= STUDIO_MAX_SEQUENCE_GROUPS)
        return false;
    int written = snprintf(out, size, "%.*s%u%u.mdl", (int)(n - 4), path, group / 10, group % 10);
    return written > 0 && (size_t)written < size;
}

bool studio_attach_group(studio_file *m, uint32_t group, const uint8_t *data, size_t size, const char *name, pmf_error *err)
{
    if (group == 0 || group >= m->info.sequence_group_count) {
        pmf_error_set(err, m->name, "sequence groups", COUNTS_AT + 4 * H_GROUPS, "no group %u to attach (the model has %u, 0 its own)",
                      group, m->info.sequence_group_count);
        return false;
    }
    if (size < 4 || memcmp(data, "IDSQ", 4) != 0) {
        pmf_error_set(err, name, "header", 0, "bad magic (expected 'IDSQ': a studio model's sequence group)");
        return false;
    }
    group_file *g = &m->groups[group];
    char *copy = pmf_budget_malloc(strlen(name) + 1);
    if (!copy) {
        pmf_error_set(err, name, "header", 0, "out of memory");
        return false;
    }
    pmf_budget_free(g->name);
    *g = (group_file){ data, size, strcpy(copy, name) };
    return true;
}

/* The bones' transforms at the pose: the bind pose, or the sequence's frame (past its last: the
 * last), blend 0, between two frames blended (bone_pose); false (err says why) when the sequence
 * is damaged, its group's file is not attached, or its animation runs outside the file holding it. */
static bool sequence_pose(const studio_file *m, const studio_pose *at_pose, float (*pose)[3][4], pmf_error *err)
{
    int set = at_pose->controllers == STUDIO_CONTROLLERS_UNSET ? STUDIO_CONTROLLERS_UNSET : STUDIO_CONTROLLERS_SET;
    const float *adjust = m->adjust[set];
    if (at_pose->sequence == STUDIO_BIND_POSE) {
        memcpy(pose, m->pose[set], m->info.bone_count * sizeof *pose);
        return true;
    }
    studio_sequence s;
    if (!studio_get_sequence(m, at_pose->sequence, &s, err))
        return false;
    char block[32];
    snprintf(block, sizeof block, "sequence %u", at_pose->sequence);
    size_t at = (size_t)m->head[H_SEQUENCE_INDEX] + (size_t)at_pose->sequence * SEQUENCE_SIZE;
    const group_file *g = &m->groups[s.group];
    if (s.group && !g->data) {
        pmf_error_set(err, m->name, block, at + 156, "its sequence group %u's file is not attached", s.group);
        return false;
    }
    int64_t animations = read_i32(m->data + at + 124);
    if (!s.group)
        animations += read_i32(m->data + m->head[H_GROUP_INDEX] + 100);
    pmf_cursor c = pmf_cursor_make(s.group ? g->data : m->data, s.group ? g->size : m->size, 0, s.group ? g->name : m->name, block, err);
    double last = s.frame_count - 1, frame = at_pose->frame > 0 ? (at_pose->frame < last ? at_pose->frame : last) : 0;
    uint32_t k = (uint32_t)frame;
    double between = frame - k;
    float value[STUDIO_MAX_BONES][6], next[STUDIO_MAX_BONES][6];
    if (!frame_values(m, &c, s.group ? 0 : at + 124, animations, k, adjust, value)
        || (between > 0 && !frame_values(m, &c, s.group ? 0 : at + 124, animations, k + 1, adjust, next)))
        return false;
    bone_pose(m, (const float (*)[6])value, between > 0 ? (const float (*)[6])next : NULL, between, pose);
    return true;
}

/* What a build shows: one model per body part, the skin family's entries, its textures' slots. */
typedef struct selection {
    const model_index *models[STUDIO_MAX_BODY_PARTS];
    const uint8_t *skins;              /* the family's skin references, i16 each */
    uint32_t *slots;                   /* per texture of the texture file: its place in the mesh's list, or UINT32_MAX */
    uint32_t triangles, vertices, texture_count;
    uint64_t texel_bytes;
} selection;

static int32_t texture_field(const studio_file *t, uint32_t texture, size_t field)
{
    return read_i32(t->data + t->head[H_TEXTURE_INDEX] + (size_t)texture * TEXTURE_SIZE + field);
}

static uint32_t mesh_texture(const selection *s, const model_index *model, uint32_t mesh, const uint8_t *data)
{
    int32_t ref = read_i32(data + model->meshes_at + (size_t)mesh * MESH_SIZE + 8);
    return (uint32_t)read_i16(s->skins + 2 * (size_t)ref);
}

/* The models body picks, the family skin picks, the textures they use in the order first used. */
static bool select_parts(const studio_file *m, uint32_t body, uint32_t skin, selection *s, pmf_error *err)
{
    const studio_file *t = m->texture_file;
    const studio_info *ti = &t->info;
    uint32_t family = skin < ti->skin_family_count ? skin : 0;
    if (ti->skin_ref_count && ti->skin_family_count)  /* else no mesh reads it */
        s->skins = t->data + t->head[H_SKIN_INDEX] + (size_t)family * ti->skin_ref_count * 2;
    s->slots = pmf_budget_malloc((ti->texture_count ? ti->texture_count : 1) * sizeof *s->slots);
    if (!s->slots) {
        pmf_error_set(err, m->name, "mesh", 0, "out of memory for %u textures", ti->texture_count);
        return false;
    }
    memset(s->slots, 0xFF, (ti->texture_count ? ti->texture_count : 1) * sizeof *s->slots);
    for (uint32_t p = 0; p < m->info.body_part_count; p++) {
        const body_part *part = &m->parts[p];
        const model_index *model = &m->models[part->first + (body / part->base) % part->model_count];
        s->models[p] = model;
        s->triangles += model->triangle_count;
        s->vertices = model->vertex_count > s->vertices ? model->vertex_count : s->vertices;
        for (uint32_t k = 0; k < model->mesh_count; k++) {
            uint32_t texture = mesh_texture(s, model, k, m->data);
            if (s->slots[texture] != UINT32_MAX)
                continue;
            s->slots[texture] = s->texture_count++;
            s->texel_bytes += (uint64_t)texture_field(t, texture, 68) * (uint64_t)texture_field(t, texture, 72) * 4;
        }
    }
    return true;
}

/* Each used texture's pixels through its own palette; a masked one's index 255 a hole. */
static void decode_textures(const studio_file *t, const selection *s, studio_texture *out)
{
    for (uint32_t texture = 0; texture < t->info.texture_count; texture++) {
        if (s->slots[texture] == UINT32_MAX)
            continue;
        studio_texture *o = &out[s->slots[texture]];
        o->index = texture;
        o->flags = texture_field(t, texture, 64);
        o->width = (uint32_t)texture_field(t, texture, 68);
        o->height = (uint32_t)texture_field(t, texture, 72);
        const uint8_t *pixels = t->data + texture_field(t, texture, 76);
        size_t count = (size_t)o->width * o->height;
        const uint8_t *palette = pixels + count;
        bool masked = (o->flags & STUDIO_NF_MASKED) != 0;
        for (size_t p = 0; p < count; p++) {
            memcpy(o->rgba + 4 * p, palette + 3 * pixels[p], 3);
            o->rgba[4 * p + 3] = masked && pixels[p] == 255 ? 0 : 255;
        }
    }
}

/* A model's vertices moved by their bones; the mesh's bounds grown by them. */
static void place_vertices(const studio_file *m, const float (*pose)[3][4], const model_index *model, float *out, studio_mesh *mesh)
{
    for (uint32_t v = 0; v < model->vertex_count; v++) {
        const float (*bone)[4] = pose[m->data[model->vertex_bones_at + v]];
        const uint8_t *p = m->data + model->vertices_at + 12 * (size_t)v;
        float xyz[3] = { read_f32(p), read_f32(p + 4), read_f32(p + 8) };
        for (int a = 0; a < 3; a++) {
            float q = bone[a][0] * xyz[0] + bone[a][1] * xyz[1] + bone[a][2] * xyz[2] + bone[a][3];
            out[3 * v + a] = q;
            mesh->mins[a] = q < mesh->mins[a] ? q : mesh->mins[a];
            mesh->maxs[a] = q > mesh->maxs[a] ? q : mesh->maxs[a];
        }
    }
}

/* One mesh's strips and fans from triangle `t` on, in GL's corner order (positions only when out
 * has no texture places); returns the next triangle. */
static uint32_t emit_commands(const uint8_t *command, const float *placed, const studio_texture *texture, uint32_t slot, studio_mesh *out,
                              uint32_t t)
{
    for (int32_t n; (n = read_i16(command)) != 0;) {
        bool fan = n < 0;
        int32_t count = fan ? -n : n;
        const uint8_t *vertices = command + 2;
        for (int32_t i = 0; i + 2 < count; i++, t++) {
            const int32_t corner[3] = { fan ? 0 : (i & 1 ? i + 1 : i), fan || !(i & 1) ? i + 1 : i, i + 2 };
            for (int k = 0; k < 3; k++) {
                const uint8_t *e = vertices + COMMAND_VERTEX * (size_t)corner[k];
                memcpy(out->positions + 9 * (size_t)t + 3 * k, placed + 3 * (size_t)read_i16(e), 3 * sizeof(float));
                if (!out->uvs)
                    continue;
                out->uvs[6 * (size_t)t + 2 * k] = read_i16(e + 4) * (1.0f / (float)texture->width);
                out->uvs[6 * (size_t)t + 2 * k + 1] = read_i16(e + 6) * (1.0f / (float)texture->height);
            }
            if (out->triangle_textures)
                out->triangle_textures[t] = slot;
        }
        command = vertices + COMMAND_VERTEX * (size_t)count;
    }
    return t;
}

/* The mesh's arrays (positions only: its positions alone) and the placed vertices. */
static bool allocate_mesh(const studio_file *m, const selection *s, bool positions_only, studio_mesh *mesh, float **placed, pmf_error *err)
{
    size_t corners = (size_t)s->triangles * 3;
    if (positions_only) {
        mesh->triangle_count = s->triangles;
        mesh->positions = pmf_budget_malloc(corners ? corners * 3 * sizeof(float) : 1);
        *placed = pmf_budget_malloc(s->vertices ? s->vertices * 3 * sizeof(float) : 1);
        if (!mesh->positions || !*placed)
            pmf_error_set(err, m->name, "mesh", 0, "out of memory for %u triangles", s->triangles);
        return mesh->positions && *placed;
    }
    uint64_t bytes = (uint64_t)corners * 5 * sizeof(float) + (uint64_t)s->triangles * 4 + (uint64_t)s->texture_count * sizeof(studio_texture)
                   + s->texel_bytes + (uint64_t)s->vertices * 3 * sizeof(float);
    if (bytes > STUDIO_MAX_BYTES) {
        pmf_error_set(err, m->name, "mesh", 0, "%u triangles and %llu bytes of textures take %llu bytes (at most %zu)", s->triangles,
                      (unsigned long long)s->texel_bytes, (unsigned long long)bytes, STUDIO_MAX_BYTES);
        return false;
    }
    mesh->triangle_count = s->triangles;
    mesh->texture_count = s->texture_count;
    mesh->positions = pmf_budget_malloc(corners ? corners * 3 * sizeof(float) : 1);
    mesh->uvs = pmf_budget_malloc(corners ? corners * 2 * sizeof(float) : 1);
    mesh->triangle_textures = pmf_budget_malloc(s->triangles ? s->triangles * sizeof(uint32_t) : 1);
    mesh->textures = pmf_budget_calloc(s->texture_count ? s->texture_count : 1, sizeof *mesh->textures);
    *placed = pmf_budget_malloc(s->vertices ? s->vertices * 3 * sizeof(float) : 1);
    bool ok = mesh->positions && mesh->uvs && mesh->triangle_textures && mesh->textures && *placed;
    const studio_file *t = m->texture_file;
    for (uint32_t texture = 0; ok && texture < t->info.texture_count; texture++)
        if (s->slots[texture] != UINT32_MAX) {
            size_t size = (size_t)texture_field(t, texture, 68) * (size_t)texture_field(t, texture, 72) * 4;
            ok = (mesh->textures[s->slots[texture]].rgba = pmf_budget_malloc(size)) != NULL;
        }
    if (!ok)
        pmf_error_set(err, m->name, "mesh", 0, "out of memory for %u triangles and %llu bytes of textures", s->triangles,
                      (unsigned long long)s->texel_bytes);
    return ok;
}

/* The mesh of body and skin with the bones at `pose` (positions only: studio_build_pose_mesh). */
static bool build_posed(const studio_file *m, const float (*pose)[3][4], uint32_t body, uint32_t skin, bool positions_only, studio_mesh *out,
                        pmf_error *err)
{
    if (!m->texture_file) {
        pmf_error_set(err, m->name, "header", COUNTS_AT + 4 * H_TEXTURES, "its textures are in its texture file (T.mdl), none attached");
        return false;
    }
    selection s = { .triangles = 0 };
    studio_mesh mesh = { .triangle_count = 0 };
    float *placed = NULL;
    if (!select_parts(m, body, skin, &s, err) || !allocate_mesh(m, &s, positions_only, &mesh, &placed, err)) {
        studio_mesh_free(&mesh);
        pmf_budget_free(placed);
        pmf_budget_free(s.slots);
        return false;
    }
    if (!positions_only)
        decode_textures(m->texture_file, &s, mesh.textures);
    for (int a = 0; a < 3; a++) {
        mesh.mins[a] = 1e30f;
        mesh.maxs[a] = -1e30f;
    }
    uint32_t t = 0;
    for (uint32_t p = 0; p < m->info.body_part_count; p++) {
        const model_index *model = s.models[p];
        place_vertices(m, pose, model, placed, &mesh);
        for (uint32_t k = 0; k < model->mesh_count; k++) {
            uint32_t slot = s.slots[mesh_texture(&s, model, k, m->data)];
            int32_t commands = read_i32(m->data + model->meshes_at + (size_t)k * MESH_SIZE + 4);
            t = emit_commands(m->data + commands, placed, positions_only ? NULL : &mesh.textures[slot], slot, &mesh, t);
        }
    }
    for (int a = 0; a < 3; a++)
        if (mesh.mins[a] > mesh.maxs[a])
            mesh.mins[a] = mesh.maxs[a] = 0.0f;
    pmf_budget_free(placed);
    pmf_budget_free(s.slots);
    *out = mesh;
    return true;
}

bool studio_build_mesh(const studio_file *m, uint32_t body, uint32_t skin, studio_mesh *out, pmf_error *err)
{
    return build_posed(m, (const float (*)[3][4])m->pose[STUDIO_CONTROLLERS_SET], body, skin, false, out, err);
}

bool studio_build_sequence_mesh(const studio_file *m, uint32_t sequence, uint32_t frame, uint32_t body, uint32_t skin, studio_mesh *out,
                                pmf_error *err)
{
    return studio_build_pose_mesh(m, &(studio_pose){ sequence, frame, STUDIO_CONTROLLERS_SET }, body, skin, false, out, err);
}

bool studio_build_pose_mesh(const studio_file *m, const studio_pose *at, uint32_t body, uint32_t skin, bool positions_only, studio_mesh *out,
                            pmf_error *err)
{
    float (*pose)[3][4] = pmf_budget_malloc((m->info.bone_count ? m->info.bone_count : 1) * sizeof *pose);
    if (!pose) {
        pmf_error_set(err, m->name, "mesh", 0, "out of memory for %u bones", m->info.bone_count);
        return false;
    }
    bool ok = sequence_pose(m, at, pose, err) && build_posed(m, (const float (*)[3][4])pose, body, skin, positions_only, out, err);
    pmf_budget_free(pose);
    return ok;
}

void studio_mesh_free(studio_mesh *mesh)
{
    if (!mesh)
        return;
    for (uint32_t k = 0; mesh->textures && k < mesh->texture_count; k++)
        pmf_budget_free(mesh->textures[k].rgba);
    pmf_budget_free(mesh->textures);
    pmf_budget_free(mesh->positions);
    pmf_budget_free(mesh->uvs);
    pmf_budget_free(mesh->triangle_textures);
    memset(mesh, 0, sizeof *mesh);
}
