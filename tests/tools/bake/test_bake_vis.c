/* Visibility: walls hide what is behind them, holes and nearby targets do not, and for random
 * scenes nothing a brute-force search can see through is ever left out. */
#include "bake.h"
#include "soup.h"

#include <math.h>

static int listed(const vis_result *res, size_t cell, uint32_t target)
{
    for (uint32_t i = 0; i < res->visible_count[cell]; i++)
        if (res->visible[cell][i] == target)
            return 1;
    return 0;
}

static void run(const soup *occluders, const vis_box *cells, size_t cell_count, const vis_box *targets,
                size_t target_count, int threads, vis_result *res)
{
    vis_desc desc = {
        .triangles = (const float (*)[9])occluders->tris, .triangle_count = occluders->count,
        .cells = cells, .cell_count = cell_count, .targets = targets, .target_count = target_count,
        .threads = threads,
    };
    CHECK(vis_run(&desc, res));
    for (size_t c = 0; c < cell_count; c++)
        for (uint32_t i = 1; i < res->visible_count[c]; i++)
            CHECK(res->visible[c][i - 1] < res->visible[c][i]);   /* sorted, no duplicates */
}

/* A wall at x = 5 over y, z in [-50, 50], as n x n quads. */
static void wall(soup *s, int n, float x)
{
    float min[3] = { x, -50, -50 }, max[3] = { x, 50, 50 };
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float a[3] = { x, min[1] + 100.0f * i / n, min[2] + 100.0f * j / n };
            float b[3] = { x, min[1] + 100.0f * (i + 1) / n, a[2] };
            float c[3] = { x, b[1], min[2] + 100.0f * (j + 1) / n };
            float d[3] = { x, a[1], c[2] };
            soup_quad(s, a, b, c, d);
        }
    (void)max;
}

static void walls_hide(void)
{
    const vis_box cell = { { 0, 0, 0 }, { 1, 1, 1 } };
    const vis_box targets[] = {
        { { 9, 0, 0 }, { 10, 1, 1 } },          /* 0: behind the wall */
        { { -10, 0, 0 }, { -9, 1, 1 } },        /* 1: open space on the cell's side */
        { { 1, 0, 0 }, { 2, 1, 1 } },           /* 2: touching the cell */
        { { 1.5f, 1.5f, 0 }, { 2, 2, 1 } },     /* 3: within one cell size */
        { { 9, 20, 20 }, { 10, 21, 21 } },      /* 4: behind the wall, seen through the hole if any */
        { { 30, -40, -40 }, { 40, 80, 80 } },   /* 5: far behind the wall, huge */
    };
    for (int n = 1; n <= 16; n *= 4) {   /* one quad, or seams everywhere */
        soup s = { 0 };
        wall(&s, n, 5.0f);
        vis_result res;
        run(&s, &cell, 1, targets, 6, 2, &res);
        CHECK(!listed(&res, 0, 0) && listed(&res, 0, 1) && listed(&res, 0, 2) && listed(&res, 0, 3));
        CHECK(!listed(&res, 0, 4) && !listed(&res, 0, 5));
        CHECK(res.visible_count[0] == 3);
        vis_result_free(&res, 1);
        soup_free(&s);
    }
    /* The same wall with a 1 m hole at y, z in [10, 11]: target 4 shows through it. */
    soup s = { 0 };
    float parts[4][4] = { { -50, 10, -50, 50 }, { 11, 50, -50, 50 }, { 10, 11, -50, 10 }, { 10, 11, 11, 50 } };
    for (int i = 0; i < 4; i++) {
        float a[3] = { 5, parts[i][0], parts[i][2] }, b[3] = { 5, parts[i][1], parts[i][2] };
        float c[3] = { 5, parts[i][1], parts[i][3] }, d[3] = { 5, parts[i][0], parts[i][3] };
        soup_quad(&s, a, b, c, d);
    }
    vis_result res;
    run(&s, &cell, 1, targets, 6, 1, &res);
    CHECK(!listed(&res, 0, 0) && listed(&res, 0, 4) && listed(&res, 0, 5));
    vis_result_free(&res, 1);
    /* A target's own faces, and a wall coinciding with its side, never hide it. */
    soup_free(&s);
    float bmin[3] = { 9, 0, 0 }, bmax[3] = { 10, 1, 1 };
    soup_box(&s, bmin, bmax);
    wall(&s, 1, 9.0f);
    run(&s, &cell, 1, targets, 1, 1, &res);
    CHECK(listed(&res, 0, 0));
    vis_result_free(&res, 1);
    soup_free(&s);
}

/* The part of p -> q between leaving c and entering t (what vis.c calls the segment) is blocked,
 * exactly in double precision. */
static int brute_blocked(const soup *s, const vis_box *c, const vis_box *t, const double p[3], const double q[3])
{
    double d[3], exit_c = 1.0, enter_t = 0.0, len = 0.0;
    for (int a = 0; a < 3; a++) {
        d[a] = q[a] - p[a];
        len += d[a] * d[a];
        if (d[a] > 0) {
            exit_c = fmin(exit_c, (c->max[a] - p[a]) / d[a]);
            enter_t = fmax(enter_t, (t->min[a] - p[a]) / d[a]);
        } else if (d[a] < 0) {
            exit_c = fmin(exit_c, (c->min[a] - p[a]) / d[a]);
            enter_t = fmax(enter_t, (t->max[a] - p[a]) / d[a]);
        }
    }
    double margin = 1e-4 / sqrt(len), s_min = fmax(exit_c, 0.0) + margin, s_max = fmin(enter_t, 1.0) - margin;
    for (size_t i = 0; i < s->count; i++) {
        const float *tri = s->tris[i];
        double e1[3], e2[3], o[3], pv[3], qv[3];
        for (int a = 0; a < 3; a++) {
            e1[a] = (double)tri[3 + a] - tri[a];
            e2[a] = (double)tri[6 + a] - tri[a];
            o[a] = p[a] - tri[a];
        }
        pv[0] = d[1] * e2[2] - d[2] * e2[1];
        pv[1] = d[2] * e2[0] - d[0] * e2[2];
        pv[2] = d[0] * e2[1] - d[1] * e2[0];
        double det = e1[0] * pv[0] + e1[1] * pv[1] + e1[2] * pv[2];
        if (det == 0.0)
            continue;
        double u = (o[0] * pv[0] + o[1] * pv[1] + o[2] * pv[2]) / det;
        if (u < 0.0 || u > 1.0)
            continue;
        qv[0] = o[1] * e1[2] - o[2] * e1[1];
        qv[1] = o[2] * e1[0] - o[0] * e1[2];
        qv[2] = o[0] * e1[1] - o[1] * e1[0];
        double v = (d[0] * qv[0] + d[1] * qv[1] + d[2] * qv[2]) / det;
        if (v < 0.0 || u + v > 1.0)
            continue;
        double st = (e2[0] * qv[0] + e2[1] * qv[1] + e2[2] * qv[2]) / det;
        if (st > s_min && st < s_max)
            return 1;
    }
    return 0;
}

static void random_box(uint64_t *rng, float lo, float hi, float size_lo, float size_hi, vis_box *out)
{
    for (int a = 0; a < 3; a++) {
        out->min[a] = rng_range(rng, lo, hi);
        out->max[a] = out->min[a] + rng_range(rng, size_lo, size_hi);
    }
}

static void random_scenes_never_hide_the_visible(void)
{
    enum { SCENES = 12, CELLS = 4, TARGETS = 24, SEGMENTS = 1500 };
    int hidden = 0, pairs = 0;
    for (uint64_t seed = 1; seed <= SCENES; seed++) {
        uint64_t rng = seed * 1000003;
        soup s = { 0 };
        /* Walls (thin in one axis, large in the others), some split in two with a gap, and blocks. */
        for (int w = 0; w < 7; w++) {
            vis_box b;
            random_box(&rng, -15, 10, 3, 14, &b);
            int thin = (int)(rng_next(&rng) % 3);
            b.max[thin] = b.min[thin] + rng_range(&rng, 0.05f, 0.5f);
            if (w % 3 == 0) {
                int along = (thin + 1) % 3;
                vis_box second = b;
                float cut = 0.5f * (b.min[along] + b.max[along]);
                b.max[along] = cut;
                second.min[along] = cut + rng_range(&rng, 0.01f, 0.6f);
                soup_box(&s, second.min, second.max);
            }
            soup_box_split(&s, b.min, b.max, 1 + (int)(rng_next(&rng) % 3));
        }
        for (int k = 0; k < 6; k++) {
            vis_box b;
            random_box(&rng, -15, 12, 0.5f, 4, &b);
            soup_box(&s, b.min, b.max);
        }
        vis_box cells[CELLS], targets[TARGETS];
        for (int c = 0; c < CELLS; c++)
            random_box(&rng, -15, 13, 0.5f, 2, &cells[c]);
        for (int t = 0; t < TARGETS; t++)
            random_box(&rng, -15, 13, 0.3f, 3, &targets[t]);
        vis_result res;
        run(&s, cells, CELLS, targets, TARGETS, 2, &res);
        for (int c = 0; c < CELLS; c++)
            for (int t = 0; t < TARGETS; t++) {
                pairs++;
                if (listed(&res, (size_t)c, (uint32_t)t))
                    continue;
                hidden++;
                for (int k = 0; k < SEGMENTS + 64; k++) {
                    double p[3], q[3];
                    for (int a = 0; a < 3; a++) {
                        if (k < 64) {   /* corner to corner first */
                            p[a] = (k >> a) & 1 ? cells[c].max[a] : cells[c].min[a];
                            q[a] = (k >> (a + 3)) & 1 ? targets[t].max[a] : targets[t].min[a];
                        } else {
                            p[a] = rng_range(&rng, cells[c].min[a], cells[c].max[a]);
                            q[a] = rng_range(&rng, targets[t].min[a], targets[t].max[a]);
                        }
                    }
                    if (!brute_blocked(&s, &cells[c], &targets[t], p, q)) {
                        fprintf(stderr, "scene %d: cell %d sees target %d along (%g %g %g) -> (%g %g %g)\n",
                                (int)seed, c, t, p[0], p[1], p[2], q[0], q[1], q[2]);
                        CHECK(!"a visible target was left out");
                    }
                }
            }
        vis_result_free(&res, CELLS);
        soup_free(&s);
    }
    printf("vis: %d of %d random pairs proven hidden, each checked with %d segments\n", hidden, pairs, SEGMENTS + 64);
    CHECK(hidden > pairs / 20);    /* the proofs do find occlusion, not only "all visible" */
}

/* No occluders: everything is visible; no targets: every list is empty. */
static void degenerate_inputs(void)
{
    const vis_box cells[2] = { { { 0, 0, 0 }, { 1, 1, 1 } }, { { 50, 0, 0 }, { 51, 1, 1 } } };
    const vis_box targets[3] = { { { 10, 0, 0 }, { 11, 1, 1 } }, { { -30, 5, 5 }, { -29, 6, 6 } }, { { 50, 0, 0 }, { 51, 1, 1 } } };
    soup none = { 0 };
    vis_result res;
    run(&none, cells, 2, targets, 3, 0, &res);
    CHECK(res.visible_count[0] == 3 && res.visible_count[1] == 3);
    vis_result_free(&res, 2);
    run(&none, cells, 2, targets, 0, 0, &res);
    CHECK(res.visible_count[0] == 0 && res.visible[0] == NULL);
    vis_result_free(&res, 2);
}

int main(void)
{
    degenerate_inputs();
    walls_hide();
    random_scenes_never_hide_the_visible();
    puts("test_bake_vis: ok");
    TEST_DONE();
}
