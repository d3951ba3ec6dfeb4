/* test_mdl.c - Quake models: the real ones of ../shared/data/lq/progs (counts, frame 0's bounds,
 * names, a skin texel through the game's palette, the first corner's texture place, against a
 * separate reading of the files), and a model built here: a skin group, a frame group, a
 * back-facing triangle on the seam, a holey skin; every truncation and damage one clean error.
 * Usage: test_mdl real|built PROGS_DIR PALETTE */
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/programs.h"
#include "mdl.h"
#include "pmf/pmf_bytes.h"

static const char *progs;
static uint8_t *palette;

typedef struct real_model {
    const char *file;
    uint32_t skins, skin_width, skin_height, vertices, triangles, frames;
    const char *first_frame;
    uint32_t first_poses;
    float mins[3], maxs[3];
    uint8_t centre_texel[3];      /* skin 0's texel (width / 2, height / 2) through the palette */
} real_model;

/* from a reading of the files apart from this reader (Python's struct) */
static const real_model real_models[] = {
    { "armor.mdl", 3, 200, 200, 141, 148, 1, "frame1", 1, { -10.425f, -18.512f, 9.995f }, { 11.786f, 18.518f, 35.400f }, { 55, 75, 63 } },
    { "backpack.mdl", 1, 128, 128, 132, 104, 1, "frame1", 1, { -9.101f, -10.430f, 0.103f }, { 6.503f, 10.430f, 26.374f }, { 55, 43, 31 } },
    { "dog.mdl", 1, 256, 256, 303, 367, 86, "frame1", 1, { -28.326f, -12.622f, -24.346f }, { 35.635f, 8.726f, 6.180f }, { 175, 151, 139 } },
    { "flame.mdl", 1, 256, 256, 133, 118, 1, "flame1", 6, { -3.437f, -4.324f, -14.143f }, { 3.161f, 3.333f, 16.988f }, { 87, 43, 23 } },
    { "flame2.mdl", 1, 64, 128, 91, 102, 2, "flame1", 7, { -2.467f, -2.712f, -12.116f }, { 2.523f, 2.883f, 4.966f }, { 227, 151, 79 } },
    { "grenade.mdl", 1, 100, 100, 71, 68, 1, "frame1", 1, { -5.536f, -3.711f, -3.711f }, { 9.678f, 3.711f, 3.711f }, { 47, 47, 47 } },
    { "invulner.mdl", 1, 200, 200, 198, 172, 5, "frame1", 1, { -1.940f, -15.363f, 5.490f }, { 1.980f, 15.415f, 51.846f }, { 63, 0, 0 } },
    { "knight.mdl", 1, 256, 256, 727, 511, 97, "frame1", 1, { -10.700f, -19.856f, -24.978f }, { 11.736f, 20.461f, 28.166f }, { 123, 99, 83 } },
    { "ogre.mdl", 2, 256, 256, 478, 556, 147, "frame1", 1, { -8.957f, -19.543f, -24.093f }, { 34.030f, 25.123f, 34.932f }, { 135, 111, 95 } },
    { "quaddama.mdl", 1, 200, 200, 254, 228, 1, "frame1", 1, { -3.044f, -12.574f, 1.791f }, { 3.047f, 12.642f, 50.740f }, { 55, 55, 75 } },
    { "soldier.mdl", 1, 296, 194, 613, 886, 114, "flame_thin", 1, { -10.706f, -14.166f, -24.371f }, { 13.252f, 20.049f, 23.956f }, { 99, 47, 31 } },
    { "suit.mdl", 1, 256, 256, 305, 360, 1, "frame1", 1, { -4.609f, -10.288f, 1.865f }, { 6.571f, 10.634f, 47.378f }, { 71, 51, 27 } },
};

static mdl_file *open_model(const char *file, uint8_t **bytes)
{
    char path[2048];
    size_t size;
    snprintf(path, sizeof path, "%s/%s", progs, file);
    *bytes = test_read_file(path, &size);
    if (!*bytes) {
        check_fail("cannot read %s", path);
        return NULL;
    }
    pmf_error err;
    mdl_file *m = mdl_open_memory(*bytes, size, file, &err);
    char line[700];
    CHECK(m != NULL, "%s", pmf_error_format(&err, line, sizeof line));
    return m;
}

static void check_real(const real_model *r)
{
    uint8_t *bytes;
    mdl_file *m = open_model(r->file, &bytes);
    if (!m) {
        free(bytes);
        return;
    }
    const mdl_info *i = mdl_get_info(m);
    CHECK_EQ(i->skin_count, r->skins);
    CHECK_EQ(i->skin_width, r->skin_width);
    CHECK_EQ(i->skin_height, r->skin_height);
    CHECK_EQ(i->vertex_count, r->vertices);
    CHECK_EQ(i->triangle_count, r->triangles);
    CHECK_EQ(i->frame_count, r->frames);
    CHECK(!strcmp(mdl_frame_name(m, 0), r->first_frame), "%s: %s", r->file, mdl_frame_name(m, 0));
    CHECK_EQ(mdl_frame_poses(m, 0), r->first_poses);
    mdl_mesh mesh;
    pmf_error err;
    if (!mdl_build_mesh(m, 0, 0, palette, &mesh, &err)) {
        check_fail("%s: %s", r->file, err.message);
        mdl_close(m);
        free(bytes);
        return;
    }
    CHECK_EQ(mesh.triangle_count, r->triangles);
    for (int a = 0; a < 3; a++) {
        CHECK_NEAR(mesh.mins[a], r->mins[a], 1e-3);
        CHECK_NEAR(mesh.maxs[a], r->maxs[a], 1e-3);
    }
    const uint8_t *texel = mesh.rgba + 4 * ((size_t)(r->skin_height / 2) * r->skin_width + r->skin_width / 2);
    CHECK(!memcmp(texel, r->centre_texel, 3) && texel[3] == 255, "%s: texel %u %u %u %u", r->file, texel[0], texel[1], texel[2], texel[3]);
    for (size_t c = 0; c < (size_t)mesh.triangle_count * 3; c++)
        for (int a = 0; a < 3; a++)
            if (mesh.positions[3 * c + a] < r->mins[a] - 1e-3f || mesh.positions[3 * c + a] > r->maxs[a] + 1e-3f) {
                check_fail("%s: corner %zu outside frame 0's bounds", r->file, c);
                c = SIZE_MAX - 1;
                break;
            }
    mdl_mesh_free(&mesh);
    mdl_close(m);
    free(bytes);
}

/* The first triangle's first corner of armor.mdl: vertex 1, texel (41, 49) of a 200 x 200 skin;
 * soldier.mdl's animations by name; a skin past the model's is skin 0. */
static void check_real_details(void)
{
    uint8_t *bytes;
    mdl_file *m = open_model("armor.mdl", &bytes);
    mdl_mesh mesh, other;
    pmf_error err;
    if (m && mdl_build_mesh(m, 0, 0, palette, &mesh, &err)) {
        CHECK_NEAR(mesh.uvs[0], 41.5 / 200, 1e-6);
        CHECK_NEAR(mesh.uvs[1], 49.5 / 200, 1e-6);
        CHECK(mdl_build_mesh(m, 0, 2, palette, &other, &err));
        CHECK(memcmp(mesh.rgba, other.rgba, 200 * 200 * 4) != 0);  /* the third skin differs */
        mdl_mesh_free(&other);
        CHECK(mdl_build_mesh(m, 7, 3, palette, &other, &err));
        CHECK(!memcmp(mesh.rgba, other.rgba, 200 * 200 * 4) && !memcmp(mesh.positions, other.positions, 148 * 9 * sizeof(float)));
        mdl_mesh_free(&other);
        mdl_mesh_free(&mesh);
    }
    CHECK_EQ(mdl_get_info(m)->flags, MDL_FLAG_ROTATE);
    mdl_close(m);
    free(bytes);
    m = open_model("soldier.mdl", &bytes);
    if (m) {
        CHECK_EQ(mdl_find_animation(m, "flame_big"), 1);
        CHECK_EQ(mdl_find_animation(m, "FRAME"), 2);
        CHECK_EQ(mdl_find_animation(m, "frame12"), 11);
        CHECK_EQ(mdl_find_animation(m, "walk"), 0);
        CHECK(mdl_frame_name(m, 114) == NULL);
    }
    mdl_close(m);
    free(bytes);
}

static void test_real(void)
{
    for (size_t i = 0; i < sizeof real_models / sizeof *real_models; i++)
        check_real(&real_models[i]);
    check_real_details();
}

/* A 4 x 2 skin of 2 (the second a group of 2 pictures), 4 vertices (vertex 3 on the seam), a
 * front triangle (0 1 2) and a back one (1 3 2), 2 frames (the second a group of 2 poses). Skin
 * picture p's texel t is index 10 * p + t (255 at the holey test's texel 7); pose p puts vertex
 * v at (v + p, 2 v, 3) in bytes, scale 0.5, origin (1, 2, 3). */
static void build_model(pmf_buf *b, int32_t flags, bool hole)
{
    static const float scale[3] = { 0.5f, 0.5f, 0.5f }, origin[3] = { 1, 2, 3 }, eye[3] = { 0, 0, 24 };
    pmf_put_bytes(b, "IDPO", 4);
    pmf_put_u32(b, 6);
    pmf_put_f32s(b, scale, 3);
    pmf_put_f32s(b, origin, 3);
    pmf_put_f32(b, 10);
    pmf_put_f32s(b, eye, 3);
    const uint32_t counts[] = { 2, 4, 2, 4, 2, 2, 0, (uint32_t)flags };
    for (int k = 0; k < 8; k++)
        pmf_put_u32(b, counts[k]);
    pmf_put_f32(b, 1);
    pmf_put_u32(b, 0);
    for (int t = 0; t < 8; t++)
        pmf_put_u8(b, (uint8_t)(hole && t == 7 ? 255 : t));
    pmf_put_u32(b, 1);
    pmf_put_u32(b, 2);
    pmf_put_f32(b, 0.1f);
    pmf_put_f32(b, 0.2f);
    for (int p = 1; p <= 2; p++)
        for (int t = 0; t < 8; t++)
            pmf_put_u8(b, (uint8_t)(10 * p + t));
    const uint32_t st[4][3] = { { 0, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 }, { 32, 1, 1 } };
    for (int v = 0; v < 4; v++)
        for (int k = 0; k < 3; k++)
            pmf_put_u32(b, st[v][k]);
    const uint32_t triangles[2][4] = { { 1, 0, 1, 2 }, { 0, 1, 3, 2 } };
    for (int t = 0; t < 2; t++)
        for (int k = 0; k < 4; k++)
            pmf_put_u32(b, triangles[t][k]);
    for (int f = 0; f < 2; f++) {
        pmf_put_u32(b, (uint32_t)f);
        if (f) {
            pmf_put_u32(b, 2);
            pmf_put_u32(b, 0);
            pmf_put_u32(b, 0);
            pmf_put_f32(b, 0.1f);
            pmf_put_f32(b, 0.2f);
        }
        for (int p = f; p <= 2 * f; p++) {
            char name[16] = { 0 };
            snprintf(name, sizeof name, "pose%d", p);
            pmf_put_u32(b, 0);
            pmf_put_u32(b, 0);
            pmf_put_bytes(b, name, sizeof name);
            for (int v = 0; v < 4; v++) {
                const uint8_t xyzn[4] = { (uint8_t)(v + p), (uint8_t)(2 * v), 3, 0 };
                pmf_put_bytes(b, xyzn, 4);
            }
        }
    }
}

static void check_built_mesh(const mdl_file *m)
{
    mdl_mesh mesh;
    pmf_error err;
    if (!mdl_build_mesh(m, 1, 1, palette, &mesh, &err)) {
        check_fail("%s", err.message);
        return;
    }
    CHECK_EQ(mesh.triangle_count, 2);
    /* the back triangle's second corner is vertex 3 on the seam: s 1 + 4 / 2 */
    CHECK_NEAR(mesh.uvs[6 + 2], 3.5 / 4, 1e-6);
    CHECK_NEAR(mesh.uvs[6 + 3], 1.5 / 2, 1e-6);
    CHECK_NEAR(mesh.uvs[2], 1.5 / 4, 1e-6);  /* the front triangle's vertex 1, not on the seam */
    /* frame 1 is pose 1 (the group's first): vertex 3 at (4, 6, 3) * 0.5 + (1, 2, 3) */
    CHECK_NEAR(mesh.positions[9 + 3 + 0], 3.0, 1e-6);
    CHECK_NEAR(mesh.positions[9 + 3 + 1], 5.0, 1e-6);
    CHECK_NEAR(mesh.positions[9 + 3 + 2], 4.5, 1e-6);
    CHECK_NEAR(mesh.mins[0], 1.5, 1e-6);
    CHECK_NEAR(mesh.maxs[0], 3.0, 1e-6);
    /* skin 1 is the group's first picture: texel 5 is index 15 */
    CHECK(!memcmp(mesh.rgba + 4 * 5, palette + 3 * 15, 3));
    mdl_mesh_free(&mesh);
}

static void test_built_whole(void)
{
    pmf_buf b = { 0 };
    build_model(&b, 0, false);
    pmf_error err;
    mdl_file *m = mdl_open_memory(b.data, b.size, "built.mdl", &err);
    CHECK(m != NULL, "%s", err.message);
    if (m) {
        CHECK_EQ(mdl_skin_pictures(m, 1), 2);
        CHECK_EQ(mdl_frame_poses(m, 1), 2);
        CHECK(!strcmp(mdl_frame_name(m, 1), "pose1"));
        CHECK_EQ(mdl_find_animation(m, "pose"), 0);
        check_built_mesh(m);
        mdl_close(m);
    }
    pmf_buf_free(&b);
    build_model(&b, MDL_FLAG_HOLEY, true);
    m = mdl_open_memory(b.data, b.size, "holey.mdl", &err);
    mdl_mesh mesh;
    if (m && mdl_build_mesh(m, 0, 0, palette, &mesh, &err)) {
        CHECK_EQ(mesh.rgba[4 * 7 + 3], 0);
        CHECK_EQ(mesh.rgba[4 * 6 + 3], 255);
        mdl_mesh_free(&mesh);
    } else {
        check_fail("holey.mdl: %s", err.message);
    }
    mdl_close(m);
    pmf_buf_free(&b);
}

static void put_at(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* The built model with the u32 at byte `at` set to value: refused with block and words. */
static void check_damage(size_t at, uint32_t value, const char *block, const char *words)
{
    pmf_buf b = { 0 };
    build_model(&b, 0, false);
    put_at(b.data + at, value);
    pmf_error err;
    mdl_file *m = mdl_open_memory(b.data, b.size, "bad.mdl", &err);
    CHECK(m == NULL, "byte %zu = %u opened", at, value);
    mdl_close(m);
    if (!m) {
        check_error_line_clean(&err);
        CHECK(!strcmp(err.block, block), "byte %zu: block '%s', not '%s'", at, err.block, block);
        CHECK(strstr(err.message, words) != NULL, "byte %zu: '%s'", at, err.message);
    }
    pmf_buf_free(&b);
}

static void test_built_damaged(void)
{
    pmf_buf b = { 0 };
    build_model(&b, 0, false);
    /* every truncation is refused with one clean line; none reads past the end */
    for (size_t n = 0; n < b.size; n++) {
        uint8_t *copy = malloc(n ? n : 1);
        memcpy(copy, b.data, n);
        pmf_error err;
        mdl_file *m = mdl_open_memory(copy, n, "short.mdl", &err);
        CHECK(m == NULL, "%zu of %zu bytes opened", n, b.size);
        mdl_close(m);
        if (!m)
            check_error_line_clean(&err);
        free(copy);
    }
    pmf_buf_free(&b);
    check_damage(0, 0x4F504449u + 1, "header", "bad magic");
    check_damage(4, 8, "header", "version 8");
    check_damage(8, 0x7FC00000u, "header", "not finite");
    check_damage(48, 0, "header", "skin count 0");
    check_damage(52, 5000, "header", "skin width 5000");
    check_damage(60, 70000, "header", "vertex count 70000");
    check_damage(48, 0x7FFFFFFFu, "skins", "skins need at least");
    check_damage(68, 1000000, "frames", "frames need at least");
    check_damage(84 + 12 + 4, 0, "skin 1", "a group of 0");
    check_damage(84 + 12 + 4, 1000, "skin 1", "group's picture count");
    size_t triangles = 84 + 12 + 32 + 48, frames = triangles + 32;
    check_damage(triangles + 16 + 8, 4, "triangles", "vertex 4 of a model of 4");
    check_damage(triangles + 4, 0xFFFFFFFFu, "triangles", "vertex -1");
    check_damage(frames + 4 + 40 + 4, 0, "frame 1", "a group of 0");
    build_model(&b, 0, false);
    memset(b.data + frames + 4 + 8, 'A', 16);
    pmf_error err;
    CHECK_ERROR(mdl_open_memory(b.data, b.size, "bad.mdl", &err) != NULL, err, "frame 0");
    CHECK(strstr(err.message, "no NUL") != NULL);
    pmf_buf_free(&b);
}

static void test_built(void)
{
    test_built_whole();
    test_built_damaged();
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fputs("usage: test_mdl real|built PROGS_DIR PALETTE\n", stderr);
        return 2;
    }
    progs = argv[2];
    size_t size;
    palette = test_read_file(argv[3], &size);
    if (!palette || size != 768) {
        fprintf(stderr, "%s: not a 768-byte palette\n", argv[3]);
        return 1;
    }
    static const check_case cases[] = { { "real", test_real }, { "built", test_built }, { NULL, NULL } };
    int status = check_run_case(cases, argv[1]);
    free(palette);
    return status;
}
