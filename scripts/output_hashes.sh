#!/bin/sh
# Prints a SHA-256 of every map pmfc makes from a fixed set of sources, one line each, so that a
# change meant to keep every output byte (a refactor) can be checked: run it before and after and
# diff the two listings.
#
#   sh scripts/output_hashes.sh [PMFC] > hashes.txt     PMFC defaults to build/pmfc
#
# The sources: the three demo maps (assets/*.pms), a generated 8x2x8 city (seed 1), every RMF,
# .map and BSP under ../shared/data/. Each is compiled with --time 0 (no timestamp in the file).
# A source that fails prints "FAILED (exit N)" in place of its hash.
set -u
cd "$(dirname "$0")/.." || exit 1
PMFC=${1:-build/pmfc}
[ -x "$PMFC" ] || { echo "output_hashes: $PMFC is not a program (build first)" >&2; exit 2; }
WORK=$(mktemp -d) || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM

hash_of() { # NAME, then pmfc's arguments
    name=$1
    shift
    if "$PMFC" "$@" -o "$WORK/out.pmf" --time 0 --quiet >/dev/null 2>&1; then
        printf '%s  %s\n' "$(sha256sum "$WORK/out.pmf" | cut -d' ' -f1)" "$name"
    else
        printf 'FAILED (exit %s)  %s\n' "$?" "$name"
    fi
    rm -f "$WORK/out.pmf"
}

for pms in assets/*.pms; do
    hash_of "$pms" "$pms"
done
hash_of "city 8x2x8 seed 1" --generate city --chunks 8x2x8 --seed 1
for src in ../shared/data/rmf/*.rmf ../shared/data/map/*.map ../shared/data/goldsrc/*.rmf ../shared/data/goldsrc/*.bsp; do
    [ -f "$src" ] && hash_of "${src#../shared/data/}" "$src"
done
