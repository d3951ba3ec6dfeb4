/* jobs.c - fork-join worker pool: threads pull indices from one atomic counter. */
#include "escape.h"
#include "jobs.h"
#include "pmf_budget.h"
#include "pmf_os.h"
#include "pmf_system.h"

#include <pthread.h>
#include <stdatomic.h>

typedef struct job_run {
    size_t count;
    atomic_size_t next;
    atomic_size_t done;
    void (*fn)(void *user, size_t i);
    void *user;
    const jobs_progress *progress;
    size_t report_step;
    pthread_mutex_t report_lock;
    size_t reported;                /* items done at the last report */
    /* the calling thread's context, which its workers take on */
    bool escapable;                 /* it has an escape point: a worker's escape stops the loop */
    const atomic_bool *stop_flag;
    pmf_budget_ledger *ledger;
    atomic_bool stopped;            /* a worker escaped, or the stop flag was seen */
} job_run;

int jobs_thread_count(int threads)
{
    if (threads > 0)
        return threads;
    return pmf_cores();
}

void jobs_report(const jobs_progress *progress, double fraction)
{
    if (progress && progress->fn)
        progress->fn(progress->user, progress->stage, fraction);
}

static void job_report_item(job_run *run)
{
    size_t done = atomic_fetch_add(&run->done, 1) + 1;
    if (done % run->report_step != 0 || done == run->count)
        return;
    pthread_mutex_lock(&run->report_lock);
    /* Two threads can cross their steps out of order: keep the reported fraction rising. */
    if (done > run->reported) {
        run->reported = done;
        jobs_report(run->progress, (double)done / (double)run->count);
    }
    pthread_mutex_unlock(&run->report_lock);
}

static void job_items(job_run *run)
{
    for (;;) {
        if (run->escapable && (atomic_load(&run->stopped) || escape_stop_requested())) {
            atomic_store(&run->stopped, true);
            break;
        }
        size_t i = atomic_fetch_add(&run->next, 1);
        if (i >= run->count)
            break;
        run->fn(run->user, i);
        if (run->progress && run->progress->fn)
            job_report_item(run);
    }
}

static void *job_worker(void *arg)
{
    job_run *run = arg;
    if (!run->escapable) {
        job_items(run);
        return NULL;
    }
    /* a thread of its own (or worker 0, nested in its caller's points): an escape from an
     * item ends this worker's part, and the loop stops handing out items */
    pmf_budget_ledger *caller_ledger = pmf_budget_thread_ledger();
    const atomic_bool *caller_stop = escape_stop_flag();
    pmf_budget_use_ledger(run->ledger);
    escape_set_stop_flag(run->stop_flag);
    escape_point e;
    escape_push(&e);
    if (setjmp(e.at) == 0) {
        job_items(run);
        escape_pop(&e);
    } else {
        atomic_store(&run->stopped, true);
    }
    pmf_budget_use_ledger(caller_ledger);
    escape_set_stop_flag(caller_stop);
    return NULL;
}

void jobs_parallel_for_progress(size_t count, int threads, void (*fn)(void *user, size_t i), void *user,
                                const jobs_progress *progress)
{
    jobs_report(progress, 0.0);
    if (count == 0) {
        jobs_report(progress, 1.0);
        return;
    }
    job_run run = {
        .count = count, .fn = fn, .user = user, .progress = progress,
        .report_step = count / 100 + 1,
        .escapable = escape_available(), .stop_flag = escape_stop_flag(), .ledger = pmf_budget_thread_ledger(),
    };
    atomic_init(&run.stopped, false);
    atomic_init(&run.next, 0);
    atomic_init(&run.done, 0);
    pthread_mutex_init(&run.report_lock, NULL);

    size_t thread_count = (size_t)jobs_thread_count(threads);
    if (thread_count > count)
        thread_count = count;
    pthread_t workers[256];
    if (thread_count > 256)
        thread_count = 256;
    size_t started = 0;
    /* The calling thread is worker 0; if a thread cannot start, the others do its share. */
    while (started + 1 < thread_count && pmf_os_thread_start(&workers[started], job_worker, &run) == 0)
        started++;
    job_worker(&run);
    for (size_t t = 0; t < started; t++)
        pthread_join(workers[t], NULL);
    pthread_mutex_destroy(&run.report_lock);
    if (atomic_load(&run.stopped))
        escape_now(); /* every item begun has ended: the caller's point may unwind */
    jobs_report(progress, 1.0);
}

void jobs_parallel_for(size_t count, int threads, void (*fn)(void *user, size_t i), void *user)
{
    jobs_parallel_for_progress(count, threads, fn, user, NULL);
}
