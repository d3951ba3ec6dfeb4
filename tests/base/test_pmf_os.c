/* test_pmf_os.c - the portability layer (src/base/pmf_os.h), the same checks on Linux and on
 * Windows (under wine in scripts/test.sh):
 *   - UTF-8 paths with spaces ("Zoë/карты/my map.bin"): created, listed, read, stat'ed, removed;
 *   - binary files: "\n" stays one byte, "\r\n" two;
 *   - replacing a file twice (rename() over an existing file fails on Windows);
 *   - what compile-on-save does while the viewer holds the compiled map open: the new compile goes
 *     to a new name and the old one is deleted under the viewer, which still reads it whole;
 *   - saving over a file the viewer holds open (an editor's save, pmfc's output): replaced, the
 *     new bytes read on reopen, the holder still reading the old ones whole, nothing left behind
 *     once it closes (Linux: rename; Windows 10 1809+: a POSIX-semantics rename; older Windows
 *     and wine 8, which refuse both: the held file renamed aside first);
 *   - scratch files leave nothing in their directory;
 *   - what may not be replaced: a folder (EISDIR, as rename(2) says), untouched, and pmfc writing
 *     its map over one says so; a read-only file, which rename(2) replaces and Windows keeps
 *     (EACCES, docs/windows.md); nothing left beside them;
 *   - a child started with arguments holding spaces, quotes and backslashes gets them unchanged,
 *     its stdout and stderr in files, and its exit status back;
 *   - positioned reads, thread CPU time, random bytes, the program's own path.
 * Usage: test_pmf_os WORKDIR PMFC   (test_pmf_os --child OUT ARGS... is the child) */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "common/check.h"
#include "common/programs.h"
#include "pmf_os.h"

static char work[1024];

static void path_in(char *out, size_t size, const char *rel)
{
    snprintf(out, size, "%s/%s", work, rel);
}

static void test_utf8_paths(void)
{
    char zoe[1200], maps[1200], file[1300];
    path_in(zoe, sizeof zoe, "Zo\xc3\xab");
    path_in(maps, sizeof maps, "Zo\xc3\xab/\xd0\xba\xd0\xb0\xd1\x80\xd1\x82\xd1\x8b");
    path_in(file, sizeof file, "Zo\xc3\xab/\xd0\xba\xd0\xb0\xd1\x80\xd1\x82\xd1\x8b/my map.bin");
    CHECK(test_make_dir(zoe) && test_make_dir(maps), "mkdir %s: %s", maps, strerror(errno));
    FILE *f = pmf_os_fopen(file, "w");
    CHECK(f != NULL, "fopen %s: %s", file, strerror(errno));
    if (!f)
        return;
    fputs("a\nb\r\n", f);
    fclose(f);
    pmf_os_file_info st;
    CHECK(pmf_os_stat(file, &st) == 0 && st.regular && !st.directory);
    CHECK_EQ(st.size, 5); /* binary: no "\r" added before "\n" */
    CHECK(st.mtime_ns > 1600000000ll * 1000000000ll, "mtime %lld", (long long)st.mtime_ns);
    bool listed = false;
    pmf_os_dir *d = pmf_os_dir_open(maps);
    CHECK(d != NULL);
    for (const char *name; d && (name = pmf_os_dir_next(d));)
        listed |= !strcmp(name, "my map.bin");
    pmf_os_dir_close(d);
    CHECK(listed, "my map.bin not listed in %s", maps);
    char real[2048];
    CHECK(pmf_os_real_path(file, real, sizeof real) && strstr(real, "my map.bin"), "real path '%s'", real);
    CHECK(!strcmp(pmf_os_base_name(file), "my map.bin"));
    CHECK(pmf_os_remove(file) == 0 && pmf_os_stat(file, &st) != 0 && errno == ENOENT);
}

/* False with the reason in why. */
static bool write_atomic_why(const char *path, const char *text, char *why, size_t why_size)
{
    atomic_file af;
    if (!atomic_file_open(&af, path, why, why_size))
        return false;
    fputs(text, af.fp);
    return atomic_file_commit(&af, why, why_size);
}

static bool write_atomic(const char *path, const char *text)
{
    char why[256];
    bool ok = write_atomic_why(path, text, why, sizeof why);
    if (!ok)
        fprintf(stderr, "atomic write %s: %s\n", path, why);
    return ok;
}

static int count_entries(const char *dir)
{
    int n = 0;
    pmf_os_dir *d = pmf_os_dir_open(dir);
    for (; d && pmf_os_dir_next(d); n++) {}
    pmf_os_dir_close(d);
    return n;
}

static void test_save_over_open_file(void)
{
    char dir[1200], map[1300];
    path_in(dir, sizeof dir, "held");
    path_in(map, sizeof map, "held/map.pmf");
    CHECK(test_make_dir(dir));
    CHECK(write_atomic(map, "first\n") && write_atomic(map, "old map\n"), "replacing a file");
    pmf_os_file_info st;
    int held = pmf_os_open_regular(map, &st); /* the viewer holds the compiled map open */
    CHECK(held >= 0 && st.size == 8, "open %s: %s", map, strerror(errno));
    /* compile-on-save: a new cache file, and the old one removed while held */
    char next[1300];
    path_in(next, sizeof next, "held/map-2.pmf");
    CHECK(write_atomic(next, "the new map\n"));
    CHECK(pmf_os_remove(map) == 0, "removing a file held open: %s", strerror(errno));
    char buf[32] = "";
    CHECK_EQ(pmf_os_pread(held, buf, sizeof buf - 1, 0), 8); /* the old file, still whole */
    CHECK(!memcmp(buf, "old map\n", 8), "held descriptor reads '%s'", buf);
    close(held);
    CHECK_EQ(count_entries(dir), 1);
    /* saving over the held file itself */
    held = pmf_os_open_regular(next, &st);
    CHECK(write_atomic(next, "newest map\n"), "replacing a file held open");
    size_t size;
    uint8_t *now = test_read_file(next, &size);
    CHECK(now && size == 11 && !memcmp(now, "newest map\n", 11), "reopened after the save: '%.*s'", now ? (int)size : 0,
          now ? (const char *)now : "");
    free(now);
    CHECK_EQ(pmf_os_pread(held, buf, sizeof buf - 1, 0), 12);
    CHECK(!memcmp(buf, "the new map\n", 12), "held descriptor reads '%s'", buf);
    close(held);
    CHECK_EQ(count_entries(dir), 1); /* no temporary or set-aside file left */

    /* scratch files: gone as soon as they are closed */
    char why[256];
    int scratch = atomic_file_scratch(map, why, sizeof why);
    CHECK(scratch >= 0, "scratch: %s", why);
    CHECK(scratch < 0 || write(scratch, "spool", 5) == 5);
    CHECK(scratch < 0 || (pmf_os_pread(scratch, buf, 5, 0) == 5 && !memcmp(buf, "spool", 5)));
    if (scratch >= 0)
        close(scratch);
    CHECK_EQ(count_entries(dir), 1);
}

static bool holds_text(const char *path, const char *text)
{
    size_t size;
    uint8_t *now = test_read_file(path, &size);
    bool same = now && size == strlen(text) && !memcmp(now, text, size);
    free(now);
    return same;
}

static void test_replace_refused(const char *pmfc)
{
    char dir[1200], folder[1300], kept[1400], readonly[1300], source[1300], log[1300], why[512] = "";
    path_in(dir, sizeof dir, "refused");
    path_in(folder, sizeof folder, "refused/maps");
    path_in(kept, sizeof kept, "refused/maps/keep.txt");
    CHECK(test_make_dir(dir) && test_make_dir(folder));
    test_write_text(kept, "keep\n");
    CHECK(!write_atomic_why(folder, "a map\n", why, sizeof why), "a file written over a folder");
    CHECK(!strcmp(why, "cannot write: Is a directory"), "over a folder: '%s'", why);
    pmf_os_file_info st;
    CHECK(pmf_os_stat(folder, &st) == 0 && st.directory && holds_text(kept, "keep\n"), "the folder was not kept");
    CHECK_EQ(count_entries(dir), 1);

    /* pmfc's map over a folder */
    path_in(source, sizeof source, "refused.pms");
    path_in(log, sizeof log, "refused.log");
    test_write_text(source, "map \"Room\"\nmaterial floor color 200 200 200\n"
                            "level main {\n  chunk_size 4\n  box -2 -1 -2 2 0 2 material floor\n}\n");
    const char *argv[] = { pmfc, source, "-o", folder, "--quiet", NULL };
    int status = test_run(NULL, argv, NULL, log);
    size_t size;
    char *said = (char *)test_read_file(log, &size);
    CHECK(status != 0 && said && strstr(said, ": cannot write: Is a directory\n"), "pmfc -o FOLDER: status %d, '%s'", status,
          said ? said : "");
    free(said);
    CHECK(pmf_os_stat(folder, &st) == 0 && st.directory && holds_text(kept, "keep\n"), "pmfc moved the folder");
    CHECK_EQ(count_entries(dir), 1);

    path_in(readonly, sizeof readonly, "refused/read-only.txt");
    CHECK(write_atomic(readonly, "old\n") && chmod(readonly, S_IRUSR) == 0);
    bool replaced = write_atomic_why(readonly, "new\n", why, sizeof why);
#ifdef _WIN32
    CHECK(!replaced && !strcmp(why, "cannot write: Permission denied"), "over a read-only file: '%s'", why);
    CHECK(holds_text(readonly, "old\n"), "the read-only file was not kept");
#else
    CHECK(replaced && holds_text(readonly, "new\n"), "rename(2) over a read-only file: '%s'", why);
#endif
    CHECK_EQ(count_entries(dir), 2);
    chmod(readonly, S_IRUSR | S_IWUSR);
}

static void test_child(const char *self)
{
    char out[1200], err[1200];
    path_in(out, sizeof out, "child.out");
    path_in(err, sizeof err, "child.err");
    const char *tricky[] = { "plain", "with space", "quote\"inside", "trailing\\", "back\\\\slash \"q\"", "", "Zo\xc3\xab \xd0\xba", NULL };
    const char *argv[16] = { self, "--child", out };
    int argc = 3;
    for (int i = 0; tricky[i]; i++)
        argv[argc++] = tricky[i];
    argv[argc] = NULL;
    char child_out[1300];
    path_in(child_out, sizeof child_out, "child.stdout");
    CHECK_EQ(test_run((const char *[]){ "PMF_OS_TEST=v a l", NULL }, argv, child_out, err), 7);
    size_t size;
    char *got = (char *)test_read_file(out, &size);
    char want[512] = "";
    for (int i = 0; tricky[i]; i++)
        snprintf(want + strlen(want), sizeof want - strlen(want), "[%s]", tricky[i]);
    strcat(want, "[v a l]");
    CHECK(got && !strcmp(got, want), "child got %s, want %s", got ? got : "(nothing)", want);
    free(got);
    char *said = (char *)test_read_file(child_out, &size);
    CHECK(said && !strcmp(said, "to stdout\n"), "stdout '%s'", said ? said : ""); /* no "\r" added */
    free(said);
    said = (char *)test_read_file(err, &size);
    CHECK(said && !strcmp(said, "to stderr\n"), "stderr '%s'", said ? said : "");
    free(said);
    CHECK(pmf_os_getenv("PMF_OS_TEST") == NULL); /* set for the child only */
}

/* pmfc compiling over the map the viewer holds open (a compile profile run while the window shows
 * its output): it succeeds, a reopen reads the new map, the holder the old one whole. */
static void test_pmfc_over_open_map(const char *pmfc)
{
    char dir[1200], map[1300];
    path_in(dir, sizeof dir, "held_pmfc");
    path_in(map, sizeof map, "held_pmfc/room.pmf");
    test_workdir wd;
    test_workdir_open(&wd, pmfc, NULL, dir);
    const char *source = "map \"Room\"\nmaterial floor color 200 200 200\n"
                         "level main {\n  chunk_size 4\n  box -2 -1 -2 2 0 2 material floor\n}\n";
    CHECK_EQ(test_workdir_compile(&wd, "room", source, ""), 0);
    size_t old_size, new_size;
    uint8_t *old = test_read_file(map, &old_size);
    pmf_os_file_info st;
    int held = pmf_os_open_regular(map, &st);
    CHECK(old && held >= 0, "open %s: %s", map, strerror(errno));
    const char *bigger = "map \"Room\"\nmaterial floor color 200 200 200\n"
                         "level main {\n  chunk_size 4\n  box -6 -1 -6 6 0 6 material floor\n}\n";
    CHECK_EQ(test_workdir_compile(&wd, "room", bigger, ""), 0);
    uint8_t *now = test_read_file(map, &new_size);
    CHECK(now && old && (new_size != old_size || memcmp(now, old, old_size)), "the map was not replaced");
    uint8_t *still = old ? malloc(old_size) : NULL;
    CHECK(still && pmf_os_pread(held, still, old_size, 0) == (long long)old_size && !memcmp(still, old, old_size),
          "the held descriptor no longer reads the old map");
    free(still);
    free(now);
    free(old);
    if (held >= 0)
        close(held);
    CHECK_EQ(count_entries(dir), 3); /* room.pms, room.pmf, room.log */
}

static int child_main(int argc, char **argv)
{
    FILE *f = pmf_os_fopen(argv[2], "w");
    if (!f)
        return 3;
    for (int i = 3; i < argc; i++)
        fprintf(f, "[%s]", argv[i]);
    const char *env = pmf_os_getenv("PMF_OS_TEST");
    fprintf(f, "[%s]", env ? env : "(unset)");
    fclose(f);
    printf("to stdout\n");
    fprintf(stderr, "to stderr\n");
    return 7;
}

static void test_machine(void)
{
    double t0 = pmf_os_thread_cpu_seconds();
    volatile double x = 0;
    for (long i = 0; i < 200000000 && pmf_os_thread_cpu_seconds() - t0 < 0.05; i++)
        x += (double)i * 1e-9;
    double spent = pmf_os_thread_cpu_seconds() - t0;
    CHECK(spent >= 0.05 && spent < 5, "thread CPU time %.4f s", spent);
    uint8_t r[32] = { 0 }, zero[32] = { 0 };
    CHECK(pmf_os_random_bytes(r, sizeof r) && memcmp(r, zero, sizeof r));
    char self[4096];
    CHECK(pmf_os_self_path(self, sizeof self) && strstr(pmf_os_base_name(self), "test_pmf_os"), "self '%s'", self);
    CHECK(pmf_os_processors() >= 1);
    CHECK(pmf_os_physical_memory() > 64u << 20);
}

/* A thread of test_threads: squares its number where it was told, and says which thread ran it. */
typedef struct thread_slot {
    int number, square;
    pthread_t ran_on;
} thread_slot;

static void *square_number(void *user)
{
    thread_slot *slot = user;
    slot->square = slot->number * slot->number;
    slot->ran_on = pthread_self();
    return slot;
}

static void test_threads(void)
{
    thread_slot slots[4];
    pthread_t threads[4];
    for (int i = 0; i < 4; i++) {
        slots[i] = (thread_slot){ .number = i + 3 };
        CHECK_EQ(pmf_os_thread_start(&threads[i], square_number, &slots[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        void *returned = NULL;
        CHECK_EQ(pthread_join(threads[i], &returned), 0);
        CHECK(returned == &slots[i], "thread %d returned %p", i, returned);
        CHECK_EQ(slots[i].square, (i + 3) * (i + 3));
        CHECK(pthread_equal(slots[i].ran_on, threads[i]) && !pthread_equal(slots[i].ran_on, pthread_self()),
              "thread %d ran on its own thread", i);
    }
}

int main(int argc, char **argv)
{
    pmf_os_start(&argc, &argv);
    if (argc >= 3 && !strcmp(argv[1], "--child"))
        return child_main(argc, argv);
    if (argc != 3) {
        fprintf(stderr, "usage: test_pmf_os WORKDIR PMFC\n");
        return 2;
    }
    snprintf(work, sizeof work, "%s", argv[1]);
    test_remove_tree(work);
    CHECK(test_make_dir(work));
    test_utf8_paths();
    test_save_over_open_file();
    test_pmfc_over_open_map(argv[2]);
    test_replace_refused(argv[2]);
    char self[4096];
    if (pmf_os_self_path(self, sizeof self))
        test_child(self);
    test_machine();
    test_threads();
    return check_report("test_pmf_os");
}
