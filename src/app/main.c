/* main.c - pmfview's entry point: dispatches to the viewer, `info` or `shot`. */
#include <string.h>

#include "base/pmf_os.h"
#include "commands.h"
#include "pmf_budget.h"

int main(int argc, char **argv)
{
    pmf_os_start(&argc, &argv); /* UTF-8 arguments, output bytes as on Linux */
    pmf_budget_set_limit(pmf_budget_default(PMF_BUDGET_VIEWER)); /* --memory overrides it */
    if (argc >= 2) {
        if (!strcmp(argv[1], "info"))
            return cmd_info(argc - 1, argv + 1);
        if (!strcmp(argv[1], "shot"))
            return cmd_shot(argc - 1, argv + 1);
        if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
            print_usage(stdout);
            return 0;
        }
        if (!strcmp(argv[1], "--version")) {
            printf("pmfview %s\n", PMFVIEW_VERSION);
            return 0;
        }
    }
    return cmd_view(argc, argv);
}
