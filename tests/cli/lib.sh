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

# expect_checkpointed DB: a command that wrote DB left nothing in its WAL
# (absent or empty), so a copy of the file alone holds every row (the
# same export as the store itself).
expect_checkpointed() {
  if [ -s "$1-wal" ]; then bad "$1-wal holds $(wc -c <"$1-wal") bytes"; else ok; fi
  rm -rf "$tmp/ckpt"; mkdir -p "$tmp/ckpt"; cp "$1" "$tmp/ckpt/copy.db"
  if "$FIACHECK" db export --db "$1" --json >"$tmp/ckpt/a.json" 2>&1 &&
     "$FIACHECK" db export --db "$tmp/ckpt/copy.db" --json >"$tmp/ckpt/b.json" 2>&1 &&
     cmp -s "$tmp/ckpt/a.json" "$tmp/ckpt/b.json"; then ok
  else bad "a copy of $1 alone lacks rows ($(wc -l <"$tmp/ckpt/b.json") of $(wc -l <"$tmp/ckpt/a.json") lines)"; fi
}

finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
