/* map_compile.c - the source map compile cache: key, lookup, the compile on a thread of this
 * process (pmfc.h) or pmfc as a child process (map_compile.h). */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "map_compile.h"
#include "pmf_system.h"
#include "pmfc.h"

/* A compile on a thread of this process: what the thread reads, and what it reports. */
struct map_compile_job {
    char source[4096], tmp_path[4096], game_dir[4096], relight_dir[4096];
    char full_why[256];              /* the cache's note when the compile was a full one */
    pmfc_compile_desc desc;
    pmfc_result result;
    atomic_bool cancel, finished;
    _Atomic(const char *) stage;     /* the last progress report's (NULL before the first) */
    atomic_int percent;
    map_compile_warnings warnings;   /* written by the compile's message calls, read once finished */
    /* a relight's first picture (map_compile_first): what made it, read once first_ready */
    char first_path[4096];
    atomic_bool first_ready;
    pmfc_result first_result;
    map_compile_warnings first_warnings;
    pthread_t thread;
    map_compile_job *next;           /* in the list of cancelled jobs */
};

/* Cancelled compiles still ending the item of work they are on: joined once finished (or at
 * map_compile_shutdown), so a cancel never waits for them. Touched by the caller's thread only. */
static map_compile_job *cancelled_jobs;

/* What the next relight starts from, kept in memory from one compile on a thread to the next
 * (pmfc.h's keep): made by the caller's thread before the first, touched by one compile at a time
 * (pmfc_compile's), freed at map_compile_shutdown. */
static struct relight_cache *kept_relight;

/* The cancelled jobs that have finished (all of them when wait) joined, their temporary files
 * removed and their memory freed. */
static void reap_cancelled(bool wait)
{
    for (map_compile_job **link = &cancelled_jobs; *link;) {
        map_compile_job *job = *link;
        if (!wait && !atomic_load(&job->finished)) {
            link = &job->next;
            continue;
        }
        pthread_join(job->thread, NULL);
        pmf_os_remove(job->tmp_path);
        pmf_os_remove(job->first_path);
        *link = job->next;
        free(job);
    }
}

void map_compile_shutdown(void)
{
    reap_cancelled(true);
    pmfc_keep_free(kept_relight);
    kept_relight = NULL;
}

static map_compile_state fail(map_compile *mc, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static map_compile_state fail(map_compile *mc, int code, const char *fmt, ...)
{
    char raw[sizeof mc->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    map_compile_clean_line(raw, strlen(raw), mc->message, sizeof mc->message);
    mc->exit_code = code;
    mc->state = MAP_COMPILE_FAILED;
    return mc->state;
}

void map_compile_clean_line(const char *text, size_t len, char *out, size_t out_size)
{
    size_t o = 0;
    const unsigned char *s = (const unsigned char *)text;
    for (size_t i = 0; i < len && o + 5 < out_size;) {
        unsigned char b = s[i];
        size_t n = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
        bool ok = n > 0 && i + n <= len && !(n == 1 && (b < 0x20 || b == 0x7F));
        for (size_t k = 1; ok && k < n; k++)
            ok = (s[i + k] & 0xC0) == 0x80;
        /* Overlong forms, surrogates, past U+10FFFF, and C1 controls (U+0080..U+009F) are not shown raw. */
        if (ok && n == 2)
            ok = b >= 0xC2 && !(b == 0xC2 && s[i + 1] < 0xA0);
        if (ok && n == 3)
            ok = !(b == 0xE0 && s[i + 1] < 0xA0) && !(b == 0xED && s[i + 1] >= 0xA0);
        if (ok && n == 4)
            ok = b <= 0xF4 && !(b == 0xF0 && s[i + 1] < 0x90) && !(b == 0xF4 && s[i + 1] >= 0x90);
        if (!ok) {
            o += (size_t)snprintf(out + o, out_size - o, "\\x%02x", b);
            i++;
            continue;
        }
        if (o + n + 1 > out_size)
            break;
        memcpy(out + o, s + i, n);
        o += n;
        i += n;
    }
    out[o < out_size ? o : out_size - 1] = '\0';
}

/* FNV-1a, 64 bits: a file name from a key, not a security boundary. */
static uint64_t hash_add(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
    return hash_add(h, s, strlen(s) + 1);
}

static uint64_t hash_file(uint64_t h, const pmf_os_file_info *st)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%lld:%lld.%09ld", (long long)st->size, (long long)(st->mtime_ns / 1000000000),
             (long)(st->mtime_ns % 1000000000));
    return hash_str(h, buf);
}

/* mkdir -p with mode 0700 (XDG base directory spec); false with errno set. */
static bool make_dirs(const char *path)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        errno = ENAMETOOLONG;
        return false;
    }
    /* (after a Windows drive letter, "C:\\" comes first) */
    for (char *p = buf + 1;; p++) {
        if ((strchr(pmf_os_separators, *p) && p[-1] != ':') || !*p) {
            char c = *p;
            *p = '\0';
            if (pmf_os_mkdir(buf, 0700) != 0 && errno != EEXIST && errno != EACCES)
                return false;
            *p = c;
            if (!c)
                break;
        }
    }
    pmf_os_file_info st;
    if (pmf_os_stat(buf, &st) != 0)
        return false;
    if (!st.directory) {
        errno = ENOTDIR;
        return false;
    }
    return pmf_os_dir_writable(buf);
}

static bool find_cache_dir(map_compile *mc)
{
    char home[sizeof mc->cache_dir - 16], why[128];
    if (!pmf_os_cache_home(home, sizeof home, why, sizeof why))
        return fail(mc, EXIT_RUNTIME, "no cache directory for compiled maps: %s", why), false;
    int n = snprintf(mc->cache_dir, sizeof mc->cache_dir, "%s/pmfview", home);
    if (n >= (int)sizeof mc->cache_dir - 256)
        return fail(mc, EXIT_RUNTIME, "cache directory path too long: %s", mc->cache_dir), false;
    if (!make_dirs(mc->cache_dir))
        return fail(mc, EXIT_RUNTIME, "cannot create the cache directory %s: %s", mc->cache_dir, strerror(errno)), false;
    return true;
}

/* The compiler that makes the cache file, for its key: $PMFVIEW_PMFC, the pmfc program run as a
 * child process (mc->separate), else this program, which holds the compiler library. */
static bool find_compiler(map_compile *mc, char *out, size_t size)
{
    const char *env = pmf_os_getenv("PMFVIEW_PMFC");
    mc->separate = env && env[0];
    if (!mc->separate) {
        if (!pmf_os_self_path(out, size))
            return fail(mc, EXIT_RUNTIME, "cannot find this program's own path (the cache key): %s", strerror(errno)), false;
        return true;
    }
    snprintf(out, size, "%s", env);
    if (!pmf_os_can_run(out))
        return fail(mc, EXIT_RUNTIME, "cannot run the map compiler %s: %s (set PMFVIEW_PMFC)", out, strerror(errno)), false;
    return true;
}

/* The source's file name with anything but [A-Za-z0-9._-] as '_', at most 64 bytes. */
static void plain_name(const char *path, char *out, size_t size)
{
    const char *base = pmf_os_base_name(path);
    size_t o = 0;
    for (; *base && o + 1 < size && o < 64; base++)
        out[o++] = (isalnum((unsigned char)*base) && (unsigned char)*base < 0x80) || strchr("._-", *base) ? *base : '_';
    out[o] = '\0';
}

static void record_progress(void *user, const pmfc_progress *p)
{
    map_compile_job *job = user;
    atomic_store(&job->percent, (int)(p->fraction * 100 + 0.5));
    atomic_store(&job->stage, p->stage);
}

/* A line of pmfc's, its "pmfc: " dropped, cleaned into out. */
static void clean_pmfc_line(const char *line, size_t len, char *out, size_t out_size)
{
    if (len >= 6 && !memcmp(line, "pmfc: ", 6)) {
        line += 6;
        len -= 6;
    }
    map_compile_clean_line(line, len, out, out_size);
}

void map_compile_warnings_add(map_compile_warnings *w, const char *line, size_t len)
{
    if (w->kept < MAP_COMPILE_WARNINGS_KEPT)
        clean_pmfc_line(line, len, w->lines[w->kept++], sizeof w->lines[0]);
    w->count++;
}

/* The source's warnings are kept (the first ones, and their count), and the relight cache's note
 * when it could not relight; other notes are not shown. The result keeps the first error. */
static void keep_warning(void *user, pmfc_message_kind kind, const char *line)
{
    map_compile_job *job = user;
    if (kind == PMFC_WARNING)
        map_compile_warnings_add(&job->warnings, line, strlen(line));
    else if (kind == PMFC_NOTE && !strncmp(line, "pmfc: cache", 11))
        clean_pmfc_line(line, strlen(line), job->full_why, sizeof job->full_why);
}

/* A relight in two compiles: the first bakes the changed lights and adds the bounces kept from
 * before (its map is the first picture, first_path), the second starts from its sums and bounces. */
static void *compile_job_run(void *arg)
{
    map_compile_job *job = arg;
    job->desc.old_bounce = true;
    pmfc_compile(&job->desc, &job->result);
    if (job->result.status == 0 && job->result.old_bounce && !atomic_load(&job->cancel)) {
        if (pmf_os_replace(job->tmp_path, job->first_path) == 0) {
            job->first_result = job->result;
            job->first_warnings = job->warnings;
            atomic_store(&job->first_ready, true);
        }
        memset(&job->warnings, 0, sizeof job->warnings); /* the second compile says them again */
        job->desc.old_bounce = false;
        pmfc_compile(&job->desc, &job->result);
    }
    atomic_store(&job->finished, true);
    return NULL;
}

/* The library on a thread of its own, with the compiler's budget (docs/memory.md). */
static map_compile_state start_thread(map_compile *mc, const map_compile_desc *desc)
{
    map_compile_job *job = calloc(1, sizeof *job);
    if (!job)
        return fail(mc, EXIT_RUNTIME, "out of memory starting the compile");
    snprintf(job->source, sizeof job->source, "%s", desc->source);
    snprintf(job->tmp_path, sizeof job->tmp_path, "%s", mc->tmp_path);
    if (desc->game_dir)
        snprintf(job->game_dir, sizeof job->game_dir, "%s", desc->game_dir);
    snprintf(job->first_path, sizeof job->first_path, "%.*s.first.pmf", (int)(strlen(mc->tmp_path) - strlen(".tmp.pmf")),
             mc->tmp_path);
    /* what a relight starts from, kept in memory (in a file beside the compiled maps, pmfc --cache,
     * only when that could not be made) */
    if (!kept_relight)
        kept_relight = pmfc_keep_create();
    snprintf(job->relight_dir, sizeof job->relight_dir, "%s", mc->cache_dir);
    job->desc = (pmfc_compile_desc){ .source = job->source, .out_path = job->tmp_path, .cache_dir = job->relight_dir,
                                     .keep = kept_relight,
                                     .game_dir = desc->game_dir ? job->game_dir : NULL, .quiet = true,
                                     .fgds = desc->fgds, .fgd_count = desc->fgd_count,
                                     .created = pmfc_time_now(), .progress = record_progress,
                                     .message = keep_warning, .user = job, .cancel = &job->cancel };
    int e = pmf_os_thread_start(&job->thread, compile_job_run, job);
    if (e) {
        free(job);
        return fail(mc, EXIT_RUNTIME, "cannot start a thread for the compile: %s", strerror(e));
    }
    mc->job = job;
    return mc->state = MAP_COMPILE_RUNNING;
}

/* pmfc as a child process: what survives a crash of the compiler. */
static map_compile_state start_process(map_compile *mc, const map_compile_desc *desc, const char *pmfc)
{
    if (!(mc->log = pmf_os_tmpfile()))
        return fail(mc, EXIT_RUNTIME, "cannot make a temporary file for pmfc's output: %s", strerror(errno));
    /* A source named "-x" would read as an option. */
    char source_arg[4096 + 2];
    snprintf(source_arg, sizeof source_arg, "%s%s", desc->source[0] == '-' ? "./" : "", desc->source);
    enum { MAX_FGDS = 64 };  /* a command line's worth: more are left to the viewer's own drawing */
    const char *argv[9 + 2 * MAX_FGDS];
    int argc = 0;
    argv[argc++] = pmfc;
    argv[argc++] = source_arg;
    argv[argc++] = "-o";
    argv[argc++] = mc->tmp_path;
    if (desc->game_dir) {
        argv[argc++] = "--game";
        argv[argc++] = desc->game_dir;
    }
    for (size_t i = 0; i < desc->fgd_count && i < MAX_FGDS; i++) {
        argv[argc++] = "--fgd";
        argv[argc++] = desc->fgds[i];
    }
    argv[argc++] = "--quiet";
    argv[argc] = NULL;
    if (!pmf_os_spawn(&mc->pmfc, pmfc, argv, mc->log, mc->log)) {
        int e = errno;
        fclose(mc->log);
        mc->log = NULL;
        return fail(mc, EXIT_RUNTIME, "cannot run the map compiler %s: %s", pmfc, strerror(e));
    }
    return mc->state = MAP_COMPILE_RUNNING;
}

map_compile_state map_compile_start(map_compile *mc, const map_compile_desc *desc)
{
    reap_cancelled(false);
    memset(mc, 0, sizeof *mc);
    char real[4096], pmfc[4096], pmfc_real[4096], game[4096];
    pmf_os_file_info src_st, pmfc_st;
    if (!pmf_os_real_path(desc->source, real, sizeof real) || pmf_os_stat(real, &src_st) != 0)
        return fail(mc, EXIT_BAD_INPUT, "%s: file, byte 0: cannot open: %s", desc->source, strerror(errno));
    if (!find_compiler(mc, pmfc, sizeof pmfc) || !find_cache_dir(mc))
        return mc->state;
    if (!pmf_os_real_path(pmfc, pmfc_real, sizeof pmfc_real) || pmf_os_stat(pmfc_real, &pmfc_st) != 0)
        return fail(mc, EXIT_RUNTIME, "cannot run the map compiler %s: %s", pmfc, strerror(errno));

    uint64_t src = hash_str(0xcbf29ce484222325ull, real);
    uint64_t key = hash_file(src, &src_st);
    key = hash_str(key, desc->game_dir ? (pmf_os_real_path(desc->game_dir, game, sizeof game) ? game : desc->game_dir) : "");
    for (size_t i = 0; i < desc->fgd_count; i++) {
        char fgd[4096];
        pmf_os_file_info fgd_st;
        bool known = pmf_os_real_path(desc->fgds[i], fgd, sizeof fgd) && pmf_os_stat(fgd, &fgd_st) == 0;
        key = hash_str(key, known ? fgd : desc->fgds[i]);
        if (known)
            key = hash_file(key, &fgd_st);
    }
    key = hash_file(hash_str(key, pmfc_real), &pmfc_st);
    char name[72];
    plain_name(real, name, sizeof name);
    snprintf(mc->source_key, sizeof mc->source_key, "%016llx", (unsigned long long)src);
    snprintf(mc->out_path, sizeof mc->out_path, "%s/%s-%016llx-%s.pmf", mc->cache_dir, mc->source_key,
             (unsigned long long)key, name);
    pmf_os_file_info st;
    if (pmf_os_stat(mc->out_path, &st) == 0 && st.regular)
        return mc->state = MAP_COMPILE_CACHED;

    static unsigned serial;
    snprintf(mc->tmp_path, sizeof mc->tmp_path, "%s/.%s-%016llx.%ld.%u.tmp.pmf", mc->cache_dir, mc->source_key,
             (unsigned long long)key, pmf_os_pid(), serial++);
    mc->started = pmf_seconds();
    return mc->separate ? start_process(mc, desc, pmfc) : start_thread(mc, desc);
}

/* The last non-empty line pmfc wrote (its error), "pmfc: " dropped, cleaned. */
static void last_line(FILE *log, char *out, size_t size)
{
    char tail[4096];
    out[0] = '\0';
    fflush(log);
    if (fseek(log, 0, SEEK_END) != 0)
        return;
    long end = ftell(log), start = end > (long)sizeof tail ? end - (long)sizeof tail : 0;
    if (fseek(log, start, SEEK_SET) != 0)
        return;
    size_t n = fread(tail, 1, (size_t)(end - start), log);
    while (n && (tail[n - 1] == '\n' || tail[n - 1] == '\r' || tail[n - 1] == ' '))
        n--;
    size_t from = n;
    while (from && tail[from - 1] != '\n')
        from--;
    clean_pmfc_line(tail + from, n - from, out, size);
}

/* True for ".SRC-KEY.PID.N.tmp.pmf" of this source whose process is gone (killed mid-compile). */
static bool orphaned_temp(const char *name, const char *source_key)
{
    size_t klen = strlen(source_key);
    if (name[0] != '.' || strncmp(name + 1, source_key, klen) || name[1 + klen] != '-' || strlen(name) < 2 + klen + 17)
        return false;
    const char *p = name + 2 + klen + 16;
    if (*p != '.')
        return false;
    char *end;
    long pid = strtol(p + 1, &end, 10);
    return *end == '.' && pid > 0 && pid != pmf_os_pid() && pmf_os_pid_gone(pid);
}

/* Removes the other cache files of the same source (older versions, other options) and the
 * temporary files of compiles whose process died. */
static void remove_stale(const map_compile *mc)
{
    pmf_os_dir *d = pmf_os_dir_open(mc->cache_dir);
    if (!d)
        return;
    const char *keep = pmf_os_base_name(mc->out_path);
    size_t klen = strlen(mc->source_key);
    for (const char *name; (name = pmf_os_dir_next(d));) {
        bool stale = !strncmp(name, mc->source_key, klen) && name[klen] == '-' && strcmp(name, keep);
        if (stale || orphaned_temp(name, mc->source_key)) {
            char path[4400];
            snprintf(path, sizeof path, "%s/%s", mc->cache_dir, name);
            pmf_os_remove(path);
        }
    }
    pmf_os_dir_close(d);
}

typedef struct relight_file { char name[256]; uint64_t size; int64_t mtime_ns; } relight_file;

static int newest_first(const void *a, const void *b)
{
    int64_t ta = ((const relight_file *)a)->mtime_ns, tb = ((const relight_file *)b)->mtime_ns;
    return ta < tb ? 1 : ta > tb ? -1 : 0;
}

/* The directory's relight files (pmfc's temporary ones: temp set), grown in *files; their count. */
static size_t list_relight(const char *dir, bool temp, relight_file **files)
{
    pmf_os_dir *d = pmf_os_dir_open(dir);
    size_t count = 0, cap = 0;
    for (const char *name; d && (name = pmf_os_dir_next(d));) {
        size_t len = strlen(name);
        bool is_temp = name[0] == '.' && strstr(name, ".relight.");
        bool is_file = name[0] != '.' && len > 8 && !strcmp(name + len - 8, ".relight");
        char path[4400];
        pmf_os_file_info st;
        snprintf(path, sizeof path, "%s/%s", dir, name);
        if (len >= sizeof (*files)->name || !(temp ? is_temp : is_file) || pmf_os_stat(path, &st) != 0 || !st.regular)
            continue;
        if (count == cap) {
            relight_file *grown = realloc(*files, (cap = cap ? cap * 2 : 16) * sizeof **files);
            if (!grown) break;
            *files = grown;
        }
        relight_file *f = &(*files)[count++];
        snprintf(f->name, sizeof f->name, "%s", name);
        f->size = st.size;
        f->mtime_ns = st.mtime_ns;
    }
    if (d) pmf_os_dir_close(d);
    return count;
}

static bool remove_in(const char *dir, const char *name)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return pmf_os_remove(path) == 0;
}

size_t map_compile_prune_relight(const char *dir, const map_compile_bound *bound)
{
    relight_file *files = NULL;
    size_t removed = 0, count = list_relight(dir, true, &files);
    for (size_t i = 0; i < count; i++)
        if (bound->now_ns - files[i].mtime_ns > 3600 * (int64_t)1000000000) removed += remove_in(dir, files[i].name);
    count = list_relight(dir, false, &files);
    if (count)
        qsort(files, count, sizeof *files, newest_first);
    uint64_t total = 0;
    bool over = false;
    for (size_t i = 0; i < count; i++) {
        total += files[i].size;
        /* least recently used first: once the newest ones fill the cap, every older one goes */
        over = over || total > bound->max_bytes;
        if (i > 0 && (over || bound->now_ns - files[i].mtime_ns > bound->max_age_ns)) removed += remove_in(dir, files[i].name);
    }
    free(files);
    return removed;
}

/* The relight files bounded after a compile (map_compile_prune_relight). */
static void prune_relight(const map_compile *mc)
{
    map_compile_bound bound = { .max_bytes = MAP_COMPILE_RELIGHT_BYTES,
                                .max_age_ns = MAP_COMPILE_RELIGHT_DAYS * 86400 * (int64_t)1000000000,
                                .now_ns = (int64_t)time(NULL) * 1000000000 };
    map_compile_prune_relight(mc->cache_dir, &bound);
}

/* A compile ended with status (0, or pmfc's exit status; negative: killed by that signal) and
 * its error line ("pmfc: " dropped, cleaned): the cache file moved into place, or the failure. */
static void finish(map_compile *mc, int status, const char *line)
{
    prune_relight(mc);
    if (status == 0) {
        if (pmf_os_replace(mc->tmp_path, mc->out_path) != 0) {
            int e = errno;
            pmf_os_remove(mc->tmp_path);
            fail(mc, EXIT_RUNTIME, "pmfc succeeded but its output %s cannot be moved into the cache: %s", mc->tmp_path,
                 strerror(e));
            return;
        }
        remove_stale(mc);
        mc->state = MAP_COMPILE_DONE;
        return;
    }
    pmf_os_remove(mc->tmp_path);
    int code = status == 2 ? EXIT_BAD_INPUT : EXIT_RUNTIME;
    if (line[0])
        fail(mc, code, "%s", line);
    else if (status > 0)
        fail(mc, code, "pmfc failed (exit %d) without saying why", status);
    else
        fail(mc, code, "pmfc was killed by signal %d", -status);
}

/* The finished thread joined and its job freed. */
static void end_job(map_compile *mc)
{
    pthread_join(mc->job->thread, NULL);
    free(mc->job);
    mc->job = NULL;
}

/* pmfc's "pmfc: warning: " lines in the child's log. */
static void log_warnings(FILE *log, map_compile_warnings *w)
{
    char line[4096];
    if (fseek(log, 0, SEEK_SET) != 0)
        return;
    bool line_start = true;
    while (fgets(line, sizeof line, log)) {
        size_t len = strlen(line);
        bool whole = len && line[len - 1] == '\n';
        if (line_start && !strncmp(line, "pmfc: warning: ", 15))
            map_compile_warnings_add(w, line, whole ? len - 1 : len);
        line_start = whole; /* the rest of a longer line is no line of its own */
    }
}

/* What a relight's compile said of itself: what it relit, in how long. */
static void take_relit(map_compile *mc, const pmfc_result *r)
{
    mc->relit = r->relit;
    mc->relit_lights = r->relit_lights;
    mc->relit_luxels = r->relit_luxels;
    mc->seconds = r->total_seconds;
}

bool map_compile_first(map_compile *mc)
{
    if (mc->state != MAP_COMPILE_RUNNING || !mc->job || mc->first_path[0] || !atomic_load(&mc->job->first_ready))
        return false;
    snprintf(mc->first_path, sizeof mc->first_path, "%s", mc->job->first_path);
    take_relit(mc, &mc->job->first_result);
    mc->warnings = mc->job->first_warnings;
    return true;
}

bool map_compile_news(const map_compile *mc, bool first)
{
    return mc->state == MAP_COMPILE_RUNNING && mc->job &&
           (atomic_load(&mc->job->finished) || (first && !mc->first_path[0] && atomic_load(&mc->job->first_ready)));
}

bool map_compile_poll(map_compile *mc)
{
    reap_cancelled(false);
    if (mc->state != MAP_COMPILE_RUNNING)
        return true;
    char line[sizeof mc->message];
    if (mc->job) {
        if (!atomic_load(&mc->job->finished))
            return false;
        const pmfc_result *r = &mc->job->result;
        clean_pmfc_line(r->error, strlen(r->error), line, sizeof line);
        int status = r->status;
        mc->warnings = mc->job->warnings;
        bool two = atomic_load(&mc->job->first_ready);
        take_relit(mc, two ? &mc->job->first_result : r);
        mc->bounce_seconds = two ? r->total_seconds : 0;
        snprintf(mc->full_why, sizeof mc->full_why, "%s", mc->job->full_why);
        if (two)
            pmf_os_remove(mc->job->first_path); /* shown until the final replaces it (its file stays open) */
        end_job(mc);
        finish(mc, status, line);
        return true;
    }
    int status = 0;
    int r = pmf_os_process_wait(&mc->pmfc, false, &status);
    if (r == 0)
        return false;
    last_line(mc->log, line, sizeof line);
    log_warnings(mc->log, &mc->warnings);
    fclose(mc->log);
    mc->log = NULL;
    if (r < 0) {
        pmf_os_remove(mc->tmp_path);
        return fail(mc, EXIT_RUNTIME, "waiting for pmfc: %s", strerror(errno)), true;
    }
    finish(mc, status, line);
    return true;
}

bool map_compile_progress(const map_compile *mc, char *text, size_t size)
{
    const char *stage = mc->job ? atomic_load(&mc->job->stage) : NULL;
    if (!stage)
        return false;
    snprintf(text, size, "%s %d%%", stage, atomic_load(&mc->job->percent));
    return true;
}

double map_compile_elapsed(const map_compile *mc)
{
    return pmf_seconds() - mc->started;
}

void map_compile_cancel(map_compile *mc)
{
    reap_cancelled(false);
    if (mc->job) {
        /* it stops between two items of its work: joined later, the window goes on meanwhile */
        atomic_store(&mc->job->cancel, true);
        mc->job->next = cancelled_jobs;
        cancelled_jobs = mc->job;
        mc->job = NULL;
    }
    if (mc->state == MAP_COMPILE_RUNNING && mc->pmfc.id) {
        pmf_os_process_kill(&mc->pmfc);
        pmf_os_remove(mc->tmp_path);
    }
    if (mc->log)
        fclose(mc->log);
    mc->log = NULL;
    mc->state = MAP_COMPILE_IDLE;
}
