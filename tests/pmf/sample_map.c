/* sample_map.c - the kitchen-sink and small test maps, built struct by struct. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample_map.h"

typedef struct allocs {
    void **ptrs;
    size_t count, cap;
} allocs;

static void *sm_alloc(sample_map *m, size_t size)
{
    allocs *al = m->mem_;
    if (al->count == al->cap) {
        al->cap = al->cap ? al->cap * 2 : 64;
        al->ptrs = realloc(al->ptrs, al->cap * sizeof *al->ptrs);
        if (!al->ptrs)
            abort();
    }
    void *p = calloc(1, size ? size : 1);
    if (!p)
        abort();
    al->ptrs[al->count++] = p;
    return p;
}

#define NEW(m, type, n) ((type *)sm_alloc((m), sizeof(type) * (size_t)(n)))

static const char **names(sample_map *m, int n, const char *const *src)
{
    const char **out = NEW(m, const char *, n);
    for (int i = 0; i < n; i++)
        out[i] = src[i];
    return out;
}

/* Luxels with a recognisable pattern. */
static uint8_t *luxels(sample_map *m, uint8_t size_exp, uint8_t seed)
{
    size_t n = (size_t)3 << (2 * size_exp);
    uint8_t *p = NEW(m, uint8_t, n);
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(seed + i * 7);
    return p;
}

static void env_region(pmf_env_region *r, const char *env, float half)
{
    for (int o = 0; o < 8; o++) {
        r->corners[o][0] = (o & PMF_OCTANT_NEG_X) ? -half : half;
        r->corners[o][1] = (o & PMF_OCTANT_NEG_Y) ? -half : half;
        r->corners[o][2] = (o & PMF_OCTANT_NEG_Z) ? -half : half + 0.5f;
    }
    r->env = env;
}

/* ---- level 0: every level-wide structure ---- */

static const char *const material_names[] = { "stone", "glass", "water", "sky_px", "sky_py", "sky_pz",
                                              "sky_nx", "sky_ny", "sky_nz", "clouds" };
enum { MATERIAL_COUNT = 10 };

static void build_level0(sample_map *m, pmf_level *l, bool small)
{
    l->flags = PMF_LEVEL_KEEP_INCHUNK_OFFSET | PMF_LEVEL_KEEP_CHUNK_OFFSET | PMF_LEVEL_KEEP_VELOCITY;
    l->chunk_size_exp = 5;
    l->count_x = small ? 2 : 3;
    l->count_y = small ? 1 : 2;
    l->count_z = small ? 1 : 2;
    l->center = small ? (pmf_chunk_coord){ 1, 0, 0 } : (pmf_chunk_coord){ 1, 0, 1 };
    l->parts = PMF_PART_ALL;

    pmf_level_common *c = &l->common;
    c->material_count = MATERIAL_COUNT;
    c->materials = NEW(m, pmf_material, MATERIAL_COUNT);
    for (int i = 0; i < MATERIAL_COUNT; i++) {
        c->materials[i].name = material_names[i];
        c->materials[i].type = i < 3 ? "solid" : "sky";
    }
    c->materials[0].type = "rock";
    c->materials[1].flags = PMF_MATERIAL_TRANSPARENT;
    c->materials[1].render_mode = PMF_RENDMODE_ADD;
    c->materials[2].flags = PMF_MATERIAL_TRANSPARENT | PMF_MATERIAL_LIQUID;
    c->materials[9].type = "";

    c->physics_material_count = 3;
    c->physics_materials = NEW(m, pmf_physics_material, 3);
    c->physics_materials[0] = (pmf_physics_material){ "rock", 0, 0.8f, 0.9f, 0.1f, 12.0f, 5.0f, 1.5f };
    c->physics_materials[1] = (pmf_physics_material){ "liquid", PMF_PHYSICS_NOT_SOLID, 3.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f };
    c->physics_materials[2] = (pmf_physics_material){ "air", PMF_PHYSICS_NOT_SOLID, 100.0f, 0, 0, 50.0f, 10.0f, 2.0f };
    c->sound_material_count = 2;
    c->sound_materials = NEW(m, pmf_sound_material, 2);
    c->sound_materials[0] = (pmf_sound_material){ 0.25f, 0.5f };
    c->sound_materials[1] = (pmf_sound_material){ 0.75f, -1.0f };
    c->air_physics_material = "air";
    c->weather_env_count = 2;
    c->weather_envs = NEW(m, pmf_weather_env, 2);
    c->weather_envs[0] = (pmf_weather_env){ "calm", { 0.5f, 0, -0.25f }, 7, { 0.1f, 0.2f, 0.3f }, 0.5f, 9, 0.25f, 2.0f };
    c->weather_envs[1] = (pmf_weather_env){ "storm", { 10, -1, 4 }, 0xDEADBEEFu, { 1, 1, 1 }, 3.0f, 0xFFFFFFFFu, 2.5f, 8.0f };
    c->gravity_env_count = 2;
    c->gravity_envs = NEW(m, pmf_gravity_env, 2);
    c->gravity_envs[0] = (pmf_gravity_env){ "normal", { 0, -9.81f, 0 } };
    c->gravity_envs[1] = (pmf_gravity_env){ "low", { 0.5f, -1.62f, 0 } };
    c->default_weather_env = "calm";
    c->default_gravity_env = "normal";

    pmf_level_client *cl = &l->client;
    cl->sound_env_count = 2;
    cl->sound_envs = NEW(m, pmf_sound_env, 2);
    cl->sound_envs[0] = (pmf_sound_env){ "outdoor", 0.1f, 0.2f, 0.0f, 0.0f, 0.0f, 0.3f, 0.4f };
    cl->sound_envs[1] = (pmf_sound_env){ "cave", 0.5f, 0.6f, 0.35f, 0.7f, 0.8f, 0.9f, 1.0f };
    cl->sky_env_count = 2;
    cl->sky_envs = NEW(m, pmf_sky_env, 2);
    pmf_sky_env *day = &cl->sky_envs[0];
    day->name = "day";
    for (int f = 0; f < PMF_FACE_COUNT; f++)
        day->skybox[f] = material_names[3 + f];
    day->cloud_top = "clouds";
    day->cloud_bottom = "";
    pmf_sky_env *space = &cl->sky_envs[1];
    space->name = "space";
    space->flags = PMF_SKY_3D_SKYBOX;
    for (int f = 0; f < PMF_FACE_COUNT; f++)
        space->skybox[f] = f == PMF_FACE_POS_Y ? "sky_py" : "";
    space->cloud_top = "";
    space->cloud_bottom = "clouds";
    space->skybox_chunk = small ? (pmf_chunk_coord){ 1, 0, 0 } : (pmf_chunk_coord){ 2, 1, 1 };
    cl->default_sound_env = "outdoor";
    cl->default_sky_env = "day";
    cl->material_count = MATERIAL_COUNT;
    cl->materials = NEW(m, pmf_client_material, MATERIAL_COUNT);
    for (int i = 0; i < MATERIAL_COUNT; i++) {
        pmf_client_material *cm = &cl->materials[i];
        cm->texture = i == 9 ? "" : "textures/stone";
        cm->color[0] = (uint8_t)(20 * i);
        cm->color[1] = 128;
        cm->color[2] = (uint8_t)(255 - i);
        cm->alpha = 255;
        cm->shading = 255;
        cm->matcap = "";
    }
    pmf_client_material *glass = &cl->materials[1];
    glass->texture = "textures/glass";
    glass->alpha = 96;
    glass->shine = 200;
    glass->matcap = "matcaps/chrome";
    glass->emission[0] = 1;
    glass->emission[1] = 2;
    glass->emission[2] = 3;
    pmf_client_material *water = &cl->materials[2];
    water->texture = "textures/water0";
    water->extra_texture_count = 2;
    water->extra_textures = names(m, 2, (const char *const[]){ "textures/water1", "textures/water2" });
    water->advance_time_us = 125000;
    water->uv_scroll[0] = 0.25f;
    water->uv_scroll[1] = -0.5f;
    water->shading = 64;
    water->wave = (pmf_wave_info){ { 1.0f, 0.0f, 0.5f }, 0.75f, 0.125f, 2.0f };

    static const uint8_t level_entities[] = { 'L', 'E', 1, 2, 3 };
    l->server.string_table = (pmf_blob){ (const uint8_t *)"\0worldspawn\0", 12 };
    l->server.entity_count = 1;
    l->server.entities = (pmf_blob){ level_entities, sizeof level_entities };
}

/* ---- the kitchen chunk: every chunk structure ---- */

static pmf_chunk *new_chunk(sample_map *m, sample_level *sl, pmf_chunk_coord c)
{
    pmf_chunk *chunks = NEW(m, pmf_chunk, sl->chunk_count + 1);
    if (sl->chunk_count)
        memcpy(chunks, sl->chunks, sl->chunk_count * sizeof *chunks);
    sl->chunks = chunks;
    pmf_chunk *ch = &chunks[sl->chunk_count++];
    ch->coord = c;
    ch->parts = PMF_PART_ALL;
    return ch;
}

static void alloc_cubes(sample_map *m, pmf_chunk *ch, uint32_t n)
{
    ch->common.cube_count = n;
    ch->common.cubes = NEW(m, pmf_cube, n);
    ch->client.cubes = NEW(m, pmf_client_cube, n);
    ch->server.cubes = NEW(m, pmf_server_cube, n);
}

static void set_vertices(sample_map *m, pmf_chunk *ch, uint32_t n)
{
    ch->client.vertex_count = n;
    ch->client.vertices = NEW(m, pmf_vertex, n);
    for (uint32_t i = 0; i < n; i++) {
        pmf_vertex *v = &ch->client.vertices[i];
        v->xyz[0] = -16.0f + (float)(i % 5) * 8.0f;
        v->xyz[1] = (float)(i % 3) - 1.0f;
        v->xyz[2] = 16.0f - (float)(i % 7) * 0.5f;
        v->uv[0] = (float)i * 0.25f;
        v->uv[1] = -(float)i;
        v->lm_uv[0] = (float)(i % 4) / 4.0f;
        v->lm_uv[1] = (float)(i % 2);
    }
}

static pmf_light_ref *refs(sample_map *m, int n, const pmf_light_ref *src)
{
    pmf_light_ref *out = NEW(m, pmf_light_ref, n);
    memcpy(out, src, (size_t)n * sizeof *out);
    return out;
}

static pmf_chunk_coord *coords(sample_map *m, int n, const pmf_chunk_coord *src)
{
    pmf_chunk_coord *out = NEW(m, pmf_chunk_coord, n);
    memcpy(out, src, (size_t)n * sizeof *out);
    return out;
}

static uint32_t *u32s(sample_map *m, int n, const uint32_t *src)
{
    uint32_t *out = NEW(m, uint32_t, n);
    memcpy(out, src, (size_t)n * sizeof *out);
    return out;
}

static void build_kitchen_chunk(sample_map *m, sample_level *sl, pmf_chunk_coord at, pmf_chunk_coord other,
                                pmf_chunk_coord skybox)
{
    pmf_chunk *ch = new_chunk(m, sl, at);
    pmf_chunk_common *c = &ch->common;
    c->used_material_count = 3;
    c->used_materials = names(m, 3, (const char *const[]){ "water", "stone", "glass" });
    c->used_physics_material_count = 2;
    c->used_physics_materials = names(m, 2, (const char *const[]){ "liquid", "rock" });
    c->used_sound_material_count = 2;
    c->used_sound_materials = names(m, 2, (const char *const[]){ "step", "" });
    c->weather_region_count = 1;
    c->weather_regions = NEW(m, pmf_env_region, 1);
    env_region(&c->weather_regions[0], "storm", 8.0f);
    c->gravity_region_count = 2;
    c->gravity_regions = NEW(m, pmf_env_region, 2);
    env_region(&c->gravity_regions[0], "low", 4.0f);
    env_region(&c->gravity_regions[1], "normal", 16.0f);
    c->dynamic_light_count = 2;
    c->dynamic_lights = NEW(m, pmf_dynamic_light, 2);
    c->dynamic_lights[0] = (pmf_dynamic_light){ PMF_LIGHT_ENABLE, 100 };
    c->dynamic_lights[1] = (pmf_dynamic_light){ PMF_LIGHT_PRESERVE, 0xFFFFFFF0u };
    c->fast_light_count = 2;
    c->fast_lights = NEW(m, pmf_fast_light, 2);
    c->fast_lights[0] = (pmf_fast_light){ PMF_LIGHT_ENABLE | PMF_LIGHT_PRESERVE, 200, 300 };
    c->fast_lights[1] = (pmf_fast_light){ 0, 50, 301 };

    /* 0 parent (root, visibility) -> 1 geom, 2 ext, 3 parent, 4 empty; 3 -> 5 geom; 6 unreachable */
    alloc_cubes(m, ch, 7);
    pmf_cube *cu = c->cubes;
    cu[0].type = PMF_CUBE_PARENT;
    cu[0].flags = PMF_CUBE_HAS_VISIBILITY;
    cu[0].vis.cube_count = 2;
    cu[0].vis.cubes = u32s(m, 2, (const uint32_t[]){ 1, 2 });
    cu[0].vis.chunk_count = 2;
    cu[0].vis.chunks = NEW(m, pmf_vis_chunk, 2);
    cu[0].vis.chunks[0] = (pmf_vis_chunk){ other, 0, NULL };
    cu[0].vis.chunks[1] = (pmf_vis_chunk){ skybox, 2, u32s(m, 2, (const uint32_t[]){ 0, 3 }) };
    cu[0].u.parent.child_mask = 0x0F;    /* octants 0..3 */
    cu[0].u.parent.children[0] = 1;
    cu[0].u.parent.children[1] = 2;
    cu[0].u.parent.children[2] = 3;
    cu[0].u.parent.children[3] = 4;

    cu[1].type = PMF_CUBE_GEOMETRY;
    cu[1].flags = PMF_CUBE_DRAW_BACKFACES | PMF_CUBE_HAS_LIGHTING | PMF_CUBE_HAS_PATHFINDING;
    cu[1].u.geom.material = 1;
    cu[1].u.geom.physics_material = 1;
    cu[1].u.geom.sound_material = 0;

    cu[2].type = PMF_CUBE_EXTGEOMETRY;
    cu[2].flags = PMF_CUBE_HAS_LIGHTING | PMF_CUBE_HAS_VISIBILITY;
    cu[2].vis.chunk_count = 1;
    cu[2].vis.chunks = NEW(m, pmf_vis_chunk, 1);
    cu[2].vis.chunks[0] = (pmf_vis_chunk){ other, 1, u32s(m, 1, (const uint32_t[]){ 0 }) };
    memcpy(cu[2].u.ext.material, (const uint8_t[]){ 0, 1, 2, 0, 1, 2 }, 6);
    memcpy(cu[2].u.ext.physics_material, (const uint8_t[]){ 0, 1, 0, 1, 0, 1 }, 6);
    cu[2].u.ext.sound_material = 1;
    cu[2].u.ext.moved_mask = 0x81;
    cu[2].u.ext.points[0][0] = 3.5f;
    cu[2].u.ext.points[0][1] = 4.0f;
    cu[2].u.ext.points[0][2] = 2.25f;
    cu[2].u.ext.points[7][0] = -1.0f;
    cu[2].u.ext.points[7][1] = -0.5f;
    cu[2].u.ext.points[7][2] = -8.0f;

    cu[3].type = PMF_CUBE_PARENT;
    cu[3].u.parent.child_mask = 0x80;
    cu[3].u.parent.children[7] = 5;

    cu[4].type = PMF_CUBE_EMPTY;
    cu[4].flags = PMF_CUBE_HAS_PATHFINDING;

    cu[5].type = PMF_CUBE_GEOMETRY;
    cu[5].flags = PMF_CUBE_HAS_LIGHTING;
    cu[5].u.geom.material = 2;
    cu[5].u.geom.physics_material = 0;
    cu[5].u.geom.sound_material = 1;

    cu[6].type = PMF_CUBE_EMPTY;         /* not reachable from the root: allowed, ignored */

    pmf_chunk_client *cl = &ch->client;
    cl->sound_region_count = 1;
    cl->sound_regions = NEW(m, pmf_env_region, 1);
    env_region(&cl->sound_regions[0], "cave", 2.0f);
    cl->sky_region_count = 1;
    cl->sky_regions = NEW(m, pmf_env_region, 1);
    env_region(&cl->sky_regions[0], "space", 12.0f);
    cl->lightmap_count = 2;
    cl->lightmaps = NEW(m, pmf_lightmap, 2);
    cl->lightmaps[0] = (pmf_lightmap){ 2, luxels(m, 2, 10) };
    cl->lightmaps[1] = (pmf_lightmap){ 1, luxels(m, 1, 99) };
    set_vertices(m, ch, 50);             /* cube 1: 0..23, cube 2: 24..41, cube 5: 42..49 */
    cl->dynamic_lights = NEW(m, pmf_client_dynamic_light, 2);
    cl->dynamic_lights[0] = (pmf_client_dynamic_light){ { 255, 200, 100 }, 2, NEW(m, pmf_light_layer, 2) };
    cl->dynamic_lights[0].layers[0] = (pmf_light_layer){ 0, luxels(m, 2, 33) };
    cl->dynamic_lights[0].layers[1] = (pmf_light_layer){ 1, luxels(m, 1, 44) };
    cl->dynamic_lights[1] = (pmf_client_dynamic_light){ { 0, 0, 255 }, 1, NEW(m, pmf_light_layer, 1) };
    cl->dynamic_lights[1].layers[0] = (pmf_light_layer){ 1, luxels(m, 1, 55) };
    cl->fast_lights = NEW(m, pmf_client_fast_light, 2);
    cl->fast_lights[0] = (pmf_client_fast_light){ { 10, 20, 30 }, 2, NEW(m, pmf_fast_range, 2) };
    cl->fast_lights[0].ranges[0] = (pmf_fast_range){ 0, 4, luxels(m, 1, 1) };      /* 12 bytes, 4 used */
    cl->fast_lights[0].ranges[1] = (pmf_fast_range){ 20, 6, luxels(m, 1, 2) };
    cl->fast_lights[1] = (pmf_client_fast_light){ { 255, 255, 255 }, 1, NEW(m, pmf_fast_range, 1) };
    cl->fast_lights[1].ranges[0] = (pmf_fast_range){ 42, 8, luxels(m, 1, 3) };

    pmf_client_cube *cc = cl->cubes;
    cc[1].lighting = (pmf_cube_lighting){ { 30, 40, 50 }, 2, refs(m, 2, (const pmf_light_ref[]){ { 0, 255 }, { 1, 128 } }),
                                          1, refs(m, 1, (const pmf_light_ref[]){ { 0, 200 } }) };
    cc[1].u.geom.lightmap = 0;
    cc[1].u.geom.first_vertex = 0;
    cc[1].u.geom.face_mask = 0x3F;
    cc[2].lighting = (pmf_cube_lighting){ { 1, 2, 3 }, 1, refs(m, 1, (const pmf_light_ref[]){ { 1, 64 } }),
                                          2, refs(m, 2, (const pmf_light_ref[]){ { 1, 10 }, { 0, 20 } }) };
    cc[2].u.ext.first_vertex = 24;
    memcpy(cc[2].u.ext.lightmap, (const uint8_t[]){ 0, 1, PMF_NO_LIGHTMAP, 0, 1, PMF_NO_LIGHTMAP }, 6);
    memcpy(cc[2].u.ext.tri_count, (const uint8_t[]){ 1, 2, 0, 1, 0, 2 }, 6);
    cc[5].lighting = (pmf_cube_lighting){ { 200, 100, 0 }, 0, NULL, 0, NULL };
    cc[5].u.geom.lightmap = PMF_NO_LIGHTMAP;
    cc[5].u.geom.first_vertex = 42;
    cc[5].u.geom.face_mask = 0x05;

    pmf_chunk_server *sv = &ch->server;
    static const uint8_t chunk_entities[] = { 'C', 'E', 0, 0, 7, 8 };
    sv->string_table = (pmf_blob){ (const uint8_t *)"target_a\0", 9 };
    sv->load_region_count = 2;
    sv->load_regions = NEW(m, pmf_region, 2);
    sv->load_regions[0] = (pmf_region){ { 16, 16, 16 }, { -16, -16, -16 }, 2,
                                        coords(m, 2, (const pmf_chunk_coord[]){ other, skybox }) };
    sv->load_regions[1] = (pmf_region){ { 1, 2, 3 }, { -1, -2, -3 }, 0, NULL };
    sv->cubes[1].attr_count = 2;
    sv->cubes[1].attrs = NEW(m, pmf_path_attr, 2);
    sv->cubes[1].attrs[0] = (pmf_path_attr){ "walk", { 0, 0, -1 } };
    sv->cubes[1].attrs[1] = (pmf_path_attr){ "target_a", { 1, 0, 0 } };
    sv->cubes[4].attr_count = 1;
    sv->cubes[4].attrs = NEW(m, pmf_path_attr, 1);
    sv->cubes[4].attrs[0] = (pmf_path_attr){ "fly", { 0, 1, 0 } };
    sv->entity_count = 2;
    sv->entities = (pmf_blob){ chunk_entities, sizeof chunk_entities };
}

/* One geometry cube as the root with the given faces; lightmap 0 of size 2^lm_exp or none. */
static void build_simple_chunk(sample_map *m, sample_level *sl, pmf_chunk_coord at, const char *material,
                               uint8_t face_mask, int lm_exp)
{
    pmf_chunk *ch = new_chunk(m, sl, at);
    pmf_chunk_common *c = &ch->common;
    c->used_material_count = 1;
    c->used_materials = names(m, 1, &material);
    c->used_physics_material_count = 1;
    c->used_physics_materials = names(m, 1, (const char *const[]){ "rock" });
    c->used_sound_material_count = 1;
    c->used_sound_materials = names(m, 1, (const char *const[]){ "step" });
    alloc_cubes(m, ch, 1);
    c->cubes[0].type = PMF_CUBE_GEOMETRY;
    set_vertices(m, ch, 4u * (uint32_t)__builtin_popcount(face_mask));
    ch->client.cubes[0].u.geom.face_mask = face_mask;
    ch->client.cubes[0].u.geom.lightmap = PMF_NO_LIGHTMAP;
    if (lm_exp >= 0) {
        ch->client.lightmap_count = 1;
        ch->client.lightmaps = NEW(m, pmf_lightmap, 1);
        ch->client.lightmaps[0] = (pmf_lightmap){ (uint8_t)lm_exp, luxels(m, (uint8_t)lm_exp, 7) };
        ch->client.cubes[0].u.geom.lightmap = 0;
    }
}

static void build_level1(sample_map *m, sample_level *sl)
{
    pmf_level *l = &sl->level;
    l->chunk_size_exp = 4;
    l->count_x = l->count_y = l->count_z = 1;
    l->parts = PMF_PART_ALL;
    l->common.material_count = 1;
    l->common.materials = NEW(m, pmf_material, 1);
    l->common.materials[0] = (pmf_material){ "stone", "", 0, 0 };
    l->common.physics_material_count = 1;
    l->common.physics_materials = NEW(m, pmf_physics_material, 1);
    l->common.physics_materials[0] = (pmf_physics_material){ "rock", 0, 1, 1, 0, 0, 0, 0 };
    l->client.material_count = 1;
    l->client.materials = NEW(m, pmf_client_material, 1);
    l->client.materials[0].color[0] = l->client.materials[0].color[1] = l->client.materials[0].color[2] = 255;
    /* the root uses every octant (the kitchen chunk leaves 4..6 out); cube 2 moves the points
     * the kitchen chunk's extended cube does not, with no triangles at all */
    build_simple_chunk(m, sl, (pmf_chunk_coord){ 0, 0, 0 }, "stone", 0x3F, 0);
    pmf_chunk *ch = &sl->chunks[0];
    pmf_cube *root = ch->common.cubes;
    pmf_client_cube *croot = ch->client.cubes;
    alloc_cubes(m, ch, 9);
    ch->common.cubes[1] = root[0];
    ch->client.cubes[1] = croot[0];
    pmf_cube *cu = ch->common.cubes;
    cu[0].type = PMF_CUBE_PARENT;
    cu[0].u.parent.child_mask = 0xFF;
    for (int o = 0; o < 8; o++)
        cu[0].u.parent.children[o] = (uint32_t)o + 1;
    cu[2].type = PMF_CUBE_EXTGEOMETRY;
    cu[2].flags = PMF_CUBE_DRAW_BACKFACES;
    cu[2].u.ext.moved_mask = 0x7E;
    for (int o = 1; o < 7; o++)
        for (int k = 0; k < 3; k++)
            cu[2].u.ext.points[o][k] = (float)(o * 3 + k) * 0.125f - 2.0f;
    ch->client.cubes[2].u.ext.first_vertex = 24;
    memset(ch->client.cubes[2].u.ext.lightmap, PMF_NO_LIGHTMAP, PMF_FACE_COUNT);
}

static void build_level2(sample_level *sl)
{
    /* a 2x1x1 grid with no chunk at all, and no materials */
    pmf_level *l = &sl->level;
    l->flags = PMF_LEVEL_KEEP_VELOCITY;
    l->chunk_size_exp = 8;
    l->count_x = 2;
    l->count_y = l->count_z = 1;
    l->center = (pmf_chunk_coord){ 1, 0, 0 };
    l->parts = PMF_PART_ALL;
}

void sample_map_build(sample_map *m, int variant)
{
    memset(m, 0, sizeof *m);
    m->mem_ = calloc(1, sizeof(allocs));
    if (!m->mem_)
        abort();
    bool small = variant == SAMPLE_MAP_SMALL;
    m->header.created = 1700000000u;
    m->header.name = small ? "Small" : "Kitchen Sink";
    m->header.description = "Every structure of PMF 0.0";
    m->header.authors = "pmfview tests";
    m->header.compiler = "sample_map.c";
    if (!small) {
        static const char *const gamemodes[] = { "deathmatch", "coop", "fifteen_chars_x", "" };
        m->header.gamemode_count = 4;
        for (int i = 0; i < 4; i++)
            m->header.gamemodes[i] = gamemodes[i];
        static const uint8_t archive[] = { 'P', 'A', 'F', 0, 1, 2, 3, 4, 5, 6, 7, 8 };
        static const uint8_t ext0[] = { 'e', 'x', 't', '0' };
        static const uint8_t global_entities[] = { 'G', 1, 'G', 2, 'G', 3 };
        static pmf_blob extensions[3];
        extensions[0] = (pmf_blob){ ext0, sizeof ext0 };
        extensions[1] = (pmf_blob){ NULL, 0 };
        extensions[2] = (pmf_blob){ (const uint8_t *)"second extension", 16 };
        m->data.string_table = (pmf_blob){ (const uint8_t *)"\0global\0", 8 };
        m->data.archive = (pmf_blob){ archive, sizeof archive };
        m->data.extension_count = 3;
        m->data.extensions = extensions;
        m->data.global_entity_count = 3;
        m->data.global_entities = (pmf_blob){ global_entities, sizeof global_entities };
    }

    sample_level *l0 = &m->levels[0];
    build_level0(m, &l0->level, small);
    if (small) {
        build_kitchen_chunk(m, l0, (pmf_chunk_coord){ 1, 0, 0 }, (pmf_chunk_coord){ 0, 0, 0 }, (pmf_chunk_coord){ 1, 0, 0 });
        m->level_count = 1;
        return;
    }
    build_kitchen_chunk(m, l0, (pmf_chunk_coord){ 1, 0, 1 }, (pmf_chunk_coord){ 0, 0, 0 }, (pmf_chunk_coord){ 2, 1, 1 });
    build_simple_chunk(m, l0, (pmf_chunk_coord){ 0, 0, 0 }, "stone", 0x01, 0);
    build_simple_chunk(m, l0, (pmf_chunk_coord){ 2, 1, 1 }, "glass", 0x3F, -1);
    build_level1(m, &m->levels[1]);
    build_level2(&m->levels[2]);
    m->level_count = 3;
}

void sample_map_free(sample_map *m)
{
    allocs *al = m->mem_;
    if (al) {
        for (size_t i = 0; i < al->count; i++)
            free(al->ptrs[i]);
        free(al->ptrs);
        free(al);
    }
    memset(m, 0, sizeof *m);
}

/* stream_path: spool the chunks beside it (pmf_writer_stream), else keep them in memory */
static pmf_writer *write_all(const sample_map *m, const char *stream_path, pmf_error *err)
{
    pmf_writer *w = pmf_writer_create(&m->header, &m->data, err);
    if (!w)
        return NULL;
    if (stream_path && !pmf_writer_stream(w, stream_path, err))
        goto fail;
    for (uint32_t l = 0; l < m->level_count; l++) {
        const sample_level *sl = &m->levels[l];
        if (!pmf_writer_begin_level(w, &sl->level, err))
            goto fail;
        for (uint32_t i = 0; i < sl->chunk_count; i++) {
            pmf_encoded_chunk enc;
            if (!pmf_chunk_encode(&sl->level, &sl->chunks[i], &enc, err) ||
                !pmf_writer_put_chunk(w, sl->chunks[i].coord, &enc, err))
                goto fail;
        }
    }
    return w;
fail:
    pmf_writer_destroy(w);
    return NULL;
}

bool sample_map_write_memory(const sample_map *m, uint8_t **out, size_t *size, pmf_error *err)
{
    pmf_writer *w = write_all(m, NULL, err);
    bool ok = w && pmf_writer_finish_memory(w, out, size, err);
    pmf_writer_destroy(w);
    return ok;
}

bool sample_map_write_file(const sample_map *m, const char *path, pmf_error *err)
{
    pmf_writer *w = write_all(m, NULL, err);
    bool ok = w && pmf_writer_finish(w, path, err);
    pmf_writer_destroy(w);
    return ok;
}

pmf_file *sample_map_open_written(int variant, const char *path, pmf_level *lvl)
{
    sample_map m;
    sample_map_build(&m, variant);
    pmf_error err;
    bool written = sample_map_write_file(&m, path, &err);
    sample_map_free(&m);
    pmf_file *f = written ? pmf_open(path, &err) : NULL;
    if (f && !pmf_level_read(f, 0, PMF_PART_ALL, lvl, &err)) {
        pmf_close(f);
        f = NULL;
    }
    if (!f) {
        char line[768];
        fprintf(stderr, "sample map %s: %s\n", path, pmf_error_format(&err, line, sizeof line));
    }
    return f;
}

bool sample_map_write_streamed(const sample_map *m, const char *path, uint8_t **copy, size_t *copy_size, pmf_error *err)
{
    pmf_writer *w = write_all(m, path, err);
    bool ok = w && pmf_writer_finish(w, path, err) && (!copy || pmf_writer_finish_memory(w, copy, copy_size, err));
    pmf_writer_destroy(w);
    return ok;
}

bool sample_rewrite(const pmf_file *f, uint8_t **out, size_t *size, pmf_error *err)
{
    return sample_rewrite_extended(f, NULL, out, size, err);
}

bool sample_rewrite_extended(const pmf_file *f, const pmf_blob *extra, uint8_t **out, size_t *size, pmf_error *err)
{
    pmf_blob *ext = calloc(f->extension_count + 2u, sizeof *ext);
    if (!ext)
        return false;
    for (unsigned i = 0; i < f->extension_count; i++)
        ext[i] = (pmf_blob){ f->data + f->extensions[i].offset, f->extensions[i].size };
    if (extra)
        ext[f->extension_count] = *extra;
    pmf_data_desc d = {
        .string_table = f->string_table,
        .archive = { f->data + f->archive.offset, f->archive.size },
        .extension_count = (uint16_t)(f->extension_count + (extra != NULL)),
        .extensions = ext,
        .global_entity_count = f->global_entity_count,
        .global_entities = { f->data + f->global_entities.offset, f->global_entities.size },
    };
    pmf_writer *w = pmf_writer_create(&f->header, &d, err);
    bool ok = w != NULL;
    for (uint32_t l = 0; ok && l < f->level_count; l++) {
        pmf_level lvl;
        ok = pmf_level_read(f, l, PMF_PART_ALL, &lvl, err) && pmf_writer_begin_level(w, &lvl, err);
        const pmf_level_info *li = &f->levels[l];
        for (uint32_t i = 0; ok && i < li->chunk_count; i++) {
            if (!li->chunks[i].compressed[0])
                continue;
            pmf_chunk_coord c = { (i / li->count_z) % li->count_x, i / (li->count_z * li->count_x), i % li->count_z };
            pmf_chunk ch;
            pmf_encoded_chunk enc;
            ok = pmf_chunk_read(f, &lvl, l, c, PMF_PART_ALL, &ch, err) && pmf_chunk_encode(&lvl, &ch, &enc, err) &&
                 pmf_writer_put_chunk(w, c, &enc, err);
            pmf_chunk_free(&ch);
        }
        pmf_level_free(&lvl);
    }
    ok = ok && pmf_writer_finish_memory(w, out, size, err);
    pmf_writer_destroy(w);
    free(ext);
    return ok;
}

bool sample_compare_files(const pmf_file *a, const pmf_file *b, char *why, size_t why_size)
{
    if (a->level_count != b->level_count) {
        snprintf(why, why_size, "level count %u vs %u", a->level_count, b->level_count);
        return false;
    }
    bool same = true;
    for (uint32_t l = 0; same && l < a->level_count; l++) {
        pmf_level la = { 0 }, lb = { 0 };
        pmf_error err;
        if (!pmf_level_read(a, l, PMF_PART_ALL, &la, &err) || !pmf_level_read(b, l, PMF_PART_ALL, &lb, &err)) {
            snprintf(why, why_size, "level %u: %s", l, err.message);
            pmf_level_free(&la);
            return false;
        }
        same = pmf_compare_level(&la, &lb, why, why_size);
        const pmf_level_info *li = &a->levels[l];
        for (uint32_t i = 0; same && i < li->chunk_count; i++) {
            pmf_chunk_coord c = { (i / li->count_z) % li->count_x, i / (li->count_z * li->count_x), i % li->count_z };
            pmf_chunk ca = { 0 }, cb = { 0 };
            if (!pmf_chunk_read(a, &la, l, c, PMF_PART_ALL, &ca, &err) || !pmf_chunk_read(b, &lb, l, c, PMF_PART_ALL, &cb, &err)) {
                snprintf(why, why_size, "chunk (%u,%u,%u): %s", c.x, c.y, c.z, err.message);
                same = false;
            } else if (ca.parts != cb.parts) {
                snprintf(why, why_size, "chunk (%u,%u,%u) presence differs", c.x, c.y, c.z);
                same = false;
            } else {
                same = pmf_compare_chunk(&ca, &cb, why, why_size);
            }
            pmf_chunk_free(&ca);
            pmf_chunk_free(&cb);
        }
        pmf_level_free(&la);
        pmf_level_free(&lb);
    }
    return same;
}
