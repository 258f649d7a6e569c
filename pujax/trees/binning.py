"""Feature binning for the tree engine (DESIGN §3.2): at most 256 bins per feature, uint8 codes.

Each feature is cut into at most ``n_bins`` bins. When a feature has at most ``n_bins`` distinct values (in the
sample used to place the cuts) every distinct value gets its own bin, so the histogram engine then splits exactly
like an exact tree; otherwise the cuts are quantiles of the distinct values weighted by their counts. For every bin
the smallest and the largest training value that falls in it are kept (``bin_lo``, ``bin_hi``): random Extra-Trees
thresholds are drawn between real values, and a split "code <= c" is turned into the real threshold
``(bin_hi[c] + bin_lo[c + 1]) / 2`` used at predict time, so that training rows are routed identically by codes and
by raw values.
"""
from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["BinnedData", "fit_bins", "split_thresholds", "duplicate_groups", "MAX_BINS"]

MAX_BINS = 256


class BinnedData:
    """Binned training matrix: ``codes`` (n, d) uint8 and per-bin value ranges ``bin_lo``/``bin_hi`` (d, B)."""

    __slots__ = ("codes", "bin_lo", "bin_hi", "n_bins_per_feature", "cuts")

    def __init__(self, codes, bin_lo, bin_hi, n_bins_per_feature, cuts):
        self.codes = codes
        self.bin_lo = bin_lo
        self.bin_hi = bin_hi
        self.n_bins_per_feature = n_bins_per_feature
        self.cuts = cuts


def _feature_cuts(col: np.ndarray, n_bins: int) -> np.ndarray:
    """Cut points (ascending, float64) of one feature: bin b holds values in (cuts[b-1], cuts[b]]."""
    vals, counts = np.unique(col, return_counts=True)
    if vals.size <= 1:
        return np.empty(0, dtype=np.float64)
    if vals.size <= n_bins:
        upper = vals[:-1]
    else:
        cum = np.cumsum(counts, dtype=np.float64)
        targets = cum[-1] * np.arange(1, n_bins, dtype=np.float64) / n_bins
        idx = np.unique(np.searchsorted(cum, targets, side="left"))
        idx = idx[idx < vals.size - 1]
        upper = vals[idx]
    return upper.astype(np.float64)


@partial(jax.jit, static_argnames=("n_bins",))
def _encode(X, cuts, n_cuts, n_bins):
    """codes[i, f] = number of cuts of feature f strictly below X[i, f] (binary search over padded cuts)."""

    def one(col, c, k):
        # c: (n_bins - 1,) padded with +inf; count of c < x via searchsorted(side="left").
        return jnp.minimum(jnp.searchsorted(c, col, side="left", method="scan_unrolled"), k)

    codes = jax.vmap(one, in_axes=(1, 0, 0), out_axes=1)(X, cuts, n_cuts)
    codes = codes.astype(jnp.uint8)
    return codes


@partial(jax.jit, static_argnames=("n_bins",))
def _bin_ranges(X, codes, n_bins):
    def one(col, code):
        c = code.astype(jnp.int32)
        lo = jax.ops.segment_min(col, c, num_segments=n_bins)
        hi = jax.ops.segment_max(col, c, num_segments=n_bins)
        return lo, hi

    return jax.vmap(one, in_axes=(1, 1))(X, codes)


def fit_bins(X: np.ndarray, n_bins: int = MAX_BINS, subsample: int | None = 200_000, seed: int = 0) -> BinnedData:
    """Bin a float32 matrix ``X`` (n, d) into uint8 codes with at most ``n_bins`` (<= 256) bins per feature.

    Cut points are computed on at most ``subsample`` rows (all rows when ``None`` or ``n <= subsample``); codes and
    the per-bin value ranges use all rows. Returns a :class:`BinnedData`.
    """
    X = np.asarray(X, dtype=np.float32)
    n, d = X.shape
    if not 2 <= n_bins <= MAX_BINS:
        raise ValueError(f"n_bins={n_bins} must be in [2, {MAX_BINS}].")
    if subsample is not None and n > subsample:
        rows = np.random.default_rng(seed).choice(n, size=subsample, replace=False)
        Xs = X[np.sort(rows)]
    else:
        Xs = X
    cuts = np.full((d, n_bins - 1), np.inf, dtype=np.float32)
    n_cuts = np.zeros(d, dtype=np.int32)
    for f in range(d):
        c = _feature_cuts(Xs[:, f], n_bins)
        # float32 cuts: x <= cut in float32 is the same test as in float64 because x is float32.
        cuts[f, : c.size] = c.astype(np.float32)
        n_cuts[f] = c.size
    Xj = jnp.asarray(X)
    codes = _encode(Xj, jnp.asarray(cuts), jnp.asarray(n_cuts), n_bins)
    lo, hi = _bin_ranges(Xj, codes, n_bins)
    lo = np.asarray(lo)
    hi = np.asarray(hi)
    used = np.isfinite(lo) & (lo <= hi)
    # Empty bins (possible for values absent from the subsample's gaps) keep an empty range at the cut.
    nb = n_cuts + 1
    bin_lo = np.where(used, lo, np.inf).astype(np.float32)
    bin_hi = np.where(used, hi, -np.inf).astype(np.float32)
    bin_lo, bin_hi = _fill_empty(bin_lo, bin_hi, nb)
    return BinnedData(np.asarray(codes), bin_lo, bin_hi, nb.astype(np.int32), cuts)


def _fill_empty(bin_lo, bin_hi, nb):
    """Give empty bins a degenerate range equal to the previous bin's maximum (monotone ``bin_hi``).

    Padding bins beyond a feature's bin count get ``bin_hi = +inf`` so binary searches over ``bin_hi`` never stop
    there.
    """
    d, B = bin_lo.shape
    for f in range(d):
        k = int(nb[f])
        prev = -np.inf
        for b in range(k):
            if not np.isfinite(bin_hi[f, b]) or bin_lo[f, b] > bin_hi[f, b]:
                bin_lo[f, b] = prev
                bin_hi[f, b] = prev
            prev = bin_hi[f, b]
        bin_lo[f, k:] = np.inf
        bin_hi[f, k:] = np.inf
    return bin_lo, bin_hi


def split_thresholds(bin_lo: np.ndarray, bin_hi: np.ndarray, feature: np.ndarray, code: np.ndarray) -> np.ndarray:
    """Real thresholds for splits "code <= c": the float32 midpoint between ``bin_hi[f, c]`` and ``bin_lo[f, c+1]``.

    The result ``t`` satisfies ``bin_hi[f, c] <= t < bin_lo[f, c + 1]``, so ``x <= t`` routes every training value
    exactly like its code.
    """
    a = bin_hi[feature, code].astype(np.float64)
    b = bin_lo[feature, code + 1].astype(np.float64)
    t = (0.5 * (a + b)).astype(np.float32)
    bad = ~(t < b.astype(np.float32)) | ~(t >= a.astype(np.float32))
    t = np.where(bad, a.astype(np.float32), t)
    return t


def duplicate_groups(codes: np.ndarray) -> np.ndarray:
    """int32 id per row such that two rows share an id iff their codes are identical (all features equal)."""
    codes = np.ascontiguousarray(codes)
    n, d = codes.shape
    view = codes.view(np.dtype((np.void, d))).reshape(n)
    _, inv = np.unique(view, return_inverse=True)
    return inv.reshape(n).astype(np.int32)
