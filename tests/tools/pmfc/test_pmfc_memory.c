/* test_pmfc_memory.c - pmfc's memory budget (docs/memory.md): a generated city that needs more
 * than `--memory 64` is refused with exit 2 and one clean line naming the limit and what was
 * being built, and leaves nothing in the output directory; the same city compiles at the default
 * budget and reads back; a smaller city compiles under `--memory 64` in less than 64 MiB of peak
 * RSS plus the program's fixed part; a bad --memory is a usage error.
 * Usage: test_pmfc_memory PMFC WORKDIR */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmf/pmf.h"
#include "common/check.h"

static const char *pmfc, *workdir;


/* Besides the budget: the program, its libraries, thread stacks and small allocations. */
#define FIXED_OVERHEAD_MIB 64

typedef struct run_result {
    int exit_code;            /* -1 when killed by a signal */
    long peak_rss_kib;
    char err[4096];           /* what it wrote on stderr */
} run_result;

/* Runs pmfc with args (NULL-terminated), stderr to a file; peak RSS from wait4. */
static run_result run_pmfc(const char *const *args)
{
    run_result r = { -1, 0, "" };
    char log[512];
    snprintf(log, sizeof log, "%s/stderr.txt", workdir);
    const char *argv[32];
    int n = 0;
    argv[n++] = pmfc;
    for (int i = 0; args[i] && n < 31; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, 2) < 0)
            _exit(126);
        execv(pmfc, (char *const *)argv);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid)
        return r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.peak_rss_kib = ru.ru_maxrss;
    FILE *f = fopen(log, "rb");
    if (f) {
        size_t got = fread(r.err, 1, sizeof r.err - 1, f);
        r.err[got] = 0;
        fclose(f);
    }
    unlink(log);
    return r;
}

/* Peak RSS within the budget plus the fixed part (AddressSanitizer's shadow and quarantine
 * are not the program's: not checked there). */
static void check_peak(const run_result *r, const char *what)
{
#if !defined(__SANITIZE_ADDRESS__)
    CHECK(r->peak_rss_kib < (64 + FIXED_OVERHEAD_MIB) * 1024, "%s: peak RSS %ld KiB", what, r->peak_rss_kib);
#endif
    printf("%s: peak RSS %ld KiB\n", what, r->peak_rss_kib);
}

static int count_lines(const char *text)
{
    int lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    return lines;
}

static bool has_control_bytes(const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        if ((*p < 0x20 && *p != '\n') || *p == 0x7f)
            return true;
    return false;
}

/* Entries in dir other than . and .. */
static int entries_in(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

static void make_dir(const char *path)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        perror(path);
        exit(1);
    }
}

static void remove_dir(const char *dir, const char *file)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    unlink(path);
    rmdir(dir);
}

/* A 16x1x16 city built as one window (--tile 16): well over 64 MiB of the front end's arrays. */
static void test_refused_then_compiled(void)
{
    char dir[512], out[600];
    snprintf(dir, sizeof dir, "%s/refused", workdir);
    make_dir(dir);
    snprintf(out, sizeof out, "%s/city.pmf", dir);
    const char *tight[] = { "--generate", "city", "--chunks", "16x1x16", "--seed", "1", "--tile", "16", "--threads", "2",
                            "--time", "0", "--quiet", "--memory", "64", "-o", out, NULL };
    run_result r = run_pmfc(tight);
    CHECK(r.exit_code == 2, "exit %d: %s", r.exit_code, r.err);
    CHECK(count_lines(r.err) == 1, "%d lines: %s", count_lines(r.err), r.err);
    const char *expected = "pmfc: city: over the memory budget of 64 MiB while ";
    CHECK(!strncmp(r.err, expected, strlen(expected)), "%s", r.err);
    CHECK(strstr(r.err, " MiB in use") && strstr(r.err, " (see --memory)\n"), "%s", r.err);
    CHECK(!has_control_bytes(r.err), "control bytes in: %s", r.err);
    CHECK(entries_in(dir) == 0, "%d files left in %s", entries_in(dir), dir);
    check_peak(&r, "16x1x16 city refused under --memory 64");

    const char *roomy[] = { "--generate", "city", "--chunks", "16x1x16", "--seed", "1", "--tile", "16", "--threads", "2",
                            "--time", "0", "--quiet", "-o", out, NULL };
    r = run_pmfc(roomy);
    CHECK(r.exit_code == 0, "exit %d at the default budget: %s", r.exit_code, r.err);
    CHECK(r.err[0] == 0, "quiet, yet: %s", r.err);
    pmf_error err;
    pmf_file *f = pmf_open(out, &err);
    pmf_level_stats stats = { 0 };
    CHECK(f && pmf_validate(f, &stats, &err), "%s", err.message);
    CHECK(stats.present_chunks == 256, "%llu chunks", (unsigned long long)stats.present_chunks);
    pmf_close(f);
    CHECK(entries_in(dir) == 1, "%d files in %s", entries_in(dir), dir);
    remove_dir(dir, "city.pmf");
}

/* Built a tile at a time, a 4x1x4 city fits in 64 MiB: the budget bounds the peak. */
static void test_peak_under_budget(void)
{
    char dir[512], out[600];
    snprintf(dir, sizeof dir, "%s/bounded", workdir);
    make_dir(dir);
    snprintf(out, sizeof out, "%s/city.pmf", dir);
    const char *args[] = { "--generate", "city", "--chunks", "4x1x4", "--seed", "1", "--time", "0", "--quiet",
                           "--memory", "64", "-o", out, NULL };
    run_result r = run_pmfc(args);
    CHECK(r.exit_code == 0, "exit %d: %s", r.exit_code, r.err);
    check_peak(&r, "4x1x4 city under --memory 64");
    remove_dir(dir, "city.pmf");
}

static void test_bad_values(void)
{
    const char *values[] = { "63", "0", "-64", "64x", "", "99999999999999999999" };
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        const char *args[] = { "--generate", "city", "--chunks", "1x1x1", "--seed", "1", "--memory", values[i], "-o",
                               "/nonexistent/never.pmf", NULL };
        run_result r = run_pmfc(args);
        char expected[160];
        snprintf(expected, sizeof expected, "pmfc: --memory wants MiB in 64..1048576, got '%s' (see 'pmfc --help')\n",
                 values[i]);
        CHECK(r.exit_code == 1 && !strcmp(r.err, expected), "--memory '%s': exit %d: %s", values[i], r.exit_code, r.err);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_pmfc_memory PMFC WORKDIR\n");
        return 2;
    }
    pmfc = argv[1];
    workdir = argv[2];
    make_dir(workdir);
    test_bad_values();
    test_refused_then_compiled();
    test_peak_under_budget();
    if (check_failures)
        fprintf(stderr, "%d check(s) failed\n", check_failures);
    return check_failures ? 1 : 0;
}
