/* region_overlay.c - region volumes drawn over the scene (region_overlay.h). */
#include "region_overlay.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

/* ---- labels ---------------------------------------------------------------------------------- */

typedef struct label_box { float lo[3], hi[3]; size_t parent; } label_box;

static size_t find_root(label_box *b, size_t i)
{
    while (b[i].parent != i)
        i = b[i].parent = b[b[i].parent].parent;
    return i;
}

static bool touching(const label_box *a, const label_box *b)
{
    for (int k = 0; k < 3; k++)
        if (a->lo[k] > b->hi[k] + 1e-3f || b->lo[k] > a->hi[k] + 1e-3f)
            return false;
    return true;
}

/* A region split over chunks is one piece per chunk: pieces of one kind and label whose boxes
 * touch are named once, at the centre of their joint box (for up to MAX_MERGED volumes; past that
 * every piece is named), if it lies in front of the camera and on screen. Pathfinding cubes are
 * too many to name. */
static void label_groups(hud *h, const view_regions *r, const float vp[16], int width, int height)
{
    enum { MAX_MERGED = 2048 };
    label_box *boxes = malloc(r->count * sizeof *boxes);
    if (!boxes)
        return;
    for (size_t i = 0; i < r->count; i++) {
        for (int k = 0; k < 3; k++) {
            boxes[i].lo[k] = boxes[i].hi[k] = r->regions[i].corners[0][k];
            for (int c = 1; c < 8; c++) {
                boxes[i].lo[k] = fminf(boxes[i].lo[k], r->regions[i].corners[c][k]);
                boxes[i].hi[k] = fmaxf(boxes[i].hi[k], r->regions[i].corners[c][k]);
            }
        }
        boxes[i].parent = i;
    }
    if (r->count <= MAX_MERGED)
        for (size_t i = 0; i < r->count; i++)
            for (size_t j = i + 1; j < r->count; j++)
                if (r->regions[i].kind == r->regions[j].kind && !strcmp(r->regions[i].label, r->regions[j].label) &&
                    touching(&boxes[i], &boxes[j]))
                    boxes[find_root(boxes, j)].parent = find_root(boxes, i);
    /* grow each root's box over its group */
    for (size_t i = 0; i < r->count; i++) {
        size_t root = find_root(boxes, i);
        for (int k = 0; k < 3; k++) {
            boxes[root].lo[k] = fminf(boxes[root].lo[k], boxes[i].lo[k]);
            boxes[root].hi[k] = fmaxf(boxes[root].hi[k], boxes[i].hi[k]);
        }
    }
    static const uint8_t label_bg[4] = { 0, 0, 0, 140 };
    enum { MAX_LABELS = 256 };
    typedef struct label_rect { float x, y, w, h; } label_rect;
    label_rect placed[MAX_LABELS];
    size_t placed_count = 0;
    hud_begin(h, width, height, 1.0f);
    for (size_t i = 0; i < r->count; i++) {
        const view_region *v = &r->regions[i];
        if (v->kind == VIEW_REGION_PATH || find_root(boxes, i) != i)
            continue;
        float c[3], clip[4];
        for (int k = 0; k < 3; k++)
            c[k] = 0.5f * (boxes[i].lo[k] + boxes[i].hi[k]);
        for (int row = 0; row < 4; row++)
            clip[row] = vp[row] * c[0] + vp[4 + row] * c[1] + vp[8 + row] * c[2] + vp[12 + row];
        if (clip[3] <= 0.0f)
            continue;
        float x = (clip[0] / clip[3] * 0.5f + 0.5f) * (float)width, y = (0.5f - clip[1] / clip[3] * 0.5f) * (float)height;
        float tw = hud_text_width(h, v->label), th = hud_line_height(h);
        if (!isfinite(x) || !isfinite(y) || x + tw / 2 < 0 || x - tw / 2 > (float)width || y + th < 0 || y - th > (float)height)
            continue;
        /* labels of regions whose centres meet on screen go one under the other */
        float lx = x - tw / 2 - 2, ly = y - th / 2 - 2, lw = tw + 4, lh = th + 2;
        for (size_t k = 0; k < placed_count; k++)
            if (lx < placed[k].x + placed[k].w && placed[k].x < lx + lw && ly < placed[k].y + placed[k].h && placed[k].y < ly + lh) {
                ly = placed[k].y + placed[k].h;
                k = (size_t)-1;     /* check the new place against every label again */
            }
        if (placed_count < MAX_LABELS)
            placed[placed_count++] = (label_rect){ lx, ly, lw, lh };
        const uint8_t *col = view_region_color(v->kind);
        const uint8_t text[4] = { (uint8_t)(128 + col[0] / 2), (uint8_t)(128 + col[1] / 2), (uint8_t)(128 + col[2] / 2), 255 };
        hud_rect(h, lx, ly, lw, lh, label_bg);
        hud_text(h, lx + 2, ly + 2, v->label, text);
    }
    hud_end(h);
    free(boxes);
}

void region_overlay_draw(hud *h, view_regions *r, const scene *s, int width, int height)
{
    const camera *cam = scene_camera(s);
    view_regions_update(r, cam);
    if (!r->count)
        return;
    float (*corners)[8][3] = malloc(r->count * sizeof *corners);
    uint8_t (*rgba)[4] = malloc(r->count * sizeof *rgba);
    if (!corners || !rgba) {
        free(corners);
        free(rgba);
        return;
    }
    for (size_t i = 0; i < r->count; i++) {
        memcpy(corners[i], r->regions[i].corners, sizeof corners[i]);
        memcpy(rgba[i], view_region_color(r->regions[i].kind), 3);
        rgba[i][3] = REGION_OVERLAY_ALPHA;
    }
    float vp[16];
    scene_view_proj(s, vp);
    const float eye[3] = { (float)cam->local[0], (float)cam->local[1], (float)cam->local[2] };
    render_viewport(width, height);
    hud_volumes(h, vp, eye, r->count, (const float (*)[8][3])corners, (const uint8_t (*)[4])rgba);
    free(corners);
    free(rgba);

    label_groups(h, r, vp, width, height);
}
