#!/bin/bash
# rmf_cache_test.sh CASE PMFVIEW VIEW_TEST_MAP PNG_PROBE WORKDIR
#
# An RMF given to pmfview goes through the compile cache (conventions §4, src/app/common/map_compile.h).
# PMFVIEW_PMFC points at stub_pmfc.sh: it logs each call, copies a known PMF (view_test_map
# variant 3: a lit wall with start cameras) to the -o path, sleeps when STUB_SLEEP is set, and
# fails with STUB_FAIL on stderr and exit STUB_EXIT (default 2).
set -u
CASE=$1 PMFVIEW=$2 MAKEMAP=$3 PROBE=$4 WORK=$5

fail() { echo "FAIL ($CASE): $*" >&2; for f in out err log; do [ -f "$WORK/$f" ] && sed "s/^/  $f: /" "$WORK/$f" >&2; done; exit 1; }

rm -rf "$WORK" && mkdir -p "$WORK/cache" "$WORK/maps" || exit 1
"$MAKEMAP" "$WORK/known.pmf" 3 || fail "cannot write the known map"
export PMFVIEW_PMFC=$(cd "$(dirname "$0")" && pwd)/stub_pmfc.sh STUB_LOG=$WORK/log STUB_PMF=$WORK/known.pmf XDG_CACHE_HOME=$WORK/cache
unset STUB_SLEEP STUB_FAIL STUB_EXIT STUB_HALF
: >"$WORK/log"

# An RMF as far as content goes: version 2.2 (float), "RMF"; the stub never reads further.
RMF=$WORK/maps/room.rmf
printf '\xcd\xcc\x0c\x40RMF\0\0\0\0\x0aCMapWorld' >"$RMF"

# run ARGS...: pmfview with stdout and stderr captured; RC holds the exit status. Under ASan,
# leak detection is off for `shot` only: Mesa keeps allocations at exit (as tests/render does).
run() {
    local asan=${ASAN_OPTIONS:-}
    [ "$1" = shot ] && asan=${asan:+$asan:}detect_leaks=0
    ASAN_OPTIONS=$asan "$PMFVIEW" "$@" >"$WORK/out" 2>"$WORK/err"; RC=$?
}
calls() { wc -l <"$WORK/log"; }
cache_files() { find "$WORK/cache/pmfview" -maxdepth 1 -name '*.pmf' ! -name '.*' | wc -l; }

case $CASE in
reuse)
    # First open compiles, the second reuses, a touch recompiles and removes the stale file.
    run info "$RMF" --json
    [ $RC -eq 0 ] || fail "first open: exit $RC"
    [ "$(calls)" -eq 1 ] || fail "first open: $(calls) pmfc calls"
    grep -q '"name":	"far"' "$WORK/out" || fail "info did not read the compiled map's cameras"
    [ -s "$WORK/err" ] && fail "a fast compile printed on stderr"
    args=$(cat "$WORK/log")
    case $args in "$RMF -o $WORK/cache/pmfview/."*".tmp.pmf --quiet") ;; *) fail "pmfc arguments: $args" ;; esac
    [ "$(cache_files)" -eq 1 ] || fail "$(cache_files) cache files after the first compile"
    first=$(find "$WORK/cache/pmfview" -name '*.pmf')
    cmp -s "$first" "$WORK/known.pmf" || fail "cache file is not pmfc's output"
    case $(basename "$first") in [0-9a-f]*-[0-9a-f]*-room.rmf.pmf) ;; *) fail "cache file name $(basename "$first")" ;; esac
    run info "$RMF"
    [ $RC -eq 0 ] && [ "$(calls)" -eq 1 ] || fail "second open: exit $RC, $(calls) pmfc calls (want 1: reused)"
    [ -s "$WORK/err" ] && fail "a cached open printed on stderr"
    # The temporary file of a compile whose process died (its PID is gone) goes with the stale ones.
    src=$(basename "$first" | cut -d- -f1)
    dead=$(sh -c 'echo $$')
    orphan=$WORK/cache/pmfview/.$src-0123456789abcdef.$dead.0.tmp.pmf
    : >"$orphan"
    touch -d '2001-02-03 04:05:06' "$RMF"
    run info "$RMF"
    [ $RC -eq 0 ] && [ "$(calls)" -eq 2 ] || fail "after touch: exit $RC, $(calls) pmfc calls (want 2)"
    [ "$(cache_files)" -eq 1 ] && [ ! -e "$first" ] || fail "stale cache file kept: $(ls "$WORK/cache/pmfview")"
    [ ! -e "$orphan" ] || fail "orphaned temporary file kept"
    # Another size is another version too; the same source by another path is the same source.
    printf 'more' >>"$RMF"
    (cd "$WORK/maps" && "$PMFVIEW" info ./room.rmf >"$WORK/out" 2>"$WORK/err") || fail "relative path: exit $?"
    [ "$(calls)" -eq 3 ] && [ "$(cache_files)" -eq 1 ] || fail "after growing: $(calls) calls, $(cache_files) files"
    # --game is passed through and is part of the key.
    mkdir -p "$WORK/game"
    run shot "$RMF" -o "$WORK/a.png" --size 64x48 --game "$WORK/game"
    [ $RC -eq 0 ] && [ "$(calls)" -eq 4 ] || fail "--game: exit $RC, $(calls) calls (want 4)"
    tail -n1 "$WORK/log" | grep -q -- "--game $WORK/game --quiet$" || fail "--game not passed: $(tail -n1 "$WORK/log")"
    run shot "$RMF" -o "$WORK/a.png" --size 64x48 --game "$WORK/game"
    [ "$(calls)" -eq 4 ] || fail "--game again: $(calls) calls (want 4: reused)"
    ;;
xdg)
    # XDG_CACHE_HOME wins; without it ~/.cache/pmfview (HOME); a relative one is ignored.
    run info "$RMF"
    [ $RC -eq 0 ] && [ "$(cache_files)" -eq 1 ] || fail "XDG_CACHE_HOME: exit $RC, $(cache_files) files"
    mkdir -p "$WORK/home"
    HOME=$WORK/home XDG_CACHE_HOME= run info "$RMF"
    [ $RC -eq 0 ] && [ "$(find "$WORK/home/.cache/pmfview" -name '*.pmf' | wc -l)" -eq 1 ] || fail "HOME: exit $RC"
    [ "$(stat -c %a "$WORK/home/.cache/pmfview")" = 700 ] || fail "cache directory mode $(stat -c %a "$WORK/home/.cache/pmfview")"
    (cd "$WORK" && HOME=$WORK/home XDG_CACHE_HOME=relative "$PMFVIEW" info "$RMF" >/dev/null 2>&1) || fail "relative XDG_CACHE_HOME"
    [ ! -e "$WORK/relative" ] || fail "a relative XDG_CACHE_HOME was used"
    # A cache directory that cannot be created: exit 3, one clear line.
    printf 'file' >"$WORK/blocker"
    XDG_CACHE_HOME=$WORK/blocker run info "$RMF"
    [ $RC -eq 3 ] || fail "uncreatable cache: exit $RC, want 3"
    [ "$(cat "$WORK/err")" = "pmfview: cannot create the cache directory $WORK/blocker/pmfview: Not a directory" ] ||
        fail "uncreatable cache: $(cat "$WORK/err")"
    # pmfc missing: exit 3 naming it.
    PMFVIEW_PMFC=$WORK/no-such-pmfc run info "$RMF"
    [ $RC -eq 3 ] && grep -q "^pmfview: cannot run the map compiler $WORK/no-such-pmfc: No such file or directory (set PMFVIEW_PMFC)$" "$WORK/err" ||
        fail "missing pmfc: exit $RC"
    ;;
progress)
    # A compile over a second prints one progress line with the time taken; a fast one and a
    # cached one print nothing.
    STUB_SLEEP=1.5 run info "$RMF"
    [ $RC -eq 0 ] || fail "slow compile: exit $RC"
    [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "slow compile: want one stderr line"
    grep -Eq "^pmfview: compiling $RMF \(first open or changed since\) \.\.\. done after 1\.[5-9] s$" "$WORK/err" ||
        fail "progress line: $(cat "$WORK/err")"
    run info "$RMF"
    [ -s "$WORK/err" ] && fail "cached open printed on stderr"
    touch -d '2001-02-03 04:05:06' "$RMF"
    STUB_SLEEP=0.2 run info "$RMF"
    [ $RC -eq 0 ] && [ ! -s "$WORK/err" ] || fail "fast compile: exit $RC, stderr not empty"
    ;;
failure)
    # pmfc exit 2 = bad source: exit 2 and its last stderr line, "pmfc: " dropped, escape and
    # other control bytes shown as \xNN; any other failure exits 3. Nothing is cached.
    STUB_FAIL='pmfc: room.rmf: solid 37 face 2, byte 1234: \033[31mred\033[0m \001 bad\0377' run info "$RMF"
    [ $RC -eq 2 ] || fail "bad source: exit $RC, want 2"
    [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "bad source: want one stderr line"
    want='pmfview: room.rmf: solid 37 face 2, byte 1234: \x1b[31mred\x1b[0m \x01 bad\xff'
    [ "$(cat "$WORK/err")" = "$want" ] || fail "relayed line: $(cat "$WORK/err")"
    LC_ALL=C grep -q "$(printf '[\001-\010\016-\037\177]')" "$WORK/err" && fail "control bytes reached stderr"
    [ ! -s "$WORK/out" ] || fail "stdout on failure"
    [ "$(find "$WORK/cache/pmfview" -type f | wc -l)" -eq 0 ] || fail "a failed compile left files: $(ls -a "$WORK/cache/pmfview")"
    STUB_FAIL='pmfc: out of memory' STUB_EXIT=3 run shot "$RMF" -o "$WORK/x.png"
    [ $RC -eq 3 ] && [ "$(cat "$WORK/err")" = "pmfview: out of memory" ] || fail "runtime failure: exit $RC, $(cat "$WORK/err")"
    STUB_FAIL='pmfc: crashed' STUB_EXIT=139 run info "$RMF"
    [ $RC -eq 3 ] || fail "pmfc exit 139: exit $RC, want 3"
    ;;
kinds)
    # The kind is the content's: an RMF named .pmf compiles, a PMF named .rmf opens as it is.
    cp "$RMF" "$WORK/maps/disguised.pmf"
    run info "$WORK/maps/disguised.pmf"
    [ $RC -eq 0 ] && [ "$(calls)" -eq 1 ] || fail "RMF named .pmf: exit $RC, $(calls) calls"
    cp "$WORK/known.pmf" "$WORK/maps/real.rmf"
    run info "$WORK/maps/real.rmf"
    [ $RC -eq 0 ] && [ "$(calls)" -eq 1 ] || fail "PMF named .rmf: exit $RC, $(calls) calls (want no compile)"
    ;;
shot)
    # A shot of the RMF without --camera is the compiled map's first start camera ("far").
    run shot "$RMF" -o "$WORK/rmf.png" --size 160x120
    [ $RC -eq 0 ] || fail "shot: exit $RC"
    run shot "$WORK/known.pmf" -o "$WORK/far.png" --size 160x120 --camera 0,0,4,0,0
    [ "$("$PROBE" diff "$WORK/rmf.png" "$WORK/far.png")" -eq 0 ] || fail "RMF shot differs from the PMF's at its start camera"
    ;;
concurrent)
    # Four processes open the same new RMF at once while pmfc writes its output in two halves
    # 0.3 s apart: none may read a half-written cache file.
    for i in 1 2 3 4; do
        STUB_HALF=0.3 "$PMFVIEW" info "$RMF" >"$WORK/out$i" 2>"$WORK/err$i" &
    done
    for i in 1 2 3 4; do
        wait -n || fail "a concurrent open failed: $(cat "$WORK"/err*)"
    done
    for i in 1 2 3 4; do
        grep -q '^cameras:      3$' "$WORK/out$i" || fail "process $i: $(cat "$WORK/out$i" "$WORK/err$i")"
    done
    [ "$(cache_files)" -eq 1 ] || fail "$(cache_files) cache files"
    [ "$(find "$WORK/cache/pmfview" -name '.*' | wc -l)" -eq 0 ] || fail "temporary files left"
    ;;
library)
    # Without PMFVIEW_PMFC the compile is pmfc's library on a thread of pmfview: a real RMF gives
    # the bytes the pmfc program gives; a hostile one (cut short) is pmfc's one line, exit 2,
    # nothing left in the cache.
    unset PMFVIEW_PMFC
    PMFC=$(dirname "$PMFVIEW")/pmfc
    SRC=$WORK/maps/22.rmf
    cp "$(dirname "$0")/../../../shared/data/rmf/22.rmf" "$SRC" || fail "no shared RMF"
    SOURCE_DATE_EPOCH=0 run info "$SRC"
    [ $RC -eq 0 ] || fail "in-process compile: exit $RC"
    [ "$(calls)" -eq 0 ] || fail "the stub pmfc was run"
    [ "$(cache_files)" -eq 1 ] || fail "$(cache_files) cache files"
    "$PMFC" "$SRC" -o "$WORK/by_pmfc.pmf" --time 0 --quiet 2>/dev/null || fail "pmfc failed"
    cmp -s "$(find "$WORK/cache/pmfview" -name '*22.rmf.pmf')" "$WORK/by_pmfc.pmf" || fail "the cache file is not pmfc's bytes"
    CUT=$WORK/maps/cut.rmf
    head -c 4000 "$SRC" >"$CUT"
    run info "$CUT"
    [ $RC -eq 2 ] || fail "hostile source: exit $RC, want 2"
    "$PMFC" "$CUT" -o "$WORK/cut.pmf" --quiet 2>"$WORK/pmfc_err"
    [ "$(cat "$WORK/err")" = "pmfview: $(tail -n1 "$WORK/pmfc_err" | sed 's/^pmfc: //')" ] ||
        fail "not pmfc's line: $(cat "$WORK/err") / $(cat "$WORK/pmfc_err")"
    [ "$(cache_files)" -eq 1 ] || fail "the failed compile left a cache file"
    [ "$(find "$WORK/cache/pmfview" -name '.*' | wc -l)" -eq 0 ] || fail "temporary files left"
    ;;
*) fail "unknown case" ;;
esac
exit 0
