"""int8 / int4 key and value dequantized before use (docs/features/antiquant.md
"Modes" and "The computation"): x = (x_int + offset) * scale, offset 0 when
none is given, the scale element picked by the parameter set and mode.
Computed exactly in float64 (the tolerance covers a kernel that rounds it)."""

import numpy as np

from layout import Uncovered

PER_TOKEN_MODES = (1, 3, 4, 5)


def _separate_in_use(tensors):
    return "key_antiquant_scale" in tensors or "value_antiquant_scale" in tensors


def _element(t, form, src, kv_heads, batch, side):
    """t's element for every (b, kn, s, d) of src.data, broadcastable."""
    b, kvn, s, d = src.data.shape
    if t.size == 0:
        return 0.0          # no key to read (the rules keep S' >= KV_S)
    if form == "tensor":
        return t.reshape(-1)[side if t.size == 2 else 0]
    if form == "channel":
        return t.reshape(-1, kvn, d)[side if t.size == 2 * kvn * d else 0][None, :, None, :]
    if form == "head":
        return t.reshape(kvn)[None, :, None, None]
    if form == "token":
        rows = t.reshape(-1, batch, t.shape[-1])[side if t.ndim == 3 and t.shape[0] == 2 else 0]
        return rows[:, :s][:, None, :, None]
    if form == "token_head":
        return t.reshape(batch, kvn, -1)[:, :, :s][:, :, :, None]
    blk = np.clip(src.block, 0, None)
    slot = src.slot
    if form == "page":
        return t[blk, slot][:, None, :, None]
    if form == "page_head":                       # (blocknum, N, block_size)
        v = t[blk[:, None, :], np.arange(kvn)[None, :, None], slot[:, None, :]]
        return v[..., None]
    raise ValueError(form)


def _form(mode, scale, separate, decode):
    if not separate:
        if scale.size == 2:
            return "tensor"
        return "token" if (decode and mode == 1) else "channel"
    if mode == 0:
        return "tensor" if scale.size == 1 else "channel"
    return {1: "token", 2: "head", 3: "token_head", 4: "page", 5: "page_head"}[mode]


def dequantize(src, side, tensors, attrs, decode, kv_heads, batch, is_list):
    """src.data (raw integers) as real values; side 0 key, 1 value."""
    if _separate_in_use(tensors):
        name = "key" if side == 0 else "value"
        scale = tensors.get(name + "_antiquant_scale")
        offset = tensors.get(name + "_antiquant_offset")
        mode = attrs[name + "_antiquant_mode"]
        separate = True
    else:
        scale = tensors.get("antiquant_scale")
        offset = tensors.get("antiquant_offset")
        mode = attrs["antiquant_mode"] if decode else 0
        separate = False
    if scale is None:
        raise Uncovered("int8/int4 key/value without an antiquant scale")
    if mode not in range(6):
        raise Uncovered("antiquant mode %d" % mode)
    form = _form(mode, scale, separate, decode)
    if is_list and form.startswith("token"):
        raise Uncovered("per-token antiquant with a key/value list")
    if form.startswith("page") and src.block is None:
        raise Uncovered("page-managed antiquant scales without page attention")
    s = _element(scale, form, src, kv_heads, batch, side)
    o = 0.0 if offset is None or offset.size == 0 else _element(offset, form, src, kv_heads, batch, side)
    return (src.data.astype(np.float64) + o) * s
