"""mindspore.ops of the stand-in: fused_infer_attention_score (000
§函数原型), its keywords checked against the documented signature."""
import numpy as np

import fia_shim_common as common
from fia_shim_common import REQUIRED

# (name, type, default, 002's name)
SIGNATURE = [
    ("query", "Tensor", REQUIRED, "query"),
    ("key", "TensorOrList", REQUIRED, "key"),
    ("value", "TensorOrList", REQUIRED, "value"),
    ("pse_shift", "Tensor?", None, "pse_shift"),
    ("atten_mask", "Tensor?", None, "atten_mask"),
    ("actual_seq_lengths", "IntsOrTensor?", None, "actual_seq_lengths"),
    ("actual_seq_lengths_kv", "IntsOrTensor?", None, "actual_seq_lengths_kv"),
    ("dequant_scale1", "Tensor?", None, "dequant_scale1"),
    ("quant_scale1", "Tensor?", None, "quant_scale1"),
    ("dequant_scale2", "Tensor?", None, "dequant_scale2"),
    ("quant_scale2", "Tensor?", None, "quant_scale2"),
    ("quant_offset2", "Tensor?", None, "quant_offset2"),
    ("antiquant_scale", "Tensor?", None, "antiquant_scale"),
    ("antiquant_offset", "Tensor?", None, "antiquant_offset"),
    ("key_antiquant_scale", "Tensor?", None, "key_antiquant_scale"),
    ("key_antiquant_offset", "Tensor?", None, "key_antiquant_offset"),
    ("value_antiquant_scale", "Tensor?", None, "value_antiquant_scale"),
    ("value_antiquant_offset", "Tensor?", None, "value_antiquant_offset"),
    ("block_table", "Tensor?", None, "block_table"),
    ("query_padding_size", "Tensor?", None, "query_padding_size"),
    ("kv_padding_size", "Tensor?", None, "kv_padding_size"),
    ("key_shared_prefix", "Tensor?", None, "key_shared_prefix"),
    ("value_shared_prefix", "Tensor?", None, "value_shared_prefix"),
    ("actual_shared_prefix_len", "IntsOrTensor?", None,
     "actual_shared_prefix_len"),
    ("num_heads", "int", 1, "num_heads"),
    ("scale", "float", 1.0, "scale"),
    ("pre_tokens", "int", 2147483647, "pre_tokens"),
    ("next_tokens", "int", 2147483647, "next_tokens"),
    ("input_layout", "str", "BSH", "input_layout"),
    ("num_key_value_heads", "int", 0, "num_key_value_heads"),
    ("sparse_mode", "int", 0, "sparse_mode"),
    ("inner_precise", "int", 1, "inner_precise"),
    ("block_size", "int", 0, "block_size"),
    ("antiquant_mode", "int", 0, "antiquant_mode"),
    ("key_antiquant_mode", "int", 0, "key_antiquant_mode"),
    ("value_antiquant_mode", "int", 0, "value_antiquant_mode"),
    ("softmax_lse_flag", "bool", False, "softmax_lse_flag"),
]
ARRAYS = ("actual_seq_lengths", "actual_seq_lengths_kv",
          "actual_shared_prefix_len")


def _is_tensor(x):
    from mindspore import Tensor
    return isinstance(x, Tensor)


def fused_infer_attention_score(*args, **kwargs):
    from mindspore import Tensor
    values = common.check_call("fused_infer_attention_score",
                               [s[:3] for s in SIGNATURE], args, kwargs,
                               _is_tensor)
    tensors, lists, arrays, attrs = {}, {}, {}, {}
    for name, _, _, internal in SIGNATURE:
        v = values[name]
        if v is None:
            continue
        if internal in ("key", "value"):
            items = v if isinstance(v, (list, tuple)) else [v]
            lists[internal] = [t._standin() for t in items]
        elif internal in ARRAYS:
            arrays[internal] = ([int(x) for x in v._bits] if _is_tensor(v)
                                else list(v))
        elif _is_tensor(v):
            tensors[internal] = v._standin()
        else:
            attrs[internal] = v
    outs = common.aclnn_call(tensors, lists, arrays, attrs,
                             interface="mindspore")
    descs = common.output_descriptors(tensors, lists, attrs)
    result = [Tensor._from_standin(arr, d[0])
              for arr, d in zip(outs, descs.values())]
    # 000 returns (attention_out, softmax_lse)
    if len(result) == 1:
        result.append(Tensor(np.zeros([1], np.float32)))
    return tuple(result)
