#!/usr/bin/env bash
# ClusterFuzzLite's files: the YAML files parse with the keys ClusterFuzzLite
# reads, the Dockerfile has what the build needs, and .clusterfuzzlite/
# build.sh run under the build contract with AddressSanitizer's flags puts
# every expected file in an empty $OUT (cflite_lib.inc).  The undefined and
# coverage builds: cflite_ubsan_coverage.sh.
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.." || exit 2

# --- the YAML files (PyYAML when installed, else a structural check)
y=(.clusterfuzzlite/project.yaml .github/workflows/cflite_pr.yml
   .github/workflows/cflite_batch.yml)
if python3 -c 'import yaml' 2>/dev/null; then
  python3 - "${y[@]}" >"$tmp/yaml" 2>&1 <<'PY'
import sys, yaml
p = yaml.safe_load(open(sys.argv[1]))
assert p["language"] == "c", p
assert set(p["sanitizers"]) == {"address", "undefined"}, p
for f, mode in ((sys.argv[2], "code-change"), (sys.argv[3], "batch")):
    w = yaml.safe_load(open(f))
    on = w.get("on", w.get(True))  # YAML 1.1 reads the key on as true
    assert ("pull_request" in on) == (mode == "code-change"), (f, on)
    assert mode == "code-change" or "schedule" in on, (f, on)
    (job,) = w["jobs"].values()
    assert job["strategy"]["matrix"]["sanitizer"] == ["address", "undefined"]
    uses = [s["uses"].split("@")[0] for s in job["steps"]]
    assert uses == ["google/clusterfuzzlite/actions/build_fuzzers",
                    "google/clusterfuzzlite/actions/run_fuzzers"], uses
    assert job["steps"][0]["with"].get("language", "c") == "c"
    assert job["steps"][1]["with"]["mode"] == mode, f
print("yaml ok")
PY
  expect_grep "^yaml ok$" "$tmp/yaml"
else
  echo "python3-yaml not installed: structural check of the YAML files"
  expect_grep "^language: c$" .clusterfuzzlite/project.yaml
  expect_grep "^  - address$" .clusterfuzzlite/project.yaml
  expect_grep "^  - undefined$" .clusterfuzzlite/project.yaml
  expect_grep "mode: 'code-change'" .github/workflows/cflite_pr.yml
  expect_grep "mode: 'batch'" .github/workflows/cflite_batch.yml
  for f in "${y[@]}"; do
    # no tabs, and every line indented by an even number of spaces
    if grep -qP '\t' "$f" || grep -Eqv '^((  )*[^ ]|$)' "$f"; then
      bad "$f: tab or odd indentation"; else ok; fi
  done
fi
# --- the Dockerfile: the builder image, the packages the build needs,
# the tree and build.sh where the builder looks for them
d=.clusterfuzzlite/Dockerfile
expect_grep "^FROM gcr.io/oss-fuzz-base/base-builder" $d
for p in cmake libmpfr-dev libgmp-dev libsqlite3-dev zip; do
  expect_grep "(install|^ ).* $p( |$)" $d
done
expect_grep '^COPY \. \$SRC/fiacheck$' $d
expect_grep '^WORKDIR \$SRC/fiacheck$' $d
expect_grep '^COPY \.clusterfuzzlite/build\.sh \$SRC/$' $d
[ -x .clusterfuzzlite/build.sh ] && ok || bad "build.sh not executable"

. tests/cli/cflite_lib.inc
cflite_build address
# --- a plug-in system under test built with the same flags: the target
# loads it (FIACHECK_SUT) before its first input, so the plug-in's own
# coverage counters are a second module that guides libFuzzer
# (docs/sut.md); a FIACHECK_SUT that names no plug-in stops it at once
if [ -x "$tmp/out-address/fuzz_numeric" ]; then
  clang -shared -fPIC $flags_address -I include -o "$tmp/libex.so" \
    plugins/example/example_sut.c -lm
  mkdir -p "$tmp/sutcorp"
  expect_exit 0 env -u FIACHECK_DB FIACHECK_SUT="$tmp/libex.so" \
    "$tmp/out-address/fuzz_numeric" -runs=20 -seed=1 "$tmp/sutcorp"
  expect_grep "Loaded 2 modules" "$tmp/err"
  expect_exit 2 env -u FIACHECK_DB FIACHECK_SUT="$tmp/none.so" \
    "$tmp/out-address/fuzz_numeric" -runs=20 "$tmp/sutcorp"
  expect_grep "FIACHECK_SUT: cannot load the system under test" "$tmp/err"
fi
finish
