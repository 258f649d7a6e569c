r"""The rows the neural learners train on: a dense array, or a scipy sparse matrix kept sparse on the device.

:class:`SparseRows` holds a CSR matrix as three device arrays (values, column indices, row pointers) plus an optional
per-feature ``center`` and ``scale``. The training program builds each minibatch densely from it
(:func:`take_rows`): for the ``b`` rows of a minibatch it gathers their stored entries into a fixed number of slots,
``min(b * row_cap, nnz)`` (``row_cap`` is the longest row, rounded up to a size bucket), and scatter-adds them into
a ``(b, d)`` block of zeros, then applies ``(x - center) / scale`` there. Only minibatches (and the chunks of an
evaluation pass) are ever dense, so a TF-IDF matrix of a million columns trains without its dense copy. Entries of
a row that share a column are summed (scipy's convention). Shapes (rows padded to a size bucket, stored entries
and ``row_cap`` to powers of two) are static, so data of a similar size reuses the compiled program.

A dense ``X`` goes through the same functions unchanged (``take_rows`` is ``jnp.take``), so the sparse matrix and
its dense copy give the same minibatches and, up to float rounding of the standardisation, the same models.
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np
import scipy.sparse as sp

from pujax._compile import pad_rows

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["SparseRows", "sparse_rows", "take_rows", "dense_rows", "pad_matrix_rows", "pad_sparse", "as_rows",
           "is_sparse"]


def _pow2(n: int) -> int:
    return 1 << max(0, int(n) - 1).bit_length()


@dataclasses.dataclass(frozen=True)
class SparseRows:
    """A CSR matrix on the device (a pytree; ``n_features`` and ``row_cap`` are static). Build it with
    :func:`sparse_rows`. ``shape``, ``dtype`` and ``ndim`` read like those of the dense matrix it stands for."""

    data: jax.Array
    indices: jax.Array
    indptr: jax.Array
    center: jax.Array | None
    scale: jax.Array | None
    n_features: int
    row_cap: int

    @property
    def shape(self) -> tuple[int, int]:
        return (int(self.indptr.shape[0]) - 1, int(self.n_features))

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def ndim(self) -> int:
        return 2


jax.tree_util.register_dataclass(SparseRows, data_fields=["data", "indices", "indptr", "center", "scale"],
                                 meta_fields=["n_features", "row_cap"])


def is_sparse(X) -> bool:
    """Whether ``X`` is a scipy sparse matrix or :class:`SparseRows`."""
    return sp.issparse(X) or isinstance(X, SparseRows)


def sparse_rows(X, center: ArrayLike | None = None, scale: ArrayLike | None = None,
                n_rows: int | None = None) -> SparseRows:
    """:class:`SparseRows` of a scipy sparse matrix ``X`` (host numpy arrays; ``jax.device_put`` moves them).

    ``n_rows`` (default ``X.shape[0]``) pads the rows with empty ones; the stored entries are padded to a power of
    two with zeros in column 0 that no row points to. ``center`` / ``scale`` (length ``d``): every row is read as
    ``(x - center) / scale`` in float32 (None: as stored).
    """
    X = sp.csr_matrix(X)
    n, d = X.shape
    n_rows = n if n_rows is None else int(n_rows)
    if n_rows < n:
        raise ValueError(f"n_rows={n_rows} is smaller than the {n} rows of X.")
    lengths = np.diff(X.indptr)
    nnz = int(X.indptr[-1])
    size = _pow2(max(nnz, 1))
    data = np.zeros(size, np.float32)
    indices = np.zeros(size, np.int32)
    data[:nnz], indices[:nnz] = X.data[:nnz], X.indices[:nnz]
    indptr = np.full(n_rows + 1, nnz, np.int32)
    indptr[: n + 1] = X.indptr
    row_cap = _pow2(max(int(lengths.max()) if n else 1, 1))
    center, scale = (None if a is None else np.asarray(a, np.float32).reshape(d) for a in (center, scale))
    return SparseRows(data, indices, indptr, center, scale, int(d), int(row_cap))


def pad_matrix_rows(size: int, X):
    """``X`` (dense array or scipy sparse matrix) padded with zero rows to ``size`` rows."""
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        extra = size - X.shape[0]
        return X if extra <= 0 else sp.vstack([X, sp.csr_matrix((extra, X.shape[1]), dtype=X.dtype)], format="csr")
    return pad_rows(size, np.asarray(X))


def _densify(X: SparseRows, idx: jax.Array) -> jax.Array:
    """Dense ``(b, d)`` rows ``idx`` of ``X`` (standardised when ``X`` has a centre and scale)."""
    b = idx.shape[0]
    slots = int(min(b * X.row_cap, X.data.shape[0]))
    starts = X.indptr[idx]
    lengths = X.indptr[idx + 1] - starts
    ends = jnp.cumsum(lengths)
    t = jnp.arange(slots, dtype=ends.dtype)
    j = jnp.minimum(jnp.searchsorted(ends, t, side="right"), b - 1)
    valid = t < ends[-1]
    src = jnp.where(valid, starts[j] + t - (ends[j] - lengths[j]), 0)
    vals = jnp.where(valid, X.data[src], 0.0).astype(X.data.dtype)
    out = jnp.zeros((b, X.n_features), X.data.dtype).at[j, X.indices[src]].add(vals)
    if X.center is not None:
        out = (out - X.center) / X.scale
    return out


def take_rows(X, idx: jax.Array) -> jax.Array:
    """Rows ``idx`` of ``X`` as a dense array: ``jnp.take(X, idx, axis=0)`` for a dense ``X``; for
    :class:`SparseRows` the gather-and-scatter of the module docstring (jit / vmap-able)."""
    if isinstance(X, SparseRows):
        return _densify(X, jnp.asarray(idx))
    return jnp.take(X, idx, axis=0)


def dense_rows(X) -> jax.Array:
    """Every row of ``X`` as a dense array (``X`` itself when it is dense)."""
    if isinstance(X, SparseRows):
        return _densify(X, jnp.arange(X.shape[0]))
    return X


def pad_sparse(X: SparseRows, size: int) -> SparseRows:
    """``X`` with empty rows appended up to ``size`` rows (host arrays)."""
    indptr = np.asarray(X.indptr)
    extra = size - (indptr.shape[0] - 1)
    if extra <= 0:
        return X
    indptr = np.concatenate([indptr, np.full(extra, indptr[-1], indptr.dtype)])
    return dataclasses.replace(X, indptr=indptr)


def as_rows(X, center: ArrayLike | None = None, scale: ArrayLike | None = None):
    """A scipy sparse ``X`` as :class:`SparseRows` (read as ``(x - center) / scale`` when given); anything else
    unchanged."""
    return sparse_rows(X, center, scale) if sp.issparse(X) else X
