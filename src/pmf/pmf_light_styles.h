/* pmf_light_styles.h - the light-style patterns Quake and Half-Life play (pmf_lights.h's style):
 * a string of letters, one per tenth of a second, 'a' dark, 'm' the light as baked, 'z' about
 * twice it. Styles 1..12 are the games' built-in patterns (the same table in Quake's world.qc
 * and Half-Life's world.cpp), 63 is their test pattern "a"; 0 and the switchable styles 32..62
 * (a compiler's styles for lights with a targetname, switched on and off, not played) stay "m". */
#ifndef PMF_LIGHT_STYLES_H
#define PMF_LIGHT_STYLES_H

#include <stdbool.h>

#define PMF_LIGHT_STYLE_RATE 10.0   /* pattern letters per second */

/* Whether the style plays a pattern over time (1..12 and 63). */
bool pmf_light_style_animated(int style);
/* The style's brightness at `seconds` (>= 0): (letter - 'a') / ('m' - 'a'); 1 for a style that
 * does not animate. */
float pmf_light_style_value(int style, double seconds);

#endif
