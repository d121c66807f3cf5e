#!/usr/bin/python3
"""The operator on its device as a `statuses` worker for
`fiacheck --sut exec:COMMAND` (docs/sut/exec.md, docs/device.md):

    fiacheck run --sut exec:'python3 device/fia_torch_npu_worker.py' CASES

Each call fiacheck sends (in 002's names) is made through the interface its
`api` attribute names -- torch_npu.npu_fused_infer_attention_score_v2 (003)
for aclnn_v2 and torch_npu_v2, npu_incre_flash_attention (001), TorchAir's
graph-mode function (004), mindspore.ops.fused_infer_attention_score (000)
-- with the parameters renamed to that interface's (fiacheck_interfaces),
the tensors made and the outputs read back as the device scripts of
`fiacheck export` make and read them (run_*.py), and an exception answered
with the aclnn code its message carries, as those scripts record it.

What it cannot say truthfully it refuses as not covered (990001), with the
reason: a call that passes something the interface has no parameter for,
and an accepted call whose output came back in another dtype or shape than
the call's (the framework allocates it).  An exception that carries no aclnn
code is answered 361001 with its text.  `profile` and `product` are not
passed: the device answers with its own codes (judge the released code's
with --profile cann) and is the product it is.
"""
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import fiacheck_cases as fc  # noqa: E402
import fiacheck_interfaces as fi  # noqa: E402
import fiacheck_wire as wire  # noqa: E402

NOT_COVERED = 990001
RUNTIME_ERROR = 361001
# FIA_TORCH_NPU_WORKER_VERBOSE=1: each refusal and exception on stderr
VERBOSE = os.environ.get("FIA_TORCH_NPU_WORKER_VERBOSE", "") == "1"


class NotCovered(Exception):
    """A call the worker cannot make, or answer, as fiacheck asked it."""


class Framework:
    """One interface's script functions: make_tensor(array, descriptor),
    call(args, kwargs), to_numpy(tensor, dtype)."""

    def __init__(self, interface):
        if interface in ("torch_npu_v2", "incre_flash_attention",
                         "torchair_v2"):
            import run_torch_npu_v2 as script
            self.make_tensor, self.to_numpy = (script.make_tensor,
                                               script.to_numpy)
            if interface == "incre_flash_attention":
                import run_incre_flash_attention as script
            elif interface == "torchair_v2":
                import run_torchair_v2 as script
        else:
            import run_mindspore as script
            script.use_ascend()
            self.make_tensor, self.to_numpy = (script.make_tensor,
                                               script.to_numpy)
        self.call = script.call


_frameworks = {}


def framework(interface):
    if interface not in _frameworks:
        _frameworks[interface] = Framework(interface)
    return _frameworks[interface]


def typed_attrs(text):
    """The request's attributes (text) as the values the call passes; the
    three that are not the call's are left out."""
    attrs = {}
    for name, v in text.items():
        if name in ("api", "product", "profile"):
            continue
        if name == "scale":
            attrs[name] = float(v)
        elif name == "input_layout":
            attrs[name] = v
        elif name == "softmax_lse_flag":
            attrs[name] = v == "1"
        elif name == "out_dtype":
            attrs[name] = None if v == "none" else int(v)
        else:
            attrs[name] = int(v)
    return attrs


def descriptors(req):
    """The request's tensors as descriptors carrying their arrays (key and
    value as lists of them)."""
    tensors = {}
    for name, (dtype, shape, raw) in req.tensors.items():
        desc = {"tensor": name, "dtype": wire.DTYPES[dtype][0],
                "shape": shape, "array": wire.to_array(dtype, shape, raw)}
        base, _, index = name.partition(".")
        if base in ("key", "value") and index.isdigit():
            tensors.setdefault(base, []).append((int(index), desc))
        else:
            tensors[name] = desc
    for base in ("key", "value"):
        if base in tensors:
            tensors[base] = [d for _, d in sorted(tensors[base],
                                                  key=lambda e: e[0])]
    return tensors


def outputs(req, fw, result):
    """The answer's blobs: each output the request names, as the interface
    returned it; NotCovered when one is not of the call's dtype and shape."""
    import numpy as np
    results = list(result) if isinstance(result, (tuple, list)) else [result]
    blobs = []
    for name, dtype, shape in req.outputs:
        index = {"attention_out": 0, "softmax_lse": 1}[name]
        if index >= len(results):
            raise NotCovered("the interface returned no %s" % name)
        arr = np.asarray(fw.to_numpy(results[index], wire.DTYPES[dtype][0]))
        want = wire.to_array(dtype, shape, None)
        if arr.dtype != want.dtype or list(arr.shape) != list(want.shape):
            raise NotCovered(
                "the interface returned %s as %s %s, the call wants %s %s "
                "(it allocates its outputs itself)"
                % (name, arr.dtype, list(arr.shape), dtype, shape))
        blobs.append((name, np.ascontiguousarray(arr).tobytes()))
    return blobs


def answer(req, out):
    api = req.attrs.get("api", "aclnn_v2")
    try:
        interface, params = fi.translate(api, descriptors(req), req.arrays,
                                         typed_attrs(req.attrs))
    except fi.Unexpressible as e:
        return refuse(out, NOT_COVERED, "not covered: %s" % e)
    try:
        fw = framework(interface)
    except ImportError as e:
        return refuse(out, NOT_COVERED, "not covered: %s needs %s"
                      % (interface, e))
    try:
        import numpy as np

        def tensor(d):
            arr = d["array"] if "array" in d else \
                np.asarray(d["values"], dtype=np.int64)
            return fw.make_tensor(arr, d)
        args, kwargs = fc.call_args(params, tensor)
        result = fw.call(args, kwargs)
    except Exception as e:  # the operator's refusal, as the framework says it
        message = "%s: %s" % (type(e).__name__, e)
        code = fc.aclnn_code(message)
        if code is None:
            if VERBOSE:
                traceback.print_exc(file=sys.stderr)
            return refuse(out, RUNTIME_ERROR,
                          "no aclnn code in the exception: " + message)
        return refuse(out, code, message)
    try:
        blobs = outputs(req, fw, result)
    except NotCovered as e:
        return refuse(out, NOT_COVERED, "not covered: %s" % e)
    if req.phase == "check":
        wire.write_status(out, 0)
    else:
        wire.write_outputs(out, blobs)


def refuse(out, code, message):
    if VERBOSE:
        sys.stderr.write("fia_torch_npu_worker: %d %s\n" % (code, message))
    wire.write_status(out, code, message)


def main():
    # the protocol has fiacheck's pipe to itself: whatever a framework
    # prints goes to stderr
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    inp = sys.stdin.buffer
    import torch_npu
    wire.write_hello(out, "statuses", "torch_npu",
                     getattr(torch_npu, "__version__", None) or "unknown")
    while True:
        try:
            req = wire.read_request(inp)
        except wire.ProtocolError as e:
            sys.stderr.write("fia_torch_npu_worker: %s\n" % e)
            return 2
        if req is None:
            return 0
        answer(req, out)


if __name__ == "__main__":
    sys.exit(main())
