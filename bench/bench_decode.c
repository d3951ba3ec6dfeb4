/* bench_decode.c - figure 2's decode baseline: open the file and decode (all parts, one thread)
 * exactly the chunks `pmfview shot` waits for before its first frame: present, within the
 * streaming radius of the camera's chunk and meeting the view frustum.
 *
 *   bench_decode FILE [--camera X,Y,Z,YAW,PITCH] [--radius N] [--size WxH] [--fov DEG] [--level N]
 *
 * Defaults are shot's: camera 0,0,0,0,0, radius 8, 1280x720, 75 degrees, level 0.
 * Prints "chunks in view: N" and "decode time: T s" (open + level + chunks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_view.h"

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int fail(const pmf_error *err)
{
    char msg[768];
    fprintf(stderr, "bench_decode: %s\n", pmf_error_format(err, msg, sizeof msg));
    return 2;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    bench_camera cam = { { 0, 0, 0 }, 0, 0 };
    bench_projection proj = { 75.0f, 1280.0f / 720.0f };
    int radius = 8, width = 1280, height = 720;
    unsigned level = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : "";
        bool ok = true;
        if (argv[i][0] != '-') {
            path = argv[i];
            continue;
        }
        if (!strcmp(argv[i], "--camera"))
            ok = bench_camera_parse(v, &cam);
        else if (!strcmp(argv[i], "--radius"))
            ok = sscanf(v, "%d", &radius) == 1 && radius > 0;
        else if (!strcmp(argv[i], "--size"))
            ok = sscanf(v, "%dx%d", &width, &height) == 2 && width > 0 && height > 0;
        else if (!strcmp(argv[i], "--fov"))
            ok = sscanf(v, "%f", &proj.fov_y) == 1;
        else if (!strcmp(argv[i], "--level"))
            ok = sscanf(v, "%u", &level) == 1;
        else
            ok = false;
        if (!ok || i + 1 >= argc) {
            fprintf(stderr, "bench_decode: bad option '%s'\n", argv[i]);
            return 1;
        }
        i++;
    }
    if (!path) {
        fputs("usage: bench_decode FILE [--camera X,Y,Z,YAW,PITCH] [--radius N] [--size WxH] [--fov DEG] [--level N]\n",
              stderr);
        return 1;
    }
    proj.aspect = (float)width / (float)height;

    double t0 = now_seconds();
    pmf_error err;
    pmf_file *f = pmf_open(path, &err);
    if (!f)
        return fail(&err);
    if (level >= f->level_count) {
        fprintf(stderr, "bench_decode: %s has no level %u\n", path, level);
        pmf_close(f);
        return 2;
    }
    const pmf_level_info *li = &f->levels[level];
    size_t count = bench_chunks_in_view(li, &cam, &proj, radius, NULL, 0);
    pmf_chunk_coord *coords = malloc((count ? count : 1) * sizeof *coords);
    pmf_level lvl;
    if (!coords || !pmf_level_read(f, level, PMF_PART_ALL, &lvl, &err)) {
        free(coords);
        pmf_close(f);
        return coords ? fail(&err) : 3;
    }
    bench_chunks_in_view(li, &cam, &proj, radius, coords, count);
    int rc = 0;
    for (size_t i = 0; i < count && !rc; i++) {
        pmf_chunk ch;
        if (!pmf_chunk_read(f, &lvl, level, coords[i], PMF_PART_ALL, &ch, &err))
            rc = fail(&err);
        else
            pmf_chunk_free(&ch);
    }
    double elapsed = now_seconds() - t0;
    pmf_level_free(&lvl);
    free(coords);
    pmf_close(f);
    if (!rc)
        printf("chunks in view: %zu\ndecode time: %.6f s\n", count, elapsed);
    return rc;
}
