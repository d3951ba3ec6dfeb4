/* make_wad_seeds.c - writes fuzz_wad's seed corpus: `make_wad_seeds DIR`. Small WAD3 files
 * that reach every part of the reader: several textures of different sizes, a '{' texture, a
 * short palette, animation frames, a non-texture lump, a 1x1 texture. */
#include <stdio.h>
#include <stdlib.h>

#include "wad_build.h"

static bool write_seed(const char *dir, const char *name, wad_build *b)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.wad", dir, name);
    bool ok = wad_build_write_file(b, path);
    if (!ok)
        fprintf(stderr, "make_wad_seeds: cannot write %s\n", path);
    wad_build_destroy(b);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: make_wad_seeds DIR\n", stderr);
        return 1;
    }
    uint8_t rgba[32 * 16 * 4], idx[32 * 16], pal[16 * 3];
    for (int i = 0; i < 32 * 16; i++) {
        rgba[4 * i] = (uint8_t)(i % 64 * 4); /* 64 colours: fits any palette */
        rgba[4 * i + 1] = (uint8_t)(i % 64 * 9);
        rgba[4 * i + 2] = (uint8_t)(255 - i % 64);
        rgba[4 * i + 3] = i % 7 ? 255 : 0;
        idx[i] = (uint8_t)(i * 5 % 16);
    }
    for (int i = 0; i < 16 * 3; i++)
        pal[i] = (uint8_t)(i * 17);
    bool ok = true;

    wad_build *b = wad_build_create();
    ok &= wad_build_add_rgba(b, "BRICK1", 16, 16, rgba);
    ok &= wad_build_add_rgba(b, "{grate", 32, 16, rgba);
    ok &= wad_build_add_indexed(b, "short", 8, 16, idx, pal, 16);
    ok &= wad_build_add_lump(b, "CONCHARS", 0x42, rgba, 64);
    ok &= write_seed(argv[1], "mixed", b);

    b = wad_build_create();
    ok &= wad_build_add_indexed(b, "+0lava", 16, 8, idx, pal, 16);
    ok &= wad_build_add_indexed(b, "+1LAVA", 16, 8, idx, pal, 16);
    ok &= wad_build_add_indexed(b, "+alava", 16, 8, idx, pal, 16);
    ok &= wad_build_add_indexed(b, "{dot", 1, 1, idx, pal, 16);
    ok &= write_seed(argv[1], "frames", b);

    b = wad_build_create();
    ok &= wad_build_add_indexed(b, "tiny", 8, 8, idx, pal, 4);
    ok &= write_seed(argv[1], "tiny", b);
    return ok ? 0 : 2;
}
