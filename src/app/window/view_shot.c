/* view_shot.c - screenshot names and framebuffer read-back (the PNG: res/png_write.h). */
#include "view_shot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmf_os.h"


bool view_shot_path(const char *dir, time_t when, char *out, size_t size)
{
    struct tm tm;
    if (!localtime_r(&when, &tm))
        return false;
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    const char *sep = (dir && *dir) ? "/" : "";
    if (!dir)
        dir = "";
    for (int n = 1; n < 1000; n++) {
        int len = n == 1 ? snprintf(out, size, "%s%spmfview-%s.png", dir, sep, stamp)
                         : snprintf(out, size, "%s%spmfview-%s-%d.png", dir, sep, stamp, n);
        if (len < 0 || (size_t)len >= size)
            return false;
        pmf_os_file_info st;
        if (pmf_os_stat(out, &st) != 0)
            return true;
    }
    return false;
}

