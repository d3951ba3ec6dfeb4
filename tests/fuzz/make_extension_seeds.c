/* make_extension_seeds.c - seed corpus of fuzz_pmf_extensions: `make_extension_seeds DIR`
 * writes a pmfview.cameras blob, a pmfview.lights blob (every kind and shape) and a
 * pmfview.entity_placement blob of two entities (fuzz_pmf_extensions' map holds two). */
#include <stdio.h>
#include <stdlib.h>

#include "pmf_cameras.h"
#include "pmf_lights.h"
#include "pmf_map_info.h"

static bool write_seed(const char *dir, const char *name, uint8_t *bytes, size_t size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = bytes ? fopen(path, "wb") : NULL;
    bool ok = f && fwrite(bytes, 1, size, f) == size;
    if (f && fclose(f) != 0)
        ok = false;
    free(bytes);
    if (!ok)
        fprintf(stderr, "make_extension_seeds: cannot write %s\n", path);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: make_extension_seeds DIR\n", stderr);
        return 1;
    }
    const pmf_camera cams[] = {
        { "info_player_start 1", 0, { 1.5f, 0.7f, -3.25f }, -90, 0 },
        { "camera 2", 2, { -10, 4.5f, 2 }, 135, -20.5f },
    };
    const pmf_light_info lights[] = {
        { 0, PMF_LIGHT_STATIC, PMF_LIGHT_POINT, 0, { 1, 2, 3 }, { 0, 0, 0 }, { 255, 200, 100 }, 1.3f, 20, 0, 0, 0, 0, 0, 0, 0, "", 0 },
        { 1, PMF_LIGHT_DYNAMIC, PMF_LIGHT_SPOT, 1, { -1, 4, 2 }, { 0, -1, 0 }, { 10, 20, 30 }, 0.5f, 8, 0.87f, 0.71f, 0, 0, 0, 0, 0, "lamp", 1 },
        { 2, PMF_LIGHT_FAST, PMF_LIGHT_POINT, 9, { 0, 0, 0 }, { 0, 0, 0 }, { 1, 2, 3 }, 2, 3, 0, 0, 0, 0, 0, 0, 0, "neon", 0 },
        { 0, PMF_LIGHT_STATIC, PMF_LIGHT_SUN, 0, { 0, 0, 0 }, { 0.6f, -0.8f, 0 }, { 255, 244, 224 }, 1, 0, 0, 0, 0, 0, 0, 0, 0, "sun", 0 },
    };
    pmf_error err;
    uint8_t *blob = NULL;
    size_t size = 0;
    bool ok = pmf_cameras_encode(cams, 2, &blob, &size, &err) && write_seed(argv[1], "cameras", blob, size);
    blob = NULL;
    ok = pmf_lights_encode(lights, 4, &blob, &size, &err) && write_seed(argv[1], "lights", blob, size) && ok;
    const pmf_entity_info placed[2] = { { .angles = { 30, 90, 0 }, .scale = 1.5f, .skin = 1, .body = PMF_NOT_GIVEN, .sequence = 2,
                                          .frame = PMF_NOT_GIVEN, .model = "" },
                                        { .scale = 1, .skin = PMF_NOT_GIVEN, .body = 3, .sequence = PMF_NOT_GIVEN, .frame = 7,
                                          .model = "progs/barrel.mdl" } };
    blob = NULL;
    ok = pmf_entity_placement_encode(placed, 2, &blob, &size, &err) && write_seed(argv[1], "placement", blob, size) && ok;
    const pmf_entity_info drawn[2] = { { .render_mode = 5, .render_amount = 200, .render_color = { 255, 0, 9 }, .framerate = 15 },
                                       { .render_amount = 255, .framerate = -1 } };
    blob = NULL;
    ok = pmf_entity_render_encode(drawn, 2, &blob, &size, &err) && write_seed(argv[1], "render", blob, size) && ok;
    return ok ? 0 : 1;
}
