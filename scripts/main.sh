#!/usr/bin/env bash
# The main job.  Until fuzz campaigns exist it runs the whole corpus of
# cases in both interception profiles and prints the summary.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/deps.sh
CC=gcc bash scripts/build.sh build/gcc -DCMAKE_BUILD_TYPE=RelWithDebInfo
rc=0
for profile in doc cann; do
  echo "== corpus, profile $profile"
  ./build/gcc/fiacheck run --profile "$profile" corpus/cases/*.case | tail -n 1 || rc=$?
done
exit $rc
