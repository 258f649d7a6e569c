"""Exact k-nearest neighbours in JAX (tiled brute force) and the symmetric kNN similarity graph of 2-HNC.

The 2-HNC paper (Hochbaum & Nitayanont, §4.2.3 and §5.2-5.3) sparsifies the complete similarity graph by keeping
edge [i, j] when i is among the k nearest neighbours of j or j among those of i, with the Gaussian similarity
``w_ij = exp(-d_ij^2 / (2 sigma^2))`` (§5.3) of the weighted Euclidean distance
``d_ij = sqrt(sum_h rho_h (x_ih - x_jh)^2)``.

The search is exact: squared distances of a tile of query rows to all rows are computed with one matrix product,
and ``lax.top_k`` keeps the k smallest per row, so memory is bounded by ``tile_size * n``. The graph is returned in
the padded neighbour-list form used by :mod:`pujax.graph.maxflow`: ``nbr[n, K]``, ``weight[n, K]`` and
``rev[n, K]`` (the slot of the reverse arc in the neighbour's row); unused slots point to the node itself with
weight 0.
"""
from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax, shard_map
from jax.sharding import PartitionSpec

from pujax._compile import bucket_size, jit, pad_rows
from pujax.devices import AXIS, device_mesh, padded_size, resolve_devices
from pujax.linalg import squared_distances

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from pujax._typing import DevicesLike

__all__ = ["knn_search", "knn_query", "knn_search_device", "NeighborGraph", "neighbor_lists", "knn_graph",
           "gaussian_weights"]

_TILE_ELEMENTS = 1 << 24  # distance entries per tile (64 MiB of float32)


@partial(jit, "kernel", static_argnames=("k",))
def _knn_tile(Q, q_index, X, sq_norms, k):
    """k nearest rows of ``X`` (excluding the query's own index) for each row of the tile ``Q``; columns with
    ``sq_norms = inf`` (padding) are never chosen."""
    d2 = squared_distances(Q, X, sq_b=sq_norms)
    cols = jnp.arange(X.shape[0])
    d2 = jnp.where(cols[None, :] == q_index[:, None], jnp.inf, d2)
    neg, idx = jax.lax.top_k(-d2, k)
    return idx.astype(jnp.int32), -neg


def _blocks(Qb, qb, X, sq, k):
    """Query blocks ``Qb (B, T, H)`` one after the other (one compiled tile program)."""
    return lax.map(lambda a: _knn_tile(a[0], a[1], X, sq, k), (Qb, qb))


@partial(jit, "kernel", static_argnames=("k", "mesh"))
def _knn_blocks(Qb, qb, X, sq, k, mesh):
    if mesh is None:
        return _blocks(Qb, qb, X, sq, k)
    rows, rep = PartitionSpec(AXIS), PartitionSpec()
    return shard_map(partial(_blocks, k=k), mesh=mesh, in_specs=(rows, rows, rep, rep), out_specs=(rows, rows),
                     check_vma=False)(Qb, qb, X, sq)


def _tile_rows(n_train: int, n_query: int) -> int:
    """Rows per query block: about ``_TILE_ELEMENTS`` distances, at most 256 rows (a function of the bucketed
    sizes only, so that the blocks -- and their results -- do not depend on the number of devices)."""
    return int(max(8, min(256, bucket_size(n_query), _TILE_ELEMENTS // max(n_train, 1)) // 8 * 8))


def _knn_device(Q, q_index, X, k, devices):
    """kNN of the rows of Q among the rows of X on the device: ``(indices, squared distances)`` of shape
    ``(rows, k)`` with ``rows >= bucket_size(len(Q))`` (rows past ``len(Q)`` are padding). Both are padded to
    :func:`pujax.compilation.bucket_size` (padded columns get an infinite norm), query blocks split across
    ``devices``."""
    X = np.asarray(X, np.float32)
    Q = np.asarray(Q, np.float32)
    n, m = X.shape[0], Q.shape[0]
    if X.shape[1] == 0:  # no features: every distance is 0
        X, Q = np.zeros((n, 1), np.float32), np.zeros((m, 1), np.float32)
    nb = bucket_size(n)
    Xp = pad_rows(nb, X)
    sq = np.sum(Xp.astype(np.float32) ** 2, axis=1)
    sq[n:] = np.inf
    T = _tile_rows(nb, m)
    mesh = None
    n_dev = 1
    if devices is not None and len(resolve_devices(devices)) > 1:
        mesh = device_mesh(devices)
        n_dev = mesh.size
    B = padded_size(-(-bucket_size(m) // T), n_dev)
    Qp = pad_rows(B * T, Q).reshape(B, T, -1)
    qp = pad_rows(B * T, np.asarray(q_index, np.int32), fill=-1).reshape(B, T)
    return _knn_blocks(Qp, qp, Xp, sq, int(k), mesh)


def _knn_padded(Q, q_index, X, k, devices):
    """:func:`_knn_device` read back to the host, cut to the rows of Q."""
    idx, d2 = _knn_device(Q, q_index, X, k, devices)
    m = np.shape(Q)[0]
    return np.asarray(idx).reshape(-1, k)[:m], np.asarray(d2).reshape(-1, k)[:m]


def knn_search(X: ArrayLike, n_neighbors: int, feature_weights: ArrayLike | None = None, tile_size: int | None = None,
               devices: DevicesLike = None) -> tuple[np.ndarray, np.ndarray]:
    """Exact k nearest neighbours of every row of ``X`` among the other rows (weighted Euclidean distance).

    Parameters
    ----------
    X : array (n, H)
    n_neighbors : int, ``1 <= n_neighbors < n``.
    feature_weights : optional array (H,) of non-negative weights rho_h (distance ``sum_h rho_h (x_h - y_h)^2``).
    tile_size : ignored (query blocks are sized from the bucketed row count); kept for compatibility.
    devices : where the query row blocks run (:func:`pujax.devices.resolve_devices`; None = the default device).
        Every block is the same program on every device, so the result does not depend on the number of devices.

    Returns
    -------
    (indices int32 (n, k), squared distances float32 (n, k)), neighbours sorted by increasing distance. Rows with
    duplicates get them as neighbours at distance 0 (ties broken by ``lax.top_k``).
    """
    X = np.asarray(X)
    if not np.issubdtype(X.dtype, np.floating):
        X = X.astype(np.float32)
    n = X.shape[0]
    k = int(n_neighbors)
    if k < 1 or k >= n:
        raise ValueError(f"n_neighbors={n_neighbors} must be in [1, n_samples - 1] = [1, {n - 1}].")
    if feature_weights is not None:
        rho = np.asarray(feature_weights, dtype=np.float64)
        if rho.shape != (X.shape[1],) or np.any(rho < 0) or not np.all(np.isfinite(rho)):
            raise ValueError(
                f"feature_weights must be {X.shape[1]} finite non-negative numbers (one per feature); "
                f"got shape {tuple(rho.shape)}."
            )
        X = X * np.sqrt(rho)[None, :]
    return _knn_padded(X, np.arange(n), X, k, devices)


def knn_search_device(X: ArrayLike, n_neighbors: int, devices: DevicesLike = None) -> tuple[jax.Array, jax.Array]:
    """:func:`knn_search` (unweighted) with the results kept on the device: ``(indices int32 (B, T, k), squared
    distances float32 (B, T, k))`` -- query blocks of T rows; the first ``len(X)`` of the ``B * T`` rows are the
    rows of X, the others padding."""
    X = np.asarray(X, np.float32)
    k = int(n_neighbors)
    if k < 1 or k >= X.shape[0]:
        raise ValueError(f"n_neighbors={n_neighbors} must be in [1, n_samples - 1] = [1, {X.shape[0] - 1}].")
    return _knn_device(X, np.arange(X.shape[0]), X, k, devices)


def knn_query(Q, X, n_neighbors: int, devices=None):
    """Exact ``n_neighbors`` nearest rows of ``X`` for every row of ``Q`` (squared Euclidean distance; no row is
    excluded). Returns ``(indices int32 (m, k), squared distances (m, k))``, nearest first."""
    return _knn_padded(Q, np.full(np.shape(Q)[0], -1), X, int(n_neighbors), devices)


def gaussian_weights(sq_dist, sigma):
    """Similarity ``exp(-d^2 / (2 sigma^2))`` of 2-HNC §5.3."""
    sq_dist = jnp.asarray(sq_dist)
    return jnp.exp(-sq_dist / (2.0 * jnp.asarray(sigma, sq_dist.dtype) ** 2))


class NeighborGraph(NamedTuple):
    """Undirected graph in padded neighbour-list form (each edge stored as two arcs).

    nbr[v, k]: the k-th neighbour of v (v itself in unused slots); weight[v, k]: the edge weight (0 in unused
    slots); rev[v, k]: the slot of the reverse arc in row ``nbr[v, k]``; degree[v]: number of used slots;
    edges_i, edges_j, edges_w: the deduplicated undirected edge list (i < j).
    """

    nbr: np.ndarray
    weight: np.ndarray
    rev: np.ndarray
    degree: np.ndarray
    edges_i: np.ndarray
    edges_j: np.ndarray
    edges_w: np.ndarray

    @property
    def n_nodes(self) -> int:
        return int(self.nbr.shape[0])

    def weighted_degree(self) -> np.ndarray:
        """d_i = sum_j w_ij (2-HNC Lemma 4.1)."""
        return np.asarray(self.weight, dtype=np.float64).sum(axis=1)


def neighbor_lists(i: ArrayLike, j: ArrayLike, w: ArrayLike, n_nodes: int, min_width: int = 1,
                   merge: str = "sum") -> NeighborGraph:
    """Padded neighbour lists of the undirected graph with edges ``(i[e], j[e])`` of weight ``w[e]`` (host code).

    Self-loops are dropped (they never cross a cut). Parallel edges between the same pair are merged by ``merge``
    ("sum": capacities add, the max-flow convention; "max": keep one copy, for symmetric kNN lists that list an edge
    from both ends). Row width K = max degree (at least ``min_width``).
    """
    i = np.asarray(i).reshape(-1).astype(np.int64)
    j = np.asarray(j).reshape(-1).astype(np.int64)
    w = np.asarray(w, dtype=np.float64).reshape(-1)
    if not (i.shape == j.shape == w.shape):
        raise ValueError(f"i, j and w must have the same length; got {i.shape[0]}, {j.shape[0]}, {w.shape[0]}.")
    if i.size and (i.min() < 0 or j.min() < 0 or i.max() >= n_nodes or j.max() >= n_nodes):
        raise ValueError(f"edge endpoints must be node indices in [0, {n_nodes - 1}].")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("edge weights w must be finite and non-negative.")
    keep = i != j
    a, b, w = np.minimum(i, j)[keep], np.maximum(i, j)[keep], w[keep]
    key = a * n_nodes + b
    order = np.argsort(key, kind="stable")
    key, w = key[order], w[order]
    uniq, start = np.unique(key, return_index=True)
    if merge == "sum":
        wu = np.add.reduceat(w, start) if w.size else w
    elif merge == "max":
        wu = np.maximum.reduceat(w, start) if w.size else w
    else:
        raise ValueError(f"merge={merge!r} must be 'sum' or 'max'.")
    ea, eb = uniq // n_nodes, uniq % n_nodes
    # arcs in both directions, grouped by tail
    tail = np.concatenate([ea, eb])
    head = np.concatenate([eb, ea])
    aw = np.concatenate([wu, wu])
    m = ea.size
    partner = np.concatenate([np.arange(m, 2 * m), np.arange(0, m)])  # arc index of the reverse arc
    order = np.lexsort((head, tail))
    inv = np.empty_like(order)
    inv[order] = np.arange(order.size)
    tail_s, head_s, w_s = tail[order], head[order], aw[order]
    deg = np.bincount(tail_s, minlength=n_nodes)
    first = np.concatenate([[0], np.cumsum(deg)[:-1]])
    slot = np.arange(tail_s.size) - first[tail_s]
    K = int(max(min_width, deg.max() if deg.size else 0, 1))
    nbr = np.tile(np.arange(n_nodes, dtype=np.int32)[:, None], (1, K))
    weight = np.zeros((n_nodes, K), dtype=np.float64)
    rev = np.tile(np.arange(K, dtype=np.int32)[None, :], (n_nodes, 1))
    nbr[tail_s, slot] = head_s
    weight[tail_s, slot] = w_s
    rev_slot_sorted = slot[inv[partner[order]]]
    rev[tail_s, slot] = rev_slot_sorted
    return NeighborGraph(nbr, weight, rev, deg.astype(np.int32), ea.astype(np.int32), eb.astype(np.int32), wu)


def knn_graph(X: ArrayLike, n_neighbors: int, sigma: float, feature_weights: ArrayLike | None = None,
              tile_size: int | None = None) -> NeighborGraph:
    """Symmetric kNN graph with Gaussian similarities (2-HNC §4.2.3, §5.3): edge [i, j] iff i in kNN(j) or
    j in kNN(i), weight ``exp(-d_ij^2 / (2 sigma^2))`` with the (feature-weighted) Euclidean distance."""
    if not (np.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma={sigma!r} must be a positive float.")
    idx, d2 = knn_search(X, n_neighbors, feature_weights=feature_weights, tile_size=tile_size)
    idx = np.asarray(idx)
    w = np.exp(-np.asarray(d2, dtype=np.float64) / (2.0 * float(sigma) ** 2))
    n = idx.shape[0]
    rows = np.repeat(np.arange(n), idx.shape[1])
    return neighbor_lists(rows, idx.reshape(-1), w.reshape(-1), n, merge="max")
