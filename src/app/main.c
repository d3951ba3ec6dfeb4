/* main.c - pmfview's entry point: dispatches to the viewer, `info` or `shot`. */
#include <string.h>

#include "commands.h"

void print_usage(FILE *out)
{
    fputs("usage: pmfview [FILE] [--level N] [--camera X,Y,Z,YAW,PITCH] [--fov DEG] [options]\n"
          "       pmfview info FILE [--json]\n"
          "       pmfview shot FILE -o OUT.png [options]\n"
          "       pmfview --help | --version\n"
          "\n"
          "Run 'pmfview info --help', 'pmfview shot --help' or see docs/ for every option.\n", out);
}

int main(int argc, char **argv)
{
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
