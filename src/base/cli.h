/* cli.h - the one command-line parser of both programs (pmfview's window, info and shot, and
 * pmfc), over glibc's getopt_long: `--name value` and `--name=value`, options and operands in
 * any order, `--` ending the options, and every usage error as one line and exit 1
 * (conventions §4). */
#ifndef BASE_CLI_H
#define BASE_CLI_H

#include <getopt.h>
#include <stdbool.h>

/* The id a FILE operand is handed to cli_desc.handle with. */
#define CLI_OPERAND 1
/* What a handler returns to stop parsing with exit status 0 (after printing --help). */
#define CLI_DONE (-1)
/* The exit status of a usage error. */
#define CLI_EXIT_USAGE 1

typedef struct cli_desc {
    const char *program;             /* "pmfview", "pmfc": what the messages start with */
    const char *command;             /* "info", "shot"; NULL for the program itself */
    const char *short_options;       /* getopt's letters ("ho:"); NULL = none */
    const struct option *long_options;
    /* Called for each option (id = its val, value = its argument or NULL) and each operand
     * (id = CLI_OPERAND), in command-line order. 0 goes on; CLI_DONE or an exit code stops. */
    int (*handle)(void *user, int id, const char *value);
    void *user;
} cli_desc;

/* 0 when every argument was handled; CLI_DONE or an exit code (CLI_EXIT_USAGE after the line). */
int cli_parse(const cli_desc *desc, int argc, char **argv);

/* A decimal number of digits only (no sign, space or suffix) of at most max into *out; false
 * otherwise. */
bool cli_parse_unsigned(const char *s, unsigned long long max, unsigned long long *out);

/* Prints "PROGRAM: [COMMAND: ]MESSAGE (see 'PROGRAM [COMMAND ]--help')" where MESSAGE is
 * printf(fmt, arg) with arg cleaned of control bytes, and returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *program, const char *command, const char *fmt, const char *arg);

#endif
