/* view_shot.c - screenshot names and framebuffer read-back (the PNG: res/png_write.h). */
#include "view_shot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glad/gl.h>

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
        if (access(out, F_OK) != 0)
            return true;
    }
    return false;
}

void view_shot_read(int width, int height, uint8_t *rgba)
{
    size_t row = (size_t)width * 4;
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    /* GL's rows run bottom-up. */
    for (int y = 0; y < height / 2; y++) {
        uint8_t *a = rgba + row * (size_t)y, *b = rgba + row * (size_t)(height - 1 - y);
        for (size_t i = 0; i < row; i++) {
            uint8_t c = a[i];
            a[i] = b[i];
            b[i] = c;
        }
    }
}
