/* cli.h - the one command-line parser of both programs (pmfview's window, info and shot, and
 * pmfc), over getopt_long: `--name value` and `--name=value`, options and operands in any order,
 * `--` ending the options, and every usage error as one line and exit 1 (conventions §4).
 *
 * Each option is declared once, in a cli_option table: its name, the kind of value it takes,
 * that value's range and unit, its default and its help. The parser checks every number against
 * the table and writes the message ("--radius wants chunks in 1..64, got '99'"); `--help` prints
 * the same table (cli_print_help). An option more than one command takes is declared once, as a
 * macro beside what it sets (CLI_OPTION_MEMORY in memory_option.h, the viewer's in
 * app/common/view_options.h). */
#ifndef BASE_CLI_H
#define BASE_CLI_H

#include <stdbool.h>
#include <stdio.h>

/* The id a FILE operand is handed to cli_desc.handle with. */
#define CLI_OPERAND 1
/* What a handler returns to stop parsing with exit status 0 (after printing --help). */
#define CLI_DONE (-1)
/* The exit status of a usage error. */
#define CLI_EXIT_USAGE 1
/* The id of -h / --help, which every command takes: cli_parse prints the help and stops. */
#define CLI_HELP 'h'

typedef enum cli_kind {
    CLI_FLAG = 0,                    /* no value */
    CLI_TEXT,                        /* a string the command reads itself (path, list, X,Y,...) */
    CLI_COUNT,                       /* digits only: a whole number in [min, max] */
    CLI_NUMBER,                      /* a decimal number in [min, max] (ends open: CLI_ABOVE_MIN ...) */
    CLI_SIZE,                        /* WxH: two counts, each in [min, max] */
} cli_kind;

/* cli_option.flags */
enum {
    CLI_ABOVE_MIN = 1,               /* the value must be > min, not >= */
    CLI_BELOW_MAX = 2,               /* < max, not <= */
    CLI_NO_MAX = 4,                  /* no upper bound (max unused) */
};

typedef struct cli_option {
    const char *name;                /* "radius" for --radius; NULL ends the table */
    char letter;                     /* 'o' for -o; 0 = none */
    int id;                          /* handed to cli_desc.handle; the letter when 0 */
    cli_kind kind;
    const char *value_name;          /* "N", "MIB", "WxH" in --help */
    const char *unit;                /* "chunks": "--radius wants chunks in 1..64" (a number without) */
    double min, max;                 /* CLI_COUNT, CLI_NUMBER, CLI_SIZE */
    unsigned flags;                  /* CLI_ABOVE_MIN | CLI_BELOW_MAX | CLI_NO_MAX */
    const char *help;                /* one line of --help; '\n' goes on aligned under it */
    const char *default_text;        /* "(default ...)" after the help; NULL = none said */
} cli_option;

/* An option's value as the table's kind reads it. */
typedef struct cli_value {
    const char *text;                /* as given (NULL for a flag) */
    unsigned long long count;        /* CLI_COUNT; CLI_SIZE: the width */
    unsigned long long count2;       /* CLI_SIZE: the height */
    double number;                   /* CLI_NUMBER; CLI_COUNT too */
} cli_value;

typedef struct cli_desc {
    const char *program;             /* "pmfview", "pmfc": what the messages start with */
    const char *command;             /* "info", "shot"; NULL for the program itself */
    const char *usage;               /* the help's first lines: "usage: ..." and what it does */
    const char *footer;              /* the help's last lines, or NULL */
    const cli_option *options;       /* the table, ended by { 0 } */
    /* Called for each option (id, its checked value) and each operand (id = CLI_OPERAND,
     * v->text the operand), in command-line order. 0 goes on; CLI_DONE or an exit code stops. */
    int (*handle)(void *user, int id, const cli_value *v);
    void *user;
} cli_desc;

/* 0 when every argument was handled; CLI_DONE (after --help, printed here) or an exit code
 * (CLI_EXIT_USAGE after the line). */
int cli_parse(const cli_desc *desc, int argc, char **argv);

/* desc's usage, every option of its table with its value, range and default, and its footer. */
void cli_print_help(const cli_desc *desc, FILE *out);

/* A decimal number of digits only (no sign, space or suffix) of at most max into *out; false
 * otherwise. */
bool cli_parse_unsigned(const char *s, unsigned long long max, unsigned long long *out);

/* Prints "PROGRAM: [COMMAND: ]MESSAGE (see 'PROGRAM [COMMAND ]--help')" where MESSAGE is
 * printf(fmt, arg) with arg cleaned of control bytes, and returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *program, const char *command, const char *fmt, const char *arg);

/* The usage error of a value the option does not take: "--NAME wants WHAT, got 'VALUE'", WHAT
 * from the table (unit and range) when want is NULL. */
int cli_bad_value(const cli_desc *desc, const cli_option *option, const char *want, const char *value);

/* The table's entry of id, or NULL. */
const cli_option *cli_find(const cli_option *options, int id);

/* Every table's --help entry: the first row of each command's table. */
#define CLI_OPTION_HELP { "help", 'h', CLI_HELP, CLI_FLAG, NULL, NULL, 0, 0, 0, "this help", NULL }

#endif
