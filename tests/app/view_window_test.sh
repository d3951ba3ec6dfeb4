#!/bin/bash
# view_window_test.sh CASE PMFVIEW VIEW_TEST_MAP PNG_PROBE WORKDIR
#
# Drives the real viewer window under a private Xvfb server with xdotool and checks what it
# writes: screenshots (decoded by png_probe), the cameras file, stdout event lines. The test map
# (view_test_map.c) is a lit wall whose pixels the rendering equation predicts.
# Exit 77 (ctest SKIP_RETURN_CODE) only when Xvfb or xdotool is not installed.
set -u
CASE=$1 PMFVIEW=$2 MAKEMAP=$3 PROBE=$4 WORK=$5
TIMEOUT=${VIEW_TEST_TIMEOUT:-60}

fail() { echo "FAIL ($CASE): $*" >&2; [ -f "$WORK/out" ] && sed 's/^/  stdout: /' "$WORK/out" >&2; [ -f "$WORK/err" ] && sed 's/^/  stderr: /' "$WORK/err" >&2; exit 1; }

# Under ASan: leaks that system libraries keep at exit are not pmfview's (lsan.supp).
# Every GL error aborts pmfview (render.h): the case fails.
export PMFVIEW_GL_DEBUG=fatal
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp:print_suppressions=0"

rm -rf "$WORK" && mkdir -p "$WORK/shots" || exit 1
"$MAKEMAP" "$WORK/map.pmf" 0 || fail "cannot write the test map"
MAP=$WORK/map.pmf

# near "R G B" "R G B": each channel within 3.
near() {
    set -- $1 $2
    for i in 1 2 3; do
        local a=${!i} j=$((i + 3)); local b=${!j}
        [ $((a > b ? a - b : b - a)) -le 3 ] || return 1
    done
}

# ---- cases that need no display ----
case $CASE in
no_display)
    # No display variable at all, and one naming an X server that is not there.
    for display in "" ":4711"; do
        env -u DISPLAY -u WAYLAND_DISPLAY ${display:+DISPLAY=$display} "$PMFVIEW" "$MAP" >"$WORK/out" 2>"$WORK/err"
        rc=$?
        [ $rc -eq 3 ] || fail "DISPLAY '$display': exit $rc, want 3"
        [ "$(cat "$WORK/err")" = "pmfview: no display; use 'pmfview shot FILE -o OUT.png' to render without a window" ] ||
            fail "DISPLAY '$display': wrong message"
    done
    exit 0 ;;
bad_input)
    printf 'not a map' >"$WORK/bad.pmf"
    for args in "$WORK/bad.pmf" "$WORK/missing.pmf" "$MAP --level 2"; do
        DISPLAY=:0 "$PMFVIEW" $args >"$WORK/out" 2>"$WORK/err"
        rc=$?
        [ $rc -eq 2 ] || fail "$args: exit $rc, want 2"
        [ "$(wc -l <"$WORK/err")" -eq 1 ] && grep -q "^pmfview: ${args%% *}" "$WORK/err" || fail "$args: want one 'pmfview: FILE' line"
    done
    for args in "--level" "--level x" "--camera 1,2,3" "--size 10" "--fov 0" "--radius 0" "--frobnicate" "$MAP $MAP"; do
        env -u DISPLAY "$PMFVIEW" $args >"$WORK/out" 2>"$WORK/err"
        rc=$?
        [ $rc -eq 1 ] || fail "'$args': exit $rc, want 1"
        grep -q "^pmfview: " "$WORK/err" || fail "'$args': no 'pmfview:' line"
    done
    exit 0 ;;
default_camera)
    # Variant 3 carries start cameras: without --camera a shot starts at the level's first one
    # (level 0 "far" 0,0,4; level 1 "below"), pixel for pixel; a map without them at the origin.
    "$MAKEMAP" "$WORK/cams.pmf" 3 || fail "cannot write the camera map"
    s() { "$PMFVIEW" shot "$@" --size 160x120 >"$WORK/out" 2>"$WORK/err" || fail "shot $*: exit $?"; }
    # Under ASan: Mesa keeps allocations at exit (tests/render turns leak detection off too).
    export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
    s "$WORK/cams.pmf" -o "$WORK/default.png"
    s "$WORK/cams.pmf" -o "$WORK/far.png" --camera 0,0,4,0,0
    s "$WORK/cams.pmf" -o "$WORK/origin.png" --camera 0,0,0,0,0
    [ "$("$PROBE" diff "$WORK/default.png" "$WORK/far.png")" -eq 0 ] || fail "default shot differs from the first start camera's"
    [ "$("$PROBE" diff "$WORK/default.png" "$WORK/origin.png")" -gt 1000 ] || fail "default shot is the origin's"
    s "$WORK/cams.pmf" -o "$WORK/default1.png" --level 1
    s "$WORK/cams.pmf" -o "$WORK/below.png" --level 1 --camera 0,-1,1,-10,10
    [ "$("$PROBE" diff "$WORK/default1.png" "$WORK/below.png")" -eq 0 ] || fail "level 1 default differs from camera 'below'"
    s "$MAP" -o "$WORK/plain.png"
    expect="90 59 55"; got=$("$PROBE" pixel "$WORK/plain.png" 80 60)
    near "$got" "$expect" || fail "no extension: centre $got, want $expect (the origin)"
    # The same on a map pmfc compiled from a .pms source (the feature demo), given start cameras
    # by pmf_add_cameras (PMF_ADD_CAMERAS, PMS_MAP from CMake).
    "$PMF_ADD_CAMERAS" "$PMS_MAP" "$WORK/demo.pmf" "courtyard@0=2,1.7,10,20,-5" "house@0=-10,1.7,5,90,0" ||
        fail "pmf_add_cameras"
    s "$WORK/demo.pmf" -o "$WORK/demo_default.png"
    s "$WORK/demo.pmf" -o "$WORK/demo_courtyard.png" --camera 2,1.7,10,20,-5
    s "$WORK/demo.pmf" -o "$WORK/demo_origin.png" --camera 0,0,0,0,0
    [ "$("$PROBE" diff "$WORK/demo_default.png" "$WORK/demo_courtyard.png")" -eq 0 ] || fail "demo: default shot is not the courtyard camera's"
    [ "$("$PROBE" diff "$WORK/demo_default.png" "$WORK/demo_origin.png")" -gt 1000 ] || fail "demo: default shot is the origin's"
    # A damaged extension (count 200 past its end): exit 2, one line naming it and the byte.
    at=$(grep -boa 'pmfview.cameras' "$WORK/cams.pmf" | head -n1 | cut -d: -f1)
    printf '\310' | dd of="$WORK/cams.pmf" bs=1 seek=$((at + 16)) conv=notrunc status=none
    "$PMFVIEW" shot "$WORK/cams.pmf" -o "$WORK/bad.png" >"$WORK/out" 2>"$WORK/err"
    rc=$?
    [ $rc -eq 2 ] || fail "damaged cameras: exit $rc, want 2"
    [ "$(cat "$WORK/err")" = "pmfview: $WORK/cams.pmf: extension pmfview.cameras, byte $((at + 17)): 200 cameras need at least 4400 bytes, 79 left" ] ||
        fail "damaged cameras: $(cat "$WORK/err")"
    exit 0 ;;
esac

command -v Xvfb >/dev/null && command -v xdotool >/dev/null || { echo "SKIP: Xvfb or xdotool is not installed"; exit 77; }

# ---- a private X server (the first free display number) ----
XPID= VPID=
cleanup() {
    [ -n "$VPID" ] && kill "$VPID" 2>/dev/null && wait "$VPID" 2>/dev/null
    [ -n "$XPID" ] && kill "$XPID" 2>/dev/null && wait "$XPID" 2>/dev/null
}
trap cleanup EXIT
exec 3>"$WORK/display"
Xvfb -displayfd 3 -screen 0 640x480x24 -nolisten tcp >"$WORK/xvfb.log" 2>&1 &
XPID=$!
exec 3>&-

# wait_for CONDITION-COMMAND WHAT: polls every 0.1 s until the command succeeds or TIMEOUT.
wait_for() {
    local what=$1; shift
    local deadline=$((SECONDS + TIMEOUT))
    until "$@"; do
        [ $SECONDS -lt $deadline ] || fail "timed out waiting for $what"
        [ -z "$VPID" ] || kill -0 "$VPID" 2>/dev/null || fail "the viewer died waiting for $what"
        sleep 0.1
    done
}
display_ready() { [ -s "$WORK/display" ] && grep -q '^[0-9]' "$WORK/display"; }
wait_for "Xvfb" display_ready
export DISPLAY=:$(head -n1 "$WORK/display")

# start_viewer ARGS...: starts the window and waits until it has drawn a complete view.
start_viewer() {
    : >"$WORK/out"
    "$PMFVIEW" --size 160x120 --shots "$WORK/shots" "$@" >"$WORK/out" 2>"$WORK/err" &
    VPID=$!
    wait_for "the first complete view" grep -q '^ready ' "$WORK/out"
    WID=
    find_window() { WID=$(xdotool search --name '^pmfview' 2>/dev/null | head -n1); [ -n "$WID" ]; }
    wait_for "the window" find_window
    xdotool windowfocus --sync "$WID" 2>/dev/null
}

# lines PATTERN: how many stdout lines match.
lines() { grep -c "$1" "$WORK/out"; }
# key KEYS...: presses keys in the window.
key() { xdotool windowfocus --sync "$WID" 2>/dev/null; xdotool key --delay 30 "$@"; }
# event KEYS... -- PATTERN: presses keys, waits for one more stdout line matching PATTERN.
event() {
    local keys=() pattern
    while [ "$1" != "--" ]; do keys+=("$1"); shift; done
    pattern=$2
    local before; before=$(lines "$pattern")
    key "${keys[@]}"
    more_lines() { [ "$(lines "$pattern")" -gt "$before" ]; }
    wait_for "'$pattern' after ${keys[*]}" more_lines
}
# shot [shift+F12]: takes a screenshot; its path in SHOT.
shot() {
    event "${1:-F12}" -- '^screenshot '
    SHOT=$(grep '^screenshot ' "$WORK/out" | tail -n1 | cut -d' ' -f2)
    [ -f "$SHOT" ] || fail "screenshot $SHOT is missing"
}
centre() { "$PROBE" pixel "$1" 80 60; }
expect_centre() { local got; got=$(centre "$1"); near "$got" "$2" || fail "$3: centre pixel $got, want $2"; }

# quit_viewer: Esc closes the window with exit 0. Under ASan, LeakSanitizer reports what system
# libraries (D-Bus, Mesa's driver) keep at exit: only a leak allocated by pmfview's code fails.
quit_viewer() {
    key Escape
    local deadline=$((SECONDS + TIMEOUT))
    while kill -0 "$VPID" 2>/dev/null; do
        [ $SECONDS -lt $deadline ] || fail "Esc did not close the window"
        sleep 0.1
    done
    wait "$VPID"
    local rc=$?
    VPID=
    if [ $rc -ne 0 ]; then
        grep -q "LeakSanitizer" "$WORK/err" || fail "exit $rc after Esc"
        ! grep -A2 "leak of" "$WORK/err" | grep "#1 " | grep -q "pmfview+0x\|/src/\|/tests/" || fail "pmfview leaks"
    fi
}

case $CASE in
shot)
    start_viewer "$MAP"
    shot
    [ "$("$PROBE" size "$SHOT")" = "160 120" ] || fail "F12 shot is $("$PROBE" size "$SHOT"), want 160 120"
    case $(basename "$SHOT") in pmfview-[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]-[0-9][0-9][0-9][0-9][0-9][0-9]*.png) ;;
        *) fail "shot name $(basename "$SHOT")" ;; esac
    expect_centre "$SHOT" "90 59 55" "full mode"
    first=$SHOT
    shot shift+F12
    [ "$("$PROBE" size "$SHOT")" = "640 480" ] || fail "Shift+F12 shot is $("$PROBE" size "$SHOT"), want 640 480"
    [ "$SHOT" != "$first" ] || fail "the second shot overwrote the first"
    got=$("$PROBE" pixel "$SHOT" 320 240)
    near "$got" "90 59 55" || fail "hi-res centre $got"
    quit_viewer
    ;;
hires_tiles)
    # 4x of 1100x200 is 4400 wide: drawn in two tiles (at most 4096 wide). Half a metre from the
    # wall it fills the view; the lightmap's red grows and blue falls along +X, so swapped or
    # misplaced tiles would show as a jump at the seam or a reversed gradient.
    start_viewer "$MAP" --size 1100x200 --camera 0,0,-3.5,0,0
    shot shift+F12
    [ "$("$PROBE" size "$SHOT")" = "4400 800" ] || fail "Shift+F12 shot is $("$PROBE" size "$SHOT"), want 4400 800"
    expect_centre_at() { local got; got=$("$PROBE" pixel "$SHOT" $1 $2); near "$got" "$3" || fail "$4: pixel $1,$2 is $got, want $3"; }
    expect_centre_at 2200 400 "90 59 55" "hi-res centre"
    left=$("$PROBE" pixel "$SHOT" 4095 400) right=$("$PROBE" pixel "$SHOT" 4096 400)
    near "$left" "$right" || fail "seam between tiles: $left | $right"
    set -- $("$PROBE" pixel "$SHOT" 100 400) $("$PROBE" pixel "$SHOT" 4300 400)
    [ "$4" -gt "$1" ] && [ "$6" -lt "$3" ] || fail "gradient across tiles: $1 $2 $3 -> $4 $5 $6"
    ;;
move)
    # 8 m from the wall: it covers the middle of the view; flying forward makes it cover more.
    start_viewer "$MAP" --camera 0,0,4,0,0
    shot
    before=$SHOT
    xdotool keydown w; sleep 0.5; xdotool keyup w
    shot
    lit_before=$("$PROBE" lit "$before") lit_after=$("$PROBE" lit "$SHOT")
    [ "$lit_after" -gt $((lit_before + 500)) ] || fail "wall covers $lit_before then $lit_after pixels: W did not move closer"
    expect_centre "$SHOT" "90 59 55" "after moving"
    event r -- '^start camera'
    shot
    [ "$("$PROBE" diff "$before" "$SHOT")" -eq 0 ] || fail "R did not return to the start camera"
    ;;
modes)
    start_viewer "$MAP"
    event F4 -- '^mode fullbright'; shot; expect_centre "$SHOT" "200 150 100" "fullbright (a)"
    event F3 -- '^mode lightmap'; shot; expect_centre "$SHOT" "115 100 140" "lightmap (L)"
    event F2 -- '^mode full'; shot; expect_centre "$SHOT" "90 59 55" "full (a x L)"
    event bracketright -- '^exposure 1.25'; shot; expect_centre "$SHOT" "113 74 69" "full at exposure 1.25"
    shaded=$SHOT
    event F5 -- '^wireframe on'; shot
    [ "$("$PROBE" diff "$shaded" "$SHOT")" -gt 0 ] || fail "F5 drew no lines"
    ;;
bookmark)
    start_viewer "$MAP" --camera 1,0.5,3,20,5
    event shift+2 -- '^bookmark 2 saved'
    shot
    saved=$SHOT
    grep -Eq '^1,0\.5,3,20,5 bookmark2$' "$MAP.cameras" || fail "cameras file: $(cat "$MAP.cameras")"
    xdotool keydown d; sleep 0.3; xdotool keyup d
    shot
    [ "$("$PROBE" diff "$saved" "$SHOT")" -gt 0 ] || fail "D did not move the camera"
    event 2 -- '^bookmark 2 recalled'
    shot
    [ "$("$PROBE" diff "$saved" "$SHOT")" -eq 0 ] || fail "recalled bookmark gives another picture"
    # The teleport prompt: G, the position typed, Enter; Esc closes it without moving.
    xdotool keydown d; sleep 0.3; xdotool keyup d
    key g; sleep 0.2; xdotool type --delay 20 '1,0.5,3,20,5'
    event Return -- '^teleported to 1,0.5,3,20,5'
    shot
    [ "$("$PROBE" diff "$saved" "$SHOT")" -eq 0 ] || fail "teleport gives another picture"
    key g; sleep 0.2; xdotool type --delay 20 '9,9'
    event Return -- "^not a position: '9,9'"
    # A bookmark remembers its level: saved in level 1, recalled from level 0.
    event Next -- '^level 1'
    event shift+3 -- '^bookmark 3 saved'
    grep -Eq '^1,0\.5,3,20,5 bookmark3@1$' "$MAP.cameras" || fail "cameras file: $(cat "$MAP.cameras")"
    event Prior -- '^level 0'
    event 3 -- '^bookmark 3 recalled'
    grep -q '^level 1$' <(grep '^level ' "$WORK/out" | tail -n1) || fail "recall did not return to level 1"
    wait_for "level 1's view" sh -c "[ \$(grep -c '^ready ' '$WORK/out') -ge 4 ]"
    shot
    expect_centre "$SHOT" "0 0 100" "bookmark 3 in level 1"
    ;;
reload)
    # In lightmap mode: the reload must keep the mode and show the new luxels (red + 60).
    start_viewer "$MAP"
    event F3 -- '^mode lightmap'
    shot
    expect_centre "$SHOT" "115 100 140" "before reload"
    "$MAKEMAP" "$MAP" 1 || fail "cannot rewrite the map"
    wait_for "the reload" grep -q '^reloaded ' "$WORK/out"
    wait_for "the reloaded view" sh -c "[ \$(grep -c '^ready ' '$WORK/out') -ge 2 ]"
    shot
    expect_centre "$SHOT" "175 100 140" "after reload"
    good=$SHOT
    printf 'broken' >"$MAP.tmp" && mv "$MAP.tmp" "$MAP"
    wait_for "the failed reload" grep -q '^reload failed' "$WORK/out"
    grep -q "^pmfview: .*map.pmf" "$WORK/err" || fail "no error line for the broken file"
    shot
    [ "$("$PROBE" diff "$good" "$SHOT")" -eq 0 ] || fail "a broken file changed the picture"
    ;;
shrink)
    # The open map cut short in place (a download rewritten, a compile into the same file): no
    # signal, the window keeps what it has drawn and shows the error in red in the HUD.
    start_viewer "$MAP"
    shot
    good=$SHOT
    truncate -s 200 "$MAP"
    wait_for "the failed reload" grep -q '^reload failed' "$WORK/out"
    grep -q "^pmfview: .*map.pmf" "$WORK/err" || fail "no error line for the cut file"
    shot
    [ "$("$PROBE" diff "$good" "$SHOT")" -eq 0 ] || fail "the cut file changed the picture"
    shot ctrl+F12
    [ "$("$PROBE" count "$SHOT" 255 90 90)" -gt 20 ] || fail "no red error text in the HUD"
    kill -0 "$VPID" || fail "the viewer died"
    ;;
lights)
    # Lightmap mode on variant 2: L = base (115,100,140) + dynamic 7 (100,0,0) + fast 9 (0,128,0).
    "$MAKEMAP" "$MAP" 2 || fail "cannot write the lit map"
    start_viewer "$MAP"
    event F3 -- '^mode lightmap'; shot; expect_centre "$SHOT" "215 228 140" "both lights on"
    event t -- '^all lights off'; shot; expect_centre "$SHOT" "115 100 140" "all lights off (T)"
    event t -- '^all lights on'; shot; expect_centre "$SHOT" "215 228 140" "all lights on again (T)"
    # The panel lists dynamic 7 then fast 9; Down selects the fast light.
    event Tab Down Left -- '^fast light 9 intensity 239'; shot; expect_centre "$SHOT" "215 220 140" "fast 9 at 239"
    event Return -- '^fast light 9 off'; shot; expect_centre "$SHOT" "215 100 140" "fast 9 off"
    event Up Return -- '^dynamic light 7 off'; shot; expect_centre "$SHOT" "115 100 140" "dynamic 7 off"
    ;;
start_cameras)
    # Variant 3's start cameras: the window starts at "far"; Alt+2 jumps to "aside", N cycles
    # through level 0's (skipping level 1's "below"), Alt+3 switches to level 1 for "below".
    # Each view matches a headless shot from that camera.
    "$MAKEMAP" "$MAP" 3 || fail "cannot write the camera map"
    headless() { ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$PMFVIEW" shot "$MAP" -o "$WORK/$1.png" --size 160x120 "${@:2}" >/dev/null 2>&1 || fail "shot $1"; }
    headless far --camera 0,0,4,0,0
    headless aside --camera 1,0.5,2,20,5
    headless below --level 1 --camera 0,-1,1,-10,10
    same_as() { local d; d=$("$PROBE" diff "$SHOT" "$WORK/$1.png"); [ "$d" -eq 0 ] || fail "$2: $d pixels differ from the shot at '$1'"; }
    start_viewer "$MAP"
    shot; same_as far "the window's first view"
    event alt+2 -- '^start camera 2: aside$'; shot; same_as aside "Alt+2"
    event n -- '^start camera 1: far$'; shot; same_as far "N after camera 2"
    event n -- '^start camera 2: aside$'
    event shift+n -- '^start camera 1: far$'
    event alt+3 -- '^start camera 3: below$'
    wait_for "level 1's view" sh -c "[ \$(grep -c '^ready .* level 1' '$WORK/out') -ge 1 ]"
    shot; same_as below "Alt+3 (level 1)"
    event alt+4 -- '^no start camera 4 (the map has 3)$'
    ;;
rmf_reload)
    # An RMF opened through the cache (stub compiler: the source's MAP: line names the PMF it
    # "compiles" to). Saving by temp file + rename recompiles and reloads with the camera kept;
    # a slow compile leaves the window responsive; a failing one keeps the last good map on
    # screen with the error in red in the HUD.
    export PMFVIEW_PMFC=$(cd "$(dirname "$0")" && pwd)/stub_pmfc.sh XDG_CACHE_HOME=$WORK/cache STUB_LOG=$WORK/pmfc.log
    "$MAKEMAP" "$WORK/v1.pmf" 1 || fail "cannot write variant 1"
    RMF=$WORK/room.rmf
    save() { { printf '\xcd\xcc\x0c\x40RMF\0\0\0\0\x0aCMapWorld\n'; printf '%s\n' "$@"; } >"$RMF.tmp" && mv "$RMF.tmp" "$RMF"; }
    save "MAP:$MAP"
    start_viewer "$RMF" --camera 0,0,1,0,0
    event F3 -- '^mode lightmap'
    xdotool keydown w; sleep 0.3; xdotool keyup w
    shot; expect_centre "$SHOT" "115 100 140" "before the save"
    before=$SHOT lit_before=$("$PROBE" lit "$SHOT")
    save "MAP:$WORK/v1.pmf" "SLEEP:1.5"
    wait_for "the recompile to start" grep -q "^compiling $RMF \.\.\.$" "$WORK/out"
    event F4 -- '^mode fullbright'
    grep -q '^reloaded ' "$WORK/out" && fail "the window waited for the compile (or the compile was not slow)"
    event F3 -- '^mode lightmap'
    wait_for "the reload" grep -q "^reloaded $RMF$" "$WORK/out"
    wait_for "the reloaded view" sh -c "[ \$(grep -c '^ready ' '$WORK/out') -ge 2 ]"
    shot; expect_centre "$SHOT" "175 100 140" "after the save (variant 1's luxels)"
    [ "$("$PROBE" lit "$SHOT")" -eq "$lit_before" ] || fail "camera moved: the wall covers $lit_before then $("$PROBE" lit "$SHOT") pixels"
    good=$SHOT
    [ "$(wc -l <"$WORK/pmfc.log")" -eq 2 ] || fail "$(wc -l <"$WORK/pmfc.log") pmfc calls, want 2"
    save "FAIL:room.rmf: solid 3 face 1, byte 99: plane points are collinear"
    wait_for "the failed compile" grep -q '^compile failed; still showing the previous version$' "$WORK/out"
    grep -q '^pmfview: room.rmf: solid 3 face 1, byte 99: plane points are collinear$' "$WORK/err" || fail "no relayed error on stderr"
    shot; [ "$("$PROBE" diff "$good" "$SHOT")" -eq 0 ] || fail "a failed compile changed the picture"
    shot ctrl+F12
    [ "$("$PROBE" count "$SHOT" 255 90 90)" -gt 20 ] || fail "no red error text in the HUD"
    # Fixed again: the error clears and the map reloads.
    save "MAP:$MAP"
    wait_for "the second reload" sh -c "[ \$(grep -c '^reloaded ' '$WORK/out') -ge 2 ]"
    wait_for "the view after the fix" sh -c "[ \$(grep -c '^ready ' '$WORK/out') -ge 3 ]"
    shot; expect_centre "$SHOT" "115 100 140" "after the fix"
    [ "$("$PROBE" diff "$before" "$SHOT")" -eq 0 ] || fail "after the fix the view differs from before the first save"
    ;;
drop)
    # Files dropped on the window through XDND (xdnd_drop, as a file manager drops them) open as
    # if named on the command line, from their own start camera; a file that does not open leaves
    # the map on screen, with the command line's error on stderr and in the HUD. Of several files
    # the first opens. A dropped source map compiles (stub pmfc) and recompiles when saved.
    export PMFVIEW_PMFC=$(cd "$(dirname "$0")" && pwd)/stub_pmfc.sh XDG_CACHE_HOME=$WORK/cache
    drop() { "$XDND_DROP" "$WID" "$@" || fail "xdnd_drop $*"; }
    ready_count() { grep -c '^ready ' "$WORK/out"; }
    "$MAKEMAP" "$WORK/other.pmf" 1 || fail "cannot write variant 1"
    for map in map other; do
        ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$PMFVIEW" shot "$WORK/$map.pmf" -o "$WORK/$map.png" \
            --size 160x120 >/dev/null 2>&1 || fail "shot $map.pmf"
    done
    same_as() { local d; d=$("$PROBE" diff "$SHOT" "$WORK/$1.png"); [ "$d" -eq 0 ] || fail "$2: $d pixels differ from $1.pmf's shot"; }
    start_viewer "$MAP" --camera 0,0,1,0,0
    shot; first=$SHOT
    drop "$WORK/other.pmf"
    wait_for "the dropped map" grep -q "^opened $WORK/other.pmf$" "$WORK/out"
    wait_for "its view" grep -q "^ready $WORK/other.pmf level 0$" "$WORK/out"
    shot; same_as other "after the drop (its own camera, not --camera)"
    [ "$("$PROBE" diff "$first" "$SHOT")" -gt 1000 ] || fail "the drop did not change the picture"
    [ "$(xdotool getwindowname "$WID")" = "pmfview - other.pmf - level 0" ] || fail "title $(xdotool getwindowname "$WID")"
    good=$SHOT
    # Hostile files (text; a PMF cut short): the command line's line, the map stays, the error in
    # red in the HUD.
    printf 'not a map' >"$WORK/text.pmf"
    head -c 200 "$MAP" >"$WORK/cut.pmf"
    for bad in text cut; do
        DISPLAY= "$PMFVIEW" "$WORK/$bad.pmf" >/dev/null 2>"$WORK/cli.err"
        refusals=$(grep -c '^open failed; still showing other.pmf$' "$WORK/out")
        drop "$WORK/$bad.pmf"
        wait_for "the refusal of $bad.pmf" sh -c "[ \$(grep -c '^open failed; still showing other.pmf$' '$WORK/out') -gt $refusals ]"
        grep -qxF "$(cat "$WORK/cli.err")" "$WORK/err" || fail "the drop's error is not the command line's: $(cat "$WORK/cli.err")"
    done
    shot; [ "$("$PROBE" diff "$good" "$SHOT")" -eq 0 ] || fail "a hostile drop changed the picture"
    shot ctrl+F12
    [ "$("$PROBE" count "$SHOT" 255 90 90)" -gt 20 ] || fail "no red error text in the HUD"
    # Two files: the RMF (first) compiles and opens, the other is named on stderr.
    RMF=$WORK/room.rmf
    save() { { printf '\xcd\xcc\x0c\x40RMF\0\0\0\0\x0aCMapWorld\n'; printf '%s\n' "$@"; } >"$RMF.tmp" && mv "$RMF.tmp" "$RMF"; }
    save "MAP:$MAP"
    before=$(ready_count)
    drop "$RMF" "$WORK/other.pmf"
    wait_for "the compile" grep -q "^compiling $RMF \.\.\.$" "$WORK/out"
    wait_for "the dropped RMF" grep -q "^opened $RMF$" "$WORK/out"
    grep -qx "pmfview: $WORK/other.pmf: not opened: the window shows the first file of a drop" "$WORK/err" ||
        fail "the second file is not named"
    wait_for "the RMF's view" sh -c "[ \$(grep -c '^ready ' '$WORK/out') -gt $before ]"
    shot; same_as map "the dropped RMF"
    # Saved in the editor: recompiled and reloaded, camera kept.
    before=$(ready_count)
    save "MAP:$WORK/other.pmf"
    wait_for "the reload" grep -q "^reloaded $RMF$" "$WORK/out"
    wait_for "the reloaded view" sh -c "[ \$(grep -c '^ready ' '$WORK/out') -gt $before ]"
    shot; same_as other "the saved RMF"
    quit_viewer
    ;;
rmf_reload_library)
    # A real RMF compiled by pmfc's library on a thread of the viewer (no PMFVIEW_PMFC): saved cut
    # short (hostile), the compile ends with pmfc's one line on stderr and in the HUD while the
    # window goes on with the previous map; saved whole again, it reloads, its warning counted
    # and listed by `.
    export XDG_CACHE_HOME=$WORK/cache
    unset PMFVIEW_PMFC
    SRC=$(dirname "$0")/../../../shared/data/rmf/22.rmf
    RMF=$WORK/22.rmf
    cp "$SRC" "$RMF" || fail "no shared RMF"
    start_viewer "$RMF"
    event F3 -- '^mode lightmap'
    shot; good=$SHOT
    [ "$("$PROBE" lit "$good")" -gt 100 ] || fail "the compiled map draws nothing"
    head -c 4000 "$SRC" >"$RMF.tmp" && mv "$RMF.tmp" "$RMF"
    wait_for "the failed compile" grep -q '^compile failed; still showing the previous version$' "$WORK/out"
    [ "$(grep -c '^pmfview: ' "$WORK/err")" -eq 1 ] && grep -q "^pmfview: $RMF: .*byte [0-9]*" "$WORK/err" ||
        fail "want one 'pmfview: FILE ... byte N' line"
    event F4 -- '^mode fullbright'
    event F3 -- '^mode lightmap'
    shot; [ "$("$PROBE" diff "$good" "$SHOT")" -eq 0 ] || fail "a failed compile changed the picture"
    cp "$SRC" "$RMF.tmp" && touch "$RMF.tmp" && mv "$RMF.tmp" "$RMF"
    wait_for "the reload" grep -q "^reloaded $RMF$" "$WORK/out"
    wait_for "the reloaded view" sh -c "[ \$(grep -c '^ready ' '$WORK/out') -ge 2 ]"
    shot; [ "$("$PROBE" diff "$good" "$SHOT")" -eq 0 ] || fail "the map compiled again differs"
    # the compile's warning (22.rmf names a texture of no WAD): counted, then listed by `
    grep -q '^1 compile warning (` lists them)$' "$WORK/out" || fail "no warning count after the compile"
    event grave -- '^compile warnings listed$'
    grep -q '^warning: 1 texture(s) found in no WAD or texture folder, drawn as checkers: UNNAMED$' "$WORK/out" ||
        fail "the warning is not listed"
    event grave -- '^compile warnings closed$'
    ;;
relight_save)
    # A .map compiled by the library on a thread keeps what a relight needs in memory (pmfc.h's
    # keep): a save that changes only a light's value relights that light in two pictures, the
    # new direct light with the bounces as they were, then the light bounced again, and says so
    # for each (the file in the cache directory is the full compile's, for a later process); a
    # save that raises the floor compiles in full and says why.
    export XDG_CACHE_HOME=$WORK/cache
    unset PMFVIEW_PMFC
    SRC=$(dirname "$0")/../../../shared/data/map/q1_light_hlform.map
    MAPF=$WORK/lit.map
    cp "$SRC" "$MAPF" || fail "no shared .map"
    start_viewer "$MAPF"
    event F3 -- '^mode lightmap'
    shot; before=$SHOT
    kept_at=$(stat -c %y "$WORK"/cache/pmfview/*.relight) # the full compile's, for a later process
    sed 's/^"light" "255 127 0"/"light" "255 127 0 600"/' "$SRC" >"$MAPF.tmp" && mv "$MAPF.tmp" "$MAPF"
    wait_for "the first picture" grep -q '^relit 1 light ([0-9]* luxels) in [0-9.]* s, bounce \.\.\.$' "$WORK/out"
    wait_for "the final picture" grep -q '^relit 1 light ([0-9]* luxels) in [0-9.]* s, bounce [0-9.]* s$' "$WORK/out"
    # (the first picture's view may not complete before the final one replaces it)
    wait_for "the relit view" sh -c "sed -n '/^relit 1 light .*, bounce [0-9.]* s\$/,\$p' '$WORK/out' | grep -q '^ready '"
    [ "$(grep -c "^reloaded $MAPF$" "$WORK/out")" -eq 2 ] || fail "want two pictures of the relight"
    [ "$(stat -c %y "$WORK"/cache/pmfview/*.relight)" = "$kept_at" ] || fail "the relight went through the file"
    shot; [ "$("$PROBE" diff "$before" "$SHOT")" -gt 0 ] || fail "the brighter light changed no pixel"
    sed 's/^( 944 1472 944 ) ( 944 1473 944 ) ( 945 1472 944 )/( 944 1472 952 ) ( 944 1473 952 ) ( 945 1472 952 )/' \
        "$MAPF" >"$MAPF.tmp" && mv "$MAPF.tmp" "$MAPF"
    wait_for "the full compile" grep -q '^compiled in full in [0-9.]* s: cache: more than light changed' "$WORK/out"
    ;;
legacy)
    # MAKEMAP is format_sample_write: map.pmf is the legacy draft map, variant 2 its textures. The
    # left wall is grey 200 lit by base light 128: full 100, lightmap 128, fullbright 200; the
    # right wall is unlit (fullbright) blue.
    "$MAKEMAP" "$WORK/game" 2 || fail "cannot write the textures"
    start_viewer "$MAP" --game "$WORK/game" --camera -4,0,0,0,0
    shot; expect_centre "$SHOT" "100 100 100" "lit wall, full"
    event F3 -- '^mode lightmap'; shot; expect_centre "$SHOT" "128 128 128" "lit wall, lightmap"
    event F4 -- '^mode fullbright'; shot; expect_centre "$SHOT" "200 200 200" "lit wall, fullbright"
    quit_viewer
    start_viewer "$MAP" --game "$WORK/game" --camera 4,0,0,0,0
    shot; expect_centre "$SHOT" "30 60 250" "unlit wall"
    quit_viewer
    ;;
pm4_layers)
    # MAKEMAP is format_sample_write: variant 1 is the PM4 tile. Looking down on its walkable
    # square (view y = 10) away from the path and markers: Ctrl+1 hides the surfaces, again shows them.
    "$MAKEMAP" "$WORK/w_1_2.pm4" 1 || fail "cannot write the PM4 tile"
    start_viewer "$WORK/w_1_2.pm4" --camera 7,40,-3,0,-90
    shot
    square=$(centre "$SHOT")
    near "$square" "0 0 0" && fail "the square is not drawn: $square"
    event ctrl+1 -- '^surfaces off'
    wait_for "the view without surfaces" sh -c "[ \$(grep -c '^ready ' '$WORK/out') -ge 2 ]"
    shot; expect_centre "$SHOT" "0 0 0" "surfaces off"
    event ctrl+1 -- '^surfaces on'
    wait_for "the view with surfaces" sh -c "[ \$(grep -c '^ready ' '$WORK/out') -ge 3 ]"
    shot; expect_centre "$SHOT" "$square" "surfaces on again"
    quit_viewer
    ;;
levels)
    start_viewer "$MAP"
    event Next -- '^level 1'
    wait_for "level 1's view" sh -c "[ \$(grep -c '^ready ' '$WORK/out') -ge 2 ]"
    shot
    expect_centre "$SHOT" "0 0 100" "level 1"
    event Prior -- '^level 0'
    event Prior -- '^no level -1'
    ;;
compare)
    # Issue 16's compare: a reload keeps the previous version; X flips between the two, V shows
    # their signed difference (variant 1's luxels are red + 60: brighter, t = 60/64, warm).
    start_viewer "$MAP"
    event F3 -- '^mode lightmap'
    event x -- '^no previous version yet'
    "$MAKEMAP" "$MAP.new" 1 && mv "$MAP.new" "$MAP" || fail "cannot rewrite the map"
    wait_for "the reload" grep -q '^reloaded ' "$WORK/out"
    wait_for "the reloaded view" sh -c "[ \$(grep -c '^ready ' '$WORK/out') -ge 2 ]"
    shot; expect_centre "$SHOT" "175 100 140" "the current version"
    current=$SHOT
    event x -- '^showing the previous version$'; shot; expect_centre "$SHOT" "115 100 140" "the previous version (X)"
    event x -- '^showing the current version$'; shot
    [ "$("$PROBE" diff "$current" "$SHOT")" -eq 0 ] || fail "X twice does not give the current version back"
    event v -- '^difference: changed pixels: '
    stats=$(grep '^difference: changed pixels: ' "$WORK/out" | tail -n1)
    lit=$("$PROBE" lit "$current")
    [[ $stats =~ ^difference:\ changed\ pixels:\ ([0-9]+)\ of\ 19200\ .*brighter\ ([0-9]+),\ darker\ 0,\ max\ difference\ 6[01], ]] ||
        fail "difference figures: $stats"
    [ "${BASH_REMATCH[1]}" -eq "${BASH_REMATCH[2]}" ] && [ "${BASH_REMATCH[1]}" -gt 1000 ] && [ "${BASH_REMATCH[1]}" -le "$lit" ] ||
        fail "difference figures: $stats (the wall covers $lit pixels)"
    shot; expect_centre "$SHOT" "245 208 0" "the difference (V)"
    [ "$("$PROBE" count "$SHOT" 245 208 0)" -eq "${BASH_REMATCH[1]}" ] || fail "the picture's warm pixels are not the changed ones"
    # X while it is on: still previous -> current
    event x -- '^showing the previous version$'; shot; expect_centre "$SHOT" "245 208 0" "the difference after X"
    event v -- '^difference off$'; shot; expect_centre "$SHOT" "115 100 140" "difference off, previous shown"
    event v -- '^difference: changed pixels: '
    quit_viewer
    ;;
tools)
    # B, Y, Z in the window give the pictures of `shot --mode density` and `shot --overlay`.
    printf '%s\n' 'map "Tools"' 'material floor color 200 200 200' 'level main {' '  chunk_size 4' '  ambient 120 120 120' \
        '  weather rain wind 1 0 0' '  gravity low 0 -3 0' '  box -8 -1 -8 8 0 8 material floor' \
        '  region weather rain -6 0 -2 -2 4 2' '  region gravity low 2 0 -2 6 4 2' '}' >"$WORK/tools.pms"
    "$PMFC" "$WORK/tools.pms" -o "$WORK/tools.pmf" --quiet || fail "pmfc tools.pms"
    headless() { ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$PMFVIEW" shot "$WORK/tools.pmf" -o "$WORK/$1.png" --size 160x120 --camera 0,10,3,0,-70 "${@:2}" >/dev/null 2>&1 || fail "shot $1"; }
    headless density --mode density
    headless regions --overlay weather,gravity
    same_as() { local d; d=$("$PROBE" diff "$SHOT" "$WORK/$1.png"); [ "$d" -eq 0 ] || fail "$2: $d pixels differ from the shot '$1'"; }
    start_viewer "$WORK/tools.pmf" --camera 0,10,3,0,-70
    event b -- '^mode density$'; shot; same_as density "B"
    event F2 -- '^mode full$'
    event y -- '^weather regions on$'
    event z -- '^gravity regions on$'; shot; same_as regions "Y and Z"
    event comma -- '^sound regions on$'
    event period -- '^sky regions on$'
    event j -- '^load regions on$'
    event shift+j -- '^path regions on$'; shot; same_as regions "no sound, sky, load or path regions in the map"
    event y -- '^weather regions off$'; shot
    [ "$("$PROBE" diff "$SHOT" "$WORK/regions.png")" -gt 100 ] || fail "Y did not hide the weather region"
    quit_viewer
    ;;
light_tools)
    # The light tools on a map pmfc compiles (PMFC from CMake): a static lamp, dynamic 7 "red"
    # straight ahead of the camera, fast 9 "blue". L shows the gizmos (the window as shown,
    # Ctrl+F12: the red icon at the centre, its name beside it while the mouse is over it); O and
    # U on the icon solo and mute it, each view matching a headless shot with --solo / --mute;
    # O with the mouse elsewhere cycles through the lights; I + click inspects the floor.
    cat >"$WORK/lights.pms" <<'PMS'
map "Lights"
material floor texture none
level main {
    ambient 0 0 0
    box -8 -1 -8 8 0 8 material floor
    light static at -4 4 0 color 255 255 255 range 10 name lamp
    light dynamic 7 at 4 3 0 color 255 128 0 range 6 name red
    light fast 9 at 0 2 4 color 0 128 255 range 5 name blue
}
PMS
    "$PMFC" "$WORK/lights.pms" -o "$MAP" --quiet || fail "pmfc"
    CAM="--camera 4,3,8,0,-10"
    headless() { ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$PMFVIEW" shot "$MAP" -o "$WORK/$1.png" --size 160x120 $CAM "${@:2}" >/dev/null 2>&1 || fail "shot $1"; }
    same_as() { local d; d=$("$PROBE" diff "$SHOT" "$WORK/$1.png"); [ "$d" -eq 0 ] || fail "$2: $d pixels differ from the shot with $1"; }
    headless solo7 --solo 7
    headless mute7 --mute red
    headless plain
    start_viewer "$MAP" $CAM
    key h                                   # the HUD's text would cover the corners
    xdotool mousemove --window "$WID" 5 5
    event l -- '^light gizmos on$'
    # red at (4,3,0) seen from (4,3,8) pitched 10 degrees down: above the centre, at
    # y = 60 - 60 * tan(10 deg) / tan(37.5 deg) = 46
    shot ctrl+F12; got=$("$PROBE" pixel "$SHOT" 80 46)
    near "$got" "255 128 0" || fail "the red light's icon: $got at 80,46"
    white_away=$("$PROBE" count "$SHOT" 255 255 255)
    xdotool mousemove --window "$WID" 80 46; sleep 0.3
    shot ctrl+F12
    [ "$("$PROBE" count "$SHOT" 255 255 255)" -gt $((white_away + 20)) ] || fail "no name beside the hovered icon"
    # F12 shoots the view with the gizmos (as the probes): L hides them for the comparisons.
    gizmos() { event l -- "^light gizmos $1\$"; sleep 0.3; }
    event o -- '^solo dynamic 7 red$'; gizmos off; shot; same_as solo7 "O on red's icon"
    gizmos on; event o -- '^solo off$'; gizmos off; shot; same_as plain "O again"
    gizmos on; event u -- '^muted dynamic 7 red (1 muted)$'; gizmos off; shot; same_as mute7 "U on red's icon"
    event shift+u -- '^every light unmuted$'; shot; same_as plain "Shift+U"
    gizmos on
    xdotool mousemove --window "$WID" 5 5; sleep 0.3
    event o -- '^solo static #0 lamp (direct term)$'
    event o -- '^solo dynamic 7 red$'
    event o -- '^solo fast 9 blue$'
    event o -- '^solo off$'
    event shift+o -- '^solo fast 9 blue$'
    event shift+o -- '^solo dynamic 7 red$'
    event o -- '^solo fast 9 blue$'
    event o -- '^solo off$'
    # I held + a click on the floor below the centre
    before=$(lines '^inspected floor at ')
    xdotool mousemove --window "$WID" 80 100 keydown i click 1 keyup i
    more() { [ "$(lines '^inspected floor at ')" -gt "$before" ]; }
    wait_for "the inspector" more
    grep '^inspect {' "$WORK/out" | tail -n1 | cut -d' ' -f2- >"$WORK/inspect.json"
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["hit"] and r["material"] == "floor" and r["pixel"] == [80, 100], r' \
        "$WORK/inspect.json" || fail "the inspector's JSON line: $(cat "$WORK/inspect.json")"
    event l -- '^light gizmos off$'
    quit_viewer
    ;;
*) fail "unknown case" ;;
esac
exit 0
