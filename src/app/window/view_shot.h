/* view_shot.h - the window's screenshots: timestamped names, framebuffer read-back. */
#ifndef PMFVIEW_APP_VIEW_SHOT_H
#define PMFVIEW_APP_VIEW_SHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* "DIR/pmfview-YYYYmmdd-HHMMSS.png" (local time of `when`), or "...-N.png" with the smallest
 * N >= 2 that names no existing file. dir NULL or "" = the current directory. */
bool view_shot_path(const char *dir, time_t when, char *out, size_t size);


#endif
