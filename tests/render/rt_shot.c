/* rt_shot.c - the render tests' harness (rt_shot.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/pmf_os.h"
#include "common/programs.h"
#include "pmf/pmf_map_info.h"

#include "rt_shot.h"

static const char *pmfview;

int rt_main(int argc, char **argv, const rt_test *tests)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s PMFVIEW TEST\n", argv[0]);
        return 2;
    }
    pmfview = argv[1];
    pmf_os_setenv("PMFVIEW_GL_DEBUG", "fatal"); /* every GL error aborts the program: the test fails */
    for (const rt_test *t = tests; t->name; t++) {
        if (strcmp(t->name, argv[2]))
            continue;
        char dir[1024];
        if (!test_temp_dir(dir, sizeof dir, "pmfview-render") || chdir(dir) != 0) {
            perror("temporary directory");
            return 2;
        }
        int rc = t->run();
        if (rc == 0) {
            if (chdir("..") != 0 || !test_remove_tree(dir))
                fprintf(stderr, "could not remove %s\n", dir);
            printf("%s: ok\n", t->name);
        } else {
            fprintf(stderr, "%s: FAILED (files kept in %s)\n", t->name, dir);
        }
        return rc;
    }
    fprintf(stderr, "unknown test '%s'\n", argv[2]);
    return 2;
}

int rt_run(const char *args, char err[1024])
{
    int st = test_run_words(NULL, pmfview, args, "stdout.txt", "stderr.txt");
    FILE *f = fopen("stderr.txt", "r");
    char buf[1024] = "";
    if (f) {
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        fclose(f);
    }
    if (buf[0])
        fprintf(stderr, "[pmfview %s] %s", args, buf);
    if (err)
        memcpy(err, buf, sizeof buf);
    return st;
}

int rt_shot(const char *map, const char *out, const char *extra)
{
    char args[1024];
    snprintf(args, sizeof args, "shot %s -o %s --size 64x64 --fov 90 %s", map, out, extra);
    return rt_run(args, NULL);
}

bool rt_shot_map(fx_map *m, const char *extra, test_image *img)
{
    return fx_map_write(m, "map.pmf") && rt_shot("map.pmf", "out.png", extra) == 0 && test_image_load(img, "out.png");
}

bool rt_expect(const test_image *img, int x, int y, int r, int g, int b)
{
    const uint8_t *p = &img->rgb[((size_t)y * img->w + x) * 3];
    int want[3] = { r, g, b };
    for (int c = 0; c < 3; c++) {
        if (abs(p[c] - want[c]) > 1) {
            fprintf(stderr, "pixel (%d,%d) is (%d,%d,%d), expected (%d,%d,%d)\n", x, y, p[0], p[1], p[2], r, g, b);
            return false;
        }
    }
    return true;
}

bool rt_expect_all(const test_image *img, int r, int g, int b)
{
    for (int y = 0; y < img->h; y++)
        for (int x = 0; x < img->w; x++)
            if (!rt_expect(img, x, y, r, g, b))
                return false;
    return true;
}

int rt_eq(int a, int b)
{
    return (int)lround(a * b / 255.0);
}

bool rt_entity_place(const char *pmf_path, const char *classname, float out[3])
{
    pmf_error err;
    pmf_file *f = pmf_open(pmf_path, &err);
    pmf_entities e = { 0 };
    bool found = false;
    if (f && pmf_entities_read(f, &e, &err))
        for (uint32_t i = 0; i < e.count; i++)
            if (!strcmp(e.list[i].classname, classname)) {
                memcpy(out, e.list[i].position, 3 * sizeof *out);
                found = true;
            }
    pmf_entities_free(&e);
    pmf_close(f);
    return found;
}

double rt_floor_light(const float place[3], const char *extra)
{
    char args[1024], err[1024];
    snprintf(args, sizeof args, "shot room.pmf -o floor.png --size 64x64 --fov 90 --mode lightmap --no-models %s "
             "--camera %.6f,%.6f,%.6f,0,-90", extra, place[0], place[1], place[2]);
    test_image img;
    if (rt_run(args, err) != 0 || !test_image_load(&img, "floor.png")) {
        check_fail("cannot shoot the floor: %s", err);
        return 0;
    }
    double sum = 0;
    for (int y = 31; y <= 32; y++)
        for (int x = 31; x <= 32; x++)
            sum += img.rgb[3 * (y * 64 + x)] + img.rgb[3 * (y * 64 + x) + 1] + img.rgb[3 * (y * 64 + x) + 2];
    test_image_free(&img);
    return sum / (4 * 3 * 255.0);
}

int rt_compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
