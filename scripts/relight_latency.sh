#!/bin/bash
# relight_latency.sh PMFVIEW MAP [GAME_DIR [EDIT]] - the viewer's compile-on-save after a light-only
# edit (issue 40 point 5), timed as a designer sees it: MAP (a Quake .map) is copied to a scratch
# directory and opened in the window under a private Xvfb (software GL where no GPU is), compiled
# in full there; once its view is complete the copy takes EDIT (bench/relight_edit.py: move, the
# default, recolour, add, delete, style, unstyle) and is saved in place. Prints the seconds from the
# save to the first updated picture (the new direct light, the bounces as they were) and to the
# final one (bounced again), each the first complete view after the viewer loaded that map, and the
# HUD's line for each:
#   first 0.62 s: relit 1 light (25032 luxels) in 0.5 s, bounce ...
#   final 1.05 s: relit 1 light (25032 luxels) in 0.5 s, bounce 0.4 s
# A relight in one picture (no bounces kept) prints the same time twice. Exit 1 when the viewer
# fails, 77 without Xvfb. The scratch directory (and the viewer's cache in it) is removed.
set -u
PMFVIEW=$1 SRC=$2 GAME=${3:-} EDIT=${4:-move}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TIMEOUT=${RELIGHT_LATENCY_TIMEOUT:-300}
command -v Xvfb >/dev/null || { echo "relight_latency: no Xvfb" >&2; exit 77; }
W=$(mktemp -d)
DISPLAY_NUMBER=$((200 + $$ % 300))
cleanup() { kill "$VPID" "$XPID" 2>/dev/null; wait 2>/dev/null; rm -rf "$W"; }
VPID= XPID=
trap cleanup EXIT
cp "$SRC" "$W/m.map" || exit 1
export XDG_CACHE_HOME=$W/cache
unset PMFVIEW_PMFC
Xvfb ":$DISPLAY_NUMBER" -screen 0 800x600x24 >/dev/null 2>&1 & XPID=$!
sleep 1
# every line of the viewer's stdout with the time it came (seconds, the clock `date` reads)
DISPLAY=":$DISPLAY_NUMBER" "$PMFVIEW" --size 320x240 ${GAME:+--game "$GAME"} "$W/m.map" 2>"$W/err" |
    while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line"; done >"$W/out" &
sleep 0.2
VPID=$(pgrep -n -f "^$PMFVIEW --size 320x240")
wait_line() {   # wait_line PATTERN COUNT: until COUNT lines of the timed stdout match PATTERN
    local end=$((SECONDS + TIMEOUT))
    until [ "$(grep -c -- "$1" "$W/out")" -ge "$2" ]; do
        [ $SECONDS -lt $end ] && kill -0 "$VPID" 2>/dev/null || { cat "$W/err" "$W/out" >&2; exit 1; }
        sleep 0.02
    done
}
wait_line ' ready ' 1
sleep 1
python3 "$ROOT/bench/relight_edit.py" "$W/m.map" "$W/edited.map" "$EDIT" || exit 1
saved=$(date +%s.%N)
mv "$W/edited.map" "$W/m.map"
# the final picture's line: "relit ..." without "bounce ...", or "compiled in full ..."
wait_line ' relit .*bounce [0-9.]* s$\| relit [^,]*$\| compiled in full\| compile failed' 1
grep -q ' compile failed' "$W/out" && { cat "$W/err" >&2; exit 1; }
wait_line ' ready ' "$(( $(grep -c ' reloaded ' "$W/out") + 1 ))"
python3 - "$W/out" "$saved" <<'PY'
import sys
lines = [l.rstrip("\n").split(" ", 1) for l in open(sys.argv[1])]
saved = float(sys.argv[2])
after = [(float(t), text) for t, text in lines if float(t) >= saved]
pictures, loaded, said = [], False, None
for t, text in after:
    if text.startswith("reloaded "):
        loaded = True
    elif text.startswith(("relit ", "compiled in full")):
        said = text
    elif text.startswith("ready ") and loaded:
        pictures.append((t - saved, said))
        loaded = False
first, final = pictures[0], pictures[-1]
print("first %.2f s: %s" % first)
print("final %.2f s: %s" % final)
PY
