/* scene_stream.c - the visible set, chunks arriving and leaving, the GPU reservation ahead of the view, uploads within a budget (scene.h). */
#include "scene_internal.h"
#include "base/grow.h"

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
    scene_chunk *cc = scene_find_chunk(s, s->cam.chunk);
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
    scene_perspective(cam, proj);
    render_mat4_mul(proj, view, vp);
    scene_frustum_planes(vp, planes);
    scene_shift_planes(planes, origin, shifted);
    pmf_chunk_coord ac = { (uint32_t)anchor[0], (uint32_t)anchor[1], (uint32_t)anchor[2] };
    stream_set_view(s->stream, ac, local, (const float(*)[4])shifted);
}

static bool reserve_chunks(scene_chunk ***list, size_t *cap, size_t need)
{
    return grow_array((void **)list, cap, need, sizeof **list);
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
        scene_chunk_free(sc);
        return;
    }
    if (sc->handle < 0 || !reserve_chunks(&s->chunks, &s->chunk_cap, s->chunk_count + 1)) {
        scene_failure_entry *f = scene_add_failure(s, sc->mc.coord, true);
        if (f)
            snprintf(f->message, sizeof f->message, "out of memory uploading chunk (%u,%u,%u)",
                     sc->mc.coord.x, sc->mc.coord.y, sc->mc.coord.z);
        render_world_remove(s->world, sc->handle);
        scene_chunk_free(sc);
        return;
    }
    s->chunks[s->chunk_count++] = sc;
    if (s->vis_valid)
        mark_chunk(s, sc);
    int32_t c[3];
    scene_chunk_coord_i32(&sc->mc.coord, c);
    if (!memcmp(c, s->cam.chunk, sizeof c))
        update_visibility(s, true);
}

static void drop_chunk(scene *s, pmf_chunk_coord coord)
{
    for (size_t i = 0; i < s->deferred_count; i++) {
        scene_chunk *sc = s->deferred[i];
        if (sc->mc.coord.x == coord.x && sc->mc.coord.y == coord.y && sc->mc.coord.z == coord.z) {
            scene_chunk_free(sc);
            s->deferred[i] = s->deferred[--s->deferred_count];
            return;
        }
    }
    for (size_t i = 0; i < s->chunk_count; i++) {
        scene_chunk *sc = s->chunks[i];
        if (sc->mc.coord.x == coord.x && sc->mc.coord.y == coord.y && sc->mc.coord.z == coord.z) {
            render_world_remove(s->world, sc->handle);
            scene_chunk_free(sc);
            s->chunks[i] = s->chunks[--s->chunk_count];
            return;
        }
    }
}

/* The camera's frustum planes in its chunk's frame. */
void scene_view_planes(const scene *s, float planes[6][4])
{
    float view[16], proj[16], vp[16];
    camera_view_matrix(&s->cam, 0, view);
    scene_perspective(&s->cam, proj);
    render_mat4_mul(proj, view, vp);
    scene_frustum_planes(vp, planes);
}

/* Whether chunk c's whole cube meets the frustum. */
bool scene_chunk_in_view(const scene *s, const float planes[6][4], pmf_chunk_coord coord)
{
    int32_t c[3];
    double off[3];
    scene_chunk_coord_i32(&coord, c);
    camera_chunk_offset(&s->cam, c, off);
    float half = (float)(s->cam.chunk_size * 0.5), mn[3], mx[3];
    for (int k = 0; k < 3; k++) {
        mn[k] = (float)off[k] - half;
        mx[k] = (float)off[k] + half;
    }
    return !scene_box_outside(planes, mn, mx);
}

/* Decompressed common + client bytes of the present chunks that can be resident at once (within
 * radius + hysteresis of the camera's chunk): those around the camera, scaled to the most grid
 * positions that distance holds in this level (the start may be by the level's edge). */
static double resident_bytes(const scene *s)
{
    const pmf_level_info *li = &s->file->levels[s->level];
    uint32_t count[3] = { li->count_x, li->count_y, li->count_z }, lo[3], hi[3];
    uint32_t keep = (uint32_t)s->radius + STREAM_DEFAULT_HYSTERESIS;
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

/* The first deferred chunk in view, or deferred_count when none is. */
static size_t deferred_in_view(const scene *s, const float planes[6][4])
{
    size_t i = 0;
    while (i < s->deferred_count && !scene_chunk_in_view(s, planes, s->deferred[i]->mc.coord))
        i++;
    return i;
}

/* Takes delivered chunks within budget_ms: those in view are uploaded at once, the others
 * deferred; then, unless view_only, deferred ones while the budget lasts. */
void scene_stream_update(scene *s, double budget_ms, bool view_only)
{
    double start = pmf_seconds();
    /* Re-prioritising rebuilds the streamer's work queue: only when the view changed. */
    if (s->view_dirty) {
        set_stream_view(s);
        s->view_dirty = false;
    }
    if (s->stream_inline)
        stream_work(s->stream, budget_ms);
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
        pmf_release_free_memory();
        s->trimmed_at = start;
        s->evicted_since_trim = 0;
    }
    float planes[6][4];
    scene_view_planes(s, planes);
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
            scene_failure_entry *f = scene_add_failure(s, item.coord, false);
            if (f)
                snprintf(f->message, sizeof f->message, "%s", item.error);
        } else if (scene_chunk_in_view(s, (const float(*)[4])planes, item.coord)) {
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
    /* Waiting for the view (view_only): every deferred chunk the camera has turned to since it
     * arrived, whatever the budget. Otherwise at least one upload per call, so the window fills in
     * even with a tiny budget; chunks the camera has turned to first. */
    for (size_t i = 0; view_only && i < s->deferred_count;) {
        scene_chunk *sc = s->deferred[i];
        if (!scene_chunk_in_view(s, (const float(*)[4])planes, sc->mc.coord)) {
            i++;
            continue;
        }
        s->deferred[i] = s->deferred[--s->deferred_count];
        upload_chunk(s, sc);
        uploaded = true;
    }
    while (!view_only && s->deferred_count && (!uploaded || (pmf_seconds() - start) * 1000.0 < budget_ms)) {
        size_t pick = deferred_in_view(s, (const float(*)[4])planes);
        if (pick == s->deferred_count)
            pick = s->deferred_count - 1;
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
        scene_apply_light_filter(s);
    update_visibility(s, false);
}

/* The sky environment: the camera chunk's sky region holding the camera, else the default. */
double scene_upload_budget_ms(double last_frame_ms)
{
    double budget = 0.25 * last_frame_ms;
    return budget < SCENE_UPLOAD_BUDGET_MIN_MS ? SCENE_UPLOAD_BUDGET_MIN_MS
         : budget > SCENE_UPLOAD_BUDGET_MAX_MS ? SCENE_UPLOAD_BUDGET_MAX_MS : budget;
}

void scene_update(scene *s, double budget_ms)
{
    scene_stream_update(s, budget_ms, false);
    scene_prepare_variants(s, 1.0);
}

/* Delivered is not drawn: a chunk that arrived out of view waits in the deferred list, and the
 * view that has since turned to it is not complete until it is uploaded. */
bool scene_view_complete(const scene *s)
{
    if (!stream_view_complete(s->stream))
        return false;
    float planes[6][4];
    scene_view_planes(s, planes);
    return deferred_in_view(s, (const float(*)[4])planes) == s->deferred_count;
}

bool scene_wait_view(scene *s, double timeout_s)
{
    double start = pmf_seconds();
    for (;;) {
        scene_stream_update(s, 50.0, true);
        if (scene_view_complete(s)) {
            /* Take what finished (or failed) between the poll and the check, and make ready
             * for what the first frame draws. */
            scene_stream_update(s, 50.0, true);
            scene_prime_states(s, HUGE_VAL);
            return true;
        }
        if (pmf_seconds() - start > timeout_s)
            return false;
        /* Nothing delivered yet: the workers are busy; build shaders meanwhile, or look again soon. */
        if (!scene_prepare_variants(s, 1.0))
            nanosleep(&(struct timespec){ 0, 200000 }, NULL);
    }
}
