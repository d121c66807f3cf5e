#!/usr/bin/env bash
# `fiacheck db regressions` on accuracy: per bucket, the error-to-bound
# ratios of two revisions are compared with a one-sided Mann-Whitney U test
# (Bonferroni over the buckets compared) and a minimum effect size; buckets
# with too few cases are not compared; buckets seen at one revision only are
# listed.  The samples are written the way a fuzz campaign writes them.
. "$(dirname "$0")/lib.sh"

# option validation (exit 2, never an empty listing)
db=$tmp/r.db
expect_exit 0 "$FIACHECK" db init --db "$db"
expect_exit 2 "$FIACHECK" db findings --state bogus --db "$db"
expect_grep "state" "$tmp/err"
expect_exit 2 "$FIACHECK" db findings --kind bogus --db "$db"
expect_grep "kind" "$tmp/err"
expect_exit 0 "$FIACHECK" db findings --state regressed --kind nan-leak --db "$db"

command -v sqlite3 >/dev/null || { echo "sqlite3 missing: skipped the rest"; finish; exit; }

case_file=corpus/cases/mask/$(ls corpus/cases/mask | head -1)
# samples(campaign, bucket, n, seed, shift): ratios from a deterministic
# hash (the same distribution for every seed), plus shift
samples() {
  cat <<SQL
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < $3)
INSERT INTO accuracy_samples(campaign_id, bucket, ratio)
SELECT $1, '$2', ((i * 2654435761 + $4 * 40503) % 1000003) / 1000003.0 * 0.5
  + $5 FROM k;
INSERT INTO accuracy VALUES ($1, '$2', $3, 3, 1.5 * $3, 1e-3)
  ON CONFLICT DO NOTHING;
SQL
}
{
  echo "INSERT INTO campaigns(id, revision, target, profile, started, updated)
    VALUES (1, 'A', 'fuzz_numeric', 'doc', 1, 2), (2, 'B', 'fuzz_numeric', 'doc', 3, 4),
           (3, 'C', 'fuzz_numeric', 'doc', 5, 6);"
  samples 1 fp16/BNSD 400 1 0;   samples 2 fp16/BNSD 600 2 0
  samples 1 bf16/BSH 10 1 0;     samples 2 bf16/BSH 12 2 0
  samples 1 only-a 50 1 0;       samples 2 only-b 50 2 0
  samples 3 fp16/BNSD 400 3 0.08; samples 3 bf16/BSH 10 3 0
  echo "INSERT INTO accuracy_worst VALUES (3, 'fp16/BNSD', 0.58, readfile('$case_file'));"
} | sqlite3 "$db"

# the same build twice: nothing got worse, exit 0
expect_exit 0 "$FIACHECK" db regressions --base A --head B --db "$db"
expect_grep "^0 regressions from A to B" "$tmp/out"
expect_grep "Mann-Whitney" "$tmp/out"
expect_grep "^too-few +bucket bf16/BSH" "$tmp/out"
expect_grep "^only-base +bucket only-a" "$tmp/out"
expect_grep "^only-head +bucket only-b" "$tmp/out"
expect_grep "^same +bucket fp16/BNSD" "$tmp/out"
expect_exit 0 "$FIACHECK" db regressions --base B --head A --db "$db"
expect_exit 0 "$FIACHECK" db regressions --json --base A --head B --db "$db"
expect_grep '"bucket":"fp16/BNSD".*"p_value":' "$tmp/out"

# a shifted build: reported, exit 1, with the way to its worst case
expect_exit 1 "$FIACHECK" db regressions --base A --head C --db "$db"
expect_grep "^accuracy +bucket fp16/BNSD" "$tmp/out"
expect_grep "db worst --revision C --bucket fp16/BNSD" "$tmp/out"
expect_grep "^1 regression from A to C" "$tmp/out"
expect_exit 0 "$FIACHECK" db regressions --base C --head A --db "$db"
# a larger minimum effect hides it
expect_exit 0 "$FIACHECK" db regressions --base A --head C --min-effect 0.99 --db "$db"
expect_exit 2 "$FIACHECK" db regressions --base A --head C --min-effect 2 --db "$db"
expect_exit 2 "$FIACHECK" db regressions --base A --head C --alpha 0 --db "$db"
expect_exit 2 "$FIACHECK" db regressions --base A --head C --min-cases x --db "$db"

# the worst case comes out as a case file fiacheck repro reads
"$FIACHECK" db worst --revision C --bucket fp16/BNSD --db "$db" >"$tmp/w.case"
cmp -s "$tmp/w.case" "$case_file" && ok || bad "db worst printed another text"
expect_exit 0 "$FIACHECK" repro "$tmp/w.case"
expect_exit 2 "$FIACHECK" db worst --revision A --bucket fp16/BNSD --db "$db"
expect_grep "no worst case" "$tmp/err"
expect_exit 2 "$FIACHECK" db worst --revision C --db "$db"
finish
