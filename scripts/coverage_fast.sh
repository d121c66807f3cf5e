#!/usr/bin/env bash
# Line and branch coverage of fast/ reached by a fuzz campaign.
#
#   bash scripts/coverage_fast.sh [SECONDS] [OUTDIR]
#
# Builds the fuzz targets with clang's source-based coverage
# (-fprofile-instr-generate -fcoverage-mapping) on top of the libFuzzer
# instrumentation, without sanitizers (coverage is the question here, and a
# sanitizer would only slow the campaign), runs the three libFuzzer targets
# side by side for SECONDS (default 300) on fresh copies of their seed
# corpora (as `fiacheck fuzz --target all` runs them), merges the profiles and
# prints llvm-cov's per-file report restricted to fast/ (lines, branches).
# The report is also written to OUTDIR/fast_coverage.txt (OUTDIR default
# build/coverage).  Needs clang, llvm-profdata and llvm-cov (Debian: clang,
# llvm); scripts/deps.sh installs them.
set -euo pipefail
secs=${1:-300}
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${2:-$root/build/coverage}" && cd "${2:-$root/build/coverage}" && pwd)
cd "$root"
bash scripts/deps.sh
for tool in llvm-profdata llvm-cov; do
  command -v "$tool" >/dev/null || { echo "coverage_fast.sh: $tool missing" >&2; exit 2; }
done
echo "== building the fuzz targets with coverage (clang, libFuzzer, no sanitizers)"
CC=clang \
CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link -fprofile-instr-generate -fcoverage-mapping" \
LIB_FUZZING_ENGINE="-fsanitize=fuzzer -fprofile-instr-generate" FIA_FUZZ_NOSAN=0 \
OUT="$out/bin" WORK="$out/work" bash fuzz/build.sh
rm -rf "$out/prof" "$out/run"
mkdir -p "$out/prof" "$out/run"
echo "== campaign of ${secs}s (profiles in $out/prof)"
pids=()
mapfile -t targets < <(bash fuzz/target_names.sh)
for t in "${targets[@]}"; do
  mkdir -p "$out/run/$t"
  cp "$root/corpus/fuzz_$t"/seed-* "$out/run/$t/"
  LLVM_PROFILE_FILE="$out/prof/$t-%p.profraw" "$out/bin/fuzz_$t" \
    -max_total_time="$secs" -timeout=30 -rss_limit_mb=4096 \
    -dict="$root/corpus/fuzz_$t/fuzz_$t.dict" -print_final_stats=1 \
    "$out/run/$t" >"$out/run/$t.log" 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || true; done
grep -h "stat::number_of_executed_units" "$out"/run/*.log || true
llvm-profdata merge -sparse "$out"/prof/*.profraw -o "$out/merged.profdata"
# llvm-cov takes the first binary alone and each further one after -object
objects=("$out/bin/fuzz_${targets[0]}")
for t in "${targets[@]:1}"; do objects+=(-object "$out/bin/fuzz_$t"); done
llvm-cov report "${objects[@]}" -instr-profile "$out/merged.profdata" \
  -show-region-summary=false -show-branch-summary=true \
  "$root/fast" | sed "s|$root/||" | tee "$out/fast_coverage.txt"
echo "uncovered lines per file: llvm-cov show ${objects[*]} -instr-profile $out/merged.profdata $root/fast/attention.c"
