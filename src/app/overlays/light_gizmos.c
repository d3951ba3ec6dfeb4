/* light_gizmos.c - icons, reach and names of the level's lights over the frame. */
#include "light_gizmos.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

#include "text_clean.h"
#include "base/grow.h"

#define ICON_RADIUS 7.0f             /* pixels: the diamond's half diagonal */
#define RIM 2.0f
#define CIRCLE_SEGMENTS 48
#define REACH_ALPHA 90
#define SUN_DISTANCE 1.0e4f          /* metres: far enough to stand for infinity, near enough for floats */
#define MAX_LINE_VERTICES (1u << 20)  /* reach lines of ~3600 lights (16 MiB): a hostile list stays bounded */

static const char *const kind_names[] = { "static", "dynamic", "fast" };
static const char *const shape_names[] = { "point", "spot", "sun" };

bool light_gizmo_position(const light_gizmos_desc *d, const pmf_light_info *l, float out[2])
{
    float p[3], w;
    if (l->shape != PMF_LIGHT_SUN) {
        camera_frame_point(d->view.cam, l->position, p);
        return overlay_project(&d->view, p, out, &w);
    }
    /* The sun stands opposite to the way its light travels, at infinity. */
    for (int k = 0; k < 3; k++)
        p[k] = (float)d->view.cam->local[k] - l->direction[k] * SUN_DISTANCE;
    bool front = overlay_project(&d->view, p, out, &w);
    float cx = d->view.width * 0.5f, cy = d->view.height * 0.5f, dx = out[0] - cx, dy = out[1] - cy;
    if (!front) { /* behind: the way to turn to face it */
        dx = -dx;
        dy = -dy;
    }
    float margin = ICON_RADIUS + RIM + 2.0f;
    float sx = fabsf(dx) > 1e-6f ? (cx - margin) / fabsf(dx) : INFINITY;
    float sy = fabsf(dy) > 1e-6f ? (cy - margin) / fabsf(dy) : INFINITY;
    float s = sx < sy ? sx : sy;
    if (!front || s < 1.0f) {
        if (!isfinite(s))
            s = 0.0f;
        out[0] = cx + dx * s;
        out[1] = cy + dy * s;
    }
    return true;
}

void light_gizmo_label(const pmf_lights *lights, uint32_t index, char *buf, size_t size)
{
    const pmf_light_info *l = &lights->list[index];
    char name[96], id[32];
    text_clean(l->name[0] ? l->name : "(no name)", name, sizeof name);
    if (l->kind == PMF_LIGHT_STATIC)
        snprintf(id, sizeof id, "#%u", index);
    else
        snprintf(id, sizeof id, "%u", l->id);
    if (l->shape == PMF_LIGHT_SUN)
        snprintf(buf, size, "%s: %s %s, sun", name, kind_names[l->kind % 3], id);
    else
        snprintf(buf, size, "%s: %s %s, %s, range %g m", name, kind_names[l->kind % 3], id, shape_names[l->shape % 3],
                 l->range);
}

typedef struct line_list { hud_vertex *v; size_t count, cap; } line_list;

static void push_line(line_list *ll, const float a[3], const float b[3], const uint8_t rgba[4])
{
    if (ll->count + 2 > MAX_LINE_VERTICES)
        return;
    if (!grow_array((void **)&ll->v, &ll->cap, ll->count + 2, sizeof *ll->v))
        return;
    memcpy(ll->v[ll->count].xyz, a, sizeof ll->v[0].xyz);
    memcpy(ll->v[ll->count].rgba, rgba, 4);
    memcpy(ll->v[ll->count + 1].xyz, b, sizeof ll->v[0].xyz);
    memcpy(ll->v[ll->count + 1].rgba, rgba, 4);
    ll->count += 2;
}

/* A circle of radius r around c in the plane spanned by unit vectors u and v. */
static void push_circle(line_list *ll, const float c[3], const float u[3], const float v[3], float r, const uint8_t rgba[4])
{
    float prev[3];
    for (int i = 0; i <= CIRCLE_SEGMENTS; i++) {
        float a = 6.2831853f * i / CIRCLE_SEGMENTS, p[3];
        for (int k = 0; k < 3; k++)
            p[k] = c[k] + r * (cosf(a) * u[k] + sinf(a) * v[k]);
        if (i)
            push_line(ll, prev, p, rgba);
        memcpy(prev, p, sizeof p);
    }
}

static void reach(line_list *ll, const light_gizmos_desc *d, const pmf_light_info *l)
{
    if (l->shape == PMF_LIGHT_SUN || !(l->range > 0.0f))
        return;
    const uint8_t rgba[4] = { l->color[0], l->color[1], l->color[2], REACH_ALPHA };
    float c[3];
    camera_frame_point(d->view.cam, l->position, c);
    if (l->shape == PMF_LIGHT_POINT) {
        static const float x[3] = { 1, 0, 0 }, y[3] = { 0, 1, 0 }, z[3] = { 0, 0, 1 };
        push_circle(ll, c, x, y, l->range, rgba);
        push_circle(ll, c, y, z, l->range, rgba);
        push_circle(ll, c, z, x, l->range, rgba);
        return;
    }
    /* spot: the outer cone, its rim at the range */
    const float *axis = l->direction;
    float helper[3] = { 0, 1, 0 };
    if (fabsf(axis[1]) > 0.9f)
        helper[0] = 1, helper[1] = 0;
    float u[3] = { axis[1] * helper[2] - axis[2] * helper[1], axis[2] * helper[0] - axis[0] * helper[2],
                   axis[0] * helper[1] - axis[1] * helper[0] };
    float ul = sqrtf(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    if (!(ul > 0.0f))
        return;
    for (int k = 0; k < 3; k++)
        u[k] /= ul;
    float v[3] = { axis[1] * u[2] - axis[2] * u[1], axis[2] * u[0] - axis[0] * u[2], axis[0] * u[1] - axis[1] * u[0] };
    float co = l->cos_outer < -1 ? -1 : l->cos_outer > 1 ? 1 : l->cos_outer, si = sqrtf(1.0f - co * co);
    float rim[3];
    for (int k = 0; k < 3; k++)
        rim[k] = c[k] + axis[k] * l->range * co;
    push_circle(ll, rim, u, v, l->range * si, rgba);
    for (int i = 0; i < 8; i++) {
        float a = 6.2831853f * i / 8, p[3];
        for (int k = 0; k < 3; k++)
            p[k] = rim[k] + l->range * si * (cosf(a) * u[k] + sinf(a) * v[k]);
        push_line(ll, c, p, rgba);
    }
}

static void diamond(hud *h, const float at[2], float r, const uint8_t rgba[4])
{
    const float xy[4][2] = { { at[0], at[1] - r }, { at[0] + r, at[1] }, { at[0], at[1] + r }, { at[0] - r, at[1] } };
    hud_quad(h, xy, rgba);
}

#define MAX_LABELS 256

/* The labels drawn so far (x0, y0, x1, y1), so that label_all leaves out those that would
 * overlap one (a crowd of lights stays readable). */
typedef struct label_list { float rect[MAX_LABELS][4]; int count; } label_list;

/* The light's name on a dark strip beside its icon: right of it, else left when it would leave
 * the frame; with `placed`, not at all when it would overlap a label there already. */
static void label(hud *h, const light_gizmos_desc *d, const pmf_lights *lights, uint32_t index, const float at[2],
                  label_list *placed)
{
    static const uint8_t shadow[4] = { 0, 0, 0, 160 };
    char text[192];
    light_gizmo_label(lights, index, text, sizeof text);
    float w = hud_text_width(h, text), lh = hud_line_height(h);
    float x = at[0] + ICON_RADIUS + RIM + 3, y = at[1] - lh / 2;
    if (x + w + 2 > d->view.width)
        x = at[0] - ICON_RADIUS - RIM - 3 - w;
    x = x < 2 ? 2 : x;
    const float r[4] = { x - 2, y - 2, x + w + 2, y + lh };
    if (placed) {
        if (placed->count == MAX_LABELS)
            return;
        for (int i = 0; i < placed->count; i++) {
            const float *o = placed->rect[i];
            if (r[0] < o[2] && o[0] < r[2] && r[1] < o[3] && o[1] < r[3])
                return;
        }
        memcpy(placed->rect[placed->count++], r, sizeof r);
    }
    hud_rect(h, r[0], r[1], r[2] - r[0], r[3] - r[1], shadow);
    hud_text(h, x, y, text, NULL);
}

int light_gizmos_draw(hud *h, const light_gizmos_desc *d)
{
    const pmf_lights *lights = d->lights;
    line_list ll = { 0 };
    for (uint32_t i = 0; i < lights->count; i++)
        if (lights->list[i].level == d->view.level)
            reach(&ll, d, &lights->list[i]);
    render_viewport(d->view.width, d->view.height);
    hud_lines(h, d->view.view_proj, ll.count, ll.v);
    free(ll.v);

    hud_begin(h, d->view.width, d->view.height, d->view.scale);
    int hovered = -1;
    float best = (ICON_RADIUS + RIM) * (ICON_RADIUS + RIM) + 1.0f;
    float hover_at[2] = { 0, 0 };
    static const uint8_t rim[4] = { 200, 200, 200, 255 };
    /* labels first: the icons stay on top of them */
    label_list *placed = d->view.label_all ? calloc(1, sizeof *placed) : NULL;
    for (uint32_t i = 0; placed && i < lights->count; i++) {
        float at[2];
        if (lights->list[i].level == d->view.level && light_gizmo_position(d, &lights->list[i], at))
            label(h, d, lights, i, at, placed);
    }
    free(placed);
    for (uint32_t i = 0; i < lights->count; i++) {
        const pmf_light_info *l = &lights->list[i];
        float at[2];
        if (l->level != d->view.level || !light_gizmo_position(d, l, at))
            continue;
        const uint8_t rgba[4] = { l->color[0], l->color[1], l->color[2], 255 };
        diamond(h, at, ICON_RADIUS + RIM, rim);
        diamond(h, at, ICON_RADIUS, rgba);
        float dx = at[0] - d->view.hover_x, dy = at[1] - d->view.hover_y;
        if (d->view.hover_x >= 0 && dx * dx + dy * dy < best) {
            best = dx * dx + dy * dy;
            hovered = (int)i;
            memcpy(hover_at, at, sizeof at);
        }
    }
    if (hovered >= 0 && !d->view.label_all)
        label(h, d, lights, (uint32_t)hovered, hover_at, NULL);
    hud_end(h);
    return hovered;
}
