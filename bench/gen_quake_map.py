#!/usr/bin/env python3
"""gen_quake_map.py OUT.map [BRUSHES] - a Quake standard .map for bench figure 9: a sealed hall of
six walls holding a grid of pillars, BRUSHES in all (default 1,257, the size of a large id map),
lit by a light over every 25th pillar and a player start in a free lane."""
import math, sys

out, total = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1257
pillars = total - 6
side = math.ceil(math.sqrt(pillars))
step = 96
half = side * step // 2 + 128

def box(x0, y0, z0, x1, y1, z1, tex):
    faces = [((x0, y0, z0), (x0, y0 + 1, z0), (x0, y0, z0 + 1)), ((x1, y1, z1), (x1, y1, z1 + 1), (x1, y1 + 1, z1)),
             ((x0, y0, z0), (x0, y0, z0 + 1), (x0 + 1, y0, z0)), ((x1, y1, z1), (x1 + 1, y1, z1), (x1, y1, z1 + 1)),
             ((x0, y0, z0), (x0 + 1, y0, z0), (x0, y0 + 1, z0)), ((x1, y1, z1), (x1, y1 + 1, z1), (x1 + 1, y1, z1))]
    return "{\n" + "".join("( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s 0 0 0 1 1\n" % (*a, *b, *c, tex) for a, b, c in faces) + "}\n"

with open(out, "w") as f:
    f.write('// Game: Quake\n// Format: Standard\n{\n"classname" "worldspawn"\n')
    h = 256
    for w in [(-half - 16, -half - 16, -16, half + 16, half + 16, 0), (-half - 16, -half - 16, h, half + 16, half + 16, h + 16),
              (-half - 16, -half - 16, 0, -half, half + 16, h), (half, -half - 16, 0, half + 16, half + 16, h),
              (-half, -half - 16, 0, half, -half, h), (-half, half, 0, half, half + 16, h)]:
        f.write(box(*w, "wall1"))
    lights = []
    for i in range(pillars):
        gx, gy = i % side, i // side
        x, y = -half + 128 + gx * step, -half + 128 + gy * step
        f.write(box(x, y, 0, x + 32, y + 32, 64 + (i * 37) % 160, "stone1"))
        if i % 25 == 0: lights.append((x + 48, y + 48, 220))
    f.write("}\n")
    for x, y, z in lights:
        f.write('{\n"classname" "light"\n"origin" "%d %d %d"\n"light" "250"\n}\n' % (x, y, z))
    f.write('{\n"classname" "info_player_start"\n"origin" "%d %d 40"\n}\n' % (-half + 64, -half + 64))
