/* session.h - the compile in progress (one a process, pmfc.h): where its messages go, its
 * failure and its way out. Every stage says its lines through session_say, never to stderr. */
#ifndef PMFC_SESSION_H
#define PMFC_SESSION_H

#include <stdarg.h>
#include <stddef.h>

#include "pmfc.h"

/* Says one line (no '\n') through the compile's message callback, or to stderr; the first
 * PMFC_ERROR is the result's error. Nothing is said once the compile failed. */
void session_say(pmfc_message_kind kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void session_vsay(pmfc_message_kind kind, const char *fmt, va_list ap);

/* A line said in pieces (a list of names): appended to, then said once. */
typedef struct session_line {
    char *text;
    size_t len, cap;
} session_line;
void session_line_add(session_line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void session_line_say(session_line *l, pmfc_message_kind kind);

/* Ends the compile from any of its threads: the first failure says its line (an error) and sets
 * the status (2 or 3); every thread then leaves its work (escape.h) and the compile returns. */
_Noreturn void session_fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The compile's start and end (pmfc.c). */
void session_begin(const pmfc_compile_desc *desc, pmfc_result *result);
/* The status of a compile that escaped: 2 or 3 from session_fail, or 3 when cancelled. */
int session_escaped_status(void);
void session_end(void);

#endif
