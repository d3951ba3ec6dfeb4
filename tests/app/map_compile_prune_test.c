/* map_compile_prune_test.c - the viewer's cache directory keeps its relight files bounded
 * (map_compile_prune_relight, map_compile.h): the newest always, the others while used within the
 * age and, newest first, within the size cap; a temporary file of pmfc's an hour old goes; the
 * compiled maps are not its to remove.
 *
 *   map_compile_prune_test WORKDIR */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "map_compile.h"
#include "common/check.h"
#include "common/programs.h"

static const char *dir;

static void sleep_ms(long ms)
{
    nanosleep(&(struct timespec){ ms / 1000, (ms % 1000) * 1000000 }, NULL);
}

/* NAME of size bytes in the directory, written after the files before it (their times differ
 * by more than a file system's clock tick). */
static void put(const char *name, size_t size)
{
    static char bytes[4096];
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    CHECK(test_write_file(path, bytes, size), "%s", path);
    sleep_ms(40);
}

static bool there(const char *name)
{
    char path[1200];
    pmf_os_file_info st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return pmf_os_stat(path, &st) == 0;
}

/* The files of the directory that are there: a '1' or '0' for each of names, in turn. */
static void kept(const char *const *names, int count, char *out)
{
    for (int i = 0; i < count; i++) out[i] = there(names[i]) ? '1' : '0';
    out[count] = 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: map_compile_prune_test WORKDIR\n");
        return 1;
    }
    dir = argv[1];
    test_remove_tree(dir);
    CHECK(test_make_dir(dir));
    const char *const names[] = { "a.map-0000000000000001.relight", "b.map-0000000000000002.relight",
                                  "c.map-0000000000000003.relight", "d.map-0000000000000004.relight",
                                  ".c.map-0000000000000003.relight.Xy12Zq", "0123456789abcdef-0123456789abcdef-a.pmf" };
    int count = (int)(sizeof names / sizeof *names);
    put(names[5], 1000);
    put(names[0], 100);
    put(names[1], 200);
    put(names[2], 300);
    put(names[4], 50);
    put(names[3], 400);
    char got[8];
    int64_t now = (int64_t)time(NULL) * 1000000000 + 1000000000, day = 86400 * (int64_t)1000000000;

    /* within the cap and the age: nothing goes */
    map_compile_bound bound = { .max_bytes = 10000, .max_age_ns = 30 * day, .now_ns = now };
    CHECK_EQ(map_compile_prune_relight(dir, &bound), 0);
    kept(names, count, got);
    CHECK(!strcmp(got, "111111"), "kept %s", got);

    /* 750 bytes: d (400) and c (300) fill them; b would not fit, so b and a (used before) go */
    bound.max_bytes = 750;
    CHECK_EQ(map_compile_prune_relight(dir, &bound), 2);
    kept(names, count, got);
    CHECK(!strcmp(got, "001111"), "kept %s", got);

    /* a month later: c unused for 30 days goes, and so does the temporary file; d, the newest, stays */
    bound.now_ns = now + 31 * day;
    CHECK_EQ(map_compile_prune_relight(dir, &bound), 2);
    kept(names, count, got);
    CHECK(!strcmp(got, "000101"), "kept %s", got);

    /* a directory that is not there: nothing to do */
    CHECK_EQ(map_compile_prune_relight("/nonexistent/pmfview-cache", &bound), 0);
    test_remove_tree(dir);
    TEST_DONE();
}
