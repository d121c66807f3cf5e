#!/usr/bin/env bash
# fiacheck fuzz / repro / minimize from the command line.  The campaign part
# needs the libFuzzer binaries (clang): beside $FIACHECK, or in build/fuzz/
# (made by scripts/main.sh or fuzz/build.sh); it is skipped otherwise.
. "$(dirname "$0")/lib.sh"
root=$(pwd)

expect_exit 2 "$FIACHECK" fuzz --target nosuch
expect_exit 2 "$FIACHECK" fuzz --time
expect_exit 2 "$FIACHECK" repro
expect_exit 2 "$FIACHECK" minimize
expect_exit 2 "$FIACHECK" repro "$tmp/none.case"

# repro of a passing case: exit 0 and the verdict; minimize: nothing to do.
expect_exit 0 "$FIACHECK" repro corpus/cases/gqa/gqa_bnsd_causal.case
expect_grep "verdict +pass" "$tmp/out"
expect_exit 0 "$FIACHECK" minimize corpus/cases/gqa/gqa_bnsd_causal.case --out "$tmp/m.case"
expect_grep "nothing to minimize" "$tmp/out"
# a status finding's header is honoured (profile cann) and a rejected case
# the rules expect is not a finding
expect_exit 0 "$FIACHECK" repro corpus/cases/layout/reject_batch_over_limit.case --profile cann --target params
expect_grep "expected +561002" "$tmp/out"
# fast/ as the finding ran it: the recorded kernel level and threads are
# used again; a level this machine lacks is said and the best one taken; the
# user's FIA_FAST_ISA / FIA_FAST_THREADS win
{ printf '# fiacheck-target: numeric\n# fiacheck-fast-kernels: scalar\n'
  printf '# fiacheck-fast-threads: 1\n'; cat corpus/cases/gqa/gqa_bnsd_causal.case; } >"$tmp/k.case"
expect_exit 0 env -u FIA_FAST_ISA -u FIA_FAST_THREADS "$FIACHECK" repro "$tmp/k.case"
expect_grep "fast/ scalar kernels, 1 threads" "$tmp/out"
expect_exit 0 env FIA_FAST_ISA=scalar FIA_FAST_THREADS=3 "$FIACHECK" repro "$tmp/k.case"
expect_grep "fast/ scalar kernels, 3 threads" "$tmp/out"
sed 's/fast-kernels: scalar/fast-kernels: avx4096/' "$tmp/k.case" >"$tmp/k2.case"
expect_exit 0 env -u FIA_FAST_ISA "$FIACHECK" repro "$tmp/k2.case"
expect_grep "ran fast/ with the avx4096 kernels, which this machine lacks" "$tmp/err"

bindir=$(dirname "$FIACHECK")
fz=$FIACHECK
if [ ! -x "$bindir/fuzz_params" ] && [ -x "$root/build/fuzz/fuzz_params" ]; then
  fz=$root/build/fuzz/fiacheck
fi
if [ ! -x "$(dirname "$fz")/fuzz_params" ]; then
  # Without libFuzzer binaries the command says so and exits 2.
  expect_exit 2 "$FIACHECK" fuzz --time 1
  expect_grep "not built" "$tmp/err"
  echo "SKIP: libFuzzer binaries not built (bash fuzz/build.sh with clang, or scripts/main.sh): campaign test skipped"
  finish
  exit $?
fi
# A 10-second campaign of all targets into a fresh store, in a scratch dir;
# stats left by an older store's campaign 1 must not be counted in (the
# work files are keyed by campaign UUID now).
mkdir -p "$tmp/w/stats/1"
printf 'execs 987654321\nfindings 77\nsig stale|signature\n' \
  >"$tmp/w/stats/1/fuzz_params.4242"
(cd "$tmp/w" && "$fz" fuzz --time 9 --jobs 1 --db "$tmp/w/f.db" --seed 1 \
   >"$tmp/out" 2>"$tmp/err")
rc=$?
if [ "$rc" -le 1 ]; then ok; else bad "fuzz exit $rc"; sed 's/^/    /' "$tmp/err" >&2; fi
for t in fuzz_params fuzz_numeric fuzz_metamorphic; do
  expect_grep "^$t +[0-9]+ +[0-9]+" "$tmp/out"
done
expect_grep "validity rate" "$tmp/out"
if grep -q 987654321 "$tmp/out" "$tmp/err"; then bad "stale stats counted"; else ok; fi
[ -s "$tmp/w/f.db" ] && ok || bad "no store written"
expect_checkpointed "$tmp/w/f.db"
[ -d "$tmp/w/corpus/fuzz_params" ] && ok || bad "no corpus dir beside the store"
finish
