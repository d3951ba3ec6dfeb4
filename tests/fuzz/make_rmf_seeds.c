/* make_rmf_seeds.c - writes fuzz_rmf's seeds made by the test writer: `make_rmf_seeds DIR`. The
 * sample map in 2.2, 1.8 and 0.9, nested groups, and a brush entity of many boxes (scripts/fuzz.sh
 * adds the shared real maps beside them). */
#include <stdio.h>
#include <stdlib.h>

#include "rmf_build.h"

static bool write_seed(const char *dir, const char *name, uint8_t *data, size_t size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.rmf", dir, name);
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(data, 1, size, f) == size;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok)
        fprintf(stderr, "make_rmf_seeds: cannot write %s\n", path);
    free(data);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_rmf_seeds DIR\n");
        return 1;
    }
    static const float versions[] = { 2.2f, 1.8f, 0.9f };
    static const char *const names[] = { "sample_2.2", "sample_1.8", "sample_0.9" };
    uint8_t *data;
    size_t size;
    bool ok = true;
    for (int i = 0; i < 3; i++)
        ok = rmf_build_sample(versions[i], &data, &size) && write_seed(argv[1], names[i], data, size) && ok;

    rmf_build *b = rmf_build_new(NULL);
    for (int i = 0; i < 40; i++)
        rmf_build_begin_group(b, &(rmf_build_object){ .color = { (uint8_t)i, 0, 0 } });
    rmf_build_box(b, (float[3]){ 0, 0, 0 }, (float[3]){ 8, 8, 8 }, "DEEP");
    for (int i = 0; i < 40; i++)
        rmf_build_end(b);
    ok = rmf_build_finish(b, &data, &size) && write_seed(argv[1], "nested", data, size) && ok;

    b = rmf_build_new(&(rmf_build_desc){ .version = 1.8f });
    rmf_build_begin_brush_entity(b, &(rmf_entity){ .classname = "func_door", .kv = (rmf_kv[]){ { "speed", "100" } },
                                                   .kv_count = 1 }, NULL);
    for (int i = 0; i < 6; i++)
        rmf_build_box(b, (float[3]){ (float)i * 16, 0, 0 }, (float[3]){ (float)i * 16 + 8, 64, 128 }, "DOOR");
    rmf_build_end(b);
    ok = rmf_build_finish(b, &data, &size) && write_seed(argv[1], "door", data, size) && ok;
    return ok ? 0 : 1;
}
