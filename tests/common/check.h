/* check.h - the one assertion harness of the test suites: print where and what, count failures,
 * go on; check_report (or TEST_DONE) turns the count into the exit status.
 *
 *   CHECK(cond);                          CHECK(cond, "printf format %d", args...);
 *   REQUIRE(cond);                        the same, then `return 1` from the test function
 *   CHECK_EQ(a, b);                       integers, both values printed
 *   CHECK_NEAR(a, b, tolerance);          doubles
 *   CHECK_ERROR(ok, err, "block");        a failed call whose pmf_error names the block
 *   check_fail("what %s", why);           a failure found another way
 *   check_run_case(cases, name)           main() of a program of named cases */
#ifndef TESTS_COMMON_CHECK_H
#define TESTS_COMMON_CHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pmf/pmf.h"

static int check_failures;

static void check_failed_at(const char *file, int line, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), unused));
static void check_failed_at(const char *file, int line, const char *what, const char *fmt, ...)
{
    check_failures++;
    fprintf(stderr, "%s:%d: %s failed", file, line, what);
    if (strcmp(fmt, " ") != 0) {   /* " " alone: no message given */
        va_list ap;
        va_start(ap, fmt);
        fputc(':', stderr);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
    }
    fputc('\n', stderr);
}

/* The message is optional: the " " before it joins it (a string literal) into one format, or
 * stands alone when there is none. */
#define CHECK(cond, ...) do { \
    if (!(cond)) \
        check_failed_at(__FILE__, __LINE__, "CHECK(" #cond ")", " " __VA_ARGS__); \
} while (0)

/* For the tests that stop at their first failure (the render tests' functions return 1). */
#define REQUIRE(cond, ...) do { \
    if (!(cond)) { \
        check_failed_at(__FILE__, __LINE__, "REQUIRE(" #cond ")", " " __VA_ARGS__); \
        return 1; \
    } \
} while (0)

#define check_fail(...) check_failed_at(__FILE__, __LINE__, "check", " " __VA_ARGS__)

#define CHECK_EQ(a, b) do { \
    long long check_a_ = (long long)(a), check_b_ = (long long)(b); \
    if (check_a_ != check_b_) \
        check_failed_at(__FILE__, __LINE__, #a " == " #b, " %lld != %lld", check_a_, check_b_); \
} while (0)

#define CHECK_NEAR(a, b, tolerance) do { \
    double check_a_ = (double)(a), check_b_ = (double)(b); \
    if (!(fabs(check_a_ - check_b_) <= (tolerance))) \
        check_failed_at(__FILE__, __LINE__, #a " ~ " #b, " %g vs %g (tolerance %g)", check_a_, check_b_, (double)(tolerance)); \
} while (0)

/* Asserts the call failed and the error names the block; prints the error for the log. */
#define CHECK_ERROR(ok, err, block_name) do { \
    CHECK(!(ok)); \
    char check_buf_[700]; \
    fprintf(stderr, "  expected error: %s\n", pmf_error_format(&(err), check_buf_, sizeof check_buf_)); \
    CHECK(strcmp((err).block, (block_name)) == 0); \
} while (0)

/* Checks that err formats to one line with no control byte in it (the readers' promise). */
static inline void check_error_line_clean(const pmf_error *err)
{
    char line[800];
    pmf_error_format(err, line, sizeof line);
    CHECK(line[0] != '\0');
    for (const unsigned char *p = (const unsigned char *)line; *p; p++)
        if (*p < 0x20 || *p == 0x7F) {
            CHECK(!"control byte in the error line");
            return;
        }
}

static inline int check_report(const char *name)
{
    if (check_failures)
        fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
    else
        printf("%s: all checks passed\n", name);
    return check_failures ? 1 : 0;
}

/* A test program's named cases (the ctest line names one), the list ended by { NULL }. */
typedef struct check_case { const char *name; void (*run)(void); } check_case;

/* Runs the case called name: the exit status (1 when a check failed, 2 when no case has that
 * name). */
static inline int check_run_case(const check_case *cases, const char *name)
{
    for (const check_case *c = cases; c->name; c++)
        if (!strcmp(c->name, name)) {
            c->run();
            return check_report(name);
        }
    fprintf(stderr, "unknown case '%s'\n", name);
    return 2;
}

/* The end of a test's main(): its exit status. */
#define TEST_DONE() return check_report(__FILE__)

#endif
