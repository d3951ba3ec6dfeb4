/* make_bsp_seeds.c - writes fuzz_bsp's seed corpus: `make_bsp_seeds DIR`, the bsp_build room in
 * Quake BSP v29, GoldSrc BSP v30 and BSP2. */
#include <stdio.h>
#include <stdlib.h>

#include "bsp_build.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: make_bsp_seeds DIR\n", stderr);
        return 1;
    }
    const uint32_t versions[] = { 29, 30, 0x32505342u };
    const char *names[] = { "room_v29", "room_v30", "room_bsp2" };
    for (int i = 0; i < 3; i++) {
        uint8_t *bytes;
        size_t size;
        bsp_build_room(versions[i], &bytes, &size);
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.bsp", argv[1], names[i]);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(bytes, 1, size, f) != size || fclose(f) != 0) {
            fprintf(stderr, "make_bsp_seeds: cannot write %s\n", path);
            return 1;
        }
        free(bytes);
    }
    return 0;
}
