r"""Device-resident growth of a batch of trees: the whole level loop in one ``lax.while_loop`` (DESIGN §3.2).

The training *entries* ``(row, nid)`` -- one per (tree, training row) still in an active node, ``nid`` the position
of that node in the level's *frontier* -- live on the device for the whole growth, together with the binned codes,
the labels, the frontier (node id, tree, uid, P / U counts, depth and the bit mask of features known constant, in
fixed-capacity buffers) and the histogram accumulators. One level of :func:`grow` is:

1. **features** (node blocks): ``max_features`` distinct features per frontier node among those not known constant
   (:func:`~pujax.trees.kernels.sample_features`);
2. **statistics** (entry chunks): either per-(node, feature, bin) histograms of the counts of ``s = 1`` and
   ``s = 0`` rows (one scatter-add pass; frontiers larger than one histogram buffer in windows of ``Caps.NH``
   nodes), or, for Extra Trees when histograms would dwarf the entries, a (min, max) pass, the threshold draws and a
   left-count pass;
3. **decision** (node blocks): thresholds drawn between the node's smallest and largest value (Extra Trees) or every
   bin boundary ("best"), scored by their risk reduction (:mod:`pujax.trees.kernels`); per node the flags and
   ranks of its split, retry and live children (prefix sums carried over the blocks);
4. **commit** (node blocks): the children of every split and the split records are appended to the *log*, the next
   frontier (retried nodes first, then the live children, in order) is written, and the routing table of this
   level's splits;
5. **routing** (entry chunks): every entry goes to its child or is dropped (finished child); when the dropped
   entries reach an eighth of the entries in use, the pass also compacts them (a stable partition: live entries
   keep their order, tree by tree and row by row).

Accumulators are zero between levels (zeroed, block by block, once read). Work is proportional to the live
entries and nodes: the loops over entry chunks and node blocks run ``ceil(used / chunk)`` iterations. The loop stops
when the frontier is empty, when the next level could overflow the frontier buffers (``2 * n_front > Caps.N``) or
when the log could not hold the level's records; the host then reads the log -- the only device-to-host transfer,
O(nodes) -- and calls :func:`grow` again (after :func:`enlarge` on a frontier overflow). With rows sharded over a
mesh (``axis``), each device holds its share of the entries and the statistics of every node block are summed
(``psum``; ``pmax`` for the ranges) before the decision, which every device then makes alike.
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from pujax.risk import node_risk
from pujax.trees.kernels import (
    choose_best_splits,
    choose_random_splits,
    draw_thresholds,
    sample_features,
)
from pujax.trees.passes import (
    cdiv,
    dslice,
    dupdate,
    excl_cumsum,
    hist_pass,
    incl_cumsum,
    left_pass,
    range_pass,
    route_pass,
)

__all__ = ["GrowConfig", "Caps", "Rules", "GrowData", "GrowState", "LOG_WIDTH", "init_state", "grow", "enlarge",
           "node_uid_child_u32", "pack_bits", "unpack_bits"]

_U32 = jnp.uint32
LOG_WIDTH = 6
"""Columns of a log row: header ``(node rows, split rows, frontier size, level, nodes, 0)``; node rows ``(tree,
depth, c1, c0, risk bits, 0)`` in creation order; split rows ``(node, feature, code, risk reduction bits, left child,
0)``."""
_HIST_SMALL = 1 << 21
"""Histograms of at most this many cells are used whatever the entries (:func:`_use_hist`)."""


class GrowConfig(NamedTuple):
    """Static settings of a growth."""

    n_slots: int  # features sampled per node (K)
    n_thresholds: int  # candidate thresholds per feature (T; the bin count in "best" mode)
    n_bins: int  # histogram width (B)
    shift: int  # bit offset of the s=1 count in packed histogram cells (0: two channels)
    mode: str  # "random" (Extra Trees) or "best"
    risk: str
    loss: str
    two_pass: bool | None  # Extra-Trees statistics by (min, max) + left counts (None: chosen per level)


class Caps(NamedTuple):
    """Static shapes of a growth program (per device for the entries when rows are sharded)."""

    n: int  # padded training rows: codes_t holds D * n codes
    D: int  # feature slots
    M: int  # entry capacity (a multiple of C_e)
    N: int  # frontier capacity (a multiple of C_n)
    NH: int  # nodes of one histogram buffer (a multiple of C_n, at most N)
    L: int  # node rows of the log (>= 2 N); split rows: L // 2
    T_b: int  # trees per batch
    C_e: int  # entries per chunk
    C_n: int  # nodes per block


class Rules(NamedTuple):
    """Traced scalars of a growth: node weights, seed and stopping rules."""

    wu: jax.Array
    rho: jax.Array
    sigma: jax.Array
    seed: jax.Array  # uint32
    max_depth: jax.Array  # int32 (a huge value for no limit)
    min_split: jax.Array  # int32
    d: jax.Array  # int32, real features (slots d .. D - 1 are padding, never sampled)


class GrowData(NamedTuple):
    """The binned training set on the device (shared by every batch on the device)."""

    codes_t: jax.Array  # (D * n,) uint8, feature-major: codes_t[f * n + row]
    s: jax.Array  # (n,) uint8
    bin_lo: jax.Array  # (D, B) float
    bin_hi: jax.Array  # (D, B) float
    rules: Rules


class GrowState(NamedTuple):
    """Everything a growth carries from level to level (device arrays)."""

    rows: jax.Array  # (M,) int32
    nid: jax.Array  # (M,) int32, frontier position; N: dropped
    n_ent: jax.Array  # (1,) entries in use on this device (a prefix of rows / nid)
    front: tuple  # (gid, tree, uid, c1, c0, depth, risk) each (N,): this level's frontier
    const: jax.Array  # (N, W) uint32 bit masks of features known constant (bits >= D set)
    nfront: tuple  # the next level's frontier, written by the commit (then copied to ``front``)
    nconst: jax.Array
    n_front: jax.Array
    level: jax.Array
    n_nodes: jax.Array  # node ids given out in the batch
    n_live: jax.Array  # entries of the frontier's nodes (sum of c1 + c0)
    feats: jax.Array  # (N, K) int32 sampled features
    ok: jax.Array  # (N, K) bool, slot used
    thr: jax.Array  # (N, K, T) int32 thresholds (two-pass statistics)
    rec: jax.Array  # (N, 13) int32 decision records (see _block_record)
    constp: jax.Array  # (N, W) uint32 constant masks after the level
    route: jax.Array  # (N, 4) int32: feature, code, left target, right target of every frontier position
    hist: jax.Array  # (K * NH * B, CH) int32 histograms, zero between levels
    mm: jax.Array  # (N * K, 2) int32 max of (code, 255 - code), zero between levels
    lc: jax.Array  # (N * K, T * CH) int32 left counts, zero between levels
    log: jax.Array  # (1 + L + L // 2, LOG_WIDTH) int32
    n_log: jax.Array
    n_slog: jax.Array
    flushed: jax.Array  # the host read the log: the next call starts it empty


# ------------------------------------------------------------------------------------------------ small helpers


def _reduce(x, op, axis):
    """Combine per-device statistics of a sharded growth (identity on one device)."""
    if axis is None:
        return x
    return jax.lax.psum(x, axis) if op == "sum" else jax.lax.pmax(x, axis)


def _f2i(x):
    return jax.lax.bitcast_convert_type(x.astype(jnp.float32), jnp.int32)


def pack_bits(mask):
    """(R, D) bool -> (R, ceil(D / 32)) uint32, bits past ``D`` set."""
    R, D = mask.shape
    W = cdiv(D, 32)
    full = jnp.ones((R, W * 32), bool).at[:, :D].set(mask)
    weights = jnp.left_shift(_U32(1), jnp.arange(32, dtype=_U32))
    return jnp.sum(full.reshape(R, W, 32).astype(_U32) * weights, axis=2, dtype=_U32)


def unpack_bits(words, D: int):
    """(R, W) uint32 -> (R, D) bool."""
    R, W = words.shape
    bits = jnp.right_shift(words[:, :, None], jnp.arange(32, dtype=_U32)) & _U32(1)
    return bits.reshape(R, W * 32)[:, :D].astype(bool)


def node_uid_child_u32(uid, side):
    """:func:`pujax.trees.kernels.node_uid_child` on the device (uint32 arithmetic wraps alike)."""
    h = uid * _U32(0x9E3779B1) + side.astype(_U32) * _U32(0x85EBCA77) + _U32(0x165667B1)
    h = h ^ (h >> _U32(15))
    h = h * _U32(0x2C1B3C6D)
    return h ^ (h >> _U32(12))


def _node_risk(c1, c0, r: Rules, risk: str, loss: str):
    c1 = c1.astype(r.wu.dtype)
    c0 = c0.astype(r.wu.dtype)
    return node_risk(r.wu * (r.rho * c1), r.wu * (c0 - r.sigma * (r.rho * c1)), risk=risk, loss=loss)


def _finished(risk_value, c1, c0, depth, r: Rules, risk: str):
    """Leaf rules: pure (uPU ``-inf`` or no labeled positive; else risk <= 0), too few rows, too deep."""
    pure = (jnp.isneginf(risk_value) | (c1 == 0)) if risk == "upu" else (risk_value <= 0)
    return pure | ((c1 + c0) < r.min_split) | (depth >= r.max_depth)


def _front_block(state, o, size):
    """This level's frontier arrays of positions ``o .. o + size - 1``: (gid, tree, uid, c1, c0, depth, risk),
    const."""
    return tuple(dslice(a, o, size) for a in state.front), dslice(state.const, o, size)


# ------------------------------------------------------------------------------------------------ node blocks


def _block_loop(b0, b1, body, init):
    return jax.lax.fori_loop(b0, b1, body, init)


def _sample(state, data: GrowData, cfg: GrowConfig, caps: Caps):
    """Sampled features of every frontier node (:func:`~pujax.trees.kernels.sample_features`)."""
    C, it = caps.C_n, state.level.astype(_U32)

    def body(b, acc):
        o = b * C
        (_, tree, uid, _, _, _, _), const = _front_block(state, o, C)
        f, k = sample_features(data.rules.seed, tree, uid, it, unpack_bits(const, caps.D), cfg.n_slots)
        return dupdate(acc[0], o, f), dupdate(acc[1], o, k)

    return _block_loop(0, cdiv(state.n_front, C), body, (state.feats, state.ok))


def _block_record(state, data: GrowData, cfg: GrowConfig, caps: Caps, o, res, cnt):
    """Flags and ranks of nodes ``o .. o + C_n - 1`` from their chosen splits ``res``.

    Record columns: flags (1 split, 2 retry, 4 live left child, 8 live right child), feature, code, left c1, left
    c0, bits of the node / left / right risks and of the risk reduction, the split's rank in the level, the retry's
    rank, the left and right child's rank among live children. ``cnt``: (splits, retries, live children, their
    entries) before the block. Returns (record, constant masks after the level, cnt)."""
    C, r = caps.C_n, data.rules
    (_, _, _, c1, c0, depth, _), const = _front_block(state, o, C)
    valid = (o + jnp.arange(C, dtype=jnp.int32)) < state.n_front
    feats = res["feats"]
    newly = res["newly_const"] & valid[:, None]  # sampled features never known constant: adding sets the bit
    bits = jnp.where(newly, jnp.left_shift(_U32(1), (feats % 32).astype(_U32)), _U32(0))
    constp = const.at[jnp.arange(C)[:, None], feats // 32].add(bits)
    has = res["has_split"] & valid
    retry = valid & ~has & ~jnp.all(constp == _U32(0xFFFFFFFF), axis=1)
    lc1, lc0 = res["left_c1"], res["left_c0"]
    rc1, rc0 = c1 - lc1, c0 - lc0
    live_l = has & ~_finished(res["risk_left"], lc1, lc0, depth + 1, r, cfg.risk)
    live_r = has & ~_finished(res["risk_right"], rc1, rc0, depth + 1, r, cfg.risk)
    n_split, n_retry, n_child, n_live = cnt
    two = jnp.stack([live_l, live_r], 1).reshape(-1)
    child = (n_child + excl_cumsum(two)).reshape(C, 2)
    i32 = jnp.int32
    flags = has.astype(i32) | (retry.astype(i32) << 1) | (live_l.astype(i32) << 2) | (live_r.astype(i32) << 3)
    rec = jnp.stack([flags, res["feature"], res["code"], lc1, lc0, _f2i(res["risk_node"]), _f2i(res["risk_left"]),
                     _f2i(res["risk_right"]), _f2i(res["rr"]), n_split + excl_cumsum(has),
                     n_retry + excl_cumsum(retry), child[:, 0], child[:, 1]], 1)
    entries = (jnp.sum(jnp.where(retry, c1 + c0, 0)) + jnp.sum(jnp.where(live_l, lc1 + lc0, 0))
               + jnp.sum(jnp.where(live_r, rc1 + rc0, 0)))
    cnt = (n_split + jnp.sum(has, dtype=jnp.int32), n_retry + jnp.sum(retry, dtype=jnp.int32),
           n_child + jnp.sum(two, dtype=jnp.int32), n_live + entries.astype(jnp.int32))
    return rec, constp, cnt


def _decide(state, data, cfg, caps, b0, b1, stats, acc, rec, constp, cnt):
    """Node blocks ``b0 .. b1 - 1``: ``stats(o, acc) -> (chosen splits, acc)``, then :func:`_block_record`."""
    C = caps.C_n

    def body(b, carry):
        acc, rec, constp, cnt = carry
        o = b * C
        res, acc = stats(o, acc)
        block, cp, cnt = _block_record(state, data, cfg, caps, o, res, cnt)
        return acc, dupdate(rec, o, block), dupdate(constp, o, cp), cnt

    return _block_loop(b0, b1, body, (acc, rec, constp, cnt))


def _node_args(state, data, caps, o):
    """Per-node arguments of the split kernels for the block at ``o``."""
    C = caps.C_n
    (_, tree, uid, c1, c0, _, risk), _ = _front_block(state, o, C)
    return dslice(state.feats, o, C), dslice(state.ok, o, C), c1, c0, tree, uid, risk


def _choose(state, data, cfg, caps, o, stats, from_hist):
    feats, ok, c1, c0, tree, uid, rn = _node_args(state, data, caps, o)
    r = data.rules
    if cfg.mode == "best":
        return choose_best_splits(stats, feats, ok, c1, c0, r.wu, r.rho, r.sigma, rn, n_bins=cfg.n_bins,
                                  shift=cfg.shift, risk=cfg.risk, loss=cfg.loss)
    return choose_random_splits(stats, feats, ok, c1, c0, r.seed, tree, uid, state.level.astype(_U32), r.wu, r.rho,
                                r.sigma, data.bin_lo, data.bin_hi, rn, n_thresholds=cfg.n_thresholds,
                                n_bins=cfg.n_bins, shift=cfg.shift, risk=cfg.risk, loss=cfg.loss, from_hist=from_hist)


def _hist_view(hist, cfg: GrowConfig, caps: Caps):
    """The flat histogram buffer as (K, NH, B[, 2])."""
    return hist.reshape((cfg.n_slots, caps.NH, cfg.n_bins) + hist.shape[1:])


def _zero_blocks(bufs, b0, b1, block_of, after):
    """Zero the parts ``block_of(b)`` -> ``[(start, size)] * len(bufs)`` of ``bufs`` for blocks ``b0 .. b1 - 1``:
    the statistics just read by the loop that computed the int32 scalar ``after`` (< 2**30). The trip count depends
    on ``after``, so XLA orders this loop after the reader and updates ``bufs`` in place (a loop that only reads a
    buffer is otherwise not ordered before one that writes it, and XLA copies the buffer)."""
    def body(b, bufs):
        return tuple(jax.lax.dynamic_update_slice(a, jnp.zeros(size, a.dtype), start)
                     for a, (start, size) in zip(bufs, block_of(b)))

    return _block_loop(b0, jnp.maximum(b1, after - (1 << 30)), body, bufs)


def _hist_windows(state, data, cfg, caps, axis, use, cnt):
    """Histogram statistics: windows of NH frontier nodes, one entry pass each, then their node blocks."""
    C, NH = caps.C_n, caps.NH
    n_blocks = cdiv(state.n_front, C)

    def window(w, carry):
        hist, rec, constp, cnt = carry
        base = w * NH
        hist = hist_pass(state._replace(hist=hist), data, cfg, caps, base, True)
        view = _hist_view(hist, cfg, caps)
        size = (cfg.n_slots, C) + view.shape[2:]

        def start(o):
            return (0, o - base) + (0,) * (view.ndim - 2)

        def stats(o, view):  # the histograms pass through the loop: read only, updated in place later
            block = _reduce(jax.lax.dynamic_slice(view, start(o), size), "sum", axis)
            return _choose(state, data, cfg, caps, o, jnp.moveaxis(block, 0, 1), True), view

        b0, b1 = w * (NH // C), jnp.minimum((w + 1) * (NH // C), n_blocks)
        view, rec, constp, cnt = _decide(state, data, cfg, caps, b0, b1, stats, view, rec, constp, cnt)
        (view,) = _zero_blocks((view,), b0, b1, lambda b: [(start(b * C), size)], cnt[0])
        return view.reshape(hist.shape), rec, constp, cnt

    n_win = jnp.where(use, cdiv(state.n_front, NH), 0)
    hist, rec, constp, cnt = jax.lax.fori_loop(0, n_win, window, (state.hist, state.rec, state.constp, cnt))
    return state._replace(hist=hist, rec=rec, constp=constp), cnt


def _two_pass(state, data, cfg, caps, axis, use, cnt):
    """Extra-Trees statistics without histograms: a (min, max) pass, thresholds, a left-count pass."""
    C, K, T = caps.C_n, cfg.n_slots, cfg.n_thresholds
    r = data.rules
    n_blocks = jnp.where(use, cdiv(state.n_front, C), 0)
    mm = range_pass(state, data, cfg, caps, use)

    def ranges(mm, o):
        block = _reduce(dslice(mm, o * K, C * K), "max", axis).reshape(C, K, 2)
        return 255 - block[..., 1], block[..., 0]  # (mn, mx)

    def thresholds(b, carry):  # the ranges pass through the loop: read only
        thr, mm = carry
        o = b * C
        mn, mx = ranges(mm, o)
        feats, ok, _, _, tree, uid, _ = _node_args(state, data, caps, o)
        t, _ = draw_thresholds(mn, mx, feats, ok, r.seed, tree, uid, state.level.astype(_U32), data.bin_lo,
                               data.bin_hi, n_thresholds=T, n_bins=cfg.n_bins)
        return dupdate(thr, o, t), mm

    thr, mm = _block_loop(0, n_blocks, thresholds, (state.thr, mm))
    state = state._replace(thr=thr)
    lc = left_pass(state, data, cfg, caps, use)

    def stats(o, acc):
        mm, lc = acc
        mn, mx = ranges(mm, o)
        left = _reduce(dslice(lc, o * K, C * K), "sum", axis).reshape(C, K, -1)
        if cfg.shift > 0:
            l_all, l_c1 = left & ((1 << cfg.shift) - 1), left >> cfg.shift
        else:
            l_all, l_c1 = left[..., :T], left[..., T:]
        return _choose(state, data, cfg, caps, o, (mn, mx, l_all, l_c1, dslice(thr, o, C)), False), acc

    (mm, lc), rec, constp, cnt = _decide(state, data, cfg, caps, 0, n_blocks, stats, (mm, lc), state.rec,
                                         state.constp, cnt)
    mm, lc = _zero_blocks((mm, lc), 0, n_blocks,
                          lambda b: [((b * C * K, 0), (C * K, 2)), ((b * C * K, 0), (C * K, lc.shape[1]))], cnt[0])
    return state._replace(mm=mm, lc=lc, rec=rec, constp=constp), cnt


def _commit(state, caps: Caps, cnt):
    """Append this level's children and splits to the log, write the next frontier (retries first, then the live
    children) and the routing table of every frontier position."""
    C, N, L = caps.C_n, caps.N, caps.L
    n_split, n_retry, n_child, n_live = cnt

    def body(b, carry):
        front, const, route, log = carry
        o = b * C
        (gid, tree, uid, c1, c0, depth, risk), _ = _front_block(state, o, C)
        rec, constp = dslice(state.rec, o, C), dslice(state.constp, o, C)
        flags = rec[:, 0]
        has, retry, live_l, live_r = ((flags >> k) & 1 > 0 for k in range(4))
        feature, code, lc1, lc0 = rec[:, 1], rec[:, 2], rec[:, 3], rec[:, 4]
        split_rank, retry_rank = rec[:, 9], rec[:, 10]
        g_left = state.n_nodes + 2 * split_rank
        d1 = depth + 1
        left_t = jnp.where(has, jnp.where(live_l, n_retry + rec[:, 11], N), jnp.where(retry, retry_rank, N))
        right_t = jnp.where(has, jnp.where(live_r, n_retry + rec[:, 12], N), jnp.where(retry, retry_rank, N))
        pos = jnp.concatenate([jnp.where(retry, retry_rank, N), jnp.where(live_l, left_t, N),
                               jnp.where(live_r, right_t, N)])
        at = jnp.where(pos < N, pos, N)
        vals = ((gid, g_left, g_left + 1), (tree,) * 3,
                (uid, node_uid_child_u32(uid, jnp.int32(0)), node_uid_child_u32(uid, jnp.int32(1))),
                (c1, lc1, c1 - lc1), (c0, lc0, c0 - lc0), (depth, d1, d1),
                (risk, jax.lax.bitcast_convert_type(rec[:, 6], risk.dtype),
                 jax.lax.bitcast_convert_type(rec[:, 7], risk.dtype)))
        front = tuple(a.at[at].set(jnp.concatenate(v).astype(a.dtype), mode="drop") for a, v in zip(front, vals))
        const = const.at[at].set(jnp.concatenate([constp] * 3), mode="drop")
        route = dupdate(route, o, jnp.stack([jnp.where(has, feature, 0), jnp.where(has, code, 255), left_t, right_t],
                                         1))
        tree_i = tree.astype(jnp.int32)
        kids = jnp.stack([jnp.stack([tree_i, d1, lc1, lc0, rec[:, 6], 0 * d1], 1),
                          jnp.stack([tree_i, d1, c1 - lc1, c0 - lc0, rec[:, 7], 0 * d1], 1)], 1).reshape(2 * C, -1)
        kid_at = jnp.where(jnp.repeat(has, 2), 1 + state.n_log + 2 * jnp.repeat(split_rank, 2)
                           + jnp.tile(jnp.arange(2, dtype=jnp.int32), C), log.shape[0])
        log = log.at[kid_at].set(kids, mode="drop")
        splits = jnp.stack([gid, feature, code, rec[:, 8], g_left, 0 * gid], 1)
        log = log.at[jnp.where(has, 1 + L + state.n_slog + split_rank, log.shape[0])].set(splits, mode="drop")
        return front, const, route, log

    front, const, route, log = _block_loop(0, cdiv(state.n_front, C), body,
                                           (state.nfront, state.nconst, state.route, state.log))
    return state._replace(nfront=front, nconst=const, route=route, log=log, n_log=state.n_log + 2 * n_split,
                          n_slog=state.n_slog + n_split, n_nodes=state.n_nodes + 2 * n_split)


# ------------------------------------------------------------------------------------------------ the level loop


def _use_hist(state, cfg: GrowConfig, caps: Caps):
    """Histograms ("best" mode, or Extra Trees unless they would be much larger than the entries and do not fit one
    buffer); the rule reads replicated values only, so every device of a sharded growth takes the same path."""
    if cfg.mode == "best" or cfg.two_pass is False:
        return jnp.bool_(True)
    if cfg.two_pass:
        return jnp.bool_(False)
    cells = state.n_front * cfg.n_bins
    return (state.n_front <= caps.NH) & ((cells <= 2 * state.n_live) | (cells * cfg.n_slots <= _HIST_SMALL))


def _level(state, data: GrowData, cfg: GrowConfig, caps: Caps, axis):
    """One level: features, statistics, decisions, commit, routing (module docstring)."""
    feats, ok = _sample(state, data, cfg, caps)
    state = state._replace(feats=feats, ok=ok)
    use = _use_hist(state, cfg, caps)
    cnt = (jnp.int32(0),) * 4
    state, cnt = _hist_windows(state, data, cfg, caps, axis, use, cnt)
    if cfg.mode == "random":
        state, cnt = _two_pass(state, data, cfg, caps, axis, ~use, cnt)
    state = _commit(state, caps, cnt)
    n_front, n_live = cnt[1] + cnt[2], cnt[3]
    n_dev = 1 if axis is None else jax.lax.psum(1, axis)
    n_ent = state.n_ent[0]
    compact = (n_ent - n_live // n_dev) * 8 >= n_ent  # over devices: their mean share of the entries
    rows, nid, n_ent = route_pass(state, data, caps, compact & (n_ent > 0))
    return state._replace(rows=rows, nid=nid, n_ent=n_ent, front=state.nfront, const=state.nconst, n_front=n_front,
                          n_live=n_live,
                          level=state.level + 1)


def grow(state: GrowState, data: GrowData, *, cfg: GrowConfig, caps: Caps, axis=None) -> GrowState:
    """Grow levels until the frontier is empty, could overflow its buffers, or the log is full (module docstring);
    the log's header row says which."""
    fresh = state.flushed > 0
    state = state._replace(n_log=jnp.where(fresh, 0, state.n_log), n_slog=jnp.where(fresh, 0, state.n_slog),
                           flushed=jnp.int32(0))

    def cond(st):
        nf = st.n_front
        return (nf > 0) & (2 * nf <= caps.N) & (st.n_log + 2 * nf <= caps.L) & (st.n_slog + nf <= caps.L // 2)

    state = jax.lax.while_loop(cond, lambda st: _level(st, data, cfg, caps, axis), state)
    header = jnp.stack([state.n_log, state.n_slog, state.n_front, state.level, state.n_nodes, jnp.int32(0)])
    return state._replace(log=state.log.at[0].set(header), flushed=jnp.int32(1))


# ------------------------------------------------------------------------------------------------ set-up


def _scratch(cfg: GrowConfig, caps: Caps) -> dict:
    """Zeroed level buffers of a growth."""
    K, T, N = cfg.n_slots, cfg.n_thresholds if cfg.mode == "random" else 1, caps.N
    ch = () if cfg.shift > 0 else (2,)
    z = jnp.zeros
    return dict(feats=z((N, K), jnp.int32), ok=z((N, K), bool), thr=z((N, K, T), jnp.int32),
                rec=z((N, 13), jnp.int32), constp=z((N, cdiv(caps.D, 32)), _U32), route=z((N, 4), jnp.int32),
                hist=z((K * caps.NH * cfg.n_bins,) + ch, jnp.int32), mm=z((N * K, 2), jnp.int32),
                lc=z((N * K, T * (1 if cfg.shift > 0 else 2)), jnp.int32),
                log=z((1 + caps.L + caps.L // 2, LOG_WIDTH), jnp.int32))


def _root_entries(meta, rows_in, caps: Caps, all_rows: bool, axis):
    """Rows, tree and use of every entry of this device: trees ``meta[2:]`` long, rows given or ``0 .. len - 1``."""
    idx = jnp.arange(caps.M, dtype=jnp.int32) + (jax.lax.axis_index(axis) * caps.M if axis is not None else 0)
    tree_len = meta[2:]
    if all_rows:
        n_rows = jnp.maximum(tree_len[0], 1)
        tree_of = idx // n_rows
        return idx - tree_of * n_rows, tree_of, idx < meta[1] * tree_len[0]
    ends = incl_cumsum(tree_len)
    return rows_in, jnp.searchsorted(ends, idx, side="right").astype(jnp.int32), idx < ends[-1]


def init_state(data: GrowData, meta, rows_in=None, *, cfg: GrowConfig, caps: Caps, all_rows: bool,
               axis=None) -> GrowState:
    """The roots of a batch (logged) and the first frontier. ``meta``: int32 ``(t0, n_trees, entries of tree 0, ...,
    of tree T_b - 1)``; ``rows_in``: the entries' rows (``None`` when every tree has all rows, ``all_rows``)."""
    r, N, T_b = data.rules, caps.N, caps.T_b
    rows, tree_of, valid = _root_entries(meta, rows_in, caps, all_rows, axis)
    tree_of = jnp.where(valid, tree_of, T_b)
    c1 = _reduce(jax.ops.segment_sum(jnp.where(valid, data.s[rows], 0).astype(jnp.int32), tree_of, T_b), "sum", axis)
    c0 = _reduce(jax.ops.segment_sum(valid.astype(jnp.int32), tree_of, T_b), "sum", axis) - c1
    t = jnp.arange(T_b, dtype=jnp.int32)
    risk = _node_risk(c1, c0, r, cfg.risk, cfg.loss)
    live = ~_finished(risk, c1, c0, jnp.zeros_like(t), r, cfg.risk) & (t < meta[1])
    rank = excl_cumsum(live)
    nid = jnp.where(valid, jnp.where(live, rank, N)[jnp.minimum(tree_of, T_b - 1)], N)
    at = jnp.where(live, rank, N)
    vals = (t, (meta[0] + t).astype(_U32), jnp.zeros(T_b, _U32), c1, c0, jnp.zeros_like(t), risk)
    front = tuple(jnp.zeros(N, v.dtype).at[at].set(v, mode="drop") for v in vals)
    pad = pack_bits(jnp.arange(caps.D)[None, :] >= r.d)
    const = jnp.zeros((N, pad.shape[1]), _U32).at[at].set(jnp.broadcast_to(pad, (T_b, pad.shape[1])), mode="drop")
    sc = _scratch(cfg, caps)
    roots = jnp.stack([meta[0] + t, 0 * t, c1, c0, _f2i(risk), 0 * t], 1)
    sc["log"] = sc["log"].at[jnp.where(t < meta[1], 1 + t, sc["log"].shape[0])].set(roots, mode="drop")
    n_ent = jnp.sum(valid, dtype=jnp.int32)[None]
    return GrowState(rows=rows.astype(jnp.int32), nid=nid.astype(jnp.int32), n_ent=n_ent, front=front, const=const,
                     nfront=tuple(jnp.zeros_like(a) for a in front), nconst=jnp.zeros_like(const),
                     n_front=jnp.sum(live, dtype=jnp.int32), level=jnp.int32(0), n_nodes=meta[1],
                     n_live=jnp.sum(jnp.where(live, c1 + c0, 0), dtype=jnp.int32), n_log=meta[1],
                     n_slog=jnp.int32(0), flushed=jnp.int32(0), **sc)


def enlarge(state: GrowState, *, cfg: GrowConfig, old: Caps, new: Caps, axis=None) -> GrowState:
    """The same growth with larger frontier (and log) buffers: dropped entries get the new marker ``new.N``; level
    buffers start zeroed."""
    N0, N1 = old.N, new.N
    front = tuple(jnp.zeros(N1, a.dtype).at[:N0].set(a) for a in state.front)
    const = jnp.zeros((N1, state.const.shape[1]), _U32).at[:N0].set(state.const)
    nid = jnp.where(state.nid >= N0, N1, state.nid)
    return state._replace(nid=nid, front=front, const=const, nfront=tuple(jnp.zeros_like(a) for a in front),
                          nconst=jnp.zeros_like(const), **_scratch(cfg, new))
