/* world.c - small shared helpers of the front end: memory, vectors, polygons, definitions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fill/fill.h"
#include "memory.h"
#include "world.h"

void *grow(void **items, size_t *count, size_t *cap, size_t size)
{
    if (*count == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *items = xrealloc(*items, *cap * size);
    }
    void *item = (char *)*items + *count * size;
    memset(item, 0, size);
    (*count)++;
    return item;
}

v3 v3_normalize(v3 a)
{
    double l = sqrt(v3_dot(a, a));
    return l > 0 ? v3_scale(a, 1.0 / l) : a;
}

/* ---- polygons ---------------------------------------------------------------------------- */

void poly_split(const poly *in, plane pl, v3 facing, poly *front, poly *back)
{
    double dist[POLY_MAX];
    int side[POLY_MAX], nfront = 0, nback = 0;
    for (int i = 0; i < in->n; i++) {
        dist[i] = v3_dot(pl.n, in->p[i]) - pl.d;
        side[i] = dist[i] > GEOM_EPS ? 1 : dist[i] < -GEOM_EPS ? -1 : 0;
        nfront += side[i] > 0;
        nback += side[i] < 0;
    }
    if (front) front->n = 0;
    if (back) back->n = 0;
    if (!nfront && !nback) {
        poly *to = v3_dot(facing, pl.n) > 0 ? front : back;
        if (to) poly_copy(to, in);
        return;
    }
    if (!nback) { if (front) poly_copy(front, in); return; }
    if (!nfront) { if (back) poly_copy(back, in); return; }
    for (int i = 0; i < in->n; i++) {
        int j = (i + 1) % in->n;
        if (side[i] >= 0 && front && front->n < POLY_MAX) front->p[front->n++] = in->p[i];
        if (side[i] <= 0 && back && back->n < POLY_MAX) back->p[back->n++] = in->p[i];
        if (side[i] * side[j] < 0) {
            double t = dist[i] / (dist[i] - dist[j]);
            v3 m = v3_add(in->p[i], v3_scale(v3_sub(in->p[j], in->p[i]), t));
            /* exact on the plane for axis planes, so neighbours share the seam */
            for (int a = 0; a < 3; a++)
                if (fabs(pl.n.e[a]) == 1.0) m.e[a] = pl.d * pl.n.e[a];
            if (front && front->n < POLY_MAX) front->p[front->n++] = m;
            if (back && back->n < POLY_MAX) back->p[back->n++] = m;
        }
    }
}

bool poly_clip_box(const poly *in, v3 facing, v3 lo, v3 hi, poly *out)
{
    /* wholly beyond a side of the box by more than a split's tolerance (twice: its cut points
     * round), as an octant mostly is: no split would keep a piece */
    if (in->n < 3) return false;
    for (int a = 0; a < 3; a++) {
        double least = in->p[0].e[a], most = least;
        for (int i = 1; i < in->n; i++) {
            least = fmin(least, in->p[i].e[a]);
            most = fmax(most, in->p[i].e[a]);
        }
        if (most < lo.e[a] - 2 * GEOM_EPS || least > hi.e[a] + 2 * GEOM_EPS) return false;
    }
    poly tmp;
    poly_copy(out, in);
    for (int a = 0; a < 3; a++) {
        plane pl = { v3_make(0, 0, 0), 0 };
        pl.n.e[a] = 1;
        pl.d = lo.e[a];
        poly_split(out, pl, facing, &tmp, NULL);
        if (tmp.n < 3) return false;
        pl.d = hi.e[a];
        poly_split(&tmp, pl, facing, NULL, out);
        if (out->n < 3) return false;
    }
    poly_simplify(out);
    return out->n >= 3 && poly_area(out) > 1e-8;
}

double poly_area(const poly *p)
{
    v3 sum = v3_make(0, 0, 0);
    for (int i = 1; i + 1 < p->n; i++)
        sum = v3_add(sum, v3_cross(v3_sub(p->p[i], p->p[0]), v3_sub(p->p[i + 1], p->p[0])));
    return 0.5 * sqrt(v3_dot(sum, sum));
}

void poly_simplify(poly *p)
{
    bool changed = true;
    while (changed && p->n >= 3) {
        changed = false;
        for (int i = 0; i < p->n && p->n >= 3; i++) {
            v3 a = p->p[(i + p->n - 1) % p->n], b = p->p[i], c = p->p[(i + 1) % p->n];
            v3 ab = v3_sub(b, a), bc = v3_sub(c, b);
            double lab = sqrt(v3_dot(ab, ab)), lbc = sqrt(v3_dot(bc, bc));
            v3 cr = v3_cross(ab, bc);
            if (lab < GEOM_EPS || lbc < GEOM_EPS || sqrt(v3_dot(cr, cr)) < 1e-9 * (lab + lbc) + 1e-12) {
                memmove(&p->p[i], &p->p[i + 1], (size_t)(p->n - i - 1) * sizeof(v3));
                p->n--;
                changed = true;
                i--;
            }
        }
    }
}

/* ---- definitions ------------------------------------------------------------------------ */

bool material_opaque(const material_def *m)
{
    return !(m->flags & (PMF_MATERIAL_TRANSPARENT | PMF_MATERIAL_LIQUID)) && m->render_mode == PMF_RENDMODE_NORMAL;
}

bool material_lightmapped(const material_def *m)
{
    return m->shading > 0;
}

bool level_sky_lit(const level_def *l)
{
    float sum = 0;
    for (int c = 0; c < 3; c++) sum += l->sky_light[c] + l->sky_domes[0].color[c] + l->sky_domes[1].color[c];
    return sum > 0;
}

int map_find_material(const map_def *map, const char *name)
{
    for (size_t i = 0; i < map->material_count; i++)
        if (!strcmp(map->materials[i].name, name)) return (int)i;
    return -1;
}

void map_init(map_def *map)
{
    memset(map, 0, sizeof *map);
    physics_def *p = PUSH(map->physics, map->physics_count, map->physics_cap);
    snprintf(p->name, sizeof p->name, "default");
    p->pm.friction = 1;
    p->pm.traction = 1;
    sound_def *s = PUSH(map->sounds, map->sound_count, map->sound_cap);
    snprintf(s->name, sizeof s->name, "default");
}

void map_free(map_def *map)
{
    for (size_t i = 0; i < map->texture_count; i++) xfree(map->textures[i].rgba);
    for (size_t i = 0; i < map->level_count; i++) {
        level_def *l = &map->levels[i];
        xfree(l->brushes); xfree(l->sides); xfree(l->tex_projs); xfree(l->lights); xfree(l->skies); xfree(l->sound_envs);
        xfree(l->weathers); xfree(l->gravities); xfree(l->regions);
        fill_free(l->fill);
        if (l->prelit) l->prelit->free(l->prelit);
        if (l->vis_source) l->vis_source->free(l->vis_source);
    }
    xfree(map->cameras);
    xfree(map->entities);
    xfree(map->leak_points);
    xfree(map->textures); xfree(map->physics); xfree(map->sounds); xfree(map->materials); xfree(map->levels);
    memset(map, 0, sizeof *map);
}
