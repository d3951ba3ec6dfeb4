/* fuzz_pm4.c - libFuzzer target: open any bytes as a PM4 tile. When they open, every index the
 * reader validated is followed (surface fans into MSVI / MSVT, MSLK into MSPI, MSPI into MSPV,
 * MDSF into MSUR / MDOS) and every point transformed, so a missed check shows as an ASan / UBSan
 * report here. */
#include <stdlib.h>

#include "pm4.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pmf_error err;
    pm4_tile *t = pm4_open_memory(data, size, "fuzz_1_2.pm4", &err);
    if (!t)
        return 0;
    volatile float sink = 0;
    float w[3];
    for (uint32_t i = 0; i < t->entries[PM4_MSUR]; i++) {
        const pm4_msur *s = &t->msur[i];
        for (uint32_t k = 0; k < s->index_count; k++) {
            pm4_msvt_world(t, t->msvi[s->msvi_first + k], w);
            sink += w[0];
        }
    }
    for (uint32_t i = 0; i < t->entries[PM4_MSLK]; i++)
        for (uint32_t k = 0; t->mslk[i].mspi_first >= 0 && k < t->mslk[i].mspi_count; k++) {
            pm4_mspv_world(t, t->mspi[(uint32_t)t->mslk[i].mspi_first + k], w);
            sink += w[1];
        }
    for (uint32_t i = 0; i < t->entries[PM4_MSCN]; i++)
        pm4_mscn_world(t, i, w), sink += w[2];
    for (uint32_t i = 0; i < t->entries[PM4_MPRL]; i++)
        pm4_mprl_world(t, i, w), sink += w[2];
    for (uint32_t i = 0; i < t->entries[PM4_MDSF]; i++)
        sink += t->msur[t->mdsf[i].msur_index].height + (float)t->mdos[t->mdsf[i].mdos_index].value0;
    (void)sink;
    pm4_close(t);
    return 0;
}
