/* pmf_system.c - the machine's clock and cores (pmf_system.h). */
#include <time.h>
#include <unistd.h>

#include "pmf_system.h"

double pmf_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int pmf_cores(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 ? (cores > 4096 ? 4096 : (int)cores) : 1;
}
