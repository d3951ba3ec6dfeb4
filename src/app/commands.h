/* commands.h - the pmfview sub-commands; each returns the process exit code
 * (0 ok, 1 usage, 2 bad input file, 3 runtime failure; ../shared/conventions.md §4). */
#ifndef PMFVIEW_APP_COMMANDS_H
#define PMFVIEW_APP_COMMANDS_H

#include <stdio.h>

#define PMFVIEW_VERSION "0.1.0"
/* A shot's picture and the window, when no --size says otherwise. */
#define PMFVIEW_DEFAULT_WIDTH 1280
#define PMFVIEW_DEFAULT_HEIGHT 720

enum { EXIT_USAGE = 1, EXIT_BAD_INPUT = 2, EXIT_RUNTIME = 3 };

/* argv[0] is the sub-command's name ("info", "shot") or the program for the viewer. */
int cmd_info(int argc, char **argv);
int cmd_shot(int argc, char **argv);
int cmd_view(int argc, char **argv);

/* pmfview's usage (cmd_view.c): every command, the window's options. */
void print_usage(FILE *out);

#endif
