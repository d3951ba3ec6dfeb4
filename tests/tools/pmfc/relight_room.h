/* relight_room.h - the room test_pmfc_relight (through pmfc) and test_relight_repack (through the
 * library) both relight: 12 m in chunks of 4 m, so that a fast light moved across it cuts other
 * chunks' cubes and a dynamic light moved across it makes other chunks' lightmaps smaller. */
#ifndef TESTS_TOOLS_PMFC_RELIGHT_ROOM_H
#define TESTS_TOOLS_PMFC_RELIGHT_ROOM_H

static const char relight_room_source[] =
    "map \"Fast\"\n"
    "texture stone procedural noise 64 color 160 160 160 color2 90 90 90\n"
    "texture glass procedural noise 32 color 120 160 200 color2 100 140 180\n"
    "material stone texture stone scale 2\n"
    "material glass texture glass\n"
    "level main {\n"
    "    chunk_size 2\n"
    "    luxels 2\n"
    "    box -6 -1 -6 6 0 6 material stone\n"
    "    room -6 0 -6 6 3 6 material stone\n"
    "    box -1 0 -1 1 1 1 material glass\n"
    "    light static at 0 2.5 0 color 255 230 200 range 10\n"
    "    light dynamic 1 at -4 1.5 -4 color 255 200 120 range 1.5\n"
    "    light fast 2 at 4 1.5 -4 color 120 200 255 range 1.5\n"
    "}\n";

#endif
