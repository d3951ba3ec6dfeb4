/* rt_map.h - small PMF maps built in code for the render tests, written with the pmf writer.
 *
 * Every chunk's used-material list is the level's whole material list, so a cube's material
 * byte is the level material index. One physics material "p" and one sound material exist so
 * cubes can name index 0 of each. Quads are given as 4 corners, counter-clockwise seen from
 * their front, with lightmap UV (0,0) (1,0) (1,1) (0,1) and texture UV the same.
 */
#ifndef TESTS_RENDER_RT_MAP_H
#define TESTS_RENDER_RT_MAP_H

#include "pmf.h"

#define RT_MAX_CUBES 64
#define RT_MAX_VERTS 80000         /* index_types needs a chunk of more than 65536 */
#define RT_MAX_LIGHTMAPS 16
#define RT_MAX_MATERIALS 16
#define RT_MAX_LIGHTS 255            /* the hostile dynamic-layers map has 255 */
#define RT_MAX_CHUNKS 16

typedef struct rt_chunk {
    pmf_chunk ch;
    pmf_cube cubes[RT_MAX_CUBES];
    pmf_client_cube ccubes[RT_MAX_CUBES];
    pmf_vertex verts[RT_MAX_VERTS];
    pmf_lightmap lightmaps[RT_MAX_LIGHTMAPS];
    pmf_dynamic_light dyn[RT_MAX_LIGHTS];
    pmf_client_dynamic_light cdyn[RT_MAX_LIGHTS];
    pmf_light_layer layers[RT_MAX_LIGHTS][4];
    pmf_fast_light fast[RT_MAX_LIGHTS];
    pmf_client_fast_light cfast[RT_MAX_LIGHTS];
    pmf_fast_range ranges[RT_MAX_LIGHTS][4];
    pmf_env_region sky_regions[4];
    const char *used_phys[1], *used_sound[1];
} rt_chunk;

typedef struct rt_level {
    pmf_level lvl;
    pmf_material mats[RT_MAX_MATERIALS];
    pmf_client_material cmats[RT_MAX_MATERIALS];
    const char *extra[RT_MAX_MATERIALS][4];
    pmf_physics_material phys[1];
    pmf_sound_material sound[1];
    pmf_sky_env skies[4];
    pmf_weather_env weather[1];
    const char *mat_names[RT_MAX_MATERIALS];
    rt_chunk *chunks[RT_MAX_CHUNKS];
    uint32_t chunk_count;
} rt_level;

typedef struct rt_map {
    rt_level levels[2];
    uint32_t level_count;
    uint8_t *archive;                /* embedded PAF bytes (malloc'd) or NULL */
    size_t archive_size;
    const pmf_blob *extensions;      /* written as they are (the caller keeps them), or none */
    uint16_t extension_count;
} rt_map;

/* A level with a grid of count chunks of side 2^exp, centre chunk center. */
rt_level *rt_level_add(rt_map *m, uint8_t exp, pmf_chunk_coord count, pmf_chunk_coord center);
/* Adds a material (untextured when texture is NULL); returns its index. Colour white, shading
 * 255, alpha 255 unless changed through the returned client material. */
uint8_t rt_material(rt_level *l, const char *name, const char *texture, uint8_t flags, uint8_t render_mode);
pmf_client_material *rt_cmat(rt_level *l, uint8_t index);
/* A present chunk at c; cube 0 is an empty root until cubes are added. */
rt_chunk *rt_chunk_add(rt_level *l, pmf_chunk_coord c);
/* A 2^exp lightmap of one flat colour; returns its index. */
uint8_t rt_lightmap(rt_chunk *c, uint8_t exp, uint8_t r, uint8_t g, uint8_t b);
/* Appends a quad's 4 vertices (corners ccw from the front); returns the first vertex index. */
uint32_t rt_quad_verts(rt_chunk *c, const float corners[4][3]);
/* Makes cube `cube` a geometry cube with one quad (face bit +X) of material / lightmap. */
void rt_geom_quad(rt_chunk *c, uint32_t cube, uint8_t material, uint8_t lightmap, const float corners[4][3]);
/* Makes cube a parent (adds the child in the given octant). */
void rt_parent(rt_chunk *c, uint32_t cube, uint32_t octant, uint32_t child);
/* Cube count grows to include cube. */
void rt_touch_cube(rt_chunk *c, uint32_t cube);
/* A dynamic light with one layer (flat colour) on lightmap lm. Returns its index. */
uint8_t rt_dynamic_light(rt_chunk *c, uint32_t id, bool enabled, const uint8_t color[3], uint8_t lm, uint8_t luxel);
/* A fast light with one range (skip, count multipliers all = mult). Returns its index. */
uint8_t rt_fast_light(rt_chunk *c, uint32_t id, uint8_t intensity, const uint8_t color[3], uint32_t skip,
                      uint32_t count, uint8_t mult);

/* Writes the map; false with a message on stderr. */
bool rt_map_write(rt_map *m, const char *path);
void rt_map_free(rt_map *m);

/* Axis-aligned wall quads (ccw seen from the side the normal points to). */
void rt_wall_z(float out[4][3], float x0, float x1, float y0, float y1, float z, bool facing_pos_z);
void rt_wall_x(float out[4][3], float z0, float z1, float y0, float y1, float x, bool facing_pos_x);
void rt_floor_y(float out[4][3], float x0, float x1, float z0, float z1, float y, bool facing_pos_y);

/* The tests' usual view of a 16 m chunk: a wall at z = -4 facing +Z over x, y in [-8, 8], split
 * at x = 0 into cube 1 (the left, -X half) and cube 2 (the right half), children of cube 0. */
void rt_two_walls(rt_chunk *c, uint8_t left_material, uint8_t left_lightmap, uint8_t right_material,
                  uint8_t right_lightmap);

#endif
