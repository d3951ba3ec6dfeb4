/* mdl_read.c - Quake alias models: the header, an index of skins and frames, meshes (see mdl.h). */
#include "mdl.h"
#include "base/pmf_budget.h"
#include "pmf/pmf_bytes.h"

#include <math.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#define HEADER_SIZE 84u
#define VERSION 6
#define ST_SIZE 12u                /* on-seam, s, t */
#define TRIANGLE_SIZE 16u          /* faces-front, vertex[3] */
#define POSE_HEADER 24u            /* bounding min, max, name[16] */
#define POSE_VERTEX 4u             /* x, y, z, normal index */
#define GROUP_BOUNDS 8u            /* a frame group's bounding min and max */

_Static_assert((uint64_t)MDL_MAX_SKIN_SIDE * MDL_MAX_SKIN_SIDE * 4 + (uint64_t)MDL_MAX_TRIANGLES * 3 * 5 * sizeof(float)
                   <= MDL_MAX_BYTES, "a mesh of the largest counts fits MDL_MAX_BYTES");

typedef struct part {
    size_t at;                     /* the first picture's or pose's byte */
    uint32_t count;                /* pictures or poses */
} part;

struct mdl_file {
    const uint8_t *data;
    size_t size;
    mdl_info info;
    part *skins, *frames;
    size_t st_at, triangles_at;
    char name[];                   /* the file, for errors */
};

static bool read_header(mdl_file *m, pmf_cursor *c)
{
    const uint8_t *magic = pmf_take(c, 4, "magic");
    if (!magic)
        return false;
    if (memcmp(magic, "IDPO", 4) != 0)
        return pmf_cursor_fail_at(c, 0, "bad magic (expected 'IDPO': a Quake model)");
    int32_t version = (int32_t)pmf_read_u32(c, "version");
    if (version != VERSION && !c->failed)
        return pmf_cursor_fail_at(c, 4, "version %d (a Quake model is version %d)", version, VERSION);
    mdl_info *i = &m->info;
    pmf_read_f32s(c, i->scale, 3, "scale");
    pmf_read_f32s(c, i->origin, 3, "origin");
    i->radius = pmf_read_f32(c, "bounding radius");
    pmf_read_f32s(c, i->eye, 3, "eye position");
    for (int a = 0; a < 3 && !c->failed; a++)
        if (!isfinite(i->scale[a]) || !isfinite(i->origin[a]))
            return pmf_cursor_fail_at(c, 8, "scale (%g %g %g) or origin (%g %g %g) not finite", i->scale[0], i->scale[1],
                                      i->scale[2], i->origin[0], i->origin[1], i->origin[2]);
    uint32_t *counts[] = { &i->skin_count, &i->skin_width, &i->skin_height, &i->vertex_count, &i->triangle_count, &i->frame_count };
    static const char *const what[] = { "skin count", "skin width", "skin height", "vertex count", "triangle count", "frame count" };
    static const uint32_t least[] = { 1, 1, 1, 0, 0, 1 };
    static const uint32_t most[] = { UINT32_MAX, MDL_MAX_SKIN_SIDE, MDL_MAX_SKIN_SIDE, MDL_MAX_VERTICES, MDL_MAX_TRIANGLES, UINT32_MAX };
    for (int k = 0; k < 6; k++) {
        size_t at = c->pos;
        int32_t v = (int32_t)pmf_read_u32(c, what[k]);
        if (c->failed)
            return false;
        if (v < (int64_t)least[k] || (uint32_t)v > most[k])
            return pmf_cursor_fail_at(c, at, "%s %d (%u to %u)", what[k], v, least[k], most[k]);
        *counts[k] = (uint32_t)v;
    }
    i->sync_type = (int32_t)pmf_read_u32(c, "sync type");
    i->flags = (int32_t)pmf_read_u32(c, "flags");
    pmf_read_f32(c, "size");
    return !c->failed;
}

/* A group's count (at least one) and its intervals, or 0 after an error. */
static uint32_t read_group(pmf_cursor *c, uint64_t least_each, const char *what)
{
    size_t at = c->pos;
    int32_t n = (int32_t)pmf_read_u32(c, what);
    if (c->failed)
        return 0;
    if (n < 1) {
        pmf_cursor_fail_at(c, at, "a group of %d (at least 1)", n);
        return 0;
    }
    if (!pmf_cursor_fits(c, (uint64_t)n, least_each + 4, what))
        return 0;
    return (uint32_t)n;
}

static bool index_skins(mdl_file *m, pmf_cursor *c)
{
    const mdl_info *i = &m->info;
    size_t picture = (size_t)i->skin_width * i->skin_height;
    c->block = "skins";
    if (!pmf_cursor_fits(c, i->skin_count, 4 + picture, "skins"))
        return false;
    m->skins = pmf_budget_calloc(i->skin_count, sizeof *m->skins);
    if (!m->skins)
        return pmf_cursor_fail_at(c, c->pos, "out of memory for %u skins", i->skin_count);
    for (uint32_t s = 0; s < i->skin_count; s++) {
        char block[32];
        snprintf(block, sizeof block, "skin %u", s);
        c->block = block;
        uint32_t type = pmf_read_u32(c, "skin type"), count = 1;
        if (type != 0) {
            count = read_group(c, picture, "group's picture count");
            pmf_take(c, (size_t)count * 4, "intervals");
        }
        m->skins[s].at = c->pos;
        m->skins[s].count = count;
        pmf_take(c, (size_t)count * picture, "pictures");
        c->block = "skins";  /* the name above ends with its loop */
        if (c->failed)
            return false;
    }
    return true;
}

static bool check_triangles(mdl_file *m, pmf_cursor *c)
{
    const mdl_info *i = &m->info;
    c->block = "texture coordinates";
    m->st_at = c->pos;
    pmf_take(c, (size_t)i->vertex_count * ST_SIZE, "texture coordinates");
    c->block = "triangles";
    m->triangles_at = c->pos;
    if (!pmf_cursor_fits(c, i->triangle_count, TRIANGLE_SIZE, "triangles"))
        return false;
    for (uint32_t t = 0; t < i->triangle_count; t++) {
        pmf_read_u32(c, "faces-front");
        for (int k = 0; k < 3; k++) {
            size_t at = c->pos;
            uint32_t v = pmf_read_u32(c, "vertex");
            if (!c->failed && v >= i->vertex_count)
                return pmf_cursor_fail_at(c, at, "triangle %u: vertex %d of a model of %u", t, (int32_t)v, i->vertex_count);
        }
    }
    return !c->failed;
}

/* A pose's header and vertices; its name must hold its NUL. */
static bool skip_pose(pmf_cursor *c, uint32_t vertices)
{
    size_t at = c->pos;
    const uint8_t *head = pmf_take(c, POSE_HEADER, "pose header");
    if (head && !memchr(head + 8, 0, MDL_NAME_SIZE))
        return pmf_cursor_fail_at(c, at + 8, "name has no NUL within %d bytes", MDL_NAME_SIZE);
    pmf_take(c, (size_t)vertices * POSE_VERTEX, "pose vertices");
    return !c->failed;
}

static bool index_frames(mdl_file *m, pmf_cursor *c)
{
    const mdl_info *i = &m->info;
    uint64_t pose = POSE_HEADER + (uint64_t)i->vertex_count * POSE_VERTEX;
    c->block = "frames";
    if (!pmf_cursor_fits(c, i->frame_count, 4 + pose, "frames"))
        return false;
    m->frames = pmf_budget_calloc(i->frame_count, sizeof *m->frames);
    if (!m->frames)
        return pmf_cursor_fail_at(c, c->pos, "out of memory for %u frames", i->frame_count);
    for (uint32_t f = 0; f < i->frame_count; f++) {
        char block[32];
        snprintf(block, sizeof block, "frame %u", f);
        c->block = block;
        uint32_t type = pmf_read_u32(c, "frame type"), count = 1;
        if (type != 0) {
            count = read_group(c, pose, "group's pose count");
            pmf_take(c, GROUP_BOUNDS + (size_t)count * 4, "bounds and intervals");
        }
        m->frames[f].at = c->pos;
        m->frames[f].count = count;
        for (uint32_t p = 0; p < count && !c->failed; p++)
            skip_pose(c, i->vertex_count);
        c->block = "frames";  /* the name above ends with its loop */
        if (c->failed)
            return false;
    }
    return true;
}

mdl_file *mdl_open_memory(const uint8_t *data, size_t size, const char *name, pmf_error *err)
{
    mdl_file *m = pmf_reader_handle(sizeof *m, offsetof(mdl_file, name), name, err);
    if (!m)
        return NULL;
    m->data = data;
    m->size = size;
    pmf_cursor c = pmf_cursor_make(data, size, 0, m->name, "header", err);
    if (size < HEADER_SIZE)
        pmf_cursor_fail_at(&c, 0, "%zu bytes are shorter than the %u-byte header", size, HEADER_SIZE);
    if (c.failed || !read_header(m, &c) || !index_skins(m, &c) || !check_triangles(m, &c) || !index_frames(m, &c)) {
        mdl_close(m);
        return NULL;
    }
    return m;
}

void mdl_close(mdl_file *m)
{
    if (!m)
        return;
    pmf_budget_free(m->skins);
    pmf_budget_free(m->frames);
    pmf_budget_free(m);
}

const mdl_info *mdl_get_info(const mdl_file *m) { return &m->info; }

const char *mdl_frame_name(const mdl_file *m, uint32_t frame)
{
    return frame < m->info.frame_count ? (const char *)m->data + m->frames[frame].at + 8 : NULL;
}

uint32_t mdl_frame_poses(const mdl_file *m, uint32_t frame)
{
    return frame < m->info.frame_count ? m->frames[frame].count : 0;
}

uint32_t mdl_skin_pictures(const mdl_file *m, uint32_t skin)
{
    return skin < m->info.skin_count ? m->skins[skin].count : 0;
}

static bool same_letter(char a, char b)
{
    if (a >= 'A' && a <= 'Z')
        a = (char)(a + ('a' - 'A'));
    if (b >= 'A' && b <= 'Z')
        b = (char)(b + ('a' - 'A'));
    return a == b;
}

uint32_t mdl_find_animation(const mdl_file *m, const char *name)
{
    for (uint32_t f = 0; f < m->info.frame_count; f++) {
        const char *frame = mdl_frame_name(m, f);
        size_t n = 0;
        while (name[n] && same_letter(frame[n], name[n]))
            n++;
        if (name[n])
            continue;
        while (frame[n] >= '0' && frame[n] <= '9')
            n++;
        if (!frame[n])
            return f;
    }
    return 0;
}

static int32_t read_i32(const uint8_t *p)
{
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

/* One place computes a coordinate, so a corner and the frame's bounds agree to the bit. */
static float vertex_coord(const mdl_info *i, const uint8_t *xyz, int axis)
{
    return i->scale[axis] * xyz[axis] + i->origin[axis];
}

static void decode_skin(const mdl_file *m, uint32_t skin, const uint8_t *palette, uint8_t *rgba)
{
    const uint8_t *texels = m->data + m->skins[skin].at;
    size_t count = (size_t)m->info.skin_width * m->info.skin_height;
    bool holey = (m->info.flags & MDL_FLAG_HOLEY) != 0;
    for (size_t t = 0; t < count; t++) {
        memcpy(rgba + 4 * t, palette + 3 * texels[t], 3);
        rgba[4 * t + 3] = holey && texels[t] == 255 ? 0 : 255;
    }
}

/* Every corner's position and texture place; a back-facing triangle takes an on-seam vertex's
 * texel from the skin's back half, as the engines do. */
static void build_corners(const mdl_file *m, const uint8_t *pose, mdl_mesh *out)
{
    const mdl_info *i = &m->info;
    const uint8_t *triangles = m->data + m->triangles_at, *st = m->data + m->st_at;
    for (uint32_t t = 0; t < i->triangle_count; t++) {
        const uint8_t *tri = triangles + (size_t)t * TRIANGLE_SIZE;
        bool front = read_i32(tri) != 0;
        for (int k = 0; k < 3; k++) {
            uint32_t v = (uint32_t)read_i32(tri + 4 + 4 * k);
            const uint8_t *xyz = pose + (size_t)v * POSE_VERTEX, *place = st + (size_t)v * ST_SIZE;
            float *p = out->positions + 9 * (size_t)t + 3 * k, *uv = out->uvs + 6 * (size_t)t + 2 * k;
            for (int a = 0; a < 3; a++)
                p[a] = vertex_coord(i, xyz, a);
            double s = read_i32(place + 4), tt = read_i32(place + 8);
            if (!front && read_i32(place) != 0)
                s += i->skin_width / 2;
            uv[0] = (float)((s + 0.5) / i->skin_width);
            uv[1] = (float)((tt + 0.5) / i->skin_height);
        }
    }
}

bool mdl_build_mesh(const mdl_file *m, uint32_t frame, uint32_t skin, const uint8_t *palette, mdl_mesh *out, pmf_error *err)
{
    const mdl_info *i = &m->info;
    frame = frame < i->frame_count ? frame : 0;
    skin = skin < i->skin_count ? skin : 0;
    size_t corners = (size_t)i->triangle_count * 3, texels = (size_t)i->skin_width * i->skin_height;
    mdl_mesh mesh = { .triangle_count = i->triangle_count, .skin_width = i->skin_width, .skin_height = i->skin_height };
    mesh.positions = pmf_budget_malloc(corners ? corners * 3 * sizeof(float) : 1);
    mesh.uvs = pmf_budget_malloc(corners ? corners * 2 * sizeof(float) : 1);
    mesh.rgba = pmf_budget_malloc(texels * 4);
    if (!mesh.positions || !mesh.uvs || !mesh.rgba) {
        mdl_mesh_free(&mesh);
        pmf_error_set(err, m->name, "mesh", 0, "out of memory for %u triangles and a %ux%u skin", i->triangle_count, i->skin_width,
                      i->skin_height);
        return false;
    }
    const uint8_t *pose = m->data + m->frames[frame].at + POSE_HEADER;
    for (int a = 0; a < 3; a++) {
        mesh.mins[a] = i->vertex_count ? 1e30f : 0.0f;
        mesh.maxs[a] = i->vertex_count ? -1e30f : 0.0f;
    }
    for (uint32_t v = 0; v < i->vertex_count; v++)
        for (int a = 0; a < 3; a++) {
            float p = vertex_coord(i, pose + POSE_VERTEX * v, a);
            mesh.mins[a] = p < mesh.mins[a] ? p : mesh.mins[a];
            mesh.maxs[a] = p > mesh.maxs[a] ? p : mesh.maxs[a];
        }
    build_corners(m, pose, &mesh);
    decode_skin(m, skin, palette, mesh.rgba);
    *out = mesh;
    return true;
}

void mdl_mesh_free(mdl_mesh *mesh)
{
    if (!mesh)
        return;
    pmf_budget_free(mesh->positions);
    pmf_budget_free(mesh->uvs);
    pmf_budget_free(mesh->rgba);
    mesh->positions = mesh->uvs = NULL;
    mesh->rgba = NULL;
}
