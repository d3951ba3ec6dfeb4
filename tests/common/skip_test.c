/* skip_test.c - stands for a test that means nothing on this system (the Windows build: fork,
 * signals, FIFOs, peak RSS, the shell-driven suites): says why and exits 77, which ctest reports
 * as skipped (SKIP_RETURN_CODE). */
#include <stdio.h>

int main(int argc, char **argv)
{
    printf("skipped on this system: %s\n", argc > 1 ? argv[1] : "(no reason given)");
    return 77;
}
