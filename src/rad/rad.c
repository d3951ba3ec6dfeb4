/* rad.c - hlrad's texture light files (see rad.h). */
#include <stdio.h>
#include <string.h>

#include "base/pmf_os.h"
#include "rad.h"

/* One line (NUL-terminated, at most 511 bytes of it read): its entry to fn when it holds one. */
static void read_line(char *line, rad_entry_fn fn, void *user)
{
    char *cut = strstr(line, "//");
    if (cut) *cut = 0;
    char name[RAD_NAME_MAX];
    double v[4];
    int n = sscanf(line, " %63s %lf %lf %lf %lf", name, &v[0], &v[1], &v[2], &v[3]);
    if (n >= 2) fn(user, name, v, n - 1);
}

bool rad_read(const char *path, rad_entry_fn fn, void *user)
{
    FILE *f = pmf_os_fopen(path, "r");
    if (!f) return false;
    char line[512];
    while (fgets(line, sizeof line, f)) read_line(line, fn, user);
    fclose(f);
    return true;
}

void rad_read_memory(const char *text, size_t size, rad_entry_fn fn, void *user)
{
    char line[512];
    for (size_t at = 0; at < size;) {
        size_t n = 0;
        /* a line longer than the buffer goes on as the next one, as fgets hands it over */
        while (at < size && n + 1 < sizeof line) {
            char c = text[at++];
            line[n++] = c;
            if (c == '\n') break;
        }
        line[n] = 0;
        read_line(line, fn, user);
    }
}
