/* pmf_os_posix.c - pmf_os.h on Linux and other POSIX systems. */
#include "pmf_os.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

const char pmf_os_separators[] = "/";
const char pmf_os_sdl2_library[] = "libSDL2-2.0.so.0";

const char *pmf_os_base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

bool pmf_os_real_path(const char *path, char *out, size_t size)
{
    char *real = realpath(path, NULL);
    if (!real)
        return false;
    bool fits = strlen(real) < size;
    if (fits)
        strcpy(out, real);
    else
        errno = ENAMETOOLONG;
    free(real);
    return fits;
}

bool pmf_os_self_path(char *out, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", out, size - 1);
    if (n <= 0 || (size_t)n >= size - 1)
        return false;
    out[n] = '\0';
    return true;
}

bool pmf_os_cache_home(char *out, size_t size, char *why, size_t why_size)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    /* The XDG spec: a relative XDG_CACHE_HOME is invalid and ignored. */
    if (xdg && xdg[0] == '/')
        snprintf(out, size, "%s", xdg);
    else if (home && home[0])
        snprintf(out, size, "%s/.cache", home);
    else {
        snprintf(why, why_size, "neither XDG_CACHE_HOME nor HOME is set");
        return false;
    }
    return true;
}

void pmf_os_temp_dir(char *out, size_t size)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(out, size, "%s", tmp && tmp[0] ? tmp : "/tmp");
}

int pmf_os_setenv(const char *name, const char *value)
{
    return value ? setenv(name, value, 1) : unsetenv(name);
}

const char *pmf_os_getenv(const char *name)
{
    return getenv(name);
}

void pmf_os_start(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
}

static void info_from(const struct stat *st, pmf_os_file_info *info)
{
    info->size = (uint64_t)st->st_size;
    info->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
    info->device = (uint64_t)st->st_dev;
    info->inode = (uint64_t)st->st_ino;
    info->regular = S_ISREG(st->st_mode);
    info->directory = S_ISDIR(st->st_mode);
}

int pmf_os_open(const char *path, int flags, int mode)
{
    return open(path, flags | O_CLOEXEC, mode);
}

static int open_regular(const char *path, int flags, pmf_os_file_info *info)
{
    /* O_NONBLOCK: opening a FIFO with no writer must not wait; it is refused just below */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | flags);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int e = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) ? EISDIR : ENODEV;
        close(fd);
        errno = e;
        return -1;
    }
    info_from(&st, info);
    return fd;
}

int pmf_os_open_regular(const char *path, pmf_os_file_info *info)
{
    return open_regular(path, 0, info);
}

int pmf_os_open_own(const char *path, pmf_os_file_info *info)
{
    return open_regular(path, O_NOFOLLOW, info);
}

FILE *pmf_os_fopen(const char *path, const char *mode)
{
    return fopen(path, mode);
}

FILE *pmf_os_fdopen(int fd, const char *mode)
{
    return fdopen(fd, mode);
}

FILE *pmf_os_tmpfile(void)
{
    return tmpfile();
}

int pmf_os_stat(const char *path, pmf_os_file_info *info)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    info_from(&st, info);
    return 0;
}

int pmf_os_fstat(int fd, pmf_os_file_info *info)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -1;
    info_from(&st, info);
    return 0;
}

long long pmf_os_pread(int fd, void *dst, size_t len, uint64_t offset)
{
    return pread(fd, dst, len, (off_t)offset);
}

int pmf_os_sync(int fd)
{
    return fsync(fd);
}

void pmf_os_sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

int pmf_os_mkdir(const char *path, int mode)
{
    return mkdir(path, (mode_t)mode);
}

int pmf_os_remove(const char *path)
{
    return unlink(path);
}

int pmf_os_remove_dir(const char *path)
{
    return rmdir(path);
}

int pmf_os_replace(const char *from, const char *to)
{
    return rename(from, to);
}

const char *pmf_os_replace_aside(void)
{
    return NULL;
}

bool pmf_os_can_run(const char *path)
{
    return access(path, X_OK) == 0;
}

bool pmf_os_dir_writable(const char *path)
{
    return access(path, W_OK | X_OK) == 0;
}

/* 0666 minus the umask: what open(O_CREAT, 0666) gives. Linux reports the umask in
 * /proc/self/status; elsewhere the umask(2) round trip (not thread-safe, hence the preference). */
void pmf_os_set_new_file_mode(int fd)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[128];
    unsigned mask = 0;
    bool found = false;
    while (f && !found && fgets(line, sizeof line, f))
        found = sscanf(line, "Umask: %o", &mask) == 1;
    if (f)
        fclose(f);
    if (!found) {
        mode_t m = umask(022);
        umask(m);
        mask = m;
    }
    fchmod(fd, (mode_t)(0666 & ~mask));
}

int pmf_os_scratch_file(const char *path)
{
#ifdef O_TMPFILE
    size_t dir_len = (size_t)(pmf_os_base_name(path) - path);
    char *dir = malloc(dir_len + 2);
    if (!dir) {
        errno = ENOMEM;
        return -1;
    }
    snprintf(dir, dir_len + 2, "%.*s", dir_len ? (int)dir_len : 1, dir_len ? path : ".");
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    int e = errno;
    free(dir);
    errno = e == EISDIR ? EOPNOTSUPP : e; /* what kernels without O_TMPFILE answer */
    return fd;
#else
    (void)path;
    errno = EOPNOTSUPP;
    return -1;
#endif
}

int pmf_os_mkstemps(char *templ, int suffix_len)
{
    return mkostemps(templ, suffix_len, O_CLOEXEC);
}

struct pmf_os_dir {
    DIR *d;
};

pmf_os_dir *pmf_os_dir_open(const char *path)
{
    DIR *d = opendir(path);
    pmf_os_dir *dir = d ? malloc(sizeof *dir) : NULL;
    if (!dir) {
        if (d)
            closedir(d);
        return NULL;
    }
    dir->d = d;
    return dir;
}

const char *pmf_os_dir_next(pmf_os_dir *d)
{
    struct dirent *e;
    while ((e = readdir(d->d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            return e->d_name;
    return NULL;
}

void pmf_os_dir_close(pmf_os_dir *d)
{
    if (d) {
        closedir(d->d);
        free(d);
    }
}

const void *pmf_os_map(int fd, size_t size)
{
    void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    return map == MAP_FAILED ? NULL : map;
}

void pmf_os_unmap(const void *map, size_t size)
{
    munmap((void *)map, size);
}

/* A mapped file that shrinks (a download still being written, a recompile in place) faults with
 * SIGBUS on a touched page past the new end: the handler jumps back to pmf_os_run_mapped on that
 * thread instead of killing the process. */
static _Thread_local sigjmp_buf *guard_jump;
static struct sigaction previous_bus;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;

static void on_sigbus(int sig, siginfo_t *info, void *context)
{
    if (guard_jump)
        siglongjmp(*guard_jump, 1);
    /* not a guarded read: behave as before we were installed */
    if (previous_bus.sa_flags & SA_SIGINFO) {
        previous_bus.sa_sigaction(sig, info, context);
    } else if (previous_bus.sa_handler != SIG_IGN && previous_bus.sa_handler != SIG_DFL) {
        previous_bus.sa_handler(sig);
    } else {
        signal(SIGBUS, SIG_DFL); /* returning re-executes the access, which now kills us */
    }
}

static void install_guard(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &previous_bus);
}

bool pmf_os_run_mapped(bool (*fn)(void *user), void *user, bool *faulted)
{
    pthread_once(&guard_once, install_guard);
    sigjmp_buf jump;
    *faulted = false;
    if (sigsetjmp(jump, 1)) {
        guard_jump = NULL;
        *faulted = true;
        return false;
    }
    guard_jump = &jump;
    bool ok = fn(user);
    guard_jump = NULL;
    return ok;
}

bool pmf_os_spawn(pmf_os_process *p, const char *program, const char *const argv[], FILE *out, FILE *err)
{
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    if (out)
        posix_spawn_file_actions_adddup2(&actions, fileno(out), 1);
    if (err)
        posix_spawn_file_actions_adddup2(&actions, fileno(err), 2);
    pid_t pid;
    int rc = posix_spawn(&pid, program, &actions, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    p->id = rc == 0 ? pid : 0;
    errno = rc;
    return rc == 0;
}

int pmf_os_process_wait(pmf_os_process *p, bool wait, int *exit_code)
{
    int status;
    pid_t r;
    do
        r = waitpid((pid_t)p->id, &status, wait ? 0 : WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r == 0)
        return 0;
    p->id = 0;
    if (r < 0)
        return -1;
    *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    return 1;
}

void pmf_os_process_kill(pmf_os_process *p)
{
    if (p->id > 0) {
        kill((pid_t)p->id, SIGTERM);
        waitpid((pid_t)p->id, NULL, 0);
        p->id = 0;
    }
}

long pmf_os_pid(void)
{
    return (long)getpid();
}

bool pmf_os_pid_gone(long pid)
{
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

int pmf_os_thread_start(pthread_t *thread, void *(*fn)(void *user), void *user)
{
    return pthread_create(thread, NULL, fn, user);
}

int pmf_os_processors(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 && n < INT_MAX ? (int)n : 0;
}

uint64_t pmf_os_physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}

size_t pmf_os_allocation_size(void *p)
{
    return malloc_usable_size(p);
}

void *pmf_os_library_open(const char *name, char *why, size_t why_size)
{
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        snprintf(why, why_size, "%s", dlerror());
    return lib;
}

void *pmf_os_library_symbol(void *lib, const char *name)
{
    return dlsym(lib, name);
}

double pmf_os_thread_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool pmf_os_random_bytes(void *buf, size_t len)
{
    for (size_t done = 0; done < len; done += 256)
        if (getentropy((char *)buf + done, len - done < 256 ? len - done : 256) != 0)
            return false;
    return true;
}

static const int interrupt_signals[3] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction previous_interrupt[3];
static void (*interrupt_cleanup)(void);

static void on_interrupt(int sig)
{
    interrupt_cleanup();
    /* then what the signal did before: usually end the process with it */
    for (int i = 0; i < 3; i++)
        if (interrupt_signals[i] == sig)
            sigaction(sig, &previous_interrupt[i], NULL);
    raise(sig);
}

void pmf_os_on_interrupt(void (*cleanup)(void))
{
    interrupt_cleanup = cleanup;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; i++)
        sigaddset(&sa.sa_mask, interrupt_signals[i]);
    sa.sa_flags = SA_RESETHAND;
    for (int i = 0; i < 3; i++)
        sigaction(interrupt_signals[i], &sa, &previous_interrupt[i]);
}

bool pmf_os_window_system(const char **sdl_driver)
{
    const char *x11 = getenv("DISPLAY"), *wayland = getenv("WAYLAND_DISPLAY");
    bool has_x11 = x11 && *x11, has_wayland = wayland && *wayland;
    /* Only the kind of display that is named: probing the other one prints errors of its own
     * (libwayland's XDG_RUNTIME_DIR complaint). SDL_VIDEODRIVER in the environment still wins. */
    *sdl_driver = has_x11 != has_wayland ? (has_x11 ? "x11" : "wayland") : NULL;
    return has_x11 || has_wayland;
}

bool pmf_os_is_terminal(FILE *f)
{
    return isatty(fileno(f));
}
