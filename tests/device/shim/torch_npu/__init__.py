"""A test stand-in of torch_npu: the two functions fiacheck's device scripts
call, their documented signatures checked (003 §函数原型 for
npu_fused_infer_attention_score_v2, 001 §函数原型 for
npu_incre_flash_attention), computed by the aclnn stand-in
(fia_shim_common).  Tensors are python3-torch's CPU tensors; `.npu()` is
patched onto torch.Tensor and marks a tensor as on the device, and a
tensor argument not so marked is refused, as the real operator refuses a
host tensor.  Never installed by `fiacheck export`: tests only."""
import numpy as np
import torch

import fia_shim_common as common
from fia_shim_common import REQUIRED

__version__ = "0.0+fiacheck.shim"


def _npu(self, *args, **kwargs):
    self._fia_on_npu = True
    return self


torch.Tensor.npu = _npu
if not hasattr(torch, "npu"):
    class _NpuModule:
        @staticmethod
        def synchronize():
            pass
    torch.npu = _NpuModule()


def _is_device_tensor(x):
    return isinstance(x, torch.Tensor) and getattr(x, "_fia_on_npu", False)


# 003 §函数原型: (name, type, default), and 002's name (None: reserved)
V2_SIGNATURE = [
    ("query", "Tensor", REQUIRED, "query"),
    ("key", "TensorOrList", REQUIRED, "key"),
    ("value", "TensorOrList", REQUIRED, "value"),
    ("query_rope", "Tensor?", None, "query_rope"),
    ("key_rope", "Tensor?", None, "key_rope"),
    ("pse_shift", "Tensor?", None, "pse_shift"),
    ("atten_mask", "Tensor?", None, "atten_mask"),
    ("actual_seq_qlen", "int[]?", None, "actual_seq_lengths"),
    ("actual_seq_kvlen", "int[]?", None, "actual_seq_lengths_kv"),
    ("block_table", "Tensor?", None, "block_table"),
    ("dequant_scale_query", "Tensor?", None, "dequant_scale_query"),
    ("dequant_scale_key", "Tensor?", None, "key_antiquant_scale"),
    ("dequant_offset_key", "Tensor?", None, "key_antiquant_offset"),
    ("dequant_scale_value", "Tensor?", None, "value_antiquant_scale"),
    ("dequant_offset_value", "Tensor?", None, "value_antiquant_offset"),
    ("dequant_scale_key_rope", "Tensor?", None, None),
    ("quant_scale_out", "Tensor?", None, "quant_scale2"),
    ("quant_offset_out", "Tensor?", None, "quant_offset2"),
    ("num_query_heads", "int", 1, "num_heads"),
    ("num_key_value_heads", "int", 0, "num_key_value_heads"),
    ("softmax_scale", "float", 1.0, "scale"),
    ("pre_tokens", "int", 2147483647, "pre_tokens"),
    ("next_tokens", "int", 2147483647, "next_tokens"),
    ("input_layout", "str", "BSH", "input_layout"),
    ("sparse_mode", "int", 0, "sparse_mode"),
    ("block_size", "int", 0, "block_size"),
    ("query_quant_mode", "int", 0, "query_quant_mode"),
    ("key_quant_mode", "int", 0, "key_antiquant_mode"),
    ("value_quant_mode", "int", 0, "value_antiquant_mode"),
    ("inner_precise", "int", 0, "inner_precise"),
    ("return_softmax_lse", "bool", False, "softmax_lse_flag"),
] + [(n, "int?", None, None) for n in (
    "query_dtype", "key_dtype", "value_dtype", "query_rope_dtype",
    "key_rope_dtype", "key_shared_prefix_dtype", "value_shared_prefix_dtype",
    "dequant_scale_query_dtype", "dequant_scale_key_dtype",
    "dequant_scale_value_dtype", "dequant_scale_key_rope_dtype")]

# 001 §函数原型
INCRE_SIGNATURE = [
    ("query", "Tensor", REQUIRED, "query"),
    ("key", "TensorOrList", REQUIRED, "key"),
    ("value", "TensorOrList", REQUIRED, "value"),
    ("padding_mask", "Tensor?", None, None),
    ("pse_shift", "Tensor?", None, "pse_shift"),
    ("atten_mask", "Tensor?", None, "atten_mask"),
    ("actual_seq_lengths", "int[]?", None, "actual_seq_lengths_kv"),
    ("dequant_scale1", "Tensor?", None, "dequant_scale1"),
    ("quant_scale1", "Tensor?", None, "quant_scale1"),
    ("dequant_scale2", "Tensor?", None, "dequant_scale2"),
    ("quant_scale2", "Tensor?", None, "quant_scale2"),
    ("quant_offset2", "Tensor?", None, "quant_offset2"),
    ("antiquant_scale", "Tensor?", None, "antiquant_scale"),
    ("antiquant_offset", "Tensor?", None, "antiquant_offset"),
    ("block_table", "Tensor?", None, "block_table"),
    ("kv_padding_size", "Tensor?", None, "kv_padding_size"),
    ("num_heads", "int", 1, "num_heads"),
    ("scale_value", "float", 1.0, "scale"),
    ("input_layout", "str", "BSH", "input_layout"),
    ("num_key_value_heads", "int", 0, "num_key_value_heads"),
    ("block_size", "int", 0, "block_size"),
    ("inner_precise", "int", 1, "inner_precise"),
]

ARRAYS = ("actual_seq_lengths", "actual_seq_lengths_kv",
          "actual_shared_prefix_len")


def to_numpy(t, name):
    """A device tensor as the stand-in takes it: (array, dtype name).
    int32 key/value are int4 packed eight to a word (003: int4（int32）);
    int64 dequant scales are uint64 bit patterns (torch has no uint64)."""
    t = t.contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16), "bfloat16"
    arr = t.numpy()
    if arr.dtype == np.int32 and name in ("key", "value", "key_shared_prefix",
                                          "value_shared_prefix"):
        return arr.view(np.uint8), "int4"
    if arr.dtype == np.int64 and name.startswith(("dequant_scale",
                                                  "quant_scale")):
        return arr.view(np.uint64), "uint64"
    names = {np.float16: "float16", np.float32: "float32", np.int8: "int8",
             np.uint8: "uint8", np.int32: "int32", np.int64: "int64",
             np.bool_: "bool"}
    return arr, names[arr.dtype.type]


def from_numpy(arr, dtype):
    if dtype == "bfloat16":
        return torch.from_numpy(arr.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(arr)


def translate(signature, values, is_tensor, tensor_to_numpy):
    """The checked arguments in 002's names: (tensors, lists, arrays,
    attrs) as aclnn_standin.call takes them."""
    tensors, lists, arrays, attrs = {}, {}, {}, {}
    for name, _, _, internal in signature:
        v = values[name]
        if internal is None or v is None:
            continue
        if internal in ("key", "value"):
            items = v if isinstance(v, (list, tuple)) else [v]
            lists[internal] = [tensor_to_numpy(t, internal) for t in items]
        elif internal in ARRAYS:
            arrays[internal] = ([int(x) for x in tensor_to_numpy(v, internal)[0]]
                                if is_tensor(v) else list(v))
        elif is_tensor(v):
            tensors[internal] = tensor_to_numpy(v, internal)
        else:
            attrs[internal] = v
    return tensors, lists, arrays, attrs


def call_signature(function, signature, args, kwargs, interface,
                   is_tensor=_is_device_tensor):
    """interface: which one this function is (fiacheck's name for it)."""
    sig = [s[:3] for s in signature]
    values = common.check_call(function, sig, args, kwargs, is_tensor)
    parts = translate(signature, values, is_tensor, to_numpy)
    outs = common.aclnn_call(*parts, interface=interface)
    descs = common.output_descriptors(parts[0], parts[1], parts[3])
    return [from_numpy(o, d[0]) for o, d in zip(outs, descs.values())]


def npu_fused_infer_attention_score_v2(*args, **kwargs):
    outs = call_signature("npu_fused_infer_attention_score_v2", V2_SIGNATURE,
                          args, kwargs, "torch_npu_v2")
    # 003 returns two tensors; without return_softmax_lse the second is a
    # placeholder
    if len(outs) == 1:
        outs.append(torch.zeros([1], dtype=torch.float32))
    return tuple(outs)


def npu_incre_flash_attention(*args, **kwargs):
    return call_signature("npu_incre_flash_attention", INCRE_SIGNATURE, args,
                          kwargs, "incre_flash_attention")[0]
