/* programs.c - running the real programs from the tests (programs.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef _WIN32
#include <sys/resource.h>
#endif

#include <stb_image.h>

#include "base/pmf_os.h"
#include "programs.h"

int test_run(const char *const env[], const char *const argv[], const char *out_path, const char *err_path)
{
    FILE *out = out_path ? pmf_os_fopen(out_path, "wb") : NULL;
    FILE *err = err_path ? (out_path && !strcmp(out_path, err_path) ? out : pmf_os_fopen(err_path, "wb")) : NULL;
    if ((out_path && !out) || (err_path && !err)) {
        fprintf(stderr, "cannot write %s: %s\n", out_path && !out ? out_path : err_path, strerror(errno));
        if (out)
            fclose(out);
        if (err && err != out)
            fclose(err);
        return -1;
    }
    /* the variables for the child only: set, started, put back */
    enum { MAX_ENV = 16 };
    char *saved[MAX_ENV] = { 0 }, *names[MAX_ENV] = { 0 };
    int set = 0;
    for (; env && env[set] && set < MAX_ENV; set++) {
        const char *eq = strchr(env[set], '=');
        size_t name_len = eq ? (size_t)(eq - env[set]) : strlen(env[set]);
        bool append = name_len && env[set][name_len - 1] == '+';
        names[set] = malloc(name_len + 1);
        memcpy(names[set], env[set], name_len - append);
        names[set][name_len - append] = '\0';
        const char *old = pmf_os_getenv(names[set]);
        saved[set] = old ? strdup(old) : NULL;
        char value[1024];
        snprintf(value, sizeof value, "%s%s%s", append && old ? old : "", append && old && *old ? ":" : "", eq ? eq + 1 : "");
        pmf_os_setenv(names[set], eq ? value : NULL);
    }
    pmf_os_process p;
    int status = -1;
    bool started = pmf_os_spawn(&p, argv[0], argv, out, err);
#ifdef _WIN32
    /* wine's process creation fails now and then under a loaded ctest -j (EIO, EAGAIN): not the
       program's doing, so a start that failed for anything but a missing or refused file is retried */
    for (int attempt = 1; !started && attempt < 4 && errno != ENOENT && errno != EACCES && errno != ENOEXEC; attempt++) {
        fprintf(stderr, "starting %s failed (%s), try %d of 4\n", argv[0], strerror(errno), attempt + 1);
        nanosleep(&(struct timespec){ 0, attempt * 250 * 1000 * 1000 }, NULL);
        started = pmf_os_spawn(&p, argv[0], argv, out, err);
    }
#endif
    if (!started)
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
    else if (pmf_os_process_wait(&p, true, &status) != 1 || status < 0)
        status = -1;
    for (int i = 0; i < set; i++) {
        pmf_os_setenv(names[i], saved[i]);
        free(names[i]);
        free(saved[i]);
    }
    if (out)
        fclose(out);
    if (err && err != out)
        fclose(err);
    return status;
}

/* The words of text (split at spaces) appended to list from *count on; false when more than max. */
static bool split_words(char *text, const char **list, int *count, int max)
{
    for (char *save = NULL, *w = text ? strtok_r(text, " ", &save) : NULL; w; w = strtok_r(NULL, " ", &save)) {
        if (*count >= max)
            return false;
        list[(*count)++] = w;
    }
    return true;
}

int test_run_words(const char *env, const char *program, const char *args, const char *out_path, const char *err_path)
{
    enum { MAX_WORDS = 64 };
    const char *argv[MAX_WORDS + 2] = { program }, *envv[MAX_WORDS + 1] = { 0 };
    char *args_copy = args ? strdup(args) : NULL, *env_copy = env ? strdup(env) : NULL;
    int argc = 1, envc = 0;
    int status = -1;
    if (split_words(args_copy, argv, &argc, MAX_WORDS + 1) && split_words(env_copy, envv, &envc, MAX_WORDS)) {
        argv[argc] = NULL;
        envv[envc] = NULL;
        status = test_run(envv, argv, out_path, err_path);
    } else {
        fprintf(stderr, "too many words: %s\n", args);
    }
    free(args_copy);
    free(env_copy);
    return status;
}

const void *test_memmem(const void *hay, size_t hay_size, const void *needle, size_t n)
{
    const uint8_t *h = hay;
    for (size_t at = 0; n <= hay_size && at <= hay_size - n; at++)
        if (!memcmp(h + at, needle, n))
            return h + at;
    return NULL;
}

long test_children_peak_kib(void)
{
#ifdef _WIN32
    return 0;
#else
    struct rusage ru;
    return getrusage(RUSAGE_CHILDREN, &ru) == 0 ? ru.ru_maxrss : 0;
#endif
}

bool test_remove_tree(const char *dir)
{
    pmf_os_dir *d = pmf_os_dir_open(dir);
    if (!d)
        return errno == ENOENT;
    bool ok = true;
    for (const char *name; (name = pmf_os_dir_next(d));) {
        size_t len = strlen(dir) + strlen(name) + 2;
        char *path = malloc(len);
        snprintf(path, len, "%s/%s", dir, name);
        pmf_os_file_info st;
        if (pmf_os_stat(path, &st) == 0 && st.directory)
            ok = test_remove_tree(path) && ok;
        else
            ok = pmf_os_remove(path) == 0 && ok;
        free(path);
    }
    pmf_os_dir_close(d);
    /* a program that just ended may still hold a file in it for a moment (wine closes handles
     * after the exit): try again for up to a second */
    bool removed = pmf_os_remove_dir(dir) == 0;
    for (int attempt = 0; !removed && ok && attempt < 20; attempt++) {
        nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
        removed = pmf_os_remove_dir(dir) == 0;
    }
    return removed && ok;
}

bool test_temp_dir(char *out, size_t size, const char *prefix)
{
    char tmp[900];
    pmf_os_temp_dir(tmp, sizeof tmp);
    for (int attempt = 0; attempt < 100; attempt++) {
        uint8_t r[4];
        if (!pmf_os_random_bytes(r, sizeof r))
            return false;
        snprintf(out, size, "%s/%s-%02x%02x%02x%02x", tmp, prefix, r[0], r[1], r[2], r[3]);
        if (pmf_os_mkdir(out, 0700) == 0)
            return true;
        if (errno != EEXIST)
            return false;
    }
    return false;
}

bool test_make_dir(const char *dir)
{
    pmf_os_file_info st;
    return pmf_os_mkdir(dir, 0777) == 0 || (pmf_os_stat(dir, &st) == 0 && st.directory);
}

bool test_write_file(const char *path, const void *data, size_t size)
{
    FILE *f = pmf_os_fopen(path, "wb");
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
    FILE *f = pmf_os_fopen(path, "rb");
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

cJSON *test_info_json(const char *pmfview, const char *pmf)
{
    char out[4096];
    if (snprintf(out, sizeof out, "%s.json", pmf) >= (int)sizeof out ||
        test_run(NULL, (const char *[]){ pmfview, "info", "--json", pmf, NULL }, out, NULL) != 0)
        return NULL;
    size_t size;
    char *text = (char *)test_read_file(out, &size);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    free(text);
    return root;
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
    test_make_dir(dir);
}

int test_workdir_compile(const test_workdir *w, const char *name, const char *source, const char *extra)
{
    char path[512], out[512], log[512];
    snprintf(path, sizeof path, "%s/%s.pms", w->dir, name);
    snprintf(out, sizeof out, "%s/%s.pmf", w->dir, name);
    snprintf(log, sizeof log, "%s/%s.log", w->dir, name);
    test_write_text(path, source);
    enum { MAX_EXTRA = 32 };
    const char *argv[6 + MAX_EXTRA + 1] = { w->pmfc, path, "-o", out, "--quiet" };
    int argc = 5;
    char *words = strdup(extra ? extra : "");
    if (!split_words(words, argv, &argc, 5 + MAX_EXTRA)) {
        free(words);
        return -1;
    }
    argv[argc] = NULL;
    int status = test_run(NULL, argv, NULL, log);
    free(words);
    return status;
}

bool test_workdir_shot(const test_workdir *w, const char *env, const char *map, const char *out, const char *extra,
                       test_image *img)
{
    char png[512], pmf[512], txt[512], envs[512];
    snprintf(png, sizeof png, "%s/%s.png", w->dir, out);
    snprintf(pmf, sizeof pmf, "%s/%s.pmf", w->dir, map);
    snprintf(txt, sizeof txt, "%s/%s.txt", w->dir, out);
    snprintf(envs, sizeof envs, "ASAN_OPTIONS=detect_leaks=0 %s", env ? env : "");
    enum { MAX_EXTRA = 48 };
    const char *argv[5 + MAX_EXTRA + 1] = { w->pmfview, "shot", pmf, "-o", png };
    const char *envv[17] = { 0 };
    int argc = 5, envc = 0;
    char *words = strdup(extra ? extra : "");
    bool ok = split_words(words, argv, &argc, 5 + MAX_EXTRA) && split_words(envs, envv, &envc, 16);
    argv[argc] = NULL;
    ok = ok && test_run(envv, argv, txt, NULL) == 0;
    free(words);
    if (!ok) {
        fprintf(stderr, "failed: %s shot %s -o %s %s\n", w->pmfview, pmf, png, extra ? extra : "");
        return false;
    }
    return test_image_load(img, png);
}
