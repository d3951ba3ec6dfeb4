/* cli.c - getopt_long driven by a table, with pmfview's own usage messages (cli.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "text_clean.h"

int cli_usage_error(const char *program, const char *command, const char *fmt, const char *arg)
{
    char clean[256];
    fprintf(stderr, "%s: ", program);
    if (command)
        fprintf(stderr, "%s: ", command);
    fprintf(stderr, fmt, text_clean(arg ? arg : "", clean, sizeof clean));
    fprintf(stderr, " (see '%s %s%s--help')\n", program, command ? command : "", command ? " " : "");
    return CLI_EXIT_USAGE;
}

/* The long option NAME (without "--", up to '=') names, or NULL. */
static const struct option *find_long(const struct option *opts, const char *name)
{
    size_t len = strcspn(name, "=");
    for (; opts && opts->name; opts++)
        if (strlen(opts->name) == len && !strncmp(opts->name, name, len))
            return opts;
    return NULL;
}

int cli_parse(const cli_desc *desc, int argc, char **argv)
{
    /* "-": operands come back in order as CLI_OPERAND; ":": a missing value is told apart. */
    char shorts[64] = "-:";
    if (desc->short_options)
        snprintf(shorts + 2, sizeof shorts - 2, "%s", desc->short_options);
    opterr = 0;
    optind = 0; /* glibc: a full reset, so a second parse (tests) starts afresh */
    int id, rc;
    while ((id = getopt_long(argc, argv, shorts, desc->long_options, NULL)) != -1) {
        const char *arg = argv[optind - 1];
        if (id == ':')
            return cli_usage_error(desc->program, desc->command, "option '%s' needs a value", arg);
        if (id == '?') {
            const struct option *o = !strncmp(arg, "--", 2) ? find_long(desc->long_options, arg + 2) : NULL;
            if (o && o->has_arg == no_argument && strchr(arg, '=')) {
                char name[64];
                snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
                return cli_usage_error(desc->program, desc->command, "option '%s' takes no value", name);
            }
            return cli_usage_error(desc->program, desc->command, "unknown option '%s'", arg);
        }
        if ((rc = desc->handle(desc->user, id, optarg)))
            return rc;
    }
    for (; optind < argc; optind++) /* after "--" */
        if ((rc = desc->handle(desc->user, CLI_OPERAND, argv[optind])))
            return rc;
    return 0;
}

bool cli_parse_unsigned(const char *s, unsigned long long max, unsigned long long *out)
{
    char *end;
    if (*s < '0' || *s > '9')
        return false;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno || v > max)
        return false;
    *out = v;
    return true;
}
