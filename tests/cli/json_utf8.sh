#!/usr/bin/env bash
# JSON output is valid UTF-8 with control characters escaped, whatever bytes
# the case's name and the messages echoing its text hold.
. "$(dirname "$0")/lib.sh"
name=$(printf 'bad\377\300name\001\033[31m\tx.case')
# a malformed case whose offending token (echoed in the message) holds an
# invalid UTF-8 byte, a lone continuation byte and control bytes
printf '# comment \377\n\376key\200\002\033 = 1\n' >"$tmp/$name"
cp corpus/cases/gqa/gqa_bnsd_causal.case "$tmp/ok.case"
printf '# caf\303\251 \355\240\200 surrogate \364\220\200\200\n' >>"$tmp/ok.case"
expect_exit 2 "$FIACHECK" run --json "$tmp/$name" "$tmp/ok.case"
if python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin.buffer.read().decode("utf-8").splitlines()]' <"$tmp/out"; then ok; else
  bad "run --json output is not UTF-8 JSON lines"; sed 's/^/    /' "$tmp/out" | cat -v >&2; fi
n=$(wc -l <"$tmp/out")
[ "$n" -eq 2 ] && ok || bad "wanted 2 lines, got $n"
expect_grep '\\ufffd' "$tmp/out"
expect_grep '\\u001b' "$tmp/out"
expect_exit 2 "$FIACHECK" repro --json "$tmp/$name"
finish
