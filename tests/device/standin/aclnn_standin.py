"""The aclnn stand-in from Python: one FusedInferAttentionScoreV2 call, made
through the C calls a device user makes (aclCreateTensor, aclCreateTensorList,
aclCreateIntArray, the two phases of 002, aclGetRecentErrMsg), on
libfiacheck_aclnn_standin.so, which computes them with fiacheck's fast/.

The Python stand-ins of torch_npu, TorchAir and mindspore call `call` with
what their interface was given, translated into 002's names, and say which
interface they are: such a call, and one with 003/004's additions, goes
through the stand-in's own phase one
(fiacheckStandinFusedInferAttentionScoreExtGetWorkspaceSize), which carries
them to fast/; a plain aclnn call through 002's.
"""

import ctypes
import os

import numpy as np

# 002's dtype names -> (aclDataType as CANN numbers it, the .npy type, bits)
_DTYPES = {
    "float16": (1, np.float16, 16), "bfloat16": (27, np.uint16, 16),
    "float32": (0, np.float32, 32), "int8": (2, np.int8, 8),
    "uint8": (4, np.uint8, 8), "int4": (29, np.uint8, 4),
    "int32": (3, np.int32, 32), "int64": (9, np.int64, 64),
    "uint64": (10, np.uint64, 64), "bool": (12, np.bool_, 8),
}
_NUMPY_NAMES = {np.dtype(np.float16): "float16", np.dtype(np.float32): "float32",
                np.dtype(np.int8): "int8", np.dtype(np.uint8): "uint8",
                np.dtype(np.int32): "int32", np.dtype(np.int64): "int64",
                np.dtype(np.uint64): "uint64", np.dtype(np.bool_): "bool"}

# 002's order of the optional tensors after key and value, and of the arrays
_TENSORS_AFTER_KV = ["pse_shift", "atten_mask"]
_TENSORS_MIDDLE = [
    "dequant_scale1", "quant_scale1", "dequant_scale2", "quant_scale2",
    "quant_offset2", "antiquant_scale", "antiquant_offset", "block_table",
    "query_padding_size", "kv_padding_size", "key_antiquant_scale",
    "key_antiquant_offset", "value_antiquant_scale", "value_antiquant_offset",
    "key_shared_prefix", "value_shared_prefix"]
_ARRAYS = ["actual_seq_lengths", "actual_seq_lengths_kv",
           "actual_shared_prefix_len"]
_ATTRS = [  # name, ctypes type, 002's REG_OP default
    ("num_heads", ctypes.c_int64, 1), ("scale", ctypes.c_double, 1.0),
    ("pre_tokens", ctypes.c_int64, 2147483647),
    ("next_tokens", ctypes.c_int64, 2147483647),
    ("input_layout", ctypes.c_char_p, "BSH"),
    ("num_key_value_heads", ctypes.c_int64, 0),
    ("sparse_mode", ctypes.c_int64, 0), ("inner_precise", ctypes.c_int64, 1),
    ("block_size", ctypes.c_int64, 0), ("antiquant_mode", ctypes.c_int64, 0),
    ("softmax_lse_flag", ctypes.c_bool, False),
    ("key_antiquant_mode", ctypes.c_int64, 0),
    ("value_antiquant_mode", ctypes.c_int64, 0)]
# What 003 (and 004: learnable_sink, out_dtype) add to 002's call, in the
# stand-in's order, and the interfaces fast/ knows by name
_EXTRA_TENSORS = ["query_rope", "key_rope", "dequant_scale_query"]
_EXTRA_AFTER_MODE = ["learnable_sink"]
_EXTRA_ATTRS = {"query_quant_mode": 0, "out_dtype": None}
_INTERFACES = ("aclnn_v2", "torch_npu_v2", "mindspore",
               "incre_flash_attention", "torchair_v2")
_OUTPUTS = ["attention_out", "softmax_lse"]
_MEMCPY_HOST_TO_DEVICE, _MEMCPY_DEVICE_TO_HOST = 1, 2

_libs = {}


def call(tensors, lists, arrays, attrs, outputs, library=None,
         interface=None):
    """Make one aclnnFusedInferAttentionScoreV2 call on the stand-in.

    Every name is 002's, as fiacheck's aclnn_v2 case vocabulary spells it
    (snake_case of the C API's parameters: query, pse_shift, atten_mask,
    key_antiquant_scale, ...; num_heads, scale, input_layout, ...).

    tensors:  dict name -> (numpy array, dtype name).  The dtype names are
              those of docs/export.md (float16, bfloat16, float32, int8,
              uint8, int4, int32, int64, uint64, bool); bfloat16 as the bit
              patterns in a uint16 array, int4 two per byte (low nibble
              first) in a uint8 array whose last dimension is halved.  A name
              not in the dict is nullptr.
    lists:    dict name -> [(numpy array, dtype name), ...]: key and value
              (aclTensorList).  A bare array in place of a pair takes the
              dtype of its NumPy type.
    arrays:   dict name -> list of int: actual_seq_lengths,
              actual_seq_lengths_kv, actual_shared_prefix_len (aclIntArray);
              absent or None is nullptr.
    attrs:    dict name -> value: num_heads, scale, pre_tokens, next_tokens,
              input_layout, num_key_value_heads, sparse_mode, inner_precise,
              block_size, antiquant_mode, softmax_lse_flag,
              key_antiquant_mode, value_antiquant_mode; an attribute not
              given takes 002's REG_OP default.  003/004's additions in
              the same vocabulary: tensors query_rope, key_rope,
              dequant_scale_query, learnable_sink; attrs query_quant_mode
              (default 0) and out_dtype (an int, or None).
    outputs:  dict name -> (dtype name, shape): attention_out and, when the
              call has one, softmax_lse.
    library:  path of libfiacheck_aclnn_standin.so; default the environment's
              FIACHECK_ACLNN_STANDIN_LIB.
    interface: the interface the caller stands in for (aclnn_v2,
              torch_npu_v2, mindspore, incre_flash_attention, torchair_v2;
              None: aclnn_v2), whose own documented limits then apply.
              The device's product is the library's environment's
              (FIA_ACLNN_STANDIN_PRODUCT), as a real device's is its
              hardware's.

    Returns (code, message, outs): code the aclnnStatus of the first phase
    that failed (0 when both succeeded), message aclGetRecentErrMsg() when
    code is not 0 (else ""), outs a dict name -> numpy array of the outputs
    (in the npy types above) when code is 0, else {}.
    Raises ValueError for a malformed argument (unknown name or dtype, a
    shape that does not match its array).
    """
    path = library or os.environ.get("FIACHECK_ACLNN_STANDIN_LIB")
    if not path:
        raise ValueError("no library: pass library= or set "
                         "FIACHECK_ACLNN_STANDIN_LIB")
    if interface is not None and interface not in _INTERFACES:
        raise ValueError("interface %r: not one of %s"
                         % (interface, ", ".join(_INTERFACES)))
    known = set(_TENSORS_AFTER_KV + _TENSORS_MIDDLE + _EXTRA_TENSORS +
                _EXTRA_AFTER_MODE + ["query"])
    for group, names in ((tensors, known), (lists, {"key", "value"}),
                         (arrays, set(_ARRAYS)),
                         (attrs, {a[0] for a in _ATTRS} | set(_EXTRA_ATTRS)),
                         (outputs, set(_OUTPUTS))):
        unknown = set(group) - names
        if unknown:
            raise ValueError("not parameters of 002's call here: %s"
                             % ", ".join(sorted(unknown)))
    if "attention_out" not in outputs:
        raise ValueError("outputs: no attention_out")
    return _Call(_library(path), interface).make(tensors, lists, arrays,
                                                 attrs, outputs)


def _library(path):
    if path not in _libs:
        lib = ctypes.CDLL(path)
        vp, i64, u64 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_uint64
        p64 = ctypes.POINTER(ctypes.c_int64)
        lib.aclCreateTensor.restype = vp
        lib.aclCreateTensor.argtypes = [p64, u64, ctypes.c_int, p64, i64,
                                        ctypes.c_int, p64, u64, vp]
        lib.aclCreateTensorList.restype = vp
        lib.aclCreateTensorList.argtypes = [ctypes.POINTER(vp), u64]
        lib.aclCreateIntArray.restype = vp
        lib.aclCreateIntArray.argtypes = [p64, u64]
        for f in ("aclDestroyTensor", "aclDestroyTensorList",
                  "aclDestroyIntArray", "aclrtFree"):
            getattr(lib, f).argtypes = [vp]
        lib.aclrtMalloc.argtypes = [ctypes.POINTER(vp), ctypes.c_size_t,
                                    ctypes.c_int]
        lib.aclrtMemcpy.argtypes = [vp, ctypes.c_size_t, vp, ctypes.c_size_t,
                                    ctypes.c_int]
        lib.aclGetRecentErrMsg.restype = ctypes.c_char_p
        lib.aclGetRecentErrMsg.argtypes = []
        lib.aclnnFusedInferAttentionScoreV2GetWorkspaceSize.restype = \
            ctypes.c_int32
        lib.aclnnFusedInferAttentionScoreV2GetWorkspaceSize.argtypes = (
            [vp] * 24 + [a[1] for a in _ATTRS] +
            [vp, vp, ctypes.POINTER(u64), ctypes.POINTER(vp)])
        ext = lib.fiacheckStandinFusedInferAttentionScoreExtGetWorkspaceSize
        ext.restype = ctypes.c_int32
        ext.argtypes = (
            [vp] * 24 + [a[1] for a in _ATTRS] +
            [vp] * len(_EXTRA_TENSORS) + [i64] + [vp] * len(_EXTRA_AFTER_MODE) +
            [p64, ctypes.c_char_p] +
            [vp, vp, ctypes.POINTER(u64), ctypes.POINTER(vp)])
        lib.aclnnFusedInferAttentionScoreV2.restype = ctypes.c_int32
        lib.aclnnFusedInferAttentionScoreV2.argtypes = [vp, u64, vp, vp]
        _libs[path] = lib
    return _libs[path]


class _Call:
    """The objects of one call, freed together whatever happens."""

    def __init__(self, lib, interface):
        self.lib = lib
        self.interface = interface
        self.mem, self.tensors, self.lists, self.arrays = [], [], [], []

    def device(self, nbytes, host=None):
        """nbytes of device memory (None for 0), filled from host."""
        if nbytes == 0:
            return None
        p = ctypes.c_void_p()
        if self.lib.aclrtMalloc(ctypes.byref(p), nbytes, 0) != 0:
            raise MemoryError(self.error("aclrtMalloc"))
        self.mem.append(p.value)
        if host is not None and self.lib.aclrtMemcpy(
                p.value, nbytes, host.ctypes.data, nbytes,
                _MEMCPY_HOST_TO_DEVICE) != 0:
            raise RuntimeError(self.error("aclrtMemcpy"))
        return p.value

    def error(self, what):
        m = self.lib.aclGetRecentErrMsg()
        return "%s: %s" % (what, m.decode(errors="replace") if m else "")

    def tensor(self, name, dtype, shape, host=None):
        """An aclTensor (ND, contiguous) of dtype and logical shape."""
        if dtype not in _DTYPES:
            raise ValueError("%s: unknown dtype %r" % (name, dtype))
        code, _, bits = _DTYPES[dtype]
        n = int(np.prod(shape, dtype=np.int64)) if len(shape) else 1
        nbytes = (n * bits + 7) // 8
        if host is not None and host.nbytes != nbytes:
            raise ValueError("%s: %d bytes for %s %s" % (name, host.nbytes,
                                                        dtype, list(shape)))
        mem = self.device(nbytes, host)
        dims = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        strides, s = [0] * len(shape), 1
        for i in reversed(range(len(shape))):
            strides[i], s = s, s * max(shape[i], 1)
        st = (ctypes.c_int64 * max(len(shape), 1))(*strides)
        t = self.lib.aclCreateTensor(dims, len(shape), code, st, 0, 2, dims,
                                     len(shape), mem)
        if not t:
            raise RuntimeError(self.error("aclCreateTensor " + name))
        return t, mem, nbytes

    def input(self, name, entry):
        arr, dtype = entry if isinstance(entry, tuple) else (
            entry, _NUMPY_NAMES.get(np.asarray(entry).dtype))
        if dtype not in _DTYPES:
            raise ValueError("%s: unknown dtype %r" % (name, dtype))
        arr = np.ascontiguousarray(arr)
        if arr.dtype != np.dtype(_DTYPES[dtype][1]):
            raise ValueError("%s: %s held as %s, not %s" % (
                name, dtype, arr.dtype, np.dtype(_DTYPES[dtype][1])))
        shape = list(arr.shape)
        if _DTYPES[dtype][2] == 4 and shape:
            shape[-1] *= 2  # two int4 per byte
        return self.tensor(name, dtype, shape, arr)[0]

    def make(self, tensors, lists, arrays, attrs, outputs):
        try:
            return self._make(tensors, lists, arrays, attrs, outputs)
        finally:
            for t in self.tensors:
                self.lib.aclDestroyTensor(t)
            for lst in self.lists:  # and the tensors in them
                self.lib.aclDestroyTensorList(lst)
            for a in self.arrays:
                self.lib.aclDestroyIntArray(a)
            for m in self.mem:
                self.lib.aclrtFree(m)

    def _make(self, tensors, lists, arrays, attrs, outputs):
        lib = self.lib
        ptr = {}
        for name, entry in tensors.items():
            ptr[name] = self.input(name, entry)
            self.tensors.append(ptr[name])
        for name, entries in lists.items():
            if entries is None:
                continue
            ts = [self.input("%s[%d]" % (name, i), e)
                  for i, e in enumerate(entries)]
            vec = (ctypes.c_void_p * max(len(ts), 1))(*ts)
            lst = lib.aclCreateTensorList(vec, len(ts))
            if not lst:
                for t in ts:
                    lib.aclDestroyTensor(t)
                raise RuntimeError(self.error("aclCreateTensorList " + name))
            self.lists.append(lst)
            ptr[name] = lst
        for name, values in arrays.items():
            if values is None:
                continue
            vals = (ctypes.c_int64 * max(len(values), 1))(*values)
            a = lib.aclCreateIntArray(vals, len(values))
            if not a:
                raise RuntimeError(self.error("aclCreateIntArray " + name))
            self.arrays.append(a)
            ptr[name] = a
        outs = {}
        for name, (dtype, shape) in outputs.items():
            t, mem, nbytes = self.tensor(name, dtype, list(shape))
            self.tensors.append(t)
            ptr[name] = t
            outs[name] = (dtype, list(shape), mem, nbytes)
        attr_values = []
        for name, ctype, default in _ATTRS:
            v = attrs.get(name, default)
            attr_values.append(v.encode() if ctype is ctypes.c_char_p else v)
        order = (["query", "key", "value"] + _TENSORS_AFTER_KV + _ARRAYS[:2] +
                 _TENSORS_MIDDLE + _ARRAYS[2:])
        ws = ctypes.c_uint64()
        executor = ctypes.c_void_p()
        outs_and_phase = (ptr.get("attention_out"), ptr.get("softmax_lse"),
                          ctypes.byref(ws), ctypes.byref(executor))
        extra_attrs = {k: v for k, v in attrs.items() if k in _EXTRA_ATTRS
                       and v != _EXTRA_ATTRS[k]}
        extended = (self.interface not in (None, "aclnn_v2") or extra_attrs
                    or any(n in ptr for n in _EXTRA_TENSORS +
                           _EXTRA_AFTER_MODE))
        if extended:
            out_dtype = attrs.get("out_dtype")
            code = lib.fiacheckStandinFusedInferAttentionScoreExtGetWorkspaceSize(
                *[ptr.get(n) for n in order], *attr_values,
                *[ptr.get(n) for n in _EXTRA_TENSORS],
                attrs.get("query_quant_mode", 0),
                *[ptr.get(n) for n in _EXTRA_AFTER_MODE],
                None if out_dtype is None else
                ctypes.pointer(ctypes.c_int64(out_dtype)),
                None if self.interface is None else self.interface.encode(),
                *outs_and_phase)
        else:
            code = lib.aclnnFusedInferAttentionScoreV2GetWorkspaceSize(
                *[ptr.get(n) for n in order], *attr_values, *outs_and_phase)
        if code == 0:
            wmem = self.device(ws.value)
            code = lib.aclnnFusedInferAttentionScoreV2(wmem, ws.value,
                                                       executor, None)
        if code != 0:
            m = lib.aclGetRecentErrMsg()
            return code, m.decode(errors="replace") if m else "", {}
        result = {}
        for name, (dtype, shape, mem, nbytes) in outs.items():
            npshape = list(shape)
            if _DTYPES[dtype][2] == 4 and npshape:
                npshape[-1] = (npshape[-1] + 1) // 2
            host = np.zeros(npshape, dtype=_DTYPES[dtype][1])
            if nbytes and lib.aclrtMemcpy(host.ctypes.data, nbytes, mem,
                                          nbytes, _MEMCPY_DEVICE_TO_HOST):
                raise RuntimeError(self.error("aclrtMemcpy " + name))
            result[name] = host
        return 0, "", result
