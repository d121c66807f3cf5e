#!/usr/bin/env bash
# The test suite: builds with gcc (release) and with clang under
# AddressSanitizer + UBSan; every test runs in the gcc build, and in the
# sanitizer build every test but those labelled gcc-only (CMakeLists.txt
# says which and why; README.md).  The sanitizer build compiles, at a lower
# priority, while the gcc build's tests run, so that neither leaves a core
# idle.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/deps.sh
# The kernels nobody here wrote (npm): exit 3 means the registry is out of
# reach, and their tests then report SKIPPED with the reason; any other
# failure fails the suite.
tp=0
bash scripts/thirdparty.sh || tp=$?
[ "$tp" -eq 0 ] || [ "$tp" -eq 3 ] || exit "$tp"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS=detect_leaks=1
# Twice as many tests as cores: many command-line tests mostly wait (on
# timeouts, store locks, the processes they start), and a waiting test
# holds a ctest slot; the tests that compile in parallel themselves count
# for two (PROCESSORS in CMakeLists.txt).
jobs=$(( $(nproc) * 2 ))
echo "== gcc build"
CC=gcc bash scripts/build.sh build/gcc -DCMAKE_BUILD_TYPE=RelWithDebInfo
echo "== clang build with ASan + UBSan (in the background: build/asan.log)"
(CC=clang nice -n 10 bash scripts/build.sh build/asan \
   -DCMAKE_BUILD_TYPE=Debug -DFIA_SANITIZE=ON) >build/asan.log 2>&1 &
asan_build=$!
echo "== gcc tests"
gcc_rc=0
(cd build/gcc && ctest --output-on-failure -j"$jobs") || gcc_rc=$?
asan_rc=0
wait "$asan_build" || asan_rc=$?
if [ "$asan_rc" -ne 0 ]; then
  cat build/asan.log >&2
  echo "test.sh: the ASan + UBSan build failed" >&2
  exit "$asan_rc"
fi
echo "== ASan + UBSan tests (all but gcc-only)"
(cd build/asan && ctest --output-on-failure -j"$jobs" -LE gcc-only) || asan_rc=$?
[ "$gcc_rc" -eq 0 ] && [ "$asan_rc" -eq 0 ]
