#!/bin/sh
# Fuzzes a reader for SECONDS (default 60) under ASan + UBSan: configures build-fuzz with
# clang and -DPMFVIEW_FUZZ=ON, builds the libFuzzer targets, writes the seed corpora and runs
# TARGET (default fuzz_pmf: whole files, with a write(read(f)) round-trip oracle;
# fuzz_pmf_blocks: decompressed blocks straight into the decoders; fuzz_pmf_legacy: the legacy
# PMF draft reader; fuzz_pm4: the PM4 reader; fuzz_rmf: whole RMF files, seeded by the RMF tests'
# writer and the real maps of ../shared/data/rmf, copied here at fuzz time; fuzz_wad: WAD3 files
# through pmfc's WAD reader, each decoded texture written and read again).
# New inputs collect in build-fuzz/fuzz/TARGET/corpus, crashes in build-fuzz/fuzz/TARGET/.
set -eu
cd "$(dirname "$0")/.."
RUN_SECONDS=${1:-60}
TARGET=${2:-fuzz_pmf}
USAGE="usage: scripts/fuzz.sh [SECONDS] [fuzz_pmf|fuzz_pmf_blocks|fuzz_pmf_legacy|fuzz_pm4|fuzz_rmf|fuzz_wad]"
case $RUN_SECONDS in
    ''|*[!0-9]*) echo "$USAGE" >&2; exit 1 ;;
esac
# RMF maps are larger than PMF test maps: a longer input limit keeps the real ones whole.
MAX_LEN=16384
case $TARGET in
    fuzz_pmf) SEEDS=files ;;
    fuzz_pmf_blocks) SEEDS=blocks ;;
    fuzz_pmf_legacy) SEEDS=legacy ;;
    fuzz_pm4) SEEDS=pm4 ;;
    fuzz_rmf) SEEDS=rmf MAX_LEN=262144 ;;
    fuzz_wad) SEEDS=wad ;;
    *) echo "$USAGE" >&2; exit 1 ;;
esac

cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPMFVIEW_FUZZ=ON >/dev/null
cmake --build build-fuzz -j2 --target "$TARGET" make_seeds make_format_seeds make_rmf_seeds make_wad_seeds

OUT=build-fuzz/fuzz
mkdir -p "$OUT/seeds/files" "$OUT/seeds/blocks" "$OUT/seeds/legacy" "$OUT/seeds/pm4" "$OUT/seeds/rmf" "$OUT/seeds/wad" "$OUT/$TARGET/corpus"
build-fuzz/tests/fuzz/make_seeds "$OUT/seeds/files" "$OUT/seeds/blocks"
build-fuzz/tests/fuzz/make_format_seeds "$OUT/seeds/legacy" "$OUT/seeds/pm4"
build-fuzz/tests/fuzz/make_rmf_seeds "$OUT/seeds/rmf"
build-fuzz/tests/fuzz/make_wad_seeds "$OUT/seeds/wad"
if [ -d ../shared/data/rmf ]; then
    cp -f ../shared/data/rmf/*.rmf "$OUT/seeds/rmf/"
fi
exec "build-fuzz/tests/fuzz/$TARGET" -max_total_time="$RUN_SECONDS" -max_len="$MAX_LEN" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$OUT/$TARGET/" -print_final_stats=1 "$OUT/$TARGET/corpus" "$OUT/seeds/$SEEDS"
