/* cmd_info.c - placeholder until its owner lands it; replaced, never shipped. */
#include "commands.h"

int cmd_info(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("pmfview: 'info' is not built yet\n", stderr);
    return EXIT_RUNTIME;
}
