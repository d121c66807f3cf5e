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

# a case's threads / kernel_level lines hold for its call only: a split
# decode run with 3 threads at the scalar level, then the next case runs
# with the process's settings again
cat >"$tmp/set.case" <<'CASE'
input_layout = BNSD
num_heads = 2
num_key_value_heads = 1
threads = 3
kernel_level = scalar
query = fp16 [2,2,1,24]
key = fp16 [2,1,300,24]
value = fp16 [2,1,300,24]
actual_seq_lengths_kv = [300, 211]
CASE
expect_exit 0 env -u FIA_FAST_ISA -u FIA_FAST_THREADS "$FIACHECK" run "$tmp/set.case" "$case_file"
expect_grep "^fast/ kernels $(env -u FIA_FAST_ISA -u FIA_FAST_THREADS "$FIACHECK" run "$case_file" | sed -n 's/^fast\/ kernels \([a-z0-9]*\),.*/\1/p'), 2 threads" "$tmp/out"
# a level the CPU lacks is the case's bad input, not a finding
if ! grep -q avx512 /proc/cpuinfo; then lvl=avx512; else lvl=; fi
if [ -n "$lvl" ]; then
  sed "s/kernel_level = scalar/kernel_level = $lvl/" "$tmp/set.case" >"$tmp/lack.case"
  expect_exit 2 "$FIACHECK" run "$tmp/lack.case"
  expect_grep "bad-input: kernel_level = avx512: the system under test \(fast\) cannot run so here" "$tmp/out"
  # and so for repro of a metamorphic finding: its bad input, not a
  # relation that does not apply
  { printf '# fiacheck-target: fuzz_metamorphic\n# fiacheck-transform: mha\n'
    cat "$tmp/lack.case"; } >"$tmp/lack_meta.case"
  expect_exit 2 "$FIACHECK" repro "$tmp/lack_meta.case"
  expect_grep "verdict +bad-input: kernel_level = avx512: the system under test" "$tmp/out"
fi
sed 's/threads = 3/threads = 0/' "$tmp/set.case" >"$tmp/zero.case"
expect_exit 2 "$FIACHECK" run "$tmp/zero.case"
expect_grep "not a thread count" "$tmp/out"
finish
