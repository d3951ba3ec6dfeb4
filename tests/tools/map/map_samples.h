/* map_samples.h - one small map in each .map dialect, for the reader's tests and fuzz_map's
 * seeds: Quake standard (comments, a quoted name, a liquid, a brush entity, a point entity),
 * Valve 220, Quake 2 with its surface numbers, and a Quake 3 brushDef the reader skips. */
#ifndef TESTS_MAP_SAMPLES_H
#define TESTS_MAP_SAMPLES_H

#define BOX(tex, extra) \
    "( -64 -64 -16 ) ( -64 -63 -16 ) ( -64 -64 -15 ) " tex " " extra "\n" \
    "( 64 64 16 ) ( 64 64 17 ) ( 64 65 16 ) " tex " " extra "\n" \
    "( -64 -64 -16 ) ( -64 -64 -15 ) ( -63 -64 -16 ) " tex " " extra "\n" \
    "( 64 64 16 ) ( 65 64 16 ) ( 64 64 17 ) " tex " " extra "\n" \
    "( -64 -64 -16 ) ( -63 -64 -16 ) ( -64 -63 -16 ) " tex " " extra "\n" \
    "( 64 64 16 ) ( 64 65 16 ) ( 65 64 16 ) " tex " " extra "\n"

static const char map_sample_standard[] = "// Game: Quake\n// Format: Standard\n{\n\"classname\" \"worldspawn\"\n\"wad\" \"q.wad\"\n"
    "// a brush\n{\n" BOX("brick1", "8 -4 15 0.5 2") "}\n}\n"
    "{\n\"classname\" \"func_door\"\n{\n" BOX("\"door one\"", "0 0 0 1 1") "}\n{\n" BOX("*water1", "0 0 0 1 1") "}\n}\n"
    "{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 0 8\"\n}\n";
static const char map_sample_valve[] = "// Game: Half-Life\n// Format: Valve\n{\n\"classname\" \"worldspawn\"\n\"mapversion\" \"220\"\n{\n"
    BOX("CRATE", "[ 1 0 0 8 ] [ 0 -1 0 4 ] 15 0.5 0.25") "}\n}\n";
static const char map_sample_quake2[] = "{\n\"classname\" \"worldspawn\"\n{\n" BOX("e1u1/floor1_1", "0 0 0 1 1 1 8 200") "}\n}\n";
static const char map_sample_brushdef[] = "{\n\"classname\" \"worldspawn\"\n{\nbrushDef\n{\n( 0 0 1 0 ) ( ( 1 0 0 ) ( 0 1 0 ) ) \"t\" 0 0 0\n}\n}\n{\n"
    BOX("x", "0 0 0 1 1") "}\n}\n";

/* .map errors also name their line (or the budget refused) */

#endif
