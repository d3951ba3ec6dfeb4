/* view_teleport.h - the window's teleport prompt: G opens a one-line input, the user types
 * "X,Y,Z[,YAW,PITCH]" (world metres, degrees), Enter moves the camera there, Esc closes it.
 * No SDL here: the window feeds it typed text and keys. */
#ifndef PMFVIEW_APP_VIEW_TELEPORT_H
#define PMFVIEW_APP_VIEW_TELEPORT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct view_teleport {
    bool open;
    char text[96];
    size_t len;
    char line[160];                  /* what the HUD shows while open */
} view_teleport;

void view_teleport_open(view_teleport *t);
void view_teleport_close(view_teleport *t);
/* Appends typed UTF-8 text (characters that cannot be part of a pose are dropped). */
void view_teleport_type(view_teleport *t, const char *utf8);
void view_teleport_backspace(view_teleport *t);
/* Parses "X,Y,Z" or "X,Y,Z,YAW,PITCH" (blanks allowed around the numbers); *has_angles says
 * which. False when malformed or not finite. */
bool view_teleport_parse(const char *text, double pos[3], float *yaw, float *pitch, bool *has_angles);

#endif
