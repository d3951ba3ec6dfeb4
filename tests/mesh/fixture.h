/* fixture.h - builds decoded chunks (pmf_chunk) directly in memory for the mesh tests. */
#ifndef TESTS_MESH_FIXTURE_H
#define TESTS_MESH_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "mesh.h"

#define FX_MAX_LIGHTMAPS 255

typedef struct fixture {
    pmf_level lvl;
    pmf_chunk ch;
    pmf_cube *cubes;
    pmf_client_cube *ccubes;
    pmf_vertex *vertices;
    pmf_lightmap lightmaps[FX_MAX_LIGHTMAPS];
    const char *used_names[8];
    uint16_t material_map[8];
    pmf_dynamic_light dynamic[4];
    pmf_client_dynamic_light client_dynamic[4];
    pmf_fast_light fast[8];
    pmf_client_fast_light client_fast[8];
} fixture;

/* A chunk of side 2^size_exp with cube_count empty cubes and vertex i at (i, 2i, 3i), uv (i, -i),
 * lm_uv (0, 0); used material u maps to level material map[u] (count of them). */
static inline fixture *fx_new(uint8_t size_exp, uint16_t level_materials, uint32_t cube_count, uint32_t vertex_count,
                       const uint16_t *map, uint8_t map_count)
{
    fixture *f = calloc(1, sizeof *f);
    f->lvl.chunk_size_exp = size_exp;
    f->lvl.parts = PMF_PART_COMMON | PMF_PART_CLIENT;
    f->lvl.common.material_count = level_materials;
    f->cubes = calloc(cube_count, sizeof *f->cubes);
    f->ccubes = calloc(cube_count, sizeof *f->ccubes);
    f->vertices = calloc(vertex_count + 1, sizeof *f->vertices);
    for (uint32_t i = 0; i < vertex_count; i++) {
        f->vertices[i] = (pmf_vertex){ { (float)i, 2.0f * i, 3.0f * i }, { (float)i, -(float)i }, { 0, 0 } };
    }
    for (uint8_t u = 0; u < map_count; u++) {
        f->used_names[u] = "m";
        f->material_map[u] = map[u];
    }
    pmf_chunk *ch = &f->ch;
    ch->coord = (pmf_chunk_coord){ 1, 2, 3 };
    ch->parts = PMF_PART_COMMON | PMF_PART_CLIENT;
    ch->common.used_material_count = map_count;
    ch->common.used_materials = f->used_names;
    ch->common.material_map = f->material_map;
    ch->common.cube_count = cube_count;
    ch->common.cubes = f->cubes;
    ch->common.dynamic_lights = f->dynamic;
    ch->common.fast_lights = f->fast;
    ch->client.lightmaps = f->lightmaps;
    ch->client.vertex_count = vertex_count;
    ch->client.vertices = f->vertices;
    ch->client.cubes = f->ccubes;
    ch->client.dynamic_lights = f->client_dynamic;
    ch->client.fast_lights = f->client_fast;
    return f;
}

static inline void fx_free(fixture *f)
{
    for (int l = 0; l < FX_MAX_LIGHTMAPS; l++)
        free(f->lightmaps[l].luxels);
    free(f->vertices);
    free(f->cubes);
    free(f->ccubes);
    free(f);
}

static inline void fx_parent(fixture *f, uint32_t c, uint32_t octant, uint32_t child)
{
    f->cubes[c].type = PMF_CUBE_PARENT;
    f->cubes[c].u.parent.child_mask |= (uint8_t)(1u << octant);
    f->cubes[c].u.parent.children[octant] = child;
}

static inline void fx_geom(fixture *f, uint32_t c, uint8_t material, uint8_t lightmap, uint32_t first, uint8_t face_mask)
{
    f->cubes[c].type = PMF_CUBE_GEOMETRY;
    f->cubes[c].u.geom.material = material;
    f->ccubes[c].u.geom.lightmap = lightmap;
    f->ccubes[c].u.geom.first_vertex = first;
    f->ccubes[c].u.geom.face_mask = face_mask;
}

/* Adds a 2^exp lightmap whose luxel (x, y) is (x, y, seed). Returns its index. */
static inline uint8_t fx_lightmap(fixture *f, uint8_t exp, uint8_t seed)
{
    uint8_t l = f->ch.client.lightmap_count++;
    uint32_t side = 1u << exp;
    f->lightmaps[l].size_exp = exp;
    f->lightmaps[l].luxels = malloc((size_t)side * side * 3);
    for (uint32_t y = 0; y < side; y++)
        for (uint32_t x = 0; x < side; x++) {
            uint8_t *p = &f->lightmaps[l].luxels[(y * side + x) * 3];
            p[0] = (uint8_t)x;
            p[1] = (uint8_t)y;
            p[2] = seed;
        }
    return l;
}

#endif
