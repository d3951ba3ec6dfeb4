#!/usr/bin/env bash
# Does pmfview draw right on this machine's GPU, and how fast? (docs/bench.md, "On a GPU")
#
#   sh scripts/gpu-check.sh [--reference DIR] [--runs N] [--map FILE]... [--out DIR] [--no-frames]
#   sh scripts/gpu-check.sh --make-reference DIR [--map FILE]...
#
# Pictures: the demo maps and a real RMF (the largest of ../shared/data/rmf, compiled by pmfc;
# --map adds any map pmfview opens) are shot from their start cameras at 1280x720, N times each
# (default 20), and every run is compared with the llvmpipe picture: a run is wrong when more than
# 0.25% of its pixels differ by more than 20 in a channel. The wrong runs are listed. Each map is
# shot once more under PMFVIEW_GL_VERIFY=1 (every upload read back, docs/shot.md).
# The llvmpipe pictures come from --reference DIR (made with --make-reference DIR on a machine
# with Mesa, and carried), else from Mesa on this machine when its EGL vendor file is there.
#
# Frames: a 240-frame flight across the 64x2x64 generated city at 1280x720 and at 3840x2160:
# frame times (average, median, max), render time (the CPU's and the GPU's parts of it), and
# bench_draw's time on the same path (the one-buffer draw of the same triangles, bench/):
# render ≤ 1.2 × bench_draw at 720p, longest frame ≤ 2 × median (the GPU targets of bench
# figure 8).
#
# It builds nothing: it runs build/pmfview, build/pmfc, build/tests/app/png_probe and
# build-bench/bench-tools/bench_draw (sh scripts/bench.sh --only 8 builds that one), so a GPU
# machine needs only those carried. Environment: GPU_CHECK_BUILD (default build/),
# GPU_CHECK_BENCH_DRAW.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)

REFERENCE="" MAKE_REFERENCE="" RUNS=20 OUT="$ROOT/build/gpu-check" FRAMES=1
EXTRA_MAPS=()
while [ $# -gt 0 ]; do
    case "$1" in
    --reference) REFERENCE=${2:?--reference needs a directory}; shift ;;
    --make-reference) MAKE_REFERENCE=${2:?--make-reference needs a directory}; shift ;;
    --runs) RUNS=${2:?--runs needs a count}; shift ;;
    --map) EXTRA_MAPS+=("${2:?--map needs a file}"); shift ;;
    --out) OUT=${2:?--out needs a directory}; shift ;;
    --no-frames) FRAMES=0 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "gpu-check: unknown option '$1' (see --help)" >&2; exit 1 ;;
    esac
    shift
done

BUILD=${GPU_CHECK_BUILD:-$ROOT/build}
PMFVIEW=$BUILD/pmfview PMFC=$BUILD/pmfc PROBE=$BUILD/tests/app/png_probe
BENCH_DRAW=${GPU_CHECK_BENCH_DRAW:-$ROOT/build-bench/bench-tools/bench_draw}
SIZE=1280x720 PIXELS=$((1280 * 720))
MESA_VENDOR=/usr/share/glvnd/egl_vendor.d/50_mesa.json

say() { printf 'gpu-check: %s\n' "$*" >&2; }
die() { say "$*"; exit 2; }
for tool in "$PMFVIEW" "$PMFC" "$PROBE"; do
    [ -x "$tool" ] || die "$tool is missing: build first (cmake -S . -B build && cmake --build build)"
done
mkdir -p "$OUT/maps" "$OUT/runs" || exit 1

# ---- the maps -----------------------------------------------------------------------------------
MAPS=()
for demo in feature_demo lighting_demo materials_demo; do
    [ -f "$BUILD/assets/$demo.pmf" ] && MAPS+=("$BUILD/assets/$demo.pmf")
done
rmf=$(ls -S "$ROOT"/../shared/data/rmf/*.rmf 2>/dev/null | head -n 1)
if [ -n "$rmf" ]; then
    pmf="$OUT/maps/$(basename "$rmf" .rmf).pmf"
    "$PMFC" "$rmf" -o "$pmf" --quiet --time 0 || die "pmfc $rmf failed"
    MAPS+=("$pmf")
fi
MAPS+=("${EXTRA_MAPS[@]}")
[ ${#MAPS[@]} -gt 0 ] || die "no map to draw"
name_of() { basename "${1%.*}"; }

# shot MAP PNG [ENV...]: the map from its start camera; stderr (with --stats) into PNG.err
shot() {
    local map=$1 png=$2
    shift 2
    env "$@" "$PMFVIEW" shot "$map" -o "$png" --size "$SIZE" --stats 2>"$png.err"
}
renderer() { sed -n 's/^draw path: .*(OpenGL [0-9.]*, \(.*\))$/\1/p' "$1"; }

if [ -n "$MAKE_REFERENCE" ]; then
    mkdir -p "$MAKE_REFERENCE" || exit 1
    for map in "${MAPS[@]}"; do
        shot "$map" "$MAKE_REFERENCE/$(name_of "$map").png" || die "shot $map failed: $(tail -n 1 "$MAKE_REFERENCE/$(name_of "$map").png.err")"
        say "reference $(name_of "$map").png ($(renderer "$MAKE_REFERENCE/$(name_of "$map").png.err"))"
    done
    exit 0
fi

# ---- the llvmpipe pictures ----------------------------------------------------------------------
if [ -z "$REFERENCE" ]; then
    [ -f "$MESA_VENDOR" ] || die "no --reference and no Mesa here ($MESA_VENDOR): make the pictures with --make-reference on a machine with Mesa"
    REFERENCE="$OUT/reference"
    mkdir -p "$REFERENCE"
    for map in "${MAPS[@]}"; do
        png="$REFERENCE/$(name_of "$map").png"
        shot "$map" "$png" __EGL_VENDOR_LIBRARY_FILENAMES="$MESA_VENDOR" LIBGL_ALWAYS_SOFTWARE=1 ||
            die "llvmpipe shot of $map failed: $(tail -n 1 "$png.err")"
        case "$(renderer "$png.err")" in
        llvmpipe*) ;;
        *) die "the reference of $(name_of "$map") came from '$(renderer "$png.err")', not llvmpipe" ;;
        esac
    done
fi

# ---- pictures on this GPU -----------------------------------------------------------------------
WRONG=0 TOTAL=0 GPU=""
for map in "${MAPS[@]}"; do
    name=$(name_of "$map")
    ref="$REFERENCE/$name.png"
    [ -f "$ref" ] || die "no reference picture $ref"
    wrong_here=0
    for k in $(seq "$RUNS"); do
        png="$OUT/runs/$name.$k.png"
        TOTAL=$((TOTAL + 1))
        if ! shot "$map" "$png"; then
            printf 'WRONG  %s run %d: shot failed: %s\n' "$name" "$k" "$(tail -n 1 "$png.err")"
            WRONG=$((WRONG + 1)) wrong_here=$((wrong_here + 1))
            continue
        fi
        [ -n "$GPU" ] || GPU="$(renderer "$png.err") ($(sed -n 's/^egl platform: //p' "$png.err"))"
        differ=$("$PROBE" diff "$ref" "$png" 20)
        if [ "$differ" -gt $((PIXELS / 400)) ] 2>/dev/null || ! [ "$differ" -ge 0 ] 2>/dev/null; then
            printf 'WRONG  %s run %d: %s pixels differ from llvmpipe by more than 20 (%s)\n' "$name" "$k" "$differ" "$png"
            WRONG=$((WRONG + 1)) wrong_here=$((wrong_here + 1))
        else
            rm -f "$png" "$png.err"
        fi
    done
    png="$OUT/runs/$name.verify.png"
    if shot "$map" "$png" PMFVIEW_GL_VERIFY=1; then
        verify="$(sed -n 's/^gl verify: //p' "$png.err") read back equal"
    else
        verify="FAILED: $(tail -n 1 "$png.err")"
        WRONG=$((WRONG + 1))
    fi
    printf '%-28s %d of %d runs wrong; PMFVIEW_GL_VERIFY=1: %s\n' "$name" "$wrong_here" "$RUNS" "$verify"
done
printf 'pictures: %d of %d runs wrong on %s\n' "$WRONG" "$TOTAL" "$GPU"

# ---- frames -------------------------------------------------------------------------------------
if [ "$FRAMES" = 1 ]; then
    city="$OUT/maps/city-64x2x64.pmf"
    [ -s "$city" ] || "$PMFC" --generate city --chunks 64x2x64 --seed 1 --time 0 -o "$city" --quiet ||
        die "pmfc --generate failed"
    # along the street at x = -16 (a chunk border next to the centre chunk), 2 m up, looking -Z
    z=$(((64 / 2 - 2) * 32))
    path="$OUT/path.txt"
    printf '# x,y,z,yaw,pitch\n-16,2,%s,0,0\n-16,2,-%s,0,0\n' "$z" "$z" >"$path"
    num() { awk -v p="$2" 'index($0, p) == 1 { s = substr($0, length(p) + 1); if (match(s, /[0-9]+(\.[0-9]+)?/)) { print substr(s, RSTART, RLENGTH); exit } }' "$1"; }
    for size in 1280x720 3840x2160; do
        log="$OUT/fly-$size.txt"
        "$PMFVIEW" shot "$city" -o "$OUT/fly-$size.png" --size "$size" --camera "-16,2,$z,0,0" --frames 240 \
            --path "$path" --stats 2>"$log" || die "the flight at $size failed: $(tail -n 1 "$log")"
        avg=$(num "$log" "frames: 240, average frame time: ")
        median=$(sed -n 's/^frame times: .*median \([0-9.]*\) ms.*/\1/p' "$log")
        max=$(sed -n 's/^frame times: .*max \([0-9.]*\) ms.*/\1/p' "$log")
        render=$(num "$log" "render time: average ")
        issued=$(sed -n 's/^render time: .*draw calls issued in \([0-9.]*\) ms.*/\1/p' "$log")
        gpu=$(num "$log" "gpu time: average ")
        line=$(printf 'flight %-9s frames: average %s ms, median %s ms, max %s ms (longest / median %s); render %s ms (issued %s, GPU %s)' \
            "$size" "$avg" "$median" "$max" "$(awk -v a="$max" -v b="$median" 'BEGIN { printf "%.2f", a / b }')" "$render" \
            "${issued:-?}" "${gpu:-?}")
        if [ -x "$BENCH_DRAW" ]; then
            "$BENCH_DRAW" "$city" --path "$path" --frames 240 --size "$size" >"$OUT/draw-$size.txt" 2>&1 ||
                die "bench_draw at $size failed: $(tail -n 1 "$OUT/draw-$size.txt")"
            draw=$(num "$OUT/draw-$size.txt" "average frame time: ")
            line="$line; bench_draw $draw ms (render / bench_draw $(awk -v a="$render" -v b="$draw" 'BEGIN { printf "%.2f", a / b }'))"
        else
            line="$line; bench_draw: $BENCH_DRAW is missing (sh scripts/bench.sh --only 8 builds it)"
        fi
        printf '%s\n' "$line"
        sed -n 's/^slowest frames: /  slowest frames: /p' "$log"
    done
fi
[ "$WRONG" = 0 ]
