/* memory_option.h - `--memory MIB`, the memory budget every command takes (docs/memory.md). */
#ifndef PMF_MEMORY_OPTION_H
#define PMF_MEMORY_OPTION_H

#include <stdbool.h>

#define MEMORY_OPTION_HELP "  --memory MIB           memory budget for the map (default from the machine, docs/memory.md)\n"

/* Parses MIB (64..1048576) and sets the budget; false for anything else. */
bool memory_option_set(const char *value);

#endif
