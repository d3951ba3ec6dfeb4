/* test_studio.c - GoldSrc studio models built in code (tests/fixtures/studio_build.c): every
 * corner of the bind pose against the bones' values rotated here one axis at a time (not through
 * a quaternion), the winding of strips and fans, body groups, skin families, a masked texture, a
 * texture file apart; every truncation and damage one clean error.
 * Usage: test_studio pose|parts|damaged */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "studio.h"
#include "studio_build.h"

typedef struct built {
    uint8_t *model, *textures;
    size_t model_size, textures_size;
    studio_file *m, *t;
} built;

static bool open_built(unsigned options, built *b)
{
    memset(b, 0, sizeof *b);
    if (!studio_build(options, &b->model, &b->model_size, &b->textures, &b->textures_size)) {
        check_fail("studio_build(%u) failed", options);
        return false;
    }
    pmf_error err;
    b->m = studio_open_memory(b->model, b->model_size, "built.mdl", &err);
    CHECK(b->m != NULL, "%s", err.message);
    if (b->m && b->textures) {
        b->t = studio_open_memory(b->textures, b->textures_size, "builtT.mdl", &err);
        CHECK(b->t != NULL, "%s", err.message);
        CHECK(b->t && studio_attach_textures(b->m, b->t, &err), "%s", err.message);
    }
    return b->m != NULL;
}

static void close_built(built *b)
{
    studio_close(b->m);
    studio_close(b->t);
    free(b->model);
    free(b->textures);
}

static void rotate(double p[3], int axis, double angle)
{
    int u = (axis + 1) % 3, v = (axis + 2) % 3;  /* x: y z; y: z x; z: x y */
    double a = p[u], c = cos(angle), s = sin(angle);
    p[u] = c * a - s * p[v];
    p[v] = s * a + c * p[v];
}

/* A bone's move: about x, then y, then z by its angles, then to its place. */
static void bone_move(const double value[6], double p[3])
{
    for (int axis = 0; axis < 3; axis++)
        rotate(p, axis, value[3 + axis]);
    for (int a = 0; a < 3; a++)
        p[a] += value[a];
}

/* How far along its x bone 1 is moved (sequence 1's frames: studio_build_walk_x[f] * 0.5). */
static double child_x_move;

/* Where model k's vertex v stands: bone 0's frame 0 (its animation added unless `values_only`),
 * bone 1 moved by child_x_move. */
static void expected_vertex(int model, int v, bool values_only, double out[3])
{
    double root[6], child[6];
    for (int k = 0; k < 6; k++) {
        root[k] = studio_build_bone_value[0][k];
        child[k] = studio_build_bone_value[1][k];
    }
    child[0] += child_x_move;
    if (!values_only) {
        root[2] += 4 * 0.25;
        root[5] += 2 * 0.1;
    }
    float xyz[3];
    studio_build_vertex(model, v, xyz);
    for (int a = 0; a < 3; a++)
        out[a] = xyz[a];
    if (studio_build_vertex_bone(model, v) == 1)
        bone_move(child, out);
    bone_move(root, out);
}

/* One expected triangle: model, its corners' vertices, the skin reference. */
typedef struct corner_set {
    int model, v[3], ref;
} corner_set;

/* body 0: model 0's strip 0 1 2 3 4 (odd triangles swapped) and fan 4 3 1 0, model 2's fan
 * 0 1 2 3 and strip 3 2 1 */
static const corner_set body0[] = {
    { 0, { 0, 1, 2 }, 0 }, { 0, { 2, 1, 3 }, 0 }, { 0, { 2, 3, 4 }, 0 }, { 0, { 4, 3, 1 }, 1 }, { 0, { 4, 1, 0 }, 1 },
    { 2, { 0, 1, 2 }, 2 }, { 2, { 0, 2, 3 }, 2 }, { 2, { 3, 2, 1 }, 2 },
};

static void check_triangles(const studio_mesh *mesh, const corner_set *want, uint32_t count, int family, bool values_only)
{
    CHECK_EQ(mesh->triangle_count, count);
    for (uint32_t t = 0; t < count && t < mesh->triangle_count; t++) {
        const studio_texture *texture = &mesh->textures[mesh->triangle_textures[t]];
        int index = want[t].ref == 0 && family == 1 ? 3 : want[t].ref;
        CHECK(texture->index == (uint32_t)index, "triangle %u: texture %u, not %d", t, texture->index, index);
        for (int k = 0; k < 3; k++) {
            double p[3];
            expected_vertex(want[t].model, want[t].v[k], values_only, p);
            for (int a = 0; a < 3; a++)
                CHECK_NEAR(mesh->positions[9 * t + 3 * k + a], p[a], 1e-4);
            CHECK_NEAR(mesh->uvs[6 * t + 2 * k], (2.0 * want[t].v[k] + 1) / studio_build_width[index], 1e-6);
            CHECK_NEAR(mesh->uvs[6 * t + 2 * k + 1], (double)want[t].v[k] / studio_build_height[index], 1e-6);
        }
    }
}

static void check_texture(const studio_texture *texture)
{
    int t = (int)texture->index;
    CHECK_EQ(texture->width, studio_build_width[t]);
    CHECK_EQ(texture->height, studio_build_height[t]);
    for (uint32_t y = 0; y < texture->height; y++)
        for (uint32_t x = 0; x < texture->width; x++) {
            uint8_t rgb[3];
            uint8_t index = studio_build_index(t, (int)x, (int)y);
            studio_build_colour(t, index, rgb);
            const uint8_t *texel = texture->rgba + 4 * (y * texture->width + x);
            CHECK(!memcmp(texel, rgb, 3), "texture %d (%u, %u)", t, x, y);
            CHECK_EQ(texel[3], t == 1 && index == 255 ? 0 : 255);
        }
}

static void check_build(const studio_file *m, uint32_t body, uint32_t skin, const corner_set *want, uint32_t count, bool values_only)
{
    studio_mesh mesh;
    pmf_error err;
    if (!studio_build_mesh(m, body, skin, &mesh, &err)) {
        check_fail("body %u skin %u: %s", body, skin, err.message);
        return;
    }
    check_triangles(&mesh, want, count, skin == 1, values_only);
    for (uint32_t k = 0; k < mesh.texture_count; k++)
        check_texture(&mesh.textures[k]);
    studio_mesh_free(&mesh);
}

/* The bind pose of the model, its texture file apart, and sequence 0 out of the file. */
static void test_pose(void)
{
    built b;
    if (open_built(0, &b)) {
        const studio_info *i = studio_get_info(b.m);
        CHECK_EQ(i->bone_count, 2);
        CHECK_EQ(i->sequence_count, 1);
        CHECK_EQ(i->texture_count, 4);
        CHECK_EQ(i->skin_ref_count, 3);
        CHECK_EQ(i->skin_family_count, 2);
        CHECK_EQ(i->body_part_count, 2);
        CHECK(!i->external_textures);
        CHECK_NEAR(i->eye[2], 24, 0);
        check_build(b.m, 0, 0, body0, 8, false);
        studio_mesh mesh;
        pmf_error err;
        if (studio_build_mesh(b.m, 0, 0, &mesh, &err)) {
            /* the bounds of models 0 and 2's vertices */
            double lo[3] = { 1e9, 1e9, 1e9 }, hi[3] = { -1e9, -1e9, -1e9 };
            for (int model = 0; model <= 2; model += 2)
                for (int v = 0; v < (int)studio_build_vertex_count[model]; v++) {
                    double p[3];
                    expected_vertex(model, v, false, p);
                    for (int a = 0; a < 3; a++) {
                        lo[a] = fmin(lo[a], p[a]);
                        hi[a] = fmax(hi[a], p[a]);
                    }
                }
            for (int a = 0; a < 3; a++) {
                CHECK_NEAR(mesh.mins[a], lo[a], 1e-4);
                CHECK_NEAR(mesh.maxs[a], hi[a], 1e-4);
            }
            CHECK_EQ(mesh.texture_count, 3);
            studio_mesh_free(&mesh);
        }
    }
    close_built(&b);
    if (open_built(STUDIO_BUILD_GROUP1, &b))
        check_build(b.m, 0, 0, body0, 8, true);
    close_built(&b);
}

static int32_t get_i32(const uint8_t *p) { return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24); }

static void set_i32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Mesh of sequence `sequence`'s frame `frame` (body 0, family 0) against the corners expected
 * with bone 1 moved by child_x (and bone 0 at its values alone, or with sequence 0's frame 0). */
static void check_sequence(const studio_file *m, uint32_t sequence, uint32_t frame, bool values_only, double child_x)
{
    studio_mesh mesh;
    pmf_error err;
    if (!studio_build_sequence_mesh(m, sequence, frame, 0, 0, &mesh, &err)) {
        check_fail("sequence %u frame %u: %s", sequence, frame, err.message);
        return;
    }
    child_x_move = child_x;
    check_triangles(&mesh, body0, 8, 0, values_only);
    child_x_move = 0;
    studio_mesh_free(&mesh);
}

/* Sequence 1 damaged in a copy of b's model: its run out of the file, a run of no frame, its fps
 * not a number, no frame: the model opens, the sequence's mesh is refused with one clean line. */
static void check_sequence_damage(const built *b)
{
    size_t sequence = (size_t)get_i32(b->model + 168) + 176, animation = (size_t)get_i32(b->model + sequence + 124);
    const struct { size_t at; uint32_t value; int size; const char *words; } damage[] = {
        { animation + 12, 0xFFF0, 2, "animation run at byte" },
        { animation + 24, 0x0003, 2, "an animation run of 0 frames" },
        { sequence + 32, 0x7FC00000u, 4, "nan frames a second" },
        { sequence + 56, 0, 4, "0 frames" },
    };
    for (size_t k = 0; k < sizeof damage / sizeof *damage; k++) {
        uint8_t *copy = malloc(b->model_size);
        memcpy(copy, b->model, b->model_size);
        if (damage[k].size == 4)
            set_i32(copy + damage[k].at, damage[k].value);
        else
            memcpy(copy + damage[k].at, (uint8_t[2]){ (uint8_t)damage[k].value, (uint8_t)(damage[k].value >> 8) }, 2);
        pmf_error err;
        studio_file *m = studio_open_memory(copy, b->model_size, "bad.mdl", &err);
        studio_mesh mesh;
        CHECK(m != NULL, "damage %zu: %s", k, err.message);
        if (m) {
            CHECK_ERROR(studio_build_sequence_mesh(m, 1, 1, 0, 0, &mesh, &err), err, "sequence 1");
            check_error_line_clean(&err);
            CHECK(strstr(err.message, damage[k].words) != NULL, "damage %zu: '%s'", k, err.message);
        }
        studio_close(m);
        free(copy);
    }
}

/* A second sequence's frames (bone 1 moved 4, 12, 4 units, bone 0 at its values), a frame past
 * its last, its figures; sequence 0 in a group file apart: refused until attached, then as in the
 * model; the group files' names. */
static void test_sequences(void)
{
    built b;
    pmf_error err;
    if (open_built(STUDIO_BUILD_SEQUENCE1, &b)) {
        studio_sequence s;
        CHECK(studio_get_sequence(b.m, 1, &s, &err), "%s", err.message);
        CHECK_NEAR(s.fps, 10, 0);
        CHECK_EQ(s.frame_count, 3);
        CHECK_EQ(s.group, 0);
        CHECK(s.loops);
        CHECK(studio_get_sequence(b.m, 0, &s, &err) && !s.loops && s.frame_count == 3);
        CHECK_ERROR(studio_get_sequence(b.m, 2, &s, &err), err, "sequence 2");
        check_build(b.m, 0, 0, body0, 8, false);  /* the bind pose is still sequence 0's */
        check_sequence(b.m, 0, 0, false, 0);
        for (uint32_t f = 0; f < 4; f++)
            check_sequence(b.m, 1, f, true, 0.5 * studio_build_walk_x[f < 3 ? f : 2]);
        check_sequence_damage(&b);
    }
    close_built(&b);
    if (open_built(STUDIO_BUILD_GROUP1, &b)) {
        studio_mesh mesh;
        CHECK_ERROR(studio_build_sequence_mesh(b.m, 0, 0, 0, 0, &mesh, &err), err, "sequence 0");
        CHECK(strstr(err.message, "group 1's file is not attached") != NULL, "%s", err.message);
        uint8_t *group = malloc(b.model_size);
        memcpy(group, b.model, b.model_size);
        CHECK_ERROR(studio_attach_group(b.m, 1, group, b.model_size, "built01.mdl", &err), err, "header");
        CHECK_ERROR(studio_attach_group(b.m, 0, group, b.model_size, "built00.mdl", &err), err, "sequence groups");
        memcpy(group, "IDSQ", 4);
        CHECK(studio_attach_group(b.m, 1, group, b.model_size, "built01.mdl", &err), "%s", err.message);
        check_sequence(b.m, 0, 0, false, 0);
        check_build(b.m, 0, 0, body0, 8, true);   /* the bind pose stays the bones' values */
        close_built(&b);
        free(group);
    } else {
        close_built(&b);
    }
    char name[64];
    CHECK(studio_group_file_name("models/barney.mdl", 1, name, sizeof name) && !strcmp(name, "models/barney01.mdl"));
    CHECK(studio_group_file_name("models/barney.mdl", 12, name, sizeof name) && !strcmp(name, "models/barney12.mdl"));
    CHECK(!studio_group_file_name("models/barney.mdl", 1, name, 19));
}

/* Sequences' activities: with STUDIO_BUILD_IDLE both play ACT_IDLE, sequence 1 the heavier (3
 * against 1), which a monster starts in; without it no sequence plays an activity. */
static void test_activities(void)
{
    built b;
    pmf_error err;
    studio_sequence s;
    if (open_built(STUDIO_BUILD_SEQUENCE1 | STUDIO_BUILD_IDLE, &b)) {
        CHECK(studio_get_sequence(b.m, 0, &s, &err) && s.activity == STUDIO_ACT_IDLE && s.activity_weight == 1);
        CHECK(studio_get_sequence(b.m, 1, &s, &err) && s.activity == STUDIO_ACT_IDLE && s.activity_weight == 3);
        CHECK_EQ(studio_find_activity(b.m, STUDIO_ACT_IDLE), 1);
        CHECK_EQ(studio_find_activity(b.m, 3), -1);
    }
    close_built(&b);
    if (open_built(STUDIO_BUILD_SEQUENCE1, &b)) {
        CHECK(studio_get_sequence(b.m, 1, &s, &err) && s.activity == 0 && s.activity_weight == 0);
        CHECK_EQ(studio_find_activity(b.m, STUDIO_ACT_IDLE), -1);
    }
    close_built(&b);
}

/* The mesh at `pose` against the corners expected with bone 1 moved by child_x. */
static void check_pose(const studio_file *m, const studio_pose *pose, bool values_only, double child_x)
{
    studio_mesh mesh;
    pmf_error err;
    if (!studio_build_pose_mesh(m, pose, 0, 0, false, &mesh, &err)) {
        check_fail("sequence %u frame %g: %s", pose->sequence, pose->frame, err.message);
        return;
    }
    child_x_move = child_x;
    check_triangles(&mesh, body0, 8, 0, values_only);
    child_x_move = 0;
    studio_mesh_free(&mesh);
}

/* Bone controller 0 (STUDIO_X from -10 to 30 on bone 1's x) as the game leaves it: where
 * InitBoneControllers ran, set to the value 0 (the byte 255 * 10 / 40 = 63, 63 / 255 of the way:
 * -0.118 units); where it never ran, its byte 0: its start, -10 units. The bind pose and every
 * sequence's frame alike. */
static void test_controllers(void)
{
    built b;
    if (open_built(STUDIO_BUILD_SEQUENCE1 | STUDIO_BUILD_CONTROLLER, &b)) {
        const float *range = studio_build_controller_range;
        const double set = 63.0 / 255.0 * (range[1] - range[0]) + range[0], unset = range[0];
        child_x_move = set;
        check_build(b.m, 0, 0, body0, 8, false);
        child_x_move = 0;
        check_pose(b.m, &(studio_pose){ STUDIO_BIND_POSE, 0, STUDIO_CONTROLLERS_SET }, false, set);
        check_pose(b.m, &(studio_pose){ STUDIO_BIND_POSE, 0, STUDIO_CONTROLLERS_UNSET }, false, unset);
        check_pose(b.m, &(studio_pose){ 0, 0, STUDIO_CONTROLLERS_UNSET }, false, unset);
        check_pose(b.m, &(studio_pose){ 1, 1, STUDIO_CONTROLLERS_SET }, true, set + 0.5 * studio_build_walk_x[1]);
        check_pose(b.m, &(studio_pose){ 1, 1, STUDIO_CONTROLLERS_UNSET }, true, unset + 0.5 * studio_build_walk_x[1]);
    }
    close_built(&b);
}

/* Quaternions (x, y, z, w) done here the long way: products of turns about one axis each. */
static void quaternion_product(const double a[4], const double b[4], double out[4])
{
    double r[4] = { a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1], a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3], a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2] };
    memcpy(out, r, sizeof r);
}

/* The turn about z by a[2] after y by a[1] after x by a[0]. */
static void euler_quaternion(const double a[3], double q[4])
{
    double x[4] = { sin(a[0] / 2), 0, 0, cos(a[0] / 2) }, y[4] = { 0, sin(a[1] / 2), 0, cos(a[1] / 2) }, z[4] = { 0, 0, sin(a[2] / 2), cos(a[2] / 2) };
    quaternion_product(z, y, q);
    quaternion_product(q, x, q);
}

static void quaternion_turn(const double q[4], double p[3])
{
    double v[4] = { p[0], p[1], p[2], 0 }, conjugate[4] = { -q[0], -q[1], -q[2], q[3] };
    quaternion_product(q, v, v);
    quaternion_product(v, conjugate, v);
    memcpy(p, v, 3 * sizeof *p);
}

/* Sequence 1 with bone 1 turning (STUDIO_BUILD_TURN: about its z 0, 1, 0 radians over its frames,
 * along its x 4, 12, 4 units) between frames: bone 1's place lerped, its turn the great arc's
 * (angle s * the angle between the two turns, about their common axis), every corner of the
 * positions-only mesh; at whole frames the frames' own. */
static void test_blend(void)
{
    built b;
    if (!open_built(STUDIO_BUILD_SEQUENCE1 | STUDIO_BUILD_TURN, &b)) {
        close_built(&b);
        return;
    }
    const double frames[] = { 0, 0.25, 0.5, 1, 1.75 };
    for (size_t f = 0; f < sizeof frames / sizeof *frames; f++) {
        int k = (int)frames[f];
        double s = frames[f] - k, angles[2][3], q[2][4], turn[4];
        for (int j = 0; j < 2; j++) {
            for (int a = 0; a < 3; a++)
                angles[j][a] = studio_build_bone_value[1][3 + a] + (a == 2 ? 0.5 * studio_build_walk_turn[k + j < 3 ? k + j : 2] : 0);
            euler_quaternion(angles[j], q[j]);
        }
        double cosine = q[0][0] * q[1][0] + q[0][1] * q[1][1] + q[0][2] * q[1][2] + q[0][3] * q[1][3], angle = acos(fmin(cosine, 1));
        for (int c = 0; c < 4; c++)
            turn[c] = angle > 1e-9 ? (sin((1 - s) * angle) * q[0][c] + sin(s * angle) * q[1][c]) / sin(angle) : q[0][c];
        double child_x = 0.5 * ((1 - s) * studio_build_walk_x[k] + s * studio_build_walk_x[k + 1 < 3 ? k + 1 : 2]);
        studio_mesh mesh;
        pmf_error err;
        if (!studio_build_pose_mesh(b.m, &(studio_pose){ 1, frames[f], STUDIO_CONTROLLERS_SET }, 0, 0, true, &mesh, &err)) {
            check_fail("frame %g: %s", frames[f], err.message);
            continue;
        }
        CHECK(mesh.uvs == NULL && mesh.textures == NULL && mesh.triangle_count == 8);
        for (uint32_t t = 0; t < 8 && t < mesh.triangle_count; t++)
            for (int c = 0; c < 3; c++) {
                int model = body0[t].model, v = body0[t].v[c];
                float xyz[3];
                studio_build_vertex(model, v, xyz);
                double p[3] = { xyz[0], xyz[1], xyz[2] }, root[6];
                if (studio_build_vertex_bone(model, v) == 1) {
                    quaternion_turn(turn, p);
                    p[0] += studio_build_bone_value[1][0] + child_x;
                    p[1] += studio_build_bone_value[1][1];
                    p[2] += studio_build_bone_value[1][2];
                }
                for (int j = 0; j < 6; j++)
                    root[j] = studio_build_bone_value[0][j];
                bone_move(root, p);
                for (int a = 0; a < 3; a++)
                    CHECK_NEAR(mesh.positions[9 * t + 3 * c + a], p[a], 1e-4);
            }
        printf("frame %g: bone 1 %.3f units along, turned %.4f rad from frame %d\n", frames[f], child_x, 2 * s * angle, k);
        studio_mesh_free(&mesh);
    }
    close_built(&b);
}

static void test_parts(void)
{
    built b;
    static const corner_set body1[] = { { 1, { 0, 1, 2 }, 1 }, { 2, { 0, 1, 2 }, 2 }, { 2, { 0, 2, 3 }, 2 }, { 2, { 3, 2, 1 }, 2 } };
    if (open_built(0, &b)) {
        CHECK_EQ(studio_body_part_models(b.m, 1), 2);
        CHECK_EQ(studio_body_part_models(b.m, 2), 0);
        check_build(b.m, 1, 0, body1, 4, false);       /* body part 0: 1 % 2, part 1: (1 / 2) % 2 */
        check_build(b.m, 2, 0, body0, 5, false);       /* part 1 blank: (2 / 2) % 2 */
        check_build(b.m, 3, 1, body1, 1, false);
        check_build(b.m, 4, 1, body0, 8, false);       /* family 1: reference 0 is texture 3 */
        check_build(b.m, 0, 7, body0, 8, false);       /* a family past the file's is family 0 */
    }
    close_built(&b);
    /* the textures apart: the same meshes once attached */
    if (open_built(STUDIO_BUILD_EXTERNAL, &b)) {
        const studio_info *i = studio_get_info(b.m);
        CHECK(i->external_textures && i->texture_count == 0);
        check_build(b.m, 0, 1, body0, 8, false);
        check_build(b.m, 1, 0, body1, 4, false);
        pmf_error err;
        studio_file *alone = studio_open_memory(b.model, b.model_size, "built.mdl", &err);
        studio_mesh mesh;
        CHECK_ERROR(alone && studio_build_mesh(alone, 0, 0, &mesh, &err), err, "header");
        CHECK(strstr(err.message, "none attached") != NULL);
        CHECK_ERROR(studio_attach_textures(alone, alone, &err), err, "skins");
        CHECK_ERROR(b.t && studio_attach_textures(b.t, b.t, &err), err, "header");
        studio_close(alone);
    }
    close_built(&b);
    char name[64];
    CHECK(studio_texture_file_name("models/barney.mdl", name, sizeof name) && !strcmp(name, "models/barneyT.mdl"));
    CHECK(!studio_texture_file_name("models/barney.mdl", name, 18));
    CHECK(!studio_texture_file_name("mdl", name, sizeof name));
}

/* Every prefix of a file refused with one clean line. */
static void check_truncations(const uint8_t *data, size_t size, const char *what)
{
    for (size_t n = 0; n < size; n++) {
        uint8_t *copy = malloc(n ? n : 1);
        memcpy(copy, data, n);
        pmf_error err;
        studio_file *m = studio_open_memory(copy, n, what, &err);
        CHECK(m == NULL, "%s: %zu of %zu bytes opened", what, n, size);
        studio_close(m);
        if (!m)
            check_error_line_clean(&err);
        free(copy);
    }
}

/* Any byte set to 0xFF or 0x80: refused with one clean line, or every body and skin built. */
static void check_any_byte(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size);
    for (size_t at = 0; at < size; at++)
        for (int k = 0; k < 2; k++) {
            memcpy(copy, data, size);
            copy[at] = k ? 0x80 : 0xFF;
            pmf_error err;
            studio_file *m = studio_open_memory(copy, size, "any.mdl", &err);
            if (!m) {
                check_error_line_clean(&err);
                continue;
            }
            for (uint32_t body = 0; body < 4; body++) {
                studio_mesh mesh;
                if (studio_build_mesh(m, body, body & 1, &mesh, &err))
                    studio_mesh_free(&mesh);
                else
                    check_error_line_clean(&err);
            }
            studio_close(m);
        }
    free(copy);
}

/* The built model with `size` bytes (4 or 2) at byte `at` set to value: refused with block and words. */
static void check_damage(size_t at, uint32_t value, int size, const char *block, const char *words)
{
    built b = { 0 };
    if (!studio_build(0, &b.model, &b.model_size, &b.textures, &b.textures_size))
        return;
    if (size == 4)
        set_i32(b.model + at, value);
    else
        memcpy(b.model + at, (uint8_t[2]){ (uint8_t)value, (uint8_t)(value >> 8) }, 2);
    pmf_error err;
    studio_file *m = studio_open_memory(b.model, b.model_size, "bad.mdl", &err);
    CHECK(m == NULL, "byte %zu = %u opened", at, value);
    studio_close(m);
    if (!m) {
        check_error_line_clean(&err);
        CHECK(!strcmp(err.block, block), "byte %zu: block '%s', not '%s' (%s)", at, err.block, block, err.message);
        CHECK(strstr(err.message, words) != NULL, "byte %zu: '%s'", at, err.message);
    }
    free(b.model);
}

static void test_damaged(void)
{
    built b = { 0 };
    if (!studio_build(STUDIO_BUILD_EXTERNAL, &b.model, &b.model_size, &b.textures, &b.textures_size))
        return;
    check_truncations(b.model, b.model_size, "split.mdl");
    check_truncations(b.textures, b.textures_size, "splitT.mdl");
    close_built(&b);
    if (!studio_build(0, &b.model, &b.model_size, &b.textures, &b.textures_size))
        return;
    check_truncations(b.model, b.model_size, "built.mdl");
    check_any_byte(b.model, b.model_size);
    const uint8_t *d = b.model;
    size_t bones = (size_t)get_i32(d + 144), sequence = (size_t)get_i32(d + 168), parts = (size_t)get_i32(d + 208);
    size_t textures = (size_t)get_i32(d + 184), skins = (size_t)get_i32(d + 200);
    size_t animation = (size_t)get_i32(d + sequence + 124), model = (size_t)get_i32(d + parts + 72);
    size_t mesh = (size_t)get_i32(d + model + 76), commands = (size_t)get_i32(d + mesh + 4);
    check_damage(0, 0x54534449u + 1, 4, "header", "bad magic");
    check_damage(4, 11, 4, "header", "version 11");
    check_damage(140, 200, 4, "header", "bone count 200");
    check_damage(204, 0xFFFFFFFFu, 4, "header", "body part count -1");
    check_damage(144, 0x100000, 4, "bones", "outside the");
    check_damage(144, (uint32_t)b.model_size - 100, 4, "bones", "run past the end");
    check_damage(bones + 112 + 32, 1, 4, "bone 1", "parent 1");
    check_damage(bones + 64 + 8, 0x7FC00000u, 4, "bone 0", "value nan");
    check_damage(bones + 112 + 88, 0x7F000000u, 4, "bone 1", "scale");
    check_damage(sequence + 156, 5, 4, "sequence 0", "sequence group 5 of 1");
    check_damage(sequence + 124, 0xFFFFFFF0u, 4, "sequence 0", "bone animations at byte -");
    check_damage(animation + 4, 0xFFF0, 2, "sequence 0", "animation run at byte");
    check_damage(animation + 24, 0x0002, 2, "sequence 0", "an animation run of 0 frames");
    check_damage(parts + 68, 0, 4, "body part 0", "base 0");
    check_damage(parts + 76 + 64, 0, 4, "body part 1", "0 models");
    check_damage(model + 72, 100000, 4, "body part 0 model 0", "100000 meshes");
    check_damage((size_t)get_i32(d + model + 84) + 3, 0x05, 2, "body part 0 model 0", "vertex 3: bone 5 of 2");
    check_damage((size_t)get_i32(d + model + 88) + 12 + 4, 0x7F800000u, 4, "body part 0 model 0", "vertex inf");
    check_damage(mesh + 8, 3, 4, "body part 0 model 0 mesh 0", "skin reference 3 of 3");
    check_damage(commands + 2 + 8 * 2, 9, 2, "body part 0 model 0 mesh 0", "vertex 9 of a model of 5");
    check_damage(commands + 2 + 8 * 5, 0x7FFF, 2, "body part 0 model 0 mesh 0", "command vertices needs");
    check_damage(mesh + 4, (uint32_t)b.model_size, 4, "body part 0 model 0 mesh 0", "1 triangle commands of 2 bytes at byte");
    check_damage(textures + 68, 0, 4, "texture 0", "0 x 2 pixels");
    check_damage(textures + 80 * 3 + 76, (uint32_t)b.model_size - 10, 4, "texture 3", "pixels and palette");
    check_damage(skins + 2, 4, 2, "skins", "family 0 reference 1: texture 4 of 4");
    free(b.model);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: test_studio pose|parts|damaged\n", stderr);
        return 2;
    }
    static const check_case cases[] = { { "pose", test_pose }, { "parts", test_parts }, { "damaged", test_damaged },
                                        { "sequences", test_sequences }, { "activities", test_activities },
                                        { "controllers", test_controllers }, { "blend", test_blend }, { NULL, NULL } };
    return check_run_case(cases, argv[1]);
}
