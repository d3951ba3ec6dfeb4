/* pmf_compare.c - field-by-field comparison of decoded levels and chunks (round-trip tests).
 * Floats compare by bits: a round trip must not change a single one. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sample_map.h"

typedef struct cmp {
    char *why;
    size_t size;
} cmp;

static bool differ(cmp *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, c->size, fmt, ap);
    va_end(ap);
    return false;
}

static bool same_str(const char *a, const char *b) { return !strcmp(a ? a : "", b ? b : ""); }
static bool same_mem(const void *a, const void *b, size_t n) { return n == 0 || !memcmp(a, b, n); }

#define EQ(c, a, b, ...) ((a) == (b) || differ((c), __VA_ARGS__))
#define EQ_STR(c, a, b, ...) (same_str((a), (b)) || differ((c), __VA_ARGS__))
#define EQ_MEM(c, a, b, n, ...) (same_mem((a), (b), (n)) || differ((c), __VA_ARGS__))

static bool same_blob(cmp *c, pmf_blob a, pmf_blob b, const char *what)
{
    return EQ(c, a.size, b.size, "%s size %zu vs %zu", what, a.size, b.size) &&
           EQ_MEM(c, a.data, b.data, a.size, "%s bytes differ", what);
}

static bool same_common(cmp *c, const pmf_level_common *a, const pmf_level_common *b)
{
    if (!EQ(c, a->material_count, b->material_count, "material_count") ||
        !EQ(c, a->physics_material_count, b->physics_material_count, "physics_material_count") ||
        !EQ(c, a->sound_material_count, b->sound_material_count, "sound_material_count") ||
        !EQ(c, a->weather_env_count, b->weather_env_count, "weather_env_count") ||
        !EQ(c, a->gravity_env_count, b->gravity_env_count, "gravity_env_count") ||
        !EQ_STR(c, a->air_physics_material, b->air_physics_material, "air_physics_material") ||
        !EQ_STR(c, a->default_weather_env, b->default_weather_env, "default_weather_env") ||
        !EQ_STR(c, a->default_gravity_env, b->default_gravity_env, "default_gravity_env"))
        return false;
    for (unsigned i = 0; i < a->material_count; i++) {
        const pmf_material *x = &a->materials[i], *y = &b->materials[i];
        if (!EQ_STR(c, x->name, y->name, "materials[%u].name", i) || !EQ_STR(c, x->type, y->type, "materials[%u].type", i) ||
            !EQ(c, x->flags, y->flags, "materials[%u].flags", i) ||
            !EQ(c, x->render_mode, y->render_mode, "materials[%u].render_mode", i))
            return false;
    }
    for (unsigned i = 0; i < a->physics_material_count; i++) {
        const pmf_physics_material *x = &a->physics_materials[i], *y = &b->physics_materials[i];
        if (!EQ_STR(c, x->name, y->name, "physics_materials[%u].name", i) ||
            !EQ(c, x->flags, y->flags, "physics_materials[%u].flags", i) ||
            !EQ_MEM(c, &x->friction, &y->friction, 6 * sizeof(float), "physics_materials[%u] floats", i))
            return false;
    }
    if (!EQ_MEM(c, a->sound_materials, b->sound_materials, a->sound_material_count * sizeof *a->sound_materials,
                "sound_materials"))
        return false;
    for (unsigned i = 0; i < a->weather_env_count; i++) {
        const pmf_weather_env *x = &a->weather_envs[i], *y = &b->weather_envs[i];
        if (!EQ_STR(c, x->name, y->name, "weather_envs[%u].name", i) ||
            !EQ_MEM(c, x->wind, y->wind, sizeof x->wind, "weather_envs[%u].wind", i) ||
            !EQ(c, x->wind_dir_seed, y->wind_dir_seed, "weather_envs[%u].wind_dir_seed", i) ||
            !EQ_MEM(c, x->wind_dir_randomness, y->wind_dir_randomness, sizeof x->wind_dir_randomness,
                    "weather_envs[%u].wind_dir_randomness", i) ||
            !EQ_MEM(c, &x->wind_dir_noise_speed, &y->wind_dir_noise_speed, 4, "weather_envs[%u].wind_dir_noise_speed", i) ||
            !EQ(c, x->wind_speed_seed, y->wind_speed_seed, "weather_envs[%u].wind_speed_seed", i) ||
            !EQ_MEM(c, &x->wind_speed_randomness, &y->wind_speed_randomness, 4, "weather_envs[%u].wind_speed_randomness", i) ||
            !EQ_MEM(c, &x->wind_speed_noise_speed, &y->wind_speed_noise_speed, 4, "weather_envs[%u].wind_speed_noise_speed", i))
            return false;
    }
    for (unsigned i = 0; i < a->gravity_env_count; i++)
        if (!EQ_STR(c, a->gravity_envs[i].name, b->gravity_envs[i].name, "gravity_envs[%u].name", i) ||
            !EQ_MEM(c, a->gravity_envs[i].gravity, b->gravity_envs[i].gravity, 12, "gravity_envs[%u].gravity", i))
            return false;
    return true;
}

static bool same_client(cmp *c, const pmf_level_client *a, const pmf_level_client *b)
{
    if (!EQ(c, a->sound_env_count, b->sound_env_count, "sound_env_count") ||
        !EQ(c, a->sky_env_count, b->sky_env_count, "sky_env_count") ||
        !EQ_STR(c, a->default_sound_env, b->default_sound_env, "default_sound_env") ||
        !EQ_STR(c, a->default_sky_env, b->default_sky_env, "default_sky_env") ||
        !EQ(c, a->material_count, b->material_count, "client material_count"))
        return false;
    for (unsigned i = 0; i < a->sound_env_count; i++) {
        const pmf_sound_env *x = &a->sound_envs[i], *y = &b->sound_envs[i];
        if (!EQ_STR(c, x->name, y->name, "sound_envs[%u].name", i) ||
            !EQ_MEM(c, &x->low_pass, &y->low_pass, 7 * sizeof(float), "sound_envs[%u] floats", i))
            return false;
    }
    for (unsigned i = 0; i < a->sky_env_count; i++) {
        const pmf_sky_env *x = &a->sky_envs[i], *y = &b->sky_envs[i];
        if (!EQ_STR(c, x->name, y->name, "sky_envs[%u].name", i) || !EQ(c, x->flags, y->flags, "sky_envs[%u].flags", i) ||
            !EQ_STR(c, x->cloud_top, y->cloud_top, "sky_envs[%u].cloud_top", i) ||
            !EQ_STR(c, x->cloud_bottom, y->cloud_bottom, "sky_envs[%u].cloud_bottom", i) ||
            !EQ(c, pmf_chunk_index_pack(x->skybox_chunk), pmf_chunk_index_pack(y->skybox_chunk), "sky_envs[%u].skybox_chunk", i))
            return false;
        for (int f = 0; f < PMF_FACE_COUNT; f++)
            if (!EQ_STR(c, x->skybox[f], y->skybox[f], "sky_envs[%u].skybox[%d]", i, f))
                return false;
    }
    for (unsigned i = 0; i < a->material_count; i++) {
        const pmf_client_material *x = &a->materials[i], *y = &b->materials[i];
        if (!EQ_STR(c, x->texture, y->texture, "client materials[%u].texture", i) ||
            !EQ(c, x->extra_texture_count, y->extra_texture_count, "client materials[%u].extra_texture_count", i) ||
            !EQ(c, x->advance_time_us, y->advance_time_us, "client materials[%u].advance_time_us", i) ||
            !EQ_MEM(c, x->uv_scroll, y->uv_scroll, 8, "client materials[%u].uv_scroll", i) ||
            !EQ_MEM(c, x->color, y->color, 3, "client materials[%u].color", i) ||
            !EQ(c, x->alpha, y->alpha, "client materials[%u].alpha", i) ||
            !EQ_MEM(c, x->emission, y->emission, 3, "client materials[%u].emission", i) ||
            !EQ(c, x->shading, y->shading, "client materials[%u].shading", i) ||
            !EQ(c, x->shine, y->shine, "client materials[%u].shine", i) ||
            !EQ_STR(c, x->matcap, y->matcap, "client materials[%u].matcap", i) ||
            !EQ_MEM(c, &x->wave, &y->wave, sizeof x->wave, "client materials[%u].wave", i))
            return false;
        for (unsigned k = 0; k < x->extra_texture_count; k++)
            if (!EQ_STR(c, x->extra_textures[k], y->extra_textures[k], "client materials[%u].extra_textures[%u]", i, k))
                return false;
    }
    return true;
}

bool pmf_compare_level(const pmf_level *a, const pmf_level *b, char *why, size_t why_size)
{
    cmp c = { why, why_size };
    if (!EQ(&c, a->flags, b->flags, "flags") || !EQ(&c, a->chunk_size_exp, b->chunk_size_exp, "chunk_size_exp") ||
        !EQ(&c, a->count_x, b->count_x, "count_x") || !EQ(&c, a->count_y, b->count_y, "count_y") ||
        !EQ(&c, a->count_z, b->count_z, "count_z") ||
        !EQ(&c, pmf_chunk_index_pack(a->center), pmf_chunk_index_pack(b->center), "center"))
        return false;
    unsigned parts = a->parts & b->parts;
    if ((parts & PMF_PART_COMMON) && !same_common(&c, &a->common, &b->common))
        return false;
    if ((parts & PMF_PART_CLIENT) && !same_client(&c, &a->client, &b->client))
        return false;
    if (parts & PMF_PART_SERVER)
        return same_blob(&c, a->server.string_table, b->server.string_table, "server string_table") &&
               EQ(&c, a->server.entity_count, b->server.entity_count, "server entity_count") &&
               same_blob(&c, a->server.entities, b->server.entities, "server entities");
    return true;
}

static bool same_regions(cmp *c, const pmf_env_region *a, const pmf_env_region *b, unsigned n, const char *what)
{
    for (unsigned i = 0; i < n; i++)
        if (!EQ_MEM(c, a[i].corners, b[i].corners, sizeof a[i].corners, "%s[%u].corners", what, i) ||
            !EQ_STR(c, a[i].env, b[i].env, "%s[%u].env", what, i))
            return false;
    return true;
}

static bool same_names(cmp *c, const char **a, const char **b, unsigned n, const char *what)
{
    for (unsigned i = 0; i < n; i++)
        if (!EQ_STR(c, a[i], b[i], "%s[%u]", what, i))
            return false;
    return true;
}

static bool same_vis(cmp *c, const pmf_visibility *a, const pmf_visibility *b, uint32_t cube)
{
    if (!EQ(c, a->cube_count, b->cube_count, "cubes[%u].vis.cube_count", cube) ||
        !EQ_MEM(c, a->cubes, b->cubes, a->cube_count * 4u, "cubes[%u].vis.cubes", cube) ||
        !EQ(c, a->chunk_count, b->chunk_count, "cubes[%u].vis.chunk_count", cube))
        return false;
    for (uint32_t i = 0; i < a->chunk_count; i++) {
        const pmf_vis_chunk *x = &a->chunks[i], *y = &b->chunks[i];
        if (!EQ(c, pmf_chunk_index_pack(x->chunk), pmf_chunk_index_pack(y->chunk), "cubes[%u].vis.chunks[%u].chunk", cube, i) ||
            !EQ(c, x->cube_count, y->cube_count, "cubes[%u].vis.chunks[%u].cube_count", cube, i) ||
            !EQ_MEM(c, x->cubes, y->cubes, x->cube_count * 4u, "cubes[%u].vis.chunks[%u].cubes", cube, i))
            return false;
    }
    return true;
}

static bool same_chunk_common(cmp *c, const pmf_chunk_common *a, const pmf_chunk_common *b)
{
    if (!EQ(c, a->used_material_count, b->used_material_count, "used_material_count") ||
        !EQ(c, a->used_physics_material_count, b->used_physics_material_count, "used_physics_material_count") ||
        !EQ(c, a->used_sound_material_count, b->used_sound_material_count, "used_sound_material_count") ||
        !EQ(c, a->weather_region_count, b->weather_region_count, "weather_region_count") ||
        !EQ(c, a->gravity_region_count, b->gravity_region_count, "gravity_region_count") ||
        !EQ(c, a->dynamic_light_count, b->dynamic_light_count, "dynamic_light_count") ||
        !EQ(c, a->fast_light_count, b->fast_light_count, "fast_light_count") ||
        !EQ(c, a->cube_count, b->cube_count, "cube_count") ||
        !same_names(c, a->used_materials, b->used_materials, a->used_material_count, "used_materials") ||
        !same_names(c, a->used_physics_materials, b->used_physics_materials, a->used_physics_material_count,
                    "used_physics_materials") ||
        !same_names(c, a->used_sound_materials, b->used_sound_materials, a->used_sound_material_count,
                    "used_sound_materials") ||
        !same_regions(c, a->weather_regions, b->weather_regions, a->weather_region_count, "weather_regions") ||
        !same_regions(c, a->gravity_regions, b->gravity_regions, a->gravity_region_count, "gravity_regions"))
        return false;
    if (a->material_map && b->material_map &&
        !EQ_MEM(c, a->material_map, b->material_map, a->used_material_count * 2u, "material_map"))
        return false;
    if (a->physics_material_map && b->physics_material_map &&
        !EQ_MEM(c, a->physics_material_map, b->physics_material_map, a->used_physics_material_count * 2u,
                "physics_material_map"))
        return false;
    for (unsigned i = 0; i < a->dynamic_light_count; i++)
        if (!EQ(c, a->dynamic_lights[i].flags, b->dynamic_lights[i].flags, "dynamic_lights[%u].flags", i) ||
            !EQ(c, a->dynamic_lights[i].id, b->dynamic_lights[i].id, "dynamic_lights[%u].id", i))
            return false;
    for (unsigned i = 0; i < a->fast_light_count; i++)
        if (!EQ(c, a->fast_lights[i].flags, b->fast_lights[i].flags, "fast_lights[%u].flags", i) ||
            !EQ(c, a->fast_lights[i].intensity, b->fast_lights[i].intensity, "fast_lights[%u].intensity", i) ||
            !EQ(c, a->fast_lights[i].id, b->fast_lights[i].id, "fast_lights[%u].id", i))
            return false;
    for (uint32_t i = 0; i < a->cube_count; i++) {
        const pmf_cube *x = &a->cubes[i], *y = &b->cubes[i];
        if (!EQ(c, x->flags, y->flags, "cubes[%u].flags", i) || !EQ(c, x->type, y->type, "cubes[%u].type", i))
            return false;
        if ((x->flags & PMF_CUBE_HAS_VISIBILITY) && !same_vis(c, &x->vis, &y->vis, i))
            return false;
        if (x->type == PMF_CUBE_PARENT) {
            if (!EQ(c, x->u.parent.child_mask, y->u.parent.child_mask, "cubes[%u].child_mask", i))
                return false;
            for (int o = 0; o < 8; o++)
                if ((x->u.parent.child_mask & (1u << o)) &&
                    !EQ(c, x->u.parent.children[o], y->u.parent.children[o], "cubes[%u].children[%d]", i, o))
                    return false;
        } else if (x->type == PMF_CUBE_GEOMETRY) {
            if (!EQ_MEM(c, &x->u.geom, &y->u.geom, sizeof x->u.geom, "cubes[%u].geom", i))
                return false;
        } else if (x->type == PMF_CUBE_EXTGEOMETRY) {
            if (!EQ_MEM(c, x->u.ext.material, y->u.ext.material, 6, "cubes[%u].ext.material", i) ||
                !EQ_MEM(c, x->u.ext.physics_material, y->u.ext.physics_material, 6, "cubes[%u].ext.physics_material", i) ||
                !EQ(c, x->u.ext.sound_material, y->u.ext.sound_material, "cubes[%u].ext.sound_material", i) ||
                !EQ(c, x->u.ext.moved_mask, y->u.ext.moved_mask, "cubes[%u].ext.moved_mask", i))
                return false;
            for (int o = 0; o < 8; o++)
                if ((x->u.ext.moved_mask & (1u << o)) &&
                    !EQ_MEM(c, x->u.ext.points[o], y->u.ext.points[o], 12, "cubes[%u].ext.points[%d]", i, o))
                    return false;
        }
    }
    return true;
}

static bool same_refs(cmp *c, const pmf_light_ref *a, const pmf_light_ref *b, unsigned n, uint32_t cube, const char *what)
{
    for (unsigned i = 0; i < n; i++)
        if (!EQ(c, a[i].index, b[i].index, "client cubes[%u].%s[%u].index", cube, what, i) ||
            !EQ(c, a[i].amount, b[i].amount, "client cubes[%u].%s[%u].amount", cube, what, i))
            return false;
    return true;
}

static bool same_chunk_client(cmp *c, const pmf_chunk_common *common, const pmf_chunk_client *a, const pmf_chunk_client *b)
{
    if (!EQ(c, a->sound_region_count, b->sound_region_count, "sound_region_count") ||
        !EQ(c, a->sky_region_count, b->sky_region_count, "sky_region_count") ||
        !EQ(c, a->lightmap_count, b->lightmap_count, "lightmap_count") ||
        !EQ(c, a->vertex_count, b->vertex_count, "vertex_count") ||
        !same_regions(c, a->sound_regions, b->sound_regions, a->sound_region_count, "sound_regions") ||
        !same_regions(c, a->sky_regions, b->sky_regions, a->sky_region_count, "sky_regions") ||
        !EQ_MEM(c, a->vertices, b->vertices, (size_t)a->vertex_count * sizeof *a->vertices, "vertices"))
        return false;
    for (unsigned i = 0; i < a->lightmap_count; i++)
        if (!EQ(c, a->lightmaps[i].size_exp, b->lightmaps[i].size_exp, "lightmaps[%u].size_exp", i) ||
            !EQ_MEM(c, a->lightmaps[i].luxels, b->lightmaps[i].luxels, (size_t)3 << (2 * a->lightmaps[i].size_exp),
                    "lightmaps[%u].luxels", i))
            return false;
    for (unsigned i = 0; i < common->dynamic_light_count; i++) {
        const pmf_client_dynamic_light *x = &a->dynamic_lights[i], *y = &b->dynamic_lights[i];
        if (!EQ_MEM(c, x->color, y->color, 3, "client dynamic_lights[%u].color", i) ||
            !EQ(c, x->layer_count, y->layer_count, "client dynamic_lights[%u].layer_count", i))
            return false;
        for (unsigned k = 0; k < x->layer_count; k++)
            if (!EQ(c, x->layers[k].target, y->layers[k].target, "client dynamic_lights[%u].layers[%u].target", i, k) ||
                !EQ_MEM(c, x->layers[k].luxels, y->layers[k].luxels,
                        (size_t)3 << (2 * a->lightmaps[x->layers[k].target].size_exp),
                        "client dynamic_lights[%u].layers[%u].luxels", i, k))
                return false;
    }
    for (unsigned i = 0; i < common->fast_light_count; i++) {
        const pmf_client_fast_light *x = &a->fast_lights[i], *y = &b->fast_lights[i];
        if (!EQ_MEM(c, x->color, y->color, 3, "client fast_lights[%u].color", i) ||
            !EQ(c, x->range_count, y->range_count, "client fast_lights[%u].range_count", i))
            return false;
        for (uint32_t k = 0; k < x->range_count; k++)
            if (!EQ(c, x->ranges[k].skip, y->ranges[k].skip, "client fast_lights[%u].ranges[%u].skip", i, k) ||
                !EQ(c, x->ranges[k].count, y->ranges[k].count, "client fast_lights[%u].ranges[%u].count", i, k) ||
                !EQ_MEM(c, x->ranges[k].multipliers, y->ranges[k].multipliers, x->ranges[k].count,
                        "client fast_lights[%u].ranges[%u].multipliers", i, k))
                return false;
    }
    for (uint32_t i = 0; i < common->cube_count; i++) {
        const pmf_cube *cube = &common->cubes[i];
        const pmf_client_cube *x = &a->cubes[i], *y = &b->cubes[i];
        if (cube->flags & PMF_CUBE_HAS_LIGHTING) {
            if (!EQ_MEM(c, x->lighting.base, y->lighting.base, 3, "client cubes[%u].lighting.base", i) ||
                !EQ(c, x->lighting.dynamic_count, y->lighting.dynamic_count, "client cubes[%u].lighting.dynamic_count", i) ||
                !EQ(c, x->lighting.fast_count, y->lighting.fast_count, "client cubes[%u].lighting.fast_count", i) ||
                !same_refs(c, x->lighting.dynamic, y->lighting.dynamic, x->lighting.dynamic_count, i, "dynamic") ||
                !same_refs(c, x->lighting.fast, y->lighting.fast, x->lighting.fast_count, i, "fast"))
                return false;
        }
        if (cube->type == PMF_CUBE_GEOMETRY) {
            if (!EQ(c, x->u.geom.lightmap, y->u.geom.lightmap, "client cubes[%u].geom.lightmap", i) ||
                !EQ(c, x->u.geom.first_vertex, y->u.geom.first_vertex, "client cubes[%u].geom.first_vertex", i) ||
                !EQ(c, x->u.geom.face_mask, y->u.geom.face_mask, "client cubes[%u].geom.face_mask", i))
                return false;
        } else if (cube->type == PMF_CUBE_EXTGEOMETRY) {
            if (!EQ(c, x->u.ext.first_vertex, y->u.ext.first_vertex, "client cubes[%u].ext.first_vertex", i) ||
                !EQ_MEM(c, x->u.ext.lightmap, y->u.ext.lightmap, 6, "client cubes[%u].ext.lightmap", i) ||
                !EQ_MEM(c, x->u.ext.tri_count, y->u.ext.tri_count, 6, "client cubes[%u].ext.tri_count", i))
                return false;
        }
    }
    return true;
}

static bool same_chunk_server(cmp *c, const pmf_chunk_common *common, const pmf_chunk_server *a, const pmf_chunk_server *b,
                              bool tables)
{
    if ((tables && !same_blob(c, a->string_table, b->string_table, "chunk server string_table")) ||
        !EQ(c, a->load_region_count, b->load_region_count, "load_region_count") ||
        !EQ(c, a->entity_count, b->entity_count, "chunk entity_count") ||
        !same_blob(c, a->entities, b->entities, "chunk entities"))
        return false;
    for (unsigned i = 0; i < a->load_region_count; i++) {
        const pmf_region *x = &a->load_regions[i], *y = &b->load_regions[i];
        if (!EQ_MEM(c, x->max, y->max, 12, "load_regions[%u].max", i) || !EQ_MEM(c, x->min, y->min, 12, "load_regions[%u].min", i) ||
            !EQ(c, x->chunk_count, y->chunk_count, "load_regions[%u].chunk_count", i))
            return false;
        for (uint32_t k = 0; k < x->chunk_count; k++)
            if (!EQ(c, pmf_chunk_index_pack(x->chunks[k]), pmf_chunk_index_pack(y->chunks[k]), "load_regions[%u].chunks[%u]", i, k))
                return false;
    }
    for (uint32_t i = 0; i < common->cube_count; i++) {
        if (!(common->cubes[i].flags & PMF_CUBE_HAS_PATHFINDING))
            continue;
        const pmf_server_cube *x = &a->cubes[i], *y = &b->cubes[i];
        if (!EQ(c, x->attr_count, y->attr_count, "server cubes[%u].attr_count", i))
            return false;
        for (unsigned k = 0; k < x->attr_count; k++)
            if (!EQ_STR(c, x->attrs[k].name, y->attrs[k].name, "server cubes[%u].attrs[%u].name", i, k) ||
                !EQ_MEM(c, x->attrs[k].direction, y->attrs[k].direction, 12, "server cubes[%u].attrs[%u].direction", i, k))
                return false;
    }
    return true;
}

bool pmf_compare_chunk(const pmf_chunk *a, const pmf_chunk *b, char *why, size_t why_size)
{
    cmp c = { why, why_size };
    unsigned parts = a->parts & b->parts;
    if (!EQ(&c, pmf_chunk_index_pack(a->coord), pmf_chunk_index_pack(b->coord), "coord"))
        return false;
    if ((parts & PMF_PART_COMMON) && !same_chunk_common(&c, &a->common, &b->common))
        return false;
    if ((parts & PMF_PART_CLIENT) && !same_chunk_client(&c, &a->common, &a->client, &b->client))
        return false;
    /* the server string table grows by the pathfinding names the writer adds: compare it only
     * when both sides came from a file */
    bool tables = a->arena_ && b->arena_;
    if ((parts & PMF_PART_SERVER) && !same_chunk_server(&c, &a->common, &a->server, &b->server, tables))
        return false;
    return true;
}
