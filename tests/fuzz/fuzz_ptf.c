/* fuzz_ptf.c - libFuzzer target: any bytes as a PTF texture. What decodes must agree with the
 * header ptf_info reads, and encode again to a PTF that decodes to the same texels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pmf_error err;
    ptf_format format;
    uint32_t w, h, w2, h2;
    bool info = ptf_info(data, size, "fuzz", &format, &w, &h, &err);
    uint8_t *rgba = NULL;
    if (!ptf_decode(data, size, "fuzz", &rgba, &w2, &h2, &err))
        return 0;
    if (!info || w != w2 || h != h2) {
        fprintf(stderr, "ptf_decode accepted what ptf_info %s\n", info ? "sized differently" : "refused");
        abort();
    }
    uint8_t *again = NULL, *texels = NULL;
    size_t again_size;
    if (!ptf_encode(rgba, w, h, PTF_FORMAT_AUTO, &again, &again_size, &err) ||
        !ptf_decode(again, again_size, "again", &texels, &w2, &h2, &err) || w2 != w || h2 != h ||
        memcmp(texels, rgba, (size_t)w * h * 4) != 0) {
        fprintf(stderr, "encode(decode(f)) does not decode to the same texels: %s\n", err.message);
        abort();
    }
    free(texels);
    free(again);
    free(rgba);
    return 0;
}
