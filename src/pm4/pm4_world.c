/* pm4_world.c - a PM4 world: one file, or every *_XX_YY.pm4 tile of a directory (see pm4_world.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm4_world.h"
#include "pmf_internal.h"
#include "pmf_os.h"
#include "base/order.h"

static int compare_tiles(const void *a, const void *b)
{
    const pm4_tile *x = *(pm4_tile *const *)a, *y = *(pm4_tile *const *)b;
    if (x->tile_y != y->tile_y)
        return x->tile_y < y->tile_y ? -1 : 1;
    return (x->tile_x > y->tile_x) - (x->tile_x < y->tile_x);
}

static bool add_tile(pm4_world *w, const char *path, pmf_error *err)
{
    if (w->tile_count == PM4_WORLD_MAX_TILES) {
        pmf_error_set(err, path, "file", 0, "more than %d PM4 tiles in the directory", PM4_WORLD_MAX_TILES);
        return false;
    }
    pmf_os_file_info st;
    if (pmf_os_stat(path, &st) == 0 && st.size > PM4_WORLD_MAX_BYTES - w->total_bytes) {
        pmf_error_set(err, path, "file", 0, "the tiles together are larger than %llu bytes",
                      (unsigned long long)PM4_WORLD_MAX_BYTES);
        return false;
    }
    pm4_tile *t = pm4_open(path, err);
    if (!t)
        return false;
    w->tiles[w->tile_count++] = t;
    w->total_bytes += st.size;
    return true;
}

static void finish_bounds(pm4_world *w)
{
    bool any = false;
    for (uint32_t i = 0; i < w->tile_count; i++) {
        const pm4_tile *t = w->tiles[i];
        if (!t->has_bounds)
            continue;
        for (int k = 0; k < 3; k++) {
            if (!any || t->bounds_min[k] < w->bounds_min[k])
                w->bounds_min[k] = t->bounds_min[k];
            if (!any || t->bounds_max[k] > w->bounds_max[k])
                w->bounds_max[k] = t->bounds_max[k];
        }
        any = true;
    }
    w->has_bounds = any;
}

pm4_world *pm4_world_open(const char *path, pmf_error *err)
{
    pm4_world *w = calloc(1, sizeof *w);
    if (!w) {
        pmf_error_set(err, path, "file", 0, "out of memory");
        return NULL;
    }
    pmf_os_file_info st;
    if (pmf_os_stat(path, &st) != 0 || !st.directory) {
        if (!add_tile(w, path, err)) {
            pm4_world_close(w);
            return NULL;
        }
        finish_bounds(w);
        return w;
    }
    w->directory = true;
    pmf_os_dir *d = pmf_os_dir_open(path);
    if (!d) {
        pmf_error_set(err, path, "file", 0, "cannot open the directory: %s", strerror(errno));
        free(w);
        return NULL;
    }
    bool ok = true;
    for (const char *name; ok && (name = pmf_os_dir_next(d));) {
        int x, y;
        if (!pm4_tile_coords(name, &x, &y))
            continue;
        char file[4096];
        if (snprintf(file, sizeof file, "%s/%s", path, name) >= (int)sizeof file)
            continue;
        ok = add_tile(w, file, err);
    }
    pmf_os_dir_close(d);
    if (ok && !w->tile_count) {
        pmf_error_set(err, path, "file", 0, "a directory with no *_XX_YY.pm4 tiles");
        ok = false;
    }
    if (!ok) {
        pm4_world_close(w);
        return NULL;
    }
    order_sort(w->tiles, w->tile_count, sizeof *w->tiles, compare_tiles);
    finish_bounds(w);
    return w;
}

void pm4_world_close(pm4_world *w)
{
    if (!w)
        return;
    for (uint32_t i = 0; i < w->tile_count; i++)
        pm4_close(w->tiles[i]);
    free(w);
}

bool pm4_directory_has_tiles(const char *path)
{
    pmf_os_dir *d = pmf_os_dir_open(path);
    if (!d)
        return false;
    bool found = false;
    int x, y;
    for (const char *name; !found && (name = pmf_os_dir_next(d));)
        found = pm4_tile_coords(name, &x, &y);
    pmf_os_dir_close(d);
    return found;
}
