"""Per-feature standardisation in float64 before the float32 cast: the one place every pujax method that centres
and scales its inputs takes its statistics and its transform from.

float32 keeps about seven significant digits: a feature with an offset of ``1e7`` and unit spread loses its spread
when cast to float32. :func:`standardization` computes the per-feature centre and scale in float64 and
:func:`standardize` applies ``(X - center) / scale`` in float64 before the cast, so that what a float32 method sees
does not depend on the units or offsets of ``X``. :class:`StandardizedInputMixin` does both inside an estimator's
validation (statistics stored in ``mean_`` and ``scale_``).

Sparse matrices (scipy CSR / CSC) are never centred: centring would make every stored zero non-zero.
:func:`standardization` of a sparse matrix returns the centre 0 and the standard deviation (scikit-learn's
``StandardScaler(with_mean=False)``), :func:`standardize` with a zero centre keeps the matrix sparse (a scale per
column), and :class:`StandardizedInputMixin` reads sparse input as given unless the estimator's ``standardize`` is
``True`` (then it scales without centring). :func:`duplicate_groups` compares sparse rows by their stored entries.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, DTypeLike

__all__ = ["standardization", "standardize", "StandardizedInputMixin", "check_standardize", "duplicate_groups",
           "sparse_entries"]


_BLOCK_VALUES = 1 << 17  # values converted to float64 at a time (1 MiB): the temporaries stay in the CPU cache


def _block_rows(X) -> int:
    return max(1, _BLOCK_VALUES // max(1, int(np.prod(X.shape[1:]))))


def _blocks(X):
    """``X`` in float64 blocks of about :data:`_BLOCK_VALUES` values (whole rows), with the start of each block; a
    scipy sparse ``X`` is made dense one block at a time."""
    rows = _block_rows(X)
    if sp.issparse(X):
        X = X.tocsr()
        for a in range(0, X.shape[0], rows):
            yield a, X[a:a + rows].toarray().astype(np.float64, copy=False)
        return
    for a in range(0, X.shape[0], rows):
        xb = X[a:a + rows]
        yield a, np.asarray(xb.toarray() if hasattr(xb, "toarray") else xb, dtype=np.float64)


def sparse_entries(X) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(row, col, value)`` of the stored entries of a scipy sparse matrix (CSR and CSC without a copy of the
    values; other formats through CSR)."""
    if X.format not in ("csr", "csc"):
        X = X.tocsr()
    major = np.repeat(np.arange(X.shape[0 if X.format == "csr" else 1]), np.diff(X.indptr))
    if X.format == "csr":
        return major, X.indices, X.data
    return X.indices, major, X.data


def _sparse_ranges(row, col, v, live_rows, d):
    """Per column: ``(lo, hi, integer)`` over the rows ``live_rows`` (bool), the implicit zeros included."""
    keep = live_rows[row]
    col, v = col[keep], v[keep]
    lo, hi = np.full(d, np.inf), np.full(d, -np.inf)
    np.minimum.at(lo, col, v)
    np.maximum.at(hi, col, v)
    has_zero = np.bincount(col, minlength=d) < np.count_nonzero(live_rows)
    lo, hi = np.where(has_zero, np.minimum(lo, 0.0), lo), np.where(has_zero, np.maximum(hi, 0.0), hi)
    integer = np.bincount(col, weights=(v != np.floor(v)).astype(np.float64), minlength=d) == 0
    return lo, hi, integer


def _sparse_standardization(X, w, keep_small_integers):
    """:func:`standardization` of a sparse matrix: centre 0, the (weighted) standard deviation as the scale."""
    n, d = X.shape
    row, col, data = sparse_entries(X)
    v = data.astype(np.float64)
    wr = np.ones(n) if w is None else w
    we = wr[row]
    total = float(wr.sum())
    mean = np.bincount(col, weights=v * we, minlength=d) / total
    stored = np.bincount(col, weights=we, minlength=d)
    s2 = np.bincount(col, weights=(v - mean[col]) ** 2 * we, minlength=d) + np.maximum(total - stored, 0.0) * mean**2
    scale = np.sqrt(s2 / total)
    lo, hi, integer = _sparse_ranges(row, col, v, wr > 0, d)
    tiny = 8 * np.finfo(np.float64).eps * np.abs(mean)
    scale = np.where(np.isfinite(scale) & (scale > tiny) & (scale > 0) & (lo != hi), scale, 1.0)
    if keep_small_integers:
        small = integer & (hi - lo < 65536) & (np.abs(lo) < 2**24) & (np.abs(hi) < 2**24)
        scale = np.where(small, 1.0, scale)
    return np.zeros(d), scale


def _small_integers(X: np.ndarray) -> np.ndarray:
    """Per feature: integer values in a range below 2**16 (pixels, counts, one-hot), which float32 holds exactly."""
    if X.shape[0] == 0:
        return np.zeros(X.shape[1], bool)
    lo, hi = np.full(X.shape[1], np.inf), np.full(X.shape[1], -np.inf)
    whole = np.ones(X.shape[1], bool)
    for _, xb in _blocks(X):
        lo, hi = np.minimum(lo, xb.min(axis=0)), np.maximum(hi, xb.max(axis=0))
        whole &= np.all(xb == np.floor(xb), axis=0)
    return whole & (hi - lo < 65536) & (np.abs(lo) < 2**24) & (np.abs(hi) < 2**24)


def standardization(X: ArrayLike, *, sample_weight: ArrayLike | None = None,
                    keep_small_integers: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Per-feature ``(center, scale)`` of ``X``, computed in float64.

    Parameters
    ----------
    X : array-like or scipy sparse matrix of shape (n_samples, n_features)
        Finite values (a sparse matrix is read in dense blocks of rows, never whole).
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights: weighted mean and weighted standard deviation (integer weights equal duplicated rows).
    keep_small_integers : bool, default=False
        Give features whose values are integers in a range below 2**16 the centre 0 and scale 1 (float32 holds them
        exactly; the trees bin them by lookup).

    Returns
    -------
    center, scale : ndarray of shape (n_features,), float64
        Mean and standard deviation. A constant feature, or one whose standard deviation is not finite or is at
        most ``8 eps |mean|`` (constant up to float64 rounding), gets scale 1; no rows give centre 0 and scale 1.
        A scipy sparse ``X`` gets the centre 0 (centring would make it dense) and the standard deviation as the
        scale, as scikit-learn's ``StandardScaler(with_mean=False)``.

    Examples
    --------
    >>> import numpy as np
    >>> from pujax.preprocessing import standardization, standardize
    >>> X = np.array([[1e7 + 1.0, 5.0], [1e7 - 1.0, 5.0]])
    >>> center, scale = standardization(X)
    >>> standardize(X, center, scale).tolist()
    [[1.0, 0.0], [-1.0, 0.0]]
    """
    X = X if sp.issparse(X) else np.asarray(X)
    n, d = X.shape
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if n == 0 or (w is not None and not np.any(w > 0)):
        return np.zeros(d), np.ones(d)
    if sp.issparse(X):
        return _sparse_standardization(X, w, keep_small_integers)
    total = float(n) if w is None else w.sum()
    i = 0 if w is None else int(np.argmax(w > 0))
    first = np.asarray(X[i:i + 1].toarray()[0] if hasattr(X, "toarray") else X[i], dtype=np.float64)
    s1, constant = np.zeros(d), np.ones(d, bool)
    for a, xb in _blocks(X):  # two passes in float64 blocks: the mean, then the mean squared deviation
        wb = None if w is None else w[a:a + len(xb), None]
        s1 += (xb if wb is None else xb * wb).sum(axis=0)
        constant &= np.all((xb if wb is None else xb[wb[:, 0] > 0]) == first, axis=0)
    center = s1 / total
    s2 = np.zeros(d)
    for a, xb in _blocks(X):
        r = (xb - center) ** 2
        s2 += (r if w is None else r * w[a:a + len(xb), None]).sum(axis=0)
    scale = np.sqrt(s2 / total)
    tiny = 8 * np.finfo(np.float64).eps * np.abs(center)
    scale = np.where(np.isfinite(scale) & (scale > tiny) & (scale > 0) & ~constant, scale, 1.0)
    if keep_small_integers:
        small = _small_integers(X)
        center, scale = np.where(small, 0.0, center), np.where(small, 1.0, scale)
    return center, scale


def standardize(X: ArrayLike, center: ArrayLike, scale: ArrayLike, *, clip: float | None = None,
                dtype: DTypeLike = np.float32) -> np.ndarray:
    """``(X - center) / scale`` computed in float64 (clipped to ``[-clip, clip]`` when ``clip`` is given),
    returned C-contiguous as ``dtype`` (float32 by default).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    center, scale : array-like of shape (n_features,)
        From :func:`standardization`.
    clip : float or None, default=None
        Bound on the absolute standardised value.
    dtype : numpy dtype, default=np.float32

    Returns
    -------
    ndarray of shape (n_samples, n_features)
        A sparse ``X`` with a zero ``center`` stays sparse (its format kept: each stored value divided by its
        column's scale); with a non-zero centre the result is dense.
    """
    center, scale = np.asarray(center, np.float64), np.asarray(scale, np.float64)
    if sp.issparse(X) and not np.any(center):
        return _scale_sparse(X, scale, clip, dtype)
    X = X if sp.issparse(X) else np.asarray(X)
    Z = np.empty(X.shape, dtype=dtype)
    buf = np.empty((min(_block_rows(X), X.shape[0]),) + X.shape[1:])
    for a, xb in _blocks(X):  # float64 arithmetic a block at a time, in one cache-sized buffer
        zb = buf[:len(xb)]
        np.subtract(xb, center, out=zb)
        np.divide(zb, scale, out=zb)
        if clip is not None:
            np.clip(zb, -clip, clip, out=zb)
        Z[a:a + len(xb)] = zb
    return Z


def _scale_sparse(X, scale, clip, dtype):
    """A sparse matrix with every stored value divided (float64) by its column's ``scale`` (and clipped)."""
    if X.format not in ("csr", "csc"):
        X = X.tocsr()
    _, col, data = sparse_entries(X)
    z = data.astype(np.float64) / scale[col]
    if clip is not None:
        np.clip(z, -clip, clip, out=z)
    return type(X)((z.astype(dtype), X.indices, X.indptr), shape=X.shape)


class StandardizedInputMixin:
    """Estimator mixin (placed before :class:`~pujax.base.PUClassifierMixin`): ``X`` is validated (float32 or float64
    kept as given, no float64 copy), standardised in float64 blocks with :func:`standardization` (weighted by
    ``sample_weight``) and :func:`standardize`, and cast to float32 before the
    method sees it, in ``fit`` and in every method that reads ``X``; ``prior="auto"`` is estimated on the
    standardised features. The statistics are the fitted attributes ``mean_`` and ``scale_``; an estimator loaded
    without them reads ``X`` unstandardised.

    The estimator's ``standardize`` parameter (``"auto"`` when it has none) decides: ``"auto"`` centres and scales
    dense ``X`` and reads a sparse ``X`` as given (``mean_ = scale_ = None``: TF-IDF or count features keep the
    weighting that cosine similarity and linear text models rely on); ``True`` centres and scales dense ``X`` and
    scales a sparse ``X`` without centring (``mean_`` zero); ``False`` reads every ``X`` as given.
    """

    _input_dtype = None  # float32 or float64 as given: the statistics and the transform work in float64 blocks
    _fitted_schema = {"mean_": "f[n_features_in_]?", "scale_": "f[n_features_in_]?"}

    def _fit_input(self, X, sample_weight=None):
        mode = check_standardize(getattr(self, "standardize", "auto"))
        if mode is False or (sp.issparse(X) and mode == "auto"):
            self.mean_ = self.scale_ = None
            return X.astype(np.float32, copy=False) if sp.issparse(X) else np.ascontiguousarray(X, np.float32)
        self.mean_, self.scale_ = standardization(X, sample_weight=sample_weight)
        return standardize(X, self.mean_, self.scale_)

    def _predict_input(self, X):
        if getattr(self, "mean_", None) is None:
            return X.astype(np.float32, copy=False) if sp.issparse(X) else np.ascontiguousarray(X, dtype=np.float32)
        return standardize(X, self.mean_, self.scale_)


def check_standardize(value) -> bool | str:
    """Check an estimator's ``standardize`` parameter: ``"auto"``, ``True`` or ``False``."""
    if isinstance(value, str) and value == "auto":
        return value
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ValueError(f'standardize={value!r} is not valid; pass "auto" (dense X centred and scaled, sparse X as '
                     f"given), True (sparse X scaled without centring) or False (X as given).")


def duplicate_groups(X: ArrayLike, max_group: int | None = None) -> np.ndarray:
    """Group id per row: rows with identical feature values share an id (``-0.0`` equals ``0.0``). Ids are numbered
    in the order of the groups' first rows, so they depend on the row order and the duplicate structure only, not
    on the values (the groups of ``a * X + b`` are those of ``X``). With ``max_group``, the rows of a group larger
    than that each get an id of their own, numbered after the other groups' ids in row order.

    Rows are compared as byte strings (:func:`_distinct_rows`: a 64-bit hash per row, then an exact comparison of
    every row with the first row of its hash group), many times faster than ``np.unique(X, axis=0)``; the rows of a
    scipy sparse ``X`` by their non-zero entries (columns and values), without a dense copy.

    Examples
    --------
    >>> from pujax.preprocessing import duplicate_groups
    >>> duplicate_groups([[1.0, 2.0], [0.0, 5.0], [1.0, 2.0], [-0.0, 5.0]]).tolist()
    [0, 1, 0, 1]
    """
    if sp.issparse(X):
        if X.shape[0] == 0:
            return np.zeros(0, np.int64)
        first, inverse = _distinct_sparse_rows(X)
    else:
        X = np.asarray(X)
        X = X.reshape(X.shape[0], -1)
        if X.shape[0] == 0:
            return np.zeros(0, np.int64)
        if np.issubdtype(X.dtype, np.floating):
            X = X + X.dtype.type(0.0)  # -0.0 + 0.0 = 0.0: equal values, equal bytes
        first, inverse = _distinct_rows(np.ascontiguousarray(X))
    rank = np.empty(first.size, np.int64)
    rank[np.argsort(first)] = np.arange(first.size)
    inverse = rank[inverse]
    if max_group is None:
        return inverse
    big = np.bincount(inverse)[inverse] > max_group
    if not big.any():
        return inverse
    ids = inverse.copy()
    ids[big] = inverse.max() + 1 + np.arange(int(big.sum()))
    return np.unique(ids, return_inverse=True)[1].ravel()


_HASH_BLOCK = 4096  # rows hashed / compared at a time (temporaries of O(block x row bytes))


def _hash_multipliers(m: int) -> np.ndarray:
    """``m`` fixed random odd uint64 multipliers of the row hash of :func:`_distinct_rows`."""
    return np.random.default_rng(0).integers(0, 1 << 62, m, dtype=np.uint64) * np.uint64(2) + np.uint64(1)


def _distinct_rows(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(first, inverse)`` of the distinct rows of a C-contiguous 2-D array, compared as bytes: ``first[g]`` is a
    row of group ``g`` and ``A[first[inverse]]`` equals ``A`` byte for byte (groups in no particular order).

    Each row's bytes, as 32-bit words ``u``, are hashed to ``sum_k a_k u_k mod 2**64`` (fixed random odd ``a_k``)
    and grouped by ``np.unique`` over the hashes; every row is then compared with its group's row, and on any
    mismatch (a hash collision) the rows are grouped by ``np.unique`` over their bytes instead, so the result is
    exact either way (and faster than ``np.unique`` over the rows' bytes, which compares long byte strings)."""
    n = A.shape[0]
    b = A.view(np.uint8).reshape(n, -1)
    if b.shape[1] % 4:
        b = np.concatenate([b, np.zeros((n, 4 - b.shape[1] % 4), np.uint8)], axis=1)
    words = np.ascontiguousarray(b).view(np.uint32)
    mult = _hash_multipliers(words.shape[1])
    h = np.empty(n, np.uint64)
    for i in range(0, n, _HASH_BLOCK):
        h[i:i + _HASH_BLOCK] = words[i:i + _HASH_BLOCK] @ mult  # uint64 arithmetic wraps modulo 2**64
    _, first, inverse = np.unique(h, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    rep = first[inverse]
    for i in range(0, n, _HASH_BLOCK):
        if not np.array_equal(words[i:i + _HASH_BLOCK], words[rep[i:i + _HASH_BLOCK]]):
            view = np.ascontiguousarray(b).view(np.dtype((np.void, b.shape[1]))).ravel()
            _, first, inverse = np.unique(view, return_index=True, return_inverse=True)
            return first, inverse.reshape(-1)
    return first, inverse


def _distinct_sparse_rows(X) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_distinct_rows` for a scipy sparse matrix: rows compared by their non-zero entries. Each entry is
    hashed from its column and the bits of its float64 value (``-0.0`` and explicit zeros dropped first), a row's
    hash is the wrapping sum over its entries, and every row is then compared entry by entry with its hash group's
    row (on a collision: grouped by their entries' bytes instead)."""
    X = sp.csr_matrix(X, dtype=np.float64, copy=True)
    X.sum_duplicates()
    X.data += 0.0  # -0.0 -> 0.0, then dropped with the explicit zeros
    X.eliminate_zeros()
    n = X.shape[0]
    nnz = np.diff(X.indptr)
    row = np.repeat(np.arange(n), nnz)
    bits = X.data.view(np.uint64)
    mult = _hash_multipliers(3)
    with np.errstate(over="ignore"):
        e = (X.indices.astype(np.uint64) * mult[0] + bits) * mult[1]
        e ^= e >> np.uint64(29)
        h = nnz.astype(np.uint64) * mult[2]
        full = nnz > 0
        if full.any():  # uint64 sums wrap modulo 2**64: order-free
            h[full] += np.add.reduceat(e, X.indptr[:-1][full])
    _, first, inverse = np.unique(h, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    rep = first[inverse]
    same = nnz == nnz[rep]
    if same.all():
        k = np.arange(X.nnz) - X.indptr[row]  # position of each entry within its row
        partner = X.indptr[rep[row]] + k
        same = (X.indices == X.indices[partner]) & (bits == bits[partner])
    if not same.all():  # a hash collision: group by the rows' bytes
        keys = [X.indices[a:b].tobytes() + b"|" + bits[a:b].tobytes() for a, b in zip(X.indptr[:-1], X.indptr[1:])]
        _, first, inverse = np.unique(np.array(keys, dtype=object), return_index=True, return_inverse=True)
        return first, inverse.reshape(-1)
    return first, inverse
