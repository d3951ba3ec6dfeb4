/* bsp_import.c - the BSP front end: a compiled GoldSrc or Quake map (read by bsp/bsp_read.h)
 * taken apart into an editor map (editor.h); editor_import does the rest (docs/bsp.md).
 *
 * A BSP's faces are what its compiler kept, and they are drawn as they are: each becomes a thin
 * brush of its own (brush.exact: the CSG cuts its face by nothing and nothing by it), the face's
 * plane with its texture and texture axes, a side along each edge and one a little behind, all
 * placed where the entity drawing its model stands. Nothing else draws: the world's tree gives the
 * solid, each solid and sky leaf a brush of the half-spaces on its path from the root (closed by
 * the world's box) that draws nothing but hides, seals and keeps cameras out as a solid does;
 * liquid leaves are only their faces. The entity lump is .map text: its entities are read as a
 * .map's; "model" "*N" gives a brush entity model N's faces. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/session.h"
#include "base/text_clean.h"
#include "bsp_read.h"
#include "bsp_visibility.h"
#include "common/memory.h"
#include "front/editor/editor_internal.h"
#include "map_read.h"

enum { CONTENTS_EMPTY = -1, CONTENTS_SOLID = -2, CONTENTS_WATER = -3, CONTENTS_SLIME = -4, CONTENTS_LAVA = -5, CONTENTS_SKY = -6 };
#define MAX_DEPTH 1024          /* deeper than any compiler builds; a tree past it is damaged */
#define BOX_MARGIN 16.0         /* units the model's box is widened by to close its outside leaves */
#define FACE_DEPTH 0.5          /* units: a face's brush reaches this far behind it */
#define FACE_CORNERS 64         /* corners of a face's brush at most: a longer face is cut in fans */
#define MIN_FACE_AREA 1e-3      /* square units: a face less is a point or a line */
#define FACE_REACH 24.0         /* units: a luxel of border past a face (16) still takes the face's edge */
#define OUTSIDE_REACH 8.0       /* units past the world's bounds an open leaf reaches only in the void */

typedef struct side { uint32_t plane; bool front; } side;   /* front: the leaf lies on the plane's front */

typedef struct walk {
    const bsp_file *b;
    editor_map *em;
    side path[MAX_DEPTH];
    size_t visits, max_visits;
    const char *fail;
} walk;

static void add_face(editor_map *em, const double n[3], double dist, const char *texture)
{
    editor_face *f = PUSH(em->faces, em->face_count, em->face_cap);
    memcpy(f->normal, n, sizeof f->normal);
    f->dist = dist;
    snprintf(f->texture, sizeof f->texture, "%s", texture);
    f->scale[0] = f->scale[1] = 1;
    f->index = (uint32_t)(em->face_count - 1);
}

static const char *nodraw_texture(const editor_map *em) { return em->game == EDITOR_GAME_GOLDSRC ? "null" : "skip"; }

/* A solid or sky leaf of the world: the half-spaces on its path, closed by the world's box. */
static void add_leaf_brush(walk *w, size_t depth, uint32_t leaf)
{
    const bsp_file *b = w->b;
    editor_map *em = w->em;
    editor_brush *eb = PUSH(em->brushes, em->brush_count, em->brush_cap);
    eb->first_face = (uint32_t)em->face_count;
    eb->index = leaf;
    for (size_t k = 0; k < depth; k++) {
        const bsp_plane *pl = &b->planes[w->path[k].plane];
        double sign = w->path[k].front ? -1 : 1;   /* outward: away from the leaf */
        double n[3] = { sign * pl->normal[0], sign * pl->normal[1], sign * pl->normal[2] };
        add_face(em, n, sign * pl->dist, nodraw_texture(em));
    }
    const bsp_model *m = &b->models[0];
    for (int a = 0; a < 3; a++)
        for (int s = 0; s < 2; s++) {
            double n[3] = { 0, 0, 0 };
            n[a] = s ? 1 : -1;
            add_face(em, n, s ? m->maxs[a] + BOX_MARGIN : -(m->mins[a] - BOX_MARGIN), nodraw_texture(em));
        }
    eb->face_count = (uint32_t)em->face_count - eb->first_face;
    em->source_solids++;
}

static void walk_node(walk *w, int32_t node, size_t depth)
{
    if (w->fail) return;
    if (++w->visits > w->max_visits) { w->fail = "its nodes form no tree (a node is reached twice)"; return; }
    if (node < 0) {
        int32_t contents = w->b->leaves[(uint32_t)-(node + 1)].contents;
        if (contents == CONTENTS_SOLID || contents == CONTENTS_SKY) add_leaf_brush(w, depth, (uint32_t)-(node + 1));
        return;
    }
    if (depth >= MAX_DEPTH) { w->fail = "its tree is deeper than 1024 nodes"; return; }
    const bsp_node *n = &w->b->nodes[node];
    for (int c = 0; c < 2; c++) {
        w->path[depth] = (side){ n->plane, c == 0 };
        walk_node(w, n->children[c], depth + 1);
    }
}

/* The face's texture axes as Valve 220's (s = p . S + S.w: axis, scale and shift), its model
 * placed at offset. */
static void face_axes(editor_face *ef, const bsp_texinfo *ti, const double offset[3])
{
    const float *axes[2] = { ti->s, ti->t };
    ef->has_axes = true;
    for (int a = 0; a < 2; a++) {
        double len = sqrt((double)axes[a][0] * axes[a][0] + (double)axes[a][1] * axes[a][1] + (double)axes[a][2] * axes[a][2]);
        if (!(len > 1e-6)) len = 1;
        double *axis = a ? ef->v_axis : ef->u_axis;
        for (int k = 0; k < 3; k++) axis[k] = axes[a][k] / len;
        ef->scale[a] = 1.0 / len;
        ef->shift[a] = axes[a][3] - (axis[0] * offset[0] + axis[1] * offset[1] + axis[2] * offset[2]) * len;
    }
}

/* Face fi of a model, placed at offset, for entity `entity`: one brush, or a fan of them for a
 * face of more corners than a brush may have sides. */
static void add_face_brushes(editor_map *em, const bsp_file *b, uint32_t fi, uint32_t entity, const double offset[3])
{
    const bsp_face *f = &b->faces[fi];
    const bsp_texinfo *ti = &b->texinfos[f->texinfo];
    em->source_faces++;
    if (f->edge_count < 3 || ti->texture == UINT32_MAX || !b->textures[ti->texture].name[0]) return;
    const bsp_plane *pl = &b->planes[f->plane];
    double sign = f->back ? -1 : 1;
    double n[3] = { sign * pl->normal[0], sign * pl->normal[1], sign * pl->normal[2] };
    double dist = sign * pl->dist + n[0] * offset[0] + n[1] * offset[1] + n[2] * offset[2];
    for (uint32_t first = 1; first + 1 < f->edge_count; first += FACE_CORNERS - 2) {
        uint32_t last = first + FACE_CORNERS - 2 < f->edge_count - 1 ? first + FACE_CORNERS - 2 : f->edge_count - 1;
        /* the piece: corner 0, then first .. last */
        double p[FACE_CORNERS][3], c[3] = { 0, 0, 0 };
        uint32_t count = 0;
        for (uint32_t k = 0; k <= last - first + 1; k++, count++) {
            const float *v = b->vertices[bsp_face_vertex(b, f, k ? first + k - 1 : 0)];
            for (int a = 0; a < 3; a++) { p[count][a] = v[a] + offset[a]; c[a] += p[count][a]; }
        }
        for (int a = 0; a < 3; a++) c[a] /= count;
        /* a face of no area (compilers leave a few, corners repeated) draws nothing */
        double twice_area = 0;
        for (uint32_t k = 1; k + 1 < count; k++) {
            double e1[3], e2[3];
            for (int a = 0; a < 3; a++) { e1[a] = p[k][a] - p[0][a]; e2[a] = p[k + 1][a] - p[0][a]; }
            twice_area += n[0] * (e1[1] * e2[2] - e1[2] * e2[1]) + n[1] * (e1[2] * e2[0] - e1[0] * e2[2]) + n[2] * (e1[0] * e2[1] - e1[1] * e2[0]);
        }
        if (!(fabs(twice_area) > 2 * MIN_FACE_AREA)) continue;
        editor_brush *eb = PUSH(em->brushes, em->brush_count, em->brush_cap);
        eb->first_face = (uint32_t)em->face_count;
        eb->entity = entity;
        eb->index = fi;
        eb->exact = true;
        add_face(em, n, dist, b->textures[ti->texture].name);
        face_axes(&em->faces[em->face_count - 1], ti, offset);
        for (uint32_t k = 0; k < count; k++) {
            const double *v0 = p[k], *v1 = p[(k + 1) % count];
            double e[3] = { v1[0] - v0[0], v1[1] - v0[1], v1[2] - v0[2] };
            double en[3] = { e[1] * n[2] - e[2] * n[1], e[2] * n[0] - e[0] * n[2], e[0] * n[1] - e[1] * n[0] };
            double len = sqrt(en[0] * en[0] + en[1] * en[1] + en[2] * en[2]);
            if (!(len > 1e-6)) continue;
            /* outward: away from the piece's centre, whichever way the corners run */
            if ((c[0] - v0[0]) * en[0] + (c[1] - v0[1]) * en[1] + (c[2] - v0[2]) * en[2] > 0) len = -len;
            for (int a = 0; a < 3; a++) en[a] /= len;
            add_face(em, en, en[0] * v0[0] + en[1] * v0[1] + en[2] * v0[2], nodraw_texture(em));
        }
        double back[3] = { -n[0], -n[1], -n[2] };
        add_face(em, back, FACE_DEPTH - dist, nodraw_texture(em));
        eb->face_count = (uint32_t)em->face_count - eb->first_face;
    }
}

/* The compiler's verdict: qbsp and hlbsp fill a sealed map's outside with solid (a leak leaves
 * it open, and writes no portal file for vis): sealed is a PVS, or no open leaf of the world
 * reaching out past the world's bounds (the void's leaves reach the tree's box, 24 units out). */
static bool bsp_sealed(const bsp_file *b)
{
    const bsp_model *world = &b->models[0];
    for (uint32_t l = 1; l <= world->visleafs && l < b->leaf_count; l++)
        if (b->leaves[l].vis_offset >= 0) return true;
    for (uint32_t l = 1; l <= world->visleafs && l < b->leaf_count; l++) {
        const bsp_leaf *leaf = &b->leaves[l];
        if (leaf->contents == CONTENTS_SOLID || leaf->contents == CONTENTS_SKY) continue;
        for (int a = 0; a < 3; a++)
            if (leaf->mins[a] < world->mins[a] - OUTSIDE_REACH || leaf->maxs[a] > world->maxs[a] + OUTSIDE_REACH) return false;
    }
    return true;
}

/* ---- the light the game's compiler baked ------------------------------------------------- */

typedef struct bsp_prelit {
    prelit_source base;
    bsp_file b;
    double s;                   /* metres per unit */
    uint32_t *model_faces;      /* the brush entities' faces, searched when the world's leaf has none */
    float (*model_face_box)[6]; /* each one's corners' box (min, max), widened by FACE_REACH */
    uint32_t model_face_count;
} bsp_prelit;

/* How far p lies outside face f's polygon (units; <= 0 inside), in the face's plane. */
static double outside_polygon(const bsp_file *b, const bsp_face *f, const double p[3], const double fn[3])
{
    double c[3];
    bsp_face_centre(b, f, c);
    double worst = -1e30;
    for (uint32_t k = 0; k < f->edge_count; k++) {
        const float *v0 = b->vertices[bsp_face_vertex(b, f, k)], *v1 = b->vertices[bsp_face_vertex(b, f, (k + 1) % f->edge_count)];
        double e[3] = { v1[0] - v0[0], v1[1] - v0[1], v1[2] - v0[2] };
        double en[3] = { e[1] * fn[2] - e[2] * fn[1], e[2] * fn[0] - e[0] * fn[2], e[0] * fn[1] - e[1] * fn[0] };
        double len = sqrt(en[0] * en[0] + en[1] * en[1] + en[2] * en[2]);
        if (!(len > 1e-9)) continue;
        /* outward: away from the centre, whichever way the corners run */
        if ((c[0] - v0[0]) * en[0] + (c[1] - v0[1]) * en[1] + (c[2] - v0[2]) * en[2] > 0) len = -len;
        double d = ((p[0] - v0[0]) * en[0] + (p[1] - v0[1]) * en[1] + (p[2] - v0[2]) * en[2]) / len;
        if (d > worst) worst = d;
    }
    return worst;
}

/* Whether face f lies on p's surface (turned along n, through p), and how far outside it p is. */
static bool face_fits(const bsp_file *b, uint32_t fi, const double p[3], const double n[3], double *outside)
{
    const bsp_face *f = &b->faces[fi];
    if (f->light_offset < 0) return false;
    const bsp_plane *pl = &b->planes[f->plane];
    double sign = f->back ? -1 : 1;
    double fn[3] = { sign * pl->normal[0], sign * pl->normal[1], sign * pl->normal[2] };
    if (fn[0] * n[0] + fn[1] * n[1] + fn[2] * n[2] < 0.99) return false;
    if (fabs(pl->normal[0] * p[0] + pl->normal[1] * p[1] + pl->normal[2] * p[2] - pl->dist) > 2) return false;
    *outside = outside_polygon(b, f, p, fn);
    return true;
}

/* Face f's lightmap of style slot k (its k-th style) at p, bilinear between its luxels (the
 * engines' grid: luxel i at texture coordinate (mins + i) * 16). */
static void sample_face(const bsp_file *b, const bsp_face *f, unsigned k, const double p[3], uint8_t rgb[3])
{
    const bsp_texinfo *ti = &b->texinfos[f->texinfo];
    double st[2];
    const float *axes[2] = { ti->s, ti->t };
    for (int a = 0; a < 2; a++) {
        double c = p[0] * axes[a][0] + p[1] * axes[a][1] + p[2] * axes[a][2] + axes[a][3];
        st[a] = fmin(fmax(c / 16.0 - f->light_mins[a], 0), f->light_size[a] - 1);
    }
    uint32_t x0 = (uint32_t)st[0], y0 = (uint32_t)st[1];
    uint32_t x1 = x0 + 1 < f->light_size[0] ? x0 + 1 : x0, y1 = y0 + 1 < f->light_size[1] ? y0 + 1 : y0;
    double fx = st[0] - x0, fy = st[1] - y0;
    unsigned bytes = b->luxel_bytes;
    const uint8_t *lm = b->lighting + f->light_offset + (size_t)k * f->light_size[0] * f->light_size[1] * bytes;
    for (int ch = 0; ch < 3; ch++) {
        unsigned c = bytes == 3 ? (unsigned)ch : 0;
        double v00 = lm[(y0 * f->light_size[0] + x0) * bytes + c], v10 = lm[(y0 * f->light_size[0] + x1) * bytes + c];
        double v01 = lm[(y1 * f->light_size[0] + x0) * bytes + c], v11 = lm[(y1 * f->light_size[0] + x1) * bytes + c];
        double v = (v00 * (1 - fx) + v10 * fx) * (1 - fy) + (v01 * (1 - fx) + v11 * fx) * fy;
        rgb[ch] = (uint8_t)lround(fmin(fmax(v, 0), 255));
    }
}

/* The BSP face under a surface point (editor units, its normal n): the face the leaf just in
 * front of it marks (compilers leave leaves one unit thin), else a brush entity's; -1: none. */
static int64_t find_face(const bsp_prelit *bp, const double p[3], const double n[3])
{
    const bsp_file *b = &bp->b;
    int64_t best = -1;
    double best_out = 1e30, out;
    static const double ahead[] = { 0.5, 2, 8 };
    for (size_t a = 0; a < sizeof ahead / sizeof *ahead && (best < 0 || best_out > 0); a++) {
        double q[3] = { p[0] + ahead[a] * n[0], p[1] + ahead[a] * n[1], p[2] + ahead[a] * n[2] };
        int32_t node = b->models[0].headnode;
        for (int depth = 0; node >= 0 && (uint32_t)node < b->node_count && depth < MAX_DEPTH; depth++) {
            const bsp_node *nd = &b->nodes[node];
            const bsp_plane *pl = &b->planes[nd->plane];
            node = nd->children[pl->normal[0] * q[0] + pl->normal[1] * q[1] + pl->normal[2] * q[2] - pl->dist >= 0 ? 0 : 1];
        }
        if (node >= 0) continue;
        const bsp_leaf *leaf = &b->leaves[(uint32_t)-(node + 1)];
        for (uint32_t m = 0; m < leaf->mark_count; m++) {
            uint32_t fi = b->marks[leaf->first_mark + m];
            if (face_fits(b, fi, p, n, &out) && out < best_out) { best_out = out; best = fi; }
        }
    }
    if (best < 0 || best_out > 0)
        for (uint32_t k = 0; k < bp->model_face_count; k++) {
            const float *box = bp->model_face_box[k];
            if (p[0] < box[0] || p[1] < box[1] || p[2] < box[2] || p[0] > box[3] || p[1] > box[4] || p[2] > box[5]) continue;
            if (face_fits(b, bp->model_faces[k], p, n, &out) && out < best_out) { best_out = out; best = bp->model_faces[k]; }
        }
    return best_out <= FACE_REACH ? best : -1;
}

/* world metres (x, z, -y) back to the editor's units, and the other way */
static void units_from_world(const bsp_prelit *bp, v3 w, v3 n, double p[3], double un[3])
{
    p[0] = w.x / bp->s; p[1] = -w.z / bp->s; p[2] = w.y / bp->s;
    un[0] = n.x; un[1] = -n.z; un[2] = n.y;
}

/* The BSP face under a world point (NULL: none), and the point in the editor's units. */
static const bsp_face *face_under(const bsp_prelit *bp, v3 world, v3 normal, double p[3])
{
    double n[3];
    units_from_world(bp, world, normal, p, n);
    int64_t fi = find_face(bp, p, n);
    return fi < 0 ? NULL : &bp->b.faces[fi];
}

static bool prelit_sample(const prelit_source *src, v3 world, v3 normal, uint8_t rgb[3], prelit_styles *styles)
{
    const bsp_prelit *bp = (const bsp_prelit *)src;
    double p[3];
    const bsp_face *f = face_under(bp, world, normal, p);
    if (!f) return false;
    memset(rgb, 0, 3);
    if (styles) styles->count = 0;
    /* the reader checked every style's lightmap against the lump */
    for (unsigned k = 0; k < 4 && f->styles[k] != BSP_NO_STYLE; k++) {
        if (f->styles[k] == 0) sample_face(&bp->b, f, k, p, rgb);
        else if (styles) {
            styles->style[styles->count] = f->styles[k];
            sample_face(&bp->b, f, k, p, styles->rgb[styles->count++]);
        }
    }
    return true;
}

static double det3(const double m[3][3])
{
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
         + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

static bool prelit_grid(const prelit_source *src, v3 world, v3 normal, v3 *t, v3 *b, double *spacing, v3 *luxel)
{
    const bsp_prelit *bp = (const bsp_prelit *)src;
    double p[3];
    const bsp_face *f = face_under(bp, world, normal, p);
    if (!f) return false;
    const bsp_texinfo *ti = &bp->b.texinfos[f->texinfo];
    const bsp_plane *pl = &bp->b.planes[f->plane];
    double ls = sqrt((double)ti->s[0] * ti->s[0] + (double)ti->s[1] * ti->s[1] + (double)ti->s[2] * ti->s[2]);
    double lt = sqrt((double)ti->t[0] * ti->t[0] + (double)ti->t[1] * ti->t[1] + (double)ti->t[2] * ti->t[2]);
    if (!(ls > 1e-6) || fabs(ls - lt) > 1e-4 * ls) return false;
    /* luxel (0, 0): s = mins * 16 and t = mins * 16 on the face's plane (Cramer's rule) */
    double m[3][3] = { { ti->s[0], ti->s[1], ti->s[2] }, { ti->t[0], ti->t[1], ti->t[2] }, { pl->normal[0], pl->normal[1], pl->normal[2] } };
    double r[3] = { f->light_mins[0] * 16.0 - ti->s[3], f->light_mins[1] * 16.0 - ti->t[3], pl->dist };
    double det = det3(m);
    if (fabs(det) < 1e-9) return false;
    double c[3];
    for (int k = 0; k < 3; k++) {
        double mk[3][3];
        memcpy(mk, m, sizeof mk);
        for (int row = 0; row < 3; row++) mk[row][k] = r[row];
        c[k] = det3(mk) / det;
    }
    *luxel = v3_make(c[0] * bp->s, c[2] * bp->s, -c[1] * bp->s);
    *t = v3_make(ti->s[0] / ls, ti->s[2] / ls, -ti->s[1] / ls);
    *b = v3_make(ti->t[0] / lt, ti->t[2] / lt, -ti->t[1] / lt);
    *spacing = 16.0 / ls * bp->s;
    return true;
}

static void prelit_free(prelit_source *src)
{
    bsp_prelit *bp = (bsp_prelit *)src;
    xfree(bp->model_faces);
    xfree(bp->model_face_box);
    bsp_free(&bp->b);
    xfree(bp);
}

/* The sampler owns the file from here on. */
static prelit_source *prelit_create(bsp_file *b, double scale)
{
    bsp_prelit *bp = xcalloc(1, sizeof *bp);
    bp->base = (prelit_source){ prelit_sample, prelit_grid, prelit_free };
    bp->b = *b;
    memset(b, 0, sizeof *b);
    bp->s = scale > 0 ? scale : EDITOR_DEFAULT_SCALE;
    for (uint32_t m = 1; m < bp->b.model_count; m++) bp->model_face_count += bp->b.models[m].face_count;
    bp->model_faces = xcalloc(bp->model_face_count + 1, sizeof *bp->model_faces);
    uint32_t k = 0;
    bp->model_face_box = xcalloc(bp->model_face_count + 1, sizeof *bp->model_face_box);
    for (uint32_t m = 1; m < bp->b.model_count; m++)
        for (uint32_t f = 0; f < bp->b.models[m].face_count; f++, k++) {
            const bsp_face *face = &bp->b.faces[bp->b.models[m].first_face + f];
            bp->model_faces[k] = bp->b.models[m].first_face + f;
            float *box = bp->model_face_box[k];
            for (int a = 0; a < 3; a++) { box[a] = INFINITY; box[3 + a] = -INFINITY; }
            for (uint32_t e = 0; e < face->edge_count; e++) {
                const float *v = bp->b.vertices[bsp_face_vertex(&bp->b, face, e)];
                for (int a = 0; a < 3; a++) { box[a] = fminf(box[a], v[a]); box[3 + a] = fmaxf(box[3 + a], v[a]); }
            }
            for (int a = 0; a < 3; a++) { box[a] -= (float)FACE_REACH; box[3 + a] += (float)FACE_REACH; }
        }
    return &bp->base;
}

/* The BSP's light styles become dynamic lights: a styled or switchable light of the entity lump
 * carries its style's lightmaps as layers (level_apply_prelit), white since the layers hold its
 * colour; a style no light entity names gets a light of its own ("style N") at the middle of
 * the faces it lights. */
static void style_lights(const bsp_file *b, level_def *level, double s)
{
    double sum[256][3] = { { 0 } };
    uint32_t faces[256] = { 0 };
    for (uint32_t f = 0; f < b->face_count; f++) {
        const bsp_face *face = &b->faces[f];
        if (face->light_offset < 0) continue;
        for (int k = 0; k < 4 && face->styles[k] != BSP_NO_STYLE; k++) {
            uint8_t st = face->styles[k];
            double c[3];
            bsp_face_centre(b, face, c);
            for (int a = 0; a < 3; a++) sum[st][a] += c[a];
            faces[st]++;
        }
    }
    uint32_t next_id = 1;
    for (size_t i = 0; i < level->light_count; i++)
        if (level->lights[i].kind == BAKE_LIGHT_DYNAMIC && level->lights[i].id >= next_id) next_id = level->lights[i].id + 1;
    for (int st = 1; st < 255; st++) {
        if (!faces[st]) continue;
        bool named = false;
        for (size_t i = 0; i < level->light_count; i++) {
            light_def *l = &level->lights[i];
            if (l->kind != BAKE_LIGHT_DYNAMIC || l->style != st) continue;
            memset(l->color, 255, 3);
            named = true;
        }
        if (named) continue;
        light_def *l = PUSH(level->lights, level->light_count, level->light_cap);
        l->kind = BAKE_LIGHT_DYNAMIC;
        l->shape = BAKE_SHAPE_POINT;
        l->id = next_id++;
        l->style = st;
        l->enabled = true;
        memset(l->color, 255, 3);
        snprintf(l->name, sizeof l->name, "style %d", st);
        l->pos = v3_make(sum[st][0] / faces[st] * s, sum[st][2] / faces[st] * s, -sum[st][1] / faces[st] * s);
    }
}

/* The model an entity draws: "*N" in its model key (-1: none). */
static int64_t entity_model(const editor_entity *e)
{
    const char *m = editor_kv_get(e, "model");
    if (!m || m[0] != '*') return -1;
    char *end;
    long n = strtol(m + 1, &end, 10);
    return *end || n < 0 ? -1 : n;
}

bool bsp_import(const char *path, const editor_import_desc *desc, map_def *map)
{
    bsp_file b;
    pmf_error err;
    char line[1024];
    if (!bsp_read_file(path, &b, &err)) {
        session_say(PMFC_ERROR, "pmfc: %s", pmf_error_format(&err, line, sizeof line));
        return false;
    }
    qmap q;
    if (!bsp_read_entities(&b, path, &q, &err)) {
        session_say(PMFC_ERROR, "pmfc: %s", pmf_error_format(&err, line, sizeof line));
        bsp_free(&b);
        return false;
    }
    editor_map em = { .format = EDITOR_FORMAT_BSP, .format_label = bsp_version_name(b.version),
                      .game = b.version == BSP_VERSION_GOLDSRC ? EDITOR_GAME_GOLDSRC : EDITOR_GAME_QUAKE,
                      .prelit = b.lighting_size > 0 };
    em.embedded = xcalloc(b.texture_count + 1, sizeof *em.embedded);
    for (uint32_t t = 0; t < b.texture_count; t++)
        if (b.textures[t].embedded) {
            editor_embedded_texture *e = &em.embedded[em.embedded_count++];
            memcpy(e->name, b.textures[t].name, sizeof e->name);
            e->miptex = b.textures[t].miptex;
            e->size = b.textures[t].miptex_size;
            e->offset = b.textures[t].offset;
        }
    walk *w = xcalloc(1, sizeof *w);
    *w = (walk){ .b = &b, .em = &em, .max_visits = 2 * (size_t)b.node_count + 1 };
    if (b.models[0].headnode >= 0 && (uint32_t)b.models[0].headnode < b.node_count)   /* a world of one leaf has no node */
        walk_node(w, b.models[0].headnode, 0);
    const char *fail = w->fail;
    xfree(w);
    static const double no_offset[3] = { 0, 0, 0 };
    for (uint32_t i = 0; i < q.entity_count && !fail; i++) {
        editor_entity *e = editor_push_qmap_entity(&em, &q, i);
        int64_t model = i == 0 ? 0 : entity_model(e);
        e->point = i > 0 && model < 0;
        if (model < 0) continue;
        if ((uint64_t)model >= b.model_count) {
            char cls[256];
            if (!desc->quiet)
                session_say(PMFC_WARNING, "pmfc: warning: %s: entity %u (%s) draws model %lld of the %u the file has: left out",
                        text_clean(path, line, sizeof line), i, text_clean(e->classname, cls, sizeof cls), (long long)model, b.model_count);
            continue;
        }
        /* a model with an origin brush is built around its origin and placed there */
        const double *offset = model > 0 && editor_kv_get(e, "origin") ? e->origin : no_offset;
        const bsp_model *m = &b.models[model];
        for (uint32_t f = 0; f < m->face_count; f++) add_face_brushes(&em, &b, m->first_face + f, i, offset);
    }
    em.sealed = bsp_sealed(&b);
    bool ok = false;
    if (fail) {
        session_say(PMFC_ERROR, "pmfc: %s: model 0: %s", text_clean(path, line, sizeof line), fail);
    } else {
        editor_map_group_brushes(&em);
        ok = editor_import(path, &em, desc, map);
        /* the compiler's visibility and light replace pmfc's wherever they hold */
        if (ok) map->levels[0].vis_source = bsp_vis_source_create(&b, desc->scale > 0 ? desc->scale : EDITOR_DEFAULT_SCALE);
        if (ok && b.lighting_size && !map->levels[0].fullbright) {
            style_lights(&b, &map->levels[0], desc->scale > 0 ? desc->scale : EDITOR_DEFAULT_SCALE);
            map->levels[0].prelit = prelit_create(&b, desc->scale);
        }
        if (ok && bsp_compiler(&q)) text_clean(bsp_compiler(&q), map->source_compiler, sizeof map->source_compiler);
    }
    xfree(em.embedded);
    editor_map_free(&em);
    qmap_free(&q);
    bsp_free(&b);
    return ok;
}
