/* atomic_file.c - temp file + fsync + rename (see atomic_file.h). */
#include "atomic_file.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "pmf_os.h"

/* Temporary files a signal must remove: fixed storage, read by the handler without locks. */
enum { MAX_PENDING = 16, MAX_TMP_PATH = 4096 };
static char pending_path[MAX_PENDING][MAX_TMP_PATH];
static volatile sig_atomic_t pending_used[MAX_PENDING];
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;

static int pending_add(const char *tmp)
{
    if (strlen(tmp) >= MAX_TMP_PATH)
        return -1;
    pthread_mutex_lock(&pending_lock);
    int slot = -1;
    for (int i = 0; i < MAX_PENDING && slot < 0; i++)
        if (!pending_used[i]) {
            strcpy(pending_path[i], tmp);
            pending_used[i] = 1;
            slot = i;
        }
    pthread_mutex_unlock(&pending_lock);
    return slot;
}

static void pending_drop(int slot)
{
    if (slot >= 0)
        pending_used[slot] = 0;
}

static void remove_pending(void)
{
    for (int i = 0; i < MAX_PENDING; i++)
        if (pending_used[i])
            pmf_os_remove(pending_path[i]);
}

void atomic_file_remove_on_signals(void)
{
    pmf_os_on_interrupt(remove_pending);
}

/* Six letters or digits for a temporary name (what mkstemp's XXXXXX would be). */
static const char *random_suffix(void)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static _Thread_local char suffix[7];
    static _Atomic uint64_t calls;
    uint64_t x;
    if (!pmf_os_random_bytes(&x, sizeof x)) {
        /* no entropy source (an old kernel): clock, pid and a count are enough with O_EXCL */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        x = ((uint64_t)ts.tv_sec << 32 ^ (uint64_t)ts.tv_nsec ^ (uint64_t)pmf_os_pid() << 20) + ++calls * 0x9E3779B97F4A7C15ull;
        x = (x ^ (x >> 31)) * 0xBF58476D1CE4E5B9ull;
    }
    for (int i = 0; i < 6; i++, x /= sizeof alphabet - 1)
        suffix[i] = alphabet[x % (sizeof alphabet - 1)];
    suffix[6] = '\0';
    return suffix;
}

/* Creates "DIR.NAME.XXXXXX" (DIR: the first dir_len bytes of dir) with O_EXCL, its name listed for
 * the signal handler before the file exists: mkstemp would create it first, and a signal
 * delivered as that call returns left a file nobody removes. The fd with *slot set, or -1 with
 * errno (*slot -1). */
static int create_listed(char *tmp, size_t tmp_size, const char *dir, int dir_len, const char *name, int flags, int *slot)
{
    int fd = -1;
    errno = EEXIST;
    for (int attempt = 0; fd < 0 && errno == EEXIST && attempt < 100; attempt++) {
        snprintf(tmp, tmp_size, "%.*s.%s.%s", dir_len, dir, name, random_suffix());
        *slot = pending_add(tmp);
        fd = pmf_os_open(tmp, flags | O_CREAT | O_EXCL, 0600);
        if (fd < 0) {
            int e = errno;
            pending_drop(*slot);
            *slot = -1;
            errno = e;
        }
    }
    return fd;
}

static void set_why(char *why, size_t why_size, const char *what, int e)
{
    snprintf(why, why_size, "%s: %s", what, strerror(e ? e : EIO));
}

bool atomic_file_open(atomic_file *af, const char *path, char *why, size_t why_size)
{
    *af = (atomic_file){ .slot = -1 };
    size_t dir_len = (size_t)(pmf_os_base_name(path) - path);
    size_t len = strlen(path);
    af->path = strdup(path);
    af->tmp = malloc(len + 16);
    if (!af->path || !af->tmp) {
        atomic_file_abort(af);
        set_why(why, why_size, "cannot write", ENOMEM);
        return false;
    }
    /* hidden, next to the file: same filesystem, so the rename is atomic */
    int fd = create_listed(af->tmp, len + 16, path, (int)dir_len, path + dir_len, O_WRONLY, &af->slot);
    if (fd < 0) {
        int e = errno;
        free(af->tmp);
        af->tmp = NULL;
        atomic_file_abort(af);
        set_why(why, why_size, "cannot create a temporary file next to it", e);
        return false;
    }
    pmf_os_set_new_file_mode(fd);
    if (!(af->fp = pmf_os_fdopen(fd, "wb"))) {
        int e = errno;
        close(fd);
        atomic_file_abort(af);
        set_why(why, why_size, "cannot write", e);
        return false;
    }
    return true;
}

bool atomic_file_commit(atomic_file *af, char *why, size_t why_size)
{
    errno = 0;
    bool ok = !ferror(af->fp) && fflush(af->fp) == 0 && (af->unsynced || pmf_os_sync(fileno(af->fp)) == 0);
    int e = errno;
    if (fclose(af->fp) != 0 && ok) {
        ok = false;
        e = errno;
    }
    af->fp = NULL;
    const char *aside = NULL;
    if (ok && pmf_os_replace(af->tmp, af->path) != 0) {
        ok = false;
        e = errno;
        aside = pmf_os_replace_aside();
    }
    if (!ok) {
        set_why(why, why_size, "cannot write", e);
        if (aside) /* Windows' fallback could not put the old file back */
            snprintf(why + strlen(why), why_size - strlen(why), "; the previous file is now %s", aside);
        atomic_file_abort(af);
        return false;
    }
    /* the rename itself reaches the disk with the directory */
    char *base = (char *)pmf_os_base_name(af->path);
    if (base > af->path)
        base[base - 1 == af->path ? 0 : -1] = '\0'; /* af->path becomes its directory ("/" kept for the root) */
    if (!af->unsynced) pmf_os_sync_dir(base > af->path ? af->path : ".");
    pending_drop(af->slot);
    free(af->tmp);
    free(af->path);
    *af = (atomic_file){ .slot = -1 };
    return true;
}

void atomic_file_abort(atomic_file *af)
{
    if (af->fp)
        fclose(af->fp);
    if (af->tmp)
        pmf_os_remove(af->tmp);
    pending_drop(af->slot);
    free(af->tmp);
    free(af->path);
    *af = (atomic_file){ .slot = -1 };
}

int atomic_file_scratch(const char *path, char *why, size_t why_size)
{
    int fd = pmf_os_scratch_file(path);
    if (fd < 0 && errno == EOPNOTSUPP) {
        /* a filesystem without unnamed files: a name that lives only between these two calls */
        size_t dir_len = (size_t)(pmf_os_base_name(path) - path);
        char *tmp = malloc(dir_len + 32);
        if (!tmp) {
            set_why(why, why_size, "cannot create a scratch file next to it", ENOMEM);
            return -1;
        }
        int slot;
        fd = create_listed(tmp, dir_len + 32, path, (int)dir_len, "pmf-scratch", O_RDWR, &slot);
        if (fd >= 0) {
            pmf_os_remove(tmp);
            pending_drop(slot);
        }
        free(tmp);
    }
    if (fd < 0)
        set_why(why, why_size, "cannot create a scratch file next to it", errno);
    return fd;
}
