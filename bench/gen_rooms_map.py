#!/usr/bin/env python3
"""gen_rooms_map.py OUT.map [FACES] - a Valve 220 .map shaped like a real indoor map, for bench
figure 7: a sealed block of rooms on two storeys, each room's walls pierced by doorways at
seeded places, crates and pillars inside, a light in every room and a player start in the
first. At least FACES brush faces in all (default 10,000; six per brush), rooms added until there
are."""
import math, random, sys

out, faces = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 10000
rng = random.Random(7)
ROOM, HEIGHT, WALL = 320, 192, 16
# Per room: 2 floors/ceilings shared, about 2 walls of 3 pieces (door cut), ~14 props.
PROPS = 14
per_room = 1 + 2 * 3 + PROPS
rooms = max(2, faces // 6 // per_room)
storeys = 2
side = max(1, math.ceil(math.sqrt(rooms / storeys))) + 1   # room to spare for the rooms added
brushes = []


def box(x0, y0, z0, x1, y1, z1, tex):
    brushes.append((min(x0, x1), min(y0, y1), min(z0, z1), max(x0, x1), max(y0, y1), max(z0, z1), tex))


def brush_text(b):
    x0, y0, z0, x1, y1, z1, tex = b
    # the same three-point winding as gen_quake_map.py, with Valve 220 axes per face direction
    faces = [((x0, y0, z0), (x0, y0 + 1, z0), (x0, y0, z0 + 1), "[ 0 1 0 0 ] [ 0 0 -1 0 ]"),
             ((x1, y1, z1), (x1, y1, z1 + 1), (x1, y1 + 1, z1), "[ 0 1 0 0 ] [ 0 0 -1 0 ]"),
             ((x0, y0, z0), (x0, y0, z0 + 1), (x0 + 1, y0, z0), "[ 1 0 0 0 ] [ 0 0 -1 0 ]"),
             ((x1, y1, z1), (x1 + 1, y1, z1), (x1, y1, z1 + 1), "[ 1 0 0 0 ] [ 0 0 -1 0 ]"),
             ((x0, y0, z0), (x0 + 1, y0, z0), (x0, y0 + 1, z0), "[ 1 0 0 0 ] [ 0 -1 0 0 ]"),
             ((x1, y1, z1), (x1, y1 + 1, z1), (x1 + 1, y1, z1), "[ 1 0 0 0 ] [ 0 -1 0 0 ]")]
    return "{\n" + "".join("( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s %s 0 1 1\n" % (*a, *b2, *c, tex, axes)
                           for a, b2, c, axes in faces) + "}\n"


span = side * ROOM
top = storeys * HEIGHT
# the shell: floor, roof and four outer walls
box(-WALL, -WALL, -WALL, span + WALL, span + WALL, 0, "FLOOR1")
box(-WALL, -WALL, top, span + WALL, span + WALL, top + WALL, "CEIL1")
box(-WALL, -WALL, 0, 0, span + WALL, top, "WALL1")
box(span, -WALL, 0, span + WALL, span + WALL, top, "WALL1")
box(0, -WALL, 0, span, 0, top, "WALL1")
box(0, span, 0, span, span + WALL, top, "WALL1")
lights, made = [], 0
for s in range(storeys):
    z0 = s * HEIGHT
    for gy in range(side):
        for gx in range(side):
            if made >= rooms and len(brushes) * 6 >= faces:
                break
            made += 1
            x0, y0 = gx * ROOM, gy * ROOM
            if s > 0:  # the floor between storeys, with a stairwell hole in one room of four
                if (gx + gy) % 4:
                    box(x0, y0, z0 - WALL, x0 + ROOM, y0 + ROOM, z0, "FLOOR1")
                else:
                    box(x0, y0, z0 - WALL, x0 + ROOM, y0 + ROOM // 2, z0, "FLOOR1")
            # the wall on this room's +x and +y sides, each with a doorway at a seeded place
            for axis in (0, 1):
                if (axis == 0 and gx == side - 1) or (axis == 1 and gy == side - 1):
                    continue
                door = rng.randrange(32, ROOM - 96, 16)
                width, tall = 64, 112
                if axis == 0:
                    wx = x0 + ROOM - WALL // 2
                    box(wx, y0, z0, wx + WALL, y0 + door, z0 + HEIGHT, "WALL1")
                    box(wx, y0 + door + width, z0, wx + WALL, y0 + ROOM, z0 + HEIGHT, "WALL1")
                    box(wx, y0 + door, z0 + tall, wx + WALL, y0 + door + width, z0 + HEIGHT, "WALL1")
                else:
                    wy = y0 + ROOM - WALL // 2
                    box(x0, wy, z0, x0 + door, wy + WALL, z0 + HEIGHT, "WALL1")
                    box(x0 + door + width, wy, z0, x0 + ROOM, wy + WALL, z0 + HEIGHT, "WALL1")
                    box(x0 + door, wy, z0 + tall, x0 + door + width, wy + WALL, z0 + HEIGHT, "WALL1")
            # crates and pillars
            for _ in range(PROPS):
                w = rng.choice((16, 32, 48))
                px = x0 + rng.randrange(40, ROOM - 40 - w, 8)
                py = y0 + rng.randrange(40, ROOM - 40 - w, 8)
                tall = rng.choice((16, 32, 48, 64, HEIGHT - 8))
                box(px, py, z0, px + w, py + w, z0 + tall, "CRATE1")
            lights.append((x0 + ROOM // 2, y0 + ROOM // 2, z0 + HEIGHT - 24))
if len(brushes) * 6 < faces:
    sys.exit("gen_rooms_map.py: %d faces do not fit the %d x %d x %d rooms" % (faces, side, side, storeys))

with open(out, "w") as f:
    f.write('// Game: Half-Life\n// Format: Valve\n{\n"classname" "worldspawn"\n"mapversion" "220"\n')
    for b in brushes:
        f.write(brush_text(b))
    f.write("}\n")
    for x, y, z in lights:
        f.write('{\n"classname" "light"\n"origin" "%d %d %d"\n"_light" "255 240 220 300"\n}\n' % (x, y, z))
    f.write('{\n"classname" "info_player_start"\n"origin" "%d %d 36"\n"angles" "0 45 0"\n}\n' % (ROOM // 4, ROOM // 4))
