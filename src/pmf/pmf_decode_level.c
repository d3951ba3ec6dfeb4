/* pmf_decode_level.c - a level's common, client and server data blocks (decompressed).
 *
 * Names that point at other things are checked: the air physics material, default
 * environments, skybox and cloud materials must be empty or name one that exists. */
#include "pmf_internal.h"
#include "base/order.h"

typedef struct name_entry {
    const char *name;
    uint32_t index;
} name_entry;

typedef struct level_index {
    name_entry *materials, *physics_materials;
} level_index;

static int compare_entries(const void *a, const void *b)
{
    const name_entry *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

static name_entry *sorted_names(pmf_arena *a, const void *array, size_t count, size_t stride)
{
    name_entry *e = pmf_arena_alloc(a, (count + 1) * sizeof *e);
    if (!e)
        return NULL;
    const unsigned char *p = array;
    for (size_t i = 0; i < count; i++, p += stride) {
        memcpy(&e[i].name, p, sizeof e[i].name);
        e[i].index = (uint32_t)i;
    }
    order_sort(e, count, sizeof *e, compare_entries);
    return e;
}

/* The first entry named `name` (lowest index among equal names), or -1. */
static int search_names(const name_entry *e, size_t count, const char *name)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(e[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < count && !strcmp(e[lo].name, name) ? (int)e[lo].index : -1;
}

static const level_index *index_of(const pmf_level *lvl)
{
    return lvl->arena_ ? pmf_arena_user(lvl->arena_) : NULL;
}

int pmf_level_find_material(const pmf_level *lvl, const char *name)
{
    const level_index *ix = index_of(lvl);
    if (ix)
        return search_names(ix->materials, lvl->common.material_count, name);
    return PMF_FIND(lvl->common.materials, lvl->common.material_count, name);
}

int pmf_level_find_physics_material(const pmf_level *lvl, const char *name)
{
    const level_index *ix = index_of(lvl);
    if (ix)
        return search_names(ix->physics_materials, lvl->common.physics_material_count, name);
    return PMF_FIND(lvl->common.physics_materials, lvl->common.physics_material_count, name);
}

/* Sorted material names for the lookups of the client block and of every chunk. */
static bool build_index(pmf_cursor *c, pmf_arena *a, pmf_level *lvl)
{
    const pmf_level_common *lc = &lvl->common;
    level_index *ix = pmf_arena_alloc(a, sizeof *ix);
    if (ix) {
        ix->materials = sorted_names(a, lc->materials, lc->material_count, sizeof *lc->materials);
        ix->physics_materials = sorted_names(a, lc->physics_materials, lc->physics_material_count,
                                             sizeof *lc->physics_materials);
    }
    if (!ix || !ix->materials || !ix->physics_materials)
        return pmf_cursor_fail_at(c, c->pos, "out of memory for the material index");
    pmf_arena_set_user(a, ix);
    return true;
}

bool pmf_decode_level_common(pmf_cursor *c, pmf_arena *a, pmf_level *lvl)
{
    pmf_level_common *lc = &lvl->common;
    if (c->size == 0) {
        /* an empty block (both sizes 0) holds nothing: no materials, no environments */
        lc->air_physics_material = lc->default_weather_env = lc->default_gravity_env = "";
        return lvl->arena_ != a || build_index(c, a, lvl);
    }
    pmf_blob t = pmf_read_table(c, "string table");

    lc->material_count = pmf_read_u16(c, "material count");
    lc->materials = pmf_read_array(c, a, lc->material_count, 10, sizeof *lc->materials, "materials");
    for (unsigned i = 0; i < lc->material_count && !c->failed; i++) {
        pmf_material *m = &lc->materials[i];
        m->name = pmf_read_string(c, t, "material name");
        m->type = pmf_read_string(c, t, "material type");
        size_t at = c->pos;
        m->flags = pmf_read_u8(c, "material flags");
        if (!c->failed && (m->flags & ~(PMF_MATERIAL_TRANSPARENT | PMF_MATERIAL_LIQUID)))
            return pmf_cursor_fail_at(c, at, "material %u flags 0x%02x set reserved bits", i, m->flags);
        at = c->pos;
        m->render_mode = pmf_read_u8(c, "material render mode");
        if (!c->failed && m->render_mode > PMF_RENDMODE_ADD)
            return pmf_cursor_fail_at(c, at, "material %u render mode %u is unknown", i, m->render_mode);
    }

    lc->physics_material_count = pmf_read_u16(c, "physics material count");
    lc->physics_materials = pmf_read_array(c, a, lc->physics_material_count, 29, sizeof *lc->physics_materials,
                                       "physics materials");
    for (unsigned i = 0; i < lc->physics_material_count && !c->failed; i++) {
        pmf_physics_material *p = &lc->physics_materials[i];
        p->name = pmf_read_string(c, t, "physics material name");
        size_t at = c->pos;
        p->flags = pmf_read_u8(c, "physics material flags");
        if (!c->failed && (p->flags & ~PMF_PHYSICS_NOT_SOLID))
            return pmf_cursor_fail_at(c, at, "physics material %u flags 0x%02x set reserved bits", i, p->flags);
        p->friction = pmf_read_f32(c, "friction");
        p->traction = pmf_read_f32(c, "traction");
        p->bounce = pmf_read_f32(c, "bounce");
        p->damage_min_speed = pmf_read_f32(c, "damage minimum speed");
        p->damage_base = pmf_read_f32(c, "base damage");
        p->damage_per_speed = pmf_read_f32(c, "damage per speed");
    }

    lc->sound_material_count = pmf_read_u16(c, "sound material count");
    lc->sound_materials = pmf_read_array(c, a, lc->sound_material_count, 8, sizeof *lc->sound_materials, "sound materials");
    for (unsigned i = 0; i < lc->sound_material_count && !c->failed; i++) {
        lc->sound_materials[i].volume_dampening = pmf_read_f32(c, "volume dampening");
        lc->sound_materials[i].frequency_dampening = pmf_read_f32(c, "frequency dampening");
    }

    PMF_READ_NAME_REF(c, t, "air physics material",
                      pmf_level_find_physics_material(lvl, name) >= 0, lc->air_physics_material);

    lc->weather_env_count = pmf_read_u8(c, "weather environment count");
    lc->weather_envs = pmf_read_array(c, a, lc->weather_env_count, 48, sizeof *lc->weather_envs, "weather environments");
    for (unsigned i = 0; i < lc->weather_env_count && !c->failed; i++) {
        pmf_weather_env *w = &lc->weather_envs[i];
        w->name = pmf_read_string(c, t, "weather environment name");
        pmf_read_f32s(c, w->wind, 3, "wind");
        w->wind_dir_seed = pmf_read_u32(c, "wind direction seed");
        pmf_read_f32s(c, w->wind_dir_randomness, 3, "wind direction randomness");
        w->wind_dir_noise_speed = pmf_read_f32(c, "wind direction noise speed");
        w->wind_speed_seed = pmf_read_u32(c, "wind velocity seed");
        w->wind_speed_randomness = pmf_read_f32(c, "wind velocity randomness");
        w->wind_speed_noise_speed = pmf_read_f32(c, "wind velocity noise speed");
    }

    lc->gravity_env_count = pmf_read_u8(c, "gravity environment count");
    lc->gravity_envs = pmf_read_array(c, a, lc->gravity_env_count, 16, sizeof *lc->gravity_envs, "gravity environments");
    for (unsigned i = 0; i < lc->gravity_env_count && !c->failed; i++) {
        lc->gravity_envs[i].name = pmf_read_string(c, t, "gravity environment name");
        pmf_read_f32s(c, lc->gravity_envs[i].gravity, 3, "gravity");
    }

    PMF_READ_NAME_REF(c, t, "default weather environment",
                      PMF_FIND(lc->weather_envs, lc->weather_env_count, name) >= 0, lc->default_weather_env);
    PMF_READ_NAME_REF(c, t, "default gravity environment",
                      PMF_FIND(lc->gravity_envs, lc->gravity_env_count, name) >= 0, lc->default_gravity_env);
    if (!pmf_cursor_expect_end(c, "the common level data"))
        return false;
    /* lookups go through the index only when it lives in this level's own arena */
    return lvl->arena_ != a || build_index(c, a, lvl);
}

bool pmf_decode_level_client(pmf_cursor *c, pmf_arena *a, pmf_level *lvl)
{
    const pmf_level_common *lc = &lvl->common;
    pmf_level_client *cl = &lvl->client;
    if (c->size == 0) {
        cl->default_sound_env = cl->default_sky_env = "";
        if (lc->material_count)
            return pmf_cursor_fail_at(c, 0, "empty block, but %u materials need client-side data", lc->material_count);
        return true;
    }
    pmf_blob t = pmf_read_table(c, "string table");

    cl->sound_env_count = pmf_read_u8(c, "sound environment count");
    cl->sound_envs = pmf_read_array(c, a, cl->sound_env_count, 32, sizeof *cl->sound_envs, "sound environments");
    for (unsigned i = 0; i < cl->sound_env_count && !c->failed; i++) {
        pmf_sound_env *s = &cl->sound_envs[i];
        s->name = pmf_read_string(c, t, "sound environment name");
        s->low_pass = pmf_read_f32(c, "low pass");
        s->high_pass = pmf_read_f32(c, "high pass");
        s->reverb_delay = pmf_read_f32(c, "reverb delay");
        s->reverb_feedback = pmf_read_f32(c, "reverb feedback");
        s->reverb_mix = pmf_read_f32(c, "reverb mix");
        s->reverb_low_pass = pmf_read_f32(c, "reverb low pass");
        s->reverb_high_pass = pmf_read_f32(c, "reverb high pass");
    }

    cl->sky_env_count = pmf_read_u8(c, "sky environment count");
    cl->sky_envs = pmf_read_array(c, a, cl->sky_env_count, 41, sizeof *cl->sky_envs, "sky environments");
    for (unsigned i = 0; i < cl->sky_env_count && !c->failed; i++) {
        pmf_sky_env *s = &cl->sky_envs[i];
        s->name = pmf_read_string(c, t, "sky environment name");
        size_t at = c->pos;
        s->flags = pmf_read_u8(c, "sky environment flags");
        if (!c->failed && (s->flags & ~PMF_SKY_3D_SKYBOX))
            return pmf_cursor_fail_at(c, at, "sky environment %u flags 0x%02x set reserved bits", i, s->flags);
        for (int f = 0; f < PMF_FACE_COUNT; f++)
            PMF_READ_NAME_REF(c, t, "skybox material", pmf_level_find_material(lvl, name) >= 0, s->skybox[f]);
        PMF_READ_NAME_REF(c, t, "top cloud layer material", pmf_level_find_material(lvl, name) >= 0, s->cloud_top);
        PMF_READ_NAME_REF(c, t, "bottom cloud layer material",
                          pmf_level_find_material(lvl, name) >= 0, s->cloud_bottom);
        at = c->pos;
        s->skybox_chunk = pmf_chunk_index_unpack(pmf_read_u32(c, "3D skybox chunk"));
        if (!c->failed && (s->flags & PMF_SKY_3D_SKYBOX) &&
            (s->skybox_chunk.x >= lvl->count_x || s->skybox_chunk.y >= lvl->count_y || s->skybox_chunk.z >= lvl->count_z))
            return pmf_cursor_fail_at(c, at, "sky environment %u 3D skybox chunk (%u,%u,%u) is outside the grid", i,
                                      s->skybox_chunk.x, s->skybox_chunk.y, s->skybox_chunk.z);
    }

    PMF_READ_NAME_REF(c, t, "default sound environment",
                      PMF_FIND(cl->sound_envs, cl->sound_env_count, name) >= 0, cl->default_sound_env);
    PMF_READ_NAME_REF(c, t, "default sky environment",
                      PMF_FIND(cl->sky_envs, cl->sky_env_count, name) >= 0, cl->default_sky_env);

    cl->material_count = lc->material_count;
    cl->materials = pmf_read_array(c, a, cl->material_count, 54, sizeof *cl->materials, "client-side materials");
    for (unsigned i = 0; i < cl->material_count && !c->failed; i++) {
        pmf_client_material *m = &cl->materials[i];
        m->texture = pmf_read_string(c, t, "texture");
        m->extra_texture_count = pmf_read_u8(c, "extra texture count");
        m->extra_textures = pmf_read_array(c, a, m->extra_texture_count, 4, sizeof *m->extra_textures, "extra textures");
        for (unsigned k = 0; k < m->extra_texture_count && !c->failed; k++)
            m->extra_textures[k] = pmf_read_string(c, t, "extra texture");
        m->advance_time_us = pmf_read_u32(c, "texture advance time");
        pmf_read_f32s(c, m->uv_scroll, 2, "UV scroll");
        pmf_read_bytes(c, m->color, 3, "color");
        m->alpha = pmf_read_u8(c, "alpha");
        pmf_read_bytes(c, m->emission, 3, "emission");
        m->shading = pmf_read_u8(c, "shading");
        m->shine = pmf_read_u8(c, "shine");
        m->matcap = pmf_read_string(c, t, "matcap texture");
        pmf_read_f32s(c, m->wave.velocity, 3, "wave velocity");
        m->wave.wind_influence = pmf_read_f32(c, "wave wind influence");
        m->wave.offset = pmf_read_f32(c, "wave offset");
        m->wave.scale = pmf_read_f32(c, "wave scale");
    }
    return pmf_cursor_expect_end(c, "the client level data");
}

bool pmf_decode_level_server(pmf_cursor *c, pmf_arena *a, pmf_level *lvl)
{
    (void)a;
    pmf_level_server *sv = &lvl->server;
    if (c->size == 0)
        return true; /* empty: no entities */
    sv->string_table = pmf_read_table(c, "string table");
    if (!pmf_read_entity_count(c, "level-wide", "the server level data", &sv->entity_count))
        return false;
    sv->entities.size = pmf_cursor_left(c);
    sv->entities.data = pmf_take(c, sv->entities.size, "level-wide entities");
    return !c->failed;
}
