/* test_gl_debug.c - GL errors are seen (render.h, render_gl_debug): `test_gl_debug PMFVIEW`
 *   - FATAL (the tests' and debug builds' mode): a GL error provoked on purpose prints one
 *     "pmfview: GL error (...): ..." line and aborts the process;
 *   - REPORT (`--gl-debug`): the same error is printed and counted, the program goes on;
 *   - `pmfview shot --gl-debug` renders a map with no GL message and exit 0.
 * Exit 77 (skipped) without a headless GL. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glad/gl.h>

#include "base/pmf_os.h"
#include "render.h"
#include "common/check.h"
#include "common/programs.h"


/* Binding a name glGenBuffers never returned is GL_INVALID_OPERATION in a core context. */
static void provoke_error(void)
{
    glBindBuffer(GL_ARRAY_BUFFER, 0x7fff1234u);
}

/* Runs mode in a child with stderr into text; returns the wait status. */
static int in_child(render_gl_debug mode, char *text, size_t size)
{
    int pipefd[2];
    if (pipe(pipefd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pipefd[1], 2);
        close(pipefd[0]);
        pmf_os_setenv("PMFVIEW_GL_DEBUG", NULL);
        render_set_gl_debug(mode);
        char err[256];
        render_headless *ctx = render_headless_create(err, sizeof err);
        if (!ctx)
            _exit(77);
        unsigned before = render_gl_error_count();
        provoke_error();
        bool counted = render_gl_error_count() == before + 1;
        render_headless_destroy(ctx);
        _exit(counted ? 0 : 5);
    }
    close(pipefd[1]);
    size_t n = 0;
    ssize_t got;
    while (n + 1 < size && (got = read(pipefd[0], text + n, size - 1 - n)) > 0)
        n += (size_t)got;
    text[n] = '\0';
    close(pipefd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    return st;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: test_gl_debug PMFVIEW\n", stderr);
        return 2;
    }
    char text[4096];
    int st = in_child(RENDER_GL_DEBUG_REPORT, text, sizeof text);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
        fputs("no headless GL: skipped\n", stderr);
        return 77;
    }
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "report: status 0x%x, stderr '%s'", st, text);
    CHECK(!strncmp(text, "pmfview: GL error (high, id ", 28) && strstr(text, "GL_INVALID_OPERATION") &&
              strchr(text, '\n') == text + strlen(text) - 1,
          "report: stderr '%s'", text);

    st = in_child(RENDER_GL_DEBUG_FATAL, text, sizeof text);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "fatal: status 0x%x, stderr '%s'", st, text);
    CHECK(!strncmp(text, "pmfview: GL error (", 19) && strstr(text, "GL_INVALID_OPERATION"), "fatal: stderr '%s'", text);

    /* the user's switch on a real render: nothing to say, exit 0 */
    char dir[1024], png[1100], out[1100];
    CHECK(test_temp_dir(dir, sizeof dir, "test_gl_debug"));
    snprintf(png, sizeof png, "%s/shot.png", dir);
    snprintf(out, sizeof out, "%s/output.txt", dir);
    int rc = test_run(NULL, (const char *[]){ argv[1], "shot", PMFVIEW_TEST_MAP, "-o", png, "--size", "32x32", "--gl-debug", NULL }, out, out);
    size_t n = 0;
    uint8_t *said = test_read_file(out, &n);
    CHECK(rc == 0 && n == 0, "shot --gl-debug: status %d, output '%s'", rc, said ? (char *)said : "");
    free(said);
    test_remove_tree(dir);
    if (check_failures)
        fprintf(stderr, "%d check(s) failed\n", check_failures);
    return check_failures ? 1 : 0;
}
