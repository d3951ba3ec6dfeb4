/* peak_rss.c - peak_rss OUT_FILE COMMAND [ARGS...]: runs the command and writes
 * "exit CODE" or "signal N", then "peak_rss_kib N" (getrusage of the child) to OUT_FILE. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: peak_rss OUT_FILE COMMAND [ARGS...]\n");
        return 1;
    }
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid)
        return 1;
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    FILE *out = fopen(argv[1], "w");
    if (!out)
        return 1;
    if (WIFSIGNALED(status))
        fprintf(out, "signal %d\n", WTERMSIG(status));
    else
        fprintf(out, "exit %d\n", WEXITSTATUS(status));
    fprintf(out, "peak_rss_kib %ld\n", ru.ru_maxrss);
    return fclose(out) != 0;
}
