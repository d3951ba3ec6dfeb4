/* test_util.h - the pmf tests' harness: the one in tests/common. */
#ifndef PMF_TESTS_TEST_UTIL_H
#define PMF_TESTS_TEST_UTIL_H

#include <stdlib.h>

#include "common/check.h"

#endif
