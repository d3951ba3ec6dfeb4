/* view_window.c - the viewer's window: SDL + GL context, the frame loop, flying, the lights the
 * user set, live reload (a source map recompiled on a thread, map_compile.h), level switching, screenshots
 * (docs/viewer.md); the keys are view_keys.c's. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cglm/cglm.h>

#include "render/hud.h"
#include "render/render.h"
#include "commands.h"
#include "res/png_write.h"
#include "map_markers.h"
#include "region_overlay.h"
#include "view_bookmarks.h"
#include "view_hud.h"
#include "view_pace.h"
#include "view_shot.h"
#include "viewer.h"
#include "pm4_world.h"
#include "text_clean.h"
#include "base/order.h"

#define VIEW_MAX_LIGHTS 4096
#define MESSAGE_SECONDS 4.0
#define SHOT_WAIT_SECONDS 3.0      /* longest a screenshot waits for the view to finish streaming */
#define MOUSE_DEGREES_PER_PIXEL 0.15f
#define LIGHT_POLL_SECONDS 0.25    /* how often the lights of newly streamed chunks are looked for */

static double now_seconds(void)
{
    return (double)SDL_GetPerformanceCounter() / (double)SDL_GetPerformanceFrequency();
}

void viewer_say(viewer *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->message, sizeof v->message, fmt, ap);
    va_end(ap);
    v->message_until = now_seconds() + MESSAGE_SECONDS;
    printf("%s\n", v->message);
    fflush(stdout);
}

static bool map_level_count(const char *path, uint32_t *count, char *err, size_t err_size)
{
    pmf_error e;
    pmf_file *f = pmf_open(path, &e);
    if (!f) {
        pmf_error_format(&e, err, err_size);
        return false;
    }
    *count = f->level_count;
    pmf_close(f);
    return true;
}

/* ---- lights --------------------------------------------------------------------------------- */

static light_state *find_light(viewer *v, uint32_t id, bool fast)
{
    for (size_t i = 0; i < v->light_count; i++)
        if (v->lights[i].id == id && v->lights[i].fast == fast)
            return &v->lights[i];
    return NULL;
}

static uint8_t fast_intensity(const viewer *v, const light_state *l, double t)
{
    if (!l->enabled)
        return 0;
    double k = 1.0;
    if (v->fast_anim == VIEW_ANIM_PULSE) {
        k = 0.5 + 0.5 * sin(t * 2.0 * M_PI * 0.5 + l->id);
    } else if (v->fast_anim == VIEW_ANIM_FLICKER) {
        /* Value noise: a new random level 12 times a second, blended linearly, per light. */
        double x = t * 12.0;
        uint32_t i = (uint32_t)x, h0 = (i + l->id * 7919u) * 2654435761u, h1 = (i + 1 + l->id * 7919u) * 2654435761u;
        double a = (h0 >> 24) / 255.0, b = (h1 >> 24) / 255.0, f = x - floor(x);
        k = 0.55 + 0.45 * (a + (b - a) * f);
    }
    return (uint8_t)lrint(l->intensity * k);
}

/* To both versions of a reload, so their difference (V) is the map's, not the light settings'. */
void viewer_apply_light(viewer *v, const light_state *l, double t)
{
    scene *versions[2] = { v->scene, v->other };
    for (int i = 0; i < 2 && versions[i]; i++) {
        if (l->fast)
            scene_set_fast_light(versions[i], l->id, fast_intensity(v, l, t));
        else
            scene_set_dynamic_light(versions[i], l->id, l->enabled);
    }
}

static int compare_lights(const void *pa, const void *pb)
{
    const light_state *a = pa, *b = pb;
    if (a->fast != b->fast)
        return a->fast ? 1 : -1;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* Learns the lights of newly streamed chunks (with their file values), a few times a second:
 * the table stays in the scene's order, dynamic then fast, by ID. */
void viewer_learn_lights(viewer *v, double t)
{
    if (t < v->next_light_poll)
        return;
    v->next_light_poll = t + LIGHT_POLL_SECONDS;
    size_t n = scene_lights(v->scene, v->shown, VIEW_MAX_LIGHTS);
    if (n > VIEW_MAX_LIGHTS)
        n = VIEW_MAX_LIGHTS;
    size_t before = v->light_count;
    for (size_t i = 0; i < n && v->light_count < VIEW_MAX_LIGHTS; i++) {
        const scene_light *s = &v->shown[i];
        if (find_light(v, s->id, s->fast))
            continue;
        light_state *l = &v->lights[v->light_count++];
        *l = (light_state){ .id = s->id, .fast = s->fast, .enabled = s->fast ? true : s->enabled,
                            .intensity = s->intensity };
        memcpy(l->color, s->color, 3);
    }
    if (v->light_count == before)
        return;
    light_state selected = v->selected < before ? v->lights[v->selected] : (light_state){ 0 };
    order_sort(v->lights, v->light_count, sizeof *v->lights, compare_lights);
    if (v->selected < before)
        v->selected = (size_t)(find_light(v, selected.id, selected.fast) - v->lights);
}

/* Every frame: the HUD's list, and the fast lights' animation. */
static void update_lights(viewer *v, double t)
{
    for (size_t i = 0; i < v->light_count; i++) {
        const light_state *l = &v->lights[i];
        if (l->fast && v->fast_anim != VIEW_ANIM_OFF)
            viewer_apply_light(v, l, t);
        v->shown[i] = (scene_light){ .id = l->id, .fast = l->fast, .enabled = l->enabled,
                                     .intensity = l->fast ? fast_intensity(v, l, t) : 0,
                                     .color = { l->color[0], l->color[1], l->color[2] } };
    }
}

/* ---- scenes: open, reload, level switch ------------------------------------------------------ */

static scene *open_scene(const viewer *v, const char *pmf_path, uint32_t level, scene_error *err)
{
    scene_desc d = { .path = pmf_path, .level = level, .game_dir = v->desc->game_dir, .fgds = v->desc->fgds,
                     .fgd_count = (size_t)v->desc->fgd_count,
                     .radius = v->desc->radius, .moving_camera = true };
    return scene_open(&d, err);
}

/* The start camera of scene s: --camera if given (for the command line's map), else the default
 * (conventions §2). */
static void start_camera(const viewer *v, const scene *s, camera *out)
{
    scene_default_camera(s, out);
    if (v->given_camera)
        camera_set_world(out, v->desc->camera_pos, v->desc->camera_yaw, v->desc->camera_pitch);
    if (v->desc->fov > 0)
        out->fov_y = v->desc->fov;
}

/* Puts s on screen in place of the current scene; keep_view keeps the camera pose and the
 * lights the user set (reload), else starts afresh (another level). */
static void install_scene(viewer *v, scene *s, uint32_t level, bool keep_view, double t)
{
    double world[3];
    float yaw = v->cam.yaw, pitch = v->cam.pitch, fov = v->cam.fov_y;
    if (v->scene)
        camera_get_world(&v->cam, world);
    if (v->showing_previous) {
        scene *current = v->other;
        v->other = v->scene;
        v->scene = current;
        v->showing_previous = false;
    }
    /* A reload keeps the version it replaces, to compare with (X, V); another level does not. */
    scene_close(v->other);
    v->other = NULL;
    if (keep_view)
        v->other = v->scene;
    else
        scene_close(v->scene);
    v->difference = v->difference && v->other;
    v->difference_reported = false;
    v->scene = s;
    v->level = level;
    start_camera(v, s, &v->start_cam);
    if (keep_view) {
        scene_default_camera(s, &v->cam);
        camera_set_world(&v->cam, world, yaw, pitch);
        v->cam.fov_y = fov;
    } else {
        v->cam = v->start_cam;
        v->light_count = 0;
        v->selected = 0;
    }
    scene_set_settings(s, &v->settings);
    if (keep_view)
        view_lights_apply(&v->tools, s);
    else
        view_lights_reset(&v->tools, s);
    for (size_t i = 0; i < v->light_count; i++)
        if (v->lights[i].touched || (v->lights[i].fast && v->fast_anim != VIEW_ANIM_OFF))
            viewer_apply_light(v, &v->lights[i], t);
    view_probes_close(&v->probes);
    if (v->probes_on) {
        char err[512];
        if (!view_probes_open(&v->probes, v->pmf_path, level, err, sizeof err))
            snprintf(v->error, sizeof v->error, "probes: %s", err);
    }
    unsigned region_kinds = v->regions.kinds;
    view_regions_close(&v->regions);
    if (region_kinds) {
        char err[512];
        if (view_regions_open(&v->regions, v->pmf_path, level, err, sizeof err))
            v->regions.kinds = region_kinds;
        else
            snprintf(v->error, sizeof v->error, "regions: %s", err);
    }
    v->announced_ready = false;
    v->next_light_poll = 0;
    if (!keep_view)
        v->start_camera = -1;
    char title[300];
    snprintf(title, sizeof title, "pmfview - %s - level %u", pmf_os_base_name(v->path), level);
    SDL_SetWindowTitle(v->window, title);
}

void viewer_reload(viewer *v, double t)
{
    scene_error e;
    uint32_t count = v->level_count;
    scene *s = map_level_count(v->pmf_path, &count, e.message, sizeof e.message) ? open_scene(v, v->pmf_path, v->level, &e) : NULL;
    if (!s) {
        snprintf(v->error, sizeof v->error, "reload failed: %s", e.message);
        fprintf(stderr, "pmfview: %s\n", e.message);
        viewer_say(v, "reload failed; still showing the previous version");
        return;
    }
    v->level_count = count;
    v->error[0] = '\0';
    install_scene(v, s, v->level, true, t);
    viewer_say(v, "reloaded %s", v->path);
}

/* A saved source map, or one dropped on the window: the compile runs on a thread (or pmfc on a
 * child process, map_compile.h), polled once per frame while the window keeps drawing the map it
 * shows; a newer save or drop cancels it and starts again. */
static void start_compile(viewer *v, const char *source)
{
    map_compile_cancel(&v->compile);
    map_compile_start(&v->compile, &(map_compile_desc){ .source = source, .game_dir = v->desc->game_dir, .fgds = v->desc->fgds,
                                                         .fgd_count = (size_t)v->desc->fgd_count });
    if (v->compile.state == MAP_COMPILE_RUNNING)
        viewer_say(v, "compiling %s ...", source);
}

/* ---- a file dropped on the window ----------------------------------------------------------- */

/* The dropped file did not open: the error in the HUD and on stderr, the current map stays. */
static void drop_failed(viewer *v, const char *line)
{
    snprintf(v->error, sizeof v->error, "%.*s", (int)sizeof v->error - 1, line); /* the HUD shows its start */
    fprintf(stderr, "pmfview: %s\n", line);
    viewer_say(v, "open failed; still showing %s", pmf_os_base_name(v->path));
}

/* Shows the PMF at pmf_path, of the map named path, in place of the current map: its level 0
 * from its own start camera, watched for saves; false (said) when it does not open. */
static bool show_dropped(viewer *v, const char *path, const char *pmf_path, double t)
{
    scene_error e;
    uint32_t count = 0;
    scene *s = map_level_count(pmf_path, &count, e.message, sizeof e.message) ? open_scene(v, pmf_path, 0, &e) : NULL;
    if (!s) {
        drop_failed(v, e.message);
        return false;
    }
    snprintf(v->path, sizeof v->path, "%s", path);
    snprintf(v->pmf_path, sizeof v->pmf_path, "%s", pmf_path);
    v->level_count = count;
    v->given_camera = false;
    v->error[0] = '\0';
    install_scene(v, s, 0, false, t);
    view_bookmarks_path(v->path, v->cameras_path, sizeof v->cameras_path);
    view_watch_init(&v->watch, v->path, t);
    viewer_say(v, "opened %s", v->path);
    return true;
}

/* A file dropped on the window opens as if named on the command line: a PMF at once, a source
 * map once compiled (poll_compile shows it), a legacy draft or PM4 file once converted. */
static void open_dropped(viewer *v, const char *path, double t)
{
    map_source src;
    char why[2600];
    if (map_source_identify(path, &src, why, sizeof why)) {
        drop_failed(v, why);
    } else if (map_source_compiled(src.id.kind)) {
        snprintf(v->dropped, sizeof v->dropped, "%s", path);
        start_compile(v, v->dropped);
    } else if (map_source_converted(src.id.kind)) {
        formats_scene fs;
        if (formats_scene_open(path, &src, PM4_LAYER_ALL, &fs)) { /* its line is on stderr already */
            snprintf(v->error, sizeof v->error, "%s", fs.error);
            viewer_say(v, "open failed; still showing %s", pmf_os_base_name(v->path));
            return;
        }
        map_compile_cancel(&v->compile);
        v->dropped[0] = '\0';
        if (!show_dropped(v, fs.pmf_path, fs.pmf_path, t)) {
            formats_scene_close(&fs);
            return;
        }
        if (v->formats == &v->dropped_formats)
            formats_scene_close(&v->dropped_formats); /* its scene closed with the map it replaced */
        v->dropped_formats = fs;
        v->formats = &v->dropped_formats;
        v->compiled = false;
    } else if (show_dropped(v, path, src.pmf_path, t)) {
        map_compile_cancel(&v->compile);
        v->dropped[0] = '\0';
        v->formats = NULL;
        v->compiled = false;
    }
}

/* One of SDL's drop events: the first file of a drop opens, the others are named and left. */
static void handle_drop(viewer *v, const SDL_DropEvent *drop, double t)
{
    if (drop->type == SDL_DROPCOMPLETE) {
        v->drop_files = 0;
    } else if (drop->type == SDL_DROPFILE && drop->file) {
        if (v->drop_files++ == 0)
            open_dropped(v, drop->file, t);
        else {
            char shown[1024]; /* the name as the terminal may show it */
            text_clean(drop->file, shown, sizeof shown);
            fprintf(stderr, "pmfview: %s: not opened: the window shows the first file of a drop\n", shown);
        }
    }
    SDL_free(drop->file);
}

/* What a save's compile did: relit the lights that changed (the first picture, then the final
 * one with its bounce), or compiled in full (and why). */
static void say_how_compiled(viewer *v, const map_compile *mc, bool first)
{
    char bounce[32] = "";
    if (mc->first_path[0])
        snprintf(bounce, sizeof bounce, first ? ", bounce ..." : ", bounce %.1f s", mc->bounce_seconds);
    if (mc->relit)
        viewer_say(v, "relit %zu light%s (%llu luxels) in %.1f s%s", mc->relit_lights, mc->relit_lights == 1 ? "" : "s",
                   mc->relit_luxels, mc->seconds, bounce);
    else if (mc->seconds > 0)
        viewer_say(v, "compiled in full in %.1f s%s%s", mc->seconds, mc->full_why[0] ? ": " : "", mc->full_why);
}

/* A relight's first picture on screen while its bounce is computed: the map keeps the view. */
static void show_first_picture(viewer *v, double t)
{
    map_compile *mc = &v->compile;
    snprintf(v->pmf_path, sizeof v->pmf_path, "%s", mc->first_path);
    viewer_reload(v, t);
    v->warnings = mc->warnings;
    say_how_compiled(v, mc, true);
}

static void poll_compile(viewer *v, double t)
{
    map_compile *mc = &v->compile;
    if (mc->state == MAP_COMPILE_IDLE)
        return;
    if (!v->dropped[0] && map_compile_first(mc))
        show_first_picture(v, t);
    if (mc->state == MAP_COMPILE_RUNNING && !map_compile_poll(mc)) {
        char progress[64];
        const char *source = v->dropped[0] ? v->dropped : v->path;
        bool known = map_compile_progress(mc, progress, sizeof progress); /* on the HUD, not printed */
        if (known && mc->first_path[0]) /* the first picture is on screen: its bounce runs */
            snprintf(v->message, sizeof v->message, "relit %zu light%s in %.1f s, bounce: %s", mc->relit_lights,
                     mc->relit_lights == 1 ? "" : "s", mc->seconds, progress);
        else if (known) /* a long path cut */
            snprintf(v->message, sizeof v->message, "compiling %.900s: %s", source, progress);
        v->message_until = t + MESSAGE_SECONDS;   /* "compiling" stays up while it runs */
        return;
    }
    bool done = mc->state == MAP_COMPILE_DONE || mc->state == MAP_COMPILE_CACHED;
    mc->state = MAP_COMPILE_IDLE;
    v->warnings = mc->warnings;
    if (v->dropped[0]) {
        if (!done)
            drop_failed(v, mc->message);
        else if (show_dropped(v, v->dropped, mc->out_path, t)) {
            v->formats = NULL;
            v->compiled = true;
        }
        v->dropped[0] = '\0';
    } else if (!done) {
        snprintf(v->error, sizeof v->error, "compile failed: %s", mc->message);
        fprintf(stderr, "pmfview: %s\n", mc->message);
        viewer_say(v, "compile failed; still showing the previous version");
    } else {
        snprintf(v->pmf_path, sizeof v->pmf_path, "%s", mc->out_path);
        viewer_reload(v, t);
        say_how_compiled(v, mc, false);
    }
    if (v->warnings.count)
        viewer_say(v, "%u compile warning%s (` lists them)", v->warnings.count, v->warnings.count == 1 ? "" : "s");
}

bool viewer_switch_level(viewer *v, long delta, double t)
{
    long level = (long)v->level + delta;
    if (level < 0 || level >= (long)v->level_count) {
        viewer_say(v, "no level %ld (the map has %u)", level, v->level_count);
        return false;
    }
    scene_error e;
    scene *s = open_scene(v, v->pmf_path, (uint32_t)level, &e);
    if (!s) {
        snprintf(v->error, sizeof v->error, "level %ld: %s", level, e.message);
        fprintf(stderr, "pmfview: %s\n", e.message);
        return false;
    }
    install_scene(v, s, (uint32_t)level, false, t);
    viewer_say(v, "level %ld", level);
    return true;
}

/* ---- screenshots ---------------------------------------------------------------------------- */

static bool write_rgba_png(viewer *v, const char *path, int w, int h, const uint8_t *rgba)
{
    char why[300];
    if (!png_write_rgba(path, (uint32_t)w, (uint32_t)h, rgba, why, sizeof why)) {
        snprintf(v->error, sizeof v->error, "%.*s: %s", (int)(sizeof v->error - sizeof why - 3), path, why);
        fprintf(stderr, "pmfview: %s\n", v->error);
        return false;
    }
    return true;
}

/* The window-size shot: the frame just drawn, before the HUD. */
static void shot_window(viewer *v, int w, int h, const char *path)
{
    uint8_t *rgba = malloc((size_t)w * h * 4);
    if (!rgba) {
        viewer_say(v, "out of memory for a screenshot");
        return;
    }
    render_bind_window(w, h);
    render_read_pixels(w, h, rgba);
    if (write_rgba_png(v, path, w, h, rgba))
        viewer_say(v, "screenshot %s (%dx%d)", path, w, h);
    free(rgba);
}

/* The hi-res shot: HIRES_FACTOR x the window, drawn off screen in tiles the GL can hold. */
static void shot_hires(viewer *v, int win_w, int win_h, const char *path)
{
    const render_caps *caps = render_get_caps();
    int w = win_w * HIRES_FACTOR, h = win_h * HIRES_FACTOR;
    int tile = caps->max_renderbuffer_size;
    if (caps->max_viewport[0] < tile)
        tile = caps->max_viewport[0];
    if (caps->max_viewport[1] < tile)
        tile = caps->max_viewport[1];
    if (tile > 4096)
        tile = 4096;
    int tw = w < tile ? w : tile, th = h < tile ? h : tile;
    uint8_t *image = malloc((size_t)w * h * 4), *part = malloc((size_t)tw * th * 4);
    render_target target;
    char err[256];
    if (!image || !part || !render_target_create(tw, th, 0, &target, err, sizeof err)) {
        viewer_say(v, "hi-res shot failed: %s", image && part ? err : "out of memory");
        free(image);
        free(part);
        return;
    }
    for (int ty = 0; ty < h; ty += th)
        for (int tx = 0; tx < w; tx += tw) {
            int cw = w - tx < tw ? w - tx : tw, ch = h - ty < th ? h - ty : th;
            render_target_bind(&target);
            scene_draw(v->scene, &(scene_viewport){ .width = w, .height = h, .tile_x = tx, .tile_y = ty,
                                                    .tile_w = cw, .tile_h = ch });
            render_target_read(&target, part);
            /* The tile sits at the target's bottom-left; rows come top first. */
            for (int r = 0; r < ch; r++)
                memcpy(image + ((size_t)(h - ty - ch + r) * w + tx) * 4, part + ((size_t)(th - ch + r) * tw) * 4,
                       (size_t)cw * 4);
        }
    render_target_destroy(&target);
    render_bind_window(win_w, win_h);
    free(part);
    if (write_rgba_png(v, path, w, h, image))
        viewer_say(v, "screenshot %s (%dx%d)", path, w, h);
    free(image);
}

static void take_shot(viewer *v, int w, int h)
{
    char path[1200];
    if (!view_shot_path(v->desc->shots_dir, time(NULL), path, sizeof path)) {
        viewer_say(v, "screenshot: no free file name in %s", v->desc->shots_dir ? v->desc->shots_dir : ".");
        return;
    }
    if (v->pending_shot == HIRES_FACTOR)
        shot_hires(v, w, h, path);
    else
        shot_window(v, w, h, path);
    v->pending_shot = 0;
}

/* ---- the difference of the two versions of a reload (V) ------------------------------------- */

/* Draws the difference instead of the scene when V is on; false when the scene is to be drawn. */
static bool draw_difference(viewer *v, int w, int h, bool complete)
{
    if (!v->difference || !v->other)
        return false;
    scene *before = v->showing_previous ? v->scene : v->other, *after = v->showing_previous ? v->other : v->scene;
    char err[256];
    if (!view_compare_draw(&v->compare, before, after, w, h, err, sizeof err)) {
        v->difference = false;
        viewer_say(v, "difference: %s", err);
        return false;
    }
    if (!v->difference_reported && complete && scene_view_complete(v->other)) {
        char line[256];
        image_compare_format(&v->compare.stats, line, sizeof line);
        v->difference_reported = true;
        viewer_say(v, "difference: %s", line);
    }
    return true;
}

/* ---- input ----------------------------------------------------------------------------------- */

void viewer_set_capture(viewer *v, bool on)
{
    v->mouse_captured = on;
    SDL_SetRelativeMouseMode(on || v->right_look ? SDL_TRUE : SDL_FALSE);
}

/* The mouse in drawable pixels (from the top-left); the frame's centre while it is captured. */
static void frame_mouse(const viewer *v, int *x, int *y)
{
    int ww, wh;
    SDL_GetWindowSize(v->window, &ww, &wh);
    if (v->mouse_captured || ww < 1 || wh < 1) {
        *x = v->frame_w / 2;
        *y = v->frame_h / 2;
        return;
    }
    SDL_GetMouseState(x, y);
    *x = (int)((long long)*x * v->frame_w / ww);
    *y = (int)((long long)*y * v->frame_h / wh);
}

/* The window's events since the last frame; whether there were any. */
static bool handle_events(viewer *v, double t)
{
    SDL_Event ev;
    bool any = false;
    while (SDL_PollEvent(&ev)) {
        any = true;
        switch (ev.type) {
        case SDL_QUIT: v->quit = true; break;
        case SDL_KEYDOWN: viewer_key_down(v, &ev.key, t); break;
        case SDL_KEYUP:
            if (ev.key.keysym.sym == SDLK_i)
                view_lights_inspect_key(&v->tools, false);
            break;
        case SDL_TEXTINPUT:
            if (v->teleport.open)
                view_teleport_type(&v->teleport, ev.text.text);
            break;
        case SDL_MOUSEBUTTONDOWN:
        case SDL_MOUSEBUTTONUP:
            if (ev.button.button == SDL_BUTTON_LEFT && ev.type == SDL_MOUSEBUTTONDOWN) {
                int x, y;
                frame_mouse(v, &x, &y);
                char msg[512];
                if (view_lights_click(&v->tools, v->scene, x, y, v->frame_w, v->frame_h, msg, sizeof msg))
                    viewer_say(v, "%s", msg);
            }
            if (ev.button.button == SDL_BUTTON_RIGHT) {
                v->right_look = ev.type == SDL_MOUSEBUTTONDOWN;
                viewer_set_capture(v, v->mouse_captured);
            }
            break;
        case SDL_MOUSEMOTION:
            if (v->mouse_captured || v->right_look) {
                v->cam.yaw -= ev.motion.xrel * MOUSE_DEGREES_PER_PIXEL;
                v->cam.yaw = fmodf(v->cam.yaw, 360.0f);
                float p = v->cam.pitch - ev.motion.yrel * MOUSE_DEGREES_PER_PIXEL;
                v->cam.pitch = p > 89.0f ? 89.0f : p < -89.0f ? -89.0f : p;
            }
            break;
        case SDL_DROPFILE:
        case SDL_DROPTEXT:
        case SDL_DROPCOMPLETE: handle_drop(v, &ev.drop, t); break;
        case SDL_MOUSEWHEEL:
            v->speed *= pow(1.25, ev.wheel.y);
            v->speed = v->speed < 0.05 ? 0.05 : v->speed > 100000.0 ? 100000.0 : v->speed;
            break;
        default: break;
        }
    }
    return any;
}

/* WASD flight along the view, Space/E and C/Q straight up and down; noclip everywhere. */
static void fly(viewer *v, double dt)
{
    const Uint8 *keys = SDL_GetKeyboardState(NULL);
    float fwd[3], right[3], up[3];
    camera_basis(&v->cam, fwd, right, up);
    double dir[3] = { 0, 0, 0 };
    double f = (double)keys[SDL_SCANCODE_W] - keys[SDL_SCANCODE_S];
    double r = (double)keys[SDL_SCANCODE_D] - keys[SDL_SCANCODE_A];
    double u = (double)(keys[SDL_SCANCODE_SPACE] || keys[SDL_SCANCODE_E]) - (keys[SDL_SCANCODE_C] || keys[SDL_SCANCODE_Q]);
    for (int i = 0; i < 3; i++)
        dir[i] = f * fwd[i] + r * right[i];
    dir[1] += u;
    double len = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    if (len == 0.0)
        return;
    double speed = v->speed;
    if (keys[SDL_SCANCODE_LSHIFT] || keys[SDL_SCANCODE_RSHIFT])
        speed *= 4.0;
    if (keys[SDL_SCANCODE_LCTRL] || keys[SDL_SCANCODE_RCTRL])
        speed *= 0.1;
    double delta[3];
    for (int i = 0; i < 3; i++)
        delta[i] = dir[i] / len * speed * dt;
    camera_move(&v->cam, delta);
}

/* ---- the frame ------------------------------------------------------------------------------- */

static void draw_probes(viewer *v, int w, int h)
{
    view_probes_update(&v->probes, &v->cam);
    if (!v->probes.count)
        return;
    mat4 proj, view, vp;
    camera_view_matrix(&v->cam, 0, (float *)view);
    glm_perspective(glm_rad(v->cam.fov_y), v->cam.aspect, 0.05f, 100000.0f, proj);
    glm_mat4_mul(proj, view, vp);
    /* Drawn through walls: probes sit inside cubes that geometry often hides. */
    render_viewport(w, h);
    render_clear_depth();
    hud_boxes(v->hud, (const float *)vp, v->probes.count, (const float (*)[4])v->probes.boxes,
              (const uint8_t (*)[3])v->probes.rgb, true);
}

/* The HUD: status, the lights panel, the loading bar, messages, the F1 key list (view_hud.c). */
static void draw_hud(viewer *v, int w, int h, double fps, double frame_ms, bool complete, double t)
{
    scene_stats stats;
    scene_get_stats(v->scene, &stats);
    char tools[160] = "";
    for (int k = 0; k < VIEW_REGION_KIND_COUNT; k++)
        if (v->regions.kinds & VIEW_REGION_BIT(k))
            snprintf(tools + strlen(tools), sizeof tools - strlen(tools), "%s%s", strchr(tools, ':') ? "," : "  regions:",
                     view_region_kind_name(k));
    snprintf(tools + strlen(tools), sizeof tools - strlen(tools), "%s%s", v->showing_previous ? "  previous version" : "",
             v->difference && v->other ? "  difference" : "");
    view_hud_info info = {
        .look = pmf_look_name((unsigned)scene_look_drawn(v->scene)),
        .fullbright = (scene_map_infos(v->scene)->source.flags & PMF_SOURCE_FULLBRIGHT) != 0,
        .path = v->path, .level = v->level, .level_count = v->level_count,
        .fps = fps, .frame_ms = frame_ms, .cam = &v->cam, .stats = &stats,
        .view_complete = complete, .settings = &v->settings, .speed = v->speed,
        .mouse_captured = v->mouse_captured, .probes = v->probes_on, .probe_count = v->probes.count,
        .lights_panel = v->lights_panel, .help = v->help, .fast_anim = v->fast_anim,
        .lights = v->shown, .light_count = v->light_count, .selected = v->selected,
        .tools = tools,
        .message = v->teleport.open ? v->teleport.line : t < v->message_until ? v->message : "", .error = v->error,
        .keys = viewer_keys, .key_count = viewer_key_count,
        .warnings = &v->warnings, .warnings_list = v->warnings_list,
    };
    view_hud_draw(v->hud, w, h, &info);
}

/* The frame waits out its interval (view_pace.h): still, when nothing on screen moved. A compile's
 * picture ends the wait within PACE_SLICE: the next frame shows it. */
#define PACE_SLICE 0.005

static void pace_frame(const viewer *v, double frame_start, bool still)
{
    double interval = view_pace_interval(v->frame_interval, v->compile.state == MAP_COMPILE_RUNNING, still);
    for (double rest; (rest = view_pace_rest(interval, frame_start, now_seconds())) > 0 &&
                     !map_compile_news(&v->compile, !v->dropped[0]);)
        SDL_Delay((Uint32)(1000.0 * (rest < PACE_SLICE ? rest : PACE_SLICE)));
}

static double refresh_period(SDL_Window *window, bool no_vsync)
{
    SDL_DisplayMode mode;
    if (no_vsync)
        return 0;
    bool known = SDL_GetWindowDisplayMode(window, &mode) == 0 && mode.refresh_rate >= 24;
    return 1.0 / (known ? mode.refresh_rate : 60);
}

static int run_loop(viewer *v)
{
    double t0 = now_seconds(), last = t0, fps_since = t0, fps = 0, frame_ms = 0;
    int fps_frames = 0;
    double pose[5] = { 0 }, last_pose[5] = { 0 };   /* the camera's world position, yaw and pitch */
    while (!v->quit) {
        double t = now_seconds(), dt = t - last;
        last = t;
        if (dt > 0.1)
            dt = 0.1;
        if (++fps_frames, t - fps_since >= 0.5) {
            fps = fps_frames / (t - fps_since);
            frame_ms = 1000.0 * (t - fps_since) / fps_frames;
            fps_frames = 0;
            fps_since = t;
        }
        bool input = handle_events(v, t);
        if (!v->teleport.open)
            fly(v, dt);
        camera_get_world(&v->cam, pose);
        pose[3] = v->cam.yaw;
        pose[4] = v->cam.pitch;
        bool moved = memcmp(pose, last_pose, sizeof pose) != 0;
        memcpy(last_pose, pose, sizeof pose);
        /* (a save while a dropped map compiles: that map is about to replace this one) */
        if (view_watch_poll(&v->watch, t) && !v->dropped[0]) {
            if (v->compiled)
                start_compile(v, v->path);
            else
                viewer_reload(v, t);
        }
        poll_compile(v, t);

        v->settings.time = t - t0;
        int w, h;
        SDL_GL_GetDrawableSize(v->window, &w, &h);
        if (w < 1 || h < 1) {
            SDL_Delay(16);
            continue;
        }
        v->cam.aspect = (float)w / (float)h;
        scene_set_settings(v->scene, &v->settings);
        scene_set_camera(v->scene, &v->cam);
        double budget_ms = scene_upload_budget_ms(dt * 1000.0);
        scene_update(v->scene, budget_ms);
        if (v->difference && v->other) {
            scene_set_settings(v->other, &v->settings);
            scene_set_camera(v->other, &v->cam);
            scene_update(v->other, 0.5 * budget_ms);
        }
        if (!v->error[0] && scene_failure(v->scene)) /* e.g. the file shrank: keep what we have, say why */
            snprintf(v->error, sizeof v->error, "%s", scene_failure(v->scene));
        const char *warnings[2];
        if (!v->error[0] && scene_budget_warnings(v->scene, warnings))
            snprintf(v->error, sizeof v->error, "%s", warnings[0]);
        viewer_learn_lights(v, t);
        update_lights(v, t);
        bool complete = scene_view_complete(v->scene);

        render_bind_window(w, h);
        if (!draw_difference(v, w, h, complete))
            scene_draw(v->scene, &(scene_viewport){ .width = w, .height = h });
        if (v->regions.kinds)
            region_overlay_draw(v->hud, &v->regions, v->scene, w, h);
        if (v->probes_on)
            draw_probes(v, w, h);
        v->frame_w = w;
        v->frame_h = h;
        const uint8_t *missing = scene_models_missing(v->scene);  /* a model that did not open: its marker */
        if (v->entities_on || v->leak_on || missing) {
            int mx = -1, my = -1;
            if (!v->mouse_captured)
                frame_mouse(v, &mx, &my);
            const scene_map_info *mi = scene_map_infos(v->scene);
            float view_proj[16];
            scene_view_proj(v->scene, view_proj);
            render_viewport(w, h);
            overlay_view view = { .view_proj = view_proj, .cam = &v->cam, .level = v->level, .width = w, .height = h,
                                  .scale = w >= 1000 ? 2.0f : 1.0f, .hover_x = mx, .hover_y = my };
            map_markers_draw(v->hud, &(map_markers_desc){ view, .entities = v->entities_on || missing ? &mi->entities : NULL,
                                                          .only = v->entities_on ? NULL : missing,
                                                          .leak = v->leak_on ? &mi->leak : NULL });
        }
        if (v->tools.gizmos) {
            int mx = -1, my = -1;
            if (!v->mouse_captured)
                frame_mouse(v, &mx, &my);
            view_lights_draw_gizmos(&v->tools, v->hud, v->scene, w, h, mx, my);
        }
        if (complete && !v->announced_ready) {
            v->announced_ready = true;
            printf("ready %s level %u\n", v->path, v->level);
            fflush(stdout);
        }
        bool shot_now = v->pending_shot && (complete || t - v->shot_requested > SHOT_WAIT_SECONDS);
        if (shot_now && !v->shot_with_hud)
            take_shot(v, w, h);

        view_lights_draw_panel(&v->tools, v->hud, w, h);
        if (!v->hud_hidden || v->help)
            draw_hud(v, w, h, fps, frame_ms, complete, t);
        if (shot_now && v->shot_with_hud)
            take_shot(v, w, h);
        SDL_GL_SwapWindow(v->window);
        pace_frame(v, t, complete && !input && !moved);
    }
    return 0;
}

/* GL 4.5 core, else 4.3, else 3.3 (the renderer's baseline). */
static SDL_GLContext create_context(SDL_Window *window)
{
    static const int versions[][2] = { { 4, 5 }, { 4, 3 }, { 3, 3 } };
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, versions[i][0]);
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, versions[i][1]);
        SDL_GLContext ctx = SDL_GL_CreateContext(window);
        if (ctx)
            return ctx;
    }
    return NULL;
}

/* Zero means default: the window's own, resolved here (the scene and the camera resolve theirs). */
static view_desc view_desc_defaults(const view_desc *desc)
{
    view_desc d = *desc;
    d.width = d.width > 0 ? d.width : PMFVIEW_DEFAULT_WIDTH;
    d.height = d.height > 0 ? d.height : PMFVIEW_DEFAULT_HEIGHT;
    return d;
}

int view_run(const view_desc *given)
{
    const view_desc resolved = view_desc_defaults(given), *desc = &resolved;
    viewer v;
    memset(&v, 0, sizeof v);
    view_lights_init(&v.tools);
    v.desc = desc;
    v.speed = 8.0;
    v.settings.exposure = 1.0f;
    v.settings.light_styles = true;  /* flickering and pulsing lights play as in the game */
    v.settings.no_models = desc->no_models;  /* read all the same: Ctrl+P shows them */
    v.start_camera = -1;
    snprintf(v.path, sizeof v.path, "%s", desc->path);
    snprintf(v.pmf_path, sizeof v.pmf_path, "%s", desc->pmf_path ? desc->pmf_path : desc->path);
    v.compiled = desc->compiled;
    v.given_camera = desc->has_camera;
    v.formats = desc->formats;
    v.settings.fog = true;           /* the world fades out where streaming ends, not abruptly */
    view_bookmarks_path(desc->path, v.cameras_path, sizeof v.cameras_path);

    char err[600];
    if (!map_level_count(v.pmf_path, &v.level_count, err, sizeof err)) {
        fprintf(stderr, "pmfview: %s\n", err);
        return 2;
    }
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 24);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
    int w = desc->width, h = desc->height;
    v.window = SDL_CreateWindow("pmfview", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, w, h,
                                SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    if (!v.window || !(v.gl = create_context(v.window))) {
        fprintf(stderr, "pmfview: cannot open an OpenGL 3.3 core window: %s\n", SDL_GetError());
        if (v.window)
            SDL_DestroyWindow(v.window);
        return 3;
    }
    int rc = 3;
    /* text input only while the teleport prompt is open (its opening G is not typed into it) */
    SDL_StopTextInput();
    SDL_GL_SetSwapInterval(desc->no_vsync ? 0 : 1);
    v.frame_interval = refresh_period(v.window, desc->no_vsync);
    if (!render_load_gl((render_getproc)SDL_GL_GetProcAddress, err, sizeof err)) {
        fprintf(stderr, "pmfview: %s\n", err);
    } else if (!(v.hud = hud_create(err, sizeof err))) {
        fprintf(stderr, "pmfview: %s\n", err);
    } else {
        scene_error e;
        scene *s = open_scene(&v, v.pmf_path, desc->level, &e);
        if (!s) {
            fprintf(stderr, "pmfview: %s\n", e.message);
            rc = e.exit_code;
        } else {
            v.lights = calloc(VIEW_MAX_LIGHTS, sizeof *v.lights);
            v.shown = calloc(VIEW_MAX_LIGHTS, sizeof *v.shown);
            if (!v.lights || !v.shown) {
                fputs("pmfview: out of memory\n", stderr);
                scene_close(s);
            } else {
                double t = now_seconds();
                install_scene(&v, s, desc->level, false, t);
                view_watch_init(&v.watch, v.path, t);
                rc = run_loop(&v);
                map_compile_cancel(&v.compile);
                map_compile_shutdown();
                scene_close(v.scene);
                scene_close(v.other);
                if (v.formats == &v.dropped_formats)
                    formats_scene_close(&v.dropped_formats);
            }
            free(v.lights);
            free(v.shown);
        }
        view_probes_close(&v.probes);
        view_regions_close(&v.regions);
        view_compare_free(&v.compare);
        view_lights_free(&v.tools);
        hud_destroy(v.hud);
    }
    SDL_GL_DeleteContext(v.gl);
    SDL_DestroyWindow(v.window);
    return rc;
}
