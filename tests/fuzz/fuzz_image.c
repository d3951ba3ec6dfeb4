/* fuzz_image.c - libFuzzer target: any bytes as an embedded texture through res_image_decode
 * (PTF, PNG via libpng, JPEG via libjpeg-turbo, BMP/TGA via the narrowed stb_image). A decoded
 * image has sides 1..16384 and width * height * 4 readable bytes (ASan checks the sum of them). */
#include <stdio.h>
#include <stdlib.h>

#include "res/res.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile unsigned texel_sum; /* kept so the reads below are not optimised away */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    res_image img;
    pmf_error err;
    if (!res_image_decode(data, size, "fuzz", &img, &err))
        return 0;
    if (!img.rgba || img.width == 0 || img.height == 0 || img.width > 16384 || img.height > 16384) {
        fprintf(stderr, "decoded a %ux%u image (%p)\n", img.width, img.height, (void *)img.rgba);
        abort();
    }
    /* touch every byte: ASan reports an image smaller than width * height * 4 */
    unsigned sum = 0;
    for (size_t i = 0; i < (size_t)img.width * img.height * 4; i++)
        sum += img.rgba[i];
    texel_sum = sum;
    res_image_free(&img);
    return 0;
}
