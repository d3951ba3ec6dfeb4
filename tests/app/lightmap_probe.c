/* lightmap_probe.c - one luxel of a PMF lightmap as the file stores it, for the light tools'
 * test (the inspector's luxel RGB against the file's bytes).
 *
 *   lightmap_probe FILE LEVEL CX,CY,CZ LIGHTMAP X Y   -> "SIDE R G B"
 * Exit 2 when the file, chunk, lightmap or luxel is not there.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pmf/pmf.h"

int main(int argc, char **argv)
{
    unsigned level, cx, cy, cz, index, x, y;
    if (argc != 7 || sscanf(argv[2], "%u", &level) != 1 || sscanf(argv[3], "%u,%u,%u", &cx, &cy, &cz) != 3 ||
        sscanf(argv[4], "%u", &index) != 1 || sscanf(argv[5], "%u", &x) != 1 || sscanf(argv[6], "%u", &y) != 1) {
        fputs("usage: lightmap_probe FILE LEVEL CX,CY,CZ LIGHTMAP X Y\n", stderr);
        return 1;
    }
    pmf_error err;
    char line[700];
    pmf_file *f = pmf_open(argv[1], &err);
    pmf_level lvl;
    pmf_chunk ch;
    if (!f || !pmf_level_read(f, level, PMF_PART_COMMON | PMF_PART_CLIENT, &lvl, &err) ||
        !pmf_chunk_read(f, &lvl, level, (pmf_chunk_coord){ cx, cy, cz }, PMF_PART_COMMON | PMF_PART_CLIENT, &ch, &err)) {
        fprintf(stderr, "lightmap_probe: %s\n", pmf_error_format(&err, line, sizeof line));
        return 2;
    }
    int rc = 2;
    if (index < ch.client.lightmap_count) {
        const pmf_lightmap *lm = &ch.client.lightmaps[index];
        unsigned side = 1u << lm->size_exp;
        if (x < side && y < side) {
            const uint8_t *p = &lm->luxels[((size_t)y * side + x) * 3];
            printf("%u %u %u %u\n", side, p[0], p[1], p[2]);
            rc = 0;
        }
    }
    if (rc)
        fprintf(stderr, "lightmap_probe: no luxel %u,%u in lightmap %u of that chunk\n", x, y, index);
    pmf_chunk_free(&ch);
    pmf_level_free(&lvl);
    pmf_close(f);
    return rc;
}
