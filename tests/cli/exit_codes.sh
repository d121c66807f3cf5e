#!/usr/bin/env bash
# fiacheck's exit codes and error messages for bad usage and bad input.
. "$(dirname "$0")/lib.sh"

expect_exit 2 "$FIACHECK"
expect_exit 2 "$FIACHECK" nosuchcommand
expect_exit 2 "$FIACHECK" run
expect_exit 2 "$FIACHECK" run --profile bogus corpus/cases/layout/bsh_prefill_fp16.case
expect_exit 2 "$FIACHECK" run --frobnicate corpus/cases/layout/bsh_prefill_fp16.case
expect_exit 2 "$FIACHECK" run "$tmp/does-not-exist.case"
expect_exit 2 "$FIACHECK" fuzz

# A malformed case: error names the file and the line, exit 2.
printf 'num_heads = 1\nquery = fp16 [1,1,4,16]\nkey = fp16 [1,1,8,16]\nvalue = fp16 [1,1,8,16]\nbogus_key = 3\n' >"$tmp/bad.case"
expect_exit 2 "$FIACHECK" run "$tmp/bad.case"
expect_grep "bad.case:5" "$tmp/out"
expect_grep "bogus_key" "$tmp/out"
printf 'num_heads = 99999999999999999999999\n' >"$tmp/bad2.case"
expect_exit 2 "$FIACHECK" run "$tmp/bad2.case"
expect_grep "bad2.case:1" "$tmp/out"
printf 'query = fp99 [1]\n' >"$tmp/bad3.case"
expect_exit 2 "$FIACHECK" run "$tmp/bad3.case"
expect_grep "bad3.case:1" "$tmp/out"
# Garbage bytes never crash: exit 2, not a signal.
head -c 4096 /dev/urandom >"$tmp/garbage.case"
expect_exit 2 "$FIACHECK" run "$tmp/garbage.case"

# A passing case exits 0; a bad one among good ones still makes exit 2.
expect_exit 0 "$FIACHECK" run corpus/cases/layout/bsh_prefill_fp16.case
expect_exit 2 "$FIACHECK" run corpus/cases/layout/bsh_prefill_fp16.case "$tmp/bad.case"
expect_exit 0 "$FIACHECK" rules
expect_exit 2 "$FIACHECK" ref corpus/cases/layout/bsh_prefill_fp16.case
expect_exit 2 "$FIACHECK" ref corpus/cases/tensors/reject_query_null.case --out "$tmp/x"
finish
