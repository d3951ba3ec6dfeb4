/* scene.c - open level -> streamer (meshing on its workers) -> GPU uploads -> culled draw
 * (scene.h). */
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cglm/box.h>
#include <cglm/cam.h>
#include <cglm/frustum.h>

#include "light_direct.h"
#include "mesh.h"
#include "pmf/pmf_cameras.h"
#include "pmf/pmf_light_styles.h"
#include "pmf/pmf_lights.h"
#include "pmf_budget.h"
#include "render/render_world.h"
#include "res/res.h"
#include "scene.h"
#include "stream.h"
#include "text_clean.h"
#include "pmf_system.h"

#define NEAR_PLANE 0.05

typedef struct sky_region { float planes[6][4]; int env; } sky_region;

#define EVICTION_HYSTERESIS 2        /* chunks past the radius before a resident one is dropped */
#define TRIM_AFTER_EVICTIONS 16
#define FILTER_INTERVAL_SECONDS 0.5
#define TRIM_INTERVAL_SECONDS 2.0
#define SCENE_UPLOAD_BUDGET_MIN_MS 0.5
#define SCENE_UPLOAD_BUDGET_MAX_MS 4.0

typedef struct scene_failure_entry {
    pmf_chunk_coord coord;
    bool anywhere;                   /* counts wherever the camera looks (3D skybox, out of memory) */
    char message[512];
} scene_failure_entry;

/* What a stream worker prepares for the main thread. */
typedef struct scene_chunk {
    mesh_chunk mc;
    uint32_t sky_region_count;
    sky_region *sky_regions;
    int handle;                      /* render_world handle */
    uint64_t *vis_bits;              /* cubes the visible set shows (mesh_cube_words) */
    bool vis_shown;                  /* false: the visible set shows nothing of this chunk */
} scene_chunk;

struct scene {
    pmf_file *file;
    uint32_t level;
    pmf_cameras *cameras;            /* the file's start cameras (every level) */
    pmf_lights lights;               /* the file's pmfview.lights metadata (every level) */
    scene_map_info map_info;         /* pmfview.source, .entities, .leak */
    light_direct_set static_terms;   /* the light tools' static lights (solo / mute) */
    scene_light_ref *filter_refs;    /* the light tools' filter (scene_set_light_filter) */
    size_t filter_count;
    bool filter_solo;
    bool filter_stale;               /* chunks arrived since the static terms were computed */
    double filter_applied_at;
    pmf_level lvl;
    res_context *res;
    mesh_atlas *atlas;
    render_world *world;
    stream *stream;

    scene_chunk **chunks;            /* resident, uploaded */
    size_t chunk_count, chunk_cap;
    scene_chunk **deferred;          /* delivered outside the view: uploaded after those in it */
    size_t deferred_count, deferred_cap;
    scene_chunk *skybox_chunk;       /* 3D skybox chunk, loaded on first use */
    pmf_chunk_coord skybox_coord;
    bool skybox_failed;

    int radius;                      /* streaming radius, chunks: also how far the world is drawn */
    camera cam;
    bool view_dirty;                 /* the streamer has not seen the current camera yet */
    bool moving_camera;              /* scene_desc.moving_camera */
    /* Until the first complete view (reserve_ahead): what the chunks uploaded so far take, their
     * decompressed common + client bytes, the bytes of the chunks that can be resident (0 = not
     * yet known), what is reserved */
    bool first_view_done;
    render_world_reserve_desc uploaded_needs, reserved;
    uint64_t uploaded_bytes;
    double resident_bytes;
    scene_settings settings;
    float wind[3];

    mesh_vis_set vis;
    bool vis_valid;
    int32_t vis_chunk[3];
    uint32_t vis_cube;

    uint64_t *scratch_bits;
    size_t scratch_words;
    render_draw_chunk *draws;
    size_t draw_cap;

    double opened_at, first_complete, upload_seconds;
    render_frame_stats last_frame;   /* sky + world */
    render_frame_stats last_world;   /* the chunks alone */
    uint32_t visible_chunks;
    scene_failure_entry failures[16];  /* the first chunks that failed to load */
    uint32_t failure_count;
    uint32_t evicted_since_trim;
    double trimmed_at;
    char budget_warning[640];
    char lowered_warning[640];         /* lightmaps lowered to fit the atlas, "" = none */
    uint32_t lowered_exp;              /* 1 + the smallest lowered side's exponent, 0 = none */          /* the first chunk the memory budget dropped, "" = none */
    uint32_t budget_dropped;
};

static scene_failure_entry *add_failure(scene *s, pmf_chunk_coord c, bool anywhere)
{
    if (s->failure_count == sizeof s->failures / sizeof s->failures[0])
        return NULL;
    scene_failure_entry *f = &s->failures[s->failure_count++];
    f->coord = c;
    f->anywhere = anywhere;
    return f;
}

/* ---- sky regions (8-corner volumes, conventions: client chunk data) ---------------------------- */

/* The six faces of a region by corner indices (octant order: bit0 -X, bit1 -Z, bit2 -Y). */
static const int region_faces[6][4] = {
    { 0, 2, 4, 6 }, { 1, 3, 5, 7 },  /* +X, -X */
    { 0, 1, 2, 3 }, { 4, 5, 6, 7 },  /* +Y, -Y */
    { 0, 1, 4, 5 }, { 2, 3, 6, 7 },  /* +Z, -Z */
};

/* Planes facing inwards (a x + b y + c z + d >= 0 inside) through each face's centre, with the
 * normal of the face's diagonals, so slightly non-planar faces still work. */
static void region_planes(const float corners[8][3], float planes[6][4])
{
    float centre[3] = { 0, 0, 0 };
    for (int i = 0; i < 8; i++)
        for (int c = 0; c < 3; c++)
            centre[c] += corners[i][c] / 8.0f;
    for (int f = 0; f < 6; f++) {
        const float *a = corners[region_faces[f][0]], *b = corners[region_faces[f][1]];
        const float *c = corners[region_faces[f][2]], *d = corners[region_faces[f][3]];
        float d1[3], d2[3], mid[3], n[3];
        for (int k = 0; k < 3; k++) {
            d1[k] = d[k] - a[k];
            d2[k] = c[k] - b[k];
            mid[k] = (a[k] + b[k] + c[k] + d[k]) / 4.0f;
        }
        n[0] = d1[1] * d2[2] - d1[2] * d2[1];
        n[1] = d1[2] * d2[0] - d1[0] * d2[2];
        n[2] = d1[0] * d2[1] - d1[1] * d2[0];
        float dist = -(n[0] * mid[0] + n[1] * mid[1] + n[2] * mid[2]);
        if (n[0] * centre[0] + n[1] * centre[1] + n[2] * centre[2] + dist < 0) {
            for (int k = 0; k < 3; k++)
                n[k] = -n[k];
            dist = -dist;
        }
        planes[f][0] = n[0];
        planes[f][1] = n[1];
        planes[f][2] = n[2];
        planes[f][3] = dist;
    }
}

static int sky_env_index(const pmf_level *lvl, const char *name)
{
    for (int i = 0; i < lvl->client.sky_env_count; i++)
        if (!strcmp(lvl->client.sky_envs[i].name, name))
            return i;
    return -1;
}

static int material_index(const pmf_level *lvl, const char *name)
{
    if (!name || !name[0])
        return -1;
    for (int i = 0; i < lvl->common.material_count; i++)
        if (!strcmp(lvl->common.materials[i].name, name))
            return i;
    return -1;
}

/* ---- stream callbacks (worker threads) ------------------------------------------------------ */

static void free_scene_chunk(scene_chunk *sc)
{
    if (!sc)
        return;
    mesh_chunk_free(&sc->mc);
    free(sc->sky_regions);
    free(sc->vis_bits);
    free(sc);
}

/* Decodes the textures of the chunk's materials here on the worker (res caches them with their
 * mipmaps) rather than on the GL thread when the chunk is uploaded. */
static void prefetch_textures(scene *s, const mesh_chunk *mc)
{
    for (uint32_t b = 0; b < mc->batch_count; b++) {
        if (mc->batches[b].material >= s->lvl.common.material_count)
            continue;
        const pmf_client_material *cm = &s->lvl.client.materials[mc->batches[b].material];
        if (cm->texture[0])
            res_prefetch_texture(s->res, cm->texture);
        for (uint32_t i = 0; cm->texture[0] && i < cm->extra_texture_count; i++)
            if (cm->extra_textures[i][0])
                res_prefetch_texture(s->res, cm->extra_textures[i]);
        if (cm->matcap[0])
            res_prefetch_texture(s->res, cm->matcap);
    }
}

static scene_chunk *build_scene_chunk(scene *s, pmf_chunk *chunk, char *err, size_t err_size)
{
    scene_chunk *sc = calloc(1, sizeof *sc);
    if (!sc) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    sc->handle = -1;
    if (!mesh_build_chunk(&s->lvl, chunk, &(mesh_desc){ .atlas = s->atlas }, &sc->mc, err, err_size)) {
        free(sc);
        return NULL;
    }
    prefetch_textures(s, &sc->mc);
    uint32_t n = chunk->client.sky_region_count;
    if (n) {
        sc->sky_regions = calloc(n, sizeof *sc->sky_regions);
        if (!sc->sky_regions) {
            snprintf(err, err_size, "out of memory");
            free_scene_chunk(sc);
            return NULL;
        }
        for (uint32_t i = 0; i < n; i++) {
            region_planes((const float(*)[3])chunk->client.sky_regions[i].corners, sc->sky_regions[i].planes);
            sc->sky_regions[i].env = sky_env_index(&s->lvl, chunk->client.sky_regions[i].env);
        }
        sc->sky_region_count = n;
    }
    sc->vis_bits = calloc(mesh_cube_words(&sc->mc) + 1u, sizeof *sc->vis_bits);
    if (!sc->vis_bits) {
        snprintf(err, err_size, "out of memory");
        free_scene_chunk(sc);
        return NULL;
    }
    return sc;
}

static void *prepare_chunk(void *user, pmf_chunk *chunk, char *err, size_t err_size)
{
    scene_chunk *sc = build_scene_chunk(user, chunk, err, err_size);
    pmf_chunk_free(chunk);
    return sc;
}

static void release_chunk(void *user, void *payload)
{
    (void)user;
    free_scene_chunk(payload);
}

/* ---- open / close ------------------------------------------------------------------------------ */

static scene *fail(scene *s, scene_error *err, int code, const char *fmt, const char *detail)
{
    err->exit_code = code;
    char raw[sizeof err->message];
    snprintf(raw, sizeof raw, fmt, detail);
    text_clean(raw, err->message, sizeof err->message); /* idempotent: escapes stay as they are */
    scene_close(s);
    return NULL;
}

/* The lit atlas (RGB9_E5 pages of 2048^2 on the GPU, 16 MiB each) may take half the budget. */
static uint32_t atlas_pages_for_budget(void)
{
    uint64_t limit = pmf_budget_limit(), page = 2048ull * 2048ull * 4ull;
    uint64_t pages = limit ? limit / 2 / page : 64;
    return pages < 1 ? 1 : pages > 64 ? 64 : (uint32_t)pages;
}

/* llvmpipe allocates each draw's vertex output (up to MiBs on a big map) and frees it after the
 * draw. glibc serves a block above its mmap threshold (128 KiB at first) with a new mapping, each
 * page faulted in again on every draw, until its dynamic threshold has risen past those blocks:
 * the first dozen frames of a flight over the 64x2x64 city took 7000 faults (+13 ms) each. Set
 * from the start to where glibc's dynamic threshold settles for large blocks: blocks up to 32 MiB
 * from the heap, its top kept up to twice that (the periodic malloc_trim still hands memory
 * back). */
static void settle_allocator(void)
{
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
}

scene *scene_open(const scene_desc *desc, scene_error *err)
{
    char line[sizeof err->message];
    pmf_error perr;
    scene *s = calloc(1, sizeof *s);
    if (!s)
        return fail(NULL, err, 3, "%s", "out of memory");
    settle_allocator();
    s->opened_at = pmf_seconds();
    s->radius = desc->radius > 0 ? desc->radius : 8;
    s->moving_camera = desc->moving_camera;
    s->first_complete = -1;
    s->level = desc->level;
    s->file = pmf_open(desc->path, &perr);
    if (!s->file)
        return fail(s, err, 2, "%s", pmf_error_format(&perr, line, sizeof line));
    if (desc->level >= s->file->level_count) {
        snprintf(line, sizeof line, "%s: level %u does not exist (the file has %u)", desc->path, desc->level,
                 s->file->level_count);
        return fail(s, err, 2, "%s", line);
    }
    if (!pmf_level_read(s->file, desc->level, PMF_PART_COMMON | PMF_PART_CLIENT, &s->lvl, &perr))
        return fail(s, err, 2, "%s", pmf_error_format(&perr, line, sizeof line));
    if (!(s->cameras = calloc(1, sizeof *s->cameras)))
        return fail(s, err, 3, "%s", "out of memory");
    if (!pmf_cameras_read(s->file, s->cameras, &perr))
        return fail(s, err, 2, "%s", pmf_error_format(&perr, line, sizeof line));
    if (!pmf_lights_read(s->file, &s->lights, &perr) || !pmf_source_read(s->file, &s->map_info.source, &perr)
        || !pmf_entities_read(s->file, &s->map_info.entities, &perr) || !pmf_leak_read(s->file, &s->map_info.leak, &perr))
        return fail(s, err, 2, "%s", pmf_error_format(&perr, line, sizeof line));
    s->res = res_create(&(res_desc){ .game_dir = desc->game_dir, .map = s->file });
    s->atlas = mesh_atlas_create(&(mesh_atlas_desc){ .max_pages = atlas_pages_for_budget() });
    if (!s->res || !s->atlas)
        return fail(s, err, 3, "%s", "out of memory");
    s->world = render_world_create(&(render_world_desc){ .lvl = &s->lvl, .atlas = s->atlas, .res = s->res },
                                   line, sizeof line);
    if (!s->world)
        return fail(s, err, 3, "%s", line);
    s->stream = stream_create(&(stream_desc){
        .file = s->file, .level = desc->level, .lvl = &s->lvl, .workers = desc->workers,
        .radius = desc->radius, .hysteresis = EVICTION_HYSTERESIS, .prepare = prepare_chunk,
        .release = release_chunk, .user = s,
    });
    if (!s->stream)
        return fail(s, err, 3, "%s", "cannot start the streaming threads");

    for (int i = 0; i < s->lvl.common.weather_env_count; i++) {
        const pmf_weather_env *we = &s->lvl.common.weather_envs[i];
        if (!strcmp(we->name, s->lvl.common.default_weather_env))
            memcpy(s->wind, we->wind, sizeof s->wind);
    }
    scene_default_camera(s, &s->cam);
    s->view_dirty = true;
    s->settings.exposure = 1.0f;
    return s;
}

void scene_close(scene *s)
{
    if (!s)
        return;
    /* Workers first: they mesh into the atlas and the level. */
    stream_destroy(s->stream);
    for (size_t i = 0; i < s->chunk_count; i++) {
        if (s->world)
            render_world_remove(s->world, s->chunks[i]->handle);
        free_scene_chunk(s->chunks[i]);
    }
    for (size_t i = 0; i < s->deferred_count; i++)
        free_scene_chunk(s->deferred[i]);
    if (s->skybox_chunk) {
        if (s->world)
            render_world_remove(s->world, s->skybox_chunk->handle);
        free_scene_chunk(s->skybox_chunk);
    }
    render_world_destroy(s->world);
    mesh_vis_set_free(&s->vis);
    mesh_atlas_destroy(s->atlas);
    res_destroy(s->res);
    if (s->lvl.arena_)
        pmf_level_free(&s->lvl);
    pmf_close(s->file);
    if (s->cameras)
        pmf_cameras_free(s->cameras);
    free(s->cameras);
    pmf_lights_free(&s->lights);
    pmf_source_free(&s->map_info.source);
    pmf_entities_free(&s->map_info.entities);
    pmf_leak_free(&s->map_info.leak);
    light_direct_free(&s->static_terms);
    free((void *)s->static_terms.lights);
    free(s->filter_refs);
    free(s->chunks);
    free(s->deferred);
    free(s->scratch_bits);
    free(s->draws);
    free(s);
}

void scene_default_camera(const scene *s, camera *out)
{
    camera_init(out, &(camera_desc){ .chunk_size_exp = s->lvl.chunk_size_exp, .center = s->lvl.center });
    const pmf_camera *start = s->cameras ? pmf_cameras_first(s->cameras, s->level) : NULL;
    if (start)
        camera_set_world(out, (const double[3]){ start->pos[0], start->pos[1], start->pos[2] }, start->yaw, start->pitch);
    else
        camera_set_world(out, (const double[3]){ 0, 0, 0 }, 0, 0);
}

const pmf_cameras *scene_start_cameras(const scene *s)
{
    return s->cameras;
}

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
static bool apply_light_filter(scene *s)
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
    return apply_light_filter(s) && (copy || !refs || !count);
}

size_t scene_chunk_count(const scene *s)
{
    return s->chunk_count;
}

const mesh_chunk *scene_chunk_mesh(const scene *s, size_t i)
{
    return &s->chunks[i]->mc;
}

/* ---- camera geometry ------------------------------------------------------------------------- */

static void perspective(const camera *cam, float out[16])
{
    mat4 m;
    glm_perspective(glm_rad(cam->fov_y), cam->aspect > 0 ? cam->aspect : 16.0f / 9.0f, NEAR_PLANE, 1.0f, m);
    /* Infinite far plane (the limit of far -> infinity): depth 1 is reached only at infinity,
     * where the sky is drawn. */
    m[2][2] = -1.0f;
    m[3][2] = -2.0f * NEAR_PLANE;
    memcpy(out, m, sizeof m);
}

const pmf_level *scene_level(const scene *s)
{
    return &s->lvl;
}

uint32_t scene_level_index(const scene *s)
{
    return s->level;
}

const camera *scene_camera(const scene *s)
{
    return &s->cam;
}

void scene_view_proj(const scene *s, float out[16])
{
    float view[16], proj[16];
    camera_view_matrix(&s->cam, 0, view);
    perspective(&s->cam, proj);
    render_mat4_mul(proj, view, out);
}

/* Left, right, bottom, top, near, far planes of view_proj; inside: a x + b y + c z + d >= 0.
 * The far plane is at infinity: cglm makes it all zeros, which keeps everything. */
static void frustum_planes(const float m[16], float planes[6][4])
{
    mat4 vp;
    memcpy(vp, m, sizeof vp);
    glm_frustum_planes(vp, (vec4 *)planes);
}

/* Plane moved from the camera chunk's frame to a frame whose origin is at `origin` in it. */
static void shift_planes(const float in[6][4], const double origin[3], float out[6][4])
{
    for (int p = 0; p < 6; p++) {
        memcpy(out[p], in[p], sizeof out[p]);
        out[p][3] = (float)(in[p][3] + in[p][0] * origin[0] + in[p][1] * origin[1] + in[p][2] * origin[2]);
    }
}

static bool box_outside(const float planes[6][4], const float mn[3], const float mx[3])
{
    vec3 box[2] = { { mn[0], mn[1], mn[2] }, { mx[0], mx[1], mx[2] } };
    return !glm_aabb_frustum(box, (vec4 *)planes); /* cglm only reads the planes */
}

static scene_chunk *find_chunk(const scene *s, const int32_t c[3])
{
    for (size_t i = 0; i < s->chunk_count; i++) {
        const pmf_chunk_coord *k = &s->chunks[i]->mc.coord;
        if ((int32_t)k->x == c[0] && (int32_t)k->y == c[1] && (int32_t)k->z == c[2])
            return s->chunks[i];
    }
    return NULL;
}

static void chunk_coord_i32(const pmf_chunk_coord *c, int32_t out[3])
{
    out[0] = (int32_t)c->x;
    out[1] = (int32_t)c->y;
    out[2] = (int32_t)c->z;
}

/* ---- visibility --------------------------------------------------------------------------------- */

static void mark_chunk(scene *s, scene_chunk *sc)
{
    sc->vis_shown = mesh_vis_set_mark(&s->vis, &sc->mc, sc->vis_bits);
}

/* Rebuilds the visible set when the camera changed cube (or its chunk arrived). */
static void update_visibility(scene *s, bool chunk_arrived)
{
    if (s->settings.vis == SCENE_VIS_FROZEN && s->vis_valid)
        return;
    scene_chunk *cc = find_chunk(s, s->cam.chunk);
    float local[3] = { (float)s->cam.local[0], (float)s->cam.local[1], (float)s->cam.local[2] };
    uint32_t cube = cc ? mesh_vis_locate(&cc->mc, local) : MESH_NONE;
    if (s->vis_valid && !chunk_arrived && cube == s->vis_cube && !memcmp(s->vis_chunk, s->cam.chunk, sizeof s->vis_chunk))
        return;
    mesh_vis_set_free(&s->vis);
    memset(&s->vis, 0, sizeof s->vis);
    if (!mesh_vis_set_build(cc ? &cc->mc : NULL, local, &s->vis)) {
        s->vis_valid = false;
        return;
    }
    s->vis_valid = true;
    s->vis_cube = cube;
    memcpy(s->vis_chunk, s->cam.chunk, sizeof s->vis_chunk);
    for (size_t i = 0; i < s->chunk_count; i++)
        mark_chunk(s, s->chunks[i]);
}

/* ---- update --------------------------------------------------------------------------------- */

/* The streamer's camera chunk must lie in the grid: clamp it, and express the camera and the
 * frustum relative to that chunk. */
static void set_stream_view(scene *s)
{
    const camera *cam = &s->cam;
    int32_t limit[3] = { (int32_t)s->lvl.count_x - 1, (int32_t)s->lvl.count_y - 1, (int32_t)s->lvl.count_z - 1 };
    int32_t anchor[3];
    double origin[3];
    float local[3];
    for (int i = 0; i < 3; i++) {
        anchor[i] = cam->chunk[i] < 0 ? 0 : cam->chunk[i] > limit[i] ? limit[i] : cam->chunk[i];
        origin[i] = (double)(anchor[i] - cam->chunk[i]) * cam->chunk_size;
        local[i] = (float)(cam->local[i] - origin[i]);
    }
    float view[16], proj[16], vp[16], planes[6][4], shifted[6][4];
    camera_view_matrix(cam, 0, view);
    perspective(cam, proj);
    render_mat4_mul(proj, view, vp);
    frustum_planes(vp, planes);
    shift_planes(planes, origin, shifted);
    pmf_chunk_coord ac = { (uint32_t)anchor[0], (uint32_t)anchor[1], (uint32_t)anchor[2] };
    stream_set_view(s->stream, ac, local, (const float(*)[4])shifted);
}

static bool reserve_chunks(scene_chunk ***list, size_t *cap, size_t need)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap * 2 : 64;
    scene_chunk **grown = realloc(*list, n * sizeof *grown);
    if (!grown)
        return false;
    *list = grown;
    *cap = n;
    return true;
}

static void add_chunk(scene *s, scene_chunk *sc)
{
    pmf_budget_clear_refused();
    sc->handle = render_world_add(s->world, &sc->mc);
    if (sc->handle < 0 && pmf_budget_refused()) {
        /* its GPU buffers do not fit: not drawn, like a chunk the decoder could not fit */
        if (!s->budget_dropped++)
            snprintf(s->budget_warning, sizeof s->budget_warning,
                     "%s: chunk (%u,%u,%u): its GPU buffers need more than the memory budget leaves (%llu of %llu MiB in use; "
                     "see --memory): not drawn, nor any chunk that does not fit in what is left",
                     s->file->name, sc->mc.coord.x, sc->mc.coord.y, sc->mc.coord.z,
                     (unsigned long long)(pmf_budget_used() >> 20), (unsigned long long)(pmf_budget_limit() >> 20));
        render_world_remove(s->world, sc->handle);
        free_scene_chunk(sc);
        return;
    }
    if (sc->handle < 0 || !reserve_chunks(&s->chunks, &s->chunk_cap, s->chunk_count + 1)) {
        scene_failure_entry *f = add_failure(s, sc->mc.coord, true);
        if (f)
            snprintf(f->message, sizeof f->message, "out of memory uploading chunk (%u,%u,%u)",
                     sc->mc.coord.x, sc->mc.coord.y, sc->mc.coord.z);
        render_world_remove(s->world, sc->handle);
        free_scene_chunk(sc);
        return;
    }
    s->chunks[s->chunk_count++] = sc;
    if (s->vis_valid)
        mark_chunk(s, sc);
    int32_t c[3];
    chunk_coord_i32(&sc->mc.coord, c);
    if (!memcmp(c, s->cam.chunk, sizeof c))
        update_visibility(s, true);
}

static void drop_chunk(scene *s, pmf_chunk_coord coord)
{
    for (size_t i = 0; i < s->deferred_count; i++) {
        scene_chunk *sc = s->deferred[i];
        if (sc->mc.coord.x == coord.x && sc->mc.coord.y == coord.y && sc->mc.coord.z == coord.z) {
            free_scene_chunk(sc);
            s->deferred[i] = s->deferred[--s->deferred_count];
            return;
        }
    }
    for (size_t i = 0; i < s->chunk_count; i++) {
        scene_chunk *sc = s->chunks[i];
        if (sc->mc.coord.x == coord.x && sc->mc.coord.y == coord.y && sc->mc.coord.z == coord.z) {
            render_world_remove(s->world, sc->handle);
            free_scene_chunk(sc);
            s->chunks[i] = s->chunks[--s->chunk_count];
            return;
        }
    }
}

/* The camera's frustum planes in its chunk's frame. */
static void view_planes(const scene *s, float planes[6][4])
{
    float view[16], proj[16], vp[16];
    camera_view_matrix(&s->cam, 0, view);
    perspective(&s->cam, proj);
    render_mat4_mul(proj, view, vp);
    frustum_planes(vp, planes);
}

/* Whether chunk c's whole cube meets the frustum. */
static bool chunk_in_view(const scene *s, const float planes[6][4], pmf_chunk_coord coord)
{
    int32_t c[3];
    double off[3];
    chunk_coord_i32(&coord, c);
    camera_chunk_offset(&s->cam, c, off);
    float half = (float)(s->cam.chunk_size * 0.5), mn[3], mx[3];
    for (int k = 0; k < 3; k++) {
        mn[k] = (float)off[k] - half;
        mx[k] = (float)off[k] + half;
    }
    return !box_outside(planes, mn, mx);
}

/* Decompressed common + client bytes of the present chunks that can be resident at once (within
 * radius + hysteresis of the camera's chunk): those around the camera, scaled to the most grid
 * positions that distance holds in this level (the start may be by the level's edge). */
static double resident_bytes(const scene *s)
{
    const pmf_level_info *li = &s->file->levels[s->level];
    uint32_t count[3] = { li->count_x, li->count_y, li->count_z }, lo[3], hi[3];
    uint32_t keep = (uint32_t)s->radius + EVICTION_HYSTERESIS;
    double scale = 1.0;
    for (int k = 0; k < 3; k++) {
        int32_t c = s->cam.chunk[k];
        uint32_t anchor = c < 0 ? 0 : (uint32_t)c >= count[k] ? count[k] - 1 : (uint32_t)c;
        lo[k] = anchor > keep ? anchor - keep : 0;
        hi[k] = count[k] - 1 - anchor > keep ? anchor + keep : count[k] - 1;
        uint32_t side = 2 * keep + 1 < count[k] ? 2 * keep + 1 : count[k];
        scale *= (double)side / (hi[k] - lo[k] + 1);
    }
    uint64_t bytes = 0;
    for (uint32_t y = lo[1]; y <= hi[1]; y++)
        for (uint32_t x = lo[0]; x <= hi[0]; x++)
            for (uint32_t z = lo[2]; z <= hi[2]; z++) {
                const pmf_chunk_loc *loc = &li->chunks[pmf_grid_index(li, x, y, z)];
                bytes += (uint64_t)loc->decompressed[0] + loc->decompressed[1];
            }
    return (double)bytes * scale;
}

/* n x k, held below 2^62 (a chunk index of a broken file can give any sizes; what is reserved is
 * bounded by the memory budget anyway) */
static uint64_t scaled(uint64_t n, double k)
{
    double v = (double)n * k;
    return v < 0x1p62 ? (uint64_t)v : (uint64_t)1 << 62;
}

static render_world_reserve_desc scaled_needs(const render_world_reserve_desc *n, double k)
{
    return (render_world_reserve_desc){
        .vertices = scaled(n->vertices, k), .indices16 = scaled(n->indices16, k),
        .indices32 = scaled(n->indices32, k), .fast_vertices = scaled(n->fast_vertices, k),
        .fast_lights = scaled(n->fast_lights, k), .lightmap_texels = scaled(n->lightmap_texels, k),
    };
}

/* An eighth more than expected: the slack before the reservation is raised (and copied) again. */
static bool raise_need(uint64_t *reserved, uint64_t expected)
{
    if (expected <= *reserved)
        return false;
    *reserved = expected + expected / 8;
    return true;
}

/* Until the first complete view, the chunk buffers and the lit atlas are sized ahead for every
 * chunk that can be resident, from what the chunks in so far take per decompressed byte (once
 * they carry a sixteenth of the bytes, or the view is complete: one chunk is a poor sample) and
 * the bytes the file's chunk index gives: sized while they hold little, so growing them copies
 * little. In flight, a chunk that does not fit grows and copies a buffer of tens of MiB (and the
 * atlas) in one frame. */
static void reserve_ahead(scene *s, const mesh_chunk *mc)
{
    const pmf_level_info *li = &s->file->levels[s->level];
    const pmf_chunk_loc *loc = &li->chunks[pmf_grid_index(li, mc->coord.x, mc->coord.y, mc->coord.z)];
    render_world_chunk_needs(mc, &s->uploaded_needs);
    s->uploaded_bytes += (uint64_t)loc->decompressed[0] + loc->decompressed[1];
    if (!s->resident_bytes)
        s->resident_bytes = resident_bytes(s);
    if (!s->uploaded_bytes || (s->uploaded_bytes < s->resident_bytes / 16 && !scene_view_complete(s)))
        return;
    render_world_reserve_desc e = scaled_needs(&s->uploaded_needs, s->resident_bytes / (double)s->uploaded_bytes);
    render_world_reserve_desc *r = &s->reserved;
    bool more = raise_need(&r->vertices, e.vertices);
    more |= raise_need(&r->indices16, e.indices16);
    more |= raise_need(&r->indices32, e.indices32);
    more |= raise_need(&r->fast_vertices, e.fast_vertices);
    more |= raise_need(&r->fast_lights, e.fast_lights);
    more |= raise_need(&r->lightmap_texels, e.lightmap_texels);
    if (!more)
        return;
    render_world_reserve(s->world, r);
    render_world_commit(s->world); /* the chunks in so far into the atlas, off the first frame */
}

static void upload_chunk(scene *s, scene_chunk *sc)
{
    if (sc->mc.lightmaps_lowered && (!s->lowered_exp || sc->mc.lightmap_exp_cap + 1u < s->lowered_exp)) {
        s->lowered_exp = sc->mc.lightmap_exp_cap + 1u;
        snprintf(s->lowered_warning, sizeof s->lowered_warning,
                 "%s: lightmaps lowered to at most %u x %u luxels: the lightmap atlas is full at %u page%s of %u "
                 "(half the memory budget of %llu MiB; see --memory)", s->file->name, 1u << sc->mc.lightmap_exp_cap,
                 1u << sc->mc.lightmap_exp_cap, mesh_atlas_max_pages(s->atlas),
                 mesh_atlas_max_pages(s->atlas) == 1 ? "" : "s", mesh_atlas_page_size(s->atlas),
                 (unsigned long long)(pmf_budget_limit() >> 20));
    }
    double t0 = pmf_seconds();
    if (s->moving_camera && !s->first_view_done)
        reserve_ahead(s, &sc->mc);
    add_chunk(s, sc);
    s->upload_seconds += pmf_seconds() - t0;
}

/* Takes delivered chunks within budget_ms: those in view are uploaded at once, the others
 * deferred; then, unless view_only, deferred ones while the budget lasts. */
static void update(scene *s, double budget_ms, bool view_only)
{
    double start = pmf_seconds();
    /* Re-prioritising rebuilds the streamer's work queue: only when the view changed. */
    if (s->view_dirty) {
        set_stream_view(s);
        s->view_dirty = false;
    }
    pmf_chunk_coord gone[64];
    size_t n;
    while ((n = stream_poll_evictions(s->stream, gone, 64)) > 0) {
        for (size_t i = 0; i < n; i++)
            drop_chunk(s, gone[i]);
        s->evicted_since_trim += (uint32_t)n;
    }
    /* Chunks come and go on several threads: what they free stays in the allocator's per-thread
     * arenas (RSS that only grows, docs/memory.md) unless handed back now and then. */
    if (s->evicted_since_trim >= TRIM_AFTER_EVICTIONS && start - s->trimmed_at >= TRIM_INTERVAL_SECONDS) {
        malloc_trim(0);
        s->trimmed_at = start;
        s->evicted_since_trim = 0;
    }
    float planes[6][4];
    view_planes(s, planes);
    bool more = true, uploaded = false;
    while (more && (pmf_seconds() - start) * 1000.0 < budget_ms) {
        stream_item item;
        if (!stream_poll(s->stream, &item, 1)) {
            more = false;
        } else if (item.failed && item.over_budget) {
            /* not broken, only too much for now: drawn without it, said once */
            if (!s->budget_dropped++)
                snprintf(s->budget_warning, sizeof s->budget_warning,
                         "%s: not drawn, nor any chunk that does not fit in what is left", item.error);
        } else if (item.failed) {
            scene_failure_entry *f = add_failure(s, item.coord, false);
            if (f)
                snprintf(f->message, sizeof f->message, "%s", item.error);
        } else if (chunk_in_view(s, (const float(*)[4])planes, item.coord)) {
            upload_chunk(s, item.payload);
            uploaded = true;
        } else if (s->deferred_count < s->deferred_cap
                   || reserve_chunks(&s->deferred, &s->deferred_cap, s->deferred_count + 1)) {
            s->deferred[s->deferred_count++] = item.payload;
        } else {
            upload_chunk(s, item.payload);
            uploaded = true;
        }
    }
    /* At least one upload per call, so the window fills in even with a tiny budget; chunks the
     * camera has turned to since first. */
    while (!view_only && s->deferred_count && (!uploaded || (pmf_seconds() - start) * 1000.0 < budget_ms)) {
        size_t pick = s->deferred_count - 1;
        for (size_t i = 0; i < s->deferred_count; i++) {
            if (chunk_in_view(s, (const float(*)[4])planes, s->deferred[i]->mc.coord)) {
                pick = i;
                break;
            }
        }
        scene_chunk *sc = s->deferred[pick];
        s->deferred[pick] = s->deferred[--s->deferred_count];
        upload_chunk(s, sc);
        uploaded = true;
    }
    s->first_view_done |= s->chunk_count && scene_view_complete(s);
    /* static solo / mute: new geometry may cast shadows on what is already there. Every chunk is
     * recomposited, so while chunks stream in, at most twice a second and when the view is
     * complete. */
    s->filter_stale |= uploaded && s->static_terms.count;
    if (s->filter_stale && (pmf_seconds() - s->filter_applied_at >= FILTER_INTERVAL_SECONDS || scene_view_complete(s)))
        apply_light_filter(s);
    update_visibility(s, false);
}

/* The sky environment: the camera chunk's sky region holding the camera, else the default. */
static int current_sky_env(const scene *s)
{
    const scene_chunk *cc = find_chunk(s, s->cam.chunk);
    if (cc) {
        float p[3] = { (float)s->cam.local[0], (float)s->cam.local[1], (float)s->cam.local[2] };
        for (uint32_t i = 0; i < cc->sky_region_count; i++) {
            const sky_region *r = &cc->sky_regions[i];
            bool inside = r->env >= 0;
            for (int k = 0; k < 6 && inside; k++)
                inside = r->planes[k][0] * p[0] + r->planes[k][1] * p[1] + r->planes[k][2] * p[2] + r->planes[k][3] >= 0;
            if (inside)
                return r->env;
        }
    }
    return sky_env_index(&s->lvl, s->lvl.client.default_sky_env);
}

/* The frame settings that choose shader variants and driver states. */
static render_frame settings_frame(const scene *s)
{
    return (render_frame){ .mode = (int)s->settings.mode, .wireframe = s->settings.wireframe,
                           .luxel_grid = s->settings.luxel_grid, .fog = s->settings.fog };
}

/* The sky a frame draws now (NULL: none), its materials in *rs. */
static const pmf_sky_env *frame_sky(const scene *s, render_sky *rs)
{
    int env = current_sky_env(s);
    const pmf_sky_env *sky = env >= 0 && !s->settings.no_sky ? &s->lvl.client.sky_envs[env] : NULL;
    if (sky) {
        for (int i = 0; i < 6; i++)
            rs->skybox[i] = material_index(&s->lvl, sky->skybox[i]);
        rs->cloud_top = material_index(&s->lvl, sky->cloud_top);
        rs->cloud_bottom = material_index(&s->lvl, sky->cloud_bottom);
    }
    return sky;
}

/* The driver's code for the states the loaded materials and the sky draw with, made ahead of the
 * frame that first draws them (render_world_prime). True while some are left. */
static bool prime_states(scene *s, double budget_ms)
{
    render_frame f = settings_frame(s);
    render_sky rs;
    return render_world_prime(s->world, &f, frame_sky(s, &rs) ? &rs : NULL, budget_ms);
}

/* The world shader variants the current settings need, built while the workers decode, then the
 * driver's states primed (true while some are left). */
static bool prepare_variants(scene *s, double budget_ms)
{
    render_frame f = settings_frame(s);
    return render_world_prepare_variants(s->world, &f, budget_ms) || prime_states(s, budget_ms);
}

double scene_upload_budget_ms(double last_frame_ms)
{
    double budget = 0.25 * last_frame_ms;
    return budget < SCENE_UPLOAD_BUDGET_MIN_MS ? SCENE_UPLOAD_BUDGET_MIN_MS
         : budget > SCENE_UPLOAD_BUDGET_MAX_MS ? SCENE_UPLOAD_BUDGET_MAX_MS : budget;
}

void scene_update(scene *s, double budget_ms)
{
    update(s, budget_ms, false);
    prepare_variants(s, 1.0);
}

bool scene_view_complete(const scene *s)
{
    return stream_view_complete(s->stream);
}

bool scene_wait_view(scene *s, double timeout_s)
{
    double start = pmf_seconds();
    for (;;) {
        update(s, 50.0, true);
        if (scene_view_complete(s)) {
            /* Take what finished (or failed) between the poll and the check, and make ready
             * for what the first frame draws. */
            update(s, 50.0, true);
            prime_states(s, HUGE_VAL);
            return true;
        }
        if (pmf_seconds() - start > timeout_s)
            return false;
        /* Nothing delivered yet: the workers are busy; build shaders meanwhile, or look again soon. */
        if (!prepare_variants(s, 1.0))
            nanosleep(&(struct timespec){ 0, 200000 }, NULL);
    }
}

/* ---- draw ---------------------------------------------------------------------------------------- */

/* The 3D skybox chunk is outside the streamed set: read and mesh it here, once. */
static scene_chunk *skybox_chunk(scene *s, pmf_chunk_coord c)
{
    bool same = !memcmp(&s->skybox_coord, &c, sizeof c);
    if (same && (s->skybox_chunk || s->skybox_failed))
        return s->skybox_chunk;
    if (s->skybox_chunk) {
        render_world_remove(s->world, s->skybox_chunk->handle);
        free_scene_chunk(s->skybox_chunk);
        s->skybox_chunk = NULL;
    }
    s->skybox_coord = c;
    /* Tried once per chunk: a missing or broken one stays absent (skybox and clouds still draw). */
    s->skybox_failed = true;
    if (!pmf_chunk_present(s->file, s->level, c))
        return NULL;
    pmf_chunk chunk;
    pmf_error perr;
    char msg[512];
    if (!pmf_chunk_read(s->file, &s->lvl, s->level, c, PMF_PART_COMMON | PMF_PART_CLIENT, &chunk, &perr)) {
        scene_failure_entry *f = add_failure(s, c, true);
        if (f)
            pmf_error_format(&perr, f->message, sizeof f->message);
        return NULL;
    }
    scene_chunk *sc = build_scene_chunk(s, &chunk, msg, sizeof msg);
    pmf_chunk_free(&chunk);
    if (!sc) {
        scene_failure_entry *f = add_failure(s, c, true);
        if (f) {
            char raw[sizeof f->message];
            snprintf(raw, sizeof raw, "%.200s: %.300s", s->file->name, msg);
            text_clean(raw, f->message, sizeof f->message);
        }
        return NULL;
    }
    sc->handle = render_world_add(s->world, &sc->mc);
    if (sc->handle < 0) {
        free_scene_chunk(sc);
        return NULL;
    }
    s->skybox_chunk = sc;
    s->skybox_failed = false;
    return sc;
}

/* Projection of a sub-rectangle of the frame: scale and shift clip space so the tile fills NDC. */
static void tile_projection(const scene_viewport *vp, const float full[16], float out[16])
{
    float sx = (float)vp->width / vp->tile_w, sy = (float)vp->height / vp->tile_h;
    float cx = (2.0f * vp->tile_x + vp->tile_w) / vp->width - 1.0f;
    float cy = (2.0f * vp->tile_y + vp->tile_h) / vp->height - 1.0f;
    float m[16] = { sx, 0, 0, 0, 0, sy, 0, 0, 0, 0, 1, 0, -cx * sx, -cy * sy, 0, 1 };
    render_mat4_mul(m, full, out);
}

static bool ensure_scratch(scene *s, size_t words)
{
    if (words <= s->scratch_words)
        return true;
    uint64_t *p = realloc(s->scratch_bits, words * sizeof *p);
    if (!p)
        return false;
    s->scratch_bits = p;
    s->scratch_words = words;
    return true;
}

void scene_draw(scene *s, const scene_viewport *vp)
{
    const camera *cam = &s->cam;
    scene_viewport full = *vp;
    if (full.tile_w <= 0 || full.tile_h <= 0) {
        full.tile_x = full.tile_y = 0;
        full.tile_w = full.width;
        full.tile_h = full.height;
    }
    render_frame f = { .mode = (int)s->settings.mode, .exposure = s->settings.exposure, .time = s->settings.time,
                       .look = scene_look_drawn(s),
                       .wireframe = s->settings.wireframe, .luxel_grid = s->settings.luxel_grid, .fog = s->settings.fog,
                       .eye = { (float)cam->local[0], (float)cam->local[1], (float)cam->local[2] } };
    memcpy(f.wind, s->wind, sizeof f.wind);
    float proj[16], vp_full[16], planes[6][4];
    camera_view_matrix(cam, 0, f.view);
    perspective(cam, proj);
    render_mat4_mul(proj, f.view, vp_full);
    frustum_planes(vp_full, planes);
    /* A tile of a frame that fits the GL viewport limits is the whole frame's viewport shifted:
     * every pixel then rasterises exactly as untiled. Bigger frames scale the projection. */
    const render_caps *caps = render_get_caps();
    if (full.width <= caps->max_viewport[0] && full.height <= caps->max_viewport[1]) {
        memcpy(f.proj, proj, sizeof proj);
        render_world_begin(s->world, -full.tile_x, -full.tile_y, full.width, full.height);
    } else {
        tile_projection(&full, proj, f.proj);
        render_world_begin(s->world, 0, 0, full.tile_w, full.tile_h);
    }

    render_frame_stats stats = { 0 };
    render_sky rs;
    const pmf_sky_env *sky = frame_sky(s, &rs);
    /* fog: from half the streaming radius to all of it, where the drawn world ends */
    if (f.fog) {
        f.fog_end = (float)(s->radius * cam->chunk_size);
        f.fog_start = 0.5f * f.fog_end;
        render_world_fog_color(s->world, sky ? &rs : NULL, f.fog_color);
    }
    /* With a 3D skybox the sky goes first (the skybox chunk draws over it, then the depth is
     * cleared); else after the opaque world, at the far plane, only where the world left room. */
    bool sky_first = sky && (sky->flags & PMF_SKY_3D_SKYBOX);
    scene_chunk *sb = sky_first ? skybox_chunk(s, sky->skybox_chunk) : NULL;
    render_world_commit(s->world); /* the chunks uploaded since the last frame, the skybox's too */
    if (sky_first) {
        render_world_draw_sky(s->world, &rs, &f, &stats);
        if (sb) {
            render_draw_chunk dc = { .handle = sb->handle };
            render_frame sf = f;
            camera_view_matrix(cam, 1, sf.view);
            memset(sf.eye, 0, sizeof sf.eye);
            sf.wireframe = false;
            sf.fog = false;
            sf.chunks = &dc;
            sf.chunk_count = 1;
            render_world_draw(s->world, &sf, &stats);
            render_world_clear_depth(s->world);
        }
    }

    /* Chunks in view: chunk AABB, then visible set, then per-cube frustum culling. */
    if (s->draw_cap < s->chunk_count) {
        render_draw_chunk *d = realloc(s->draws, s->chunk_count * sizeof *d);
        if (!d)
            return;
        s->draws = d;
        s->draw_cap = s->chunk_count;
    }
    size_t words_total = 0;
    for (size_t i = 0; i < s->chunk_count; i++)
        words_total += mesh_cube_words(&s->chunks[i]->mc);
    if (!ensure_scratch(s, words_total + 1))
        return;
    bool use_vis = s->settings.vis != SCENE_VIS_OFF && s->vis_valid;
    /* Chunks kept past the radius (eviction hysteresis) are not drawn: the view reaches as far
     * wherever the camera came from. The streamer measures from the camera's chunk clamped to
     * the grid. */
    int32_t limit[3] = { (int32_t)s->lvl.count_x - 1, (int32_t)s->lvl.count_y - 1, (int32_t)s->lvl.count_z - 1 };
    int32_t anchor[3];
    for (int k = 0; k < 3; k++)
        anchor[k] = cam->chunk[k] < 0 ? 0 : cam->chunk[k] > limit[k] ? limit[k] : cam->chunk[k];
    size_t count = 0, word = 0;
    for (size_t i = 0; i < s->chunk_count; i++) {
        scene_chunk *sc = s->chunks[i];
        const mesh_chunk *mc = &sc->mc;
        if (mc->min[0] > mc->max[0] || (use_vis && !sc->vis_shown))
            continue;
        int32_t c[3];
        chunk_coord_i32(&mc->coord, c);
        if (abs(c[0] - anchor[0]) > s->radius || abs(c[1] - anchor[1]) > s->radius || abs(c[2] - anchor[2]) > s->radius)
            continue;
        double off[3];
        camera_chunk_offset(cam, c, off);
        float mn[3], mx[3];
        for (int k = 0; k < 3; k++) {
            mn[k] = (float)(mc->min[k] + off[k]);
            mx[k] = (float)(mc->max[k] + off[k]);
        }
        if (box_outside((const float(*)[4])planes, mn, mx))
            continue;
        uint32_t words = mesh_cube_words(mc);
        uint64_t *bits = &s->scratch_bits[word];
        if (use_vis)
            memcpy(bits, sc->vis_bits, words * sizeof *bits);
        else
            memset(bits, 0xFF, words * sizeof *bits);
        float local_planes[6][4];
        shift_planes((const float(*)[4])planes, off, local_planes);
        if (!mesh_cull_frustum(mc, (const float(*)[4])local_planes, bits))
            continue;
        word += words;
        render_draw_chunk *dc = &s->draws[count++];
        dc->handle = sc->handle;
        dc->cubes = bits;
        dc->span_culled = !use_vis;
        for (int k = 0; k < 3; k++)
            dc->offset[k] = (float)off[k];
    }
    f.chunks = s->draws;
    f.chunk_count = count;
    render_frame_stats world = { 0 };
    render_world_draw_opaque(s->world, &f, &world);
    if (sky && !sky_first)
        render_world_draw_sky(s->world, &rs, &f, &stats);
    render_world_draw_blended(s->world, &f, &world);
    s->last_world = world;
    stats.triangles += world.triangles;
    stats.draw_calls += world.draw_calls;
    s->last_frame = stats;
    s->visible_chunks = (uint32_t)count;
    if (s->first_complete < 0 && scene_view_complete(s))
        s->first_complete = pmf_seconds() - s->opened_at;
    /* PMFVIEW_GL_VERIFY=1: what this frame used is read back; a difference is a GL bug nothing
     * here can recover from */
    char verify_err[400];
    if (!render_world_verify(s->world, verify_err, sizeof verify_err)) {
        fprintf(stderr, "pmfview: %s\n", verify_err);
        exit(3);
    }
}

void scene_get_stats(const scene *s, scene_stats *out)
{
    stream_stats st;
    stream_get_stats(s->stream, &st);
    memset(out, 0, sizeof *out);
    out->chunks_present = s->file->levels[s->level].present_chunks;
    out->chunks_loaded = (uint32_t)s->chunk_count;
    out->chunks_streaming = st.queued + st.in_flight + st.ready + (uint32_t)s->deferred_count;
    out->chunks_failed = st.failed;
    out->triangles = s->last_frame.triangles;
    out->draw_calls = s->last_frame.draw_calls;
    out->world_draw_calls = s->last_world.draw_calls;
    out->visible_materials = s->last_world.materials;
    out->shader_variants = s->last_world.variants;
    out->blend_splits = s->last_world.blend_splits;
    out->state_splits = s->last_world.state_splits;
    out->visible_chunks = s->visible_chunks;
    out->first_complete_seconds = s->first_complete;
    out->decode_seconds = st.decode_seconds;
    out->mesh_seconds = st.prepare_seconds;
    out->upload_seconds = s->upload_seconds;
    out->gpu_bytes = render_world_gpu_bytes(s->world);
    render_world_chunk_bytes(s->world, &out->chunk_vertices, &out->chunk_buffer_bytes);
    out->buffer_copies = render_world_copies(s->world);
    out->multi_draw_indirect = render_get_caps()->multi_draw_indirect;
    out->gl_verify = render_world_verifying(s->world, &out->gl_verified);
}

size_t scene_budget_warnings(const scene *s, const char *out[2])
{
    size_t n = 0;
    if (s->budget_dropped)
        out[n++] = s->budget_warning;
    if (s->lowered_exp)
        out[n++] = s->lowered_warning;
    return n;
}

const char *scene_failure(const scene *s)
{
    float planes[6][4];
    view_planes(s, planes);
    for (uint32_t i = 0; i < s->failure_count; i++) {
        const scene_failure_entry *f = &s->failures[i];
        if (f->anywhere || chunk_in_view(s, (const float(*)[4])planes, f->coord))
            return f->message;
    }
    return NULL;
}
