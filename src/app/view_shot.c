/* view_shot.c - screenshot names, framebuffer read-back and PNG writing. */
#include "view_shot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glad/gl.h>
#include "atomic_file.h"
#include <stb_image_write.h>

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

/* stb's callback: a short write leaves the stream's error flag set for atomic_file_commit. */
static void write_to_file(void *ctx, void *data, int size)
{
    fwrite(data, 1, (size_t)size, ctx);
}

bool view_shot_write_png(const char *path, int width, int height, const uint8_t *rgba, char *err, size_t err_size)
{
    size_t pixels = (size_t)width * height;
    uint8_t *rgb = malloc(pixels * 3);
    if (!rgb) {
        snprintf(err, err_size, "%s: out of memory for a %dx%d shot", path, width, height);
        return false;
    }
    for (size_t i = 0; i < pixels; i++)
        memcpy(rgb + i * 3, rgba + i * 4, 3);
    atomic_file af;
    char why[300];
    bool ok = atomic_file_open(&af, path, why, sizeof why);
    if (ok && !stbi_write_png_to_func(write_to_file, af.fp, width, height, 3, rgb, width * 3)) {
        snprintf(why, sizeof why, "cannot write PNG: out of memory");
        atomic_file_abort(&af);
        ok = false;
    }
    ok = ok && atomic_file_commit(&af, why, sizeof why);
    free(rgb);
    if (!ok)
        snprintf(err, err_size, "%s: %s", path, why);
    return ok;
}
