"""A test stand-in of TorchAir: get_npu_backend, CompilerConfig and
ops.npu_fused_infer_attention_score_v2 with 004's signature (003's, with the
sequence lengths as int64 device tensors, learnable_sink and out_dtype; no
default for inner_precise).  004 supports graph mode only, so the op refuses
a call outside a module compiled with this backend.  python3-torch 1.13 has
no torch.compile; the stand-in provides one that runs the module as the
backend's graph (tests only)."""
import torch

import torch_npu  # noqa: F401  (.npu(), as on the device)
from torch_npu import V2_SIGNATURE, call_signature, _is_device_tensor
from fia_shim_common import REQUIRED
from . import ops  # noqa: F401
from .configs.compiler_config import CompilerConfig

__version__ = "0.0+fiacheck.shim"

_state = {"graph": False}


class _NpuBackend:
    def __init__(self, config):
        if not isinstance(config, CompilerConfig):
            raise TypeError("get_npu_backend: compiler_config must be a "
                            "CompilerConfig")
        self.config = config


def get_npu_backend(compiler_config=None):
    return _NpuBackend(compiler_config or CompilerConfig())


def _compile(model, backend=None, dynamic=None, fullgraph=False, **kw):
    if not isinstance(backend, _NpuBackend):
        raise RuntimeError("the torchair stand-in compiles only with "
                           "torchair.get_npu_backend()")
    if backend.config.mode != "max-autotune":
        raise RuntimeError("004: only max-autotune mode")

    def run(*args, **kwargs):
        _state["graph"] = True
        try:
            return model(*args, **kwargs)
        finally:
            _state["graph"] = False
    return run


_real_compile = getattr(torch, "compile", None)


def _compile_dispatch(model, *args, **kwargs):
    if _real_compile is None or isinstance(kwargs.get("backend"), _NpuBackend):
        return _compile(model, *args, **kwargs)
    return _real_compile(model, *args, **kwargs)


torch.compile = _compile_dispatch


def _tensor_or_lengths(x):
    return _is_device_tensor(x)


def _signature():
    lengths = {"actual_seq_qlen": ("actual_seq_lengths", "actual_seq_lengths"),
               "actual_seq_kvlen": ("actual_seq_lengths_kv",
                                    "actual_seq_lengths_kv")}
    sig = []
    for name, typ, default, internal in V2_SIGNATURE:
        if name in lengths:
            sig.append((lengths[name][0], "Tensor?", None, lengths[name][1]))
            continue
        if name == "num_key_value_heads":
            default = 1
        if name == "inner_precise":
            default = REQUIRED
        sig.append((name, typ, default, internal))
        if name == "quant_offset_out":
            sig.append(("learnable_sink", "Tensor?", None, "learnable_sink"))
    sig.append(("out_dtype", "int?", None, "out_dtype"))
    sig.append(("actual_shared_prefix_len", "Tensor?", None,
                "actual_shared_prefix_len"))
    return sig


SIGNATURE = _signature()


def fused_v2(*args, **kwargs):
    if not _state["graph"]:
        raise RuntimeError("npu_fused_infer_attention_score_v2: graph mode "
                           "only (004: not supported in eager mode)")
    for name in ("actual_seq_lengths", "actual_seq_lengths_kv",
                 "actual_shared_prefix_len"):
        v = kwargs.get(name)
        if v is not None and (not _is_device_tensor(v) or
                              v.dtype != torch.int64):
            raise TypeError("npu_fused_infer_attention_score_v2(): argument "
                            "'%s' must be an int64 device Tensor" % name)
    outs = call_signature("npu_fused_infer_attention_score_v2", SIGNATURE,
                          args, kwargs, "torchair_v2")
    if len(outs) == 1:
        outs.append(torch.zeros([1], dtype=torch.float32))
    return tuple(outs)
