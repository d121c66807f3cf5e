#!/usr/bin/env bash
# compile_times.sh LOG COMPILER ARGS...: a compiler launcher that times each
# compilation (CPU seconds: user + sys, then wall) and appends a line
# "cpu wall object" to LOG.  Configure with it to find the slow files:
#   cmake -S . -B build/t -DCMAKE_C_COMPILER_LAUNCHER="$PWD/scripts/compile_times.sh;$PWD/build/t.times"
#   cmake --build build/t -j2 && sort -rn build/t.times | head
log=$1; shift
obj=?
prev=
for a in "$@"; do
  [ "$prev" = -o ] && obj=$a
  prev=$a
done
t=$(mktemp)
/usr/bin/time -f "%U %S %e" -o "$t" "$@"
rc=$?
read -r u s e <"$t" 2>/dev/null && rm -f "$t"
awk -v u="$u" -v s="$s" -v e="$e" -v o="$obj" 'BEGIN { printf "%.2f %s %s\n", u + s, e, o }' >>"$log"
exit $rc
