r"""Vectorised decision-stump scoring for Ada-PU (Zhao et al., "A Boosting Algorithm for Positive-Unlabeled
Learning", §3; DESIGN §3.4).

A stump is ``(feature f, threshold θ, direction d)`` with prediction

.. math:: h(x) = d \cdot (+1 \text{ if } x_f > θ \text{ else } -1), \qquad d \in \{+1, -1\}.

``d = +1`` is the reference code's ``"lt"`` stump (rows with ``x_f <= θ`` are predicted negative), ``d = -1`` its
``"gt"`` stump (rows with ``x_f > θ`` are predicted negative).

Ada-PU keeps three weight sets (eq. 7): ``P+`` (labeled positives taken as positive, initial weight π/n_p),
``U-`` (unlabeled rows taken as negative, 1/n_u) and ``P-`` (labeled positives taken as negative, weight
-π/n_p).  Here every row carries a 3-vector ``W[i] = (w_{P+}, w_{U-}, |w_{P-}|)`` (zeros where the row is not in
that set) and every candidate stump needs only the three sums of the weights with ``x_f <= θ``.  Two engines give
those sums for all features × candidate thresholds at once:

* :func:`coded_weight_sums` -- a few (random) thresholds per feature, with low-cardinality features *binned*:
  a feature with at most 255 distinct values is coded once per fit as the uint8 rank of its value
  (:func:`encode_features`), a threshold becomes the count of distinct values ``<= θ`` (``searchsorted``), and
  the comparison mask ``code <= count`` (``x <= θ`` on the raw floats for the other features) times the weight
  matrix is streamed over blocks of rows (``lax.scan``).  This is exact (``x <= θ  ⇔  code(x) <= count(θ)``)
  and reads 1 byte per entry instead of 4; :func:`masked_weight_sums` is the same computation on the raw float
  features;
* :func:`sorted_prefix_sums` -- every distinct value of every feature (the exhaustive strategy of §5.6.1):
  the weights gathered in each feature's sorted order and cumulatively summed.

:func:`stump_errors` turns the sums into the PU error of eq. (8) for both directions, its non-negative part
``ε_nn`` and the normalised error that enters α (eq. 9).
"""
from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from pujax._compile import bucket_size
from pujax.linalg import matmul

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, DTypeLike

__all__ = [
    "CodedFeatures",
    "encode_features",
    "coded_weight_sums",
    "feature_ranges",
    "threshold_bounds",
    "draw_thresholds",
    "masked_weight_sums",
    "sorted_candidates",
    "sorted_prefix_sums",
    "stump_errors",
    "stump_predict",
]

# Elements of one (block_rows × n_features × n_thresholds) comparison mask; ~1M floats (4 MB) keeps it in cache.
_MASK_BUDGET = 1 << 20


def feature_ranges(X: ArrayLike) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Per-feature minimum, maximum and number of distinct values of ``X`` (shape ``(n, d)``), jit-able."""
    Xs = jnp.sort(X, axis=0)
    n_unique = 1 + jnp.sum(Xs[1:] > Xs[:-1], axis=0)
    return Xs[0], Xs[-1], n_unique.astype(jnp.int32)


def threshold_bounds(n_unique: ArrayLike, threshold_range: str = "paper", dtype: DTypeLike = jnp.float32,
                     xp: ModuleType = jnp) -> tuple[jax.Array, jax.Array]:
    r"""Bounds ``(lo, hi)`` of the relative position ``r`` of a random threshold ``θ = min + r (max - min)``.

    ``"paper"`` (Algorithm 1 / §5.6.1: a random value in the feature's range): ``r ~ U(0, 1)``.
    ``"extended"`` (the authors' code): ``r ~ U(-1/(k-1), 1 + 1/(k-1))`` with ``k`` the number of distinct values,
    so constant stumps (θ below the minimum or above the maximum) stay in the pool.  A constant feature (``k = 1``)
    uses ``[0, 1]``. ``xp``: the array module (``jax.numpy`` in traced code, ``numpy`` on the host).
    """
    n_unique = xp.asarray(n_unique)
    if threshold_range == "paper":
        lo = xp.zeros(n_unique.shape, dtype)
        hi = xp.ones(n_unique.shape, dtype)
    elif threshold_range == "extended":
        pad = xp.where(n_unique > 1, 1.0 / xp.maximum(n_unique - 1, 1).astype(dtype), 0.0).astype(dtype)
        lo, hi = -pad, 1.0 + pad
    else:
        raise ValueError(f'threshold_range={threshold_range!r} is not valid; choose "paper" or "extended".')
    return lo, hi


def draw_thresholds(key: jax.Array, fmin: ArrayLike, fmax: ArrayLike, lo: ArrayLike, hi: ArrayLike,
                    n_thresholds: int) -> jax.Array:
    """``n_thresholds`` random thresholds per feature: ``θ[f, j] = min_f + r (max_f - min_f)``, ``r ~ U(lo_f, hi_f)``.

    Returns an array of shape ``(d, n_thresholds)`` in the dtype of ``fmin``.
    """
    d = fmin.shape[0]
    r = jax.random.uniform(key, (d, n_thresholds), dtype=fmin.dtype)
    r = lo[:, None] + r * (hi - lo)[:, None]
    return fmin[:, None] + r * (fmax - fmin)[:, None]


def _block_rows(n: int, width: int) -> int:
    """Rows per block so that one comparison mask has about ``_MASK_BUDGET`` elements (at least 8 rows)."""
    rows = max(8, _MASK_BUDGET // max(width, 1))
    return int(min(n, rows))


def masked_weight_sums(X: ArrayLike, W: ArrayLike, thresholds: ArrayLike, block_rows: int | None = None) -> jax.Array:
    r"""Sums of the weight columns over rows below each threshold: ``S[c, f, j] = Σ_i W[i, c] 1[X[i, f] <= θ[f, j]]``.

    ``X`` (n, d), ``W`` (n, c), ``thresholds`` (d, k) -> ``S`` (c, d, k).  Rows are processed in blocks of
    ``block_rows`` (padded with zero weights) by a ``lax.scan``; each block is one ``(c × rows) @ (rows × d k)``
    product with the comparison mask, so the cost is ``O(n d k)`` with a small memory footprint.
    """
    return _blocked_mask_matmul(X, W, thresholds, block_rows)


class CodedFeatures(NamedTuple):
    """Features split in a rank-coded group and a raw group (a pytree; built by :func:`encode_features`).

    ``codes[g]`` (n, d_g): for the coded group (features with at most 255 distinct values), ``1 + rank`` of each
    value among its feature's distinct values as uint8; for the raw group, the float values themselves.
    ``values[g]`` (d_g, M_g): the sorted distinct values of a coded group, padded with ``+inf`` to
    ``M_g = bucket_size(most distinct values)`` (:mod:`pujax.compilation`) (``None`` for the
    raw group).  ``index[g]`` (d_g,): the columns of ``X`` in group ``g``.
    """

    codes: tuple
    values: tuple
    index: tuple


_MAX_CODED = 255


def encode_features(X: ArrayLike) -> tuple[CodedFeatures, int]:
    """Split the columns of ``X`` (host-side numpy, once per fit): columns with at most 255 distinct values are
    coded by rank as uint8, the others kept as floats.  Returns ``(CodedFeatures, n_distinct)`` with
    ``n_distinct`` (d,) the number of distinct values of every column."""
    X = np.asarray(X)
    n, d = X.shape
    XT = np.ascontiguousarray(X.T)
    Xs = np.sort(XT, axis=1)
    new = np.concatenate([np.ones((d, 1), bool), Xs[:, 1:] > Xs[:, :-1]], axis=1)
    m = new.sum(axis=1)
    low = np.flatnonzero(m <= _MAX_CODED)
    high = np.flatnonzero(m > _MAX_CODED)
    groups_codes, groups_values, groups_index = [], [], []
    if low.size:
        width = bucket_size(int(m[low].max()))  # a size bucket: data sets with similar counts share a program
        vals = np.full((low.size, width), np.inf, dtype=X.dtype)
        codes = np.empty((low.size, n), np.uint8)
        for row, f in enumerate(low):
            u = Xs[f][new[f]]
            vals[row, : u.size] = u
            codes[row] = np.searchsorted(u, XT[f], side="left") + 1
        groups_codes.append(jax.device_put(np.ascontiguousarray(codes.T)))
        groups_values.append(jax.device_put(vals))
        groups_index.append(jax.device_put(low.astype(np.int32)))
    if high.size:
        groups_codes.append(jax.device_put(np.ascontiguousarray(XT[high].T)))
        groups_values.append(None)
        groups_index.append(jax.device_put(high.astype(np.int32)))
    return CodedFeatures(tuple(groups_codes), tuple(groups_values), tuple(groups_index)), m


def _blocked_mask_matmul(A, W, cut, block_rows=None):
    """``S[c, f, j] = Σ_i W[i, c] 1[A[i, f] <= cut[f, j]]`` streamed over blocks of rows (zero-weight padding)."""
    n, d = A.shape
    c = W.shape[1]
    k = cut.shape[1]
    bs = _block_rows(n, d * k) if block_rows is None else int(min(block_rows, n))
    n_blocks = -(-n // bs)
    pad = n_blocks * bs - n
    Ab = jnp.pad(A, ((0, pad), (0, 0))).reshape(n_blocks, bs, d)
    Wb = jnp.pad(W, ((0, pad), (0, 0))).reshape(n_blocks, bs, c)
    cut = cut.astype(A.dtype)

    def body(acc, xs):
        ab, wb = xs
        mask = (ab[:, :, None] <= cut[None, :, :]).astype(wb.dtype).reshape(bs, d * k)
        return acc + matmul(wb.T, mask), None

    acc, _ = lax.scan(body, jnp.zeros((c, d * k), W.dtype), (Ab, Wb))
    return acc.reshape(c, d, k)


def coded_weight_sums(coded: CodedFeatures, W: ArrayLike, thresholds: ArrayLike,
                      block_rows: int | None = None) -> jax.Array:
    """:func:`masked_weight_sums` on rank-coded features: the same result (exactly the same row sets).

    ``thresholds`` (d, k) are real thresholds on the original features.
    """
    d, k = thresholds.shape
    out = jnp.zeros((W.shape[1], d, k), W.dtype)
    for codes, values, index in zip(coded.codes, coded.values, coded.index):
        thr = thresholds[index]  # (d_g, k)
        if values is None:  # raw float group
            cut = thr
        else:  # x <= θ  <=>  code(x) <= #(distinct values <= θ); the count is <= 255 and fits uint8
            cut = jax.vmap(lambda v, t: jnp.searchsorted(v, t, side="right"))(values, thr)
        S = _blocked_mask_matmul(codes, W, cut, block_rows)
        out = out.at[:, index, :].set(S)
    return out


def sorted_candidates(X: ArrayLike) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Exhaustive candidate thresholds from each feature's sorted values (computed once per fit).

    Returns ``order`` (n, d) (row indices sorting each column), ``thresholds`` (d, n) and ``valid`` (d, n): the
    candidate at sorted position ``r`` puts the ``r + 1`` smallest rows on the ``<= θ`` side; it is valid where the
    next sorted value differs (or ``r`` is the last row) and its threshold is the midpoint of the two values
    (the lower value when the midpoint rounds up to the upper one), the maximum for the last position.
    """
    order = jnp.argsort(X, axis=0)
    Xs = jnp.take_along_axis(X, order, axis=0)
    nxt = jnp.concatenate([Xs[1:], Xs[-1:]], axis=0)
    mid = Xs + (nxt - Xs) / 2
    mid = jnp.where(mid >= nxt, Xs, mid)
    last = jnp.arange(X.shape[0])[:, None] == X.shape[0] - 1
    valid = (nxt > Xs) | last
    thresholds = jnp.where(last, Xs, mid)
    return order, thresholds.T, valid.T


def sorted_prefix_sums(order: ArrayLike, W: ArrayLike) -> jax.Array:
    """``S[c, f, r]`` = sum of ``W[:, c]`` over the ``r + 1`` rows with the smallest ``X[:, f]`` (gather + cumsum)."""
    G = W[order]  # (n, d, c): weights in each feature's sorted order
    C = jnp.cumsum(G, axis=0)
    return jnp.transpose(C, (2, 1, 0))


def stump_errors(S: ArrayLike, totals: ArrayLike, prior: float,
                 normalization: str = "total") -> tuple[jax.Array, jax.Array, jax.Array]:
    r"""PU errors of every candidate stump in both directions from the below-threshold sums.

    ``S`` (3, d, k): sums of ``(w_{P+}, w_{U-}, |w_{P-}|)`` over rows with ``x_f <= θ``; ``totals`` (3,): the
    three weight masses.  Returns ``(E, eps, eps_nn)``, each of shape (2, d, k) with axis 0 the direction
    ``d = +1`` ("lt") then ``d = -1`` ("gt"):

    * ``E`` -- eq. (8): ``Σ_{P+} w 1[h = -1] + Σ_{U-} w 1[h = +1] - Σ_{P-} |w| 1[h = +1]`` (the weighted PU error;
      maximising Ê of eq. (11) is minimising ``E`` since ``Ê = Z - 2E`` with ``Z`` the signed total mass);
    * ``eps`` -- the error that enters α (eq. 9).  ``normalization="total"``: ``E / Z`` with
      ``Z = Σw_{P+} + Σw_{U-} - Σ|w_{P-}|`` (the weights normalised to unit PU mass, as in the proof of
      Theorem 4.1); ``"per_set"`` (the authors' code): each set normalised to its initial mass,
      ``π e_{P+}/Σw_{P+} + e_{U-}/Σw_{U-} - π e_{P-}/Σ|w_{P-}|``;
    * ``eps_nn`` -- the last two terms (the negative-class part, "ε_nn" of §3.3), normalised the same way.
    """
    Sp, Su, Sn = S[0], S[1], S[2]
    Tp, Tu, Tn = totals[0], totals[1], totals[2]
    # direction +1 ("lt"): h = -1 on x <= θ;  direction -1 ("gt"): h = -1 on x > θ
    err_p = jnp.stack([Sp, Tp - Sp])
    err_u = jnp.stack([Tu - Su, Su])
    err_n = jnp.stack([Tn - Sn, Sn])
    E = err_p + err_u - err_n
    if normalization == "total":
        Z = Tp + Tu - Tn
        Zs = jnp.where(Z > 0, Z, 1.0)
        eps = E / Zs
        eps_nn = (err_u - err_n) / Zs
    elif normalization == "per_set":
        tiny = jnp.finfo(S.dtype).tiny
        fp = prior / jnp.maximum(Tp, tiny)
        fu = 1.0 / jnp.maximum(Tu, tiny)
        fn = prior / jnp.maximum(Tn, tiny)
        eps_nn = err_u * fu - err_n * fn
        eps = err_p * fp + eps_nn
    else:
        raise ValueError(f'normalization={normalization!r} is not valid; choose "total" or "per_set".')
    return E, eps, eps_nn


def stump_predict(X: ArrayLike, feature: ArrayLike, threshold: ArrayLike, direction: ArrayLike) -> jax.Array:
    """Predictions in {-1, +1} of one stump (or, with 1-D arguments of length T, of T stumps: shape (n, T))."""
    feature = jnp.asarray(feature)
    col = jnp.take(X, jnp.maximum(feature, 0), axis=1)
    return jnp.where(col > threshold, 1.0, -1.0).astype(X.dtype) * direction
