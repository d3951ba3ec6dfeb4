/* cli.c - getopt_long driven by a table of declared options, their values checked and their
 * messages and help written from the table (cli.h). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "text_clean.h"

#define MAX_OPTIONS 64
#define HELP_COLUMN 25               /* where --help's texts start */
#define HELP_WIDTH 100               /* and where they wrap */

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

const cli_option *cli_find(const cli_option *options, int id)
{
    for (const cli_option *o = options; o && o->name; o++)
        if ((o->id ? o->id : o->letter) == id)
            return o;
    return NULL;
}

static void number_text(double v, char *buf, size_t size)
{
    snprintf(buf, size, "%.10g", v);
}

/* "1..64", "(0, 180)", "> 0", ">= 1" or "" (no bound worth saying): the range as messages and
 * --help write it. */
static void range_text(const cli_option *o, char *buf, size_t size)
{
    char lo[32], hi[32];
    number_text(o->min, lo, sizeof lo);
    number_text(o->max, hi, sizeof hi);
    bool above = o->flags & CLI_ABOVE_MIN, below = o->flags & CLI_BELOW_MAX;
    if (o->flags & CLI_NO_MAX) {
        if (o->kind != CLI_NUMBER && o->min == 0 && !above)
            buf[0] = 0;
        else
            snprintf(buf, size, "%s %s", above ? ">" : ">=", lo);
    } else if (above || below) {
        snprintf(buf, size, "%s%s, %s%s", above ? "(" : "[", lo, hi, below ? ")" : "]");
    } else {
        snprintf(buf, size, "%s..%s", lo, hi);
    }
}

int cli_bad_value(const cli_desc *desc, const cli_option *option, const char *want, const char *value)
{
    char fmt[256], range[96], what[160];
    if (!want) {
        range_text(option, range, sizeof range);
        const char *unit = option->unit ? option->unit : "a number";
        if (option->kind == CLI_SIZE)
            snprintf(what, sizeof what, "WxH, each in %s", range);
        else if (!range[0])
            snprintf(what, sizeof what, "%s", unit);
        else
            snprintf(what, sizeof what, "%s %s%s", unit, range[0] == '>' ? "" : "in ", range);
        want = what;
    }
    /* the table's words go into the format: a '%' there would be read as a conversion */
    char safe[192];
    size_t n = 0;
    for (const char *c = want; *c && n + 2 < sizeof safe; c++) {
        if (*c == '%')
            safe[n++] = '%';
        safe[n++] = *c;
    }
    safe[n] = 0;
    snprintf(fmt, sizeof fmt, "--%s wants %s, got '%%s'", option->name, safe);
    return cli_usage_error(desc->program, desc->command, fmt, value);
}

static bool in_range(const cli_option *o, double v)
{
    if (o->flags & CLI_ABOVE_MIN ? !(v > o->min) : !(v >= o->min))
        return false;
    if (o->flags & CLI_NO_MAX)
        return true;
    return o->flags & CLI_BELOW_MAX ? v < o->max : v <= o->max;
}

static bool read_count(const cli_option *o, const char *s, unsigned long long *out)
{
    unsigned long long max = o->flags & CLI_NO_MAX || o->max >= 18446744073709551615.0 ? ~0ull
                                                                                   : (unsigned long long)o->max;
    return cli_parse_unsigned(s, max, out) && in_range(o, (double)*out);
}

/* The value of option o as its kind reads it; false when it is not one. */
static bool read_value(const cli_option *o, const char *s, cli_value *v)
{
    *v = (cli_value){ .text = s };
    switch (o->kind) {
    case CLI_FLAG:
    case CLI_TEXT:
        return true;
    case CLI_COUNT:
        if (!read_count(o, s, &v->count))
            return false;
        v->number = (double)v->count;
        return true;
    case CLI_NUMBER: {
        char *end;
        errno = 0;
        v->number = strtod(s, &end);
        return end != s && !*end && !errno && isfinite(v->number) && in_range(o, v->number);
    }
    case CLI_SIZE: {
        char w[24];
        const char *x = strchr(s, 'x');
        if (!x || (size_t)(x - s) >= sizeof w)
            return false;
        memcpy(w, s, (size_t)(x - s));
        w[x - s] = 0;
        return read_count(o, w, &v->count) && read_count(o, x + 1, &v->count2);
    }
    }
    return false;
}

/* The long option NAME (without "--", up to '=') names, or NULL. */
static const cli_option *find_long(const cli_option *opts, const char *name)
{
    size_t len = strcspn(name, "=");
    for (; opts && opts->name; opts++)
        if (strlen(opts->name) == len && !strncmp(opts->name, name, len))
            return opts;
    return NULL;
}

int cli_parse(const cli_desc *desc, int argc, char **argv)
{
    /* getopt's tables, made from ours. "-": operands come back in order as CLI_OPERAND; ":": a
     * missing value is told apart. */
    struct option longs[MAX_OPTIONS + 1] = { { 0 } };
    char shorts[2 * MAX_OPTIONS + 3] = "-:";
    size_t n = 0, s = 2;
    for (const cli_option *o = desc->options; o->name && n < MAX_OPTIONS; o++, n++) {
        bool value = o->kind != CLI_FLAG;
        longs[n] = (struct option){ o->name, value ? required_argument : no_argument, NULL, o->id ? o->id : o->letter };
        if (o->letter) {
            shorts[s++] = o->letter;
            if (value)
                shorts[s++] = ':';
        }
    }
    shorts[s] = 0;
    opterr = 0;
    optind = 0; /* glibc: a full reset, so a second parse (tests) starts afresh */
    int id, rc;
    while ((id = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        const char *arg = argv[optind - 1];
        if (id == ':' || id == '?') {
            /* --flag=VALUE: glibc's getopt says '?', mingw's ':' */
            const cli_option *o = !strncmp(arg, "--", 2) ? find_long(desc->options, arg + 2) : NULL;
            if (o && o->kind == CLI_FLAG && strchr(arg, '=')) {
                char name[64];
                snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
                return cli_usage_error(desc->program, desc->command, "option '%s' takes no value", name);
            }
            if (id == ':')
                return cli_usage_error(desc->program, desc->command, "option '%s' needs a value", arg);
            return cli_usage_error(desc->program, desc->command, "unknown option '%s'", arg);
        }
        for (const cli_option *o = desc->options; o->name; o++)
            if (o->letter && o->letter == id) /* -x comes back as 'x': hand over the option's id */
                id = o->id ? o->id : o->letter;
        cli_value v = { .text = optarg };
        if (id == CLI_HELP) {
            cli_print_help(desc, stdout);
            return CLI_DONE;
        }
        if (id != CLI_OPERAND) {
            const cli_option *o = cli_find(desc->options, id);
            if (o && !read_value(o, optarg, &v))
                return cli_bad_value(desc, o, NULL, optarg);
        }
        if ((rc = desc->handle(desc->user, id, &v)))
            return rc;
    }
    for (; optind < argc; optind++) /* after "--" */
        if ((rc = desc->handle(desc->user, CLI_OPERAND, &(cli_value){ .text = argv[optind] })))
            return rc;
    return 0;
}

/* text from column `column` on, words wrapped before HELP_WIDTH, each further line indented to
 * HELP_COLUMN; a '\n' in text breaks the line there. */
static void print_wrapped(FILE *out, const char *text, int column)
{
    for (const char *p = text; *p;) {
        if (*p == '\n' || *p == ' ') {
            p++;
            if (p[-1] == '\n') {
                fprintf(out, "\n%*s", HELP_COLUMN, "");
                column = HELP_COLUMN;
            }
            continue;
        }
        int word = (int)strcspn(p, " \n");
        if (column > HELP_COLUMN && column + 1 + word > HELP_WIDTH) {
            fprintf(out, "\n%*s", HELP_COLUMN, "");
            column = HELP_COLUMN;
        } else if (column > HELP_COLUMN && p > text && (p[-1] == ' ')) {
            fputc(' ', out);
            column++;
        }
        fwrite(p, 1, (size_t)word, out);
        column += word;
        p += word;
    }
    fputc('\n', out);
}

void cli_print_help(const cli_desc *desc, FILE *out)
{
    fputs(desc->usage, out);
    for (const cli_option *o = desc->options; o->name; o++) {
        const char *space = o->value_name ? " " : "", *value = o->value_name ? o->value_name : "";
        int len = o->letter ? fprintf(out, "  -%c, --%s%s%s", o->letter, o->name, space, value)
                            : fprintf(out, "  --%s%s%s", o->name, space, value);
        /* a head too long for its column: the text starts on the next line */
        if (len > HELP_COLUMN - 2) {
            fprintf(out, "\n%*s", HELP_COLUMN, "");
        } else {
            fprintf(out, "%*s", HELP_COLUMN - len, "");
        }
        char range[96] = "", text[1024];
        if (o->kind == CLI_COUNT || o->kind == CLI_NUMBER || o->kind == CLI_SIZE)
            range_text(o, range, sizeof range);
        snprintf(text, sizeof text, "%s%s%s%s%s%s", o->help, range[0] ? ", " : "", o->kind == CLI_SIZE && range[0] ? "each " : "",
                 range, o->default_text ? " (default: " : "", o->default_text ? o->default_text : "");
        if (o->default_text)
            snprintf(text + strlen(text), sizeof text - strlen(text), ")");
        print_wrapped(out, text, HELP_COLUMN);
    }
    if (desc->footer)
        fputs(desc->footer, out);
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
