#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build script.  The engine's builder sets $CC,
# $CFLAGS (sanitizer or coverage flags), $LIB_FUZZING_ENGINE, $OUT, $WORK
# and $SRC and runs this from $SRC/fiacheck (the Dockerfile's WORKDIR);
# fuzz/build.sh follows that contract.  Here it also:
#  - links MPFR, GMP and SQLite statically: the runner image that executes
#    the targets has only what sits in $OUT;
#  - skips the no-sanitizer twins: they serve `fiacheck fuzz` on one
#    machine; an engine runs each sanitizer's build itself.
# Without a store (FIACHECK_DB unset) a target aborts on a finding, so the
# engine reports it as a crash (README, "More machines").
src=$PWD
[ -f "$src/fuzz/build.sh" ] || src=$(cd "$(dirname "$0")/.." && pwd)
export FIA_FUZZ_NOSAN=0
export FIA_CMAKE_ARGS="-DFIA_STATIC_DEPS=ON ${FIA_CMAKE_ARGS:-}"
bash "$src/fuzz/build.sh"
