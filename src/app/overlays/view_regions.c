/* view_regions.c - regions and pathfinding cubes around the camera, for the region overlays. */
#include "view_regions.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text_clean.h"
#include "base/grow.h"

static const char *const kind_names[VIEW_REGION_KIND_COUNT] = { "weather", "gravity", "sound", "sky", "load", "path" };
static const uint8_t kind_colors[VIEW_REGION_KIND_COUNT][3] = {
    { 60, 140, 255 },                /* weather: blue */
    { 190, 70, 255 },                /* gravity: violet */
    { 40, 220, 110 },                /* sound: green */
    { 255, 200, 40 },                /* sky: amber */
    { 255, 100, 30 },                /* load: orange */
    { 255, 60, 150 },                /* path: pink */
};

const char *view_region_kind_name(int kind)
{
    return kind >= 0 && kind < VIEW_REGION_KIND_COUNT ? kind_names[kind] : "?";
}

unsigned view_region_kind_parse(const char *name)
{
    for (int k = 0; k < VIEW_REGION_KIND_COUNT; k++)
        if (!strcmp(name, kind_names[k]))
            return VIEW_REGION_BIT(k);
    return 0;
}

const uint8_t *view_region_color(int kind)
{
    return kind_colors[kind >= 0 && kind < VIEW_REGION_KIND_COUNT ? kind : 0];
}

bool view_regions_open(view_regions *r, const char *path, uint32_t level, char *err, size_t err_size)
{
    memset(r, 0, sizeof *r);
    return level_file_open(&r->lf, path, level, PMF_PART_ALL, err, err_size);
}

void view_regions_close(view_regions *r)
{
    level_file_close(&r->lf);
    free(r->regions);
    memset(r, 0, sizeof *r);
}

static view_region *push(view_regions *r, int kind)
{
    if (r->count >= VIEW_REGIONS_MAX)
        return NULL;
    if (!grow_array((void **)&r->regions, &r->capacity, r->count + 1, sizeof *r->regions))
        return NULL;
    view_region *v = &r->regions[r->count++];
    memset(v, 0, sizeof *v);
    v->kind = kind;
    return v;
}

/* The 8 corners (octant order) of the box centre ± half, moved by offset. */
static void box_corners(const double center[3], const double half[3], const double offset[3], float out[8][3])
{
    for (uint32_t o = 0; o < 8; o++) {
        out[o][0] = (float)(offset[0] + center[0] + ((o & PMF_OCTANT_NEG_X) ? -half[0] : half[0]));
        out[o][1] = (float)(offset[1] + center[1] + ((o & PMF_OCTANT_NEG_Y) ? -half[1] : half[1]));
        out[o][2] = (float)(offset[2] + center[2] + ((o & PMF_OCTANT_NEG_Z) ? -half[2] : half[2]));
    }
}

static void add_env(view_regions *r, int kind, const pmf_env_region *regions, unsigned count, const double offset[3])
{
    if (!(r->kinds & VIEW_REGION_BIT(kind)))
        return;
    for (unsigned i = 0; i < count; i++) {
        view_region *v = push(r, kind);
        if (!v)
            return;
        for (int c = 0; c < 8; c++)
            for (int k = 0; k < 3; k++)
                v->corners[c][k] = (float)(offset[k] + regions[i].corners[c][k]);
        char name[64];
        snprintf(v->label, sizeof v->label, "%s %s", kind_names[kind], text_clean(regions[i].env ? regions[i].env : "", name, sizeof name));
    }
}

typedef struct path_walk { view_regions *r; const pmf_chunk *ch; const double *offset; } path_walk;

/* A cube with pathfinding data, drawn a little inside its bounds. */
static bool visit_path(void *user, uint32_t cube, const double center[3], double half)
{
    const path_walk *w = user;
    if (!(w->ch->common.cubes[cube].flags & PMF_CUBE_HAS_PATHFINDING))
        return true;
    view_region *v = push(w->r, VIEW_REGION_PATH);
    if (!v)
        return false;
    double inside[3] = { half * 0.9, half * 0.9, half * 0.9 };
    box_corners(center, inside, w->offset, v->corners);
    const pmf_server_cube *sc = &w->ch->server.cubes[cube];
    char name[64];
    snprintf(v->label, sizeof v->label, "path %s", sc->attr_count && sc->attrs[0].name ?
             text_clean(sc->attrs[0].name, name, sizeof name) : "");
    return true;
}

/* Pathfinding cubes of the chunk (its server part). */
static void add_paths(view_regions *r, const pmf_chunk *ch, const double offset[3], double side)
{
    if (ch->server.cubes)
        level_file_walk_cubes(ch, (const double[3]){ 0, 0, 0 }, side, visit_path, &(path_walk){ r, ch, offset });
}

static void add_chunk(void *user, const pmf_chunk *ch, const double offset[3], double side)
{
    view_regions *r = user;
    add_env(r, VIEW_REGION_WEATHER, ch->common.weather_regions, ch->common.weather_region_count, offset);
    add_env(r, VIEW_REGION_GRAVITY, ch->common.gravity_regions, ch->common.gravity_region_count, offset);
    add_env(r, VIEW_REGION_SOUND, ch->client.sound_regions, ch->client.sound_region_count, offset);
    add_env(r, VIEW_REGION_SKY, ch->client.sky_regions, ch->client.sky_region_count, offset);
    if (r->kinds & VIEW_REGION_BIT(VIEW_REGION_LOAD))
        for (unsigned i = 0; i < ch->server.load_region_count; i++) {
            const pmf_region *lr = &ch->server.load_regions[i];
            /* pmfc gives every chunk one over all of it (its neighbours stay active): noise here */
            bool whole = true;
            for (int k = 0; k < 3; k++)
                whole = whole && fabs(lr->min[k] + side / 2) < 1e-3 && fabs(lr->max[k] - side / 2) < 1e-3;
            if (whole)
                continue;
            view_region *v = push(r, VIEW_REGION_LOAD);
            if (!v)
                return;
            double center[3], half[3];
            for (int k = 0; k < 3; k++) {
                center[k] = 0.5 * ((double)lr->max[k] + lr->min[k]);
                half[k] = 0.5 * ((double)lr->max[k] - lr->min[k]);
            }
            box_corners(center, half, offset, v->corners);
            snprintf(v->label, sizeof v->label, "load: %u chunk%s", lr->chunk_count, lr->chunk_count == 1 ? "" : "s");
        }
    if (r->kinds & VIEW_REGION_BIT(VIEW_REGION_PATH))
        add_paths(r, ch, offset, side);
}

void view_regions_update(view_regions *r, const camera *cam)
{
    if (!r->lf.file || (!level_file_moved(&r->lf, cam) && r->built_kinds == r->kinds))
        return;
    r->count = 0;
    r->built_kinds = r->kinds;
    level_file_walk_near(&r->lf, cam, r->kinds ? VIEW_REGIONS_RADIUS : -1, PMF_PART_ALL, add_chunk, r);
}
