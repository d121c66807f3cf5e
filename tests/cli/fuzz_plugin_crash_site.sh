#!/usr/bin/env bash
# A plug-in's crash is named by its first frame in the plug-in (its
# function, else its offset in the .so), not by the case's feature bucket:
# two crashing functions of one plug-in are two findings, one function
# crashing at two lines one; a frame of the tree's own code before the
# plug-in's keeps the tree's naming.  The reports are the sanitizer's and
# libFuzzer's forms (with and without debug information).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fuzz_fake.inc"
command -v sqlite3 >/dev/null || skip "no sqlite3"
bin=$(cd "$(dirname "$FIACHECK")" && pwd)
fastso=$bin/plugins/libfiacheck_sut_fast.so
[ -f "$fastso" ] || skip "no $fastso"
so=$tmp/libmisbehave.so
"${CC:-cc}" -shared -fPIC -O1 -I include -o "$so" tests/sut/misbehave_sut.c -ldl ||
  skip "cannot build the test plug-in"
export MISBEHAVE_INNER=$fastso
# camp NAME FRAMES SUMMARY: a one-second campaign of params whose worker
# crashes with that report; its crash signature in $sig
camp() {
  expect_exit 1 env FAKE_CRASH=1 FAKE_SLEEP=1 FAKE_FRAMES="$2" FAKE_SUMMARY="$3" \
    "$fz" fuzz --target params --time 1 --jobs 1 --db "$tmp/$1.db" --seed 1 --sut "$so"
  sig=$(sqlite3 "$tmp/$1.db" "SELECT signature FROM findings WHERE kind = 'crash'")
}
harness="    #3 0x55 in fia_call_sut /src/fiacheck/harness/sut_call.c:185:10"
camp a "    #0 0x7ff9 in misbehave_crash_in_gather /home/u/mis/misbehave_sut.c:53:23\n    #1 0x7ff9 in run /home/u/mis/misbehave_sut.c:108:5\n$harness" \
  "AddressSanitizer: SEGV /home/u/mis/misbehave_sut.c:53:23 in misbehave_crash_in_gather"
a=$sig
camp b "    #0 0x7ff9 in misbehave_crash_in_reduce (${so}+0x11ed) (BuildId: 95)\n    #1 0x7ff9  (${so}+0x1490) (BuildId: 95)\n$harness" \
  "AddressSanitizer: SEGV (${so}+0x11ed) (BuildId: 95) in misbehave_crash_in_reduce"
b=$sig
camp a2 "    #0 0x7ff9 in misbehave_crash_in_gather /home/u/mis/misbehave_sut.c:61:2\n$harness" \
  "AddressSanitizer: SEGV /home/u/mis/misbehave_sut.c:61:2 in misbehave_crash_in_gather"
a2=$sig
[ "$a" = "misbehave:crash|fuzz_params|SEGV@misbehave_crash_in_gather" ] && ok || bad "gather: '$a'"
[ "$b" = "misbehave:crash|fuzz_params|SEGV@misbehave_crash_in_reduce" ] && ok || bad "reduce: '$b'"
[ "$a" = "$a2" ] && ok || bad "one function at two lines: '$a' and '$a2'"
# libFuzzer's deadly signal (an abort in a stripped plug-in): its offset
camp c "    #3 0x7f92  (/lib/x86_64-linux-gnu/libc.so.6+0x3c04f)\n    #6 0x7f92 in abort stdlib/./stdlib/abort.c:79:7\n    #7 0x7f92  (${so}+0x14d2) (BuildId: 95)\n$harness" \
  "libFuzzer: deadly signal"
c=$sig
[ "$c" = "misbehave:crash|fuzz_params|deadly-signal@libmisbehave.so+0x14d2" ] && ok || bad "abort: '$c'"
# the tree's frame first: the tree's naming (a bug of the harness)
camp d "    #0 0x55 in fast_store_zero /src/fiacheck/fast/run_output.c:24:5\n    #1 0x7ff9 in run (${so}+0x1490)" \
  "AddressSanitizer: heap-buffer-overflow /src/fiacheck/fast/run_output.c:24:5 in fast_store_zero"
d=$sig
[ "$d" = "misbehave:crash|fuzz_params|heap-buffer-overflow@fast/run_output" ] && ok || bad "tree first: '$d'"
finish
