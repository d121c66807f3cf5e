"""The attention itself (docs/semantics.md "The core" and "Non-finite
inputs"; docs/features/sink.md for the sink), in float64 on canonical
arrays:

    q     [B, N, Sq, D]      query rows
    k     [B, KV_N, L, D]    the keys each batch reads, in logical order
    v     [B, KV_N, L, Dv]
    keep  [B, Sq, L] bool    key j takes part in row i (every feature's
                             reading has already decided it)
    bias  [B, N, Sq, L]      pse added to the scaled score, or None
    sink  [N]                learnable_sink, or None

Query head n reads key/value head n // (N / KV_N) (docs/features/gqa.md).
A key that does not take part is never read: its score and value may be
NaN without effect.  A row where no key takes part comes back as 0 with
lse +inf: that is what the documents give with the row-invalid correction,
and an unspecified row may hold anything."""

import numpy as np

# Scores of one chunk at most (float64 elements); larger calls go batch by batch.
_CHUNK_ELEMENTS = 1 << 22


def _expand_heads(x, n):
    kvn = x.shape[1]
    return x if kvn == n else np.repeat(x, n // kvn, axis=1)


def _nonfinite_values(e, keep4, v):
    """Sum_j e_ij * v_jd over the kept keys, for the elements of v that are
    not finite (IEEE: 0 * inf is NaN, so a weight-0 key still poisons)."""
    vnf = np.where(np.isfinite(v), 0.0, v)
    # [B, N, Sq, L, 1] * [B, N, 1, L, Dv]
    prod = e[..., :, None] * vnf[:, :, None, :, :]
    prod = np.where(keep4[..., None], prod, 0.0)
    return prod.sum(axis=-2)


def _attend_chunk(q, k, v, keep, scale, bias, sink, p_quant):
    b, n, sq, _ = q.shape
    dv = v.shape[-1]
    k = _expand_heads(k, n)
    v = _expand_heads(v, n)
    s = np.matmul(q, np.swapaxes(k, -1, -2)) * scale
    if bias is not None:
        s = s + bias
    keep4 = np.broadcast_to(keep[:, None, :, :], s.shape)
    masked = np.where(keep4, s, -np.inf)
    if masked.shape[-1]:
        m = masked.max(axis=-1)
    else:
        m = np.full(masked.shape[:-1], -np.inf)
    if sink is not None:
        m = np.maximum(m, sink[None, :, None])       # NaN propagates
    e = np.where(keep4, np.exp(masked - m[..., None]), 0.0)
    den = e.sum(axis=-1)
    if sink is not None:
        den = den + np.exp(sink[None, :, None] - m)
    if p_quant is not None:
        # full int8 quantization (int8_quant.md "The computation" 4-6): the
        # unnormalized weights quantized to int8 before P.V, the sum unquantized
        qs1, ds2 = p_quant
        e = np.clip(np.rint(e * qs1), -128, 127) * ds2
    vfin = np.isfinite(v)
    num = np.matmul(e, np.where(vfin, v, 0.0))
    if not vfin.all():
        num = num + _nonfinite_values(e, keep4, v)
    out = num / den[..., None]
    lse = m + np.log(den)
    empty = ~keep.any(axis=-1)                       # [B, Sq]
    if empty.any():
        e4 = np.broadcast_to(empty[:, None, :], (b, n, sq))
        out[e4] = 0.0
        lse[e4] = np.inf
    return out, lse


def attend(q, k, v, keep, scale, bias=None, sink=None, p_quant=None):
    """(out [B, N, Sq, Dv], lse [B, N, Sq]) in float64.  p_quant: (quant_scale1,
    dequant_scale2) of full int8 quantization, or None."""
    b, n, sq, _ = q.shape
    l, dv = k.shape[2], v.shape[-1]
    out = np.zeros((b, n, sq, dv))
    lse = np.full((b, n, sq), np.inf)
    per_batch = max(1, n * sq * max(l, 1) * (1 + (bias is not None)))
    step = max(1, _CHUNK_ELEMENTS // per_batch)
    with np.errstate(all="ignore"):
        for lo in range(0, b, step):
            hi = min(b, lo + step)
            if not keep[lo:hi].any():
                continue
            o, s = _attend_chunk(q[lo:hi], k[lo:hi], v[lo:hi], keep[lo:hi], scale,
                                 None if bias is None else bias[lo:hi], sink, p_quant)
            out[lo:hi], lse[lo:hi] = o, s
    return out, lse
