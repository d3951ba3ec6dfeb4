#!/bin/sh
# Fuzzes the PMF reader (and the writer's round trip) for SECONDS (default 60): configures
# build-fuzz with clang and -DPMFVIEW_FUZZ=ON (libFuzzer + ASan + UBSan), builds fuzz_pmf,
# writes the seed corpus and runs. New inputs collect in build-fuzz/fuzz/corpus, crashes in
# build-fuzz/fuzz/crash-*.
set -eu
cd "$(dirname "$0")/.."
RUN_SECONDS=${1:-60}
case $RUN_SECONDS in
    ''|*[!0-9]*) echo "usage: scripts/fuzz.sh [SECONDS]" >&2; exit 1 ;;
esac

cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPMFVIEW_FUZZ=ON >/dev/null
cmake --build build-fuzz -j2 --target fuzz_pmf make_seeds

OUT=build-fuzz/fuzz
mkdir -p "$OUT/seeds" "$OUT/corpus"
build-fuzz/tests/fuzz/make_seeds "$OUT/seeds"
exec build-fuzz/tests/fuzz/fuzz_pmf -max_total_time="$RUN_SECONDS" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$OUT/" -print_final_stats=1 "$OUT/corpus" "$OUT/seeds"
