/* make_rmf_seeds.c - writes fuzz_rmf's seeds made by the test writer: `make_rmf_seeds DIR`. The
 * sample map in 2.2, 1.8 and 0.9, nested groups, and a brush entity of many boxes (scripts/fuzz.sh
 * adds the shared real maps beside them). */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
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

/* The real maps of ../shared/data/rmf (read there, never stored in the project), when present. */
static void copy_shared_maps(const char *from, const char *to)
{
    DIR *d = opendir(from);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".rmf"))
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", from, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        uint8_t *data = NULL;
        size_t size = 0, cap = 0, got;
        uint8_t buf[65536];
        while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
            if (size + got > cap) {
                cap = (size + got) * 2;
                uint8_t *more = realloc(data, cap);
                if (!more)
                    break;
                data = more;
            }
            memcpy(data + size, buf, got);
            size += got;
        }
        fclose(f);
        if (data)
            write_seed(to, e->d_name, data, size);
    }
    closedir(d);
}

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: make_rmf_seeds [SHARED_RMF_DIR] DIR\n");
        return 1;
    }
    const char *out = argv[argc - 1];
    if (argc == 3)
        copy_shared_maps(argv[1], out);
    static const float versions[] = { 2.2f, 1.8f, 0.9f };
    static const char *const names[] = { "sample_2.2", "sample_1.8", "sample_0.9" };
    uint8_t *data;
    size_t size;
    bool ok = true;
    for (int i = 0; i < 3; i++)
        ok = rmf_build_sample(versions[i], &data, &size) && write_seed(out, names[i], data, size) && ok;

    rmf_build *b = rmf_build_new(NULL);
    for (int i = 0; i < 40; i++)
        rmf_build_begin_group(b, &(rmf_build_object){ .color = { (uint8_t)i, 0, 0 } });
    rmf_build_box(b, (float[3]){ 0, 0, 0 }, (float[3]){ 8, 8, 8 }, "DEEP");
    for (int i = 0; i < 40; i++)
        rmf_build_end(b);
    ok = rmf_build_finish(b, &data, &size) && write_seed(out, "nested", data, size) && ok;

    b = rmf_build_new(&(rmf_build_desc){ .version = 1.8f });
    rmf_build_begin_brush_entity(b, &(rmf_entity){ .classname = "func_door", .kv = (rmf_kv[]){ { "speed", "100" } },
                                                   .kv_count = 1 }, NULL);
    for (int i = 0; i < 6; i++)
        rmf_build_box(b, (float[3]){ (float)i * 16, 0, 0 }, (float[3]){ (float)i * 16 + 8, 64, 128 }, "DOOR");
    rmf_build_end(b);
    ok = rmf_build_finish(b, &data, &size) && write_seed(out, "door", data, size) && ok;
    return ok ? 0 : 1;
}
