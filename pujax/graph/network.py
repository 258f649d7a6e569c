"""Arc-list networks for :mod:`pujax.graph.maxflow`: from a host edge list, or on the device from kNN lists.

Layout (:class:`Arcs`): ``N`` node rows, the last one a dummy node; ``A`` arcs sorted by
(tail, head), each undirected edge stored as two arcs with ``rev`` pointing from one to the other; arcs past the
real ones join the dummy node to itself (capacity 0), so the last arc is always a padding arc.

* :func:`edge_arcs` (host, NumPy): the network of an undirected edge list -- parallel edges add up, self-loops are
  dropped -- for :func:`pujax.graph.parametric_min_cut` and :func:`pujax.graph.min_cut`.
* :func:`knn_arcs` (jit-able): the symmetric kNN graph of 2-HNC (edge [i, j] when j is among the k nearest
  neighbours of i or i among those of j, one weight per edge: the larger of the two listed similarities) built on
  the device from the neighbour lists, with static shapes (``A = 2 (N - 1) K`` for lists of width K).
* :func:`fixed_point_scale` (jit-able): the fixed-point scale of :func:`pujax.graph.parametric.choose_scale`
  computed on the device.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["Arcs", "edge_arcs", "merge_edges", "knn_arcs", "fixed_point_scale", "round_up_size"]

class Arcs(NamedTuple):
    """A network in arc-list form (the layout of the module docstring): int32 ``tail`` (non-decreasing), ``head``,
    ``rev`` of length A, ``start`` of length N + 1, and the integer capacities ``cap`` (0 on padding arcs)."""

    tail: jax.Array
    head: jax.Array
    rev: jax.Array
    start: jax.Array
    cap: jax.Array



MIN_SCALE = 2**10
MAX_SCALE = 2**24


def round_up_size(m: int) -> int:
    """Smallest size >= m of the form 2^k or 3 * 2^(k-1) (at least 16): few distinct compiled shapes."""
    size = 16
    while size < m:
        size = size * 3 // 2 if (size & (size - 1)) == 0 else size * 4 // 3
    return size


def merge_edges(i: ArrayLike, j: ArrayLike, w: ArrayLike, n_nodes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Undirected edges ``(a < b)`` with parallel edges added up and self-loops dropped (float64 weights)."""
    i = np.asarray(i).reshape(-1).astype(np.int64)
    j = np.asarray(j).reshape(-1).astype(np.int64)
    w = np.asarray(w, dtype=np.float64).reshape(-1)
    keep = i != j
    a, b, w = np.minimum(i, j)[keep], np.maximum(i, j)[keep], w[keep]
    key, inverse = np.unique(a * n_nodes + b, return_inverse=True)
    return key // n_nodes, key % n_nodes, np.bincount(inverse.reshape(-1), weights=w, minlength=key.size)


def edge_arcs(i: ArrayLike, j: ArrayLike, w: ArrayLike, n_nodes: int, *, scale: float = 1.0, dtype=np.int32,
              min_nodes: int = 0, min_width: int = 1) -> tuple[Arcs, int]:
    """Arc network (NumPy arrays) of undirected edges with capacities ``floor(w * scale)`` (parallel edges added
    first); returns ``(arcs, N)``. ``N = round_up_size(max(n_nodes, min_nodes) + 1)`` node rows (isolated padding
    nodes, the last one the dummy node) and ``round_up_size(max(arcs + 1, min_width * N))`` arcs, so that similar
    networks share one compiled program."""
    a, b, we = merge_edges(i, j, w, n_nodes)
    N = round_up_size(max(int(n_nodes), int(min_nodes)) + 1)
    tail = np.concatenate([a, b])
    head = np.concatenate([b, a])
    cap = np.floor(np.concatenate([we, we]) * scale)
    order = np.lexsort((head, tail))
    tail, head, cap = tail[order], head[order], cap[order]
    m = tail.size
    A = round_up_size(max(m + 1, int(min_width) * N))
    rev = np.empty(A, np.int64)
    rev[:m] = np.lexsort((tail, head))  # the k-th arc by (head, tail) is the reverse of the k-th by (tail, head)
    rev[m:] = np.arange(m, A)
    dummy = N - 1
    tail = np.concatenate([tail, np.full(A - m, dummy)])
    head = np.concatenate([head, np.full(A - m, dummy)])
    cap = np.concatenate([cap, np.zeros(A - m)])
    start = np.concatenate([[0], np.cumsum(np.bincount(tail, minlength=N))])
    i32 = lambda v: np.asarray(v, np.int32)  # noqa: E731
    return Arcs(i32(tail), i32(head), i32(rev), i32(start), cap.astype(dtype)), N


def knn_arcs(idx, w, k, n_real):
    """Symmetric kNN network on the device: ``(tail, head, rev, start, weight)`` for ``N = rows + 1`` nodes.

    ``idx`` (rows, K) int32 neighbour lists (rows >= ``n_real`` are padding), ``w`` (rows, K) float similarities;
    the first ``k`` (traced, <= K) neighbours of each row are used. An edge listed from both ends keeps the larger
    of its two weights. Arcs are sorted by (tail, head); ``A = 2 rows K`` (padding arcs on the dummy node ``N - 1``).
    """
    rows, K = idx.shape
    N = rows + 1
    dummy = N - 1
    r = jnp.arange(rows, dtype=jnp.int32)[:, None]
    use = (r < n_real) & (jnp.arange(K)[None, :] < k)
    a = jnp.where(use, r, dummy).reshape(-1)
    b = jnp.where(use, idx, dummy).reshape(-1).astype(jnp.int32)
    wt = jnp.where(use, w, 0).reshape(-1)
    tails, heads, ws = lax.sort((jnp.concatenate([a, b]), jnp.concatenate([b, a]), jnp.concatenate([wt, wt])),
                                num_keys=2, is_stable=True)
    same = (tails[1:] == tails[:-1]) & (heads[1:] == heads[:-1])
    first = jnp.concatenate([jnp.ones((1,), bool), ~same])
    ws = jnp.where(jnp.concatenate([same, jnp.zeros((1,), bool)]), jnp.maximum(ws, jnp.roll(ws, -1)), ws)
    keep = first & (tails < dummy) & (tails != heads)
    A = tails.shape[0]
    pos = jnp.where(keep, jnp.cumsum(keep) - 1, A)
    tail = jnp.full((A,), dummy, jnp.int32).at[pos].set(tails, mode="drop")
    head = jnp.full((A,), dummy, jnp.int32).at[pos].set(heads, mode="drop")
    weight = jnp.zeros((A,), ws.dtype).at[pos].set(ws, mode="drop")
    rev = lax.sort((head, tail, jnp.arange(A, dtype=jnp.int32)), num_keys=2, is_stable=True)[2]
    counts = jax.ops.segment_sum(jnp.ones((A,), jnp.int32), tail, N, indices_are_sorted=True)
    start = jnp.concatenate([jnp.zeros((1,), jnp.int32), jnp.cumsum(counts).astype(jnp.int32)])
    return tail, head, rev, start, weight


def fixed_point_scale(total, n_terms):
    """Largest power of two ``<= 2^24`` with ``(total + n_terms + 1) * scale < 2^31`` (float32 arithmetic with a
    relative margin of 2^-16 for its rounding), and whether it is at least ``MIN_SCALE`` (2^10)."""
    limit = jnp.float32(2.0**31 - 1)
    t = jnp.maximum(total, 0.0).astype(jnp.float32) * jnp.float32(1 + 2.0**-16)
    e = jnp.floor(jnp.log2(limit / (t + 1.0)))
    scale = jnp.exp2(jnp.clip(e, 0.0, 24.0))
    fits = lambda s: t * s + n_terms + 1.0 < limit  # noqa: E731
    scale = jnp.where(fits(scale), scale, scale / 2)
    scale = jnp.where(fits(scale), scale, scale / 2)
    return scale, scale >= MIN_SCALE
