#!/usr/bin/env python3
"""fidelity_check.py PMFVIEW BSP PMF [SAMPLES [MIN_RANK [RATIO_LO RATIO_HI]]] - how close pmfc's
bake of a map's source comes to the light its game's compiler baked (issues 26 and 33).

SAMPLES (300) luxels are drawn at random (seed 1) over every lit face of the BSP's world, each
luxel of the map as likely as any other: dark ones, walls and ceilings included. At each luxel's
centre the compiler's light is that luxel (every style's stored bytes added, as the game shows
them at rest) and pmfc's the luxel pmfview's inspector shows on pmfc's map at the same point, seen
along the face's normal (with every dynamic light's layer that is on, each clamped as the compiler
clamps a style's lightmap: style_bytes), each as the mean of its channels. A point is kept where the inspector sees that face there (no other surface in front). A
liquid's surface counts once: qbsp -transwater writes it as two faces lit alike, one seen from the
air and one from inside the liquid, where pmfc has one surface lit from both sides; the second
(a liquid face that a leaf of water, slime or lava lists, as ericw-tools' light tells it) is not
drawn.

Over all points kept, and over floors, walls and ceilings each (the face's normal: z > 0.7 a
floor, < -0.7 a ceiling, a wall between), asserts the rank correlation (Spearman) >= MIN_RANK
(0.85) and the median ratio, median of (pmfc + 1) / (compiler + 1), within RATIO_LO..RATIO_HI
(0.85..1.2). A class with fewer than CLASS_POINTS (100) of the SAMPLES seen draws more luxels of its
own faces the same way (each of its luxels as likely as any other, up to three times) until it has
them: ceilings are a tenth of a map's luxels, and a median over the 20 or 30 of them a 300-luxel
draw gives moves by a third from one draw to the next. At least 150 points in all and 90 in each
class must be seen. With FIDELITY_PAIRS=FILE set, every point seen goes to FILE, a line each:
class, face, texture, x y z (units), the compiler's value and pmfc's."""
import bisect, math, os, random, statistics, sys

from prelit_check import Bsp, inspect_many

MIN_POINTS, MIN_CLASS_POINTS, CLASS_POINTS = 150, 90, 100
EDGE_MARGIN = 1.0       # units: a point this close to its face's edge is drawn again


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    k = 0
    while k < len(order):
        run = k
        while run + 1 < len(order) and values[order[run + 1]] == values[order[k]]: run += 1
        for m in range(k, run + 1): r[order[m]] = (k + run) / 2.0
        k = run + 1
    return r


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.fmean(ra), statistics.fmean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va, vb = sum((x - ma) ** 2 for x in ra), sum((y - mb) ** 2 for y in rb)
    return cov / (va * vb) ** 0.5 if va > 0 and vb > 0 else 0.0


def sub(a, b): return [a[k] - b[k] for k in range(3)]
def cross(a, b): return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
def dot(a, b): return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


class LitFace:
    """One lit world face: its corners, unit normal, area (units^2), winding and luxel grid."""
    def __init__(self, bsp, index):
        plane, side, first, count, ti, self.styles, self.light = bsp.faces[index]
        self.index = index
        self.poly = bsp.corners(bsp.faces[index])
        n = bsp.planes[plane][:3]
        self.normal = [-c for c in n] if side else list(n)
        self.S, self.T = bsp.tex[ti][:4], bsp.tex[ti][4:]
        st = [[dot(self.S, v) + self.S[3] for v in self.poly], [dot(self.T, v) + self.T[3] for v in self.poly]]
        self.mins = [math.floor(min(c) / 16) for c in st]
        self.size = [math.ceil(max(c) / 16) - self.mins[a] + 1 for a, c in enumerate(st)]
        signed = sum(dot(cross(sub(self.poly[k], self.poly[0]), sub(self.poly[k + 1], self.poly[0])), self.normal)
                     for k in range(1, len(self.poly) - 1)) / 2
        self.area = abs(signed)
        self.winding = 1 if signed >= 0 else -1     # counter-clockwise about the normal or not

    def kind(self):
        return "floor" if self.normal[2] > 0.7 else "ceiling" if self.normal[2] < -0.7 else "wall"

    def luxel_centre(self, i, j):
        """The point of the face's plane at luxel (i, j)'s centre (None when the texture axes are
        degenerate)."""
        s, t = (self.mins[0] + i) * 16 - self.S[3], (self.mins[1] + j) * 16 - self.T[3]
        m = [self.S[:3], self.T[:3], self.normal]
        r = [s, t, dot(self.normal, self.poly[0])]
        det = dot(m[0], cross(m[1], m[2]))
        if abs(det) < 1e-9: return None
        # Cramer's rule: p = (r0 (m1 x m2) + r1 (m2 x m0) + r2 (m0 x m1)) / det
        c = [cross(m[1], m[2]), cross(m[2], m[0]), cross(m[0], m[1])]
        return [(r[0] * c[0][k] + r[1] * c[1][k] + r[2] * c[2][k]) / det for k in range(3)]

    def inside(self, p, margin):
        """Whether p lies at least `margin` units inside every edge."""
        for k in range(len(self.poly)):
            a, b = self.poly[k], self.poly[(k + 1) % len(self.poly)]
            edge = sub(b, a)
            inward = cross(self.normal, edge)
            length = math.sqrt(dot(inward, inward)) or 1
            if self.winding * dot(sub(p, a), inward) / length < margin: return False
        return True

    def stored(self, bsp, p):
        """The mean of the channels of the luxel nearest p, every style added."""
        i = min(max(round((dot(self.S, p) + self.S[3]) / 16) - self.mins[0], 0), self.size[0] - 1)
        j = min(max(round((dot(self.T, p) + self.T[3]) / 16) - self.mins[1], 0), self.size[1] - 1)
        total = 0.0
        for k in range(4):
            if self.styles[k] == 255: break
            at = self.light + (k * self.size[0] * self.size[1] + j * self.size[0] + i) * bsp.bpp
            total += sum(bsp.lighting[at + (c if bsp.bpp == 3 else 0)] for c in range(3)) / 3.0
        return total


def luxel_points(bsp, want, seed=1, kind=None):
    """`want` (face, luxel centre) pairs: luxels drawn at random over the world's lit faces (of that
    `kind` only, when given), each luxel as likely as any other (a face by its count of luxels, then
    one of them; a luxel whose centre lies off its face, or within EDGE_MARGIN of an edge, is drawn
    again)."""
    rng = random.Random(seed)
    inside = bsp.liquid_undersides()
    faces = [LitFace(bsp, i) for i in range(bsp.world_first, bsp.world_first + bsp.world_count)
             if bsp.faces[i][6] >= 0 and i not in inside]
    faces = [f for f in faces if f.area > 0 and (kind is None or f.kind() == kind)]
    cumulative, total = [], 0
    for f in faces:
        total += f.size[0] * f.size[1]
        cumulative.append(total)
    picks = []
    for _ in range(want * 50 if total else 0):      # a map whose luxels all miss their faces ends
        if len(picks) >= want: break
        f = faces[bisect.bisect_right(cumulative, rng.randrange(total))]
        p = f.luxel_centre(rng.randrange(f.size[0]), rng.randrange(f.size[1]))
        if p and f.inside(p, EDGE_MARGIN): picks.append((f, p))
    return picks


def style_bytes(value):
    """The mean byte of a dynamic light's value (0..1 a channel, more past a byte) as the compiler
    stores a light style's lightmap: scaled down, hue kept, until no channel passes 255 (ericw-tools'
    LightFace_ScaleAndClamp; the game adds the styles' clamped bytes)."""
    top = max(value) * 255
    return sum(value) / 3.0 * 255 * (255 / top if top > 255 else 1)


def measure(game, ours):
    """(rank correlation, the median over the points of (pmfc + 1) / (compiler + 1): a byte added
    to each so that black luxels count, pmfc's mean over the compiler's)."""
    ratio = statistics.median((o + 1) / (g + 1) for g, o in zip(game, ours))
    return spearman(game, ours), ratio, statistics.fmean(ours) / max(statistics.fmean(game), 1e-9)


def main():
    pmfview, bsp_path, pmf_path = sys.argv[1:4]
    want = int(sys.argv[4]) if len(sys.argv) > 4 else 300
    min_rank = float(sys.argv[5]) if len(sys.argv) > 5 else 0.85
    lo, hi = (float(sys.argv[6]), float(sys.argv[7])) if len(sys.argv) > 7 else (0.85, 1.2)
    bsp = Bsp(bsp_path)

    def seen(picks):
        views = inspect_many(pmfview, pmf_path, [(pick[1], pick[0].normal) for pick in picks])
        return [(pick, j) for pick, j in zip(picks, views) if j]
    points = seen(luxel_points(bsp, want))
    for kind in ("floor", "wall", "ceiling"):
        for seed in (2, 3, 4):
            have = sum(pick[0].kind() == kind for pick, _ in points)
            if have >= CLASS_POINTS: break
            points += seen([(f, p, kind) for f, p in luxel_points(bsp, CLASS_POINTS - have, seed, kind)])
    classes = {"all": ([], []), "floor": ([], []), "wall": ([], []), "ceiling": ([], [])}
    pairs = open(os.environ["FIDELITY_PAIRS"], "w") if os.environ.get("FIDELITY_PAIRS") else None
    for pick, j in points:
        f, p = pick[:2]
        shown = sum(j["luxel"]["rgb"]) / 3.0
        shown += sum(style_bytes(l["value"]) for l in j.get("lights", []) if l["kind"] == "dynamic" and l.get("on"))
        # a class's own extra draws count for that class alone, the draw over all faces for both
        for name in ((f.kind(),) if len(pick) > 2 else ("all", f.kind())):
            classes[name][0].append(f.stored(bsp, p))
            classes[name][1].append(shown)
        if pairs:
            pairs.write("%s %d %s %.1f %.1f %.1f %.1f %.1f\n" % (f.kind(), f.index, bsp.texture_name(bsp.faces[f.index]) or "-",
                                                               *p, f.stored(bsp, p), shown))
    failures = []
    for name, (game, ours) in classes.items():
        least = MIN_POINTS if name == "all" else MIN_CLASS_POINTS
        if len(game) < least:
            failures.append("%s: only %d points seen (at least %d)" % (name, len(game), least))
            continue
        rank, ratio, means = measure(game, ours)
        print("%-7s %3d points: rank correlation %.3f, median ratio %.3f, means %.1f / %.1f (%.3f), medians %.1f / %.1f"
              % (name, len(game), rank, ratio, statistics.fmean(ours), statistics.fmean(game), means,
                 statistics.median(ours), statistics.median(game)))
        if rank < min_rank: failures.append("%s: rank correlation %.3f below %.2f" % (name, rank, min_rank))
        if not lo <= ratio <= hi: failures.append("%s: median ratio %.3f outside %.2f..%.2f" % (name, ratio, lo, hi))
    if failures: sys.exit("; ".join(failures))


if __name__ == "__main__":
    main()
