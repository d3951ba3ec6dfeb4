/* test_atomic_file.c - atomic_file (src/base/atomic_file.h): `test_atomic_file [PMFC [PMFVIEW MAP]]`
 *   - committed files get 0666 minus the umask (022 -> 0644, 027 -> 0640), whole content;
 *   - a symlink at the path is replaced, its target untouched; abort and failures leave nothing;
 *   - SIGTERM / SIGINT while a temporary file is open: the process dies of that signal and the
 *     temporary file is gone;
 *   - a process opening and aborting temporary files in a loop, killed 200 times at random moments
 *     (many land as the file is being created, where signals are delivered): nothing left;
 *   - with PMFC: pmfc --generate killed with SIGTERM or SIGINT at 12 moments from 10 ms to 2.5 s:
 *     never a temporary file left, and the output is either absent or a whole valid map;
 *   - with PMFVIEW and MAP: `pmfview shot MAP` of 4096x4096 killed the same way at 8 moments up to
 *     4 s: no temporary PNG left, the output absent or a whole PNG (signature ... IEND). */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "atomic_file.h"
#include "pmf.h"
#include "test_util.h"

static char dir[] = "/tmp/pmf_atomic_XXXXXX";

static int mode_of(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode) ? (int)(st.st_mode & 0777) : -1;
}

/* Names in dir other than keep (NULL: none); returns how many, printing them. */
static int stray_files(const char *keep)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || (keep && !strcmp(e->d_name, keep)))
            continue;
        fprintf(stderr, "  left in %s: %s\n", dir, e->d_name);
        n++;
    }
    if (d)
        closedir(d);
    return n;
}

static bool write_text(const char *path, const char *text, char *why, size_t why_size)
{
    atomic_file af;
    if (!atomic_file_open(&af, path, why, why_size))
        return false;
    fputs(text, af.fp);
    return atomic_file_commit(&af, why, why_size);
}

static void test_modes_and_links(void)
{
    char path[200], target[200], why[300], buf[64] = { 0 };
    snprintf(path, sizeof path, "%s/out.txt", dir);
    snprintf(target, sizeof target, "%s/target", dir);
    mode_t old = umask(022);
    CHECK(write_text(path, "one\n", why, sizeof why), "%s", why);
    CHECK(mode_of(path) == 0644, "umask 022: mode %o", mode_of(path));
    umask(027);
    CHECK(write_text(path, "two\n", why, sizeof why), "%s", why);
    CHECK(mode_of(path) == 0640, "umask 027: mode %o", mode_of(path));
    umask(old);
    FILE *f = fopen(path, "rb");
    CHECK(f && fread(buf, 1, sizeof buf - 1, f) == 4 && !strcmp(buf, "two\n"), "content '%s'", buf);
    if (f)
        fclose(f);

    /* a symlink in the way is replaced, not followed */
    FILE *t = fopen(target, "wb");
    fputs("keep\n", t);
    fclose(t);
    unlink(path);
    CHECK(symlink("target", path) == 0, "symlink");
    CHECK(write_text(path, "three\n", why, sizeof why), "%s", why);
    CHECK(mode_of(path) > 0, "the link is now a regular file");
    t = fopen(target, "rb");
    memset(buf, 0, sizeof buf);
    CHECK(t && fread(buf, 1, sizeof buf - 1, t) == 5 && !strcmp(buf, "keep\n"), "target written: '%s'", buf);
    if (t)
        fclose(t);
    unlink(target);

    /* abort and a directory that does not exist leave nothing */
    atomic_file af;
    CHECK(atomic_file_open(&af, path, why, sizeof why), "%s", why);
    fputs("half", af.fp);
    atomic_file_abort(&af);
    char missing[300];
    snprintf(missing, sizeof missing, "%s/no/such/dir/x", dir);
    CHECK(!atomic_file_open(&af, missing, why, sizeof why) && strstr(why, "cannot create a temporary file next to it: "),
          "missing dir: %s", why);
    CHECK(stray_files("out.txt") == 0, "stray files");
    unlink(path);
}

/* A child opens a temporary file, then gets sig: it must die of sig and leave nothing. */
static void test_signal(int sig)
{
    char path[200], why[300];
    snprintf(path, sizeof path, "%s/killed.bin", dir);
    pid_t pid = fork();
    if (pid == 0) {
        atomic_file_remove_on_signals();
        atomic_file af;
        if (!atomic_file_open(&af, path, why, sizeof why))
            _exit(3);
        fputs("partial", af.fp);
        fflush(af.fp);
        raise(sig);
        _exit(4);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == sig, "signal %d: child status 0x%x", sig, st);
    CHECK(stray_files(NULL) == 0, "signal %d left files", sig);
}

static void test_killed_while_opening(void)
{
    char path[200];
    snprintf(path, sizeof path, "%s/busy.bin", dir);
    srand(7);
    for (int i = 0; i < 200; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            atomic_file_remove_on_signals();
            char why[300];
            for (;;) {
                atomic_file af;
                if (atomic_file_open(&af, path, why, sizeof why))
                    atomic_file_abort(&af);
            }
        }
        struct timespec ts = { 0, 200000L + (long)(rand() % 2000) * 1000L };
        nanosleep(&ts, NULL);
        kill(pid, i % 2 ? SIGINT : SIGTERM);
        int st = 0;
        waitpid(pid, &st, 0);
        CHECK(WIFSIGNALED(st), "kill %d: child status 0x%x", i, st);
    }
    CHECK(stray_files(NULL) == 0, "temporary files left by 200 kills");
}

static void test_killed_pmfc(const char *pmfc)
{
    char out[200];
    snprintf(out, sizeof out, "%s/city.pmf", dir);
    static const int delays_ms[] = { 10, 40, 80, 150, 250, 400, 600, 800, 1100, 1500, 2000, 2500 };
    int killed = 0;
    for (size_t i = 0; i < sizeof delays_ms / sizeof *delays_ms; i++) {
        unlink(out);
        pid_t pid = fork();
        if (pid == 0) {
            int null = open("/dev/null", O_WRONLY);
            dup2(null, 2);
            execl(pmfc, pmfc, "--generate", "city", "--chunks", "5x1x5", "--seed", "3", "--threads", "1", "-o", out,
                  "--quiet", (char *)NULL);
            _exit(127);
        }
        struct timespec ts = { delays_ms[i] / 1000, (long)(delays_ms[i] % 1000) * 1000000L };
        nanosleep(&ts, NULL);
        int sig = i % 2 ? SIGINT : SIGTERM;
        kill(pid, sig);
        int st = 0;
        waitpid(pid, &st, 0);
        killed += WIFSIGNALED(st);
        CHECK((WIFSIGNALED(st) && WTERMSIG(st) == sig) || (WIFEXITED(st) && WEXITSTATUS(st) == 0),
              "pmfc after %d ms: status 0x%x", delays_ms[i], st);
        CHECK(stray_files("city.pmf") == 0, "after %d ms", delays_ms[i]);
        if (access(out, F_OK) == 0) {
            pmf_error err;
            pmf_file *f = pmf_open(out, &err);
            CHECK(f && pmf_validate(f, NULL, &err), "after %d ms: a partial map: %s", delays_ms[i], err.message);
            pmf_close(f);
        }
    }
    fprintf(stderr, "pmfc killed %d of %zu times before it finished\n", killed, sizeof delays_ms / sizeof *delays_ms);
    CHECK(killed > 0, "pmfc always finished before the signal: the test proves nothing");
    unlink(out);
}

/* True when path is a whole PNG: the signature first, the IEND chunk last. */
static bool whole_png(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t head[8], tail[12];
    bool ok = f && fread(head, 1, 8, f) == 8 && !memcmp(head, "\x89PNG\r\n\x1a\n", 8) && fseek(f, -12, SEEK_END) == 0 &&
              fread(tail, 1, 12, f) == 12 && !memcmp(tail + 4, "IEND", 4);
    if (f)
        fclose(f);
    return ok;
}

static void test_killed_shot(const char *pmfview, const char *map)
{
    char out[200];
    snprintf(out, sizeof out, "%s/big.png", dir);
    static const int delays_ms[] = { 200, 500, 900, 1300, 1700, 2100, 2600, 4000 };
    int killed = 0;
    for (size_t i = 0; i < sizeof delays_ms / sizeof *delays_ms; i++) {
        unlink(out);
        pid_t pid = fork();
        if (pid == 0) {
            int null = open("/dev/null", O_WRONLY);
            dup2(null, 2);
            execl(pmfview, pmfview, "shot", map, "-o", out, "--size", "4096x4096", (char *)NULL);
            _exit(127);
        }
        struct timespec ts = { delays_ms[i] / 1000, (long)(delays_ms[i] % 1000) * 1000000L };
        nanosleep(&ts, NULL);
        int sig = i % 2 ? SIGINT : SIGTERM;
        kill(pid, sig);
        int st = 0;
        waitpid(pid, &st, 0);
        killed += WIFSIGNALED(st);
        CHECK((WIFSIGNALED(st) && WTERMSIG(st) == sig) || (WIFEXITED(st) && WEXITSTATUS(st) == 0),
              "shot after %d ms: status 0x%x", delays_ms[i], st);
        CHECK(stray_files("big.png") == 0, "shot after %d ms", delays_ms[i]);
        CHECK(access(out, F_OK) != 0 || whole_png(out), "shot after %d ms: a partial PNG", delays_ms[i]);
    }
    fprintf(stderr, "shot killed %d of %zu times before it finished\n", killed, sizeof delays_ms / sizeof *delays_ms);
    CHECK(killed > 0, "shot always finished before the signal: the test proves nothing");
    unlink(out);
}

int main(int argc, char **argv)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_modes_and_links();
    test_signal(SIGTERM);
    test_signal(SIGINT);
    test_killed_while_opening();
    if (argc > 1)
        test_killed_pmfc(argv[1]);
    if (argc > 3)
        test_killed_shot(argv[2], argv[3]);
    rmdir(dir);
    TEST_DONE();
}
