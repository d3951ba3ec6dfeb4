/* pmf_os.h - what the programs ask of the operating system, asked one way. One file implements
 * it per system: pmf_os_posix.c (Linux and other POSIX systems), pmf_os_win32.c (Windows). Code
 * outside src/base calls these instead of the system's own functions wherever the systems differ.
 *
 * Paths are UTF-8 everywhere (on Windows they go through the wide APIs); every file is binary
 * (no newline translation); a file open for reading can still be written, renamed over and
 * deleted by others (Windows' FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE), so an
 * editor can save over a map the viewer holds open. Functions returning int give -1 with errno
 * set on failure, like the POSIX calls they stand for. */
#ifndef PMF_OS_H
#define PMF_OS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <fcntl.h> /* O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_TRUNC for pmf_os_open */
#include <pthread.h>

/* ---- paths ---- */

/* The separators this system accepts in a path ("/", or "/\\" on Windows). */
extern const char pmf_os_separators[];
/* The file name part of a path: after its last separator. */
const char *pmf_os_base_name(const char *path);
/* path as an absolute, canonical path (symlinks resolved where the system has them). */
bool pmf_os_real_path(const char *path, char *out, size_t size);
/* The running program's own file. */
bool pmf_os_self_path(char *out, size_t size);
/* The user's cache directory: $XDG_CACHE_HOME or ~/.cache; %LOCALAPPDATA% on Windows. False with
 * the reason in why. */
bool pmf_os_cache_home(char *out, size_t size, char *why, size_t why_size);
/* The directory for temporary files: $TMPDIR or /tmp; GetTempPath on Windows (no trailing
 * separator). */
void pmf_os_temp_dir(char *out, size_t size);
/* Sets (value non-NULL) or removes an environment variable for this process and those it starts. */
int pmf_os_setenv(const char *name, const char *value);
/* An environment variable as UTF-8, NULL when unset (the string stays valid until the next call
 * for the same name from any thread: read it at start-up). */
const char *pmf_os_getenv(const char *name);
/* What a program's main() does first: its arguments as UTF-8 (on Windows from the wide command
 * line; elsewhere as they are), and stdout and stderr without newline translation (on Windows,
 * so that what the programs print is byte for byte what they print on Linux). */
void pmf_os_start(int *argc, char ***argv);

/* ---- files ---- */

typedef struct pmf_os_file_info {
    uint64_t size;
    int64_t mtime_ns;                /* modification time, nanoseconds since 1970 */
    uint64_t device, inode;          /* which file it is (volume serial and file index on Windows) */
    bool regular, directory;
} pmf_os_file_info;

/* open(2) with O_CLOEXEC and (Windows) O_BINARY and the sharing modes added. */
int pmf_os_open(const char *path, int flags, int mode);
/* open(2) for reading that never blocks on a FIFO and refuses anything but a regular file
 * (EISDIR for a directory, ENODEV for anything else that is not a regular file). */
int pmf_os_open_regular(const char *path, pmf_os_file_info *info);
/* pmf_os_open_regular, refusing a symlink too (ELOOP): a file of our own, next to the map. */
int pmf_os_open_own(const char *path, pmf_os_file_info *info);
/* fopen(3), always binary: mode is "r", "w", "a", "r+" ... ("b" may be given or not). */
FILE *pmf_os_fopen(const char *path, const char *mode);
/* fdopen(3) in binary mode. */
FILE *pmf_os_fdopen(int fd, const char *mode);
/* A temporary file for reading and writing that the system deletes when it is closed. */
FILE *pmf_os_tmpfile(void);
int pmf_os_stat(const char *path, pmf_os_file_info *info);
int pmf_os_fstat(int fd, pmf_os_file_info *info);
/* Reads up to len bytes at offset without moving the file position (pread). */
long long pmf_os_pread(int fd, void *dst, size_t len, uint64_t offset);
/* The file's data on disk (fsync / FlushFileBuffers). */
int pmf_os_sync(int fd);
/* The directory's entries on disk, so a rename in it survives a crash (nothing on Windows, whose
 * MoveFileEx write-through does it). */
void pmf_os_sync_dir(const char *dir);
int pmf_os_mkdir(const char *path, int mode); /* mode where modes exist */
int pmf_os_remove(const char *path); /* a file */
int pmf_os_remove_dir(const char *path); /* an empty directory */
/* Moves from over to, replacing it at once (rename(2); MoveFileExW with replace-existing and
 * write-through). On Windows a file others hold open (sharing deletion, as pmf_os_open does) is
 * replaced too: by a POSIX-semantics rename where the system has one (10 1809 and later), else
 * (older Windows, wine) by renaming it aside first, which leaves the name missing for a moment.
 * A folder there is refused (EISDIR) as rename(2) refuses it; on Windows a read-only file too
 * (EACCES: the attribute keeps it, docs/windows.md), where rename(2) replaces it. */
int pmf_os_replace(const char *from, const char *to);
/* After a pmf_os_replace on this thread that failed: the name of the file it replaced where
 * Windows' fallback moved it aside and could not put it back, else NULL. */
const char *pmf_os_replace_aside(void);
/* True when path exists and can be run (POSIX X_OK; on Windows: it exists and is a file). */
bool pmf_os_can_run(const char *path);
/* True when the directory can hold new files. */
bool pmf_os_dir_writable(const char *path);
/* Gives a new file with mode 0666 minus the umask where modes exist (files created 0600 first). */
void pmf_os_set_new_file_mode(int fd);
/* A scratch file next to path (in its directory), open for reading and writing, that has no name
 * (O_TMPFILE) or goes when it is closed (FILE_FLAG_DELETE_ON_CLOSE): no error, signal or kill
 * leaves it behind. -1 with errno EOPNOTSUPP where the system or filesystem cannot. */
int pmf_os_scratch_file(const char *path);
/* mkstemps(3): the XXXXXX before the last suffix_len bytes of templ become a fresh name. */
int pmf_os_mkstemps(char *templ, int suffix_len);

/* A directory's entry names (not "." and ".."), as UTF-8. */
typedef struct pmf_os_dir pmf_os_dir;
pmf_os_dir *pmf_os_dir_open(const char *path);
const char *pmf_os_dir_next(pmf_os_dir *d); /* NULL at the end */
void pmf_os_dir_close(pmf_os_dir *d);

/* A read-only view of a whole file (mmap / MapViewOfFile); NULL with errno. */
const void *pmf_os_map(int fd, size_t size);
void pmf_os_unmap(const void *map, size_t size);
/* Runs fn(user) reading a mapping: a file that shrinks under it ends fn with false and
 * *faulted set instead of killing the process (SIGBUS; Windows refuses to shrink a mapped file). */
bool pmf_os_run_mapped(bool (*fn)(void *user), void *user, bool *faulted);

/* ---- processes ---- */

typedef struct pmf_os_process {
    intptr_t id;                     /* pid or process handle; 0 = none */
} pmf_os_process;

/* Starts program (a path) with argv (argv[0] its name, NULL-ended), stdin empty, stdout into out
 * and stderr into err (NULL: this process's own; the same file for both is fine). False with
 * errno. */
bool pmf_os_spawn(pmf_os_process *p, const char *program, const char *const argv[], FILE *out, FILE *err);
/* 1 with *exit_code when it has ended (negative: killed by that signal), 0 while it runs, -1
 * with errno. wait: block until it ends. */
int pmf_os_process_wait(pmf_os_process *p, bool wait, int *exit_code);
/* Ends it and waits for it. */
void pmf_os_process_kill(pmf_os_process *p);
long pmf_os_pid(void);
/* True when no process has that id any more. */
bool pmf_os_pid_gone(long pid);

/* ---- threads ---- */

/* Starts fn(user) on a new thread with the system's default attributes, ended by pthread_join:
 * every thread of the programs starts here. POSIX threads on every system (winpthreads on
 * Windows, the page's worker pool under emscripten). 0, or the error number for the caller's
 * message (EAGAIN: no room for another thread), as pthread_create returns it: not -1 and errno. */
int pmf_os_thread_start(pthread_t *thread, void *(*fn)(void *user), void *user);

/* ---- the machine ---- */

/* Processors online (0 when unknown). */
int pmf_os_processors(void);
/* Bytes of physical memory (0 when unknown). */
uint64_t pmf_os_physical_memory(void);
/* The usable size of a block from malloc (malloc_usable_size, _msize). */
size_t pmf_os_allocation_size(void *p);

/* ---- libraries, time, randomness, interrupts ---- */

/* SDL2's shared library as this system names it. */
extern const char pmf_os_sdl2_library[];
/* A shared library (dlopen / LoadLibrary) and its symbols; NULL with the reason in why. */
void *pmf_os_library_open(const char *name, char *why, size_t why_size);
void *pmf_os_library_symbol(void *lib, const char *name);
/* CPU seconds this thread has used (fine-grained: nanoseconds or 100 ns ticks). */
double pmf_os_thread_cpu_seconds(void);
/* Fills buf from the system's random source; false when it has none. */
bool pmf_os_random_bytes(void *buf, size_t len);
/* Calls cleanup on an interrupt or termination request (SIGINT, SIGTERM, SIGHUP; Ctrl+C, Ctrl+Break,
 * the console closing), then lets it do what it did before. cleanup must be async-signal-safe. */
void pmf_os_on_interrupt(void (*cleanup)(void));
/* Whether a window can open here, and the SDL video driver to ask for (NULL: SDL's own choice):
 * POSIX needs DISPLAY or WAYLAND_DISPLAY and names the one set; Windows always has its desktop. */
bool pmf_os_window_system(const char **sdl_driver);
/* True when the stream is a terminal. */
bool pmf_os_is_terminal(FILE *f);

#endif
