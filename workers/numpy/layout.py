"""Layouts (docs/features/layout.md, docs/features/tnd.md): where a query
row, a key and an output row live in each tensor.

Everything inside the worker is canonical: [B, heads, S, D].  The token
layouts (TND, NTD) have no batch axis; their tokens are gathered into a
batch-padded canonical array and scattered back on output."""

import numpy as np

BATCHED = ("BSH", "BSND", "BNSD")
TOKEN = ("TND", "NTD")
OUTPUT_ONLY = ("NBSD",)


class Uncovered(Exception):
    """A call the worker does not compute (answered 990001 with the reason)."""


def split_layout(name):
    """(input layout, output layout) of an input_layout word."""
    parts = name.split("_")
    if len(parts) == 1:
        parts = parts * 2
    if len(parts) != 2:
        raise Uncovered("input_layout %s is not one this worker reads" % name)
    inp, out = parts
    if inp not in BATCHED + TOKEN or out not in BATCHED + TOKEN + OUTPUT_ONLY:
        raise Uncovered("input_layout %s is not one this worker reads" % name)
    if (inp in TOKEN) != (out in TOKEN):
        raise Uncovered("input_layout %s mixes batched and token layouts" % name)
    return inp, out


def batched_to_canonical(x, layout, heads):
    """[B, heads, S, D] view of a BSH / BSND / BNSD tensor."""
    if layout == "BSH":
        b, s, h = x.shape
        if heads <= 0 or h % heads:
            raise Uncovered("BSH hidden size %d is not a multiple of %d heads" % (h, heads))
        return x.reshape(b, s, heads, h // heads).transpose(0, 2, 1, 3)
    if layout == "BSND":
        return x.transpose(0, 2, 1, 3)
    return x


def cumulative_spans(cum):
    """(start, length) per batch of a cumulative length array (tnd.md)."""
    cum = np.asarray(cum, dtype=np.int64)
    start = np.concatenate([[0], cum[:-1]])
    return start, cum - start


def tokens_to_canonical(x, layout, start, length):
    """A [T, N, D] (TND) or [N, T, D] (NTD) tensor as [B, N, max length, D]:
    batch b's row i is token start[b] + i; rows past its length are 0."""
    tnd = x if layout == "TND" else x.transpose(1, 0, 2)
    t = tnd.shape[0]
    width = int(length.max()) if length.size else 0
    i = np.arange(width)
    idx = start[:, None] + i[None, :]
    live = (i[None, :] < length[:, None]) & (idx < t)
    if t == 0:
        return np.zeros((len(start), tnd.shape[1], width, tnd.shape[2])), live
    rows = tnd[np.clip(idx, 0, t - 1)]                      # [B, W, N, D]
    rows = np.where(live[:, :, None, None], rows, 0.0)
    return rows.transpose(0, 2, 1, 3), live


def canonical_to_batched(o, layout, shape):
    """Canonical [B, N, S, D] written as the output's batched layout."""
    if layout == "BNSD":
        r = o
    elif layout == "BSND":
        r = o.transpose(0, 2, 1, 3)
    elif layout == "BSH":
        b, n, s, d = o.shape
        r = o.transpose(0, 2, 1, 3).reshape(b, s, n * d)
    else:                                                   # NBSD
        r = o.transpose(1, 0, 2, 3)
    if list(r.shape) != list(shape):
        raise Uncovered("attention_out %s is not the %s shape %s this worker reads"
                        % (shape, layout, list(r.shape)))
    return r


def canonical_to_tokens(o, layout, start, length, total):
    """Canonical [B, N, W, D] as [T, N, D] (TND) or [N, T, D] (NTD)."""
    b, n, w, d = o.shape
    out = np.zeros((total, n, d))
    for bi in range(b):
        ln = int(length[bi])
        if ln:
            out[start[bi]:start[bi] + ln] = o[bi, :, :ln, :].transpose(1, 0, 2)
    return out if layout == "TND" else out.transpose(1, 0, 2)
