/* hud.h - text and flat-colour overlays over the rendered view: the viewer's HUD text (built from
 * stb_easy_font's quads), panels, and small boxes in 3D (light-probe markers).
 *
 * Usage, once per frame after the scene is drawn:
 *   hud_begin(h, width, height, scale);
 *   hud_rect(h, 4, 4, 200, 40, (uint8_t[4]){0, 0, 0, 160});
 *   hud_text(h, 8, 8, "FPS 60", NULL);
 *   hud_end(h);                          // draws everything queued, in call order
 * hud_boxes() draws at once with the depth test on (call it before hud_begin / after hud_end).
 * Needs a current GL 3.3 core context loaded by render_load_gl; the shaders (shaders/hud.vert,
 * hud.frag) are embedded in the binary.
 */
#ifndef PMFVIEW_RENDER_HUD_H
#define PMFVIEW_RENDER_HUD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct hud hud;

/* One vertex as stb_easy_font writes it: position, then RGBA. */
typedef struct hud_vertex {
    float xyz[3];
    uint8_t rgba[4];
} hud_vertex;

/* NULL with a one-line message in err when the shaders do not compile. */
hud *hud_create(char *err, size_t err_size);
void hud_destroy(hud *h);

/* Starts a 2D batch in window pixels (origin top-left, y down); scale enlarges text. */
void hud_begin(hud *h, int width, int height, float scale);
void hud_rect(hud *h, float x, float y, float w, float hgt, const uint8_t rgba[4]);
/* Draws text ('\n' starts a line) with its top-left at (x, y); NULL colour = white.
 * Returns the text's width in pixels. */
float hud_text(hud *h, float x, float y, const char *text, const uint8_t rgba[4]);
/* Size of text at the batch's scale, in pixels. */
float hud_text_width(const hud *h, const char *text);
float hud_line_height(const hud *h);
/* A filled quad in window pixels, corners in order. */
void hud_quad(hud *h, const float xy[4][2], const uint8_t rgba[4]);
void hud_end(hud *h);

/* Line segments (count vertices, two per segment) in the space view_proj maps to clip space,
 * alpha-blended, drawn over everything (no depth test). Call outside hud_begin / hud_end. */
void hud_lines(hud *h, const float view_proj[16], size_t count, const hud_vertex *verts);

/* Axis-aligned boxes, boxes[i] = centre xyz + half size, in the space view_proj maps to clip
 * space (column-major 4x4), filled with rgb[i] and, with outline, edged in a lighter tint of it
 * so dark boxes show on dark ground. Depth-tested among themselves and against what is drawn. */
void hud_boxes(hud *h, const float view_proj[16], size_t count, const float (*boxes)[4],
               const uint8_t (*rgb)[3], bool outline);

/* Convex volumes given by 8 corners each (octant order: bit 0 = -X, bit 1 = -Z, bit 2 = -Y), in
 * the space view_proj maps to clip space, seen from eye (same space): the faces turned to the eye
 * (all of them when the eye is inside) filled with rgba[i] blended over what is drawn, so each
 * pixel is tinted once; then every edge in rgba[i]'s colour, opaque. Depth-tested against what is
 * drawn (faces and edges pulled a little towards the eye, so one lying on a wall shows), no depth
 * writes. */
void hud_volumes(hud *h, const float view_proj[16], const float eye[3], size_t count, const float (*corners)[8][3],
                 const uint8_t (*rgba)[4]);

#endif
