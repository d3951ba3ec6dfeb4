/* palette.c - pmfview's own 256-colour palette (docs/map.md "Textures"): what WAD2 and Quake 2
 * .wal texels show when the game's palette is not given (--game DIR/gfx/palette.lmp). It follows
 * the layout every Quake texture was drawn for, 16 rows of 16: greys, browns, light blues,
 * greens, reds, oranges, golds, peaches, purples, magentas, tans, light greens, yellows, blues,
 * the fire row and the brights; rows 8 to 13 run light to dark, as Quake's do. The colours are
 * this project's (each row a ramp of its hue), so textures keep their look but not their exact
 * texels. Public domain, as the rest of the project's data. */
#include <math.h>
#include <stdint.h>

#include "editor_internal.h"

void editor_builtin_palette(uint8_t palette[768])
{
    /* each row's brightest colour */
    static const uint8_t hue[16][3] = {
        { 235, 235, 235 }, { 175, 135, 80 },  { 140, 150, 215 }, { 110, 180, 90 },
        { 235, 60, 40 },   { 240, 140, 40 },  { 240, 200, 60 },  { 245, 190, 160 },
        { 190, 120, 215 }, { 215, 110, 175 }, { 200, 175, 130 }, { 150, 215, 120 },
        { 250, 240, 110 }, { 80, 100, 235 },  { 255, 160, 40 },  { 250, 250, 180 },
    };
    for (int row = 0; row < 16; row++)
        for (int i = 0; i < 16; i++) {
            int step = row >= 8 && row <= 13 ? 15 - i : i;   /* the backward rows */
            double t = row == 0 ? step / 15.0 : (step + 1) / 16.0;
            if (row >= 14) t = 0.5 + t / 2;                   /* fire and brights stay bright */
            for (int k = 0; k < 3; k++)
                palette[(row * 16 + i) * 3 + k] = (uint8_t)lround(hue[row][k] * t);
        }
}
