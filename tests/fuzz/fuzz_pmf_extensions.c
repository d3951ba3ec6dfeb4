/* fuzz_pmf_extensions.c - libFuzzer target: any bytes as the one extension of a valid 3-level map
 * (the kitchen sink, built once, with two point entities), read by the decoders of pmfview's own
 * extensions (pmfview.cameras, pmfview.lights, pmfview.entity_placement and pmfview.entity_render
 * over the entities). What they accept must be whole: every name a string inside the blob, every
 * level one the file has, every number finite, every scale positive, every rendermode 0..5. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/programs.h"
#include "pmf_cameras.h"
#include "pmf_lights.h"
#include "pmf_map_info.h"
#include "sample_map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char marker[] = "@@ the extension goes here @@";
static uint8_t *map;              /* the kitchen sink with two entities' extension and then `marker` */
static size_t map_size, ext_at;   /* ext_at: where the marker starts */
static size_t size_at;            /* where its u32 size is (the sizes come before the extensions) */

static void build_map(void)
{
    sample_map m;
    sample_map_build(&m, SAMPLE_MAP_KITCHEN_SINK);
    const pmf_entity_info entities[2] = { { .level = 0, .classname = "item_armor1", .targetname = "" },
                                          { .level = 2, .classname = "misc_model", .targetname = "x" } };
    uint8_t *list;
    size_t list_size;
    pmf_error err;
    if (!pmf_entities_encode(entities, 2, &list, &list_size, &err))
        abort();
    const pmf_blob exts[2] = { { list, list_size }, { (const uint8_t *)marker, sizeof marker } };
    m.data.extensions = exts;
    m.data.extension_count = 2;
    if (!sample_map_write_memory(&m, &map, &map_size, &err))
        abort();
    free(list);
    sample_map_free(&m);
    const uint8_t *p = test_memmem(map, map_size, marker, sizeof marker);
    if (!p)
        abort();
    ext_at = (size_t)(p - map);
    size_at = ext_at - list_size - 4;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!map)
        build_map();
    if (size > UINT32_MAX)
        return 0;
    size_t total = map_size - sizeof marker + size;
    uint8_t *file = malloc(total ? total : 1);
    if (!file)
        return 0;
    memcpy(file, map, ext_at);
    uint32_t n = (uint32_t)size;
    memcpy(file + size_at, &n, 4);       /* little-endian hosts only, as the rest of the tests */
    memcpy(file + ext_at, data, size);
    memcpy(file + ext_at + size, map + ext_at + sizeof marker, map_size - ext_at - sizeof marker);
    pmf_error err;
    pmf_file *f = pmf_open_memory(file, total, "fuzz", &err);
    if (f) {
        pmf_cameras cams;
        if (pmf_cameras_read(f, &cams, &err)) {
            for (uint32_t i = 0; i < cams.count; i++) {
                const pmf_camera *c = &cams.list[i];
                if (strlen(c->name) > size || c->level >= f->level_count)
                    abort();
                const float v[] = { c->pos[0], c->pos[1], c->pos[2], c->yaw, c->pitch };
                for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
                    if (!isfinite(v[k]))
                        abort();
            }
            pmf_cameras_free(&cams);
        }
        pmf_lights lights;
        if (pmf_lights_read(f, &lights, &err)) {
            for (uint32_t i = 0; i < lights.count; i++) {
                const pmf_light_info *l = &lights.list[i];
                if (l->level >= f->level_count || l->kind > PMF_LIGHT_FAST || l->shape > PMF_LIGHT_SUN || !isfinite(l->range))
                    abort();
                if (strlen(l->name) > size)
                    abort();
            }
            pmf_lights_free(&lights);
        }
        pmf_entities entities;
        if (pmf_entities_read(f, &entities, &err)) {
            for (uint32_t i = 0; i < entities.count; i++) {
                const pmf_entity_info *e = &entities.list[i];
                if (!isfinite(e->angles[0]) || !isfinite(e->angles[1]) || !isfinite(e->angles[2]) || !(e->scale > 0)
                    || !isfinite(e->scale) || strlen(e->model) > size)
                    abort();
                if (e->render_mode >= PMF_RENDER_MODES || (e->framerate != -1 && !(e->framerate >= 0 && isfinite(e->framerate))))
                    abort();
            }
            pmf_entities_free(&entities);
        }
        pmf_close(f);
    }
    free(file);
    return 0;
}
