/* map_markers.c - point entities and the leak drawn over the frame (map_markers.h). */
#include "map_markers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "text_clean.h"

#define HOVER_PIXELS 10.0f
#define LEAK_BEND_SIZE 0.15f         /* metres */
#define MAX_MARKERS (1u << 16)       /* boxes drawn at most: a hostile list stays bounded */

static const uint8_t leak_rgba[4] = { 255, 40, 40, 255 };

static bool project(const overlay_view *v, const float p[3], float out[2])
{
    return overlay_project(v, p, out, NULL) && isfinite(out[0]) && isfinite(out[1]);
}

void map_marker_color(const char *cls, uint8_t rgb[3])
{
    static const struct { const char *prefix; uint8_t rgb[3]; } known[] = {
        { "light", { 255, 220, 60 } },   { "info_player", { 60, 220, 90 } }, { "monster_", { 230, 60, 60 } },
        { "item_", { 70, 130, 255 } },   { "weapon_", { 70, 130, 255 } },    { "ammo_", { 70, 130, 255 } },
        { "trigger_", { 255, 150, 40 } }, { "info_", { 200, 200, 200 } },
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strncasecmp(cls, known[i].prefix, strlen(known[i].prefix))) {
            memcpy(rgb, known[i].rgb, 3);
            return;
        }
    uint32_t hash = 2166136261u;
    for (const char *p = cls; *p; p++)
        hash = (hash ^ (uint8_t)*p) * 16777619u;
    for (int k = 0; k < 3; k++)
        rgb[k] = (uint8_t)(80 + ((hash >> (8 * k)) & 127));
}

void map_marker_label(const pmf_entities *e, uint32_t i, char *buf, size_t size)
{
    char cls[128], target[128];
    text_clean(e->list[i].classname, cls, sizeof cls);
    text_clean(e->list[i].targetname, target, sizeof target);
    snprintf(buf, size, "%s%s%s", cls, target[0] ? " " : "", target);
}

static void draw_leak(hud *h, const map_markers_desc *d)
{
    const pmf_leak *l = d->leak;
    if (!l || !l->present || l->level != d->view.level || l->point_count < 2)
        return;
    size_t segments = l->point_count - 1;
    hud_vertex *v = malloc(segments * 2 * sizeof *v);
    float (*boxes)[4] = malloc(l->point_count * sizeof *boxes);
    uint8_t (*rgb)[3] = malloc(l->point_count * sizeof *rgb);
    if (v && boxes && rgb) {
        for (size_t i = 0; i < l->point_count; i++) {
            camera_frame_point(d->view.cam, l->points[i], boxes[i]);
            boxes[i][3] = LEAK_BEND_SIZE;
            memcpy(rgb[i], leak_rgba, 3);
        }
        for (size_t i = 0; i < segments; i++)
            for (int e = 0; e < 2; e++) {
                memcpy(v[2 * i + e].xyz, boxes[i + e], sizeof v[0].xyz);
                memcpy(v[2 * i + e].rgba, leak_rgba, 4);
            }
        hud_boxes(h, d->view.view_proj, l->point_count, (const float (*)[4])boxes, (const uint8_t (*)[3])rgb, true);
        hud_lines(h, d->view.view_proj, segments * 2, v);
    }
    free(v);
    free(boxes);
    free(rgb);
}

int map_markers_draw(hud *h, const map_markers_desc *d)
{
    draw_leak(h, d);
    const pmf_entities *e = d->entities;
    if (!e || !e->count)
        return -1;
    size_t n = e->count < MAX_MARKERS ? e->count : MAX_MARKERS;
    float (*boxes)[4] = malloc(n * sizeof *boxes);
    uint8_t (*rgb)[3] = malloc(n * sizeof *rgb);
    uint32_t *index = malloc(n * sizeof *index);
    int hovered = -1;
    if (boxes && rgb && index) {
        size_t count = 0;
        float best = HOVER_PIXELS * HOVER_PIXELS;
        for (uint32_t i = 0; i < n; i++) {
            if (e->list[i].level != d->view.level || (d->only && !d->only[i]))
                continue;
            camera_frame_point(d->view.cam, e->list[i].position, boxes[count]);
            boxes[count][3] = MAP_MARKER_SIZE / 2;
            map_marker_color(e->list[i].classname, rgb[count]);
            index[count] = i;
            float at[2];
            if (d->view.hover_x >= 0 && project(&d->view, boxes[count], at)) {
                float dx = at[0] - d->view.hover_x, dy = at[1] - d->view.hover_y;
                if (dx * dx + dy * dy < best) {
                    best = dx * dx + dy * dy;
                    hovered = (int)i;
                }
            }
            count++;
        }
        hud_boxes(h, d->view.view_proj, count, (const float (*)[4])boxes, (const uint8_t (*)[3])rgb, true);
        /* labels: the hovered one, or every one that has room (label_all) */
        float scale = d->view.scale > 0 ? d->view.scale : 1.0f;
        hud_begin(h, d->view.width, d->view.height, scale);
        typedef struct rect { float x, y, w, h; } rect;
        enum { MAX_LABELS = 512 };
        rect placed[MAX_LABELS];
        size_t placed_count = 0;
        static const uint8_t bg[4] = { 0, 0, 0, 150 };
        for (size_t k = 0; k < count; k++) {
            uint32_t i = index[k];
            if (!d->view.label_all && (int)i != hovered)
                continue;
            float at[2];
            if (!project(&d->view, boxes[k], at))
                continue;
            char label[256];
            map_marker_label(e, i, label, sizeof label);
            float w = hud_text_width(h, label) + 4, lh = hud_line_height(h) + 2;
            rect r = { at[0] + 8, at[1] - lh / 2, w, lh };
            bool free_spot = true;
            for (size_t p = 0; p < placed_count && free_spot && d->view.label_all; p++)
                free_spot = !(r.x < placed[p].x + placed[p].w && placed[p].x < r.x + r.w && r.y < placed[p].y + placed[p].h
                              && placed[p].y < r.y + r.h);
            if (!free_spot)
                continue;
            if (placed_count < MAX_LABELS)
                placed[placed_count++] = r;
            const uint8_t text[4] = { (uint8_t)(128 + rgb[k][0] / 2), (uint8_t)(128 + rgb[k][1] / 2),
                                      (uint8_t)(128 + rgb[k][2] / 2), 255 };
            hud_rect(h, r.x, r.y, r.w, r.h, bg);
            hud_text(h, r.x + 2, r.y + 1, label, text);
        }
        hud_end(h);
    }
    free(boxes);
    free(rgb);
    free(index);
    return hovered;
}
