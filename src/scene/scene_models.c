/* scene_models.c - the models of a map's point entities (docs/models.md): each class the
 * built-in tables name (scene_model_classes.c: Quake's, or Half-Life's for a GoldSrc map), else an
 * entity's own `model` key, is drawn with its model (a Quake alias model, a GoldSrc studio model
 * (scene_model_studio.c), or a sprite turned and blended as scene_model_sprite.c says) from the
 * game directory (loose files and paks), at the entity's place, turned and scaled as its keys say
 * (pmfview.entity_placement), its frame and skin the entity's or else as the game's code sets
 * them, its animation or sprite frames played. A model that is not there or does not read is one
 * warning; its entities keep no model. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cglm/mat3.h>

#include "base/grow.h"
#include "base/pmf_budget.h"
#include "fgd.h"
#include "mdl.h"
#include "pak.h"
#include "render_models.h"
#include "spr.h"
#include "studio.h"
#include "scene_internal.h"

#define PALETTE_PATH "gfx/palette.lmp"
#define MAX_PLACES (1u << 16)          /* entities given a model at most: a hostile list stays bounded */
#define MAX_SCALE 256.0f               /* pmfc's range of the scale key (editor_placement.c) */
#define MIN_LIGHT (8.0f / 255.0f)      /* GLQuake's floor on a player's light: never quite black */
#define MAX_POSES 256                  /* a sprite's frames or pictures drawn at most */
#define MAX_ANIMATION 64               /* an alias model's animation's frames drawn at most */
#define POSES_PER_SECOND 10.0          /* Quake's monsters step their frames every 0.1 s (QuakeSpasm blends each over it) */
#define SPRITE_FRAMERATE 10.0f        /* env_sprite's framerate when the entity sets none (halflife.fgd's default) */
#define LIGHT_RETRY 8                  /* frames between looks for a light whose floor has not streamed in */

#define NOT_A_SPRITE (-1)

/* The models QuakeSpasm steps without blending (its r_nolerp_list's default): flames and
 * braziers, whose frames are flickers, and two view models. */
static const char *const no_lerp[] = { "progs/flame.mdl",     "progs/flame2.mdl",     "progs/braztall.mdl",
                                       "progs/brazshrt.mdl",  "progs/longtrch.mdl",   "progs/flame_pyre.mdl",
                                       "progs/v_saw.mdl",     "progs/v_xfist.mdl",    "progs/h2stuff/newfire.mdl" };

/* A file of the game directory, open while the entities are placed. */
typedef struct model_file {
    const char *path;
    uint8_t *bytes;
    mdl_file *alias;
    spr_file *sprite;
    scene_studio studio;               /* all three NULL: not there or broken (warned once) */
    size_t kept;                       /* 1 + its studio model's place in scene_models.studios once kept there, else 0 */
} model_file;

/* A studio model kept open while the scene draws it: its bytes and the model over them. */
typedef struct kept_studio {
    uint8_t *bytes;
    scene_studio studio;
} kept_studio;

/* A studio model's sequence played with its frames blended, as the engine draws it: each drawing
 * builds the pose of the moment into the place's own mesh. */
typedef struct studio_play {
    int handle;                        /* the place's own mesh (-1: none, the frames stepped) */
    size_t kept;                       /* its model in scene_models.studios */
    uint32_t body, skin;
    studio_pose pose;                  /* the sequence and controllers; frame: the one the mesh holds */
    double start, fps, last;           /* the frame at time 0, frames a second, the sequence's last frame */
    bool loops;
} studio_play;

/* A file's frame (a studio model's body) and skin, and a studio model's sequence, its frame and its
 * bone controllers (studio_controllers), uploaded. */
typedef struct model_mesh {
    size_t file;
    uint32_t frame, skin, sequence, sequence_frame, controllers;
    int handle;                        /* -1: did not build (warned once) */
} model_mesh;

/* What placing the models needs, freed once they are placed. */
typedef struct model_loader {
    render_models *gl;
    struct scene_models *sm;           /* where a played studio model is kept (studio_play) */
    fgd *defs;                         /* --fgd's classes, or NULL */
    const game_fs *fs;
    const uint8_t *palette;            /* Quake's (gfx/palette.lmp), NULL when the game has none */
    bool goldsrc;                      /* the map is a GoldSrc one: Half-Life's classes built in */
    model_file *files;
    size_t file_count, file_cap;
    model_mesh *meshes;
    size_t mesh_count, mesh_cap;
} model_loader;

/* What an entity shows: an animation's steps (a still model's or sprite's one), each one pose or
 * a sprite group's pictures. */
typedef struct model_poses {
    const char *file;                  /* the model's (valid while the loader is) */
    int sprite_type, sprite_version, sprite_format;
    uint32_t count, start;             /* the animation's steps; the one drawn at time 0 */
    double rate;                       /* steps a second, each as long (0: still) */
    bool holds;                        /* a step past the last shows the last (else round again) */
    uint32_t firsts[MAX_POSES + 1];    /* step k shows poses firsts[k] .. firsts[k + 1] - 1 */
    float ends[MAX_POSES];             /* a sprite group's: seconds into its cycle each picture ends at */
    int handles[MAX_POSES];
    uint32_t frames[MAX_POSES];        /* the file's frame each shows (the inspector names it) */
    studio_play play;                  /* a studio model's blended frames (handle -1: none) */
    int lerp;                          /* an alias model's mesh of its own for its blended poses (-1: stepped) */
} model_poses;

typedef struct model_place {
    uint32_t entity;                   /* in the map's entities */
    char *file;                        /* its model's file */
    size_t poses_at;                   /* its first pose's handle in scene_models.poses (and end, frame) */
    size_t steps_at;                   /* its steps' firsts in scene_models.step_firsts (pose_count + 1) */
    uint32_t pose_count, pose_start;   /* steps */
    double rate;
    bool holds;
    int sprite_type;
    render_model_look look;            /* a sprite's blend (its colour not yet times the exposure) */
    bool lit;                          /* takes the level's light: a model, a sprite as scene_sprite_lit says */
    float position[3];                 /* world metres */
    float angles[3], scale;            /* the entity's: degrees (pitch, yaw, roll), a factor */
    float turn[9];                     /* an alias model's axes in the world (column-major, scaled) */
    bool light_known;                  /* light found (scene_model_light_find); else asked each frame */
    scene_model_light light;
    studio_play play;
    int lerp;                          /* model_poses.lerp */
    double lerp_shown;                 /* the moment (in steps) its lerp mesh holds (-1: none yet) */
    int drawn;                         /* the mesh drawn in the last frame (-1: nothing shown), the inspector's */
} model_place;

/* An alias pose's positions (world axes, metres), kept to blend it with the next. */
typedef struct alias_positions {
    float *positions;
    uint32_t triangle_count;
} alias_positions;

typedef struct scene_models {
    render_models *gl;
    model_place *places;
    size_t place_count;
    int *poses;                        /* the places' animations' handles */
    float *ends;                       /* and their ends (model_poses.ends) */
    uint32_t *pose_frames;             /* and their frames */
    uint32_t *step_firsts;             /* the places' steps' first poses (model_poses.firsts) */
    size_t pose_count, pose_cap, end_cap, frame_cap, step_count, step_cap;
    double time;                       /* the last frame's (the inspector's poses) */
    render_light *states;              /* the lights' switches and scales, each frame */
    size_t state_cap, state_count;
    uint32_t frames;                   /* drawn so far: a light not found is looked for every LIGHT_RETRY, */
    size_t chunks_seen;                /* and when the resident chunks' count differs from the last frame's */
    uint8_t *missing;                  /* [entities]: 1 where the entity's model did not open (warned) */
    bool any_missing;
    kept_studio *studios;              /* the studio models whose frames are blended as they play */
    size_t studio_count, studio_cap;
    alias_positions *alias;            /* by mesh handle: an alias pose's positions (NULL: none kept) */
    size_t alias_count, alias_cap;
    float *blended;                    /* a blended alias pose's positions, built for each picture */
    size_t blended_cap;
} scene_models;

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && !strcasecmp(s + n - k, suffix);
}

void scene_model_world_axes(float *positions, size_t corners)
{
    for (size_t c = 0; c < corners; c++) {
        float *p = positions + 3 * c, x = p[0], y = p[1], z = p[2];
        p[0] = x * QUAKE_METRES_PER_UNIT;
        p[1] = z * QUAKE_METRES_PER_UNIT;
        p[2] = -y * QUAKE_METRES_PER_UNIT;
    }
}

/* A sprite's frame's picture as a quad in its own plane (x right, y up, metres): its handle, or -1
 * with err filled. */
static int add_sprite(render_models *gl, const spr_file *sprite, uint32_t frame, uint32_t picture, const uint8_t *palette,
                      pmf_error *err)
{
    spr_picture p;
    if (!spr_load_picture(sprite, frame, picture, palette, &p, err))
        return -1;
    const float s = QUAKE_METRES_PER_UNIT, left = (float)p.origin[0] * s, top = (float)p.origin[1] * s;
    const float right = left + (float)p.width * s, bottom = top - (float)p.height * s;
    const float positions[18] = { left, top, 0, right, top, 0, right, bottom, 0, left, top, 0, right, bottom, 0, left, bottom, 0 };
    const float uvs[12] = { 0, 0, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1 };
    int handle = render_models_add(gl, &(render_model_mesh){ 2, positions, uvs, p.width, p.height, p.rgba });
    if (handle < 0)
        pmf_error_set(err, "sprite", "picture", 0, "out of memory");
    spr_picture_free(&p);
    return handle;
}

/* The mesh's positions handed to the scene as handle's (alias_positions); left to the mesh when
 * out of memory (that pose is then stepped to, not blended). */
static void keep_positions(scene_models *sm, int handle, mdl_mesh *mesh)
{
    size_t need = (size_t)handle + 1;
    if (!grow_array((void **)&sm->alias, &sm->alias_cap, need, sizeof *sm->alias))
        return;
    for (; sm->alias_count < need; sm->alias_count++)
        sm->alias[sm->alias_count] = (alias_positions){ NULL, 0 };
    sm->alias[handle] = (alias_positions){ mesh->positions, mesh->triangle_count };
    mesh->positions = NULL;
}

/* An alias model's frame and skin in the world's axes (like >= 0: that model's skin, already
 * uploaded), its positions kept when `keep`: its handle, or -1 with err filled. */
static int add_alias(model_loader *l, const mdl_file *m, const char *path, uint32_t frame, uint32_t skin, int like, bool keep,
                     pmf_error *err)
{
    mdl_mesh mesh;
    if (!mdl_build_mesh(m, frame, skin, l->palette, &mesh, err))
        return -1;
    scene_model_world_axes(mesh.positions, (size_t)mesh.triangle_count * 3);
    const render_model_mesh upload = { mesh.triangle_count, mesh.positions, mesh.uvs, mesh.skin_width, mesh.skin_height, mesh.rgba };
    int handle = like >= 0 ? render_models_add_pose(l->gl, like, &upload) : render_models_add(l->gl, &upload);
    if (handle < 0)
        pmf_error_set(err, path, "mesh", 0, "out of memory");
    else if (keep)
        keep_positions(l->sm, handle, &mesh);
    mdl_mesh_free(&mesh);
    return handle;
}

/* The file at path, read and opened on its first entity; one warning when it is not there or
 * does not read (its later entities say nothing). NULL when out of memory. */
static model_file *open_file(model_loader *l, const char *classname, const char *path)
{
    for (size_t i = 0; i < l->file_count; i++)
        if (!strcasecmp(l->files[i].path, path))
            return &l->files[i];
    if (!grow_array((void **)&l->files, &l->file_cap, l->file_count + 1, sizeof *l->files))
        return NULL;
    model_file *f = &l->files[l->file_count++];
    *f = (model_file){ .path = path };
    size_t size;
    pmf_error err;
    char line[700];
    if (game_fs_read(l->fs, path, PAK_MAX_READ, &f->bytes, &size, &err) <= 0) {
        fprintf(stderr, "pmfview: warning: %s (%s): %s\n", classname, path, pmf_error_format(&err, line, sizeof line));
        return f;
    }
    if (ends_with(path, ".spr"))
        f->sprite = spr_open_memory(f->bytes, size, path, &err);
    else if (scene_studio_is(f->bytes, size))
        scene_studio_open(&f->studio, l->fs, path, f->bytes, size, &err);
    else
        f->alias = mdl_open_memory(f->bytes, size, path, &err);
    if (!f->sprite && !f->alias && !f->studio.model)
        fprintf(stderr, "pmfview: warning: %s: %s\n", classname, pmf_error_format(&err, line, sizeof line));
    if ((f->alias || (f->sprite && spr_get_info(f->sprite)->colour_count == 0)) && !l->palette) {
        /* Quake's models and sprites are palette indices */
        fprintf(stderr, "pmfview: warning: %s (%s): the game directory has no %s\n", classname, path, PALETTE_PATH);
        mdl_close(f->alias);
        spr_close(f->sprite);
        f->alias = NULL;
        f->sprite = NULL;
    }
    return f;
}

/* The handle of the file's frame and skin (a sprite's: its frame's picture; a studio model's: its
 * body at the sequence's frame), built on its first entity (like: a handle of the same skin, or
 * -1), -1 after one warning. */
static int mesh_handle(model_loader *l, const model_file *f, const char *classname, uint32_t frame, uint32_t skin,
                       const studio_pose *pose, int like)
{
    size_t file = (size_t)(f - l->files);
    const studio_pose none = { 0, 0, STUDIO_CONTROLLERS_SET };
    if (!pose)
        pose = &none;
    uint32_t sequence = pose->sequence, sequence_frame = (uint32_t)pose->frame, controllers = (uint32_t)pose->controllers;
    for (size_t i = 0; i < l->mesh_count; i++)
        if (l->meshes[i].file == file && l->meshes[i].frame == frame && l->meshes[i].skin == skin && l->meshes[i].sequence == sequence
            && l->meshes[i].sequence_frame == sequence_frame && l->meshes[i].controllers == controllers)
            return l->meshes[i].handle;
    if (!grow_array((void **)&l->meshes, &l->mesh_cap, l->mesh_count + 1, sizeof *l->meshes))
        return -1;
    pmf_error err;
    char line[700];
    int handle = f->sprite         ? add_sprite(l->gl, f->sprite, frame, skin, l->palette, &err)
                 : f->studio.model ? scene_studio_add(l->gl, &f->studio, f->path, frame, skin, pose, like, &err)
                                   : add_alias(l, f->alias, f->path, frame, skin, like, true, &err);
    if (handle < 0)
        fprintf(stderr, "pmfview: warning: %s: %s\n", classname, pmf_error_format(&err, line, sizeof line));
    l->meshes[l->mesh_count++] = (model_mesh){ file, frame, skin, sequence, sequence_frame, controllers, handle };
    return handle;
}

/* The entity's skin or frame when the model has it, else one warning and the class's own. */
static uint32_t pick(const pmf_entity_info *info, const char *path, const char *what, int32_t given, uint32_t count,
                     uint32_t own)
{
    if (given == PMF_NOT_GIVEN)
        return own;
    if (given >= 0 && (uint32_t)given < count)
        return (uint32_t)given;
    fprintf(stderr, "pmfview: warning: %s at (%g %g %g): %s %d, but %s has %u: %s %u drawn\n", info->classname,
            (double)info->position[0], (double)info->position[1], (double)info->position[2], what, (int)given, path, count,
            what, own);
    return own;
}

/* The model's axes in the world as Quake turns an alias model (R_RotateForEntity: yaw about the
 * vertical, then pitch (positive raising its front), then roll), scaled: Quake's rotation
 * Rz(yaw) Ry(-pitch) Rx(roll) seen through the axes' change (x, y, z) -> (x, z, -y). */
static void alias_turn(const float angles[3], float scale, float turn[9])
{
    const double d = M_PI / 180, p = -angles[0] * d, y = angles[1] * d, r = angles[2] * d;
    const double cy = cos(y), sy = sin(y), cp = cos(p), sp = sin(p), cr = cos(r), sr = sin(r);
    const double m[3][3] = { { cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr },
                             { sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr },
                             { -sp, cp * sr, cp * cr } };
    static const int quake_axis[3] = { 0, 2, 1 };      /* the world's x, y, z are Quake's x, z, -y */
    static const double quake_sign[3] = { 1, 1, -1 };
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
            turn[3 * j + i] = (float)(scale * quake_sign[i] * quake_sign[j] * m[quake_axis[i]][quake_axis[j]]);
}

static bool is_model_file(const char *path)
{
    return path && (ends_with(path, ".mdl") || ends_with(path, ".spr"));
}

/* The frame's name without its trailing digits ("stand" of "stand4"): its length. */
static size_t animation_name(const mdl_file *m, uint32_t frame, const char **name)
{
    *name = mdl_frame_name(m, frame);
    size_t n = *name ? strlen(*name) : 0;
    while (n && (*name)[n - 1] >= '0' && (*name)[n - 1] <= '9')
        n--;
    return n;
}

static bool same_animation(const mdl_file *m, uint32_t a, uint32_t b)
{
    const char *x, *y;
    size_t n = animation_name(m, a, &x);
    return n == animation_name(m, b, &y) && x && y && !strncasecmp(x, y, n);
}

/* The frames of the animation holding `frame` (stand1 .. stand9), MAX_ANIMATION at most. */
static void animation_span(const mdl_file *m, uint32_t frame, uint32_t *first, uint32_t *count)
{
    const uint32_t frames = mdl_get_info(m)->frame_count;
    *first = frame;
    while (*first > 0 && frame - *first + 1 < MAX_ANIMATION && same_animation(m, *first - 1, frame))
        (*first)--;
    *count = 1;
    while (*first + *count < frames && *count < MAX_ANIMATION && same_animation(m, *first + *count, frame))
        (*count)++;
}

static bool blends_poses(const char *path)
{
    for (size_t i = 0; i < sizeof no_lerp / sizeof *no_lerp; i++)
        if (!strcasecmp(path, no_lerp[i]))
            return false;
    return true;
}

/* An alias model's animation from `frame` in skin `skin`, and a mesh of the place's own to blend
 * its poses in (none for one pose or a model QuakeSpasm does not blend; stepped when it does not
 * build): false when a pose does not build. */
static bool alias_poses(model_loader *l, const model_file *f, const char *classname, uint32_t frame, uint32_t skin,
                        model_poses *out)
{
    uint32_t first;
    animation_span(f->alias, frame, &first, &out->count);
    out->start = frame - first;
    out->rate = POSES_PER_SECOND;
    for (uint32_t k = 0; k < out->count; k++) {
        out->frames[k] = first + k;
        out->firsts[k + 1] = k + 1;
        if ((out->handles[k] = mesh_handle(l, f, classname, first + k, skin, NULL, k ? out->handles[0] : -1)) < 0)
            return false;
    }
    pmf_error err;
    if (out->count > 1 && blends_poses(f->path))
        out->lerp = add_alias(l, f->alias, f->path, frame, skin, out->handles[0], false, &err);
    return true;
}

/* Frame `frame`'s pictures (a group's each with its end in the group's cycle) as step `step`,
 * after the poses before it, as many as fit in MAX_POSES: 1 when added, 0 when none fits, -1
 * when one does not build. */
static int sprite_step(model_loader *l, const model_file *f, const char *classname, uint32_t frame, uint32_t step, model_poses *out)
{
    uint32_t first = out->firsts[step], pictures = spr_frame_pictures(f->sprite, frame);
    pictures = pictures < MAX_POSES - first ? pictures : MAX_POSES - first;
    for (uint32_t k = 0; k < pictures; k++) {
        out->ends[first + k] = spr_picture_interval(f->sprite, frame, k);
        out->frames[first + k] = frame;
        if ((out->handles[first + k] = mesh_handle(l, f, classname, frame, k, NULL, -1)) < 0)
            return -1;
    }
    out->firsts[step + 1] = first + pictures;
    return pictures > 0;
}

/* A sprite's steps from `frame`: a GoldSrc sprite of more than two frames played at the entity's
 * framerate (else SPRITE_FRAMERATE; 0 stands still) from frame 0 to its last but one, as
 * env_sprite, env_glow and cycler_sprite step `frame` and wrap it at the last (fmod by frames -
 * 1); else the frame itself. A frame that is a group shows its pictures by their intervals
 * (Quake's and GoldSrc's R_GetSpriteFrame). MAX_POSES pictures in all at most. False when a
 * picture does not build. */
static bool sprite_poses(model_loader *l, const model_file *f, const pmf_entity_info *info, uint32_t frame, model_poses *out)
{
    const spr_info *si = spr_get_info(f->sprite);
    double rate = info->framerate >= 0 ? info->framerate : SPRITE_FRAMERATE;
    uint32_t played = si->frame_count - 1;
    out->sprite_version = si->version;
    out->sprite_format = (int)si->render;
    out->count = 1;
    out->start = 0;
    out->rate = 0;
    if (si->version == 2 && rate > 0 && played > 1) {
        int added = 1;
        out->rate = rate;
        for (out->count = 0; out->count < played && (added = sprite_step(l, f, info->classname, out->count, out->count, out)) > 0;)
            out->count++;
        out->start = frame < out->count ? frame : 0;
        return added >= 0 && out->count > 0;
    }
    return sprite_step(l, f, info->classname, frame, 0, out) > 0;
}

/* The file's studio model handed to scene_models.studios (once; the file's copy shares its
 * arrays, left to the scene to close): its place there + 1, 0 when out of memory. */
static size_t keep_studio(model_loader *l, model_file *f)
{
    scene_models *sm = l->sm;
    if (f->kept || !grow_array((void **)&sm->studios, &sm->studio_cap, sm->studio_count + 1, sizeof *sm->studios))
        return f->kept;
    sm->studios[sm->studio_count++] = (kept_studio){ f->bytes, f->studio };
    return f->kept = sm->studio_count;
}

/* The entity's sequence played with its frames blended (studio_play): its model kept, a mesh of
 * its own (another pose of the stepped ones') from the frame it starts at, as GoldSrc's
 * StudioEstimateFrame reads `frame` (256ths of the way to the last frame). Left at none (the
 * frames stepped) when that does not build. */
static void studio_play_begin(model_loader *l, model_file *f, const pmf_entity_info *info, uint32_t body, uint32_t skin,
                              const studio_sequence *s, uint32_t sequence, uint32_t frame, model_poses *out)
{
    const char *path = f->path;
    size_t kept = keep_studio(l, f);
    if (!kept)
        return;
    studio_play *play = &out->play;
    *play = (studio_play){ -1, kept - 1, body, skin, { sequence, 0, scene_studio_controllers(info->classname) },
                           (double)frame * (s->frame_count - 1) / 256.0, s->fps, s->frame_count - 1, s->loops };
    play->pose.frame = play->start;
    pmf_error err;
    play->handle = scene_studio_add(l->gl, &l->sm->studios[kept - 1].studio, path, body, skin, &play->pose, out->handles[0], &err);
}

/* A studio model's body and skin playing the entity's sequence (none given: the one its class's
 * code starts, scene_studio_own_sequence) from its frame (scene_studio_animation_of), its bone
 * controllers as its class's code leaves them: a step per frame shown (past 256, frames spread
 * evenly). False after one warning when the sequence is not the model's or a pose does not build. */
static bool studio_poses(model_loader *l, model_file *f, const pmf_entity_info *info, uint32_t body, uint32_t skin, model_poses *out)
{
    scene_studio_animation a;
    pmf_error err;
    char line[700];
    uint32_t own = scene_studio_own_sequence(&f->studio, info->classname);
    uint32_t sequence = pick(info, f->path, "sequence", info->sequence, studio_get_info(f->studio.model)->sequence_count, own);
    uint32_t frame = pick(info, f->path, "frame", info->frame, 256, 0);  /* 256ths of the sequence, as GoldSrc's */
    if (!scene_studio_animation_of(&f->studio, l->fs, info->classname, f->path, sequence, frame, &a, &err)) {
        fprintf(stderr, "pmfview: warning: %s: %s\n", info->classname, pmf_error_format(&err, line, sizeof line));
        return false;
    }
    *out = (model_poses){ .file = f->path, .sprite_type = NOT_A_SPRITE, .count = a.steps, .start = a.start, .rate = a.rate,
                          .holds = a.holds, .play.handle = -1, .lerp = -1 };
    for (uint32_t k = 0; k < a.steps; k++) {
        uint32_t shown = (uint32_t)((uint64_t)k * a.shown / a.steps);
        out->frames[k] = shown;
        out->firsts[k + 1] = k + 1;
        const studio_pose pose = { a.sequence, shown, scene_studio_controllers(info->classname) };
        if ((out->handles[k] = mesh_handle(l, f, info->classname, body, skin, &pose, k ? out->handles[0] : -1)) < 0)
            return false;
    }
    studio_sequence s;
    if (a.sequence != SCENE_STUDIO_BIND && studio_get_sequence(f->studio.model, a.sequence, &s, &err) && s.fps > 0 && s.frame_count > 1)
        studio_play_begin(l, f, info, body, skin, &s, a.sequence, frame, out);
    return true;
}

/* The entity's model: its class's in --fgd's definitions (a file, or its `model` key), else the
 * one pmfc gave it (its `model` key, or its class's in pmfc's definitions), else its class's in
 * the built-in table; false when it has none or it does not draw. Its frame and skin: the
 * entity's, else the definition's, else (the built-in class's own file) the game code's; an
 * alias model's animation from that frame on. */
static bool entity_model(model_loader *l, const pmf_entity_info *info, model_poses *out, bool *wanted)
{
    const scene_model_class *c = scene_model_class_find(info->classname, l->goldsrc);
    fgd_model def = { NULL, NULL, FGD_NOT_GIVEN, FGD_NOT_GIVEN };
    bool defined = l->defs && fgd_class_model(l->defs, info->classname, &def);
    const char *path = !defined ? NULL : def.path ? def.path : !strcasecmp(def.key, "model") ? info->model : NULL;
    if (!is_model_file(path)) {
        def = (fgd_model){ NULL, NULL, FGD_NOT_GIVEN, FGD_NOT_GIVEN };
        path = is_model_file(info->model) ? info->model : c ? c->model : NULL;
    }
    const scene_model_class *own = c && path && !strcasecmp(path, c->model) ? c : NULL;
    *wanted = path != NULL;
    model_file *f = path ? open_file(l, info->classname, path) : NULL;
    if (!f || (!f->alias && !f->sprite && !f->studio.model))
        return false;
    out->sprite_type = f->sprite ? (int)spr_get_info(f->sprite)->type : NOT_A_SPRITE;
    out->sprite_version = 0;
    out->file = f->path;
    out->firsts[0] = 0;
    out->holds = false;
    out->play.handle = -1;
    out->lerp = -1;
    uint32_t frame = def.frame != FGD_NOT_GIVEN ? (uint32_t)def.frame : 0, skin = def.skin != FGD_NOT_GIVEN ? (uint32_t)def.skin : 0;
    if (f->studio.model) {
        /* its body groups stand where an alias model's frame does (the engine picks each body
         * part's model from the one number) */
        uint32_t body = info->body >= 0 ? (uint32_t)info->body : 0, families = scene_studio_skins(&f->studio);
        skin = pick(info, path, "skin", info->skin, families, skin < families ? skin : 0);
        return studio_poses(l, f, info, body, skin, out);
    }
    if (f->sprite) {
        frame = pick(info, path, "frame", info->frame, spr_get_info(f->sprite)->frame_count, frame);
        return sprite_poses(l, f, info, frame, out);
    }
    const mdl_info *mi = mdl_get_info(f->alias);
    if (own && own->animation && def.frame == FGD_NOT_GIVEN)
        frame = mdl_find_animation(f->alias, own->animation);
    if (own && def.skin == FGD_NOT_GIVEN)
        skin = own->skin;
    frame = pick(info, path, "frame", info->frame, mi->frame_count, frame < mi->frame_count ? frame : 0);
    skin = pick(info, path, "skin", info->skin, mi->skin_count, skin < mi->skin_count ? skin : 0);
    return alias_poses(l, f, info->classname, frame, skin, out);
}

/* The scale as the viewer draws it: a file's out of pmfc's range is one warning and 1. */
static float entity_scale(const pmf_entity_info *info)
{
    if (info->scale >= 1.0f / MAX_SCALE && info->scale <= MAX_SCALE)
        return info->scale;
    fprintf(stderr, "pmfview: warning: %s at (%g %g %g): scale %g out of 1/%g..%g: 1 drawn\n", info->classname,
            (double)info->position[0], (double)info->position[1], (double)info->position[2], (double)info->scale,
            (double)MAX_SCALE, (double)MAX_SCALE);
    return 1;
}

/* The entity's angles as its game code turns them: GoldSrc's env_sprite moves a yaw Hammer set
 * (and no roll) into its roll (CSprite::Spawn), which turns a parallel oriented sprite. */
static void entity_angles(const model_loader *l, const pmf_entity_info *info, float angles[3])
{
    memcpy(angles, info->angles, 3 * sizeof *angles);
    if (l->goldsrc && !strcasecmp(info->classname, "env_sprite") && angles[1] != 0 && angles[2] == 0) {
        angles[2] = angles[1];
        angles[1] = 0;
    }
}

static void place_models(scene *s, scene_models *sm, model_loader *l)
{
    const pmf_entities *e = &s->map_info.entities;
    sm->places = calloc(e->count < MAX_PLACES ? e->count : MAX_PLACES, sizeof *sm->places);
    sm->missing = calloc(e->count ? e->count : 1, 1);
    for (uint32_t i = 0; sm->places && sm->missing && i < e->count && sm->place_count < MAX_PLACES; i++) {
        const pmf_entity_info *info = &e->list[i];
        model_poses poses;
        size_t total = sm->pose_count;
        bool wanted = false;
        if (info->level != s->level)
            continue;
        if (!entity_model(l, info, &poses, &wanted)) {
            sm->missing[i] = wanted;  /* a marker stands where the model would (docs/models.md) */
            sm->any_missing |= wanted;
            continue;
        }
        uint32_t pictures = poses.firsts[poses.count];
        if (!grow_array((void **)&sm->poses, &sm->pose_cap, total + pictures, sizeof *sm->poses)
            || !grow_array((void **)&sm->ends, &sm->end_cap, total + pictures, sizeof *sm->ends)
            || !grow_array((void **)&sm->pose_frames, &sm->frame_cap, total + pictures, sizeof *sm->pose_frames)
            || !grow_array((void **)&sm->step_firsts, &sm->step_cap, sm->step_count + poses.count + 1, sizeof *sm->step_firsts))
            continue;
        char *file = strdup(poses.file);
        if (!file)
            continue;
        model_place *p = &sm->places[sm->place_count++];
        *p = (model_place){ .entity = i, .file = file, .poses_at = total, .steps_at = sm->step_count, .pose_count = poses.count,
                            .pose_start = poses.start, .rate = poses.rate, .holds = poses.holds, .sprite_type = poses.sprite_type,
                            .play = poses.play, .lerp = poses.lerp, .lerp_shown = -1, .drawn = -1 };
        memcpy(sm->poses + total, poses.handles, pictures * sizeof *poses.handles);
        memcpy(sm->ends + total, poses.ends, pictures * sizeof *poses.ends);
        memcpy(sm->pose_frames + total, poses.frames, pictures * sizeof *poses.frames);
        memcpy(sm->step_firsts + sm->step_count, poses.firsts, (poses.count + 1) * sizeof *poses.firsts);
        sm->pose_count += pictures;
        sm->step_count += poses.count + 1;
        p->lit = poses.sprite_type == NOT_A_SPRITE || scene_sprite_lit(poses.sprite_version, poses.sprite_format, info);
        if (poses.sprite_type == NOT_A_SPRITE)
            scene_model_look(info, &p->look);
        else
            scene_sprite_look(poses.sprite_version, info, &p->look);
        memcpy(p->position, info->position, sizeof p->position);
        entity_angles(l, info, p->angles);
        p->scale = entity_scale(info);
        alias_turn(p->angles, p->scale, p->turn);
    }
}

static void loader_free(model_loader *l)
{
    for (size_t i = 0; i < l->file_count; i++) {
        if (l->files[i].kept)
            continue;  /* the scene's now */
        mdl_close(l->files[i].alias);
        spr_close(l->files[i].sprite);
        scene_studio_close(&l->files[i].studio);
        pmf_budget_free(l->files[i].bytes);
    }
    free(l->files);
    free(l->meshes);
}

/* Quake's palette: false when the game has none (a GoldSrc game: its models and sprites carry
 * their own), after one warning when the file is no palette. */
static bool read_palette(const game_fs *fs, uint8_t palette[768])
{
    uint8_t *bytes = NULL;
    size_t size = 0;
    pmf_error err;
    char line[700];
    int r = game_fs_read(fs, PALETTE_PATH, 768, &bytes, &size, &err);
    if (r > 0 && size == 768)
        memcpy(palette, bytes, 768);
    else if (r > 0)
        fprintf(stderr, "pmfview: warning: %s: %zu bytes, not a palette of 768: Quake's models and sprites are not drawn\n",
                PALETTE_PATH, size);
    else if (r < 0)
        fprintf(stderr, "pmfview: warning: Quake's models and sprites are not drawn: %s\n", pmf_error_format(&err, line, sizeof line));
    pmf_budget_free(bytes);
    return r > 0 && size == 768;
}

/* --fgd's definitions: NULL when none are given; one that does not read is one warning (the
 * classes read before its error are kept). */
static fgd *read_definitions(const char *const *fgds, size_t count)
{
    fgd *defs = count ? fgd_new() : NULL;
    pmf_error err;
    char line[700];
    for (size_t i = 0; defs && i < count; i++)
        if (!fgd_add_file(defs, fgds[i], &err))
            fprintf(stderr, "pmfview: warning: %s: its classes from there on are not used\n", pmf_error_format(&err, line, sizeof line));
    return defs;
}

void scene_models_open(scene *s, const char *game_dir, const char *const *fgds, size_t fgd_count)
{
    if (!game_dir || !s->map_info.entities.count)
        return;
    pmf_error err;
    char line[700];
    game_fs *fs = game_fs_open(game_dir, &err);
    if (!fs) {
        fprintf(stderr, "pmfview: warning: no entity models: %s\n", pmf_error_format(&err, line, sizeof line));
        return;
    }
    uint8_t palette[768];
    bool quake_palette = read_palette(fs, palette);
    scene_models *sm = calloc(1, sizeof *sm);
    if (sm && !(sm->gl = render_models_create(line, sizeof line))) {
        fprintf(stderr, "pmfview: warning: no entity models: %s\n", line);
        free(sm);
        sm = NULL;
    }
    if (sm) {
        model_loader l = { .gl = sm->gl, .sm = sm, .defs = read_definitions(fgds, fgd_count), .fs = fs, .palette = quake_palette ? palette : NULL,
                           .goldsrc = s->map_info.source.look == PMF_LOOK_GOLDSRC };
        place_models(s, sm, &l);
        fgd_free(l.defs);
        loader_free(&l);
        s->models = sm;
    }
    game_fs_close(fs);
}

/* The place's model frame in the camera's: its axes (turned and scaled) and its origin. */
static void place_matrix(const scene *s, const model_place *p, float place[16])
{
    float at[3];
    camera_frame_point(&s->cam, p->position, at);
    memset(place, 0, 16 * sizeof *place);
    if (p->sprite_type != NOT_A_SPRITE) {
        scene_sprite_axes(&s->cam, p->sprite_type, p->angles, at, place, place + 4);
        float scale = p->look.blend == RENDER_MODEL_GLOW ? p->scale * scene_glow_scale(s, at) : p->scale;
        for (int k = 0; k < 3; k++) {
            place[k] *= scale;
            place[4 + k] *= scale;
        }
    } else {
        for (int j = 0; j < 3; j++)
            memcpy(place + 4 * j, p->turn + 3 * j, 3 * sizeof *place);
    }
    memcpy(place + 12, at, sizeof at);
    place[15] = 1;
}

/* What a place's skin is multiplied by: 1 for a sprite the engines draw unlit (scene_sprite_lit),
 * in a level without lightmaps and in the fullbright mode, as the world's faces; else the light
 * under it (a model's at least MIN_LIGHT, its colour kept as QuakeSpasm raises it; a sprite's as it
 * is, as Xash3D's R_LightPoint gives it) through the game's look as the world's shader takes its
 * light; times the exposure. */
static void place_light(const scene *s, model_place *p, const render_frame *f, size_t state_count, float out[3])
{
    float light[3] = { 1, 1, 1 };
    if (p->lit && !(s->map_info.source.flags & PMF_SOURCE_FULLBRIGHT) && f->mode != RENDER_MODE_FULLBRIGHT) {
        if (!p->light_known && (s->models->frames % LIGHT_RETRY == 0 || s->chunk_count != s->models->chunks_seen))
            p->light_known = scene_model_light_find(s, p->position, &p->light);
        scene_model_light_value(&p->light, s->models->states, state_count, light);
        float sum = light[0] + light[1] + light[2];
        for (int k = 0; k < 3 && sum < 3 * MIN_LIGHT && p->sprite_type == NOT_A_SPRITE; k++)
            light[k] += (3 * MIN_LIGHT - sum) / 3;
        for (int k = 0; k < 3; k++)
            light[k] = f->look == RENDER_LOOK_GOLDSRC ? powf(light[k], 0.4f) : f->look == RENDER_LOOK_QUAKE ? 2 * light[k] : light[k];
    }
    for (int k = 0; k < 3; k++)
        out[k] = light[k] * f->exposure;
}

/* The place's pose at time (seconds), its index in scene_models.poses: its animation's step at its
 * rate (round again, or the last held), and of that step's poses (a sprite group's pictures) the
 * first whose end is past the time into the group's cycle, the last when none is, as the engines
 * look it up. */
static size_t place_pose(const scene_models *sm, const model_place *p, double time)
{
    uint64_t k = 0;
    if (p->rate > 0) {
        double step = floor(time * p->rate);
        k = step > 0 && step < 1e15 ? (uint64_t)step : 0;
    }
    uint64_t step = p->pose_start + k;
    step = p->holds ? (step < p->pose_count ? step : p->pose_count - 1) : step % p->pose_count;
    const uint32_t *firsts = sm->step_firsts + p->steps_at;
    uint32_t first = firsts[step], count = firsts[step + 1] - first;
    const float *ends = sm->ends + p->poses_at + first;
    double cycle = ends[count - 1], into = time > 0 && count > 1 ? fmod(time, cycle) : 0;
    uint32_t picture = 0;
    while (picture + 1 < count && !(ends[picture] > into))
        picture++;
    return p->poses_at + first + picture;
}

/* A played studio model's mesh at time (seconds): its sequence's frame then (StudioEstimateFrame:
 * from its start at its frames a second, a looping one round again at its last frame, another held
 * just short of it, 0.001 of a frame), the pose built again when the frame moved. */
static int play_pose(scene_models *sm, model_place *p, double time)
{
    studio_play *play = &p->play;
    double frame = play->start + (time > 0 ? time : 0) * play->fps;
    if (play->loops)
        frame = fmod(frame, play->last);
    else if (frame > play->last - 0.001)
        frame = play->last - 0.001;
    if (frame != play->pose.frame) {
        studio_pose pose = play->pose;
        pose.frame = frame;
        if (scene_studio_set_pose(sm->gl, play->handle, &sm->studios[play->kept].studio, play->body, play->skin, &pose))
            play->pose.frame = frame;
    }
    return play->handle;
}

/* A kept alias pose's positions, NULL when none is kept. */
static const alias_positions *pose_positions(const scene_models *sm, int handle)
{
    return handle >= 0 && (size_t)handle < sm->alias_count && sm->alias[handle].positions ? &sm->alias[handle] : NULL;
}

/* A blended alias place's mesh at time (seconds), as QuakeSpasm draws an alias model
 * (R_SetupAliasFrame, r_lerpmodels 1): when a step begins (its frame changed, 0.1 s after the one
 * before) the model blends from the pose before to the step's over the 0.1 s, so each pose is
 * whole only as the next step begins; the first step (the entity as it spawned: LERP_RESETANIM)
 * stands whole. The blend is built into the place's own mesh when the moment moved. */
static int lerp_pose(scene_models *sm, model_place *p, double time)
{
    double steps = time > 0 ? time * p->rate : 0, whole = floor(steps), blend = steps - whole;
    const int *handles = sm->poses + p->poses_at;
    const uint32_t *firsts = sm->step_firsts + p->steps_at;
    if (whole < 1 || !(whole < 1e15))
        return handles[firsts[p->pose_start]];
    uint32_t to = (uint32_t)fmod(whole + p->pose_start, p->pose_count), from = (to + p->pose_count - 1) % p->pose_count;
    const alias_positions *a = pose_positions(sm, handles[firsts[from]]), *b = pose_positions(sm, handles[firsts[to]]);
    if (blend == 0 || !a || !b || a->triangle_count != b->triangle_count)
        return handles[firsts[blend == 0 ? from : to]];
    if (steps != p->lerp_shown) {
        size_t count = (size_t)a->triangle_count * 9;
        if (!grow_array((void **)&sm->blended, &sm->blended_cap, count, sizeof *sm->blended))
            return handles[firsts[to]];
        for (size_t i = 0; i < count; i++)
            sm->blended[i] = a->positions[i] + (b->positions[i] - a->positions[i]) * (float)blend;
        if (!render_models_set_positions(sm->gl, p->lerp, sm->blended, a->triangle_count))
            return handles[firsts[to]];
        p->lerp_shown = steps;
    }
    return p->lerp;
}

static bool place_blended(const model_place *p)
{
    return p->look.blend != RENDER_MODEL_OPAQUE;
}

/* Draws place i: its pose at the frame's time, lit (an opaque model) or in its look: a blended
 * model's colour and a lit sprite's times the light under it, an additive model's and an unlit
 * sprite's the exposure alone; a glow faded, or hidden, as scene_glow_shown says. */
static void draw_place(scene *s, size_t i, const render_frame *f, const float view_proj[16], size_t state_count)
{
    scene_models *sm = s->models;
    model_place *p = &sm->places[i];
    float place[16], transform[16], light[3];
    place_matrix(s, p, place);
    render_mat4_mul(view_proj, place, transform);
    place_light(s, p, f, state_count, light);
    int pose = p->play.handle >= 0 ? play_pose(sm, p, f->time)
               : p->lerp >= 0      ? lerp_pose(sm, p, f->time)
                                   : sm->poses[place_pose(sm, p, f->time)];
    bool model = p->sprite_type == NOT_A_SPRITE;
    p->drawn = pose;
    if (model && p->look.blend == RENDER_MODEL_OPAQUE) {
        render_models_draw(sm->gl, pose, transform, light);
        return;
    }
    render_model_look look = p->look;
    float fade = 1;
    bool hidden = !(look.colour[3] > 0)  /* before a glow's trace */
                  || (look.blend == RENDER_MODEL_GLOW && !scene_glow_shown(s, place + 12, &fade));  /* place + 12: its centre */
    if (hidden) {
        p->drawn = -1;
        return;
    }
    look.colour[3] *= fade;
    bool lit = model ? look.blend == RENDER_MODEL_ALPHA : p->lit;
    for (int k = 0; k < 3; k++)
        look.colour[k] *= lit ? light[k] : f->exposure;
    render_models_draw_look(sm->gl, pose, transform, &look);
}

void scene_models_draw(scene *s, const render_frame *f)
{
    scene_models *sm = s->models;
    if (!sm || s->settings.no_models)
        return;
    size_t state_count = render_world_lights(s->world, NULL, 0);
    if (!grow_array((void **)&sm->states, &sm->state_cap, state_count, sizeof *sm->states))
        state_count = 0;
    render_world_lights(s->world, sm->states, state_count);
    sm->state_count = state_count;  /* for the blended models after the world's blended faces */
    float view_proj[16];
    render_mat4_mul(f->proj, f->view, view_proj);
    for (size_t i = 0; i < sm->place_count; i++)
        if (!place_blended(&sm->places[i]))
            draw_place(s, i, f, view_proj, state_count);
    sm->frames++;
    sm->chunks_seen = s->chunk_count;
    sm->time = f->time;
}

typedef struct blended_place {
    float depth;                       /* along the view, metres */
    size_t index;
} blended_place;

static int farther_first(const void *a, const void *b)
{
    float x = ((const blended_place *)a)->depth, y = ((const blended_place *)b)->depth;
    return (x < y) - (x > y);
}

void scene_models_draw_blended(scene *s, const render_frame *f)
{
    scene_models *sm = s->models;
    if (!sm || s->settings.no_models)
        return;
    size_t count = 0;
    for (size_t i = 0; i < sm->place_count; i++)
        count += place_blended(&sm->places[i]);
    blended_place *order = count ? malloc(count * sizeof *order) : NULL;
    if (!order)
        return;
    float forward[3], right[3], up[3];
    camera_basis(&s->cam, forward, right, up);
    count = 0;
    for (size_t i = 0; i < sm->place_count; i++)
        if (place_blended(&sm->places[i])) {
            float at[3];
            camera_frame_point(&s->cam, sm->places[i].position, at);
            double depth = 0;
            for (int k = 0; k < 3; k++)
                depth += (at[k] - s->cam.local[k]) * forward[k];
            order[count++] = (blended_place){ (float)depth, i };
        }
    qsort(order, count, sizeof *order, farther_first);  /* as GoldSrc sorts its translucent entities */
    float view_proj[16];
    render_mat4_mul(f->proj, f->view, view_proj);
    for (size_t k = 0; k < count; k++)
        draw_place(s, order[k].index, f, view_proj, sm->state_count);
    free(order);
}

void scene_models_close(scene *s)
{
    if (!s->models)
        return;
    render_models_destroy(s->models->gl);
    for (size_t i = 0; i < s->models->place_count; i++)
        free(s->models->places[i].file);
    free(s->models->places);
    for (size_t i = 0; i < s->models->studio_count; i++) {
        scene_studio_close(&s->models->studios[i].studio);
        pmf_budget_free(s->models->studios[i].bytes);
    }
    free(s->models->studios);
    for (size_t i = 0; i < s->models->alias_count; i++)
        pmf_budget_free(s->models->alias[i].positions);
    free(s->models->alias);
    free(s->models->blended);
    free(s->models->pose_frames);
    free(s->models->step_firsts);
    free(s->models->poses);
    free(s->models->ends);
    free(s->models->states);
    free(s->models->missing);
    free(s->models);
    s->models = NULL;
}

const uint8_t *scene_models_missing(const scene *s)
{
    return s->models && s->models->any_missing && !s->settings.no_models ? s->models->missing : NULL;
}

size_t scene_model_count(const scene *s)
{
    return s->models ? s->models->place_count : 0;
}

/* Where the ray (camera frame: o + t d) meets the box [lo, hi] of the place's model frame first
 * (a sprite's plane given a millimetre's thickness): t, or INFINITY. */
static float place_hit(const scene *s, const model_place *p, float lo[3], float hi[3], const float o[3], const float d[3])
{
    float m[16];
    place_matrix(s, p, m);
    if (p->sprite_type != NOT_A_SPRITE) {
        vec3 normal;
        glm_vec3_cross(m, m + 4, normal);
        glm_vec3_normalize_to(normal, m + 8);
        lo[2] = -0.0005f;
        hi[2] = 0.0005f;
    }
    mat3 axes = { { m[0], m[1], m[2] }, { m[4], m[5], m[6] }, { m[8], m[9], m[10] } }, inverse;
    if (fabsf(glm_mat3_det(axes)) < 1e-12f)
        return INFINITY;
    glm_mat3_inv(axes, inverse);
    vec3 from = { o[0] - m[12], o[1] - m[13], o[2] - m[14] }, along = { d[0], d[1], d[2] }, mo, md;
    glm_mat3_mulv(inverse, from, mo);
    glm_mat3_mulv(inverse, along, md);
    float t0 = 0, t1 = INFINITY;
    for (int k = 0; k < 3; k++) {
        if (md[k] == 0) {
            if (mo[k] < lo[k] || mo[k] > hi[k])
                return INFINITY;
            continue;
        }
        float a = (lo[k] - mo[k]) / md[k], b = (hi[k] - mo[k]) / md[k];
        t0 = fmaxf(t0, fminf(a, b));
        t1 = fminf(t1, fmaxf(a, b));
    }
    return t0 <= t1 ? t0 : INFINITY;
}

bool scene_model_at(const scene *s, const float origin[3], const float dir[3], float before, scene_model_hit *out)
{
    const scene_models *sm = s->models;
    if (!sm || s->settings.no_models)
        return false;
    bool found = false;
    for (size_t i = 0; i < sm->place_count; i++) {
        const model_place *p = &sm->places[i];
        size_t pose = place_pose(sm, p, sm->time);
        float lo[3], hi[3], t;
        if (!render_models_bounds(sm->gl, p->drawn, lo, hi) || !((t = place_hit(s, p, lo, hi, origin, dir)) < before))
            continue;
        const pmf_entity_info *info = &s->map_info.entities.list[p->entity];
        *out = (scene_model_hit){ info->classname, info->targetname, p->file, sm->pose_frames[pose], t };
        before = t;
        found = true;
    }
    return found;
}
