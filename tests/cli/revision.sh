#!/usr/bin/env bash
# The revision fiacheck was built from: `fiacheck --version` prints the one
# the build embedded (not the source tree's HEAD at run time), campaigns
# store it, `fuzz --revision NAME` overrides it; `db` takes any unique
# prefix (>= 4 characters) of a stored revision, or a git name.
. "$(dirname "$0")/lib.sh"
root=$(pwd)

# --version: "fiacheck REV" or "fiacheck REV (dirty)", REV 40 hex or unknown,
# equal to what the build wrote into its generated header
expect_exit 0 "$FIACHECK" --version
expect_grep '^fiacheck ([0-9a-f]{40}|unknown)( \(dirty\))?$' "$tmp/out"
rev=$(awk '{print $2}' "$tmp/out")
hdr=$(dirname "$FIACHECK")/generated/fia_build_revision.h
expect_grep "FIA_BUILD_REVISION \"$rev\"" "$hdr"

# repro says which fiacheck reproduced
expect_exit 0 "$FIACHECK" repro corpus/cases/gqa/gqa_bnsd_causal.case
expect_grep "^  fiacheck +$rev" "$tmp/out"

# a campaign stores the build's revision: a stand-in fuzzer beside a copy of
# fiacheck (fuzz looks for fuzz_<target> beside its own executable) writes
# what it was told and exits
mkdir -p "$tmp/bin" "$tmp/run"
cp "$FIACHECK" "$tmp/bin/fiacheck"
printf '#!/bin/sh\nprintf "%%s\\n" "$FIACHECK_REVISION" >>"%s"\n' \
  "$tmp/told" >"$tmp/bin/fuzz_numeric"
chmod +x "$tmp/bin/fuzz_numeric"
(cd "$tmp/run" && "$tmp/bin/fiacheck" fuzz --target numeric --time 1 \
   --db "$tmp/f.db" >"$tmp/fout" 2>&1)
expect_exit 0 "$FIACHECK" db stats --json --db "$tmp/f.db"
expect_grep "\"type\":\"campaign\",\"id\":1,\"revision\":\"$rev\"" "$tmp/out"
expect_grep "^$rev\$" "$tmp/told"
(cd "$tmp/run" && "$tmp/bin/fiacheck" fuzz --target numeric --time 1 \
   --db "$tmp/f.db" --revision built-elsewhere >"$tmp/fout" 2>&1)
expect_exit 0 "$FIACHECK" db stats --json --db "$tmp/f.db"
expect_grep '"type":"campaign","id":2,"revision":"built-elsewhere"' "$tmp/out"
expect_grep '^built-elsewhere$' "$tmp/told"
expect_exit 2 "$tmp/bin/fiacheck" fuzz --target numeric --revision

# db: revisions by unique prefix, git names, errors listing the known ones
if command -v sqlite3 >/dev/null; then
  db=$tmp/s.db
  a=aaaa1111bbbb2222cccc3333dddd4444eeee5555
  b=aaaa1111ffff2222cccc3333dddd4444eeee5555
  c=cccc0000bbbb2222cccc3333dddd4444eeee5555
  "$FIACHECK" db init --db "$db" >/dev/null
  sqlite3 "$db" <<SQL
INSERT INTO campaigns(id, revision, target, profile, started, updated, execs)
  VALUES (1, '$a', 'fuzz_params', 'doc', 1700000000, 1700000100, 1000),
         (2, '$b', 'fuzz_params', 'doc', 1700001000, 1700001100, 2000),
         (3, '$c', 'fuzz_params', 'doc', 1700002000, 1700002100, 2000);
INSERT INTO findings(id, signature, kind, target, profile, revision,
  last_revision, campaign_id, case_text, first_seen, last_seen, count, state,
  state_changed)
  VALUES (1, 'status|MASK-003|fp16|BNSD', 'status-mismatch', 'fuzz_params',
          'doc', '$a', '$c', 1, 'num_heads = 1', 1700000010, 1700002010,
          2, 'open', 1700000010),
         (2, 'accuracy|softmax|bf16|BSH', 'accuracy', 'fuzz_numeric', 'doc',
          '$c', '$c', 3, 'x = 1', 1700002020, 1700002020, 1, 'open',
          1700002020);
INSERT INTO sightings VALUES (1, 1, '$a', 1, 1700000010, 1700000010),
  (1, 3, '$c', 1, 1700002010, 1700002010),
  (2, 3, '$c', 1, 1700002020, 1700002020);
SQL
  # the 12 characters every listing shows are enough
  expect_exit 0 "$FIACHECK" db findings --revision "${c:0:12}" --db "$db"
  expect_grep "^2 findings" "$tmp/out"
  expect_exit 0 "$FIACHECK" db findings --revision "${a:0:12}" --db "$db"
  expect_grep "^1 finding$" "$tmp/out"
  expect_exit 0 "$FIACHECK" db findings --revision "$a" --db "$db"
  expect_grep "^1 finding$" "$tmp/out"
  expect_exit 1 "$FIACHECK" db regressions --base "${a:0:12}" --head cccc --db "$db"
  expect_grep "^1 regression from $a to $c" "$tmp/out"
  # ambiguous: both matches listed
  expect_exit 2 "$FIACHECK" db regressions --base aaaa1111 --head cccc --db "$db"
  expect_grep "ambiguous" "$tmp/err"
  expect_grep "$a" "$tmp/err"
  expect_grep "$b" "$tmp/err"
  # unknown, or too short a prefix: exit 2, the known revisions listed
  expect_exit 2 "$FIACHECK" db findings --revision deadbeef --db "$db"
  expect_grep "deadbeef" "$tmp/err"
  expect_grep "knows ${c:0:12}, ${b:0:12}, ${a:0:12}" "$tmp/err"
  expect_exit 2 "$FIACHECK" db findings --revision ccc --db "$db"
  expect_grep "${c:0:12}" "$tmp/err"
  # a git name: HEAD of a repository in the working directory
  if command -v git >/dev/null; then
    g=$tmp/repo
    git init -q "$g" && git -C "$g" -c user.name=t -c user.email=t@t \
      commit -q --allow-empty -m one
    h=$(git -C "$g" rev-parse HEAD)
    sqlite3 "$db" "INSERT INTO campaigns(id, revision, target, profile, started,
      updated, execs) VALUES (4, '$h', 'fuzz_params', 'doc', 1700003000,
      1700003100, 10);"
    cd "$g"
    expect_exit 0 "$FIACHECK" db findings --revision HEAD --db "$db"
    expect_grep "^0 findings" "$tmp/out"
    # a parent that ignores SIGCHLD (inherited: the kernel then reaps the
    # children itself, and a wait for git finds none) changes nothing
    expect_exit 0 timeout 20 bash -c 'trap "" CHLD; exec "$0" "$@"' \
      "$FIACHECK" db findings --revision HEAD --db "$db"
    expect_grep "^0 findings" "$tmp/out"
    expect_exit 0 "$FIACHECK" db regressions --base "${c:0:12}" --head HEAD --db "$db"
    expect_grep "from $c to $h" "$tmp/out"
    expect_exit 2 "$FIACHECK" db findings --revision no-such-branch --db "$db"
    cd "$root"
  fi
fi
finish
