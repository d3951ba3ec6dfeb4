/* scene_lights.c - the settings, the lights' switches, light styles and the light tools' filter (scene.h). */
#include "scene_internal.h"

static bool same_view(const camera *a, const camera *b)
{
    return !memcmp(a->chunk, b->chunk, sizeof a->chunk) && !memcmp(a->local, b->local, sizeof a->local)
        && a->yaw == b->yaw && a->pitch == b->pitch && a->fov_y == b->fov_y && a->aspect == b->aspect;
}

void scene_set_camera(scene *s, const camera *cam)
{
    if (!same_view(&s->cam, cam))
        s->view_dirty = true;
    s->cam = *cam;
}

/* Each styled dynamic light's brightness at the settings' time (1 when styles do not play). */
static void play_light_styles(scene *s)
{
    for (uint32_t i = 0; i < s->lights.count; i++) {
        const pmf_light_info *l = &s->lights.list[i];
        if (l->kind != PMF_LIGHT_DYNAMIC || !pmf_light_style_animated(l->style) || l->level != s->level)
            continue;
        float scale = s->settings.light_styles ? pmf_light_style_value(l->style, s->settings.time) : 1.0f;
        render_world_set_dynamic_scale(s->world, l->id, scale);
    }
}

void scene_set_settings(scene *s, const scene_settings *settings)
{
    s->settings = *settings;
    if (s->settings.exposure <= 0)
        s->settings.exposure = 1.0f;
    play_light_styles(s);
}

void scene_get_settings(const scene *s, scene_settings *out)
{
    *out = s->settings;
}

void scene_set_dynamic_light(scene *s, uint32_t id, bool enabled)
{
    render_world_set_dynamic_light(s->world, id, enabled);
}

void scene_set_fast_light(scene *s, uint32_t id, uint8_t intensity)
{
    render_world_set_fast_light(s->world, id, intensity);
}

size_t scene_lights(const scene *s, scene_light *out, size_t max)
{
    size_t total = render_world_lights(s->world, NULL, 0);
    render_light *all = total ? malloc(total * sizeof *all) : NULL;
    if (!all)
        return 0;
    render_world_lights(s->world, all, total);
    size_t n = 0;
    for (size_t i = 0; i < total; i++) {
        if (!all[i].loaded)
            continue;             /* set by the user before (or without) any chunk showing it */
        if (n < max)
            out[n] = (scene_light){ .id = all[i].id, .fast = all[i].fast, .enabled = all[i].enabled,
                                    .intensity = all[i].intensity,
                                    .color = { all[i].color[0], all[i].color[1], all[i].color[2] } };
        n++;
    }
    free(all);
    return n;
}

const scene_map_info *scene_map_infos(const scene *s)
{
    return &s->map_info;
}

int scene_look_drawn_for(const scene *s, scene_look look)
{
    if (look == SCENE_LOOK_MAP)
        return s->map_info.source.present ? s->map_info.source.look : RENDER_LOOK_RAW;
    return (int)look - SCENE_LOOK_RAW;
}

int scene_look_drawn(const scene *s)
{
    return scene_look_drawn_for(s, s->settings.look);
}

const pmf_lights *scene_light_infos(const scene *s)
{
    return &s->lights;
}

/* Hands the light tools' filter to the renderer: the static lights' terms with shadows from the
 * resident chunks (rebuilt when chunks arrive: update). */
bool scene_apply_light_filter(scene *s)
{
    s->filter_stale = false;
    s->filter_applied_at = pmf_seconds();
    size_t count = s->filter_count;
    uint32_t *dynamic = malloc((count + 1) * sizeof *dynamic), *fast = malloc((count + 1) * sizeof *fast);
    pmf_light_info *statics = malloc((count + 1) * sizeof *statics);
    const mesh_chunk **meshes = malloc((s->chunk_count + 1) * sizeof *meshes);
    size_t nd = 0, nf = 0, ns = 0;
    bool ok = dynamic && fast && statics && meshes;
    for (size_t i = 0; ok && i < count; i++) {
        const scene_light_ref *r = &s->filter_refs[i];
        if (r->kind == PMF_LIGHT_DYNAMIC)
            dynamic[nd++] = r->id;
        else if (r->kind == PMF_LIGHT_FAST)
            fast[nf++] = r->id;
        else if (r->id < s->lights.count)
            statics[ns++] = s->lights.list[r->id];
    }
    light_direct_free(&s->static_terms);
    free((void *)s->static_terms.lights);
    s->static_terms = (light_direct_set){ .lights = ok ? statics : NULL, .count = ok ? ns : 0,
                                          .center = { (int32_t)s->lvl.center.x, (int32_t)s->lvl.center.y,
                                                      (int32_t)s->lvl.center.z } };
    if (!ok) {
        free(statics);
        nd = nf = ns = 0;
    }
    if (ns) {
        for (size_t i = 0; i < s->chunk_count; i++)
            meshes[i] = &s->chunks[i]->mc;
        ok = light_direct_occluders(&s->static_terms, &s->lvl, meshes, s->chunk_count) && ok;
    }
    render_light_filter f = { .solo = ok && s->filter_solo && count, .dynamic_ids = dynamic, .dynamic_count = nd,
                              .fast_ids = fast, .fast_count = nf };
    if (ns) {
        f.static_term = light_direct_block;
        f.user = &s->static_terms;
        if (s->map_info.source.flags & PMF_SOURCE_HLRAD_STORAGE) {
            f.store_scale = PMF_HLRAD_STORE_SCALE;
            f.store_gamma = PMF_HLRAD_STORE_GAMMA;
        }
    }
    ok = render_world_set_light_filter(s->world, &f) && ok;
    free(dynamic);
    free(fast);
    free(meshes);
    return ok;
}

bool scene_set_light_filter(scene *s, bool solo, const scene_light_ref *refs, size_t count)
{
    scene_light_ref *copy = count ? malloc(count * sizeof *copy) : NULL;
    if (count && !copy)
        count = 0;
    if (count)
        memcpy(copy, refs, count * sizeof *copy);
    free(s->filter_refs);
    s->filter_refs = copy;
    s->filter_count = count;
    s->filter_solo = solo;
    return scene_apply_light_filter(s) && (copy || !refs || !count);
}

size_t scene_chunk_count(const scene *s)
{
    return s->chunk_count;
}

const mesh_chunk *scene_chunk_mesh(const scene *s, size_t i)
{
    return &s->chunks[i]->mc;
}
