/* pmf_guard.c - parsing a mapped file without dying of SIGBUS when it shrinks under us (a
 * download still being written, a recompile in place): a touched page past the new end faults,
 * and the handler jumps back to pmf_guard_run on that thread instead of killing the process. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

#include "pmf_internal.h"

static _Thread_local sigjmp_buf *guard_jump;
static struct sigaction previous_bus;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;

static void on_sigbus(int sig, siginfo_t *info, void *context)
{
    if (guard_jump)
        siglongjmp(*guard_jump, 1);
    /* not a guarded read: behave as before we were installed */
    if (previous_bus.sa_flags & SA_SIGINFO) {
        previous_bus.sa_sigaction(sig, info, context);
    } else if (previous_bus.sa_handler != SIG_IGN && previous_bus.sa_handler != SIG_DFL) {
        previous_bus.sa_handler(sig);
    } else {
        signal(SIGBUS, SIG_DFL); /* returning re-executes the access, which now kills us */
    }
}

static void install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &previous_bus);
}

bool pmf_guard_run(bool (*fn)(void *user), void *user, bool *faulted)
{
    pthread_once(&install_once, install);
    sigjmp_buf jump;
    *faulted = false;
    if (sigsetjmp(jump, 1)) {
        guard_jump = NULL;
        *faulted = true;
        return false;
    }
    guard_jump = &jump;
    bool ok = fn(user);
    guard_jump = NULL;
    return ok;
}
