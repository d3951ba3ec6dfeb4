#!/bin/sh
# Fuzzes a reader for SECONDS (default 60) under ASan + UBSan: configures build-fuzz with
# clang and -DPMFVIEW_FUZZ=ON, builds the libFuzzer target, writes the seed corpora and runs
# TARGET (default fuzz_pmf: whole PMF files, with a write(read(f)) round-trip oracle;
# fuzz_pmf_blocks: decompressed blocks straight into the decoders; fuzz_wad: WAD3 files through
# pmfc's WAD reader, each decoded texture written and read again).
# New inputs collect in build-fuzz/fuzz/TARGET/corpus, crashes in build-fuzz/fuzz/TARGET/.
set -eu
cd "$(dirname "$0")/.."
RUN_SECONDS=${1:-60}
TARGET=${2:-fuzz_pmf}
case $RUN_SECONDS in
    ''|*[!0-9]*) echo "usage: scripts/fuzz.sh [SECONDS] [fuzz_pmf|fuzz_pmf_blocks|fuzz_wad]" >&2; exit 1 ;;
esac
case $TARGET in
    fuzz_pmf) SEEDS=files ;;
    fuzz_pmf_blocks) SEEDS=blocks ;;
    fuzz_wad) SEEDS=wad ;;
    *) echo "usage: scripts/fuzz.sh [SECONDS] [fuzz_pmf|fuzz_pmf_blocks|fuzz_wad]" >&2; exit 1 ;;
esac

cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPMFVIEW_FUZZ=ON >/dev/null
cmake --build build-fuzz -j2 --target "$TARGET" make_seeds make_wad_seeds

OUT=build-fuzz/fuzz
mkdir -p "$OUT/seeds/files" "$OUT/seeds/blocks" "$OUT/seeds/wad" "$OUT/$TARGET/corpus"
build-fuzz/tests/fuzz/make_seeds "$OUT/seeds/files" "$OUT/seeds/blocks"
build-fuzz/tests/fuzz/make_wad_seeds "$OUT/seeds/wad"
exec "build-fuzz/tests/fuzz/$TARGET" -max_total_time="$RUN_SECONDS" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$OUT/$TARGET/" -print_final_stats=1 "$OUT/$TARGET/corpus" "$OUT/seeds/$SEEDS"
