/* escape.h - a way out of deep code that cannot return a failure: pmfc's allocator over the
 * memory budget ends one compile, not the process (src/compiler/pmfc.h).
 *
 * A thread pushes an escape point and calls setjmp on it; escape_now() from anywhere below
 * jumps back to the innermost point (popping it). The worker pool (jobs.h) carries the idea
 * across threads: a worker that escapes stops the loop, and once every worker has finished its
 * item the loop escapes on the calling thread. A stop flag asks the same of a loop between
 * items (a cancelled compile).
 *
 *   escape_point e;
 *   escape_push(&e);
 *   if (setjmp(e.at) == 0) {
 *       work();            // may call escape_now() on this thread or a jobs worker
 *       escape_pop(&e);
 *   } else {
 *       ...                // escaped: e is popped; locals changed since setjmp must be volatile
 *   }
 *
 * Only code that holds no lock and nothing unreachable from the owner may escape: the owner
 * frees what was allocated in between (pmf_budget.h's ledger). What the ledger does not own (a
 * FILE *, an fd, another allocator's buffer) is held across code that may escape:
 *
 *   escape_hold h;
 *   escape_hold_take(&h, escape_release_file, f);
 *   char *text = xmalloc(size);   // may escape: f is closed on the way out
 *   ...
 *   escape_hold_let_go(&h);
 *   fclose(f);
 */
#ifndef BASE_ESCAPE_H
#define BASE_ESCAPE_H

#include <setjmp.h>
#include <stdatomic.h>
#include <stdbool.h>

typedef struct escape_hold escape_hold;

typedef struct escape_point {
    jmp_buf at;
    struct escape_point *outer;
    escape_hold *holds; /* this thread's innermost hold when the point was pushed */
} escape_point;

void escape_push(escape_point *e);
/* Pops e, this thread's innermost point, after the work returned normally. */
void escape_pop(escape_point *e);
/* Whether this thread has a point to escape to. */
bool escape_available(void);
/* Jumps to this thread's innermost point, releasing first every hold taken since it was pushed
 * (innermost first); aborts when there is none (a bug). */
_Noreturn void escape_now(void);

/* A resource held on this thread, released by an escape that leaves the frame holding it. Holds
 * nest like points: the innermost is let go first. */
struct escape_hold {
    void (*release)(void *what);
    void *what;
    escape_hold *outer;
};
void escape_hold_take(escape_hold *h, void (*release)(void *what), void *what);
/* Lets go of h, this thread's innermost hold, its resource kept (the caller closes or frees it). */
void escape_hold_let_go(escape_hold *h);
/* fclose for a hold of a FILE *. */
void escape_release_file(void *file);

/* The flag that asks this thread's work to stop (NULL = none): the worker pool checks it
 * between items and hands it to its workers. */
void escape_set_stop_flag(const atomic_bool *flag);
const atomic_bool *escape_stop_flag(void);
bool escape_stop_requested(void);

#endif
