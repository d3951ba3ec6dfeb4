#!/bin/bash
# hostile_test.sh CASE PMFVIEW PMFC PEAK_RSS HOSTILE_MAPS WORKDIR MAX_RSS_KIB PNG_PROBE [BUDGET_SLACK_KIB]
#
# Maps that attack the viewer (issue 11): a file truncated while shot flies across it, and
# maps whose few bytes ask for far more memory than they are worth. Every case checks the
# exit code, the one clean stderr line and, through peak_rss (getrusage of the child), that
# peak RSS stayed under MAX_RSS_KIB.
set -u
CASE=$1 PMFVIEW=$2 PMFC=$3 PEAK=$4 MAKEMAPS=$5 WORK=$6 MAX_RSS=$7 PROBE=$8
# what a process may hold beyond --memory (the GL context, the program): 64 MiB (issue 22)
SLACK=${9:-65536}

fail() { echo "FAIL ($CASE): $*" >&2; [ -f "$WORK/err" ] && sed 's/^/  stderr: /' "$WORK/err" >&2; exit 1; }
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp:print_suppressions=0"
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
cd "$WORK" || exit 1

# one_line FILE: exactly one line, starting "pmfview: ", no control bytes but the newline
one_line() {
    [ "$(wc -l <"$1")" -eq 1 ] || return 1
    grep -q '^pmfview: ' "$1" || return 1
    ! LC_ALL=C grep -q '[[:cntrl:]]' "$1"
}

# run_rss WANT_EXIT ARGS...: runs pmfview under peak_rss; checks exit and the RSS ceiling
run_rss() {
    local want=$1; shift
    "$PEAK" rss "$PMFVIEW" "$@" >out 2>err || fail "peak_rss failed"
    local status rss
    status=$(sed -n 1p rss); rss=$(sed -n 's/^peak_rss_kib //p' rss)
    echo "$CASE: pmfview $*: $status, peak RSS $((rss / 1024)) MiB"
    [ "$status" = "exit $want" ] || fail "pmfview $*: $status, want exit $want"
    [ "$rss" -le "$MAX_RSS" ] || fail "pmfview $*: peak RSS $rss KiB is over $MAX_RSS KiB"
}

case $CASE in
truncate_race)
    # A city flown across at radius 2 keeps loading chunks; the file is cut to a quarter
    # while it flies. Several runs, cut at different moments: always exit 2, one line naming
    # a chunk and the shrink, never a signal.
    "$PMFC" --generate city --chunks 12x1x12 --seed 3 -o city.pmf --quiet || fail "pmfc"
    size=$(stat -c %s city.pmf)
    # 20 laps of a square over the grid in 20000 frames: a new chunk every ~60 frames
    for lap in $(seq 20); do
        printf '%s\n' "-170,30,-170,45,-10" "170,30,170,225,-10" "-170,30,170,135,-10" "170,30,-170,315,-10"
    done >path.txt
    midflight=0
    for delay in 1 2 3 4; do
        cp city.pmf race.pmf
        "$PMFVIEW" shot race.pmf -o race.png --size 160x90 --radius 2 --frames 20000 --path path.txt >out 2>err &
        pid=$!
        sleep "$delay"
        truncate -s $((size / 4)) race.pmf
        wait $pid
        rc=$?
        [ $rc -eq 2 ] || fail "cut after ${delay} s: exit $rc, want 2"
        one_line err || fail "cut after ${delay} s: want one clean 'pmfview:' line"
        grep -q "^pmfview: race.pmf: " err || fail "cut after ${delay} s: the line does not name the file"
        # cut before the open finished (slow start): the framing error is the usual one
        grep -Eq "^pmfview: race.pmf: level 0 chunk \([0-9]+,0,[0-9]+\) [a-z]+ data, byte [0-9]+: the file shrank while open" err &&
            midflight=$((midflight + 1))
        echo "cut after ${delay} s: $(cat err)"
    done
    [ "$midflight" -ge 2 ] || fail "only $midflight of 4 cuts landed while chunks were streaming"
    rm -f race.png ;;
empty_cubes)
    # 2^22 empty cubes per chunk: ~18 KB stored each, ~870 MB decoded. info refuses (exit 2,
    # naming the budget and the chunk), shot draws without them (exit 0, one warning).
    "$PMFC" --generate city --chunks 3x1x3 --seed 1 -o city.pmf --quiet || fail "pmfc"
    "$MAKEMAPS" cubes city.pmf cubes.pmf || fail "hostile_maps"
    [ "$(stat -c %s cubes.pmf)" -lt 300000 ] || fail "the repro is not small"
    for json in "" --json; do
        run_rss 2 info cubes.pmf $json
        one_line err || fail "info $json: want one clean line"
        grep -Eq "^pmfview: cubes.pmf: level 0 chunk \(0,0,0\) common data, byte 15: 4194304 cubes need [0-9]+ MiB, more than the memory budget leaves \([0-9]+ of [0-9]+ MiB in use; see --memory\)$" err ||
            fail "info $json: the line does not name the chunk and the budget"
        [ ! -s out ] || fail "info $json: wrote to stdout"
    done
    run_rss 0 shot cubes.pmf -o cubes.png --size 64x64
    one_line err && grep -q "^pmfview: warning: cubes.pmf: level 0 chunk ([0-9],0,[0-9]) common data, byte 15: 4194304 cubes need .* memory budget.*: not drawn" err ||
        fail "shot: want one warning naming a chunk and the budget"
    [ -s cubes.png ] || fail "shot wrote no PNG"
    # a budget too small for the map's own level data is refused, not a crash
    "$PMFVIEW" info cubes.pmf --memory 32 >out 2>err; [ $? -eq 1 ] || fail "--memory 32: want usage error"
    "$PMFVIEW" shot cubes.pmf -o x.png --memory lots >out 2>err; [ $? -eq 1 ] || fail "--memory lots: want usage error" ;;
lightmaps)
    # A valid map of 36 lightmaps of 2048^2 (~1.9 MB): more atlas than the budget allows. It
    # renders (exit 0) with the lightmaps lowered, said in one warning, colours unchanged.
    "$MAKEMAPS" lightmaps lm.pmf || fail "hostile_maps"
    run_rss 0 info lm.pmf
    grep -q "^  lightmaps: *36$" out || fail "info: want 36 lightmaps"
    run_rss 0 shot lm.pmf -o lm.png --camera 0,0,4,0,0 --mode lightmap --size 320x180
    one_line err && grep -Eq "^pmfview: warning: lm.pmf: lightmaps lowered to at most [0-9]+ x [0-9]+ luxels: the lightmap atlas is full at [0-9]+ pages of 2048 \(half the memory budget of [0-9]+ MiB; see --memory\)$" err ||
        fail "shot: want one warning naming the lowered lightmaps"
    for xy in "160 90" "40 30" "280 150"; do
        [ "$("$PROBE" pixel lm.png $xy)" = "96 160 48" ] || fail "pixel $xy: $("$PROBE" pixel lm.png $xy), want the lightmap's 96 160 48"
    done ;;
layers)
    # 255 dynamic lights with 1024^2 layers: ~780 MiB of layers in a 3.4 MB file (4.9 GB for a
    # map like it before the budget). info refuses the chunk naming the budget (exit 2); shot
    # draws without it (exit 0, one warning, the background where the wall would be).
    "$MAKEMAPS" layers layers.pmf || fail "hostile_maps"
    run_rss 2 info layers.pmf
    one_line err && grep -q "^pmfview: layers.pmf: level 0 chunk (0,0,0) client data, byte 0: [0-9]* decompressed bytes need [0-9]* MiB, more than the memory budget leaves" err ||
        fail "info: want one line naming the chunk and the budget"
    run_rss 0 shot layers.pmf -o layers.png --camera 0,0,4,0,0 --mode lightmap --size 320x180
    one_line err && grep -q "^pmfview: warning: layers.pmf: level 0 chunk (0,0,0) client data, byte 0: .* not drawn" err ||
        fail "shot: want one warning naming the chunk not drawn"
    [ "$("$PROBE" pixel layers.png 160 90)" = "0 0 0" ] || fail "centre: $("$PROBE" pixel layers.png 160 90), want the background"
    ;;
textures)
    # Two 16384^2 PTF textures in ~6.6 MB (6 GB and 60 s before): decoded a band at a time
    # straight down to 2048^2, one warning, the texels' colours on the wall.
    "$MAKEMAPS" textures tex.pmf || fail "hostile_maps"
    run_rss 0 shot tex.pmf -o tex.png --camera 0,0,4,0,0 --size 320x180
    one_line err && grep -q "^pmfview: warning: map:textures/huge[12]: 16384x16384 texels reduced to 2048x2048 (a texture keeps at most 2048 a side; docs/memory.md)$" err ||
        fail "shot: want one warning naming the reduced texture"
    [ "$("$PROBE" pixel tex.png 80 90)" = "200 100 50" ] || fail "left half: $("$PROBE" pixel tex.png 80 90), want 200 100 50"
    [ "$("$PROBE" pixel tex.png 240 90)" = "40 80 160" ] || fail "right half: $("$PROBE" pixel tex.png 240 90), want 40 80 160" ;;
index_sizes)
    # Every chunk but the centre declares 60 MiB of client data in the chunk index (a lie the
    # decoder finds when it loads them: out of view, they are left out quietly). A flight
    # (shot --path) sizes its GPU buffers ahead from the index: at most a quarter of the
    # budget for the buffers and half for the lit atlas; exit 0, the centre chunk drawn.
    "$PMFC" --generate city --chunks 3x1x3 --seed 1 -o city.pmf --quiet || fail "pmfc"
    "$MAKEMAPS" sizes city.pmf sizes.pmf || fail "hostile_maps"
    printf '0,2,0,0,-89\n0,2,-1,0,-89\n' >path.txt
    run_rss 0 shot sizes.pmf -o sizes.png --size 64x64 --fov 10 --camera 0,2,0,0,-89 --frames 2 --path path.txt \
        --memory 256 --stats
    gpu=$(sed -n 's/^gpu memory: \([0-9]*\)\..*/\1/p' err)
    [ -n "$gpu" ] && [ "$gpu" -le 192 ] && [ "$gpu" -ge 64 ] || fail "gpu memory ${gpu:-?} MiB, want 64 to 64 + 128"
    grep -q "^chunks loaded: 1 " err || fail "want the centre chunk loaded: $(grep '^chunks loaded' err)"
    [ "$("$PROBE" pixel sizes.png 32 32)" != "0 0 0" ] || fail "centre: the background, want the street" ;;
texture_ptf|texture_png|texture_jpeg)
    # One 16384^2 image (1 GiB as RGBA) in the map's archive, under --memory 128: reduced to
    # 2048^2 while it is decoded (PTF a row at a time out of its LZ4F frame, PNG row by row, JPEG
    # scaled by its decoder), never held whole; the process stays within the budget + 64 MiB.
    format=${CASE#texture_}
    "$MAKEMAPS" texture "$format" tex.pmf || fail "hostile_maps"
    MAX_RSS=$((128 * 1024 + SLACK))
    run_rss 0 shot tex.pmf -o tex.png --camera 0,0,4,0,0 --size 160x120 --memory 128
    one_line err && grep -q "^pmfview: warning: map:textures/big: 16384x16384 texels reduced to 2048x2048 (a texture keeps at most 2048 a side; docs/memory.md)$" err ||
        fail "shot: want one warning naming the reduced texture"
    read -r r g b <<<"$("$PROBE" pixel tex.png 80 60)"
    [ $((r > 196 && r < 204 && g > 96 && g < 104 && b > 46 && b < 54)) = 1 ] ||
        fail "the wall: $r $g $b, want 200 100 50 (within 3)" ;;
budget)
    # Every hostile map of this file under --memory 128: whatever it asks for, the process stays
    # within the budget + 64 MiB (the exit codes and lines are the cases' own business).
    "$PMFC" --generate city --chunks 3x1x3 --seed 1 -o city.pmf --quiet || fail "pmfc"
    for kind in lightmaps layers textures; do "$MAKEMAPS" $kind $kind.pmf || fail "hostile_maps $kind"; done
    "$MAKEMAPS" cubes city.pmf cubes.pmf && "$MAKEMAPS" sizes city.pmf sizes.pmf || fail "hostile_maps"
    printf '0,2,0,0,-89\n0,2,-1,0,-89\n' >path.txt
    MAX_RSS=$((128 * 1024 + SLACK))
    run_rss 0 shot lightmaps.pmf -o x.png --camera 0,0,4,0,0 --size 320x180 --memory 128
    run_rss 0 shot layers.pmf -o x.png --camera 0,0,4,0,0 --size 320x180 --memory 128
    run_rss 0 shot textures.pmf -o x.png --camera 0,0,4,0,0 --size 320x180 --memory 128
    run_rss 2 info cubes.pmf --memory 128
    run_rss 0 shot sizes.pmf -o x.png --size 64x64 --fov 10 --camera 0,2,0,0,-89 --frames 2 --path path.txt --memory 128 ;;
texture_interlaced)
    # An interlaced PNG is decoded whole (its passes land in every row): 1 GiB does not fit
    # --memory 128, so the texture is the checkerboard with one line saying why, exit 0.
    "$MAKEMAPS" texture png-interlaced tex.pmf || fail "hostile_maps"
    MAX_RSS=$((128 * 1024 + SLACK))
    run_rss 0 shot tex.pmf -o tex.png --camera 0,0,4,0,0 --size 160x120 --memory 128
    one_line err && grep -q "^pmfview: map:textures/big.png: texture, byte 0: an interlaced PNG of 16384x16384 texels is decoded whole: 1024 MiB, more than the memory budget leaves (see --memory) (using a checkerboard)$" err ||
        fail "shot: want one line naming the texture and the budget"
    [ "$("$PROBE" count tex.png 255 0 255)" -gt 1000 ] || fail "want the checkerboard's magenta on the wall" ;;
*)
    fail "unknown case" ;;
esac
exit 0
