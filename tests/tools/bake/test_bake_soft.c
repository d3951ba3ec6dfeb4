/* test_bake_soft.c - soft shadows, supersampling, the sky dome and dirt, on floors built in code:
 * the penumbra's width follows similar triangles, an oblique hard edge no longer staircases, a
 * courtyard sees more sky in its middle than at its walls' feet and a roofed room none, dirt
 * darkens a floor's corner, the same input gives the same bytes, and every new option off gives
 * the bytes of the baker before them. */
#include <math.h>

#include "bake.h"
#include "soup.h"

/* mixed_scene_hash(1, 0, any) as the baker before soft shadows, samples and dirt bakes it (this
 * file's scene code built against that commit's bake.c) */
#define BAKE_OFF_HASH 0x42012ee346560651ull

#define LUXEL 0.1f
#define SIDE_EXP 7
#define SIDE (1 << SIDE_EXP)

/* A floor y = 0 patch of w x h luxels of LUXEL metres from (x0, z0), at (0, 0) of one lightmap. */
typedef struct floor_bake {
    bake_lightmap lightmap;
    bake_patch patch;
    bake_desc desc;
} floor_bake;

static void floor_bake_init(floor_bake *f, const soup *s, float x0, float z0, int w, int h)
{
    memset(f, 0, sizeof *f);
    f->lightmap.size_exp = SIDE_EXP;
    f->lightmap.luxels = malloc(SIDE * SIDE * 3);
    CHECK(f->lightmap.luxels != NULL);
    f->patch = (bake_patch){ .origin = { x0, 0, z0 }, .step_u = { LUXEL, 0, 0 }, .step_v = { 0, 0, LUXEL },
                             .normal = { 0, 1, 0 }, .w = (uint16_t)w, .h = (uint16_t)h };
    f->desc = (bake_desc){ .triangles = (const float (*)[9])s->tris, .triangle_count = s->count,
                           .lightmaps = &f->lightmap, .lightmap_count = 1, .patches = &f->patch, .patch_count = 1,
                           .threads = 2 };
}

static void floor_bake_run(floor_bake *f)
{
    bake_result res;
    CHECK(bake_run(&f->desc, &res));
    bake_result_free(&res);
}

static int at(const floor_bake *f, int i, int j)
{
    return f->lightmap.luxels[((size_t)j * SIDE + (size_t)i) * 3];
}

static void add_floor(soup *s, float x0, float z0, float x1, float z1)
{
    float a[3] = { x0, 0, z0 }, b[3] = { x1, 0, z0 }, c[3] = { x1, 0, z1 }, d[3] = { x0, 0, z1 };
    soup_quad(s, a, b, c, d);
}

/* A light of radius r at height h over a plate at height d whose edge runs along z at x = 0: the
 * luxels (mean of their column) partly lit span the light's diameter x d / (h - d). */
static void test_penumbra(void)
{
    const float h = 4, d = 2, r = 0.5f;
    soup s = { 0 }, open = { 0 };
    add_floor(&s, -4, -2, 4, 2);
    add_floor(&open, -4, -2, 4, 2);
    float plate_min[3] = { -6, d - 0.01f, -3 }, plate_max[3] = { 0, d, 3 };
    soup_box(&s, plate_min, plate_max);
    bake_light light = { .kind = BAKE_LIGHT_STATIC, .position = { 0, h, 0 }, .color = { 1, 1, 1 }, .intensity = 1.0f,
                         .range = 20, .radius = r };
    floor_bake shadowed, lit;
    const int w = 60, rows = 20;    /* x from -3 to 3, z from -1 to 1 */
    floor_bake_init(&shadowed, &s, -3, -1, w, rows);
    floor_bake_init(&lit, &open, -3, -1, w, rows);
    shadowed.desc.lights = lit.desc.lights = &light;
    shadowed.desc.light_count = lit.desc.light_count = 1;
    shadowed.desc.samples = lit.desc.samples = 4;
    floor_bake_run(&shadowed);
    floor_bake_run(&lit);
    int partial = 0;
    double previous = 0;
    for (int i = 0; i < w; i++) {
        double sum = 0;
        for (int j = 0; j < rows; j++)
            sum += (double)at(&shadowed, i, j) / (double)at(&lit, i, j);
        double mean = sum / rows;
        CHECK(mean >= previous - 0.02);     /* dark under the plate, brightening toward +x */
        previous = mean;
        partial += mean > 0.005 && mean < 0.995;
        if (getenv("BAKE_SOFT_VERBOSE")) printf("%d %.3f\n", i, mean);
    }
    double want = 2 * r * d / (h - d) / LUXEL;
    printf("penumbra: %d luxels partly lit, similar triangles give %.1f\n", partial, want);
    CHECK(fabs(partial - want) <= 1.0);
    free(shadowed.lightmap.luxels);
    free(lit.lightmap.luxels);
    soup_free(&s);
    soup_free(&open);
}

/* A light over a plate whose edge runs at 10 degrees to the luxel rows (z < x tan 10 deg): along a
 * row the shadow's edge crosses about six luxels. One sample per luxel jumps from light to shadow
 * (a staircase); four, refined at the edge, step down through several values. Returns how many. */
static int intermediate_values(int samples, float radius)
{
    soup s = { 0 };
    add_floor(&s, -4, -2, 4, 2);
    float slope = tanf(10.0f * 3.14159265f / 180.0f);
    float a[3] = { -6, 2, -3 }, b[3] = { -6, 2, -6 * slope }, c[3] = { 6, 2, 6 * slope }, e[3] = { 6, 2, -3 };
    soup_quad(&s, a, b, c, e);
    bake_light light = { .kind = BAKE_LIGHT_STATIC, .position = { 0, 4, 0 }, .color = { 1, 1, 1 }, .intensity = 1.0f,
                         .range = 20, .radius = radius };
    floor_bake f;
    floor_bake_init(&f, &s, -3, -1, 60, 20);
    f.desc.lights = &light;
    f.desc.light_count = 1;
    f.desc.samples = samples;
    floor_bake_run(&f);
    /* row 10 (z = 0.05): lit up to x = 0.28, dark beyond; from the last fully lit luxel (within 3 of
     * the brightest before the edge) to the first dark one, values fall monotonically */
    const int row = 10;
    int first_dark = 0;
    while (first_dark < 60 && at(&f, first_dark, row) > 0)
        first_dark++;
    CHECK(first_dark > 20 && first_dark < 60);
    int peak = 0;
    for (int i = 0; i < first_dark; i++)
        peak = at(&f, i, row) > peak ? at(&f, i, row) : peak;
    int last_lit = first_dark - 1;
    while (last_lit > 0 && at(&f, last_lit, row) < peak - 3)
        last_lit--;
    int between = 0;
    for (int i = last_lit + 1; i < first_dark; i++) {
        if (getenv("BAKE_SOFT_VERBOSE")) printf("%d ", at(&f, i, row));
        CHECK(at(&f, i, row) <= at(&f, i - 1, row) + peak / 32 + 1);     /* within one refined ray's share */
        between++;
    }
    printf("staircase: samples %d radius %.2f: %d luxels between light (%d) and shadow at row %d\n", samples,
           (double)radius, between, peak, row);
    free(f.lightmap.luxels);
    soup_free(&s);
    return between;
}

/* A 6 x 6 m courtyard with 4 m walls, open above, and beside it a roofed room: sky light only. */
static void test_sky(void)
{
    soup s = { 0 };
    add_floor(&s, -3, -3, 9, 3);
    float walls[5][2][3] = {
        { { -3.2f, 0, -3.2f }, { -3, 4, 3.2f } },   /* west */
        { { 3, 0, -3.2f }, { 3.2f, 4, 3.2f } },     /* between courtyard and room */
        { { -3.2f, 0, -3.2f }, { 9.2f, 4, -3 } },   /* north */
        { { -3.2f, 0, 3 }, { 9.2f, 4, 3.2f } },     /* south */
        { { 9, 0, -3.2f }, { 9.2f, 4, 3.2f } },     /* east */
    };
    for (int k = 0; k < 5; k++)
        soup_box(&s, walls[k][0], walls[k][1]);
    float roof_min[3] = { 3, 4, -3.2f }, roof_max[3] = { 9.2f, 4.2f, 3.2f };
    soup_box(&s, roof_min, roof_max);
    floor_bake f;
    floor_bake_init(&f, &s, -3, -3, 120, 60);
    f.desc.sky_light[0] = f.desc.sky_light[1] = f.desc.sky_light[2] = 1.0f;
    f.desc.samples = 4;
    floor_bake_run(&f);
    int centre = at(&f, 30, 30), foot = at(&f, 1, 30), room = at(&f, 90, 30);
    printf("sky: courtyard centre %d, foot of its wall %d, roofed room %d\n", centre, foot, room);
    CHECK(centre > foot + 25 && foot > 0 && room == 0);
    /* the middle sees the 6 x 6 m opening 4 m up: a round opening of the same area (radius 3.39 m)
     * gives the cosine-weighted share sin^2(atan(3.39 / 4)) = 0.418, 107 of 255 */
    CHECK(abs(centre - 107) <= 16);
    free(f.lightmap.luxels);
    soup_free(&s);
}

/* A floor meeting a wall, with four samples per luxel: the luxels whose square reaches under the
 * wall (column 0's centre lies on the wall's face, column 1's square touches it) are no darker
 * than their neighbours (their sample points under the wall fall back to the centre), and dirt
 * darkens the foot of the wall. */
static void test_seam_and_dirt(void)
{
    soup s = { 0 };
    add_floor(&s, -3, -3, 3, 3);
    float wall_min[3] = { -3.5f, 0, -3 }, wall_max[3] = { -2, 3, 3 };   /* its face at x = -2 */
    soup_box(&s, wall_min, wall_max);
    bake_light light = { .kind = BAKE_LIGHT_STATIC, .position = { 0, 2, 0 }, .color = { 1, 1, 1 }, .intensity = 1.5f,
                         .range = 10, .radius = 0.1f };
    floor_bake f;
    floor_bake_init(&f, &s, -2.05f, -1, 30, 20);
    f.desc.lights = &light;
    f.desc.light_count = 1;
    f.desc.samples = 4;
    floor_bake_run(&f);
    for (int j = 0; j < 20; j++) {
        if (getenv("BAKE_SOFT_VERBOSE"))
            printf("seam row %d: %d %d %d %d\n", j, at(&f, 0, j), at(&f, 1, j), at(&f, 2, j), at(&f, 3, j));
        CHECK(at(&f, 0, j) >= at(&f, 1, j) - 12 && at(&f, 1, j) >= at(&f, 2, j) - 12 && at(&f, 0, j) > 0);
    }
    int plain_foot = at(&f, 1, 10), plain_open = at(&f, 25, 10);
    f.desc.dirt_distance = 1.0f;
    f.desc.dirt_strength = 0.5f;
    floor_bake_run(&f);
    int dirty_foot = at(&f, 1, 10), dirty_open = at(&f, 25, 10);
    printf("dirt: foot of the wall %d -> %d, open floor %d -> %d\n", plain_foot, dirty_foot, plain_open, dirty_open);
    CHECK(dirty_open == plain_open);                /* nothing within a metre: untouched */
    CHECK(dirty_foot < plain_foot * 0.95 && dirty_foot > plain_foot * 0.5);
    free(f.lightmap.luxels);
    soup_free(&s);
}

static uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* Every light shape, sky and a sun over a floor with boxes: the lightmap's hash. */
static uint64_t mixed_scene_hash(int samples, float radius, int threads)
{
    soup s = { 0 };
    add_floor(&s, -6, -6, 6, 6);
    float box_min[3] = { -1, 0, -1 }, box_max[3] = { 1, 1.5f, 1 };
    soup_box(&s, box_min, box_max);
    float wall_min[3] = { 2, 0, -3 }, wall_max[3] = { 2.3f, 3, 3 };
    soup_box(&s, wall_min, wall_max);
    bake_light lights[3] = {
        { .kind = BAKE_LIGHT_STATIC, .position = { -2, 3, -2 }, .color = { 1, 0.8f, 0.6f }, .intensity = 1, .range = 9, .radius = radius },
        { .kind = BAKE_LIGHT_STATIC, .position = { 4, 2, 0 }, .color = { 0.3f, 0.5f, 1 }, .intensity = 1, .range = 8,
          .shape = BAKE_SHAPE_SPOT, .direction = { 0, -1, 0 }, .cos_inner = 0.9f, .cos_outer = 0.7f, .radius = radius },
        { .kind = BAKE_LIGHT_STATIC, .color = { 1, 1, 0.9f }, .intensity = 0.5f, .shape = BAKE_SHAPE_SUN,
          .direction = { 0.48f, -0.8f, 0.36f }, .radius = radius * 0.1f },
    };
    floor_bake f;
    floor_bake_init(&f, &s, -5.5f, -5.5f, 110, 110);
    f.desc.lights = lights;
    f.desc.light_count = 3;
    f.desc.ambient[0] = f.desc.ambient[1] = f.desc.ambient[2] = 0.05f;
    f.desc.sky_light[0] = 0.2f;
    f.desc.sky_light[1] = 0.25f;
    f.desc.sky_light[2] = 0.3f;
    soup sky = { 0 };      /* a lid of open sky (the baker before this fix saw sky only through one) */
    float a[3] = { -8, 5, -8 }, b[3] = { 8, 5, -8 }, c[3] = { 8, 5, 8 }, d[3] = { -8, 5, 8 };
    soup_quad(&sky, a, b, c, d);
    f.desc.sky_triangles = (const float (*)[9])sky.tris;
    f.desc.sky_triangle_count = sky.count;
    f.desc.samples = samples;
    f.desc.threads = threads;
    floor_bake_run(&f);
    uint64_t h = fnv(f.lightmap.luxels, SIDE * SIDE * 3);
    free(f.lightmap.luxels);
    soup_free(&s);
    soup_free(&sky);
    return h;
}

int main(void)
{
    test_penumbra();
    CHECK(intermediate_values(1, 0.0f) == 0);       /* today: a staircase */
    CHECK(intermediate_values(4, 0.0f) >= 3);
    CHECK(intermediate_values(4, 0.1f) >= 3);
    test_sky();
    test_seam_and_dirt();
    /* the same bytes on any run and thread count; every option off: the baker before them */
    uint64_t soft = mixed_scene_hash(4, 0.2f, 2);
    CHECK(soft == mixed_scene_hash(4, 0.2f, 2) && soft == mixed_scene_hash(4, 0.2f, 1));
    uint64_t off = mixed_scene_hash(1, 0.0f, 2);
    printf("hashes: soft %016llx, off %016llx\n", (unsigned long long)soft, (unsigned long long)off);
    CHECK(off == BAKE_OFF_HASH);
    puts("ok");
    TEST_DONE();
}
