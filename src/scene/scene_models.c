/* scene_models.c - the models of a Quake map's point entities (docs/models.md): each class the
 * built-in table names is drawn with its model from the game directory (loose files and paks),
 * at the entity's place, frame and skin as the game's code sets them. A model that is not there
 * or does not read is one warning; its entities keep no model. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/pmf_budget.h"
#include "mdl.h"
#include "pak.h"
#include "render_models.h"
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

typedef struct model_slot {
    const char *path;                  /* the class's model once asked for; NULL before */
    int handle;                        /* render_models handle; -1: not there or broken (warned once) */
} model_slot;

typedef struct model_place {
    int handle;
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

/* Reads, builds and uploads one model: its handle, or -1 after one warning line. */
static int load_model(render_models *gl, const game_fs *fs, const uint8_t *palette, const quake_class *c)
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
    mdl_file *m = mdl_open_memory(bytes, size, c->model, &err);
    mdl_mesh mesh;
    if (m && mdl_build_mesh(m, c->animation ? mdl_find_animation(m, c->animation) : 0, c->skin, palette, &mesh, &err)) {
        to_world_axes(&mesh);
        handle = render_models_add(gl, &(render_model_mesh){ mesh.triangle_count, mesh.positions, mesh.uvs, mesh.skin_width,
                                                             mesh.skin_height, mesh.rgba });
        if (handle < 0)
            pmf_error_set(&err, c->model, "mesh", 0, "out of memory");
        mdl_mesh_free(&mesh);
    }
    if (handle < 0)
        fprintf(stderr, "pmfview: warning: %s: %s\n", c->classname, pmf_error_format(&err, line, sizeof line));
    mdl_close(m);
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
    for (size_t i = 0; i < sizeof sm->slots / sizeof *sm->slots; i++)
        if (sm->slots[i].path && &sm->slots[i] != slot && !strcmp(sm->slots[i].path, c->model) && sm->slots[i].handle < 0)
            return -1;
    slot->handle = load_model(sm->gl, fs, palette, c);
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

void scene_models_draw(scene *s, const render_frame *f)
{
    scene_models *sm = s->models;
    if (!sm || s->settings.no_models)
        return;
    float view_proj[16];
    render_mat4_mul(f->proj, f->view, view_proj);
    for (size_t i = 0; i < sm->place_count; i++) {
        float at[3], place[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 }, transform[16];
        camera_frame_point(&s->cam, sm->places[i].position, at);
        memcpy(place + 12, at, sizeof at);
        render_mat4_mul(view_proj, place, transform);
        render_models_draw(sm->gl, sm->places[i].handle, transform);
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
