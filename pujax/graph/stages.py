"""The two stages of 2-HNC for one k as one device program: kNN graph -> stage 1 -> SelectNeg -> stage 2.

:func:`hnc_stages` takes the kNN lists of all rows (kept on the device) and returns, on the device, the parametric
cut results of both stages; the host reads only the per-lambda partition sizes (to choose the partition) and then
the node arrays of the chosen k. Every step follows :mod:`pujax.graph.hnc` (paper §4-5):

* the symmetric kNN graph of the first ``k`` neighbours (:func:`pujax.graph.network.knn_arcs`) with Gaussian
  similarities ``w = exp(-d^2 / (2 sigma^2))``; ``d_i = sum_j w_ij``; labeled rows (L+) are contracted into the
  source: a free (unlabeled) node gets ``c(s, i) = sum_{p in L+} w_ip`` and keeps the edges to other free nodes;
* stage 1 (HNC-): ``c(s, i) = sum_{L+} w_ip``, ``c(i, t) = lambda d_i``, lambdas ascending (sink sets grow);
* SelectNeg: free nodes ranked by their first sink index ``min(t_1(i), L)``, ties by ``tie_rank``; LN = the
  ``n_ln`` first;
* stage 2 (HNC+): ``c(s, i) = sum_{L+} w_ip + lambda d_i``, ``c(i, t) = sum_{q in LN} w_iq``, solved on the same
  node set: an LN node has no source arc and a sink arc ``1 + sum_j w_ij`` larger than all its edges, so it is on
  the sink side of every minimum cut, and the edges between free nodes and LN carry ``sum_{q in LN} w_iq``;
  lambdas descending (source sets shrink along the list).

Both stages run in one ``lax.scan`` of two steps over the same compiled parametric cut
(:func:`pujax.graph.parametric.bisect_lanes`), each with its own fixed-point scale
(:func:`pujax.graph.network.fixed_point_scale`, float32 arithmetic on the device).
"""
from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
from jax import lax

from pujax._compile import jit
from pujax.graph.network import Arcs, fixed_point_scale, knn_arcs
from pujax.graph.parametric import bisect_lanes, sweep_counts

__all__ = ["hnc_stages"]


def _graph(idx, d2, k, sigma, n_real, labeled):
    """Arcs, similarities and the per-node sums of the stage networks (module docstring)."""
    rows = labeled.shape[0]
    idx = idx.reshape(-1, idx.shape[-1])[:rows, :k]
    d2 = d2.reshape(-1, d2.shape[-1])[:rows, :k]
    w = jnp.exp(-d2 / (2.0 * sigma**2))
    tail, head, rev, start, weight = knn_arcs(idx, w, k, n_real)
    N = rows + 1
    row = jnp.arange(N)
    lab = jnp.concatenate([labeled, jnp.zeros((1,), bool)])
    free = (row < n_real) & ~lab
    internal = free[tail] & free[head]
    seg = lambda x: jax.ops.segment_sum(x, tail, N, indices_are_sorted=True)  # noqa: E731
    zero = jnp.zeros((), weight.dtype)
    deg = seg(weight)
    to_pos = seg(jnp.where(free[tail] & lab[head], weight, zero))
    inner = seg(jnp.where(internal, weight, zero))
    return (tail, head, rev, start), weight, internal, free, deg, to_pos, inner


def _select_neg(t1, free, tie_rank, n_ln, L):
    """SelectNeg: ``order`` (node ids sorted by first sink index, then ``tie_rank``; free nodes first) and the
    LN mask (the ``n_ln`` first)."""
    N = t1.shape[0]
    key = jnp.where(free, jnp.minimum(t1, L), L + 1)
    order = lax.sort((key, tie_rank, jnp.arange(N, dtype=jnp.int32)), num_keys=2, is_stable=True)[2]
    position = jnp.zeros((N,), jnp.int32).at[order].set(jnp.arange(N, dtype=jnp.int32))
    return order, free & (position < n_ln)


@partial(jit, "kernel", static_argnames=("k", "n_lambdas", "method", "rounds_per_relabel", "mesh"))
def hnc_stages(idx, d2, labeled, tie_rank, n_real, k, n_ln, sigma, lam_range, mus, n_lambdas, method="bisect",
               rounds_per_relabel=8, mesh=None):
    """Both stages of 2-HNC for the ``k`` first neighbours (module docstring).

    ``idx, d2``: kNN lists of the rows (any leading shape flattening to >= rows, width K >= k); ``labeled``: bool
    (rows,) (padding rows False); ``tie_rank``: int32 (rows + 1,), SelectNeg's tie-breaking order; ``n_real``:
    rows in use; ``n_ln``: |LN|; ``lam_range``: (lambda_min, lambda_max); ``mus``: (2, P, C) the lambda lanes of
    stage 1 (ascending) and stage 2 (descending), ``n_lambdas`` of them (static); ``method``: ``"bisect"`` or
    ``"sweep"`` (:func:`pujax.graph.parametric.sweep_counts`, the same cuts).

    Returns ``(t, order, ln, summary)``: ``t`` (2, rows + 1) the number of lambdas of each stage's list at which a
    node is on the source side; ``order``, ``ln`` from SelectNeg; ``summary`` int32 (2, L + 2): per stage the
    histogram of ``min(t, L)`` over free nodes and a flag (1 when the int32 fixed point had a scale >= 2^10).
    """
    L = int(n_lambdas)
    links, weight, internal, free, deg, to_pos, inner = _graph(idx, d2, k, sigma, n_real, labeled)
    zero = jnp.zeros((), weight.dtype)
    n_terms = 2.0 * free.sum() + (internal & (weight > 0)).sum()
    edges = 2.0 * jnp.where(internal, weight, zero).sum()
    lo, hi = lam_range[0], lam_range[1]

    def stage(t_prev, s):
        order, ln = _select_neg(t_prev, free, tie_rank, n_ln, L)
        two = s == 1
        a_s = jnp.where(free & ~(two & ln), to_pos, zero)
        b_s = jnp.where(two & free & ~ln, deg, zero)
        a_t = jnp.where(two & ln, inner + 1.0, zero)
        b_t = jnp.where(~two & free, deg, zero)
        total = (jnp.maximum(a_s + lo * b_s, a_s + hi * b_s).sum() + jnp.maximum(a_t + lo * b_t, a_t + hi * b_t).sum()
                 + edges)
        scale, ok = fixed_point_scale(total, n_terms)
        cap = jnp.where(internal, jnp.floor(weight * scale), 0).astype(jnp.int32)
        net = Arcs(*links, cap)
        coef = (a_s * scale, b_s * scale, a_t * scale, b_t * scale)
        if method == "sweep":  # warm-start order: the reverse of the lanes along which the source sets shrink
            lanes = mus[s].reshape(-1)[::-1].reshape(mus.shape[1:])
            t = jnp.where(free, sweep_counts(net, *coef, lanes, rounds_per_relabel, mesh), 0)
        else:
            t = bisect_lanes(net, *coef, mus[s], free, rounds_per_relabel, mesh)
        hist = jnp.zeros((L + 1,), jnp.int32).at[jnp.where(free, jnp.minimum(t, L), L + 1)].add(1, mode="drop")
        return jnp.where(two, t_prev, t), (t, order, ln, jnp.concatenate([hist, ok.astype(jnp.int32)[None]]))

    _, (t, order, ln, summary) = lax.scan(stage, jnp.zeros(free.shape, jnp.int32), jnp.arange(2))
    return t, order[1], ln[1], summary
