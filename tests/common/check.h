/* check.h - test assertions shared by the test suites: print where and what, count failures, go on. */
#ifndef TESTS_COMMON_CHECK_H
#define TESTS_COMMON_CHECK_H

#include <stdio.h>

#include "pmf/pmf.h"

static int check_failures;

#define CHECK(cond) \
    ((cond) ? (void)0 : (void)(check_failures++, fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond)))

#define CHECK_EQ(a, b) do { \
    long long check_a_ = (long long)(a), check_b_ = (long long)(b); \
    if (check_a_ != check_b_) { \
        check_failures++; \
        fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, #b, check_a_, check_b_); \
    } \
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

static int check_report(const char *name)
{
    if (check_failures)
        fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
    else
        printf("%s: all checks passed\n", name);
    return check_failures ? 1 : 0;
}

#endif
