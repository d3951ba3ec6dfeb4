/* cmd_view.c - placeholder until its owner lands it; replaced, never shipped. */
#include "commands.h"

int cmd_view(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("pmfview: 'view' is not built yet\n", stderr);
    return EXIT_RUNTIME;
}
