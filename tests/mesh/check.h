/* check.h - the mesh tests' assertions: print where and what, count failures, go on. */
#ifndef TESTS_MESH_CHECK_H
#define TESTS_MESH_CHECK_H

#include <stdio.h>

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

static int check_report(const char *name)
{
    if (check_failures)
        fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
    else
        printf("%s: all checks passed\n", name);
    return check_failures ? 1 : 0;
}

#endif
