/* view_test_map.c - writes the viewer tests' map: per level one chunk (16 m) whose root cube is
 * a single quad, a wall facing +Z at z = -4 spanning x, y in [-4, 4], with a known material and
 * lightmap, so a camera at the origin looking along -Z sees pixels the equation predicts:
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

static void build_level(pmf_level *l, pmf_material *mat, pmf_physics_material *phys, pmf_sound_material *snd,
                        pmf_client_material *cm)
{
    memset(l, 0, sizeof *l);
    l->chunk_size_exp = 4;
    l->count_x = l->count_y = l->count_z = 1;
    l->parts = PMF_PART_ALL;
    *mat = (pmf_material){ .name = "wall", .type = "solid" };
    *phys = (pmf_physics_material){ .name = "rock", .friction = 1.0f, .traction = 1.0f };
    *snd = (pmf_sound_material){ 0.5f, 0.5f };
    l->common = (pmf_level_common){
        .material_count = 1, .materials = mat,
        .physics_material_count = 1, .physics_materials = phys,
        .sound_material_count = 1, .sound_materials = snd,
        .air_physics_material = "", .default_weather_env = "", .default_gravity_env = "",
    };
    *cm = (pmf_client_material){ .texture = "", .color = { 200, 150, 100 }, .alpha = 255, .shading = 255, .matcap = "" };
    l->client = (pmf_level_client){ .default_sound_env = "", .default_sky_env = "", .material_count = 1, .materials = cm };
    l->server = (pmf_level_server){ .string_table = { (const uint8_t *)"", 1 } };
}

static bool put_chunk(pmf_writer *w, const pmf_level *l, uint32_t level, int variant, pmf_error *err)
{
    static const char *used_mat[] = { "wall" }, *used_phys[] = { "rock" }, *used_snd[] = { "stone" };
    uint8_t luxels[4 * 4 * 3];
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) {
            uint8_t *p = luxels + (y * 4 + x) * 3;
            if (level == 1) {
                p[0] = 0, p[1] = 0, p[2] = 255;
            } else {
                p[0] = (uint8_t)(40 + 50 * x + (variant == 1 ? 60 : 0));
                p[1] = 100;
                p[2] = (uint8_t)(200 - 40 * x);
            }
        }
    pmf_lightmap lm = { .size_exp = 2, .luxels = luxels };
    pmf_vertex verts[4] = {
        { { -4, -4, -4 }, { 0, 0 }, { 0, 0 } },
        { { 4, -4, -4 }, { 1, 0 }, { 1, 0 } },
        { { 4, 4, -4 }, { 1, 1 }, { 1, 1 } },
        { { -4, 4, -4 }, { 0, 1 }, { 0, 1 } },
    };
    pmf_cube cube = { .flags = PMF_CUBE_DRAW_BACKFACES, .type = PMF_CUBE_GEOMETRY };
    pmf_client_cube ccube = { .u.geom = { .lightmap = 0, .first_vertex = 0, .face_mask = 1u << PMF_FACE_POS_Z } };
    pmf_server_cube scube = { 0 };
    uint8_t layer_luxels[4 * 4 * 3], mults[4] = { 128, 128, 128, 128 };
    memset(layer_luxels, 100, sizeof layer_luxels);
    pmf_light_layer layer = { .target = 0, .luxels = layer_luxels };
    pmf_dynamic_light dyn = { .flags = PMF_LIGHT_ENABLE, .id = 7 };
    pmf_client_dynamic_light cdyn = { .color = { 255, 0, 0 }, .layer_count = 1, .layers = &layer };
    pmf_fast_light fast = { .flags = PMF_LIGHT_ENABLE, .intensity = 255, .id = 9 };
    pmf_fast_range range = { .skip = 0, .count = 4, .multipliers = mults };
    pmf_client_fast_light cfast = { .color = { 0, 255, 0 }, .range_count = 1, .ranges = &range };
    bool lights = variant == 2 && level == 0;
    pmf_chunk ch;
    memset(&ch, 0, sizeof ch);
    ch.parts = PMF_PART_ALL;
    ch.common = (pmf_chunk_common){
        .used_material_count = 1, .used_materials = used_mat,
        .used_physics_material_count = 1, .used_physics_materials = used_phys,
        .used_sound_material_count = 1, .used_sound_materials = used_snd,
        .cube_count = 1, .cubes = &cube,
    };
    ch.client = (pmf_chunk_client){ .lightmap_count = 1, .lightmaps = &lm, .vertex_count = 4, .vertices = verts,
                                    .cubes = &ccube };
    if (lights) {
        ch.common.dynamic_light_count = 1;
        ch.common.dynamic_lights = &dyn;
        ch.common.fast_light_count = 1;
        ch.common.fast_lights = &fast;
        ch.client.dynamic_lights = &cdyn;
        ch.client.fast_lights = &cfast;
    }
    ch.server = (pmf_chunk_server){ .string_table = { (const uint8_t *)"", 1 }, .cubes = &scube };
    pmf_encoded_chunk enc;
    if (!pmf_chunk_encode(l, &ch, &enc, err))
        return false;
    return pmf_writer_put_chunk(w, ch.coord, &enc, err);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fputs("usage: view_test_map OUT.pmf [VARIANT]\n", stderr);
        return 1;
    }
    int variant = argc == 3 ? atoi(argv[2]) : 0;
    pmf_header hdr = { .major = 0, .created = 1700000000, .name = "viewer test", .description = "one lit wall",
                       .authors = "pmfview tests", .compiler = "view_test_map" };
    pmf_data_desc data = { .string_table = { (const uint8_t *)"", 1 } };
    pmf_error err;
    static const pmf_camera cams[] = {
        { "far", 0, { 0, 0, 4 }, 0, 0 },
        { "aside", 0, { 1, 0.5f, 2 }, 20, 5 },
        { "below", 1, { 0, -1, 1 }, -10, 10 },
    };
    pmf_blob ext = { 0 };
    uint8_t *blob = NULL;
    if (variant == 3) {
        if (!pmf_cameras_encode(cams, 3, &blob, &ext.size, &err)) {
            fprintf(stderr, "view_test_map: %s\n", err.message);
            return 1;
        }
        ext.data = blob;
        data.extension_count = 1;
        data.extensions = &ext;
    }
    pmf_writer *w = pmf_writer_create(&hdr, &data, &err);
    bool ok = w != NULL;
    for (uint32_t level = 0; ok && level < 2; level++) {
        pmf_level l;
        pmf_material mat;
        pmf_physics_material phys;
        pmf_sound_material snd;
        pmf_client_material cm;
        build_level(&l, &mat, &phys, &snd, &cm);
        ok = pmf_writer_begin_level(w, &l, &err) && put_chunk(w, &l, level, variant, &err);
    }
    ok = ok && pmf_writer_finish(w, argv[1], &err);
    pmf_writer_destroy(w);
    free(blob);
    if (!ok) {
        char line[1024];
        fprintf(stderr, "view_test_map: %s\n", pmf_error_format(&err, line, sizeof line));
        return 1;
    }
    return 0;
}
