#!/bin/bash
# light_tools_test.sh CASE PMFVIEW PMFC PNG_PROBE WORKDIR LIGHTMAP_PROBE
#
# The light tools headless (docs/viewer.md "Light tools"): shot --solo / --mute / --gizmos /
# --inspect on small maps pmfc compiles from sources written here; pixels predicted by the
# rendering equation and the baker's light model (docs/pmfc-lighting.md).
set -u
CASE=$1 PMFVIEW=$2 PMFC=$3 PROBE=$4 WORK=$5 LMPROBE=$6
export PMFVIEW_GL_DEBUG=fatal
# Mesa keeps allocations at exit (the render tests turn leak detection off too).
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0

fail() { echo "FAIL ($CASE): $*" >&2; [ -f "$WORK/err" ] && sed 's/^/  stderr: /' "$WORK/err" >&2; exit 1; }
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1

# A 16 m floor, no ambient: a static light 4 m above (-4, 0, 0), a dynamic one (7, orange) and
# a fast one (9, blue), each with a name.
cat >"$WORK/lights.pms" <<'PMS'
map "Lights"
material floor texture none
level main {
    ambient 0 0 0
    box -8 -1 -8 8 0 8 material floor
    light static at -4 4 0 color 255 255 255 range 10 radius 0 name lamp
    light dynamic 7 at 4 3 0 color 255 128 0 range 6 name red
    light fast 9 at 0 2 4 color 0 128 255 range 5 name blue
}
PMS
# The same floor lit by the dynamic and fast lights only (no base light at all).
grep -v 'light static' "$WORK/lights.pms" >"$WORK/switchable.pms"
# No lights: no pmfview.lights extension.
grep -v 'light ' "$WORK/lights.pms" | sed 's/ambient 0 0 0/ambient 51 51 51/' >"$WORK/dark.pms"
for m in lights switchable dark; do
    # direct light of point lights only: what a static light's solo / mute recomputes
    "$PMFC" "$WORK/$m.pms" -o "$WORK/$m.pmf" --quiet --bounce 0 --samples 1 2>"$WORK/err" || fail "pmfc $m"
done

# shot NAME ARGS...: a 160x120 shot into NAME.png (fails the test on a non-zero exit)
shot() { local name=$1; shift; "$PMFVIEW" shot "$@" -o "$WORK/$name.png" --size 160x120 >"$WORK/out" 2>"$WORK/err" || fail "shot $name ($*): exit $?"; }
same() { local d; d=$("$PROBE" diff "$WORK/$1.png" "$WORK/$2.png"); [ "$d" -eq 0 ] || fail "$1 and $2: $d pixels differ by more than 2"; }
differ() { local d; d=$("$PROBE" diff "$WORK/$1.png" "$WORK/$2.png"); [ "$d" -gt 500 ] || fail "$1 and $2: only $d pixels differ"; }
near() {
    set -- $1 $2
    for i in 1 2 3; do
        local a=${!i} j=$((i + 3)); local b=${!j}
        [ $((a > b ? a - b : b - a)) -le "${TOL:-1}" ] || return 1
    done
}
pixel() { "$PROBE" pixel "$WORK/$1.png" "$2" "$3"; }
usage() { # usage WHAT PATTERN ARGS...: exit 1 with one 'pmfview: shot:' line matching PATTERN
    local what=$1 pattern=$2; shift 2
    "$PMFVIEW" shot "$@" >"$WORK/out" 2>"$WORK/err"
    local rc=$?
    [ $rc -eq 1 ] || fail "$what: exit $rc, want 1"
    [ "$(wc -l <"$WORK/err")" -eq 1 ] && grep -q "^pmfview: shot: .*$pattern" "$WORK/err" || fail "$what: $(cat "$WORK/err")"
}
VIEW="--camera 0,12,10,0,-50"
DOWN="--camera -4,3,0,0,-90"     # looking straight down at the floor under the static light

case $CASE in
solo_dynamic)
    # A solo'd dynamic light is --light of only that light (every other light off), in every mode.
    for mode in lightmap full; do
        shot solo7_$mode "$WORK/switchable.pmf" $VIEW --mode $mode --solo 7
        shot only7_$mode "$WORK/switchable.pmf" $VIEW --mode $mode --light 7=on --fast 9=0
        same solo7_$mode only7_$mode
        shot solo9_$mode "$WORK/switchable.pmf" $VIEW --mode $mode --solo blue
        shot only9_$mode "$WORK/switchable.pmf" $VIEW --mode $mode --light 7=off
        same solo9_$mode only9_$mode
        differ solo7_$mode solo9_$mode
    done
    # A light switched off in the file still shows when solo'd; muting equals switching off.
    shot solo7_off "$WORK/switchable.pmf" $VIEW --mode lightmap --light 7=off --solo 7
    same solo7_off solo7_lightmap
    shot mute7 "$WORK/lights.pmf" $VIEW --mode lightmap --mute red
    shot off7 "$WORK/lights.pmf" $VIEW --mode lightmap --light 7=off
    same mute7 off7
    shot mute9 "$WORK/lights.pmf" $VIEW --mode lightmap --mute 9
    shot off9 "$WORK/lights.pmf" $VIEW --mode lightmap --fast 9=0
    same mute9 off9
    ;;
solo_static)
    # Under the static light: d = 4, R = 10, n.l = 1: L = (1 - 0.4)^2 = 0.36 -> 92 (lightmap mode).
    shot baked "$WORK/lights.pmf" $DOWN --mode lightmap --mute 7 --mute 9
    shot solo0 "$WORK/lights.pmf" $DOWN --mode lightmap --solo lamp
    shot solo0x2 "$WORK/lights.pmf" $DOWN --mode lightmap --solo '#0' --exposure 2
    near "$(pixel baked 80 60)" "92 92 92" || fail "baked lightmap under the lamp: $(pixel baked 80 60), want 92"
    near "$(pixel solo0 80 60)" "92 92 92" || fail "solo lamp under it: $(pixel solo0 80 60), want 92"
    near "$(pixel solo0x2 80 60)" "184 184 184" || fail "solo lamp, exposure 2: $(pixel solo0x2 80 60), want 184"
    # Over the whole view the formula matches what pmfc baked (no ambient, nothing shadows).
    shot baked_view "$WORK/lights.pmf" $VIEW --mode lightmap --mute 7 --mute 9
    shot solo_view "$WORK/lights.pmf" $VIEW --mode lightmap --solo lamp
    same baked_view solo_view
    # Muting every light leaves black; muting the lamp leaves the other two as they were.
    shot none "$WORK/lights.pmf" $VIEW --mode lightmap --mute lamp --mute red --mute blue
    [ "$("$PROBE" lit "$WORK/none.png")" -eq 0 ] || fail "every light muted: $("$PROBE" lit "$WORK/none.png") pixels lit"
    shot mute0 "$WORK/lights.pmf" $VIEW --mode lightmap --mute lamp
    shot switchable "$WORK/switchable.pmf" $VIEW --mode lightmap
    same mute0 switchable
    # Shadows: a 2 m box beside a light at (3, 1.5, 0). The floor at (-3, 0, 0) lies in its
    # shadow (the segment to the light passes through the box): 0, where unshadowed it would get
    # 255 x (1.5 / 6.18) x (1 - 0.618)^2 = 9; the whole view matches the baked lightmap.
    cat >"$WORK/shadow.pms" <<'PMS'
map "Shadow"
material floor texture none
level main {
    ambient 0 0 0
    box -8 -1 -8 8 0 8 material floor
    box -1 0 -1 1 1 1 material floor
    light static at 3 1.5 0 color 255 255 255 range 10 radius 0 name lamp
}
PMS
    "$PMFC" "$WORK/shadow.pms" -o "$WORK/shadow.pmf" --quiet --bounce 0 --samples 1 2>"$WORK/err" || fail "pmfc shadow"
    shot shadow_baked "$WORK/shadow.pmf" --camera -2,8,6,-20,-50 --mode lightmap
    shot shadow_solo "$WORK/shadow.pmf" --camera -2,8,6,-20,-50 --mode lightmap --solo lamp
    same shadow_baked shadow_solo
    shot shadowed "$WORK/shadow.pmf" --camera -3,3,0,0,-90 --mode lightmap --solo lamp
    near "$(pixel shadowed 80 60)" "0 0 0" || fail "in the box's shadow: $(pixel shadowed 80 60), want 0"
    shot lit_side "$WORK/shadow.pmf" --camera 3,3,3,0,-90 --mode lightmap --solo lamp
    # (3, 0, 3): d = sqrt(9 + 2.25) = 3.354, n.l = 1.5 / 3.354, (1 - 0.3354)^2 -> 255 x 0.1975 = 50
    near "$(pixel lit_side 80 60)" "50 50 50" || fail "lit beside the box: $(pixel lit_side 80 60), want 50"
    shot none_shadow "$WORK/shadow.pmf" --camera -2,8,6,-20,-50 --mode lightmap --mute lamp
    [ "$("$PROBE" lit "$WORK/none_shadow.png")" -eq 0 ] || fail "the shadow map's only light muted: $("$PROBE" lit "$WORK/none_shadow.png") pixels lit"
    ;;
gizmos)
    # Looking along -Z at a light 8 m ahead: its icon sits at the frame's centre in its colour.
    shot giz_red "$WORK/lights.pmf" --camera 4,3,8,0,0 --gizmos
    near "$(pixel giz_red 80 60)" "255 128 0" || fail "red light's icon: $(pixel giz_red 80 60)"
    shot giz_lamp "$WORK/lights.pmf" --camera -4,4,8,0,0 --gizmos
    near "$(pixel giz_lamp 80 60)" "255 255 255" || fail "lamp's icon: $(pixel giz_lamp 80 60)"
    shot plain_lamp "$WORK/lights.pmf" --camera -4,4,8,0,0
    near "$(pixel plain_lamp 80 60)" "0 0 0" || fail "no --gizmos: $(pixel plain_lamp 80 60) where the icon would be"
    # The icon is small (a diamond of 7 px half-diagonal, grey rim; its name on the right):
    # 12 px left of or below the centre is not it.
    [ "$(pixel giz_lamp 68 60)" != "255 255 255" ] && [ "$(pixel giz_lamp 80 72)" != "255 255 255" ] || fail "the lamp's icon is too large"
    # its rim, 8 px above the centre: grey 200
    near "$(pixel giz_lamp 80 52)" "200 200 200" || fail "the lamp's icon rim: $(pixel giz_lamp 80 52)"
    # Reach: a faint circle of the lamp's colour crosses pixels the plain shot leaves black.
    [ "$("$PROBE" lit "$WORK/giz_lamp.png")" -gt "$(("$("$PROBE" lit "$WORK/plain_lamp.png")" + 100))" ] || fail "no reach lines"
    # A map without the extension: a warning, and the picture as without --gizmos.
    shot dark_giz "$WORK/dark.pmf" $VIEW --gizmos
    grep -q "^pmfview: shot: warning: --gizmos: .*dark.pmf has no pmfview.lights extension" "$WORK/err" || fail "no warning for a map without light metadata"
    shot dark "$WORK/dark.pmf" $VIEW
    same dark dark_giz
    ;;
inspect)
    "$PMFVIEW" shot "$WORK/lights.pmf" $DOWN --size 160x120 --inspect 80,60 >"$WORK/i.json" 2>"$WORK/err" || fail "inspect: exit $?"
    python3 - "$WORK/i.json" "$LMPROBE" "$WORK/lights.pmf" <<'PY' || fail "inspect JSON: $(cat "$WORK/i.json")"
import json, subprocess, sys
r = json.load(open(sys.argv[1]))
# the luxel as the file stores it (lightmap_probe reads the chunk's lightmap itself)
chunk = ",".join(str(c) for c in r["chunk"])
stored = subprocess.run([sys.argv[2], sys.argv[3], "0", chunk, str(r["lightmap"]), str(r["luxel"]["x"]), str(r["luxel"]["y"])],
                        capture_output=True, text=True, check=True).stdout.split()
assert int(stored[0]) == r["lightmap_size"] and [int(v) for v in stored[1:]] == r["luxel"]["rgb"], (stored, r)
assert r["hit"] and r["pixel"] == [80, 60], r
assert r["material"] == "floor" and r["texture"] == "" and r["material_index"] == 0, r
assert r["chunk"] == [0, 0, 0], r
assert abs(r["position"][0] + 4) < 0.1 and abs(r["position"][1]) < 1e-3 and abs(r["position"][2]) < 0.1, r
assert r["normal"] == [0, 1, 0] and abs(r["distance"] - 3) < 0.01, r
size = r["lightmap_size"]
assert r["lightmap"] == 0 and size >= 64 and size & (size - 1) == 0 and not r["lightmap_lowered"], r
lux = r["luxel"]
assert all(abs(c - 92) <= 1 for c in lux["rgb"]), lux          # 255 x 0.36, as baked
assert abs(lux["size"] - 0.25) < 1e-3, lux                      # pmfc's 4 luxels per metre
assert 0 <= lux["x"] < size and 0 <= lux["y"] < size, lux
assert r["static_lights_known"] is True and isinstance(r["visibility_data"], bool) and r["lighting_data"] is False, r
lamp = [l for l in r["lights"] if l["kind"] == "static"]
assert len(lamp) == 1 and lamp[0]["name"] == "lamp" and lamp[0]["index"] == 0, r["lights"]
assert all(abs(v - 0.36) < 0.005 for v in lamp[0]["value"]) and lamp[0]["share"] > 0.95, lamp
PY
    # Beside the dynamic light, switched off: its layer's value is listed, off, with no share.
    "$PMFVIEW" shot "$WORK/lights.pmf" --camera 4,2,0,0,-90 --size 160x120 --inspect 80,60 --light 7=off >"$WORK/d.json" 2>"$WORK/err" || fail "inspect dynamic: exit $?"
    python3 - "$WORK/d.json" <<'PY' || fail "inspect dynamic JSON: $(cat "$WORK/d.json")"
import json, sys
r = json.load(open(sys.argv[1]))
red = [l for l in r["lights"] if l["kind"] == "dynamic"]
# 3 m below it: (1 - 3/6)^2 = 0.25 of (255, 128, 0) / 255
assert len(red) == 1 and red[0]["id"] == 7 and red[0]["name"] == "red" and not red[0]["on"] and red[0]["share"] == 0, red
assert abs(red[0]["value"][0] - 0.25) < 0.01 and abs(red[0]["value"][1] - 0.125) < 0.01 and red[0]["value"][2] == 0, red
PY
    # The sky: nothing there.
    "$PMFVIEW" shot "$WORK/lights.pmf" --camera 0,2,0,0,60 --size 160x120 --inspect 80,60 >"$WORK/s.json" 2>"$WORK/err" || fail "inspect sky: exit $?"
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r == {"pixel": [80, 60], "hit": False}, r' "$WORK/s.json" || fail "inspect sky: $(cat "$WORK/s.json")"
    # With -o the PNG is written as well; a map without light metadata says static lights are unknown.
    "$PMFVIEW" shot "$WORK/dark.pmf" $DOWN --size 160x120 --inspect 0,0 -o "$WORK/dark.png" >"$WORK/k.json" 2>"$WORK/err" || fail "inspect dark: exit $?"
    [ -f "$WORK/dark.png" ] || fail "--inspect with -o wrote no PNG"
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["hit"] and not r["static_lights_known"] and r["lights"] == [] and r["luxel"]["rgb"] == [51, 51, 51], r' "$WORK/k.json" || fail "inspect dark: $(cat "$WORK/k.json")"
    ;;
errors)
    usage "solo unknown name" "--solo nobody: level 0 has no light named 'nobody'" "$WORK/lights.pmf" -o "$WORK/x.png" --solo nobody
    usage "solo unknown ID" "--solo 99: level 0 has no dynamic or fast light 99 (dynamic lights: 7; fast lights: 9)" "$WORK/lights.pmf" -o "$WORK/x.png" --solo 99
    usage "solo bad index" "#N of level 0" "$WORK/lights.pmf" -o "$WORK/x.png" --solo '#3'
    usage "solo and mute" "--solo and --mute do not go together" "$WORK/lights.pmf" -o "$WORK/x.png" --solo 7 --mute 9
    usage "static without metadata" "no pmfview.lights extension" "$WORK/dark.pmf" -o "$WORK/x.png" --mute lamp
    usage "empty solo" "--solo wants ID, #N or NAME" "$WORK/lights.pmf" -o "$WORK/x.png" --solo ''
    usage "inspect outside" "--inspect 160,10 lies outside the frame" "$WORK/lights.pmf" --size 160x120 --inspect 160,10
    usage "inspect malformed" "--inspect wants a pixel X,Y" "$WORK/lights.pmf" --inspect 3
    usage "gizmos too large" "--gizmos draws frames up to 4096x4096" "$WORK/lights.pmf" -o "$WORK/x.png" --gizmos --size 5000x100
    usage "no output" "no output given" "$WORK/lights.pmf"
    [ ! -e "$WORK/x.png" ] || fail "a refused command wrote a PNG"
    # pmfc: a light's name is one word of at most 63 bytes
    long=$(printf 'n%.0s' $(seq 64))
    sed "s/name lamp/name $long/" "$WORK/lights.pms" >"$WORK/long.pms"
    "$PMFC" "$WORK/long.pms" -o "$WORK/long.pmf" --quiet 2>"$WORK/err"; rc=$?
    [ $rc -eq 2 ] && grep -q "long.pms:6: light name '$long' is too long" "$WORK/err" || fail "a 64-byte light name: exit $rc"
    sed "s/ name lamp/ name/" "$WORK/lights.pms" >"$WORK/noname.pms"
    "$PMFC" "$WORK/noname.pms" -o "$WORK/noname.pmf" --quiet 2>"$WORK/err"; rc=$?
    [ $rc -eq 2 ] && grep -q "noname.pms:6: expected a light name" "$WORK/err" || fail "'name' without one: exit $rc"
    ;;
*) fail "unknown case" ;;
esac
exit 0
