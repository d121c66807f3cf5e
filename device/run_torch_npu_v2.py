"""torch_npu.npu_fused_infer_attention_score_v2 (003) for every case of
torch_npu_v2 that `fiacheck export` wrote: python3 run_torch_npu_v2.py DIR
(or --case DIR).  Each case's out/ holds what came back (docs/export.md)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch_npu  # noqa: E402
import fiacheck_cases as fc  # noqa: E402


def make_tensor(arr, desc):
    """The device tensor 003 takes: bfloat16 through its bits, int4 packed
    eight to an int32 (003: int4（int32）), uint64 through int64 when this
    torch has no uint64."""
    dt = desc["dtype"]
    if dt == "bfloat16":
        t = torch.from_numpy(arr.view(np.int16)).view(torch.bfloat16)
    elif dt == "int4":
        t = torch.from_numpy(fc.int4_bytes_to_int32(arr))
    elif dt == "uint64" and not hasattr(torch, "uint64"):
        t = torch.from_numpy(arr.view(np.int64))
    else:
        t = torch.from_numpy(np.ascontiguousarray(arr))
    return t.npu()


def to_numpy(t, dtype):
    """What came back, in its own dtype (judge compares it with the call's):
    bfloat16 as its bits."""
    if t.dtype == torch.bfloat16:
        return fc.float32_to_bf16_bits(t.float().cpu().numpy())
    return t.cpu().numpy()


def call(args, kwargs):
    out = torch_npu.npu_fused_infer_attention_score_v2(*args, **kwargs)
    torch.npu.synchronize()
    return out


if __name__ == "__main__":
    sys.exit(fc.run_cases("torch_npu_v2", call, to_numpy, make_tensor,
                          {"system": "torch_npu",
                           "version": getattr(torch_npu, "__version__", None)}))
