#!/usr/bin/env bash
# .clusterfuzzlite/build.sh under the build contract with the undefined
# sanitizer's flags and with the coverage build's (-fprofile-instr-generate
# -fcoverage-mapping): every expected file in an empty $OUT, each target
# runs its seeds (cflite_lib.inc).  Two full builds: the slowest CLI test.
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.." || exit 2
. tests/cli/cflite_lib.inc
cflite_build undefined
cflite_build coverage
finish
