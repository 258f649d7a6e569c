r"""Per-node kernels of the tree engine (DESIGN §3.2): feature sampling, Extra-Trees threshold draws and split
scoring, used by the growth program of :mod:`pujax.trees.grow` on blocks of frontier nodes.

* :func:`sample_features` / :func:`prepare_nodes`: sample ``max_features`` distinct features per node among the
  features not known to be constant (uniform sampling without replacement: the largest of per-feature random keys);
* :func:`choose_random_splits` / :func:`choose_best_splits`: Extra-Trees thresholds drawn uniformly between the
  node's smallest and largest value of each sampled feature (:func:`draw_thresholds`), or every bin boundary,
  scored by their risk reduction; the best one per node is returned. Their statistics are per-(node, feature, bin)
  histograms of the counts of ``s = 1`` and ``s = 0`` rows, or (Extra Trees) each sampled feature's (min, max) code
  and the counts left of the drawn thresholds.

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

from pujax._compile import jit
from pujax.random import hash_uniform
from pujax.risk import node_risk

__all__ = [
    "node_uid_child",
    "sample_features",
    "prepare_nodes",
    "draw_thresholds",
    "choose_random_splits",
    "choose_best_splits",
]

_U32 = jnp.uint32


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


@partial(jit, "kernel", static_argnames=("n_slots",))
def prepare_nodes(const, seed, tree, uid, it, *, n_slots: int):
    """Sampled features of a block of nodes given their known-constant masks (see :func:`sample_features`)."""
    return sample_features(seed, tree, uid, it, const, n_slots)


# ------------------------------------------------------------------------------------------------ histograms


def _unpack(hist, shift):
    if shift > 0:
        cnt = hist & ((1 << shift) - 1)
        return cnt, hist >> shift
    return hist[..., 0], hist[..., 1]


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


@partial(jit, "kernel", static_argnames=("n_thresholds", "n_bins"))
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


@partial(jit, "kernel", static_argnames=("n_thresholds", "n_bins", "shift", "risk", "loss", "from_hist"))
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


@partial(jit, "kernel", static_argnames=("n_bins", "shift", "risk", "loss"))
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
