#!/usr/bin/env bash
# independence.sh BUILD_DIR [SOURCE_DIR]: the parts reference only the parts
# they are allowed to, in their sources (includes) and in the built libraries
# (symbols).  fast/ (the system under test) and ref/ + oracle/ + compare/
# (the judges) must share nothing but core/'s plain data: a bug in shared
# validation or arithmetic would be a bug the harness cannot see.
#
# ALLOWED below is the dependency graph; CMakeLists.txt links each part to
# exactly these libraries.  A library's undefined symbols that some other
# part defines must be defined by the part itself or by a part it may use.
set -uo pipefail
build=${1:?usage: independence.sh BUILD_DIR [SOURCE_DIR]}
src=${2:-$(cd "$(dirname "$0")/.." && pwd)}
fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

declare -A ALLOWED=(
  [core]=""
  [ref]="core"
  [oracle]="core"
  [compare]="core ref"
  [fast]="core"
  [store]="core"
  [sut]="core fast"
  [harness]="core ref oracle compare sut"
)
# Public headers of each part: including one is using that part.
declare -A HEADERS=(
  [ref]="fia/ref.h"
  [oracle]="fia/oracle.h"
  [compare]="fia/compare.h"
  [fast]="fia/fast.h"
  [store]="fia/store.h"
  [sut]="fia/sut_host.h"
  [harness]="fia/check.h"
)

allowed() { # allowed PART OTHER: 0 when PART may use OTHER
  [ "$1" = "$2" ] && return 0
  local p
  for p in ${ALLOWED[$1]}; do [ "$p" = "$2" ] && return 0; done
  return 1
}

# 1. Sources: no part includes another part's public header or reaches into
#    its folder, unless allowed.
for part in "${!ALLOWED[@]}"; do
  [ -d "$src/$part" ] || continue
  files=$(find "$src/$part" -name '*.[ch]')
  [ -n "$files" ] || continue
  for other in "${!ALLOWED[@]}"; do
    allowed "$part" "$other" && continue
    pat="#[[:space:]]*include[[:space:]]*[\"<](\\.\\./)*$other/"
    [ -n "${HEADERS[$other]:-}" ] && pat="$pat|#[[:space:]]*include[[:space:]]*[\"<]${HEADERS[$other]}[\">]"
    hits=$(grep -EHn "$pat" $files || true)
    [ -z "$hits" ] || bad "$part/ includes $other/ (not allowed):
$hits"
  done
done

# 2. Symbols of the built libraries.
defined() { nm -g --defined-only "$1" 2>/dev/null | awk 'NF >= 3 {print $3}' | sort -u; }
undefined() { nm -g --undefined-only "$1" 2>/dev/null | awk '{print $NF}' | sort -u; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n_libs=0
for part in "${!ALLOWED[@]}"; do
  lib="$build/libfia_$part.a"
  [ -f "$lib" ] || continue
  n_libs=$((n_libs + 1))
  defined "$lib" >"$tmp/def.$part"
  undefined "$lib" >"$tmp/undef.$part"
done
[ "$n_libs" -ge 5 ] || bad "found $n_libs part libraries in $build (not a build directory?)"
for part in "${!ALLOWED[@]}"; do
  [ -f "$tmp/undef.$part" ] || continue
  for other in "${!ALLOWED[@]}"; do
    allowed "$part" "$other" && continue
    [ -f "$tmp/def.$other" ] || continue
    # a symbol the part needs that only a forbidden part defines
    hits=$(comm -12 "$tmp/undef.$part" "$tmp/def.$other" | grep -vxFf "$tmp/def.$part" || true)
    [ -z "$hits" ] || bad "libfia_$part.a references symbols of $other/ (not allowed): $(echo $hits)"
  done
done

# 3. The link graph: each part links exactly the parts it may use (a part
#    that links more could start using it unnoticed; one that links less
#    reaches its dependencies only through link order).
graph="$build/link_graph.txt"
if [ -f "$graph" ]; then
  while IFS='=' read -r part libs; do
    [ -n "${ALLOWED[$part]+x}" ] || { bad "link graph names unknown part $part"; continue; }
    linked=$(for l in $libs; do case $l in fia_*) echo "${l#fia_}" ;; esac; done | sort | tr '\n' ' ')
    want=$(for p in ${ALLOWED[$part]}; do echo "$p"; done | sort | tr '\n' ' ')
    [ "$linked" = "$want" ] || bad "fia_$part links [${linked% }], should link [${want% }]"
  done <"$graph"
else
  bad "no $graph (configure the build with CMake first)"
fi

if [ "$fail" -eq 0 ]; then
  echo "independence: $n_libs libraries and their sources reference only allowed parts"
fi
[ "$fail" -eq 0 ]
