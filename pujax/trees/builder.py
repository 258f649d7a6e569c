r"""Host side of the tree builder: settings, buffer capacities, the binned training set on the device, and the
driver that grows tree batches with :mod:`pujax.trees.grow` and assembles the forest (DESIGN §3.2).

A forest is grown in *batches* of trees (at most ``max_work`` (tree, row) entries each, at least one tree); the
batches run in host threads, one device each, or one at a time with their rows sharded over several devices
(:mod:`pujax.trees.sharding`). A batch is grown by two programs: :func:`~pujax.trees.grow.init_state` (the roots
and the first frontier, from the entries' rows -- built on the device when every tree has all rows, sent otherwise)
and :func:`~pujax.trees.grow.grow` (the whole level loop). The host sends the training set once per device and a few
numbers per batch, and reads back one array per :func:`~pujax.trees.grow.grow` call: the log of the nodes created
and the splits chosen, from which it assembles the flat node arrays of the forest
(:func:`~pujax.trees.assembly.store_from_logs`, :func:`~pujax.trees.assembly.assemble_forest`).

Shapes are static per batch and chosen from bucketed sizes (training rows padded to
:func:`~pujax.compilation.bucket_size`, entries to a bucket of rows per tree, frontier and histogram capacities
from the entries), so data of a similar size runs the same two programs. When a frontier could outgrow its buffers
the growth stops, the buffers are enlarged on the device (:func:`~pujax.trees.grow.enlarge`: a new program) and the
growth resumes where it stopped.

Termination (PU ET paper, §4 "Termination criteria"): a node is a leaf when it is *pure* (nnPU / PN node risk 0; uPU
node risk ``-inf``, or no labeled positive in the node, where every split has zero risk reduction and every
descendant predicts 0), when ``max_depth`` is reached, when it holds fewer than ``min_samples_split`` rows, or when
all its rows are identical (all features constant).
"""
from __future__ import annotations

import logging
import math
import os

import jax
import jax.numpy as jnp
import numpy as np

from pujax._compile import bucket_size, pad_rows
from pujax.devices import default_device
from pujax.trees.assembly import assemble_forest, feature_slots, store_from_logs
from pujax.trees.grow import _HIST_SMALL as _HIST_ALWAYS
from pujax.trees.grow import Caps, GrowConfig, GrowData, Rules
from pujax.trees.model import Forest
from pujax.trees.sharding import (
    SPREADS,
    Placement,
    first_local,
    local_devices,
    placement,
    run_batches,
    spread_over,
)
from pujax.validation import check_in

__all__ = ["GrowConfig", "Caps", "grow_config", "capacities", "static_config", "training_data", "grow_batch",
           "grow_forest", "ENTRY_CHUNK", "NODE_BLOCK", "MAX_WORK", "HIST_BUDGET"]

logger = logging.getLogger(__name__)

ENTRY_CHUNK = {"cpu": 1 << 15, "accelerator": 1 << 20}
"""Entries per chunk of the passes over the entries: cache-sized on a CPU, large on a GPU / TPU."""
NODE_BLOCK = {"cpu": 256, "accelerator": 4096}
"""Frontier nodes per block of the per-node kernels."""
MAX_WORK = {"cpu": 1 << 22, "accelerator": 1 << 25}
"""Default bound on the (tree, row) entries of one tree batch."""
HIST_BUDGET = 1 << 24
"""Cells (int32) of one histogram buffer: larger frontiers are processed in windows ("best" mode) or with the
two-pass Extra-Trees statistics."""


def _pow2(x: float) -> int:
    return 1 << max(0, int(math.ceil(math.log2(max(x, 1)))))


def _kind(platform: str) -> str:
    return "cpu" if platform == "cpu" else "accelerator"


def grow_config(binned, *, max_features: int, n_thresholds: int, mode: str, risk: str, loss: str,
                two_pass: bool | None, max_rows: int, max_c1: int) -> GrowConfig:
    """Static settings: histogram width (a power of two >= 64, at most the stored bins) and count packing."""
    d = binned.codes.shape[1]
    n_bins = 1 << max(6, int(math.ceil(math.log2(max(int(binned.n_bins_per_feature.max()), 2)))))
    n_bins = min(n_bins, int(binned.bin_lo.shape[1]))
    shift = bucket_size(max_rows).bit_length() if max_rows else 1  # from the bucket: one program per bucket
    if max_c1.bit_length() + shift > 31:
        shift = 0  # counts too large to pack two per int32: two channels
    return GrowConfig(n_slots=min(int(max_features), d), n_thresholds=int(n_thresholds) if mode == "random" else 1,
                      n_bins=n_bins, shift=shift, mode=mode, risk=risk, loss=loss, two_pass=two_pass)


def capacities(n_pad: int, D: int, trees: int, max_rows: int, cfg: GrowConfig, *, n_devices: int = 1,
               platform: str = "cpu", max_depth: int | None = None, hist_budget: int = HIST_BUDGET) -> Caps:
    """Buffer shapes of a batch of ``trees`` trees of at most ``max_rows`` entries each (see :class:`Caps`).

    Entries: ``trees * bucket_size(max_rows)`` split over the devices, in chunks. Frontier: a power of two of at
    least 1024 nodes and 1/128 of the entries (at most what ``max_depth`` allows; a growth whose frontier would
    outgrow it is resumed with larger buffers). Histograms: the nodes whose histograms are at most twice the entries
    (the rule of :func:`pujax.trees.grow._use_hist`), at most a quarter of the frontier (half when those histograms
    are small), within ``hist_budget`` cells. Log: at least twice the frontier, and a sixteenth of the entries up to
    2^20 nodes (a growth with more nodes flushes its log to the host more than once)."""
    kind = _kind(platform)
    total = trees * bucket_size(max(max_rows, 1))
    per_device = -(-total // n_devices)
    C_e = min(ENTRY_CHUNK[kind], _pow2(per_device))
    N = max(1024, _pow2(2 * trees), _pow2(total / 128))
    if max_depth is not None:
        N = min(N, max(1024, _pow2(2 * trees) * 2 ** min(int(max_depth), 24)))
    C_n = min(NODE_BLOCK[kind], N // 2)
    cells = cfg.n_slots * cfg.n_bins
    if cfg.mode == "best":
        nh = hist_budget // cells
    else:
        nh = min(max(2 * total // cfg.n_bins, _HIST_ALWAYS // cells), hist_budget // cells)
    small = (N // 2) * cells <= _HIST_ALWAYS  # every frontier's histograms are small: one buffer holds them
    NH = min(max(nh // C_n * C_n, C_n), N // 2 if small else N // 4)
    L = max(2 * N + 2 * trees, min(_pow2(total / 16), 1 << 20))
    return Caps(n=n_pad, D=D, M=-(-per_device // C_e) * C_e, N=N, NH=NH, L=L + L % 2, T_b=trees, C_e=C_e, C_n=C_n)


def static_config(cfg: GrowConfig, caps: Caps) -> GrowConfig:
    """``cfg`` with the Extra-Trees statistics fixed to histograms when the rule of
    :func:`pujax.trees.grow._use_hist` would choose them at every level (every possible frontier's histograms fit one
    buffer and are small): the program then holds one path and compiles faster; the forest is the same."""
    cells = cfg.n_slots * cfg.n_bins
    small = caps.N // 2 <= caps.NH and (caps.N // 2) * cells <= _HIST_ALWAYS
    if cfg.mode == "random" and cfg.two_pass is None and small:
        return cfg._replace(two_pass=False)
    return cfg


def _enlarged(caps: Caps, n_front: int) -> Caps:
    """Capacities for a frontier of ``n_front`` nodes: the frontier buffers at least 4 times larger."""
    N = max(4 * caps.N, _pow2(4 * n_front))
    L = max(caps.L, 2 * N + 2 * caps.T_b)
    return caps._replace(N=N, L=L + L % 2)


def training_data(binned, s: np.ndarray, cfg: GrowConfig, place: Placement, *, seed: int, wu: float, rho: float,
                  sigma: float, max_depth: int | None, min_samples_split: int, dtype=jnp.float32) -> GrowData:
    """Put the binned training set on the device(s) of ``place``: codes feature-major and flat, rows zero-padded to
    :func:`~pujax.compilation.bucket_size` so that data of a similar size runs the same programs (padding rows are
    never an entry's row), features to :func:`~pujax.trees.assembly.feature_slots` (zero codes, never sampled)."""
    n, d = binned.codes.shape
    n_pad = bucket_size(n)
    D = feature_slots(d, cfg.n_slots, n_pad)
    codes_t = np.zeros((D, n_pad), binned.codes.dtype)
    codes_t[:d, :n] = binned.codes.T
    bin_lo, bin_hi = pad_rows(D, binned.bin_lo[:, :cfg.n_bins], binned.bin_hi[:, :cfg.n_bins])
    fl = np.dtype(dtype)
    host = [codes_t.reshape(-1), pad_rows(n_pad, np.asarray(s, np.uint8)), bin_lo, bin_hi,
            np.asarray(wu, fl), np.asarray(rho, fl), np.asarray(sigma, fl), np.uint32(seed),
            np.int32(2**30 if max_depth is None else max_depth), np.int32(min_samples_split), np.int32(d)]
    dev = place.replicate(*host)
    return GrowData(*dev[:4], Rules(*dev[4:]))


def _all_rows(tree_rows, n: int) -> bool:
    """Every tree grown on all ``n`` rows in order (the entries are then built on the device)."""
    checked = set()
    for r in tree_rows:
        if id(r) not in checked:
            if len(r) != n or not np.array_equal(r, np.arange(n)):
                return False
            checked.add(id(r))
    return bool(checked)


def grow_batch(place: Placement, data: GrowData, cfg: GrowConfig, caps: Caps, tree_rows, t0: int,
               n_rows: int) -> dict:
    """Grow trees ``t0 .. t0 + len(tree_rows) - 1`` (``tree_rows``: each tree's training rows, repeats allowed);
    return the batch's node-store columns (:func:`~pujax.trees.assembly.store_from_logs`)."""
    nt = len(tree_rows)
    lens = np.zeros(caps.T_b, np.int32)
    lens[:nt] = [len(r) for r in tree_rows]
    if int(lens.sum()) > caps.M * place.n_devices:
        raise ValueError(f"{int(lens.sum())} entries do not fit the batch's {caps.M * place.n_devices}.")
    every = _all_rows(tree_rows, n_rows)
    rows_in = None
    if not every:
        rows = np.zeros(caps.M * place.n_devices, np.int32)
        cat = np.concatenate([np.asarray(r, np.int32) for r in tree_rows])
        rows[:len(cat)] = cat
        rows_in = place.put_rows(rows)
    (meta,) = place.replicate(np.concatenate([[t0, nt], lens]).astype(np.int32))
    state = place.init(data, meta, rows_in, cfg=cfg, caps=caps, all_rows=every)
    logs = []
    while True:
        state = place.grow(state, data, cfg=cfg, caps=caps)
        log = place.get(state.log)
        logs.append(log)
        n_front = int(log[0, 2])
        logger.debug("trees %d+: %d nodes logged, level %d, frontier %d", t0, int(log[0, 4]), int(log[0, 3]),
                     n_front)
        if n_front == 0:
            return store_from_logs(logs)
        if 2 * n_front > caps.N:
            new = _enlarged(caps, n_front)
            logger.debug("trees %d+: frontier buffers %d -> %d nodes", t0, caps.N, new.N)
            state, caps = place.enlarge(state, cfg=cfg, old=caps, new=new), new


def _work_plan(devices: tuple, n_trees: int, max_rows: int, max_work: int | None, n_threads: int | None,
               spread: str | None) -> tuple:
    """``(homes, n_workers, n_procs, batch, spread)``: the devices where batches' programs run, host threads, processes
    sharing the batches, trees per batch and how the devices share the work (see :func:`grow_forest`)."""
    kind = _kind(devices[0].platform)
    max_work = MAX_WORK[kind] if max_work is None else int(max_work)
    if n_threads is None:
        n_threads = (os.cpu_count() or 1) if kind == "cpu" else 1
    spread = check_in(spread, "spread", SPREADS) if spread else spread_over(devices, max_rows, max_work)
    homes = (first_local(devices),) if spread == "rows" else local_devices(devices)
    n_workers = 1 if spread == "rows" else max(1, int(n_threads), len(homes))
    n_procs = len({dev.process_index for dev in devices}) if spread == "trees" else 1  # each with n_workers
    batch = max(1, min(n_trees, max_work // max(max_rows, 1), -(-n_trees // (n_workers * n_procs))))
    return homes, n_workers, n_procs, batch, spread


def grow_forest(binned, s: np.ndarray, tree_rows, *, seed: int, risk: str, loss: str, wu: float, rho: float,
                sigma: float, max_features: int, n_thresholds: int, mode: str, max_depth: int | None,
                min_samples_split: int, max_work: int | None = None, hist_budget: int = HIST_BUDGET, bar=None,
                dtype=jnp.float32, n_threads: int | None = 1, two_pass: bool | None = None, center=None,
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
    seed, risk, loss : int, str, str
        uint32 seed of the counter-based randomness; node-risk estimator and loss (:func:`pujax.risk.node_risk`).
    wu, rho, sigma : float
        Weights ``W_p = wu rho c1``, ``W_n = wu (c0 - sigma rho c1)`` (see :mod:`pujax.trees.kernels`).
    max_features, n_thresholds : int
        Features sampled per node; random thresholds per feature ("random" mode).
    mode : {"random", "best"}
        Extra Trees (random thresholds), or the best bin boundary.
    max_depth, min_samples_split : int or None, int
        Stopping rules.
    max_work, hist_budget : int, default=None, HIST_BUDGET
        Bounds on the (tree, row) entries of one tree batch (at least one tree; None: :data:`MAX_WORK` of the
        devices' platform) and on the cells of one histogram buffer.
    bar, dtype : object with ``update(k)`` or None, numpy dtype
        Progress bar (updated once per finished tree batch with its size); float type of the node statistics.
    n_threads : int or None, default=1
        Tree batches grown concurrently in host threads (XLA releases the GIL while it runs), spread over the
        devices (at least one thread per device; None: one per CPU core on CPU devices, one per device on
        accelerators); with rows sharded, one batch at a time over all devices.
    two_pass : bool or None
        Extra-Trees statistics from (min, max) + left-count passes instead of histograms (None: chosen per level,
        histograms unless they would be much larger than the entries).
    center, scale : ndarray or None
        The standardisation the binned matrix was made with, stored in the forest (None: 0 and 1).
    devices : tuple of jax.Device or None
        None: the default device. On several, whole tree batches per device or the entries sharded over them with
        the integer statistics summed every level (:mod:`pujax.trees.sharding`): the same forest either way.
    spread : {"trees", "rows"} or None
        How several devices share the work (None: :func:`~pujax.trees.sharding.spread_over` chooses).

    Returns
    -------
    Forest
    """
    n, d = binned.codes.shape
    n_trees = len(tree_rows)
    max_c1 = max(int(s[np.asarray(r)].sum()) for r in tree_rows) if n_trees else 0
    max_rows = max((len(r) for r in tree_rows), default=0)
    cfg = grow_config(binned, max_features=max_features, n_thresholds=n_thresholds, mode=mode, risk=risk,
                      loss=loss, two_pass=two_pass, max_rows=max_rows, max_c1=max_c1)
    devices = tuple(devices) if devices else (default_device(),)
    homes, n_workers, n_procs, batch, spread = _work_plan(devices, n_trees, max_rows, max_work, n_threads, spread)
    grown = {}
    for home in homes:
        with jax.default_device(home):
            place = placement(devices if spread == "rows" else (home,))
            data = training_data(binned, s, cfg, place, seed=seed, wu=wu, rho=rho, sigma=sigma, max_depth=max_depth,
                                 min_samples_split=min_samples_split, dtype=dtype)
            caps = capacities(int(data.s.shape[0]), int(data.bin_lo.shape[0]), batch, max_rows, cfg,
                              n_devices=place.n_devices, platform=home.platform, max_depth=max_depth,
                              hist_budget=hist_budget)
            grown[home] = (place, data, caps)

    def grow(t0, home):
        t1 = min(n_trees, t0 + batch)
        place, data, caps = grown[home]
        out = grow_batch(place, data, static_config(cfg, caps), caps, tree_rows[t0:t1], t0, n)
        if bar is not None:
            bar.update(t1 - t0)
        return out

    parts = run_batches(grow, range(0, n_trees, batch), homes, n_workers, across_processes=n_procs > 1)
    return assemble_forest(parts, binned, n_trees, wu, rho, sigma, np.zeros(d) if center is None else center,
                           np.ones(d) if scale is None else scale)
