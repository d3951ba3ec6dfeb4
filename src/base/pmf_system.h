/* pmf_system.h - what the programs ask of the machine, asked one way: a monotonic clock and the
 * number of cores online. */
#ifndef PMF_SYSTEM_H
#define PMF_SYSTEM_H

/* Seconds on a monotonic clock (only differences mean anything). */
double pmf_seconds(void);
/* The cores online, at least 1. */
int pmf_cores(void);

#endif
