"""Synchronous push-relabel minimum cut in JAX on a padded neighbour list (integer capacities).

Network: nodes ``0..n-1`` plus a source ``s`` and a sink ``t``. Internal arcs are stored per node in a padded
neighbour list with ``n + 1`` rows (row ``n`` is an inert dummy node used as fill value): ``nbr[v, k]`` is the head
of the k-th arc out of v, ``r[v, k]`` its residual capacity and ``rev_flat[v, k] = nbr[v, k] * K + rev[v, k]`` the
flat index of the reverse arc (unused slots point to themselves and have capacity 0). Source and sink arcs are
per-node arrays: the source arcs are saturated at once (their flow is the node's initial excess) and ``rt[v]`` is the
residual capacity of the arc (v, t). Labels run from 1 (next to t) to ``INF = n + 1`` (cannot reach t).

Only the first phase of push-relabel is needed for a minimum cut (Goldberg & Tarjan 1988): a node is *active* when
it has excess and label ``h < INF``; we push and relabel until no node is active, then a breadth-first search from
``t`` in the residual graph (the *global relabel*, also run every ``rounds_per_relabel`` rounds to keep labels exact)
gives the nodes that can still reach ``t``. Its complement is the **maximal** source set of a minimum cut: every arc
leaving it is saturated and no flow enters it from the sink side, so its capacity equals the flow value into ``t``.

Rounds are synchronous (Jacobi style) and race-free:

* push: every active node pushes, in slot order, along its admissible arcs (residual > 0 and ``h[v] == h[w] + 1``;
  the sink arc first when ``h[v] == 1``) until its excess runs out -- the amounts come from a prefix sum over its K
  slots. The two ends of an arc are never both admissible, so all pushes of a round are applied at once;
* relabel: every node that was active and still has excess after its own pushes has no admissible arc left; it is
  relabelled to ``1 + min`` label over its residual arcs computed *after* the pushes of the round, which keeps the
  labelling valid (``h[v] <= h[w] + 1`` on every residual arc) although the nodes relabel simultaneously.

Work is proportional to the active part of the graph: when few nodes are active, a round gathers just their rows
(worklists of a few fixed sizes, chosen with ``lax.switch``), and the global relabel only revisits nodes whose
sink arc is saturated (every other node with label < INF is at distance 1; a node with label INF never reaches t
again while capacities only move in the warm-start direction, because labels are lower bounds on distances).
All functions are pure and jit-able; integer dtypes (int32, or int64 under ``jax_enable_x64``) make cuts exact.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from pujax._compile import jit

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = [
    "FlowState",
    "pad_graph",
    "global_relabel",
    "push_relabel_round",
    "discharge",
    "cold_state",
    "min_cut",
]

_BFS_BUCKETS = (128, 512, 2048, 8192)
_SMALL_GRAPH = 2048  # up to this many rows: dense rounds and dense BFS only (smaller program, faster compile)
# up to this many rows: dense BFS and the two largest worklist sizes that fit (on an 8,192-row kNN graph the program
# compiles in 1.5 s instead of 2.3 s and solves as fast; benchmarks/results/latency.md)
_MEDIUM_GRAPH = 8192


class FlowState(NamedTuple):
    """Preflow state on ``n + 1`` rows: residuals ``r[n+1, K]``, sink residuals ``rt``, excess ``e``, labels ``h``."""

    r: jax.Array
    rt: jax.Array
    e: jax.Array
    h: jax.Array


def pad_graph(nbr, rev, cap):
    """Append the dummy row ``n`` to a neighbour list; return ``(nbr, rev_flat, cap)`` as used by this module."""
    nbr = np.asarray(nbr)
    n, K = nbr.shape
    nbr_p = np.concatenate([nbr, np.full((1, K), n, nbr.dtype)]).astype(np.int32)
    rev_p = np.concatenate([np.asarray(rev), np.arange(K)[None, :]]).astype(np.int64)
    rev_flat = (nbr_p.astype(np.int64) * K + rev_p).astype(np.int32)
    cap = np.asarray(cap)
    cap_p = np.concatenate([cap, np.zeros((1, K), cap.dtype)])
    return nbr_p, rev_flat, cap_p


def _prefix_before(a):
    """Exclusive prefix sums along axis 1 by log2(K) shifted additions (XLA's cumsum is quadratic on CPU)."""
    K = a.shape[1]
    inc, shift = a, 1
    while shift < K:
        inc = inc + jnp.pad(inc, ((0, 0), (shift, 0)))[:, :K]
        shift *= 2
    return inc - a


def _push_amounts(r_rows, hn, h_rows, e_rows, rt_rows, active):
    """Pushes of a set of rows: sink push ``dt`` and per-slot pushes ``d`` (see module docstring)."""
    zero = jnp.zeros((), r_rows.dtype)
    dt = jnp.where(active & (h_rows == 1), jnp.minimum(e_rows, rt_rows), zero)
    e1 = e_rows - dt
    adm = active[:, None] & (r_rows > 0) & (hn == (h_rows - 1)[:, None])
    a = jnp.where(adm, r_rows, zero)
    d = jnp.clip(e1[:, None] - _prefix_before(a), zero, a)
    return dt, d, e1 - d.sum(axis=1)


def _relabel_value(r_rows, hn, rt_rows, inf):
    cand = jnp.where(r_rows > 0, hn, inf).min(axis=1) + 1
    return jnp.minimum(jnp.where(rt_rows > 0, 1, cand), inf)


def push_relabel_round(nbr, rev_flat, state: FlowState) -> FlowState:
    """One synchronous push round then one synchronous relabel round over all nodes (dense form)."""
    r, rt, e, h = state
    inf = nbr.shape[0]
    hn = h[nbr]
    active = (e > 0) & (h < inf)
    dt, d, e_own = _push_amounts(r, hn, h, e, rt, active)
    inc = d.reshape(-1)[rev_flat]
    r = r - d + inc
    rt = rt - dt
    h = jnp.where(active & (e_own > 0), _relabel_value(r, hn, rt, inf), h)
    return FlowState(r, rt, e_own + inc.sum(axis=1), h)


def _round_rows(nbr, rev_flat, state: FlowState, W) -> FlowState:
    """The same round restricted to the rows ``W`` (the active nodes, padded with the dummy row)."""
    r, rt, e, h = state
    inf, K = nbr.shape
    hW, eW, rtW = h[W], e[W], rt[W]
    active = (eW > 0) & (hW < inf)
    nb = nbr[W]
    hn = h[nb]
    dt, d, e_own = _push_amounts(r[W], hn, hW, eW, rtW, active)
    r = r.at[W].add(-d)
    r = r.reshape(-1).at[rev_flat[W].reshape(-1)].add(d.reshape(-1)).reshape(inf, K)
    rt = rt.at[W].add(-dt)
    e = e.at[W].add(e_own - eW).at[nb.reshape(-1)].add(d.reshape(-1))
    hnew = jnp.where(active & (e_own > 0), _relabel_value(r[W], hn, rtW - dt, inf), hW)
    return FlowState(r, rt, e, h.at[W].set(hnew))


def _active_mask(state: FlowState):
    inf = state.h.shape[0]
    return (state.e > 0) & (state.h < inf)


def _hash_slots(v, T):
    """Multiplicative hash of node ids into ``[0, T)`` (T a power of two)."""
    x = v.astype(jnp.uint32) * jnp.uint32(2654435761)
    return (x >> jnp.uint32(32 - int(np.log2(T)))).astype(jnp.int32)


def _next_worklist(state: FlowState, cand, M, T):
    """Active nodes among ``cand`` (duplicates allowed), deduplicated through a hash table of size T and compacted
    to at most M rows. Nodes lost to collisions or overflow stay active and are found by the next full scan."""
    inf = state.h.shape[0]
    act = (state.e[cand] > 0) & (state.h[cand] < inf) & (cand < inf - 1)
    table = jnp.full((T,), inf - 1, jnp.int32).at[jnp.where(act, _hash_slots(cand, T), T)].set(cand, mode="drop")
    valid = table < inf - 1
    W = table[jnp.nonzero(valid, size=M, fill_value=0)[0]]
    count = jnp.minimum(valid.sum(), M)
    return jnp.where(jnp.arange(M) < count, W, inf - 1), count


def _sparse_rounds(nbr, rev_flat, state: FlowState, it, R, W, cw, M, T, lower):
    """Rounds on worklists of at most M active rows (``W`` padded with the dummy row, ``cw`` valid entries), each
    grown from the receivers of the previous round's pushes; runs while ``lower < cw <= M``."""

    def cond(c):
        _, it, _, cw = c
        return (it < R) & (cw > lower) & (cw <= M)

    def body(c):
        s, it, W, _ = c
        s2 = _round_rows(nbr, rev_flat, s, W)
        cand = jnp.concatenate([W, nbr[W].reshape(-1)])
        W2, cw2 = _next_worklist(s2, cand, M, T)
        return s2, it + 1, W2, cw2

    return lax.while_loop(cond, body, (state, it, W[:M], cw))


def _dense_rounds(nbr, rev_flat, state: FlowState, it, R, lower):
    def cond(c):
        s, it = c
        return (it < R) & (_active_mask(s).sum() > lower)

    def body(c):
        s, it = c
        return push_relabel_round(nbr, rev_flat, s), it + 1

    return lax.while_loop(cond, body, (state, it))


_ROUND_MODES = ((64, 512), (256, 2048), (1024, 8192))  # (worklist rows, hash-table size)


def _run_rounds(nbr, rev_flat, state: FlowState, R):
    """Up to R push/relabel rounds: dense while many nodes are active, then worklists of 1024, 256 and 64 rows (those
    of at most an eighth of the rows; the two largest of them up to ``_MEDIUM_GRAPH`` rows)."""
    inf = nbr.shape[0]
    modes = [m for m in _ROUND_MODES if m[0] <= inf // 8] if inf > _SMALL_GRAPH else []
    if inf <= _MEDIUM_GRAPH:
        modes = modes[-2:]
    top = modes[-1][0] if modes else 0
    if not modes:  # small graph: dense rounds only (one loop)
        return _dense_rounds(nbr, rev_flat, state, jnp.int32(0), R, 0)[0]

    def cond(c):
        s, it = c
        return (it < R) & _any_active(s)

    def body(c):
        s, it = c
        s, it = _dense_rounds(nbr, rev_flat, s, it, R, top)
        if not modes:
            return s, it
        mask = _active_mask(s)
        cw = mask.sum()
        W = jnp.nonzero(mask, size=top, fill_value=inf - 1)[0].astype(jnp.int32)
        sizes = [0] + [m[0] for m in modes]
        for k in range(len(modes) - 1, -1, -1):
            M, T = modes[k]
            s, it, W, cw = _sparse_rounds(nbr, rev_flat, s, it, R, W, cw, M, T, sizes[k])
        return s, it

    s, _ = lax.while_loop(cond, body, (state, jnp.int32(0)))
    return s


def global_relabel(nbr, r, rt, h=None):
    """Exact distance labels to ``t`` in the residual graph by breadth-first search (dense frontier expansion).

    ``h[v] = 1`` when the sink arc of v has residual capacity, ``l + 1`` when v has a residual arc to a node at
    distance l, and ``INF = n + 1`` when v cannot reach t. When the current labels ``h`` are given, nodes with
    ``h == INF`` are kept at INF (valid labels are lower bounds on distances).
    """
    inf = nbr.shape[0]
    ok = jnp.ones((inf,), bool) if h is None else (h < inf)
    dist = jnp.where((rt > 0) & ok, 1, inf).astype(jnp.int32)
    has = (r > 0) & ok[:, None]

    def cond(c):
        return c[2]

    def body(c):
        level, dist, _ = c
        reach = jnp.any(has & (dist[nbr] == level), axis=1) & (dist == inf)
        return level + 1, jnp.where(reach, level + 1, dist), jnp.any(reach)

    _, dist, _ = lax.while_loop(cond, body, (jnp.int32(1), dist, jnp.any(dist == 1)))
    return dist


def _adaptive_relabel(nbr, state: FlowState) -> FlowState:
    """Global relabel revisiting only the nodes whose sink arc is saturated (``Z``); every other node with a label
    below INF is at distance 1. ``Z`` is listed once and relaxed Bellman-Ford style on its rows (a worklist of the
    smallest size in ``_BFS_BUCKETS`` that holds it); when it is larger, or the graph has at most ``_MEDIUM_GRAPH``
    rows, a dense breadth-first search is used."""
    inf = nbr.shape[0]
    r, rt, h = state.r, state.rt, state.h
    zmask = (rt <= 0) & (h < inf)
    zmask = zmask.at[inf - 1].set(False)
    count = zmask.sum()
    buckets = tuple(b for b in _BFS_BUCKETS if b <= inf // 4) if inf > _MEDIUM_GRAPH else ()
    dist = jnp.where((rt > 0) & (h < inf), 1, inf).astype(jnp.int32)
    if buckets:
        Zall = jnp.nonzero(zmask, size=buckets[-1], fill_value=inf - 1)[0].astype(jnp.int32)
    lo = 0
    for b in buckets:
        selected = (count > lo) & (count <= b)

        def cond(c):
            return c[1]

        def body(c, b=b):
            dist, _ = c
            Z = Zall[:b]
            dZ = dist[Z]
            nd = jnp.where(r[Z] > 0, dist[nbr[Z]], inf).min(axis=1) + 1
            new = jnp.minimum(nd, inf)
            return dist.at[Z].set(jnp.minimum(dZ, new)), jnp.any(new < dZ)

        dist, _ = lax.while_loop(cond, body, (dist, selected))
        lo = b

    def dcond(c):
        return c[2]

    def dbody(c):
        level, dist, _ = c
        has = (r > 0) & (h < inf)[:, None]
        reach = jnp.any(has & (dist[nbr] == level), axis=1) & (dist == inf)
        return level + 1, jnp.where(reach, level + 1, dist), jnp.any(reach)

    _, dist, _ = lax.while_loop(dcond, dbody, (jnp.int32(1), dist, count > lo))
    return state._replace(h=dist)


def _any_active(state: FlowState):
    inf = state.h.shape[0]
    return jnp.any((state.e > 0) & (state.h < inf))


def discharge(nbr, rev_flat, state: FlowState, rounds_per_relabel: int = 8, force=True) -> FlowState:
    """Push/relabel until no node is active: a global relabel, then blocks of up to ``rounds_per_relabel`` rounds,
    each followed by a global relabel, so that on return ``h`` are exact distances and ``h == INF`` marks the maximal
    minimum-cut source set.

    ``state.h`` must be a valid labelling (all zeros is one: a cold start). ``force`` runs the global relabel even
    when no node is active, e.g. after a sink arc was cut. Nodes with label INF are treated as
    unable to reach t (true for valid labels)."""
    R = int(rounds_per_relabel)

    def body(c):  # a global relabel, then (while a node is active) a block of rounds
        s, _ = c
        s = _adaptive_relabel(nbr, s)
        active = _any_active(s)
        s = lax.cond(active, lambda s: _run_rounds(nbr, rev_flat, s, R), lambda s: s, s)
        return s, active

    # one call site of the global relabel keeps the compiled program small; it ends on a relabel that finds no
    # active node, so the labels are exact on return
    state, _ = lax.while_loop(lambda c: c[1], body, (state, jnp.asarray(force) | _any_active(state)))
    return state


def cold_state(cap, source_cap, sink_cap) -> FlowState:
    """Zero flow on internal and sink arcs, source arcs saturated (their capacity becomes excess); labels 0 (valid:
    ``h[v] <= h[w] + 1`` holds trivially; the first global relabel makes them exact)."""
    rows = cap.shape[0]
    return FlowState(cap, sink_cap, source_cap, jnp.zeros((rows,), jnp.int32))


def min_cut(nbr: ArrayLike, rev: ArrayLike, cap: ArrayLike, source_cap: ArrayLike, sink_cap: ArrayLike,
            rounds_per_relabel: int = 8) -> tuple[jax.Array, jax.Array]:
    """Maximal minimum-cut source set and flow value of one network with integer capacities (jit-able).

    ``nbr, rev, cap``: padded neighbour list ``[n, K]`` (as built by :func:`pujax.graph.knn.neighbor_lists`, with
    integer ``cap``); ``source_cap, sink_cap``: integer arrays ``[n]``. Returns ``(source_side bool[n],
    flow_value)``; the flow value is the minimum cut capacity.
    """
    nbr_p, rev_flat, cap_p = pad_graph(nbr, rev, cap)
    n = nbr_p.shape[0] - 1
    zero = jnp.zeros((1,), jnp.asarray(source_cap).dtype)
    cs = jnp.concatenate([jnp.asarray(source_cap), zero])
    ct = jnp.concatenate([jnp.asarray(sink_cap), zero])
    s = _discharge_jit(jnp.asarray(nbr_p), jnp.asarray(rev_flat), cold_state(jnp.asarray(cap_p), cs, ct),
                       int(rounds_per_relabel), True)
    return s.h[:n] >= n + 1, jnp.sum(ct - s.rt)


_discharge_jit = jit("kernel", discharge, static_argnums=(3,))
