/* view_bookmarks.h - camera bookmarks kept beside the map in MAP.pmf.cameras.
 *
 * One camera a line, the format of `pmfview shot --cameras`: "X,Y,Z,YAW,PITCH name" (world
 * metres, degrees). Slot N (1..9) is the line named "bookmarkN" (saved in level 0) or
 * "bookmarkN@L" (saved in level L): one line per slot, whatever its level. When there is none,
 * recalling slot N takes the file's N-th camera line (level unsaid), so a hand-written file works
 * too. Saving rewrites
 * the file atomically and keeps every other line as it was. Numbers are written so they read
 * back to exactly the same values.
 */
#ifndef PMFVIEW_APP_VIEW_BOOKMARKS_H
#define PMFVIEW_APP_VIEW_BOOKMARKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VIEW_BOOKMARK_SLOTS 9

/* "MAP.cameras" for the map at map_path. */
void view_bookmarks_path(const char *map_path, char *out, size_t size);

/* False with a message in err when the file cannot be written. */
bool view_bookmark_save(const char *file, int slot, uint32_t level, const double pos[3], float yaw, float pitch,
                        char *err, size_t err_size);
/* False when the file or the slot's camera is missing (err says which). *level = the level it was
 * saved in, or -1 when its line does not say (a hand-written camera: the current level). */
bool view_bookmark_load(const char *file, int slot, long *level, double pos[3], float *yaw, float *pitch,
                        char *err, size_t err_size);

#endif
