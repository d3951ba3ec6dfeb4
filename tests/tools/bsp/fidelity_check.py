#!/usr/bin/env python3
"""fidelity_check.py PMFVIEW BSP PMF [SAMPLES [MIN_RANK [RATIO_LO RATIO_HI]]] - how close pmfc's
bake of a map's source comes to the light its game's compiler baked (issue 26): at SAMPLES (150)
luxel centres of the BSP's lit floor faces (prelit_check.py's picks), the compiler's light (every
style's stored bytes, as the game shows them at rest) against the light pmfview's inspector shows
on pmfc's map at the same point (the luxel and every dynamic light's layer), each as the mean of
its channels. Asserts the rank correlation (Spearman) >= MIN_RANK (0.8) and the median of pmfc /
compiler within RATIO_LO..RATIO_HI (0.8..1.25), over the points where both see the floor."""
import statistics, sys

from prelit_check import Bsp, floor_points, inspect


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


def main():
    pmfview, bsp_path, pmf_path = sys.argv[1:4]
    want = int(sys.argv[4]) if len(sys.argv) > 4 else 150
    min_rank = float(sys.argv[5]) if len(sys.argv) > 5 else 0.8
    lo, hi = (float(sys.argv[6]), float(sys.argv[7])) if len(sys.argv) > 7 else (0.8, 1.25)
    game, ours = [], []
    for fi, luxel, p, slots in floor_points(Bsp(bsp_path), want * 2):
        if len(game) >= want: break
        j = inspect(pmfview, pmf_path, p)
        if not j: continue
        compiler = sum(sum(rgb) / 3.0 for style, rgb in slots)
        shown = sum(j["luxel"]["rgb"]) / 3.0
        shown += sum(sum(l["value"]) / 3.0 * 255 for l in j.get("lights", []) if l["kind"] == "dynamic" and l.get("on"))
        game.append(compiler)
        ours.append(shown)
    if len(game) < want // 2: sys.exit("only %d points seen" % len(game))
    rank = spearman(game, ours)
    ratios = [o / g for g, o in zip(game, ours) if g >= 8]
    ratio = statistics.median(ratios) if ratios else 0.0
    print("%d points: rank correlation %.3f (>= %.2f), median pmfc / compiler %.3f (%.2f..%.2f); compiler median %.1f, pmfc median %.1f"
          % (len(game), rank, min_rank, ratio, lo, hi, statistics.median(game), statistics.median(ours)))
    if rank < min_rank: sys.exit("rank correlation %.3f below %.2f" % (rank, min_rank))
    if not lo <= ratio <= hi: sys.exit("median ratio %.3f outside %.2f..%.2f" % (ratio, lo, hi))


if __name__ == "__main__":
    main()
