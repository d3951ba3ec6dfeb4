/* memory_option.h - `--memory MIB`, the memory budget every command of both programs takes
 * (docs/memory.md), declared once. */
#ifndef PMF_MEMORY_OPTION_H
#define PMF_MEMORY_OPTION_H

#define MEMORY_OPTION_MIN_MIB 64
#define MEMORY_OPTION_MAX_MIB 1048576

/* The --memory entry of a command's cli_option table (cli.h), handed over as id. */
#define CLI_OPTION_MEMORY(id) \
    { "memory", 0, (id), CLI_COUNT, "MIB", "MiB", MEMORY_OPTION_MIN_MIB, MEMORY_OPTION_MAX_MIB, 0, \
      "memory budget for the map", "from the machine, docs/memory.md" }

/* Sets the budget to mib MiB (a value the table has checked). */
void memory_option_apply(unsigned long long mib);

#endif
