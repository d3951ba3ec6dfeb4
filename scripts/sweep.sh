#!/bin/sh
# sweep.sh - every map of a folder at once (docs/sweep.md): compiles each RMF, .map and BSP under
# the folders with pmfc, renders it at its first start camera with `pmfview shot`, and writes
# OUT/sweep.md (one row a map) and OUT/sweep.png (the contact sheet of the start pictures).
#
# Usage: sh scripts/sweep.sh [--out DIR] [--size WxH] [--jobs N] [--timeout SECONDS]
#                            [--columns N] [--game DIR] [--no-models] [--wad FILE]... DIR...
# PMFC, PMFVIEW and PMFSWEEP name the programs (default: build/pmfc, build/pmfview, build/pmfsweep).
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SELF=$ROOT/scripts/sweep.sh
PMFC=${PMFC:-$ROOT/build/pmfc}
PMFVIEW=${PMFVIEW:-$ROOT/build/pmfview}
PMFSWEEP=${PMFSWEEP:-$ROOT/build/pmfsweep}
export PMFC PMFVIEW PMFSWEEP

usage() {
    sed -n '6,8p' "$SELF" | sed 's/^# \{0,1\}//' >&2
    echo "sweep: $1" >&2
    exit 1
}

# ---- one map (run by xargs, several at once): WORK OUT SIZE TIMEOUT BASE [PMFC OPTIONS] -- MAP ----
one_map() {
    work=$1 out=$2 size=$3 limit=$4 base=$5
    shift 5
    # "$@" = the pmfc options, --, the map: the options are rotated behind the map, then it is taken
    while [ "$1" != -- ]; do
        a=$1
        shift
        set -- "$@" "$a"
    done
    shift
    map=$1
    shift
    case $map in
    "$base"/*) name=${map#"$base"/} ;;
    *) name=$(basename "$map") ;;
    esac
    [ -n "${SWEEP_PREFIX:-}" ] && name=$SWEEP_PREFIX/$name
    # a file name of safe characters; another map already took it: the path's checksum added
    stem=$(printf '%s' "$name" | LC_ALL=C tr -c 'A-Za-z0-9._-' '_')
    if ! mkdir "$work/maps/$stem" 2>/dev/null; then
        stem=$stem-$(printf '%s' "$map" | cksum | cut -d' ' -f1)
        mkdir "$work/maps/$stem" || return 0
    fi
    dir=$work/maps/$stem log=$out/logs/$stem.txt pmf=$work/$stem.pmf png=$out/shots/$stem.png
    start=$(date +%s)
    timeout -k 5 "$limit" "$PMFC" "$map" -o "$pmf" "$@" >"$log" 2>&1
    rc=$?
    elapsed=$(( $(date +%s) - start ))
    seconds=$(sed -n 's/^  total *\([0-9.]*\) s$/\1/p' "$log" | tail -n 1)
    [ -n "$seconds" ] || seconds=$elapsed
    faces=$(sed -n 's/^pmfc: .*, \([0-9][0-9]*\) faces, .*/\1/p' "$log" | tail -n 1)
    warnings=$(grep -c '^pmfc: warning:' "$log")
    leak=no
    [ $rc -eq 0 ] || leak=-
    grep -q '^pmfc: warning: leak:' "$log" && leak=yes
    case $rc in
    0) exit_text=0 ;;
    124 | 137) exit_text="$rc (timed out after $limit s)" ;;
    *) if [ "$rc" -gt 128 ]; then exit_text="$rc (signal $((rc - 128)))"; else exit_text=$rc; fi ;;
    esac
    triangles=- camera=- inside=- black=- median=-
    if [ $rc -eq 0 ]; then
        timeout -k 5 "$limit" "$PMFVIEW" shot "$pmf" -o "$png" --size "$size" ${SWEEP_GAME:+--game "$SWEEP_GAME"} \
            ${SWEEP_NO_MODELS:+--no-models} >>"$log" 2>&1 || echo "sweep: pmfview shot failed with exit $?" >>"$log"
        # every chunk decoded within the viewer's default memory budget (issue 39 point 1)
        if timeout -k 5 "$limit" "$PMFVIEW" info "$pmf" >"$dir/info" 2>>"$log"; then
            grep '^  largest chunk:' "$dir/info" >>"$log"
        else
            echo "sweep: pmfview info failed with exit $?: a chunk beyond the default memory budget, or the map is invalid" >>"$log"
        fi
        picture=
        [ -f "$png" ] && picture=$png
        timeout -k 5 "$limit" "$PMFSWEEP" probe "$pmf" ${picture:+--picture "$picture"} >"$dir/probe" 2>>"$log" ||
            echo "sweep: pmfsweep probe failed with exit $?" >>"$log"
        cat "$dir/probe" >>"$log"
        field() { sed -n "s/^$1: //p" "$dir/probe"; }
        triangles=$(field triangles) camera=$(field camera) inside=$(field inside)
        black=$(field black | tr -d '%') median=$(field 'median brightness')
        [ "$(field leak)" = yes ] && leak=yes
        for v in triangles camera inside black median; do
            eval "[ -n \"\$$v\" ] || $v=-"
        done
        rm -f "$pmf"
    fi
    # the sheet's label: the name, then what went wrong ('!' = drawn red) or the short story; the
    # summary counts the words of the state file
    state=
    [ $rc -eq 0 ] && state=compiled || state=failed
    [ "$triangles" = 0 ] && state="$state empty"
    [ "$leak" = yes ] && state="$state leak"
    [ $rc -eq 0 ] && [ "$inside" != yes ] && state="$state outside"
    echo "$state" | tr ' ' '\n' >"$dir/state"
    if [ $rc -ne 0 ]; then
        status="!exit $exit_text"
    elif [ "$triangles" = 0 ]; then
        status="!empty: 0 triangles"
    elif [ "$leak" = yes ]; then
        status="!leak; inside: $inside"
    elif [ "$inside" != yes ]; then
        status="!camera: $inside"
    else
        status="$triangles triangles, $warnings warnings"
    fi
    printf '%s\n%s\n' "$(printf '%s' "$name" | tr '\n\t' '??')" "$status" >"$dir/label"
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$("$PMFSWEEP" label "$name")" \
        "$exit_text" "$seconds" "${faces:--}" "$triangles" "$warnings" "$leak" "$("$PMFSWEEP" label "$camera")" \
        "$inside" "$black" "$median" >"$dir/row"
    return 0
}

if [ "${1:-}" = --one ]; then
    shift
    one_map "$@"
    exit 0
fi

# ---- the sweep ----------------------------------------------------------------------------------
OUT=./sweep SIZE=320x180 JOBS='' LIMIT=600 SHEET_COLUMNS=''
SWEEP_GAME=
SWEEP_NO_MODELS=
WADS=
while [ $# -gt 0 ]; do
    case $1 in
    --out) [ $# -ge 2 ] || usage "--out needs a folder"; OUT=$2; shift 2 ;;
    --size) [ $# -ge 2 ] || usage "--size needs WxH"; SIZE=$2; shift 2 ;;
    --jobs) [ $# -ge 2 ] || usage "--jobs needs a number"; JOBS=$2; shift 2 ;;
    --timeout) [ $# -ge 2 ] || usage "--timeout needs seconds"; LIMIT=$2; shift 2 ;;
    --columns) [ $# -ge 2 ] || usage "--columns needs a number"; SHEET_COLUMNS=$2; shift 2 ;;
    --game) [ $# -ge 2 ] || usage "--game needs a folder"; SWEEP_GAME=$2; shift 2 ;;
    --no-models) SWEEP_NO_MODELS=1; shift ;;
    --wad) [ $# -ge 2 ] || usage "--wad needs a file"; WADS=$WADS${WADS:+
}$2; shift 2 ;;
    -h | --help) sed -n '2,8p' "$SELF" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    -*) usage "unknown option '$1'" ;;
    *) break ;;
    esac
done
[ $# -gt 0 ] || usage "name at least one folder of maps"
case $SIZE in *[!0-9x]* | x* | *x | *x*x* | [!0-9]*) usage "--size wants WxH, not '$SIZE'" ;; *x*) ;; *) usage "--size wants WxH" ;; esac
case $LIMIT in '' | *[!0-9]* | 0) usage "--timeout wants whole seconds, not '$LIMIT'" ;; esac
[ -n "$JOBS" ] || JOBS=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
case $JOBS in '' | *[!0-9]* | 0) usage "--jobs wants a number, not '$JOBS'" ;; esac
for tool in "$PMFC" "$PMFVIEW" "$PMFSWEEP"; do
    [ -x "$tool" ] || { echo "sweep: $tool is not built (cmake --build build)" >&2; exit 3; }
done
for d; do
    [ -e "$d" ] || usage "no such folder: '$d'"
done
export SWEEP_GAME SWEEP_NO_MODELS

mkdir -p "$OUT/logs" "$OUT/shots" || exit 3
rm -f "$OUT"/logs/*.txt "$OUT"/shots/*.png
WORK=$(mktemp -d) || exit 3
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
mkdir "$WORK/maps"

for d; do
    base=${d%/}
    [ -n "$base" ] || base=/
    prefix=
    [ $# -gt 1 ] && prefix=$(basename "$base")
    (
        set --
        [ -n "$SWEEP_GAME" ] && set -- --game "$SWEEP_GAME"
        if [ -n "$WADS" ]; then
            set -f
            old_ifs=$IFS
            IFS='
'
            for w in $WADS; do set -- "$@" --wad "$w"; done
            IFS=$old_ifs
        fi
        export SWEEP_PREFIX="$prefix"
        find "$base" -type f \( -iname '*.rmf' -o -iname '*.map' -o -iname '*.bsp' \) -print0 |
            xargs -0 -r -n 1 -P "$JOBS" sh "$SELF" --one "$WORK" "$OUT" "$SIZE" "$LIMIT" "$base" "$@" --
    )
done

# ---- sweep.md and sweep.png, rows in the order of their names ----------------------------------
# shellcheck disable=SC2012  # the stems are of safe characters only
stems=$(ls "$WORK/maps" | LC_ALL=C sort)
count() { cat "$WORK"/maps/*/state 2>/dev/null | grep -cx "$1"; }
{
    echo "# Sweep"
    echo
    printf 'Folders:'
    for d; do printf ' %s' "$("$PMFSWEEP" label "$d")"; done
    echo
    echo
    printf '%s maps: %s compiled, %s failed, %s empty, %s leaking, %s with the camera not inside.\n' \
        "$(printf '%s\n' "$stems" | grep -c .)" "$(count compiled)" "$(count failed)" "$(count empty)" "$(count leak)" "$(count outside)"
    echo
    echo "| map | exit | seconds | faces | triangles | warnings | leak | camera | inside | black % | median |"
    echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    for s in $stems; do
        cat "$WORK/maps/$s/row" 2>/dev/null
    done
} >"$WORK/sweep.md"
mv "$WORK/sweep.md" "$OUT/sweep.md" || exit 3

set --
for s in $stems; do
    [ -f "$WORK/maps/$s/label" ] || continue
    set -- "$@" "$OUT/shots/$s.png" "$(cat "$WORK/maps/$s/label")"
done
if [ $# -gt 0 ]; then
    "$PMFSWEEP" sheet -o "$OUT/sweep.png" ${SHEET_COLUMNS:+--columns "$SHEET_COLUMNS"} "$@" 2>>"$OUT/logs/sheet.txt" || exit 3
else
    echo "sweep: no RMF, .map or BSP file under the folders" >&2
fi
echo "sweep: $OUT/sweep.md, $OUT/sweep.png" >&2
