#!/bin/sh
# The page's tests (docs/web.md): builds it (scripts/web.sh), then tests/web/page_test.js drives
# headless chromium through puppeteer-core against build/pmfview shot, on the demo maps and a
# shared RMF compiled by build/pmfc. Needs the Linux build in build/ and scripts/setup.sh's
# packages. Usage: sh scripts/web_test.sh
set -eu
cd "$(dirname "$0")/.."
CACHE="${PMFVIEW_DEPS_CACHE:-$HOME/.cache/pmfview-deps}/web"
start=$(date +%s)
sh scripts/web.sh
built=$(date +%s)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pmfview-web.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# a Quake room with an item, and the game's files for it: paks, and a loose model and palette
python3 tests/web/game_files.py ../shared/data/lq "$WORK/game_files"
build/pmfc "$WORK/game_files/models.map" --game "$WORK/game_files/game" -o "$WORK/models.pmf" >/dev/null 2>&1
# the same room without the armour's model (its marker), and with a sky of loose pictures or without them
cp "$WORK/models.pmf" "$WORK/game_files/models.pmf"
build/pmfc "$WORK/game_files/sky.map" --game "$WORK/game_files/sky" -o "$WORK/game_files/sky.pmf" >/dev/null 2>&1
build/pmfc "$WORK/game_files/sky.map" --game "$WORK/game_files/palette" -o "$WORK/game_files/sky_bare.pmf" >/dev/null 2>&1
# the room's item_test given the armour by test.fgd (--fgd, _tb_def) or not; a Half-Life room lit by
# its ceiling's texture light (lights.rad in --game DIR, --rad FILE) or fullbright without one
G="$WORK/game_files"
build/pmfc "$G/fgd.map" --fgd "$G/loose/test.fgd" --game "$G/fgdgame" -o "$G/fgd.pmf" >/dev/null 2>&1
build/pmfc "$G/fgd.map" --game "$G/fgdgame" -o "$G/fgd_bare.pmf" >/dev/null 2>&1
build/pmfc "$G/tbdef/maps/tbdef.map" --game "$G/tbdef" -o "$G/tbdef.pmf" >/dev/null 2>&1
build/pmfc "$G/rad/maps/rad.map" --game "$G/rad" -o "$G/rad.pmf" >/dev/null 2>&1
build/pmfc "$G/rad.map" -o "$G/rad_bare.pmf" >/dev/null 2>&1
build/pmfc "$G/rad.map" --rad "$G/loose/lamps.rad" -o "$G/rad_flag.pmf" >/dev/null 2>&1
# shared RMFs compiled by the desktop's pmfc: one opened as a .pmf, one compiled in the page too
build/pmfc ../shared/data/rmf/09.rmf -o "$WORK/rmf_09.pmf" >/dev/null 2>&1
build/pmfc ../shared/data/rmf/08.rmf -o "$WORK/rmf_08.pmf" >/dev/null 2>&1
build/pmfc ../shared/data/map/hl_currents.map --wad ../shared/data/map/hl_currents.wad -o "$WORK/hl_currents.pmf" \
    >/dev/null 2>&1
NODE_PATH="$CACHE/node/node_modules" node tests/web/page_test.js build-web build/pmfview "$WORK" \
    build/assets/feature_demo.pmf build/assets/lighting_demo.pmf build/assets/materials_demo.pmf "$WORK/rmf_09.pmf" \
    ../shared/data/rmf/08.rmf="$WORK/rmf_08.pmf" \
    ../shared/data/map/hl_currents.map+../shared/data/map/hl_currents.wad="$WORK/hl_currents.pmf" \
    "$WORK/game_files/models.map+$WORK/game_files/game/pak0.pak+$WORK/game_files/game/pak1.pak=$WORK/models.pmf@$WORK/game_files/game" \
    "$WORK/game_files/models.map+$WORK/game_files/loose/armor.mdl+$WORK/game_files/loose/palette.lmp=$WORK/models.pmf@$WORK/game_files/game" \
    --game-files="$WORK/game_files"
echo "web: page built in $((built - start)) s, tested in $(($(date +%s) - built)) s" >&2
