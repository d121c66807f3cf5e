#!/usr/bin/env bash
# Minimized regression cases (tests/regress/*.case, written by `fiacheck
# minimize`): each must pass under `fiacheck run` in the profile its header
# names (status only for fuzz_params findings).
. "$(dirname "$0")/lib.sh"
shopt -s nullglob
cases=(tests/regress/*.case)
if [ ${#cases[@]} -eq 0 ]; then
  echo "no regression cases in tests/regress"
  finish
  exit $?
fi
for c in "${cases[@]}"; do
  profile=$(sed -n 's/^# fiacheck-profile: //p' "$c" | head -n 1)
  target=$(sed -n 's/^# fiacheck-target: //p' "$c" | head -n 1)
  args=(--profile "${profile:-doc}")
  [ "$target" = fuzz_params ] && args+=(--status-only)
  cmd=(run "${args[@]}")
  [ "$target" = fuzz_metamorphic ] && cmd=(repro)
  # a case minimized on a CPU with kernels this one lacks (its
  # kernel_level line) runs with this CPU's own, as repro runs a finding's
  # recorded level
  "$FIACHECK" "${cmd[@]}" "$c" >"$tmp/try" 2>&1
  if grep -q "^kernel_level = " "$c" &&
     grep -q "kernel_level = [a-z0-9]*: the system under test (fast) cannot run so here" "$tmp/try"; then
    echo "$c: its kernel_level is not on this CPU; run at this CPU's own level"
    grep -v "^kernel_level = " "$c" >"$tmp/here.case"
    expect_exit 0 "$FIACHECK" "${cmd[@]}" "$tmp/here.case"
  else
    expect_exit 0 "$FIACHECK" "${cmd[@]}" "$c"
  fi
done
finish
