#!/bin/sh
# lighting_pictures.sh - before/after pictures of pmfc's lighting features, so that
# docs/lighting.md shows what the program really does today.
#
# Compiles the demo maps and a few of ../shared/data/rmf's maps once with the "before" options and
# once with the "after" options, renders each with `pmfview shot` (320x180, the same camera) and
# writes docs/lighting/NAME-before.png and NAME-after.png. Each feature adds its cases in the
# list at the bottom (one `picture` line each).
#
# Usage: sh scripts/lighting_pictures.sh [BUILD_DIR]   (default: build; pmfc and pmfview built)
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
PMFC=$BUILD/pmfc
PMFVIEW=$BUILD/pmfview
OUT=$ROOT/docs/lighting
RMF=$ROOT/../shared/data/rmf
for tool in "$PMFC" "$PMFVIEW"; do
    [ -x "$tool" ] || { echo "lighting_pictures: $tool is not built (cmake --build build)" >&2; exit 1; }
done
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT INT TERM
mkdir -p "$OUT"

# picture NAME SOURCE CAMERA BEFORE_OPTIONS AFTER_OPTIONS [SHOT_OPTIONS]
#   CAMERA: X,Y,Z,YAW,PITCH, or "start" for the map's first start camera
picture() {
    name=$1 source=$2 camera=$3 before=$4 after=$5 shot_options=${6:-}
    if [ ! -f "$source" ]; then
        echo "lighting_pictures: $name: $source is missing, skipped" >&2
        return 0
    fi
    for which in before after; do
        if [ "$which" = before ]; then options=$before; else options=$after; fi
        # shellcheck disable=SC2086  # the options are words
        "$PMFC" "$source" -o "$WORK/$name-$which.pmf" --quiet --time 0 $options
        set -- --size 320x180
        [ "$camera" = start ] || set -- "$@" --camera "$camera"
        # shellcheck disable=SC2086
        "$PMFVIEW" shot "$WORK/$name-$which.pmf" -o "$OUT/$name-$which.png" "$@" $shot_options
        echo "docs/lighting/$name-$which.png  (pmfc $options)"
    done
}

# ---- bounced light: --bounce 0 (direct light only) against the default --------------------------
picture bounce-lighting-demo "$ROOT/assets/lighting_demo.pms" 11,3.5,0,90,-12 "--bounce 0" ""
picture bounce-feature-demo "$ROOT/assets/feature_demo.pms" start "--bounce 0" ""
picture bounce-rmf-rathunt "$RMF/mess_rathunt_example.rmf" start "--bounce 0" ""
picture bounce-rmf-cover-lightmap "$RMF/mess_macro_cover_example.rmf" start "--bounce 0" "" "--mode lightmap"

# ---- supersampling and soft shadows: one ray from each luxel's centre against the default ------
picture samples-lighting-demo "$ROOT/assets/lighting_demo.pms" 1,5,4,30,-60 "--bounce 0 --samples 1" "--bounce 0" "--mode lightmap"
picture samples-rmf-cover "$RMF/mess_macro_cover_example.rmf" start "--bounce 0 --samples 1" "--bounce 0" "--mode lightmap"

# ---- ambient occlusion: off (the default) against --dirt ------------------------------------------
picture dirt-lighting-demo "$ROOT/assets/lighting_demo.pms" 1,5,4,30,-60 "--bounce 0" "--bounce 0 --dirt" "--mode lightmap"
