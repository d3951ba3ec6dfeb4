/* map_compile_test.c - the window's compile on a thread (map_compile.h): a cancel returns at once
 * while the cancelled compile ends on its own, the next compile then runs whole, the cancelled
 * one's temporary file is gone once it is joined, and a compile's warnings are kept.
 *
 *   map_compile_test WORKDIR BIG_SOURCE SOURCE_WITH_ONE_WARNING */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "map_compile.h"
#include "pmf_system.h"
#include "common/check.h"

static void sleep_ms(long ms)
{
    nanosleep(&(struct timespec){ ms / 1000, (ms % 1000) * 1000000 }, NULL);
}

/* Files of the cache directory whose name holds ".tmp.". */
static int temporary_files(const char *dir)
{
    int n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));)
        n += strstr(e->d_name, ".tmp.") != NULL;
    if (d)
        closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: map_compile_test WORKDIR BIG_SOURCE SOURCE_WITH_ONE_WARNING\n");
        return 1;
    }
    char cache[1200], pmfview_dir[1300];
    snprintf(cache, sizeof cache, "%s/cache", argv[1]);
    snprintf(pmfview_dir, sizeof pmfview_dir, "%s/pmfview", cache);
    mkdir(argv[1], 0700);
    setenv("XDG_CACHE_HOME", cache, 1);
    unsetenv("PMFVIEW_PMFC");

    /* the big compile is well under way (past its first progress report) when it is cancelled */
    map_compile big;
    REQUIRE(map_compile_start(&big, &(map_compile_desc){ .source = argv[2] }) == MAP_COMPILE_RUNNING);
    char progress[64];
    for (int i = 0; i < 2000 && !map_compile_progress(&big, progress, sizeof progress); i++)
        sleep_ms(5);
    CHECK(map_compile_progress(&big, progress, sizeof progress), "no progress from the big compile");
    double t0 = pmf_seconds();
    map_compile_cancel(&big);
    double cancel_s = pmf_seconds() - t0;
    CHECK(cancel_s < 0.05, "the cancel took %.3f s: it waited for the compile", cancel_s);
    CHECK_EQ(big.state, MAP_COMPILE_IDLE);

    /* the next compile waits on its own thread for the cancelled one, then runs whole */
    map_compile small;
    REQUIRE(map_compile_start(&small, &(map_compile_desc){ .source = argv[3] }) == MAP_COMPILE_RUNNING);
    for (int i = 0; i < 60000 && !map_compile_poll(&small); i++)
        sleep_ms(5);
    CHECK_EQ(small.state, MAP_COMPILE_DONE);
    CHECK_EQ(small.warnings.count, 1);
    CHECK_EQ(small.warnings.kept, 1);
    CHECK(!strncmp(small.warnings.lines[0], "warning: 1 texture(s) found in no WAD", 37), "kept: '%s'",
          small.warnings.lines[0]);
    struct stat st;
    CHECK(stat(small.out_path, &st) == 0 && st.st_size > 0, "no cache file %s", small.out_path);

    /* the viewer's --fgd goes to pmfc (a malformed one is pmfc's error, naming it) and into the key */
    char fgd_path[1300];
    snprintf(fgd_path, sizeof fgd_path, "%s/bad.fgd", argv[1]);
    FILE *fgd = fopen(fgd_path, "w");
    REQUIRE(fgd && fputs("@PointClass [\n", fgd) >= 0 && fclose(fgd) == 0);
    const char *fgds[] = { fgd_path };
    map_compile defined;
    REQUIRE(map_compile_start(&defined, &(map_compile_desc){ .source = argv[3], .fgds = fgds, .fgd_count = 1 })
            == MAP_COMPILE_RUNNING);
    for (int i = 0; i < 60000 && !map_compile_poll(&defined); i++)
        sleep_ms(5);
    CHECK_EQ(defined.state, MAP_COMPILE_FAILED);
    CHECK_EQ(defined.exit_code, 2);
    CHECK(strstr(defined.message, "bad.fgd:1:13: @PointClass without") != NULL, "message: %s", defined.message);
    CHECK(strcmp(defined.out_path, small.out_path) != 0, "the FGD is not in the key: %s", defined.out_path);

    map_compile_shutdown();
    CHECK_EQ(temporary_files(pmfview_dir), 0);

    /* a warning line is counted past what is kept, cleaned, its "pmfc: " dropped */
    map_compile_warnings w = { 0 };
    for (int i = 0; i < MAP_COMPILE_WARNINGS_KEPT + 5; i++)
        map_compile_warnings_add(&w, "pmfc: warning: \x1b[31mred", 23);
    CHECK_EQ(w.count, MAP_COMPILE_WARNINGS_KEPT + 5);
    CHECK_EQ(w.kept, MAP_COMPILE_WARNINGS_KEPT);
    CHECK(!strcmp(w.lines[0], "warning: \\x1b[31mred"), "cleaned: '%s'", w.lines[0]);
    TEST_DONE();
}
