#!/usr/bin/env bash
# The main job: a short fuzz campaign of every target (fuzz_params,
# fuzz_numeric, fuzz_metamorphic) into results/findings.db, then its
# summary, then a survey (a fixed stream of fuzz_numeric cases, the same at
# every revision, so that `db regressions` compares like with like), the
# same survey through each third-party kernel (scripts/thirdparty.sh:
# llama.cpp's ggml, ONNX Runtime; skipped without the npm registry), and
# the systems side by side.  Builds the libFuzzer binaries with clang
# (ASan + UBSan) first.
# FIACHECK_FUZZ_TIME (seconds, default 150), FIACHECK_FUZZ_JOBS (default
# the number of cores) and FIACHECK_SURVEY_CASES (default 500) tune it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/deps.sh
echo "== the third-party kernels (npm: llama.cpp's ggml, ONNX Runtime)"
tp=0
bash scripts/thirdparty.sh --fuzz || tp=$?
[ "$tp" -eq 0 ] || [ "$tp" -eq 3 ] || exit "$tp"
echo "== building the fuzz targets (clang, libFuzzer, ASan + UBSan)"
CC=clang \
CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined" \
LIB_FUZZING_ENGINE=-fsanitize=fuzzer \
OUT="$root/build/fuzz" WORK="$root/build/fuzz-work" bash fuzz/build.sh
echo "== fuzz campaign"
rc=0
./build/fuzz/fiacheck fuzz --time "${FIACHECK_FUZZ_TIME:-150}" \
  --jobs "${FIACHECK_FUZZ_JOBS:-$(nproc)}" --db results/findings.db || rc=$?
# 1 means findings: they are printed above and stored; the job succeeded.
[ "$rc" -le 1 ] || exit "$rc"
echo "== accuracy survey (the same cases at every revision: db regressions pairs them)"
src=0
./build/fuzz/fiacheck survey --cases "${FIACHECK_SURVEY_CASES:-500}" --quiet \
  --db results/findings.db || src=$?
[ "$src" -le 1 ] || exit "$src"
# The same stream through each third-party kernel built (fuzz/build.sh
# builds their plug-ins when scripts/thirdparty.sh installed them): the
# store then sets the systems side by side (fiacheck db systems, report).
for so in build/fuzz/plugins/libfiacheck_sut_*.so; do
  [ -f "$so" ] || continue
  echo "== accuracy survey through $(basename "$so" .so | sed 's/libfiacheck_sut_//')"
  src=0
  ./build/fuzz/fiacheck survey --sut "$so" --cases "${FIACHECK_SURVEY_CASES:-500}" \
    --quiet --db results/findings.db || src=$?
  [ "$src" -le 1 ] || exit "$src"
done
# A kernel in another language, as a worker process over pipes (--sut
# exec:, docs/sut/exec.md): the NumPy FIA written from the documents.
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  echo "== accuracy survey through the NumPy worker (--sut exec:)"
  src=0
  ./build/fuzz/fiacheck survey --sut "exec:/usr/bin/python3 $PWD/workers/numpy/fia_numpy_worker.py" \
    --cases "${FIACHECK_SURVEY_CASES:-500}" --quiet --db results/findings.db || src=$?
  [ "$src" -le 1 ] || exit "$src"
fi
./build/fuzz/fiacheck db systems --db results/findings.db
