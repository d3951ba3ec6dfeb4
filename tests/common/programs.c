/* programs.c - running the real programs from the tests (programs.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <stb_image.h>

#include "programs.h"

int test_system(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

bool test_write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(data, 1, size, f) == size;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok)
        perror(path);
    return ok;
}

void test_write_text(const char *path, const char *text)
{
    if (!test_write_file(path, text, strlen(text)))
        exit(1);
}

uint8_t *test_read_file(const char *path, size_t *size)
{
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *data = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (data = malloc((size_t)n + 1)) && fread(data, 1, (size_t)n, f) == (size_t)n) {
        data[n] = 0;
        *size = (size_t)n;
    } else {
        free(data);
        data = NULL;
    }
    fclose(f);
    return data;
}

bool test_image_load(test_image *img, const char *path)
{
    int n;
    img->rgb = stbi_load(path, &img->w, &img->h, &n, 3);
    if (!img->rgb)
        fprintf(stderr, "cannot load %s: %s\n", path, stbi_failure_reason());
    return img->rgb != NULL;
}

void test_image_free(test_image *img)
{
    stbi_image_free(img->rgb);
    img->rgb = NULL;
}

void test_workdir_open(test_workdir *w, const char *pmfc, const char *pmfview, const char *dir)
{
    *w = (test_workdir){ pmfc, pmfview, dir };
    mkdir(dir, 0777);
}

int test_workdir_compile(const test_workdir *w, const char *name, const char *source, const char *extra)
{
    char path[512], cmd[2048];
    snprintf(path, sizeof path, "%s/%s.pms", w->dir, name);
    test_write_text(path, source);
    snprintf(cmd, sizeof cmd, "'%s' '%s' -o '%s/%s.pmf' --quiet %s 2>'%s/%s.log'", w->pmfc, path, w->dir, name, extra, w->dir,
             name);
    return test_system(cmd);
}

bool test_workdir_shot(const test_workdir *w, const char *env, const char *map, const char *out, const char *extra,
                       test_image *img)
{
    char cmd[2048], png[512];
    snprintf(png, sizeof png, "%s/%s.png", w->dir, out);
    snprintf(cmd, sizeof cmd, "ASAN_OPTIONS=detect_leaks=0 %s '%s' shot '%s/%s.pmf' -o '%s' %s >'%s/%s.txt'", env, w->pmfview,
             w->dir, map, png, extra, w->dir, out);
    if (test_system(cmd) != 0) {
        fprintf(stderr, "failed: %s\n", cmd);
        return false;
    }
    return test_image_load(img, png);
}
