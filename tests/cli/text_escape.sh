#!/usr/bin/env bash
# Text output shows the control characters of what it echoes (a case's
# name, comment and tokens, a plug-in's message, a store's revision)
# escaped as \xHH, so an ESC sequence in a case file cannot clear or
# retitle the user's terminal; text and UTF-8 stay as they are.
. "$(dirname "$0")/lib.sh"
cc=${CC:-cc}
# no_controls FILE...: no C0 control but newline and tab, no DEL, no byte
# that is not UTF-8
no_controls() {
  if python3 - "$@" <<'PY'; then ok; else bad "raw control bytes in $*"; cat -v "$@" | head -5 >&2; fi
import sys
for p in sys.argv[1:]:
    t = open(p, "rb").read().decode("utf-8")
    bad = [c for c in t if (ord(c) < 32 and c not in "\n\t") or ord(c) == 127 or 0x80 <= ord(c) < 0xa0]
    assert not bad, (p, bad[:5])
PY
}
name=$(printf 'esc\033[31m\001x.case')
printf '# caf\303\251 \033[2J\nbogus\033]0;pwned\007\r = 1\n' >"$tmp/$name"
expect_exit 2 "$FIACHECK" run "$tmp/$name"
no_controls "$tmp/out" "$tmp/err"
expect_grep 'esc\\x1b\[31m\\x01x\.case:2: unknown key .bogus\\x1b\]0;pwned\\x07' "$tmp/out"
for cmd in repro minimize; do
  expect_exit 2 "$FIACHECK" $cmd "$tmp/$name"
  no_controls "$tmp/out" "$tmp/err"
  expect_grep 'esc\\x1b\[31m\\x01x\.case:2: ' "$tmp/err"
done
expect_exit 2 "$FIACHECK" run "$tmp/$name" --bogus$'\033[2J'
no_controls "$tmp/out" "$tmp/err"
expect_grep 'unknown option --bogus\\x1b\[2J' "$tmp/err"
# a case that passes keeps its UTF-8 (the comment is not echoed; the name is)
cp corpus/cases/gqa/gqa_bnsd_causal.case "$tmp/caf$(printf '\303\251').case"
expect_exit 0 "$FIACHECK" run "$tmp/caf$(printf '\303\251').case"
expect_grep "caf$(printf '\303\251')\\.case" "$tmp/out"

# a plug-in's message
cat >"$tmp/msg.c" <<'C'
#include "fia/sut.h"
static fia_status gws(const fia_sut_args *a, uint64_t *w, void **e)
{ (void)a; *w = 0; *e = 0; return 561002; }
static fia_status rn(void *w, uint64_t n, void *e) { (void)w; (void)n; (void)e; return 0; }
static void ds(void *e) { (void)e; }
static const char *le(void) { return "bad\033]0;pwned\007\033[2J\rgone\001\177\302\233"; }
static const fia_sut t = {FIA_SUT_ABI_VERSION, "t", "1", 0, gws, rn, ds, le, 0, 0};
const fia_sut *fiacheck_sut_v1(void) { return &t; }
C
if "$cc" -shared -fPIC -I include -o "$tmp/msg.so" "$tmp/msg.c"; then
  # in process the message reaches the text output as the plug-in wrote it
  expect_exit 0 "$FIACHECK" run corpus/cases/gqa/gqa_bnsd_causal.case --sut "$tmp/msg.so" --no-isolate
  no_controls "$tmp/out" "$tmp/err"
  expect_grep 'bad\\x1b\]0;pwned\\x07\\x1b\[2J\\x0dgone\\x01\\x7f\\u009b' "$tmp/out"
  # out of process (the default) the wire's line carries it: still no control reaches the terminal
  expect_exit 0 "$FIACHECK" run corpus/cases/gqa/gqa_bnsd_causal.case --sut "$tmp/msg.so"
  no_controls "$tmp/out" "$tmp/err"
  expect_grep 'bad\\x1b\]0;pwned' "$tmp/out"
else
  bad "cannot build the test plug-in with $cc"
fi

# a store's text: a revision with ESC, listed by db campaigns
expect_exit 0 "$FIACHECK" survey --cases 2 --db "$tmp/s.db" --quiet --revision "$(printf 'r\033[2Jv')"
no_controls "$tmp/out" "$tmp/err"
expect_grep 'r\\x1b\[2Jv' "$tmp/out"
expect_exit 0 "$FIACHECK" db campaigns --db "$tmp/s.db"
no_controls "$tmp/out" "$tmp/err"
expect_grep 'r\\x1b\[2Jv' "$tmp/out"
finish
