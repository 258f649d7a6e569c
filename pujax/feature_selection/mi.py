"""Semi-JMI mutual-information term of FSCPU-MI (Uchikoshi & Akimoto 2025, eq. 13; Sechidis & Brown 2018).

Semi-JMI (Sechidis & Brown, "Simple strategies for semi-supervised feature selection", 2018) is the joint mutual
information criterion (JMI; Yang & Moody 1999, Brown et al. 2012) computed with the surrogate label S (1 = labeled
positive, 0 = unlabeled) in place of the unobserved class Y: under the "selected completely at random" assumption
I(X; S) = 0 iff I(X; Y) = 0, so ranking by S is a valid PU strategy. For a feature set phi the JMI objective is

    I(phi) = sum over pairs {i, j} in phi, i < j, of I(X_i X_j; S)          (I(phi) = I(X_i; S) when |phi| = 1),

computed here from a precomputed d x d matrix M with M_ij = I(X_i X_j; S) (i != j) and M_ii = I(X_i; S), on
features discretised into ``n_bins`` quantile bins (plug-in estimates, nats). FSCPU-MI adds I(phi)/Std[I] to
f(phi)/Std[f] (eq. 13). :func:`semi_jmi_select` is the greedy semi-JMI feature selector itself (the paper's
"semi-JMI" baseline).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np

from pujax.linalg import matmul

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["discretize", "pairwise_mi", "semi_jmi_score", "semi_jmi_select"]


def discretize(X: ArrayLike, n_bins: int = 5) -> jax.Array:
    """Quantile-bin every column of ``X`` into codes 0..n_bins-1 (ties may leave bins empty). Jit-able."""
    X = jnp.asarray(X)
    qs = jnp.linspace(0.0, 1.0, n_bins + 1)[1:-1]
    edges = jnp.quantile(X, qs, axis=0)  # (n_bins - 1, d)
    return jnp.sum(X[None, :, :] > edges[:, None, :], axis=0).astype(jnp.int32)


def pairwise_mi(codes: ArrayLike, s: ArrayLike, n_bins: int) -> jax.Array:
    """Matrix M (d x d): M_ij = I(X_i X_j; S) for i != j and M_ii = I(X_i; S), plug-in estimates in nats.

    ``codes``: (n, d) integer bins in [0, n_bins); ``s``: PU labels (1 = labeled). Jit-able (n_bins static).
    """
    codes = jnp.asarray(codes)
    n, d = codes.shape
    dtype = jnp.result_type(float)
    s = jnp.asarray(s).astype(dtype)
    onehot = jax.nn.one_hot(codes, n_bins, dtype=dtype).reshape(n, d * n_bins)
    # 0/1 products: exact counts in any matmul precision (TF32 included)
    joint = onehot.T @ onehot  # counts of (X_i = a, X_j = b)
    joint1 = onehot.T @ (onehot * s[:, None])  # counts with S = 1
    joint0 = joint - joint1
    n1 = jnp.sum(s)
    n0 = n - n1
    n_f = jnp.asarray(n, dtype)

    def term(c_xs, n_s):
        # c_xs / n * log(c_xs * n / (c_x * n_s)), 0 when c_xs == 0
        ok = (c_xs > 0) & (joint > 0) & (n_s > 0)
        ratio = jnp.where(ok, c_xs * n_f / jnp.where(ok, joint * n_s, 1.0), 1.0)
        return jnp.where(ok, c_xs / n_f * jnp.log(ratio), 0.0)

    cells = term(joint1, n1) + term(joint0, n0)
    M = cells.reshape(d, n_bins, d, n_bins).sum(axis=(1, 3))
    # on the diagonal, (X_i, X_i) has the same distribution as X_i, so M_ii = I(X_i; S) already
    return jnp.maximum(M, 0.0)


def semi_jmi_score(mask: ArrayLike, M: ArrayLike) -> jax.Array:
    """I(phi) for a 0/1 ``mask``: sum of M_ij over selected pairs i < j (M_ii if a single feature is selected)."""
    mask = jnp.asarray(mask).astype(M.dtype)
    diag = jnp.diagonal(M)
    pair = 0.5 * (matmul(matmul(mask, M), mask) - jnp.sum(mask * diag))
    single = jnp.sum(mask * diag)
    return jnp.where(jnp.sum(mask) >= 2, pair, single)


def semi_jmi_select(M: ArrayLike, n_select: int) -> np.ndarray:
    """Greedy semi-JMI forward selection from the pair matrix ``M``: first argmax_i I(X_i; S), then repeatedly the
    feature maximising sum_{j selected} I(X_k X_j; S). Returns the selected feature indices in selection order."""
    M = np.asarray(M, dtype=np.float64)
    d = M.shape[0]
    n_select = int(min(max(n_select, 0), d))
    if n_select == 0:
        return np.zeros(0, dtype=np.int64)
    chosen = [int(np.argmax(np.diag(M)))]
    score = M[:, chosen[0]].copy()
    avail = np.ones(d, bool)
    avail[chosen[0]] = False
    while len(chosen) < n_select:
        k = int(np.argmax(np.where(avail, score, -np.inf)))
        chosen.append(k)
        avail[k] = False
        score += M[:, k]
    return np.asarray(chosen, dtype=np.int64)
