/* fuzz_bsp.c - libFuzzer target: read any bytes as a compiled map (BSP v29, v30, BSP2, 2PSB).
 * An error must format to one clean line; a file that reads must have every index resolve:
 * each face's corners, lightmap bytes and texture, each leaf's mark surfaces and PVS. */
#include <stdio.h>
#include <stdlib.h>

#include "bsp_read.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bsp_file b;
    pmf_error err;
    if (!bsp_read(data, size, "fuzz.bsp", &b, &err)) {
        char line[800];
        pmf_error_format(&err, line, sizeof line);
        fuzz_check_line(line);
        return 0;
    }
    volatile uint64_t sum = 0;
    for (uint32_t f = 0; f < b.face_count; f++) {
        const bsp_face *face = &b.faces[f];
        for (uint32_t k = 0; k < face->edge_count; k++) sum += b.vertices[bsp_face_vertex(&b, face, k)][0] > 0;
        if (face->light_offset >= 0) {
            size_t last = (size_t)face->light_size[0] * face->light_size[1] * b.luxel_bytes - 1;
            sum += b.lighting[face->light_offset] + b.lighting[face->light_offset + last];
        }
        uint32_t tex = b.texinfos[face->texinfo].texture;
        if (tex != UINT32_MAX && b.textures[tex].embedded) sum += b.textures[tex].miptex[b.textures[tex].miptex_size - 1];
    }
    size_t words = (b.leaf_count + 63) / 64;
    uint64_t *vis = calloc(words ? words : 1, sizeof *vis);
    for (uint32_t l = 0; l < b.leaf_count && l < 64; l++) {
        for (uint32_t m = 0; m < b.leaves[l].mark_count; m++) sum += b.marks[b.leaves[l].first_mark + m];
        bsp_leaf_pvs(&b, l, vis, words);
    }
    free(vis);
    bsp_free(&b);
    return 0;
}
