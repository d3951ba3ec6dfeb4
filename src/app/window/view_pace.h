/* view_pace.h - how long the window waits after a frame: the vsync a driver does not give (Xvfb,
 * software GL, a compositor that ignores the swap interval), kept here so that an idle window does
 * not take a core from a compile running beside it. A frame that took less than its interval waits
 * out the rest. The interval is the display's refresh period; while a compile runs, at least
 * VIEW_PACE_COMPILE (the compile is what the designer waits for), and VIEW_PACE_STILL while
 * nothing on screen moves (a complete view, the camera where it was, no input): on 2 cores the
 * window's frames are the compile's time. --no-vsync (a period of 0) draws flat out.
 * The clock is the caller's: tests/app/view_units_test.c runs it on a made-up one. */
#ifndef PMFVIEW_APP_VIEW_PACE_H
#define PMFVIEW_APP_VIEW_PACE_H

#include <stdbool.h>

#define VIEW_PACE_COMPILE (1.0 / 30.0)   /* seconds: a frame's least interval while a compile runs */
#define VIEW_PACE_STILL (1.0 / 10.0)     /* ... and while nothing on screen moves */

/* The frame's interval, seconds: refresh_period (0: --no-vsync) as a compile running and a still
 * picture lengthen it. */
double view_pace_interval(double refresh_period, bool compiling, bool still);
/* The seconds a frame that began at frame_start waits at now (0 when it took its interval, or
 * all but a millisecond of it). */
double view_pace_rest(double interval, double frame_start, double now);

#endif
