/* make_map_seeds.c - writes fuzz_map's seed corpus: `make_map_seeds SHARED_MAP_DIR DIR`: a room
 * in each dialect (Quake standard, Valve 220, Quake 2 with surface numbers, a brushDef that is
 * skipped), and the real .map files of ../shared/data/map read there (never stored here). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int write_seed(const char *dir, const char *name, const char *text, size_t size)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(text, 1, size, f) == size;
    if (f && fclose(f) != 0) ok = 0;
    if (!ok) fprintf(stderr, "make_map_seeds: cannot write %s\n", path);
    return ok;
}

#define BOX(tex, extra) \
    "( -64 -64 -16 ) ( -64 -63 -16 ) ( -64 -64 -15 ) " tex " " extra "\n" \
    "( 64 64 16 ) ( 64 64 17 ) ( 64 65 16 ) " tex " " extra "\n" \
    "( -64 -64 -16 ) ( -64 -64 -15 ) ( -63 -64 -16 ) " tex " " extra "\n" \
    "( 64 64 16 ) ( 65 64 16 ) ( 64 64 17 ) " tex " " extra "\n" \
    "( -64 -64 -16 ) ( -63 -64 -16 ) ( -64 -63 -16 ) " tex " " extra "\n" \
    "( 64 64 16 ) ( 64 65 16 ) ( 65 64 16 ) " tex " " extra "\n"

static const char standard[] = "// Game: Quake\n// Format: Standard\n{\n\"classname\" \"worldspawn\"\n\"wad\" \"q.wad\"\n{\n"
    BOX("brick1", "0 0 0 1 1") "}\n}\n{\n\"classname\" \"light\"\n\"origin\" \"0 0 0\"\n\"light\" \"200\"\n\"delay\" \"2\"\n}\n"
    "{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 0 8\"\n}\n";
static const char valve[] = "// Game: Half-Life\n// Format: Valve\n{\n\"classname\" \"worldspawn\"\n\"mapversion\" \"220\"\n{\n"
    BOX("CRATE", "[ 1 0 0 8 ] [ 0 -1 0 4 ] 15 0.5 0.5") "}\n}\n{\n\"classname\" \"light\"\n\"origin\" \"0 0 0\"\n\"_light\" \"255 200 100 300\"\n}\n";
static const char quake2[] = "// Game: Quake 2\n{\n\"classname\" \"worldspawn\"\n{\n"
    BOX("e1u1/floor1_1", "0 0 0 1 1 1 8 200") "}\n}\n";
static const char brushdef[] = "{\n\"classname\" \"worldspawn\"\n{\nbrushDef\n{\n( 0 0 1 0 ) ( ( 1 0 0 ) ( 0 1 0 ) ) \"t\" 0 0 0\n}\n}\n{\n"
    BOX("x", "0 0 0 1 1") "}\n}\n";

int main(int argc, char **argv)
{
    if (argc != 3) {
        fputs("usage: make_map_seeds SHARED_MAP_DIR DIR\n", stderr);
        return 1;
    }
    const char *to = argv[2];
    int ok = write_seed(to, "standard.map", standard, sizeof standard - 1) && write_seed(to, "valve220.map", valve, sizeof valve - 1) &&
             write_seed(to, "quake2.map", quake2, sizeof quake2 - 1) && write_seed(to, "brushdef.map", brushdef, sizeof brushdef - 1);
    DIR *d = opendir(argv[1]);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".map")) continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        static char buf[1 << 20];
        size_t got = fread(buf, 1, sizeof buf, f);
        fclose(f);
        ok &= write_seed(to, e->d_name, buf, got);
    }
    if (d) closedir(d);
    return ok ? 0 : 1;
}
