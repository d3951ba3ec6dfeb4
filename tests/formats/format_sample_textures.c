/* format_sample_textures.c - the legacy sample map's textures as a game directory (see
 * format_samples.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format_samples.h"
#include "rt_shot.h"

static bool write_texture(const char *dir, const char *name, const uint8_t rgb[3])
{
    uint8_t rgba[16 * 4], *png = NULL;
    size_t size;
    for (int i = 0; i < 16; i++)
        memcpy(rgba + 4 * i, (const uint8_t[4]){ rgb[0], rgb[1], rgb[2], 255 }, 4);
    char path[1024];
    snprintf(path, sizeof path, "%s/textures/%s.png", dir, name);
    bool ok = rt_png(rgba, 4, 4, &png, &size) && rt_write_file(path, png, size);
    free(png);
    return ok;
}

bool legacy_sample_write_textures(const char *game_dir)
{
    char textures[1024];
    snprintf(textures, sizeof textures, "%s/textures", game_dir);
    mkdir(game_dir, 0700);
    mkdir(textures, 0700);
    return write_texture(game_dir, "grey", (const uint8_t[3]){ LEGACY_GREY_TEXEL }) &&
           write_texture(game_dir, "blue", (const uint8_t[3]){ LEGACY_BLUE_TEXEL });
}
