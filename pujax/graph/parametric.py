"""Parametric minimum cut over a list of lambda values (simple parametric cut, Gallo-Grigoriadis-Tarjan 1989).

Network (2-HNC §3.3, §4.2): undirected edges ``(i[e], j[e])`` of weight ``w[e]`` between nodes ``0..n-1``,
source arcs ``c(s, v) = a_s[v] + lambda * b_s[v]`` and sink arcs ``c(v, t) = a_t[v] + lambda * b_t[v]``. When the
source capacities are non-decreasing and the sink capacities non-increasing in lambda (or the reverse) this is a
*parametric flow graph* and the minimum-cut source sets are nested (Lemma 3.1). We compute, for every lambda, the
**maximal** minimum-cut source set with the synchronous push-relabel of :mod:`pujax.graph.maxflow`.

Exactness: capacities are converted to integers ``floor(c * scale)`` (fixed point). ``scale`` is the largest power
of two (at most 2^24) for which no quantity of the algorithm can exceed the integer range: every excess, residual,
prefix sum of residuals and flow value is bounded by ``M = sum of all source and sink capacities at the extreme
lambdas + 2 * sum of all edge weights``, so ``scale`` is chosen with ``(M + n_arcs + 1) * scale < 2^31``. When
that gives a scale below 2^10 (the prototype showed 2^10 reproduces float64 partitions, 2^6 does not) the computation
switches to int64 -- which needs ``jax_enable_x64``; otherwise a ``ValueError`` says how to fix it. The integer
capacity of an affine arc is ``floor(A + lambda * B)`` with ``A = a * scale``, ``B = b * scale`` evaluated in floating
point (float32, float64 under int64): it is monotone in lambda, so nestedness is kept exactly.

Default method, ``"bisect"``: parallel bisection over the lambda indices (the divide-and-conquer use of nestedness
-- nodes already decided are contracted into the terminals -- run level by level, so that one solve serves all
subproblems of a level). Order the lambdas so that the source sets shrink
along the list (ascending when sink capacities rise, descending when source capacities rise) and let ``t(v)`` be the
number of lambdas at which v is on the source side (nestedness: ``v in S_q  <=>  t(v) > q``). Every node keeps an
interval ``[lo, hi]`` that contains ``t(v)``; at one *level* every undecided node is tested at the middle index
``m = (lo + hi) // 2`` of its interval. Nodes of different intervals are decided with respect to each other
(an interval lies wholly above or below another), so an edge to such a node becomes a source arc (the neighbour is
on the source side at lambda_m) or a sink arc (it is on the sink side): the network of one level is a disjoint
union of contracted subproblems, each one the restriction of the lambda_m network with known nodes contracted into
the terminals, and one push-relabel solve answers all of them (the maximal minimum-cut source set of a contracted
problem is the restriction of the maximal one, because that one contains every node known to be on the source side
and none known to be on the sink side). ``ceil(log2(L + 1))`` levels decide every node. Warm start between levels:
a node whose answer was "sink side" moves to a lower index, where source capacities are higher and sink capacities
lower; its preflow is kept (an edge to the other half carried exactly its capacity from the source half -- it
crossed the cut -- and becomes a saturated source arc). Nodes that move up restart cold (source arcs saturated,
``min(c(s,v), c(v,t))`` sent straight to t). Each level starts with an exact global relabel.
The cut values are then the capacities of the nested cuts, summed exactly in integers.

Method ``"sweep"`` (warm start, Gallo et al. 1989): lambdas are processed in the direction in which source capacities
rise and sink capacities fall. Moving to the next lambda, the increase of a source arc is added to the node's
excess, and a sink arc whose new capacity is below its flow gives the difference back as excess; residual arcs are
only removed, so the distance labels stay valid and the previous preflow is reused. When nothing active changed,
the previous cut is kept without any work. The lambda list is split into ``n_lanes`` contiguous chunks solved in
parallel by ``vmap`` (each chunk cold-starts once and is warm-started within).
"""
from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax, shard_map
from jax.sharding import PartitionSpec

from pujax._compile import jit
from pujax.devices import AXIS, device_mesh, padded_size, resolve_devices
from pujax.graph.maxflow import FlowState, cold_state, discharge
from pujax.graph.network import MAX_SCALE, MIN_SCALE, Arcs, edge_arcs, merge_edges, round_up_size

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from pujax._typing import DevicesLike

__all__ = ["parametric_min_cut", "ParametricCut", "choose_scale", "integer_capacities", "bisect_lanes",
           "sweep_counts", "lane_layout"]


class ParametricCut(NamedTuple):
    """Result of :func:`parametric_min_cut`.

    source_sets: bool [len(lambdas), n], True = node on the source side of the maximal minimum cut at lambda_q.
    first_change: int [n], the first index q >= 1 with ``source_sets[q, v] != source_sets[0, v]`` (len(lambdas) if
    the node never changes side).
    cut_values: integer [len(lambdas)], the minimum-cut capacity in fixed-point units (divide by ``scale``).
    scale: the fixed-point scale used.
    """

    source_sets: np.ndarray
    first_change: np.ndarray
    cut_values: np.ndarray
    scale: float


def _as_pair(cap, n, name):
    if isinstance(cap, (tuple, list)) and len(cap) == 2:
        a, b = cap
    else:
        a, b = cap, np.zeros(n)
    a = np.asarray(a, dtype=np.float64).reshape(-1)
    b = np.asarray(b, dtype=np.float64).reshape(-1)
    if a.shape != (n,) or b.shape != (n,):
        raise ValueError(f"{name} must be a pair (a, b) of arrays of length n={n}; got shapes {a.shape}, {b.shape}.")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError(f"{name} contains NaN or infinite values.")
    return a, b


def choose_scale(total: float, n_terms: int, int_bits: int = 31) -> float:
    """Largest power of two ``<= 2^24`` with ``(total + n_terms + 1) * scale < 2^int_bits`` (0 if none)."""
    limit = float(2**int_bits - 1)
    if total <= 0:
        return float(MAX_SCALE)
    e = int(np.floor(np.log2(limit / (total + 1.0))))
    scale = 2.0 ** min(e, 24)
    while scale >= 1 and (total * scale + n_terms + 1) >= limit:
        scale /= 2
    return scale if scale >= 1 else 0.0


def integer_capacities(A, B, lam, int_dtype):
    """Fixed-point capacity ``max(floor(A + lam * B), 0)`` of affine arcs (jit-able; also used by the tests)."""
    v = jnp.floor(A + lam * B)
    return jnp.maximum(v, 0).astype(int_dtype)


def _segsum(x, net: Arcs):
    return jax.ops.segment_sum(x, net.tail, net.start.shape[0] - 1, indices_are_sorted=True)


def _sweep_lane(net: Arcs, As, Bs, At, Bt, lams, cold_every, R, batched):
    """Solve one lane: lambdas in warm-start order, cold start at the first one (or at every one)."""
    inf = As.shape[0]  # N rows: the last one is the inert dummy node
    int_dtype = net.cap.dtype

    def step(carry, x):
        state, cs_old, ct_old = carry
        lam, first = x
        cs = integer_capacities(As, Bs, lam, int_dtype)
        ct = integer_capacities(At, Bt, lam, int_dtype)
        cold = first | cold_every
        # warm update: source increase -> excess; sink decrease below the flow -> excess back
        ft = ct_old - state.rt
        ft_new = jnp.minimum(ft, ct)
        e_warm = state.e + (cs - cs_old) + (ft - ft_new)
        rt_warm = ct - ft_new
        cut_arc = jnp.any((rt_warm == 0) & (state.rt > 0))
        warm = FlowState(state.r, rt_warm, e_warm, state.h)
        s0 = jax.tree.map(lambda a, b: jnp.where(cold, a, b), cold_state(net.cap, cs, ct), warm)
        # labels stay valid under the warm update; a block of rounds + global relabel runs when a node became
        # active, and is forced on a cold start or when a sink arc was cut (reachability of t may have changed)
        s1 = discharge(net, s0, R, force=cold | cut_arc, batched=batched)
        return (s1, cs, ct), (s1.h >= inf, jnp.sum(ct - s1.rt))

    zeros_i = jnp.zeros((inf,), int_dtype)
    init = (FlowState(net.cap, zeros_i, zeros_i, jnp.full((inf,), inf, jnp.int32)), zeros_i, zeros_i)
    firsts = jnp.arange(lams.shape[0]) == 0
    _, (sides, values) = lax.scan(step, init, (lams, firsts))
    return sides, values


def _lanes(fn, args, lanes, mesh):
    """``fn(*args, lane, batched)`` for every row of ``lanes``: vmapped on one device, or the rows split across the
    devices of ``mesh`` (each device vmaps over its own rows; every lane is the same program, so results do not
    depend on the number of devices)."""
    def local(*a):
        *rest, lane_rows = a
        if lane_rows.shape[0] == 1:  # one lane here: no vmap (worklist rounds need a scalar switch)
            return jax.tree.map(lambda x: x[None], fn(*rest, lane_rows[0], False))
        return jax.vmap(lambda lane: fn(*rest, lane, True))(lane_rows)

    if mesh is None:
        return local(*args, lanes)
    rep, rows = PartitionSpec(), PartitionSpec(AXIS)
    return shard_map(local, mesh=mesh, in_specs=(rep,) * len(args) + (rows,), out_specs=rows,
                     check_vma=False)(*args, lanes)


@partial(jit, "kernel", static_argnames=("rounds_per_relabel", "mesh"))
def _sweep(net, As, Bs, At, Bt, lam_chunks, cold_every, rounds_per_relabel, mesh):
    def one(net, As, Bs, At, Bt, cold_every, lane, batched):
        return _sweep_lane(net, As, Bs, At, Bt, lane, cold_every, rounds_per_relabel, batched)

    return _lanes(one, (net, As, Bs, At, Bt, cold_every), lam_chunks, mesh)


def sweep_counts(net: Arcs, As, Bs, At, Bt, lam_chunks, rounds_per_relabel: int = 8, mesh=None):
    """The warm-started sweep over the lanes ``lam_chunks`` (each in warm-start order: source capacities rise and
    sink capacities fall along it), counted like :func:`bisect_lanes`: the number of lambdas at which each node is
    on the source side. Jit-able."""
    def one(net, As, Bs, At, Bt, lane, batched):
        return _sweep_lane(net, As, Bs, At, Bt, lane, jnp.bool_(False), rounds_per_relabel, batched)[0]

    sides = _lanes(one, (net, As, Bs, At, Bt), lam_chunks, mesh)
    return sides.sum(axis=(0, 1), dtype=jnp.int32)


def _bisect_level(net: Arcs, As, Bs, At, Bt, mus, carry, R, batched):
    """One level of the parallel bisection (module docstring): every undecided node v is tested at
    ``m = (lo + hi) // 2``; returns the updated carry ``(lo, hi, state, cs_used, ct_used, m_used)``."""
    lo, hi, s, cs_used, ct_used, m_used = carry
    inf = As.shape[0]
    dt = net.cap.dtype
    zero = jnp.zeros((), dt)
    last = mus.shape[0] - 1
    free = lo < hi
    m = (lo + hi) // 2
    cs0 = integer_capacities(As, Bs, mus[jnp.minimum(m, last)], dt)
    ct0 = integer_capacities(At, Bt, mus[jnp.minimum(m, last)], dt)
    above = lo[net.head] > m[net.tail]  # neighbour known to be on the source side at mus[m]
    below = hi[net.head] <= m[net.tail]  # ... known to be on the sink side
    internal = free[net.tail] & ~above & ~below  # same interval (both undecided)
    cs = jnp.where(free, cs0 + _segsum(jnp.where(above, net.cap, zero), net), zero)
    ct = jnp.where(free, ct0 + _segsum(jnp.where(below, net.cap, zero), net), zero)
    # warm: nodes that were on the sink side at their previous test (m < m_used); their source arcs can only have
    # risen (an edge to the other half carried its full capacity and is now a saturated source arc) and their sink
    # arcs only fallen, so the preflow stays valid once the sink excess above the new capacity is given back
    warm = free & (m < m_used)
    cs0_old = integer_capacities(As, Bs, mus[jnp.clip(m_used, 0, last)], dt)
    ft = ct_used - s.rt
    ft_new = jnp.minimum(ft, ct)
    direct = jnp.minimum(cs, ct)  # cold start: send min(c(s,v), c(v,t)) straight to t
    st = FlowState(
        jnp.where(internal, jnp.where(warm[net.tail], s.r, net.cap), zero),
        jnp.where(warm, ct - ft_new, ct - direct),
        jnp.where(warm, s.e + (cs0 - cs0_old) + (ft - ft_new), cs - direct),
        jnp.zeros((inf,), jnp.int32),
    )
    st = discharge(net, st, R, force=True, batched=batched)  # starts with an exact relabel (h = 0: none unreachable)
    in_s = st.h >= inf
    return (jnp.where(free & in_s, m + 1, lo), jnp.where(free & ~in_s, m, hi), st, cs, ct,
            jnp.where(free, m, m_used))


def _bisect_lane(net: Arcs, As, Bs, At, Bt, mus, free, R, batched):
    """``t(v)`` on one lane (a contiguous part ``mus`` of the lambda list, see the module docstring); rows that are
    not ``free`` (padding, nodes without arcs or capacities) are decided at once (``t = 0``)."""
    inf = As.shape[0]
    L = mus.shape[0]
    lo = jnp.where(free, 0, L).astype(jnp.int32)
    hi = jnp.full((inf,), L, jnp.int32)
    zi = jnp.zeros((inf,), net.cap.dtype)
    carry = (lo, hi, FlowState(net.cap, zi, zi, jnp.zeros((inf,), jnp.int32)), zi, zi,
             jnp.full((inf,), -1, jnp.int32))
    carry = lax.while_loop(lambda c: jnp.any(c[0] < c[1]),
                           lambda c: _bisect_level(net, As, Bs, At, Bt, mus, c, R, batched), carry)
    return jnp.where(free, carry[0], 0)


def bisect_lanes(net: Arcs, As, Bs, At, Bt, mus, free, rounds_per_relabel: int = 8, mesh=None):
    """``t(v)`` summed over the lanes (rows of ``mus``, each a contiguous part of the lambda list ordered so that
    the source sets shrink along it) -- by nestedness, the number of lambdas of the whole list at which v is on the
    source side. ``As, Bs, At, Bt``: float fixed-point coefficients of the source and sink arcs (length N, 0 on the
    dummy row); ``free``: bool (N,), the nodes to decide (the others get 0). Jit-able (called inside
    :func:`_bisect` and the 2-HNC stage program)."""
    def one(net, As, Bs, At, Bt, free, lane, batched):
        return _bisect_lane(net, As, Bs, At, Bt, lane, free, rounds_per_relabel, batched)

    return _lanes(one, (net, As, Bs, At, Bt, free), mus, mesh).sum(axis=0)


@partial(jit, "kernel", static_argnames=("rounds_per_relabel", "mesh"))
def _bisect(net, As, Bs, At, Bt, mus, n_real, rounds_per_relabel, mesh):
    """:func:`bisect_lanes` and the terminal parts of the nested cuts (:func:`_terminal_cut_parts`)."""
    t = bisect_lanes(net, As, Bs, At, Bt, mus, jnp.arange(As.shape[0]) < n_real, rounds_per_relabel, mesh)
    return t, _terminal_cut_parts(As, Bs, At, Bt, mus.reshape(-1), t)


def _terminal_cut_parts(As, Bs, At, Bt, mus, t):
    """For every q: sum of c(v, t) over the source side ``t(v) > q`` plus c(s, v) over the sink side."""
    dt = jnp.int64 if As.dtype == jnp.float64 else jnp.int32

    def one(q):
        cs = integer_capacities(As, Bs, mus[q], dt)
        ct = integer_capacities(At, Bt, mus[q], dt)
        return jnp.where(t > q, ct, cs).sum()

    return lax.map(one, jnp.arange(mus.shape[0]))


def _nested_cut_values(net: Arcs, t, terminal):
    """Capacities of the nested cuts ``S_q = {t > q}``: ``terminal[q]`` plus the arcs from S_q to its complement,
    accumulated exactly (int64) with a difference array over q (host arrays)."""
    L = terminal.shape[0]
    t = np.asarray(t, np.int64)
    tv, tu = t[net.tail], t[net.head]
    cap = np.asarray(net.cap, np.int64)
    cross = (tv > tu) & (cap > 0)
    diff = np.zeros(L + 1, np.int64)
    np.add.at(diff, tu[cross], cap[cross])
    np.add.at(diff, tv[cross], -cap[cross])
    return np.asarray(terminal, np.int64) + np.cumsum(diff)[:L]


def _check_network(i, j, source_cap, sink_cap, lambdas, n_nodes, method, n_lanes):
    """Validated ``(n, (a_s, b_s, a_t, b_t), lambdas)`` (float64 arrays)."""
    a_s = np.asarray(source_cap[0] if isinstance(source_cap, (tuple, list)) else source_cap)
    n = int(n_nodes if n_nodes is not None else a_s.reshape(-1).shape[0])
    if n < 1:
        raise ValueError("the network needs at least one node.")
    a_s, b_s = _as_pair(source_cap, n, "source_cap")
    a_t, b_t = _as_pair(sink_cap, n, "sink_cap")
    lam = np.asarray(lambdas, dtype=np.float64).reshape(-1)
    if lam.size == 0 or not np.all(np.isfinite(lam)):
        raise ValueError("lambdas must be a non-empty 1-D array of finite values.")
    if np.any(np.diff(lam) < 0):
        raise ValueError("lambdas must be sorted in non-decreasing order.")
    lo, hi = lam[0], lam[-1]
    for name, a, b in (("source_cap", a_s, b_s), ("sink_cap", a_t, b_t)):
        if min(np.min(a + lo * b), np.min(a + hi * b)) < 0:
            raise ValueError(f"{name} is negative at some lambda in [{lo}, {hi}]; capacities must be >= 0.")
    if method not in ("bisect", "sweep"):
        raise ValueError(f"method={method!r} must be 'bisect' or 'sweep'.")
    if int(n_lanes) < 1:
        raise ValueError(f"n_lanes={n_lanes} must be >= 1.")
    ii, jj = np.asarray(i).reshape(-1), np.asarray(j).reshape(-1)
    if ii.size and (min(ii.min(), jj.min()) < 0 or max(ii.max(), jj.max()) >= n):
        raise ValueError(f"edge endpoints i, j must be node indices in [0, {n - 1}].")
    return n, (a_s, b_s, a_t, b_t), lam


def _fixed_point(total, n_terms, scale):
    """``(scale, integer dtype)`` of the fixed-point capacities (module docstring)."""
    x64 = bool(jax.config.jax_enable_x64)
    if scale is None:
        s32 = choose_scale(total, n_terms, 31)
        if s32 >= MIN_SCALE:
            return s32, jnp.int32
        if not x64:
            raise ValueError(
                f"the capacities sum to {total:.4g}: int32 fixed point would need a scale below 2^10, which "
                f"may change the cuts. Enable 64-bit integers (jax.config.update('jax_enable_x64', True)) "
                f"or rescale the weights / pass scale= explicitly."
            )
        return choose_scale(total, n_terms, 63), jnp.int64
    scale = float(scale)
    if not scale > 0:
        raise ValueError(f"scale={scale} must be positive.")
    if (total * scale + n_terms + 1) < 2**31 - 1:
        return scale, jnp.int32
    if x64 and (total * scale + n_terms + 1) < 2**63 - 1:
        return scale, jnp.int64
    raise ValueError(f"scale={scale} overflows the integer range for capacities summing to {total:.4g}.")


def lane_layout(L: int, n_lanes: int, devices: DevicesLike):
    """``(mesh, P, C)``: P lanes of C lambdas (padded with the last lambda); P a multiple of the device count."""
    mesh = None
    if devices is not None and len(resolve_devices(devices)) > 1:
        mesh = device_mesh(devices)
    n_dev = 1 if mesh is None else mesh.size
    P = padded_size(max(1, min(int(n_lanes), L)), n_dev)
    # lanes of 2^k - 1 or 3 * 2^(k-1) - 1 values: few compiled shapes (one lane of 501 lambdas: 9 levels)
    C = round_up_size(-(-L // P) + 1) - 1
    return mesh, P, C


def _sets_from_order(sides, order, L, n):
    """Source sets and first changes in the caller's lambda order from sets listed along ``order``."""
    source_sets = np.empty((L, n), dtype=bool)
    source_sets[order] = sides
    diff = source_sets != source_sets[:1]
    first_change = np.where(diff.any(axis=0), diff.argmax(axis=0), L).astype(np.int64)
    return source_sets, first_change


def parametric_min_cut(i: ArrayLike, j: ArrayLike, w: ArrayLike, source_cap: tuple[ArrayLike, ArrayLike] | ArrayLike,
                       sink_cap: tuple[ArrayLike, ArrayLike] | ArrayLike, lambdas: ArrayLike, *,
                       n_nodes: int | None = None, scale: float | None = None, n_lanes: int = 1,
                       rounds_per_relabel: int = 8, warm_start: bool = True, method: str = "bisect", min_nodes: int = 0,
                       min_width: int = 8, devices: DevicesLike = None) -> ParametricCut:
    """Maximal minimum-cut source sets for capacities affine in lambda, over a sorted list of lambdas.

    Parameters
    ----------
    i, j, w : undirected edges (i[e], j[e]) with weight w[e] >= 0 (parallel edges add up, self-loops are ignored).
    source_cap : pair (a_s, b_s) of arrays [n]: c(s, v) = a_s[v] + lambda * b_s[v] (an array means b_s = 0).
    sink_cap : pair (a_t, b_t) of arrays [n]: c(v, t) = a_t[v] + lambda * b_t[v].
    lambdas : non-decreasing 1-D array; capacities must be >= 0 at every lambda.
    n_nodes : number of nodes (default: the length of ``a_s``).
    scale : fixed-point scale (default: chosen from the capacity sums, see the module docstring).
    method : ``"bisect"`` (default: parallel bisection over the lambda indices, ``ceil(log2(L + 1))`` push-relabel
        solves) or ``"sweep"`` (one warm-started solve per lambda). Both give the same exact answer; networks that
        are not parametric flow graphs, and ``warm_start=False``, are solved cold at every lambda.
    n_lanes : number of contiguous lambda chunks (lanes) solved independently: vmapped on one device, split
        across ``devices`` otherwise (at least one lane per device).
    devices : None (the default device), an int, a list of ``jax.Device`` or a ``Mesh``
        (:func:`pujax.devices.resolve_devices`). The cuts are exact, so they do not depend on the lanes or devices.
    rounds_per_relabel : synchronous push/relabel rounds between two global relabels.
    min_nodes, min_width : pad the network to at least this many nodes / this many arcs per node (shapes are also
        rounded up to a few sizes), so that several calls reuse one compiled program.
    warm_start : reuse the preflow along lambda (only possible for a parametric flow graph); False = cold starts.

    Returns
    -------
    :class:`ParametricCut` ``(source_sets bool[L, n], first_change int[n], cut_values int[L], scale)``.
    """
    w = np.asarray(w, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("edge weights w must be finite and non-negative.")
    n, (a_s, b_s, a_t, b_t), lam = _check_network(i, j, source_cap, sink_cap, lambdas, n_nodes, method, n_lanes)
    if int(rounds_per_relabel) < 1:
        raise ValueError(f"rounds_per_relabel={rounds_per_relabel} must be >= 1.")
    # direction of the warm start: source capacities rise, sink capacities fall
    up = np.all(b_s >= 0) and np.all(b_t <= 0)
    down = np.all(b_s <= 0) and np.all(b_t >= 0)
    cold_every = not (warm_start and (up or down))
    lo, hi = lam[0], lam[-1]
    _, _, we = merge_edges(i, j, w, n)
    total = float(np.maximum(a_s + lo * b_s, a_s + hi * b_s).sum() + np.maximum(a_t + lo * b_t, a_t + hi * b_t).sum()
                  + 4.0 * we.sum())
    scale, int_dtype = _fixed_point(total, 2 * n + 2 * int(np.count_nonzero(we)), scale)
    net, N = edge_arcs(i, j, w, n, scale=scale, dtype=np.dtype(int_dtype), min_nodes=min_nodes,
                       min_width=min_width)
    fdt = np.dtype(jnp.float64 if int_dtype == jnp.int64 else jnp.float32)
    # fixed-point affine coefficients; zero on the padding rows and the dummy row
    coef = tuple(np.concatenate([v * scale, np.zeros(N - n)]).astype(fdt) for v in (a_s, b_s, a_t, b_t))
    L = lam.size
    mesh, P, C = lane_layout(L, n_lanes, devices)
    R = int(rounds_per_relabel)
    if method == "bisect" and not cold_every:
        # source sets shrink along mus: lambda ascending when sink capacities rise, descending otherwise
        order = np.arange(L)[::-1] if up else np.arange(L)
        mus = np.concatenate([lam[order], np.full(P * C - L, lam[order[-1]])]).astype(fdt)
        t, terminal = _bisect(net, *coef, mus.reshape(P, C), np.int32(n), rounds_per_relabel=R, mesh=mesh)
        t = np.asarray(t)
        values = _nested_cut_values(net, t, np.asarray(terminal))[:L]
        source_sets, first_change = _sets_from_order(t[None, :n] > np.arange(L)[:, None], order, L, n)
        cut_values = np.empty(L, dtype=np.dtype(int_dtype))
        cut_values[order] = values
        return ParametricCut(source_sets, first_change, cut_values, scale)
    order = np.arange(L) if (up or cold_every) else np.arange(L)[::-1]
    pos = np.concatenate([order, np.full(P * C - L, order[-1])]).reshape(P, C)
    sides, values = _sweep(net, *coef, lam[pos].astype(fdt), np.bool_(cold_every), rounds_per_relabel=R, mesh=mesh)
    sides = np.asarray(sides).reshape(P * C, N)[:L, :n]
    values = np.asarray(values).reshape(P * C)[:L]
    source_sets, first_change = _sets_from_order(sides, order, L, n)
    cut_values = np.empty(L, dtype=values.dtype)
    cut_values[order] = values
    return ParametricCut(source_sets, first_change, cut_values, scale)
