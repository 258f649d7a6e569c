r"""Jit-compiled level kernels of the tree engine (DESIGN §3.2).

Rows of all the trees of a batch are stored as *entries* ``(row, nid)``: one per (tree, training row) still in an
active node, ``nid`` the index of that node among the level's active nodes. Padding and finished entries carry an
out-of-range ``nid`` that ``jax.ops.segment_*`` drops. One level costs:

* :func:`prepare_nodes` (per node): carry the known-constant feature masks from the parents and sample
  ``max_features`` distinct features per node among the features not known to be constant (uniform sampling
  without replacement: the largest of per-feature random keys);
* :func:`route_and_histogram` (per entry, the only pass over the data): route every entry to its child with the
  previous level's split, gather the codes of its node's sampled features and scatter-add one packed integer per
  (entry, feature) into per-(node, feature, bin) histograms of the counts of ``s = 1`` and ``s = 0`` rows;
* :func:`choose_random_splits` / :func:`choose_best_splits` (per node): Extra-Trees thresholds drawn uniformly
  between the node's smallest and largest value of each sampled feature (or every bin boundary), scored by their
  risk reduction; the best one per node is returned.

When histograms of all nodes would not fit (many small nodes late in the growth), :func:`route_and_range` +
:func:`left_counts` compute the same Extra-Trees quantities with two scatter passes instead.

Node statistics are integer counts ``c1`` (rows with ``s = 1``) and ``c0`` (rows with ``s = 0``), turned into the
weights of the PU ET paper, Prop. 1:

* PU (``sigma = 1``): :math:`W_p = |P'| w_p`, :math:`W_n = |U'| w_u - |P'| w_p`;
* PN (``sigma = 0``): :math:`W_p = |P'| w`, :math:`W_n = |N'| w`,

written as ``W_p = w_u * rho * c1``, ``W_n = w_u * (c0 - sigma * rho * c1)`` with ``rho = w_p / w_u`` so that an
exactly balanced node gives ``W_n = 0`` exactly whenever ``rho`` is an integer. Node risks are the closed forms of
:func:`pujax.risk.node_risk` (Prop. 1-3, eq. (11), (12), (14), (15)); the risk reduction of a split is eq. (7)/(8):
``RR = R*(node) - R*(left) - R*(right)``.

Randomness comes from a counter-based integer hash of ``(seed, tree, node uid, iteration, slot)``: a tree's draws do
not depend on which other trees are grown in the same batch, so chunking a forest over memory does not change it.
"""
from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from pujax.compilation import quick_jit
from pujax.risk import node_risk

__all__ = [
    "ENTRY_PLAIN_ROWS",
    "hash_u32",
    "hash_uniform",
    "node_uid_child",
    "sample_features",
    "prepare_nodes",
    "route_and_histogram",
    "split_histogram",
    "finish_range",
    "finish_left",
    "route",
    "histogram",
    "draw_thresholds",
    "route_and_range",
    "left_counts",
    "choose_random_splits",
    "choose_best_splits",
]

_U32 = jnp.uint32

ENTRY_PLAIN_ROWS = 1 << 18
"""The entry passes compile with XLA's default options (:func:`~pujax.compilation.quick_jit`'s ``plain_above_rows``)
when the flat binned codes (training rows x feature slots) hold more than this many codes (chunks of entries hold at
most this many): their scatter-adds then run faster, which outweighs the longer compile of a first fit from about
10,000 rows of 20 features on; smaller forests keep the quick compiles."""
_entry_jit = partial(quick_jit, plain_above_rows=ENTRY_PLAIN_ROWS)


def _fmix(h):
    """murmur3 32-bit finaliser (bijective avalanche mix) on uint32 arrays."""
    h = h ^ (h >> 16)
    h = h * _U32(0x85EBCA6B)
    h = h ^ (h >> 13)
    h = h * _U32(0xC2B2AE35)
    h = h ^ (h >> 16)
    return h


def hash_u32(*parts):
    """Hash broadcastable integer arrays to uint32 (order-sensitive combination of murmur3 finalisers)."""
    h = _U32(0x9E3779B9)
    for p in parts:
        p = jnp.asarray(p).astype(_U32)
        h = _fmix(h ^ (p + _U32(0x7F4A7C15) + (h << 6) + (h >> 2)))
    return h


def hash_uniform(*parts, dtype=jnp.float32):
    """Uniform numbers in [0, 1) from :func:`hash_u32` (24 random bits)."""
    h = hash_u32(*parts)
    return (h >> 8).astype(dtype) * jnp.asarray(1.0 / (1 << 24), dtype)


def node_uid_child(uid, side):
    """uid of a child node from its parent's uid and side (0 = left, 1 = right) (numpy, uint32 arithmetic)."""
    uid = np.asarray(uid, dtype=np.uint64)
    m = np.uint64(0xFFFFFFFF)
    h = (uid * np.uint64(0x9E3779B1) + np.uint64(side) * np.uint64(0x85EBCA77) + np.uint64(0x165667B1)) & m
    h = h ^ (h >> np.uint64(15))
    h = (h * np.uint64(0x2C1B3C6D)) & m
    h = h ^ (h >> np.uint64(12))
    return h.astype(np.uint32)


# ------------------------------------------------------------------------------------------------ features


def _cumsum(x, axis):
    """Inclusive prefix sum by a log-depth associative scan (XLA CPU lowers ``jnp.cumsum`` to an O(n^2) window)."""
    return jax.lax.associative_scan(jnp.add, x, axis=axis)


def sample_features(seed, tree, uid, it, const, n_slots: int):
    """Draw ``min(n_slots, c)`` distinct features per node uniformly among its ``c`` features not known constant.

    Every feature gets a 24-bit random key from :func:`hash_uniform` (known-constant ones the key -1); the
    ``n_slots`` largest keys (``lax.top_k``) are the sample -- a uniformly random subset, except that two equal
    keys (probability about ``d^2 / 2^25`` per node for ``d`` features) are ordered by feature index. Returns
    ``feats`` (N, n_slots) int32 and ``ok`` (N, n_slots) bool (False for unused slots when ``c < n_slots``).
    """
    N, d = const.shape
    free = ~const
    if n_slots >= d:
        feats = jnp.broadcast_to(jnp.arange(d, dtype=jnp.int32), (N, d))
        return feats, free
    u = hash_uniform(seed, tree[:, None], uid[:, None], it, _U32(7919) + jnp.arange(d, dtype=_U32)[None, :])
    _, feats = jax.lax.top_k(jnp.where(free, u, -1.0), n_slots)
    ok = jnp.arange(n_slots)[None, :] < jnp.sum(free, axis=1)[:, None]
    return feats.astype(jnp.int32), ok


@partial(quick_jit, static_argnames=("n_slots",))
def prepare_nodes(const, seed, tree, uid, it, *, n_slots: int):
    """Sampled features of a block of nodes given their known-constant masks (see :func:`sample_features`)."""
    return sample_features(seed, tree, uid, it, const, n_slots)


# ------------------------------------------------------------------------------------------------ entry passes


def _route(codes_t, n, rows, nid_prev, route_feat, route_code, child_map):
    """New node of each entry: ``child_map[nid, code(row, feature) > threshold code]``; out of range -> -1."""
    Np = route_feat.shape[0]
    valid = nid_prev < Np
    nc = jnp.minimum(nid_prev, Np - 1)
    code = codes_t[route_feat[nc] * n + rows].astype(jnp.int32)
    go_right = (code > route_code[nc]).astype(jnp.int32)
    new = child_map[nc, go_right]
    return jnp.where(valid, new, -1)


def _pack(s_rows, shift):
    return 1 + (s_rows.astype(jnp.int32) << shift)


def _unpack(hist, shift):
    if shift > 0:
        cnt = hist & ((1 << shift) - 1)
        return cnt, hist >> shift
    return hist[..., 0], hist[..., 1]


def _hist_core(acc, codes_t, s, rows, nid, feats, B, shift, n):
    """Add the histograms of one chunk of entries to ``acc`` (K, N * B[, 2]); ``nid >= N`` is dropped.

    One 1-D scatter-add per feature slot (``fori_loop``): cheaper on CPU than one scatter of (M, K) updates.
    ``codes_t`` is the transposed code matrix, flat: ``codes_t[f * n + row]``.
    """
    N = feats.shape[0]
    live = nid < N
    nc = jnp.where(live, nid, N)
    ncg = jnp.minimum(nc, N - 1)
    fo = feats * n
    sr = s[rows]
    if shift > 0:
        data = _pack(sr, shift)
    else:
        data = jnp.stack([jnp.ones(sr.shape, jnp.int32), sr.astype(jnp.int32)], -1)

    K = feats.shape[1]
    flat = acc.reshape((K * N * B,) + acc.shape[2:])
    dead = K * N * B  # out of range: dropped

    def body(j, flat):
        cx = codes_t[fo[ncg, j] + rows].astype(jnp.int32)
        seg = jnp.where(live, (j * N + nc) * B + cx, dead)
        return flat.at[seg].add(data, mode="drop")

    return jax.lax.fori_loop(0, K, body, flat).reshape(acc.shape)


@partial(_entry_jit, static_argnames=("n_bins", "shift", "n"), donate_argnums=(0,))
def route_and_histogram(acc, codes_t, s, rows, nid_prev, route_feat, route_code, child_map, feats, *,
                        n_bins: int, shift: int, n: int):
    """Route one chunk of entries, then add its per-(node, feature, bin) histograms to ``acc``.

    Each cell holds ``count + (count of s=1) << shift`` (``shift = 0``: two channels in a last axis of size 2).
    Returns ``(acc, nid)`` with the chunk's new ``nid`` (``= N`` for finished entries).
    """
    N = feats.shape[0]
    nid = _route(codes_t, n, rows, nid_prev, route_feat, route_code, child_map)
    nid = jnp.where(nid >= 0, nid, N).astype(jnp.int32)
    return _hist_core(acc, codes_t, s, rows, nid, feats, n_bins, shift, n), nid


def _node_blocks(a, n_blocks):
    """``a`` (N, ...) as a tuple of ``n_blocks`` blocks of consecutive nodes (outputs of the program, so that the
    caller slices nothing eagerly: an eager slice of a device array compiles a program per shape)."""
    nb = a.shape[0] // n_blocks
    return tuple(a[i * nb:(i + 1) * nb] for i in range(n_blocks))


@partial(quick_jit, static_argnames=("n_bins", "n_blocks"))
def split_histogram(acc, *, n_bins: int, n_blocks: int):
    """(K, N * B[, 2]) accumulator -> tuple of ``n_blocks`` node blocks (N / n_blocks, K, B[, 2])."""
    K = acc.shape[0]
    N = acc.shape[1] // n_bins
    return _node_blocks(jnp.moveaxis(acc.reshape((K, N, n_bins) + acc.shape[2:]), 0, 1), n_blocks)


@partial(_entry_jit, static_argnames=("n_out", "n"))
def route(codes_t, rows, nid_prev, route_feat, route_code, child_map, *, n_out: int, n: int):
    """Route entries to their children (finished entries get ``nid = n_out``)."""
    nid = _route(codes_t, n, rows, nid_prev, route_feat, route_code, child_map)
    return jnp.where(nid >= 0, nid, n_out).astype(jnp.int32)


@partial(_entry_jit, static_argnames=("n_bins", "shift", "n"), donate_argnums=(0,))
def histogram(acc, codes_t, s, rows, nid, feats, offset, *, n_bins: int, shift: int, n: int):
    """Add the histograms of nodes ``offset .. offset + len(feats) - 1`` of one chunk to ``acc``."""
    N = feats.shape[0]
    local = nid - offset
    local = jnp.where((local >= 0) & (local < N), local, N)
    return _hist_core(acc, codes_t, s, rows, local, feats, n_bins, shift, n)


@partial(_entry_jit, static_argnames=("n",), donate_argnums=(0,))
def route_and_range(acc, codes_t, rows, nid_prev, route_feat, route_code, child_map, feats, *, n: int):
    """Route one chunk, then max-accumulate (code, 255 - code) of each sampled feature per node into ``acc``
    (K, N, 2) (two-pass mode; see :func:`finish_range`)."""
    N = feats.shape[0]
    nid = _route(codes_t, n, rows, nid_prev, route_feat, route_code, child_map)
    nid = jnp.where(nid >= 0, nid, N).astype(jnp.int32)
    ncg = jnp.minimum(nid, N - 1)
    fo = feats * n

    def body(j, acc):
        cx = codes_t[fo[ncg, j] + rows]
        mm = jax.ops.segment_max(jnp.stack([cx, 255 - cx], -1), nid, num_segments=N)
        return acc.at[j].max(mm.astype(jnp.int32))

    return jax.lax.fori_loop(0, feats.shape[1], body, acc), nid


@partial(quick_jit, static_argnames=("n_blocks",))
def finish_range(acc, *, n_blocks: int):
    """(K, N, 2) max accumulator -> per block of ``N / n_blocks`` nodes, ``(mx, mn)`` per (node, feature)."""
    return tuple(zip(_node_blocks(acc[:, :, 0].T, n_blocks), _node_blocks(255 - acc[:, :, 1].T, n_blocks)))


@partial(_entry_jit, static_argnames=("shift", "n"), donate_argnums=(0,))
def left_counts(acc, codes_t, s, rows, nid, feats, thr, *, shift: int, n: int):
    """Add the counts (all, s=1) of one chunk's entries with code <= thr per (node, feature, threshold) to
    ``acc`` (K, N, T or 2T) (two-pass mode; see :func:`finish_left`)."""
    N, K, T = thr.shape
    ncg = jnp.minimum(nid, N - 1)
    fo = feats * n
    sr = s[rows]

    def body(j, acc):
        cx = codes_t[fo[ncg, j] + rows].astype(jnp.int32)
        left = (cx[:, None] <= thr[ncg, j]).astype(jnp.int32)  # (M, T)
        if shift > 0:
            c = jax.ops.segment_sum(left * _pack(sr, shift)[:, None], nid, num_segments=N)
        else:
            c = jax.ops.segment_sum(jnp.concatenate([left, left * sr[:, None].astype(jnp.int32)], 1), nid,
                                    num_segments=N)
        return acc.at[j].add(c)

    return jax.lax.fori_loop(0, K, body, acc)


@partial(quick_jit, static_argnames=("shift", "n_blocks"))
def finish_left(acc, *, shift: int, n_blocks: int):
    """(K, N, w) accumulator -> per block of ``N / n_blocks`` nodes, ``(left count, left count of s=1)``, each
    (N / n_blocks, K, T)."""
    acc = jnp.moveaxis(acc, 0, 1)
    if shift > 0:
        l_all, l_c1 = _unpack(acc, shift)
    else:
        T = acc.shape[2] // 2
        l_all, l_c1 = acc[..., :T], acc[..., T:]
    return tuple(zip(_node_blocks(l_all, n_blocks), _node_blocks(l_c1, n_blocks)))


# ------------------------------------------------------------------------------------------------ scoring


def _risk(c1, c0, wu, rho, sigma, risk, loss):
    c1 = c1.astype(wu.dtype)
    c0 = c0.astype(wu.dtype)
    Wp = wu * (rho * c1)
    Wn = wu * (c0 - sigma * (rho * c1))
    return node_risk(Wp, Wn, risk=risk, loss=loss)


def _search_codes(bin_hi, feats, t, n_bins):
    """c = #{b : bin_hi[f, b] <= t} - 1 by a fixed-length vectorised binary search (bin_hi ascending per row)."""
    f = jnp.broadcast_to(feats, t.shape)

    def bisect(_, lohi):
        lo, hi = lohi
        mid = (lo + hi) // 2
        le = bin_hi[f, jnp.minimum(mid, n_bins - 1)] <= t
        active = lo < hi
        return jnp.where(le & active, mid + 1, lo), jnp.where(~le & active, mid, hi)

    n_it = int(np.ceil(np.log2(n_bins))) + 1
    lo, _ = jax.lax.fori_loop(0, n_it, bisect, (jnp.zeros(t.shape, jnp.int32), jnp.full(t.shape, n_bins, jnp.int32)))
    return lo - 1


@partial(quick_jit, static_argnames=("n_thresholds", "n_bins"))
def draw_thresholds(mn, mx, feats, ok, seed, tree, uid, it, bin_lo, bin_hi, *, n_thresholds: int, n_bins: int):
    """Extra-Trees thresholds: t ~ U[min value, max value] of the node; split code c with code <= c going left.

    Returns ``thr`` (N, K, T) int32 in ``[mn, mx - 1]`` and ``cand`` (N, K) (feature usable: not constant).
    """
    K = feats.shape[1]
    T = n_thresholds
    cand = ok & (mx > mn)
    u = hash_uniform(seed, tree[:, None, None], uid[:, None, None], it, jnp.arange(K, dtype=_U32)[None, :, None],
                     jnp.arange(T, dtype=_U32)[None, None, :])
    lo_v = bin_lo[feats, jnp.clip(mn, 0, n_bins - 1)][..., None]
    hi_v = bin_hi[feats, jnp.clip(mx, 0, n_bins - 1)][..., None]
    span = hi_v - lo_v
    span = jnp.where(jnp.isfinite(span), span, 0.0)
    t = lo_v + u.astype(lo_v.dtype) * span
    thr = _search_codes(bin_hi, feats[..., None], t, n_bins)
    thr = jnp.clip(thr, mn[..., None], jnp.maximum(mx[..., None] - 1, mn[..., None]))
    return thr.astype(jnp.int32), cand


def _finish(score_rr, cand, l_c1, l_c0, r_l, r_r, rn, feats, codes_c, newc, T):
    N, K = feats.shape
    score = jnp.where(cand, score_rr, -jnp.inf)
    # a usable candidate whose score is -inf only by arithmetic stays selectable (deterministic: first index)
    score = jnp.where(cand & (score == -jnp.inf), jnp.finfo(score.dtype).min, score)
    flat = score.reshape(N, K * T)
    best = jnp.argmax(flat, axis=1)
    has = jnp.any(cand.reshape(N, K * T), axis=1)
    onehot = (jnp.arange(K * T)[None, :] == best[:, None]).reshape(N, K, T)

    def pick(a):
        a = jnp.broadcast_to(a, (N, K, T))
        return jnp.sum(jnp.where(onehot, a, jnp.zeros((), a.dtype)), axis=(1, 2))

    return {
        "feature": pick(feats[:, :, None]).astype(jnp.int32),
        "code": pick(codes_c).astype(jnp.int32),
        "left_c1": pick(l_c1).astype(jnp.int32),
        "left_c0": pick(l_c0).astype(jnp.int32),
        "risk_node": rn,
        "risk_left": pick(r_l),
        "risk_right": pick(r_r),
        "rr": pick(score_rr),
        "has_split": has,
        "newly_const": newc,
        "feats": feats,
    }


def _hist_range(cnt, n_bins):
    """Smallest and largest non-empty bin per (node, feature); (0, 0) for empty histograms.

    Reductions in uint8 (bins < 256): several times faster on CPU than int32 min/max or argmax.
    """
    present = cnt > 0
    b = jnp.arange(n_bins, dtype=jnp.int32)
    hi = jnp.max(jnp.where(present, b.astype(jnp.uint8), jnp.uint8(0)), axis=2).astype(jnp.int32)
    lo = 255 - jnp.max(jnp.where(present, (255 - b).astype(jnp.uint8), jnp.uint8(0)), axis=2).astype(jnp.int32)
    empty = hi < lo
    return jnp.where(empty, 0, lo), jnp.where(empty, 0, hi)


def _score(l_c1, l_c0, c1, c0, wu, rho, sigma, risk, loss, rn=None):
    """Node risks, children risks and risk reductions of every candidate; ``rn``: the node risks when known (the
    value the node's parent computed for it: the same float for the node and for its reductions)."""
    if rn is None:
        rn = _risk(c1, c0, wu, rho, sigma, risk, loss)
    r_l = _risk(l_c1, l_c0, wu, rho, sigma, risk, loss)
    r_r = _risk(c1[:, None, None] - l_c1, c0[:, None, None] - l_c0, wu, rho, sigma, risk, loss)
    rr = rn[:, None, None] - r_l - r_r
    rr = jnp.where(jnp.isnan(rr), -jnp.inf, rr)
    return rn, r_l, r_r, rr


@partial(quick_jit, static_argnames=("n_thresholds", "n_bins", "shift", "risk", "loss", "from_hist"))
def choose_random_splits(stats, feats, ok, c1, c0, seed, tree, uid, it, wu, rho, sigma, bin_lo, bin_hi,
                         risk_node=None, *, n_thresholds: int, n_bins: int, shift: int, risk: str, loss: str,
                         from_hist: bool):
    """Best Extra-Trees split per node (PU ET paper §4; Appendix H), from histograms or from (min, max).

    With ``from_hist`` ``stats`` is the packed histogram (N, K, B); otherwise ``stats = (mn, mx, l_all, l_c1,
    thr)`` from the two-pass kernels. Returns a dict of per-node arrays (see :func:`_finish`).
    """
    N, K = feats.shape
    T = n_thresholds
    if from_hist:
        cnt, p = _unpack(stats, shift)
        mn, mx = _hist_range(cnt, n_bins)
        thr, cand = draw_thresholds(mn, mx, feats, ok, seed, tree, uid, it, bin_lo, bin_hi, n_thresholds=T,
                                    n_bins=n_bins)
        bidx = jnp.arange(n_bins, dtype=jnp.int32)
        go_left = bidx[None, None, None, :] <= thr[..., None]  # (N, K, T, B)
        if shift > 0:  # sums of packed cells stay packed (counts < 2**shift)
            l_all, l_c1 = _unpack(jnp.sum(jnp.where(go_left, stats[:, :, None, :], 0), axis=3), shift)
        else:
            l_all = jnp.sum(jnp.where(go_left, cnt[:, :, None, :], 0), axis=3)
            l_c1 = jnp.sum(jnp.where(go_left, p[:, :, None, :], 0), axis=3)
    else:
        mn, mx, l_all, l_c1, thr = stats
        cand = ok & (mx > mn)
    newc = ok & (mx <= mn)
    l_c0 = l_all - l_c1
    rn, r_l, r_r, rr = _score(l_c1, l_c0, c1, c0, wu, rho, sigma, risk, loss, risk_node)
    cand3 = jnp.broadcast_to(cand[..., None], (N, K, T))
    return _finish(rr, cand3, l_c1, l_c0, r_l, r_r, rn, feats, thr, newc, T)


@partial(quick_jit, static_argnames=("n_bins", "shift", "risk", "loss"))
def choose_best_splits(hist, feats, ok, c1, c0, wu, rho, sigma, risk_node=None, *, n_bins: int, shift: int,
                       risk: str, loss: str):
    """Best split over every bin boundary of the sampled features (CART / random forest), from histograms."""
    N, K = feats.shape
    B = n_bins
    cnt, p = _unpack(hist, shift)
    bidx = jnp.arange(B, dtype=jnp.int32)
    mn, mx = _hist_range(cnt, B)
    l_all = _cumsum(cnt, axis=2)
    l_c1 = _cumsum(p, axis=2)
    l_c0 = l_all - l_c1
    cand = ok[..., None] & (bidx[None, None, :] >= mn[..., None]) & (bidx[None, None, :] < mx[..., None])
    newc = ok & (mx <= mn)
    rn, r_l, r_r, rr = _score(l_c1, l_c0, c1, c0, wu, rho, sigma, risk, loss, risk_node)
    codes_c = jnp.broadcast_to(bidx[None, None, :], (N, K, B))
    return _finish(rr, cand, l_c1, l_c0, r_l, r_r, rn, feats, codes_c, newc, B)
