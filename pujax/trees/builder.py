r"""Host-side level-wise growth of all the trees of a forest into flat node arrays (DESIGN §3.2).

All trees of a batch grow together, one level per iteration, as a sequence of named steps on a typed state:

1. :func:`root_level` -- the roots of the batch and the training *entries* ``(row, node)`` in fixed-size chunks;
2. :func:`sample_node_features` -- per node, ``max_features`` distinct features among those not known constant;
3. :func:`level_splits` -- one jit pass over each chunk routes the entries to the children chosen at the previous
   level and accumulates the per-(node, feature, bin) histograms (or, when those would be much larger than the
   entries, (min, max) + left-count passes); per-node kernels in blocks of 128 or 1024 nodes draw the candidate
   thresholds and pick the split with the largest risk reduction (:mod:`pujax.trees.kernels`);
4. :func:`record_splits` -- vectorised numpy on the host: node risks, newly constant features, the children of
   every split appended to the node store, and which children are finished (pure, too small, too deep);
5. :func:`next_level` -- the next frontier (nodes to retry and live children) and the routing table of this
   level's splits.

Entries of finished leaves are dropped whenever that frees a chunk (:func:`compact_entries`), so the work per level
shrinks with the rows still in play (the chunk size also drops 8-fold in the tail of the growth). Node counts are
padded to 128, 1024 or a multiple of 1024 and chunks have one size per batch, so only a few kernel shapes are ever
compiled.

Termination (PU ET paper, §4 "Termination criteria"): a node is a leaf when it is *pure* (nnPU / PN node risk 0; uPU
node risk ``-inf``, or no labeled positive in the node, where every split has zero risk reduction and every
descendant predicts 0), when ``max_depth`` is reached, when it holds fewer than ``min_samples_split`` rows, or when
all its rows are identical (all features constant).
"""
from __future__ import annotations

import logging
import math
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from pujax._compile import bucket_size, jit, pad_rows
from pujax.devices import default_device, padded_size
from pujax.risk import node_risk
from pujax.trees.assembly import (
    NodeStore,
    assemble_forest,
    chunk_size,
    compact_chunks,
    concat_pad,
    feature_slots,
    hist_shape,
    make_chunks,
    node_block,
    pad,
    pad2,
    pad_nodes,
    put,
    put_all,
)
from pujax.trees.kernels import (
    choose_best_splits,
    choose_random_splits,
    draw_thresholds,
    finish_left,
    finish_range,
    node_uid_child,
    prepare_nodes,
    split_histogram,
)
from pujax.trees.model import Forest
from pujax.trees.sharding import (
    SPREADS,
    EntryPasses,
    entry_passes,
    first_local,
    local_devices,
    run_batches,
    spread_over,
)
from pujax.validation import check_in

__all__ = [
    "GrowConfig", "TrainingData", "Frontier", "Routing", "Entries", "LevelState", "NodeBlock", "LevelSplits",
    "Children", "grow_config", "training_data", "root_level", "sample_node_features", "level_splits",
    "record_splits", "next_level", "compact_entries", "grow_batch", "grow_forest", "is_pure",
]

logger = logging.getLogger(__name__)


class GrowConfig(NamedTuple):
    """Static settings of a growth (shapes and rules)."""

    n_slots: int  # features sampled per node (K)
    n_thresholds: int  # candidate thresholds per feature (T; the bin count in "best" mode)
    n_bins: int  # static histogram width (B)
    shift: int  # bit offset of the s=1 count in packed histogram cells (0: two channels)
    mode: str  # "random" (Extra Trees) or "best"
    risk: str
    loss: str
    max_depth: int | None
    min_samples_split: int
    hist_budget: int  # bound on histogram cells per pass in "best" mode
    two_pass: bool | None  # Extra-Trees statistics by (min, max) + left counts (None: chosen per level)


class TrainingData(NamedTuple):
    """Device arrays of the training set shared by every batch."""

    codes_t: jax.Array  # (D * n,) uint8 bin codes, feature-major: codes_t[f * n + row]; D = feature_slots(d, ...)
    n: int
    s: jax.Array  # (n,) uint8 labels
    bin_lo: jax.Array  # (D, B) smallest training value per bin
    bin_hi: jax.Array  # (D, B) largest training value per bin
    wu: jax.Array
    rho: jax.Array
    sigma: jax.Array
    seed: jax.Array  # uint32
    passes: EntryPasses  # where the passes over the entries run (one device, or rows sharded over a mesh)


class Frontier(NamedTuple):
    """The active (to be split) nodes of one level, host arrays of length N."""

    gid: np.ndarray  # node id in the batch's node store
    tree: np.ndarray  # uint32 global tree index
    uid: np.ndarray  # uint32 node uid (hash of the path from the root)
    c1: np.ndarray  # int64 rows with s = 1
    c0: np.ndarray  # int64 rows with s = 0
    depth: np.ndarray  # int64
    const: np.ndarray  # (N, d) bool, features known constant in the node


class Routing(NamedTuple):
    """Splits of the previous level, indexed by the previous frontier position (host arrays)."""

    feature: np.ndarray  # (N_prev_pad,) int32
    code: np.ndarray  # (N_prev_pad,) int32, go right iff code > this
    child_map: np.ndarray  # (N_prev_pad, 2) int32, position of (left, right) child in this level (-1: none)


class Entries(NamedTuple):
    """(row, node) pairs of the live rows, in device chunks of one size."""

    chunks: tuple  # of (rows, nid) int32 device arrays of length ``size``
    size: int
    n_live: int


class LevelState(NamedTuple):
    """State of the growth at the start of a level."""

    frontier: Frontier
    entries: Entries
    routing: Routing
    n_pad: int  # padded node count of this level
    level: int


class NodeBlock(NamedTuple):
    """Device arrays of one block of at most 1024 frontier nodes, with their sampled features."""

    span: slice
    tree: jax.Array
    uid: jax.Array
    c1: jax.Array
    c0: jax.Array
    feats: jax.Array  # (nb, K) int32 sampled features
    ok: jax.Array  # (nb, K) bool, slot used


class LevelSplits(NamedTuple):
    """Best split of every frontier node (host arrays of length N)."""

    feature: np.ndarray
    code: np.ndarray
    left_c1: np.ndarray
    left_c0: np.ndarray
    risk_node: np.ndarray
    risk_left: np.ndarray
    risk_right: np.ndarray
    rr: np.ndarray
    has_split: np.ndarray
    newly_const: np.ndarray  # (N, K) sampled features found constant in the node
    feats: np.ndarray  # (N, K)


class Children(NamedTuple):
    """What :func:`record_splits` made of a level: the split nodes, the nodes to retry and the new children."""

    split: np.ndarray  # frontier positions with a split (S)
    retry: np.ndarray  # frontier positions without a split but with non-constant features (to retry)
    const: np.ndarray  # (N, d) known-constant masks after this level
    gid: np.ndarray  # (2 |S|,) children ids, (left, right) interleaved
    tree: np.ndarray
    uid: np.ndarray
    c1: np.ndarray
    c0: np.ndarray
    depth: np.ndarray
    finished: np.ndarray  # (2 |S|,) bool, child is a leaf


def is_pure(risk_values, c1, risk: str) -> np.ndarray:
    """Pure nodes: uPU risk ``-inf`` or no labeled positive; nnPU / PN risk ``<= 0``."""
    r = np.asarray(risk_values, dtype=np.float64)
    if risk == "upu":
        return np.isneginf(r) | (np.asarray(c1) == 0)
    return r <= 0.0


def _finished(risk_values, c1, c0, depth, cfg: GrowConfig) -> np.ndarray:
    done = is_pure(risk_values, c1, cfg.risk) | ((c1 + c0) < cfg.min_samples_split)
    if cfg.max_depth is not None:
        done |= depth >= cfg.max_depth
    return done


@partial(jit, "kernel", static_argnames=("risk", "loss"))
def _root_risk(c1, c0, wu, rho, sigma, *, risk, loss):
    """Node risk of the roots, computed exactly like the per-node kernels do (float32 on device)."""
    c1 = c1.astype(wu.dtype)
    c0 = c0.astype(wu.dtype)
    return node_risk(wu * (rho * c1), wu * (c0 - sigma * (rho * c1)), risk=risk, loss=loss)


# ------------------------------------------------------------------------------------------------ setup


def grow_config(binned, *, max_features: int, n_thresholds: int, mode: str, risk: str, loss: str,
                max_depth: int | None, min_samples_split: int, hist_budget: int, two_pass: bool | None,
                max_rows: int, max_c1: int) -> GrowConfig:
    """Static settings: histogram width (a power of two >= 64, at most the stored bins) and count packing."""
    d = binned.codes.shape[1]
    n_bins = 1 << max(6, int(math.ceil(math.log2(max(int(binned.n_bins_per_feature.max()), 2)))))
    n_bins = min(n_bins, int(binned.bin_lo.shape[1]))
    shift = bucket_size(max_rows).bit_length() if max_rows else 1  # from the bucket: one program per bucket
    if max_c1.bit_length() + shift > 31:
        shift = 0  # counts too large to pack two per int32: two channels
    return GrowConfig(
        n_slots=min(int(max_features), d), n_thresholds=int(n_thresholds) if mode == "random" else n_bins,
        n_bins=n_bins, shift=shift, mode=mode, risk=risk, loss=loss, max_depth=max_depth,
        min_samples_split=min_samples_split, hist_budget=hist_budget, two_pass=two_pass)


def training_data(binned, s: np.ndarray, cfg: GrowConfig, *, seed: int, wu: float, rho: float, sigma: float,
                  dtype=jnp.float32, devices: tuple | None = None) -> TrainingData:
    """Put the binned training set on the device (codes feature-major, flat), rows zero-padded to
    :func:`~pujax.compilation.bucket_size` so that data of a similar size runs the same programs (padding rows
    are never referenced by an entry) and features to :func:`feature_slots` (zero codes)."""
    devices = tuple(devices) if devices else (default_device(),)
    n = bucket_size(binned.codes.shape[0])
    d = binned.codes.shape[1]
    D = feature_slots(d, cfg.n_slots, n)
    s = pad_rows(n, np.asarray(s, dtype=np.uint8))
    codes_t = np.zeros((D, n), binned.codes.dtype)  # padding rows and features: code 0
    codes_t[:d, :binned.codes.shape[0]] = binned.codes.T
    bin_lo, bin_hi = pad_rows(D, binned.bin_lo[:, :cfg.n_bins], binned.bin_hi[:, :cfg.n_bins])
    with jax.default_device(first_local(devices)):  # where the per-node kernels run
        passes = entry_passes(devices)
        return TrainingData(
            codes_t=passes.replicate(codes_t.reshape(-1)), n=int(n), s=passes.replicate(s),
            bin_lo=put(bin_lo), bin_hi=put(bin_hi),
            wu=put(wu, np.dtype(dtype)), rho=put(rho, np.dtype(dtype)), sigma=put(sigma, np.dtype(dtype)),
            seed=put(np.uint32(seed)), passes=passes)


# ------------------------------------------------------------------------------------------------ steps


def root_level(data: TrainingData, s: np.ndarray, tree_rows, t0: int, d: int, cfg: GrowConfig,
               store: NodeStore) -> LevelState | None:
    """Add the roots of trees ``t0 .. t0 + len(tree_rows) - 1`` to ``store``; the first level's state (``None``
    when every root is already a leaf)."""
    nt = len(tree_rows)
    rows = np.concatenate([np.asarray(r, dtype=np.int32) for r in tree_rows])
    tree_of_entry = np.repeat(np.arange(nt, dtype=np.int32), [len(r) for r in tree_rows])
    c1 = np.array([int(s[r].sum()) for r in tree_rows], dtype=np.int64)
    c0 = np.array([len(r) for r in tree_rows], dtype=np.int64) - c1
    size = 128 if nt <= 128 else nt
    risk = np.asarray(_root_risk(put(pad(c1.astype(np.int32), size)),
                                 put(pad(c0.astype(np.int32), size)), data.wu, data.rho, data.sigma,
                                 risk=cfg.risk, loss=cfg.loss))[:nt]
    gid = store.add(tree=np.arange(t0, t0 + nt), depth=np.zeros(nt), c1=c1, c0=c0, risk=risk)
    done = _finished(risk, c1, c0, np.zeros(nt, np.int64), cfg)
    keep = ~done
    N = int(keep.sum())
    if N == 0:
        return None
    const = np.zeros((N, data.bin_lo.shape[0]), bool)
    const[:, d:] = True  # the padding features of feature_slots
    frontier = Frontier(gid=gid[keep], tree=(np.arange(nt) + t0)[keep].astype(np.uint32),
                        uid=np.zeros(N, np.uint32), c1=c1[keep], c0=c0[keep], depth=np.zeros(N, np.int64),
                        const=const)
    position = np.full(nt, -1, dtype=np.int64)
    position[keep] = np.arange(N)
    nid = position[tree_of_entry]
    live = nid >= 0
    n_pad = pad_nodes(N)
    n_live = int(live.sum())
    size = padded_size(chunk_size(n_live), data.passes.n_devices)
    entries = Entries(make_chunks(rows[live], nid[live].astype(np.int32), size, n_pad, data.passes.put_rows),
                      size, n_live)
    # routing of the "previous level" for the first pass: identity, everything goes left
    child_map = np.full((n_pad, 2), -1, np.int32)
    child_map[:N, 0] = np.arange(N)
    routing = Routing(np.zeros(n_pad, np.int32), np.full(n_pad, 255, np.int32), child_map)
    return LevelState(frontier, entries, routing, n_pad, 0)


def sample_node_features(state: LevelState, data: TrainingData, cfg: GrowConfig) -> list[NodeBlock]:
    """Device blocks of the frontier with ``max_features`` features sampled per node
    (:func:`~pujax.trees.kernels.prepare_nodes`); blocks of padding only are skipped."""
    fr, n_pad = state.frontier, state.n_pad
    nb = node_block(n_pad)
    host = {"tree": pad(fr.tree, n_pad), "uid": pad(fr.uid, n_pad), "c1": pad(fr.c1.astype(np.int32), n_pad),
            "c0": pad(fr.c0.astype(np.int32), n_pad), "const": pad2(fr.const, n_pad)}
    starts = range(0, len(fr.gid), nb)
    level, *dev = put_all(np.uint32(state.level), *(v[b:b + nb] for b in starts for v in host.values()))
    blocks = []
    for i, b in enumerate(starts):
        tree, uid, c1, c0, const = dev[5 * i:5 * i + 5]
        feats, ok = prepare_nodes(const, data.seed, tree, uid, level, n_slots=cfg.n_slots)
        blocks.append(NodeBlock(slice(b, b + nb), tree, uid, c1, c0, feats, ok))
    return blocks


def _route_args(routing: Routing) -> tuple:
    """Device routing tables padded to >= 4096 rows: the entry kernels then compile once per node padding."""
    size = max(4096, len(routing.feature))
    return put_all(pad(routing.feature, size), pad(routing.code, size), pad2(routing.child_map, size, -1))


def _random_from_histograms(state, blocks, feats, route_args, data, cfg):
    """Extra-Trees splits from per-(node, feature, bin) histograms (one routing + scatter pass per chunk)."""
    ps = data.passes
    acc = ps.zeros(hist_shape(cfg.n_slots, state.n_pad, cfg.n_bins, cfg.shift))
    chunks = []
    for rows_c, nid_c in state.entries.chunks:
        acc, nid_c = ps.route_and_histogram(acc, data.codes_t, data.s, rows_c, nid_c, *route_args, feats,
                                            n_bins=cfg.n_bins, shift=cfg.shift, n=data.n)
        chunks.append((rows_c, nid_c))
    hist = split_histogram(ps.finish(acc), n_bins=cfg.n_bins, n_blocks=state.n_pad // node_block(state.n_pad))
    level = put(state.level, np.uint32)
    outs = [choose_random_splits(h, bk.feats, bk.ok, bk.c1, bk.c0, data.seed, bk.tree, bk.uid, level, data.wu,
                                 data.rho, data.sigma, data.bin_lo, data.bin_hi, from_hist=True,
                                 n_thresholds=cfg.n_thresholds, n_bins=cfg.n_bins, shift=cfg.shift, risk=cfg.risk,
                                 loss=cfg.loss)
            for bk, h in zip(blocks, hist)]
    return tuple(chunks), outs


def _random_two_pass(state, blocks, feats, route_args, data, cfg):
    """Extra-Trees splits from a (min, max) pass, thresholds, then a left-count pass (no histograms)."""
    ps = data.passes
    acc = ps.zeros((cfg.n_slots, state.n_pad, 2))
    chunks = []
    for rows_c, nid_c in state.entries.chunks:
        acc, nid_c = ps.route_and_range(acc, data.codes_t, rows_c, nid_c, *route_args, feats, n=data.n)
        chunks.append((rows_c, nid_c))
    n_blocks = state.n_pad // node_block(state.n_pad)
    ranges = finish_range(ps.finish_max(acc), n_blocks=n_blocks)  # (mx, mn) per node block
    level = put(state.level, np.uint32)
    T = cfg.n_thresholds
    thr = [draw_thresholds(mn, mx, bk.feats, bk.ok, data.seed, bk.tree, bk.uid, level, data.bin_lo, data.bin_hi,
                           n_thresholds=T, n_bins=cfg.n_bins)[0] for bk, (mx, mn) in zip(blocks, ranges)]
    thr_all = concat_pad(thr, state.n_pad)
    acc = ps.zeros((cfg.n_slots, state.n_pad, T if cfg.shift > 0 else 2 * T))
    for rows_c, nid_c in chunks:
        acc = ps.left_counts(acc, data.codes_t, data.s, rows_c, nid_c, feats, thr_all, shift=cfg.shift, n=data.n)
    lefts = finish_left(ps.finish(acc), shift=cfg.shift, n_blocks=n_blocks)
    outs = []
    for bk, t, (mx, mn), (l_all, l_c1) in zip(blocks, thr, ranges, lefts):
        stats = (mn, mx, l_all, l_c1, t)
        outs.append(choose_random_splits(stats, bk.feats, bk.ok, bk.c1, bk.c0, data.seed, bk.tree, bk.uid, level,
                                         data.wu, data.rho, data.sigma, data.bin_lo, data.bin_hi, from_hist=False,
                                         n_thresholds=T, n_bins=cfg.n_bins, shift=cfg.shift, risk=cfg.risk,
                                         loss=cfg.loss))
    return tuple(chunks), outs


def _best(state, blocks, route_args, data, cfg):
    """Best splits over every bin boundary: route, then histograms per node block (at most ``hist_budget``
    cells per pass)."""
    n_pad, ps = state.n_pad, data.passes
    chunks = tuple((r, ps.route(data.codes_t, r, c, *route_args, n_out=n_pad, n=data.n))
                   for r, c in state.entries.chunks)
    cells = cfg.n_slots * cfg.n_bins * (1 if cfg.shift > 0 else 2)
    outs = []
    for bk in blocks:
        nb = bk.feats.shape[0]
        sub = nb
        while sub > 16 and sub * cells > cfg.hist_budget:
            sub //= 2
        for s0 in range(0, nb, sub):
            part = NodeBlock(*(bk[:1] + tuple(v[s0:s0 + sub] for v in bk[1:]))) if sub < nb else bk
            acc = ps.zeros(hist_shape(cfg.n_slots, sub, cfg.n_bins, cfg.shift))
            offset = put(bk.span.start + s0, np.int32)
            for rows_c, nid_c in chunks:
                acc = ps.histogram(acc, data.codes_t, data.s, rows_c, nid_c, part.feats, offset, n_bins=cfg.n_bins,
                                   shift=cfg.shift, n=data.n)
            hist = split_histogram(ps.finish(acc), n_bins=cfg.n_bins, n_blocks=1)[0]
            outs.append(choose_best_splits(hist, part.feats, part.ok, part.c1, part.c0, data.wu, data.rho,
                                           data.sigma, n_bins=cfg.n_bins, shift=cfg.shift, risk=cfg.risk,
                                           loss=cfg.loss))
    return chunks, outs


def level_splits(state: LevelState, blocks: list[NodeBlock], data: TrainingData,
                 cfg: GrowConfig) -> tuple[tuple, LevelSplits]:
    """Route the entries to this level's nodes and find every node's best split.

    Returns the routed chunks (``nid`` = position in this level's frontier, ``n_pad`` when finished) and the
    splits (host arrays).
    """
    route_args = _route_args(state.routing)
    if cfg.mode == "random":
        feats = concat_pad([bk.feats for bk in blocks], state.n_pad)
        two_pass = cfg.two_pass
        if two_pass is None:  # histograms unless they would be much larger than the entries
            n_cells = state.n_pad * cfg.n_bins
            two_pass = (n_cells > 2 * state.entries.size * len(state.entries.chunks)
                        and n_cells * cfg.n_slots > (1 << 21))
        step = _random_two_pass if two_pass else _random_from_histograms
        chunks, outs = step(state, blocks, feats, route_args, data, cfg)
    else:
        chunks, outs = _best(state, blocks, route_args, data, cfg)
    N = len(state.frontier.gid)
    outs = jax.device_get(outs)  # one batched transfer of every block's results
    res = {k: np.concatenate([o[k] for o in outs])[:N] for k in outs[0]}
    return chunks, LevelSplits(**{k: res[k] for k in LevelSplits._fields})


def compact_entries(entries: Entries, chunks: tuple, n_pad: int, passes: EntryPasses) -> Entries:
    """Drop finished entries when that frees a chunk (and shrink the chunk size 8-fold in the growth's tail)."""
    size, n_live = entries.size, entries.n_live
    shrink = size >= 8 * 4096 and n_live <= size // 8
    if -(-n_live // size) < len(chunks) or shrink:
        while size >= 8 * 4096 and n_live <= size // 8:
            size = padded_size(size // 8, passes.n_devices)
        chunks = compact_chunks(chunks, size, n_pad, passes.put_rows, passes.get)
    return Entries(tuple(chunks), size, n_live)


def record_splits(store: NodeStore, frontier: Frontier, sp: LevelSplits, cfg: GrowConfig) -> Children:
    """Store node risks and splits, append the children of every split node, and mark finished children."""
    store.cols["risk"][frontier.gid] = sp.risk_node
    const = frontier.const.copy()
    nc_rows, nc_slots = np.nonzero(sp.newly_const)
    const[nc_rows, sp.feats[nc_rows, nc_slots]] = True
    retry = np.flatnonzero(~sp.has_split & ~const.all(axis=1))
    S = np.flatnonzero(sp.has_split)
    lc1 = sp.left_c1[S].astype(np.int64)
    lc0 = sp.left_c0[S].astype(np.int64)
    c1 = np.stack([lc1, frontier.c1[S] - lc1], 1).reshape(-1)
    c0 = np.stack([lc0, frontier.c0[S] - lc0], 1).reshape(-1)
    risk = np.stack([sp.risk_left[S], sp.risk_right[S]], 1).reshape(-1)
    depth = np.repeat(frontier.depth[S] + 1, 2)
    tree = np.repeat(frontier.tree[S], 2)
    uid = np.stack([node_uid_child(frontier.uid[S], 0), node_uid_child(frontier.uid[S], 1)], 1).reshape(-1)
    gid = store.add(tree=tree.astype(np.int32), depth=depth, c1=c1, c0=c0, risk=risk)
    parent = frontier.gid[S]
    store.cols["feature"][parent] = sp.feature[S]
    store.cols["code"][parent] = sp.code[S]
    store.cols["rr"][parent] = sp.rr[S]
    store.cols["left"][parent] = gid[0::2]
    store.cols["right"][parent] = gid[1::2]
    return Children(S, retry, const, gid, tree, uid, c1, c0, depth, _finished(risk, c1, c0, depth, cfg))


def next_level(state: LevelState, sp: LevelSplits, ch: Children, entries: Entries) -> LevelState | None:
    """The next frontier (retried nodes first, then live children) and the routing table of this level's splits;
    ``None`` when nothing is left to split."""
    fr, n_pad = state.frontier, state.n_pad
    R, S = ch.retry, ch.split
    live = np.flatnonzero(~ch.finished)
    N = len(R) + len(live)
    if N == 0:
        return None
    child_map = np.full((n_pad, 2), -1, dtype=np.int32)
    child_map[R, 0] = np.arange(len(R))
    child_map[R, 1] = np.arange(len(R))
    position = np.full(2 * len(S), -1, dtype=np.int64)
    position[live] = len(R) + np.arange(len(live))
    child_map[S, 0] = position[0::2]
    child_map[S, 1] = position[1::2]
    routing = Routing(pad(sp.feature.astype(np.int32), n_pad), pad(sp.code.astype(np.int32), n_pad), child_map)
    parent = np.concatenate([R, np.repeat(S, 2)[live]])
    frontier = Frontier(
        gid=np.concatenate([fr.gid[R], ch.gid[live]]),
        tree=np.concatenate([fr.tree[R], ch.tree[live]]).astype(np.uint32),
        uid=np.concatenate([fr.uid[R], ch.uid[live]]).astype(np.uint32),
        c1=np.concatenate([fr.c1[R], ch.c1[live]]),
        c0=np.concatenate([fr.c0[R], ch.c0[live]]),
        depth=np.concatenate([fr.depth[R], ch.depth[live]]),
        const=ch.const[parent],
    )
    n_live = int((frontier.c1 + frontier.c0).sum())
    return LevelState(frontier, entries._replace(n_live=n_live), routing, pad_nodes(N), state.level + 1)


# ------------------------------------------------------------------------------------------------ driver


def grow_batch(data: TrainingData, s: np.ndarray, tree_rows, t0: int, d: int, cfg: GrowConfig) -> dict:
    """Grow trees ``t0 .. t0 + len(tree_rows) - 1`` level by level; return the batch's node store columns."""
    store = NodeStore(capacity=max(1024, 64 * len(tree_rows)))
    state = root_level(data, s, tree_rows, t0, d, cfg, store)
    while state is not None:
        logger.debug("trees %d+: level %d, %d nodes (padded %d), %d entries in %d chunks of %d", t0, state.level,
                     len(state.frontier.gid), state.n_pad, state.entries.n_live, len(state.entries.chunks),
                     state.entries.size)
        blocks = sample_node_features(state, data, cfg)
        chunks, splits = level_splits(state, blocks, data, cfg)
        entries = compact_entries(state.entries, chunks, state.n_pad, data.passes)
        children = record_splits(store, state.frontier, splits, cfg)
        state = next_level(state, splits, children, entries)
    return store.view()


def grow_forest(binned, s: np.ndarray, tree_rows, *, seed: int, risk: str, loss: str, wu: float, rho: float,
                sigma: float, max_features: int, n_thresholds: int, mode: str, max_depth: int | None,
                min_samples_split: int, max_work: int = 1 << 22, hist_budget: int = 1 << 25, bar=None,
                dtype=jnp.float32, n_threads: int = 1, two_pass: bool | None = None, center=None,
                scale=None, devices: tuple | None = None, spread: str | None = None) -> Forest:
    """Grow ``len(tree_rows)`` trees and return them as one :class:`~pujax.trees.model.Forest`.

    Parameters
    ----------
    binned : BinnedData
        :class:`~pujax.trees.binning.BinnedData` of the training matrix.
    s : ndarray of shape (n,), uint8
        1 = labeled positive (PU) or positive class (PN).
    tree_rows : list of int arrays
        The training rows (with repeats for a bootstrap) of each tree.
    seed : int
        uint32 seed of the counter-based randomness.
    risk, loss : str
        Node-risk estimator and loss (:func:`pujax.risk.node_risk`).
    wu, rho, sigma : float
        Weights ``W_p = wu rho c1``, ``W_n = wu (c0 - sigma rho c1)`` (see :mod:`pujax.trees.kernels`).
    max_features, n_thresholds : int
        Features sampled per node; random thresholds per feature ("random" mode).
    mode : {"random", "best"}
        Extra Trees (random thresholds), or the best bin boundary.
    max_depth, min_samples_split : int or None, int
        Stopping rules.
    max_work, hist_budget : int, default=1 << 22, 1 << 25
        Bounds on the (tree, row) entries of one tree batch (at least one tree) and on "best" mode's histogram cells.
    bar : object with ``update(k)`` or None
        Progress bar, updated once per finished tree batch with the batch size.
    dtype : numpy dtype, default=float32
        Float type of the node statistics.
    n_threads : int, default=1
        Tree batches grown concurrently in host threads (XLA releases the GIL while it runs), spread over the
        devices (at least one thread per device); with rows sharded, one batch at a time over all devices.
    two_pass : bool or None
        Extra-Trees statistics from (min, max) + left-count passes instead of histograms (None: chosen per level,
        histograms unless they would be much larger than the entries).
    center, scale : ndarray or None
        The standardisation the binned matrix was made with, stored in the forest (None: 0 and 1).
    devices : tuple of jax.Device or None
        None: the default device. On several, whole tree batches per device or the entries of every level sharded
        over them with the integer histograms summed (:mod:`pujax.trees.sharding`): the same forest either way.
    spread : {"trees", "rows"} or None
        How several devices share the work (None: :func:`~pujax.trees.sharding.spread_over` chooses).

    Returns
    -------
    Forest
    """
    n, d = binned.codes.shape
    n_trees = len(tree_rows)
    sizes = np.array([len(r) for r in tree_rows], dtype=np.int64)
    max_c1 = max(int(s[np.asarray(r)].sum()) for r in tree_rows) if n_trees else 0
    max_rows = int(sizes.max()) if n_trees else 0
    cfg = grow_config(binned, max_features=max_features, n_thresholds=n_thresholds, mode=mode, risk=risk,
                      loss=loss, max_depth=max_depth, min_samples_split=min_samples_split,
                      hist_budget=hist_budget, two_pass=two_pass, max_rows=max_rows, max_c1=max_c1)
    devices = tuple(devices) if devices else (default_device(),)
    spread = check_in(spread, "spread", SPREADS) if spread else spread_over(devices, max_rows, max_work)
    homes = (first_local(devices),) if spread == "rows" else local_devices(devices)  # where a batch's kernels run
    data = {home: training_data(binned, s, cfg, seed=seed, wu=wu, rho=rho, sigma=sigma, dtype=dtype,
                                devices=devices if spread == "rows" else (home,)) for home in homes}
    n_workers = 1 if spread == "rows" else max(1, int(n_threads), len(homes))
    n_procs = len({dev.process_index for dev in devices}) if spread == "trees" else 1  # each with n_workers
    batch = max(1, min(n_trees, max_work // max(max_rows, 1), -(-n_trees // (n_workers * n_procs))))

    def grow(t0, home):
        t1 = min(n_trees, t0 + batch)
        out = grow_batch(data[home], s, tree_rows[t0:t1], t0, d, cfg)
        if bar is not None:
            bar.update(t1 - t0)
        return out

    parts = run_batches(grow, range(0, n_trees, batch), homes, n_workers, across_processes=n_procs > 1)
    return assemble_forest(parts, binned, n_trees, wu, rho, sigma, np.zeros(d) if center is None else center,
                           np.ones(d) if scale is None else scale)
