#!/usr/bin/env bash
# fast/'s environment settings: an invalid FIA_FAST_ISA / FIA_FAST_THREADS
# stops every command that runs fast/ (exit 2, the variable and its valid
# values named) before it does anything; `run` reports the kernel level and
# threads it used.
. "$(dirname "$0")/lib.sh"
case_file=corpus/cases/gqa/gqa_bnsd_causal.case

for bad in "FIA_FAST_ISA=bogus" "FIA_FAST_ISA=avx3" "FIA_FAST_THREADS=abc" \
           "FIA_FAST_THREADS=0" "FIA_FAST_THREADS=99" "FIA_FAST_THREADS=4x" \
           "FIA_FAST_THREADS=-1"; do
  var=${bad%%=*}
  for cmd in "run $case_file" "repro $case_file" \
             "minimize $case_file --out $tmp/m.case" "fuzz --target numeric" \
             "bench --fast"; do
    # shellcheck disable=SC2086
    expect_exit 2 env -u FIA_FAST_ISA -u FIA_FAST_THREADS "$bad" "$FIACHECK" $cmd
    expect_grep "$var" "$tmp/err"
    [ ! -s "$tmp/out" ] && ok || bad "$bad fiacheck $cmd printed on stdout"
  done
done
expect_exit 2 env FIA_FAST_ISA=bogus "$FIACHECK" run "$case_file"
expect_grep "scalar, avx2, avx512" "$tmp/err"
expect_exit 2 env FIA_FAST_THREADS=99 "$FIACHECK" run "$case_file"
expect_grep "1\.\.16" "$tmp/err"

# valid settings: level names in any case, auto, empty (unset)
for good in "FIA_FAST_ISA=scalar" "FIA_FAST_ISA=AVX2" "FIA_FAST_ISA=auto" \
            "FIA_FAST_ISA=" "FIA_FAST_THREADS=1" "FIA_FAST_THREADS=16" \
            "FIA_FAST_THREADS="; do
  expect_exit 0 env -u FIA_FAST_ISA -u FIA_FAST_THREADS "$good" "$FIACHECK" run "$case_file"
done
# commands that do not run fast/ are not stopped
expect_exit 0 env FIA_FAST_ISA=bogus "$FIACHECK" rules
expect_exit 0 env FIA_FAST_ISA=bogus "$FIACHECK" ref "$case_file" --out "$tmp/ref.txt"

# run reports what fast/ ran with
expect_exit 0 env FIA_FAST_ISA=scalar FIA_FAST_THREADS=3 "$FIACHECK" run "$case_file"
expect_grep "^fast/ kernels scalar, 3 threads" "$tmp/out"
expect_exit 0 env FIA_FAST_ISA=scalar FIA_FAST_THREADS=3 "$FIACHECK" run --json "$case_file"
expect_grep '"fast_kernels":"scalar","fast_threads":3' "$tmp/out"
finish
