#!/usr/bin/env bash
# Builds the libFuzzer target (tests/fuzz/fuzz_rewrite.cpp) with clang, ASan and
# UBSan into build-fuzz/, and runs it for SECONDS (default 60) on a corpus
# seeded from every golden input and tests/fuzz/regressions/.
#
#   tools/fuzz.sh [SECONDS] [BUILD_DIR]
#
# BUILD_DIR (default build-fuzz) may be the sanitizer build tools/setup.sh test
# makes (build-asan: clang, ASan + UBSan, fuzz instrumentation, tests on).
#
# Needs Debian's clang and libclang-rt-14-dev (tools/setup.sh test installs
# them). Exit status: 0 when the run found nothing; libFuzzer's non-zero status
# otherwise, with the failing input saved as BUILD_DIR/crash-* (add it to
# tests/fuzz/regressions/ once fixed).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
seconds=${1:-60}
dir=${2:-build-fuzz}

if [[ ! -f $dir/CMakeCache.txt ]]; then
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCYCLEFIX_FUZZ=ON -DCYCLEFIX_TESTS=OFF >/dev/null
fi
cmake --build "$dir" -j"$(nproc)" --target cyclefix_fuzz

corpus=$dir/corpus
mkdir -p "$corpus"
while IFS= read -r -d '' f; do
  cp "$f" "$corpus/$(sha1sum "$f" | cut -c1-16)"
done < <(find golden -path '*/input/*' -name '*.py' -print0; find tests/fuzz/regressions -type f ! -name README.md -print0)
# The golden inputs again with their first-party imports pointed at pkg.b, so
# that they close the fuzz package's cycle.
while IFS= read -r -d '' f; do
  sed -E 's/^(\s*)from [A-Za-z_.]+ import /\1from pkg.b import /; s/^(\s*)import [A-Za-z_][A-Za-z_.]*(\s+as\s+\w+)?$/\1import pkg.b\2/' "$f" \
    > "$corpus/pkgb-$(sha1sum "$f" | cut -c1-16)"
done < <(find golden -path '*/input/*' -name '*.py' -print0)

echo "fuzz: $(ls "$corpus" | wc -l) corpus inputs, ${seconds} s"
dict=$PWD/tests/fuzz/python.dict
cd "$dir"
./cyclefix_fuzz -dict="$dict" -max_total_time="$seconds" -max_len=8192 -timeout=20 -rss_limit_mb=4096 \
  -print_final_stats=1 -artifact_prefix=./ corpus
