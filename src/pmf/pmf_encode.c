/* pmf_encode.c - serialising decoded structs back into level and chunk blocks.
 *
 * Strings are deduplicated into each block's string table (offset 0 always holds a NUL, so ""
 * costs nothing). Server tables keep the caller's bytes first: entities refer into them.
 * Every serialised block is then run through the reader's own decoder, so whatever the writer
 * accepts, the reader accepts too (same checks, same messages). A NULL string is written as "". */
#include <stdio.h>

#include "pmf_internal.h"

/* ---- string table builder ---- */

typedef struct strtab {
    pmf_buf bytes;
    size_t prefix_size; /* the caller's bytes at the start */
    uint32_t *slots;   /* open addressing: offset + 1, 0 = empty */
    size_t slot_count, used;
} strtab;

static uint32_t hash_string(const char *s)
{
    uint32_t h = 2166136261u;
    while (*s)
        h = (h ^ (uint8_t)*s++) * 16777619u;
    return h;
}

/* Finds s's slot: the one holding it or the empty one where it goes. */
static uint32_t *strtab_slot(strtab *t, const char *s)
{
    size_t mask = t->slot_count - 1;
    for (size_t i = hash_string(s) & mask;; i = (i + 1) & mask) {
        uint32_t *slot = &t->slots[i];
        if (!*slot || !strcmp((const char *)t->bytes.data + *slot - 1, s))
            return slot;
    }
}

static bool strtab_rehash(strtab *t)
{
    size_t old_count = t->slot_count;
    uint32_t *old = t->slots;
    t->slot_count = old_count ? old_count * 2 : 64;
    t->slots = calloc(t->slot_count, sizeof *t->slots);
    if (!t->slots) {
        t->slots = old;
        t->slot_count = old_count;
        return false;
    }
    for (size_t i = 0; i < old_count; i++)
        if (old[i])
            *strtab_slot(t, (const char *)t->bytes.data + old[i] - 1) = old[i];
    free(old);
    return true;
}

/* Records the string at offset off (which must be NUL-terminated inside the table). */
static void strtab_register(strtab *t, uint32_t off)
{
    if ((t->used + 1) * 2 > t->slot_count && !strtab_rehash(t)) {
        t->bytes.oom = true;
        return;
    }
    uint32_t *slot = strtab_slot(t, (const char *)t->bytes.data + off);
    if (!*slot) {
        *slot = off + 1;
        t->used++;
    }
}

/* Starts a table with the caller's bytes (kept as they are) or, when there are none and `seed`,
 * a single NUL. A table that keeps a file's bytes is not seeded: an empty one stays empty (and
 * gets a NUL only when a string is added), so write(read(f)) gives f back. */
static void strtab_init(strtab *t, pmf_blob prefix, bool seed)
{
    memset(t, 0, sizeof *t);
    if (prefix.size)
        pmf_put_bytes(&t->bytes, prefix.data, prefix.size);
    else if (seed)
        pmf_put_u8(&t->bytes, 0);
    t->prefix_size = prefix.size;
    if (t->bytes.oom)
        return;
    for (size_t start = 0; start < t->bytes.size;) {
        const uint8_t *nul = memchr(t->bytes.data + start, 0, t->bytes.size - start);
        if (!nul)
            break;
        strtab_register(t, (uint32_t)start);
        start = (size_t)(nul - t->bytes.data) + 1;
    }
}

/* Where n >= 1 bytes first occur in hay (memmem, which C11 and Windows lack), or NULL. */
static const uint8_t *find_bytes(const uint8_t *hay, size_t hay_size, const void *needle, size_t n)
{
    const uint8_t *first = needle;
    for (size_t at = 0; n <= hay_size && at <= hay_size - n; at++) {
        const uint8_t *p = memchr(hay + at, first[0], hay_size - n - at + 1);
        if (!p)
            return NULL;
        at = (size_t)(p - hay);
        if (!memcmp(p, needle, n))
            return p;
    }
    return NULL;
}

static uint32_t strtab_add(strtab *t, const char *s)
{
    if (!s)
        s = "";
    if (t->bytes.oom)
        return 0;
    if (t->used) {
        uint32_t *slot = strtab_slot(t, s);
        if (*slot)
            return *slot - 1;
    }
    /* anywhere in the caller's bytes will do (a suffix of another string, too): a table read
     * from a file is then written back unchanged */
    const uint8_t *found = t->prefix_size ? find_bytes(t->bytes.data, t->prefix_size, s, strlen(s) + 1) : NULL;
    if (found) {
        uint32_t off = (uint32_t)(found - t->bytes.data);
        strtab_register(t, off);
        return off;
    }
    if (t->bytes.size > UINT32_MAX) {
        t->bytes.oom = true;
        return 0;
    }
    uint32_t off = (uint32_t)t->bytes.size;
    pmf_put_bytes(&t->bytes, s, strlen(s) + 1);
    if (!t->bytes.oom)
        strtab_register(t, off);
    return off;
}

static void strtab_free(strtab *t)
{
    pmf_buf_free(&t->bytes);
    free(t->slots);
}

static void put_string(pmf_buf *b, strtab *t, const char *s) { pmf_put_u32(b, strtab_add(t, s)); }

/* block = u32 table size + table + body */
static void put_table_and_body(pmf_buf *out, const strtab *t, const pmf_buf *body)
{
    pmf_put_u32(out, (uint32_t)t->bytes.size);
    pmf_put_bytes(out, t->bytes.data, t->bytes.size);
    pmf_put_bytes(out, body->data, body->size);
    if (t->bytes.oom || body->oom)
        out->oom = true;
}

/* ---- level blocks ---- */

static void encode_level_common(const pmf_level_common *lc, pmf_buf *out)
{
    strtab t;
    strtab_init(&t, (pmf_blob){ NULL, 0 }, true);
    pmf_buf b = { 0 };
    pmf_put_u16(&b, lc->material_count);
    for (unsigned i = 0; i < lc->material_count; i++) {
        put_string(&b, &t, lc->materials[i].name);
        put_string(&b, &t, lc->materials[i].type);
        pmf_put_u8(&b, lc->materials[i].flags);
        pmf_put_u8(&b, lc->materials[i].render_mode);
    }
    pmf_put_u16(&b, lc->physics_material_count);
    for (unsigned i = 0; i < lc->physics_material_count; i++) {
        const pmf_physics_material *p = &lc->physics_materials[i];
        put_string(&b, &t, p->name);
        pmf_put_u8(&b, p->flags);
        pmf_put_f32(&b, p->friction);
        pmf_put_f32(&b, p->traction);
        pmf_put_f32(&b, p->bounce);
        pmf_put_f32(&b, p->damage_min_speed);
        pmf_put_f32(&b, p->damage_base);
        pmf_put_f32(&b, p->damage_per_speed);
    }
    pmf_put_u16(&b, lc->sound_material_count);
    for (unsigned i = 0; i < lc->sound_material_count; i++) {
        pmf_put_f32(&b, lc->sound_materials[i].volume_dampening);
        pmf_put_f32(&b, lc->sound_materials[i].frequency_dampening);
    }
    put_string(&b, &t, lc->air_physics_material);
    pmf_put_u8(&b, lc->weather_env_count);
    for (unsigned i = 0; i < lc->weather_env_count; i++) {
        const pmf_weather_env *w = &lc->weather_envs[i];
        put_string(&b, &t, w->name);
        pmf_put_f32s(&b, w->wind, 3);
        pmf_put_u32(&b, w->wind_dir_seed);
        pmf_put_f32s(&b, w->wind_dir_randomness, 3);
        pmf_put_f32(&b, w->wind_dir_noise_speed);
        pmf_put_u32(&b, w->wind_speed_seed);
        pmf_put_f32(&b, w->wind_speed_randomness);
        pmf_put_f32(&b, w->wind_speed_noise_speed);
    }
    pmf_put_u8(&b, lc->gravity_env_count);
    for (unsigned i = 0; i < lc->gravity_env_count; i++) {
        put_string(&b, &t, lc->gravity_envs[i].name);
        pmf_put_f32s(&b, lc->gravity_envs[i].gravity, 3);
    }
    put_string(&b, &t, lc->default_weather_env);
    put_string(&b, &t, lc->default_gravity_env);
    put_table_and_body(out, &t, &b);
    pmf_buf_free(&b);
    strtab_free(&t);
}

static void encode_level_client(const pmf_level *lvl, pmf_buf *out)
{
    const pmf_level_client *cl = &lvl->client;
    strtab t;
    strtab_init(&t, (pmf_blob){ NULL, 0 }, true);
    pmf_buf b = { 0 };
    pmf_put_u8(&b, cl->sound_env_count);
    for (unsigned i = 0; i < cl->sound_env_count; i++) {
        const pmf_sound_env *s = &cl->sound_envs[i];
        put_string(&b, &t, s->name);
        pmf_put_f32(&b, s->low_pass);
        pmf_put_f32(&b, s->high_pass);
        pmf_put_f32(&b, s->reverb_delay);
        pmf_put_f32(&b, s->reverb_feedback);
        pmf_put_f32(&b, s->reverb_mix);
        pmf_put_f32(&b, s->reverb_low_pass);
        pmf_put_f32(&b, s->reverb_high_pass);
    }
    pmf_put_u8(&b, cl->sky_env_count);
    for (unsigned i = 0; i < cl->sky_env_count; i++) {
        const pmf_sky_env *s = &cl->sky_envs[i];
        put_string(&b, &t, s->name);
        pmf_put_u8(&b, s->flags);
        for (int f = 0; f < PMF_FACE_COUNT; f++)
            put_string(&b, &t, s->skybox[f]);
        put_string(&b, &t, s->cloud_top);
        put_string(&b, &t, s->cloud_bottom);
        pmf_put_u32(&b, pmf_chunk_index_pack(s->skybox_chunk));
    }
    put_string(&b, &t, cl->default_sound_env);
    put_string(&b, &t, cl->default_sky_env);
    /* one client material per level material, whatever client.material_count says */
    for (unsigned i = 0; i < lvl->common.material_count; i++) {
        const pmf_client_material *m = &cl->materials[i];
        put_string(&b, &t, m->texture);
        pmf_put_u8(&b, m->extra_texture_count);
        for (unsigned k = 0; k < m->extra_texture_count; k++)
            put_string(&b, &t, m->extra_textures[k]);
        pmf_put_u32(&b, m->advance_time_us);
        pmf_put_f32s(&b, m->uv_scroll, 2);
        pmf_put_bytes(&b, m->color, 3);
        pmf_put_u8(&b, m->alpha);
        pmf_put_bytes(&b, m->emission, 3);
        pmf_put_u8(&b, m->shading);
        pmf_put_u8(&b, m->shine);
        put_string(&b, &t, m->matcap);
        pmf_put_f32s(&b, m->wave.velocity, 3);
        pmf_put_f32(&b, m->wave.wind_influence);
        pmf_put_f32(&b, m->wave.offset);
        pmf_put_f32(&b, m->wave.scale);
    }
    put_table_and_body(out, &t, &b);
    pmf_buf_free(&b);
    strtab_free(&t);
}

static void encode_level_server(const pmf_level_server *sv, pmf_buf *out)
{
    pmf_put_u32(out, (uint32_t)sv->string_table.size);
    pmf_put_bytes(out, sv->string_table.data, sv->string_table.size);
    pmf_put_u32(out, sv->entity_count);
    pmf_put_bytes(out, sv->entities.data, sv->entities.size);
}

bool pmf_check_level_frame(const pmf_level *lvl, const char *block, pmf_error *err)
{
    const char *problem = NULL;
    if (lvl->flags & ~7u)
        problem = "level flags set reserved bits";
    else if (lvl->chunk_size_exp > PMF_MAX_CHUNK_SIZE_EXP)
        problem = "chunk size exponent is too large";
    else if (lvl->count_x < 1 || lvl->count_x > 4096 || lvl->count_y < 1 || lvl->count_y > 256 || lvl->count_z < 1 ||
             lvl->count_z > 4096)
        problem = "chunk grid must be 1..4096 x 1..256 x 1..4096";
    else if (lvl->center.x >= lvl->count_x || lvl->center.y >= lvl->count_y || lvl->center.z >= lvl->count_z)
        problem = "center chunk is outside the grid";
    else if (lvl->parts != PMF_PART_ALL)
        problem = "a level to write needs its common, client and server parts";
    else if (lvl->client.material_count != lvl->common.material_count)
        problem = "client.material_count must equal common.material_count";
    if (problem)
        pmf_error_set(err, "(writer)", block, 0, "%s", problem);
    return !problem;
}

bool pmf_encode_level_blocks(const pmf_level *lvl, const char *block_prefix, pmf_buf out[3], pmf_error *err)
{
    if (!pmf_check_level_frame(lvl, block_prefix, err))
        return false;
    memset(out, 0, 3 * sizeof *out);
    encode_level_common(&lvl->common, &out[0]);
    encode_level_client(lvl, &out[1]);
    encode_level_server(&lvl->server, &out[2]);
    for (int i = 0; i < 3; i++) {
        if (out[i].oom || out[i].size > UINT32_MAX) {
            pmf_error_set(err, "(writer)", block_prefix, 0, "out of memory or %s block larger than 4 GiB", pmf_part_names[i]);
            return false;
        }
    }
    /* validate by decoding what we wrote */
    pmf_arena *a = pmf_arena_create();
    if (!a) {
        pmf_error_set(err, "(writer)", block_prefix, 0, "out of memory");
        return false;
    }
    pmf_level check = { 0 };
    check.arena_ = a;
    check.flags = lvl->flags;
    check.chunk_size_exp = lvl->chunk_size_exp;
    check.count_x = lvl->count_x;
    check.count_y = lvl->count_y;
    check.count_z = lvl->count_z;
    check.center = lvl->center;
    static bool (*const decode[3])(pmf_cursor *, pmf_arena *, pmf_level *) = {
        pmf_decode_level_common, pmf_decode_level_client, pmf_decode_level_server };
    bool ok = true;
    for (int i = 0; i < 3 && ok; i++) {
        char block[96];
        snprintf(block, sizeof block, "%s %s data", block_prefix, pmf_part_names[i]);
        pmf_cursor c = pmf_cursor_make(out[i].data, out[i].size, 0, "(writer)", block, err);
        ok = decode[i](&c, a, &check);
        check.parts |= 1u << i;
    }
    pmf_arena_destroy(a);
    return ok;
}

/* ---- chunk blocks ---- */

static void put_env_regions(pmf_buf *b, strtab *t, const pmf_env_region *r, uint8_t count)
{
    pmf_put_u8(b, count);
    for (unsigned i = 0; i < count; i++) {
        for (int k = 0; k < 8; k++)
            pmf_put_f32s(b, r[i].corners[k], 3);
        put_string(b, t, r[i].env);
    }
}

static void put_names(pmf_buf *b, strtab *t, const char *const *names, uint8_t count)
{
    pmf_put_u8(b, count);
    for (unsigned i = 0; i < count; i++)
        put_string(b, t, names[i]);
}

static void put_visibility(pmf_buf *b, const pmf_visibility *v)
{
    pmf_put_u32(b, v->cube_count);
    for (uint32_t i = 0; i < v->cube_count; i++)
        pmf_put_u32(b, v->cubes[i]);
    pmf_put_u32(b, v->chunk_count);
    for (uint32_t i = 0; i < v->chunk_count; i++) {
        pmf_put_u32(b, pmf_chunk_index_pack(v->chunks[i].chunk));
        pmf_put_u32(b, v->chunks[i].cube_count);
        for (uint32_t k = 0; k < v->chunks[i].cube_count; k++)
            pmf_put_u32(b, v->chunks[i].cubes[k]);
    }
}

static void encode_chunk_common(const pmf_chunk_common *cc, strtab *t, pmf_buf *b)
{
    put_names(b, t, cc->used_materials, cc->used_material_count);
    put_names(b, t, cc->used_physics_materials, cc->used_physics_material_count);
    put_names(b, t, cc->used_sound_materials, cc->used_sound_material_count);
    put_env_regions(b, t, cc->weather_regions, cc->weather_region_count);
    put_env_regions(b, t, cc->gravity_regions, cc->gravity_region_count);
    pmf_put_u8(b, cc->dynamic_light_count);
    for (unsigned i = 0; i < cc->dynamic_light_count; i++) {
        pmf_put_u8(b, cc->dynamic_lights[i].flags);
        pmf_put_u32(b, cc->dynamic_lights[i].id);
    }
    pmf_put_u8(b, cc->fast_light_count);
    for (unsigned i = 0; i < cc->fast_light_count; i++) {
        pmf_put_u8(b, cc->fast_lights[i].flags);
        pmf_put_u8(b, cc->fast_lights[i].intensity);
        pmf_put_u32(b, cc->fast_lights[i].id);
    }
    pmf_put_u32(b, cc->cube_count);
    for (uint32_t i = 0; i < cc->cube_count; i++) {
        const pmf_cube *cube = &cc->cubes[i];
        pmf_put_u8(b, (uint8_t)((cube->flags & ~PMF_CUBE_TYPE_MASK) | (cube->type & PMF_CUBE_TYPE_MASK)));
        if (cube->flags & PMF_CUBE_HAS_VISIBILITY)
            put_visibility(b, &cube->vis);
        switch (cube->type) {
        case PMF_CUBE_PARENT:
            pmf_put_u8(b, cube->u.parent.child_mask);
            for (int o = 0; o < 8; o++)
                if (cube->u.parent.child_mask & (1u << o))
                    pmf_put_u32(b, cube->u.parent.children[o]);
            break;
        case PMF_CUBE_GEOMETRY:
            pmf_put_u8(b, cube->u.geom.material);
            pmf_put_u8(b, cube->u.geom.physics_material);
            pmf_put_u8(b, cube->u.geom.sound_material);
            break;
        case PMF_CUBE_EXTGEOMETRY:
            pmf_put_bytes(b, cube->u.ext.material, PMF_FACE_COUNT);
            pmf_put_bytes(b, cube->u.ext.physics_material, PMF_FACE_COUNT);
            pmf_put_u8(b, cube->u.ext.sound_material);
            pmf_put_u8(b, cube->u.ext.moved_mask);
            for (int o = 0; o < 8; o++)
                if (cube->u.ext.moved_mask & (1u << o))
                    pmf_put_f32s(b, cube->u.ext.points[o], 3);
            break;
        }
    }
}

static void put_light_refs(pmf_buf *b, const pmf_light_ref *refs, uint8_t count)
{
    pmf_put_u8(b, count);
    for (unsigned i = 0; i < count; i++) {
        pmf_put_u8(b, refs[i].index);
        pmf_put_u8(b, refs[i].amount);
    }
}

/* Luxels of a lightmap of that size exponent, or 0 when the exponent is out of range (the
 * decoder reports it). */
static size_t luxel_bytes(uint8_t size_exp)
{
    return size_exp <= PMF_MAX_LIGHTMAP_EXP ? (size_t)3 << (2 * size_exp) : 0;
}

static void encode_chunk_client(const pmf_chunk *ch, strtab *t, pmf_buf *b)
{
    const pmf_chunk_common *cc = &ch->common;
    const pmf_chunk_client *cl = &ch->client;
    put_env_regions(b, t, cl->sound_regions, cl->sound_region_count);
    put_env_regions(b, t, cl->sky_regions, cl->sky_region_count);
    pmf_put_u8(b, cl->lightmap_count);
    for (unsigned i = 0; i < cl->lightmap_count; i++) {
        pmf_put_u8(b, cl->lightmaps[i].size_exp);
        pmf_put_bytes(b, cl->lightmaps[i].luxels, luxel_bytes(cl->lightmaps[i].size_exp));
    }
    pmf_put_u32(b, cl->vertex_count);
    for (uint32_t i = 0; i < cl->vertex_count; i++) {
        pmf_put_f32s(b, cl->vertices[i].xyz, 3);
        pmf_put_f32s(b, cl->vertices[i].uv, 2);
        pmf_put_f32s(b, cl->vertices[i].lm_uv, 2);
    }
    for (unsigned i = 0; i < cc->dynamic_light_count; i++) {
        const pmf_client_dynamic_light *l = &cl->dynamic_lights[i];
        pmf_put_bytes(b, l->color, 3);
        pmf_put_u8(b, l->layer_count);
        for (unsigned k = 0; k < l->layer_count; k++) {
            uint8_t target = l->layers[k].target;
            pmf_put_u8(b, target);
            if (target < cl->lightmap_count)
                pmf_put_bytes(b, l->layers[k].luxels, luxel_bytes(cl->lightmaps[target].size_exp));
        }
    }
    for (unsigned i = 0; i < cc->fast_light_count; i++) {
        const pmf_client_fast_light *l = &cl->fast_lights[i];
        pmf_put_bytes(b, l->color, 3);
        pmf_put_u32(b, l->range_count);
        for (uint32_t k = 0; k < l->range_count; k++) {
            pmf_put_u32(b, l->ranges[k].skip);
            pmf_put_u32(b, l->ranges[k].count);
            pmf_put_bytes(b, l->ranges[k].multipliers, l->ranges[k].count);
        }
    }
    for (uint32_t i = 0; i < cc->cube_count; i++) {
        const pmf_cube *cube = &cc->cubes[i];
        const pmf_client_cube *c = &cl->cubes[i];
        if (cube->flags & PMF_CUBE_HAS_LIGHTING) {
            pmf_put_bytes(b, c->lighting.base, 3);
            put_light_refs(b, c->lighting.dynamic, c->lighting.dynamic_count);
            put_light_refs(b, c->lighting.fast, c->lighting.fast_count);
        }
        if (cube->type == PMF_CUBE_GEOMETRY) {
            pmf_put_u8(b, c->u.geom.lightmap);
            pmf_put_u32(b, c->u.geom.first_vertex);
            pmf_put_u8(b, c->u.geom.face_mask);
        } else if (cube->type == PMF_CUBE_EXTGEOMETRY) {
            pmf_put_u32(b, c->u.ext.first_vertex);
            pmf_put_bytes(b, c->u.ext.lightmap, PMF_FACE_COUNT);
            pmf_put_bytes(b, c->u.ext.tri_count, PMF_FACE_COUNT);
        }
    }
}

static void encode_chunk_server(const pmf_chunk *ch, pmf_buf *out)
{
    const pmf_chunk_server *sv = &ch->server;
    strtab t;
    strtab_init(&t, sv->string_table, false);
    pmf_buf b = { 0 };
    pmf_put_u8(&b, sv->load_region_count);
    for (unsigned i = 0; i < sv->load_region_count; i++) {
        const pmf_region *r = &sv->load_regions[i];
        pmf_put_f32s(&b, r->max, 3);
        pmf_put_f32s(&b, r->min, 3);
        pmf_put_u32(&b, r->chunk_count);
        for (uint32_t k = 0; k < r->chunk_count; k++)
            pmf_put_u32(&b, pmf_chunk_index_pack(r->chunks[k]));
    }
    for (uint32_t i = 0; i < ch->common.cube_count; i++) {
        if (!(ch->common.cubes[i].flags & PMF_CUBE_HAS_PATHFINDING))
            continue;
        const pmf_server_cube *s = &sv->cubes[i];
        pmf_put_u8(&b, s->attr_count);
        for (unsigned k = 0; k < s->attr_count; k++) {
            put_string(&b, &t, s->attrs[k].name);
            pmf_put_f32s(&b, s->attrs[k].direction, 3);
        }
    }
    pmf_put_u32(&b, sv->entity_count);
    pmf_put_bytes(&b, sv->entities.data, sv->entities.size);
    put_table_and_body(out, &t, &b);
    pmf_buf_free(&b);
    strtab_free(&t);
}

bool pmf_compress_blocks(const pmf_buf blocks[3], const char *block, uint8_t **bytes, uint32_t compressed[3],
                         uint32_t decompressed[3], pmf_error *err)
{
    uint8_t *frames[3] = { NULL, NULL, NULL };
    size_t frame_size[3] = { 0, 0, 0 };
    bool ok = true;
    for (int i = 0; i < 3 && ok; i++) {
        if (!pmf_block_compress(blocks[i].data, blocks[i].size, &frames[i], &frame_size[i])) {
            pmf_error_set(err, "(writer)", block, 0, "LZ4F compression of the %s block failed", pmf_part_names[i]);
            ok = false;
        } else if (frame_size[i] > UINT32_MAX || blocks[i].size > pmf_block_size_cap(frame_size[i])) {
            pmf_error_set(err, "(writer)", block, 0, "the %s block (%zu bytes) is larger than a reader accepts",
                          pmf_part_names[i], blocks[i].size);
            ok = false;
        }
    }
    *bytes = ok ? malloc(frame_size[0] + frame_size[1] + frame_size[2] + 1) : NULL;
    if (ok && !*bytes) {
        pmf_error_set(err, "(writer)", block, 0, "out of memory");
        ok = false;
    }
    size_t at = 0;
    for (int i = 0; i < 3; i++) {
        if (ok) {
            memcpy(*bytes + at, frames[i], frame_size[i]);
            at += frame_size[i];
            compressed[i] = (uint32_t)frame_size[i];
            decompressed[i] = (uint32_t)blocks[i].size;
        }
        free(frames[i]);
    }
    return ok;
}

bool pmf_chunk_encode(const pmf_level *lvl, const pmf_chunk *chunk, pmf_encoded_chunk *out, pmf_error *err)
{
    memset(out, 0, sizeof *out);
    char prefix[80];
    snprintf(prefix, sizeof prefix, "chunk (%u,%u,%u)", chunk->coord.x, chunk->coord.y, chunk->coord.z);
    if (chunk->parts != PMF_PART_ALL || !lvl || !(lvl->parts & PMF_PART_COMMON)) {
        pmf_error_set(err, "(writer)", prefix, 0, "a chunk to write needs its three parts and its level's common part");
        return false;
    }
    if (chunk->coord.x >= lvl->count_x || chunk->coord.y >= lvl->count_y || chunk->coord.z >= lvl->count_z) {
        pmf_error_set(err, "(writer)", prefix, 0, "outside the %ux%ux%u grid", lvl->count_x, lvl->count_y, lvl->count_z);
        return false;
    }
    /* common and client strings share the common table, which precedes both bodies */
    strtab t;
    strtab_init(&t, (pmf_blob){ NULL, 0 }, true);
    pmf_buf common_body = { 0 }, blocks[3] = { { 0 } };
    encode_chunk_common(&chunk->common, &t, &common_body);
    encode_chunk_client(chunk, &t, &blocks[1]);
    put_table_and_body(&blocks[0], &t, &common_body);
    encode_chunk_server(chunk, &blocks[2]);
    pmf_buf_free(&common_body);
    strtab_free(&t);

    bool ok = true;
    for (int i = 0; i < 3 && ok; i++) {
        if (blocks[i].oom || blocks[i].size > UINT32_MAX) {
            pmf_error_set(err, "(writer)", prefix, 0, "out of memory or %s block larger than 4 GiB", pmf_part_names[i]);
            ok = false;
        }
    }
    if (ok) {
        pmf_arena *a = pmf_arena_create();
        pmf_chunk check = { 0 };
        check.coord = chunk->coord;
        const uint8_t *data[3] = { blocks[0].data, blocks[1].data, blocks[2].data };
        size_t size[3] = { blocks[0].size, blocks[1].size, blocks[2].size };
        ok = a && pmf_decode_chunk_blocks(lvl, "(writer)", prefix, data, size, PMF_PART_ALL, a, &check, err);
        if (!a)
            pmf_error_set(err, "(writer)", prefix, 0, "out of memory");
        pmf_arena_destroy(a);
    }
    if (ok)
        ok = pmf_compress_blocks(blocks, prefix, &out->bytes, out->compressed, out->decompressed, err);
    for (int i = 0; i < 3; i++)
        pmf_buf_free(&blocks[i]);
    return ok;
}

void pmf_encoded_chunk_free(pmf_encoded_chunk *enc)
{
    free(enc->bytes);
    memset(enc, 0, sizeof *enc);
}
