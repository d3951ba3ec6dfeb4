#!/bin/sh
# rss_curve.sh [SECONDS] [OUT.csv] - issue 11 point 9: a long `shot` flight around a generated
# 40x1x40 city with resident memory sampled from /proc every 10 s (docs/memory.md).
# Needs a build in build/. Default: 1200 s into rss_curve.csv.
set -eu
DUR=${1:-1200}
OUT=$(cd "$(dirname "${2:-rss_curve.csv}")" && pwd)/$(basename "${2:-rss_curve.csv}")
cd "$(dirname "$0")/.."
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
build/pmfc --generate city --chunks 40x1x40 --seed 1 -o "$WORK/city.pmf" --quiet
lap="-600,30,-600,45,-10
600,30,600,225,-10
-600,30,600,135,-10
600,30,-600,315,-10"
for i in $(seq 12); do echo "$lap"; done >"$WORK/path.txt"
echo "-600,30,-600,45,-10" >>"$WORK/path.txt"
build/pmfview shot "$WORK/city.pmf" -o "$WORK/flight.png" --size 640x360 --frames 200000 --path "$WORK/path.txt" \
    >"$WORK/flight.out" 2>&1 &
PID=$!
echo "t_s,rss_kib,rss_anon_kib,rss_file_kib" >"$OUT"
t=0
while [ "$t" -le "$DUR" ] && kill -0 "$PID" 2>/dev/null; do
    awk -v t="$t" '/^VmRSS/{r=$2}/^RssAnon/{a=$2}/^RssFile/{f=$2}END{print t","r","a","f}' "/proc/$PID/status" >>"$OUT"
    sleep 10
    t=$((t + 10))
done
kill "$PID" 2>/dev/null || true
wait "$PID" 2>/dev/null || true
echo "$OUT: $(($(wc -l <"$OUT") - 1)) samples"
