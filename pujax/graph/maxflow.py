"""Synchronous push-relabel minimum cut in JAX on a padded neighbour list (integer capacities).

Network: nodes ``0..n-1`` plus a source ``s`` and a sink ``t``. Internal arcs are stored per node in a padded
neighbour list: ``nbr[v, k]`` is the head of the k-th arc out of v, ``r[v, k]`` its residual capacity and
``rev_flat[v, k] = nbr[v, k] * K + rev[v, k]`` the flat index of the reverse arc (unused slots point to themselves
and have capacity 0). Source and sink arcs are per-node arrays: the source arcs are saturated at once (their flow is
the node's initial excess) and ``rt[v]`` is the residual capacity of the arc (v, t).

Only the first phase of push-relabel is needed for a minimum cut (Goldberg & Tarjan 1988): a node is *active* when
it has excess and label ``h < n``; we push and relabel until no node is active, then a breadth-first search from
``t`` in the residual graph (the *global relabel*, also used periodically to keep labels exact) gives the set of
nodes that can still reach ``t``. Its complement is the **maximal** source set of a minimum cut: every arc leaving
it is saturated, no flow enters it from the sink side, so its capacity equals the flow value into ``t``.

Rounds are synchronous (Jacobi style) and race-free:

* push: every active node pushes, in slot order, along its admissible arcs (residual > 0 and
  ``h[v] == h[w] + 1``; the sink arc first when ``h[v] == 1``) until its excess runs out -- the amounts come from a
  cumulative sum over its K slots. Two ends of one arc can never both be admissible, so the flows of all nodes are
  applied at once; the reverse arcs gain residual by a gather through ``rev_flat`` (no scatter needed);
* relabel: every node that was active and still has excess after its own pushes has no admissible arc left; it is
  relabelled to ``1 + min`` label over its residual arcs computed *after* the pushes of the round, which keeps the
  labelling valid (``h[v] <= h[w] + 1`` on every residual arc) although all nodes relabel simultaneously.

All functions are pure and jit-able; integer dtypes (int32, or int64 under ``jax_enable_x64``) make cuts exact.
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax import lax

__all__ = ["FlowState", "global_relabel", "push_relabel_round", "discharge", "min_cut", "cold_state"]


class FlowState(NamedTuple):
    """Preflow state: internal residuals ``r[n, K]``, sink-arc residuals ``rt[n]``, excess ``e[n]``, labels ``h[n]``."""

    r: jax.Array
    rt: jax.Array
    e: jax.Array
    h: jax.Array


def global_relabel(nbr, r, rt, max_levels=None):
    """Exact distance labels to ``t`` in the residual graph by breadth-first search (frontier expansion).

    ``h[v] = 1`` when the sink arc of v has residual capacity, ``h[v] = l + 1`` when v has a residual arc to a node
    at distance l, and ``h[v] = n`` when v cannot reach t (v is on the source side of the maximal minimum cut).
    """
    n = nbr.shape[0]
    inf = jnp.asarray(n, jnp.int32)
    dist = jnp.where(rt > 0, 1, inf).astype(jnp.int32)
    has = r > 0
    limit = n if max_levels is None else max_levels

    def cond(c):
        level, _, changed = c
        return changed & (level < limit)

    def body(c):
        level, dist, _ = c
        dn = dist[nbr]
        reach = jnp.any(has & (dn == level), axis=1) & (dist == inf)
        return level + 1, jnp.where(reach, level + 1, dist), jnp.any(reach)

    _, dist, _ = lax.while_loop(cond, body, (jnp.int32(1), dist, jnp.any(dist == 1)))
    return dist


def push_relabel_round(nbr, rev_flat, state: FlowState) -> FlowState:
    """One synchronous push round followed by one synchronous relabel round (see the module docstring)."""
    r, rt, e, h = state
    n, K = nbr.shape
    zero = jnp.zeros((), r.dtype)
    hn = h[nbr]
    active = (e > 0) & (h < n)
    # sink arc first
    dt = jnp.where(active & (h == 1), jnp.minimum(e, rt), zero)
    e1 = e - dt
    adm = active[:, None] & (r > 0) & (hn == (h - 1)[:, None])
    a = jnp.where(adm, r, zero)
    before = jnp.cumsum(a, axis=1) - a
    d = jnp.clip(e1[:, None] - before, zero, a)
    inc = d.reshape(-1)[rev_flat]
    r = r - d + inc
    e2 = e1 - d.sum(axis=1)
    rt = rt - dt
    # relabel nodes that were active and still hold excess after their own pushes
    relabel = active & (e2 > 0)
    cand = jnp.where(r > 0, hn, n).min(axis=1) + 1
    cand = jnp.where(rt > 0, 1, cand)
    h = jnp.where(relabel, jnp.minimum(cand, n), h)
    e = e2 + inc.sum(axis=1)
    return FlowState(r, rt, e, h)


def _any_active(state: FlowState):
    n = state.h.shape[0]
    return jnp.any((state.e > 0) & (state.h < n))


def discharge(nbr, rev_flat, state: FlowState, rounds_per_relabel: int = 16, initial_relabel=True) -> FlowState:
    """Push/relabel until no node is active, with a global relabel every ``rounds_per_relabel`` rounds and at the
    end (so on return ``h`` are exact distances and ``h == n`` marks the maximal minimum-cut source set)."""
    R = int(rounds_per_relabel)

    def relabel(s):
        return s._replace(h=global_relabel(nbr, s.r, s.rt))

    if initial_relabel is True:
        state = relabel(state)
    elif initial_relabel is not False:
        state = lax.cond(initial_relabel, relabel, lambda s: s, state)

    def inner_cond(c):
        it, s = c
        return (it < R) & _any_active(s)

    def inner_body(c):
        it, s = c
        return it + 1, push_relabel_round(nbr, rev_flat, s)

    def outer_body(s):
        _, s = lax.while_loop(inner_cond, inner_body, (jnp.int32(0), s))
        return relabel(s)

    return lax.while_loop(_any_active, outer_body, state)


def cold_state(cap, source_cap, sink_cap) -> FlowState:
    """Zero flow on internal and sink arcs, source arcs saturated (their capacity becomes excess)."""
    n = cap.shape[0]
    return FlowState(cap, sink_cap, source_cap, jnp.zeros((n,), jnp.int32))


def min_cut(nbr, rev, cap, source_cap, sink_cap, rounds_per_relabel: int = 16):
    """Maximal minimum-cut source set and flow value of one network (integer capacities).

    Returns ``(source_side bool[n], flow_value)``; ``flow_value`` (the minimum cut capacity) is the total flow into
    the sink, computed as the sum of ``sink_cap - rt``.
    """
    n, K = nbr.shape
    rev_flat = (nbr * K + rev).astype(jnp.int32)
    s = discharge(nbr, rev_flat, cold_state(cap, source_cap, sink_cap), rounds_per_relabel)
    return s.h >= n, jnp.sum(sink_cap - s.rt)
