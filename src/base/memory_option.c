/* memory_option.c - `--memory MIB` for every command (memory_option.h). */
#include "memory_option.h"
#include "pmf_budget.h"

void memory_option_apply(unsigned long long mib)
{
    pmf_budget_set_limit((uint64_t)mib << 20);
}
