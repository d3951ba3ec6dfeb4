/* fuzz_ptf.c - libFuzzer target: any bytes as a PTF texture. What decodes must agree with the
 * header ptf_info reads, and encode again to a PTF that decodes to the same texels; read a row at
 * a time (ptf_rows) it must give the same texels, and what ptf_decode refuses the rows refuse. */
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
    bool decoded = ptf_decode(data, size, "fuzz", &rgba, &w2, &h2, &err);
    ptf_rows *rows;
    uint32_t rw, rh;
    if (ptf_rows_begin(data, size, "rows", &rows, &rw, &rh, &err)) {
        uint8_t *row = malloc((size_t)rw * 4);
        bool ok = row != NULL, same = decoded;
        for (uint32_t y = 0; ok && y < rh; y++) {
            ok = ptf_rows_next(rows, row, &err);
            same = same && ok && memcmp(row, rgba + (size_t)y * rw * 4, (size_t)rw * 4) == 0;
        }
        ok = ptf_rows_end(rows, &err) && ok;
        free(row);
        if (ok != decoded || (ok && !same)) {
            fprintf(stderr, "ptf_rows %s what ptf_decode %s\n", ok ? "accepted" : "refused", decoded ? "accepted" : "refused");
            abort();
        }
    }
    if (!decoded)
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
