#!/usr/bin/env python3
"""prelit_check.py PMFVIEW BSP PMF [SAMPLES [TOLERANCE]] - the light a BSP's compiler baked survives its
conversion (issue 25): luxel centres of the world's lit floor faces, picked at random (seed 1),
are each looked at from half a metre above through `pmfview shot --inspect`, and the luxel the
inspector shows must equal the BSP's stored bytes within +-TOLERANCE (4) at >= 85% of the
points seen. A face is picked again when there are fewer faces than samples. Where the face has
light styles besides 0, the layer of the dynamic light `info` gives that style must hold the
style's stored bytes there too (the inspector's value x 255, same tolerance)."""
import json, math, random, struct, subprocess, sys

pmfview, bsp_path, pmf_path = sys.argv[1:4]
want = int(sys.argv[4]) if len(sys.argv) > 4 else 100
tolerance = int(sys.argv[5]) if len(sys.argv) > 5 else 4
data = open(bsp_path, "rb").read()
version = struct.unpack_from("<I", data, 0)[0]
lumps = [struct.unpack_from("<ii", data, 4 + 8 * i) for i in range(15)]
def lump(i): off, n = lumps[i]; return data[off:off + n]
planes = [struct.unpack_from("<4f", lump(1), 20 * i) for i in range(len(lump(1)) // 20)]
verts = [struct.unpack_from("<3f", lump(3), 12 * i) for i in range(len(lump(3)) // 12)]
wide = version not in (29, 30)
edges = [struct.unpack_from("<2I" if wide else "<2H", lump(12), (8 if wide else 4) * i) for i in range(len(lump(12)) // (8 if wide else 4))]
surf = struct.unpack_from("<%di" % (len(lump(13)) // 4), lump(13), 0)
tex = [struct.unpack_from("<8f", lump(6), 40 * i) for i in range(len(lump(6)) // 40)]
fsize = 28 if wide else 20
faces = []
for i in range(len(lump(7)) // fsize):
    if wide: plane, side, first, count, ti = struct.unpack_from("<5I", lump(7), fsize * i); rest = lump(7)[fsize * i + 20:fsize * i + 28]
    else: plane, side, first, count, ti = struct.unpack_from("<HHiHH", lump(7), fsize * i); rest = lump(7)[fsize * i + 12:fsize * i + 20]
    styles, light = rest[:4], struct.unpack_from("<i", rest, 4)[0]
    faces.append((plane, side, first, count, ti, styles, light))
world_first, world_count = struct.unpack_from("<2I", lump(14), 56)
lighting = lump(8)
bpp = 3 if version == 30 else 1
scale = 0.0254

def corners(f):
    out = []
    for k in range(f[3]):
        e = surf[f[2] + k]
        out.append(verts[edges[e][0]] if e >= 0 else verts[edges[-e][1]])
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

info = subprocess.run([pmfview, "info", pmf_path, "--json"], capture_output=True, text=True)
if info.returncode != 0: sys.exit("pmfview info failed: " + info.stderr.strip())
style_light = {}
for l in json.loads(info.stdout)["lights"]:
    if l["kind"] == "dynamic" and l.get("style") and l["style"] not in style_light: style_light[l["style"]] = l["id"]
styled_seen = 0

rng = random.Random(1)
candidates = [i for i in range(world_first, world_first + world_count)
              if faces[i][6] >= 0 and faces[i][5][0] == 0 and planes[faces[i][0]][2] * (-1 if faces[i][1] else 1) > 0.99]
rng.shuffle(candidates)
candidates = (candidates * (want * 4 // max(len(candidates), 1) + 1))[:max(want * 4, len(candidates))]
seen = match = 0
for fi in candidates:
    if seen >= want: break
    plane, side, first, count, ti, styles, light = faces[fi]
    S, T = tex[ti][:4], tex[ti][4:]
    poly = corners(faces[fi])
    st = [[S[0] * v[0] + S[1] * v[1] + S[2] * v[2] + S[3] for v in poly], [T[0] * v[0] + T[1] * v[1] + T[2] * v[2] + T[3] for v in poly]]
    mins = [math.floor(min(c) / 16) for c in st]
    size = [math.ceil(max(c) / 16) - mins[a] + 1 for a, c in enumerate(st)]
    i, j = rng.randrange(size[0]), rng.randrange(size[1])
    s, t = (mins[0] + i) * 16, (mins[1] + j) * 16
    nx, ny, nz, d = planes[plane]
    # solve S.p = s - S3, T.p = t - T3, N.p = d
    m = [[S[0], S[1], S[2]], [T[0], T[1], T[2]], [nx, ny, nz]]
    r = [s - S[3], t - T[3], d]
    det = (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
           + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]))
    if abs(det) < 1e-9: continue
    def col(c, k): return [[r[x] if y == k else c[x][y] for y in range(3)] for x in range(3)]
    def det3(a): return (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
                         + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]))
    p = [det3(col(m, k)) / det for k in range(3)]
    if not inside(p, poly): continue
    at = light + (j * size[0] + i) * bpp
    stored = [lighting[at + (c if bpp == 3 else 0)] for c in range(3)]
    cam = "%f,%f,%f,0,-90" % (p[0] * scale, (p[2] + 20) * scale, -p[1] * scale)
    out = subprocess.run([pmfview, "shot", pmf_path, "--size", "33x33", "--camera", cam, "--fov", "10", "--look", "raw",
                          "--inspect", "16,16"], capture_output=True, text=True)
    if out.returncode != 0: sys.exit("pmfview shot --inspect failed: " + out.stderr.strip())
    j_ = json.loads(out.stdout)
    if not j_.get("hit") or "luxel" not in j_ or abs(j_["position"][1] - p[2] * scale) > 0.02: continue
    seen += 1
    shown = j_["luxel"]["rgb"]
    ok = all(abs(a - b) <= tolerance for a, b in zip(shown, stored))
    for k in range(1, 4):
        if styles[k] == 255: break
        at_k = light + (k * size[0] * size[1] + j * size[0] + i) * bpp
        stored_k = [lighting[at_k + (c if bpp == 3 else 0)] for c in range(3)]
        layer = [l for l in j_.get("lights", []) if l["kind"] == "dynamic" and l.get("id") == style_light.get(styles[k])]
        shown_k = [round(v * 255) for v in layer[0]["value"]] if layer else [0, 0, 0]
        styled_seen += 1
        if not all(abs(a - b) <= tolerance for a, b in zip(shown_k, stored_k)):
            ok = False
            print("face %d luxel (%d,%d) style %d: BSP %s, layer %s" % (fi, i, j, styles[k], stored_k, shown_k))
    match += ok
    if not ok: print("face %d luxel (%d,%d): BSP %s, shown %s" % (fi, i, j, stored, shown))
print("%d of %d luxels within +-%d of the BSP's bytes (%d light-style layers among them)" % (match, seen, tolerance, styled_seen))
if seen < want // 2: sys.exit("only %d points seen" % seen)
if match < 0.85 * seen: sys.exit("fewer than 85% match")
