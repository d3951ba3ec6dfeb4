/* scene_models.c - the models of a Quake map's point entities (docs/models.md): each class the
 * built-in table names is drawn with its model (an alias model, or a sprite turned as its type
 * says) from the game directory (loose files and paks), at the entity's place, frame and skin as
 * the game's code sets them. A model that is not there or does not read is one warning; its
 * entities keep no model. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/pmf_budget.h"
#include "mdl.h"
#include "pak.h"
#include "render_models.h"
#include "spr.h"
#include "scene_internal.h"

#define QUAKE_METRES_PER_UNIT 0.0254f  /* pmfc's default scale (conventions §5) */
#define PALETTE_PATH "gfx/palette.lmp"
#define MAX_PLACES (1u << 16)          /* entities given a model at most: a hostile list stays bounded */

/* What Quake's own code (progs.dat) gives a class: its model, frame (by name) and skin. The
 * classes whose model is a BSP (ammo boxes, health) or depends on the world type (keys) are not
 * here. */
typedef struct quake_class {
    const char *classname, *model, *animation;
    uint32_t skin;
} quake_class;

static const quake_class quake_classes[] = {
    { "item_armor1", "progs/armor.mdl", NULL, 0 },
    { "item_armor2", "progs/armor.mdl", NULL, 1 },
    { "item_armorInv", "progs/armor.mdl", NULL, 2 },
    { "item_artifact_super_damage", "progs/quaddama.mdl", NULL, 0 },
    { "item_artifact_invulnerability", "progs/invulner.mdl", NULL, 0 },
    { "item_artifact_envirosuit", "progs/suit.mdl", NULL, 0 },
    { "item_artifact_invisibility", "progs/invisibl.mdl", NULL, 0 },
    { "weapon_supershotgun", "progs/g_shot.mdl", NULL, 0 },
    { "weapon_nailgun", "progs/g_nail.mdl", NULL, 0 },
    { "weapon_supernailgun", "progs/g_nail2.mdl", NULL, 0 },
    { "weapon_grenadelauncher", "progs/g_rock.mdl", NULL, 0 },
    { "weapon_rocketlauncher", "progs/g_rock2.mdl", NULL, 0 },
    { "weapon_lightning", "progs/g_light.mdl", NULL, 0 },
    { "light_torch_small_walltorch", "progs/flame.mdl", NULL, 0 },
    { "light_flame_large_yellow", "progs/flame2.mdl", "flameb", 0 },
    { "light_flame_small_yellow", "progs/flame2.mdl", "flame", 0 },
    { "light_flame_small_white", "progs/flame2.mdl", "flame", 0 },
    { "light_globe", "progs/s_light.spr", NULL, 0 },
    { "info_player_start", "progs/player.mdl", NULL, 0 },
    { "info_player_deathmatch", "progs/player.mdl", NULL, 0 },
    { "info_player_coop", "progs/player.mdl", NULL, 0 },
    { "monster_army", "progs/soldier.mdl", "stand", 0 },
    { "monster_dog", "progs/dog.mdl", "stand", 0 },
    { "monster_ogre", "progs/ogre.mdl", "stand", 0 },
    { "monster_knight", "progs/knight.mdl", "stand", 0 },
    { "monster_hell_knight", "progs/hknight.mdl", "stand", 0 },
    { "monster_zombie", "progs/zombie.mdl", "stand", 0 },
    { "monster_demon1", "progs/demon.mdl", "stand", 0 },
    { "monster_shambler", "progs/shambler.mdl", "stand", 0 },
    { "monster_wizard", "progs/wizard.mdl", "hover", 0 },
    { "monster_enforcer", "progs/enforcer.mdl", "stand", 0 },
    { "monster_shalrath", "progs/shalrath.mdl", "walk", 0 },
    { "monster_tarbaby", "progs/tarbaby.mdl", "walk", 0 },
    { "monster_fish", "progs/fish.mdl", "swim", 0 },
};

#define NOT_A_SPRITE (-1)

typedef struct model_slot {
    const char *path;                  /* the class's model once asked for; NULL before */
    int handle;                        /* render_models handle; -1: not there or broken (warned once) */
    int sprite_type;                   /* spr_type, or NOT_A_SPRITE */
} model_slot;

typedef struct model_place {
    int handle, sprite_type;
    float position[3];                 /* world metres */
} model_place;

typedef struct scene_models {
    render_models *gl;
    model_slot slots[sizeof quake_classes / sizeof *quake_classes];
    model_place *places;
    size_t place_count;
} scene_models;

static const quake_class *find_class(const char *classname)
{
    for (size_t i = 0; i < sizeof quake_classes / sizeof *quake_classes; i++)
        if (!strcasecmp(quake_classes[i].classname, classname))
            return &quake_classes[i];
    return NULL;
}

/* The mesh in the world's axes and metres: a Quake point (x, y, z) is (x, z, -y) x s. */
static void to_world_axes(mdl_mesh *mesh)
{
    for (size_t c = 0; c < (size_t)mesh->triangle_count * 3; c++) {
        float *p = mesh->positions + 3 * c, x = p[0], y = p[1], z = p[2];
        p[0] = x * QUAKE_METRES_PER_UNIT;
        p[1] = z * QUAKE_METRES_PER_UNIT;
        p[2] = -y * QUAKE_METRES_PER_UNIT;
    }
}

/* A sprite's first picture as a quad in its own plane (x right, y up, metres): its handle, or -1
 * with err filled. */
static int add_sprite(render_models *gl, const spr_file *sprite, const uint8_t *palette, pmf_error *err)
{
    spr_picture p;
    if (!spr_load_picture(sprite, 0, 0, palette, &p, err))
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

/* An alias model's frame and skin in the world's axes: its handle, or -1 with err filled. */
static int add_alias(render_models *gl, const mdl_file *m, const quake_class *c, const uint8_t *palette, pmf_error *err)
{
    mdl_mesh mesh;
    if (!mdl_build_mesh(m, c->animation ? mdl_find_animation(m, c->animation) : 0, c->skin, palette, &mesh, err))
        return -1;
    to_world_axes(&mesh);
    int handle = render_models_add(gl, &(render_model_mesh){ mesh.triangle_count, mesh.positions, mesh.uvs, mesh.skin_width,
                                                             mesh.skin_height, mesh.rgba });
    if (handle < 0)
        pmf_error_set(err, c->model, "mesh", 0, "out of memory");
    mdl_mesh_free(&mesh);
    return handle;
}

/* Reads, builds and uploads one model into slot: its handle, or -1 after one warning line. */
static int load_model(render_models *gl, const game_fs *fs, const uint8_t *palette, const quake_class *c, model_slot *slot)
{
    uint8_t *bytes;
    size_t size;
    pmf_error err;
    char line[700];
    int r = game_fs_read(fs, c->model, PAK_MAX_READ, &bytes, &size, &err);
    if (r <= 0) {
        fprintf(stderr, "pmfview: warning: %s (%s): %s\n", c->classname, c->model, pmf_error_format(&err, line, sizeof line));
        return -1;
    }
    int handle = -1;
    size_t length = strlen(c->model);
    if (length > 4 && !strcmp(c->model + length - 4, ".spr")) {
        spr_file *sprite = spr_open_memory(bytes, size, c->model, &err);
        if (sprite && (handle = add_sprite(gl, sprite, palette, &err)) >= 0)
            slot->sprite_type = (int)spr_get_info(sprite)->type;
        spr_close(sprite);
    } else {
        mdl_file *m = mdl_open_memory(bytes, size, c->model, &err);
        if (m)
            handle = add_alias(gl, m, c, palette, &err);
        mdl_close(m);
    }
    if (handle < 0)
        fprintf(stderr, "pmfview: warning: %s: %s\n", c->classname, pmf_error_format(&err, line, sizeof line));
    pmf_budget_free(bytes);
    return handle;
}

/* The handle of the class's model, loading it on its first entity; a file another class found
 * missing or broken is not read (nor warned of) again. */
static int class_model(scene_models *sm, const game_fs *fs, const uint8_t *palette, const quake_class *c)
{
    model_slot *slot = &sm->slots[c - quake_classes];
    if (slot->path)
        return slot->handle;
    slot->path = c->model;
    slot->handle = -1;
    slot->sprite_type = NOT_A_SPRITE;
    for (size_t i = 0; i < sizeof sm->slots / sizeof *sm->slots; i++)
        if (sm->slots[i].path && &sm->slots[i] != slot && !strcmp(sm->slots[i].path, c->model) && sm->slots[i].handle < 0)
            return -1;
    slot->handle = load_model(sm->gl, fs, palette, c, slot);
    return slot->handle;
}

/* The game's palette: false after one warning when it is missing. */
static bool read_palette(const game_fs *fs, uint8_t palette[768])
{
    uint8_t *bytes;
    size_t size;
    pmf_error err;
    char line[700];
    int r = game_fs_read(fs, PALETTE_PATH, 768, &bytes, &size, &err);
    if (r > 0 && size == 768)
        memcpy(palette, bytes, 768);
    else if (r > 0)
        fprintf(stderr, "pmfview: warning: %s: %zu bytes, not a palette of 768: no entity models\n", PALETTE_PATH, size);
    else
        fprintf(stderr, "pmfview: warning: no entity models: %s\n", pmf_error_format(&err, line, sizeof line));
    pmf_budget_free(bytes);
    return r > 0 && size == 768;
}

static void place_models(scene *s, scene_models *sm, const game_fs *fs, const uint8_t *palette)
{
    const pmf_entities *e = &s->map_info.entities;
    sm->places = calloc(e->count < MAX_PLACES ? e->count : MAX_PLACES, sizeof *sm->places);
    for (uint32_t i = 0; sm->places && i < e->count && sm->place_count < MAX_PLACES; i++) {
        const pmf_entity_info *info = &e->list[i];
        const quake_class *c = info->level == s->level ? find_class(info->classname) : NULL;
        int handle = c ? class_model(sm, fs, palette, c) : -1;
        if (handle < 0)
            continue;
        model_place *p = &sm->places[sm->place_count++];
        p->handle = handle;
        p->sprite_type = sm->slots[c - quake_classes].sprite_type;
        memcpy(p->position, info->position, sizeof p->position);
    }
}

void scene_models_open(scene *s, const char *game_dir)
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
    scene_models *sm = read_palette(fs, palette) ? calloc(1, sizeof *sm) : NULL;
    if (sm && !(sm->gl = render_models_create(line, sizeof line))) {
        fprintf(stderr, "pmfview: warning: no entity models: %s\n", line);
        free(sm);
        sm = NULL;
    }
    if (sm) {
        place_models(s, sm, fs, palette);
        s->models = sm;
    }
    game_fs_close(fs);
}

/* A sprite's right and up in the world's axes, as its type turns it (Quake's r_sprite.c): to
 * the view plane, about the vertical only, towards the eye about the vertical, or fixed by the
 * entity's angles (taken as 0: the map's angles do not reach the viewer). */
static void sprite_axes(const camera *cam, int type, const float at[3], float right[3], float up[3])
{
    float forward[3];
    camera_basis(cam, forward, right, up);
    if (type == SPR_TYPE_PARALLEL || type == SPR_TYPE_PARALLEL_ORIENTED)
        return;
    float r[3] = { right[0], 0, right[2] };
    if (type == SPR_TYPE_FACING_UPRIGHT) {
        float to[3] = { at[0] - (float)cam->local[0], 0, at[2] - (float)cam->local[2] };
        r[0] = -to[2];
        r[2] = to[0];
    } else if (type == SPR_TYPE_ORIENTED) {
        r[0] = 0;  /* Quake's right at yaw 0 is -Y: the world's +Z */
        r[2] = 1;
    }
    float length = sqrtf(r[0] * r[0] + r[2] * r[2]);
    for (int k = 0; k < 3; k++) {
        right[k] = length > 0 ? r[k] / length : (float)(k == 0);
        up[k] = (float)(k == 1);
    }
}

void scene_models_draw(scene *s, const render_frame *f)
{
    scene_models *sm = s->models;
    if (!sm || s->settings.no_models)
        return;
    float view_proj[16];
    render_mat4_mul(f->proj, f->view, view_proj);
    for (size_t i = 0; i < sm->place_count; i++) {
        const model_place *p = &sm->places[i];
        float at[3], place[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 }, transform[16];
        camera_frame_point(&s->cam, p->position, at);
        if (p->sprite_type != NOT_A_SPRITE)
            sprite_axes(&s->cam, p->sprite_type, at, place, place + 4);
        memcpy(place + 12, at, sizeof at);
        render_mat4_mul(view_proj, place, transform);
        render_models_draw(sm->gl, p->handle, transform);
    }
}

void scene_models_close(scene *s)
{
    if (!s->models)
        return;
    render_models_destroy(s->models->gl);
    free(s->models->places);
    free(s->models);
    s->models = NULL;
}

size_t scene_model_count(const scene *s)
{
    return s->models ? s->models->place_count : 0;
}
