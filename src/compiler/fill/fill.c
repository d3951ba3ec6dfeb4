/* fill.c - the outside fill on a grid of cells (fill.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/memory.h"
#include "csg/csg.h"
#include "fill.h"

#define FILL_MIN_CELL_UNITS 8.0      /* the editors' usual grid: finer cells find nothing more */
#define FILL_MAX_CELLS (16u << 20)   /* a byte each, and one more for the flood's way back */
#define FILL_TARGET_SIDE 256.0       /* cells along the level's longest side */
#define FILL_LOOK_CELLS 8            /* how far in front of a face its space is looked for */
#define FILL_OPEN_RUN 64             /* cells a camera's open way is measured to at most */

enum { CELL_EMPTY, CELL_SOLID, CELL_OUTSIDE };
enum { FROM_SEED = 6, FROM_UNSEEN = 7 };
#define NO_CELL SIZE_MAX

struct fill_grid {
    v3 origin;                       /* the corner of cell (0, 0, 0) */
    double cell;
    int n[3];
    uint8_t *state;                  /* CELL_* */
    uint8_t *from;                   /* outside cells: the direction the flood came from (0..5, FROM_SEED);
                                      * made only when an entity stands outside (flood_ways) */
    const fill_point *entities;
    size_t entity_count;
    size_t *entity_cell;             /* [entity_count]: the cell of its space (entity_space), or NO_CELL */
    bool any_inside;
    bool occupied;                   /* an entity stands in empty space (fill_occupied) */
};

static const int steps[6][3] = { { 1, 0, 0 }, { -1, 0, 0 }, { 0, 1, 0 }, { 0, -1, 0 }, { 0, 0, 1 }, { 0, 0, -1 } };

static size_t cell_index(const fill_grid *g, int x, int y, int z)
{
    return ((size_t)y * (size_t)g->n[0] + (size_t)x) * (size_t)g->n[2] + (size_t)z;
}

static void cell_coords(const fill_grid *g, size_t i, int c[3])
{
    c[0] = (int)((i / (size_t)g->n[2]) % (size_t)g->n[0]);
    c[1] = (int)(i / ((size_t)g->n[2] * (size_t)g->n[0]));
    c[2] = (int)(i % (size_t)g->n[2]);
}

static bool in_grid(const fill_grid *g, const int c[3])
{
    for (int a = 0; a < 3; a++)
        if (c[a] < 0 || c[a] >= g->n[a]) return false;
    return true;
}

/* The cell holding p (possibly outside the grid). */
static void cell_of(const fill_grid *g, v3 p, int c[3])
{
    for (int a = 0; a < 3; a++) c[a] = (int)floor((p.e[a] - g->origin.e[a]) / g->cell);
}

static v3 cell_centre(const fill_grid *g, const int c[3])
{
    return v3_make(g->origin.x + (c[0] + 0.5) * g->cell, g->origin.y + (c[1] + 0.5) * g->cell,
                   g->origin.z + (c[2] + 0.5) * g->cell);
}

/* CELL_OUTSIDE beyond the grid: the void goes on. */
static int state_at(const fill_grid *g, const int c[3])
{
    return in_grid(g, c) ? g->state[cell_index(g, c[0], c[1], c[2])] : CELL_OUTSIDE;
}

/* Whether a sealing brush's planes do not all keep cell c out (conservative: a cell merely near
 * a corner of the brush counts). */
static bool brush_touches_cell(const fill_grid *g, const brush *b, const brush_side *sides, const int c[3])
{
    v3 centre = cell_centre(g, c);
    double h = g->cell / 2, eps = g->cell * 1e-6;
    for (uint32_t s = 0; s < b->side_count; s++) {
        v3 n = sides[s].pl.n;
        double nearest = v3_dot(n, centre) - h * (fabs(n.x) + fabs(n.y) + fabs(n.z));
        if (!(nearest < sides[s].pl.d - eps)) return false;
    }
    return true;
}

/* A sealing brush's cells. Along a row of z, each side's test moves one way only (its plane's
 * distance grows or shrinks with z, rounding included), so the cells it touches are one run: its
 * two ends are looked for, the cells between marked without a test. */
static void mark_brush(fill_grid *g, const level_def *l, const brush *b)
{
    int lo[3], hi[3];
    cell_of(g, b->lo, lo);
    cell_of(g, b->hi, hi);
    for (int a = 0; a < 3; a++) {
        lo[a] = lo[a] < 0 ? 0 : lo[a];
        hi[a] = hi[a] >= g->n[a] ? g->n[a] - 1 : hi[a];
    }
    const brush_side *sides = brush_sides(l, b);
    for (int y = lo[1]; y <= hi[1]; y++)
        for (int x = lo[0]; x <= hi[0]; x++) {
            int first[3] = { x, y, lo[2] }, last[3] = { x, y, hi[2] };
            while (first[2] <= last[2] && !brush_touches_cell(g, b, sides, first)) first[2]++;
            while (last[2] > first[2] && !brush_touches_cell(g, b, sides, last)) last[2]--;
            if (first[2] <= last[2])
                memset(g->state + cell_index(g, x, y, first[2]), CELL_SOLID, (size_t)(last[2] - first[2] + 1));
        }
}

/* Whether p lies inside a sealing brush (on its surface is outside). Only a solid cell may hold
 * one: the brushes are looked at only there. */
static bool point_in_sealing_brush(const fill_grid *g, const fill_desc *desc, v3 p)
{
    int c[3];
    cell_of(g, p, c);
    if (state_at(g, c) != CELL_SOLID) return false;
    const level_def *l = desc->level;
    for (size_t i = 0; i < l->brush_count; i++)
        if (desc->seals[i] && brush_holds_point(l, &l->brushes[i], p, GEOM_EPS)) return true;
    return false;
}

/* Whether the segment a -> b crosses the inside of a sealing brush (clipped by its planes, as a
 * ray is: touching a side does not count). */
static bool segment_hits_sealing_brush(const fill_desc *desc, v3 a, v3 b)
{
    const level_def *l = desc->level;
    for (size_t i = 0; i < l->brush_count; i++) {
        const brush *br = &l->brushes[i];
        bool near = desc->seals[i];
        for (int k = 0; k < 3 && near; k++) near = fmax(a.e[k], b.e[k]) > br->lo.e[k] && fmin(a.e[k], b.e[k]) < br->hi.e[k];
        if (!near) continue;
        const brush_side *sides = brush_sides(l, br);
        double t0 = 0, t1 = 1;
        for (uint32_t s = 0; s < br->side_count && t0 < t1; s++) {
            double da = v3_dot(sides[s].pl.n, a) - sides[s].pl.d + GEOM_EPS;
            double db = v3_dot(sides[s].pl.n, b) - sides[s].pl.d + GEOM_EPS;
            if (da >= 0 && db >= 0) t1 = -1;                     /* wholly in front of this side */
            else if (da >= 0) t0 = fmax(t0, da / (da - db));
            else if (db >= 0) t1 = fmin(t1, da / (da - db));
        }
        if (t0 < t1) return true;
    }
    return false;
}

/* The cell of the empty space an entity stands in. A cell is solid when a brush merely touches
 * it, so an entity standing in a room near a wall or on a floor may sit in a solid cell: then the
 * first cell that is not solid along each axis, within FILL_LOOK_CELLS, that a straight line from
 * the entity reaches through no brush; one the void holds first (a leak), else one inside. */
static size_t entity_space(const fill_grid *g, const fill_desc *desc, v3 p)
{
    int c[3];
    cell_of(g, p, c);
    if (!in_grid(g, c)) return NO_CELL;                          /* beyond the grid: no way in to show */
    size_t at = cell_index(g, c[0], c[1], c[2]);
    if (g->state[at] != CELL_SOLID) return at;
    if (point_in_sealing_brush(g, desc, p)) return NO_CELL;
    size_t inside = NO_CELL;
    for (int d = 0; d < 6; d++)
        for (int k = 1; k <= FILL_LOOK_CELLS; k++) {
            int q[3] = { c[0] + steps[d][0] * k, c[1] + steps[d][1] * k, c[2] + steps[d][2] * k };
            if (!in_grid(g, q)) break;
            size_t i = cell_index(g, q[0], q[1], q[2]);
            if (g->state[i] == CELL_SOLID) continue;
            if (segment_hits_sealing_brush(desc, p, cell_centre(g, q))) break;
            if (g->state[i] == CELL_OUTSIDE) return i;
            if (inside == NO_CELL) inside = i;
            break;
        }
    return inside;
}

static bool on_outer_layer(const fill_grid *g, int x, int y, int z)
{
    return x == 0 || y == 0 || z == 0 || x == g->n[0] - 1 || y == g->n[1] - 1 || z == g->n[2] - 1;
}

/* Each run of empty cells in row `row` (a y, x pair: its z cells lie side by side) between z0 and
 * z1, as the index of its first cell. */
static void push_empty_runs(const fill_grid *g, size_t row, int z0, int z1, uint32_t **stack, size_t *count, size_t *cap)
{
    const uint8_t *cells = g->state + row * (size_t)g->n[2], *end = cells + z1 + 1;
    for (const uint8_t *p = cells + z0; (p = memchr(p, CELL_EMPTY, (size_t)(end - p))) != NULL;) {
        *(uint32_t *)grow((void **)stack, count, cap, sizeof **stack) = (uint32_t)(p - g->state);
        while (p < end && *p == CELL_EMPTY) p++;
    }
}

/* The void floods in from the grid's outer layer (empty: the grid has a cell of room around the
 * brushes) through the empty cells, a run along z at a time: the runs lie in memory in a row, so
 * the flood reads the grid in order instead of a cell's six neighbours far apart. */
static void flood(fill_grid *g)
{
    size_t count = 0, cap = 0, total = (size_t)g->n[0] * g->n[1] * g->n[2];
    uint32_t *stack = NULL;
    for (int y = 0; y < g->n[1]; y++)
        for (int x = 0; x < g->n[0]; x++) {
            size_t row = (size_t)y * (size_t)g->n[0] + (size_t)x;
            bool outer = x == 0 || y == 0 || x == g->n[0] - 1 || y == g->n[1] - 1;
            push_empty_runs(g, row, 0, outer ? g->n[2] - 1 : 0, &stack, &count, &cap);
            if (!outer) push_empty_runs(g, row, g->n[2] - 1, g->n[2] - 1, &stack, &count, &cap);
        }
    while (count) {
        size_t i = stack[--count], row = i / (size_t)g->n[2];
        uint8_t *cells = g->state + row * (size_t)g->n[2];
        int lo = (int)(i % (size_t)g->n[2]), hi = lo;
        if (cells[lo] != CELL_EMPTY) continue;
        while (lo > 0 && cells[lo - 1] == CELL_EMPTY) lo--;
        while (hi < g->n[2] - 1 && cells[hi + 1] == CELL_EMPTY) hi++;
        memset(cells + lo, CELL_OUTSIDE, (size_t)(hi - lo + 1));
        int x = (int)(row % (size_t)g->n[0]), y = (int)(row / (size_t)g->n[0]);
        if (x > 0) push_empty_runs(g, row - 1, lo, hi, &stack, &count, &cap);
        if (x < g->n[0] - 1) push_empty_runs(g, row + 1, lo, hi, &stack, &count, &cap);
        if (y > 0) push_empty_runs(g, row - (size_t)g->n[0], lo, hi, &stack, &count, &cap);
        if (y < g->n[1] - 1) push_empty_runs(g, row + (size_t)g->n[0], lo, hi, &stack, &count, &cap);
    }
    xfree(stack);
    g->any_inside = memchr(g->state, CELL_EMPTY, total) != NULL;
}

/* For a leak's way back: the void's cells in the order a breadth-first flood from the outer layer
 * reaches them, each remembering the step it came by (the shortest way out). */
static void flood_ways(fill_grid *g)
{
    size_t total = (size_t)g->n[0] * g->n[1] * g->n[2], head = 0, tail = 0;
    uint32_t *queue = xmalloc(total * sizeof *queue);
    g->from = xmalloc(total);
    memset(g->from, FROM_UNSEEN, total);
    for (int y = 0; y < g->n[1]; y++)
        for (int x = 0; x < g->n[0]; x++)
            for (int z = 0; z < g->n[2]; z++) {
                size_t i = cell_index(g, x, y, z);
                if (!on_outer_layer(g, x, y, z) || g->state[i] != CELL_OUTSIDE) continue;
                g->from[i] = FROM_SEED;
                queue[tail++] = (uint32_t)i;
            }
    while (head < tail) {
        size_t i = queue[head++];
        int at[3];
        cell_coords(g, i, at);
        for (int d = 0; d < 6; d++) {
            int c[3] = { at[0] + steps[d][0], at[1] + steps[d][1], at[2] + steps[d][2] };
            if (!in_grid(g, c)) continue;
            size_t j = cell_index(g, c[0], c[1], c[2]);
            if (g->state[j] != CELL_OUTSIDE || g->from[j] != FROM_UNSEEN) continue;
            g->from[j] = (uint8_t)(d ^ 1); /* the step back */
            queue[tail++] = (uint32_t)j;
        }
    }
    xfree(queue);
}

fill_grid *fill_build(const fill_desc *desc)
{
    const level_def *l = desc->level;
    v3 lo = v3_make(1e30, 1e30, 1e30), hi = v3_make(-1e30, -1e30, -1e30);
    bool any = false;
    for (size_t i = 0; i < l->brush_count; i++) {
        if (!desc->seals[i]) continue;
        any = true;
        for (int a = 0; a < 3; a++) {
            lo.e[a] = fmin(lo.e[a], l->brushes[i].lo.e[a]);
            hi.e[a] = fmax(hi.e[a], l->brushes[i].hi.e[a]);
        }
    }
    if (!any) return NULL;
    double extent = fmax(hi.x - lo.x, fmax(hi.y - lo.y, hi.z - lo.z));
    double cell = desc->cell > 0 ? desc->cell : fmax(FILL_MIN_CELL_UNITS * desc->units, extent / FILL_TARGET_SIDE);
    fill_grid *g = xcalloc(1, sizeof *g);
    for (;;) {
        double total = 1;
        for (int a = 0; a < 3; a++) {
            g->n[a] = (int)ceil((hi.e[a] - lo.e[a]) / cell) + 3; /* a cell of room either side */
            total *= g->n[a];
        }
        if (total <= FILL_MAX_CELLS) break;
        cell *= 1.25;
    }
    g->cell = cell;
    g->origin = v3_sub(lo, v3_make(cell, cell, cell));
    size_t total = (size_t)g->n[0] * g->n[1] * g->n[2];
    g->state = xcalloc(total, 1);
    g->entities = desc->entities;
    g->entity_count = desc->entity_count;
    for (size_t i = 0; i < l->brush_count; i++)
        if (desc->seals[i]) mark_brush(g, l, &l->brushes[i]);
    /* as hlbsp places its occupants: each entity one unit over its origin, so one standing on a
     * floor stands in the room */
    for (size_t e = 0; e < desc->entity_count && !g->occupied; e++)
        g->occupied = !point_in_sealing_brush(g, desc, v3_add(desc->entities[e].pos, v3_make(0, desc->units, 0)));
    flood(g);
    g->entity_cell = xmalloc((desc->entity_count ? desc->entity_count : 1) * sizeof *g->entity_cell);
    bool any_outside = false;
    for (size_t e = 0; e < desc->entity_count; e++) {
        g->entity_cell[e] = entity_space(g, desc, desc->entities[e].pos);
        any_outside = any_outside || (g->entity_cell[e] != NO_CELL && g->state[g->entity_cell[e]] == CELL_OUTSIDE);
    }
    if (any_outside) flood_ways(g);
    return g;
}

void fill_free(fill_grid *g)
{
    if (!g) return;
    xfree(g->state);
    xfree(g->from);
    xfree(g->entity_cell);
    xfree(g);
}

void fill_translate(fill_grid *g, v3 d)
{
    if (g) g->origin = v3_add(g->origin, d);
}

bool fill_sealed(const fill_grid *g)
{
    return g && g->any_inside;
}

bool fill_occupied(const fill_grid *g)
{
    return g && g->occupied;
}

bool fill_point_solid(const fill_grid *g, v3 p)
{
    int c[3];
    cell_of(g, p, c);
    return state_at(g, c) == CELL_SOLID;
}

bool fill_box_inside(const fill_grid *g, v3 lo, v3 hi)
{
    if (!g) return true;
    int a[3], b[3];
    cell_of(g, lo, a);
    cell_of(g, hi, b);
    for (int k = 0; k < 3; k++) {
        a[k] = a[k] < 0 ? 0 : a[k];
        b[k] = b[k] >= g->n[k] ? g->n[k] - 1 : b[k];
        if (a[k] > b[k]) return false;   /* wholly beyond the grid: the void */
    }
    for (int x = a[0]; x <= b[0]; x++)
        for (int y = a[1]; y <= b[1]; y++)
            if (memchr(g->state + cell_index(g, x, y, a[2]), CELL_EMPTY, (size_t)(b[2] - a[2] + 1))) return true;
    return false;
}

bool fill_leak(const fill_grid *g, fill_leak_info *out)
{
    memset(out, 0, sizeof *out);
    if (!g) return false;
    for (size_t e = 0; e < g->entity_count; e++) {
        size_t at = g->entity_cell[e];
        if (at == NO_CELL || g->state[at] != CELL_OUTSIDE) continue;
        int c[3];
        cell_coords(g, at, c);
        /* back along the flood to the outer layer, then turned around; straight runs kept as
         * their two ends */
        size_t count = 0, cap = 0;
        v3 *pts = NULL;
        int prev_dir = -1;
        for (;;) {
            uint8_t d = g->from[cell_index(g, c[0], c[1], c[2])];
            if (d != prev_dir || d == FROM_SEED)
                *(v3 *)grow((void **)&pts, &count, &cap, sizeof *pts) = cell_centre(g, c);
            if (d == FROM_SEED) break;
            for (int a = 0; a < 3; a++) c[a] += steps[d][a];
            prev_dir = d;
        }
        for (size_t i = 0; i < count / 2; i++) {
            v3 t = pts[i];
            pts[i] = pts[count - 1 - i];
            pts[count - 1 - i] = t;
        }
        pts[count - 1] = g->entities[e].pos;
        out->entity = e;
        out->points = pts;
        out->point_count = count;
        return true;
    }
    return false;
}

bool fill_face_seen(const fill_grid *g, const v3 *p, int n, v3 normal)
{
    if (!g || n < 3) return true;
    v3 centre = v3_make(0, 0, 0);
    for (int i = 0; i < n; i++) centre = v3_add(centre, p[i]);
    centre = v3_scale(centre, 1.0 / n);
    bool void_sees = false;
    /* the centre, and each corner and edge middle drawn a tenth toward it */
    for (int k = -1; k < 2 * n; k++) {
        v3 s = centre;
        if (k >= 0) {
            v3 q = k % 2 == 0 ? p[k / 2] : v3_scale(v3_add(p[k / 2], p[(k / 2 + 1) % n]), 0.5);
            s = v3_add(centre, v3_scale(v3_sub(q, centre), 0.9));
        }
        for (int step = 1; step <= FILL_LOOK_CELLS; step++) {
            int c[3];
            cell_of(g, v3_add(s, v3_scale(normal, step * g->cell * 0.5)), c);
            int st = state_at(g, c);
            if (st == CELL_SOLID) continue;
            if (st == CELL_EMPTY) return true; /* inside sees it */
            void_sees = true;
            break;
        }
    }
    return !void_sees;
}

/* Empty cells in a row from c along (dx, dz), at most FILL_OPEN_RUN; inside ones only when
 * `inside`. */
static int open_run(const fill_grid *g, const int c[3], int dx, int dz, bool inside)
{
    int run = 0;
    int q[3] = { c[0], c[1], c[2] };
    while (run < FILL_OPEN_RUN) {
        q[0] += dx;
        q[2] += dz;
        int st = state_at(g, q);
        if (st == CELL_SOLID || (inside && st != CELL_EMPTY) || !in_grid(g, q)) break;
        run++;
    }
    return run;
}

bool fill_camera(const fill_grid *g, double eye_height, v3 *pos, double *yaw)
{
    if (!g) return false;
    bool inside = g->any_inside;
    int best[3] = { 0, 0, 0 }, best_score = -1;
    int eye_cells = (int)ceil(eye_height / g->cell);
    /* a floor under an empty cell, with room above it for the eye and a roof over it when the
     * map is open (so the camera is under something, not on the outer shell's top) */
    for (int pass = 0; pass < 2 && best_score < 0; pass++)
        for (int y = 1; y < g->n[1] - 1; y++)
            for (int x = 1; x < g->n[0] - 1; x++)
                for (int z = 1; z < g->n[2] - 1; z++) {
                    int c[3] = { x, y, z }, below[3] = { x, y - 1, z };
                    int st = g->state[cell_index(g, x, y, z)];
                    if (st == CELL_SOLID || (inside && st != CELL_EMPTY) || state_at(g, below) != CELL_SOLID) continue;
                    bool room = true, roof = inside;
                    for (int k = 1; k <= eye_cells && room; k++) {
                        int up[3] = { x, y + k, z };
                        room = state_at(g, up) != CELL_SOLID && in_grid(g, up);
                    }
                    for (int k = 1; !roof && y + k < g->n[1]; k++) {
                        int up[3] = { x, y + k, z };
                        roof = state_at(g, up) == CELL_SOLID;
                    }
                    if (!room || (pass == 0 && !roof)) continue;
                    int score = open_run(g, c, 1, 0, inside) + open_run(g, c, -1, 0, inside) + open_run(g, c, 0, 1, inside)
                              + open_run(g, c, 0, -1, inside);
                    if (score > best_score) {
                        best_score = score;
                        memcpy(best, c, sizeof best);
                    }
                }
    if (best_score < 0) return false;
    v3 floor_centre = cell_centre(g, best);
    floor_centre.y -= g->cell / 2;
    *pos = v3_add(floor_centre, v3_make(0, eye_height, 0));
    /* the longest open way of the eight around */
    int eye[3];
    cell_of(g, *pos, eye);
    int best_run = -1;
    *yaw = 0;
    for (int dx = -1; dx <= 1; dx++)
        for (int dz = -1; dz <= 1; dz++) {
            if (!dx && !dz) continue;
            int run = open_run(g, eye, dx, dz, inside);
            if (run > best_run) {
                best_run = run;
                *yaw = atan2(-dx, -dz) * 180 / M_PI;
            }
        }
    return true;
}
