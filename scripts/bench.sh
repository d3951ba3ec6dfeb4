#!/usr/bin/env bash
# The benchmark suite (docs/bench.md). Not part of the test command.
#
#   sh scripts/bench.sh [--quick] [--only LIST] [--regenerate]
#
# Builds Release pmfview + pmfc into build-bench/ and the baselines (bench/) into
# build-bench/bench-tools/, generates the maps with `pmfc --generate` once (cached in
# build-bench/bench-maps/, keyed by the generator's arguments and version), measures every figure
# and the baseline it is compared with in this run, prints a table and writes
# bench/results/latest.json. A figure that cannot be measured is reported as "n/a (reason)".
#   --quick        small maps and short paths: a smoke run of the whole suite in a few minutes
#   --only LIST    figures to run, comma-separated from 1..11 (default: all)
#   --regenerate   generate the maps again even when cached
# Environment: BENCH_JOBS (build jobs, default 2), BENCH_SEED (default 1), BENCH_GEN_TIMEOUT
# (seconds one map's generation may take, default 900), BENCH_REPEATS (runs of each side of a
# timed comparison, the minimum taken, default 5; 2 with --quick),
# BENCH_BIG / BENCH_SMALL / BENCH_HUGE (map grids, default 64x2x64 / 16x1x16 / 128x1x128),
# BENCH_COMPILE (figure 6's largest compile, default 256x1x256), BENCH_RELIGHT_MAPS (figure 11's
# levels of ../shared/data/lq, default "lqdm10 lq_e1m2 lqdm5 lq_e1m7"; lqdm10 with --quick),
# BENCH_RELIGHT_REPEATS (figure 11's runs of each relight and full compile, default 1).
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)

QUICK=0
ONLY="1,2,3,4,5,6,7,8,9,10,11"
REGENERATE=0
while [ $# -gt 0 ]; do
    case "$1" in
    --quick) QUICK=1 ;;
    --only) ONLY="${2:?--only needs a list}"; shift ;;
    --regenerate) REGENERATE=1 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "bench: unknown option '$1' (see --help)" >&2; exit 1 ;;
    esac
    shift
done

JOBS=${BENCH_JOBS:-2}
GEN_TIMEOUT=${BENCH_GEN_TIMEOUT:-900}
SEED=${BENCH_SEED:-1}
RELIGHT_REPEATS=${BENCH_RELIGHT_REPEATS:-1}
if [ "$QUICK" = 1 ]; then
    BIG=${BENCH_BIG:-8x2x8}; SMALL=${BENCH_SMALL:-4x1x4}; HUGE=${BENCH_HUGE:-16x1x16}; COMPILE=${BENCH_COMPILE:-32x1x32}
    FRAMES_DRAW=20; FRAMES_FLY=60; FLY_REPEATS=2; FRAMES_MEM=40; REPEATS=${BENCH_REPEATS:-2}
    RELIGHT_MAPS=${BENCH_RELIGHT_MAPS:-lqdm10}
else
    BIG=${BENCH_BIG:-64x2x64}; SMALL=${BENCH_SMALL:-16x1x16}; HUGE=${BENCH_HUGE:-128x1x128}; COMPILE=${BENCH_COMPILE:-256x1x256}
    FRAMES_DRAW=60; FRAMES_FLY=240; FLY_REPEATS=3; FRAMES_MEM=120; REPEATS=${BENCH_REPEATS:-5}
    RELIGHT_MAPS=${BENCH_RELIGHT_MAPS:-lqdm10 lq_e1m2 lqdm5 lq_e1m7}
fi
RADIUS=8                    # pmfview's default streaming radius
SIZE=1280x720               # pmfview shot's default size
CHUNK=32                    # the generator's chunk side, metres
EYE=2                       # camera height above the generated streets, metres

BUILD="$ROOT/build-bench"
TOOLS="$BUILD/bench-tools"
MAPS="$BUILD/bench-maps"
WORK="$BUILD/bench-work"
RESULTS="$ROOT/bench/results"
PMFVIEW="$BUILD/pmfview"
PMFC="$BUILD/pmfc"
SUITE_START=$(date +%s)

log() { printf 'bench: %s\n' "$*" >&2; }
calc() { awk "BEGIN { printf \"%.6g\", $1 }"; }
show() { [ -z "$1" ] || awk -v x="$1" 'BEGIN { printf "%.4g", x }'; }
# The first number after PREFIX on the first line of FILE that starts with PREFIX.
field() {
    [ -f "$1" ] || return 0
    awk -v p="$2" 'index($0, p) == 1 { s = substr($0, length(p) + 1); if (match(s, /[0-9]+(\.[0-9]+)?/)) { print substr(s, RSTART, RLENGTH); exit } }' "$1"
}
wants() { case ",$ONLY," in *",$1,"*) return 0 ;; esac; return 1; }

# ---- results ------------------------------------------------------------------------------------
# One row per figure: id|label|value|unit|baseline|ratio|target|verdict|note
ROWS=()
# record ID LABEL VALUE UNIT BASELINE RATIO TARGET NOTE  (TARGET like "<=1.2" or "=" or "")
# The target applies to the ratio, or to the value when there is no baseline.
record() {
    local verdict="-" x=${6:-$3}
    if [ -n "$x" ] && [ -n "$7" ]; then
        case "$7" in
        "<="*) verdict=$(awk -v r="$x" -v t="${7#<=}" 'BEGIN { print (r <= t + 1e-9) ? "ok" : "MISS" }') ;;
        "=") verdict=$(awk -v r="$x" 'BEGIN { print (r > 0.999999 && r < 1.000001) ? "ok" : "MISS" }') ;;
        esac
    fi
    ROWS+=("$1|$2|$3|$4|$5|$6|$7|$verdict|$8")
}
na() { ROWS+=("$1|$2||||||n/a|$3"); }

json_str() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"; }
json_num() { if [ -n "$1" ]; then printf '%s' "$1"; else printf 'null'; fi; }

write_json() {
    mkdir -p "$RESULTS"
    local out="$RESULTS/latest.json.tmp" first=1 row
    {
        printf '{\n  "suite": "pmfview bench",\n  "date": %s,\n' "$(json_str "$(date -u +%Y-%m-%dT%H:%M:%SZ)")"
        printf '  "commit": %s,\n' "$(json_str "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)")"
        printf '  "machine": {"cpus": %s, "cpu": %s, "renderer": %s},\n' "$(nproc)" \
            "$(json_str "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)")" "$(json_str "${RENDERER:-}")"
        printf '  "quick": %s,\n  "maps": {"big": %s, "small": %s, "huge": %s, "seed": %s},\n' \
            "$([ "$QUICK" = 1 ] && echo true || echo false)" "$(json_str "$BIG")" "$(json_str "$SMALL")" \
            "$(json_str "$HUGE")" "$SEED"
        printf '  "seconds": %s,\n  "figures": [\n' "$(( $(date +%s) - SUITE_START ))"
        for row in "${ROWS[@]}"; do
            IFS='|' read -r id label value unit baseline ratio target verdict note <<<"$row"
            [ "$first" = 1 ] || printf ',\n'
            first=0
            printf '    {"id": %s, "label": %s, "value": %s, "unit": %s, "baseline": %s, "ratio": %s, "target": %s, "result": %s, "note": %s}' \
                "$(json_str "$id")" "$(json_str "$label")" "$(json_num "$value")" "$(json_str "$unit")" \
                "$(json_num "$baseline")" "$(json_num "$ratio")" "$(json_str "$target")" "$(json_str "$verdict")" \
                "$(json_str "$note")"
        done
        printf '\n  ]\n}\n'
    } >"$out" && mv "$out" "$RESULTS/latest.json"
}

print_table() {
    local row
    printf '\n%-34s %12s %12s %8s %7s %6s  %s\n' "figure" "value" "baseline" "ratio" "target" "result" "note"
    printf '%s\n' "------------------------------------------------------------------------------------------------"
    for row in "${ROWS[@]}"; do
        IFS='|' read -r id label value unit baseline ratio target verdict note <<<"$row"
        if [ "$verdict" = "n/a" ]; then
            printf '%-34s %12s %12s %8s %7s %6s  %s\n' "$label" "n/a" "" "" "" "n/a" "($note)"
            continue
        fi
        printf '%-34s %12s %12s %8s %7s %6s  %s\n' "$label" "$(show "$value") $unit" \
            "${baseline:+$(show "$baseline") $unit}" "$(show "$ratio")" "$target" "$verdict" "$note"
    done
    printf '\nsuite time %ss; results in %s\n' "$(( $(date +%s) - SUITE_START ))" "${RESULTS#$ROOT/}/latest.json"
}

# ---- build ---------------------------------------------------------------------------------------
build() {
    log "building pmfview and pmfc (Release) in ${BUILD#$ROOT/}"
    mkdir -p "$BUILD"
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DPMFVIEW_TESTS=OFF >"$BUILD/build.log" 2>&1 &&
        cmake --build "$BUILD" -j"$JOBS" --target pmfview pmfc >>"$BUILD/build.log" 2>&1 ||
        log "main build failed (see ${BUILD#$ROOT/}/build.log); figures that need it will be n/a"
    log "building the baselines in ${TOOLS#$ROOT/}"
    cmake -S "$ROOT/bench" -B "$TOOLS" -DCMAKE_BUILD_TYPE=Release >"$TOOLS.log" 2>&1 &&
        cmake --build "$TOOLS" -j"$JOBS" >>"$TOOLS.log" 2>&1 ||
        log "baseline build failed (see ${TOOLS#$ROOT/}.log); figures that need it will be n/a"
}

# ---- maps ------------------------------------------------------------------------------------------
# map GRID: sets MAP to the cached map's path (generating it first when needed); empty on failure.
# The generation log (pmfc's per-stage timings) is kept next to it as .log.
map() {
    local grid=$1 version file
    MAP=""
    MAP_FAILURE=${MAP_FAILED[$grid]:-pmfc did not build}
    [ -x "$PMFC" ] && [ -z "${MAP_FAILED[$grid]:-}" ] || return 0
    version=$("$PMFC" --version 2>/dev/null | tr -c 'A-Za-z0-9.\n' '_')
    file="$MAPS/city-$grid-s$SEED-$version.pmf"
    if [ "$REGENERATE" = 1 ] && [ -z "${REGENERATED[$grid]:-}" ]; then
        rm -f "$file"
    fi
    if [ ! -s "$file" ]; then
        mkdir -p "$MAPS"
        log "generating $grid (seed $SEED): pmfc --generate city --chunks $grid --seed $SEED"
        if ! "$TOOLS/bench_run" -o "$file.run" timeout "$GEN_TIMEOUT" "$PMFC" --generate city --chunks "$grid" \
            --seed "$SEED" --time 0 -o "$file" 2>"$file.log"; then
            if [ "$(field "$file.run" "exit ")" = 124 ]; then
                MAP_FAILURE="pmfc --generate $grid took over $GEN_TIMEOUT s (BENCH_GEN_TIMEOUT)"
            else
                MAP_FAILURE="pmfc --generate $grid failed: $(tail -n 1 "$file.log" | cut -c1-100)"
            fi
            log "$MAP_FAILURE"
            MAP_FAILED[$grid]=$MAP_FAILURE
            rm -f "$file"
            return 0
        fi
        REGENERATED[$grid]=1
    fi
    MAP=$file
}
declare -A REGENERATED MAP_FAILED

# Fly paths over a generated city: along the street at world x = -16 (a chunk border next to the
# centre chunk), EYE metres up, looking along -Z. Assumes the generator's centre chunk (X/2, 0, Z/2).
# write_path FILE Z_FROM Z_TO YAW_FROM YAW_TO
write_path() {
    printf '# x,y,z,yaw,pitch\n-16,%s,%s,%s,0\n-16,%s,%s,%s,0\n' "$EYE" "$2" "$4" "$EYE" "$3" "$5" >"$1"
}
grid_z() { echo "$1" | awk -Fx '{ print $3 }'; }

# run NAME CMD...: runs CMD under bench_run; stdout+stderr go to $WORK/NAME.out, figures to
# $WORK/NAME.run (wall_s, maxrss_kb, exit). Returns the command's status.
run() {
    local name=$1
    shift
    "$TOOLS/bench_run" -o "$WORK/$name.run" "$@" >"$WORK/$name.out" 2>&1
}
# The reason a run failed: its last output line.
why() { tail -n 1 "$WORK/$1.out" 2>/dev/null | cut -c1-120; }
# summarise NAME N: of runs NAME.1..N, leaves the fastest (wall) as NAME.out / NAME.run and writes
# NAME.best: the minimum wall and CPU times over the runs and how far each spread (max / min - 1).
summarise() {
    local name=$1 n=$2 i
    for i in $(seq "$n"); do
        printf '%s %s %s\n' "$(field "$WORK/$name.$i.run" "wall_s ")" "$(field "$WORK/$name.$i.run" "cpu_s ")" "$i"
    done | sort -g | awk 'NR == 1 { w0 = $1; fastest = $3 } { w1 = $1 } NR == 1 || $2 < c0 { c0 = $2 } NR == 1 || $2 > c1 { c1 = $2 }
        END { printf "wall_min %s\ncpu_min %s\nwall_spread %.6f\ncpu_spread %.6f\nfastest %s\n", w0, c0,
              (w0 > 0 ? w1 / w0 - 1 : 0), (c0 > 0 ? c1 / c0 - 1 : 0), fastest }' >"$WORK/$name.best"
    i=$(field "$WORK/$name.best" "fastest ")
    cp "$WORK/$name.$i.out" "$WORK/$name.out"
    cp "$WORK/$name.$i.run" "$WORK/$name.run"
}

# best_of N NAME CMD...: N runs; leaves the fastest run's files as NAME.* (and NAME.best, see
# summarise); prints its wall.
best_of() {
    local n=$1 name=$2 i
    shift 2
    for i in $(seq "$n"); do
        run "$name.$i" "$@" || { cp "$WORK/$name.$i.out" "$WORK/$name.out"; return 1; }
    done
    summarise "$name" "$n"
    field "$WORK/$name.best" "wall_min "
}

# best_of_pair N A B: runs the commands in the arrays PAIR_A and PAIR_B in turn, N times each (so
# the machine's load falls on both alike), summarised as A and B. Fails naming the one that failed.
best_of_pair() {
    local n=$1 a=$2 b=$3 i
    for i in $(seq "$n"); do
        run "$a.$i" "${PAIR_A[@]}" || { cp "$WORK/$a.$i.out" "$WORK/$a.out"; echo "$a"; return 1; }
        run "$b.$i" "${PAIR_B[@]}" || { cp "$WORK/$b.$i.out" "$WORK/$b.out"; echo "$b"; return 1; }
    done
    summarise "$a" "$n"
    summarise "$b" "$n"
}
PAIR_A=()
PAIR_B=()

# judge_pair ID LABEL A B TARGET NOTE: a figure measured as A / B, both best_of runs, in wall and
# in CPU time (minimum of the repeats each). Both rows are shown; the target is judged on the
# steadier measure (the smaller spread of A's and B's repeats), and the note says which.
judge_pair() {
    local id=$1 label=$2 a=$3 b=$4 target=$5 note=$6 ws cs judged m aw bw spread
    ws=$(awk -v x="$(field "$WORK/$a.best" "wall_spread ")" -v y="$(field "$WORK/$b.best" "wall_spread ")" \
        'BEGIN { print (x > y ? x : y) }')
    cs=$(awk -v x="$(field "$WORK/$a.best" "cpu_spread ")" -v y="$(field "$WORK/$b.best" "cpu_spread ")" \
        'BEGIN { print (x > y ? x : y) }')
    judged=$(awk -v w="$ws" -v c="$cs" 'BEGIN { print (c <= w ? "cpu" : "wall") }')
    for m in cpu wall; do
        aw=$(field "$WORK/$a.best" "${m}_min ")
        bw=$(field "$WORK/$b.best" "${m}_min ")
        spread=$ws
        [ "$m" = cpu ] && spread=$cs
        spread="spread $(show "$(calc "100 * $spread")")% over the repeats"
        if [ "$m" = "$judged" ]; then
            record "$id" "$label ($m)" "$(calc "$aw")" s "$(calc "$bw")" "$(calc "$aw / $bw")" "$target" \
                "judged on $m time, the steadier ($spread); $note"
        else
            record "${id}_$m" "$label ($m)" "$(calc "$aw")" s "$(calc "$bw")" "$(calc "$aw / $bw")" "" \
                "shown, not judged ($spread)"
        fi
    done
}

# ---- figures -------------------------------------------------------------------------------------
figure_decode() {
    local m bytes failed info lz4
    map "$BIG"
    m=$MAP
    [ -n "$m" ] || { na decode "1 decode: info vs LZ4F only" "no $BIG map: $MAP_FAILURE"; return; }
    log "1 decode: pmfview info vs bench_lz4 on $BIG, $REPEATS times each in turn"
    PAIR_A=("$PMFVIEW" info "$m")
    PAIR_B=("$TOOLS/bench_lz4" "$m")
    if ! failed=$(best_of_pair "$REPEATS" info lz4); then
        na decode "1 decode: info vs LZ4F only" "$failed failed: $(why "$failed")"
        return
    fi
    bytes=$(field "$WORK/lz4.out" "decompressed bytes: ")
    judge_pair decode "1 decode: info vs LZ4F only" info lz4 "<=1.2" \
        "$BIG, $(show "$(calc "$bytes / 1048576")") MiB decompressed"
    info=$(field "$WORK/info.best" "cpu_min ")
    lz4=$(field "$WORK/lz4.best" "cpu_min ")
    record decode_rate "1 decode throughput (cpu)" "$(calc "$bytes / 1048576 / $info")" "MiB/s" \
        "$(calc "$bytes / 1048576 / $lz4")" "$(calc "$lz4 / $info")" "" "decompressed bytes per CPU second"
}

# 2: `pmfview shot` against the floor program (bench_floor: context, one clear, read-back, the
# same PNG writer, same size), whole processes, on the big city and on the feature demo.
# first_frame_row ID LABEL MAP CAMERA
first_frame_row() {
    local id=$1 label=$2 m=$3 cam=$4 failed
    PAIR_A=("$PMFVIEW" shot "$m" -o "$WORK/first.png" --size "$SIZE" --stats ${cam:+--camera "$cam"})
    PAIR_B=("$TOOLS/bench_floor" -o "$WORK/floor.png" --size "$SIZE")
    if ! failed=$(best_of_pair "$REPEATS" "$id" floor_$id); then
        na "$id" "$label" "$failed failed: $(why "$failed")"
        return
    fi
    RENDERER=$(sed -n 's/^renderer: //p' "$WORK/floor_$id.out")
    judge_pair "$id" "$label" "$id" "floor_$id" "<=1.5" \
        "process to PNG on disk; shot: $(field "$WORK/$id.out" "chunks loaded: ") chunks, $(field "$WORK/$id.out" "triangles: ") triangles, first complete frame at $(field "$WORK/$id.out" "process time to first complete frame: ") s"
}

# first_frame_bound ID LABEL MAP CAMERA FLOOR: the least figure 2 could show on this view.
# bench_draw --png does the floor's work plus drawing the view's triangles in one call with the
# simplest shader, the map read into its buffers beforehand; its CPU past that reading, against
# the CPU of the floor runs FLOOR (CAMERA "start": shot's default camera).
first_frame_bound() {
    local id=$1 label=$2 i best="" cpu floor
    for i in $(seq "$REPEATS"); do
        run "$id.$i" "$TOOLS/bench_draw" "$3" --camera "$4" --png "$WORK/$id.png" --radius "$RADIUS" --size "$SIZE" ||
            { na "$id" "$label" "bench_draw --png failed: $(why "$id.$i")"; return; }
        cpu=$(calc "$(field "$WORK/$id.$i.out" "cpu to the png: ") - $(field "$WORK/$id.$i.out" "cpu before the context: ")")
        best=$(awk -v a="$cpu" -v b="$best" 'BEGIN { print (b == "" || a < b) ? a : b }')
    done
    floor=$(field "$WORK/$5.best" "cpu_min ")
    [ -n "$floor" ] || { na "$id" "$label" "no floor figure"; return; }
    record "$id" "$label (cpu)" "$best" s "$floor" "$(calc "$best / $floor")" "" \
        "bench_draw --png, the map read beforehand and not counted: no first frame of this view can cost less (min of $REPEATS)"
}

figure_first_frame() {
    local m cam demo="$ROOT/assets/feature_demo.pms" dec
    map "$BIG"
    m=$MAP
    cam="-16,$EYE,0,0,0"
    log "2 first frame: pmfview shot vs bench_floor, $REPEATS times each in turn"
    if [ -z "$m" ]; then
        na first_frame "2 first frame vs floor, $BIG" "no $BIG map: $MAP_FAILURE"
    else
        first_frame_row first_frame "2 first frame vs floor, $BIG" "$m" "$cam"
        first_frame_bound first_frame_bound "2 lower bound: floor + the view in one draw, $BIG" "$m" "$cam" \
            floor_first_frame
        if run decode "$TOOLS/bench_decode" "$m" --camera "$cam" --radius "$RADIUS" --size "$SIZE"; then
            dec=$(field "$WORK/decode.out" "decode time: ")
            record first_frame_decode "2 one-thread decode of the view" "$(calc "$dec")" s "" "" "" \
                "bench_decode: the $(field "$WORK/decode.out" "chunks in view: ") chunks shot waits for, all parts (shown: part of shot's work the floor has not)"
        fi
    fi
    if [ -x "$PMFC" ] && [ -f "$demo" ] && "$PMFC" "$demo" -o "$WORK/first_demo.pmf" >"$WORK/first_demo.log" 2>&1; then
        first_frame_row first_frame_demo "2 first frame vs floor, feature_demo" "$WORK/first_demo.pmf" ""
        first_frame_bound first_frame_demo_bound "2 lower bound: floor + the view in one draw, feature_demo" \
            "$WORK/first_demo.pmf" start floor_first_frame_demo
    else
        na first_frame_demo "2 first frame vs floor, feature_demo" "cannot compile assets/feature_demo.pms"
    fi
}

figure_frame_cost() {
    local m path z app base how materials calls splits blend state
    map "$BIG"
    m=$MAP
    [ -n "$m" ] || { na frame_cost "3 frame cost" "no $BIG map: $MAP_FAILURE"; return; }
    path="$WORK/path-draw.txt"
    write_path "$path" 48 -48 0 20
    log "3 frame cost: pmfview shot --frames $FRAMES_DRAW vs bench_draw on $BIG"
    run frames "$PMFVIEW" shot "$m" -o "$WORK/frames.png" --camera "-16,$EYE,48,0,0" --frames "$FRAMES_DRAW" \
        --path "$path" --no-vis --stats ||
        { na frame_cost "3 frame cost" "pmfview shot --frames failed: $(why frames)"; return; }
    run draw "$TOOLS/bench_draw" "$m" --path "$path" --frames "$FRAMES_DRAW" --radius "$RADIUS" --size "$SIZE" ||
        { na frame_cost "3 frame cost" "bench_draw failed: $(why draw)"; return; }
    base=$(field "$WORK/draw.out" "average frame time: ")
    app=$(field "$WORK/frames.out" "render time: average ")
    how="render only"
    if [ -z "$app" ]; then
        app=$(field "$WORK/frames.out" "frames: $FRAMES_DRAW, average frame time: ")
        how="includes streaming updates (no 'render time:' line)"
    fi
    if [ -z "$app" ] || [ -z "$base" ]; then
        na frame_cost "3 frame cost" "no frame time in the output"
    else
        record frame_cost "3 frame time vs one-buffer draw" "$(calc "$app")" ms "$(calc "$base")" \
            "$(calc "$app / $base")" "<=1.1" \
            "$how; --no-vis; baseline $(field "$WORK/draw.out" "triangles per frame: ") tris/frame, app $(field "$WORK/frames.out" "triangles: ") in last frame"
    fi
    # "draw calls" counts the sky's calls too; "world draw calls" only the chunks'.
    calls=$(field "$WORK/frames.out" "world draw calls: ")
    [ -n "$calls" ] || calls=$(field "$WORK/frames.out" "draw calls: ")
    materials=$(field "$WORK/frames.out" "visible materials: ")
    blend=$(field "$WORK/frames.out" "blend splits: ")
    state=$(field "$WORK/frames.out" "state splits: ")
    splits=$(( ${blend:-0} + ${state:-0} ))
    if [ -z "$calls" ]; then
        na draw_calls "3 draw calls vs visible materials" "no 'draw calls:' line in shot --stats"
    elif [ -z "$materials" ]; then
        na draw_calls "3 draw calls vs visible materials" \
            "draw calls $calls (sky included); shot --stats has no 'world draw calls:' / 'visible materials:' lines"
    else
        record draw_calls "3 draw calls vs visible materials" "$calls" "" "$(( materials + splits ))" \
            "$(calc "$calls / ($materials + $splits)")" "<=1" \
            "last frame drawn; baseline = $materials materials + $splits splits (blend ${blend:-?}, state ${state:-?}), $(field "$WORK/frames.out" "shader variants: ") shader variants"
    fi
}

figure_memory() {
    local small huge zs zh path rs rh bpv
    map "$SMALL"
    small=$MAP
    [ -n "$small" ] || { na memory "4 peak RSS, $HUGE vs $SMALL" "no $SMALL map: $MAP_FAILURE"; return; }
    map "$HUGE"
    huge=$MAP
    [ -n "$huge" ] || { na memory "4 peak RSS, $HUGE vs $SMALL" "no $HUGE map: $MAP_FAILURE"; return; }
    # The same path on both maps: across the smaller one.
    zs=$(( ($(grid_z "$SMALL") / 2 - 1) * CHUNK ))
    path="$WORK/path-memory.txt"
    write_path "$path" "$zs" "-$zs" 0 0
    log "4 memory: peak RSS of shot --frames $FRAMES_MEM on $SMALL and $HUGE"
    run mem_small "$PMFVIEW" shot "$small" -o "$WORK/mem_small.png" --camera "-16,$EYE,$zs,0,0" \
        --frames "$FRAMES_MEM" --path "$path" --stats ||
        { na memory "4 peak RSS, $HUGE vs $SMALL" "shot on $SMALL failed: $(why mem_small)"; return; }
    run mem_huge "$PMFVIEW" shot "$huge" -o "$WORK/mem_huge.png" --camera "-16,$EYE,$zs,0,0" \
        --frames "$FRAMES_MEM" --path "$path" --stats ||
        { na memory "4 peak RSS, $HUGE vs $SMALL" "shot on $HUGE failed: $(why mem_huge)"; return; }
    rs=$(field "$WORK/mem_small.run" "maxrss_kb ")
    rh=$(field "$WORK/mem_huge.run" "maxrss_kb ")
    record memory "4 peak RSS, $HUGE vs $SMALL" "$(calc "$rh / 1024")" MiB "$(calc "$rs / 1024")" \
        "$(calc "$rh / $rs")" "<=1.1" "same path, radius $RADIUS"
    bpv=$(field "$WORK/mem_huge.out" "gpu bytes per vertex: ")
    if [ -n "$bpv" ]; then
        record bytes_per_vertex "4 GPU bytes per chunk vertex" "$bpv" B "" "" "<=20" \
            "chunk vertex + index buffers / vertices"
    else
        na bytes_per_vertex "4 GPU bytes per chunk vertex" "shot --stats has no 'gpu bytes per vertex:' line"
    fi
}

# frame_times FILE WHAT: the "median" or "max" of shot --stats' "frame times:" line in FILE.
frame_times() {
    awk -v w="$2" 'index($0, "frame times:") == 1 { if (match($0, w " [0-9.]+")) print substr($0, RSTART + length(w) + 1, RLENGTH - length(w) - 1); exit }' "$1"
}

# 5: the same flight FLY_REPEATS times; the flight whose longest frame is the smallest share of
# its median is the figure (a minimum over repeats, as the timed figures take theirs: a spike
# that does not come back is the shared machine), every flight's ratio in the note.
figure_smoothness() {
    local m z path median max longest i ratio best="" best_ratio="" ratios=""
    map "$BIG"
    m=$MAP
    [ -n "$m" ] || { na smoothness "5 longest frame vs median" "no $BIG map: $MAP_FAILURE"; return; }
    z=$(( ($(grid_z "$BIG") / 2 - 2) * CHUNK ))
    path="$WORK/path-fly.txt"
    write_path "$path" "$z" "-$z" 0 0
    log "5 smoothness: shot --frames $FRAMES_FLY across $BIG ($(( 2 * z / FRAMES_FLY )) m per frame), $FLY_REPEATS flights"
    for i in $(seq "$FLY_REPEATS"); do
        run "fly.$i" "$PMFVIEW" shot "$m" -o "$WORK/fly.png" --camera "-16,$EYE,$z,0,0" --frames "$FRAMES_FLY" \
            --path "$path" --stats ||
            { na smoothness "5 longest frame vs median" "shot --frames failed: $(why "fly.$i")"; return; }
        median=$(frame_times "$WORK/fly.$i.out" median)
        max=$(frame_times "$WORK/fly.$i.out" max)
        if [ -z "$median" ] || [ -z "$max" ]; then
            na smoothness "5 longest frame vs median" "shot --stats has no 'frame times: ... median X ms, max Y ms' line"
            return
        fi
        ratio=$(calc "$max / $median")
        ratios="$ratios${ratios:+, }$(show "$ratio")"
        if [ -z "$best" ] || awk -v a="$ratio" -v b="$best_ratio" 'BEGIN { exit !(a < b) }'; then
            best=$i
            best_ratio=$ratio
        fi
    done
    median=$(frame_times "$WORK/fly.$best.out" median)
    max=$(frame_times "$WORK/fly.$best.out" max)
    longest=$(sed -n 's/^longest frame: //p' "$WORK/fly.$best.out")
    record smoothness "5 longest frame vs median" "$max" ms "$median" "$best_ratio" "<=2" \
        "$FRAMES_FLY frames across $BIG, best of $FLY_REPEATS flights (ratios $ratios)${longest:+; longest $longest}"
}

# compile_row ID LABEL LOG RUN NOTE: the total and per-stage pmfc timings of one compile.
compile_row() {
    local total stages
    total=$(field "$4" "wall_s ")
    stages=$(awk '/^  [a-z\/]+ +[0-9.]+ s$/ && $1 != "total" { printf "%s%s %s", sep, $1, $2; sep = ", " }' "$3")
    [ -n "$stages" ] || stages="no per-stage lines from pmfc"
    record "$1" "$2" "$(calc "$total")" s "" "" "" "$5$stages"
}

# bake_row ID LABEL SOURCE...: pmfc's bake stage for a source with its default lighting (every
# lighting feature) beside the same bake with direct light only (--bounce 0), CPU-bound and summed
# over the tiles a city bakes side by side (pmfc's per-stage line), each the best of 3 runs; target:
# at most 4 times the direct-only bake.
bake_stage() { awk '$1 == "bake" && $3 == "s" { print $2; exit }' "$1"; }
bake_row() {
    local id=$1 label=$2 which best direct="" full="" t i
    shift 2
    for which in direct full; do
        best=""
        for i in 1 2 3; do
            if [ "$which" = direct ]; then
                run "$id.$which" "$PMFC" "$@" --bounce 0 -o "$WORK/$id.pmf" --time 0 || { na "$id" "$label" "pmfc failed: $(why "$id.$which")"; return; }
            else
                run "$id.$which" "$PMFC" "$@" -o "$WORK/$id.pmf" --time 0 || { na "$id" "$label" "pmfc failed: $(why "$id.$which")"; return; }
            fi
            t=$(bake_stage "$WORK/$id.$which.out")
            [ -n "$t" ] || { na "$id" "$label" "no bake line in pmfc's output"; return; }
            if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; fi
        done
        if [ "$which" = direct ]; then direct=$best; else full=$best; fi
    done
    record "$id" "$label" "$full" s "$direct" "$(calc "$full / ($direct > 0 ? $direct : 1e-9)")" "<=4" \
        "bake stage with bounced light beside --bounce 0 (best of 3 each)"
}

# compile_memory ID LABEL MAP: the peak RSS of the map's generation against what pmfc may use:
# 256 MiB + a quarter of the output (it streams chunks to disk as tiles finish).
compile_memory() {
    local rss size allowed
    rss=$(field "$3.run" "maxrss_kb ")
    [ -n "$rss" ] || { na "$1" "$2" "no peak RSS recorded for ${3##*/}"; return; }
    size=$(stat -c %s "$3")
    allowed=$(calc "256 + 0.25 * $size / 1048576")
    record "$1" "$2" "$(calc "$rss / 1024")" MiB "$allowed" "$(calc "$rss / 1024 / $allowed")" "<=1" \
        "baseline = 256 MiB + 0.25 x the $(show "$(calc "$size / 1048576")") MiB output"
}

# threads_memory ID LABEL THREADS: pmfc --generate $BIG with --threads THREADS, its peak RSS
# against the same allowance: pmfc's memory must not grow with the machine's cores (issue 21).
threads_memory() {
    local out="$WORK/$1.pmf"
    log "6 memory: pmfc --generate city --chunks $BIG --threads $3"
    run "$1" "$PMFC" --generate city --chunks "$BIG" --seed "$SEED" --time 0 --threads "$3" -o "$out" ||
        { na "$1" "$2" "pmfc failed: $(why "$1")"; return; }
    cp "$WORK/$1.run" "$out.run"
    compile_memory "$1" "$2" "$out"
    rm -f "$out" "$out.run"
}

figure_compiler() {
    local demo="$ROOT/assets/feature_demo.pms" m
    if [ ! -x "$PMFC" ]; then
        na compile_demo "6 pmfc feature_demo" "pmfc did not build"
    elif [ ! -f "$demo" ]; then
        na compile_demo "6 pmfc feature_demo" "assets/feature_demo.pms missing"
    else
        log "6 compiler: pmfc assets/feature_demo.pms"
        if run compile_demo "$PMFC" "$demo" -o "$WORK/feature_demo.pmf" --time 0; then
            compile_row compile_demo "6 pmfc feature_demo" "$WORK/compile_demo.out" "$WORK/compile_demo.run" ""
        else
            na compile_demo "6 pmfc feature_demo" "pmfc failed: $(why compile_demo)"
        fi
    fi
    map "$BIG"
    m=$MAP
    if [ -z "$m" ]; then
        na compile_big "6 pmfc --generate $BIG" "$MAP_FAILURE"
    elif [ -n "${REGENERATED[$BIG]:-}" ]; then
        compile_row compile_big "6 pmfc --generate $BIG" "$m.log" "$m.run" ""
    else
        compile_row compile_big "6 pmfc --generate $BIG" "$m.log" "$m.run" \
            "cached map, generated $(date -u -r "$m" +%Y-%m-%dT%H:%MZ) (--regenerate to redo); "
    fi
    if [ -x "$PMFC" ]; then
        log "6 bake: pmfc --generate city --chunks $BIG lit fully and with direct light only"
        bake_row bake_big "6 pmfc bake $BIG vs direct only" --generate city --chunks "$BIG" --seed "$SEED"
    fi
    [ -z "$m" ] || compile_memory compile_big_rss "6 pmfc --generate $BIG peak RSS" "$m"
    if [ -x "$PMFC" ]; then
        threads_memory compile_big_rss_t2 "6 pmfc --generate $BIG peak RSS, 2 threads" 2
        threads_memory compile_big_rss_t16 "6 pmfc --generate $BIG peak RSS, 16 threads" 16
    fi
    map "$COMPILE"
    m=$MAP
    if [ -z "$m" ]; then
        na compile_largest "6 pmfc --generate $COMPILE" "$MAP_FAILURE"
        na compile_largest_rss "6 pmfc --generate $COMPILE peak RSS" "$MAP_FAILURE"
        return
    fi
    if [ -n "${REGENERATED[$COMPILE]:-}" ]; then
        compile_row compile_largest "6 pmfc --generate $COMPILE" "$m.log" "$m.run" ""
    else
        compile_row compile_largest "6 pmfc --generate $COMPILE" "$m.log" "$m.run" \
            "cached map, generated $(date -u -r "$m" +%Y-%m-%dT%H:%MZ) (--regenerate to redo); "
    fi
    compile_memory compile_largest_rss "6 pmfc --generate $COMPILE peak RSS" "$m"
}

# 7: real scale (issue 27): the largest shared RMF (../shared/data/rmf and goldsrc) and a
# generated 10,000-face indoor map (bench/gen_rooms_map.py: two storeys of rooms with doorways)
# compiled whole, best of 3: per 1000 faces (target 1 s, so 10,000 faces in 10 s on 2 cores), the
# visibility stage per 1000 faces (target 2 s), each stage in the note, peak RSS, and the bake
# with every feature against direct light only.
stage_note() {   # the stage times pmfc printed, one line
    awk '/^  [a-z\/]+ +[0-9.]+ s$/ && $1 != "total" { printf "%s%s %s s", (n++ ? ", " : ""), $1, $2 }' "$1"
}
stage_time() {   # stage_time OUT STAGE: its seconds
    awk -v stage="$2" '$1 == stage && $3 == "s" { print $2; exit }' "$1"
}
compile_scale() {   # compile_scale ID LABEL SOURCE: the per-1000-faces rows of one map
    local id=$1 label=$2 src=$3 faces wall rss vis
    if ! wall=$(best_of 3 "$id" "$PMFC" "$src" -o "$WORK/$id.pmf" --time 0); then
        na "$id" "$label per 1000 faces" "pmfc failed: $(why "$id")"
        return 1
    fi
    faces=$(grep -oE '[0-9]+ faces' "$WORK/$id.out" | head -n 1 | awk '{ print $1 }')
    if [ -z "$faces" ] || [ "$faces" -eq 0 ]; then
        na "$id" "$label per 1000 faces" "no face count in pmfc's output"
        return 1
    fi
    vis=$(stage_time "$WORK/$id.out" visibility)
    rss=$(field "$WORK/$id.run" "maxrss_kb ")
    record "$id" "$label per 1000 faces" "$(calc "$wall / $faces * 1000")" s "" "" "<=1" \
        "$(basename "$src"): $faces faces in $(show "$wall") s (best of 3, wall): $(stage_note "$WORK/$id.out")"
    record "${id}_vis" "$label visibility per 1000 faces" "$(calc "${vis:-0} / $faces * 1000")" s "" "" "<=2" \
        "$(show "${vis:-0}") s of visibility"
    record "${id}_memory" "$label peak RSS" "$(calc "$rss / 1024")" MiB "" "" "<=1024" "$(basename "$src")"
}
figure_rmf() {
    local rmf rooms="$WORK/rooms10k.map"
    rmf=$(ls -S "$ROOT"/../shared/data/rmf/*.rmf "$ROOT"/../shared/data/goldsrc/*.rmf 2>/dev/null | head -n 1)
    if [ ! -x "$PMFC" ]; then
        na rmf_compile "7 pmfc RMF per 1000 faces" "pmfc did not build"
        return
    fi
    if [ -z "$rmf" ]; then
        na rmf_compile "7 pmfc RMF per 1000 faces" "no RMF in ../shared/data"
    else
        log "7 RMF: pmfc $(basename "$rmf")"
        if compile_scale rmf_compile "7 pmfc RMF" "$rmf"; then
            log "7 bake: pmfc $(basename "$rmf") lit fully and with direct light only"
            bake_row rmf_bake "7 pmfc RMF bake vs direct only" "$rmf"
        fi
    fi
    python3 "$ROOT/bench/gen_rooms_map.py" "$rooms" 10000
    log "7 generated: pmfc on a 10,000-face map of rooms"
    compile_scale rooms_compile "7 pmfc 10k-face rooms" "$rooms"
}

# 8: frames on a GPU (issue 21): FRAMES_FLY frames across $BIG at 1280x720, the render time against
# bench_draw's on the same path (target 1.2) and the longest frame against the median (target 2:
# uploads must not stall a frame). n/a where the renderer is software (llvmpipe): there figures 3
# and 5 measure the same things.
figure_gpu() {
    local m z path renderer render draw median max
    map "$BIG"
    m=$MAP
    if [ -z "$m" ]; then
        na gpu_render "8 GPU render vs bench_draw" "no $BIG map: $MAP_FAILURE"
        na gpu_smooth "8 GPU longest frame vs median" "no $BIG map: $MAP_FAILURE"
        return
    fi
    run gpu_probe "$PMFVIEW" shot "$m" -o "$WORK/gpu-probe.png" --size 16x16 --stats
    renderer=$(sed -n 's/^draw path: .*(OpenGL [0-9.]*, \(.*\))$/\1/p' "$WORK/gpu_probe.out")
    case "$renderer" in
    llvmpipe*|softpipe*|*swrast*|"")
        na gpu_render "8 GPU render vs bench_draw" "no GPU (renderer: ${renderer:-none}); scripts/gpu-check.sh on one"
        na gpu_smooth "8 GPU longest frame vs median" "no GPU (renderer: ${renderer:-none})"
        return ;;
    esac
    z=$(( ($(grid_z "$BIG") / 2 - 2) * CHUNK ))
    path="$WORK/path-gpu.txt"
    write_path "$path" "$z" "-$z" 0 0
    log "8 GPU: shot --frames $FRAMES_FLY across $BIG on $renderer, and bench_draw on the same path"
    run gpu_fly "$PMFVIEW" shot "$m" -o "$WORK/gpu-fly.png" --camera "-16,$EYE,$z,0,0" --frames "$FRAMES_FLY" \
        --path "$path" --stats ||
        { na gpu_render "8 GPU render vs bench_draw" "shot --frames failed: $(why gpu_fly)"; return; }
    render=$(field "$WORK/gpu_fly.out" "render time: average ")
    median=$(frame_times "$WORK/gpu_fly.out" median)
    max=$(frame_times "$WORK/gpu_fly.out" max)
    if run gpu_draw "$TOOLS/bench_draw" "$m" --path "$path" --frames "$FRAMES_FLY" --radius "$RADIUS" --size "$SIZE"; then
        draw=$(field "$WORK/gpu_draw.out" "average frame time: ")
        record gpu_render "8 GPU render vs bench_draw" "$render" ms "$draw" "$(calc "$render / $draw")" "<=1.2" \
            "$renderer, $SIZE, $FRAMES_FLY frames across $BIG"
    else
        na gpu_render "8 GPU render vs bench_draw" "bench_draw failed: $(why gpu_draw)"
    fi
    record gpu_smooth "8 GPU longest frame vs median" "$max" ms "$median" "$(calc "$max / $median")" "<=2" \
        "$renderer, the same flight"
}

# 9: editor maps of the other formats (issue 24, 25): a generated 1,257-brush Quake .map compiled
# (target <= 10 s on 2 cores) and the shared hlrad-lit BSP converted, per 3 MB of file (target
# <= 5 s).
figure_formats() {
    local map="$WORK/quake1257.map" wall bsp="$ROOT/../shared/data/goldsrc/foutpost.bsp" size
    if [ ! -x "$PMFC" ]; then
        na map_compile "9 pmfc 1,257-brush Quake .map" "pmfc did not build"
        na bsp_convert "9 pmfc BSP per 3 MB" "pmfc did not build"
        return
    fi
    python3 "$ROOT/bench/gen_quake_map.py" "$map" 1257
    log "9 .map: pmfc on a generated 1,257-brush Quake map"
    if wall=$(best_of 3 map_compile "$PMFC" "$map" -o "$WORK/quake1257.pmf" --time 0); then
        record map_compile "9 pmfc 1,257-brush Quake .map" "$wall" s "" "" "<=10" "best of 3, wall; $(grep -o '[0-9]* brushes drawn' "$WORK/map_compile.out")"
    else
        na map_compile "9 pmfc 1,257-brush Quake .map" "pmfc failed: $(why map_compile)"
    fi
    if [ ! -f "$bsp" ]; then
        na bsp_convert "9 pmfc BSP per 3 MB" "no ../shared/data/goldsrc/foutpost.bsp"
        return
    fi
    size=$(stat -c %s "$bsp")
    log "9 BSP: pmfc $(basename "$bsp")"
    if wall=$(best_of 3 bsp_convert "$PMFC" "$bsp" -o "$WORK/bsp.pmf" --time 0); then
        record bsp_convert "9 pmfc BSP per 3 MB" "$(calc "$wall / $size * 3 * 1048576")" s "" "" "<=5" \
            "$(basename "$bsp"): $size bytes in $(show "$wall") s (best of 3, wall)"
    else
        na bsp_convert "9 pmfc BSP per 3 MB" "pmfc failed: $(why bsp_convert)"
    fi
}

# 10: the shared LibreQuake levels compiled as the game does (issue 39): pmfc with the light options
# of the game's flags against ericw-tools' qbsp + vis + light with those flags
# (scripts/ericw_compile.sh --time), in turn on the same cores in this run; target pmfc <= 0.25 x
# ericw-tools' total, judged on wall seconds (the issue's measure). A second row per level gives the
# CPU seconds (all threads, shown, not judged): steadier where other work shares the cores. One run
# each (light takes minutes), the quickest level first; --quick: lqdm10 alone. Each level's line is
# logged as it is measured.
figure_quake_peer() {
    local lq="$ROOT/../shared/data/lq" levels="lqdm10 lq_e1m2 lqdm5 lq_e1m7" label name map flags times pw ew pc ec
    [ "$QUICK" = 1 ] && levels="lqdm10"
    for name in $levels; do
        map="$lq/$name.map"
        label="10 pmfc vs ericw-tools, $name"
        if [ ! -x "$PMFC" ] || [ ! -f "$map" ]; then
            na "quake_peer_$name" "$label" "no pmfc or no $map"
            continue
        fi
        if ! sh "$ROOT/../shared/tools/ericw/build.sh" "${XDG_CACHE_HOME:-$HOME/.cache}/ericw-tools" \
            >"$WORK/ericw_build_$name.out" 2>&1; then
            na "quake_peer_$name" "$label" "ericw-tools: $(tail -n 1 "$WORK/ericw_build_$name.out")"
            continue
        fi
        flags=$(sh "$ROOT/scripts/ericw_compile.sh" "$map" --pmfc-flags)
        log "10 $name: pmfc $flags, then ericw-tools (qbsp, vis, light)"
        # shellcheck disable=SC2206
        PAIR_A=("$PMFC" "$map" -o "$WORK/$name.pmf" --time 0 $flags)
        PAIR_B=(sh "$ROOT/scripts/ericw_compile.sh" "$map" --time)
        if ! best_of_pair 1 "pmfc_$name" "ericw_$name" >/dev/null; then
            na "quake_peer_$name" "$label" "a compile failed"
            continue
        fi
        pw=$(field "$WORK/pmfc_$name.best" "wall_min ")
        ew=$(field "$WORK/ericw_$name.best" "wall_min ")
        pc=$(field "$WORK/pmfc_$name.best" "cpu_min ")
        ec=$(field "$WORK/ericw_$name.best" "cpu_min ")
        times=$(grep -o 'qbsp.*' "$WORK/ericw_$name.out" | tail -n 1)
        log "10 $name: pmfc $(show "$pw") s, ericw-tools $(show "$ew") s ($times), ratio $(show "$(calc "$pw / $ew")") (target <= 0.25); CPU $(show "$pc") / $(show "$ec") s = $(show "$(calc "$pc / $ec")")"
        record "quake_peer_$name" "$label (wall)" "$(calc "$pw")" s "$(calc "$ew")" \
            "$(calc "$pw / $ew")" "<=0.25" "pmfc $flags; ericw-tools $times (s; Debian's embree, about half its releases' speed)"
        record "quake_peer_${name}_cpu" "$label (cpu)" "$(calc "$pc")" s "$(calc "$ec")" "$(calc "$pc / $ec")" "" \
            "CPU seconds, all threads: shown, not judged"
    done
}

# 11: relight (issue 40): each shared LibreQuake level (BENCH_RELIGHT_MAPS; --quick: lqdm10) is
# compiled in full with --cache, then takes four light-only edits in a row (bench/relight_edit.py:
# the first light moved 64 units, recoloured, a light added beside it, the last light deleted); each
# edit is relit from the cache the step before left and, in turn in the same run, compiled in full
# from the same edited source (BENCH_RELIGHT_REPEATS times each, the minimum taken; the cache put
# back before each relight). Target: the relight's wall time <= 1/8 of the full compile's (issue 40
# point 6); CPU seconds in the note. pmfc writes the relit map in one stage; the window's
# compile-on-save (relight_window: scripts/relight_latency.sh under Xvfb, the map opened, a light
# moved 64 units and saved) shows a first picture with the new direct light (target <= 1 s, issue
# 40 point 5) and then the final one, each timed from the save. The memory kept for relighting
# (the cache file, which the relight reads whole into memory) against the viewer's peak RSS with the
# map open (`pmfview shot` of the full compile at its start camera): target <= 1.5.
relight_step() {   # relight_step NAME EDIT WHAT FLAGS...: one edit relit and compiled in full
    local name=$1 edit=$2 what=$3 dir="$WORK/relight_$1" i id label rw fw rc fc line same
    shift 3
    id="relight_${name}_$edit"
    label="11 relight $name: $what"
    if ! python3 "$ROOT/bench/relight_edit.py" "$dir/source.map" "$dir/edited.map" "$edit" >"$WORK/$id.edit.out" 2>&1; then
        na "$id" "$label" "$(tail -n 1 "$WORK/$id.edit.out")"
        return 1
    fi
    mv "$dir/edited.map" "$dir/source.map"
    rm -rf "$dir/before"
    cp -a "$dir/cache" "$dir/before"
    for i in $(seq "$RELIGHT_REPEATS"); do
        rm -rf "$dir/cache"
        cp -a "$dir/before" "$dir/cache"
        run "$id.relit.$i" "$PMFC" "$dir/source.map" -o "$dir/relit.pmf" --time 0 --cache "$dir/cache" "$@" ||
            { na "$id" "$label" "relight failed: $(why "$id.relit.$i")"; return 1; }
        run "$id.full.$i" "$PMFC" "$dir/source.map" -o "$dir/full.pmf" --time 0 "$@" ||
            { na "$id" "$label" "full compile failed: $(why "$id.full.$i")"; return 1; }
    done
    summarise "$id.relit" "$RELIGHT_REPEATS"
    summarise "$id.full" "$RELIGHT_REPEATS"
    line=$(grep -o 'relit: .*' "$WORK/$id.relit.out" | head -n 1)
    if [ -z "$line" ]; then
        na "$id" "$label" "compiled in full, not relit: $(grep -i 'compiling in full\|cache' "$WORK/$id.relit.out" | head -n 1 | cut -c1-100)"
        return 0
    fi
    rw=$(field "$WORK/$id.relit.best" "wall_min ")
    fw=$(field "$WORK/$id.full.best" "wall_min ")
    rc=$(field "$WORK/$id.relit.best" "cpu_min ")
    fc=$(field "$WORK/$id.full.best" "cpu_min ")
    same="NOT byte-identical to the full compile"
    cmp -s "$dir/relit.pmf" "$dir/full.pmf" && same="byte-identical to the full compile"
    log "11 $name, $what: relit in $(show "$rw") s, full $(show "$fw") s: $(show "$(calc "$rw / $fw")") (target <= 0.125); $line"
    record "$id" "$label (wall)" "$(calc "$rw")" s "$(calc "$fw")" "$(calc "$rw / $fw")" "<=0.125" \
        "time to the written map, first = final picture (one stage); cpu $(show "$rc") / $(show "$fc") s = $(show "$(calc "$rc / $fc")"); $line; $same; best of $RELIGHT_REPEATS"
}
relight_memory() {   # relight_memory NAME: the cache against the viewer's peak RSS on the map
    local name=$1 dir="$WORK/relight_$1" cache rss
    cache=$(du -sk "$dir/cache" | awk '{ print $1 }')
    if ! run "relight_${name}_shot" "$PMFVIEW" shot "$dir/first.pmf" -o "$WORK/relight_$name.png" --size "$SIZE" --stats; then
        na "relight_${name}_memory" "11 relight $name: cache vs viewer RSS" "shot failed: $(why "relight_${name}_shot")"
        return
    fi
    rss=$(field "$WORK/relight_${name}_shot.run" "maxrss_kb ")
    record "relight_${name}_memory" "11 relight $name: cache vs viewer RSS" "$(calc "$cache / 1024")" MiB \
        "$(calc "$rss / 1024")" "$(calc "$cache / $rss")" "<=1.5" \
        "the cache file (read whole by a relight) against pmfview shot's peak RSS at the start camera"
}
relight_window() {   # relight_window NAME MAP GAME_DIR: the window's compile-on-save after a light moved
    local name=$1 out="$WORK/relight_$1_window.out" first final rc
    bash "$ROOT/scripts/relight_latency.sh" "$PMFVIEW" "$2" "$3" move >"$out" 2>&1
    rc=$?
    first=$(field "$out" "first ")
    final=$(field "$out" "final ")
    if [ $rc -ne 0 ] || [ -z "$first" ]; then
        na "relight_${name}_window" "11 relight $name: save to picture (window)" \
            "$([ $rc -eq 77 ] && echo "no Xvfb" || echo "relight_latency.sh failed: $(tail -n 1 "$out" | cut -c1-100)")"
        return
    fi
    log "11 $name, window: the first picture $(show "$first") s after the save, the final one $(show "$final") s"
    record "relight_${name}_window_first" "11 relight $name: save to first picture" "$first" s "" "" "<=1" \
        "the window's compile-on-save (scripts/relight_latency.sh, a light moved 64 units): the new direct light, the bounces as they were; $(grep '^first' "$out" | cut -d: -f2- | cut -c1-80)"
    record "relight_${name}_window_final" "11 relight $name: save to final picture" "$final" s "" "" "" \
        "the same save: bounced again, equal to a full compile; $(grep '^final' "$out" | cut -d: -f2- | cut -c1-80)"
}
figure_relight() {
    local lq="$ROOT/../shared/data/lq" name map dir flags edit edits="move:a light moved 64 units,recolour:a light recoloured,add:a light added,delete:a light deleted" e
    for name in $RELIGHT_MAPS; do
        map="$lq/$name.map"
        dir="$WORK/relight_$name"
        if [ ! -x "$PMFC" ] || [ ! -f "$map" ]; then
            na "relight_$name" "11 relight $name" "no pmfc or no $map"
            continue
        fi
        flags="$(sh "$ROOT/scripts/ericw_compile.sh" "$map" --pmfc-flags) --game $lq"
        rm -rf "$dir"
        mkdir -p "$dir"
        cp "$map" "$dir/source.map"
        log "11 $name: pmfc $flags --cache, then four light edits, each relit and compiled in full"
        # shellcheck disable=SC2086
        if ! run "relight_${name}_first" "$PMFC" "$dir/source.map" -o "$dir/first.pmf" --time 0 --cache "$dir/cache" $flags; then
            na "relight_$name" "11 relight $name" "the first compile failed: $(why "relight_${name}_first")"
            continue
        fi
        IFS=',' read -ra e <<<"$edits"
        for edit in "${e[@]}"; do
            # shellcheck disable=SC2086
            relight_step "$name" "${edit%%:*}" "${edit#*:}" $flags || break
        done
        relight_memory "$name"
        [ -x "$PMFVIEW" ] && relight_window "$name" "$map" "$lq"
    done
}

# ---- main ----------------------------------------------------------------------------------------
mkdir -p "$BUILD" "$WORK"
build
if [ ! -x "$TOOLS/bench_run" ]; then
    log "bench_run did not build; nothing can be measured"
    exit 3
fi
[ -x "$PMFVIEW" ] || log "pmfview did not build"
wants 1 && figure_decode
wants 2 && figure_first_frame
wants 3 && figure_frame_cost
wants 4 && figure_memory
wants 5 && figure_smoothness
wants 6 && figure_compiler
wants 7 && figure_rmf
wants 8 && figure_gpu
wants 9 && figure_formats
wants 10 && figure_quake_peer
wants 11 && figure_relight
write_json
print_table
