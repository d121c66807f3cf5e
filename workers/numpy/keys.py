"""Which keys take part in which row, and the bias each pair gets:
sequence lengths (docs/features/seqlen.md, tnd.md), left padding
(padding.md), the mask and the sparse modes (mask.md, sparse.md), the
shared prefix's logical key index (prefix.md) and pse_shift (pse.md)."""

import numpy as np

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


def lengths(values, batch, default):
    """Per-batch lengths from a host array: one value for every batch, or
    the first `batch` values (seqlen.md); `default` when not passed."""
    if values is None:
        return np.asarray(default, dtype=np.int64) * np.ones(batch, dtype=np.int64)
    if len(values) == 1:
        return np.full(batch, values[0], dtype=np.int64)
    return np.asarray(values[:batch], dtype=np.int64)


def left_starts(padding, size, length):
    """Physical start of each batch's rows, right-aligned before `padding`
    rows (padding.md: start = S - p - len, p below 0 taken as 0).  A start
    below 0 stays negative: that batch computes nothing."""
    p = max(0, int(padding))
    return np.array([size - p - int(n) if p <= size - int(n) else -1 for n in length],
                    dtype=np.int64)


def _clamp(x):
    return min(max(int(x), INT32_MIN), INT32_MAX)


def mask_excludes(mask, decode, batch, row, col):
    """mask element (b, row, col) nonzero, as mask.md indexes it: Q_S > 1
    reads [b or 0][0][row][col] of its last two dims, Q_S = 1 [b or 0][col]
    whatever its rank.  row [B, Sq], col [B, L] physical positions."""
    if decode:
        m = mask.reshape(mask.shape[0] if mask.ndim >= 2 else 1, -1)
        m = m.reshape(m.shape[0], -1, mask.shape[-1])[:, 0, :]          # [Bm, cols]
        bi = np.arange(batch) if m.shape[0] > 1 else np.zeros(batch, dtype=np.int64)
        c = np.clip(col, 0, m.shape[1] - 1)
        ex = m[bi[:, None], c] != 0                                      # [B, L]
        return np.broadcast_to(ex[:, None, :], (batch, row.shape[1], col.shape[1]))
    rows, cols = mask.shape[-2], mask.shape[-1]
    lead = mask.shape[0] if mask.ndim >= 3 else 1
    m = mask.reshape(lead, -1, rows, cols)[:, 0]                         # [Bm, rows, cols]
    bi = np.arange(batch) if lead > 1 else np.zeros(batch, dtype=np.int64)
    r = np.clip(row, 0, rows - 1)
    c = np.clip(col, 0, cols - 1)
    return m[bi[:, None, None], r[:, :, None], c[:, None, :]] != 0


def keep_matrix(g):
    """keep [B, Sq, L]: key j takes part in row i (sparse.md's table, with
    the lengths, left padding and prefix already in g)."""
    b, sq, l = g["batch"], g["rows"], g["width"]
    i = np.arange(sq)[None, :, None]
    j = np.arange(l)[None, None, :]
    qlen = g["q_len"][:, None, None]
    klen = g["kv_len"][:, None, None]               # logical: prefix + own
    live = (i < qlen) & (j < klen)
    live &= (g["q_start"] >= 0)[:, None, None] & (g["kv_start"] >= 0)[:, None, None]
    mask = g["mask"]
    row = g["q_start"][:, None] + np.arange(sq)[None, :]
    col = g["kv_start"][:, None] + np.arange(l)[None, :]
    if g["decode"]:
        # Q_S = 1: sparse mode and tokens are ignored (sparse.md)
        if mask is not None:
            live &= ~mask_excludes(mask, True, b, row, col)
        return live
    mode = g["sparse_mode"]
    pre, nxt = _clamp(g["pre_tokens"]), _clamp(g["next_tokens"])
    off = (g["kv_len"] - g["q_len"])[:, None, None]
    if mode == 0:
        if mask is not None:
            live &= ~mask_excludes(mask, False, b, row, col)
            if not g["padding_scene"]:
                live &= (j >= i - pre) & (j <= i + nxt)
    elif mode == 1:
        live &= ~mask_excludes(mask, False, b, row, col)
    elif mode == 2:
        live &= j <= i
    elif mode == 3:
        live &= j <= i + off
    elif mode == 4:
        live &= (j >= i + off - pre) & (j <= i + off + nxt)
    else:
        raise ValueError("sparse_mode %d" % mode)
    return live


def pse_bias(pse, g, heads):
    """bias [B, N, Sq, L]: pse[b or 0][n][row][col] at the physical row
    (0 at Q_S = 1) and column (pse.md)."""
    b, sq, l = g["batch"], g["rows"], g["width"]
    bi = np.arange(b) if pse.shape[0] > 1 else np.zeros(b, dtype=np.int64)
    if g["decode"]:
        row = np.zeros((b, sq), dtype=np.int64)
    else:
        row = g["q_start"][:, None] + np.arange(sq)[None, :]
    col = g["kv_start"][:, None] + np.arange(l)[None, :]
    r = np.clip(row, 0, pse.shape[2] - 1)
    c = np.clip(col, 0, pse.shape[3] - 1)
    n = np.arange(heads)
    return pse[bi[:, None, None, None], n[None, :, None, None],
               r[:, None, :, None], c[:, None, None, :]]
