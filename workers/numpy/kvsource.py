"""Where each batch's keys and values come from: one tensor in the query's
layout, a tensor list (docs/features/tensor_list.md), a page-managed cache
behind block_table (paged.md), the token layouts (tnd.md), and the shared
prefix placed before every batch's own keys (prefix.md).

The result is physical: own[b, kn, s] is row s of batch b's key sequence
as stored (left padding picks the rows later); for a paged cache the rows
are already in logical order.  `where` records, per batch and row, the
block id and slot a paged row came from (antiquant's page-managed scales
read them)."""

import numpy as np

from layout import Uncovered, batched_to_canonical, tokens_to_canonical


class KeySource:
    def __init__(self, data, default_len, block=None, slot=None, paged=False):
        self.data = data                  # [B, KV_N, S, D], raw element values
        self.default_len = default_len    # per-batch length when no array is passed
        self.block, self.slot = block, slot
        self.paged = paged


def from_tensor(x, layout, kv_heads):
    c = batched_to_canonical(x, layout, kv_heads)
    return KeySource(c, np.full(c.shape[0], c.shape[2], dtype=np.int64))


def from_list(xs, layout, kv_heads):
    cs = [batched_to_canonical(x, layout, kv_heads) for x in xs]
    for c in cs:
        if c.shape[0] != 1:
            raise Uncovered("a key/value list tensor of batch %d" % c.shape[0])
    width = max(c.shape[2] for c in cs)
    out = np.zeros((len(cs), cs[0].shape[1], width, cs[0].shape[3]), dtype=cs[0].dtype)
    for b, c in enumerate(cs):
        out[b, :, :c.shape[2]] = c[0]
    return KeySource(out, np.array([c.shape[2] for c in cs], dtype=np.int64))


def from_tokens(x, layout, start, length):
    c, _ = tokens_to_canonical(x, layout, start, length)
    return KeySource(c, length.copy())


def _cache_blocks(cache, kv_heads, block_size):
    """The cache as [blocknum, KV_N, block_size, D] (paged.md's element
    formulas; the NZ form of RELEASED "Layouts" for rank 5)."""
    if cache.ndim == 3:
        nb, bs, h = cache.shape
        return cache.reshape(nb, bs, kv_heads, h // kv_heads).transpose(0, 2, 1, 3)
    if cache.ndim == 4:
        return cache
    if cache.ndim == 5:
        nb, kvn, d16, bs, sixteen = cache.shape
        return cache.transpose(0, 1, 3, 2, 4).reshape(nb, kvn, bs, d16 * sixteen)
    raise Uncovered("a paged cache of rank %d" % cache.ndim)


def from_pages(cache, table, kv_len, kv_heads, block_size):
    """Batch b's key j is slot j mod block_size of block table[b][j / block_size]
    for j < kv_len[b]; an id outside the cache is not read (paged.md: the
    result is then unspecified)."""
    blocks = _cache_blocks(cache, kv_heads, block_size)
    nb, kvn, bs, d = blocks.shape
    b = table.shape[0] if table.ndim == 2 else 0
    width = int(max(kv_len.max() if kv_len.size else 0, 0))
    j = np.arange(width)
    entry = j // block_size
    slot = j % block_size
    out = np.zeros((b, kvn, width, d), dtype=blocks.dtype)
    ids = np.full((b, width), -1, dtype=np.int64)
    for bi in range(b):
        n = int(min(max(kv_len[bi], 0), width))
        if n == 0:
            continue
        e = entry[:n]
        if e.max() >= table.shape[1]:
            continue
        bid = table[bi, e].astype(np.int64)
        ok = (bid >= 0) & (bid < nb)
        ids[bi, :n] = np.where(ok, bid, -1)
        good = np.nonzero(ok)[0]
        out[bi][:, good] = blocks[bid[good], :, slot[good]].transpose(1, 0, 2)
    src = KeySource(out, kv_len.copy(), block=ids,
                    slot=np.broadcast_to(slot, (b, width)), paged=True)
    return src


def logical_keys(own, own_start, own_len, prefix, prefix_len):
    """[B, KV_N, L, D] in logical key order: the prefix's first prefix_len
    rows, then batch b's own rows own_start[b] .. own_start[b] + own_len[b]."""
    b, kvn, s, d = own.shape
    p = int(prefix_len)
    if p == 0 and not own_start.any():
        return own, np.minimum(own_len, s)  # already in logical order: no copy
    total = p + np.where(own_start >= 0, own_len, 0)
    width = int(total.max()) if b else 0
    out = np.zeros((b, kvn, width, d))
    if p:
        out[:, :, :p] = prefix[None, :, :p]
    if width > p and s:
        j = np.arange(width - p)
        src = np.clip(np.maximum(own_start, 0)[:, None] + j[None, :], 0, s - 1)   # [B, W]
        rows = np.take_along_axis(own, src[:, None, :, None], axis=2)
        live = j[None, :] < np.where(own_start >= 0, own_len, 0)[:, None]
        out[:, :, p:] = np.where(live[:, None, :, None], rows, 0.0)
    return out, total
