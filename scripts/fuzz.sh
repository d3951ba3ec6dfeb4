#!/bin/sh
# Fuzzes one parser of untrusted bytes for SECONDS (default 60) under ASan + UBSan:
#   sh scripts/fuzz.sh [SECONDS] [TARGET]        TARGET defaults to fuzz_pmf
#   sh scripts/fuzz.sh --list                    the targets this tree has
# Configures build-fuzz with clang and -DPMFVIEW_FUZZ=ON, builds TARGET, writes its seed corpus
# with the seed program its pmfview_fuzz_target() names (tests/fuzz/fuzz_target.cmake) and runs
# libFuzzer over build-fuzz/fuzz/TARGET/corpus (kept between runs) + the seeds.
# Crashes land in build-fuzz/fuzz/TARGET/; the last lines of output are libFuzzer's final stats.
set -eu
cd "$(dirname "$0")/.."

configure() {
    cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPMFVIEW_FUZZ=ON >/dev/null
}
targets() {
    for env in build-fuzz/fuzz/*.env; do
        [ -e "$env" ] && basename "$env" .env
    done
}
usage() {
    echo "usage: scripts/fuzz.sh [SECONDS] [TARGET] | --list (targets: $(targets | tr '\n' ' '))" >&2
    exit 1
}

if [ "${1:-}" = "--list" ]; then
    configure
    targets
    exit 0
fi
RUN_SECONDS=${1:-60}
TARGET=${2:-fuzz_pmf}
USAGE="usage: scripts/fuzz.sh [SECONDS] [fuzz_pmf|fuzz_pmf_blocks|fuzz_pmf_legacy|fuzz_pm4|fuzz_rmf|fuzz_wad]"
case $RUN_SECONDS in
    ''|*[!0-9]*) configure; usage ;;
esac
configure
ENV_FILE="build-fuzz/fuzz/$TARGET.env"
[ -f "$ENV_FILE" ] || usage
FUZZER='' SEEDER='' SEED_ARGS='' MAX_LEN=16384
. "./$ENV_FILE"
cmake --build build-fuzz -j2 --target "$TARGET"

OUT=build-fuzz/fuzz/$TARGET
rm -rf "$OUT/seeds"
mkdir -p "$OUT/seeds" "$OUT/corpus"
# shellcheck disable=SC2086
"$SEEDER" $SEED_ARGS "$OUT/seeds"
exec "$FUZZER" -max_total_time="$RUN_SECONDS" -max_len="$MAX_LEN" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$OUT/" -print_final_stats=1 "$OUT/corpus" "$OUT/seeds"
