/* rt_shot.h - runs `pmfview shot` from a test and checks the PNG it writes. */
#ifndef TESTS_RENDER_RT_SHOT_H
#define TESTS_RENDER_RT_SHOT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/check.h"
#include "common/programs.h"
#include "fixture_map.h"

typedef struct rt_test { const char *name; int (*run)(void); } rt_test;

/* argv: PMFVIEW TEST. Runs TEST in a fresh temporary directory (removed when it passes). */
int rt_main(int argc, char **argv, const rt_test *tests);

/* `pmfview shot MAP -o OUT --size 64x64 --fov 90 EXTRA`; returns the exit code. */
int rt_shot(const char *map, const char *out, const char *extra);
/* Writes m to map.pmf, shoots it to out.png (rt_shot's EXTRA) and loads the picture into img. */
bool rt_shot_map(fx_map *m, const char *extra, test_image *img);
/* `pmfview ARGS`; returns the exit code; stderr (up to 1023 bytes) into err when not NULL. */
int rt_run(const char *args, char err[1024]);

/* Pixel (x, y) from the top-left is (r, g, b) ± 1. */
bool rt_expect(const test_image *img, int x, int y, int r, int g, int b);
/* Every pixel is (r, g, b) ± 1. */
bool rt_expect_all(const test_image *img, int r, int g, int b);
/* round(a × b / 255): an 8-bit product as the equation gives it. */
int rt_eq(int a, int b);
/* The world place of the last point entity of class `classname` in the map at pmf_path (its
 * pmfview.entities list); false when the map has none or cannot be read. */
bool rt_entity_place(const char *pmf_path, const char *classname, float out[3]);
/* The floor's light straight under place in room.pmf as the world draws it (`shot --mode
 * lightmap --no-models EXTRA`: the game's look of L): the mean of the 4 middle pixels of a 64x64
 * picture looking down from it, 0..1; 0 after a failed check when it cannot be shot. */
double rt_floor_light(const float place[3], const char *extra);
/* qsort's order of doubles, ascending. */
int rt_compare_doubles(const void *a, const void *b);

#endif
