/* escape.c - escape points, one stack a thread (escape.h). */
#include <stdlib.h>

#include "escape.h"

static _Thread_local escape_point *innermost;
static _Thread_local const atomic_bool *stop_flag;

void escape_push(escape_point *e)
{
    e->outer = innermost;
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
    longjmp(e->at, 1);
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
