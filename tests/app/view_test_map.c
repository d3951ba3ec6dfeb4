/* view_test_map.c - writes the viewer tests' map (built with tests/fixtures/fixture_map.h):
 * per level one chunk (16 m) whose root cube is a single quad, a wall facing +Z at z = -4
 * spanning x, y in [-4, 4], with a known material and lightmap, so a camera at the origin
 * looking along -Z sees pixels the equation predicts:
 *
 *   material colour (200, 150, 100), shading 255, no texture, emission or shine
 *   lightmap 4x4, luxel column x = (40 + 50 x, 100, 200 - 40 x) in variant 0; variant 1 adds
 *   60 to red, so a rewritten file changes the picture. Level 1 has blue (0, 0, 255) luxels.
 *   At the screen centre (lightmap UV 0.5, 0.5) L = (115, 100, 140) in variant 0:
 *   fullbright (200, 150, 100), lightmap (115, 100, 140), full (90, 59, 55).
 * Variant 2 adds, on level 0, dynamic light 7 (red, enabled, a layer of luxels 100 over the
 * wall's lightmap: L += (100, 0, 0)) and fast light 9 (green, intensity 255, multiplier 128 on
 * the wall's four vertices: L += (0, 128, 0) at full intensity): lightmap (215, 228, 140).
 * Variant 3 is variant 0 with the pmfview.cameras extension: "far" (level 0, 0,0,4 yaw 0),
 * "aside" (level 0, 1,0.5,2 yaw 20 pitch 5), "below" (level 1, 0,-1,1 yaw -10 pitch 10).
 *
 * usage: view_test_map OUT.pmf [VARIANT]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmf.h"
#include "pmf_cameras.h"
#include "fixture_map.h"

/* One level: the wall, its lightmap by column, and in variant 2 (level 0) the two lights. */
static void add_level(fx_map *m, uint32_t level, int variant)
{
    fx_level *l = fx_level_add(m, 4, (pmf_chunk_coord){ 1, 1, 1 }, (pmf_chunk_coord){ 0, 0, 0 });
    uint8_t wall = fx_material(l, "wall", NULL, 0, 0);
    pmf_client_material *cm = fx_cmat(l, wall);
    cm->color[0] = 200, cm->color[1] = 150, cm->color[2] = 100;
    fx_chunk *c = fx_chunk_add(l, (pmf_chunk_coord){ 0, 0, 0 });
    uint8_t lm = fx_lightmap(c, 2, 0, 0, 0);
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) {
            uint8_t *p = c->lightmaps[lm].luxels + (y * 4 + x) * 3;
            if (level == 1) {
                p[0] = 0, p[1] = 0, p[2] = 255;
            } else {
                p[0] = (uint8_t)(40 + 50 * x + (variant == 1 ? 60 : 0));
                p[1] = 100;
                p[2] = (uint8_t)(200 - 40 * x);
            }
        }
    float q[4][3];
    fx_wall_z(q, -4, 4, -4, 4, -4, true);
    fx_geom_quad(c, 0, wall, lm, q);
    c->cubes[0].flags |= PMF_CUBE_DRAW_BACKFACES;
    c->ccubes[0].u.geom.face_mask = 1u << PMF_FACE_POS_Z;
    if (variant == 2 && level == 0) {
        fx_dynamic_light(c, 7, true, (const uint8_t[3]){ 255, 0, 0 }, lm, 100);
        fx_fast_light(c, 9, 255, (const uint8_t[3]){ 0, 255, 0 }, 0, 4, 128);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fputs("usage: view_test_map OUT.pmf [VARIANT]\n", stderr);
        return 1;
    }
    int variant = argc == 3 ? atoi(argv[2]) : 0;
    static const pmf_camera cams[] = {
        { "far", 0, { 0, 0, 4 }, 0, 0 },
        { "aside", 0, { 1, 0.5f, 2 }, 20, 5 },
        { "below", 1, { 0, -1, 1 }, -10, 10 },
    };
    fx_map *m = calloc(1, sizeof *m);
    pmf_blob ext = { 0 };
    uint8_t *blob = NULL;
    if (variant == 3) {
        pmf_error err;
        if (!pmf_cameras_encode(cams, 3, &blob, &ext.size, &err)) {
            fprintf(stderr, "view_test_map: %s\n", err.message);
            return 1;
        }
        ext.data = blob;
        m->extensions = &ext;
        m->extension_count = 1;
    }
    for (uint32_t level = 0; level < 2; level++)
        add_level(m, level, variant);
    bool ok = fx_map_write(m, argv[1]);
    fx_map_free(m);
    free(m);
    free(blob);
    return ok ? 0 : 1;
}
