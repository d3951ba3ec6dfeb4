/* view_keys.c - the window's keys (docs/viewer.md): one table, in the F1 list's order, of each key
 * with its modifiers, its action and its line; the key handler matches a press against it. */
#include <stdio.h>
#include <string.h>

#include "formats_scene.h"
#include "view_bookmarks.h"
#include "view_hud.h"
#include "viewer.h"

static void set_mode(viewer *v, render_mode mode)
{
    v->settings.mode = mode;
    viewer_say(v, "mode %s", render_mode_name(mode));
}

static void toggle_light(viewer *v, light_state *l, double t)
{
    l->enabled = !l->enabled;
    l->touched = true;
    viewer_apply_light(v, l, t);
}

/* T: everything off when anything is on, else everything on. */
static void toggle_all_lights(viewer *v, double t)
{
    bool any_on = false;
    for (size_t i = 0; i < v->light_count; i++)
        any_on |= v->lights[i].enabled;
    for (size_t i = 0; i < v->light_count; i++) {
        v->lights[i].enabled = !any_on;
        v->lights[i].touched = true;
        viewer_apply_light(v, &v->lights[i], t);
    }
    viewer_say(v, "all lights %s", any_on ? "off" : "on");
}

static light_state *selected_light(viewer *v)
{
    return v->selected < v->light_count ? &v->lights[v->selected] : NULL;
}

static void change_fast_intensity(viewer *v, int delta, double t)
{
    light_state *l = selected_light(v);
    if (!l || !l->fast) {
        viewer_say(v, "select a fast light first (Tab, Up / Down)");
        return;
    }
    int i = l->intensity + delta;
    l->intensity = (uint8_t)(i < 0 ? 0 : i > 255 ? 255 : i);
    l->enabled = true;
    l->touched = true;
    viewer_apply_light(v, l, t);
    viewer_say(v, "fast light %u intensity %u", l->id, l->intensity);
}

/* A PM4 layer on or off: the map is written again with the new layers and reloaded, camera kept. */
static void toggle_pm4_layer(viewer *v, unsigned layer, double t)
{
    formats_scene *fs = v->formats;
    if (fs->kind != PMF_KIND_PM4) {
        viewer_say(v, "layers are for PM4 files");
        return;
    }
    char err[600];
    if (!formats_scene_set_layers(fs, fs->layers ^ layer, err, sizeof err)) {
        snprintf(v->error, sizeof v->error, "%s", err);
        return;
    }
    viewer_reload(v, t);
    view_watch_init(&v->watch, v->path, t);
    viewer_say(v, "%s %s", formats_layer_name(layer), fs->layers & layer ? "on" : "off");
}

/* Start camera `index` of the file (conventions §4), on its own level (switched to if needed). */
static void jump_to_start_camera(viewer *v, int index, double t)
{
    const pmf_cameras *cams = scene_start_cameras(v->scene);
    if (index < 0 || (uint32_t)index >= cams->count) {
        viewer_say(v, "no start camera %d (the map has %u)", index + 1, cams->count);
        return;
    }
    const pmf_camera c = cams->list[index];
    char name[256];
    map_compile_clean_line(c.name, strlen(c.name), name, sizeof name);
    if (c.level != v->level) {
        viewer_switch_level(v, (int)c.level - (int)v->level, t);
        if (c.level != v->level)
            return;
    }
    camera_set_world(&v->cam, (const double[3]){ c.pos[0], c.pos[1], c.pos[2] }, c.yaw, c.pitch);
    v->start_camera = index;
    viewer_say(v, "start camera %d: %s", index + 1, name);
}

/* N / Shift+N: the next / previous start camera of the current level. */
static void cycle_start_camera(viewer *v, int step, double t)
{
    const pmf_cameras *cams = scene_start_cameras(v->scene);
    int n = (int)cams->count, from = v->start_camera >= 0 ? v->start_camera : step > 0 ? n - 1 : 0;
    for (int k = 1; k <= n; k++) {
        int i = ((from + step * k) % n + n) % n;
        if (cams->list[i].level == v->level) {
            jump_to_start_camera(v, i, t);
            return;
        }
    }
    viewer_say(v, "level %u has no start cameras", v->level);
}

static void bookmark(viewer *v, int slot, bool save, double t)
{
    char err[1300];
    double world[3];
    if (save) {
        camera_get_world(&v->cam, world);
        if (view_bookmark_save(v->cameras_path, slot, v->level, world, v->cam.yaw, v->cam.pitch, err, sizeof err))
            viewer_say(v, "bookmark %d saved to %s", slot, v->cameras_path);
        else
            viewer_say(v, "%s", err);
        return;
    }
    float yaw, pitch;
    long level;
    if (view_bookmark_load(v->cameras_path, slot, &level, world, &yaw, &pitch, err, sizeof err)) {
        /* back to the level it was saved in first */
        if (level >= 0 && level != (long)v->level && !viewer_switch_level(v, level - (long)v->level, t))
            return;
        camera_set_world(&v->cam, world, yaw, pitch);
        viewer_say(v, "bookmark %d recalled", slot);
    } else {
        viewer_say(v, "%s", err);
    }
}

static void toggle_regions(viewer *v, int kind)
{
    if (!v->regions.lf.file) {
        char err[512];
        if (!view_regions_open(&v->regions, v->pmf_path, v->level, err, sizeof err)) {
            viewer_say(v, "regions: %s", err);
            return;
        }
    }
    v->regions.kinds ^= VIEW_REGION_BIT(kind);
    viewer_say(v, "%s regions %s", view_region_kind_name(kind), v->regions.kinds & VIEW_REGION_BIT(kind) ? "on" : "off");
}

/* X: the version before the last reload and the current one, in turn. */
static bool flip_versions(viewer *v, const view_key_press *k)
{
    (void)k;
    if (!v->other) {
        viewer_say(v, "no previous version yet (one is kept at the next reload)");
        return true;
    }
    scene *shown = v->other;
    v->other = v->scene;
    v->scene = shown;
    v->showing_previous = !v->showing_previous;
    viewer_say(v, "showing the %s version", v->showing_previous ? "previous" : "current");
    return true;
}

/* V: the signed difference, previous to current (image_compare.h). */
static bool toggle_difference(viewer *v, const view_key_press *k)
{
    (void)k;
    if (!v->other) {
        viewer_say(v, "no previous version yet (one is kept at the next reload)");
        return true;
    }
    v->difference = !v->difference;
    v->difference_reported = false;
    viewer_say(v, "difference %s", v->difference ? "on" : "off");
    return true;
}

/* Keys while the teleport prompt is open (typed characters come as text input). */
static void teleport_key(viewer *v, SDL_Keycode sym)
{
    if (sym == SDLK_BACKSPACE) {
        view_teleport_backspace(&v->teleport);
        return;
    }
    if (sym != SDLK_RETURN && sym != SDLK_KP_ENTER && sym != SDLK_ESCAPE)
        return;
    view_teleport_close(&v->teleport);
    SDL_StopTextInput();
    if (sym == SDLK_ESCAPE)
        return;
    double pos[3];
    float yaw = v->cam.yaw, pitch = v->cam.pitch;
    bool angles;
    if (!view_teleport_parse(v->teleport.text, pos, &yaw, &pitch, &angles)) {
        viewer_say(v, "not a position: '%s' (X,Y,Z or X,Y,Z,YAW,PITCH)", v->teleport.text);
        return;
    }
    pitch = pitch > 89.0f ? 89.0f : pitch < -89.0f ? -89.0f : pitch;
    camera_set_world(&v->cam, pos, yaw, pitch);
    viewer_say(v, "teleported to %s", v->teleport.text);
}

/* ---- the keys' actions ------------------------------------------------------------------------ */

static bool key_capture(viewer *v, const view_key_press *k)
{
    (void)k;
    viewer_set_capture(v, !v->mouse_captured);
    return true;
}

static bool key_start_view(viewer *v, const view_key_press *k)
{
    (void)k;
    v->cam = v->start_cam;
    viewer_say(v, "start camera");
    return true;
}

static bool key_jump_to_start_camera(viewer *v, const view_key_press *k)
{
    jump_to_start_camera(v, k->index, k->t);
    return true;
}

static bool key_cycle_start_camera(viewer *v, const view_key_press *k)
{
    cycle_start_camera(v, k->key->arg, k->t);
    return true;
}

static bool key_switch_level(viewer *v, const view_key_press *k)
{
    viewer_switch_level(v, k->key->arg, k->t);
    return true;
}

static bool key_teleport(viewer *v, const view_key_press *k)
{
    (void)k;
    view_teleport_open(&v->teleport);
    SDL_StartTextInput();
    return true;
}

static bool key_mode(viewer *v, const view_key_press *k)
{
    set_mode(v, (render_mode)k->key->arg);
    return true;
}

static bool key_regions(viewer *v, const view_key_press *k)
{
    toggle_regions(v, k->key->arg);
    return true;
}

static bool key_wireframe(viewer *v, const view_key_press *k)
{
    (void)k;
    v->settings.wireframe = !v->settings.wireframe;
    viewer_say(v, "wireframe %s", v->settings.wireframe ? "on" : "off");
    return true;
}

static bool key_luxel_grid(viewer *v, const view_key_press *k)
{
    (void)k;
    v->settings.luxel_grid = !v->settings.luxel_grid;
    viewer_say(v, "luxel grid %s", v->settings.luxel_grid ? "on" : "off");
    return true;
}

static bool key_probes(viewer *v, const view_key_press *k)
{
    (void)k;
    v->probes_on = !v->probes_on;
    if (v->probes_on && !v->probes.lf.file) {
        char err[512];
        if (!view_probes_open(&v->probes, v->pmf_path, v->level, err, sizeof err)) {
            v->probes_on = false;
            viewer_say(v, "probes: %s", err);
            return true;
        }
    }
    viewer_say(v, "light probes %s", v->probes_on ? "on" : "off");
    return true;
}

static bool key_visibility(viewer *v, const view_key_press *k)
{
    (void)k;
    v->settings.vis = v->settings.vis == SCENE_VIS_ON ? SCENE_VIS_OFF
                    : v->settings.vis == SCENE_VIS_OFF ? SCENE_VIS_FROZEN : SCENE_VIS_ON;
    viewer_say(v, "visibility %s", v->settings.vis == SCENE_VIS_ON ? "on" : v->settings.vis == SCENE_VIS_OFF ? "off" : "frozen");
    return true;
}

static bool key_sky(viewer *v, const view_key_press *k)
{
    (void)k;
    v->settings.no_sky = !v->settings.no_sky;
    viewer_say(v, "sky %s", v->settings.no_sky ? "off" : "on");
    return true;
}

static bool key_fog(viewer *v, const view_key_press *k)
{
    (void)k;
    v->settings.fog = !v->settings.fog;
    viewer_say(v, "fog %s", v->settings.fog ? "on" : "off");
    return true;
}

/* [ and ]: arg -1 / +1. */
static bool key_exposure(viewer *v, const view_key_press *k)
{
    float e = v->settings.exposure > 0 ? v->settings.exposure : 1.0f;
    v->settings.exposure = k->key->arg > 0 ? e * 1.25f : e / 1.25f;
    viewer_say(v, "exposure %.2f", v->settings.exposure);
    return true;
}

static bool key_exposure_reset(viewer *v, const view_key_press *k)
{
    (void)k;
    v->settings.exposure = 1.0f;
    viewer_say(v, "exposure 1.00");
    return true;
}

static bool key_lights_panel(viewer *v, const view_key_press *k)
{
    (void)k;
    v->lights_panel = !v->lights_panel;
    return true;
}

/* Up and Down: arg -1 / +1. */
static bool key_select_light(viewer *v, const view_key_press *k)
{
    if (k->key->arg < 0 && v->selected > 0)
        v->selected--;
    else if (k->key->arg > 0 && v->selected + 1 < v->light_count)
        v->selected++;
    v->lights_panel = true;
    return true;
}

static bool key_toggle_selected_light(viewer *v, const view_key_press *k)
{
    light_state *l = selected_light(v);
    if (l) {
        toggle_light(v, l, k->t);
        viewer_say(v, "%s light %u %s", l->fast ? "fast" : "dynamic", l->id, l->enabled ? "on" : "off");
    }
    return true;
}

/* Left and Right: arg -1 / +1, in steps of 16 (1 with Ctrl). */
static bool key_fast_intensity(viewer *v, const view_key_press *k)
{
    change_fast_intensity(v, k->key->arg * (k->ctrl ? 1 : 16), k->t);
    v->lights_panel = true;
    return true;
}

static bool key_toggle_all_lights(viewer *v, const view_key_press *k)
{
    toggle_all_lights(v, k->t);
    return true;
}

static bool key_fast_animation(viewer *v, const view_key_press *k)
{
    v->fast_anim = (v->fast_anim + 1) % VIEW_ANIM_COUNT;
    for (size_t i = 0; i < v->light_count; i++)
        if (v->lights[i].fast)
            viewer_apply_light(v, &v->lights[i], k->t);
    viewer_say(v, "fast light animation %s", v->fast_anim == VIEW_ANIM_FLICKER ? "flicker" : v->fast_anim == VIEW_ANIM_PULSE ? "pulse" : "off");
    return true;
}

static bool key_light_styles(viewer *v, const view_key_press *k)
{
    (void)k;
    v->settings.light_styles = !v->settings.light_styles;
    viewer_say(v, "light styles %s", v->settings.light_styles ? "play" : "held as baked");
    return true;
}

/* L, O, U (arg: the letter) with or without Shift: view_lights.h. */
static bool key_light_tool(viewer *v, const view_key_press *k)
{
    char msg[512];
    const scene_light *sel = v->lights_panel && v->selected < v->light_count ? &v->shown[v->selected] : NULL;
    view_lights_key(&v->tools, v->scene, (char)k->key->arg, k->shift, sel, msg, sizeof msg);
    if (msg[0])
        viewer_say(v, "%s", msg);
    return true;
}

static bool key_entities(viewer *v, const view_key_press *k)
{
    (void)k;
    v->entities_on = !v->entities_on;
    viewer_say(v, "point entities %s (%u)", v->entities_on ? "on" : "off", scene_map_infos(v->scene)->entities.count);
    return true;
}

static bool key_models(viewer *v, const view_key_press *k)
{
    (void)k;
    v->settings.no_models = !v->settings.no_models;
    viewer_say(v, "entity models %s (%zu entities have one)", v->settings.no_models ? "off" : "on", scene_model_count(v->scene));
    return true;
}

static bool key_leak(viewer *v, const view_key_press *k)
{
    (void)k;
    v->leak_on = !v->leak_on;
    viewer_say(v, "leak %s%s", v->leak_on ? "on" : "off",
        v->leak_on && !scene_map_infos(v->scene)->leak.present ? " (the map does not leak)" : "");
    return true;
}

/* The map's look, then each of the three in turn. */
static bool key_look(viewer *v, const view_key_press *k)
{
    (void)k;
    v->settings.look = (scene_look)((v->settings.look + 1) % (SCENE_LOOK_QUAKE + 1));
    viewer_say(v, "look %s%s", v->settings.look == SCENE_LOOK_MAP ? "of the map: " : "",
        pmf_look_name((unsigned)scene_look_drawn_for(v->scene, v->settings.look)));
    return true;
}

static bool key_inspect(viewer *v, const view_key_press *k)
{
    (void)k;
    view_lights_inspect_key(&v->tools, true);
    return true;
}

/* 1..9 (arg 0) and Shift+1..9 (arg 1): recall / save bookmark 1..9. */
static bool key_bookmark(viewer *v, const view_key_press *k)
{
    bookmark(v, k->index + 1, k->key->arg != 0, k->t);
    return true;
}

/* Ctrl+1..4: a PM4 file's layers; any other map leaves the keys to the bookmarks. */
static bool key_pm4_layer(viewer *v, const view_key_press *k)
{
    if (!v->formats)
        return false;
    toggle_pm4_layer(v, 1u << k->index, k->t);
    return true;
}

/* F12, Shift+F12 (4x the window's size; Ctrl ignored), Ctrl+F12 (with the HUD). */
static bool key_screenshot(viewer *v, const view_key_press *k)
{
    v->pending_shot = k->shift ? HIRES_FACTOR : 1;
    v->shot_with_hud = k->ctrl && !k->shift;
    v->shot_requested = k->t;
    return true;
}

static bool key_fullscreen(viewer *v, const view_key_press *k)
{
    (void)k;
    bool full = (SDL_GetWindowFlags(v->window) & SDL_WINDOW_FULLSCREEN_DESKTOP) != 0;
    SDL_SetWindowFullscreen(v->window, full ? 0 : SDL_WINDOW_FULLSCREEN_DESKTOP);
    return true;
}

static bool key_hide_hud(viewer *v, const view_key_press *k)
{
    (void)k;
    v->hud_hidden = !v->hud_hidden;
    return true;
}

/* `: the last compile's warnings, listed on the HUD and printed on stdout. */
static bool key_warnings(viewer *v, const view_key_press *k)
{
    (void)k;
    if (!v->warnings.count) {
        v->warnings_list = false;
        viewer_say(v, "no compile warnings");
        return true;
    }
    v->warnings_list = !v->warnings_list;
    viewer_say(v, "compile warnings %s", v->warnings_list ? "listed" : "closed");
    for (unsigned i = 0; v->warnings_list && i < v->warnings.kept; i++)
        printf("%s\n", v->warnings.lines[i]);
    fflush(stdout);
    return true;
}

static bool key_help(viewer *v, const view_key_press *k)
{
    (void)k;
    v->help = !v->help;
    return true;
}

static bool key_escape(viewer *v, const view_key_press *k)
{
    (void)k;
    if (v->mouse_captured)
        viewer_set_capture(v, false);
    else
        v->quit = true;
    return true;
}

/* Every key, in the F1 list's order (docs/viewer.md says the same). */
const view_key viewer_keys[] = {
    { .keys = "W A S D", .help = "fly forward / left / back / right" },
    { .keys = "Space / E, C / Q", .help = "up / down" },
    { .keys = "Shift, Ctrl", .help = "x4 speed, x0.1 speed" },
    { .keys = "mouse wheel", .help = "base speed up / down" },
    { .keys = "right mouse (hold)", .help = "look around" },
    { "M", "capture the mouse (look without holding)", SDLK_m, .action = key_capture },
    { "R / Home", "back to the start camera", SDLK_r, .action = key_start_view },
    { NULL, NULL, SDLK_HOME, .action = key_start_view },
    { "Alt+1..9", "jump to the map's start camera 1..9", 0, .scan = { SDL_SCANCODE_1, SDL_SCANCODE_9 },
      .mods = VIEW_KEY_ALT, .action = key_jump_to_start_camera },
    { "N / Shift+N", "next / previous start camera of the level", SDLK_n, .action = key_cycle_start_camera, .arg = 1 },
    { NULL, NULL, SDLK_n, .mods = VIEW_KEY_SHIFT, .action = key_cycle_start_camera, .arg = -1 },
    { "PageUp / PageDown", "previous / next level", SDLK_PAGEUP, .action = key_switch_level, .arg = -1 },
    { NULL, NULL, SDLK_PAGEDOWN, .action = key_switch_level, .arg = 1 },
    { "G", "teleport: type X,Y,Z[,YAW,PITCH]", SDLK_g, .action = key_teleport },
    { "F2 F3 F4", "mode: full / lightmap / fullbright", SDLK_F2, .action = key_mode, .arg = RENDER_MODE_FULL },
    { NULL, NULL, SDLK_F3, .action = key_mode, .arg = RENDER_MODE_LIGHTMAP },
    { NULL, NULL, SDLK_F4, .action = key_mode, .arg = RENDER_MODE_FULLBRIGHT },
    { "B", "mode: lightmap density heat-map (F2 back)", SDLK_b, .action = key_mode, .arg = RENDER_MODE_DENSITY },
    { "X", "after a reload: previous / current version", SDLK_x, .action = flip_versions },
    { "V", "after a reload: difference previous -> current", SDLK_v, .action = toggle_difference },
    { "Y, Z", "weather / gravity regions", SDLK_y, .action = key_regions, .arg = VIEW_REGION_WEATHER },
    { NULL, NULL, SDLK_z, .action = key_regions, .arg = VIEW_REGION_GRAVITY },
    { ", .", "sound / sky regions", SDLK_COMMA, .action = key_regions, .arg = VIEW_REGION_SOUND },
    { NULL, NULL, SDLK_PERIOD, .action = key_regions, .arg = VIEW_REGION_SKY },
    { "J / Shift+J", "load regions / pathfinding data", SDLK_j, .action = key_regions, .arg = VIEW_REGION_LOAD },
    { NULL, NULL, SDLK_j, .mods = VIEW_KEY_SHIFT, .action = key_regions, .arg = VIEW_REGION_PATH },
    { "F5", "wireframe overlay", SDLK_F5, .action = key_wireframe },
    { "F6", "lightmap luxel grid", SDLK_F6, .action = key_luxel_grid },
    { "F7", "light-probe overlay (cube lighting)", SDLK_F7, .action = key_probes },
    { "F8", "visibility: on / off / frozen", SDLK_F8, .action = key_visibility },
    { "F9", "sky on / off", SDLK_F9, .action = key_sky },
    { "F10", "distance fog on / off", SDLK_F10, .action = key_fog },
    { "[ ] \\", "exposure down / up / reset", SDLK_LEFTBRACKET, .flags = VIEW_KEY_REPEATS,
      .action = key_exposure, .arg = -1 },
    { NULL, NULL, SDLK_RIGHTBRACKET, .flags = VIEW_KEY_REPEATS, .action = key_exposure, .arg = 1 },
    { NULL, NULL, SDLK_BACKSLASH, .action = key_exposure_reset },
    { "Tab", "lights panel", SDLK_TAB, .flags = VIEW_KEY_LIGHTS, .action = key_lights_panel },
    { "Up / Down", "select a light", SDLK_UP, .flags = VIEW_KEY_REPEATS | VIEW_KEY_LIGHTS,
      .action = key_select_light, .arg = -1 },
    { NULL, NULL, SDLK_DOWN, .flags = VIEW_KEY_REPEATS | VIEW_KEY_LIGHTS, .action = key_select_light, .arg = 1 },
    { "Enter", "toggle the selected light", SDLK_RETURN, .flags = VIEW_KEY_LIGHTS,
      .action = key_toggle_selected_light },
    { NULL, NULL, SDLK_KP_ENTER, .flags = VIEW_KEY_LIGHTS, .action = key_toggle_selected_light },
    { "Left / Right", "fast light intensity -16 / +16", SDLK_LEFT, .flags = VIEW_KEY_REPEATS | VIEW_KEY_LIGHTS,
      .action = key_fast_intensity, .arg = -1 },
    { NULL, NULL, SDLK_RIGHT, .flags = VIEW_KEY_REPEATS | VIEW_KEY_LIGHTS, .action = key_fast_intensity, .arg = 1 },
    { "T", "toggle all lights", SDLK_t, .flags = VIEW_KEY_LIGHTS, .action = key_toggle_all_lights },
    { "K", "animate fast lights: off / flicker / pulse", SDLK_k, .action = key_fast_animation },
    { "Shift+K", "light styles (flicker, pulse, candle...): play / hold as baked", SDLK_k, .mods = VIEW_KEY_SHIFT,
      .action = key_light_styles },
    { "L", "light gizmos: icon, reach and name (mouse over) of every light", SDLK_l,
      .action = key_light_tool, .arg = 'l' },
    { "P / Shift+P / Ctrl+P", "point entities (class and name under the mouse) / the leak / their models (--game)", SDLK_p,
      .action = key_entities },
    { NULL, NULL, SDLK_p, .mods = VIEW_KEY_SHIFT, .action = key_leak },
    { NULL, NULL, SDLK_p, .mods = VIEW_KEY_CTRL, .action = key_models },
    { "F", "look: the map's, raw, goldsrc, quake (the game's display curve)", SDLK_f, .action = key_look },
    { "O / Shift+O", "solo the light under the mouse, else the next / previous; then off", SDLK_o,
      .action = key_light_tool, .arg = 'o' },
    { "U / Shift+U", "mute the light under the mouse (or the panel's) / unmute all", SDLK_u, .action = key_light_tool,
      .arg = 'u' },
    { "I + click", "surface inspector on that pixel; I alone closes it", SDLK_i, .action = key_inspect },
    { "1..9, Shift+1..9", "recall / save camera bookmark", 0, .scan = { SDL_SCANCODE_1, SDL_SCANCODE_9 },
      .action = key_bookmark },
    { NULL, NULL, 0, .scan = { SDL_SCANCODE_1, SDL_SCANCODE_9 }, .mods = VIEW_KEY_SHIFT,
      .action = key_bookmark, .arg = 1 },
    { "Ctrl+1..4", "PM4: surfaces / paths / exterior / references", 0, .scan = { SDL_SCANCODE_1, SDL_SCANCODE_4 },
      .mods = VIEW_KEY_CTRL, .action = key_pm4_layer },
    { "F12 / Shift+F12 / Ctrl+F12", "screenshot / 4x size / with the HUD", SDLK_F12, .action = key_screenshot },
    { "F11", "fullscreen", SDLK_F11, .action = key_fullscreen },
    { "H", "hide / show the HUD", SDLK_h, .action = key_hide_hud },
    { "`", "the last compile's warnings", SDLK_BACKQUOTE, .action = key_warnings },
    { "F1", "this list", SDLK_F1, .action = key_help },
    { "Esc", "release the mouse, else quit", SDLK_ESCAPE, .action = key_escape },
};
const size_t viewer_key_count = sizeof viewer_keys / sizeof viewer_keys[0];

static unsigned held_mods(const SDL_Keysym *ks)
{
    return ((ks->mod & KMOD_SHIFT) ? VIEW_KEY_SHIFT : 0) | ((ks->mod & KMOD_ALT) ? VIEW_KEY_ALT : 0) |
           ((ks->mod & KMOD_CTRL) ? VIEW_KEY_CTRL : 0);
}

static bool key_matches(const view_key *key, const SDL_Keysym *ks, unsigned held)
{
    if (!key->action || (key->mods & held) != key->mods)
        return false;
    if (key->sym)
        return key->sym == ks->sym;
    return (int)ks->scancode >= key->scan[0] && (int)ks->scancode <= key->scan[1];
}

/* The row that wants the most modifiers of those held acts first (view_keys.h), then the table's
 * order; a row whose action declines leaves the press to the next. */
void viewer_key_down(viewer *v, const SDL_KeyboardEvent *k, double t)
{
    if (v->teleport.open) {
        teleport_key(v, k->keysym.sym);
        return;
    }
    unsigned held = held_mods(&k->keysym);
    for (int mods = VIEW_KEY_ALL_MODS; mods >= 0; mods--)
        for (size_t i = 0; i < viewer_key_count; i++) {
            const view_key *key = &viewer_keys[i];
            if (key->mods != (unsigned)mods || !key_matches(key, &k->keysym, held))
                continue;
            if (key->flags & VIEW_KEY_LIGHTS) {
                v->next_light_poll = 0;
                viewer_learn_lights(v, t);
            }
            if (k->repeat && !(key->flags & VIEW_KEY_REPEATS))
                return;
            view_key_press press = { key, (held & VIEW_KEY_SHIFT) != 0, (held & VIEW_KEY_CTRL) != 0,
                                     key->sym ? 0 : (int)k->keysym.scancode - key->scan[0], t };
            if (key->action(v, &press))
                return;
        }
}

