"""Synchronous push-relabel minimum cut with integer capacities on an arc list (jit-able, exact).

Network layout (:class:`pujax.graph.network.Arcs`): ``N`` node rows, the last one a dummy node that
never holds flow, and ``A`` arcs sorted by tail -- node v owns the arcs ``start[v]:start[v + 1]``; every undirected
edge is stored as two arcs, ``rev[a]`` is the index of the reverse arc of ``a``; padding arcs join the dummy node to
itself with capacity 0. Source and sink arcs are per-node arrays: the source arcs are saturated at once (their flow is
the node's initial excess) and ``rt[v]`` is the residual capacity of the arc (v, t). Labels run from 1 (next to t)
to ``INF = N`` (cannot reach t).

Only the first phase of push-relabel is needed for a minimum cut (Goldberg & Tarjan 1988): a node is *active* when it
has excess and label ``h < INF``; we push and relabel until no node is active, then a breadth-first search from ``t``
in the residual graph (the *global relabel*, also run every ``rounds_per_relabel`` rounds to keep labels exact) gives
the nodes that can still reach ``t``. Its complement is the **maximal** source set of a minimum cut: every arc
leaving it is saturated and no flow enters it from the sink side, so its capacity equals the flow value into ``t``.

Rounds are synchronous (Jacobi style) and race-free:

* push: every active node pushes, in arc order, along its admissible arcs (residual > 0 and ``h[v] == h[w] + 1``;
  the sink arc first when ``h[v] == 1``) until its excess runs out -- the amounts come from a prefix sum over its
  arcs. The two ends of an arc are never both admissible, so all pushes of a round are applied at once;
* relabel: every node that was active and still has excess after its own pushes has no admissible arc left; it is
  relabelled to ``1 + min`` label over its residual arcs computed *after* the pushes of the round, which keeps the
  labelling valid (``h[v] <= h[w] + 1`` on every residual arc) although the nodes relabel simultaneously.

Work follows the active part of the graph: a round (and a level of the breadth-first search) runs on the list of
active nodes (the frontier, or the unvisited nodes) and their arcs -- "slots" of the smallest of a few static
worklist sizes that holds them (:func:`worklist_tiers`, chosen with ``lax.switch``) -- and on all arcs only when
they do not fit. The breadth-first search is direction-optimising (each level expands the frontier or lets the
unvisited nodes look for it, whichever has fewer arcs). Every
function is pure and jit-able; integer dtypes (int32, or int64 under ``jax_enable_x64``) make the cuts exact.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from pujax._compile import jit
from pujax.graph.network import Arcs, edge_arcs

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["Arcs", "FlowState", "worklist_tiers", "push_relabel_round", "global_relabel", "discharge", "cold_state",
           "min_cut"]

_SLOT_TIERS = tuple(1024 << i for i in range(12))  # arc slots of the worklists; a list holds at most slots / 4 nodes


class FlowState(NamedTuple):
    """Preflow on N node rows: arc residuals ``r[A]``, sink residuals ``rt``, excess ``e``, labels ``h``."""

    r: jax.Array
    rt: jax.Array
    e: jax.Array
    h: jax.Array


def worklist_tiers(n_rows: int, n_arcs: int) -> tuple[tuple[int, int], ...]:
    """Static worklist sizes ``(nodes, arc slots)`` used for a network of ``n_rows`` nodes and ``n_arcs`` arcs: the
    slot counts of ``_SLOT_TIERS`` of at most half the arcs (a list at least twice cheaper than a pass over all
    arcs), each with room for a quarter as many nodes (at most ``n_rows``)."""
    return tuple((min(p // 4, n_rows), p) for p in _SLOT_TIERS if p <= n_arcs // 2)


def _degrees(net: Arcs):
    return net.start[1:] - net.start[:-1]


def _seg_min(x, net: Arcs, inf):
    """Minimum of ``x`` over the arcs of every node (``inf`` for a node without arcs)."""
    m = jax.ops.segment_min(x, net.tail, net.start.shape[0] - 1, indices_are_sorted=True)
    return jnp.minimum(m, inf)


def _list_degrees(net: Arcs, W):
    """Arc counts of the nodes of a list (0 for the dummy node that pads it)."""
    return jnp.where(W < net.start.shape[0] - 2, net.start[W + 1] - net.start[W], 0)


def _slots(net: Arcs, W, P):
    """Arc slots of the node list ``W`` (padded with the dummy node): ``(owner, arc, valid)`` for ``P`` slots --
    slot p holds arc ``start[W[owner]] + p - offset[owner]``; slots past the last arc hold the last (padding) arc."""
    deg = _list_degrees(net, W)
    first = jnp.cumsum(deg) - deg
    # owner of slot p: the last list node whose first slot is <= p (nodes without arcs share the next one's)
    owner = jnp.cumsum(jnp.zeros((P,), jnp.int32).at[first].add(1, mode="drop")) - 1
    p = jnp.arange(P, dtype=jnp.int32)
    valid = p < first[-1] + deg[-1]
    arc = jnp.where(valid, net.start[W[owner]] + p - first[owner], net.tail.shape[0] - 1)
    return owner, arc, valid


def _pushes(a, e1, tail_of, first, count):
    """Pushes of the arcs of a set of nodes, in arc order: ``a`` are the admissible residuals (0 elsewhere), the
    arcs of node v are ``first[v]:first[v] + count[v]`` and ``tail_of`` maps an arc to its node. Returns the
    per-arc pushes ``d`` (prefix sums stop at the node's excess ``e1``) and the total pushed by each node."""
    zero = jnp.zeros((), a.dtype)
    C = jnp.concatenate([jnp.zeros((1,), a.dtype), jnp.cumsum(a)])
    base = C[first]
    d = jnp.clip(e1[tail_of] - (C[:-1] - base[tail_of]), zero, a)
    return d, jnp.minimum(e1, C[first + count] - base)


def push_relabel_round(net: Arcs, state: FlowState) -> FlowState:
    """One synchronous push round then one synchronous relabel round over all arcs."""
    r, rt, e, h = state
    inf = h.shape[0]
    zero = jnp.zeros((), r.dtype)
    active = (e > 0) & (h < inf)
    dt = jnp.where(active & (h == 1), jnp.minimum(e, rt), zero)
    e1 = e - dt
    hw = h[net.head]
    a = jnp.where(active[net.tail] & (r > 0) & (hw == h[net.tail] - 1), r, zero)
    d, pushed = _pushes(a, e1, net.tail, net.start[:-1], _degrees(net))
    r = r - d + d[net.rev]
    e_own = e1 - pushed
    cand = _seg_min(jnp.where(r > 0, hw, inf), net, inf) + 1
    h = jnp.where(active & (e_own > 0), jnp.minimum(jnp.where(rt - dt > 0, 1, cand), inf), h)
    return FlowState(r, rt - dt, e_own + jax.ops.segment_sum(d, net.head, inf), h)


def _worklist_round(net: Arcs, state: FlowState, W, P) -> FlowState:
    """The round restricted to the nodes ``W`` (all active ones, padded with the dummy node) and their arc slots."""
    r, rt, e, h = state
    inf = h.shape[0]
    zero = jnp.zeros((), r.dtype)
    owner, arc, valid = _slots(net, W, P)
    hW, eW, rtW = h[W], e[W], rt[W]
    activeW = (eW > 0) & (hW < inf)
    dt = jnp.where(activeW & (hW == 1), jnp.minimum(eW, rtW), zero)
    e1 = eW - dt
    w = net.head[arc]
    hw = h[w]
    r_arc = jnp.where(valid, r[arc], zero)
    deg = _list_degrees(net, W)
    a = jnp.where(activeW[owner] & (r_arc > 0) & (hw == hW[owner] - 1), r_arc, zero)
    d, pushed = _pushes(a, e1, owner, jnp.cumsum(deg) - deg, deg)
    r = r.at[arc].add(-d).at[net.rev[arc]].add(d)
    e = e.at[W].add(-dt - pushed).at[w].add(d)
    e_own = e1 - pushed
    cand = jax.ops.segment_min(jnp.where(valid & (r[arc] > 0), hw, inf), owner, W.shape[0], indices_are_sorted=True)
    newh = jnp.minimum(jnp.where(rtW - dt > 0, 1, jnp.minimum(cand, inf) + 1), inf)
    return FlowState(r, rt.at[W].add(-dt), e, h.at[W].set(jnp.where(activeW & (e_own > 0), newh, hW)))


def _dispatch(net: Arcs, mask, on_list, on_all, operand):
    """``on_list(operand, W, P)`` for the nodes of ``mask`` when they and their arcs fit a worklist tier (the
    smallest that does), else ``on_all(operand)``."""
    inf = mask.shape[0]
    tiers = worklist_tiers(inf, net.tail.shape[0])
    if not tiers:
        return on_all(operand)
    count = mask.sum()
    arcs = jnp.where(mask, _degrees(net), 0).sum()
    pick = jnp.int32(len(tiers))
    for t in range(len(tiers) - 1, -1, -1):
        M, P = tiers[t]
        pick = jnp.where((count <= M) & (arcs <= P), t, pick)

    def branch(M, P):
        def run(op):
            W = jnp.nonzero(mask, size=M, fill_value=inf - 1)[0].astype(jnp.int32)
            return on_list(op, W, P)
        return run

    return lax.switch(pick, [branch(M, P) for M, P in tiers] + [on_all], operand)


def _round(net: Arcs, state: FlowState, batched: bool = False) -> FlowState:
    """One round on the active nodes (worklist tiers; all arcs when ``batched``: inside ``vmap`` a switch would run
    every branch)."""
    if batched:
        return push_relabel_round(net, state)
    return _dispatch(net, _active(state), lambda s, W, P: _worklist_round(net, s, W, P),
                     lambda s: push_relabel_round(net, s), state)


def global_relabel(net: Arcs, r, rt, h=None, batched: bool = False):
    """Exact distance labels to ``t`` in the residual graph by breadth-first search from ``t``.

    ``h[v] = 1`` when the sink arc of v has residual capacity, ``l + 1`` when v has a residual arc to a node at
    distance l, and ``INF = N`` when v cannot reach t. When the current labels ``h`` are given, nodes with
    ``h == INF`` are kept at INF (valid labels are lower bounds on distances). Each level either expands the
    frontier (the nodes at distance l) along the reverse arcs of residual arcs, or lets every unvisited node look
    for a residual arc into the frontier, whichever touches fewer arcs (direction-optimising search).
    """
    inf = rt.shape[0]
    ok = jnp.ones((inf,), bool) if h is None else (h < inf)
    ok = ok.at[inf - 1].set(False)
    dist = jnp.where((rt > 0) & ok, 1, inf).astype(jnp.int32)

    def reached(nodes, hit, dist):
        marked = jnp.zeros((inf,), bool).at[jnp.where(hit, nodes, inf - 1)].set(True)
        return marked & ok & (dist == inf)

    def on_all(c):
        level, F, dist, pull = c
        hit = jnp.where(pull, (r > 0) & (dist[net.head] == level), F[net.tail] & (r[net.rev] > 0))
        return reached(jnp.where(pull, net.tail, net.head), hit, dist)

    def on_list(c, W, P):
        level, _, dist, pull = c
        owner, arc, valid = _slots(net, W, P)
        w = net.head[arc]
        hit = valid & jnp.where(pull, (r[arc] > 0) & (dist[w] == level), r[net.rev[arc]] > 0)
        return reached(jnp.where(pull, W[owner], w), hit, dist)

    def body(c):
        level, F, dist = c
        unvisited = ok & (dist == inf)
        deg = _degrees(net)
        pull = jnp.where(unvisited, deg, 0).sum() < jnp.where(F, deg, 0).sum()
        op = (level, F, dist, pull)
        new = on_all(op) if batched else _dispatch(net, jnp.where(pull, unvisited, F), on_list, on_all, op)
        return level + 1, new, jnp.where(new, level + 1, dist)

    _, _, dist = lax.while_loop(lambda c: jnp.any(c[1]), body, (jnp.int32(1), dist == 1, dist))
    return dist


def _active(state: FlowState):
    return (state.e > 0) & (state.h < state.h.shape[0])


def _any_active(state: FlowState):
    return jnp.any(_active(state))


def discharge(net: Arcs, state: FlowState, rounds_per_relabel: int = 8, force=True, batched: bool = False
              ) -> FlowState:
    """Push/relabel until no node is active: a global relabel, then blocks of up to ``rounds_per_relabel`` rounds,
    each followed by a global relabel, so that on return ``h`` are exact distances and ``h == INF`` marks the maximal
    minimum-cut source set.

    ``state.h`` must be a valid labelling (all zeros is one: a cold start). ``force`` runs the global relabel even
    when no node is active, e.g. after a sink arc was cut. Nodes with label INF are treated as unable to reach t
    (true for valid labels). ``batched``: all rounds over all arcs (for ``vmap``)."""
    R = int(rounds_per_relabel)

    def rounds(s):
        def cond(c):
            return (c[1] < R) & _any_active(c[0])

        return lax.while_loop(cond, lambda c: (_round(net, c[0], batched), c[1] + 1), (s, jnp.int32(0)))[0]

    def body(c):  # a global relabel, then (while a node is active) a block of rounds
        s, _ = c
        s = s._replace(h=global_relabel(net, s.r, s.rt, s.h, batched))
        active = _any_active(s)
        return lax.cond(active, rounds, lambda s: s, s), active

    # one call site of the global relabel keeps the compiled program small; it ends on a relabel that finds no
    # active node, so the labels are exact on return
    state, _ = lax.while_loop(lambda c: c[1], body, (state, jnp.asarray(force) | _any_active(state)))
    return state


def cold_state(cap, source_cap, sink_cap) -> FlowState:
    """Zero flow on internal arcs, source arcs saturated (their capacity becomes excess) and ``min(c(s, v),
    c(v, t))`` sent straight on to t; labels 0 (valid: ``h[v] <= h[w] + 1`` holds trivially; the first global
    relabel makes them exact)."""
    direct = jnp.minimum(source_cap, sink_cap)
    return FlowState(cap, sink_cap - direct, source_cap - direct, jnp.zeros(source_cap.shape, jnp.int32))


@jit("kernel")
def _min_cut_program(net: Arcs, source_cap, sink_cap):
    s = discharge(net, cold_state(net.cap, source_cap, sink_cap), 8, True)
    inf = s.h.shape[0]
    return s.h >= inf, jnp.sum(sink_cap - s.rt)


def min_cut(i: ArrayLike, j: ArrayLike, w: ArrayLike, source_cap: ArrayLike, sink_cap: ArrayLike
            ) -> tuple[np.ndarray, int]:
    """Maximal minimum-cut source set and flow value of one network with integer capacities.

    ``i, j, w``: undirected edges ``(i[e], j[e])`` with integer capacities ``w[e] >= 0`` (parallel edges add up,
    self-loops are dropped); ``source_cap, sink_cap``: integer capacities of the arcs (s, v) and (v, t), length n.
    Returns ``(source_side bool[n], flow_value)``; the flow value is the minimum cut capacity. Capacities must sum to
    less than 2^31 (int32 arithmetic) unless ``jax_enable_x64`` is on.
    """

    cs = np.asarray(source_cap).reshape(-1)
    n = cs.size
    dtype = np.int64 if jax.config.jax_enable_x64 else np.int32
    net, n_rows = edge_arcs(i, j, np.asarray(w, np.float64), n, scale=1.0, dtype=dtype)
    pad = np.zeros(n_rows - n, dtype)
    side, value = _min_cut_program(net, np.concatenate([cs.astype(dtype), pad]),
                                   np.concatenate([np.asarray(sink_cap).reshape(-1).astype(dtype), pad]))
    return np.asarray(side)[:n], int(value)
