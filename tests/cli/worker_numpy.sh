#!/usr/bin/env bash
# The NumPy worker (workers/numpy, docs/sut/numpy.md) through --sut exec:
# the corpus cases it covers pass with no finding, it keeps covering at
# least the measured floor, it never fails inside itself, and the same
# worker with its scale dropped (FIA_NUMPY_WORKER_PLANT=scale) is caught.
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
py=/usr/bin/python3
[ -x "$py" ] && "$py" -c 'import numpy' 2>/dev/null || skip "/usr/bin/python3 has no numpy"
worker="exec:$py $root/workers/numpy/fia_numpy_worker.py"

# The corpus but api/ and query_quant/ (which it refuses) and one MLA case
# of 128 heads: each case is also evaluated by the MPFR reference, and
# those take most of a minute under the sanitizers.
cases=$(ls "$root"/corpus/cases/{gqa,mask,sparse,seqlen,layout,lse,precise,scale,output,pse,sink,tnd,paged,padding,prefix,tensor_list,antiquant,int8_out,int8_quant,int_inputs,tensors,product,reserved,mla}/*.case |
  grep -v 'mla/decode_bsnd_128_heads_split')
"$FIACHECK" run --json --sut "$worker" $cases >"$tmp/run.json" 2>"$tmp/run.err"
rc=$?
verdict() { grep -c "\"verdict\":\"$1\"" "$tmp/run.json"; }
passes=$(verdict pass)
findings=$(grep -Ec '"verdict":"(status-mismatch|accuracy|nan-leak|harness-error|crash|timeout)"' "$tmp/run.json")
# a worker exception comes back as 361001 "numpy worker error": never allowed
errors=$(grep -c 'numpy worker error' "$tmp/run.json")
if [ "$findings" -eq 0 ] && [ "$errors" -eq 0 ] && [ "$rc" -eq 0 ]; then ok; else
  bad "the worker on the corpus: exit $rc, $findings findings, $errors worker errors"
  grep -E '"verdict":"(status-mismatch|accuracy|nan-leak|harness-error|crash|timeout)"|numpy worker error' \
    "$tmp/run.json" | head -5 >&2; tail -5 "$tmp/run.err" >&2; fi
# measured: 196 passes on these folders; a worker that stops covering
# a feature falls below it
floor=196
if [ "$passes" -ge "$floor" ]; then ok; else bad "$passes passes, fewer than $floor"; fi
expect_grep '"sut":"numpy"' "$tmp/run.json"

# The planted worker: the same cases of GQA and masks, scale dropped.
planted=$(ls "$root"/corpus/cases/{gqa,mask,sparse}/*.case)
FIA_NUMPY_WORKER_PLANT=scale "$FIACHECK" run --json --sut "$worker" $planted >"$tmp/plant.json" 2>/dev/null
rc=$?
caught=$(grep -c '"verdict":"accuracy"' "$tmp/plant.json")
if [ "$rc" -eq 1 ] && [ "$caught" -gt 0 ]; then ok; else
  bad "the planted scale bug: exit $rc, $caught accuracy findings"; fi
finish
