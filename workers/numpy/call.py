"""One call of the operator, from the request's tensors to its outputs:
reads each feature (layout, lengths, padding, keys, mask, pse, sink,
antiquant, output quantization) and hands the canonical problem to
attention.attend.  What the worker does not compute raises Uncovered."""

import os

import numpy as np

import antiquant
import keys
import kvsource
from attention import attend
from dtypes import decode, element_count, encode, storage_bytes
from layout import (BATCHED, Uncovered, batched_to_canonical, canonical_to_batched,
                    canonical_to_tokens, cumulative_spans, split_layout,
                    tokens_to_canonical)

INT_ATTRS = ("num_heads", "pre_tokens", "next_tokens", "num_key_value_heads", "sparse_mode",
             "inner_precise", "block_size", "antiquant_mode", "softmax_lse_flag",
             "key_antiquant_mode", "value_antiquant_mode", "query_quant_mode")
QUANT_KV = ("int8", "int4", "int32")
# For the test suite only: a deliberately wrong worker that must be caught.
PLANT = os.environ.get("FIA_NUMPY_WORKER_PLANT", "")


def attributes(req):
    a = {}
    for name in INT_ATTRS:
        a[name] = int(req.attrs.get(name, "0"))
    a["scale"] = float(req.attrs.get("scale", "1"))
    a["input_layout"] = req.attrs.get("input_layout", "BSH")
    a["out_dtype"] = req.attrs.get("out_dtype", "none")
    return a


def _entries(req, name):
    out, i = [], 0
    while "%s.%d" % (name, i) in req.tensors:
        out.append(req.tensors["%s.%d" % (name, i)])
        i += 1
    return out


def coverage(req):
    """Raises Uncovered for what this worker does not compute; needs no data."""
    a = attributes(req)
    t = req.tensors
    q = t.get("query")
    if q is None or not _entries(req, "key") or not _entries(req, "value"):
        raise Uncovered("a call without query, key or value")
    if element_count(q.shape) == 0:
        return a            # nothing to compute, whatever else the call says
    split_layout(a["input_layout"])
    if q.dtype not in ("fp16", "bf16", "int8"):
        raise Uncovered("a %s query is not computed by this worker" % q.dtype)
    if q.dtype == "int8" and ("query_rope" in t or "learnable_sink" in t):
        raise Uncovered("MLA's full quantization and the sink with an int8 query")
    if "dequant_scale_query" in t:
        raise Uncovered("dequant_scale_query (query quantization) is not computed by this worker")
    if ("query_rope" in t) != ("key_rope" in t):
        raise Uncovered("one rope input without the other")
    if a["out_dtype"] != "none":
        raise Uncovered("out_dtype")
    for name, dtype, _ in req.outputs:
        if name == "attention_out" and dtype not in ("fp16", "bf16", "int8", "fp32"):
            raise Uncovered("attention_out of dtype %s" % dtype)
    kdt = _entries(req, "key")[0].dtype
    if q.dtype == "int8" and kdt != "int8":
        raise Uncovered("an int8 query with %s key/value" % kdt)
    if kdt not in QUANT_KV and kdt != q.dtype:
        raise Uncovered("key of dtype %s with a %s query" % (kdt, q.dtype))
    return a


def _array(t, reshape_int4=False):
    if t is None:
        return None
    if t.dtype == "int32" and reshape_int4:
        # int4 packed eight to an int32: the same bytes as int4 (antiquant.md)
        shape = list(t.shape[:-1]) + [t.shape[-1] * 8]
        return decode("int4", shape, t.raw)
    return decode(t.dtype, t.shape, t.raw)


def _tensors(req, quant_kv):
    out = {}
    for name, t in req.tensors.items():
        if t.raw or not t.shape or 0 not in t.shape:
            out[name] = _array(t, reshape_int4=quant_kv and name.split(".")[0] in ("key", "value"))
        else:
            out[name] = decode(t.dtype, t.shape, b"")
    return out


def _present(x):
    """An optional tensor with no elements counts as absent (mask, pse, padding)."""
    return x is not None and x.size > 0


def _queries(a, x, inp, heads, arrays):
    """Canonical query and its geometry: (q, decode, q_len, token spans)."""
    if inp in BATCHED:
        q = batched_to_canonical(x, inp, heads)
        b, _, qs, _ = q.shape
        decode_path = qs == 1
        qlen = (np.ones(b, dtype=np.int64) if decode_path
                else keys.lengths(arrays.get("actual_seq_lengths"), b, qs))
        return q, decode_path, qlen, None
    cum = arrays.get("actual_seq_lengths")
    if cum is None:
        raise Uncovered("a token layout without actual_seq_lengths")
    start, length = cumulative_spans(cum)
    q, _ = tokens_to_canonical(x, inp, start, length)
    return q, False, length, (start, length, x.shape[0] if inp == "TND" else x.shape[1])


def _key_source(req, a, T, inp, kv_heads, batch, tokens, name):
    if name in T:
        entries = [T[name]]
    else:
        entries = [T["%s.%d" % (name, i)] for i in range(len(_entries(req, name)))]
    if "block_table" in T:
        kvl = req.arrays.get("actual_seq_lengths_kv")
        if kvl is None:
            raise Uncovered("page attention without actual_seq_lengths_kv")
        return kvsource.from_pages(entries[0], T["block_table"],
                                   keys.lengths(kvl, batch, 0), kv_heads, a["block_size"])
    if tokens is not None:
        cum = req.arrays.get("actual_seq_lengths_kv")
        if cum is None:
            raise Uncovered("a token layout without actual_seq_lengths_kv")
        start, length = cumulative_spans(cum)
        return kvsource.from_tokens(entries[0], inp, start, length)
    if len(entries) > 1:
        return kvsource.from_list(entries, inp, kv_heads)
    return kvsource.from_tensor(entries[0], inp, kv_heads)


def _prefix(T, inp, kv_heads, arrays, name):
    x = T.get(name)
    if x is None:
        return None, 0
    c = batched_to_canonical(x, inp, kv_heads)[0]
    p = arrays.get("actual_shared_prefix_len")
    return c, (c.shape[1] if p is None else int(p[0]))


def _padding_starts(req, T, decode_path, size, length, which, paged, is_list):
    """Left-padding starts (padding.md "The scene"), or zeros."""
    pad = T.get(which + "_padding_size")
    lens = "actual_seq_lengths" if which == "query" else "actual_seq_lengths_kv"
    if not _present(pad) or lens not in req.arrays:
        return np.zeros(len(length), dtype=np.int64), False
    if which == "query" and decode_path:
        return np.zeros(len(length), dtype=np.int64), False
    if which == "kv" and decode_path and (paged or is_list):
        return np.zeros(len(length), dtype=np.int64), False
    return keys.left_starts(pad.reshape(-1)[0], size, length), True


def compute(req):
    """[(name, bytes)] for each output of the request."""
    a = coverage(req)
    if element_count(req.tensors["query"].shape) == 0:
        # an empty query computes nothing (layout.md "Degenerate shapes")
        return [(name, bytes(storage_bytes(dtype, shape))) for name, dtype, shape in req.outputs]
    inp, outl = split_layout(a["input_layout"])
    heads = a["num_heads"]
    kv_heads = a["num_key_value_heads"] or heads
    kdt = _entries(req, "key")[0].dtype
    full_int8 = req.tensors["query"].dtype == "int8"
    quant_kv = kdt in QUANT_KV and not full_int8
    T = _tensors(req, quant_kv)
    q, decode_path, q_len, tokens = _queries(a, T["query"], inp, heads, req.arrays)
    batch, _, qs, _ = q.shape
    is_list = len(_entries(req, "key")) > 1
    paged = "block_table" in T
    ksrc = _key_source(req, a, T, inp, kv_heads, batch, tokens, "key")
    vsrc = _key_source(req, a, T, inp, kv_heads, batch, tokens, "value")
    if quant_kv:
        ksrc.data = antiquant.dequantize(ksrc, 0, T, a, decode_path, kv_heads, batch, is_list)
        vsrc.data = antiquant.dequantize(vsrc, 1, T, a, decode_path, kv_heads, batch, is_list)
    kv_len = ksrc.default_len if tokens is not None or paged else \
        keys.lengths(req.arrays.get("actual_seq_lengths_kv"), batch, 0) \
        if "actual_seq_lengths_kv" in req.arrays else ksrc.default_len
    if is_list and "actual_seq_lengths_kv" in req.arrays:
        kv_len = np.minimum(kv_len, ksrc.default_len)
    q_start, q_pad = _padding_starts(req, T, decode_path, qs, q_len, "query", paged, is_list)
    kv_start, kv_pad = _padding_starts(req, T, decode_path, ksrc.data.shape[2], kv_len, "kv",
                                       paged, is_list)
    if "query_rope" in T:
        # MLA (mla.md): the score adds q_rope . k_rope before the scale, which is
        # the plain score over the query and key widened by their rope columns
        qr, _, _, _ = _queries(a, T["query_rope"], inp, heads, req.arrays)
        krsrc = _key_source(req, a, T, inp, kv_heads, batch, tokens, "key_rope")
        q = np.concatenate([q, qr], axis=-1)
        ksrc.data = np.concatenate([ksrc.data, krsrc.data], axis=-1)
    if q_pad:
        # logical row i of batch b is physical row q_start[b] + i (padding.md)
        src = np.clip(np.maximum(q_start, 0)[:, None] + np.arange(qs)[None, :], 0, qs - 1)
        q = np.take_along_axis(q, src[:, None, :, None], axis=2)
    kp, plen = _prefix(T, inp, kv_heads, req.arrays, "key_shared_prefix")
    vp, _ = _prefix(T, inp, kv_heads, req.arrays, "value_shared_prefix")
    k, total = kvsource.logical_keys(ksrc.data, kv_start, kv_len, kp, plen)
    v, _ = kvsource.logical_keys(vsrc.data, kv_start, kv_len, vp, plen)
    mask = T.get("atten_mask")
    geometry = {
        "batch": batch, "rows": qs, "width": k.shape[2], "q_len": q_len,
        "kv_len": np.where(kv_start >= 0, total, 0), "q_start": q_start,
        "kv_start": kv_start, "decode": decode_path, "sparse_mode": a["sparse_mode"],
        "pre_tokens": a["pre_tokens"], "next_tokens": a["next_tokens"],
        "mask": mask if _present(mask) else None, "padding_scene": q_pad or kv_pad,
    }
    keep = keys.keep_matrix(geometry)
    keep &= (kv_start >= 0)[:, None, None]
    pse = T.get("pse_shift")
    bias = keys.pse_bias(pse, geometry, heads) if _present(pse) else None
    sink = T.get("learnable_sink")
    scale = 1.0 if PLANT == "scale" else a["scale"]
    p_quant = None
    if full_int8:
        scale *= _dequant_scale(req, "dequant_scale1")
        p_quant = (float(T["quant_scale1"].reshape(-1)[0]), _dequant_scale(req, "dequant_scale2"))
    out, lse = attend(q, k, v, keep, scale, bias,
                      sink.reshape(-1) if sink is not None else None, p_quant)
    return _outputs(req, T, out, lse, outl, tokens, q_start, heads)


def _dequant_scale(req, name):
    """A dequant scale of full int8 quantization (int8_quant.md step 1): a
    uint64 holds a float32 in its low 32 bits, of which bits 31..13 are
    kept; a float32 one is used as given."""
    t = req.tensors[name]
    if t.dtype == "uint64":
        low = np.frombuffer(t.raw[:8], dtype="<u8")[0] & np.uint64(0xFFFFE000)
        return float(np.array([low], dtype=np.uint64).astype(np.uint32).view(np.float32)[0])
    return float(decode(t.dtype, t.shape, t.raw).reshape(-1)[0])


def _quantize_out(T, out):
    """int8 attention_out: x * quant_scale2 + quant_offset2, per tensor or per
    output column n*D + d (int8_out.md); rounding and saturation in encode."""
    b, n, s, d = out.shape
    qs = T["quant_scale2"].reshape(-1)
    qo = T.get("quant_offset2")
    qo = np.zeros(1) if qo is None or qo.size == 0 else qo.reshape(-1)
    shape = lambda x: x[0] if x.size == 1 else x.reshape(n, d)[None, :, None, :]
    with np.errstate(all="ignore"):          # NaN rows: unspecified (int8_out.md)
        return out * shape(qs) + shape(qo)


def _outputs(req, T, out, lse, outl, tokens, q_start, heads):
    b, n, s, d = out.shape
    # physical rows: row i of batch b sits at q_start[b] + i (query left padding)
    if q_start.any():
        phys = np.zeros_like(out)
        plse = np.full_like(lse, np.inf)
        for bi in range(b):
            st = int(q_start[bi])
            if st >= 0:
                phys[bi, :, st:] = out[bi, :, :s - st]
                plse[bi, :, st:] = lse[bi, :, :s - st]
        out, lse = phys, plse
    blobs = []
    for name, dtype, shape in req.outputs:
        if name == "attention_out":
            x = _quantize_out(T, out) if dtype == "int8" else out
            if tokens is not None:
                r = canonical_to_tokens(x, outl, tokens[0], tokens[1], tokens[2])
            else:
                r = canonical_to_batched(x, outl, shape)
            if list(r.shape) != list(shape):
                raise Uncovered("attention_out %s, this worker makes %s" % (shape, list(r.shape)))
        elif name == "softmax_lse":
            if tokens is not None:
                r = canonical_to_tokens(lse[..., None], "TND", tokens[0], tokens[1], tokens[2])
            else:
                r = lse
            if r.size != int(np.prod(shape)):
                raise Uncovered("softmax_lse %s, this worker makes %s" % (shape, list(r.shape)))
        else:
            raise Uncovered("output %s" % name)
        blobs.append((name, encode(dtype, r)))
    return blobs
