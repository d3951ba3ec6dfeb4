/* render_mode.h - the render modes, one enum for the scene, the renderer and the commands, and
 * their names from one table (shot --mode, the HUD, the shader's MODE_* defines). No GL here.
 *
 * Adding a mode: its value here (before RENDER_MODE_COUNT), its name in render_mode.c, its
 * branch in shaders/world.frag, and in render_world_variants.c the switches it has no use for. */
#ifndef RENDER_MODE_H
#define RENDER_MODE_H

#include <stdbool.h>
#include <stddef.h>

typedef enum render_mode {
    RENDER_MODE_FULL = 0,            /* the whole equation (conventions §3) */
    RENDER_MODE_LIGHTMAP,            /* out = clamp(k L) */
    RENDER_MODE_FULLBRIGHT,          /* L = 1 */
    RENDER_MODE_DENSITY,             /* lightmap luxels per metre as a heat-map (docs/viewer.md) */
    RENDER_MODE_COUNT
} render_mode;

/* The mode's name as the command line and the HUD spell it ("full", "lightmap", ...); an
 * out-of-range value reads as "full". */
const char *render_mode_name(render_mode mode);
/* The mode named name (exactly as render_mode_name spells it); false for any other string. */
bool render_mode_parse(const char *name, render_mode *out);
/* Every name into out, as "full, lightmap, fullbright or density" for usage messages. */
void render_mode_choices(char *out, size_t size);

#endif
