/* extensions.c - the pmfview.* extensions of a compiled map (extensions.h). */
#include <stdlib.h>
#include <string.h>

#include "common/memory.h"
#include "extensions.h"
#include "pmf/pmf_cameras.h"
#include "pmf/pmf_lights.h"
#include "pmf/pmf_map_info.h"

static void add(map_extensions *ext, uint8_t *blob, size_t size)
{
    if (blob) ext->blobs[ext->count++] = (pmf_blob){ blob, size };
}

/* Every light of every level (pmfview.lights) and, when a light has a game's model, their models. */
static bool lights(const map_def *map, map_extensions *ext, pmf_error *err)
{
    size_t count = 0;
    for (size_t li = 0; li < map->level_count; li++) count += map->levels[li].light_count;
    if (!count) return true;
    pmf_light_info *infos = xcalloc(count, sizeof *infos);
    size_t n = 0;
    for (size_t li = 0; li < map->level_count; li++)
        for (size_t i = 0; i < map->levels[li].light_count; i++, n++) {
            const light_def *l = &map->levels[li].lights[i];
            pmf_light_info *o = &infos[n];
            o->level = (uint8_t)li;
            o->kind = l->kind == BAKE_LIGHT_DYNAMIC ? PMF_LIGHT_DYNAMIC : l->kind == BAKE_LIGHT_FAST ? PMF_LIGHT_FAST : PMF_LIGHT_STATIC;
            o->shape = l->shape == BAKE_SHAPE_SPOT ? PMF_LIGHT_SPOT : l->shape == BAKE_SHAPE_SUN ? PMF_LIGHT_SUN : PMF_LIGHT_POINT;
            o->id = l->kind == BAKE_LIGHT_STATIC ? 0 : l->id;
            for (int a = 0; a < 3; a++) {
                o->position[a] = l->shape == BAKE_SHAPE_SUN ? 0.0f : (float)l->pos.e[a];
                o->direction[a] = (float)l->direction.e[a];
            }
            memcpy(o->color, l->color, 3);
            o->intensity = l->brightness;
            o->range = l->shape == BAKE_SHAPE_SUN ? 0.0f : l->range;
            o->cos_inner = l->cos_inner;
            o->cos_outer = l->cos_outer;
            o->size = l->shape == BAKE_SHAPE_SUN ? 0.0f : l->radius;   /* metres; a sun's angle is no size */
            o->falloff = (uint8_t)l->falloff;
            o->cone = (uint8_t)l->cone;
            o->falloff_distance = l->falloff_distance;
            o->anglescale = l->anglescale;
            o->style = (uint8_t)l->style;
            o->name = l->name;
        }
    uint8_t *blob, *models;
    size_t size, models_size;
    bool ok = pmf_lights_encode(infos, count, &blob, &size, err);
    if (ok) add(ext, blob, size);
    ok = ok && pmf_light_models_encode(infos, count, &models, &models_size, err);
    if (ok) add(ext, models, models_size);
    xfree(infos);
    return ok;
}

/* Start cameras (the player starts and the editor's cameras; pmfview.cameras keeps 255). */
static bool cameras(const map_def *map, map_extensions *ext, pmf_error *err)
{
    if (!map->camera_count) return true;
    size_t n = map->camera_count < PMF_CAMERAS_MAX ? map->camera_count : PMF_CAMERAS_MAX;
    pmf_camera *cams = xcalloc(n, sizeof *cams);
    for (size_t i = 0; i < n; i++) {
        const start_camera *sc = &map->cameras[i];
        v3 p = v3_add(sc->pos, map->levels[sc->level].shift);
        cams[i] = (pmf_camera){ sc->name, sc->level, { (float)p.x, (float)p.y, (float)p.z }, (float)sc->yaw, (float)sc->pitch };
    }
    uint8_t *blob;
    size_t size;
    bool ok = pmf_cameras_encode(cams, n, &blob, &size, err);
    if (ok) add(ext, blob, size);
    xfree(cams);
    return ok;
}

static bool source(const map_def *map, map_extensions *ext, pmf_error *err)
{
    bool fullbright = false, hlrad = false;
    for (size_t li = 0; li < map->level_count; li++) {
        fullbright = fullbright || map->levels[li].fullbright;
        hlrad = hlrad || map->levels[li].store_gamma > 0;
    }
    if (!map->source_format[0] && !fullbright && map->look == PMF_LOOK_RAW) return true;
    uint8_t *blob;
    size_t size;
    uint8_t flags = (uint8_t)((fullbright ? PMF_SOURCE_FULLBRIGHT : 0) | (hlrad ? PMF_SOURCE_HLRAD_STORAGE : 0));
    bool ok = pmf_source_encode(map->look, flags, map->source_format, map->source_compiler,
                                &blob, &size, err);
    if (ok) add(ext, blob, size);
    return ok;
}

static bool entities(const map_def *map, map_extensions *ext, pmf_error *err)
{
    if (!map->entity_count) return true;
    pmf_entity_info *list = xcalloc(map->entity_count, sizeof *list);
    for (size_t i = 0; i < map->entity_count; i++) {
        const map_entity *e = &map->entities[i];
        v3 p = v3_add(e->pos, map->levels[e->level].shift);
        list[i] = (pmf_entity_info){ e->level, { (float)p.x, (float)p.y, (float)p.z }, e->classname, e->targetname,
                                     { e->angles[0], e->angles[1], e->angles[2] }, e->scale, e->skin, e->body,
                                     e->sequence, e->frame, e->model, e->render_mode, e->render_amount,
                                     { e->render_color[0], e->render_color[1], e->render_color[2] }, e->framerate };
    }
    uint8_t *blob, *placement;
    size_t size, placement_size;
    bool ok = pmf_entities_encode(list, map->entity_count, &blob, &size, err);
    if (ok) add(ext, blob, size);
    ok = ok && pmf_entity_placement_encode(list, map->entity_count, &placement, &placement_size, err);
    if (ok) add(ext, placement, placement_size);
    uint8_t *render;
    size_t render_size;
    ok = ok && pmf_entity_render_encode(list, map->entity_count, &render, &render_size, err);
    if (ok && render) add(ext, render, render_size);
    xfree(list);
    return ok;
}

static bool leak(const map_def *map, map_extensions *ext, pmf_error *err)
{
    if (!map->leak) return true;
    float (*points)[3] = xcalloc(map->leak_point_count ? map->leak_point_count : 1, sizeof *points);
    v3 shift = map->levels[map->leak_level].shift;
    for (size_t i = 0; i < map->leak_point_count; i++)
        for (int a = 0; a < 3; a++) points[i][a] = (float)(map->leak_points[i].e[a] + shift.e[a]);
    uint8_t *blob;
    size_t size;
    bool ok = pmf_leak_encode(map->leak_level, (const float (*)[3])points, map->leak_point_count, map->leak_class, &blob,
                              &size, err);
    if (ok) add(ext, blob, size);
    xfree(points);
    return ok;
}

bool map_extensions_build(const map_def *map, map_extensions *out, pmf_error *err)
{
    memset(out, 0, sizeof *out);
    if (lights(map, out, err) && cameras(map, out, err) && source(map, out, err) && entities(map, out, err)
        && leak(map, out, err))
        return true;
    map_extensions_free(out);
    return false;
}

void map_extensions_free(map_extensions *ext)
{
    for (size_t i = 0; i < ext->count; i++) free((void *)ext->blobs[i].data);
    memset(ext, 0, sizeof *ext);
}
