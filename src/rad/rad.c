/* rad.c - hlrad's texture light files (see rad.h). */
#include <stdio.h>
#include <string.h>

#include "base/pmf_os.h"
#include "rad.h"

bool rad_read(const char *path, rad_entry_fn fn, void *user)
{
    FILE *f = pmf_os_fopen(path, "r");
    if (!f) return false;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *cut = strstr(line, "//");
        if (cut) *cut = 0;
        char name[RAD_NAME_MAX];
        double v[4];
        int n = sscanf(line, " %63s %lf %lf %lf %lf", name, &v[0], &v[1], &v[2], &v[3]);
        if (n >= 2) fn(user, name, v, n - 1);
    }
    fclose(f);
    return true;
}
