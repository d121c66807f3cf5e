"""A call in 002's names (the names of fiacheck's worker protocol,
docs/sut/exec.md) as the parameters of one interface's function, in
call.json's form (docs/export.md), so that fiacheck_cases.call_args makes
the call.  The tables are docs/case-format.md "Interfaces": each
interface's parameters by its own name and the 002 name they carry.  A
call that passes what an interface has no parameter for cannot be made
through it: Unexpressible says which.

No fiacheck code is used here; the names are the documents'.
"""

# 002's REG_OP defaults: an attribute an interface lacks is passed at this
# value implicitly, so a call with another value cannot go through it
DEFAULTS_002 = {
    "num_heads": 1, "scale": 1.0, "pre_tokens": 2147483647,
    "next_tokens": 2147483647, "input_layout": "BSH",
    "num_key_value_heads": 0, "sparse_mode": 0, "inner_precise": 1,
    "block_size": 0, "antiquant_mode": 0, "softmax_lse_flag": False,
    "key_antiquant_mode": 0, "value_antiquant_mode": 0,
    "query_quant_mode": 0, "out_dtype": None,
}

# 003 npu_fused_infer_attention_score_v2: (its name, 002's name)
_V2_TENSORS = [
    ("query", "query"), ("key", "key"), ("value", "value"),
    ("query_rope", "query_rope"), ("key_rope", "key_rope"),
    ("pse_shift", "pse_shift"), ("atten_mask", "atten_mask"),
    ("block_table", "block_table"),
    ("dequant_scale_query", "dequant_scale_query"),
    ("dequant_scale_key", "key_antiquant_scale"),
    ("dequant_offset_key", "key_antiquant_offset"),
    ("dequant_scale_value", "value_antiquant_scale"),
    ("dequant_offset_value", "value_antiquant_offset"),
    ("quant_scale_out", "quant_scale2"),
    ("quant_offset_out", "quant_offset2"),
]
_V2_ATTRS = [
    ("num_query_heads", "num_heads"),
    ("num_key_value_heads", "num_key_value_heads"),
    ("softmax_scale", "scale"), ("pre_tokens", "pre_tokens"),
    ("next_tokens", "next_tokens"), ("input_layout", "input_layout"),
    ("sparse_mode", "sparse_mode"), ("block_size", "block_size"),
    ("query_quant_mode", "query_quant_mode"),
    ("key_quant_mode", "key_antiquant_mode"),
    ("value_quant_mode", "value_antiquant_mode"),
    ("inner_precise", "inner_precise"),
    ("return_softmax_lse", "softmax_lse_flag"),
]

# 000 mindspore.ops.fused_infer_attention_score: 002's names throughout
_002_TENSORS = [
    "query", "key", "value", "pse_shift", "atten_mask", "dequant_scale1",
    "quant_scale1", "dequant_scale2", "quant_scale2", "quant_offset2",
    "antiquant_scale", "antiquant_offset", "key_antiquant_scale",
    "key_antiquant_offset", "value_antiquant_scale",
    "value_antiquant_offset", "block_table", "query_padding_size",
    "kv_padding_size", "key_shared_prefix", "value_shared_prefix"]
_002_ARRAYS = ["actual_seq_lengths", "actual_seq_lengths_kv",
               "actual_shared_prefix_len"]
_002_ATTRS = [
    "num_heads", "scale", "pre_tokens", "next_tokens", "input_layout",
    "num_key_value_heads", "sparse_mode", "inner_precise", "block_size",
    "antiquant_mode", "key_antiquant_mode", "value_antiquant_mode",
    "softmax_lse_flag"]

# interface -> (function, tensors, arrays, attributes, arrays as int64
# device tensors?, softmax_lse returned?)
INTERFACES = {
    "torch_npu_v2": dict(
        function="torch_npu.npu_fused_infer_attention_score_v2",
        tensors=_V2_TENSORS,
        arrays=[("actual_seq_qlen", "actual_seq_lengths"),
                ("actual_seq_kvlen", "actual_seq_lengths_kv")],
        attrs=_V2_ATTRS, arrays_as_tensors=False),
    # 004: 003's call, its lengths int64 device tensors, with
    # learnable_sink, out_dtype and actual_shared_prefix_len
    "torchair_v2": dict(
        function="torchair.ops.npu_fused_infer_attention_score_v2",
        tensors=_V2_TENSORS + [("learnable_sink", "learnable_sink")],
        arrays=[("actual_seq_lengths", "actual_seq_lengths"),
                ("actual_seq_lengths_kv", "actual_seq_lengths_kv"),
                ("actual_shared_prefix_len", "actual_shared_prefix_len")],
        attrs=_V2_ATTRS + [("out_dtype", "out_dtype")],
        arrays_as_tensors=True),
    "mindspore": dict(
        function="mindspore.ops.fused_infer_attention_score",
        tensors=[(n, n) for n in _002_TENSORS],
        arrays=[(n, n) for n in _002_ARRAYS],
        attrs=[(n, n) for n in _002_ATTRS], arrays_as_tensors=False),
    # 001: decode; its actual_seq_lengths are the key/value lengths
    "incre_flash_attention": dict(
        function="torch_npu.npu_incre_flash_attention",
        tensors=[(n, n) for n in (
            "query", "key", "value", "pse_shift", "atten_mask",
            "dequant_scale1", "quant_scale1", "dequant_scale2",
            "quant_scale2", "quant_offset2", "antiquant_scale",
            "antiquant_offset", "block_table", "kv_padding_size")],
        arrays=[("actual_seq_lengths", "actual_seq_lengths_kv")],
        attrs=[("num_heads", "num_heads"), ("scale_value", "scale"),
               ("input_layout", "input_layout"),
               ("num_key_value_heads", "num_key_value_heads"),
               ("block_size", "block_size"),
               ("inner_precise", "inner_precise")],
        arrays_as_tensors=False),
}
# 002's own call is made through 003, the torch_npu function with its
# parameters and more
THROUGH = {"aclnn_v2": "torch_npu_v2"}


class Unexpressible(Exception):
    """The call passes something the interface has no parameter for."""


def interface_of(api):
    """The interface a call of fiacheck's api goes through."""
    api = THROUGH.get(api, api)
    if api not in INTERFACES:
        raise Unexpressible("no interface %r" % api)
    return api


def translate(api, tensors, arrays, attrs):
    """The call's parameters in the interface's names, in call.json's form.

    tensors: 002 name -> descriptor ({"tensor": NAME, "dtype": ...,
             "shape": [...]}, what else the caller's tensor() needs); key
             and value as lists of descriptors.
    arrays:  002 name -> list of ints (absent: nullptr).
    attrs:   002 name -> value (int, float, str, bool; out_dtype None).
    Returns (interface, params).  Raises Unexpressible naming the first
    parameter the interface lacks."""
    name = interface_of(api)
    table = INTERFACES[name]
    params = {}
    taken = set()
    for mine, internal in table["tensors"]:
        taken.add(internal)
        v = tensors.get(internal)
        if v is None:
            params[mine] = None
        elif internal in ("key", "value"):
            params[mine] = v[0] if len(v) == 1 else {"tensor_list": v}
        else:
            params[mine] = v
    for mine, internal in table["arrays"]:
        taken.add(internal)
        v = arrays.get(internal)
        if v is not None and table["arrays_as_tensors"]:
            v = {"tensor": internal, "dtype": "int64", "shape": [len(v)],
                 "values": list(v)}
        params[mine] = v
    for mine, internal in table["attrs"]:
        taken.add(internal)
        params[mine] = attrs.get(internal, DEFAULTS_002[internal])
    for group, what in ((tensors, "tensor"), (arrays, "array")):
        for internal in group:
            if internal not in taken:
                raise Unexpressible("%s (%s) has no parameter for the %s %s"
                                    % (name, table["function"], what,
                                       internal))
    for internal, v in attrs.items():
        if internal not in taken and internal in DEFAULTS_002 and \
                v != DEFAULTS_002[internal]:
            raise Unexpressible("%s (%s) has no parameter for %s = %s (it "
                                "passes %s)" % (name, table["function"],
                                                internal, v,
                                                DEFAULTS_002[internal]))
    return name, params
