/* emit.c - the level's pmf_level, and each present chunk as a pmf_chunk: regions, lights,
 * lightmaps, vertices, cubes. Chunks are encoded in parallel and handed to the writer in order. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bake/light.h"
#include "base/pmf_budget.h"
#include "common/session.h"
#include "common/memory.h"
#include "emit.h"

static uint64_t encoded_bytes(const pmf_encoded_chunk *enc)
{
    return (uint64_t)enc->compressed[0] + enc->compressed[1] + enc->compressed[2];
}

/* Everything one chunk's pmf_chunk points at, freed at once. */
typedef struct arena { void **ptrs; size_t count, cap; } arena;

static void *arena_alloc(arena *a, size_t size)
{
    void *p = xcalloc(1, size);
    *(void **)PUSH(a->ptrs, a->count, a->cap) = p;
    return p;
}

static void arena_free(arena *a)
{
    for (size_t i = 0; i < a->count; i++) xfree(a->ptrs[i]);
    xfree(a->ptrs);
    memset(a, 0, sizeof *a);
}

/* ---- level ------------------------------------------------------------------------------- */

static pmf_chunk_coord point_chunk(const level_build *lb, v3 p)
{
    int64_t g[3];
    uint32_t c[3] = { lb->centre_chunk.x, lb->centre_chunk.y, lb->centre_chunk.z }, n[3] = { lb->nx, lb->ny, lb->nz };
    for (int a = 0; a < 3; a++) {
        g[a] = (int64_t)floor((p.e[a] + lb->S / 2) / lb->S) + c[a];
        if (g[a] < 0) g[a] = 0;
        if (g[a] >= n[a]) g[a] = n[a] - 1;
    }
    return (pmf_chunk_coord){ (uint32_t)g[0], (uint32_t)g[1], (uint32_t)g[2] };
}

static const char *material_name(const map_def *map, int i) { return i >= 0 ? map->materials[i].name : ""; }

static void level_fill(const level_build *lb, pmf_level *lvl, arena *ar)
{
    const map_def *map = lb->map;
    const level_def *def = lb->def;
    memset(lvl, 0, sizeof *lvl);
    lvl->flags = def->flags;
    lvl->chunk_size_exp = (uint8_t)lb->exp;
    lvl->count_x = lb->nx;
    lvl->count_y = lb->ny;
    lvl->count_z = lb->nz;
    lvl->center = lb->centre_chunk;
    lvl->parts = PMF_PART_ALL;

    pmf_level_common *co = &lvl->common;
    co->material_count = (uint16_t)map->material_count;
    co->materials = arena_alloc(ar, map->material_count * sizeof *co->materials);
    lvl->client.material_count = co->material_count;
    lvl->client.materials = arena_alloc(ar, map->material_count * sizeof *lvl->client.materials);
    for (size_t i = 0; i < map->material_count; i++) {
        const material_def *m = &map->materials[i];
        co->materials[i] = (pmf_material){ m->name, m->type, m->flags, m->render_mode };
        pmf_client_material *cm = &lvl->client.materials[i];
        cm->texture = m->texture;
        cm->extra_texture_count = (uint8_t)m->frame_count;
        cm->extra_textures = arena_alloc(ar, (size_t)m->frame_count * sizeof *cm->extra_textures);
        for (int k = 0; k < m->frame_count; k++) cm->extra_textures[k] = m->frames[k];
        cm->advance_time_us = m->advance_us;
        memcpy(cm->uv_scroll, m->scroll, sizeof cm->uv_scroll);
        memcpy(cm->color, m->color, 3);
        cm->alpha = m->alpha;
        memcpy(cm->emission, m->emission, 3);
        cm->shading = m->shading;
        cm->shine = m->shine;
        cm->matcap = m->matcap;
        cm->wave = m->wave;
    }
    co->physics_material_count = (uint16_t)map->physics_count;
    co->physics_materials = arena_alloc(ar, map->physics_count * sizeof *co->physics_materials);
    for (size_t i = 0; i < map->physics_count; i++) {
        co->physics_materials[i] = map->physics[i].pm;
        co->physics_materials[i].name = map->physics[i].name;
    }
    co->sound_material_count = (uint16_t)map->sound_count;
    co->sound_materials = arena_alloc(ar, map->sound_count * sizeof *co->sound_materials);
    for (size_t i = 0; i < map->sound_count; i++) co->sound_materials[i] = map->sounds[i].sm;
    co->air_physics_material = def->air_physics;
    co->weather_env_count = (uint8_t)def->weather_count;
    co->weather_envs = arena_alloc(ar, def->weather_count * sizeof *co->weather_envs);
    for (size_t i = 0; i < def->weather_count; i++) {
        co->weather_envs[i] = def->weathers[i].env;
        co->weather_envs[i].name = def->weathers[i].name;
    }
    co->gravity_env_count = (uint8_t)def->gravity_count;
    co->gravity_envs = arena_alloc(ar, def->gravity_count * sizeof *co->gravity_envs);
    for (size_t i = 0; i < def->gravity_count; i++) {
        co->gravity_envs[i] = def->gravities[i].env;
        co->gravity_envs[i].name = def->gravities[i].name;
    }
    co->default_weather_env = def->default_weather;
    co->default_gravity_env = def->default_gravity;

    pmf_level_client *cl = &lvl->client;
    cl->sound_env_count = (uint8_t)def->sound_env_count;
    cl->sound_envs = arena_alloc(ar, def->sound_env_count * sizeof *cl->sound_envs);
    for (size_t i = 0; i < def->sound_env_count; i++) {
        cl->sound_envs[i] = def->sound_envs[i].env;
        cl->sound_envs[i].name = def->sound_envs[i].name;
    }
    cl->sky_env_count = (uint8_t)def->sky_count;
    cl->sky_envs = arena_alloc(ar, def->sky_count * sizeof *cl->sky_envs);
    for (size_t i = 0; i < def->sky_count; i++) {
        const sky_def *s = &def->skies[i];
        pmf_sky_env *e = &cl->sky_envs[i];
        e->name = s->name;
        for (int f = 0; f < PMF_FACE_COUNT; f++) e->skybox[f] = material_name(map, s->skybox[f]);
        e->cloud_top = material_name(map, s->cloud_top);
        e->cloud_bottom = material_name(map, s->cloud_bottom);
        if (s->has_3d) {
            e->flags |= PMF_SKY_3D_SKYBOX;
            e->skybox_chunk = point_chunk(lb, s->skybox_point);
        }
    }
    cl->default_sound_env = def->default_sound;
    cl->default_sky_env = def->default_sky;
    lvl->server.string_table = (pmf_blob){ NULL, 0 };
}

/* ---- chunks ------------------------------------------------------------------------------ */

static void chunk_bounds(const level_build *lb, const chunk_build *cb, v3 *lo, v3 *hi)
{
    double h = lb->S / 2;
    *lo = v3_sub(cb->centre, v3_make(h, h, h));
    *hi = v3_add(cb->centre, v3_make(h, h, h));
}

/* The part of a box inside the chunk, chunk-local; false when they do not overlap. */
static bool box_in_chunk(const level_build *lb, const chunk_build *cb, v3 lo, v3 hi, v3 *out_lo, v3 *out_hi)
{
    v3 clo, chi;
    chunk_bounds(lb, cb, &clo, &chi);
    for (int a = 0; a < 3; a++) {
        double l = fmax(lo.e[a], clo.e[a]), h = fmin(hi.e[a], chi.e[a]);
        if (h - l <= 1e-6) return false;
        out_lo->e[a] = l - cb->centre.e[a];
        out_hi->e[a] = h - cb->centre.e[a];
    }
    return true;
}

static void env_regions(const level_build *lb, const chunk_build *cb, int kind, arena *ar,
                        uint8_t *count, pmf_env_region **out)
{
    const level_def *def = lb->def;
    *count = 0;
    *out = arena_alloc(ar, 255 * sizeof **out);
    for (size_t i = 0; i < def->region_count && *count < 255; i++) {
        const region_def *r = &def->regions[i];
        v3 lo, hi;
        if (r->kind != kind || !box_in_chunk(lb, cb, r->lo, r->hi, &lo, &hi)) continue;
        pmf_env_region *e = &(*out)[(*count)++];
        for (int o = 0; o < 8; o++) {
            e->corners[o][0] = (float)(o & PMF_OCTANT_NEG_X ? lo.x : hi.x);
            e->corners[o][1] = (float)(o & PMF_OCTANT_NEG_Y ? lo.y : hi.y);
            e->corners[o][2] = (float)(o & PMF_OCTANT_NEG_Z ? lo.z : hi.z);
        }
        e->env = r->env;
    }
}

static void load_regions(const level_build *lb, const chunk_build *cb, arena *ar, pmf_chunk_server *sv)
{
    const level_def *def = lb->def;
    pmf_region *regions = arena_alloc(ar, 255 * sizeof *regions);
    uint8_t count = 0;
    /* the whole chunk: its present neighbours stay active around a player in it */
    pmf_region *r = &regions[count++];
    double h = (float)(lb->S / 2);
    for (int a = 0; a < 3; a++) {
        r->max[a] = (float)h;
        r->min[a] = (float)-h;
    }
    r->chunks = arena_alloc(ar, 26 * sizeof *r->chunks);
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            for (int dz = -1; dz <= 1; dz++) {
                int64_t x = (int64_t)cb->gx + dx, y = (int64_t)cb->gy + dy, z = (int64_t)cb->gz + dz;
                const chunk_build *nb = level_chunk_at(lb, x, y, z);
                if ((!dx && !dy && !dz) || !nb || !nb->present) continue;
                r->chunks[r->chunk_count++] = (pmf_chunk_coord){ (uint32_t)x, (uint32_t)y, (uint32_t)z };
            }
    for (size_t i = 0; i < def->region_count && count < 255; i++) {
        const region_def *rd = &def->regions[i];
        v3 lo, hi;
        if (rd->kind != REGION_LOAD || !box_in_chunk(lb, cb, rd->lo, rd->hi, &lo, &hi)) continue;
        pmf_region *lr = &regions[count++];
        for (int a = 0; a < 3; a++) {
            lr->max[a] = (float)hi.e[a];
            lr->min[a] = (float)lo.e[a];
        }
        pmf_chunk_coord c0 = point_chunk(lb, rd->act_lo), c1 = point_chunk(lb, v3_sub(rd->act_hi, v3_make(1e-6, 1e-6, 1e-6)));
        size_t n = (size_t)(c1.x - c0.x + 1) * (c1.y - c0.y + 1) * (c1.z - c0.z + 1);
        lr->chunks = arena_alloc(ar, n * sizeof *lr->chunks);
        for (uint32_t y = c0.y; y <= c1.y; y++)
            for (uint32_t x = c0.x; x <= c1.x; x++)
                for (uint32_t z = c0.z; z <= c1.z; z++) {
                    if (x == cb->gx && y == cb->gy && z == cb->gz) continue;
                    const chunk_build *at = level_chunk_at(lb, x, y, z);
                    if (!at || !at->present) continue;
                    lr->chunks[lr->chunk_count++] = (pmf_chunk_coord){ x, y, z };
                }
    }
    sv->load_region_count = count;
    sv->load_regions = regions;
}

/* Chunk-local light lists: light index -> local index (or -1). A light index past the level's
 * lights is a group's further layers (light.h): another dynamic light of the group's ID. */
typedef struct light_lists {
    int32_t *local;            /* [light index], GROUP_LAYERS_MAX x the level's lights */
    uint32_t dyn[255], fast[255];
    int dyn_count, fast_count;
} light_lists;

/* The level's light a light index stands for. */
static uint32_t level_light_of(const level_build *lb, uint32_t light)
{
    return light % (uint32_t)lb->def->light_count;
}

static int light_local(const level_build *lb, light_lists *ll, uint32_t light)
{
    if (ll->local[light] >= 0) return ll->local[light];
    const light_def *l = &lb->def->lights[level_light_of(lb, light)];
    bool fast = l->kind == BAKE_LIGHT_FAST;
    if (l->kind == BAKE_LIGHT_STATIC) return -1;
    if (fast ? ll->fast_count >= 255 : ll->dyn_count >= 255) return -1;
    int idx = fast ? ll->fast_count++ : ll->dyn_count++;
    (fast ? ll->fast : ll->dyn)[idx] = light;
    ll->local[light] = idx;
    return idx;
}

typedef struct emit_job {
    level_build *lb;
    level_light *ll;
    const pmf_level *lvl;
    uint32_t *present;          /* chunk indices */
    pmf_encoded_chunk *enc;
    bool *ok;
    pmf_error *errs;
    size_t base;
    size_t *done;
    size_t total;
    void (*progress)(void *, const char *, double);
    void *user;
} emit_job;

static void fast_ranges(const uint8_t *mult, uint32_t count, arena *ar, pmf_client_fast_light *out)
{
    /* a gap of fewer zeros than this is cheaper to store than a new range (8 bytes) */
    const uint32_t min_gap = 8;
    out->range_count = 0;
    out->ranges = NULL;
    uint32_t n = 0;
    for (uint32_t pass = 0; pass < 2; pass++) {
        uint32_t i = 0, last_end = 0;
        n = 0;
        while (i < count) {
            while (i < count && !mult[i]) i++;
            if (i >= count) break;
            uint32_t start = i, end = i, zeros = 0;
            while (i < count && zeros < min_gap) {
                if (mult[i]) { end = i + 1; zeros = 0; } else zeros++;
                i++;
            }
            i = end;
            if (pass) {
                pmf_fast_range *r = &out->ranges[n];
                r->skip = start - last_end;
                r->count = end - start;
                r->multipliers = arena_alloc(ar, r->count);
                memcpy(r->multipliers, mult + start, r->count);
            }
            last_end = end;
            n++;
        }
        if (!pass) out->ranges = arena_alloc(ar, (n ? n : 1) * sizeof *out->ranges);
    }
    out->range_count = n;
}

/* The chunk's used materials, physics and sound materials, and its environment regions. */
static void chunk_materials(const level_build *lb, const chunk_build *cb, arena *ar, pmf_chunk *ch)
{
    const map_def *map = lb->map;
    pmf_chunk_common *co = &ch->common;
    co->used_material_count = (uint8_t)cb->used_count;
    co->used_materials = arena_alloc(ar, 256 * sizeof(char *));
    co->material_map = arena_alloc(ar, 256 * sizeof(uint16_t));
    for (int k = 0; k < cb->used_count; k++) {
        co->used_materials[k] = map->materials[cb->used_mats[k]].name;
        co->material_map[k] = (uint16_t)cb->used_mats[k];
    }
    co->used_physics_material_count = (uint8_t)cb->phys_used_count;
    co->used_physics_materials = arena_alloc(ar, 256 * sizeof(char *));
    co->physics_material_map = arena_alloc(ar, 256 * sizeof(uint16_t));
    for (int k = 0; k < cb->phys_used_count; k++) {
        co->used_physics_materials[k] = map->physics[cb->phys_used[k]].name;
        co->physics_material_map[k] = (uint16_t)cb->phys_used[k];
    }
    co->used_sound_material_count = (uint8_t)cb->sound_used_count;
    co->used_sound_materials = arena_alloc(ar, 256 * sizeof(char *));
    for (int k = 0; k < cb->sound_used_count; k++) co->used_sound_materials[k] = map->sounds[cb->sound_used[k]].name;
    env_regions(lb, cb, REGION_WEATHER, ar, &co->weather_region_count, &co->weather_regions);
    env_regions(lb, cb, REGION_GRAVITY, ar, &co->gravity_region_count, &co->gravity_regions);
    env_regions(lb, cb, REGION_SOUND, ar, &ch->client.sound_region_count, &ch->client.sound_regions);
    env_regions(lb, cb, REGION_SKY, ar, &ch->client.sky_region_count, &ch->client.sky_regions);
}

/* The lights with layers on the chunk's lightmaps or multipliers on its vertices. */
static void chunk_lights(const level_build *lb, const level_light *ll, const chunk_build *cb, light_lists *lists)
{
    const level_def *def = lb->def;
    for (int m = 0; m < cb->lightmap_count; m++) {
        uint32_t g = cb->bake_lightmap_base + (uint32_t)m;
        for (uint32_t k = ll->lm_layer_start[g]; k < ll->lm_layer_start[g + 1]; k++)
            light_local(lb, lists, ll->res.layers[ll->layer_order[k]].light);
    }
    for (size_t l = 0; l < def->light_count; l++) {
        if (ll->fast_ordinal[l] < 0 || !ll->vertex_count) continue;
        const uint8_t *row = ll->res.fast_multipliers + (size_t)ll->fast_ordinal[l] * ll->vertex_count + cb->bake_vertex_base;
        for (uint32_t v = 0; v < cb->vert_count; v++)
            if (row[v]) { light_local(lb, lists, (uint32_t)l); break; }
    }
}

/* Cube lighting data: each probe's base colour and its references to the chunk's lights. */
static void chunk_cube_lighting(const level_build *lb, const level_light *ll, uint32_t ci, chunk_build *cb,
                                light_lists *lists, arena *ar)
{
    uint32_t probe = ll->probe_base[ci];
    for (uint32_t c = 0; c < cb->cube_count; c++) {
        if (!cb->info[c].probe) continue;
        const bake_probe_result *pr = &ll->res.probes[probe++];
        pmf_cube_lighting *lt = &cb->ccubes[c].lighting;
        cb->cubes[c].flags |= PMF_CUBE_HAS_LIGHTING;
        memcpy(lt->base, pr->base, 3);
        lt->dynamic = arena_alloc(ar, (pr->ref_count ? pr->ref_count : 1) * sizeof *lt->dynamic);
        lt->fast = arena_alloc(ar, (pr->ref_count ? pr->ref_count : 1) * sizeof *lt->fast);
        lt->dynamic_count = lt->fast_count = 0;
        for (uint32_t r = 0; r < pr->ref_count; r++) {
            uint32_t light = pr->refs[r].light;
            int local = light_local(lb, lists, light);
            if (local < 0) continue;
            bool fast = lb->def->lights[light].kind == BAKE_LIGHT_FAST;
            if (fast ? lt->fast_count == 255 : lt->dynamic_count == 255) continue;
            pmf_light_ref ref = { (uint8_t)local, pr->refs[r].amount };
            if (fast) lt->fast[lt->fast_count++] = ref;
            else lt->dynamic[lt->dynamic_count++] = ref;
        }
    }
}

static uint8_t light_flags(const light_def *l)
{
    return (uint8_t)((l->enabled ? PMF_LIGHT_ENABLE : 0) | (l->preserve ? PMF_LIGHT_PRESERVE : 0));
}

/* The chunk's dynamic lights (a group's colour: light.h) with their layers on its lightmaps. */
static void chunk_dynamic_lights(const level_build *lb, const level_light *ll, const chunk_build *cb,
                                 const light_lists *lists, arena *ar, pmf_chunk *ch)
{
    pmf_chunk_common *co = &ch->common;
    pmf_chunk_client *cl = &ch->client;
    co->dynamic_light_count = (uint8_t)lists->dyn_count;
    co->dynamic_lights = arena_alloc(ar, (size_t)(lists->dyn_count + 1) * sizeof *co->dynamic_lights);
    cl->dynamic_lights = arena_alloc(ar, (size_t)(lists->dyn_count + 1) * sizeof *cl->dynamic_lights);
    for (int k = 0; k < lists->dyn_count; k++) {
        const light_def *l = &lb->def->lights[level_light_of(lb, lists->dyn[k])];
        co->dynamic_lights[k].flags = light_flags(l);
        co->dynamic_lights[k].id = l->id;
        pmf_client_dynamic_light *cd = &cl->dynamic_lights[k];
        memcpy(cd->color, ll ? ll->group_color[level_light_of(lb, lists->dyn[k])] : l->color, 3);
        cd->layers = arena_alloc(ar, (size_t)(cb->lightmap_count + 1) * sizeof *cd->layers);
        for (int m = 0; m < cb->lightmap_count && ll; m++) {
            uint32_t g = cb->bake_lightmap_base + (uint32_t)m;
            for (uint32_t q = ll->lm_layer_start[g]; q < ll->lm_layer_start[g + 1]; q++) {
                const bake_layer *layer = &ll->res.layers[ll->layer_order[q]];
                if (layer->light != lists->dyn[k]) continue;
                cd->layers[cd->layer_count].target = (uint8_t)m;
                cd->layers[cd->layer_count].luxels = layer->luxels;
                cd->layer_count++;
            }
        }
    }
}

/* The chunk's fast lights with their multipliers on its vertices. */
static void chunk_fast_lights(const level_build *lb, const level_light *ll, const chunk_build *cb,
                              const light_lists *lists, arena *ar, pmf_chunk *ch)
{
    pmf_chunk_common *co = &ch->common;
    pmf_chunk_client *cl = &ch->client;
    co->fast_light_count = (uint8_t)lists->fast_count;
    co->fast_lights = arena_alloc(ar, (size_t)(lists->fast_count + 1) * sizeof *co->fast_lights);
    cl->fast_lights = arena_alloc(ar, (size_t)(lists->fast_count + 1) * sizeof *cl->fast_lights);
    for (int k = 0; k < lists->fast_count; k++) {
        const light_def *l = &lb->def->lights[lists->fast[k]];
        co->fast_lights[k].flags = light_flags(l);
        co->fast_lights[k].intensity = l->intensity;
        co->fast_lights[k].id = l->id;
        memcpy(cl->fast_lights[k].color, l->color, 3);
        if (ll && ll->vertex_count) {
            const uint8_t *row = ll->res.fast_multipliers + (size_t)ll->fast_ordinal[lists->fast[k]] * ll->vertex_count + cb->bake_vertex_base;
            fast_ranges(row, cb->vert_count, ar, &cl->fast_lights[k]);
        }
    }
}

static void emit_chunk(void *user, size_t i)
{
    emit_job *job = user;
    level_build *lb = job->lb;
    level_light *ll = job->ll;
    uint32_t ci = job->present[job->base + i];
    chunk_build *cb = &lb->chunks[ci];
    arena ar = { 0 };
    pmf_chunk ch;
    memset(&ch, 0, sizeof ch);
    ch.coord = (pmf_chunk_coord){ cb->gx, cb->gy, cb->gz };
    ch.parts = PMF_PART_ALL;
    chunk_materials(lb, cb, &ar, &ch);

    /* lights: those with layers on this chunk's lightmaps, multipliers on its vertices, or
     * references from its cubes */
    light_lists lists;
    memset(&lists, 0, sizeof lists);
    size_t light_count = lb->def->light_count;
    lists.local = arena_alloc(&ar, (light_count ? GROUP_LAYERS_MAX * light_count : 1) * sizeof *lists.local);
    for (size_t l = 0; l < GROUP_LAYERS_MAX * light_count; l++) lists.local[l] = -1;
    if (ll) {
        chunk_lights(lb, ll, cb, &lists);
        chunk_cube_lighting(lb, ll, ci, cb, &lists, &ar);
    }
    chunk_dynamic_lights(lb, ll, cb, &lists, &ar, &ch);
    chunk_fast_lights(lb, ll, cb, &lists, &ar, &ch);
    ch.common.cube_count = cb->cube_count;
    ch.common.cubes = cb->cubes;
    ch.client.lightmap_count = cb->lightmap_count;
    ch.client.lightmaps = cb->lightmaps;
    ch.client.vertex_count = cb->vert_count;
    ch.client.vertices = cb->verts;
    ch.client.cubes = cb->ccubes;
    load_regions(lb, cb, &ar, &ch.server);
    ch.server.cubes = arena_alloc(&ar, cb->cube_count * sizeof *ch.server.cubes);

    job->ok[i] = pmf_chunk_encode(job->lvl, &ch, &job->enc[i], &job->errs[i]);
    /* held until the window's chunks are put (the writer then spools them); the format library's
     * block, in the compile's ledger so that an abandoned compile frees it */
    pmf_budget_track(job->enc[i].bytes);
    if (job->ok[i]) memory_take(encoded_bytes(&job->enc[i]), "encoded chunks");
    arena_free(&ar);
    size_t done = __atomic_add_fetch(job->done, 1, __ATOMIC_RELAXED);
    if (job->progress) job->progress(job->user, "encode", (double)done / (double)job->total);
}

bool level_begin(const level_build *lb, pmf_writer *w)
{
    arena ar = { 0 };
    pmf_level lvl;
    pmf_error err;
    level_fill(lb, &lvl, &ar);
    bool ok = pmf_writer_begin_level(w, &lvl, &err);
    if (!ok) {
        char buf[768];
        session_say(PMFC_ERROR, "pmfc: writing level '%s': %s", lb->def->name, pmf_error_format(&err, buf, sizeof buf));
    }
    arena_free(&ar);
    return ok;
}

bool level_encode(level_build *lb, level_light *ll, encoded_chunks *out, void (*progress)(void *, const char *, double), void *user)
{
    arena ar = { 0 };
    pmf_level lvl;
    level_fill(lb, &lvl, &ar);
    size_t nchunks = level_chunk_count(lb), npresent = 0;
    uint32_t *present = xmalloc(nchunks * sizeof *present);
    for (size_t c = 0; c < nchunks; c++)
        if (lb->chunks[c].present && !lb->chunks[c].margin) present[npresent++] = (uint32_t)c;
    out->coords = xmalloc((npresent ? npresent : 1) * sizeof *out->coords);
    out->enc = xcalloc(npresent ? npresent : 1, sizeof *out->enc);
    out->count = npresent;
    bool *oks = xcalloc(npresent ? npresent : 1, sizeof *oks);
    pmf_error *errs = xcalloc(npresent ? npresent : 1, sizeof *errs);
    size_t done = 0;
    emit_job job = { lb, ll, &lvl, present, out->enc, oks, errs, 0, &done, npresent, progress, user };
    jobs_parallel_for(npresent, lb->threads, emit_chunk, &job);
    bool ok = true;
    for (size_t i = 0; i < npresent; i++) {
        const chunk_build *cb = &lb->chunks[present[i]];
        out->coords[i] = (pmf_chunk_coord){ cb->gx, cb->gy, cb->gz };
        if (ok && !oks[i]) {
            if (errs[i].over_budget) memory_over_budget(0, "the encoder's check decode");
            char buf[768];
            session_say(PMFC_ERROR, "pmfc: writing level '%s': %s", lb->def->name, pmf_error_format(&errs[i], buf, sizeof buf));
            ok = false;
        }
    }
    xfree(oks);
    xfree(errs);
    xfree(present);
    arena_free(&ar);
    return ok;
}

bool encoded_chunks_put(encoded_chunks *ec, pmf_writer *w, const char *level_name)
{
    bool ok = true;
    pmf_error err;
    for (size_t i = 0; i < ec->count; i++) {
        memory_give(encoded_bytes(&ec->enc[i]));
        pmf_budget_untrack(ec->enc[i].bytes); /* the writer's from here, or freed below */
        if (ok && !pmf_writer_put_chunk(w, ec->coords[i], &ec->enc[i], &err)) {
            char buf[768];
            session_say(PMFC_ERROR, "pmfc: writing level '%s': %s", level_name, pmf_error_format(&err, buf, sizeof buf));
            ok = false;
        }
        pmf_encoded_chunk_free(&ec->enc[i]);
    }
    xfree(ec->coords);
    xfree(ec->enc);
    memset(ec, 0, sizeof *ec);
    return ok;
}
