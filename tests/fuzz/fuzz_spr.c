/* fuzz_spr.c - libFuzzer target: open any bytes as a Quake or GoldSrc sprite and load every
 * picture of its first and last frame. Errors must format to one clean line; a loaded picture has
 * a side within 1..SPR_MAX_SIDE, and a hole (alpha 0) only where the render mode makes them. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_check.h"
#include "spr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_picture(const spr_info *info, const spr_picture *p)
{
    if (p->width < 1 || p->width > SPR_MAX_SIDE || p->height < 1 || p->height > SPR_MAX_SIDE) {
        fprintf(stderr, "a picture of %ux%u\n", p->width, p->height);
        abort();
    }
    bool holes = info->version == 1 || info->render == SPR_RENDER_ALPHA_TEST || info->render == SPR_RENDER_INDEX_ALPHA;
    for (size_t t = 0; !holes && t < (size_t)p->width * p->height; t++)
        if (p->rgba[4 * t + 3] != 255) {
            fprintf(stderr, "texel %zu not opaque in render mode %d\n", t, info->render);
            abort();
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t palette[768];
    for (int i = 0; i < 768; i++)
        palette[i] = (uint8_t)(i / 3);
    pmf_error err;
    char line[600];
    spr_file *s = spr_open_memory(data, size, "fuzz.spr", &err);
    if (!s) {
        fuzz_check_line(pmf_error_format(&err, line, sizeof line));
        return 0;
    }
    const spr_info *info = spr_get_info(s);
    uint32_t frames[2] = { 0, info->frame_count - 1 };
    for (int k = 0; k < 2; k++)
        for (uint32_t p = 0; p < spr_frame_pictures(s, frames[k]) && p < 16; p++) {
            spr_picture picture;
            spr_picture_interval(s, frames[k], p);
            if (!spr_load_picture(s, frames[k], p, palette, &picture, &err)) {
                fuzz_check_line(pmf_error_format(&err, line, sizeof line));
                continue;
            }
            check_picture(info, &picture);
            spr_picture_free(&picture);
        }
    spr_close(s);
    return 0;
}
