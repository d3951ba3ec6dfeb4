#!/usr/bin/env python3
"""prelit_check.py PMFVIEW BSP PMF [SAMPLES [TOLERANCE]] - the light a BSP's compiler baked survives its
conversion (issue 25): luxel centres of the world's lit floor faces, picked at random (seed 1),
are each looked at from half a metre above through `pmfview shot --inspect`, and the luxel the
inspector shows must equal the BSP's stored bytes within +-TOLERANCE (4) at >= 85% of the
points seen. A face is picked again when there are fewer faces than samples. Where the face has
light styles besides 0, the layer of the dynamic light `info` gives that style must hold the
style's stored bytes there too (the inspector's value x 255, same tolerance)."""
import concurrent.futures, json, math, os, random, struct, subprocess, sys

SCALE = 0.0254


class Bsp:
    """The lumps of a v29 / v30 / BSP2 file this check needs."""
    def __init__(self, path):
        data = open(path, "rb").read()
        self.version = version = struct.unpack_from("<I", data, 0)[0]
        lumps = [struct.unpack_from("<ii", data, 4 + 8 * i) for i in range(15)]
        def lump(i): off, n = lumps[i]; return data[off:off + n]
        self.planes = [struct.unpack_from("<4f", lump(1), 20 * i) for i in range(len(lump(1)) // 20)]
        self.verts = [struct.unpack_from("<3f", lump(3), 12 * i) for i in range(len(lump(3)) // 12)]
        wide = version not in (29, 30)
        self.edges = [struct.unpack_from("<2I" if wide else "<2H", lump(12), (8 if wide else 4) * i) for i in range(len(lump(12)) // (8 if wide else 4))]
        self.surf = struct.unpack_from("<%di" % (len(lump(13)) // 4), lump(13), 0)
        self.tex = [struct.unpack_from("<8f", lump(6), 40 * i) for i in range(len(lump(6)) // 40)]
        self.tex_miptex = [struct.unpack_from("<i", lump(6), 40 * i + 32)[0] for i in range(len(lump(6)) // 40)]
        mips = lump(2)
        offsets = struct.unpack_from("<%di" % struct.unpack_from("<i", mips)[0], mips, 4) if len(mips) >= 4 else ()
        self.miptex_names = [mips[o:o + 16].split(b"\0")[0].decode("latin-1") if 0 <= o < len(mips) else "" for o in offsets]
        fsize = 28 if wide else 20
        self.faces = []
        for i in range(len(lump(7)) // fsize):
            if wide: plane, side, first, count, ti = struct.unpack_from("<5I", lump(7), fsize * i); rest = lump(7)[fsize * i + 20:fsize * i + 28]
            else: plane, side, first, count, ti = struct.unpack_from("<HHiHH", lump(7), fsize * i); rest = lump(7)[fsize * i + 12:fsize * i + 20]
            styles, light = rest[:4], struct.unpack_from("<i", rest, 4)[0]
            self.faces.append((plane, side, first, count, ti, styles, light))
        self.world_first, self.world_count = struct.unpack_from("<2I", lump(14), 56)
        # leaves: contents, then (BSP2) 4 + 24 + 8 + 4 bytes or (v29 / v30) 4 + 12 + 4 + 4
        leaf_size, mark = (44, "<I") if wide else (28, "<H")
        self.leaves = [(struct.unpack_from("<i", lump(10), leaf_size * i)[0],) + struct.unpack_from("<2I" if wide else "<2H", lump(10), leaf_size * i + (36 if wide else 20))
                       for i in range(len(lump(10)) // leaf_size)]
        self.marks = [struct.unpack_from(mark, lump(11), struct.calcsize(mark) * i)[0] for i in range(len(lump(11)) // struct.calcsize(mark))]
        self.lighting = lump(8)
        self.bpp = 3 if version == 30 else 1
        lit = path[:-4] + ".lit" if path.lower().endswith(".bsp") else None
        if self.bpp == 1 and lit and os.path.isfile(lit):
            # a Quake map's colour beside it, as the engines read it: "QLIT", version 1, then 3 bytes
            # for each byte of the lump (a face's offset times 3)
            colour = open(lit, "rb").read()
            if colour[:4] == b"QLIT" and len(colour) == 8 + 3 * len(self.lighting):
                self.lighting, self.bpp = colour[8:], 3
                self.faces = [f[:6] + (f[6] * 3 if f[6] >= 0 else f[6],) for f in self.faces]

    def liquid_undersides(self):
        """The liquid faces (a "*" texture) that a leaf of water, slime or lava lists: the side of a
        liquid's surface seen from inside it (qbsp -transwater writes both)."""
        out = set()
        for contents, first, count in self.leaves:
            if contents in (-3, -4, -5):
                out.update(f for f in self.marks[first:first + count] if self.texture_name(self.faces[f]).startswith("*"))
        return out

    def texture_name(self, f):
        """The name of face f's texture ("" where the BSP keeps none)."""
        m = self.tex_miptex[f[4]]
        return self.miptex_names[m] if 0 <= m < len(self.miptex_names) else ""

    def corners(self, f):
        out = []
        for k in range(f[3]):
            e = self.surf[f[2] + k]
            out.append(self.verts[self.edges[e][0]] if e >= 0 else self.verts[self.edges[-e][1]])
        return out


def inside(pt, poly):
    # the point on the floor polygon (z up), a margin of 2 units from every edge
    n = len(poly); sgn = 0
    for k in range(n):
        a, b = poly[k], poly[(k + 1) % n]
        cross = (b[0] - a[0]) * (pt[1] - a[1]) - (b[1] - a[1]) * (pt[0] - a[0])
        length = math.hypot(b[0] - a[0], b[1] - a[1]) or 1
        d = cross / length
        if sgn == 0: sgn = 1 if d > 0 else -1
        if d * sgn < 2: return False
    return True


def floor_points(bsp, want, seed=1):
    """Luxel centres of the world's lit floor faces picked at random: yields (face index, luxel
    (i, j), the point in units, the stored bytes of each style slot [(style, rgb)...])."""
    rng = random.Random(seed)
    candidates = [i for i in range(bsp.world_first, bsp.world_first + bsp.world_count)
                  if bsp.faces[i][6] >= 0 and bsp.faces[i][5][0] == 0
                  and bsp.planes[bsp.faces[i][0]][2] * (-1 if bsp.faces[i][1] else 1) > 0.99]
    rng.shuffle(candidates)
    candidates = (candidates * (want * 4 // max(len(candidates), 1) + 1))[:max(want * 4, len(candidates))]
    for fi in candidates:
        plane, side, first, count, ti, styles, light = bsp.faces[fi]
        S, T = bsp.tex[ti][:4], bsp.tex[ti][4:]
        poly = bsp.corners(bsp.faces[fi])
        st = [[S[0] * v[0] + S[1] * v[1] + S[2] * v[2] + S[3] for v in poly], [T[0] * v[0] + T[1] * v[1] + T[2] * v[2] + T[3] for v in poly]]
        mins = [math.floor(min(c) / 16) for c in st]
        size = [math.ceil(max(c) / 16) - mins[a] + 1 for a, c in enumerate(st)]
        i, j = rng.randrange(size[0]), rng.randrange(size[1])
        s, t = (mins[0] + i) * 16, (mins[1] + j) * 16
        nx, ny, nz, d = bsp.planes[plane]
        # solve S.p = s - S3, T.p = t - T3, N.p = d
        m = [[S[0], S[1], S[2]], [T[0], T[1], T[2]], [nx, ny, nz]]
        r = [s - S[3], t - T[3], d]
        def det3(a): return (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
                             + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]))
        det = det3(m)
        if abs(det) < 1e-9: continue
        def col(k): return [[r[x] if y == k else m[x][y] for y in range(3)] for x in range(3)]
        p = [det3(col(k)) / det for k in range(3)]
        if not inside(p, poly): continue
        slots = []
        for k in range(4):
            if styles[k] == 255: break
            at = light + (k * size[0] * size[1] + j * size[0] + i) * bsp.bpp
            slots.append((styles[k], [bsp.lighting[at + (c if bsp.bpp == 3 else 0)] for c in range(3)]))
        yield fi, (i, j), p, slots


def look_along(p, normal, units=20):
    """The pmfview camera (X,Y,Z,YAW,PITCH: metres, degrees; conventions §2) `units` in front of
    point p (units, z up) on a face of unit normal `normal`, looking straight at it."""
    eye = [p[k] + normal[k] * units for k in range(3)]
    fx, fy, fz = -normal[0], -normal[2], normal[1]          # the view direction in (x, z, -y)
    pitch = math.degrees(math.asin(max(-1.0, min(1.0, fy))))
    yaw = math.degrees(math.atan2(-fx, -fz)) if abs(fy) < 0.9999 else 0.0
    return "%f,%f,%f,%f,%f" % (eye[0] * SCALE, eye[2] * SCALE, -eye[1] * SCALE, yaw, pitch)


def inspect_many(pmfview, pmf_path, points, jobs=2):
    """pmfview's surface inspector on each (point, unit normal) in units, seen from 20 units in
    front: its JSON for each, or None where it does not see that face there (another surface in
    front, or no luxel). One `shot` per point, `jobs` at a time: a `--cameras` run does not stream
    in the chunks of a camera far from the one before it."""
    def one(point):
        p, n = point
        out = subprocess.run([pmfview, "shot", pmf_path, "--size", "33x33", "--camera", look_along(p, n), "--fov", "10",
                              "--look", "raw", "--inspect", "16,16"], capture_output=True, text=True)
        if out.returncode != 0: return "pmfview shot --inspect failed: " + out.stderr.strip()
        j = json.loads(out.stdout)
        want = (p[0] * SCALE, p[2] * SCALE, -p[1] * SCALE)
        ok = j.get("hit") and "luxel" in j and math.dist(j["position"], want) <= 0.02 \
            and j["normal"][0] * n[0] + j["normal"][1] * n[2] - j["normal"][2] * n[1] > 0.99
        return j if ok else None
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        seen = list(pool.map(one, points))
    for j in seen:
        if isinstance(j, str): sys.exit(j)
    return seen


def inspect(pmfview, pmf_path, p, normal=(0, 0, 1)):
    """inspect_many for one point (a floor's by default)."""
    return inspect_many(pmfview, pmf_path, [(p, normal)])[0]


def main():
    pmfview, bsp_path, pmf_path = sys.argv[1:4]
    want = int(sys.argv[4]) if len(sys.argv) > 4 else 100
    tolerance = int(sys.argv[5]) if len(sys.argv) > 5 else 4
    bsp = Bsp(bsp_path)
    info = subprocess.run([pmfview, "info", pmf_path, "--json"], capture_output=True, text=True)
    if info.returncode != 0: sys.exit("pmfview info failed: " + info.stderr.strip())
    style_light = {}
    for l in json.loads(info.stdout)["lights"]:
        if l["kind"] == "dynamic" and l.get("style") and l["style"] not in style_light: style_light[l["style"]] = l["id"]
    seen = match = styled_seen = 0
    for fi, (i, j), p, slots in floor_points(bsp, want):
        if seen >= want: break
        j_ = inspect(pmfview, pmf_path, p)
        if not j_: continue
        seen += 1
        shown, stored = j_["luxel"]["rgb"], slots[0][1]
        ok = all(abs(a - b) <= tolerance for a, b in zip(shown, stored))
        for style, stored_k in slots[1:]:
            layer = [l for l in j_.get("lights", []) if l["kind"] == "dynamic" and l.get("id") == style_light.get(style)]
            shown_k = [round(v * 255) for v in layer[0]["value"]] if layer else [0, 0, 0]
            styled_seen += 1
            if not all(abs(a - b) <= tolerance for a, b in zip(shown_k, stored_k)):
                ok = False
                print("face %d luxel (%d,%d) style %d: BSP %s, layer %s" % (fi, i, j, style, stored_k, shown_k))
        match += ok
        if not ok: print("face %d luxel (%d,%d): BSP %s, shown %s" % (fi, i, j, stored, shown))
    print("%d of %d luxels within +-%d of the BSP's bytes (%d light-style layers among them)" % (match, seen, tolerance, styled_seen))
    if seen < want // 2: sys.exit("only %d points seen" % seen)
    if match < 0.85 * seen: sys.exit("fewer than 85% match")


if __name__ == "__main__":
    main()
