/* same_map_writer.c - `same_map_writer DIR`: one small map written twice, as Hammer would save it
 * in RMF 2.2 (DIR/same.rmf) and as a Valve 220 .map (DIR/same.map): a closed room of six boxes
 * with a pillar, a light and a player start, every face with Hammer's default axes. Both must
 * compile to the same bounds and geometry (issue 24, point 8). */
#include <stdio.h>
#include <stdlib.h>

#include "rmf_build.h"

static const float boxes[7][2][3] = {
    { { -272, -272, -16 }, { 272, 272, 0 } },    { { -272, -272, 256 }, { 272, 272, 272 } },
    { { -272, -272, 0 }, { -256, 272, 256 } },   { { 256, -272, 0 }, { 272, 272, 256 } },
    { { -256, -272, 0 }, { 256, -256, 256 } },   { { -256, 256, 0 }, { 256, 272, 256 } },
    { { -32, 64, 0 }, { 32, 128, 160 } },        /* the pillar */
};

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: same_map_writer DIR\n", stderr);
        return 1;
    }
    char path[4096];
    rmf_build *b = rmf_build_new(NULL);
    snprintf(path, sizeof path, "%s/same.map", argv[1]);
    FILE *m = fopen(path, "w");
    if (!m) { perror(path); return 1; }
    fputs("// Game: Half-Life\n// Format: Valve\n{\n\"classname\" \"worldspawn\"\n\"mapversion\" \"220\"\n", m);
    for (int i = 0; i < 7; i++) {
        rmf_build_box(b, boxes[i][0], boxes[i][1], "CRATE");
        /* the same six faces: three points each, clockwise from outside, and the same axes */
        rmf_face faces[6];
        float vertices[24][3];
        rmf_build_box_faces(boxes[i][0], boxes[i][1], "CRATE", faces, vertices);
        fputs("{\n", m);
        for (int f = 0; f < 6; f++) {
            const rmf_face *face = &faces[f];
            for (int k = 0; k < 3; k++)
                fprintf(m, "( %g %g %g ) ", face->plane[k][0], face->plane[k][1], face->plane[k][2]);
            fprintf(m, "CRATE [ %g %g %g %g ] [ %g %g %g %g ] 0 1 1\n", face->u_axis[0], face->u_axis[1], face->u_axis[2],
                    face->shift[0], face->v_axis[0], face->v_axis[1], face->v_axis[2], face->shift[1]);
        }
        fputs("}\n", m);
    }
    fputs("}\n{\n\"classname\" \"light\"\n\"origin\" \"0 -128 128\"\n\"_light\" \"255 255 255 200\"\n}\n"
          "{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 -160 36\"\n\"angle\" \"90\"\n}\n", m);
    if (fclose(m) != 0) { perror(path); return 1; }
    rmf_build_point_entity(b, &(rmf_entity){ .classname = "light", .point = true, .origin = { 0, -128, 128 },
                                             .kv = (rmf_kv[]){ { "_light", "255 255 255 200" } }, .kv_count = 1 }, NULL);
    rmf_build_point_entity(b, &(rmf_entity){ .classname = "info_player_start", .point = true, .origin = { 0, -160, 36 },
                                             .kv = (rmf_kv[]){ { "angle", "90" } }, .kv_count = 1 }, NULL);
    snprintf(path, sizeof path, "%s/same.rmf", argv[1]);
    return rmf_build_write_file(b, path) ? 0 : 1;
}
