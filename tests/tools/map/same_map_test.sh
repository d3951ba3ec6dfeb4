#!/bin/bash
# same_map_test.sh PMFC PMFVIEW SAME_MAP_WRITER WORKDIR
#
# One map saved as RMF and as a Valve 220 .map compiles to the same result (issue 24, point 8):
# bounds within 1 cm, the same vertex count, the same start camera.
set -u
PMFC=$1 PMFVIEW=$2 WRITER=$3 WORK=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
"$WRITER" . || fail "same_map_writer"
for f in same.rmf same.map; do
    "$PMFC" "$f" -o "$f.pmf" -q 2>err || fail "pmfc $f: $(cat err)"
    "$PMFVIEW" info "$f.pmf" --json >"$f.json" 2>err || fail "info $f.pmf"
done
python3 - <<'PY' || fail "the two forms differ"
import json
a, b = json.load(open("same.rmf.json")), json.load(open("same.map.json"))
la, lb = a["levels"][0], b["levels"][0]
for k in ("min", "max"):
    d = max(abs(x - y) for x, y in zip(la["bounds"][k], lb["bounds"][k]))
    assert d <= 0.01, ("bounds", k, la["bounds"], lb["bounds"])
assert la["vertices"] == lb["vertices"], ("vertices", la["vertices"], lb["vertices"])
ca, cb = a["cameras"][0], b["cameras"][0]
assert max(abs(x - y) for x, y in zip(ca["position"], cb["position"])) <= 0.01, (ca, cb)
print("RMF and .map: bounds", la["bounds"], "vertices", la["vertices"], "camera", ca["name"])
PY
echo "same map: all checks passed"
