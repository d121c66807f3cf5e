"""mindspore.ops.fused_infer_attention_score (000) for every case of
mindspore that `fiacheck export` wrote: python3 run_mindspore.py DIR (or
--case DIR).  Each case's out/ holds what came back (docs/export.md)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import mindspore  # noqa: E402
from mindspore import ops  # noqa: E402
import fiacheck_cases as fc  # noqa: E402

DTYPES = {"float16": "float16", "float32": "float32", "int8": "int8",
          "uint8": "uint8", "int32": "int32", "int64": "int64",
          "uint64": "uint64", "bool": "bool_"}


def make_tensor(arr, desc):
    """A mindspore.Tensor of the dtype call.json names; bfloat16 from the
    float32 values its bits are (exact), as NumPy has no bfloat16."""
    dt = desc["dtype"]
    if dt == "bfloat16":
        return mindspore.Tensor(fc.bf16_bits_to_float32(arr),
                                dtype=mindspore.bfloat16)
    if dt not in DTYPES:
        raise TypeError("000 takes no %s tensor" % dt)
    return mindspore.Tensor(np.ascontiguousarray(arr),
                            dtype=getattr(mindspore, DTYPES[dt]))


def to_numpy(t, dtype):
    """What came back, in its own dtype (judge compares it with the call's):
    bfloat16 as its bits."""
    if t.dtype == mindspore.bfloat16:
        return fc.float32_to_bf16_bits(
            t.astype(mindspore.float32).asnumpy())
    return t.asnumpy()


def call(args, kwargs):
    return ops.fused_infer_attention_score(*args, **kwargs)


def use_ascend():
    if hasattr(mindspore, "set_device"):
        mindspore.set_device("Ascend")
    else:
        mindspore.set_context(device_target="Ascend")


if __name__ == "__main__":
    use_ascend()
    sys.exit(fc.run_cases("mindspore", call, to_numpy, make_tensor,
                          {"system": "mindspore",
                           "version": getattr(mindspore, "__version__", None)}))
