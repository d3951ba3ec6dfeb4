#!/usr/bin/env python3
"""game_files.py LQ_DIR OUT_DIR - the game's files the page's test drops with a map (issue 41):
OUT_DIR/models.map (a Quake room, item_armor1 in front of the player's start), OUT_DIR/game/ as
`--game` takes it (pak0.pak: the armour and a palette of inverted colours; pak1.pak: Quake's
palette, over pak0's), OUT_DIR/loose/ (armor.mdl and palette.lmp, dropped as loose files, and the
six pictures of the sky `test`), OUT_DIR/palette/ (a game of the palette alone: the armour is
missing), OUT_DIR/sky.map (the room, its ceiling and far wall sky, worldspawn "sky" "test") and
OUT_DIR/sky/ (a game of loose files: the palette, the armour, gfx/env/test*.tga and
maps/sky.map, dropped as a folder); entity definitions: OUT_DIR/fgd.map (the room, the armour's place
taken by item_test, a class only loose/test.fgd gives a model), OUT_DIR/fgdgame/ (a game of
maps/fgd.map, fgd/test.fgd, the armour and the palette) and OUT_DIR/tbdef/ (maps/tbdef.map naming
its FGD by `_tb_def`, an editor's absolute path, test.fgd at the game's root, and broken.fgd, a
malformed FGD the map does not name); GoldSrc's texture lights: OUT_DIR/rad.map (a Half-Life room
lit only by its ceiling's texture LAMP), OUT_DIR/rad/ (maps/rad.map and lights.rad) and
loose/lamps.rad (the same lights under another name)."""
import os, shutil, struct, sys

LQ, OUT = sys.argv[1:3]

def write_pak(path, files):
    """"PACK", the directory's offset and size, the files, the directory (name[56], offset, size)."""
    data, entries = b"", b""
    for name, body in files.items():
        entries += name.encode().ljust(56, b"\0") + struct.pack("<2I", 12 + len(data), len(body))
        data += body
    open(path, "wb").write(b"PACK" + struct.pack("<2I", 12 + len(data), len(entries)) + data + entries)

def box(x0, y0, z0, x1, y1, z1, texture="grey"):
    planes = (((x0, y0, z0), (x0, y0 + 1, z0), (x0, y0, z0 + 1)), ((x1, y1, z1), (x1, y1, z1 + 1), (x1, y1 + 1, z1)),
              ((x0, y0, z0), (x0, y0, z0 + 1), (x0 + 1, y0, z0)), ((x1, y1, z1), (x1 + 1, y1, z1), (x1, y1, z1 + 1)),
              ((x0, y0, z0), (x0 + 1, y0, z0), (x0, y0 + 1, z0)), ((x1, y1, z1), (x1, y1 + 1, z1), (x1 + 1, y1, z1)))
    return "{\n" + "".join("( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s [ 1 0 0 0 ] [ 0 -1 0 0 ] 0 1 1\n"
                           % (a + b + c + (texture,)) for a, b, c in planes) + "}\n"

palette = open(os.path.join(LQ, "gfx/palette.lmp"), "rb").read()
armour = open(os.path.join(LQ, "progs/armor.mdl"), "rb").read()
for folder in ("game", "loose", "palette", "sky"):
    shutil.rmtree(os.path.join(OUT, folder), ignore_errors=True)
for folder in ("game", "loose", "palette/gfx", "sky/gfx/env", "sky/progs"):
    os.makedirs(os.path.join(OUT, folder))
write_pak(os.path.join(OUT, "game/pak0.pak"), {"gfx/palette.lmp": bytes(255 - b for b in palette), "progs/armor.mdl": armour})
write_pak(os.path.join(OUT, "game/pak1.pak"), {"gfx/palette.lmp": palette})
open(os.path.join(OUT, "loose/armor.mdl"), "wb").write(armour)
open(os.path.join(OUT, "loose/palette.lmp"), "wb").write(palette)
open(os.path.join(OUT, "palette/gfx/palette.lmp"), "wb").write(palette)
open(os.path.join(OUT, "sky/gfx/palette.lmp"), "wb").write(palette)
open(os.path.join(OUT, "sky/progs/armor.mdl"), "wb").write(armour)

def tga(rgb):
    """64 x 64, uncompressed, top row first: the face's colour in bands of light and dark."""
    pixels = b"".join(bytes(c * (4 if (y // 8) % 2 else 3) // 4 for c in reversed(rgb)) * 64 for y in range(64))
    return struct.pack("<3B2HB4H2B", 0, 0, 2, 0, 0, 0, 0, 0, 64, 64, 24, 0x20) + pixels

sky = {"rt": (220, 60, 40), "up": (40, 200, 220), "ft": (230, 200, 30), "lf": (60, 200, 60), "dn": (120, 60, 200), "bk": (240, 120, 200)}
for face, rgb in sky.items():
    for folder in ("sky/gfx/env", "loose"):
        open(os.path.join(OUT, folder, "test%s.tga" % face), "wb").write(tga(rgb))
walls = [(-272, -272, -16, 272, 272, 0), (-272, -272, 256, 272, 272, 272), (-272, -272, 0, -256, 272, 256),
         (256, -272, 0, 272, 272, 256), (-256, -272, 0, 256, -256, 256), (-256, 256, 0, 256, 272, 256)]
things = '{\n"classname" "info_player_start"\n"origin" "-128 0 24"\n"angle" "0"\n}\n'
things += '{\n"classname" "item_armor1"\n"origin" "-48 0 8"\n}\n'
things += '{\n"classname" "light"\n"origin" "0 0 128"\n"light" "300"\n}\n'
text = '// Game: Quake\n// Format: Valve\n{\n"classname" "worldspawn"\n' + "".join(box(*w) for w in walls) + "}\n"
open(os.path.join(OUT, "models.map"), "w").write(text + things)
# the ceiling (walls[1]) and the far wall (walls[3]) of sky1
text = '// Game: Quake\n// Format: Valve\n{\n"classname" "worldspawn"\n"sky" "test"\n'
text += "".join(box(*w, texture="sky1" if i in (1, 3) else "grey") for i, w in enumerate(walls)) + "}\n"
open(os.path.join(OUT, "sky.map"), "w").write(text + things)
os.makedirs(os.path.join(OUT, "sky/maps"))
open(os.path.join(OUT, "sky/maps/sky.map"), "w").write(text + things)

# entity definitions: item_test shows the armour only through test.fgd
fgd_text = '@PointClass size(-16 -16 0, 16 16 56) model("progs/armor.mdl") = item_test : "A test item" []\n'
fgd_map = (text.replace('"sky" "test"\n', "").replace("sky1", "grey")
           + things.replace("item_armor1", "item_test"))
open(os.path.join(OUT, "fgd.map"), "w").write(fgd_map)
open(os.path.join(OUT, "loose/test.fgd"), "w").write(fgd_text)
for game, files in {"fgdgame": {"maps/fgd.map": fgd_map, "fgd/test.fgd": fgd_text},
                    "tbdef": {"maps/tbdef.map": fgd_map.replace('"worldspawn"\n', '"worldspawn"\n'
                                                                '"_tb_def" "external:C:/TrenchBroom/games/Test/test.fgd"\n', 1),
                              "test.fgd": fgd_text, "broken.fgd": "@PointClass = broken [\n"}}.items():
    shutil.rmtree(os.path.join(OUT, game), ignore_errors=True)
    for name, body in files.items():
        os.makedirs(os.path.dirname(os.path.join(OUT, game, name)), exist_ok=True)
        open(os.path.join(OUT, game, name), "w").write(body)
    os.makedirs(os.path.join(OUT, game, "progs"))
    os.makedirs(os.path.join(OUT, game, "gfx"))
    open(os.path.join(OUT, game, "progs/armor.mdl"), "wb").write(armour)
    open(os.path.join(OUT, game, "gfx/palette.lmp"), "wb").write(palette)

# GoldSrc's texture lights: a room whose only light is its ceiling's texture LAMP
rad_map = ('// Game: Half-Life\n// Format: Valve\n{\n"classname" "worldspawn"\n'
           + "".join(box(*w, texture="lamp" if i == 1 else "grey") for i, w in enumerate(walls)) + "}\n"
           + '{\n"classname" "info_player_start"\n"origin" "-128 0 24"\n"angle" "0"\n}\n')
rad_text = "// texture lights\nLAMP 255 255 255 400\n"
open(os.path.join(OUT, "rad.map"), "w").write(rad_map)
open(os.path.join(OUT, "loose/lamps.rad"), "w").write(rad_text)
shutil.rmtree(os.path.join(OUT, "rad"), ignore_errors=True)
os.makedirs(os.path.join(OUT, "rad/maps"))
open(os.path.join(OUT, "rad/maps/rad.map"), "w").write(rad_map)
open(os.path.join(OUT, "rad/lights.rad"), "w").write(rad_text)
