/* fuzz_check.h - what every fuzz target asserts of a reader's error line: one line, no control
 * byte (a crash of the target is the finding). */
#ifndef TESTS_FUZZ_CHECK_H
#define TESTS_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static inline void fuzz_check_line(const char *line)
{
    for (const unsigned char *p = (const unsigned char *)line; *p; p++)
        if (*p < 0x20 || *p == 0x7F) {
            fprintf(stderr, "control byte 0x%02x in the error line\n", *p);
            abort();
        }
}

#endif
