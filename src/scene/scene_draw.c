/* scene_draw.c - the sky, the 3D skybox, the driver's states primed, and the frame: culling and drawing (scene.h). */
#include "scene_internal.h"
#include "base/grow.h"

static int current_sky_env(const scene *s)
{
    const scene_chunk *cc = scene_find_chunk(s, s->cam.chunk);
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
    return scene_sky_env_index(&s->lvl, s->lvl.client.default_sky_env);
}

/* The frame settings that choose shader variants and driver states. */
render_frame scene_settings_frame(const scene *s)
{
    return (render_frame){ .mode = s->settings.mode, .wireframe = s->settings.wireframe,
                           .luxel_grid = s->settings.luxel_grid, .fog = s->settings.fog };
}

/* The sky a frame draws now (NULL: none), its materials in *rs. */
const pmf_sky_env *scene_frame_sky(const scene *s, render_sky *rs)
{
    int env = current_sky_env(s);
    const pmf_sky_env *sky = env >= 0 && !s->settings.no_sky ? &s->lvl.client.sky_envs[env] : NULL;
    if (sky) {
        for (int i = 0; i < 6; i++)
            rs->skybox[i] = scene_material_index(&s->lvl, sky->skybox[i]);
        rs->cloud_top = scene_material_index(&s->lvl, sky->cloud_top);
        rs->cloud_bottom = scene_material_index(&s->lvl, sky->cloud_bottom);
    }
    return sky;
}

/* The driver's code for the states the loaded materials and the sky draw with, made ahead of the
 * frame that first draws them (render_world_prime). True while some are left. */
bool scene_prime_states(scene *s, double budget_ms)
{
    render_frame f = scene_settings_frame(s);
    render_sky rs;
    return render_world_prime(s->world, &f, scene_frame_sky(s, &rs) ? &rs : NULL, budget_ms);
}

/* The world shader variants the current settings need, built while the workers decode, then the
 * driver's states primed (true while some are left). */
bool scene_prepare_variants(scene *s, double budget_ms)
{
    render_frame f = scene_settings_frame(s);
    return render_world_prepare_variants(s->world, &f, budget_ms) || scene_prime_states(s, budget_ms);
}

/* ---- draw ---------------------------------------------------------------------------------------- */

/* The 3D skybox chunk is outside the streamed set: read and mesh it here, once. */
scene_chunk *scene_skybox_chunk(scene *s, pmf_chunk_coord c)
{
    bool same = !memcmp(&s->skybox_coord, &c, sizeof c);
    if (same && (s->skybox_chunk || s->skybox_failed))
        return s->skybox_chunk;
    if (s->skybox_chunk) {
        render_world_remove(s->world, s->skybox_chunk->handle);
        scene_chunk_free(s->skybox_chunk);
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
        scene_failure_entry *f = scene_add_failure(s, c, true);
        if (f)
            pmf_error_format(&perr, f->message, sizeof f->message);
        return NULL;
    }
    scene_chunk *sc = scene_chunk_build(s, &chunk, msg, sizeof msg);
    pmf_chunk_free(&chunk);
    if (!sc) {
        scene_failure_entry *f = scene_add_failure(s, c, true);
        if (f) {
            char raw[sizeof f->message];
            snprintf(raw, sizeof raw, "%.200s: %.300s", s->file->name, msg);
            text_clean(raw, f->message, sizeof f->message);
        }
        return NULL;
    }
    sc->handle = render_world_add(s->world, &sc->mc);
    if (sc->handle < 0) {
        scene_chunk_free(sc);
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

/* The frame's settings, view and projection for the tile vp asks for (all of it when it names
 * none), its GL viewport begun; the view's frustum planes in planes. */
static render_frame begin_frame(scene *s, const scene_viewport *vp, float planes[6][4])
{
    const camera *cam = &s->cam;
    scene_viewport full = *vp;
    if (full.tile_w <= 0 || full.tile_h <= 0) {
        full.tile_x = full.tile_y = 0;
        full.tile_w = full.width;
        full.tile_h = full.height;
    }
    render_frame f = { .mode = s->settings.mode, .exposure = s->settings.exposure, .time = s->settings.time,
                       .look = scene_look_drawn(s),
                       .wireframe = s->settings.wireframe, .luxel_grid = s->settings.luxel_grid, .fog = s->settings.fog,
                       .eye = { (float)cam->local[0], (float)cam->local[1], (float)cam->local[2] } };
    memcpy(f.wind, s->wind, sizeof f.wind);
    float proj[16], vp_full[16];
    camera_view_matrix(cam, 0, f.view);
    scene_perspective(cam, proj);
    render_mat4_mul(proj, f.view, vp_full);
    scene_frustum_planes(vp_full, planes);
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
    return f;
}

/* The 3D skybox's chunk drawn from the skybox camera, its depth then cleared for the world. */
static void draw_skybox_chunk(scene *s, const scene_chunk *sb, const render_frame *f, render_frame_stats *stats)
{
    render_draw_chunk dc = { .handle = sb->handle };
    render_frame sf = *f;
    camera_view_matrix(&s->cam, 1, sf.view);
    memset(sf.eye, 0, sizeof sf.eye);
    sf.wireframe = false;
    sf.fog = false;
    sf.chunks = &dc;
    sf.chunk_count = 1;
    render_world_draw(s->world, &sf, stats);
    render_world_clear_depth(s->world);
}

/* Room for a draw and the cube bits of every chunk loaded; false when out of memory. */
static bool reserve_draws(scene *s)
{
    if (s->draw_cap < s->chunk_count) {
        render_draw_chunk *d = realloc(s->draws, s->chunk_count * sizeof *d);
        if (!d)
            return false;
        s->draws = d;
        s->draw_cap = s->chunk_count;
    }
    size_t words_total = 0;
    for (size_t i = 0; i < s->chunk_count; i++)
        words_total += mesh_cube_words(&s->chunks[i]->mc);
    return grow_array((void **)&s->scratch_bits, &s->scratch_words, words_total + 1, sizeof *s->scratch_bits);
}

/* Chunks in view into s->draws: chunk AABB, then visible set, then per-cube frustum culling.
 * Their count. */
static size_t cull_chunks(scene *s, const float planes[6][4])
{
    const camera *cam = &s->cam;
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
        scene_chunk_coord_i32(&mc->coord, c);
        if (abs(c[0] - anchor[0]) > s->radius || abs(c[1] - anchor[1]) > s->radius || abs(c[2] - anchor[2]) > s->radius)
            continue;
        double off[3];
        camera_chunk_offset(cam, c, off);
        float mn[3], mx[3];
        for (int k = 0; k < 3; k++) {
            mn[k] = (float)(mc->min[k] + off[k]);
            mx[k] = (float)(mc->max[k] + off[k]);
        }
        if (scene_box_outside(planes, mn, mx))
            continue;
        uint32_t words = mesh_cube_words(mc);
        uint64_t *bits = &s->scratch_bits[word];
        if (use_vis)
            memcpy(bits, sc->vis_bits, words * sizeof *bits);
        else
            memset(bits, 0xFF, words * sizeof *bits);
        float local_planes[6][4];
        scene_shift_planes(planes, off, local_planes);
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
    return count;
}

void scene_draw(scene *s, const scene_viewport *vp)
{
    float planes[6][4];
    render_frame f = begin_frame(s, vp, planes);
    render_frame_stats stats = { 0 };
    render_sky rs;
    const pmf_sky_env *sky = scene_frame_sky(s, &rs);
    /* fog: from half the streaming radius to all of it, where the drawn world ends */
    if (f.fog) {
        f.fog_end = (float)(s->radius * s->cam.chunk_size);
        f.fog_start = 0.5f * f.fog_end;
        render_world_fog_color(s->world, sky ? &rs : NULL, f.fog_color);
    }
    /* With a 3D skybox the sky goes first (the skybox chunk draws over it, then the depth is
     * cleared); else after the opaque world, at the far plane, only where the world left room. */
    bool sky_first = sky && (sky->flags & PMF_SKY_3D_SKYBOX);
    scene_chunk *sb = sky_first ? scene_skybox_chunk(s, sky->skybox_chunk) : NULL;
    render_world_commit(s->world); /* the chunks uploaded since the last frame, the skybox's too */
    if (sky_first) {
        render_world_draw_sky(s->world, &rs, &f, &stats);
        if (sb)
            draw_skybox_chunk(s, sb, &f, &stats);
    }

    if (!reserve_draws(s))
        return;
    size_t count = cull_chunks(s, (const float(*)[4])planes);
    f.chunks = s->draws;
    f.chunk_count = count;
    render_frame_stats world = { 0 };
    render_world_draw_opaque(s->world, &f, &world);
    scene_models_draw(s, &f);
    if (sky && !sky_first)
        render_world_draw_sky(s->world, &rs, &f, &stats);
    render_world_draw_blended(s->world, &f, &world);
    scene_models_draw_blended(s, &f);
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
