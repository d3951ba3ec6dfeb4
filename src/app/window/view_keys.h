/* view_keys.h - the window's keys, each declared once as a row of the table in view_keys.c: the
 * key handler matches a key press against it, and the F1 list (view_hud.c) shows its lines. */
#ifndef PMFVIEW_APP_VIEW_KEYS_H
#define PMFVIEW_APP_VIEW_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Modifiers a row wants held. Their values are their weights: when several rows match a press,
 * the one that wants the most (Ctrl over Alt over Shift) acts first, then the table's order. */
enum { VIEW_KEY_SHIFT = 1, VIEW_KEY_ALT = 2, VIEW_KEY_CTRL = 4, VIEW_KEY_ALL_MODS = 7 };
/* A row's flags. */
enum {
    VIEW_KEY_REPEATS = 1,            /* acts again while held (the keyboard's repeat) */
    VIEW_KEY_LIGHTS = 2,             /* acts on every light streamed in so far: learn them first */
};

struct viewer;
struct view_key;

typedef struct view_key_press {
    const struct view_key *key;      /* the row that matched */
    bool shift, ctrl;                /* held */
    int index;                       /* a scancode range's key: 0 for its first */
    double t;                        /* seconds, the window's clock */
} view_key_press;

typedef struct view_key {
    const char *keys, *help;         /* its line in the F1 list; NULL: on the line of the row above */
    int32_t sym;                     /* SDL_Keycode; 0: a range of scancodes (the digit row on any layout) */
    int scan[2];                     /* SDL_Scancode, first and last */
    unsigned mods;                   /* VIEW_KEY_SHIFT... that must be held; the action may read others */
    unsigned flags;                  /* VIEW_KEY_REPEATS, VIEW_KEY_LIGHTS */
    /* false: not for this press (a row below may take it); NULL: a key that is read elsewhere,
     * only listed (flying, the mouse) */
    bool (*action)(struct viewer *v, const view_key_press *k);
    int arg;                         /* the action's own: a mode, a region kind, a step */
} view_key;

/* The window's keys (view_keys.c), in the F1 list's order. */
extern const view_key viewer_keys[];
extern const size_t viewer_key_count;

#endif
