# Shared helpers for the command-line tests: each test script sources this,
# runs fiacheck ($1) and calls expect_* ; the last line reports the counts.
FIACHECK=$1
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# expect_exit CODE CMD...: run CMD, compare its exit status.
expect_exit() {
  local want=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" -eq "$want" ]; then ok; else
    bad "exit $got, wanted $want: $*"; sed 's/^/    /' "$tmp/out" "$tmp/err" >&2; fi
}

# expect_grep PATTERN FILE: FILE contains PATTERN (extended regex).
expect_grep() {
  if grep -Eq -- "$1" "$2"; then ok; else bad "no /$1/ in $2"; sed 's/^/    /' "$2" >&2; fi
}

# skip REASON: this test cannot run its subject here: ctest reports it as
# skipped (SKIP_RETURN_CODE 77), never as passed.
skip() {
  echo "SKIPPED: $*"
  exit 77
}

finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
