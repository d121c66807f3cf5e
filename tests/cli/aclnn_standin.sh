#!/bin/bash
# device/aclnn/fia_aclnn_run.c, the C program `fiacheck export` ships, built
# with its build.sh against the aclnn stand-in (tests/device/standin: the
# ACL and aclnn calls computed by fast/) and run on exported cases: an
# accepted call leaves outputs of the shapes call.json gives, a refused one
# the status fast/ gives (`fiacheck run` says which); the Python wrapper
# gives the same bytes as the C program; bad input stops with exit 2.
source "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$(dirname "$FIACHECK")" && pwd)
standin=$build/tests/device/standin
lib=$standin/lib/libfiacheck_aclnn_standin.so
py=/usr/bin/python3
[ -f "$lib" ] || skip "the stand-in is not built ($lib)"
$py -c 'import numpy' 2>/dev/null || skip "no numpy for $py"

# the program is built as the library was: under the sanitizers, with them
. "$(dirname "$0")/../device/standin/sanitizer_env.sh"
standin_setup "$build"
cc=$standin_cc
cflags=$standin_cflags
pyenv=("${standin_pyenv[@]}")
run=$tmp/fia_aclnn_run

# build.sh: no toolkit and no stand-in is a clear error; the stand-in builds
expect_exit 2 env -u ASCEND_HOME_PATH -u FIA_ACLNN_STANDIN OUT=$run \
  bash "$root/device/aclnn/build.sh"
expect_grep "ASCEND_HOME_PATH" "$tmp/err"
expect_exit 2 env FIA_ACLNN_STANDIN=$tmp OUT=$run bash "$root/device/aclnn/build.sh"
expect_exit 0 env CC="$cc" CFLAGS="$cflags" FIA_ACLNN_STANDIN=$standin \
  OUT=$run bash "$root/device/aclnn/build.sh"
[ -x "$run" ] || { bad "build.sh made no program"; finish; exit; }

# a refused call of fast/'s own: 4 heads over 3 key/value heads
cat >"$tmp/standin_heads_4_over_3.case" <<'CASE'
input_layout = BNSD
num_heads = 4
num_key_value_heads = 3
scale = 0.125
query = fp16 [1,4,1,64]
key = fp16 [1,3,16,64]
value = fp16 [1,3,16,64]
CASE
cases=("$tmp/standin_heads_4_over_3.case" "$root"/corpus/cases/tensor_list/*.case
       "$root"/corpus/cases/api/aclnn_v2*.case
       "$root"/corpus/cases/antiquant/separate_*.case
       "$root"/corpus/cases/antiquant/int4_*.case
       "$root"/corpus/cases/gqa/gqa_bnsd_causal.case)
D=$tmp/D
expect_exit 0 "$FIACHECK" export "${cases[@]}" --dir "$D" --api aclnn_v2
expect_exit 0 "$run" "$D"
"$FIACHECK" run --status-only --json "${cases[@]}" >"$tmp/run.jsonl" 2>/dev/null

# every case: ok with outputs of call.json's shapes, or fast/'s status
cat >"$tmp/check.py" <<'PY'
import json, os, sys
import numpy as np
D, runs = sys.argv[1], sys.argv[2]
fast = {}
for line in open(runs):
    r = json.loads(line)
    if "case" in r and "fast_status" in r:
        fast[os.path.abspath(r["case"])] = r["fast_status"]
npy = {"float16": "float16", "bfloat16": "uint16", "float32": "float32",
       "int8": "int8", "uint8": "uint8", "int4": "uint8"}
bad = accepted = refused = 0
for line in open(os.path.join(D, "cases.tsv")):
    d, api, digest, name = line.rstrip("\n").split("\t")
    case = os.path.join(D, d)
    want = fast.get(os.path.abspath(name))
    st = json.load(open(os.path.join(case, "out", "status.json")))
    if want is None:
        print("no fiacheck run verdict for", name); bad += 1; continue
    if st["status"] == "ok":
        accepted += 1
        if want != 0:
            print(d, "accepted, fast says", want); bad += 1
        outs = json.load(open(os.path.join(case, "call.json")))["outputs"]
        for o, spec in outs.items():
            a = np.load(os.path.join(case, "out", o + ".npy"))
            shape = list(spec["shape"])
            if spec["dtype"] == "int4":
                shape[-1] = (shape[-1] + 1) // 2
            if list(a.shape) != shape or a.dtype != np.dtype(npy[spec["dtype"]]):
                print(d, o, a.dtype, a.shape, "for", spec); bad += 1
    else:
        refused += 1
        if st.get("code") != want or not st.get("message"):
            print(d, "refused with", st.get("code"), "fast says", want); bad += 1
        if os.path.exists(os.path.join(case, "out", "attention_out.npy")):
            print(d, "refused but wrote attention_out"); bad += 1
    if st.get("system") != "aclnn-standin":
        print(d, "system", st.get("system")); bad += 1
print("accepted", accepted, "refused", refused, "bad", bad)
sys.exit(1 if bad or not accepted or not refused else 0)
PY
expect_exit 0 $py "$tmp/check.py" "$D" "$tmp/run.jsonl"
sed 's/^/    /' "$tmp/out"
hd=$(awk -F'\t' '$4 ~ /standin_heads_4_over_3.case$/ {print $1}' "$D/cases.tsv")
expect_grep '"code": 161002' "$D/$hd/out/status.json"
expect_grep 'num_key_value_heads' "$D/$hd/out/status.json"
expect_grep '"fast_status":161002' "$tmp/run.jsonl"

# the released code's statuses when the stand-in is asked for them
expect_exit 0 env FIA_ACLNN_STANDIN_PROFILE=cann "$run" "$D/$hd"
expect_grep '"code": 561002' "$D/$hd/out/status.json"
expect_exit 1 env FIA_ACLNN_STANDIN_PROFILE=nonsense "$run" "$D/$hd"
expect_grep "FIA_ACLNN_STANDIN_PROFILE" "$tmp/err"
# the device it plays: a product it does not know stops it, naming it
expect_exit 1 env FIA_ACLNN_STANDIN_PRODUCT=atlas_nonsense "$run" "$D/$hd"
expect_grep "FIA_ACLNN_STANDIN_PRODUCT=atlas_nonsense" "$tmp/err"
expect_exit 0 env FIA_ACLNN_STANDIN_PRODUCT=atlas_a2 "$run" "$D/$hd"

# the Python wrapper on one case: the C program's bytes
g=$(awk -F'\t' '$4 ~ /gqa_bnsd_causal.case$/ {print $1}' "$D/cases.tsv")
cat >"$tmp/wrap.py" <<'PY'
import json, os, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import aclnn_standin
case = sys.argv[2]
call = json.load(open(os.path.join(case, "call.json")))
def load(e):
    return (np.load(os.path.join(case, e["tensor"])), e["dtype"])
tensors, lists, arrays, attrs = {}, {}, {}, {}
for k, v in call["params"].items():
    if v is None or k in ("query_quant_mode",):
        continue
    if k in ("key", "value"):
        lists[k] = [load(e) for e in v.get("tensor_list", [v])]
    elif isinstance(v, dict):
        tensors[k] = load(v)
    elif isinstance(v, list):
        arrays[k] = v
    else:
        attrs[k] = v
outs = {k: (v["dtype"], v["shape"]) for k, v in call["outputs"].items()}
code, msg, res = aclnn_standin.call(tensors, lists, arrays, attrs, outs,
                                    library=sys.argv[3])
same = code == 0 and set(res) == set(outs) and all(
    np.load(os.path.join(case, "out", k + ".npy")).tobytes() == a.tobytes()
    for k, a in res.items())
print("code", code, msg, "same bytes" if same else "DIFFERENT")
attrs["num_key_value_heads"] = 3
code, msg, res = aclnn_standin.call(tensors, lists, arrays, attrs, outs,
                                    library=sys.argv[3])
print("refused", code, msg)
sys.exit(0 if same and code == 161002 and msg and not res else 1)
PY
expect_exit 0 "${pyenv[@]}" $py "$tmp/wrap.py" "$root/tests/device/standin" \
  "$D/$g" "$lib"
expect_grep "same bytes" "$tmp/out"

# bad input: no out/status.json and exit 2, the other cases still run
cp -r "$D/$g" "$D/zz_broken_json"
echo '{"format": 1, "api": "aclnn_v2", "params": {' >"$D/zz_broken_json/call.json"
cp -r "$D/$g" "$D/zz_short_npy"
$py -c 'import numpy as np, sys; np.save(sys.argv[1], np.zeros((2, 8, 16, 31), np.float16))' \
  "$D/zz_short_npy/query.npy"
cp -r "$D/$g" "$D/zz_unknown_param"
sed -i 's/"pse_shift": null/"pse_shifts": null/' "$D/zz_unknown_param/call.json"
expect_exit 2 "$run" "$D"
for b in zz_broken_json zz_short_npy zz_unknown_param; do
  [ ! -e "$D/$b/out/status.json" ] && ok || bad "$b has a status.json"
done
expect_grep "zz_short_npy: query" "$tmp/err"
expect_grep "pse_shifts" "$tmp/err"
expect_grep "$g: ok" "$tmp/out"
expect_exit 2 "$run" "$tmp/nowhere"
expect_exit 2 "$run"
finish
