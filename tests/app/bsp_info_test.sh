#!/bin/bash
# bsp_info_test.sh PMFVIEW MAKE_BSP_SEEDS WORKDIR [SHARED_BSP]
#
# `pmfview info` on compiled maps (issue 25 point 3): the rooms bsp_build writes in v29, v30 and
# BSP2 name their format and the compiler their worldspawn names, in text and JSON; the shared
# GoldSrc map reads; a truncated or damaged BSP fails with one clean line and exit 2.
set -u
PMFVIEW=$1 MAKE=$2 WORK=$3 SHARED=${4:-}
fail() { echo "FAIL: $*" >&2; [ -f "$WORK/err" ] && sed 's/^/  stderr: /' "$WORK/err" >&2; exit 1; }
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
"$MAKE" . || fail "make_bsp_seeds"
for pair in "room_v29:Quake BSP v29:1" "room_v30:GoldSrc BSP v30:3" "room_bsp2:Quake BSP2:1"; do
    IFS=: read -r name format luxel <<<"$pair"
    "$PMFVIEW" info "$name.bsp" >out 2>err || fail "info $name.bsp exited $?"
    grep -q "^format: *$format\$" out || fail "$name: format line is not '$format'"
    grep -q '^compiler: *bsp_build 1.0$' out || fail "$name: compiler not named"
    grep -q "^faces: *6 (6 lit, $luxel byte" out || fail "$name: faces line"
    grep -q '^entities: *4 (2 lights)$' out || fail "$name: entities line"
    "$PMFVIEW" info "$name.bsp" --json >json 2>err || fail "info --json $name.bsp"
    python3 - "$format" <<'PY' || fail "$name: JSON"
import json, sys
j = json.load(open("json"))
assert j["format"] == sys.argv[1], j["format"]
assert j["compiler"] == "bsp_build 1.0" and j["faces"] == 6 and j["models"] == 1 and j["lights"] == 2, j
assert j["bounds"] == {"min": [-64, -64, -64], "max": [64, 64, 64]}, j["bounds"]
PY
    echo "$name: $format, compiler named"
done
# damaged: cut in the middle of the faces, and a lump past the end
size=$(stat -c %s room_v30.bsp)
head -c $((size / 2)) room_v30.bsp >cut.bsp
"$PMFVIEW" info cut.bsp >out 2>err; rc=$?
[ $rc -eq 2 ] || fail "truncated BSP: exit $rc, want 2"
[ "$(wc -l <err)" -eq 1 ] && grep -q '^pmfview: cut.bsp: lump ' err || fail "truncated BSP: not one line naming a lump"
cp room_v29.bsp bad.bsp
printf '\x40\x00\x00\x00' | dd of=bad.bsp bs=1 seek=$((4 + 7 * 8 + 4)) conv=notrunc status=none
"$PMFVIEW" info bad.bsp >out 2>err; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q 'lump faces' err || fail "damaged faces lump: exit $rc"
echo "damaged: $(cat err)"
if [ -n "$SHARED" ] && [ -f "$SHARED" ]; then
    "$PMFVIEW" info "$SHARED" --json >json 2>err || fail "info $SHARED"
    python3 -c 'import json; j = json.load(open("json")); assert j["format"] == "GoldSrc BSP v30" and j["faces"] > 1000 and j["visibility"], j' \
        || fail "shared BSP"
    echo "shared BSP: $(python3 -c 'import json; j = json.load(open("json")); print(j["faces"], "faces,", j["lit_faces"], "lit")')"
fi
echo "bsp info: all checks passed"
