/* cmd_shot.c - placeholder until its owner lands it; replaced, never shipped. */
#include "commands.h"

int cmd_shot(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("pmfview: 'shot' is not built yet\n", stderr);
    return EXIT_RUNTIME;
}
