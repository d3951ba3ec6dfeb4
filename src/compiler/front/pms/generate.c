/* generate.c - the city generator: every 32 m chunk holds a street crossing at its -X/-Z corner
 * and a block: buildings (a hollow lit ground floor with a door, solid storeys with windows, a
 * roof), a park with a pond, or a plaza. Lamps stand at the crossings; some are toggleable
 * (dynamic lights), some signs flicker (fast lights). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/memory.h"
#include "common/texture.h"
#include "csg/csg.h"
#include "generate.h"

#define CHUNK_EXP 5
#define STREET 4.0           /* half a street's width, metres */
#define MAX_FAST_LIGHTS 32  /* per FAST_REGION x FAST_REGION chunks */
#define FAST_REGION 8

typedef struct rng { uint64_t s; } rng;

static uint64_t rng_next(rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double rng_unit(rng *r) { return (rng_next(r) >> 11) * (1.0 / 9007199254740992.0); }
static double rng_range(rng *r, double lo, double hi) { return lo + (hi - lo) * rng_unit(r); }

enum { M_ASPHALT, M_SIDEWALK, M_BRICK, M_CONCRETE, M_WINDOWS, M_ROOF, M_FLOOR, M_PLASTER, M_GRASS, M_STONE,
       M_WATER, M_METAL, M_LAMP, M_NEON, M_SKY, M_CLOUDS, M_COUNT };

typedef struct gen {
    map_def *map;
    level_def *level;
    uint32_t next_dynamic, next_fast;
    int mat[M_COUNT];                /* the map's material of each M_ */
} gen;

/* A block: the ground inside a chunk's streets, or one building's lot on it. */
typedef struct gen_rect { double x0, z0, x1, z1; } gen_rect;

static void gen_texture(gen *g, const char *name, const char *kind, uint32_t size, uint8_t r, uint8_t gg, uint8_t b,
                        uint8_t r2, uint8_t g2, uint8_t b2, uint32_t seed)
{
    texture_def *t = PUSH(g->map->textures, g->map->texture_count, g->map->texture_cap);
    snprintf(t->name, sizeof t->name, "%s", name);
    uint8_t c1[3] = { r, gg, b }, c2[3] = { r2, g2, b2 };
    texture_procedural(t, kind, size, c1, c2, seed);
}

static int gen_material(gen *g, const char *name, const char *texture, double scale)
{
    material_def *m = PUSH(g->map->materials, g->map->material_count, g->map->material_cap);
    snprintf(m->name, sizeof m->name, "%s", name);
    if (texture) snprintf(m->texture, sizeof m->texture, "map:textures/%s", texture);
    memset(m->color, 255, 3);
    m->alpha = 255;
    m->shading = 255;
    m->tex_scale = scale;
    return (int)(g->map->material_count - 1);
}

static void gen_box(gen *g, v3 lo, v3 hi, int material)
{
    int m[PMF_FACE_COUNT];
    for (int f = 0; f < PMF_FACE_COUNT; f++) m[f] = material;
    brush *b = brush_box(g->level, lo, hi, m);
    b->opaque = material_opaque(&g->map->materials[material]);
}

static void gen_light(gen *g, bake_light_kind kind, v3 pos, uint8_t r, uint8_t gg, uint8_t b, float brightness, float range)
{
    light_def *l = PUSH(g->level->lights, g->level->light_count, g->level->light_cap);
    l->kind = kind;
    l->pos = pos;
    l->color[0] = r; l->color[1] = gg; l->color[2] = b;
    l->brightness = brightness;
    l->range = range;
    l->intensity = 255;
    l->enabled = true;
    if (kind == BAKE_LIGHT_DYNAMIC) l->id = g->next_dynamic++;
    if (kind == BAKE_LIGHT_FAST) l->id = g->next_fast++;
}

/* The procedural textures and the materials over them, into g->mat. */
static void gen_materials(gen *g)
{
    map_def *map = g->map;
    int *mat = g->mat;
    gen_texture(g, "asphalt", "noise", 64, 70, 70, 74, 40, 40, 44, 11);
    gen_texture(g, "sidewalk", "tiles", 64, 170, 166, 158, 110, 106, 100, 12);
    gen_texture(g, "brick", "bricks", 64, 150, 72, 52, 190, 185, 175, 13);
    gen_texture(g, "concrete", "noise", 64, 165, 162, 155, 120, 118, 112, 14);
    gen_texture(g, "windows", "panel", 64, 90, 110, 135, 40, 44, 50, 15);
    gen_texture(g, "roof", "panel", 64, 95, 92, 90, 60, 58, 56, 16);
    gen_texture(g, "planks", "planks", 64, 160, 115, 70, 70, 45, 25, 17);
    gen_texture(g, "grass", "noise", 64, 80, 140, 60, 40, 90, 30, 18);
    gen_texture(g, "water", "water", 64, 40, 90, 140, 150, 200, 230, 19);
    gen_texture(g, "glow", "glow", 32, 255, 250, 220, 255, 170, 60, 20);
    gen_texture(g, "sky", "sky", 64, 60, 110, 190, 200, 215, 235, 21);
    gen_texture(g, "clouds", "clouds", 128, 255, 255, 255, 200, 205, 215, 22);

    mat[M_ASPHALT] = gen_material(g, "asphalt", "asphalt", 4);
    mat[M_SIDEWALK] = gen_material(g, "sidewalk", "sidewalk", 2);
    mat[M_BRICK] = gen_material(g, "brick", "brick", 3);
    mat[M_CONCRETE] = gen_material(g, "concrete", "concrete", 4);
    mat[M_WINDOWS] = gen_material(g, "windows", "windows", 4);
    map->materials[mat[M_WINDOWS]].shine = 90;
    map->materials[mat[M_WINDOWS]].emission[0] = 28;
    map->materials[mat[M_WINDOWS]].emission[1] = 26;
    map->materials[mat[M_WINDOWS]].emission[2] = 18;
    mat[M_ROOF] = gen_material(g, "roof", "roof", 4);
    mat[M_FLOOR] = gen_material(g, "floor", "planks", 2);
    mat[M_PLASTER] = gen_material(g, "plaster", "concrete", 3);
    map->materials[mat[M_PLASTER]].color[2] = 225;
    mat[M_GRASS] = gen_material(g, "grass", "grass", 3);
    mat[M_STONE] = gen_material(g, "stone", "concrete", 1);
    mat[M_WATER] = gen_material(g, "water", "water", 4);
    material_def *water = &map->materials[mat[M_WATER]];
    water->flags = PMF_MATERIAL_TRANSPARENT | PMF_MATERIAL_LIQUID;
    water->alpha = 190;
    water->scroll[0] = 0.05f;
    water->shine = 40;
    water->wave = (pmf_wave_info){ { 0.3f, 0, 0.2f }, 0.5f, 0, 0.1f };
    mat[M_METAL] = gen_material(g, "metal", "roof", 1);
    mat[M_LAMP] = gen_material(g, "lamp", "glow", 1);
    map->materials[mat[M_LAMP]].emission[0] = 255;
    map->materials[mat[M_LAMP]].emission[1] = 240;
    map->materials[mat[M_LAMP]].emission[2] = 200;
    map->materials[mat[M_LAMP]].shading = 0;
    mat[M_NEON] = gen_material(g, "neon", "glow", 2);
    material_def *neon = &map->materials[mat[M_NEON]];
    neon->render_mode = PMF_RENDMODE_ADD;
    neon->shading = 0;
    neon->color[0] = 255; neon->color[1] = 80; neon->color[2] = 200;
    mat[M_SKY] = gen_material(g, "sky", "sky", 1);
    map->materials[mat[M_SKY]].shading = 0;
    mat[M_CLOUDS] = gen_material(g, "clouds", "clouds", 1);
    material_def *clouds = &map->materials[mat[M_CLOUDS]];
    clouds->flags = PMF_MATERIAL_TRANSPARENT;
    clouds->shading = 0;
    clouds->scroll[0] = 0.01f;
}

/* The city's one level, its sky and weather, sized for a grid of that many chunks (g->level). */
static void gen_level(gen *g, const uint32_t chunks[3], uint64_t seed)
{
    level_def *l = PUSH(g->map->levels, g->map->level_count, g->map->level_cap);
    g->level = l;
    snprintf(l->name, sizeof l->name, "city");
    l->chunk_exp = CHUNK_EXP;
    size_t total = (size_t)chunks[0] * chunks[1] * chunks[2];
    l->luxel_density = total > 16384 ? 0.25 : total > 4096 ? 0.5 : total > 256 ? 1 : 2;
    /* from-region visibility costs cells x targets: big cities rely on frustum culling alone,
     * and then need no camera cells (whole chunks split only where materials meet) */
    l->no_visibility = total > 64;
    l->vis_cell = l->no_visibility ? 64 : 16;
    l->vis_rays = 4;
    l->min_cube = 4;
    l->ambient[0] = 0.42f; l->ambient[1] = 0.43f; l->ambient[2] = 0.47f; /* daylight from the sky */
    sky_def *sky = PUSH(l->skies, l->sky_count, l->sky_cap);
    snprintf(sky->name, sizeof sky->name, "day");
    for (int f = 0; f < PMF_FACE_COUNT; f++) sky->skybox[f] = g->mat[M_SKY];
    sky->cloud_top = g->mat[M_CLOUDS];
    sky->cloud_bottom = -1;
    strcpy(l->default_sky, "day");
    weather_def *wd = PUSH(l->weathers, l->weather_count, l->weather_cap);
    snprintf(wd->name, sizeof wd->name, "breeze");
    wd->env.wind[0] = 2;
    wd->env.wind_dir_seed = (uint32_t)seed;
    strcpy(l->default_weather, "breeze");
}

/* A park with a pond on the block. */
static void gen_park(gen *g, rng *r, gen_rect b)
{
    gen_box(g, v3_make(b.x0, 0, b.z0), v3_make(b.x1, 0.3, b.z1), g->mat[M_GRASS]);
    double px0 = b.x0 + rng_range(r, 3, 6), pz0 = b.z0 + rng_range(r, 3, 6);
    double px1 = b.x1 - rng_range(r, 3, 6), pz1 = b.z1 - rng_range(r, 3, 6);
    gen_box(g, v3_make(px0, 0.3, pz0), v3_make(px1, 0.6, pz0 + 0.4), g->mat[M_STONE]);
    gen_box(g, v3_make(px0, 0.3, pz1 - 0.4), v3_make(px1, 0.6, pz1), g->mat[M_STONE]);
    gen_box(g, v3_make(px0, 0.3, pz0 + 0.4), v3_make(px0 + 0.4, 0.6, pz1 - 0.4), g->mat[M_STONE]);
    gen_box(g, v3_make(px1 - 0.4, 0.3, pz0 + 0.4), v3_make(px1, 0.6, pz1 - 0.4), g->mat[M_STONE]);
    gen_box(g, v3_make(px0 + 0.4, 0.3, pz0 + 0.4), v3_make(px1 - 0.4, 0.5, pz1 - 0.4), g->mat[M_WATER]);
}

/* A plaza with a sign on a pillar; it flickers while its region's fast lights are fewer than
 * MAX_FAST_LIGHTS (*region_fast counts them). */
static void gen_plaza(gen *g, gen_rect b, uint32_t *region_fast)
{
    v3 c = v3_make((b.x0 + b.x1) / 2, 0.2, (b.z0 + b.z1) / 2);
    gen_box(g, v3_sub(c, v3_make(0.6, 0, 0.6)), v3_add(c, v3_make(0.6, 3.5, 0.6)), g->mat[M_CONCRETE]);
    gen_box(g, v3_add(c, v3_make(-1.2, 3.5, -0.15)), v3_add(c, v3_make(1.2, 4.3, 0.15)), g->mat[M_NEON]);
    /* the baker keeps a multiplier per fast light per vertex of what it bakes at once (a
     * tile): a few dozen per region flicker, the other signs glow steadily */
    bool flicker = *region_fast < MAX_FAST_LIGHTS;
    *region_fast += flicker;
    gen_light(g, flicker ? BAKE_LIGHT_FAST : BAKE_LIGHT_STATIC,
              v3_add(c, v3_make(0, 3.9, 0.8)), 255, 90, 210, 1.2f, 10);
}

/* A building's ground floor from y0 to y1 on the lot: a floor, a ceiling of the wall's material
 * and four walls of thickness t, a door in the -Z or the +Z one. */
static void gen_ground_floor(gen *g, gen_rect lot, double y0, double y1, double t, int wall, bool door_on_neg_z)
{
    double lx0 = lot.x0, lz0 = lot.z0, lx1 = lot.x1, lz1 = lot.z1;
    int fm[PMF_FACE_COUNT];
    for (int f = 0; f < PMF_FACE_COUNT; f++) fm[f] = g->mat[M_FLOOR];
    brush *b = brush_box(g->level, v3_make(lx0, y0 - 0.01, lz0), v3_make(lx1, y0 + 0.1, lz1), fm);
    b->opaque = true;
    gen_box(g, v3_make(lx0, y1 - t, lz0), v3_make(lx1, y1, lz1), wall);
    double door = (lx0 + lx1) / 2;
    for (int side = 0; side < 4; side++) {
        v3 wlo, whi;
        if (side == 0) { wlo = v3_make(lx0, y0, lz0); whi = v3_make(lx0 + t, y1 - t, lz1); }
        else if (side == 1) { wlo = v3_make(lx1 - t, y0, lz0); whi = v3_make(lx1, y1 - t, lz1); }
        else if (side == 2) { wlo = v3_make(lx0 + t, y0, lz0); whi = v3_make(lx1 - t, y1 - t, lz0 + t); }
        else { wlo = v3_make(lx0 + t, y0, lz1 - t); whi = v3_make(lx1 - t, y1 - t, lz1); }
        bool has_door = (side == 2 && door_on_neg_z) || (side == 3 && !door_on_neg_z);
        if (!has_door) { gen_box(g, wlo, whi, wall); continue; }
        gen_box(g, wlo, v3_make(door - 0.8, whi.y, whi.z), wall);
        gen_box(g, v3_make(door + 0.8, wlo.y, wlo.z), whi, wall);
        gen_box(g, v3_make(door - 0.8, y0 + 2.4, wlo.z), v3_make(door + 0.8, whi.y, whi.z), wall);
    }
}

/* One to four buildings on the block, none above top; storeys is the grid's height in chunks. */
static void gen_buildings(gen *g, rng *r, gen_rect b, double top, uint32_t storeys)
{
    int lots_x = rng_unit(r) < 0.5 ? 1 : 2, lots_z = rng_unit(r) < 0.5 ? 1 : 2;
    double lw = (b.x1 - b.x0) / lots_x, ld = (b.z1 - b.z0) / lots_z;
    for (int ix = 0; ix < lots_x; ix++)
        for (int iz = 0; iz < lots_z; iz++) {
            double lx0 = b.x0 + ix * lw + 0.8, lz0 = b.z0 + iz * ld + 0.8;
            double lx1 = lx0 + lw - 1.6, lz1 = lz0 + ld - 1.6;
            double height = fmin(top, 0.2 + 4 * (double)(1 + (int)rng_range(r, 1, 2 + storeys * 4)));
            int wall = rng_unit(r) < 0.5 ? g->mat[M_BRICK] : g->mat[M_CONCRETE];
            double t = 0.3, y0 = 0.2, y1 = fmin(y0 + 4, height);
            /* the door faces the nearer street */
            gen_ground_floor(g, (gen_rect){ lx0, lz0, lx1, lz1 }, y0, y1, t, wall, iz == 0);
            v3 inside = v3_make((lx0 + lx1) / 2, y1 - t - 0.5, (lz0 + lz1) / 2);
            gen_light(g, rng_unit(r) < 0.2 ? BAKE_LIGHT_DYNAMIC : BAKE_LIGHT_STATIC, inside,
                      255, 210, 150, 1.1f, 9);
            if (height > y1 + 0.5) {
                gen_box(g, v3_make(lx0, y1, lz0), v3_make(lx1, height - 0.4, lz1), g->mat[M_WINDOWS]);
                gen_box(g, v3_make(lx0 - 0.2, height - 0.4, lz0 - 0.2), v3_make(lx1 + 0.2, height, lz1 + 0.2), g->mat[M_ROOF]);
            }
        }
}

/* The chunk whose -X/-Z corner is (x0, z0), S wide: its street, the lamp at its crossing, and a
 * park, a plaza or buildings on its block. */
static void gen_chunk(gen *g, rng *r, double x0, double z0, double S, double top, uint32_t storeys,
                      uint32_t *region_fast)
{
    double x1 = x0 + S, z1 = z0 + S;
    /* the street: asphalt down to the grid's floor */
    gen_box(g, v3_make(x0, -S / 2, z0), v3_make(x1, 0, z1), g->mat[M_ASPHALT]);
    gen_rect block = { x0 + STREET, z0 + STREET, x1 - STREET, z1 - STREET };
    /* lamp at the crossing */
    v3 lamp = v3_make(x0 + 1.2, 0, z0 + 1.2);
    gen_box(g, v3_sub(lamp, v3_make(0.1, 0, 0.1)), v3_add(lamp, v3_make(0.1, 5, 0.1)), g->mat[M_METAL]);
    gen_box(g, v3_add(lamp, v3_make(-0.3, 5, -0.3)), v3_add(lamp, v3_make(0.3, 5.3, 0.3)), g->mat[M_LAMP]);
    double pick = rng_unit(r);
    gen_light(g, pick < 0.15 ? BAKE_LIGHT_DYNAMIC : BAKE_LIGHT_STATIC, v3_add(lamp, v3_make(0, 4.8, 0)),
              255, 225, 170, 1.6f, 18);
    double kind = rng_unit(r);
    if (kind < 0.14) {
        gen_park(g, r, block);
        return;
    }
    gen_box(g, v3_make(block.x0, 0, block.z0), v3_make(block.x1, 0.2, block.z1), g->mat[M_SIDEWALK]);
    if (kind < 0.24)
        gen_plaza(g, block, region_fast);
    else
        gen_buildings(g, r, block, top, storeys);
}

bool generate_map(map_def *map, const char *name, const uint32_t chunks[3], uint64_t seed)
{
    gen g = { .map = map, .next_dynamic = 1, .next_fast = 1 };
    snprintf(map->name, sizeof map->name, "%s", name);
    snprintf(map->description, sizeof map->description, "Generated city, %ux%ux%u chunks, seed %llu",
             chunks[0], chunks[1], chunks[2], (unsigned long long)seed);
    snprintf(map->authors, sizeof map->authors, "pmfc --generate");
    strcpy(map->gamemodes[map->gamemode_count++], "explore");
    gen_materials(&g);
    gen_level(&g, chunks, seed);

    const double S = ldexp(1.0, CHUNK_EXP);
    int64_t kx0 = -(int64_t)(chunks[0] / 2), kz0 = -(int64_t)(chunks[2] / 2);
    double top = (chunks[1] - 1) * S + S / 2;        /* the grid's ceiling */
    rng r = { seed * 0x2545F4914F6CDD1Dull + 1 };
    uint32_t regions_z = (chunks[2] + FAST_REGION - 1) / FAST_REGION;
    uint32_t *region_fast = xcalloc((size_t)((chunks[0] + FAST_REGION - 1) / FAST_REGION) * regions_z, sizeof *region_fast);
    for (uint32_t cx = 0; cx < chunks[0]; cx++)
        for (uint32_t cz = 0; cz < chunks[2]; cz++) {
            double x0 = (double)(kx0 + cx) * S - S / 2, z0 = (double)(kz0 + cz) * S - S / 2;
            gen_chunk(&g, &r, x0, z0, S, top, chunks[1],
                      &region_fast[(size_t)(cx / FAST_REGION) * regions_z + cz / FAST_REGION]);
        }
    xfree(region_fast);
    /* make the grid exactly as tall as asked */
    if (chunks[1] > 1) {
        double cx = (double)kx0 * S - S / 2 + 2, cz = (double)kz0 * S - S / 2 + 2;
        gen_box(&g, v3_make(cx, 0, cz), v3_make(cx + 0.4, top, cz + 0.4), g.mat[M_METAL]);
    }
    return true;
}
