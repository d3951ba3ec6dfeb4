/* scene.c - what opens and closes a scene, its failure log and its figures (scene.h). */
#include "scene_internal.h"

scene_failure_entry *scene_add_failure(scene *s, pmf_chunk_coord c, bool anywhere)
{
    if (s->failure_count == sizeof s->failures / sizeof s->failures[0])
        return NULL;
    scene_failure_entry *f = &s->failures[s->failure_count++];
    f->coord = c;
    f->anywhere = anywhere;
    return f;
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
    pmf_tune_allocator(32u << 20, 64u << 20);
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
    s->moving_camera = desc->moving_camera;
    s->stream_inline = desc->workers < 0;
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
    if (!res_game_ok(s->res, &perr)) /* --game DIR no directory, or a pak of it damaged */
        return fail(s, err, 2, "%s", pmf_error_format(&perr, line, sizeof line));
    s->world = render_world_create(&(render_world_desc){ .lvl = &s->lvl, .atlas = s->atlas, .res = s->res },
                                   line, sizeof line);
    if (!s->world)
        return fail(s, err, 3, "%s", line);
    s->stream = stream_create(&(stream_desc){
        .file = s->file, .level = desc->level, .lvl = &s->lvl, .workers = desc->workers,
        .radius = desc->radius, .prepare = scene_prepare_chunk,
        .release = scene_release_chunk, .user = s,
    });
    if (!s->stream)
        return fail(s, err, 3, "%s", "cannot start the streaming threads");
    if (!desc->no_models)
        scene_models_open(s, desc->game_dir, desc->fgds, desc->fgd_count);
    s->radius = stream_radius(s->stream); /* desc's 0 resolved by the stream, its one owner */

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
        scene_chunk_free(s->chunks[i]);
    }
    for (size_t i = 0; i < s->deferred_count; i++)
        scene_chunk_free(s->deferred[i]);
    if (s->skybox_chunk) {
        if (s->world)
            render_world_remove(s->world, s->skybox_chunk->handle);
        scene_chunk_free(s->skybox_chunk);
    }
    scene_models_close(s);
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
    scene_view_planes(s, planes);
    for (uint32_t i = 0; i < s->failure_count; i++) {
        const scene_failure_entry *f = &s->failures[i];
        if (f->anywhere || scene_chunk_in_view(s, (const float(*)[4])planes, f->coord))
            return f->message;
    }
    return NULL;
}
