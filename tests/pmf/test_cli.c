/* test_cli.c - the declared options of base/cli.h: values checked against the table's ranges
 * (closed, open, unbounded, WxH), the message written from the table, --help printed from it
 * (range, default, wrapped under 100 columns), operands and flags in command-line order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/check.h"
#include "base/cli.h"

enum { OPT_RADIUS = 256, OPT_FOV, OPT_SEED, OPT_SIZE, OPT_FAST, OPT_NAME };

static const cli_option table[] = {
    CLI_OPTION_HELP,
    { "radius", 0, OPT_RADIUS, CLI_COUNT, "N", "chunks", 1, 64, 0, "streaming radius", "8" },
    { "fov", 0, OPT_FOV, CLI_NUMBER, "DEG", "degrees", 0, 180, CLI_ABOVE_MIN | CLI_BELOW_MAX, "field of view", NULL },
    { "seed", 0, OPT_SEED, CLI_COUNT, "N", NULL, 0, 0, CLI_NO_MAX, "a seed", NULL },
    { "size", 0, OPT_SIZE, CLI_SIZE, "WxH", NULL, 1, 8192, 0, "picture size", "1280x720" },
    { "fast", 'f', OPT_FAST, CLI_FLAG, NULL, NULL, 0, 0, 0,
      "a long help text that has to wrap because it goes on and on past the hundredth column of the terminal", NULL },
    { "name", 'n', OPT_NAME, CLI_TEXT, "TEXT", NULL, 0, 0, 0, "a name", NULL },
    { 0 },
};

typedef struct seen {
    unsigned long long radius, seed, w, h;
    double fov;
    int fast;
    const char *name, *operands[4];
    int operand_count;
} seen;

static int handle(void *user, int id, const cli_value *v)
{
    seen *s = user;
    switch (id) {
    case OPT_RADIUS: s->radius = v->count; break;
    case OPT_FOV: s->fov = v->number; break;
    case OPT_SEED: s->seed = v->count; break;
    case OPT_SIZE: s->w = v->count; s->h = v->count2; break;
    case OPT_FAST: s->fast++; break;
    case OPT_NAME: s->name = v->text; break;
    case CLI_OPERAND:
        if (s->operand_count < 4)
            s->operands[s->operand_count++] = v->text;
        break;
    }
    return 0;
}

/* Parses the words of line; the exit status, and what stderr said in err. */
static int parse(const char *line, seen *s, char *err, size_t err_size)
{
    static char buf[512]; /* the values handed over point into it: they outlive the call */
    char *argv[32];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", line);
    argv[argc++] = "prog";
    for (char *save = NULL, *w = strtok_r(buf, " ", &save); w && argc < 31; w = strtok_r(NULL, " ", &save))
        argv[argc++] = w;
    argv[argc] = NULL;
    *s = (seen){ 0 };
    /* stderr's descriptor pointed at a scratch file for the call (stderr itself may be no
     * lvalue: mingw's is a macro) */
    fflush(stderr);
    FILE *capture = tmpfile();
    int saved = dup(2);
    dup2(fileno(capture), 2);
    int rc = cli_parse(&(cli_desc){ .program = "prog", .command = "cmd", .usage = "usage: prog\n", .options = table,
                                    .handle = handle, .user = s }, argc, argv);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(capture);
    size_t n = fread(err, 1, err_size - 1, capture);
    err[n] = 0;
    fclose(capture);
    return rc;
}

static void expect_refused(const char *line, const char *message)
{
    seen s;
    char err[512];
    int rc = parse(line, &s, err, sizeof err);
    CHECK(rc == CLI_EXIT_USAGE && strstr(err, message) != NULL && strchr(err, '\n') == err + strlen(err) - 1,
          "'%s': exit %d, said '%s' (want '%s')", line, rc, err, message);
}

int main(void)
{
    seen s;
    char err[512];
    CHECK_EQ(parse("a --radius 64 --fov=179.5 -f b --size 640x360 --seed 18446744073709551615 -n x -- --fast", &s, err,
                   sizeof err), 0);
    CHECK_EQ(s.radius, 64);
    CHECK_NEAR(s.fov, 179.5, 1e-9);
    CHECK(s.seed == 18446744073709551615ull);
    CHECK(s.w == 640 && s.h == 360);
    CHECK_EQ(s.fast, 1);
    CHECK(s.name && !strcmp(s.name, "x"));
    CHECK(s.operand_count == 3 && !strcmp(s.operands[0], "a") && !strcmp(s.operands[1], "b") &&
          !strcmp(s.operands[2], "--fast"), "%d operands: %s %s %s", s.operand_count, s.operands[0], s.operands[1], s.operands[2]);

    expect_refused("--radius 0", "prog: cmd: --radius wants chunks in 1..64, got '0' (see 'prog cmd --help')");
    expect_refused("--radius 65", "--radius wants chunks in 1..64, got '65'");
    expect_refused("--radius -1", "--radius wants chunks in 1..64, got '-1'");
    expect_refused("--radius 8x", "--radius wants chunks in 1..64, got '8x'");
    expect_refused("--fov 0", "--fov wants degrees in (0, 180), got '0'");
    expect_refused("--fov 180", "--fov wants degrees in (0, 180), got '180'");
    expect_refused("--fov nan", "--fov wants degrees in (0, 180), got 'nan'");
    expect_refused("--seed -3", "--seed wants a number, got '-3'");
    expect_refused("--size 0x10", "--size wants WxH, each in 1..8192, got '0x10'");
    expect_refused("--size 640", "--size wants WxH, each in 1..8192, got '640'");
    expect_refused("--size 640x8193", "--size wants WxH, each in 1..8192, got '640x8193'");
    expect_refused("--fast=1", "option '--fast' takes no value");
    expect_refused("--radius", "option '--radius' needs a value");
    expect_refused("--nope", "unknown option '--nope'");
    expect_refused("--radius \x1b[31m", "got '\\x1B[31m'"); /* escape bytes are shown, never sent */

    /* --help: from the table, every line under 100 columns, range and default said */
    FILE *help = tmpfile();
    cli_print_help(&(cli_desc){ .program = "prog", .usage = "usage: prog\n", .options = table }, help);
    rewind(help);
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, help);
    text[n] = 0;
    fclose(help);
    CHECK(strstr(text, "  --radius N             streaming radius, 1..64 (default: 8)\n") != NULL, "%s", text);
    CHECK(strstr(text, "  --fov DEG              field of view, (0, 180)\n") != NULL, "%s", text);
    CHECK(strstr(text, "  --size WxH             picture size, each 1..8192 (default: 1280x720)\n") != NULL, "%s", text);
    CHECK(strstr(text, "  -f, --fast             a long help text") != NULL, "%s", text);
    CHECK(strstr(text, "\n                         ") != NULL, "the long help wraps: %s", text);
    for (char *line = text, *end; *line; line = end + 1) {
        end = strchr(line, '\n');
        REQUIRE(end);
        CHECK(end - line <= 100, "a help line of %d columns", (int)(end - line));
    }
    TEST_DONE();
}
