/* view_lights.c - the window's light gizmos, solo / mute and surface inspector. */
#include "view_lights.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "light_gizmos.h"
#include "text_clean.h"

#define MAX_CANDIDATES 1024

void view_lights_init(view_lights *vl)
{
    memset(vl, 0, sizeof *vl);
    vl->hovered = -1;
}

void view_lights_free(view_lights *vl)
{
    light_select_free(&vl->muted);
    view_lights_init(vl);
}

void view_lights_apply(const view_lights *vl, scene *s)
{
    if (vl->solo_on)
        scene_set_light_filter(s, true, &vl->solo, 1);
    else
        scene_set_light_filter(s, false, vl->muted.refs, vl->muted.count);
}

void view_lights_reset(view_lights *vl, scene *s)
{
    bool gizmos = vl->gizmos;
    view_lights_free(vl);
    vl->gizmos = gizmos;
    view_lights_apply(vl, s);
}

/* Every light of the level the tools can point at: the pmfview.lights entries, then the
 * dynamic and fast lights streamed in that the file does not list. */
static size_t candidates(const scene *s, scene_light_ref *out, size_t max)
{
    const pmf_lights *infos = scene_light_infos(s);
    uint32_t level = scene_level_index(s);
    size_t n = 0;
    for (uint32_t i = 0; i < infos->count && n < max; i++) {
        const pmf_light_info *l = &infos->list[i];
        if (l->level == level)
            out[n++] = (scene_light_ref){ l->kind, l->kind == PMF_LIGHT_STATIC ? i : l->id };
    }
    scene_light live[256];
    size_t count = scene_lights(s, live, 256);
    for (size_t i = 0; i < count && i < 256 && n < max; i++) {
        scene_light_ref r = { live[i].fast ? PMF_LIGHT_FAST : PMF_LIGHT_DYNAMIC, live[i].id };
        bool known = false;
        for (size_t j = 0; j < n && !known; j++)
            known = out[j].kind == r.kind && out[j].id == r.id;
        if (!known)
            out[n++] = r;
    }
    return n;
}

/* "lamp (static #0)", "dynamic 7 (red)" */
static void describe(const scene *s, scene_light_ref r, char *buf, size_t size)
{
    const pmf_lights *infos = scene_light_infos(s);
    const char *name = "";
    if (r.kind == PMF_LIGHT_STATIC && r.id < infos->count)
        name = infos->list[r.id].name;
    for (uint32_t i = 0; r.kind != PMF_LIGHT_STATIC && i < infos->count; i++)
        if (infos->list[i].kind == r.kind && infos->list[i].id == r.id && infos->list[i].level == scene_level_index(s))
            name = infos->list[i].name;
    char clean[96];
    text_clean(name, clean, sizeof clean);
    if (r.kind == PMF_LIGHT_STATIC)
        snprintf(buf, size, "static #%u%s%s", r.id, clean[0] ? " " : "", clean);
    else
        snprintf(buf, size, "%s %u%s%s", r.kind == PMF_LIGHT_FAST ? "fast" : "dynamic", r.id, clean[0] ? " " : "", clean);
}

static bool hovered_ref(const view_lights *vl, const scene *s, scene_light_ref *out)
{
    const pmf_lights *infos = scene_light_infos(s);
    if (!vl->gizmos || vl->hovered < 0 || (uint32_t)vl->hovered >= infos->count)
        return false;
    const pmf_light_info *l = &infos->list[vl->hovered];
    *out = (scene_light_ref){ l->kind, l->kind == PMF_LIGHT_STATIC ? (uint32_t)vl->hovered : l->id };
    return true;
}

static void key_solo(view_lights *vl, scene *s, bool shift, char *msg, size_t size)
{
    scene_light_ref *list = malloc(MAX_CANDIDATES * sizeof *list), target;
    size_t n = list ? candidates(s, list, MAX_CANDIDATES) : 0;
    if (hovered_ref(vl, s, &target)) {
        bool same = vl->solo_on && vl->solo.kind == target.kind && vl->solo.id == target.id;
        vl->solo_on = !same;
        vl->solo = target;
    } else if (!n) {
        snprintf(msg, size, "solo: no lights known in this level%s",
                 scene_light_infos(s)->count ? "" : " (no pmfview.lights: static lights are unknown)");
        free(list);
        return;
    } else {
        /* the next / previous candidate; past either end: solo off */
        long at = -1;
        for (size_t i = 0; vl->solo_on && i < n; i++)
            if (list[i].kind == vl->solo.kind && list[i].id == vl->solo.id)
                at = (long)i;
        long next = !vl->solo_on ? (shift ? (long)n - 1 : 0) : at + (shift ? -1 : 1);
        vl->solo_on = vl->solo_on ? (next >= 0 && next < (long)n && at >= 0) : true;
        if (vl->solo_on)
            vl->solo = list[next];
    }
    free(list);
    view_lights_apply(vl, s);
    if (vl->solo_on) {
        char what[160];
        describe(s, vl->solo, what, sizeof what);
        snprintf(msg, size, "solo %s%s", what, vl->solo.kind == PMF_LIGHT_STATIC ? " (direct term)" : "");
    } else {
        snprintf(msg, size, "solo off");
    }
}

static void key_mute(view_lights *vl, scene *s, bool shift, const scene_light *selected, char *msg, size_t size)
{
    if (shift) {
        vl->muted.count = 0;
        view_lights_apply(vl, s);
        snprintf(msg, size, "every light unmuted");
        return;
    }
    scene_light_ref target;
    if (!hovered_ref(vl, s, &target)) {
        if (!selected) {
            snprintf(msg, size, "mute: point at a light's icon (L) or select one in the lights panel (Tab)");
            return;
        }
        target = (scene_light_ref){ selected->fast ? PMF_LIGHT_FAST : PMF_LIGHT_DYNAMIC, selected->id };
    }
    bool was = light_select_has(&vl->muted, target);
    if (was) {
        size_t j = 0;
        for (size_t i = 0; i < vl->muted.count; i++)
            if (vl->muted.refs[i].kind != target.kind || vl->muted.refs[i].id != target.id)
                vl->muted.refs[j++] = vl->muted.refs[i];
        vl->muted.count = j;
    } else if (!light_select_push(&vl->muted, target)) {
        snprintf(msg, size, "mute: out of memory");
        return;
    }
    vl->solo_on = false;
    view_lights_apply(vl, s);
    char what[160];
    describe(s, target, what, sizeof what);
    snprintf(msg, size, "%s %s (%zu muted)", was ? "unmuted" : "muted", what, vl->muted.count);
}

void view_lights_key(view_lights *vl, scene *s, char key, bool shift, const scene_light *selected, char *msg,
                     size_t msg_size)
{
    msg[0] = '\0';
    if (key == 'l') {
        vl->gizmos = !vl->gizmos;
        snprintf(msg, msg_size, "light gizmos %s%s", vl->gizmos ? "on" : "off",
                 vl->gizmos && !scene_light_infos(s)->count ? " (no pmfview.lights: light places and static lights are unknown)" : "");
    } else if (key == 'o') {
        key_solo(vl, s, shift, msg, msg_size);
    } else if (key == 'u') {
        key_mute(vl, s, shift, selected, msg, msg_size);
    }
}

void view_lights_inspect_key(view_lights *vl, bool down)
{
    if (down) {
        vl->inspect_key = true;
        vl->inspect_clicked = false;
        return;
    }
    if (vl->inspect_key && !vl->inspect_clicked)
        vl->inspector = false;
    vl->inspect_key = false;
}

bool view_lights_click(view_lights *vl, const scene *s, int x, int y, int w, int h, char *msg, size_t msg_size)
{
    if (!vl->inspect_key)
        return false;
    vl->inspect_clicked = true;
    inspect_pixel(s, x, y, w, h, &vl->inspect);
    vl->inspector = true;
    /* stdout gets the JSON too, for scripts driving the window */
    char *json = inspect_json(&vl->inspect, true);
    if (json) {
        printf("inspect %s\n", json);
        fflush(stdout);
        free(json);
    }
    if (vl->inspect.hit) {
        char mat[96];
        text_clean(vl->inspect.material_name, mat, sizeof mat);
        snprintf(msg, msg_size, "inspected %s at %.2f, %.2f, %.2f", mat, vl->inspect.position[0], vl->inspect.position[1],
                 vl->inspect.position[2]);
    } else {
        snprintf(msg, msg_size, "inspector: nothing under the cursor");
    }
    return true;
}

static void draw_inspector(const view_lights *vl, hud *h, int w, int hgt)
{
    char text[4096];
    inspect_text(&vl->inspect, text, sizeof text);
    hud_begin(h, w, hgt, w >= 1000 ? 2.0f : 1.0f);
    float lh = hud_line_height(h), pad = lh / 3, width = 0;
    int lines = 1;
    for (char *line = text, *end; line; line = end ? end + 1 : NULL) {
        end = strchr(line, '\n');
        char one[512];
        size_t len = end ? (size_t)(end - line) : strlen(line);
        snprintf(one, sizeof one, "%.*s", (int)(len < sizeof one ? len : sizeof one - 1), line);
        float lw = hud_text_width(h, one);
        width = lw > width ? lw : width;
        lines += end != NULL;
    }
    float x = pad, y = hgt - lines * lh - 3 * pad;
    hud_rect(h, x, y, width + 2 * pad, lines * lh + 2 * pad, (const uint8_t[4]){ 0, 0, 0, 180 });
    hud_text(h, x + pad, y + pad, text, (const uint8_t[4]){ 255, 240, 170, 255 });
    /* the inspected pixel */
    if (vl->inspect.hit) {
        float px = (float)vl->inspect.pixel[0], py = (float)vl->inspect.pixel[1];
        static const uint8_t mark[4] = { 255, 60, 200, 255 };
        hud_rect(h, px - 6, py - 0.5f, 12, 1, mark);
        hud_rect(h, px - 0.5f, py - 6, 1, 12, mark);
    }
    hud_end(h);
}

void view_lights_draw_gizmos(view_lights *vl, hud *h, const scene *s, int w, int hgt, int mouse_x, int mouse_y)
{
    vl->hovered = -1;
    if (vl->gizmos) {
        float view_proj[16];
        scene_view_proj(s, view_proj);
        overlay_view view = { .view_proj = view_proj, .cam = scene_camera(s), .level = scene_level_index(s), .width = w,
                              .height = hgt, .scale = w >= 1000 ? 2.0f : 1.0f, .hover_x = mouse_x, .hover_y = mouse_y };
        vl->hovered = light_gizmos_draw(h, &(light_gizmos_desc){ view, .lights = scene_light_infos(s) });
    }
}

void view_lights_draw_panel(const view_lights *vl, hud *h, int w, int hgt)
{
    if (vl->inspector)
        draw_inspector(vl, h, w, hgt);
}
