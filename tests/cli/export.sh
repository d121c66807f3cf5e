#!/usr/bin/env bash
# export: each interface's cases as files (NPY headers, call.json in the
# interface's own names and order), its refusals (exit 2, nothing
# half-written), and the scripts it writes run against the stand-in
# modules of tests/device/shim, every case answered in out/status.json.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
shim=$PWD/tests/device/shim
$PY -c 'import numpy, torch' 2>/dev/null || skip "python3-numpy / python3-torch not installed"

A=corpus/cases/api
cases="$A/torch_npu_v2_doc_example.case $A/torch_npu_v2_reject_tnd_without_qlen.case
  $A/incre_flash_attention_kv_lengths.case $A/incre_flash_attention_doc_example.case
  $A/torchair_v2_decode.case $A/torchair_v2_default_kv_heads.case
  corpus/cases/sink/decode_torchair_bsnd.case
  $A/mindspore_prefill.case $A/mindspore_left_padding.case"
D=$tmp/d
expect_exit 0 "$FIACHECK" export $cases --dir "$D"
expect_grep "exported 9 of 9" "$tmp/out"
# a key/value list through mindspore, int4 through torch_npu_v2
expect_exit 0 "$FIACHECK" export corpus/cases/tensor_list/decode_bsh_lengths_within_tensors.case \
  --api mindspore --dir "$D"
expect_exit 0 "$FIACHECK" export corpus/cases/antiquant/int4_separate_per_channel_decode.case \
  --api torch_npu_v2 --dir "$D"
[ "$(wc -l <"$D/cases.tsv")" -eq 11 ] && ok || bad "cases.tsv: $(wc -l <"$D/cases.tsv") lines, wanted 11"
for s in fiacheck_cases run_torch_npu_v2 run_incre_flash_attention run_torchair_v2 run_mindspore; do
  cmp -s "device/$s.py" "$D/$s.py" && ok || bad "$D/$s.py is not device/$s.py"
done

# 1. The files: every .npy as call.json describes it; the parameters the
# interface's signature (the shims' tables, transcribed apart from
# core/case_api.c) lists, in its order; the case.fia parses again.
cat >"$tmp/check.py" <<'PYEOF'
import json, os, sys
import numpy as np
sys.path.insert(0, sys.argv[2])
import torch_npu, torchair
from mindspore import ops as msops
sigs = {"torch_npu_v2": torch_npu.V2_SIGNATURE,
        "incre_flash_attention": torch_npu.INCRE_SIGNATURE,
        "torchair_v2": torchair.SIGNATURE, "mindspore": msops.SIGNATURE}
descr = {"float16": "<f2", "bfloat16": "<u2", "float32": "<f4", "int8": "|i1",
         "uint8": "|u1", "int4": "|u1", "int32": "<i4", "int64": "<i8",
         "uint64": "<u8", "bool": "|b1"}
root, bad, n = sys.argv[1], 0, 0
for line in open(os.path.join(root, "cases.tsv")):
    d, api, digest, name = line.rstrip("\n").split("\t")
    call = json.load(open(os.path.join(root, d, "call.json")))
    assert call["api"] == api and call["digest"] == digest, d
    names = [s[0] for s in sigs[api]]
    if list(call["params"]) != names:
        print("%s: params %s, the signature %s" % (d, list(call["params"]), names)); bad += 1
    def check(desc):
        global bad, n
        path = os.path.join(root, d, desc["tensor"])
        with open(path, "rb") as f:
            if f.read(8) != b"\x93NUMPY\x01\x00": print(path, "no NPY v1.0 magic"); bad += 1
            hlen = int.from_bytes(f.read(2), "little")
            if (10 + hlen) % 64: print(path, "header not 64-aligned"); bad += 1
        a = np.load(path)
        shape = list(desc["shape"])
        if desc["dtype"] == "int4": shape[-1] //= 2
        if a.dtype.str != np.dtype(descr[desc["dtype"]]).str or list(a.shape) != shape:
            print(path, a.dtype.str, a.shape, desc); bad += 1
        n += 1
    for v in call["params"].values():
        if isinstance(v, dict) and "tensor" in v: check(v)
        if isinstance(v, dict) and "tensor_list" in v: [check(t) for t in v["tensor_list"]]
    if api == "torchair_v2" and not isinstance(call["params"]["actual_seq_lengths_kv"] or {}, dict):
        print(d, "TorchAir lengths not a tensor"); bad += 1
print("%d tensors checked" % n)
sys.exit(1 if bad else 0)
PYEOF
expect_exit 0 $PY "$tmp/check.py" "$D" "$shim"
expect_grep "^[1-9][0-9]* tensors checked" "$tmp/out"
expect_grep '"tensor_list": \[\{"tensor": "key.0.npy"' "$D/decode_bsh_lengths_within_tensors/call.json"
expect_grep '"key": \{"tensor": "key.npy", "dtype": "int4"' "$D/int4_separate_per_channel_decode/call.json"
expect_grep '"softmax_scale": 1.0,|"softmax_scale": 0\.' "$D/torch_npu_v2_doc_example/call.json"
expect_exit 0 "$FIACHECK" run --status-only "$D/torchair_v2_decode/case.fia"

# 2. Refusals: exit 2 with a message.  A bad command writes nothing; a
# case that cannot be exported is named with its reason and the others
# are written.
E=$tmp/e
expect_exit 2 "$FIACHECK" export $A/mindspore_prefill.case
expect_grep "no --dir" "$tmp/err"
expect_exit 2 "$FIACHECK" export $A/mindspore_prefill.case --dir "$E" --api nosuch
[ ! -e "$E" ] && ok || bad "$E written by a bad command"
P=$tmp/partial
expect_exit 2 "$FIACHECK" export $A/mindspore_prefill.case "$tmp/none.case" \
  corpus/cases/layout/huge_kv_bsh_prefill_far_rows.case $A/torch_npu_v2_doc_example.case --dir "$P"
expect_grep "none.case" "$tmp/err"
expect_grep "huge_kv_bsh_prefill_far_rows.case: its input tensors are .* GiB" "$tmp/err"
expect_grep "refused 2 of 4 cases" "$tmp/err"
expect_grep "exported 2 of 4 cases" "$tmp/out"
[ "$(cut -f1 "$P/cases.tsv" 2>/dev/null | tr '\n' ' ')" = "mindspore_prefill torch_npu_v2_doc_example " ] &&
  [ -f "$P/torch_npu_v2_doc_example/call.json" ] && [ ! -e "$P/huge_kv_bsh_prefill_far_rows" ] && ok ||
  bad "a partial export did not write exactly the cases it could"
# 003/004's additions through aclnn_v2: 002 documents no call with them
expect_exit 2 "$FIACHECK" export corpus/cases/tnd/tnd_ntd_rope_obeys.case --dir "$E"
expect_grep "query_rope is not a parameter of 002's aclnnFusedInferAttentionScoreV2.*--api torch_npu_v2" "$tmp/err"
[ ! -e "$E" ] && ok || bad "$E written though its only case was refused"
expect_exit 0 "$FIACHECK" export corpus/cases/tnd/tnd_ntd_rope_obeys.case --api torch_npu_v2 --dir "$E"
rm -rf "$E"
expect_exit 2 "$FIACHECK" export corpus/cases/sink/decode_torchair_bsnd.case --api mindspore --dir "$E"
expect_grep "learnable_sink" "$tmp/err"
expect_exit 2 "$FIACHECK" export $A/mindspore_prefill.case --dir "$D"
expect_grep "exists" "$tmp/err"
echo x >"$tmp/file"
expect_exit 2 "$FIACHECK" export $A/mindspore_prefill.case --dir "$tmp/file"
expect_exit 2 "$FIACHECK" export $A/mindspore_prefill.case --dir "$tmp/file/sub"
expect_exit 2 "$FIACHECK" export corpus/cases/layout/huge_kv_bsh_prefill_far_rows.case --api torch_npu_v2 --dir "$E"
expect_grep "GiB" "$tmp/err"
[ ! -e "$E" ] && ok || bad "$E written by a refused export"
expect_exit 0 "$FIACHECK" help export
expect_grep "\-\-api NAME" "$tmp/out"

# 3. The scripts against the stand-in modules: every case answered.  The
# aclnn stand-in computes when it is built and answers; otherwise the
# shims' fake (zeros) stands in for it, which tests the scripts alone.
fake=1
lib=$(dirname "$FIACHECK")/tests/device/standin/lib/libfiacheck_aclnn_standin.so
[ -z "${FIACHECK_ACLNN_STANDIN_LIB:-}" ] && [ -f "$lib" ] && export FIACHECK_ACLNN_STANDIN_LIB=$lib
if PYTHONPATH=$shim $PY -c '
import sys; sys.path.insert(0, "tests/device/standin"); import aclnn_standin, numpy as np
aclnn_standin.call({"query": (np.zeros([1,1,16], np.float16), "float16")}, {"key": [(np.zeros([1,1,16], np.float16), "float16")], "value": [(np.zeros([1,1,16], np.float16), "float16")]}, {}, {}, {"attention_out": ("float16", [1,1,16])})' 2>/dev/null; then fake=; fi
[ -n "$fake" ] && echo "note: the aclnn stand-in does not answer here; the shims' fake computes"
for s in torch_npu_v2 incre_flash_attention torchair_v2 mindspore; do
  FIACHECK_SHIM_FAKE=$fake PYTHONPATH=$shim expect_exit 0 $PY "$D/run_$s.py" "$D"
done
n_ok=0
while IFS=$'\t' read -r dir api digest name; do
  st=$D/$dir/out/status.json
  if ! $PY -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["status"] in ("ok","error") and s["version"]' "$st" 2>/dev/null; then
    bad "$dir: no valid out/status.json"; continue; fi
  if grep -q '"status": "ok"' "$st"; then
    n_ok=$((n_ok + 1))
    [ -f "$D/$dir/out/attention_out.npy" ] && ok || bad "$dir: ok without attention_out.npy"
  fi
done <"$D/cases.tsv"
[ "$n_ok" -ge 5 ] && ok || bad "only $n_ok cases accepted"
# the lse only where the interface returns one and the case asks
[ -f "$D/torchair_v2_decode/out/softmax_lse.npy" ] && ok || bad "torchair_v2_decode: no softmax_lse.npy"
[ ! -e "$D/incre_flash_attention_kv_lengths/out/softmax_lse.npy" ] && ok || bad "001 returned an lse"

# a refusal: the code parsed from the message as the frameworks word it;
# one case alone with --case, each in its own process with --isolate
FIACHECK_SHIM_FAKE=561002 PYTHONPATH=$shim expect_exit 1 $PY "$D/run_mindspore.py" --case "$D/mindspore_prefill"
expect_grep '"code": 561002' "$D/mindspore_prefill/out/status.json"
[ ! -e "$D/mindspore_prefill/out/attention_out.npy" ] && ok || bad "a refused call kept its old output"
FIACHECK_SHIM_FAKE=1 PYTHONPATH=$shim expect_exit 0 $PY "$D/run_torch_npu_v2.py" --isolate "$D"
expect_grep "3 cases: 3 accepted" "$tmp/out"
PYTHONPATH=$shim expect_exit 2 $PY "$D/run_mindspore.py"

# 4. The shims refuse what the documents do not name, naming it.
cat >"$tmp/shim.py" <<'PYEOF'
import sys, torch, torch_npu
q = torch.zeros([1, 1, 16], dtype=torch.float16).npu()
for kw, word in (({"num_heads": 1}, "num_heads"), ({"num_query_heads": "1"}, "num_query_heads"),
                 ({"softmax_scale": 1}, "softmax_scale"), ({"actual_seq_kvlen": (1.5,)}, "actual_seq_kvlen")):
    try:
        torch_npu.npu_fused_infer_attention_score_v2(q, q, q, **kw)
        print("accepted", kw); sys.exit(1)
    except TypeError as e:
        if word not in str(e): print("message", e); sys.exit(1)
try:
    torch_npu.npu_incre_flash_attention(q, torch.zeros([1, 1, 16], dtype=torch.float16), q)
    print("a host tensor accepted"); sys.exit(1)
except TypeError as e:
    assert "key" in str(e)
print("refused")
PYEOF
FIACHECK_SHIM_FAKE=1 PYTHONPATH=$shim expect_exit 0 $PY "$tmp/shim.py"
expect_grep refused "$tmp/out"
finish
