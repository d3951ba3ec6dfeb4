/* memory_option.c - `--memory MIB` for info, shot and the window. */
#include <errno.h>
#include <stdlib.h>

#include "memory_option.h"
#include "pmf_budget.h"

bool memory_option_set(const char *value)
{
    char *end;
    errno = 0;
    unsigned long long mib = strtoull(value, &end, 10);
    if (end == value || *end || errno || value[0] == '-' || mib < 64 || mib > (1ull << 20))
        return false;
    pmf_budget_set_limit(mib << 20);
    return true;
}
