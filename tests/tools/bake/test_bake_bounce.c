/* Bounced light: the furnace test (a closed box of uniform albedo rho lit by one light: the light
 * it bounces, summed over the box, is rho/(1-rho) of the direct light at full bounce and
 * rho + ... + rho^N after N bounces), rho = 0 and --bounce 0 giving the direct light byte for byte,
 * the same bytes on any thread count, and a dynamic light's layer holding what a static bake of that
 * one light gives; the box with its lid off loses light through the opening, unless
 * bounce_no_sky_loss (the classic hlrad's transfers) gives what would leave to what is seen. */
#include "bake.h"
#include "soup.h"

#include <math.h>

#define LUXELS 16       /* per face side */
#define SIDE 64         /* the lightmap holds the six faces' blocks */

typedef struct furnace {
    soup occluders;
    uint32_t surfaces[12];
    bake_patch patches[6];
    bake_light light;
    bake_lightmap lightmap;
    bake_desc desc;
} furnace;

/* The inside of the box [-2, 2]^3: six faces looking in, each one surface and one 16 x 16 patch. */
static void furnace_init(furnace *f, float rho_r, float rho_g, float rho_b, bake_light_kind kind)
{
    memset(f, 0, sizeof *f);
    const float h = 2.0f, step = 2.0f * h / LUXELS;
    for (int face = 0; face < 6; face++) {
        int axis = face / 2, u = (axis + 1) % 3, v = (axis + 2) % 3;
        float side = face % 2 ? h : -h;
        float q[4][3];
        for (int k = 0; k < 4; k++) {
            q[k][axis] = side;
            q[k][u] = (k == 1 || k == 2) ? h : -h;
            q[k][v] = k >= 2 ? h : -h;
        }
        soup_quad(&f->occluders, q[0], q[1], q[2], q[3]);
        f->surfaces[face * 2] = f->surfaces[face * 2 + 1] = (uint32_t)face;
        bake_patch *p = &f->patches[face];
        p->origin[axis] = side;
        p->origin[u] = -h;
        p->origin[v] = -h;
        p->step_u[u] = step;
        p->step_v[v] = step;
        p->normal[axis] = face % 2 ? -1.0f : 1.0f;
        p->x = (uint16_t)((face % 4) * LUXELS);
        p->y = (uint16_t)((face / 4) * LUXELS);
        p->w = p->h = LUXELS;
        p->albedo[0] = rho_r;
        p->albedo[1] = rho_g;
        p->albedo[2] = rho_b;
        p->surface = (uint32_t)face;
    }
    f->light = (bake_light){ .kind = kind, .position = { 0.3f, 0.5f, -0.2f }, .color = { 1, 1, 1 },
                             .intensity = 0.45f, .range = 20.0f };
    f->lightmap.size_exp = 6;
    f->lightmap.luxels = malloc(SIDE * SIDE * 3);
    CHECK(f->lightmap.luxels != NULL);
    f->desc = (bake_desc){ .triangles = (const float (*)[9])f->occluders.tris, .triangle_count = f->occluders.count,
                           .lights = &f->light, .light_count = 1, .lightmaps = &f->lightmap, .lightmap_count = 1,
                           .patches = f->patches, .patch_count = 6, .triangle_surfaces = f->surfaces,
                           .threads = 2 };
}

static void furnace_free(furnace *f)
{
    free(f->lightmap.luxels);
    soup_free(&f->occluders);
}

/* Bakes with `bounces` and copies the base lightmap into out (SIDE^2 RGB). */
static void bake_base(furnace *f, int bounces, int threads, uint8_t *out)
{
    f->desc.bounces = bounces;
    f->desc.threads = threads;
    bake_result res;
    CHECK(bake_run(&f->desc, &res));
    memcpy(out, f->lightmap.luxels, SIDE * SIDE * 3);
    bake_result_free(&res);
}

/* Sum over the six faces' luxels of channel ch. */
static double patch_sum(const furnace *f, const uint8_t *luxels, int ch)
{
    double sum = 0.0;
    for (int face = 0; face < 6; face++)
        for (int j = 0; j < LUXELS; j++)
            for (int i = 0; i < LUXELS; i++)
                sum += luxels[((size_t)(f->patches[face].y + j) * SIDE + f->patches[face].x + i) * 3 + ch];
    return sum;
}

/* (indirect summed over the box) / (direct summed over the box), channel ch. */
static double bounce_ratio(const furnace *f, const uint8_t *direct, const uint8_t *full, int ch)
{
    double d = patch_sum(f, direct, ch);
    CHECK(d > 0.0);
    return (patch_sum(f, full, ch) - d) / d;
}

static void check_ratio(const char *what, double got, double want)
{
    printf("%-28s indirect/direct %.4f, expected %.4f (%+.1f%%)\n", what, got, want, 100.0 * (got / want - 1.0));
    CHECK(fabs(got / want - 1.0) <= 0.05);
}

static void test_furnace(void)
{
    static uint8_t direct[SIDE * SIDE * 3], full[SIDE * SIDE * 3];
    const float rhos[2] = { 0.3f, 0.5f };
    for (int r = 0; r < 2; r++) {
        float rho = rhos[r];
        furnace f;
        furnace_init(&f, rho, rho, rho, BAKE_LIGHT_STATIC);
        bake_base(&f, 0, 2, direct);
        char what[64];
        double series = 0.0, term = 1.0;
        for (int n = 1; n <= 3; n++) {
            term *= rho;
            series += term;
            bake_base(&f, n, 2, full);
            snprintf(what, sizeof what, "rho %.1f, %d bounce(s)", rho, n);
            check_ratio(what, bounce_ratio(&f, direct, full, 0), series);
        }
        bake_base(&f, BAKE_BOUNCE_AUTO, 2, full);
        snprintf(what, sizeof what, "rho %.1f, full bounce", rho);
        check_ratio(what, bounce_ratio(&f, direct, full, 0), rho / (1.0 - rho));
        /* every luxel gains light: a wall's corner as well as its middle */
        for (int face = 0; face < 6; face++) {
            size_t corner = ((size_t)f.patches[face].y * SIDE + f.patches[face].x) * 3;
            CHECK(full[corner] > direct[corner]);
        }
        furnace_free(&f);
    }

    /* rho = 0 bounces nothing: the lightmap is the direct one, byte for byte */
    furnace f;
    furnace_init(&f, 0.0f, 0.0f, 0.0f, BAKE_LIGHT_STATIC);
    bake_base(&f, 0, 2, direct);
    bake_base(&f, BAKE_BOUNCE_AUTO, 2, full);
    CHECK(memcmp(direct, full, sizeof direct) == 0);
    furnace_free(&f);

    /* --bounce 0 with albedos and surfaces = the bake of a desc without them (as before bounced
     * light existed), byte for byte */
    furnace_init(&f, 0.5f, 0.5f, 0.5f, BAKE_LIGHT_STATIC);
    bake_base(&f, 0, 2, full);
    CHECK(memcmp(direct, full, sizeof direct) == 0);
    furnace_free(&f);

    /* no surfaces for the occluders: no bounce either, whatever the albedo */
    furnace_init(&f, 0.5f, 0.5f, 0.5f, BAKE_LIGHT_STATIC);
    f.desc.triangle_surfaces = NULL;
    bake_base(&f, BAKE_BOUNCE_AUTO, 2, full);
    CHECK(memcmp(direct, full, sizeof direct) == 0);
    furnace_free(&f);
}

/* The box with its lid (face 5, the last two triangles) off: each face sees the opening over about
 * a fifth of its half-sphere (a cube face's form factor to the opposite or a neighbouring face is
 * 0.2), so one bounce brings about 0.8 rho of the direct light back into the box; with
 * bounce_no_sky_loss each face sends rho of its light to the faces it sees, rho in all. */
static void test_open_box(void)
{
    static uint8_t direct[SIDE * SIDE * 3], full[SIDE * SIDE * 3];
    const float rho = 0.4f;
    for (int no_loss = 0; no_loss < 2; no_loss++) {
        furnace f;
        furnace_init(&f, rho, rho, rho, BAKE_LIGHT_STATIC);
        f.desc.triangle_count -= 2;
        f.desc.patch_count = 5;
        f.desc.bounce_no_sky_loss = no_loss;
        bake_base(&f, 0, 2, direct);
        bake_base(&f, 1, 2, full);
        double got = bounce_ratio(&f, direct, full, 0);
        if (no_loss) {
            check_ratio("open box, no sky loss", got, rho);
        } else {
            printf("%-28s indirect/direct %.4f, rho %.4f\n", "open box, lost to the sky", got, rho);
            CHECK(got > 0.7 * rho && got < 0.9 * rho);
        }
        furnace_free(&f);
    }
}

/* The same bytes on any thread count and on every run. */
static void test_determinism(void)
{
    static uint8_t a[SIDE * SIDE * 3], b[SIDE * SIDE * 3];
    furnace f;
    furnace_init(&f, 0.6f, 0.4f, 0.2f, BAKE_LIGHT_STATIC);
    bake_base(&f, BAKE_BOUNCE_AUTO, 2, a);
    bake_base(&f, BAKE_BOUNCE_AUTO, 2, b);
    CHECK(memcmp(a, b, sizeof a) == 0);
    bake_base(&f, BAKE_BOUNCE_AUTO, 1, b);
    CHECK(memcmp(a, b, sizeof a) == 0);
    bake_base(&f, BAKE_BOUNCE_AUTO, 3, b);
    CHECK(memcmp(a, b, sizeof a) == 0);
    /* coloured walls bounce coloured light */
    CHECK(patch_sum(&f, a, 0) > patch_sum(&f, a, 1) && patch_sum(&f, a, 1) > patch_sum(&f, a, 2));
    furnace_free(&f);
    printf("determinism: same bytes on 1, 2 and 3 threads\n");
}

/* A dynamic light's layer = direct + bounced light of that light alone, as a static bake of it
 * (the renderer multiplies the layer by the light's colour: white here). */
static void test_dynamic_layer(void)
{
    static uint8_t want[SIDE * SIDE * 3], base[SIDE * SIDE * 3];
    furnace f;
    furnace_init(&f, 0.6f, 0.4f, 0.2f, BAKE_LIGHT_STATIC);
    bake_base(&f, BAKE_BOUNCE_AUTO, 2, want);
    furnace_free(&f);

    furnace_init(&f, 0.6f, 0.4f, 0.2f, BAKE_LIGHT_DYNAMIC);
    f.desc.bounces = BAKE_BOUNCE_AUTO;
    bake_result res;
    CHECK(bake_run(&f.desc, &res));
    memcpy(base, f.lightmap.luxels, sizeof base);
    CHECK(res.layer_count == 1 && res.layers[0].light == 0 && res.layers[0].lightmap == 0);
    int worst = 0;
    for (int face = 0; face < 6; face++)
        for (int j = 0; j < LUXELS; j++)
            for (int i = 0; i < LUXELS; i++) {
                size_t at = ((size_t)(f.patches[face].y + j) * SIDE + f.patches[face].x + i) * 3;
                for (int ch = 0; ch < 3; ch++) {
                    int d = abs((int)res.layers[0].luxels[at + ch] - (int)want[at + ch]);
                    worst = d > worst ? d : worst;
                    CHECK(base[at + ch] == 0);     /* the dynamic light stays out of the base */
                }
            }
    printf("dynamic layer: at most %d off the static bake of the same light\n", worst);
    CHECK(worst <= 1);
    bake_result_free(&res);
    furnace_free(&f);
}

int main(void)
{
    test_furnace();
    test_determinism();
    test_dynamic_layer();
    test_open_box();
    printf("bake_bounce: ok\n");
    TEST_DONE();
}
