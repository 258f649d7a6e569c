"""FSCPU's objective f(phi) (Uchikoshi & Akimoto 2025, eq. 5) from a clustering, by the prefix rule.

For clusters C_1..C_K of D_L U D_U (on the features selected by phi), let a_k = |D_L n C_k| (labeled rows in the
cluster) and c_k = |C_k|. Eq. (5) is

    f(phi) = max over K' subset of [1, K] of  (sum_{k in K'} a_k)^2 / (|D_L| * sum_{k in K'} c_k),

the product of the recall |D_L n U C| / |D_L| and the precision |D_L n U C| / |U C| of "labeled vs not" when the
clusters in K' are called positive. Proposition 4.1 shows that an optimal K' is a prefix of the clusters sorted by
their labeled ratio a_k / c_k (eq. 6) in decreasing order, so the maximum over the 2^K subsets is the maximum over
the K prefixes (Algorithm 1 walks the same prefixes). Within ties of the ratio the prefix value is quasi-convex in
the included size, so the maximum over all prefixes does not depend on how ties are ordered. Empty clusters are
ignored. Everything is jit- and vmap-able.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["cluster_counts", "prefix_objective", "objective_from_labels"]


def cluster_counts(labels: ArrayLike, s: ArrayLike, n_clusters: int) -> tuple[jax.Array, jax.Array]:
    """Per-cluster labeled counts a_k and sizes c_k (float arrays of length ``n_clusters``)."""
    s = jnp.asarray(s)
    dtype = jnp.result_type(float)
    onehot = jax.nn.one_hot(labels, n_clusters, dtype=dtype)
    a = s.astype(dtype) @ onehot
    c = jnp.sum(onehot, axis=0)
    return a, c


def prefix_objective(a: ArrayLike, c: ArrayLike, n_labeled: ArrayLike | None = None) -> jax.Array:
    """Eq. (5) by Prop. 4.1: max over prefixes of the clusters sorted by labeled ratio of A^2 / (|D_L| C).

    ``a``, ``c``: labeled counts and sizes per cluster (length K; trailing batch axes are not supported, use
    ``vmap``). ``n_labeled`` defaults to ``sum(a)``. Returns a scalar in [0, 1] (0 when no row is labeled).
    """
    a = jnp.asarray(a)
    c = jnp.asarray(c)
    dtype = jnp.result_type(a.dtype, c.dtype, float)
    a = a.astype(dtype)
    c = c.astype(dtype)
    if n_labeled is None:
        n_labeled = jnp.sum(a)
    n_labeled = jnp.asarray(n_labeled, dtype)
    ratio = jnp.where(c > 0, a / jnp.maximum(c, 1.0), -1.0)  # empty clusters last
    order = jnp.argsort(-ratio, stable=True)
    A = jnp.cumsum(a[order])
    C = jnp.cumsum(c[order])
    vals = jnp.where((C > 0) & (n_labeled > 0), A * A / (jnp.maximum(n_labeled, 1.0) * jnp.maximum(C, 1.0)), 0.0)
    return jnp.max(vals)


def objective_from_labels(labels: ArrayLike, s: ArrayLike, n_clusters: int) -> jax.Array:
    """f(phi) of eq. (5) for hard cluster labels of every row and PU labels ``s`` (1 = in D_L)."""
    a, c = cluster_counts(labels, s, n_clusters)
    return prefix_objective(a, c, jnp.sum(jnp.asarray(s).astype(a.dtype)))
