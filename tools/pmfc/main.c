/* main.c - pmfc, the PMF map compiler: `pmfc SOURCE -o OUT.pmf` compiles a .pms source
 * (docs/pmfc.md), an RMF, a .map or a BSP; `pmfc --generate NAME --chunks XxYxZ --seed N -o
 * OUT.pmf` builds a city. The driver over the library (pmfc.h): options (options.c), the
 * compile, its progress bar and summary on stderr. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "base/atomic_file.h"
#include "base/cli.h"
#include "base/pmf_os.h"
#include "base/pmf_system.h"
#include "options.h"
#include "pmfc.h"

/* The bar on stderr while it is a terminal and pmfc is not --quiet. Reports come one at a time. */
typedef struct bar_state {
    bool enabled, drawn;
} bar_state;

static void draw_bar(void *user, const pmfc_progress *p)
{
    bar_state *b = user;
    int percent = (int)(p->fraction * 100 + 0.5);
    char bar[31];
    int fill = percent * 30 / 100;
    for (int i = 0; i < 30; i++) bar[i] = i < fill ? '#' : '-';
    bar[30] = 0;
    if (p->tiles > 1)
        fprintf(stderr, "\rpmfc: level %d/%d tile %d/%d %-14.14s [%s] %3d%%", p->level + 1, p->levels, p->tile + 1,
                p->tiles, p->stage, bar, percent);
    else
        fprintf(stderr, "\rpmfc: level %d/%d %-14.14s [%s] %3d%%", p->level + 1, p->levels, p->stage, bar, percent);
    fflush(stderr);
    b->drawn = true;
}

/* The bar's line cleared, so that a line said starts at the left. */
static void clear_bar(bar_state *b)
{
    if (b->drawn) fputs("\r\033[K", stderr);
    b->drawn = false;
}

static void say_line(void *user, pmfc_message_kind kind, const char *line)
{
    (void)kind;
    clear_bar(user);
    fprintf(stderr, "%s\n", line);
}

static void print_summary(const pmfc_compile_desc *d, const pmfc_result *r)
{
    fprintf(stderr, "pmfc: %s -> %s: %zu level(s), %llu chunks, %llu cubes, %llu vertices, %llu lightmaps\n",
            d->source ? d->source : d->generate, d->out_path, r->levels, (unsigned long long)r->chunks,
            (unsigned long long)r->cubes, (unsigned long long)r->vertices, (unsigned long long)r->lightmaps);
    for (int s = 0; s < PMFC_STAGE_COUNT; s++) fprintf(stderr, "  %-14s %8.3f s\n", pmfc_stage_names[s], r->seconds[s]);
    fprintf(stderr, "  %-14s %8.3f s\n", "total", r->total_seconds);
}

int main(int argc, char **argv)
{
    pmf_os_start(&argc, &argv); /* UTF-8 arguments, output bytes as on Linux */
    atomic_file_remove_on_signals(); /* a killed pmfc leaves no temporary map behind */
    /* Blocks of 1 MiB and more go back to the kernel when freed. glibc's own threshold rises to
     * 32 MiB as big blocks are freed, and each thread's arena then keeps what its tiles and
     * chunks freed: RSS grew with the thread count (439 MiB at 16 threads where 2 take 190 on the
     * 64x2x64 city) though the budget's count did not. */
    pmf_tune_allocator(1u << 20, 0);
    pmfc_compile_desc d;
    int rc = pmfc_options_parse(argc, argv, &d);
    if (rc) {
        pmfc_options_free(&d);
        return rc == CLI_DONE ? 0 : rc;
    }
    bar_state bar = { .enabled = !d.quiet && isatty(2) };
    d.progress = bar.enabled ? draw_bar : NULL;
    d.message = say_line;
    d.user = &bar;
    pmfc_result r;
    rc = pmfc_compile(&d, &r);
    clear_bar(&bar);
    if (rc == 0 && !d.quiet)
        print_summary(&d, &r);
    pmfc_options_free(&d);
    return rc;
}
