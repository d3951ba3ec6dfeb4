/* Light values: a floor lit by a static light with a box casting a shadow, range, ambient,
 * dilation, a dynamic light's layer, fast-light vertex multipliers and probes; sky domes; sky
 * light through sky faces only (bake_desc.sky_faces_only); minlight as a floor (bake_desc.ambient_floor,
 * bake_patch.minlight); a liquid's surface lit from behind (bake_patch.two_sided); a luxel outside
 * its face lit at the face's edge (bake_patch.face_lo). */
#include "bake.h"
#include "soup.h"

#include <math.h>

#define SIDE 64
#define AMBIENT 0.2f

/* The documented model, written out again: C * I * max(0, n.l) * (1 - d/R)^2. */
static double expected_light(const float light[3], float range, const float p[3], const float n[3])
{
    double d[3] = { light[0] - p[0], light[1] - p[1], light[2] - p[2] };
    double dist = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (dist >= range)
        return 0.0;
    double n_dot_l = n ? (n[0] * d[0] + n[1] * d[1] + n[2] * d[2]) / dist : 1.0;
    double f = 1.0 - dist / range;
    return n_dot_l > 0.0 ? n_dot_l * f * f : 0.0;
}

static void check_near(int got, double want)
{
    if (fabs(got - want) > 1.0) {
        fprintf(stderr, "got %d, want %.2f\n", got, want);
        CHECK(fabs(got - want) <= 1.0);
    }
}

typedef struct floor_scene {
    soup occluders;
    bake_light lights[6];
    bake_patch patch;
    bake_lightmap lightmap;
    bake_vertex vertices[83];
    bake_probe probes[3];
    bake_desc desc;
} floor_scene;

/* Floor y = 0 over [-8.25, 8.25]^2 as one 33 x 33 patch at (2, 2) of a 64 x 64 lightmap: luxel
 * (i, j) of the patch sits at x = -8 + 0.5 i, z = -8 + 0.5 j. */
static void floor_scene_init(floor_scene *f)
{
    memset(f, 0, sizeof *f);
    float a[3] = { -8.25f, 0, -8.25f }, b[3] = { 8.25f, 0, -8.25f }, c[3] = { 8.25f, 0, 8.25f }, d[3] = { -8.25f, 0, 8.25f };
    soup_quad(&f->occluders, a, b, c, d);
    float box_min[3] = { 3, 1, -1 }, box_max[3] = { 4, 2, 1 };
    soup_box(&f->occluders, box_min, box_max);
    /* A closed box shutting a dynamic light in: it lights nothing and gets no layer. */
    float cage_min[3] = { -7, 0.5f, 6 }, cage_max[3] = { -6, 1.5f, 7 };
    soup_box(&f->occluders, cage_min, cage_max);

    f->lights[0] = (bake_light){ .kind = BAKE_LIGHT_STATIC, .position = { 0, 4, 0 }, .color = { 1.0f, 0.5f, 0.25f }, .intensity = 1.0f, .range = 10.0f };
    f->lights[1] = (bake_light){ .kind = BAKE_LIGHT_DYNAMIC, .position = { -4, 2, -4 }, .color = { 0, 1, 0 }, .intensity = 1.0f, .range = 5.0f };
    f->lights[2] = (bake_light){ .kind = BAKE_LIGHT_FAST, .position = { 4, 1, -4 }, .color = { 1, 1, 1 }, .intensity = 1.0f, .range = 3.0f };
    f->lights[3] = (bake_light){ .kind = BAKE_LIGHT_DYNAMIC, .position = { 0, 100, 0 }, .color = { 1, 1, 1 }, .intensity = 1.0f, .range = 5.0f };   /* reaches nothing */
    f->lights[4] = (bake_light){ .kind = BAKE_LIGHT_DYNAMIC, .position = { -6.5f, 1, 6.5f }, .color = { 1, 1, 1 }, .intensity = 1.0f, .range = 4.0f }; /* caged */
    f->lights[5] = (bake_light){ .kind = BAKE_LIGHT_FAST, .position = { -4, 0.5f, 4 }, .color = { 1, 0, 0 }, .intensity = 0.5f, .range = 2.0f };

    f->lightmap.size_exp = 6;
    f->lightmap.luxels = malloc(SIDE * SIDE * 3);
    CHECK(f->lightmap.luxels != NULL);
    memset(f->lightmap.luxels, 0xAB, SIDE * SIDE * 3);  /* the bake overwrites every luxel */
    f->patch = (bake_patch){ .origin = { -8.25f, 0, -8.25f }, .step_u = { 0.5f, 0, 0 }, .step_v = { 0, 0, 0.5f },
                             .normal = { 0, 1, 0 }, .lightmap = 0, .x = 2, .y = 2, .w = 33, .h = 33 };

    /* A 9 x 9 grid of floor vertices every 2 m, one facing down and one on the cage's top. */
    int v = 0;
    for (int j = 0; j < 9; j++)
        for (int i = 0; i < 9; i++)
            f->vertices[v++] = (bake_vertex){ { -8.0f + 2.0f * i, 0, -8.0f + 2.0f * j }, { 0, 1, 0 } };
    f->vertices[v++] = (bake_vertex){ { 4, 0.5f, -4 }, { 0, -1, 0 } };
    f->vertices[v++] = (bake_vertex){ { 4, 0, -3 }, { 0, 2, 0 } };   /* normals need not be unit */

    f->probes[0] = (bake_probe){ { -1, 1, -1 }, { 1, 3, 1 } };
    f->probes[1] = (bake_probe){ { 3, 0.5f, -5 }, { 5, 1.5f, -3 } };
    f->probes[2] = (bake_probe){ { 5, 0.25f, -0.25f }, { 6, 0.75f, 0.25f } };   /* in the box's shadow */

    f->desc = (bake_desc){
        .triangles = (const float (*)[9])f->occluders.tris, .triangle_count = f->occluders.count,
        .lights = f->lights, .light_count = 6, .ambient = { AMBIENT, AMBIENT, AMBIENT },
        .lightmaps = &f->lightmap, .lightmap_count = 1, .patches = &f->patch, .patch_count = 1,
        .vertices = f->vertices, .vertex_count = 83, .probes = f->probes, .probe_count = 3,
        .threads = 2,
    };
}

static const uint8_t *luxel(const uint8_t *luxels, int i, int j)
{
    return luxels + ((size_t)(j + 2) * SIDE + (size_t)(i + 2)) * 3;
}

static void luxel_world(int i, int j, float out[3])
{
    out[0] = -8.0f + 0.5f * (float)i;
    out[1] = 0.0f;
    out[2] = -8.0f + 0.5f * (float)j;
}

static void check_base(const floor_scene *f)
{
    const float up[3] = { 0, 1, 0 };
    const bake_light *l = &f->lights[0];
    /* Straight below the light: ambient + C * I * falloff(4 / 10) * 255. */
    const uint8_t *below = luxel(f->lightmap.luxels, 16, 16);
    for (int c = 0; c < 3; c++)
        check_near(below[c], 255.0 * (AMBIENT + l->color[c] * 0.6 * 0.6));
    /* x = 5.5 is in the box's shadow: ambient only. x = -5.5 mirrors it in full light. */
    const uint8_t *shadowed = luxel(f->lightmap.luxels, 27, 16), *lit = luxel(f->lightmap.luxels, 5, 16);
    float p[3];
    luxel_world(5, 16, p);
    double strength = expected_light(l->position, l->range, p, up);
    CHECK(strength > 0.05);
    for (int c = 0; c < 3; c++) {
        check_near(shadowed[c], 255.0 * AMBIENT);
        check_near(lit[c], 255.0 * (AMBIENT + l->color[c] * strength));
        /* Lit is brighter than shadowed by exactly the light's value. */
        check_near(lit[c] - shadowed[c], 255.0 * l->color[c] * strength);
    }
    /* Every luxel: beyond the range (corners are 12 m away) ambient; elsewhere the model, or
     * ambient in the shadow. Dynamic and fast lights never reach the base lightmap. */
    int beyond = 0;
    for (int j = 0; j < 33; j++)
        for (int i = 0; i < 33; i++) {
            luxel_world(i, j, p);
            const uint8_t *got = luxel(f->lightmap.luxels, i, j);
            double s = expected_light(l->position, l->range, p, up);
            if (s == 0.0) {
                beyond++;
                for (int c = 0; c < 3; c++)
                    check_near(got[c], 255.0 * AMBIENT);
                continue;
            }
            int in_shadow = p[0] > 4.2f && p[0] < 11.0f && fabsf(p[2]) < 0.8f;
            int near_shadow = p[0] > 2.5f && fabsf(p[2]) < 1.8f;
            if (near_shadow && !in_shadow)
                continue;   /* the penumbra-free edge of the shadow, not worth predicting */
            for (int c = 0; c < 3; c++)
                check_near(got[c], 255.0 * (AMBIENT + (in_shadow ? 0.0 : l->color[c] * s)));
        }
    CHECK(beyond > 50);
    /* Dilation: the two rings around the patch copy their neighbours; farther out stays black. */
    const uint8_t *corner = luxel(f->lightmap.luxels, 0, 0), *ring1 = luxel(f->lightmap.luxels, -1, 0),
                  *ring2 = luxel(f->lightmap.luxels, -2, 0), *ring1_mid = luxel(f->lightmap.luxels, 16, 33);
    for (int c = 0; c < 3; c++) {
        CHECK(ring1[c] == corner[c] && ring2[c] == corner[c]);
        int mean = (luxel(f->lightmap.luxels, 15, 32)[c] + luxel(f->lightmap.luxels, 16, 32)[c] +
                    luxel(f->lightmap.luxels, 17, 32)[c] + 1) / 3;
        CHECK(ring1_mid[c] == mean && mean >= 51);
        CHECK(f->lightmap.luxels[((SIDE - 1) * SIDE + SIDE - 1) * 3 + c] == 0);
        CHECK(f->lightmap.luxels[(10 * SIDE + 40) * 3 + c] != 0xAB);
    }
}

static void check_layers(const floor_scene *f, const bake_result *res)
{
    /* One layer: the light that reaches nothing and the caged one have none. */
    CHECK(res->layer_count == 1);
    const bake_layer *layer = &res->layers[0];
    CHECK(layer->light == 1 && layer->lightmap == 0 && layer->luxels != NULL);
    const float up[3] = { 0, 1, 0 };
    const bake_light *l = &f->lights[1];
    /* Below the light, 2 m away: I * falloff(2 / 5) * 255, grey. */
    const uint8_t *below = luxel(layer->luxels, 8, 8);
    for (int c = 0; c < 3; c++)
        check_near(below[c], 255.0 * 0.6 * 0.6);
    int zero = 0, lit = 0;
    for (int j = 0; j < 33; j++)
        for (int i = 0; i < 33; i++) {
            float p[3];
            luxel_world(i, j, p);
            const uint8_t *got = luxel(layer->luxels, i, j);
            double s = expected_light(l->position, l->range, p, up);
            CHECK(got[0] == got[1] && got[1] == got[2]);
            if (s == 0.0) {
                CHECK(got[0] == 0);     /* exactly zero outside the lamp's reach */
                zero++;
            } else {
                check_near(got[0], 255.0 * s);
                lit += got[0] > 0;
            }
        }
    CHECK(zero > 500 && lit > 200);
}

static void check_fast(const floor_scene *f, const bake_result *res)
{
    CHECK(res->fast_light_count == 2 && res->fast_multipliers != NULL);
    const uint8_t *first = res->fast_multipliers, *second = res->fast_multipliers + 83;
    int near = 0;
    for (int v = 0; v < 81; v++) {
        const bake_vertex *vertex = &f->vertices[v];
        double want = 255.0 * expected_light(f->lights[2].position, f->lights[2].range, vertex->position, vertex->normal);
        check_near(first[v], want);
        near += first[v] > 0;
        if (want == 0.0)
            CHECK(first[v] == 0);
        want = 255.0 * 0.5 * expected_light(f->lights[5].position, f->lights[5].range, vertex->position, vertex->normal);
        check_near(second[v], want);
    }
    CHECK(near >= 1);
    /* The vertex at (4, 0, -4), straight below the light 1 m away: falloff(1 / 3) * 255. */
    check_near(first[2 * 9 + 6], 255.0 * (2.0 / 3.0) * (2.0 / 3.0));
    CHECK(second[6 * 9 + 2] > 0 && first[0] == 0 && second[0] == 0);
    CHECK(first[81] == 0);                                     /* faces away from the light */
    const float up[3] = { 0, 1, 0 };
    check_near(first[82], 255.0 * expected_light(f->lights[2].position, 3.0f, f->vertices[82].position, up));
}

static void check_probes(const floor_scene *f, const bake_result *res)
{
    CHECK(res->probes != NULL);
    /* Probe 0, centre (0, 2, 0): the static light 2 m above, unoriented; the dynamic light at
     * (-4, 2, -4) reaches the box (4.24 m) but not the centre (5.66 m): a ref of amount 0. */
    const bake_probe_result *p0 = &res->probes[0];
    for (int c = 0; c < 3; c++)
        check_near(p0->base[c], 255.0 * (AMBIENT + f->lights[0].color[c] * 0.8 * 0.8));
    CHECK(p0->ref_count == 1 && p0->refs[0].light == 1 && p0->refs[0].amount == 0);
    /* Probe 1 is centred on the fast light: amount 255; the dynamic light 8.1 m away is out of reach. */
    const bake_probe_result *p1 = &res->probes[1];
    CHECK(p1->ref_count == 1 && p1->refs[0].light == 2 && p1->refs[0].amount == 255);
    float centre[3] = { 4, 1, -4 };
    for (int c = 0; c < 3; c++)
        check_near(p1->base[c], 255.0 * (AMBIENT + f->lights[0].color[c] *
                                                       expected_light(f->lights[0].position, 10.0f, centre, NULL)));
    /* Probe 2 sits in the box's shadow: ambient only, no refs. */
    const bake_probe_result *p2 = &res->probes[2];
    for (int c = 0; c < 3; c++)
        check_near(p2->base[c], 255.0 * AMBIENT);
    CHECK(p2->ref_count == 0 && p2->refs == NULL);
}

typedef struct progress_log {
    int calls;
    double last;
} progress_log;

static void on_progress(void *user, const char *stage, double fraction)
{
    progress_log *log = user;
    CHECK(stage != NULL && fraction >= 0.0 && fraction <= 1.0);
    log->calls++;
    log->last = fraction;
}

/* ericw-tools' dome of suns, written out again: the mean over its directions (rings of 4R at
 * elevations (i + 0.5) x 90 / (R + 1) degrees, and the pole) of (1 - a) + a sin(elevation), the
 * angle term of a floor under an open sky. */
static double dome_floor_share(int rings, double anglescale)
{
    double sum = 1.0;   /* the pole */
    for (int i = 0; i < rings; i++)
        sum += 4 * rings * ((1 - anglescale) + anglescale * sin((i + 0.5) * (M_PI / 2) / (rings + 1)));
    return sum / (4 * rings * rings + 1);
}

/* Sky domes (bake_desc.domes) on a floor open to the sky: the upper dome gives its colour x the
 * dome's mean angle term (its default 101 directions, and 5 for dome_samples 5), the lower one
 * nothing (it lights from below); a roof over part of the floor shades what lies under it. */
static void check_domes(floor_scene *f)
{
    soup open = { 0 };
    float a[3] = { -8.25f, 0, -8.25f }, b[3] = { 8.25f, 0, -8.25f }, c[3] = { 8.25f, 0, 8.25f }, d[3] = { -8.25f, 0, 8.25f };
    soup_quad(&open, a, b, c, d);
    bake_desc desc = { .triangles = (const float (*)[9])open.tris, .triangle_count = open.count,
                       .lightmaps = &f->lightmap, .lightmap_count = 1, .patches = &f->patch, .patch_count = 1,
                       .samples = 4, .threads = 2 };
    desc.domes[0] = (bake_dome){ .color = { 0.8f, 0.4f, 0.2f }, .anglescale = 0.5f };
    bake_result res;
    for (int samples = 0; samples <= 5; samples += 5) {
        desc.dome_samples = samples;
        CHECK(bake_run(&desc, &res));
        double share = dome_floor_share(samples ? 1 : 5, 0.5);
        for (int k = 0; k < 3; k++) {
            const uint8_t *px = luxel(f->lightmap.luxels, 4 + 12 * k, 16);
            for (int ch = 0; ch < 3; ch++)
                check_near(px[ch], 255.0 * desc.domes[0].color[ch] * share);
        }
        bake_result_free(&res);
    }
    desc.dome_samples = 0;
    desc.domes[1] = desc.domes[0];
    desc.domes[0] = (bake_dome){ 0 };
    CHECK(bake_run(&desc, &res));
    for (int ch = 0; ch < 3; ch++)
        CHECK(luxel(f->lightmap.luxels, 16, 16)[ch] == 0);
    bake_result_free(&res);

    /* a roof 2 m up over x > 0: the middle of the floor beneath it gets the light that comes in
     * low, under its edge, far less than the open half */
    float roof_min[3] = { 0, 2, -9 }, roof_max[3] = { 9, 2.1f, 9 };
    soup_box(&open, roof_min, roof_max);
    desc.triangles = (const float (*)[9])open.tris;
    desc.triangle_count = open.count;
    desc.domes[0] = desc.domes[1];
    desc.domes[1] = (bake_dome){ 0 };
    CHECK(bake_run(&desc, &res));
    int under_sky = luxel(f->lightmap.luxels, 4, 16)[0], under_roof = luxel(f->lightmap.luxels, 28, 16)[0];
    printf("dome: floor under the sky %d, under the roof %d\n", under_sky, under_roof);
    CHECK(under_sky > 150 && under_roof * 4 < under_sky);
    bake_result_free(&res);
    soup_free(&open);
}

/* Sky light on a floor with open sky (a sky face) 4 m up over x < 0 and nothing over x > 0: the
 * void beyond the map counts as sky where no sky face exists or sky_faces_only is off; with it on,
 * the floor under the sky face keeps its light and the far side gets only the share of its
 * hemisphere that looks back through the face (a sealed map's outside is solid, as in hlrad). */
static void check_sky_faces_only(floor_scene *f)
{
    soup floor = { 0 }, sky = { 0 };
    float a[3] = { -8.25f, 0, -8.25f }, b[3] = { 8.25f, 0, -8.25f }, c[3] = { 8.25f, 0, 8.25f }, d[3] = { -8.25f, 0, 8.25f };
    soup_quad(&floor, a, b, c, d);
    float sa[3] = { -100, 4, 100 }, sb[3] = { 0, 4, 100 }, sc[3] = { 0, 4, -100 }, sd[3] = { -100, 4, -100 };
    soup_quad(&sky, sa, sb, sc, sd);
    bake_desc desc = { .triangles = (const float (*)[9])floor.tris, .triangle_count = floor.count,
                       .sky_light = { 0.5f, 0.5f, 0.5f }, .sky_faces_only = true,
                       .lightmaps = &f->lightmap, .lightmap_count = 1, .patches = &f->patch, .patch_count = 1,
                       .samples = 4, .threads = 2 };
    bake_result res;
    for (int faces = 0; faces < 2; faces++)
        for (int only = 0; only < 2; only++) {
            desc.sky_triangles = faces ? (const float (*)[9])sky.tris : NULL;
            desc.sky_triangle_count = faces ? sky.count : 0;
            desc.sky_faces_only = only;
            CHECK(bake_run(&desc, &res));
            int under = luxel(f->lightmap.luxels, 4, 16)[0], beyond = luxel(f->lightmap.luxels, 28, 16)[0];
            printf("sky faces %d, only them %d: floor under the sky face %d, beyond it %d\n", faces, only, under, beyond);
            CHECK(under >= 112 && under <= 128);
            if (faces && only)
                CHECK(beyond < 24);
            else
                CHECK(beyond >= 120 && beyond <= 128);
            bake_result_free(&res);
        }
    soup_free(&floor);
    soup_free(&sky);
}

/* Quake's minlight is the least light of a luxel, not light added: below the light the red
 * channel keeps the light's own 0.36 over a floor of 0.2 (the ambient's 0.56 when added), green and
 * blue (0.18, 0.09) and the shadow rise to the floor; a patch's own minlight (0.3) wins where it is
 * brighter than the ambient, and -1 leaves the patch with no floor at all. */
static void check_minlight(floor_scene *f)
{
    const float floors[3] = { 0.0f, 0.3f, -1.0f };
    const double want_floor[3] = { AMBIENT, 0.3, 0.0 };
    for (int k = 0; k < 3; k++) {
        floor_scene_init(f);
        f->desc.ambient_floor = true;
        f->desc.bounces = 1;    /* the floor is raised to after the bounces, which add nothing here */
        for (int c = 0; c < 3; c++) f->patch.minlight[c] = floors[k];
        bake_result res;
        CHECK(bake_run(&f->desc, &res));
        const uint8_t *below = luxel(f->lightmap.luxels, 16, 16), *shadowed = luxel(f->lightmap.luxels, 27, 16);
        printf("minlight %g: below the light %d %d %d, in the shadow %d\n", floors[k], below[0], below[1], below[2], shadowed[0]);
        for (int c = 0; c < 3; c++) {
            check_near(below[c], 255.0 * fmax(want_floor[k], f->lights[0].color[c] * 0.6 * 0.6));
            check_near(shadowed[c], 255.0 * want_floor[k]);
        }
        bake_result_free(&res);
        free(f->lightmap.luxels);
        soup_free(&f->occluders);
    }
}

/* A liquid's surface (no occluder: liquids block no light) with the static light 4 m under it
 * instead of over it: two-sided, the luxel straight above the light gets what it would from above
 * (with the ambient); one-sided, the ambient alone. */
static void check_two_sided(floor_scene *f)
{
    for (int two_sided = 0; two_sided <= 1; two_sided++) {
        floor_scene_init(f);
        f->desc.triangle_count = 0;
        f->desc.light_count = 1;
        f->lights[0].position[1] = -4.0f;
        f->patch.two_sided = two_sided;
        bake_result res;
        CHECK(bake_run(&f->desc, &res));
        const uint8_t *above = luxel(f->lightmap.luxels, 16, 16);
        printf("two-sided %d: over the light under the surface %d %d %d\n", two_sided, above[0], above[1], above[2]);
        for (int c = 0; c < 3; c++)
            check_near(above[c], 255.0 * (AMBIENT + (two_sided ? f->lights[0].color[c] * 0.6 * 0.6 : 0.0)));
        bake_result_free(&res);
        free(f->lightmap.luxels);
        soup_free(&f->occluders);
    }
}

/* A floor 4 m long (x 0..4) meeting a wall (a solid block over x -1..0) under a lamp, as a patch
 * of 0.5 m luxels with a border luxel before the face: the border luxel's centre (x = -0.25) lies
 * inside the wall. With the face's box (bake_patch.face_lo) it is lit at the face's edge, as
 * ericw-tools' light moves a sample onto its face: within a byte or two of its neighbour, where it
 * was black. Without a box the patch bakes as before. Also a face narrower than a luxel (a strip
 * x 0..0.1 whose middle luxel's centre, x 0.25, lies in the next wall over x 0.1..1, under a lamp
 * over the slot). */
static void check_face_box(floor_scene *f)
{
    soup walls = { 0 };
    float a[3] = { 0, 0, -2 }, b[3] = { 4, 0, -2 }, c[3] = { 4, 0, 2 }, d[3] = { 0, 0, 2 };
    soup_quad(&walls, a, b, c, d);
    float wall_min[3] = { -1, 0, -3 }, wall_max[3] = { 0, 3, 3 };
    soup_box(&walls, wall_min, wall_max);
    bake_light lamp = { .kind = BAKE_LIGHT_STATIC, .position = { 2, 2, 0 }, .color = { 1, 1, 1 }, .intensity = 1.0f, .range = 10.0f };
    bake_patch floor = { .origin = { -0.5f, 0, -2.5f }, .step_u = { 0.5f, 0, 0 }, .step_v = { 0, 0, 0.5f },
                         .normal = { 0, 1, 0 }, .lightmap = 0, .x = 2, .y = 2, .w = 10, .h = 10 };
    bake_desc desc = { .triangles = (const float (*)[9])walls.tris, .triangle_count = walls.count,
                       .lights = &lamp, .light_count = 1, .lightmaps = &f->lightmap, .lightmap_count = 1,
                       .patches = &floor, .patch_count = 1, .threads = 2 };
    bake_result res;
    for (int boxed = 0; boxed < 2; boxed++) {
        floor.face_lo[0] = floor.face_lo[1] = boxed ? 1.0f : 0.0f;
        floor.face_hi[0] = floor.face_hi[1] = boxed ? 9.0f : 0.0f;
        CHECK(bake_run(&desc, &res));
        int border = luxel(f->lightmap.luxels, 0, 5)[0], inside = luxel(f->lightmap.luxels, 1, 5)[0];
        printf("face box %d: border luxel %d, its neighbour %d\n", boxed, border, inside);
        CHECK(inside > 100);
        CHECK(boxed ? abs(border - inside) <= 12 : border == 0);
        bake_result_free(&res);
    }
    float next_min[3] = { 0.1f, 0, -3 }, next_max[3] = { 1, 3, 3 };
    soup_box(&walls, next_min, next_max);
    desc.triangles = (const float (*)[9])walls.tris;
    desc.triangle_count = walls.count;
    floor.w = 3;
    lamp.position[0] = 0.05f;   /* over the slot between the walls */
    for (int boxed = 1; boxed >= 0; boxed--) {
        floor.face_hi[0] = boxed ? 1.2f : 0.0f;
        CHECK(bake_run(&desc, &res));
        int strip = luxel(f->lightmap.luxels, 1, 5)[0];
        printf("face box %d: a strip narrower than a luxel %d\n", boxed, strip);
        CHECK(boxed ? strip > 100 : strip == 0);
        bake_result_free(&res);
    }
    soup_free(&walls);
}

/* Two 4 x 4 patches on the same rows of the lightmap, 44 luxels apart, the second facing down: the
 * dilation fills their two rings (the corner two luxels out takes the patch's corner) and looks
 * at the luxels next to them, not at the row between (it looked at every uncovered luxel of a
 * row's span: 668 for the lightmap). A dynamic light reaching both lights the first alone: its
 * layer is dilated from the lightmap's rings, around the first patch only (dilated in its box
 * as the lightmap was: 292 in all). */
static void check_dilate_rings(bake_lightmap *lightmap)
{
    bake_patch two[2] = {
        { .origin = { 1, 0, 1 }, .step_u = { 0.5f, 0, 0 }, .step_v = { 0, 0, 0.5f }, .normal = { 0, 1, 0 }, .x = 2, .y = 2, .w = 4, .h = 4 },
        { .origin = { 2, 0, 2 }, .step_u = { 0.5f, 0, 0 }, .step_v = { 0, 0, 0.5f }, .normal = { 0, -1, 0 }, .x = 50, .y = 2, .w = 4, .h = 4 },
    };
    bake_light lamps[2] = {
        { .kind = BAKE_LIGHT_STATIC, .position = { 2, 1, 2 }, .color = { 1, 1, 1 }, .intensity = 1.0f, .range = 3.0f },
        { .kind = BAKE_LIGHT_DYNAMIC, .position = { 2, 1, 2 }, .color = { 1, 1, 1 }, .intensity = 1.0f, .range = 3.0f },
    };
    bake_desc desc = { .lights = lamps, .light_count = 2, .lightmaps = lightmap, .lightmap_count = 1, .patches = two,
                       .patch_count = 2, .ambient = { 0.1f, 0.1f, 0.1f } };
    bake_result res;
    CHECK(bake_run(&desc, &res));
    const uint8_t *lm = lightmap->luxels;
    CHECK(lm[(2 * SIDE + 2) * 3] > 0 && !memcmp(&lm[0], &lm[(2 * SIDE + 2) * 3], 3), "the corner ring");
    CHECK(!memcmp(&lm[(7 * SIDE + 55) * 3], &lm[(5 * SIDE + 53) * 3], 3), "the far patch's corner ring");
    CHECK(lm[(2 * SIDE + 20) * 3] == 0 && lm[(8 * SIDE + 2) * 3] == 0, "past the rings");
    CHECK_EQ(res.layer_count, 1);
    const uint8_t *layer = res.layers[0].luxels;
    CHECK(layer[(2 * SIDE + 2) * 3] > 0 && !memcmp(&layer[0], &layer[(2 * SIDE + 2) * 3], 3), "the layer's corner ring");
    size_t lit_far = 0;
    for (int y = 0; y < 8; y++)
        for (int x = 48; x < 56; x++) lit_far += layer[(y * SIDE + x) * 3] != 0;
    CHECK_EQ(lit_far, 0);
    /* each ring's luxels (20 and 28 a patch) and what lies next to them in the runs of 8 looked at,
     * the layer's around the first patch */
    printf("dilation: %llu luxels looked at\n", (unsigned long long)res.dilate_looked);
    CHECK(res.dilate_looked >= 96 + 48 && res.dilate_looked <= 200, "%llu luxels looked at",
          (unsigned long long)res.dilate_looked);
    bake_result_free(&res);
}

int main(void)
{
    floor_scene f;
    floor_scene_init(&f);
    progress_log log = { 0 };
    f.desc.progress = on_progress;
    f.desc.user = &log;
    bake_result res;
    CHECK(bake_run(&f.desc, &res));
    CHECK(log.calls >= 12 && log.last == 1.0);
    check_base(&f);
    check_layers(&f, &res);
    check_fast(&f, &res);
    check_probes(&f, &res);
    bake_result_free(&res);
    CHECK(res.layers == NULL && res.probes == NULL);

    check_dilate_rings(&f.lightmap);

    /* Patches that do not fit: one on a lightmap that does not exist is skipped, one running off
     * the lightmap's edge is cut there. */
    bake_patch odd[2] = {
        { .step_u = { 1, 0, 0 }, .step_v = { 0, 0, 1 }, .normal = { 0, 1, 0 }, .lightmap = 7, .w = 4, .h = 4 },
        { .step_u = { 1, 0, 0 }, .step_v = { 0, 0, 1 }, .normal = { 0, 1, 0 }, .lightmap = 0, .x = 60, .y = 62, .w = 10, .h = 10 },
    };
    bake_light lamp = { .kind = BAKE_LIGHT_STATIC, .position = { 2, 1, 2 }, .color = { 1, 1, 1 }, .intensity = 1.0f, .range = 3.0f };
    bake_desc edge = { .lights = &lamp, .light_count = 1, .lightmaps = &f.lightmap, .lightmap_count = 1,
                       .patches = odd, .patch_count = 2, .ambient = { 0.1f, 0.1f, 0.1f } };
    CHECK(bake_run(&edge, &res));
    /* Luxel (1, 1) of the second patch sits at (1.5, 0, 1.5), 1.22 m from the lamp. */
    float lit[3] = { 1.5f, 0, 1.5f };
    const float up[3] = { 0, 1, 0 };
    check_near(f.lightmap.luxels[((size_t)63 * SIDE + 61) * 3], 255.0 * (0.1 + expected_light(lamp.position, 3.0f, lit, up)));
    bake_result_free(&res);

    check_domes(&f);
    check_sky_faces_only(&f);
    check_face_box(&f);
    floor_scene minlight;
    check_minlight(&minlight);
    check_two_sided(&minlight);

    /* Nothing to bake: no lights, no patches. */
    bake_desc empty = { .ambient = { 0.5f, 0.5f, 0.5f } };
    CHECK(bake_run(&empty, &res));
    CHECK(res.layer_count == 0 && res.fast_light_count == 0 && res.probes == NULL);
    bake_result_free(&res);

    free(f.lightmap.luxels);
    soup_free(&f.occluders);
    puts("test_bake_light: ok");
    TEST_DONE();
}
