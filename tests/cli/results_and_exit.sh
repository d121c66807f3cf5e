#!/usr/bin/env bash
# results/ is a folder of the tree with its README (the generated parts stay
# ignored), and a run with both findings and bad inputs exits 2 (bad input
# wins: the run is not trustworthy as a whole; docs/cli.md).
. "$(dirname "$0")/lib.sh"
[ -f results/README.md ] && ok || bad "no results/README.md"
for w in findings.db corpus artifacts logs stats delete; do
  expect_grep "$w" results/README.md
done
if git rev-parse --git-dir >/dev/null 2>&1; then
  git check-ignore -q results/README.md && bad "results/README.md is ignored" || ok
  for p in results/findings.db results/corpus/x results/artifacts/x results/logs/x results/stats/x; do
    git check-ignore -q "$p" && ok || bad "$p is not ignored"
  done
fi
for v in pass not-modeled status-mismatch accuracy nan-leak harness-error bad-input; do
  expect_grep "\`$v\`" docs/cli.md
done

C=corpus/cases/gqa/gqa_bnsd_causal.case
printf 'this is not a case\n' >"$tmp/bad.case"
expect_exit 1 "$FIACHECK" run --tolerance allclose 0 0 $C
expect_exit 2 "$FIACHECK" run --tolerance allclose 0 0 $C "$tmp/bad.case"
expect_grep '1 findings, 0 not modeled, 1 bad input' "$tmp/out"
expect_exit 2 "$FIACHECK" run --json --tolerance allclose 0 0 "$tmp/bad.case" $C
expect_grep '"verdict":"accuracy"' "$tmp/out"
expect_grep '"verdict":"bad-input"' "$tmp/out"
finish
