#!/bin/sh
# Compiles a shared LibreQuake level (../shared/data/lq) with ericw-tools as the game does, once:
#
#   sh scripts/ericw_compile.sh LEVEL.map [--time | --pmfc-flags]
#
# Prints the folder holding LEVEL.bsp and LEVEL.lit. The flags are the game's, from
# ../shared/data/lq/README.md (below, one line a level). The outputs are kept in
# ~/.cache/ericw-tools/levels/KEY (XDG_CACHE_HOME when set), KEY the hash of the map, the flags and
# ericw-tools' source, so a fresh machine pays the build and the compile once; ericw-tools is
# built (../shared/tools/ericw/build.sh) when missing. The WADs the maps name are not shared: qbsp is
# given LEVEL.wad beside the map, a 16 x 16 grey stand-in for each texture the map names, so that
# the BSP keeps the names `light` reads a face's kind from (sky lets the sun in, liquids cast no
# shadow; without a name every face is a solid wall to it). --time compiles again in a temporary folder
# and prints "qbsp Q vis V light L total T" (seconds) instead: the bench's measurement.
# --pmfc-flags prints pmfc's options for the same light: -bounce 1 is --bounce 1, -dirt 1 --dirt,
# -extra4 (4 x 4 samples a luxel) --samples 16, and without -bouncestyled --no-styled-bounce.
set -eu
map=${1:?usage: ericw_compile.sh LEVEL.map [--time | --pmfc-flags]}
timed=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
shared=$root/../shared
cache=${XDG_CACHE_HOME:-$HOME/.cache}/ericw-tools
[ -f "$map" ] || { echo "ericw_compile: no map '$map'" >&2; exit 2; }
name=$(basename "$map" .map)
case $name in
lq_e1m7) qbsp_flags="-transwater -splitturb"; vis_flags=""; light_flags="-extra4 -bounce 1 -dirt 1" ;;
lq_e1m2) qbsp_flags="-transwater -splitturb"; vis_flags=""; light_flags="-bounce 1 -dirt 1" ;;
lqdm10) qbsp_flags=""; vis_flags="-noambient"; light_flags="-bounce 1 -bouncestyled -dirt 1" ;;
lqdm5) qbsp_flags=""; vis_flags="-noambientwater -noambientslime"; light_flags="-bounce 1 -dirt 1" ;;
*) echo "ericw_compile: '$name' is not a shared level (its flags are unknown)" >&2; exit 2 ;;
esac
if [ "$timed" = "--pmfc-flags" ]; then
    echo "$light_flags" | awk '{ styled = 0; for (i = 1; i <= NF; i++) {
        if ($i == "-bounce") { printf "--bounce %s ", $(i + 1); i++ }
        else if ($i == "-bouncestyled") styled = 1
        else if ($i == "-dirt") { i++; printf "--dirt " }
        else if ($i == "-extra4") printf "--samples 16 " }
        if (!styled) printf "--no-styled-bounce "; print "" }'
    exit 0
fi
sh "$shared/tools/ericw/build.sh" "$cache" >/dev/null
bin=$cache/bin

# stub_wad MAP WAD: a WAD2 of a 16 x 16 grey miptex (4 mips) for each texture name MAP's faces use
stub_wad() {
    python3 - "$1" "$2" <<'PY'
import re, struct, sys
names = sorted({m.lower()[:15] for m in re.findall(r"\)\s+(\S+)\s+\[", open(sys.argv[1], encoding="latin-1").read())})
pixels = bytes([8]) * (256 + 64 + 16 + 4)       # palette 8: a mid grey (the bounce is grey anyway)
lumps, directory = b"", b""
for n in names:
    lump = struct.pack("<16s6I", n.encode("latin-1"), 16, 16, 40, 40 + 256, 40 + 320, 40 + 336) + pixels
    directory += struct.pack("<3i4s16s", 12 + len(lumps), len(lump), len(lump), b"D\0\0\0", n.encode("latin-1"))
    lumps += lump
open(sys.argv[2], "wb").write(b"WAD2" + struct.pack("<2i", len(names), 12 + len(lumps)) + lumps + directory)
PY
}

# compile DIR: the three programs on DIR/NAME.map, each one's seconds in DIR/times
compile() {
    cp "$map" "$1/$name.map"
    stub_wad "$map" "$1/$name.wad"
    (
        cd "$1"
        : >times
        for step in qbsp vis light; do
            case $step in
            qbsp) flags=$qbsp_flags; input=$name.map ;;
            vis) flags=$vis_flags; input=$name.bsp ;;
            light) flags=$light_flags; input=$name.bsp ;;
            esac
            start=$(date +%s.%N)
            # shellcheck disable=SC2086
            "$bin/$step" $flags "$input" >"$step.log" 2>&1 || { tail -5 "$step.log" >&2; exit 1; }
            end=$(date +%s.%N)
            echo "$step $(awk "BEGIN { printf \"%.2f\", $end - $start }")" >>times
        done
    )
}

if [ "$timed" = "--time" ]; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    compile "$work"
    awk '{ printf "%s %s ", $1, $2; t += $2 } END { printf "total %.2f\n", t }' "$work/times"
    exit 0
fi

key=$( (cat "$map"; echo "$qbsp_flags|$vis_flags|$light_flags|stub wad 1"; cat "$shared/tools/ericw/ericw-tools-2.0.0-alpha3.tar.xz") \
       | sha256sum | cut -c1-16)
out=$cache/levels/$name-$key
if [ ! -f "$out/$name.lit" ]; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/ericw.XXXXXX")
    compile "$work" || { rm -rf "$work"; exit 1; }
    mkdir -p "$out"
    cp "$work/$name.bsp" "$work/$name.lit" "$work/times" "$out/"
    rm -rf "$work"
fi
echo "$out"
