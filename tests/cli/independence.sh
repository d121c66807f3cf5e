#!/usr/bin/env bash
# The parts' independence, on the built libraries beside $FIACHECK: every
# symbol a part's library needs from the project is defined in a part it may
# use.  fast/ uses only core/; ref/ and oracle/ only core/; compare/ core/
# and ref/ (fia_ref_visit_rows).  Symbols no part defines (libc, libm, MPFR,
# the sanitizers) are not the project's and are not looked at.
. "$(dirname "$0")/lib.sh"
dir=$(dirname "$FIACHECK")
if ! command -v nm >/dev/null; then
  echo "nm not found: skipped"
  finish
  exit $?
fi

defined() {
  nm --defined-only "$dir/lib$1.a" 2>/dev/null | awk 'NF == 3 {print $3}'
}
# check PART ALLOWED...: PART's project symbols come from itself or ALLOWED.
check() {
  local part=$1; shift
  if [ ! -f "$dir/lib$part.a" ]; then bad "no $dir/lib$part.a"; return; fi
  local all=() p
  for p in fia_core fia_ref fia_oracle fia_compare fia_fast fia_harness; do
    [ -f "$dir/lib$p.a" ] && all+=("$p")
  done
  local project allowed missing
  project=$(for p in "${all[@]}"; do defined "$p"; done | sort -u)
  allowed=$( (defined "$part"; for p in "$@"; do defined "$p"; done) | sort -u)
  missing=$(nm -u "$dir/lib$part.a" | awk '{print $NF}' | sort -u |
            comm -12 - <(echo "$project") | comm -23 - <(echo "$allowed"))
  if [ -z "$missing" ]; then ok; else
    bad "lib$part.a uses symbols of parts it must not use:" $missing; fi
}

check fia_core
check fia_fast fia_core
check fia_ref fia_core
check fia_oracle fia_core
check fia_compare fia_core fia_ref
finish
