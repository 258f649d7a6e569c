"""Kernel functions for the batched SVM solver (DESIGN §3.5).

All kernels are pure jit-able functions ``kernel(A, B, params) -> (n_a, n_b)`` matrix. ``params`` is a tuple
``(gamma, coef0, degree)`` of scalars (any unused entry is ignored) so that one compiled program serves every
value of gamma in a hyper-parameter grid:

* linear      k(a, b) = <a, b>
* rbf         k(a, b) = exp(-gamma ||a - b||^2)          (RESVM paper §3.4)
* poly        k(a, b) = (gamma <a, b> + coef0) ** degree

The same conventions as ``sklearn.svm.SVC`` are used, including ``gamma="scale"`` = 1 / (n_features * X.var()).
The SVM estimators compute kernels on standardized features (:func:`standardize`, statistics from the training
rows), so kernels and ``gamma="scale"`` do not depend on the units or offsets of ``X``. Kernels of the rows of scipy
sparse matrices (text) are computed on the host from sparse products and row norms (:func:`sparse_kernel`).
"""
from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np
import scipy.sparse as sp

from pujax._compile import jit
from pujax.linalg import gram, row_norms_sq, sparse_gram, squared_distances
from pujax.preprocessing import standardization
from pujax.preprocessing import standardize as _standardize

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["KERNELS", "linear_kernel", "rbf_kernel", "polynomial_kernel", "kernel_matrix", "kernel_block",
           "sparse_kernel", "sparse_decision_values", "resolve_gamma", "standardize_stats", "standardize",
           "STANDARD_CLIP"]

KERNELS = ("linear", "rbf", "poly")

STANDARD_CLIP = 1e4
"""Standardized features are clipped to ``[-STANDARD_CLIP, STANDARD_CLIP]`` (a row that far out is an outlier
for every kernel; the clip keeps kernel values finite in float32)."""


@jit("heavy")
def linear_kernel(A: ArrayLike, B: ArrayLike) -> jax.Array:
    """Linear kernel matrix ``A @ B.T``."""
    return gram(A, B)


@jit("heavy")
def rbf_kernel(A: ArrayLike, B: ArrayLike, gamma: float) -> jax.Array:
    """RBF kernel matrix ``exp(-gamma ||a_i - b_j||^2)``; distances are clipped at 0 against round-off."""
    return jnp.exp(-gamma * squared_distances(A, B))


@partial(jit, "heavy", static_argnames=("degree",))
def polynomial_kernel(A: ArrayLike, B: ArrayLike, gamma: float, coef0: float, degree: int) -> jax.Array:
    """Polynomial kernel matrix ``(gamma <a, b> + coef0) ** degree`` (``degree`` is static)."""
    return (gamma * gram(A, B) + coef0) ** degree


def kernel_matrix(A: ArrayLike, B: ArrayLike, kernel: str, gamma: float = 1.0, coef0: float = 0.0,
                  degree: int = 3) -> jax.Array:
    """Dispatch to the kernel named ``kernel`` (``"linear"``, ``"rbf"`` or ``"poly"``)."""
    A = jnp.asarray(A)
    B = jnp.asarray(B)
    if kernel == "linear":
        return linear_kernel(A, B)
    if kernel == "rbf":
        return rbf_kernel(A, B, jnp.asarray(gamma, A.dtype))
    if kernel == "poly":
        return polynomial_kernel(A, B, jnp.asarray(gamma, A.dtype), jnp.asarray(coef0, A.dtype), int(degree))
    raise ValueError(f"kernel={kernel!r} is not valid; choose one of {list(KERNELS)}.")


def kernel_block(A, B, kernel: str, gamma, coef0, degree: int):
    """Traceable kernel matrix of ``A`` (n_a, d) and ``B`` (n_b, d); ``kernel`` and ``degree`` are static, ``gamma``
    and ``coef0`` may be traced scalars (one compiled program serves a whole gamma grid)."""
    if kernel == "linear":
        return gram(A, B)
    if kernel == "rbf":
        return jnp.exp(-gamma * squared_distances(A, B))
    return (gamma * gram(A, B) + coef0) ** degree


def sparse_kernel(A, B, kernel: str, gamma: float = 1.0, coef0: float = 0.0, degree: int = 3,
                  sq_b: np.ndarray | None = None) -> np.ndarray:
    """Kernel matrix (n_a, n_b) of the rows of scipy sparse matrices ``A`` and ``B``, on the host in float64: the
    sparse inner products ``A @ B.T`` and, for ``"rbf"``, the rows' squared norms (``sq_b``: those of ``B`` when
    already known); the same conventions as :func:`kernel_block`."""
    G = sparse_gram(A, B)
    if kernel == "linear":
        return G
    if kernel == "rbf":
        sq_b = row_norms_sq(B) if sq_b is None else sq_b
        return np.exp(-gamma * np.maximum(row_norms_sq(A)[:, None] + sq_b[None, :] - 2.0 * G, 0.0))
    if kernel == "poly":
        return (gamma * G + coef0) ** int(degree)
    raise ValueError(f"kernel={kernel!r} is not valid; choose one of {list(KERNELS)}.")


def sparse_decision_values(SV, coef, bias, X, kernel: str, gamma: float, coef0: float, degree: int,
                           block: int = 1 << 22) -> np.ndarray:
    """``K(X, SV) coef^T + bias`` (n, B) with the kernel of :func:`sparse_kernel`, on the host in float64, in blocks
    of rows of about ``block`` kernel values (``SV`` and ``X`` sparse or dense: both are multiplied as CSR)."""
    SV, X = sp.csr_matrix(SV, dtype=np.float64), sp.csr_matrix(X, dtype=np.float64)
    coef, bias = np.asarray(coef, np.float64), np.asarray(bias, np.float64)
    sq_sv = row_norms_sq(SV)
    rows = max(1, block // max(SV.shape[0], 1))
    out = [sparse_kernel(X[a:a + rows], SV, kernel, gamma, coef0, degree, sq_b=sq_sv) @ coef.T + bias
           for a in range(0, X.shape[0], rows)]
    return np.concatenate(out) if out else np.zeros((0, bias.shape[0]))


def standardize_stats(X) -> tuple[np.ndarray, np.ndarray]:
    """Per-feature mean and standard deviation of ``X`` in float64 (:func:`pujax.preprocessing.standardization`;
    a constant feature gets scale 1), so an offset of ``1e7`` on a feature of unit spread loses nothing."""
    return standardization(X)


def standardize(X, mean, scale, dtype=np.float32) -> np.ndarray:
    """``(X - mean) / scale`` computed in float64, clipped to ``+-STANDARD_CLIP``, returned as ``dtype``
    (:func:`pujax.preprocessing.standardize`)."""
    return _standardize(X, mean, scale, clip=STANDARD_CLIP, dtype=dtype)


def resolve_gamma(gamma, X) -> float:
    """Turn ``gamma`` ("scale", "auto" or a positive float) into a float, as ``sklearn.svm.SVC`` does."""
    X = X if sp.issparse(X) else np.asarray(X)
    if isinstance(gamma, str):
        if gamma == "scale":  # bounded: a zero or non-finite variance gives 1, the result is clipped to [1e-12, 1e12]
            var = _variance(X)
            return float(np.clip(1.0 / (X.shape[1] * var), 1e-12, 1e12)) if np.isfinite(var) and var > 0 else 1.0
        if gamma == "auto":
            return 1.0 / X.shape[1]
        raise ValueError(f'gamma={gamma!r} is not valid; pass "scale", "auto" or a positive float.')
    try:
        g = float(gamma)
    except (TypeError, ValueError):
        raise TypeError(f'gamma must be "scale", "auto" or a positive float; got {gamma!r}.') from None
    if not np.isfinite(g) or g <= 0:
        raise ValueError(f'gamma={gamma!r} must be a positive float (or "scale" / "auto").')
    return g


def _variance(X) -> float:
    """Variance of all the entries of ``X`` (float64; a scipy sparse ``X`` from its stored values)."""
    if not sp.issparse(X):
        return float(np.asarray(X, np.float64).var())
    size = float(X.shape[0]) * X.shape[1]
    if size == 0:
        return float("nan")
    v = X.data.astype(np.float64)
    mean = v.sum() / size
    return float(np.sum((v - mean) ** 2) + (size - v.size) * mean * mean) / size
