/* rt_map.c - builds small PMF maps for the render tests (rt_map.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_map.h"

rt_level *rt_level_add(rt_map *m, uint8_t exp, pmf_chunk_coord count, pmf_chunk_coord center)
{
    rt_level *l = &m->levels[m->level_count++];
    memset(l, 0, sizeof *l);
    pmf_level *lvl = &l->lvl;
    lvl->chunk_size_exp = exp;
    lvl->count_x = count.x;
    lvl->count_y = count.y;
    lvl->count_z = count.z;
    lvl->center = center;
    lvl->parts = PMF_PART_ALL;
    l->phys[0] = (pmf_physics_material){ .name = "p", .friction = 1, .traction = 1 };
    lvl->common.materials = l->mats;
    lvl->common.physics_material_count = 1;
    lvl->common.physics_materials = l->phys;
    lvl->common.sound_material_count = 1;
    lvl->common.sound_materials = l->sound;
    lvl->common.air_physics_material = "";
    lvl->common.weather_envs = l->weather;
    lvl->common.default_weather_env = "";
    lvl->common.default_gravity_env = "";
    lvl->client.sky_envs = l->skies;
    lvl->client.default_sound_env = "";
    lvl->client.default_sky_env = "";
    lvl->client.materials = l->cmats;
    return l;
}

uint8_t rt_material(rt_level *l, const char *name, const char *texture, uint8_t flags, uint8_t render_mode)
{
    uint16_t i = l->lvl.common.material_count++;
    l->lvl.client.material_count = l->lvl.common.material_count;
    l->mats[i] = (pmf_material){ .name = name, .type = "", .flags = flags, .render_mode = render_mode };
    l->mat_names[i] = name;
    l->cmats[i] = (pmf_client_material){
        .texture = texture ? texture : "", .extra_textures = l->extra[i], .color = { 255, 255, 255 },
        .alpha = 255, .shading = 255, .matcap = "",
    };
    return (uint8_t)i;
}

pmf_client_material *rt_cmat(rt_level *l, uint8_t index)
{
    return &l->cmats[index];
}

rt_chunk *rt_chunk_add(rt_level *l, pmf_chunk_coord c)
{
    rt_chunk *k = calloc(1, sizeof *k);
    l->chunks[l->chunk_count++] = k;
    pmf_chunk *ch = &k->ch;
    ch->coord = c;
    ch->parts = PMF_PART_ALL;
    k->used_phys[0] = "p";
    k->used_sound[0] = "s";
    ch->common.used_physics_material_count = 1;
    ch->common.used_physics_materials = k->used_phys;
    ch->common.used_sound_material_count = 1;
    ch->common.used_sound_materials = k->used_sound;
    ch->common.dynamic_lights = k->dyn;
    ch->common.fast_lights = k->fast;
    ch->common.cube_count = 1;
    ch->common.cubes = k->cubes;
    ch->client.sky_regions = k->sky_regions;
    ch->client.lightmaps = k->lightmaps;
    ch->client.vertices = k->verts;
    ch->client.dynamic_lights = k->cdyn;
    ch->client.fast_lights = k->cfast;
    ch->client.cubes = k->ccubes;
    static pmf_server_cube server_cubes[RT_MAX_CUBES];
    ch->server.cubes = server_cubes;
    return k;
}

uint8_t rt_lightmap(rt_chunk *c, uint8_t exp, uint8_t r, uint8_t g, uint8_t b)
{
    uint8_t i = c->ch.client.lightmap_count++;
    size_t n = (size_t)1 << (2 * exp);
    c->lightmaps[i].size_exp = exp;
    c->lightmaps[i].luxels = malloc(n * 3);
    for (size_t t = 0; t < n; t++) {
        c->lightmaps[i].luxels[t * 3] = r;
        c->lightmaps[i].luxels[t * 3 + 1] = g;
        c->lightmaps[i].luxels[t * 3 + 2] = b;
    }
    return i;
}

uint32_t rt_quad_verts(rt_chunk *c, const float corners[4][3])
{
    static const float uv[4][2] = { { 0, 0 }, { 1, 0 }, { 1, 1 }, { 0, 1 } };
    uint32_t first = c->ch.client.vertex_count;
    for (int i = 0; i < 4; i++) {
        pmf_vertex *v = &c->verts[first + i];
        memcpy(v->xyz, corners[i], sizeof v->xyz);
        memcpy(v->uv, uv[i], sizeof v->uv);
        memcpy(v->lm_uv, uv[i], sizeof v->lm_uv);
    }
    c->ch.client.vertex_count += 4;
    return first;
}

void rt_touch_cube(rt_chunk *c, uint32_t cube)
{
    if (c->ch.common.cube_count <= cube)
        c->ch.common.cube_count = cube + 1;
}

void rt_geom_quad(rt_chunk *c, uint32_t cube, uint8_t material, uint8_t lightmap, const float corners[4][3])
{
    rt_touch_cube(c, cube);
    c->cubes[cube].type = PMF_CUBE_GEOMETRY;
    c->cubes[cube].u.geom.material = material;
    c->ccubes[cube].u.geom.lightmap = lightmap;
    c->ccubes[cube].u.geom.first_vertex = rt_quad_verts(c, corners);
    c->ccubes[cube].u.geom.face_mask = 1;
}

void rt_parent(rt_chunk *c, uint32_t cube, uint32_t octant, uint32_t child)
{
    rt_touch_cube(c, cube);
    rt_touch_cube(c, child);
    c->cubes[cube].type = PMF_CUBE_PARENT;
    c->cubes[cube].u.parent.child_mask |= (uint8_t)(1u << octant);
    c->cubes[cube].u.parent.children[octant] = child;
}

uint8_t rt_dynamic_light(rt_chunk *c, uint32_t id, bool enabled, const uint8_t color[3], uint8_t lm, uint8_t luxel)
{
    uint8_t i = c->ch.common.dynamic_light_count++;
    c->dyn[i] = (pmf_dynamic_light){ .flags = enabled ? PMF_LIGHT_ENABLE : 0, .id = id };
    size_t n = (size_t)1 << (2 * c->lightmaps[lm].size_exp);
    c->layers[i][0].target = lm;
    c->layers[i][0].luxels = malloc(n * 3);
    memset(c->layers[i][0].luxels, luxel, n * 3);
    c->cdyn[i] = (pmf_client_dynamic_light){ .color = { color[0], color[1], color[2] }, .layer_count = 1,
                                             .layers = c->layers[i] };
    return i;
}

uint8_t rt_fast_light(rt_chunk *c, uint32_t id, uint8_t intensity, const uint8_t color[3], uint32_t skip,
                      uint32_t count, uint8_t mult)
{
    uint8_t i = c->ch.common.fast_light_count++;
    c->fast[i] = (pmf_fast_light){ .flags = PMF_LIGHT_ENABLE, .intensity = intensity, .id = id };
    c->ranges[i][0].skip = skip;
    c->ranges[i][0].count = count;
    c->ranges[i][0].multipliers = malloc(count ? count : 1);
    memset(c->ranges[i][0].multipliers, mult, count);
    c->cfast[i] = (pmf_client_fast_light){ .color = { color[0], color[1], color[2] }, .range_count = 1,
                                           .ranges = c->ranges[i] };
    return i;
}

bool rt_map_write(rt_map *m, const char *path)
{
    pmf_error err;
    char line[768];
    pmf_header header = { .name = "render test", .description = "", .authors = "", .compiler = "rt_map" };
    pmf_data_desc data = { .archive = { m->archive, m->archive_size }, .extensions = m->extensions,
                           .extension_count = m->extension_count };
    pmf_writer *w = pmf_writer_create(&header, &data, &err);
    bool ok = w != NULL;
    for (uint32_t li = 0; ok && li < m->level_count; li++) {
        rt_level *l = &m->levels[li];
        ok = pmf_writer_begin_level(w, &l->lvl, &err);
        for (uint32_t ci = 0; ok && ci < l->chunk_count; ci++) {
            pmf_chunk *ch = &l->chunks[ci]->ch;
            ch->common.used_material_count = (uint8_t)l->lvl.common.material_count;
            ch->common.used_materials = l->mat_names;
            pmf_encoded_chunk enc;
            ok = pmf_chunk_encode(&l->lvl, ch, &enc, &err) && pmf_writer_put_chunk(w, ch->coord, &enc, &err);
        }
    }
    ok = ok && pmf_writer_finish(w, path, &err);
    if (!ok)
        fprintf(stderr, "rt_map_write: %s\n", pmf_error_format(&err, line, sizeof line));
    pmf_writer_destroy(w);
    return ok;
}

void rt_map_free(rt_map *m)
{
    for (uint32_t li = 0; li < m->level_count; li++) {
        rt_level *l = &m->levels[li];
        for (uint32_t ci = 0; ci < l->chunk_count; ci++) {
            rt_chunk *c = l->chunks[ci];
            for (int i = 0; i < RT_MAX_LIGHTMAPS; i++)
                free(c->lightmaps[i].luxels);
            for (int i = 0; i < RT_MAX_LIGHTS; i++) {
                free(c->layers[i][0].luxels);
                free(c->ranges[i][0].multipliers);
            }
            free(c);
        }
    }
    free(m->archive);
    memset(m, 0, sizeof *m);
}

void rt_wall_z(float out[4][3], float x0, float x1, float y0, float y1, float z, bool facing_pos_z)
{
    float a[4][3] = { { x0, y0, z }, { x1, y0, z }, { x1, y1, z }, { x0, y1, z } };
    float b[4][3] = { { x1, y0, z }, { x0, y0, z }, { x0, y1, z }, { x1, y1, z } };
    memcpy(out, facing_pos_z ? a : b, sizeof a);
}

void rt_wall_x(float out[4][3], float z0, float z1, float y0, float y1, float x, bool facing_pos_x)
{
    float a[4][3] = { { x, y0, z1 }, { x, y0, z0 }, { x, y1, z0 }, { x, y1, z1 } };
    float b[4][3] = { { x, y0, z0 }, { x, y0, z1 }, { x, y1, z1 }, { x, y1, z0 } };
    memcpy(out, facing_pos_x ? a : b, sizeof a);
}

void rt_floor_y(float out[4][3], float x0, float x1, float z0, float z1, float y, bool facing_pos_y)
{
    float a[4][3] = { { x0, y, z1 }, { x1, y, z1 }, { x1, y, z0 }, { x0, y, z0 } };
    float b[4][3] = { { x0, y, z0 }, { x1, y, z0 }, { x1, y, z1 }, { x0, y, z1 } };
    memcpy(out, facing_pos_y ? a : b, sizeof a);
}

void rt_two_walls(rt_chunk *c, uint8_t left_material, uint8_t left_lightmap, uint8_t right_material,
                  uint8_t right_lightmap)
{
    float q[4][3];
    rt_parent(c, 0, PMF_OCTANT_NEG_Z | PMF_OCTANT_NEG_X, 1);
    rt_parent(c, 0, PMF_OCTANT_NEG_Z, 2);
    rt_wall_z(q, -8, 0, -8, 8, -4, true);
    rt_geom_quad(c, 1, left_material, left_lightmap, q);
    rt_wall_z(q, 0, 8, -8, 8, -4, true);
    rt_geom_quad(c, 2, right_material, right_lightmap, q);
}
