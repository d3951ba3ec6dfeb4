/* compare_windows.c - the Windows build (build-win/, scripts/windows.sh) run under wine against
 * the Linux build, from the Linux side (scripts/test.sh's Windows leg; skipped, exit 77, unless
 * PMFVIEW_WINDOWS_BUILD names the Windows build directory):
 *   maps     pmfc.exe's map of every .rmf, .map and .bsp in ../shared/data reads the same in
 *            `pmfview info --json` as the Linux pmfc's, apart from times and paths; a source the
 *            Linux pmfc refuses, pmfc.exe refuses with the same exit status;
 *   shot     pmfview.exe's shot of the demo maps and a compiled shared map: >= 99.5% of pixels
 *            within 8 of the Linux shot at the same camera (WGL on a hidden window; needs X);
 *   hostile  damaged files: the same one-line error (the path aside) and exit 2 from pmfview.exe
 *            info and pmfc.exe as from the Linux programs;
 *   unicode  a map at "Zoë/карты/my map.rmf" compiles with pmfc.exe and opens in pmfview.exe
 *            (info through its compile cache, and shot).
 * Usage: compare_windows CASE LINUX_PMFC LINUX_PMFVIEW WINE SHARED_DATA ASSET_DIR WORKDIR */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/pmf_os.h"
#include "common/check.h"
#include "common/programs.h"

static const char *linux_pmfc, *linux_pmfview, *wine, *shared, *assets, *work;
static char win_pmfc[1024], win_pmfview[1024];

/* argv run under wine: { wine, exe, args... } */
static int run_wine(const char *exe, const char *const args[], const char *out, const char *err)
{
    const char *argv[32] = { wine, exe };
    int n = 2;
    for (int i = 0; args[i] && n < 31; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    return test_run((const char *[]){ "WINEDEBUG=-all", NULL }, argv, out, err);
}

static int run_linux(const char *program, const char *const args[], const char *out, const char *err)
{
    const char *argv[32] = { program };
    int n = 1;
    for (int i = 0; args[i] && n < 31; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    return test_run((const char *[]){ "ASAN_OPTIONS+=detect_leaks=0", NULL }, argv, out, err);
}

/* Drops what differs by design between two compiles of one source: times and paths. */
static void drop_times_and_paths(cJSON *node)
{
    static const char *const names[] = { "file", "path", "created", "created_unix", "source" };
    for (size_t i = 0; cJSON_IsObject(node) && i < sizeof names / sizeof names[0]; i++)
        cJSON_DeleteItemFromObjectCaseSensitive(node, names[i]);
    for (cJSON *child = node ? node->child : NULL; child; child = child->next)
        drop_times_and_paths(child);
}

/* `pmfview info --json MAP` (the Linux pmfview reads both maps) without times and paths. */
static char *info_text(const char *map, const char *json_path)
{
    if (run_linux(linux_pmfview, (const char *[]){ "info", "--json", map, NULL }, json_path, NULL) != 0)
        return NULL;
    size_t size;
    char *text = (char *)test_read_file(json_path, &size);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    free(text);
    if (!root)
        return NULL;
    drop_times_and_paths(root);
    char *out = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return out;
}

static bool has_ending(const char *name, const char *ending)
{
    size_t n = strlen(name), e = strlen(ending);
    return n > e && !strcmp(name + n - e, ending);
}

static void compare_map(const char *dir, const char *name)
{
    char src[1400], lin[1400], win[1400], log[1400], json[1400];
    snprintf(src, sizeof src, "%s/%s", dir, name);
    snprintf(lin, sizeof lin, "%s/%s.linux.pmf", work, name);
    snprintf(win, sizeof win, "%s/%s.windows.pmf", work, name);
    snprintf(log, sizeof log, "%s/%s.log", work, name);
    const char *args_lin[] = { src, "-o", lin, "--quiet", NULL }, *args_win[] = { src, "-o", win, "--quiet", NULL };
    int st_lin = run_linux(linux_pmfc, args_lin, NULL, log);
    int st_win = run_wine(win_pmfc, args_win, NULL, log);
    CHECK(st_lin == st_win, "%s: pmfc exit %d, pmfc.exe exit %d", name, st_lin, st_win);
    if (st_lin != 0 || st_win != 0)
        return;
    snprintf(json, sizeof json, "%s/%s.linux.json", work, name);
    char *a = info_text(lin, json);
    snprintf(json, sizeof json, "%s/%s.windows.json", work, name);
    char *b = info_text(win, json);
    CHECK(a && b && !strcmp(a, b), "%s: info --json differs (%s.linux.json, %s.windows.json in %s)", name, name, name, work);
    printf("%s: %s\n", name, a && b && !strcmp(a, b) ? "same info" : "DIFFERENT");
    free(a);
    free(b);
}

static void case_maps(void)
{
    static const char *const dirs[] = { "rmf", "map", "goldsrc" };
    int maps = 0;
    for (size_t d = 0; d < 3; d++) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/%s", shared, dirs[d]);
        pmf_os_dir *listing = pmf_os_dir_open(dir);
        CHECK(listing != NULL, "%s: %s", dir, strerror(errno));
        for (const char *name; listing && (name = pmf_os_dir_next(listing));)
            if (has_ending(name, ".rmf") || has_ending(name, ".map") || has_ending(name, ".bsp")) {
                char copy[256];
                snprintf(copy, sizeof copy, "%s", name); /* the listing's buffer is reused */
                compare_map(dir, copy);
                maps++;
            }
        pmf_os_dir_close(listing);
    }
    CHECK(maps >= 30, "%d maps compared", maps);
}

/* Shots of map from the same camera by both builds; >= 99.5% of pixels within 8. */
static void compare_shot(const char *map, const char *label, const char *camera)
{
    char lin[1024], win[1024], log[1024];
    snprintf(lin, sizeof lin, "%s/%s.linux.png", work, label);
    snprintf(win, sizeof win, "%s/%s.windows.png", work, label);
    snprintf(log, sizeof log, "%s/%s.shot.log", work, label);
    const char *args_lin[] = { "shot", map, "-o", lin, "--size", "480x270", camera ? "--camera" : NULL, camera, NULL };
    const char *args_win[] = { "shot", map, "-o", win, "--size", "480x270", camera ? "--camera" : NULL, camera, NULL };
    CHECK_EQ(run_linux(linux_pmfview, args_lin, NULL, log), 0);
    CHECK_EQ(run_wine(win_pmfview, args_win, NULL, log), 0);
    test_image a, b;
    if (!test_image_load(&a, lin) || !test_image_load(&b, win)) {
        check_failures++;
        return;
    }
    CHECK(a.w == b.w && a.h == b.h);
    long total = (long)a.w * a.h, close_enough = 0;
    int worst = 0;
    for (long i = 0; a.w == b.w && a.h == b.h && i < total; i++) {
        int d = 0;
        for (int c = 0; c < 3; c++) {
            int diff = abs(a.rgb[i * 3 + c] - b.rgb[i * 3 + c]);
            d = diff > d ? diff : d;
        }
        close_enough += d <= 8;
        worst = d > worst ? d : worst;
    }
    printf("%s: %ld of %ld pixels within 8 (%.3f%%), largest difference %d\n", label, close_enough, total,
           100.0 * (double)close_enough / (double)total, worst);
    CHECK(close_enough * 1000 >= total * 995, "%s: %ld of %ld pixels within 8", label, close_enough, total);
    test_image_free(&a);
    test_image_free(&b);
}

static void case_shot(void)
{
    static const char *const demos[] = { "feature_demo", "lighting_demo", "materials_demo" };
    for (size_t i = 0; i < 3; i++) {
        char map[1024];
        snprintf(map, sizeof map, "%s/%s.pmf", assets, demos[i]);
        compare_shot(map, demos[i], NULL);
    }
    /* a shared RMF compiled by pmfc.exe, drawn by each build from its start camera */
    char src[1024], pmf[1024], log[1024];
    snprintf(src, sizeof src, "%s/rmf/22.rmf", shared);
    snprintf(pmf, sizeof pmf, "%s/22.windows.pmf", work);
    snprintf(log, sizeof log, "%s/22.log", work);
    CHECK_EQ(run_wine(win_pmfc, (const char *[]){ src, "-o", pmf, "--quiet", NULL }, NULL, log), 0);
    compare_shot(pmf, "rmf_22", NULL);
}

/* The error line without "PATH: " (the Windows build may spell the path its own way) and "\r". */
static void error_line(const char *file, const char *path, char *out, size_t size)
{
    size_t n;
    char *text = (char *)test_read_file(file, &n);
    out[0] = '\0';
    if (!text)
        return;
    char *cut = strstr(text, path);
    const char *from = cut ? cut + strlen(path) : text;
    snprintf(out, size, "%s", from);
    for (char *p = out; *p; p++)
        if (*p == '\r')
            memmove(p, p + 1, strlen(p));
    free(text);
}

static void case_hostile(void)
{
    /* damaged files made from a good map: cut short, a block's bytes flipped, not a map at all */
    char good[1024];
    snprintf(good, sizeof good, "%s/feature_demo.pmf", assets);
    size_t size;
    uint8_t *bytes = test_read_file(good, &size);
    CHECK(bytes && size > 4096);
    if (!bytes || size <= 4096)
        return;
    struct { const char *name; size_t cut; size_t flip_at; } damaged[] = {
        { "cut_header.pmf", 20, 0 }, { "cut_middle.pmf", 3000, 0 }, { "flipped.pmf", 0, 1 }, { "png_named.pmf", 0, 0 },
        { "garbage.rmf", 0, 0 }, { "cut.rmf", 0, 0 },
    };
    static const uint8_t png[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R' };
    char rmf[1024];
    snprintf(rmf, sizeof rmf, "%s/rmf/22.rmf", shared);
    size_t rmf_size;
    uint8_t *rmf_bytes = test_read_file(rmf, &rmf_size);
    CHECK(rmf_bytes && rmf_size > 200);
    if (!rmf_bytes || rmf_size <= 200)
        return;
    for (size_t i = 0; i < sizeof damaged / sizeof damaged[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", work, damaged[i].name);
        if (!strcmp(damaged[i].name, "png_named.pmf"))
            test_write_file(path, png, sizeof png);
        else if (!strcmp(damaged[i].name, "garbage.rmf"))
            test_write_file(path, "RMF garbage\x01\x02\x03", 14);
        else if (!strcmp(damaged[i].name, "cut.rmf"))
            test_write_file(path, rmf_bytes, rmf_size / 2);
        else if (damaged[i].cut)
            test_write_file(path, bytes, damaged[i].cut);
        else {
            uint8_t *copy = malloc(size);
            memcpy(copy, bytes, size);
            for (size_t k = size / 2; k < size / 2 + 64; k++) /* inside the chunks' compressed data */
                copy[k] ^= 0x5a;
            test_write_file(path, copy, size);
            free(copy);
        }
        bool is_rmf = has_ending(path, ".rmf");
        char out_lin[1100], out_win[1100], err_lin[1100], err_win[1100], line_lin[2048], line_win[2048], pmf[1100];
        snprintf(err_lin, sizeof err_lin, "%s.linux.err", path);
        snprintf(err_win, sizeof err_win, "%s.windows.err", path);
        snprintf(out_lin, sizeof out_lin, "%s.linux.out", path);
        snprintf(out_win, sizeof out_win, "%s.windows.out", path);
        snprintf(pmf, sizeof pmf, "%s.pmf", path);
        int st_lin, st_win;
        if (is_rmf) {
            st_lin = run_linux(linux_pmfc, (const char *[]){ path, "-o", pmf, "--quiet", NULL }, out_lin, err_lin);
            st_win = run_wine(win_pmfc, (const char *[]){ path, "-o", pmf, "--quiet", NULL }, out_win, err_win);
        } else {
            st_lin = run_linux(linux_pmfview, (const char *[]){ "info", path, NULL }, out_lin, err_lin);
            st_win = run_wine(win_pmfview, (const char *[]){ "info", path, NULL }, out_win, err_win);
        }
        error_line(err_lin, path, line_lin, sizeof line_lin);
        error_line(err_win, path, line_win, sizeof line_win);
        CHECK(st_lin == 2 && st_win == 2, "%s: exit %d (Linux), %d (Windows)", damaged[i].name, st_lin, st_win);
        CHECK(!strcmp(line_lin, line_win) && strchr(line_lin, '\n') == line_lin + strlen(line_lin) - 1,
              "%s: Linux said '%s', Windows '%s'", damaged[i].name, line_lin, line_win);
        printf("%s: exit %d, %s", damaged[i].name, st_win, line_win);
    }
    free(bytes);
    free(rmf_bytes);
}

static void case_unicode(void)
{
    char dir[1024], maps[1100], rmf[1200], pmf[1200], src[1024], log[1024], cache[1024], png[1200], out[1024];
    snprintf(dir, sizeof dir, "%s/Zo\xc3\xab", work);
    snprintf(maps, sizeof maps, "%s/\xd0\xba\xd0\xb0\xd1\x80\xd1\x82\xd1\x8b", dir);
    snprintf(rmf, sizeof rmf, "%s/my map.rmf", maps);
    snprintf(pmf, sizeof pmf, "%s/my map.pmf", maps);
    snprintf(png, sizeof png, "%s/my map.png", maps);
    snprintf(src, sizeof src, "%s/rmf/22.rmf", shared);
    snprintf(log, sizeof log, "%s/unicode.log", work);
    snprintf(out, sizeof out, "%s/unicode.out", work);
    snprintf(cache, sizeof cache, "%s/cache", work);
    size_t size;
    uint8_t *bytes = test_read_file(src, &size);
    CHECK(test_make_dir(dir) && test_make_dir(maps) && bytes && test_write_file(rmf, bytes, size));
    free(bytes);
    CHECK_EQ(run_wine(win_pmfc, (const char *[]){ rmf, "-o", pmf, "--quiet", NULL }, NULL, log), 0);
    pmf_os_file_info st;
    CHECK(pmf_os_stat(pmf, &st) == 0 && st.size > 1000, "pmfc.exe wrote no %s", pmf);
    CHECK_EQ(run_wine(win_pmfview, (const char *[]){ "info", pmf, NULL }, out, log), 0);
    /* the RMF itself: compiled through pmfview.exe's cache (pmfc.exe beside it), then drawn */
    const char *const cache_env[] = { "WINEDEBUG=-all", NULL };
    char xdg[1100];
    snprintf(xdg, sizeof xdg, "XDG_CACHE_HOME=%s", cache);
    const char *env[] = { cache_env[0], xdg, NULL };
    CHECK_EQ(test_run(env, (const char *[]){ wine, win_pmfview, "info", rmf, NULL }, out, log), 0);
    CHECK_EQ(test_run(env, (const char *[]){ wine, win_pmfview, "shot", rmf, "-o", png, "--size", "320x180", NULL }, out, log), 0);
    test_image img;
    CHECK(test_image_load(&img, png) && img.w == 320 && img.h == 180);
    test_image_free(&img);
    printf("unicode: %s compiled and opened\n", rmf);
}

int main(int argc, char **argv)
{
    const char *build = getenv("PMFVIEW_WINDOWS_BUILD");
    if (!build || !*build) {
        printf("skipped: PMFVIEW_WINDOWS_BUILD is not set (scripts/test.sh sets it for its Windows leg)\n");
        return 77;
    }
    if (argc != 8) {
        fprintf(stderr, "usage: compare_windows CASE LINUX_PMFC LINUX_PMFVIEW WINE SHARED_DATA ASSET_DIR WORKDIR\n");
        return 2;
    }
    linux_pmfc = argv[2];
    linux_pmfview = argv[3];
    wine = argv[4];
    shared = argv[5];
    assets = argv[6];
    work = argv[7];
    snprintf(win_pmfc, sizeof win_pmfc, "%s/pmfc.exe", build);
    snprintf(win_pmfview, sizeof win_pmfview, "%s/pmfview.exe", build);
    pmf_os_file_info st;
    if (pmf_os_stat(win_pmfc, &st) != 0 || pmf_os_stat(win_pmfview, &st) != 0) {
        fprintf(stderr, "no Windows build in %s: run sh scripts/windows.sh\n", build);
        return 1;
    }
    test_remove_tree(work);
    REQUIRE(test_make_dir(work));
    if (!strcmp(argv[1], "maps"))
        case_maps();
    else if (!strcmp(argv[1], "shot"))
        case_shot();
    else if (!strcmp(argv[1], "hostile"))
        case_hostile();
    else if (!strcmp(argv[1], "unicode"))
        case_unicode();
    else {
        fprintf(stderr, "unknown case %s\n", argv[1]);
        return 2;
    }
    return check_report(argv[1]);
}
