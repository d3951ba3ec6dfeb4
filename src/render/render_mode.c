/* render_mode.c - the render modes' names (render_mode.h). */
#include <stdio.h>
#include <string.h>

#include "render_mode.h"

static const char *const mode_names[RENDER_MODE_COUNT] = {
    [RENDER_MODE_FULL] = "full",
    [RENDER_MODE_LIGHTMAP] = "lightmap",
    [RENDER_MODE_FULLBRIGHT] = "fullbright",
    [RENDER_MODE_DENSITY] = "density",
};

const char *render_mode_name(render_mode mode)
{
    return (unsigned)mode < RENDER_MODE_COUNT ? mode_names[mode] : mode_names[RENDER_MODE_FULL];
}

bool render_mode_parse(const char *name, render_mode *out)
{
    for (int m = 0; m < RENDER_MODE_COUNT; m++)
        if (!strcmp(name, mode_names[m])) {
            *out = (render_mode)m;
            return true;
        }
    return false;
}

void render_mode_choices(char *out, size_t size)
{
    size_t n = 0;
    for (int m = 0; m < RENDER_MODE_COUNT && n < size; m++) {
        const char *sep = m == 0 ? "" : m + 1 == RENDER_MODE_COUNT ? " or " : ", ";
        n += (size_t)snprintf(out + n, size - n, "%s%s", sep, mode_names[m]);
    }
}
