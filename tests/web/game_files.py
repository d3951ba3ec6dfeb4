#!/usr/bin/env python3
"""game_files.py LQ_DIR OUT_DIR - the game's files the page's test drops with a map (issue 41):
OUT_DIR/models.map (a Quake room, item_armor1 in front of the player's start), OUT_DIR/game/ as
`--game` takes it (pak0.pak: the armour and a palette of inverted colours; pak1.pak: Quake's
palette, over pak0's) and OUT_DIR/loose/ (armor.mdl and palette.lmp, dropped as loose files)."""
import os, shutil, struct, sys

LQ, OUT = sys.argv[1:3]

def write_pak(path, files):
    """"PACK", the directory's offset and size, the files, the directory (name[56], offset, size)."""
    data, entries = b"", b""
    for name, body in files.items():
        entries += name.encode().ljust(56, b"\0") + struct.pack("<2I", 12 + len(data), len(body))
        data += body
    open(path, "wb").write(b"PACK" + struct.pack("<2I", 12 + len(data), len(entries)) + data + entries)

def box(x0, y0, z0, x1, y1, z1):
    planes = (((x0, y0, z0), (x0, y0 + 1, z0), (x0, y0, z0 + 1)), ((x1, y1, z1), (x1, y1, z1 + 1), (x1, y1 + 1, z1)),
              ((x0, y0, z0), (x0, y0, z0 + 1), (x0 + 1, y0, z0)), ((x1, y1, z1), (x1 + 1, y1, z1), (x1, y1, z1 + 1)),
              ((x0, y0, z0), (x0 + 1, y0, z0), (x0, y0 + 1, z0)), ((x1, y1, z1), (x1, y1 + 1, z1), (x1 + 1, y1, z1)))
    return "{\n" + "".join("( %d %d %d ) ( %d %d %d ) ( %d %d %d ) grey [ 1 0 0 0 ] [ 0 -1 0 0 ] 0 1 1\n"
                           % (a + b + c) for a, b, c in planes) + "}\n"

palette = open(os.path.join(LQ, "gfx/palette.lmp"), "rb").read()
armour = open(os.path.join(LQ, "progs/armor.mdl"), "rb").read()
for folder in ("game", "loose"):
    shutil.rmtree(os.path.join(OUT, folder), ignore_errors=True)
    os.makedirs(os.path.join(OUT, folder))
write_pak(os.path.join(OUT, "game/pak0.pak"), {"gfx/palette.lmp": bytes(255 - b for b in palette), "progs/armor.mdl": armour})
write_pak(os.path.join(OUT, "game/pak1.pak"), {"gfx/palette.lmp": palette})
open(os.path.join(OUT, "loose/armor.mdl"), "wb").write(armour)
open(os.path.join(OUT, "loose/palette.lmp"), "wb").write(palette)
walls = [(-272, -272, -16, 272, 272, 0), (-272, -272, 256, 272, 272, 272), (-272, -272, 0, -256, 272, 256),
         (256, -272, 0, 272, 272, 256), (-256, -272, 0, 256, -256, 256), (-256, 256, 0, 256, 272, 256)]
text = '// Game: Quake\n// Format: Valve\n{\n"classname" "worldspawn"\n' + "".join(box(*w) for w in walls) + "}\n"
text += '{\n"classname" "info_player_start"\n"origin" "-128 0 24"\n"angle" "0"\n}\n'
text += '{\n"classname" "item_armor1"\n"origin" "-48 0 8"\n}\n'
text += '{\n"classname" "light"\n"origin" "0 0 128"\n"light" "300"\n}\n'
open(os.path.join(OUT, "models.map"), "w").write(text)
