/* view_hud.c - composes the viewer's HUD: status, lights panel, loading bar, messages, key list. */
#include "view_hud.h"

#include <stdio.h>
#include <string.h>

static const uint8_t panel_bg[4] = { 0, 0, 0, 150 };
static const uint8_t text_dim[4] = { 190, 190, 190, 255 };
static const uint8_t text_hot[4] = { 255, 220, 80, 255 };
static const uint8_t text_err[4] = { 255, 90, 90, 255 };

static const char *vis_name(scene_vis v)
{
    switch (v) {
    case SCENE_VIS_OFF: return "off";
    case SCENE_VIS_FROZEN: return "frozen";
    default: return "on";
    }
}

static void human_count(uint64_t n, char *out, size_t size)
{
    if (n >= 10000000)
        snprintf(out, size, "%.1fM", (double)n / 1e6);
    else if (n >= 10000)
        snprintf(out, size, "%.1fk", (double)n / 1e3);
    else
        snprintf(out, size, "%llu", (unsigned long long)n);
}

/* Lines in a dark panel at (x, y); returns the panel's height. */
static float panel(hud *h, float x, float y, const char *const *lines, const uint8_t (*colors)[4], int count)
{
    float lh = hud_line_height(h), w = 0;
    for (int i = 0; i < count; i++) {
        float lw = hud_text_width(h, lines[i]);
        if (lw > w)
            w = lw;
    }
    float pad = 3 * lh / 12;
    hud_rect(h, x, y, w + 2 * pad, count * lh + 2 * pad, panel_bg);
    for (int i = 0; i < count; i++)
        hud_text(h, x + pad, y + pad + i * lh, lines[i], colors ? colors[i] : NULL);
    return count * lh + 2 * pad;
}

static void draw_status(hud *h, const view_hud_info *in)
{
    char l[9][160];
    const camera *c = in->cam;
    double world[3];
    camera_get_world(c, world);
    const char *name = strrchr(in->path, '/');
    name = name ? name + 1 : in->path;
    char tris[32];
    human_count(in->stats->triangles, tris, sizeof tris);

    snprintf(l[0], sizeof l[0], "%.0f fps  %.2f ms", in->fps, in->frame_ms);
    snprintf(l[1], sizeof l[1], "pos %.2f %.2f %.2f  yaw %.1f pitch %.1f", world[0], world[1], world[2], c->yaw, c->pitch);
    snprintf(l[2], sizeof l[2], "chunk %d,%d,%d  local %.2f %.2f %.2f", c->chunk[0], c->chunk[1], c->chunk[2],
             c->local[0], c->local[1], c->local[2]);
    snprintf(l[3], sizeof l[3], "chunks %u/%u loaded  %u streaming%s", in->stats->chunks_loaded,
             in->stats->chunks_present, in->stats->chunks_streaming, in->stats->chunks_failed ? "  (some failed)" : "");
    snprintf(l[4], sizeof l[4], "draws %u  tris %s  chunks drawn %u", in->stats->draw_calls, tris,
             in->stats->visible_chunks);
    char probes[32] = "";
    if (in->probes)
        snprintf(probes, sizeof probes, "  probes %zu", in->probe_count);
    snprintf(l[5], sizeof l[5], "mode %s  exp %.2f  vis %s%s%s%s%s", render_mode_name(in->settings->mode),
             in->settings->exposure > 0 ? in->settings->exposure : 1.0f, vis_name(in->settings->vis),
             in->settings->wireframe ? "  wire" : "", probes, in->settings->no_sky ? "  no sky" : "", in->tools ? in->tools : "");
    snprintf(l[6], sizeof l[6], "speed %.2f m/s%s", in->speed, in->mouse_captured ? "  mouse captured" : "");
    snprintf(l[7], sizeof l[7], "level %u of %u  %s  look %s%s", in->level, in->level_count, name, in->look ? in->look : "raw",
             in->fullbright ? "  no lights: fullbright" : "");
    snprintf(l[8], sizeof l[8], "F1 keys  H hide HUD");
    if (in->warnings && in->warnings->count)
        snprintf(l[8] + strlen(l[8]), sizeof l[8] - strlen(l[8]), "  ` %u compile warning%s", in->warnings->count,
                 in->warnings->count == 1 ? "" : "s");
    const char *lines[9];
    uint8_t colors[9][4];
    for (int i = 0; i < 9; i++) {
        lines[i] = l[i];
        memcpy(colors[i], i == 8 ? text_dim : (const uint8_t[4]){ 255, 255, 255, 255 }, 4);
    }
    float lh = hud_line_height(h);
    panel(h, lh / 3, lh / 3, lines, (const uint8_t (*)[4])colors, 9);
}

static void draw_lights(hud *h, int width, const view_hud_info *in)
{
    enum { MAX_ROWS = 24 };
    char l[MAX_ROWS + 1][96];
    const char *lines[MAX_ROWS + 1];
    uint8_t colors[MAX_ROWS + 1][4];
    int n = 0;
    snprintf(l[n], sizeof l[n], "lights %zu  fast anim %s", in->light_count,
             in->fast_anim == VIEW_ANIM_FLICKER ? "flicker" : in->fast_anim == VIEW_ANIM_PULSE ? "pulse" : "off");
    memcpy(colors[n++], text_dim, 4);
    /* Scroll so the selection stays in view. */
    size_t first = in->selected >= MAX_ROWS ? in->selected - MAX_ROWS + 1 : 0;
    for (size_t i = first; i < in->light_count && n <= MAX_ROWS; i++) {
        const scene_light *li = &in->lights[i];
        if (li->fast)
            snprintf(l[n], sizeof l[n], "%c fast %u  %3u  rgb %u %u %u", i == in->selected ? '>' : ' ', li->id,
                     li->intensity, li->color[0], li->color[1], li->color[2]);
        else
            snprintf(l[n], sizeof l[n], "%c dyn  %u  %s  rgb %u %u %u", i == in->selected ? '>' : ' ', li->id,
                     li->enabled ? "on " : "off", li->color[0], li->color[1], li->color[2]);
        const uint8_t *c = i == in->selected ? text_hot : (li->fast ? li->intensity : li->enabled) ? (const uint8_t[4]){ 255, 255, 255, 255 } : text_dim;
        memcpy(colors[n++], c, 4);
    }
    if (!in->light_count) {
        snprintf(l[n], sizeof l[n], "no lights in the chunks seen");
        memcpy(colors[n++], text_dim, 4);
    }
    for (int i = 0; i < n; i++)
        lines[i] = l[i];
    float w = 0, lh = hud_line_height(h);
    for (int i = 0; i < n; i++)
        if (hud_text_width(h, lines[i]) > w)
            w = hud_text_width(h, lines[i]);
    panel(h, (float)width - w - lh, lh / 3, lines, (const uint8_t (*)[4])colors, n);
}

/* The key list in as many columns as the window's height needs. */
typedef struct help_layout { int rows; float keys_w, column_w, w, hgt; } help_layout;

static help_layout layout_help(const hud *h, int height, const view_hud_info *in)
{
    float lh = hud_line_height(h), pad = lh / 4, keys_w = 0, what_w = hud_text_width(h, "keys (F1 closes)");
    int n = 0;
    for (size_t i = 0; i < in->key_count; i++) {
        if (!in->keys[i].help)
            continue;
        float kw = hud_text_width(h, in->keys[i].keys), ww = hud_text_width(h, in->keys[i].help);
        keys_w = kw > keys_w ? kw : keys_w;
        what_w = ww > what_w ? ww : what_w;
        n++;
    }
    int rows = (int)(((float)height - 2 * pad) / lh) - 1;
    rows = rows < 1 ? 1 : rows > n ? n : rows;
    int columns = (n + rows - 1) / rows;
    rows = (n + columns - 1) / columns;
    float gap = lh, column_w = keys_w + gap + what_w + 2 * gap;
    return (help_layout){ rows, keys_w, column_w, columns * column_w - 2 * gap + 2 * pad, (rows + 1) * lh + 2 * pad };
}

/* Every key of the window's table that has a line (view_keys.h). */
static void draw_help(hud *h, int width, int height, const view_hud_info *in)
{
    help_layout l = layout_help(h, height, in);
    float lh = hud_line_height(h), pad = lh / 4, gap = lh;
    float x = ((float)width - l.w) / 2, y = ((float)height - l.hgt) / 2;
    x = x > 0 ? x : 0;
    y = y > 0 ? y : 0;
    hud_rect(h, x, y, l.w, l.hgt, panel_bg);
    hud_text(h, x + pad, y + pad, "keys (F1 closes)", text_hot);
    int line = 0;
    for (size_t i = 0; i < in->key_count; i++) {
        if (!in->keys[i].help)
            continue;
        float cx = x + pad + (line / l.rows) * l.column_w, cy = y + pad + (line % l.rows + 1) * lh;
        hud_text(h, cx, cy, in->keys[i].keys, text_hot);
        hud_text(h, cx + l.keys_w + gap, cy, in->keys[i].help, NULL);
        line++;
    }
}

/* The last compile's warnings as it kept them, and how many more it gave. */
static void draw_warnings(hud *h, const view_hud_info *in)
{
    const map_compile_warnings *w = in->warnings;
    char head[96], more[96];
    const char *lines[MAP_COMPILE_WARNINGS_KEPT + 2];
    uint8_t colors[MAP_COMPILE_WARNINGS_KEPT + 2][4];
    int n = 0;
    snprintf(head, sizeof head, "%u compile warning%s (` closes)", w->count, w->count == 1 ? "" : "s");
    memcpy(colors[n], text_hot, 4);
    lines[n++] = head;
    for (unsigned i = 0; i < w->kept; i++) {
        memcpy(colors[n], (const uint8_t[4]){ 255, 255, 255, 255 }, 4);
        lines[n++] = w->lines[i];
    }
    if (w->count > w->kept) {
        snprintf(more, sizeof more, "... and %u more: pmfc SOURCE prints them all", w->count - w->kept);
        memcpy(colors[n], text_dim, 4);
        lines[n++] = more;
    }
    float lh = hud_line_height(h);
    panel(h, lh / 3, lh / 3, lines, (const uint8_t (*)[4])colors, n);
}

static void draw_loading(hud *h, int width, int height, const view_hud_info *in)
{
    uint32_t done = in->stats->chunks_loaded, total = done + in->stats->chunks_streaming;
    float lh = hud_line_height(h);
    float w = (float)width * 0.5f, x = ((float)width - w) / 2, y = (float)height / 2;
    float frac = total ? (float)done / (float)total : 0.0f;
    hud_rect(h, x - 2, y - 2, w + 4, lh + 4, panel_bg);
    hud_rect(h, x, y, w * frac, lh, (const uint8_t[4]){ 80, 160, 255, 200 });
    char text[64];
    snprintf(text, sizeof text, "loading %u/%u chunks", done, total);
    hud_text(h, x + (w - hud_text_width(h, text)) / 2, y + lh / 6, text, NULL);
}

void view_hud_draw(hud *h, int width, int height, const view_hud_info *in)
{
    /* stb_easy_font's glyphs are ~6x7 pixels: double them on big windows. */
    hud_begin(h, width, height, width >= 1000 ? 2.0f : 1.0f);
    if ((in->help && layout_help(h, height, in).w > width) || in->warnings_list)
        hud_begin(h, width, height, 1.0f); /* the key list and the warnings keep to the window */
    float lh = hud_line_height(h);
    if (in->help) {
        draw_help(h, width, height, in);
    } else if (in->warnings_list && in->warnings && in->warnings->count) {
        draw_warnings(h, in);
    } else {
        draw_status(h, in);
        if (in->lights_panel)
            draw_lights(h, width, in);
        if (!in->view_complete)
            draw_loading(h, width, height, in);
    }
    float y = (float)height - lh * 1.5f;
    if (in->error && in->error[0]) {
        const char *line = in->error;
        panel(h, lh / 3, y, &line, &text_err, 1);
        y -= lh * 1.5f;
    }
    if (in->message && in->message[0]) {
        const char *line = in->message;
        panel(h, lh / 3, y, &line, NULL, 1);
    }
    hud_end(h);
}
