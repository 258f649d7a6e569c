"""Feature binning for the tree engine (DESIGN §3.2): at most 256 bins per feature, uint8 codes.

Each feature is cut into at most ``n_bins`` bins. When a feature has at most ``n_bins`` distinct values (in the
sample used to place the cuts) every distinct value gets its own bin, so the histogram engine then splits exactly
like an exact tree; otherwise the cuts are quantiles of the distinct values weighted by their counts. For every bin
the smallest and the largest training value that falls in it are kept (``bin_lo``, ``bin_hi``): random Extra-Trees
thresholds are drawn between real values, and a split "code <= c" is turned into the real threshold
``(bin_hi[c] + bin_lo[c + 1]) / 2`` used at predict time, so that training rows are routed identically by codes and
by raw values.

A scipy sparse ``X`` (CSR / CSC; with a zero ``center`` when standardised) is binned column by column from its
stored values: the zeros of a column are one value among the others (their count is the rows without a stored
entry), so each column costs O(its non-zeros) and no dense float copy of ``X`` is made. The codes are a dense
uint8 matrix (n x d bytes) either way: a 100,000 x 50,000 matrix takes 5 GB of codes, so wide sparse data (text)
needs few enough columns (e.g. ``TfidfVectorizer(max_features=...)``) for the codes to fit.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from pujax.preprocessing import standardize

__all__ = ["BinnedData", "fit_bins", "split_thresholds", "MAX_BINS"]

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


def _cuts_from_counts(vals: np.ndarray, counts: np.ndarray, n_bins: int) -> np.ndarray:
    """Cut points (ascending): every distinct value when there are at most ``n_bins``, else count quantiles."""
    if vals.size <= 1:
        return vals[:0]
    if vals.size <= n_bins:
        return vals[:-1]
    cum = np.cumsum(counts, dtype=np.float64)
    targets = cum[-1] * np.arange(1, n_bins, dtype=np.float64) / n_bins
    idx = np.unique(np.searchsorted(cum, targets, side="left"))
    idx = idx[idx < vals.size - 1]
    return vals[idx]


def _feature_cuts(col: np.ndarray, n_bins: int) -> np.ndarray:
    """Cut points of one feature (bin b holds values in (cuts[b-1], cuts[b]])."""
    vals, counts = np.unique(col, return_counts=True)
    return _cuts_from_counts(vals, counts, n_bins)


def _small_int_column(col: np.ndarray):
    """(offset, range) when every value is an integer in a range below 2**16 (pixels, counts, one-hot)."""
    lo = float(col.min())
    hi = float(col.max())
    if hi - lo >= 65536 or not np.array_equal(col, np.floor(col)):
        return None
    return lo, int(hi - lo) + 1


def _bin_column(col: np.ndarray, sample: np.ndarray, n_bins: int):
    """Codes (uint8), cut points and per-bin (min, max) values of one feature, all in numpy.

    Every bin contains a training value (cuts are training values), so ``bin_lo <= bin_hi`` for used bins.
    """
    small = _small_int_column(col)
    if small is not None:
        off, rng = small
        counts_full = np.bincount((col - off).astype(np.int64), minlength=rng)
        present = np.flatnonzero(counts_full)
        vals_full = present.astype(np.float64) + off
        if sample is col:
            counts = counts_full[present]
            vals = vals_full
        else:
            cs = np.bincount((sample - off).astype(np.int64), minlength=rng)
            pres_s = np.flatnonzero(cs)
            vals, counts = pres_s.astype(np.float64) + off, cs[pres_s]
        cuts = _cuts_from_counts(vals, counts, n_bins)
        lut = np.searchsorted(cuts, np.arange(rng, dtype=np.float64) + off, side="left").astype(np.uint8)
        codes = lut[(col - off).astype(np.int64)]
    else:
        vals, counts = np.unique(sample, return_counts=True)
        vals_full = vals if sample is col else np.unique(col)
        cuts = _cuts_from_counts(vals.astype(np.float64), counts, n_bins).astype(np.float32)
        codes = np.searchsorted(cuts, col, side="left").astype(np.uint8)
        vals_full = vals_full.astype(np.float64)
        cuts = cuts.astype(np.float64)
    lo, hi = _bin_ranges(vals_full, cuts)
    return codes, cuts, lo, hi


def _bin_ranges(vals_full: np.ndarray, cuts: np.ndarray):
    """Per bin the smallest and the largest training value (``vals_full``: the distinct values, ascending)."""
    k = cuts.size + 1
    hi, lo = np.empty(k), np.empty(k)
    hi[:-1] = vals_full[np.searchsorted(vals_full, cuts, side="right") - 1]
    hi[-1] = vals_full[-1]
    lo[0] = vals_full[0]
    lo[1:] = vals_full[np.minimum(np.searchsorted(vals_full, cuts, side="right"), vals_full.size - 1)]
    return lo, hi


def _values_and_counts(v: np.ndarray, n_zero: int):
    """Distinct values (float64, ascending) and their counts of a column: the values ``v`` and ``n_zero`` zeros."""
    vals, counts = np.unique(v, return_counts=True)
    if n_zero:
        at = np.searchsorted(vals, 0.0)
        if at < vals.size and vals[at] == 0.0:
            counts[at] += n_zero
        else:
            vals, counts = np.insert(vals, at, 0.0), np.insert(counts, at, n_zero)
    return vals.astype(np.float64), counts


def _bin_sparse_column(n: int, rows: np.ndarray, v: np.ndarray, in_sample, n_sample: int, n_bins: int):
    """:func:`_bin_column` of a sparse column: ``v`` (float32) stored at ``rows``, zeros elsewhere. The cuts are the
    count quantiles of the sample (``in_sample``: per-row mask, or None for all rows) -- the same cuts, codes and
    ranges as the dense column gives."""
    vals_full, _ = _values_and_counts(v, n - v.size)
    if in_sample is None:
        vals, counts = _values_and_counts(v, n - v.size)
    else:
        vs = v[in_sample[rows]]
        vals, counts = _values_and_counts(vs, n_sample - vs.size)
    cuts = _cuts_from_counts(vals, counts, n_bins).astype(np.float32)
    codes = np.full(n, np.searchsorted(cuts, np.float32(0.0), side="left"), dtype=np.uint8)
    codes[rows] = np.searchsorted(cuts, v, side="left")
    lo, hi = _bin_ranges(vals_full, cuts.astype(np.float64))
    return codes, cuts.astype(np.float64), lo, hi


def _sparse_columns(X, scale):
    """Columns of a sparse ``X`` as ``(rows, float32 values)`` (each value divided by its column's ``scale`` in
    float64 first, when given)."""
    C = sp.csc_matrix(X)
    for f in range(C.shape[1]):
        a, b = C.indptr[f], C.indptr[f + 1]
        v = C.data[a:b]
        v = (v.astype(np.float64) / scale[f]).astype(np.float32) if scale is not None else v.astype(np.float32)
        yield C.indices[a:b], v


def fit_bins(X: np.ndarray, n_bins: int = MAX_BINS, subsample: int | None = 200_000, seed: int = 0, *,
             center: np.ndarray | None = None, scale: np.ndarray | None = None) -> BinnedData:
    """Bin a matrix ``X`` (n, d) into uint8 codes with at most ``n_bins`` (<= 256) bins per feature.

    Cut points are computed on at most ``subsample`` rows (all rows when ``None`` or ``n <= subsample``); codes and
    the per-bin value ranges use all rows. Integer-valued features with a small range (pixels, counts, one-hot
    columns) are binned in O(n) with a lookup table. Without ``center`` / ``scale`` the float32 values of ``X`` are
    binned; with them, ``standardize(X, center, scale)`` (:func:`pujax.preprocessing.standardize`) is, computed one
    column at a time (the same float32 values, without a standardised copy of ``X``). A scipy sparse ``X`` (with
    ``center`` zero or None) is binned from its stored values (module docstring): the same result as its dense
    copy. Returns a :class:`BinnedData`.
    """
    standardized = center is not None
    if sp.issparse(X):
        if standardized and np.any(center):
            raise ValueError("a sparse X is binned with a zero center (scaled, not centred).")
        return _fit_sparse_bins(X, n_bins, subsample, seed, None if scale is None else np.asarray(scale, np.float64))
    if standardized:
        X = np.asarray(X)
        center, scale = np.asarray(center, np.float64), np.asarray(scale, np.float64)
    else:
        X = np.asarray(X, dtype=np.float32)
    n, d = X.shape
    if not 2 <= n_bins <= MAX_BINS:
        raise ValueError(f"n_bins={n_bins} must be in [2, {MAX_BINS}].")
    rows = None
    if subsample is not None and n > subsample:
        rows = np.sort(np.random.default_rng(seed).choice(n, size=subsample, replace=False))
    codes = np.empty((n, d), dtype=np.uint8)
    cuts_all = np.full((d, n_bins - 1), np.inf, dtype=np.float32)
    bin_lo = np.full((d, n_bins), np.inf, dtype=np.float32)
    bin_hi = np.full((d, n_bins), np.inf, dtype=np.float32)
    nb = np.zeros(d, dtype=np.int32)
    for f in range(d):
        if standardized:  # one column at a time: no standardised copy of X
            col = standardize(X[:, f:f + 1], center[f:f + 1], scale[f:f + 1])[:, 0]
        else:
            col = np.ascontiguousarray(X[:, f])
        sample = col if rows is None else col[rows]
        c, cuts, lo, hi = _bin_column(col, sample, n_bins)
        codes[:, f] = c
        k = cuts.size + 1
        nb[f] = k
        cuts_all[f, : k - 1] = cuts
        bin_lo[f, :k] = lo
        bin_hi[f, :k] = hi
    return BinnedData(codes, bin_lo, bin_hi, nb, cuts_all)


def _fit_sparse_bins(X, n_bins: int, subsample: int | None, seed: int, scale) -> BinnedData:
    """:func:`fit_bins` of a scipy sparse matrix, one column at a time from its stored values."""
    n, d = X.shape
    if not 2 <= n_bins <= MAX_BINS:
        raise ValueError(f"n_bins={n_bins} must be in [2, {MAX_BINS}].")
    in_sample, n_sample = None, n
    if subsample is not None and n > subsample:
        in_sample = np.zeros(n, bool)
        in_sample[np.random.default_rng(seed).choice(n, size=subsample, replace=False)] = True
        n_sample = subsample
    codes = np.empty((n, d), dtype=np.uint8)
    cuts_all = np.full((d, n_bins - 1), np.inf, dtype=np.float32)
    bin_lo = np.full((d, n_bins), np.inf, dtype=np.float32)
    bin_hi = np.full((d, n_bins), np.inf, dtype=np.float32)
    nb = np.zeros(d, dtype=np.int32)
    for f, (rows, v) in enumerate(_sparse_columns(X, scale)):
        c, cuts, lo, hi = _bin_sparse_column(n, rows, v, in_sample, n_sample, n_bins)
        codes[:, f] = c
        k = cuts.size + 1
        nb[f] = k
        cuts_all[f, : k - 1] = cuts
        bin_lo[f, :k] = lo
        bin_hi[f, :k] = hi
    return BinnedData(codes, bin_lo, bin_hi, nb, cuts_all)


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
