#!/usr/bin/env bash
# The test suite: builds with gcc (release) and with clang under
# AddressSanitizer + UBSan, and runs every test in both builds.
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
echo "== gcc build"
CC=gcc bash scripts/build.sh build/gcc -DCMAKE_BUILD_TYPE=RelWithDebInfo
(cd build/gcc && ctest --output-on-failure -j2)
echo "== clang build with ASan + UBSan"
CC=clang bash scripts/build.sh build/asan -DCMAKE_BUILD_TYPE=Debug -DFIA_SANITIZE=ON
(cd build/asan && ctest --output-on-failure -j2)
