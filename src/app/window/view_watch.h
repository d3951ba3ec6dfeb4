/* view_watch.h - notices that the open map file was rewritten, once the new version is stable.
 *
 * Polls the file's identity (device, inode, size, mtime) every VIEW_WATCH_PERIOD seconds; a
 * changed identity is reported only when the next poll sees it unchanged, so a file still being
 * written (or a rename not yet landed) is not read half-done.
 */
#ifndef PMFVIEW_APP_VIEW_WATCH_H
#define PMFVIEW_APP_VIEW_WATCH_H

#include <stdbool.h>
#include <stdint.h>

/* A save reaches the compile after two polls, a frame apart at 60 Hz (0.017 to 0.034 s): a light
 * edit's relight is meant to be on screen within a second of the save (issue 40), and a stat a
 * frame costs nothing. */
#define VIEW_WATCH_PERIOD 0.015

typedef struct view_file_id {
    bool exists;
    uint64_t dev, ino, size;
    int64_t mtime_ns;
} view_file_id;

typedef struct view_watch {
    const char *path;           /* not copied */
    view_file_id current;       /* the version on screen (or last tried) */
    view_file_id pending;       /* a different version seen at the last poll */
    bool has_pending;
    double next_poll;
} view_watch;

void view_watch_init(view_watch *w, const char *path, double now);
/* True when a new, stable version is there; the caller reloads it (the watch then treats it as
 * current, whether the reload worked or not, so a broken file is tried once per change). */
bool view_watch_poll(view_watch *w, double now);

#endif
