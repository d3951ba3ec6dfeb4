/* session.c - the compile in progress: messages, failure, cancel (session.h). */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "session.h"

static struct {
    const pmfc_compile_desc *desc;
    pmfc_result *result;
    pthread_mutex_t lock;                /* one line at a time; the first failure */
    atomic_bool failed;
    bool have_error;
} session = { .lock = PTHREAD_MUTEX_INITIALIZER };

void session_begin(const pmfc_compile_desc *desc, pmfc_result *result)
{
    session.desc = desc;
    session.result = result;
    atomic_store(&session.failed, false);
    session.have_error = false;
}

void session_end(void)
{
    session.desc = NULL;
    session.result = NULL;
}

/* Said under the lock. */
static void say_locked(pmfc_message_kind kind, const char *line)
{
    if (kind == PMFC_ERROR && !session.have_error && session.result) {
        snprintf(session.result->error, sizeof session.result->error, "%s", line);
        session.have_error = true;
    }
    if (session.desc && session.desc->message) {
        session.desc->message(session.desc->user, kind, line);
    } else {
        fputs(line, stderr);
        fputc('\n', stderr);
    }
}

void session_vsay(pmfc_message_kind kind, const char *fmt, va_list ap)
{
    if (atomic_load(&session.failed))
        return;
    char small[1024], *line = small;
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n >= (int)sizeof small && (line = malloc((size_t)n + 1)))
        vsnprintf(line, (size_t)n + 1, fmt, again);
    va_end(again);
    pthread_mutex_lock(&session.lock);
    say_locked(kind, line ? line : small);
    pthread_mutex_unlock(&session.lock);
    if (line != small)
        free(line);
}

void session_say(pmfc_message_kind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    session_vsay(kind, fmt, ap);
    va_end(ap);
}

void session_line_add(session_line *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (l->len + (size_t)n + 1 > l->cap) {
        size_t cap = (l->len + (size_t)n + 1) * 2;
        char *text = realloc(l->text, cap);
        if (!text)
            return; /* the line is said as far as it got */
        l->text = text;
        l->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(l->text + l->len, l->cap - l->len, fmt, ap);
    va_end(ap);
    l->len += (size_t)n;
}

void session_line_say(session_line *l, pmfc_message_kind kind)
{
    if (l->text)
        session_say(kind, "%s", l->text);
    free(l->text);
    *l = (session_line){ 0 };
}

_Noreturn void session_fail(int status, const char *fmt, ...)
{
    pthread_mutex_lock(&session.lock);
    if (!atomic_load(&session.failed)) {
        char line[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(line, sizeof line, fmt, ap);
        va_end(ap);
        if (session.result)
            session.result->status = status;
        say_locked(PMFC_ERROR, line);
        atomic_store(&session.failed, true);
    }
    pthread_mutex_unlock(&session.lock);
    if (!escape_available()) { /* the library's parts called outside pmfc_compile (tests) */
        fflush(NULL);
        _Exit(status);
    }
    escape_now();
}

int session_escaped_status(void)
{
    if (atomic_load(&session.failed))
        return session.result->status;
    session.result->cancelled = true;
    snprintf(session.result->error, sizeof session.result->error, "pmfc: cancelled");
    return 3;
}
