/* scene_model_studio.c - GoldSrc studio models for the entities' models (docs/models.md): the
 * file opened with its texture file (NAMEt.mdl) when its textures live there, a sequence's group
 * file (NAMEnn.mdl) read when an entity plays it, and a body and skin family's pose at a
 * sequence's frame uploaded as one mesh whose textures are stacked into one picture. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/pmf_budget.h"
#include "pak.h"
#include "render_models.h"
#include "scene_internal.h"
#include "studio.h"

#define STUDIO_MAX_STACK_TEXELS (64u << 20) /* the stacked textures' texels at most (256 MiB of RGBA) */
#define STUDIO_MAX_STEPS 256u               /* a sequence's frames uploaded at most (scene_models.c's MAX_POSES) */

bool scene_studio_is(const uint8_t *bytes, size_t size)
{
    return size >= 4 && !memcmp(bytes, "IDST", 4);
}

/* The texture file of a model whose textures are not its own: the engine's NAMET.mdl, else the
 * NAMEt.mdl studiomdl writes (a loose file's name keeps its case). */
static bool open_texture_file(scene_studio *st, const game_fs *fs, const char *path, pmf_error *err)
{
    char name[1024];
    if (!studio_texture_file_name(path, name, sizeof name)) {
        pmf_error_set(err, path, "header", 0, "no name for its texture file");
        return false;
    }
    size_t size;
    int r = game_fs_read(fs, name, PAK_MAX_READ, &st->texture_bytes, &size, err);
    if (r == 0) {
        name[strlen(name) - 5] = 't';
        r = game_fs_read(fs, name, PAK_MAX_READ, &st->texture_bytes, &size, err);
    }
    if (r <= 0)
        return false;
    st->textures = studio_open_memory(st->texture_bytes, size, name, err);
    return st->textures && studio_attach_textures(st->model, st->textures, err);
}

bool scene_studio_open(scene_studio *st, const game_fs *fs, const char *path, const uint8_t *bytes, size_t size, pmf_error *err)
{
    *st = (scene_studio){ .model = NULL };
    st->model = studio_open_memory(bytes, size, path, err);
    if (st->model && (!studio_get_info(st->model)->external_textures || open_texture_file(st, fs, path, err))) {
        uint32_t groups = studio_get_info(st->model)->sequence_group_count;
        st->group_bytes = pmf_budget_calloc(groups ? groups : 1, sizeof *st->group_bytes);
        st->group_missing = pmf_budget_calloc(groups ? groups : 1, 1);
        if (st->group_bytes && st->group_missing)
            return true;
        pmf_error_set(err, path, "sequence groups", 0, "out of memory for %u sequence groups", groups);
    }
    scene_studio_close(st);
    return false;
}

void scene_studio_close(scene_studio *st)
{
    for (uint32_t g = 0; st->group_bytes && g < studio_get_info(st->model)->sequence_group_count; g++)
        pmf_budget_free(st->group_bytes[g]);
    pmf_budget_free(st->group_bytes);
    pmf_budget_free(st->group_missing);
    studio_close(st->model);
    studio_close(st->textures);
    pmf_budget_free(st->texture_bytes);
    *st = (scene_studio){ .model = NULL };
}

uint32_t scene_studio_skins(const scene_studio *st)
{
    uint32_t n = studio_get_info(st->textures ? st->textures : st->model)->skin_family_count;
    return n ? n : 1;
}

/* Sequence group `group`'s file read and attached once; false (one warning the first time) when
 * it does not read or is not a group file. */
static bool attach_group(scene_studio *st, const game_fs *fs, const char *classname, const char *path, uint32_t sequence, uint32_t group)
{
    if (st->group_bytes[group])
        return true;
    if (st->group_missing[group])
        return false;
    char name[1024], line[700];
    pmf_error err;
    size_t size = 0;
    bool ok = studio_group_file_name(path, group, name, sizeof name);
    if (!ok)
        pmf_error_set(&err, path, "sequence groups", 0, "no name for sequence group %u's file", group);
    ok = ok && game_fs_read(fs, name, PAK_MAX_READ, &st->group_bytes[group], &size, &err) > 0
      && studio_attach_group(st->model, group, st->group_bytes[group], size, name, &err);
    if (!ok) {
        fprintf(stderr, "pmfview: warning: %s: %s: sequence %u: %s: the bind pose drawn\n", classname, path, sequence,
                pmf_error_format(&err, line, sizeof line));
        pmf_budget_free(st->group_bytes[group]);
        st->group_bytes[group] = NULL;
        st->group_missing[group] = 1;
    }
    return ok;
}

/* Whether the class's own code runs its own choice of sequence at spawn: the dead monsters' poses,
 * the sitting scientist's, the turrets' and the tentacle's. */
static bool picks_own_sequence(const char *classname)
{
    static const char *const own[] = { "monster_sitting_scientist", "monster_turret", "monster_miniturret", "monster_sentry",
                                       "monster_tentacle" };
    size_t n = strlen(classname);
    if (n > 5 && !strcasecmp(classname + n - 5, "_dead"))
        return true;
    for (size_t k = 0; k < sizeof own / sizeof *own; k++)
        if (!strcasecmp(classname, own[k]))
            return true;
    return false;
}

uint32_t scene_studio_own_sequence(const scene_studio *st, const char *classname)
{
    if (strncasecmp(classname, "monster_", 8) != 0 || picks_own_sequence(classname))
        return 0;
    int64_t idle = studio_find_activity(st->model, STUDIO_ACT_IDLE);
    return idle >= 0 ? (uint32_t)idle : 0;
}

studio_controllers scene_studio_controllers(const char *classname)
{
    return !strncasecmp(classname, "monster_", 8) || !strncasecmp(classname, "cycler", 6) ? STUDIO_CONTROLLERS_SET
                                                                                           : STUDIO_CONTROLLERS_UNSET;
}

bool scene_studio_animation_of(scene_studio *st, const game_fs *fs, const char *classname, const char *path, uint32_t sequence,
                               uint32_t frame, scene_studio_animation *out, pmf_error *err)
{
    studio_sequence s;
    *out = (scene_studio_animation){ .sequence = SCENE_STUDIO_BIND, .steps = 1, .shown = 1 };
    if (studio_get_info(st->model)->sequence_count == 0)
        return true;
    if (!studio_get_sequence(st->model, sequence, &s, err))
        return false;
    if (s.group && !attach_group(st, fs, classname, path, sequence, s.group))
        return true;
    /* StudioEstimateFrame: `frame` is 256ths of the way to the last frame; a looping sequence
     * wraps at its last frame (the first again), another stops there */
    uint32_t last = s.frame_count - 1, at = (uint32_t)floor((double)frame * last / 256.0);
    out->sequence = sequence;
    out->shown = s.loops && last ? last : s.frame_count;
    out->steps = out->shown < STUDIO_MAX_STEPS ? out->shown : STUDIO_MAX_STEPS;
    out->start = (uint32_t)((uint64_t)(at < out->shown ? at : out->shown - 1) * out->steps / out->shown);
    out->rate = (double)s.fps * out->steps / out->shown;
    out->holds = !s.loops;
    return true;
}

/* One texture coordinate inside its own texture's texel centres, then placed in its band of the
 * stack (the textures repeat no further: a studio model's texels lie inside its textures). */
static float stacked(float t, uint32_t side, uint32_t at, uint32_t band, uint32_t total)
{
    float lo = 0.5f / (float)side, hi = 1 - lo;
    t = t < lo ? lo : t > hi ? hi : t;
    return ((float)at + t * (float)band) / (float)total;
}

/* The mesh's textures one under another (as wide as the widest) and each corner's (u, v) moved
 * into its texture's band; their pixels into *rgba when rgba is given. False when the stack would
 * be too large or memory runs out. */
static bool stack_textures(studio_mesh *mesh, uint8_t **rgba, uint32_t *width, uint32_t *height)
{
    uint64_t w = 1, h = 0;
    for (uint32_t i = 0; i < mesh->texture_count; i++) {
        w = mesh->textures[i].width > w ? mesh->textures[i].width : w;
        h += mesh->textures[i].height;
    }
    if (h == 0 || w * h > STUDIO_MAX_STACK_TEXELS || (rgba && !(*rgba = calloc((size_t)(w * h), 4))))
        return false;
    uint32_t *top = malloc((mesh->texture_count ? mesh->texture_count : 1) * sizeof *top);
    if (!top) {
        if (rgba)
            free(*rgba);
        return false;
    }
    uint32_t y = 0;
    for (uint32_t i = 0; i < mesh->texture_count; i++) {
        const studio_texture *t = &mesh->textures[i];
        top[i] = y;
        for (uint32_t row = 0; rgba && row < t->height; row++)
            memcpy(*rgba + ((size_t)(y + row) * w) * 4, t->rgba + (size_t)row * t->width * 4, (size_t)t->width * 4);
        y += t->height;
    }
    for (size_t c = 0; c < (size_t)mesh->triangle_count * 3; c++) {
        const studio_texture *t = &mesh->textures[mesh->triangle_textures[c / 3]];
        float *uv = mesh->uvs + 2 * c;
        uv[0] = stacked(uv[0], t->width, 0, t->width, (uint32_t)w);
        uv[1] = stacked(uv[1], t->height, top[mesh->triangle_textures[c / 3]], t->height, (uint32_t)h);
    }
    free(top);
    *width = (uint32_t)w;
    *height = (uint32_t)h;
    return true;
}

int scene_studio_add(render_models *gl, const scene_studio *st, const char *path, uint32_t body, uint32_t skin, const studio_pose *pose,
                     int like, pmf_error *err)
{
    studio_mesh mesh;
    if (!studio_build_pose_mesh(st->model, pose, body, skin, false, &mesh, err))
        return -1;
    uint8_t *rgba = NULL;
    uint32_t width = 0, height = 0;
    int handle = -1;
    if (!mesh.triangle_count)
        pmf_error_set(err, path, "body parts", 0, "body %u shows no triangle", body);
    else if (!stack_textures(&mesh, like >= 0 ? NULL : &rgba, &width, &height))
        pmf_error_set(err, path, "textures", 0, "its textures do not fit in memory");
    else {
        scene_model_world_axes(mesh.positions, (size_t)mesh.triangle_count * 3);
        const render_model_mesh upload = { mesh.triangle_count, mesh.positions, mesh.uvs, width, height, rgba };
        handle = like >= 0 ? render_models_add_pose(gl, like, &upload) : render_models_add(gl, &upload);
        if (handle < 0)
            pmf_error_set(err, path, "mesh", 0, "out of memory");
    }
    free(rgba);
    studio_mesh_free(&mesh);
    return handle;
}

bool scene_studio_set_pose(render_models *gl, int handle, const scene_studio *st, uint32_t body, uint32_t skin, const studio_pose *pose)
{
    studio_mesh mesh;
    pmf_error err;
    if (!studio_build_pose_mesh(st->model, pose, body, skin, true, &mesh, &err))
        return false;
    scene_model_world_axes(mesh.positions, (size_t)mesh.triangle_count * 3);
    bool ok = render_models_set_positions(gl, handle, mesh.positions, mesh.triangle_count);
    studio_mesh_free(&mesh);
    return ok;
}
