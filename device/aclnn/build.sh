#!/bin/bash
# Builds fia_aclnn_run, the program that makes each exported aclnn_v2 case's
# aclnnFusedInferAttentionScoreV2 call, next to this script.
#
#   bash build.sh                      against the CANN toolkit at
#                                      $ASCEND_HOME_PATH (source its set_env.sh)
#   FIA_ACLNN_STANDIN=DIR bash build.sh
#                                      against fiacheck's CPU stand-in: DIR
#                                      holds include/ and
#                                      lib/libfiacheck_aclnn_standin.so (its
#                                      build folder, tests/device/standin/
#                                      of a fiacheck build)
#
# CC and CFLAGS are taken from the environment (default: cc, -O2 -g);
# OUT names the program (default: fia_aclnn_run beside this script).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cc=${CC:-cc}
cflags=${CFLAGS:--O2 -g}
out=${OUT:-$here/fia_aclnn_run}
if [ -n "${FIA_ACLNN_STANDIN:-}" ]; then
  sd=$FIA_ACLNN_STANDIN
  lib=$sd/lib/libfiacheck_aclnn_standin.so
  inc=$sd/include
  if [ ! -f "$lib" ] || [ ! -f "$inc/acl/acl.h" ]; then
    echo "build.sh: $sd has no include/acl/acl.h and" \
         "lib/libfiacheck_aclnn_standin.so (the stand-in's build folder)" >&2
    exit 2
  fi
  system=aclnn-standin
  version=$(cat "$sd/VERSION" 2>/dev/null || echo standin)
  incs=(-I "$inc")
  libs=("$lib" "-Wl,-rpath,$(dirname "$lib")")
else
  if [ -z "${ASCEND_HOME_PATH:-}" ] || [ ! -d "$ASCEND_HOME_PATH/include" ]; then
    echo "build.sh: ASCEND_HOME_PATH is not a CANN toolkit (source its" \
         "set_env.sh), and FIA_ACLNN_STANDIN is not set" >&2
    exit 2
  fi
  system=aclnn
  version=unknown
  info=$ASCEND_HOME_PATH/ascend_toolkit_install.info
  if [ -f "$info" ]; then
    version=$(sed -n 's/^version=//p' "$info" | head -n1)
  fi
  incs=(-I "$ASCEND_HOME_PATH/include" -I "$ASCEND_HOME_PATH/include/aclnnop")
  libs=(-L "$ASCEND_HOME_PATH/lib64" -lascendcl -lnnopbase -lopapi
        "-Wl,-rpath,$ASCEND_HOME_PATH/lib64")
fi
# shellcheck disable=SC2086
"$cc" -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra $cflags "${incs[@]}" \
  -DFIA_ACLNN_SYSTEM="\"$system\"" -DFIA_ACLNN_VERSION="\"${version:-unknown}\"" \
  -o "$out" "$here"/fia_aclnn_*.c "${libs[@]}" -lm
echo "built $out ($system ${version:-unknown})"
