/* bench_run.c - runs a command and reports its wall time, CPU time and peak resident set size.
 *
 *   bench_run -o RESULT_FILE COMMAND [ARGS...]
 *
 * The command inherits stdin/stdout/stderr. RESULT_FILE gets four lines:
 *   wall_s 0.123456
 *   maxrss_kb 12345
 *   exit 0            (the command's exit code, or 128 + signal)
 *   cpu_s 0.234567    (user + system time of the command and the children it waited for, all
 *                      threads: steadier than wall time on a shared machine)
 * bench_run exits with the command's status, or 127 when it cannot be started.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 4 || strcmp(argv[1], "-o")) {
        fputs("usage: bench_run -o RESULT_FILE COMMAND [ARGS...]\n", stderr);
        return 127;
    }
    const char *result_path = argv[2];
    double t0 = now_seconds();
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "bench_run: fork: %s\n", strerror(errno));
        return 127;
    }
    if (pid == 0) {
        execvp(argv[3], argv + 3);
        fprintf(stderr, "bench_run: %s: %s\n", argv[3], strerror(errno));
        _exit(127);
    }
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "bench_run: wait4: %s\n", strerror(errno));
            return 127;
        }
    }
    double wall = now_seconds() - t0;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    FILE *f = fopen(result_path, "w");
    if (!f) {
        fprintf(stderr, "bench_run: %s: %s\n", result_path, strerror(errno));
        return 127;
    }
    double cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec
                 + ru.ru_stime.tv_usec * 1e-6;
    fprintf(f, "wall_s %.6f\nmaxrss_kb %ld\nexit %d\ncpu_s %.6f\n", wall, ru.ru_maxrss, code, cpu);
    fclose(f);
    return code;
}
