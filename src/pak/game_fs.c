/* game_fs.c - a game directory as one tree: loose files over pakN.pak over ... pak0.pak (see pak.h). */
#include "pak.h"
#include "base/pmf_budget.h"
#include "base/pmf_os.h"

#include <stdio.h>
#include <string.h>

struct game_fs {
    pak_file *paks[PAK_MAX_PAKS];  /* pak0 first */
    char pak_names[PAK_MAX_PAKS][12];
    unsigned pak_count;
    char dir[];
};

/* pakN.pak, else PAKN.PAK (a CD copy on a case-sensitive system): the path of the one there, or false. */
static bool find_pak(const char *dir, unsigned n, char *path, size_t size, char name[12])
{
    static const char *const spellings[] = { "pak%u.pak", "PAK%u.PAK" };
    for (size_t s = 0; s < sizeof spellings / sizeof *spellings; s++) {
        snprintf(name, 12, spellings[s], n);
        snprintf(path, size, "%s/%s", dir, name);
        pmf_os_file_info st;
        if (pmf_os_stat(path, &st) == 0 && st.regular)
            return true;
    }
    return false;
}

game_fs *game_fs_open(const char *dir, pmf_error *err)
{
    pmf_os_file_info st;
    if (pmf_os_stat(dir, &st) != 0 || !st.directory) {
        pmf_error_set(err, dir, "file", 0, "the game directory is not a directory");
        return NULL;
    }
    size_t dir_size = strlen(dir) + 1;
    game_fs *fs = pmf_budget_calloc(1, sizeof *fs + dir_size);
    if (!fs) {
        pmf_error_set(err, dir, "file", 0, "out of memory");
        return NULL;
    }
    memcpy(fs->dir, dir, dir_size);
    char path[4096];
    /* the engines stop at the first number missing */
    while (fs->pak_count < PAK_MAX_PAKS && find_pak(dir, fs->pak_count, path, sizeof path, fs->pak_names[fs->pak_count])) {
        pak_file *p = pak_open(path, err);
        if (!p) {
            game_fs_close(fs);
            return NULL;
        }
        fs->paks[fs->pak_count++] = p;
    }
    return fs;
}

void game_fs_close(game_fs *fs)
{
    if (!fs)
        return;
    for (unsigned i = 0; i < fs->pak_count; i++)
        pak_close(fs->paks[i]);
    pmf_budget_free(fs);
}

unsigned game_fs_pak_count(const game_fs *fs) { return fs->pak_count; }

/* Relative, no "." / ".." component, no drive or stream ':', not empty, no empty component. */
static bool path_allowed(const char *path)
{
    if (!path[0] || path[0] == '/' || path[0] == '\\' || strchr(path, ':'))
        return false;
    const char *part = path;
    for (const char *c = path;; c++) {
        if (*c == '/' || *c == '\\' || !*c) {
            size_t n = (size_t)(c - part);
            if (n == 0 || (n == 1 && part[0] == '.') || (n == 2 && part[0] == '.' && part[1] == '.'))
                return false;
            if (!*c)
                return true;
            part = c + 1;
        }
    }
}

static bool loose_path(const game_fs *fs, const char *path, char *out, size_t size)
{
    if (snprintf(out, size, "%s/%s", fs->dir, path) >= (int)size)
        return false;
    pmf_os_file_info st;
    return pmf_os_stat(out, &st) == 0 && st.regular;
}

/* The latest pak holding path, or -1. */
static int pak_holding(const game_fs *fs, const char *path, int64_t *entry)
{
    for (unsigned i = fs->pak_count; i-- > 0;)
        if ((*entry = pak_find(fs->paks[i], path)) >= 0)
            return (int)i;
    return -1;
}

const char *game_fs_source(const game_fs *fs, const char *path)
{
    char loose[4096];
    int64_t entry;
    if (!path_allowed(path))
        return NULL;
    if (loose_path(fs, path, loose, sizeof loose))
        return "loose";
    int pak = pak_holding(fs, path, &entry);
    return pak >= 0 ? fs->pak_names[pak] : NULL;
}

int game_fs_read(const game_fs *fs, const char *path, uint64_t max_size, uint8_t **bytes, size_t *size, pmf_error *err)
{
    *bytes = NULL;
    *size = 0;
    if (!path_allowed(path)) {
        pmf_error_set(err, fs->dir, "file", 0, "'%s' is no path inside the game directory", path);
        return 0;
    }
    char loose[4096];
    if (loose_path(fs, path, loose, sizeof loose))
        return pmf_read_whole_file(loose, max_size, bytes, size, err) ? 1 : -1;
    int64_t entry;
    int pak = pak_holding(fs, path, &entry);
    if (pak < 0) {
        pmf_error_set(err, fs->dir, "file", 0, "'%s' is neither a file of the directory nor in its %u pak%s", path, fs->pak_count,
                      fs->pak_count == 1 ? "" : "s");
        return 0;
    }
    return pak_read(fs->paks[pak], (uint32_t)entry, max_size, bytes, size, err) ? 1 : -1;
}
