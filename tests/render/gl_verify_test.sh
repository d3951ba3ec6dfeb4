#!/bin/bash
# gl_verify_test.sh CASE PMFVIEW PMFC WORKDIR SHARED_RMF_DIR DEMO_MAP PNG_PROBE
#
# Issue 21, what real GPUs need, held on llvmpipe:
#   real_map  a real RMF (../shared/data/rmf) compiled by pmfc and shot at its start camera under
#             PMFVIEW_GL_VERIFY=1: every upload read back equal, the picture as without;
#   flight    a generated city flown across under PMFVIEW_GL_VERIFY=1 while the buffers and the
#             atlas grow holding data: every upload and every moved chunk read back equal;
#   egl       the feature demo forced onto EGL's surfaceless and device platforms: the same
#             picture, `egl platform:` naming each; a bad platform name is one line, exit 3.
set -u
CASE=$1 PMFVIEW=$2 PMFC=$3 WORK=$4 RMF_DIR=$5 DEMO=$6 PROBE=$7

fail() { echo "FAIL ($CASE): $*" >&2; [ -f "$WORK/err" ] && sed 's/^/  stderr: /' "$WORK/err" >&2; exit 1; }
# Mesa keeps allocations at exit that are not ours
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
cd "$WORK" || exit 1

# verified FILE: N of the "gl verify: N uploads" line, empty when there is none
verified() { sed -n 's/^gl verify: \([0-9]*\) uploads$/\1/p' "$1"; }

case $CASE in
real_map)
    rmf=$RMF_DIR/mess_macro_cover_example.rmf
    [ -f "$rmf" ] || fail "$rmf is missing"
    "$PMFC" "$rmf" -o map.pmf --quiet 2>err || fail "pmfc $rmf"
    PMFVIEW_GL_VERIFY=1 "$PMFVIEW" shot map.pmf -o verified.png --size 640x360 --stats 2>err ||
        fail "shot under PMFVIEW_GL_VERIFY=1: exit $?"
    n=$(verified err)
    [ -n "$n" ] && [ "$n" -ge 10 ] || fail "want 'gl verify: N uploads' with N >= 10, got '${n}'"
    "$PMFVIEW" shot map.pmf -o plain.png --size 640x360 --stats 2>plain.err || fail "shot without verification"
    [ -z "$(verified plain.err)" ] || fail "'gl verify:' printed with verification off"
    # chunks stream in any order, so their lightmap blocks land at other atlas texels from run to
    # run, and a lightmap UV rounds by a unit here and there: equal within 2 a channel
    [ "$("$PROBE" diff verified.png plain.png)" = 0 ] || fail "verification changed the picture"
    echo "real_map: $(basename "$rmf"): $n uploads read back equal, picture unchanged"
    ;;
flight)
    "$PMFC" --generate city --chunks 10x2x10 --seed 5 --time 0 -o city.pmf --quiet 2>err || fail "pmfc --generate"
    printf '%s\n' "-16,2,70,0,0" "-16,2,-70,20,-5" "40,2,-70,90,0" >path.txt
    PMFVIEW_GL_VERIFY=1 "$PMFVIEW" shot city.pmf -o fly.png --size 320x180 --radius 3 --camera -16,2,70,0,0 \
        --frames 60 --path path.txt --stats 2>err || fail "flight under PMFVIEW_GL_VERIFY=1: exit $?"
    n=$(verified err)
    copies=$(sed -n 's/^gpu buffer copies: //p' err)
    [ -n "$n" ] && [ "$n" -ge 100 ] || fail "want 'gl verify: N uploads' with N >= 100, got '${n}'"
    [ -n "$copies" ] && [ "$copies" -ge 1 ] || fail "the flight grew no buffer while holding data (copies '${copies}'): nothing moved to verify"
    echo "flight: $n uploads read back equal across $copies growths"
    ;;
egl)
    for p in surfaceless device; do
        PMFVIEW_EGL_PLATFORM=$p "$PMFVIEW" shot "$DEMO" -o "$p.png" --size 320x180 --stats 2>err ||
            fail "PMFVIEW_EGL_PLATFORM=$p: exit $?"
        grep -q "^egl platform: $p" err || fail "PMFVIEW_EGL_PLATFORM=$p: no 'egl platform: $p' line"
        echo "egl: $(grep '^egl platform:' err)"
    done
    [ "$("$PROBE" diff surfaceless.png device.png)" = 0 ] || fail "the surfaceless and device platforms drew different pictures"
    PMFVIEW_EGL_PLATFORM=vulkan "$PMFVIEW" shot "$DEMO" -o x.png 2>err
    rc=$?
    [ $rc -eq 3 ] || fail "PMFVIEW_EGL_PLATFORM=vulkan: exit $rc, want 3"
    [ "$(wc -l <err)" -eq 1 ] && grep -q '^pmfview: PMFVIEW_EGL_PLATFORM=vulkan: use surfaceless or device$' err ||
        fail "PMFVIEW_EGL_PLATFORM=vulkan: want one line naming the choices"
    ;;
*)
    fail "unknown case"
    ;;
esac
