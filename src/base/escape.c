/* escape.c - escape points, one stack a thread (escape.h). */
#include <stdio.h>
#include <stdlib.h>

#include "escape.h"

static _Thread_local escape_point *innermost;
static _Thread_local const atomic_bool *stop_flag;
static _Thread_local escape_hold *innermost_hold;

void escape_push(escape_point *e)
{
    e->outer = innermost;
    e->holds = innermost_hold;
    innermost = e;
}

void escape_pop(escape_point *e)
{
    innermost = e->outer;
}

bool escape_available(void)
{
    return innermost != NULL;
}

_Noreturn void escape_now(void)
{
    escape_point *e = innermost;
    if (!e)
        abort();
    innermost = e->outer;
    while (innermost_hold != e->holds) {
        escape_hold *h = innermost_hold;
        innermost_hold = h->outer;
        h->release(h->what);
    }
    longjmp(e->at, 1);
}

void escape_hold_take(escape_hold *h, void (*release)(void *what), void *what)
{
    h->release = release;
    h->what = what;
    h->outer = innermost_hold;
    innermost_hold = h;
}

void escape_hold_let_go(escape_hold *h)
{
    innermost_hold = h->outer;
}

void escape_release_file(void *file)
{
    fclose(file);
}

void escape_set_stop_flag(const atomic_bool *flag)
{
    stop_flag = flag;
}

const atomic_bool *escape_stop_flag(void)
{
    return stop_flag;
}

bool escape_stop_requested(void)
{
    return stop_flag && atomic_load(stop_flag);
}
