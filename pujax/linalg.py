"""Matrix products and squared distances in full float32 precision on every backend.

On NVIDIA GPUs since Ampere, XLA computes float32 matrix products with TensorFloat-32 inputs by default (10-bit
mantissa): about 1e-3 relative error per product. That is harmless in a neural network's layers but not in the
expansion ``||a - b||^2 = ||a||^2 + ||b||^2 - 2 <a, b>``, where the error of ``<a, b>`` is amplified by the
cancellation, nor in the moment and log-density products of an EM. The products here ask for
``jax.lax.Precision.HIGHEST`` (float32 inputs), the same arithmetic as on CPU, where the request changes nothing.
Used by the SVM kernels, solver and decision values, Ada-PU's weighted stump errors and decision values, the kNN
graph of 2-HNC, FSCPU's Gaussian mixtures, MI objective and IGO update, and the KM and TIcE prior estimators; the
neural models keep the backend's default.

The rows of scipy sparse matrices (text) are multiplied on the host in float64 (:func:`sparse_gram`,
:func:`sparse_squared_distances`: sparse x sparse products, dense results), for the SVM kernels and the KM
estimator of sparse data.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["HIGHEST", "matmul", "gram", "squared_distances", "sparse_gram", "sparse_squared_distances",
           "row_norms_sq"]

HIGHEST = jax.lax.Precision.HIGHEST
"""The precision argument for ``jnp.einsum`` / ``jnp.dot`` calls that need float32 inputs."""


def matmul(a: ArrayLike, b: ArrayLike) -> jax.Array:
    """``a @ b`` with float32 inputs on every backend (no TensorFloat-32)."""
    return jnp.matmul(a, b, precision=HIGHEST)


def gram(A: ArrayLike, B: ArrayLike) -> jax.Array:
    """Inner products ``A @ B.T`` of the rows of ``A`` (n_a, d) and ``B`` (n_b, d), in full float32 precision."""
    return jnp.matmul(A, jnp.swapaxes(B, -1, -2), precision=HIGHEST)


def squared_distances(A: ArrayLike, B: ArrayLike, sq_a: ArrayLike | None = None,
                      sq_b: ArrayLike | None = None) -> jax.Array:
    """Squared Euclidean distances ``(n_a, n_b)`` of the rows of ``A`` and ``B`` by the expansion
    ``||a||^2 + ||b||^2 - 2 <a, b>``, clipped at 0 against round-off. ``sq_a`` / ``sq_b``: the rows' squared norms
    when already known (an ``inf`` norm gives an ``inf`` distance: a padding row that is never a neighbour).

    >>> import numpy as np
    >>> A = np.array([[0.0, 0.0], [3.0, 4.0]], np.float32)
    >>> np.asarray(squared_distances(A, A)).tolist()
    [[0.0, 25.0], [25.0, 0.0]]
    """
    A = jnp.asarray(A)
    B = jnp.asarray(B)
    sq_a = jnp.sum(A * A, axis=1) if sq_a is None else sq_a
    sq_b = jnp.sum(B * B, axis=1) if sq_b is None else sq_b
    return jnp.maximum(sq_a[:, None] + sq_b[None, :] - 2.0 * gram(A, B), 0.0)


def row_norms_sq(A) -> np.ndarray:
    """Squared Euclidean norms (float64) of the rows of a scipy sparse matrix (or a dense array)."""
    if hasattr(A, "multiply"):
        return np.asarray(A.multiply(A).sum(axis=1), np.float64).ravel()
    A = np.asarray(A, np.float64)
    return np.einsum("ij,ij->i", A, A)


def sparse_gram(A, B) -> np.ndarray:
    """Inner products ``A @ B.T`` (n_a, n_b) of the rows of scipy sparse matrices, a dense float64 array."""
    G = A.astype(np.float64) @ B.astype(np.float64).T
    return G.toarray() if hasattr(G, "toarray") else np.asarray(G)


def sparse_squared_distances(A, B, sq_a: np.ndarray | None = None, sq_b: np.ndarray | None = None) -> np.ndarray:
    """:func:`squared_distances` of the rows of scipy sparse matrices ``A`` and ``B``, on the host in float64
    (dense (n_a, n_b) result, clipped at 0).

    >>> import scipy.sparse as sp
    >>> A = sp.csr_matrix([[0.0, 0.0], [3.0, 4.0]])
    >>> sparse_squared_distances(A, A).tolist()
    [[0.0, 25.0], [25.0, 0.0]]
    """
    sq_a = row_norms_sq(A) if sq_a is None else sq_a
    sq_b = row_norms_sq(B) if sq_b is None else sq_b
    return np.maximum(sq_a[:, None] + sq_b[None, :] - 2.0 * sparse_gram(A, B), 0.0)
