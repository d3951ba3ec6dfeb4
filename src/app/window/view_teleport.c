/* view_teleport.c - the teleport prompt's text and its pose. */
#include "view_teleport.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void update_line(view_teleport *t)
{
    snprintf(t->line, sizeof t->line, "go to X,Y,Z[,YAW,PITCH]: %s_", t->text);
}

void view_teleport_open(view_teleport *t)
{
    memset(t, 0, sizeof *t);
    t->open = true;
    update_line(t);
}

void view_teleport_close(view_teleport *t)
{
    t->open = false;
}

void view_teleport_type(view_teleport *t, const char *utf8)
{
    for (const char *c = utf8; *c; c++) {
        bool allowed = (*c >= '0' && *c <= '9') || strchr(",.-+eE ", *c);
        if (allowed && t->len + 1 < sizeof t->text)
            t->text[t->len++] = *c;
    }
    t->text[t->len] = '\0';
    update_line(t);
}

void view_teleport_backspace(view_teleport *t)
{
    if (t->len)
        t->text[--t->len] = '\0';
    update_line(t);
}

bool view_teleport_parse(const char *text, double pos[3], float *yaw, float *pitch, bool *has_angles)
{
    double v[5];
    int n = 0;
    const char *p = text;
    for (;;) {
        char *end;
        while (*p == ' ')
            p++;
        if (n == 5)
            return false;
        v[n] = strtod(p, &end);
        if (end == p || !isfinite(v[n]))
            return false;
        n++;
        p = end;
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        if (*p++ != ',')
            return false;
    }
    if (n != 3 && n != 5)
        return false;
    for (int i = 0; i < 3; i++)
        pos[i] = v[i];
    *has_angles = n == 5;
    if (n == 5) {
        *yaw = (float)v[3];
        *pitch = (float)v[4];
    }
    return true;
}
