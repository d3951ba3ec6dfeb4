/* pmf_light_styles.c - the games' light-style patterns (pmf_light_styles.h). */
#include <math.h>
#include <string.h>

#include "pmf_light_styles.h"

static const char *const patterns[] = {
    [1] = "mmnmmommommnonmmonqnmmo",                                /* flicker */
    [2] = "abcdefghijklmnopqrstuvwxyzyxwvutsrqponmlkjihgfedcba",    /* slow strong pulse */
    [3] = "mmmmmaaaaammmmmaaaaaabcdefgabcdefg",                     /* candle */
    [4] = "mamamamamama",                                           /* fast strobe */
    [5] = "jklmnopqrstuvwxyzyxwvutsrqponmlkj",                      /* gentle pulse */
    [6] = "nmonqnmomnmomomno",                                      /* flicker 2 */
    [7] = "mmmaaaabcdefgmmmmaaaammmaamm",                           /* candle 2 */
    [8] = "mmmaaammmaaammmabcdefaaaammmmabcdefmmmaaaa",             /* candle 3 */
    [9] = "aaaaaaaazzzzzzzz",                                       /* slow strobe */
    [10] = "mmamammmmammamamaaamammma",                             /* fluorescent flicker */
    [11] = "abcdefghijklmnopqrrqponmlkjihgfedcba",                  /* slow pulse, not to black */
    [12] = "mmnnmmnnnmmnn",                                         /* underwater (Half-Life) */
    [63] = "a",                                                     /* testing */
};

static const char *pattern(int style)
{
    if (style <= 0 || style >= (int)(sizeof patterns / sizeof *patterns)) return NULL;
    return patterns[style];
}

bool pmf_light_style_animated(int style)
{
    return pattern(style) != NULL;
}

float pmf_light_style_value(int style, double seconds)
{
    const char *p = pattern(style);
    if (!p || !(seconds >= 0) || !isfinite(seconds)) return 1.0f;
    size_t len = strlen(p);
    double frame = floor(fmod(seconds * PMF_LIGHT_STYLE_RATE, (double)len));
    return (float)(p[(size_t)frame] - 'a') / (float)('m' - 'a');
}
