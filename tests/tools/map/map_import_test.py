#!/usr/bin/env python3
"""map_import_test.py CASE PMFC PMFVIEW PNG_PROBE WORKDIR - Quake-family .map import (issue 24),
on maps and a WAD2 this test writes. A room of six brushes, 512 x 512 x 256 units inside:

  texels  a Valve 220 floor with a WAD2 texture (left half palette index 37, right half 38) under
          --game DIR/gfx/palette.lmp: from above, x = 4 shows colour 37 and x = 12 colour 38, and
          a shift of 8 texels swaps them (texel u = p . u_axis / scale + shift)
  delay2  a Quake light with delay 2 (_anglescale 0): the floor's luxel straight under it is
          twice the one at the same height's distance to the side (inverse-square); 49 faint ones
          (2 each) near the ceiling, none of which reaches a byte on the floor, light it together
          as ericw-tools' light does (each reaches as far as it passes the gate)
  style   a light with style 5 is a dynamic light: switched off, the floor under it goes dark; its
          pattern ("jklmnopqrstuvwxyzyxwvutsrqponmlkj", ten letters a second) plays with --time:
          the light's share at 1.6 s ('z') is 25/12 of the one as baked ('m', 0.3 s, and no
          --time), and at 0 s ('j') 9/12. A spotlight of the style aimed at the floor lights the
          ceiling by its bounce alone (--bounce 1), and not at all with --no-styled-bounce
  styles  a hall 78 m long lit by 24 lights of style 1 along it (one tinted red) and a light of
          style 2 at its end: the lights of a style are one dynamic light (one ID in info's list),
          so no chunk carries more than the two styles' lights, nor more layer bytes than twice
          its lightmaps', nor a client block larger than its lightmaps and two layers of each
          and 64 KiB (each light took a layer of the chunk's atlas); switching a style off darkens the floor
          under its lights, and the red member's share of the floor is red. Two such lights at one
          place (a room) light the floor under them twice as much as one: past a byte, the
          style's light goes on in a further layer of its ID, as the lights did alone (the
          inspector lists the style once)
  airvis  a hall 66 m wide and 52 m tall beside a low room behind a solid wall: pmfc asks blocks of open air
          as one box (src/compiler/visibility/visibility.c); from cameras high in the hall's air the
          picture with visibility equals the one without, pixel for pixel (and from the void
          outside, where cells get no visibility data), and from the hall's floor the low room
          is culled
  hlrad   a Half-Life light 128 units up follows hlrad's model (stored x 2 through gamma 0.5):
          the floor straight under it against 120 units aside (the middle of a luxel, d units
          from the light) is ((d / 128)^3)^0.5 brighter in inverse square (cos / d^2), and
          ((d / 128)^2)^0.5 with `_falloff 1` (cos / d); the light tools undo the storage: muting the
          only light darkens the floor, solo leaves it as it is; a func_wall slab between the light
          and the floor casts no shadow (hlrad's lights pass through every model but the world),
          one with `zhlt_lightflags 2` (opaque) does
  texlights  texture lights: a Half-Life room whose ceiling texture LAMP is in lights.rad beside
          the map (then --rad FILE, then info_texlights) has no light entity yet is lit: its
          floor's luxel is bright, info lists the ceiling's emitters ("texlight LAMP") and the
          inspector names them among the luxel's lights; without the file it is fullbright. A
          Quake room's ceiling lit by copies of a `_surface` light template, 2 units under each
          piece of it as qbsp chops it and light subdivides it: at ericw-tools' places (its
          -surflight_dump) within 8 units, none where the ceiling meets a wall; with
          `_surface_spotlight` each copy is a spotlight aimed down, and the floor gets less
  sky     light from the sky alone (ericw-tools' worldspawn keys, hlrad's light_environment): a room
          whose ceiling is sky over x < 0 and a roof over x > 0. Lit only by the dome `_sunlight2`
          (Quake, and a Half-Life map), by `_sunlight` straight down, or by a light_environment, it
          is not fullbright and the floor under the sky is far brighter than under the roof (also
          lit by a light_spot with `_sky`, hlrad's other sun); the
          sun straight down gives half its value under the sky (ericw-tools' `_range` 0.5) and
          nothing under the roof. Dirt:
          `_dirt 1` darkens the sunlit floor at the wall's foot, `_sunlight_dirt -1` spares the
          sun, `_sunlight_dirt 1` alone darkens the sun but not minlight; minlight is a floor under
          the light, not added to it, and a func_detail's `_minlight` (red by `_minlight_color`)
          is its faces' own floor
  paks    --game DIR read as the engines read it: the palette and the map's WAD only in pak0.pak,
          a palette in pak1.pak overriding pak0's, a loose one overriding both; sky pictures
          (gfx/env) only in a pak are the sky drawn, a lights.rad only in a pak lights a Half-Life
          room; a damaged pak is one line naming it and exit 2, from pmfc and from pmfview
  leak    the room with a wall left out reports its leak (the warning, info's leak path); sealed,
          none; the gap closed by a brush of skip seals (solid, drawn by nothing), of clip leaks"""
import json, math, os, shutil, struct, subprocess, sys

CASE, PMFC, PMFVIEW, PROBE, WORK = sys.argv[1:6]
S = 0.0254
os.makedirs(WORK, exist_ok=True)
os.chdir(WORK)
PAL = {37: (10, 200, 77), 38: (220, 30, 140), 40: (128, 128, 128)}

def fail(msg):
    sys.exit("FAIL (%s): %s" % (CASE, msg))

def run(*args):
    r = subprocess.run(list(args), capture_output=True, text=True)
    if r.returncode != 0:
        fail("%s exited %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
    return r

def box(x0, y0, z0, x1, y1, z1, tex, params, top_params=None):
    top = top_params or params
    top_tex = "split" if top_params else tex
    return ("{\n( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s %s\n" % (x0, y0, z0, x0, y0 + 1, z0, x0, y0, z0 + 1, tex, params)
            + "( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s %s\n" % (x1, y1, z1, x1, y1, z1 + 1, x1, y1 + 1, z1, tex, params)
            + "( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s %s\n" % (x0, y0, z0, x0, y0, z0 + 1, x0 + 1, y0, z0, tex, params)
            + "( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s %s\n" % (x1, y1, z1, x1 + 1, y1, z1, x1, y1, z1 + 1, tex, params)
            + "( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s %s\n" % (x0, y0, z0, x0 + 1, y0, z0, x0, y0 + 1, z0, tex, params)
            + "( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s %s\n}\n" % (x1, y1, z1, x1, y1 + 1, z1, x1 + 1, y1, z1, top_tex, top))

def room(floor_top, wall_params, leave_out=None):
    walls = [(-272, -272, -16, 272, 272, 0), (-272, -272, 256, 272, 272, 272), (-272, -272, 0, -256, 272, 256),
             (256, -272, 0, 272, 272, 256), (-256, -272, 0, 256, -256, 256), (-256, 256, 0, 256, 272, 256)]
    out = ""
    for i, w in enumerate(walls):
        if i == leave_out: continue
        # the floor's top face: 'split' with floor_top's axes
        out += box(*w, "grey", wall_params, floor_top if i == 0 else None)
    return out

def write_wad():
    """test.wad: WAD2 with 'split' (16x16, x < 8 index 37, else 38) and 'grey' (index 40)."""
    lumps = []
    for name, texel in (("split", lambda x, y: 37 if x < 8 else 38), ("grey", lambda x, y: 40)):
        mips = b"".join(bytes(texel(x << l, y << l) for y in range(16 >> l) for x in range(16 >> l)) for l in range(4))
        head = name.encode().ljust(16, b"\0") + struct.pack("<6I", 16, 16, 40, 40 + 256, 40 + 320, 40 + 336)
        lumps.append((name, head + mips))
    data, entries = b"", b""
    for name, body in lumps:
        entries += struct.pack("<3IBBH", 12 + len(data), len(body), len(body), 0x44, 0, 0) + name.encode().ljust(16, b"\0")
        data += body
    open("test.wad", "wb").write(b"WAD2" + struct.pack("<2I", len(lumps), 12 + len(data)) + data + entries)
    os.makedirs("game/gfx", exist_ok=True)
    pal = bytearray(768)
    for i, c in PAL.items(): pal[3 * i:3 * i + 3] = bytes(c)
    open("game/gfx/palette.lmp", "wb").write(bytes(pal))

def write_pak(path, files):
    """A PAK of files {name: bytes}: "PACK", the directory's offset and size, the files, the
    directory (name[56], offset, size)."""
    data, entries = b"", b""
    for name, body in files.items():
        entries += name.encode().ljust(56, b"\0") + struct.pack("<2I", 12 + len(data), len(body))
        data += body
    open(path, "wb").write(b"PACK" + struct.pack("<2I", 12 + len(data), len(entries)) + data + entries)

def tga_bytes(colour, side=8):
    """An uncompressed 24-bit TGA of one colour."""
    head = struct.pack("<BBBHHBHHHHBB", 0, 0, 2, 0, 0, 0, 0, 0, side, side, 24, 0)
    return head + bytes((colour[2], colour[1], colour[0])) * (side * side)

def palette_bytes(colours):
    pal = bytearray(768)
    for i, c in colours.items(): pal[3 * i:3 * i + 3] = bytes(c)
    return bytes(pal)

def world(extra_keys="", fmt="Valve"):
    return '// Game: Quake\n// Format: %s\n{\n"classname" "worldspawn"\n"wad" "test.wad"\n%s' % (fmt, extra_keys)

VALVE_WALL = "[ 1 0 0 0 ] [ 0 -1 0 0 ] 0 1 1"
def compile_map(name, text, *extra):
    open(name + ".map", "w").write(text)
    return run(PMFC, name + ".map", "-o", name + ".pmf", "--game", "game", "--bounce", "0", *extra)


def pixel(pmf, x, y, *extra):
    """The centre pixel seen from 64 units over the floor point (x, y)."""
    cam = "%f,%f,%f,0,-90" % (x * S, 64 * S, -y * S)
    run(PMFVIEW, "shot", pmf, "-o", "px.png", "--size", "33x33", "--fov", "5", "--camera", cam, *extra)
    return tuple(int(v) for v in run(PROBE, "pixel", "px.png", "16", "16").stdout.split())

def luxel(pmf, x, y):
    cam = "%f,%f,%f,0,-90" % (x * S, 64 * S, -y * S)
    j = json.loads(run(PMFVIEW, "shot", pmf, "--size", "33x33", "--fov", "5", "--camera", cam, "--look", "raw",
                       "--inspect", "16,16").stdout)
    if not j.get("hit") or "luxel" not in j: fail("no luxel under (%d, %d): %s" % (x, y, j))
    return j["luxel"]["rgb"]

def near(a, b, tol):
    return all(abs(p - q) <= tol for p, q in zip(a, b))

write_wad()
if CASE == "texels":
    for shift, left, right in ((0, 37, 38), (8, 38, 37)):
        floor = "[ 1 0 0 %d ] [ 0 -1 0 0 ] 0 1 1" % shift
        compile_map("texels", world() + room(floor, VALVE_WALL) + "}\n")
        a, b = pixel("texels.pmf", 4, 4, "--mode", "fullbright"), pixel("texels.pmf", 12, 4, "--mode", "fullbright")
        print("shift %d: x=4 %s, x=12 %s" % (shift, a, b))
        if not near(a, PAL[left], 3) or not near(b, PAL[right], 3):
            fail("shift %d: want %s then %s" % (shift, PAL[left], PAL[right]))
elif CASE == "delay2":
    light = '{\n"classname" "light"\n"origin" "0 0 128"\n"light" "100"\n"delay" "2"\n"_anglescale" "0"\n}\n'
    compile_map("delay2", world() + room(VALVE_WALL, VALVE_WALL) + "}\n" + light)
    under, side = luxel("delay2.pmf", 0, 0), luxel("delay2.pmf", 128, 0)
    ratio = under[0] / max(side[0], 1)
    print("under the light %s, 128 units aside %s: ratio %.2f (inverse-square: 2)" % (under, side, ratio))
    if not 1.8 <= ratio <= 2.2: fail("ratio %.2f is not inverse-square's 2" % ratio)
    # 49 faint lights (2, a 7 x 7 grid 64 units apart, 8 units under the ceiling): none reaches the
    # floor by itself (2 x (128 / 248)^2 = 0.53 under it), together they light it as ericw-tools'
    # light does, each as far as its value passes the gate: 8.9 bytes in the middle (it was 0)
    grid = "".join('{\n"classname" "light"\n"origin" "%d %d 248"\n"light" "2"\n"delay" "2"\n"_anglescale" "0"\n}\n'
                   % (64 * i, 64 * j) for i in range(-3, 4) for j in range(-3, 4))
    compile_map("faint", world() + room(VALVE_WALL, VALVE_WALL) + "}\n" + grid)
    want = sum(2 * (128 / math.sqrt((64 * i) ** 2 + (64 * j) ** 2 + 248 ** 2)) ** 2 / 2 for i in range(-3, 4) for j in range(-3, 4))
    middle = luxel("faint.pmf", 0, 0)
    print("49 faint lights: the floor's middle %s, want %.1f" % (middle, want))
    if abs(middle[0] - want) > 1.5: fail("the faint lights give %s, not %.1f" % (middle, want))
elif CASE == "style":
    light = '{\n"classname" "light"\n"origin" "0 0 128"\n"light" "300"\n"style" "5"\n}\n'
    compile_map("style", world() + room(VALVE_WALL, VALVE_WALL) + "}\n" + light)
    lights = json.loads(run(PMFVIEW, "info", "style.pmf", "--json").stdout)["lights"]
    dyn = [l for l in lights if l["kind"] == "dynamic"]
    if len(dyn) != 1: fail("want one dynamic light, got %s" % lights)
    on = pixel("style.pmf", 0, 0)
    off = pixel("style.pmf", 0, 0, "--light", "%d=off" % dyn[0]["id"])
    print("style 5 light %d: on %s, off %s" % (dyn[0]["id"], on, off))
    if sum(on) < sum(off) + 60: fail("switching the style light off changed too little")
    # the light alone (lightmap mode), dim enough that 'z' stays below white
    dim = ("--mode", "lightmap", "--exposure", "0.3")
    dark = pixel("style.pmf", 0, 0, *dim, "--light", "%d=off" % dyn[0]["id"])[0]
    baked = pixel("style.pmf", 0, 0, *dim)[0]
    share = {t: pixel("style.pmf", 0, 0, *dim, "--time", t)[0] - dark for t in ("0.3", "1.6", "0")}
    print("light alone: off %d, as baked %d; at 0.3 s %+d, 1.6 s %+d, 0 s %+d" % (dark, baked, share["0.3"], share["1.6"], share["0"]))
    if baked - dark < 40: fail("the light's share as baked is too small to measure: %d" % (baked - dark))
    if abs(share["0.3"] - (baked - dark)) > 2: fail("'m' (0.3 s) is not the light as baked")
    for t, want in (("1.6", 25 / 12), ("0", 9 / 12)):
        got = share[t] / (baked - dark)
        if abs(got - want) > 0.05 * want + 2 / (baked - dark): fail("at %s s the share is %.3f of baked, want %.3f" % (t, got, want))
    # a spotlight of the style aimed at the floor lights the ceiling by its bounce alone, which
    # --no-styled-bounce leaves out (ericw-tools' light without -bouncestyled)
    spot = '{\n"classname" "light"\n"origin" "0 0 128"\n"light" "300"\n"style" "5"\n"mangle" "0 -90 0"\n"angle" "40"\n}\n'
    open("spot.map", "w").write(world() + room(VALVE_WALL, VALVE_WALL) + "}\n" + spot)
    def ceiling_layer(*extra):
        run(PMFC, "spot.map", "-o", "spot.pmf", "--game", "game", "--bounce", "1", *extra)
        cam = "%f,%f,%f,0,90" % (64 * S, 200 * S, 0.0)
        hit = json.loads(run(PMFVIEW, "shot", "spot.pmf", "--size", "33x33", "--fov", "5", "--camera", cam, "--look", "raw",
                             "--inspect", "16,16").stdout)
        return sum(sum(l["value"]) for l in hit.get("lights", []) if l["kind"] == "dynamic")
    bounced, direct = ceiling_layer(), ceiling_layer("--no-styled-bounce")
    print("the spotlight's layer on the ceiling: %.4f bounced, %.4f with --no-styled-bounce" % (bounced, direct))
    if not bounced > 0.01: fail("the style's bounce does not reach the ceiling: %.4f" % bounced)
    if direct != 0: fail("--no-styled-bounce: the ceiling still holds the style's light: %.4f" % direct)
elif CASE == "styles":
    hall = [(-1552, -272, -16, 1552, 272, 0), (-1552, -272, 256, 1552, 272, 272), (-1552, -272, 0, -1536, 272, 256),
            (1536, -272, 0, 1552, 272, 256), (-1536, -272, 0, 1536, -256, 256), (-1536, 256, 0, 1536, 272, 256)]
    text = world() + "".join(box(*w, "grey", VALVE_WALL) for w in hall) + "}\n"
    for k in range(24):
        color = '"_color" "1 0.25 0.25"\n' if k == 5 else ""
        text += '{\n"classname" "light"\n"origin" "%d 0 128"\n"light" "200"\n"style" "1"\n%s}\n' % (-1472 + 128 * k, color)
    text += '{\n"classname" "light"\n"origin" "1472 0 128"\n"light" "200"\n"style" "2"\n}\n'
    compile_map("styles", text)
    info = json.loads(run(PMFVIEW, "info", "styles.pmf", "--json", "--chunks").stdout)
    ids = {l["style"]: l["id"] for l in info["lights"] if l["kind"] == "dynamic"}
    level = info["levels"][0]
    for c in level["chunks"]:
        print("chunk %s: client %d bytes, %d dynamic lights, lightmaps %d bytes, layers %d bytes"
              % (c["coord"], c["decompressed"]["client"], c["dynamic_lights"], c["lightmap_bytes"], c["layer_bytes"]))
        if c["dynamic_lights"] > 2: fail("chunk %s carries %d dynamic lights for 2 styles" % (c["coord"], c["dynamic_lights"]))
        if c["layer_bytes"] > 2 * c["lightmap_bytes"]: fail("chunk %s: layers take more than two styles' worth" % c["coord"])
        if c["decompressed"]["client"] > 3 * c["lightmap_bytes"] + 65536: fail("chunk %s: client block too large" % c["coord"])
    if len(set(ids.values())) != 2 or len({l["id"] for l in info["lights"] if l["kind"] == "dynamic"}) != 2:
        fail("want one ID per style: %s" % ids)
    dim = ("--mode", "lightmap", "--exposure", "0.5")
    for x, style in ((-1472 + 128 * 12, 1), (1472, 2)):
        on, off = pixel("styles.pmf", x, 0, *dim), pixel("styles.pmf", x, 0, *dim, "--light", "%d=off" % ids[style])
        print("style %d (ID %d) at x = %d: on %s, off %s" % (style, ids[style], x, on, off))
        if sum(on) < sum(off) + 60: fail("switching style %d off changed too little" % style)
    red = -1472 + 128 * 5
    on, off = pixel("styles.pmf", red, 0, *dim), pixel("styles.pmf", red, 0, *dim, "--light", "%d=off" % ids[1])
    share = [a - b for a, b in zip(on, off)]
    print("under the red member: on %s, off %s, its style's share %s" % (on, off, share))
    if not share[0] > 1.5 * share[1] + 10: fail("the red member's light is not red in its style's layer: %s" % share)
    dim = ("--mode", "lightmap", "--exposure", "0.3")
    shares = []
    for count in (1, 2):
        lights = '{\n"classname" "light"\n"origin" "0 0 128"\n"light" "300"\n"style" "1"\n}\n' * count
        compile_map("pair", world() + room(VALVE_WALL, VALVE_WALL) + "}\n" + lights)
        lit, dark = pixel("pair.pmf", 0, 0, *dim)[0], pixel("pair.pmf", 0, 0, *dim, "--light", "1=off")[0]
        shares.append(lit - dark)
        cam = "0,%f,0,0,-90" % (64 * S)
        seen = json.loads(run(PMFVIEW, "shot", "pair.pmf", "--size", "33x33", "--fov", "5", "--camera", cam, "--look", "raw",
                              "--inspect", "16,16").stdout).get("lights", [])
        if [l["id"] for l in seen if l["kind"] == "dynamic"] != [1]: fail("the inspector lists %s for one style" % seen)
    print("the floor under one style light: %+d, under two at one place: %+d" % tuple(shares))
    if shares[0] < 40 or abs(shares[1] - 2 * shares[0]) > 3: fail("two lights of a style add %d, one %d" % (shares[1], shares[0]))
elif CASE == "airvis":
    hall = [(-2576, -1296, -16, 16, 1296, 0), (-2576, -1296, 2048, 16, 1296, 2064), (-2576, -1296, 0, -2560, 1296, 2048),
            (-2560, -1296, 0, 0, -1280, 2048), (-2560, 1280, 0, 0, 1296, 2048), (0, -1296, 0, 16, 1296, 2048)]
    low = [(16, -272, -16, 544, 272, 0), (16, -272, 256, 544, 272, 272), (528, -272, 0, 544, 272, 256),
           (16, -272, 0, 528, -256, 256), (16, 256, 0, 528, 272, 256)]
    # the low room's wall is the hall's: pillars in it to give it many targets
    pillars = [(96 + 96 * i, -32 + 64 * (i % 2), 0, 128 + 96 * i, 0 + 64 * (i % 2), 200) for i in range(4)]
    brushes = "".join(box(*b, "grey", VALVE_WALL) for b in hall + low + pillars)
    lights = ('{\n"classname" "light"\n"origin" "-1280 0 1024"\n"light" "600"\n}\n'
              '{\n"classname" "light"\n"origin" "272 0 200"\n"light" "300"\n}\n'
              '{\n"classname" "info_player_start"\n"origin" "-512 0 40"\n}\n')
    compile_map("air", world() + brushes + "}\n" + lights)
    def triangles(cam, *extra):
        r = run(PMFVIEW, "shot", "air.pmf", "-o", "air.png", "--size", "96x64", "--camera", cam, "--stats", *extra)
        return int([l for l in r.stderr.splitlines() if l.startswith("triangles:")][0].split()[1])
    # the last camera stands in the void beyond the hall's wall: its cell gets no visibility data
    for x, z, yaw, pitch in ((-1280, 1500, -90, -20), (-2200, 1900, -60, -40), (-200, 1200, 90, -60), (-2700, 1000, -90, -10)):
        cam = "%f,%f,%f,%d,%d" % (x * S, z * S, -0.0, yaw, pitch)
        with_vis = triangles(cam)
        run(PMFVIEW, "shot", "air.pmf", "-o", "vis.png", "--size", "96x64", "--camera", cam)
        without = triangles(cam, "--no-vis")
        run(PMFVIEW, "shot", "air.pmf", "-o", "novis.png", "--size", "96x64", "--camera", cam, "--no-vis")
        differ = int(run(PROBE, "diff", "vis.png", "novis.png", "2").stdout)
        print("air camera (%d, %d): %d triangles with visibility, %d without, %d pixels differ" % (x, z, with_vis, without, differ))
        if differ: fail("visibility hides what is seen from the air at (%d, %d)" % (x, z))
        if with_vis > without: fail("more triangles with visibility than without")
    floor = "%f,%f,%f,-90,0" % (-900 * S, 40 * S, 0.0)
    culled, whole = triangles(floor), triangles(floor, "--no-vis")
    print("hall floor: %d triangles with visibility, %d without" % (culled, whole))
    if culled >= whole: fail("nothing culled from the hall's floor")
elif CASE == "hlrad":
    walls = [(-272, -272, -16, 272, 272, 0), (-272, -272, 256, 272, 272, 272), (-272, -272, 0, -256, 272, 256),
             (256, -272, 0, 272, 272, 256), (-256, -272, 0, 256, -256, 256), (-256, 256, 0, 256, 272, 256)]
    head = '// Game: Half-Life\n// Format: Valve\n{\n"classname" "worldspawn"\n"wad" "test.wad"\n'
    room_text = head + "".join(box(*w, "grey", VALVE_WALL) for w in walls) + "}\n"
    d = math.hypot(128, 120)
    for name, keys, want in (("square", '"_light" "255 255 255 100"', ((d / 128) ** 3) ** 0.5),
                             ("linear", '"_light" "255 255 255 30"\n"_falloff" "1"', ((d / 128) ** 2) ** 0.5)):
        open(name + ".map", "w").write(room_text + '{\n"classname" "light"\n"origin" "0 0 128"\n%s\n}\n' % keys)
        run(PMFC, name + ".map", "-o", name + ".pmf", "--bounce", "0")
        under, aside = luxel(name + ".pmf", 0, 0), luxel(name + ".pmf", 120, 0)
        ratio = under[0] / max(aside[0], 1)
        print("%s: under the light %s, 120 units aside %s: ratio %.3f (want %.3f)" % (name, under, aside, ratio, want))
        if under[0] >= 250: fail(name + ": saturated")
        if abs(ratio - want) > 0.1: fail("%s: ratio %.3f, want %.3f" % (name, ratio, want))
    # a slab of brush entity between the light and the floor: no shadow unless it is opaque
    slab = box(-64, -64, 88, 64, 64, 96, "grey", VALVE_WALL)    # above the probing camera (64 up)
    lamp = '{\n"classname" "light"\n"origin" "0 0 128"\n"_light" "255 255 255 100"\n}\n'
    open_floor = luxel("square.pmf", 0, 0)[0]
    for name, keys, dark in (("slab", "", False), ("opaque_slab", '"zhlt_lightflags" "2"\n', True)):
        open(name + ".map", "w").write(room_text + lamp + '{\n"classname" "func_wall"\n' + keys + slab + "}\n")
        run(PMFC, name + ".map", "-o", name + ".pmf", "--bounce", "0")
        under = luxel(name + ".pmf", 0, 0)[0]
        print("%s: the floor under the light and the slab %d (open floor %d)" % (name, under, open_floor))
        if dark and under > 4: fail("%s: the opaque slab casts no shadow (%d)" % (name, under))
        if not dark and abs(under - open_floor) > 2: fail("%s: the slab shadows the floor (%d, open %d)" % (name, under, open_floor))
    # the light tools take the stored bytes back to light: muted, the floor under the only light
    # goes dark; solo, it is the whole picture
    plain = pixel("square.pmf", 0, 0, "--mode", "lightmap", "--look", "raw")
    muted = pixel("square.pmf", 0, 0, "--mode", "lightmap", "--look", "raw", "--mute", "#0")
    solo = pixel("square.pmf", 0, 0, "--mode", "lightmap", "--look", "raw", "--solo", "#0")
    print("light tools on stored light: plain %s, muted %s, solo %s" % (plain, muted, solo))
    if max(muted) > 12: fail("muting the only light leaves %s" % (muted,))
    if not near(solo, plain, 3): fail("solo of the only light %s is not the picture %s" % (solo, plain))
elif CASE == "texlights":
    def hl_room(extra=""):
        walls = [(-272, -272, -16, 272, 272, 0), (-272, -272, 0, -256, 272, 256), (256, -272, 0, 272, 272, 256),
                 (-256, -272, 0, 256, -256, 256), (-256, 256, 0, 256, 272, 256)]
        text = '// Game: Half-Life\n// Format: Valve\n{\n"classname" "worldspawn"\n'
        text += "".join(box(*w, "grey", VALVE_WALL) for w in walls) + box(-272, -272, 256, 272, 272, 272, "lamp", VALVE_WALL)
        return text + "}\n" + '{\n"classname" "info_player_start"\n"origin" "0 0 40"\n}\n' + extra
    def floor_luxel(pmf):
        cam = "%f,%f,%f,0,-90" % (0.0, 64 * S, 0.0)
        return json.loads(run(PMFVIEW, "shot", pmf, "--size", "33x33", "--fov", "5", "--camera", cam, "--look", "raw",
                              "--inspect", "16,16").stdout)
    def check_lit(name, how):
        info = json.loads(run(PMFVIEW, "info", name + ".pmf", "--json").stdout)
        emitters = [l for l in info["lights"] if l["name"] == "texlight LAMP"]
        hit = floor_luxel(name + ".pmf")
        named = [l for l in hit.get("lights", []) if l["name"] == "texlight LAMP"]
        print("%s: %d emitters, floor luxel %s, %d of them named among its lights" % (how, len(emitters), hit["luxel"]["rgb"], len(named)))
        if info["source"]["fullbright"]: fail(how + ": fullbright")
        if len(emitters) < 16: fail(how + ": %d texlight emitters in info" % len(emitters))
        if min(hit["luxel"]["rgb"]) < 60: fail(how + ": the floor is dark: %s" % hit["luxel"])
        if not named: fail(how + ": the inspector names no texlight")
    open("hl.map", "w").write(hl_room())
    r = run(PMFC, "hl.map", "-o", "dark.pmf", "--bounce", "0")
    if "no lights: fullbright" not in r.stderr: fail("without lights.rad the room should be fullbright: " + r.stderr)
    open("lights.rad", "w").write("// texture lights\nLAMP 255 255 255 400\n")
    run(PMFC, "hl.map", "-o", "rad.pmf", "--bounce", "0")
    check_lit("rad", "lights.rad beside the map")
    os.rename("lights.rad", "other.rad")
    run(PMFC, "hl.map", "-o", "flag.pmf", "--bounce", "0", "--rad", "other.rad")
    check_lit("flag", "--rad other.rad")
    open("hl.map", "w").write(hl_room('{\n"classname" "info_texlights"\n"lamp" "255 255 255 400"\n}\n'))
    run(PMFC, "hl.map", "-o", "ent.pmf", "--bounce", "0")
    check_lit("ent", "info_texlights")
    # Quake: a _surface template copied over the ceiling's faces, not lighting from its own place
    walls = [(-272, -272, -16, 272, 272, 0), (-272, -272, 0, -256, 272, 256), (256, -272, 0, 272, 272, 256),
             (-256, -272, 0, 256, -256, 256), (-256, 256, 0, 256, 272, 256)]
    text = world() + "".join(box(*w, "grey", VALVE_WALL) for w in walls) + box(-272, -272, 256, 272, 272, 272, "tlight", VALVE_WALL)
    text += "}\n" + '{\n"classname" "light"\n"origin" "0 0 128"\n"light" "400"\n"_surface" "tlight"\n}\n'
    compile_map("surf", text)
    lights = json.loads(run(PMFVIEW, "info", "surf.pmf", "--json").stdout)["lights"]
    hit = floor_luxel("surf.pmf")
    print("_surface: %d lights, floor luxel %s" % (len(lights), hit["luxel"]["rgb"]))
    # a copy 2 units under each piece of the ceiling as qbsp chops it (240 texels) and light
    # subdivides it (128 units): where light -surflight_dump puts this room's 36 (ericw-tools
    # 2.0.0-alpha3), within the 8 units qbsp's cut of the face at the walls moves its chops
    places = sorted((round(l["position"][0] / S), round(-l["position"][2] / S), round(l["position"][1] / S)) for l in lights)
    want = sorted((x, y, 254) for x in (-192, -80, -16, 64, 160, 224) for y in (-224, -160, -64, 16, 80, 192))
    if len(places) != len(want) or any(abs(a - b) > 8 for p, w in zip(places, want) for a, b in zip(p, w)):
        fail("_surface: copies at %s, light's at %s" % (places, want))
    if any(abs(l["position"][1] - 128 * S) < 1e-3 for l in lights): fail("the template itself lights")
    if min(hit["luxel"]["rgb"]) < 20: fail("_surface: the floor is dark: %s" % hit["luxel"])
    # _surface_spotlight 1: each copy a spotlight along its face's normal (down), of ericw-tools'
    # default 40-degree cone: of copies of 280 (they reach the floor 254 units down), the floor's
    # middle sees only those within 92 units of it
    dim = text.replace('"light" "400"', '"light" "280"')
    compile_map("dim", dim)
    compile_map("spot", dim.replace('"_surface" "tlight"', '"_surface" "tlight"\n"_surface_spotlight" "1"'))
    spots = json.loads(run(PMFVIEW, "info", "spot.pmf", "--json").stdout)["lights"]
    dim_floor, spot_floor = floor_luxel("dim.pmf")["luxel"]["rgb"], floor_luxel("spot.pmf")["luxel"]["rgb"]
    print("_surface_spotlight: %d lights (%s), floor luxel %s, %s without" % (len(spots), sorted({l["shape"] for l in spots}), spot_floor, dim_floor))
    if len(spots) != len(lights) or any(l["shape"] != "spot" or abs(l["direction"][1] + 1) > 1e-3 for l in spots):
        fail("_surface_spotlight: the copies are not spotlights aimed down: %s" % spots[:2])
    if not 5 <= spot_floor[0] < dim_floor[0] < 250:
        fail("_surface_spotlight: the floor %s, without it %s" % (spot_floor, dim_floor))
elif CASE == "sky":
    def sky_room(head, sky_tex, extra=""):
        walls = [(-272, -272, -16, 272, 272, 0), (-272, -272, 0, -256, 272, 256), (256, -272, 0, 272, 272, 256),
                 (-256, -272, 0, 256, -256, 256), (-256, 256, 0, 256, 272, 256)]
        text = head + "".join(box(*w, "grey", VALVE_WALL) for w in walls)
        text += box(-272, -272, 256, 0, 272, 272, sky_tex, VALVE_WALL) + box(0, -272, 256, 272, 272, 272, "grey", VALVE_WALL)
        return text + "}\n" + '{\n"classname" "info_player_start"\n"origin" "0 0 40"\n}\n' + extra
    def lit_from_sky(name, text):
        """The floor's luxels under the sky and under the roof (128 units either side of the middle)."""
        r = compile_map(name, text)
        if "fullbright" in r.stderr: fail(name + ": " + r.stderr)
        if json.loads(run(PMFVIEW, "info", name + ".pmf", "--json").stdout)["source"]["fullbright"]: fail(name + ": info says fullbright")
        sky, roof = luxel(name + ".pmf", -128, 0)[0], luxel(name + ".pmf", 128, 0)[0]
        print("%s: floor under the sky %d, under the roof %d" % (name, sky, roof))
        return sky, roof
    half_life = '// Game: Half-Life\n// Format: Valve\n{\n"classname" "worldspawn"\n"mapversion" "220"\n'
    # (Half-Life's luxels hold light through gamma 0.5: the ratio is compared in light)
    for name, text, gamma in (("dome", sky_room(world('"_sunlight2" "300"\n'), "sky1"), 1),
                              ("hl_dome", sky_room(half_life + '"_sunlight2" "100"\n', "sky"), 0.5),
                              ("environment", sky_room(half_life, "sky", '{\n"classname" "light_environment"\n"origin" "0 0 128"\n'
                                                       '"_light" "255 255 255 60"\n"pitch" "-90"\n}\n'), 0.5),
                              ("sky_spot", sky_room(half_life, "sky", '{\n"classname" "light_spot"\n"origin" "0 0 128"\n'
                                                    '"_light" "255 255 255 60"\n"pitch" "-90"\n"_sky" "1"\n}\n'), 0.5)):
        sky, roof = lit_from_sky(name, text)
        if sky < 40 or sky ** (1 / gamma) < 2 * roof ** (1 / gamma): fail("%s: the floor under the sky (%d) is not clearly brighter than under the roof (%d)" % (name, sky, roof))
    sun = '"_sunlight" "200"\n"_sun_mangle" "0 -90 0"\n'
    sky, roof = lit_from_sky("sun", sky_room(world(sun), "sky1"))
    # ericw-tools stores light x _range (0.5): the sun's 200 as 100
    if abs(sky - 100) > 2 or roof > 2: fail("the sun straight down: want 100 under the sky and 0 under the roof")
    # dirt at the foot of the wall under the sky, and minlight under the roof's corner
    def foot(keys):
        compile_map("dirt", sky_room(world(sun + keys), "sky1"))
        return luxel("dirt.pmf", -250, 0)[0], luxel("dirt.pmf", 250, 0)[0]
    plain, dirty, spared, sun_only = foot(""), foot('"_dirt" "1"\n'), foot('"_dirt" "1"\n"_sunlight_dirt" "-1"\n'), foot('"_sunlight_dirt" "1"\n')
    minlit = foot('"_sunlight_dirt" "1"\n"light" "40"\n')
    print("the wall's foot: %d plain, %d with _dirt, %d with _sunlight_dirt -1, %d with _sunlight_dirt 1 (%d with minlight 40, "
          "%d in the roof's corner)" % (plain[0], dirty[0], spared[0], sun_only[0], minlit[0], minlit[1]))
    if dirty[0] > plain[0] - 20: fail("_dirt 1 does not darken the wall's foot")
    if abs(spared[0] - plain[0]) > 1: fail("_sunlight_dirt -1 does not spare the sun")
    if abs(sun_only[0] - dirty[0]) > 1: fail("_sunlight_dirt 1 does not darken the sun")
    # minlight is a floor under the light (ericw-tools' max), not added to it
    if abs(minlit[1] - 20) > 1 or abs(minlit[0] - max(sun_only[0], 20)) > 1: fail("_sunlight_dirt 1 darkens minlight, or minlight adds")
    # a brush entity's `_minlight` and `_minlight_color`: a func_detail slab under the roof has a
    # red floor of 100 x _range where the world floor beside it is black
    slab = '{\n"classname" "func_detail"\n"_minlight" "100"\n"_minlight_color" "255 0 0"\n' + box(96, -32, 0, 160, 32, 16, "grey", VALVE_WALL) + "}\n"
    compile_map("minlit", sky_room(world(sun), "sky1", slab))
    top, beside = luxel("minlit.pmf", 128, 0), luxel("minlit.pmf", 200, 0)
    print("a func_detail with _minlight 100, red: its top %s, the floor beside it %s" % (top, beside))
    if not near(top, (50, 0, 0), 1) or not near(beside, (0, 0, 0), 1): fail("a brush entity's _minlight is not its faces' floor")
elif CASE == "leak":
    start = '{\n"classname" "info_player_start"\n"origin" "0 0 40"\n}\n'
    light = '{\n"classname" "light"\n"origin" "0 0 128"\n"light" "300"\n}\n'
    r = compile_map("sealed", world() + room(VALVE_WALL, VALVE_WALL) + "}\n" + start + light)
    if "warning: leak" in r.stderr: fail("the sealed room leaks: " + r.stderr)
    if json.loads(run(PMFVIEW, "info", "sealed.pmf", "--json").stdout)["leak"] is not None: fail("sealed: info has a leak")
    r = compile_map("leaky", world() + room(VALVE_WALL, VALVE_WALL, leave_out=3) + "}\n" + start + light)
    warn = [l for l in r.stderr.splitlines() if "warning: leak" in l]
    if len(warn) != 1 or "info_player_start" not in warn[0]: fail("want one leak warning naming the start: " + r.stderr)
    leak = json.loads(run(PMFVIEW, "info", "leaky.pmf", "--json").stdout)["leak"]
    if not leak or len(leak.get("points", [])) < 2: fail("info's leak: %s" % leak)
    print("leak: %s; %d points" % (warn[0], len(leak["points"])))
    # the gap closed by a brush of skip (draws nothing, solid: seals), then of clip (not solid: leaks)
    for tool, leaks in (("skip", False), ("clip", True)):
        r = compile_map("tool", world() + room(VALVE_WALL, VALVE_WALL, leave_out=3) + box(256, -272, 0, 272, 272, 256, tool, VALVE_WALL)
                        + "}\n" + start + light)
        said = any("warning: leak" in l for l in r.stderr.splitlines())
        print("gap closed by %s: %s" % (tool, "leaks" if said else "sealed"))
        if said != leaks: fail("a wall of %s should %s" % (tool, "leak" if leaks else "seal"))
elif CASE == "outside":
    # sealed: from outside, the near wall's outer face is gone and the far wall's inner face is seen
    light = '{\n"classname" "light"\n"origin" "0 0 128"\n"light" "300"\n}\n'
    start = '{\n"classname" "info_player_start"\n"origin" "0 0 40"\n}\n'
    def seen(name):
        cam = "%f,%f,%f,-90,0" % (-600 * S, 128 * S, 0)
        return json.loads(run(PMFVIEW, "shot", name + ".pmf", "--size", "33x33", "--fov", "5", "--camera", cam,
                              "--inspect", "16,16").stdout)
    compile_map("sealed", world() + room(VALVE_WALL, VALVE_WALL) + "}\n" + light + start)
    hit = seen("sealed")
    print("sealed, from outside: hit at x = %.1f units" % (hit["position"][0] / S))
    if not hit.get("hit") or abs(hit["position"][0] / S - 256) > 1: fail("want the far wall's inner face (x = 256): %s" % hit)
    # with a gap (the +y wall left out) every face is kept: the near wall's outer face is seen
    r = compile_map("gap", world() + room(VALVE_WALL, VALVE_WALL, leave_out=5) + "}\n" + light + start)
    # ... and drawn: the centre pixel is that wall's outer face, unlit (black), not the sky behind
    cam = "%f,%f,%f,-90,0" % (-600 * S, 128 * S, 0)
    run(PMFVIEW, "shot", "gap.pmf", "-o", "gap.png", "--size", "33x33", "--fov", "5", "--camera", cam)
    px = tuple(int(v) for v in run(PROBE, "pixel", "gap.png", "16", "16").stdout.split())
    print("gap, from outside: the centre pixel is %s" % (px,))
    if not near(px, (0, 0, 0), 3): fail("want the near wall's unlit outer face, black: %s" % (px,))
    hit = seen("gap")   # the inspector's ray runs along the grid's planes here: it must still hit
    if not hit.get("hit") or abs(hit["position"][0] / S + 272) > 1: fail("want the near wall's outer face (x = -272): %s" % hit)
    leak = json.loads(run(PMFVIEW, "info", "gap.pmf", "--json").stdout)["leak"]
    end = leak["points"][-1]
    if abs(end[0]) > 0.05 or abs(end[2]) > 0.05: fail("the leak path ends at %s, not at the start (0, _, 0)" % end)
elif CASE == "cameras":
    light = '{\n"classname" "light"\n"origin" "0 0 128"\n"light" "300"\n}\n'
    mod = '{\n"classname" "ms_player_spawn"\n"origin" "100 -50 20"\n"angle" "90"\n}\n'
    compile_map("mod", world() + room(VALVE_WALL, VALVE_WALL) + "}\n" + light + mod)
    cams = json.loads(run(PMFVIEW, "info", "mod.pmf", "--json").stdout)["cameras"]
    want = [100 * S, (20 + 28) * S, 50 * S]
    if not cams or not cams[0]["name"].startswith("ms_player_spawn") or not near(cams[0]["position"], want, 1e-3):
        fail("want the first camera at the ms_player_spawn's eye %s: %s" % (want, cams))
    print("ms_player_spawn: %s at %s" % (cams[0]["name"], cams[0]["position"]))
    compile_map("nospawn", world() + room(VALVE_WALL, VALVE_WALL) + "}\n" + light)
    cams = json.loads(run(PMFVIEW, "info", "nospawn.pmf", "--json").stdout)["cameras"]
    p = cams[0]["position"] if cams else None
    if not p or not (abs(p[0]) < 256 * S and abs(p[2]) < 256 * S and 0 < p[1] < 256 * S):
        fail("no spawn: want a camera inside the room: %s" % cams)
    print("no spawn: %s at %s" % (cams[0]["name"], p))
    # a lone brush has no inside: the camera stands back and the brush is what it sees
    compile_map("lone", world() + box(-32, -32, 0, 32, 32, 64, "grey", VALVE_WALL) + "}\n")
    cams = json.loads(run(PMFVIEW, "info", "lone.pmf", "--json").stdout)["cameras"]
    hit = json.loads(run(PMFVIEW, "shot", "lone.pmf", "--size", "33x33", "--inspect", "16,16").stdout)
    if not cams or cams[0]["name"] != "overview" or not hit.get("hit"): fail("a lone brush: %s, centre %s" % (cams, hit))
    print("a lone brush: %s at %s sees it" % (cams[0]["name"], cams[0]["position"]))
elif CASE == "fullbright":
    r = compile_map("dark", world() + room(VALVE_WALL, VALVE_WALL) + "}\n")
    if "no lights: fullbright" not in r.stderr: fail("no note: " + r.stderr)
    src = json.loads(run(PMFVIEW, "info", "dark.pmf", "--json").stdout)["source"]
    if not src["fullbright"]: fail("info: not fullbright: %s" % src)
    # under the raw look, fullbright is the texture itself (the quake look doubles it, as Quake does)
    px = pixel("dark.pmf", 4, 4, "--look", "raw")
    print("no lights: fullbright, the floor shows %s" % (px,))
    if not near(px, PAL[37], 3): fail("the floor is not its texture's colour %s" % (PAL[37],))
elif CASE == "oversized":
    # the room's luxels (about 10 000 at 16 units) over a limit of 4096: coarser, not refused
    light = '{\n"classname" "light"\n"origin" "0 0 128"\n"light" "300"\n}\n'
    r = compile_map("big", world() + room(VALVE_WALL, VALVE_WALL) + "}\n" + light, "--max-luxels", "4096")
    warn = [l for l in r.stderr.splitlines() if "coarser luxels" in l]
    if len(warn) != 1: fail("want one coarsening warning: " + r.stderr)
    print(warn[0])
elif CASE == "paks":
    shutil.rmtree("pakgame", ignore_errors=True)  # a run before left its loose palette
    os.makedirs("pakgame")
    wrong = {37: (1, 2, 3), 38: (4, 5, 6), 40: (7, 8, 9)}
    loose = {37: (250, 250, 0), 38: (0, 250, 250), 40: (9, 9, 9)}
    write_pak("pakgame/pak0.pak", {"gfx/palette.lmp": palette_bytes(wrong), "paked.wad": open("test.wad", "rb").read()})
    write_pak("pakgame/pak1.pak", {"gfx/palette.lmp": palette_bytes(PAL)})
    text = world().replace('"wad" "test.wad"', '"wad" "/quake/id1/paked.wad"') + room(VALVE_WALL, VALVE_WALL) + "}\n"
    open("paks.map", "w").write(text)
    for label, want in (("pak1 over pak0", PAL), ("loose over the paks", loose)):
        if want is loose:
            os.makedirs("pakgame/gfx", exist_ok=True)
            open("pakgame/gfx/palette.lmp", "wb").write(palette_bytes(loose))
        run(PMFC, "paks.map", "-o", "paks.pmf", "--game", "pakgame", "--bounce", "0")
        px = pixel("paks.pmf", 4, 4, "--mode", "fullbright", "--look", "raw")
        print("%s: the floor's texel 37 shows %s" % (label, px))
        if not near(px, want[37], 3): fail("%s: want %s" % (label, want[37]))
    # the sky's six pictures only in pak0.pak: looking up through the sky ceiling shows them, not
    # the generated sky
    SKY = (200, 40, 160)
    write_pak("pakgame/pak0.pak", dict({"gfx/palette.lmp": palette_bytes(wrong), "paked.wad": open("test.wad", "rb").read()},
                                       **{"gfx/env/paksky%s.tga" % f: tga_bytes(SKY) for f in ("rt", "up", "ft", "lf", "dn", "bk")}))
    sky_text = world('"sky" "paksky"\n').replace('"wad" "test.wad"', '"wad" "/quake/id1/paked.wad"')
    sky_text += room(VALVE_WALL, VALVE_WALL, leave_out=1) + box(-272, -272, 256, 272, 272, 272, "sky1", VALVE_WALL) + "}\n"
    open("paksky.map", "w").write(sky_text)
    run(PMFC, "paksky.map", "-o", "paksky.pmf", "--game", "pakgame", "--bounce", "0")
    run(PMFVIEW, "shot", "paksky.pmf", "-o", "px.png", "--size", "33x33", "--fov", "5", "--camera", "0,%f,0,0,90" % (128 * S),
        "--look", "raw")
    px = tuple(int(v) for v in run(PROBE, "pixel", "px.png", "16", "16").stdout.split())
    print("the sky from pak0.pak's gfx/env/paksky*.tga: %s" % (px,))
    if not near(px, SKY, 3): fail("the sky shows %s, not pak0.pak's pictures %s" % (px, SKY))
    # a Half-Life room lit only by its ceiling's texture light, lights.rad only in a pak
    shutil.rmtree("radgame", ignore_errors=True)
    os.makedirs("radgame")
    write_pak("radgame/pak0.pak", {"lights.rad": b"// texture lights\nLAMP 255 255 255 400\n"})
    walls = [(-272, -272, -16, 272, 272, 0), (-272, -272, 0, -256, 272, 256), (256, -272, 0, 272, 272, 256),
             (-256, -272, 0, 256, -256, 256), (-256, 256, 0, 256, 272, 256)]
    hl = '// Game: Half-Life\n// Format: Valve\n{\n"classname" "worldspawn"\n' + "".join(box(*w, "grey", VALVE_WALL) for w in walls)
    hl += box(-272, -272, 256, 272, 272, 272, "lamp", VALVE_WALL) + '}\n{\n"classname" "info_player_start"\n"origin" "0 0 40"\n}\n'
    open("radpak.map", "w").write(hl)
    r = run(PMFC, "radpak.map", "-o", "radpak.pmf", "--game", "radgame", "--bounce", "0")
    lit = luxel("radpak.pmf", 0, 0)
    print("lights.rad in radgame/pak0.pak: the floor's luxel %s" % (lit,))
    if "fullbright" in r.stderr or min(lit) < 60: fail("lights.rad in a pak does not light the room: %s %s" % (lit, r.stderr))
    # a damaged pak: its directory reaches past the file's end; pmfc and the viewer refuse the game dir
    open("pakgame/pak1.pak", "wb").write(b"PACK" + struct.pack("<2I", 12, 6400))
    for program in ([PMFC, "paks.map", "-o", "bad.pmf", "--game", "pakgame"],
                    [PMFVIEW, "shot", "paks.pmf", "-o", "bad.png", "--size", "33x33", "--game", "pakgame"]):
        r = subprocess.run(program, capture_output=True, text=True)
        lines = r.stderr.strip().splitlines()
        print("damaged pak, %s: exit %d: %s" % (os.path.basename(program[0]), r.returncode, lines))
        if r.returncode != 2 or len(lines) != 1 or "pak1.pak" not in lines[0]: fail("want exit 2 and one line naming pak1.pak: " + r.stderr)
else:
    fail("unknown case")
print("map import (%s): all checks passed" % CASE)
