/* memory.c - the front end's allocator: every block of 4 KiB or more is taken from the memory
 * budget by its usable size (src/pmf/pmf_budget.h's pmf_budget_malloc family) and given back by
 * xfree, so pmfc's memory is accounted as it is allocated, not estimated before the build. Over the budget, the compile
 * ends with one line naming the limit and what it was building (status 2, session.h); nothing is
 * left on disk, since the output exists only as a scratch file until the end (pmf_writer_stream),
 * and the compile's ledger frees what it allocated (pmfc.c). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/pmf_budget.h"
#include "base/pmf_os.h"
#include "base/text_clean.h"
#include "memory.h"
#include "session.h"
#include "world.h"

#define MIB (1ull << 20)

static _Atomic(const char *) where_source = "pmfc";
static _Atomic int where_line;
static _Atomic(const char *) where_stage = "reading the source";

void memory_where(const char *source, int line, const char *stage)
{
    if (source) {
        atomic_store(&where_source, source);
        atomic_store(&where_line, line);
    }
    atomic_store(&where_stage, stage);
}

static _Noreturn void out_of_memory(void)
{
    session_fail(3, "pmfc: out of memory");
}

/* One line, from the first thread over the budget (session_fail); the others leave quietly. */
_Noreturn void memory_over_budget(uint64_t bytes, const char *what)
{
    char source[256];
    text_clean(atomic_load(&where_source), source, sizeof source);
    int line = atomic_load(&where_line);
    char at[32] = "", more[48] = "";
    if (line > 0)
        snprintf(at, sizeof at, ":%d", line);
    if (bytes)
        snprintf(more, sizeof more, ", %llu MiB more needed", (unsigned long long)((bytes + MIB - 1) / MIB));
    /* the front end's style: "FILE:LINE: message" at a source line, else "pmfc: FILE: message" */
    session_fail(2, "%s%s%s: over the memory budget of %llu MiB while %s%s%s%s: %llu MiB in use%s (see --memory)",
                 line > 0 ? "" : "pmfc: ", source, at, (unsigned long long)(pmf_budget_limit() / MIB), atomic_load(&where_stage),
                 what ? " (" : "", what ? what : "", what ? ")" : "", (unsigned long long)(pmf_budget_used() / MIB), more);
}

void memory_take(uint64_t bytes, const char *what)
{
    if (!pmf_budget_take(bytes))
        memory_over_budget(bytes, what);
}

void memory_give(uint64_t bytes)
{
    pmf_budget_give(bytes);
}

/* What the budget's allocator returned: NULL is over the budget when it refused on this thread,
 * else out of memory. */
static void *checked(void *p, size_t size)
{
    if (!p && pmf_budget_refused())
        memory_over_budget(size, NULL);
    if (!p)
        out_of_memory();
    return p;
}

void *xmalloc(size_t size)
{
    pmf_budget_clear_refused();
    return checked(pmf_budget_malloc(size ? size : 1), size);
}

void *xcalloc(size_t n, size_t size)
{
    pmf_budget_clear_refused();
    return checked(pmf_budget_calloc(n ? n : 1, size ? size : 1), n * size);
}

void *xrealloc(void *p, size_t size)
{
    pmf_budget_clear_refused();
    return checked(pmf_budget_realloc(p, size ? size : 1), size);
}

void xfree(void *p)
{
    pmf_budget_free(p);
}
