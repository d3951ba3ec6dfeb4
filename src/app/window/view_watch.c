/* view_watch.c - mtime/size polling of the open map file for live reload. */
#include "view_watch.h"

#include <string.h>

#include "pmf_os.h"

static view_file_id file_id(const char *path)
{
    view_file_id id;
    memset(&id, 0, sizeof id);
    pmf_os_file_info st;
    if (pmf_os_stat(path, &st) != 0)
        return id;
    id.exists = true;
    id.dev = st.device;
    id.ino = st.inode;
    id.size = st.size;
    id.mtime_ns = st.mtime_ns;
    return id;
}

static bool same_id(const view_file_id *a, const view_file_id *b)
{
    return a->exists == b->exists && a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime_ns == b->mtime_ns;
}

void view_watch_init(view_watch *w, const char *path, double now)
{
    memset(w, 0, sizeof *w);
    w->path = path;
    w->current = file_id(path);
    w->next_poll = now + VIEW_WATCH_PERIOD;
}

bool view_watch_poll(view_watch *w, double now)
{
    if (now < w->next_poll)
        return false;
    w->next_poll = now + VIEW_WATCH_PERIOD;
    view_file_id id = file_id(w->path);
    if (same_id(&id, &w->current)) {
        w->has_pending = false;
        return false;
    }
    if (w->has_pending && same_id(&id, &w->pending) && id.exists) {
        w->current = id;
        w->has_pending = false;
        return true;
    }
    w->pending = id;
    w->has_pending = true;
    return false;
}
