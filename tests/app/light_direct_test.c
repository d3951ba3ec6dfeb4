/* light_direct_test.c - the light tools' direct term (src/scene/light_direct.c) against the model
 * of docs/pmfc-lighting.md: point falloff, facing away, range, the spot cone's smooth step, the
 * sun, colour and intensity; and the shadow test through pmfc's BVH. */
#include <math.h>
#include <string.h>

#include "../common/check.h"
#include "light_direct.h"

#define NEAR(a, b) (fabsf((a) - (b)) < 1e-5f)

static pmf_light_info point_light(void)
{
    return (pmf_light_info){ .kind = PMF_LIGHT_STATIC, .shape = PMF_LIGHT_POINT, .position = { 0, 4, 0 },
                             .color = { 255, 255, 255 }, .intensity = 1, .range = 10, .name = "" };
}

int main(void)
{
    const float up[3] = { 0, 1, 0 }, down[3] = { 0, -1, 0 }, floor_p[3] = { 0, 0, 0 };
    float out[3];

    /* the docs' example: 4 m straight below, range 10: (1 - 0.4)^2 = 0.36 */
    pmf_light_info l = point_light();
    light_direct(&l, floor_p, up, out);
    CHECK(NEAR(out[0], 0.36f) && NEAR(out[1], 0.36f) && NEAR(out[2], 0.36f));
    light_direct(&l, floor_p, down, out);                   /* facing away */
    CHECK(out[0] == 0 && out[1] == 0 && out[2] == 0);
    l.range = 4;                                            /* exactly at the range: nothing */
    light_direct(&l, floor_p, up, out);
    CHECK(out[0] == 0);
    /* colour x intensity; a point 3 m aside: n.l = 4 / 5, falloff (1 - 0.5)^2 */
    l = point_light();
    l.color[0] = 255, l.color[1] = 51, l.color[2] = 0, l.intensity = 2;
    light_direct(&l, (const float[3]){ 3, 0, 0 }, up, out);
    CHECK(NEAR(out[0], 2 * 0.8f * 0.25f) && NEAR(out[1], 0.2f * 2 * 0.8f * 0.25f) && out[2] == 0);

    /* spot pointing down, inner 30 deg, outer 60 deg */
    l = point_light();
    l.shape = PMF_LIGHT_SPOT;
    l.direction[1] = -1;
    l.cos_inner = cosf(30 * 3.14159265f / 180), l.cos_outer = cosf(60 * 3.14159265f / 180);
    light_direct(&l, floor_p, up, out);                     /* on the axis: as a point light */
    CHECK(NEAR(out[0], 0.36f));
    float d = 4 * tanf(70 * 3.14159265f / 180);              /* 70 deg off the axis: outside */
    light_direct(&l, (const float[3]){ d, 0, 0 }, up, out);
    CHECK(out[0] == 0);
    /* halfway between the cones' cosines: t = 0.5, 3t^2 - 2t^3 = 0.5 */
    float c = 0.5f * (l.cos_inner + l.cos_outer), a = acosf(c), x = 4 * tanf(a), dist = 4 / c;
    light_direct(&l, (const float[3]){ x, 0, 0 }, up, out);
    float expect = (4 / dist) * (1 - dist / 10) * (1 - dist / 10) * 0.5f;
    CHECK(fabsf(out[0] - expect) < 1e-4f);

    /* sun travelling down and along +X at 45 deg: -n.s = cos 45, no falloff, anywhere */
    pmf_light_info sun = { .shape = PMF_LIGHT_SUN, .direction = { 0.70710678f, -0.70710678f, 0 },
                           .color = { 255, 0, 255 }, .intensity = 1.5f, .name = "" };
    light_direct(&sun, (const float[3]){ 1000, -50, 3 }, up, out);
    CHECK(NEAR(out[0], 1.5f * 0.70710678f) && out[1] == 0 && NEAR(out[2], out[0]));
    light_direct(&sun, floor_p, down, out);
    CHECK(out[0] == 0);

    /* shadows: a horizontal square 2 m up between the floor and the light blocks it; beside it
     * the light passes; no occluders = unshadowed */
    const float square[2][9] = { { -1, 2, -1, 1, 2, -1, 1, 2, 1 }, { -1, 2, -1, 1, 2, 1, -1, 2, 1 } };
    light_direct_set set = { .lights = &l, .count = 1 };
    l = point_light();
    light_direct_shadowed(&set, &l, floor_p, up, out);
    CHECK(NEAR(out[0], 0.36f));
    CHECK(bvh_build(square, 2, 1, &set.occluders));
    light_direct_shadowed(&set, &l, floor_p, up, out);
    CHECK(out[0] == 0);
    light_direct_shadowed(&set, &l, (const float[3]){ 3, 0, 0 }, up, out);
    CHECK(NEAR(out[0], 0.8f * 0.25f));
    light_direct_free(&set);
    return check_report("light_direct");
}
