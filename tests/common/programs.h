/* programs.h - the harness's half for tests that run the real programs: programs run with an argv
 * (no shell, on Linux and Windows alike) and their exit status, files written whole, the pictures `pmfview shot` writes, and pmfc and pmfview run
 * in a work directory (the `harness` library; check.h is the other half). */
#ifndef TESTS_COMMON_PROGRAMS_H
#define TESTS_COMMON_PROGRAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* Runs argv[0] (a path) with argv (NULL-ended), no shell: stdout into out_path, stderr into
 * err_path (NULL: the test's own; the same path twice: one file). env: "NAME=value" strings set
 * for it alone (NULL-ended; NULL for none). Its exit status; -1 when it could not start or did
 * not exit (a signal). "NAME+=value" appends ":value" to what NAME holds (ASAN_OPTIONS). */
int test_run(const char *const env[], const char *const argv[], const char *out_path, const char *err_path);
/* test_run of program with the words of args (split at spaces: no quoting, so no path in args
 * may hold a space) and of env ("A=1 B=2", or NULL). */
int test_run_words(const char *env, const char *program, const char *args, const char *out_path, const char *err_path);
/* The largest peak RSS in KiB of the programs run so far (getrusage RUSAGE_CHILDREN); 0 where the
 * system does not say (Windows). */
long test_children_peak_kib(void);
/* Where n bytes of needle first occur in hay (memmem, which Windows lacks), or NULL. */
const void *test_memmem(const void *hay, size_t hay_size, const void *needle, size_t n);
/* Removes a directory and everything in it; false when something stays. */
bool test_remove_tree(const char *dir);
/* A new directory "TMP/PREFIX-XXXXXX" in the system's temporary directory (mkdtemp). */
bool test_temp_dir(char *out, size_t size, const char *prefix);
/* mkdir; true when the directory exists afterwards. */
bool test_make_dir(const char *dir);
/* Writes data to path (directories must exist); false with a message on stderr. */
bool test_write_file(const char *path, const void *data, size_t size);
/* The same for a string; the test exits (status 1) when it cannot: nothing can follow. */
void test_write_text(const char *path, const char *text);
/* The whole file (malloc'd, a NUL after its last byte) and its size; NULL when it cannot be read. */
uint8_t *test_read_file(const char *path, size_t *size);

typedef struct test_image { int w, h; uint8_t *rgb; } test_image;
/* RGB8 of an image file; false with a message on stderr. */
bool test_image_load(test_image *img, const char *path);
void test_image_free(test_image *img);
static inline const uint8_t *test_pixel(const test_image *img, int x, int y)
{
    return img->rgb + ((size_t)y * img->w + x) * 3;
}

/* `pmfview info --json PMF`, its stdout kept in PMF.json, parsed (cJSON_Delete it); NULL when
 * pmfview failed or wrote no JSON. */
cJSON *test_info_json(const char *pmfview, const char *pmf);

/* pmfc and pmfview and the directory their files go to (made when missing). */
typedef struct test_workdir { const char *pmfc, *pmfview, *dir; } test_workdir;
void test_workdir_open(test_workdir *w, const char *pmfc, const char *pmfview, const char *dir);
/* DIR/NAME.pms written from source, compiled to DIR/NAME.pmf by `pmfc ... --quiet EXTRA` (EXTRA:
 * words split at spaces; stderr in DIR/NAME.log): pmfc's exit status. */
int test_workdir_compile(const test_workdir *w, const char *name, const char *source, const char *extra);
/* `[ENV] pmfview shot DIR/MAP.pmf -o DIR/OUT.png EXTRA` (ENV "A=1 B=2" and EXTRA split at spaces;
 * stdout in DIR/OUT.txt, leak checks off: Mesa's are not ours) and the picture; false with the
 * command on stderr when it fails. */
bool test_workdir_shot(const test_workdir *w, const char *env, const char *map, const char *out, const char *extra,
                       test_image *img);

#endif
