/* pmf_os_win32.c - pmf_os.h on Windows: UTF-8 paths through the wide (W) APIs, every file binary
 * and shared for reading, writing and deletion. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <shellapi.h>
#include <ntsecapi.h> /* RtlGenRandom */

#include <errno.h>
#include <intrin.h>
#include <io.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pmf_os.h"

const char pmf_os_separators[] = "/\\";
const char pmf_os_sdl2_library[] = "SDL2.dll";

enum { WIDE_PATH_MAX = 32768 };

/* GetLastError() as the errno the POSIX call would have set. */
static int errno_from_win32(DWORD e)
{
    switch (e) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_NAME:
    case ERROR_BAD_NETPATH:
    case ERROR_INVALID_DRIVE:
        return ENOENT;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
    case ERROR_WRITE_PROTECT:
        return EACCES;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS:
        return EEXIST;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
        return ENOMEM;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL:
        return ENOSPC;
    case ERROR_DIRECTORY:
        return ENOTDIR;
    case ERROR_FILENAME_EXCED_RANGE:
        return ENAMETOOLONG;
    case ERROR_DIR_NOT_EMPTY:
        return ENOTEMPTY;
    case ERROR_HANDLE_EOF:
        return 0;
    case ERROR_BAD_EXE_FORMAT:
    case ERROR_EXE_MACHINE_TYPE_MISMATCH:
        return ENOEXEC;
    case ERROR_INVALID_HANDLE:
        return EBADF;
    case ERROR_NO_SYSTEM_RESOURCES:
    case ERROR_NOT_ENOUGH_QUOTA:
    case ERROR_COMMITMENT_LIMIT:
        return EAGAIN;
    default:
        return EIO;
    }
}

static void set_errno_from_win32(void)
{
    errno = errno_from_win32(GetLastError());
}

/* UTF-8 to a malloc'd wide string; NULL with errno (EILSEQ for bytes that are not UTF-8). */
static wchar_t *to_wide(const char *s)
{
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
    if (n <= 0) {
        errno = EILSEQ;
        return NULL;
    }
    wchar_t *w = malloc((size_t)n * sizeof *w);
    if (!w) {
        errno = ENOMEM;
        return NULL;
    }
    MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
    return w;
}

/* A wide string as UTF-8 into out; false (ENAMETOOLONG) when it does not fit. */
static bool to_utf8(const wchar_t *w, char *out, size_t size)
{
    int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, out, size > INT_MAX ? INT_MAX : (int)size, NULL, NULL);
    if (n <= 0) {
        errno = ENAMETOOLONG;
        return false;
    }
    return true;
}

static char *to_utf8_alloc(const wchar_t *w)
{
    int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
    char *s = n > 0 ? malloc((size_t)n) : NULL;
    if (s)
        WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL);
    return s;
}

/* ---- paths ---- */

const char *pmf_os_base_name(const char *path)
{
    const char *base = path;
    for (const char *p = path; *p; p++)
        if (*p == '/' || *p == '\\' || (p == path + 1 && *p == ':'))
            base = p + 1;
    return base;
}

bool pmf_os_real_path(const char *path, char *out, size_t size)
{
    wchar_t *w = to_wide(path);
    if (!w)
        return false;
    wchar_t *full = malloc(WIDE_PATH_MAX * sizeof *full);
    DWORD n = full ? GetFullPathNameW(w, WIDE_PATH_MAX, full, NULL) : 0;
    bool ok = n > 0 && n < WIDE_PATH_MAX && GetFileAttributesW(full) != INVALID_FILE_ATTRIBUTES;
    if (!ok)
        set_errno_from_win32();
    else
        ok = to_utf8(full, out, size);
    free(full);
    free(w);
    return ok;
}

bool pmf_os_self_path(char *out, size_t size)
{
    wchar_t *w = malloc(WIDE_PATH_MAX * sizeof *w);
    DWORD n = w ? GetModuleFileNameW(NULL, w, WIDE_PATH_MAX) : 0;
    bool ok = n > 0 && n < WIDE_PATH_MAX && to_utf8(w, out, size);
    free(w);
    return ok;
}

/* An absolute Windows path: "C:\..." or "C:/...", "\\server\...", or "/..." (on the current drive;
 * under wine the Unix root). */
static bool absolute(const char *p)
{
    return p[0] == '/' || p[0] == '\\' || (p[0] && p[1] == ':' && (p[2] == '\\' || p[2] == '/'));
}

bool pmf_os_cache_home(char *out, size_t size, char *why, size_t why_size)
{
    /* XDG_CACHE_HOME when someone set it (the tests do), else the local application data. */
    const char *xdg = pmf_os_getenv("XDG_CACHE_HOME"), *local = pmf_os_getenv("LOCALAPPDATA");
    if (xdg && absolute(xdg))
        snprintf(out, size, "%s", xdg);
    else if (local && local[0])
        snprintf(out, size, "%s", local);
    else {
        snprintf(why, why_size, "LOCALAPPDATA is not set");
        return false;
    }
    return true;
}

void pmf_os_temp_dir(char *out, size_t size)
{
    wchar_t w[MAX_PATH + 2];
    DWORD n = GetTempPathW(MAX_PATH + 1, w);
    if (n == 0 || n > MAX_PATH || !to_utf8(w, out, size)) {
        snprintf(out, size, ".");
        return;
    }
    size_t len = strlen(out);
    if (len > 3 && (out[len - 1] == '\\' || out[len - 1] == '/'))
        out[len - 1] = '\0';
}

int pmf_os_setenv(const char *name, const char *value)
{
    wchar_t *wname = to_wide(name), *wvalue = value ? to_wide(value) : NULL;
    int rc = wname && (wvalue || !value) && SetEnvironmentVariableW(wname, wvalue) ? 0 : -1;
    /* the C runtime's copy, which _wgetenv reads, too */
    size_t len = strlen(name) + (value ? strlen(value) : 0) + 2;
    char *assignment = malloc(len);
    if (!rc && assignment) {
        snprintf(assignment, len, "%s=%s", name, value ? value : "");
        wchar_t *w = to_wide(assignment);
        if (!w || _wputenv(w) != 0)
            rc = -1;
        free(w);
    }
    free(assignment);
    free(wname);
    free(wvalue);
    return rc;
}

const char *pmf_os_getenv(const char *name)
{
    /* the UTF-8 copies, kept per name: the environment is read at start-up, a few names */
    enum { NAMES = 32 };
    static struct { char name[64]; char *value; } seen[NAMES];
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    wchar_t *wname = to_wide(name);
    const wchar_t *wvalue = wname ? _wgetenv(wname) : NULL;
    free(wname);
    if (!wvalue)
        return NULL;
    char *value = to_utf8_alloc(wvalue);
    if (!value)
        return NULL;
    pthread_mutex_lock(&lock);
    int slot = -1;
    for (int i = 0; i < NAMES && slot < 0; i++)
        if (!strcmp(seen[i].name, name) || !seen[i].name[0])
            slot = i;
    const char *result = NULL;
    if (slot >= 0 && strlen(name) < sizeof seen[slot].name) {
        snprintf(seen[slot].name, sizeof seen[slot].name, "%s", name);
        free(seen[slot].value);
        seen[slot].value = value;
        result = value;
    } else {
        free(value);
    }
    pthread_mutex_unlock(&lock);
    return result;
}

void pmf_os_start(int *argc, char ***argv)
{
    int n;
    _setmode(_fileno(stdout), _O_BINARY);
    _setmode(_fileno(stderr), _O_BINARY);
    wchar_t **wargv = CommandLineToArgvW(GetCommandLineW(), &n);
    if (!wargv)
        return;
    char **args = calloc((size_t)n + 1, sizeof *args);
    for (int i = 0; args && i < n; i++)
        if (!(args[i] = to_utf8_alloc(wargv[i]))) {
            free(args); /* keep the code-page argv: out of memory at start-up */
            args = NULL;
        }
    LocalFree(wargv);
    if (args) {
        *argc = n;
        *argv = args;
    }
}

/* ---- files ---- */

/* FILETIME (100 ns since 1601) to nanoseconds since 1970. */
static int64_t unix_ns(FILETIME t)
{
    int64_t ticks = (int64_t)(((uint64_t)t.dwHighDateTime << 32) | t.dwLowDateTime);
    return (ticks - 116444736000000000ll) * 100;
}

static void info_from_handle(HANDLE h, pmf_os_file_info *info, BY_HANDLE_FILE_INFORMATION *bi)
{
    (void)h;
    info->size = ((uint64_t)bi->nFileSizeHigh << 32) | bi->nFileSizeLow;
    info->mtime_ns = unix_ns(bi->ftLastWriteTime);
    info->device = bi->dwVolumeSerialNumber;
    info->inode = ((uint64_t)bi->nFileIndexHigh << 32) | bi->nFileIndexLow;
    info->directory = (bi->dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
    info->regular = !info->directory && GetFileType(h) == FILE_TYPE_DISK;
}

static HANDLE create_file(const char *path, DWORD access, DWORD disposition, DWORD flags)
{
    wchar_t *w = to_wide(path);
    if (!w)
        return INVALID_HANDLE_VALUE;
    HANDLE h = CreateFileW(w, access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, disposition,
                           flags, NULL);
    if (h == INVALID_HANDLE_VALUE)
        set_errno_from_win32();
    free(w);
    return h;
}

static int fd_from_handle(HANDLE h, int flags)
{
    int fd = _open_osfhandle((intptr_t)h, _O_BINARY | (flags & (_O_RDONLY | _O_WRONLY | _O_RDWR | _O_APPEND)));
    if (fd < 0) {
        CloseHandle(h);
        errno = EMFILE;
    }
    return fd;
}

int pmf_os_open(const char *path, int flags, int mode)
{
    (void)mode;
    DWORD access = (flags & O_RDWR) ? GENERIC_READ | GENERIC_WRITE : (flags & O_WRONLY) ? GENERIC_WRITE : GENERIC_READ;
    DWORD disposition = OPEN_EXISTING;
    if ((flags & O_CREAT) && (flags & O_EXCL))
        disposition = CREATE_NEW;
    else if ((flags & O_CREAT) && (flags & O_TRUNC))
        disposition = CREATE_ALWAYS;
    else if (flags & O_CREAT)
        disposition = OPEN_ALWAYS;
    else if (flags & O_TRUNC)
        disposition = TRUNCATE_EXISTING;
    HANDLE h = create_file(path, access, disposition, FILE_ATTRIBUTE_NORMAL);
    return h == INVALID_HANDLE_VALUE ? -1 : fd_from_handle(h, flags);
}

static int open_regular(const char *path, DWORD flags, pmf_os_file_info *info)
{
    /* BACKUP_SEMANTICS opens a directory too, so that it is named as one */
    HANDLE h = create_file(path, GENERIC_READ, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | flags);
    if (h == INVALID_HANDLE_VALUE)
        return -1;
    BY_HANDLE_FILE_INFORMATION bi;
    if (!GetFileInformationByHandle(h, &bi)) {
        CloseHandle(h);
        errno = ENODEV;
        return -1;
    }
    info_from_handle(h, info, &bi);
    bool link = bi.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT;
    if (!info->regular || link) {
        CloseHandle(h);
        errno = link ? ELOOP : info->directory ? EISDIR : ENODEV;
        return -1;
    }
    return fd_from_handle(h, O_RDONLY);
}

int pmf_os_open_regular(const char *path, pmf_os_file_info *info)
{
    return open_regular(path, 0, info);
}

int pmf_os_open_own(const char *path, pmf_os_file_info *info)
{
    return open_regular(path, FILE_FLAG_OPEN_REPARSE_POINT, info);
}

FILE *pmf_os_fdopen(int fd, const char *mode)
{
    char m[8];
    size_t n = 0;
    for (const char *p = mode; *p && n < sizeof m - 2; p++)
        if (*p != 'b' && *p != 't')
            m[n++] = *p;
    m[n++] = 'b';
    m[n] = '\0';
    return _fdopen(fd, m);
}

FILE *pmf_os_fopen(const char *path, const char *mode)
{
    bool plus = strchr(mode, '+') != NULL;
    int flags;
    switch (mode[0]) {
    case 'r': flags = plus ? O_RDWR : O_RDONLY; break;
    case 'w': flags = (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC; break;
    case 'a': flags = (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_APPEND; break;
    default: errno = EINVAL; return NULL;
    }
    int fd = pmf_os_open(path, flags, 0666);
    if (fd < 0)
        return NULL;
    FILE *f = pmf_os_fdopen(fd, mode);
    if (!f)
        _close(fd);
    return f;
}

/* A hidden file named PREFIX + random letters, created new, deleted when its last handle closes. */
static HANDLE create_delete_on_close(const char *prefix)
{
    size_t len = strlen(prefix);
    char *name = malloc(len + 16);
    if (!name) {
        errno = ENOMEM;
        return INVALID_HANDLE_VALUE;
    }
    HANDLE h = INVALID_HANDLE_VALUE;
    for (int attempt = 0; attempt < 100 && h == INVALID_HANDLE_VALUE; attempt++) {
        uint8_t r[6];
        if (!pmf_os_random_bytes(r, sizeof r)) {
            errno = EIO;
            break;
        }
        snprintf(name, len + 16, "%s%02x%02x%02x%02x%02x%02x", prefix, r[0], r[1], r[2], r[3], r[4], r[5]);
        h = create_file(name, GENERIC_READ | GENERIC_WRITE, CREATE_NEW,
                        FILE_ATTRIBUTE_TEMPORARY | FILE_ATTRIBUTE_HIDDEN | FILE_FLAG_DELETE_ON_CLOSE);
        if (h == INVALID_HANDLE_VALUE && errno != EEXIST)
            break;
    }
    free(name);
    return h;
}

FILE *pmf_os_tmpfile(void)
{
    char prefix[MAX_PATH * 3 + 32];
    pmf_os_temp_dir(prefix, sizeof prefix - 32);
    strcat(prefix, "\\pmf-tmp.");
    HANDLE h = create_delete_on_close(prefix);
    if (h == INVALID_HANDLE_VALUE)
        return NULL;
    int fd = fd_from_handle(h, O_RDWR);
    FILE *f = fd >= 0 ? _fdopen(fd, "w+b") : NULL;
    if (!f && fd >= 0)
        _close(fd);
    return f;
}

int pmf_os_stat(const char *path, pmf_os_file_info *info)
{
    HANDLE h = create_file(path, 0, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS);
    if (h == INVALID_HANDLE_VALUE)
        return -1;
    BY_HANDLE_FILE_INFORMATION bi;
    bool ok = GetFileInformationByHandle(h, &bi);
    if (ok)
        info_from_handle(h, info, &bi);
    else
        set_errno_from_win32();
    CloseHandle(h);
    return ok ? 0 : -1;
}

int pmf_os_fstat(int fd, pmf_os_file_info *info)
{
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    BY_HANDLE_FILE_INFORMATION bi;
    if (h == INVALID_HANDLE_VALUE || !GetFileInformationByHandle(h, &bi)) {
        errno = EBADF;
        return -1;
    }
    info_from_handle(h, info, &bi);
    return 0;
}

long long pmf_os_pread(int fd, void *dst, size_t len, uint64_t offset)
{
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    if (h == INVALID_HANDLE_VALUE) {
        errno = EBADF;
        return -1;
    }
    /* ReadFile at an offset moves a synchronous handle's position: put it back for whoever
     * writes through the same descriptor (the writer's spool). */
    LARGE_INTEGER zero = { 0 }, position;
    bool restore = SetFilePointerEx(h, zero, &position, FILE_CURRENT);
    OVERLAPPED at = { 0 };
    at.Offset = (DWORD)offset;
    at.OffsetHigh = (DWORD)(offset >> 32);
    DWORD got = 0;
    bool ok = ReadFile(h, dst, len > 0x40000000u ? 0x40000000u : (DWORD)len, &got, &at);
    DWORD e = GetLastError();
    if (restore)
        SetFilePointerEx(h, position, NULL, FILE_BEGIN);
    if (!ok && e != ERROR_HANDLE_EOF) {
        errno = errno_from_win32(e);
        return -1;
    }
    return ok ? (long long)got : 0;
}

int pmf_os_sync(int fd)
{
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    if (h == INVALID_HANDLE_VALUE || !FlushFileBuffers(h)) {
        errno = EIO;
        return -1;
    }
    return 0;
}

void pmf_os_sync_dir(const char *dir)
{
    (void)dir;
}

int pmf_os_mkdir(const char *path, int mode)
{
    (void)mode;
    wchar_t *w = to_wide(path);
    if (!w)
        return -1;
    int rc = CreateDirectoryW(w, NULL) ? 0 : -1;
    if (rc)
        set_errno_from_win32();
    free(w);
    return rc;
}

int pmf_os_remove(const char *path)
{
    wchar_t *w = to_wide(path);
    if (!w)
        return -1;
    int rc = DeleteFileW(w) ? 0 : -1;
    /* unlink(2) removes a read-only file too; Windows wants the attribute off first */
    DWORD a = rc ? GetFileAttributesW(w) : 0;
    if (rc && a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_READONLY) &&
        SetFileAttributesW(w, a & ~(DWORD)FILE_ATTRIBUTE_READONLY))
        rc = DeleteFileW(w) ? 0 : -1;
    if (rc)
        set_errno_from_win32();
    free(w);
    return rc;
}

int pmf_os_remove_dir(const char *path)
{
    wchar_t *w = to_wide(path);
    if (!w)
        return -1;
    int rc = RemoveDirectoryW(w) ? 0 : -1;
    if (rc)
        set_errno_from_win32();
    free(w);
    return rc;
}

/* A rename with POSIX semantics (Windows 10 1809 and later): it replaces a file that others hold
 * open, as rename(2) does, where MoveFileEx gets "access denied". */
static bool rename_posix(const wchar_t *from, const wchar_t *to)
{
    enum { FILE_RENAME_INFO_EX = 22, REPLACE_IF_EXISTS = 0x1, POSIX_SEMANTICS = 0x2 };
    size_t to_len = wcslen(to);
    size_t size = sizeof(FILE_RENAME_INFO) + to_len * sizeof(wchar_t);
    FILE_RENAME_INFO *info = calloc(1, size);
    HANDLE h = info ? CreateFileW(from, DELETE | SYNCHRONIZE, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                                  OPEN_EXISTING, 0, NULL)
                    : INVALID_HANDLE_VALUE;
    bool ok = false;
    if (h != INVALID_HANDLE_VALUE) {
        info->Flags = REPLACE_IF_EXISTS | POSIX_SEMANTICS; /* the union's ReplaceIfExists, as flags */
        info->FileNameLength = (DWORD)(to_len * sizeof(wchar_t));
        memcpy(info->FileName, to, (to_len + 1) * sizeof(wchar_t));
        ok = SetFileInformationByHandle(h, (FILE_INFO_BY_HANDLE_CLASS)FILE_RENAME_INFO_EX, info, (DWORD)size);
        if (ok)
            FlushFileBuffers(h);
        CloseHandle(h);
    }
    free(info);
    return ok;
}

static _Thread_local char *replace_aside; /* pmf_os_replace_aside */

const char *pmf_os_replace_aside(void)
{
    return replace_aside;
}

/* Where no rename replaces a file others hold open (Windows before 10 1809; wine, whose server
 * refuses to rename over any open file, whatever its sharing): the held file is renamed aside
 * (its holders shared deletion, so they allow it and keep reading it), the new one takes the name,
 * and the one aside is deleted, gone once its last holder closes it. Not atomic: for a moment the
 * name is missing (never half-written). A failure, or an aside that cannot be deleted, puts
 * everything back as it was; what cannot be put back is named by pmf_os_replace_aside. */
static bool replace_held(const wchar_t *wfrom, const wchar_t *wto, const char *to)
{
    size_t dir_len = (size_t)(pmf_os_base_name(to) - to), size = strlen(to) + 40;
    char *aside = malloc(size);
    wchar_t *waside = NULL;
    bool moved_aside = false;
    for (int attempt = 0; aside && attempt < 100 && !moved_aside; attempt++) {
        uint8_t r[6];
        if (!pmf_os_random_bytes(r, sizeof r))
            break;
        snprintf(aside, size, "%.*s.%s.replaced-%02x%02x%02x%02x%02x%02x", (int)dir_len, to, to + dir_len, r[0], r[1],
                 r[2], r[3], r[4], r[5]);
        free(waside);
        if (!(waside = to_wide(aside)))
            break;
        moved_aside = MoveFileExW(wto, waside, MOVEFILE_WRITE_THROUGH);
        DWORD e = moved_aside ? 0 : GetLastError();
        if (!moved_aside && e != ERROR_ALREADY_EXISTS && e != ERROR_FILE_EXISTS)
            break;
    }
    bool replaced = moved_aside && MoveFileExW(wfrom, wto, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH);
    bool ok = replaced && DeleteFileW(waside);
    if (moved_aside && !ok) {
        /* the new file steps back to its temporary name, the old one takes its name again */
        bool kept = replaced ? !MoveFileExW(wto, wfrom, MOVEFILE_WRITE_THROUGH) : false;
        if (kept || !MoveFileExW(waside, wto, MOVEFILE_WRITE_THROUGH)) {
            replace_aside = aside;
            aside = NULL;
        }
    }
    free(waside);
    free(aside);
    return ok;
}

int pmf_os_replace(const char *from, const char *to)
{
    free(replace_aside);
    replace_aside = NULL;
    wchar_t *wf = to_wide(from), *wt = wf ? to_wide(to) : NULL;
    int rc = -1;
    /* a folder is refused as rename(2) refuses it, a read-only file as Windows keeps it (wine's
     * MoveFileEx would replace it): neither is ever moved aside below */
    DWORD target = wt ? GetFileAttributesW(wt) : INVALID_FILE_ATTRIBUTES;
    if (target != INVALID_FILE_ATTRIBUTES && (target & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_READONLY))) {
        errno = target & FILE_ATTRIBUTE_DIRECTORY ? EISDIR : EACCES;
    } else if (wt) {
        rc = MoveFileExW(wf, wt, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH) ? 0 : -1;
        if (rc) {
            /* "access denied" over a file: one others hold open */
            DWORD e = GetLastError();
            if (e == ERROR_ACCESS_DENIED && target != INVALID_FILE_ATTRIBUTES && (rename_posix(wf, wt) || replace_held(wf, wt, to)))
                rc = 0;
            else
                errno = errno_from_win32(e);
        }
    }
    free(wf);
    free(wt);
    return rc;
}

static DWORD attributes(const char *path)
{
    wchar_t *w = to_wide(path);
    DWORD a = w ? GetFileAttributesW(w) : INVALID_FILE_ATTRIBUTES;
    if (w && a == INVALID_FILE_ATTRIBUTES)
        set_errno_from_win32();
    free(w);
    return a;
}

bool pmf_os_can_run(const char *path)
{
    DWORD a = attributes(path);
    if (a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY))
        errno = EISDIR;
    return a != INVALID_FILE_ATTRIBUTES && !(a & FILE_ATTRIBUTE_DIRECTORY);
}

bool pmf_os_dir_writable(const char *path)
{
    DWORD a = attributes(path);
    return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY);
}

void pmf_os_set_new_file_mode(int fd)
{
    (void)fd; /* files take their directory's permissions */
}

int pmf_os_scratch_file(const char *path)
{
    size_t dir_len = (size_t)(pmf_os_base_name(path) - path);
    char *prefix = malloc(dir_len + 16);
    if (!prefix) {
        errno = ENOMEM;
        return -1;
    }
    snprintf(prefix, dir_len + 16, "%.*s.pmf-scratch.", (int)dir_len, path);
    HANDLE h = create_delete_on_close(prefix);
    free(prefix);
    return h == INVALID_HANDLE_VALUE ? -1 : fd_from_handle(h, O_RDWR);
}

int pmf_os_mkstemps(char *templ, int suffix_len)
{
    static const char letters[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    size_t len = strlen(templ);
    if (suffix_len < 0 || len < (size_t)suffix_len + 6 || memcmp(templ + len - suffix_len - 6, "XXXXXX", 6)) {
        errno = EINVAL;
        return -1;
    }
    char *x = templ + len - suffix_len - 6;
    for (int attempt = 0; attempt < 100; attempt++) {
        uint8_t r[6];
        if (!pmf_os_random_bytes(r, sizeof r))
            break;
        for (int i = 0; i < 6; i++)
            x[i] = letters[r[i] % (sizeof letters - 1)];
        int fd = pmf_os_open(templ, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

struct pmf_os_dir {
    HANDLE find;
    bool first;
    WIN32_FIND_DATAW entry;
    char name[MAX_PATH * 3 + 1];
};

pmf_os_dir *pmf_os_dir_open(const char *path)
{
    size_t len = strlen(path);
    char *pattern = malloc(len + 3);
    pmf_os_dir *d = calloc(1, sizeof *d);
    wchar_t *w = NULL;
    if (pattern && d) {
        snprintf(pattern, len + 3, "%s%s*", path, len && strchr("/\\", path[len - 1]) ? "" : "\\");
        w = to_wide(pattern);
    }
    d = d && w ? d : (free(d), NULL);
    if (d) {
        d->find = FindFirstFileW(w, &d->entry);
        d->first = true;
        if (d->find == INVALID_HANDLE_VALUE) {
            set_errno_from_win32();
            free(d);
            d = NULL;
        }
    }
    free(w);
    free(pattern);
    return d;
}

const char *pmf_os_dir_next(pmf_os_dir *d)
{
    for (;;) {
        if (!d->first && !FindNextFileW(d->find, &d->entry))
            return NULL;
        d->first = false;
        if (wcscmp(d->entry.cFileName, L".") && wcscmp(d->entry.cFileName, L"..") &&
            to_utf8(d->entry.cFileName, d->name, sizeof d->name))
            return d->name;
    }
}

void pmf_os_dir_close(pmf_os_dir *d)
{
    if (d) {
        FindClose(d->find);
        free(d);
    }
}

const void *pmf_os_map(int fd, size_t size)
{
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    HANDLE mapping = h != INVALID_HANDLE_VALUE ? CreateFileMappingW(h, NULL, PAGE_READONLY, 0, 0, NULL) : NULL;
    const void *view = mapping ? MapViewOfFile(mapping, FILE_MAP_READ, 0, 0, size) : NULL;
    if (!view)
        set_errno_from_win32();
    if (mapping)
        CloseHandle(mapping); /* the view keeps it */
    return view;
}

void pmf_os_unmap(const void *map, size_t size)
{
    (void)size;
    UnmapViewOfFile(map);
}

bool pmf_os_run_mapped(bool (*fn)(void *user), void *user, bool *faulted)
{
    /* Windows refuses to truncate a file while a view of it is mapped: nothing to catch */
    *faulted = false;
    return fn(user);
}

/* ---- processes ---- */

/* One argument quoted for CommandLineToArgvW / the C runtime: backslashes double before a quote. */
static size_t quote_arg(const wchar_t *arg, wchar_t *out)
{
    size_t n = 0;
    bool plain = arg[0] && !wcspbrk(arg, L" \t\n\v\"");
    if (plain) {
        for (const wchar_t *p = arg; *p; p++)
            out ? (void)(out[n] = *p) : (void)0, n++;
        return n;
    }
    if (out)
        out[n] = L'"';
    n++;
    for (const wchar_t *p = arg;; p++) {
        size_t backslashes = 0;
        while (*p == L'\\') {
            p++;
            backslashes++;
        }
        size_t times = !*p ? backslashes * 2 : *p == L'"' ? backslashes * 2 + 1 : backslashes;
        for (size_t i = 0; i < times; i++, n++)
            if (out)
                out[n] = L'\\';
        if (!*p)
            break;
        if (out)
            out[n] = *p;
        n++;
    }
    if (out)
        out[n] = L'"';
    return n + 1;
}

bool pmf_os_spawn(pmf_os_process *p, const char *program, const char *const argv[], FILE *out, FILE *err)
{
    p->id = 0;
    size_t count = 0;
    while (argv[count])
        count++;
    wchar_t **wargs = calloc(count + 1, sizeof *wargs);
    wchar_t *wprogram = to_wide(program), *line = NULL;
    bool ok = wargs && wprogram;
    size_t len = 1;
    for (size_t i = 0; ok && i < count; i++)
        ok = (wargs[i] = to_wide(argv[i])) != NULL && (len += quote_arg(wargs[i], NULL) + 1);
    if (ok && !(line = malloc(len * sizeof *line))) {
        errno = ENOMEM;
        ok = false;
    }
    if (ok) {
        size_t n = 0;
        for (size_t i = 0; i < count; i++) {
            n += quote_arg(wargs[i], line + n);
            line[n++] = i + 1 < count ? L' ' : L'\0';
        }
        if (!count)
            line[0] = L'\0';
    }
    if (out)
        fflush(out);
    if (err)
        fflush(err);
    HANDLE output = out ? (HANDLE)_get_osfhandle(_fileno(out)) : GetStdHandle(STD_OUTPUT_HANDLE);
    HANDLE error = err ? (HANDLE)_get_osfhandle(_fileno(err)) : GetStdHandle(STD_ERROR_HANDLE);
    SECURITY_ATTRIBUTES inherit = { sizeof inherit, NULL, TRUE };
    HANDLE null_in = ok ? CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &inherit, OPEN_EXISTING, 0, NULL)
                        : INVALID_HANDLE_VALUE;
    if (ok) {
        SetHandleInformation(output, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
        SetHandleInformation(error, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
        STARTUPINFOW si = { .cb = sizeof si, .dwFlags = STARTF_USESTDHANDLES, .hStdInput = null_in,
                            .hStdOutput = output, .hStdError = error };
        PROCESS_INFORMATION pi;
        ok = CreateProcessW(wprogram, line, NULL, NULL, TRUE, CREATE_NO_WINDOW, NULL, NULL, &si, &pi);
        if (ok) {
            CloseHandle(pi.hThread);
            p->id = (intptr_t)pi.hProcess;
        } else {
            set_errno_from_win32();
        }
        if (out)
            SetHandleInformation(output, HANDLE_FLAG_INHERIT, 0);
        if (err)
            SetHandleInformation(error, HANDLE_FLAG_INHERIT, 0);
    }
    if (null_in != INVALID_HANDLE_VALUE)
        CloseHandle(null_in);
    for (size_t i = 0; wargs && i < count; i++)
        free(wargs[i]);
    free(wargs);
    free(wprogram);
    free(line);
    return ok;
}

int pmf_os_process_wait(pmf_os_process *p, bool wait, int *exit_code)
{
    HANDLE h = (HANDLE)p->id;
    DWORD r = WaitForSingleObject(h, wait ? INFINITE : 0);
    if (r == WAIT_TIMEOUT)
        return 0;
    DWORD code = 0;
    bool ok = r == WAIT_OBJECT_0 && GetExitCodeProcess(h, &code);
    CloseHandle(h);
    p->id = 0;
    if (!ok) {
        errno = ECHILD;
        return -1;
    }
    *exit_code = (int)code;
    return 1;
}

void pmf_os_process_kill(pmf_os_process *p)
{
    if (p->id) {
        HANDLE h = (HANDLE)p->id;
        TerminateProcess(h, 1);
        WaitForSingleObject(h, INFINITE);
        CloseHandle(h);
        p->id = 0;
    }
}

long pmf_os_pid(void)
{
    return (long)GetCurrentProcessId();
}

bool pmf_os_pid_gone(long pid)
{
    HANDLE h = OpenProcess(SYNCHRONIZE, FALSE, (DWORD)pid);
    if (!h)
        return GetLastError() == ERROR_INVALID_PARAMETER;
    bool ended = WaitForSingleObject(h, 0) == WAIT_OBJECT_0;
    CloseHandle(h);
    return ended;
}

/* ---- threads ---- */

int pmf_os_thread_start(pthread_t *thread, void *(*fn)(void *user), void *user)
{
    return pthread_create(thread, NULL, fn, user);
}

/* ---- libraries, time, randomness, interrupts ---- */

int pmf_os_processors(void)
{
    DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    return n > 0 && n < INT_MAX ? (int)n : 0;
}

uint64_t pmf_os_physical_memory(void)
{
    MEMORYSTATUSEX m = { .dwLength = sizeof m };
    return GlobalMemoryStatusEx(&m) ? m.ullTotalPhys : 0;
}

size_t pmf_os_allocation_size(void *p)
{
    return _msize(p);
}

void *pmf_os_library_open(const char *name, char *why, size_t why_size)
{
    wchar_t *w = to_wide(name);
    HMODULE lib = w ? LoadLibraryW(w) : NULL;
    free(w);
    if (!lib)
        snprintf(why, why_size, "Windows error %lu", (unsigned long)GetLastError());
    return (void *)lib;
}

void *pmf_os_library_symbol(void *lib, const char *name)
{
    FARPROC f = GetProcAddress((HMODULE)lib, name);
    void *p;
    memcpy(&p, &f, sizeof p);
    return p;
}

/* The cycle counter's ticks per second (QueryThreadCycleTime counts the time-stamp counter's
 * ticks), measured once against the performance counter over 20 ms; 0 where there is none. */
static double cycles_per_second;
static pthread_once_t cycles_once = PTHREAD_ONCE_INIT;

static void measure_cycles(void)
{
    ULONG64 probe;
    if (!QueryThreadCycleTime(GetCurrentThread(), &probe))
        return; /* wine 8 has none */
    LARGE_INTEGER f, q0, q1;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&q0);
    unsigned long long t0 = __rdtsc();
    Sleep(20);
    unsigned long long t1 = __rdtsc();
    QueryPerformanceCounter(&q1);
    double seconds = (double)(q1.QuadPart - q0.QuadPart) / (double)f.QuadPart;
    if (seconds > 0)
        cycles_per_second = (double)(t1 - t0) / seconds;
}

double pmf_os_thread_cpu_seconds(void)
{
    /* GetThreadTimes advances in scheduler ticks (15.6 ms; 10 ms under wine): the cycle count,
     * where the system keeps one, is fine-grained */
    pthread_once(&cycles_once, measure_cycles);
    ULONG64 cycles;
    if (cycles_per_second > 0 && QueryThreadCycleTime(GetCurrentThread(), &cycles))
        return (double)cycles / cycles_per_second;
    FILETIME created, ended, kernel, user;
    if (!GetThreadTimes(GetCurrentThread(), &created, &ended, &kernel, &user))
        return 0;
    uint64_t k = ((uint64_t)kernel.dwHighDateTime << 32) | kernel.dwLowDateTime;
    uint64_t u = ((uint64_t)user.dwHighDateTime << 32) | user.dwLowDateTime;
    return (double)(k + u) * 1e-7;
}

bool pmf_os_random_bytes(void *buf, size_t len)
{
    for (size_t done = 0; done < len; done += 256)
        if (!RtlGenRandom((char *)buf + done, (ULONG)(len - done < 256 ? len - done : 256)))
            return false;
    return true;
}

static void (*interrupt_cleanup)(void);

static BOOL WINAPI on_console_event(DWORD event)
{
    (void)event;
    interrupt_cleanup();
    return FALSE; /* then the next handler: by default, the process ends */
}

void pmf_os_on_interrupt(void (*cleanup)(void))
{
    interrupt_cleanup = cleanup;
    SetConsoleCtrlHandler(on_console_event, TRUE);
}

bool pmf_os_window_system(const char **sdl_driver)
{
    *sdl_driver = NULL;
    return true;
}

bool pmf_os_is_terminal(FILE *f)
{
    return _isatty(_fileno(f)) != 0;
}
