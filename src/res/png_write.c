/* png_write.c - RGBA8 pixels to an RGB PNG file (png_write.h). */
#include "png_write.h"

#include <png.h>
#include <zlib.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "atomic_file.h"

/* libpng's errors longjmp back here with the message kept. */
typedef struct png_failure { jmp_buf jump; char message[200]; } png_failure;

static void on_png_error(png_structp png, png_const_charp message)
{
    png_failure *f = png_get_error_ptr(png);
    snprintf(f->message, sizeof f->message, "%s", message);
    longjmp(f->jump, 1);
}

static void on_png_warning(png_structp png, png_const_charp message)
{
    (void)png;
    (void)message;
}

/* Writes the PNG to fp; false with the reason in why. A short write leaves the stream's error
 * flag set, which atomic_file_commit reports. */
static bool encode(FILE *fp, uint32_t width, uint32_t height, const uint8_t *rgba, char *why, size_t why_size)
{
    png_failure failure = { .message = "" };
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &failure, on_png_error, on_png_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        snprintf(why, why_size, "cannot write PNG: out of memory");
        return false;
    }
    if (setjmp(failure.jump)) {
        png_destroy_write_struct(&png, &info);
        snprintf(why, why_size, "cannot write PNG: %s", failure.message);
        return false;
    }
    png_init_io(png, fp);
    /* Level 1 with the Sub filter: a picture is on disk in tens of milliseconds, 30% larger
     * than at the default level, which takes over a second (docs/shot.md). */
    png_set_compression_level(png, 1);
    png_set_compression_strategy(png, Z_RLE); /* as fast, and smaller with the Sub filter */
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE,
                 PNG_FILTER_TYPE_BASE);
    png_write_info(png, info);
    png_set_filler(png, 0, PNG_FILLER_AFTER);    /* the input's 4th byte is skipped */
    for (uint32_t y = 0; y < height; y++)
        png_write_row(png, rgba + (size_t)y * width * 4);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return true;
}

bool png_write_rgba(const char *path, uint32_t width, uint32_t height, const uint8_t *rgba, char *why,
                    size_t why_size)
{
    atomic_file af;
    if (!atomic_file_open(&af, path, why, why_size))
        return false;
    if (!encode(af.fp, width, height, rgba, why, why_size)) {
        atomic_file_abort(&af);
        return false;
    }
    return atomic_file_commit(&af, why, why_size);
}
