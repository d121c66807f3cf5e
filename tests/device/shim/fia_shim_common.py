"""What the test stand-ins of torch_npu, TorchAir and MindSpore share: a
documented signature checked keyword by keyword, the operator's output
descriptors, and the call handed to the aclnn stand-in
(tests/device/standin/aclnn_standin.py) in 002's names.

Test code only: tests/cli/export.sh puts this folder on PYTHONPATH so that
the scripts `fiacheck export` writes run without a device.  Set
FIACHECK_SHIM_FAKE=1 to answer every call with zeros instead of the
stand-in (FIACHECK_SHIM_FAKE=561002: reject every call with that code), for
testing the scripts' handling without the stand-in library.
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_int_list(v):
    return isinstance(v, (list, tuple)) and all(_is_int(x) for x in v)


def check_call(function, signature, positional, keywords, is_tensor):
    """signature: (name, type, default) in documented order; the first
    three are positional.  Types: Tensor, Tensor?, TensorOrList, int, int?,
    float, str, bool, int[]?, IntsOrTensor?.  Raises TypeError naming the
    parameter; returns {name: value} with the defaults filled in."""
    names = [s[0] for s in signature]
    if len(positional) != 3:
        raise TypeError("%s() takes 3 positional arguments (query, key, "
                        "value), %d given" % (function, len(positional)))
    given = dict(zip(names[:3], positional))
    for k, v in keywords.items():
        if k not in names[3:]:
            raise TypeError("%s() got an unexpected keyword argument '%s'"
                            % (function, k))
        given[k] = v
    out = {}
    for name, typ, default in signature:
        v = given.get(name, default)
        if v is REQUIRED:
            raise TypeError("%s() missing required argument '%s'"
                            % (function, name))
        optional = typ.endswith("?")
        base = typ.rstrip("?")
        if v is None and optional:
            out[name] = None
            continue
        ok = {"Tensor": lambda x: is_tensor(x),
              "TensorOrList": lambda x: is_tensor(x) or (
                  isinstance(x, (list, tuple)) and len(x) > 0 and
                  all(is_tensor(t) for t in x)),
              "int": _is_int,
              "float": lambda x: isinstance(x, float),
              "str": lambda x: isinstance(x, str),
              "bool": lambda x: isinstance(x, bool),
              "int[]": _is_int_list,
              "IntsOrTensor": lambda x: _is_int_list(x) or is_tensor(x),
              }[base](v)
        if not ok:
            raise TypeError("%s(): argument '%s' must be %s, not %s"
                            % (function, name, typ, type(v).__name__))
        out[name] = v
    return out


class _Required:
    def __repr__(self):
        return "<required>"


REQUIRED = _Required()


def _layout_dims(layout, shape, heads):
    """(B or None, N, S or T, D) of a tensor in a layout's input part."""
    part = layout.split("_")[0]
    if part == "BSH":
        return shape[0], heads, shape[1], shape[2] // max(heads, 1)
    if part == "TND":
        return None, shape[1], shape[0], shape[2]
    if part == "NTD":
        return None, shape[0], shape[1], shape[2]
    dims = dict(zip(part, shape))
    return dims.get("B"), dims.get("N"), dims.get("S"), dims.get("D")


def output_descriptors(tensors, lists, attrs):
    """attention_out (and softmax_lse when asked) as 002 derives them, for
    the common layouts: (dtype, shape) each."""
    layout = attrs.get("input_layout", "BSH")
    heads = attrs.get("num_heads", 1)
    kv_heads = attrs.get("num_key_value_heads", 0) or heads
    q, q_dt = tensors["query"]
    v, v_dt = lists["value"][0]
    b, n, s, _ = _layout_dims(layout, list(q.shape), heads)
    vshape = list(v.shape)
    if v_dt == "int4":
        vshape[-1] *= 2
    if len(vshape) == 5:  # an NZ cache [blocks, N, D/16 or D/32, size, 16|32]
        d = vshape[2] * vshape[4]
    else:
        d = vshape[-1] // (kv_heads if len(vshape) == 3 and
                           layout.split("_")[0] == "BSH" else 1)
    out_part = layout.split("_")[-1]
    if out_part == "BSH":
        shape = [b, s, n * d]
    elif out_part == "TND":
        shape = [s, n, d]
    elif out_part == "NTD":
        shape = [n, s, d]
    else:
        dims = {"B": b, "N": n, "S": s, "D": d}
        shape = [dims[c] for c in out_part]
    dtype = q_dt if q_dt in ("float16", "bfloat16") else "float16"
    if q_dt == "int8" and "query_rope" in tensors:
        dtype = "bfloat16"  # MLA's full quantization (003): bf16 out
    if "quant_scale2" in tensors:
        dtype = "int8"
    outs = {"attention_out": (dtype, shape)}
    if attrs.get("softmax_lse_flag"):
        outs["softmax_lse"] = ("float32", [s, n, 1] if b is None
                               else [b, n, s, 1])
    return outs


def _fake(tensors, lists, arrays, attrs, outputs):
    code = os.environ.get("FIACHECK_SHIM_FAKE", "1")
    if code not in ("", "1"):
        return int(code), "fake stand-in: rejected", {}
    outs = {}
    for name, (dtype, shape) in outputs.items():
        np_type = {"float16": np.float16, "bfloat16": np.uint16,
                   "float32": np.float32, "int8": np.int8}[dtype]
        outs[name] = np.zeros(shape, dtype=np_type)
    return 0, "", outs


def aclnn_call(tensors, lists, arrays, attrs, interface):
    """The call on the aclnn stand-in (or the fake): returns outs, or raises
    RuntimeError as torch_npu and MindSpore report an aclnn failure: the
    aclnn API that failed, the error code, the message it recorded.
    interface: the one the caller stands in for (torch_npu_v2, mindspore,
    incre_flash_attention, torchair_v2), whose own limits the stand-in
    imposes as the interface layer on a device does."""
    outputs = output_descriptors(tensors, lists, attrs)
    if os.environ.get("FIACHECK_SHIM_FAKE"):
        code, message, outs = _fake(tensors, lists, arrays, attrs, outputs)
    else:
        sys.path.insert(0, os.path.join(HERE, "..", "standin"))
        import aclnn_standin
        code, message, outs = aclnn_standin.call(tensors, lists, arrays,
                                                 attrs, outputs,
                                                 interface=interface)
    if code != 0:
        raise RuntimeError(
            "call aclnnFusedInferAttentionScoreV2 failed, detail:EZ9999: "
            "Inner Error!\n%s\n[ERROR] error code is %d" % (message, code))
    return [outs[name] for name in outputs]
