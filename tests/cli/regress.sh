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
  if [ "$target" = fuzz_metamorphic ]; then
    expect_exit 0 "$FIACHECK" repro "$c"
  else
    expect_exit 0 "$FIACHECK" run "${args[@]}" "$c"
  fi
done
finish
