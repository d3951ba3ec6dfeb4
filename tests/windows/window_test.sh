#!/bin/bash
# window_test.sh WINE XDND_DROP VIEW_TEST_MAP PNG_PROBE LINUX_PMFVIEW SHARED_DATA WORKDIR
#
# pmfview.exe's window under wine, driven as a person would with xdotool and an XDND drop (wine
# turns it into Explorer's WM_DROPFILES): a map dropped on the window opens (its picture the
# Linux build's within 8 per channel), a hostile one leaves the map with its error; pmfc.exe
# compiling over the map the window holds open replaces it and the window reloads it; a dropped
# .map compiles, and saving it in the "editor" recompiles and reloads it with the camera kept
# (bookmarks saved before and after name the same pose). Run by scripts/test.sh's Windows leg
# (PMFVIEW_WINDOWS_BUILD set, inside its xvfb-run); exit 77 elsewhere or without xdotool.
set -u
WINE=$1 XDND_DROP=$2 MAKEMAP=$3 PROBE=$4 LINUX_PMFVIEW=$5 SHARED=$6 WORK=$7
WIN=${PMFVIEW_WINDOWS_BUILD:-}
TIMEOUT=${VIEW_TEST_TIMEOUT:-120}
[ -n "$WIN" ] || { echo "skipped: PMFVIEW_WINDOWS_BUILD is not set (scripts/test.sh sets it for its Windows leg)"; exit 77; }
[ -n "${DISPLAY:-}" ] && command -v xdotool >/dev/null || { echo "skipped: no X display or no xdotool"; exit 77; }

VPID=
fail() {
    echo "FAIL: $*" >&2
    [ -f "$WORK/out" ] && sed 's/^/  stdout: /' "$WORK/out" >&2
    [ -f "$WORK/err" ] && sed 's/^/  stderr: /' "$WORK/err" >&2
    exit 1
}
cleanup() { [ -n "$VPID" ] && kill "$VPID" 2>/dev/null && wait "$VPID" 2>/dev/null; }
trap cleanup EXIT

rm -rf "$WORK" && mkdir -p "$WORK/shots" "$WORK/cache" || exit 1
cd "$WORK" || exit 1
# the dropped map in a folder of a Windows user's: non-ASCII, a space
DIR="Zoë/карты"
mkdir -p "$DIR" && "$MAKEMAP" map.pmf 0 && "$MAKEMAP" other.pmf 1 || fail "cannot write the test maps"
for map in map other; do
    "$LINUX_PMFVIEW" shot $map.pmf -o $map.linux.png --size 160x120 >/dev/null 2>&1 || fail "Linux shot of $map.pmf"
done
cp "$SHARED/map/q1_sunlight.map" sun.map || exit 1

# wait_for WHAT COMMAND...: polls every 0.2 s until the command succeeds.
wait_for() {
    local what=$1; shift
    local deadline=$((SECONDS + TIMEOUT))
    until "$@"; do
        [ $SECONDS -lt $deadline ] || fail "timed out waiting for $what"
        kill -0 "$VPID" 2>/dev/null || fail "pmfview.exe died waiting for $what"
        sleep 0.2
    done
}
count() { grep -c "$1" out; }
more() { [ "$(count "$1")" -gt "$2" ]; }
# event KEYS -- PATTERN: presses keys in the window, waits for one more stdout line matching PATTERN.
event() {
    local keys=() pattern before
    while [ "$1" != "--" ]; do keys+=("$1"); shift; done
    pattern=$2 before=$(count "$2")
    xdotool windowfocus --sync "$WID" 2>/dev/null
    xdotool key --delay 30 "${keys[@]}"
    wait_for "'$pattern' after ${keys[*]}" more "$pattern" "$before"
}
# shot: F12, the screenshot's file in SHOT (the window prints it with wine's drive letter).
shot() {
    event F12 -- '^screenshot '
    SHOT=shots/$(grep '^screenshot ' out | tail -n1 | sed 's/^screenshot .*[\\/]\([^\\/ ]*\.png\) .*/\1/')
    [ -f "$SHOT" ] || fail "screenshot $SHOT is missing"
}
# like_linux MAP WHAT: the centre pixel within 8 of the Linux build's shot of MAP.
like_linux() {
    local got want
    got=$("$PROBE" pixel "$SHOT" 80 60) want=$("$PROBE" pixel "$1.linux.png" 80 60)
    set -- $got $want "$2"
    for i in 1 2 3; do
        local a=${!i} j=$((i + 3)); local b=${!j}
        [ $((a > b ? a - b : b - a)) -le 8 ] || fail "$7: centre $1 $2 $3, the Linux build's $4 $5 $6"
    done
}
drop() { "$XDND_DROP" "$WID" "$@" || fail "xdnd_drop $*"; }
ready_after() { local before; before=$(count '^ready '); "$@"; wait_for "the view after $*" more '^ready ' "$before"; }

XDG_CACHE_HOME=$WORK/cache "$WINE" "$WIN/pmfview.exe" --size 160x120 --shots shots map.pmf >out 2>err &
VPID=$!
wait_for "the first complete view" grep -q '^ready ' out
WID=
find_window() { WID=$(xdotool search --name '^pmfview - map.pmf' 2>/dev/null | head -n1); [ -n "$WID" ]; }
wait_for "the window" find_window
shot; like_linux map "the first map"

# A map dropped on the window.
cp other.pmf "$DIR/other map.pmf" || exit 1
ready_after drop "$WORK/$DIR/other map.pmf"
grep -q '^opened .*Zoë\\карты\\other map\.pmf$' out || fail "no 'opened' line"
shot; like_linux other "the dropped map"
[ "$(xdotool getwindowname "$WID")" = "pmfview - other map.pmf - level 0" ] || fail "title $(xdotool getwindowname "$WID")"
good=$SHOT

# A hostile one: its line on stderr, the map stays.
printf 'not a map' >bad.pmf
before=$(count '^open failed; still showing other map.pmf$')
drop "$WORK/bad.pmf"
wait_for "the refusal" more '^open failed; still showing other map.pmf$' "$before"
grep -q '^pmfview: .*bad\.pmf: file, byte 0: a text file, not a map' err || fail "no error line for bad.pmf"
shot; [ "$("$PROBE" diff "$good" "$SHOT" 8)" -eq 0 ] || fail "a hostile drop changed the picture"

# pmfc.exe compiling over the map the window holds open: replaced, and the window reloads it.
printf 'map "Red"\nmaterial red color 220 40 40\nlevel main {\n  chunk_size 4\n  ambient 200 200 200\n  box -8 -8 -8 8 8 -6 material red\n}\n' >red.pms
before=$(count '^ready ')
"$WINE" "$WIN/pmfc.exe" red.pms -o "$DIR/other map.pmf" --quiet >/dev/null 2>pmfc.err || fail "pmfc.exe over the held map: $(cat pmfc.err)"
wait_for "the reload" grep -q '^reloaded .*other map\.pmf$' out
wait_for "the reloaded view" more '^ready ' "$before"
shot
[ "$("$PROBE" diff "$good" "$SHOT" 8)" -gt 1000 ] || fail "the map pmfc.exe wrote is not drawn"

# A .map dropped: compiled by pmfc.exe, then saved by the "editor": recompiled, camera kept.
ready_after drop "$WORK/sun.map"
grep -q '^compiling .*sun\.map \.\.\.$' out && grep -q '^opened .*sun\.map$' out || fail "the .map was not compiled and opened"
event shift+3 -- '^bookmark 3 saved'
xdotool windowfocus --sync "$WID" 2>/dev/null
xdotool keydown w; sleep 0.3; xdotool keyup w
xdotool keydown d; sleep 0.2; xdotool keyup d
event shift+1 -- '^bookmark 1 saved'
sed 's/"_sunlight" "100"/"_sunlight" "300"/' sun.map >sun.map.tmp && mv sun.map.tmp sun.map
wait_for "the recompile" grep -q '^reloaded .*sun\.map$' out
event shift+2 -- '^bookmark 2 saved'
pose() { sed -n "s/^\([^ ]*\) bookmark$1\r\{0,1\}\$/\1/p" sun.map.cameras; }
[ -n "$(pose 1)" ] && [ "$(pose 1)" = "$(pose 2)" ] || fail "the camera moved in the recompile: $(cat sun.map.cameras)"
[ "$(pose 1)" != "$(pose 3)" ] || fail "W and D did not move the camera: $(cat sun.map.cameras)"

xdotool windowfocus --sync "$WID" 2>/dev/null
xdotool key Escape
deadline=$((SECONDS + TIMEOUT))
while kill -0 "$VPID" 2>/dev/null; do
    [ $SECONDS -lt $deadline ] || fail "Esc did not close the window"
    sleep 0.2
done
wait "$VPID"
rc=$?
VPID=
[ $rc -eq 0 ] || fail "exit $rc after Esc"
[ -z "$(ls -A "$DIR" | grep '\.replaced-')" ] || fail "the set-aside map is left: $(ls -A "$DIR")"
echo "window under wine: drop, hostile drop, pmfc.exe over the held map, .map recompiled with the camera kept"
