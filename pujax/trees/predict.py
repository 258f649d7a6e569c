"""Jit-compiled vectorised traversal of all the trees of a forest (DESIGN §3.2).

Every (sample, tree) pair walks down its tree for a fixed number of steps (the forest's maximum depth); leaves
point to themselves so extra steps are no-ops. Samples are processed in chunks to bound memory.
"""
from __future__ import annotations

import weakref
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from pujax._compile import bucket_size, jit
from pujax.trees.assembly import pad, put
from pujax.trees.model import Forest

__all__ = ["Traversal", "traversal", "forest_leaves", "forest_mean_value"]


class Traversal(NamedTuple):
    """Device arrays for traversal: leaves point to themselves (left = right = self, threshold = +inf)."""

    feature: jax.Array
    threshold: jax.Array
    left: jax.Array
    right: jax.Array
    value: jax.Array
    roots: jax.Array
    n_steps: int


_CACHE: dict = {}  # id(forest.left) -> (weakref to forest.left, Traversal)


def _prepare(forest: Forest) -> Traversal:
    """Node arrays padded to :func:`~pujax.compilation.bucket_size` nodes (unreachable self-pointing leaves), so
    that forests of a similar size share the traversal programs."""
    n_nodes = forest.n_nodes
    size = bucket_size(n_nodes)
    idx = np.arange(size, dtype=np.int32)
    leaf = pad(forest.left, size, -1) < 0
    return Traversal(
        feature=put(np.where(leaf, 0, pad(forest.feature, size)).astype(np.int32)),
        threshold=put(pad(np.asarray(forest.threshold, dtype=np.float32), size, np.inf)),
        left=put(np.where(leaf, idx, pad(forest.left, size)).astype(np.int32)),
        right=put(np.where(leaf, idx, pad(forest.right, size)).astype(np.int32)),
        value=put(pad(np.asarray(forest.value, dtype=np.float32), size)),
        roots=put(forest.tree_offsets[:-1].astype(np.int32)),
        n_steps=int(forest.depth.max()) if n_nodes else 0,
    )


def traversal(forest: Forest) -> Traversal:
    """The device arrays of ``forest`` for traversal, prepared once per forest (kept while its arrays live)."""
    key = id(forest.left)
    hit = _CACHE.get(key)
    if hit is not None and hit[0]() is forest.left:
        return hit[1]
    trav = _prepare(forest)
    try:
        ref = weakref.ref(forest.left, lambda _, k=key: _CACHE.pop(k, None))
    except TypeError:  # arrays without weak references: no caching
        return trav
    _CACHE[key] = (ref, trav)
    return trav


@partial(jit, "kernel", static_argnames=("n_steps",))
def _leaves(X, feature, threshold, left, right, roots, *, n_steps: int):
    n = X.shape[0]
    node = jnp.broadcast_to(roots[None, :], (n, roots.shape[0]))
    rows = jnp.arange(n)[:, None]

    def step(_, node):
        f = feature[node]
        go_left = X[rows, f] <= threshold[node]
        return jnp.where(go_left, left[node], right[node])

    return jax.lax.fori_loop(0, n_steps, step, node)


def _steps_bucket(n_steps: int) -> int:
    # round the loop length up to a multiple of 8 to share compiled shapes between forests
    return int(-(-max(n_steps, 1) // 8) * 8)


def _row_chunk(n_trees: int, budget: int = 1 << 22) -> int:
    c = max(256, budget // max(n_trees, 1))
    return 1 << int(np.floor(np.log2(c)))


def _over_row_chunks(trav: Traversal, X: np.ndarray, fn, empty: np.ndarray) -> np.ndarray:
    """Apply the jit function ``fn(xb, n_steps)`` to fixed-size row chunks of ``X`` (a single chunk zero-padded
    to :func:`~pujax.compilation.bucket_size` rows: one program per bucket); concatenate the results (axis 0)."""
    X = np.asarray(X, dtype=np.float32)
    n = X.shape[0]
    chunk = _row_chunk(int(trav.roots.shape[0]))
    steps = _steps_bucket(trav.n_steps)
    out = []
    for a in range(0, n, chunk):
        xb = X[a: a + chunk]
        m = xb.shape[0]
        size = chunk if n > chunk else bucket_size(m)
        if m < size:
            xb = np.concatenate([xb, np.zeros((size - m, X.shape[1]), np.float32)])
        out.append(np.asarray(fn(put(xb), steps))[:m])
    return np.concatenate(out, axis=0) if out else empty


def forest_leaves(forest: Forest, X: np.ndarray) -> np.ndarray:
    """Global leaf index reached by every sample in every tree, shape (n_samples, n_trees) int32."""
    trav = traversal(forest)

    def fn(xb, steps):
        return _leaves(xb, trav.feature, trav.threshold, trav.left, trav.right, trav.roots, n_steps=steps)

    return _over_row_chunks(trav, X, fn, np.zeros((0, int(trav.roots.shape[0])), np.int32))


@partial(jit, "kernel", static_argnames=("n_steps",))
def _mean_value(X, feature, threshold, left, right, roots, value, *, n_steps: int):
    leaves = _leaves(X, feature, threshold, left, right, roots, n_steps=n_steps)
    return jnp.mean(value[leaves], axis=1)


def forest_mean_value(forest: Forest, X: np.ndarray) -> np.ndarray:
    """Mean over trees of the leaf value (probability of the positive class), shape (n_samples,)."""
    trav = traversal(forest)

    def fn(xb, steps):
        return _mean_value(xb, trav.feature, trav.threshold, trav.left, trav.right, trav.roots, trav.value,
                           n_steps=steps)

    return _over_row_chunks(trav, X, fn, np.zeros(0, np.float32))
