#!/bin/sh
# stub_pmfc.sh SOURCE -o OUT [--game DIR] --quiet - a stand-in for pmfc in the tests (reached
# through PMFVIEW_PMFC). It appends its arguments to $STUB_LOG and copies a known PMF to OUT.
# What it does is read from the source's lines (so a saved source changes the outcome, as with
# the real compiler), else from the environment:
#   MAP:PATH     the PMF to copy (else $STUB_PMF)
#   SLEEP:SECS   sleep first (else $STUB_SLEEP)
#   FAIL:TEXT    print a warning line, then TEXT (printf %b escapes) on stderr, and exit
#                $STUB_EXIT (default 2); else $STUB_FAIL
# OUT is written in two halves $STUB_HALF seconds apart, so reading it early would fail.
echo "$*" >>"${STUB_LOG:-/dev/null}"
src=$1 out=
while [ $# -gt 0 ]; do [ "$1" = "-o" ] && out=$2; shift; done
line() { sed -n "s/^$1://p" "$src" | head -n1; }
sleep "$(line SLEEP)" 2>/dev/null || sleep "${STUB_SLEEP:-0}"
fail=$(line FAIL)
fail=${fail:-${STUB_FAIL:-}}
if [ -n "$fail" ]; then
    echo "pmfc: warning: 2 textures missing" >&2
    printf '%b\n' "$fail" >&2
    exit "${STUB_EXIT:-2}"
fi
map=$(line MAP)
map=${map:-$STUB_PMF}
head -c 100 "$map" >"$out" || exit 3
sleep "${STUB_HALF:-0}"
tail -c +101 "$map" >>"$out"
