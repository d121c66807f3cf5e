#!/usr/bin/env bash
# -h / --help on every command and subcommand: usage on stdout, exit 0; and
# every option README.md's examples show for a command is in its help.
. "$(dirname "$0")/lib.sh"

cmds="run ref bench fuzz repro minimize rules db"
for c in $cmds; do
  for h in --help -h; do
    expect_exit 0 "$FIACHECK" $c $h
    expect_grep '^usage' "$tmp/out"
  done
  expect_exit 0 "$FIACHECK" help $c
  expect_grep "^usage: fiacheck $c" "$tmp/out"
done
for s in init findings show stats regressions mark merge export; do
  expect_exit 0 "$FIACHECK" db $s --help
  expect_grep '^usage' "$tmp/out"
done
expect_exit 0 "$FIACHECK" run corpus/cases/gqa/gqa_bnsd_causal.case -h
expect_exit 2 "$FIACHECK" help nosuchcommand

# README: each line naming `fiacheck CMD`, the --options after it.
grep -oE 'fiacheck (run|ref|bench|fuzz|repro|minimize|rules|db)( [^#`]*)?' README.md |
while read -r _ c rest; do
  for o in $(echo "$rest" | grep -oE -- '--[a-z][a-z-]*'); do
    echo "$c $o"
  done
done | sort -u >"$tmp/readme_opts"
[ -s "$tmp/readme_opts" ] && ok || bad "no options found in README.md"
while read -r c o; do
  "$FIACHECK" $c --help >"$tmp/help" 2>&1
  if grep -q -- "$o" "$tmp/help"; then ok; else bad "fiacheck $c --help lacks $o (README shows it)"; fi
done <"$tmp/readme_opts"
# --tolerance: every name of the comparator's one list (compare/tolerance.c
# prof_names) in the help of each command that takes it, and in the error
names=$(sed -n '/prof_names\[FIA_TOL_COUNT\]/,/};/p' compare/tolerance.c | grep -oE '"[a-z-]+"' | tr -d '"')
[ "$(echo $names | wc -w)" -ge 6 ] && ok || bad "cannot read the tolerance list: '$names'"
for c in run repro minimize; do
  expect_exit 0 "$FIACHECK" help $c
  for n in $names; do expect_grep "--tolerance [^ ]*\b$n\b" "$tmp/out"; done
done
expect_exit 2 "$FIACHECK" run corpus/cases/gqa/gqa_bnsd_causal.case --tolerance bogus
for n in $names; do expect_grep "\b$n\b" "$tmp/err"; done
finish
