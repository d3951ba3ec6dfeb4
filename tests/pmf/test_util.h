/* test_util.h - the pmf tests' assertion macro and small helpers. */
#ifndef PMF_TESTS_TEST_UTIL_H
#define PMF_TESTS_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>

static int test_failures;

#define CHECK(cond, ...)                                                              \
    do {                                                                              \
        if (!(cond)) {                                                                \
            test_failures++;                                                          \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);  \
            fprintf(stderr, __VA_ARGS__);                                             \
            fputc('\n', stderr);                                                      \
        }                                                                             \
    } while (0)

#define TEST_DONE()                                                                   \
    do {                                                                              \
        if (test_failures)                                                            \
            fprintf(stderr, "%d check(s) failed\n", test_failures);                   \
        return test_failures ? 1 : 0;                                                 \
    } while (0)

#endif
