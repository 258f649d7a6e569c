r"""Host-side level-wise assembly of all the trees of a forest into flat node arrays (DESIGN §3.2).

All trees of a batch grow together, one level per iteration. Rows live as *entries* (row, node) in fixed-size
chunks; per level one jit pass over each chunk (:func:`~pujax.trees.kernels.route_and_histogram`) routes the
entries to the children chosen at the previous level and accumulates the histograms of the sampled features, then
per-node kernels (:func:`~pujax.trees.kernels.choose_random_splits` / ``choose_best_splits``, in blocks of at
most 1024 nodes) draw thresholds and pick the split with the largest risk reduction. The host decides in
vectorised numpy which children are finished (pure, too small, too deep), appends the new nodes to flat arrays
and builds the routing table. Entries of finished leaves are dropped whenever that frees a chunk, so the work per
level shrinks with the rows still in play (the chunk size also drops 8-fold in the tail of the growth). Node counts
are padded to 128, 1024 or a multiple of 1024 (tighter than powers of two: 15 % less CPU per fit on the 21k x 20
benchmark) and chunks have one size per batch, so only a few kernel shapes are ever compiled.

Termination (PU ET paper, §4 "Termination criteria"): a node is a leaf when it is *pure* (nnPU / PN node risk 0; uPU
node risk ``-inf``, or no labeled positive in the node, where every split has zero risk reduction and every
descendant predicts 0), when ``max_depth`` is reached, when it holds fewer than ``min_samples_split`` rows, or when
all its rows are identical (all features constant).
"""
from __future__ import annotations

import math
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from pujax.risk import node_risk
from pujax.trees.binning import split_thresholds
from pujax.trees.kernels import (
    choose_best_splits,
    choose_random_splits,
    draw_thresholds,
    finish_left,
    finish_range,
    histogram,
    left_counts,
    node_uid_child,
    prepare_nodes,
    route,
    route_and_histogram,
    route_and_range,
    split_histogram,
)

__all__ = ["grow_forest", "pad_nodes", "chunk_size", "FOREST_KEYS"]

FOREST_KEYS = (
    "feature", "threshold", "code", "left", "right", "value", "c1", "c0", "risk", "rr", "weight", "depth",
    "tree_offsets",
)


def pad_nodes(n: int) -> int:
    """Padded node count: 128 for small levels, else a multiple of 1024 (node kernels run in blocks of 1024)."""
    if n <= 128:
        return 128
    if n <= 1024:
        return 1024
    return 1024 * int(math.ceil(n / 1024))


def node_block(n_pad: int) -> int:
    """Block size of the per-node kernels (two compiled shapes: 128 and 1024)."""
    return min(n_pad, 1024)


class _NodeStore:
    """Growable columnar store of the nodes of one batch of trees."""

    fields = {
        "tree": np.int32, "depth": np.int32, "c1": np.int64, "c0": np.int64, "risk": np.float32,
        "feature": np.int32, "code": np.int32, "rr": np.float32, "left": np.int64, "right": np.int64,
    }
    defaults = {"feature": -1, "code": -1, "left": -1, "right": -1, "rr": 0.0}

    def __init__(self, capacity: int = 1024):
        self.n = 0
        self.cols = {k: np.full(capacity, self.defaults.get(k, 0), dtype=v) for k, v in self.fields.items()}

    def add(self, **cols) -> np.ndarray:
        m = len(next(iter(cols.values())))
        if self.n + m > len(self.cols["tree"]):
            cap = max(2 * len(self.cols["tree"]), self.n + m)
            for k, v in self.cols.items():
                new = np.full(cap, self.defaults.get(k, 0), dtype=v.dtype)
                new[: self.n] = v[: self.n]
                self.cols[k] = new
        ids = np.arange(self.n, self.n + m)
        for k, v in cols.items():
            self.cols[k][ids] = v
        self.n += m
        return ids

    def view(self):
        return {k: v[: self.n] for k, v in self.cols.items()}


@partial(jax.jit, static_argnames=("risk", "loss"))
def _root_risk(c1, c0, wu, rho, sigma, *, risk, loss):
    """Node risk of the roots, computed exactly like the per-node kernels do (float32 on device)."""
    c1 = c1.astype(wu.dtype)
    c0 = c0.astype(wu.dtype)
    return node_risk(wu * (rho * c1), wu * (c0 - sigma * (rho * c1)), risk=risk, loss=loss)


def _is_pure(risk_values, c1, risk: str):
    r = np.asarray(risk_values, dtype=np.float64)
    if risk == "upu":
        return np.isneginf(r) | (np.asarray(c1) == 0)
    return r <= 0.0


def grow_forest(
    binned,
    s: np.ndarray,
    tree_rows,
    *,
    seed: int,
    risk: str,
    loss: str,
    wu: float,
    rho: float,
    sigma: float,
    max_features: int,
    n_thresholds: int,
    mode: str,
    max_depth: int | None,
    min_samples_split: int,
    n_tries: int = 32,
    max_work: int = 1 << 26,
    hist_budget: int = 1 << 25,
    bar=None,
    dtype=jnp.float32,
    n_jobs: int = 1,
    two_pass: bool | None = None,
):
    """Grow ``len(tree_rows)`` trees and return the forest as a dict of flat numpy arrays (see ``FOREST_KEYS``).

    Args:
      binned: :class:`~pujax.trees.binning.BinnedData` of the training matrix.
      s: (n,) uint8 labels, 1 = labeled positive (PU) or positive class (PN).
      tree_rows: list of int arrays, the training rows (with repeats for a bootstrap) of each tree.
      seed: uint32 seed of the counter-based randomness.
      risk, loss: node-risk estimator and loss (:func:`pujax.risk.node_risk`).
      wu, rho, sigma: weights ``W_p = wu rho c1``, ``W_n = wu (c0 - sigma rho c1)`` (see kernels module).
      max_features: features sampled per node; n_thresholds: random thresholds per feature ("random" mode).
      mode: "random" (Extra Trees) or "best" (best bin boundary).
      max_depth, min_samples_split: stopping rules; n_tries: rejection-sampling tries per feature slot.
      max_work: bound on the entries (tree, row) of one batch of trees (memory); hist_budget: bound on histogram
        cells of the best-split mode.
      bar: optional progress bar (``update`` called once per finished tree batch, with the batch size).
      n_jobs: number of tree batches grown concurrently in host threads (XLA releases the GIL while it runs).
      two_pass: Extra-Trees statistics from (min, max) + left-count passes instead of histograms (None: chosen
        per level, histograms unless they would be much larger than the entries).
    """
    codes = binned.codes
    n, d = codes.shape
    B = int(binned.bin_lo.shape[1])
    # static histogram width: a power of two >= 64 (few compiled shapes), at most the stored bins
    n_bins_static = 1 << max(6, int(math.ceil(math.log2(max(int(binned.n_bins_per_feature.max()), 2)))))
    n_bins_static = min(n_bins_static, B)
    dev = {
        "codes": jnp.asarray(np.ascontiguousarray(codes.T).reshape(-1)),
        "n": int(n),
        "s": jnp.asarray(s.astype(np.uint8)),
        "bin_lo": jnp.asarray(binned.bin_lo[:, :n_bins_static]),
        "bin_hi": jnp.asarray(binned.bin_hi[:, :n_bins_static]),
        "wu": jnp.asarray(wu, dtype=dtype),
        "rho": jnp.asarray(rho, dtype=dtype),
        "sigma": jnp.asarray(sigma, dtype=dtype),
        "seed": jnp.asarray(np.uint32(seed)),
    }
    K = min(int(max_features), d)
    T = int(n_thresholds) if mode == "random" else n_bins_static
    n_trees = len(tree_rows)
    sizes = np.array([len(r) for r in tree_rows], dtype=np.int64)
    per_tree = int(sizes.max())
    batch = max(1, min(n_trees, max_work // max(per_tree, 1)))
    n_jobs = max(1, int(n_jobs))
    if n_jobs > 1:
        batch = max(1, min(batch, -(-n_trees // n_jobs)))
    max_c1 = max(int(s[np.asarray(r)].sum()) for r in tree_rows) if n_trees else 0
    shift = int(sizes.max()).bit_length() if n_trees else 1
    if max_c1.bit_length() + shift > 31:
        shift = 0  # counts too large to pack two per int32: two channels
    cfg = dict(K=K, T=T, mode=mode, shift=shift, risk=risk, loss=loss, max_depth=max_depth,
               min_samples_split=min_samples_split, n_tries=n_tries, n_bins=n_bins_static, hist_budget=hist_budget,
               two_pass=two_pass)
    starts = list(range(0, n_trees, batch))

    def run(t0):
        t1 = min(n_trees, t0 + batch)
        out = _grow_batch(dev, s, tree_rows[t0:t1], t0, d, cfg)
        if bar is not None:
            bar.update(t1 - t0)
        return out

    if n_jobs > 1 and len(starts) > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(n_jobs, len(starts))) as pool:
            parts = list(pool.map(run, starts))
    else:
        parts = [run(t0) for t0 in starts]
    return _assemble(parts, binned, n_trees, risk, wu, rho, sigma)


def _grow_batch(dev, s, tree_rows, t0: int, d: int, cfg):
    import os

    debug = bool(os.environ.get("PUJAX_TREES_DEBUG"))
    nt = len(tree_rows)
    K, B, shift, T = cfg["K"], cfg["n_bins"], cfg["shift"], cfg["T"]
    risk, loss = cfg["risk"], cfg["loss"]
    store = _NodeStore(capacity=max(1024, 64 * nt))
    rows_np = np.concatenate([np.asarray(r, dtype=np.int32) for r in tree_rows])
    tree_np = np.repeat(np.arange(nt, dtype=np.int32), [len(r) for r in tree_rows])
    c1 = np.array([int(s[r].sum()) for r in tree_rows], dtype=np.int64)
    c0 = np.array([len(r) for r in tree_rows], dtype=np.int64) - c1
    wu, rho, sigma = dev["wu"], dev["rho"], dev["sigma"]
    root_risk = np.asarray(_root_risk(jnp.asarray(_pad(c1.astype(np.int32), 128)),
                                      jnp.asarray(_pad(c0.astype(np.int32), 128)),
                                      wu, rho, sigma, risk=risk, loss=loss))[:nt] if nt <= 128 else np.asarray(
        _root_risk(jnp.asarray(c1.astype(np.int32)), jnp.asarray(c0.astype(np.int32)), wu, rho, sigma, risk=risk,
                   loss=loss))
    gid = store.add(tree=np.arange(t0, t0 + nt), depth=np.zeros(nt), c1=c1, c0=c0, risk=root_risk)
    term = _is_pure(root_risk, c1, risk) | ((c1 + c0) < cfg["min_samples_split"])
    if cfg["max_depth"] is not None and cfg["max_depth"] <= 0:
        term[:] = True
    keep = ~term
    N = int(keep.sum())
    if N == 0:
        return store.view()
    act = {
        "gid": gid[keep], "tree": (np.arange(nt) + t0)[keep].astype(np.uint32), "uid": np.zeros(N, np.uint32),
        "c1": c1[keep], "c0": c0[keep], "depth": np.zeros(N, np.int64),
    }
    root_new = np.full(nt, -1, dtype=np.int64)
    root_new[keep] = np.arange(N)
    e_nid = root_new[tree_np]
    sel = e_nid >= 0
    M = int(sel.sum())
    N_pad = pad_nodes(N)
    C = chunk_size(M)
    chunks = _make_chunks(rows_np[sel], e_nid[sel].astype(np.int32), C, N_pad)
    # routing of the "previous level" for the first pass: identity, everything goes left
    child_map = np.full((N_pad, 2), -1, np.int32)
    child_map[:N, 0] = np.arange(N)
    route_feat = np.zeros(N_pad, np.int32)
    route_code = np.full(N_pad, 255, np.int32)
    const = np.zeros((N, d), bool)
    it = 0
    seed = dev["seed"]
    n = dev["n"]
    while True:
        if debug:
            print(f"it {it} N {N} N_pad {N_pad} M {M} chunks {len(chunks)}x{C}", flush=True)
        nb = node_block(N_pad)
        itj = jnp.asarray(it, jnp.uint32)
        blocks = [slice(b, b + nb) for b in range(0, N, nb)]  # blocks of padding only are skipped
        host = {"tree": _pad(act["tree"], N_pad), "uid": _pad(act["uid"], N_pad),
                "c1": _pad(act["c1"].astype(np.int32), N_pad), "c0": _pad(act["c0"].astype(np.int32), N_pad),
                "const": _pad2(const, N_pad)}
        blk = [{k: jnp.asarray(v[b]) for k, v in host.items()} for b in blocks]
        for bd in blk:
            bd["feats"], bd["ok"] = prepare_nodes(bd["const"], seed, bd["tree"], bd["uid"], itj, n_slots=K)
        feats = _concat_pad([bd["feats"] for bd in blk], N_pad)
        # routing tables padded to >= 4096 rows: the entry kernels then compile once per node padding only
        R = max(4096, len(route_feat))
        route_args = (jnp.asarray(_pad(route_feat, R)), jnp.asarray(_pad(route_code, R)),
                      jnp.asarray(_pad2(child_map, R, -1)))
        outs = []
        if cfg["mode"] == "random":
            kw = dict(n_thresholds=T, n_bins=B, shift=shift, risk=risk, loss=loss)
            two_pass = cfg["two_pass"]
            if two_pass is None:  # histograms unless they would be much larger than the entries
                two_pass = N_pad * B > 2 * C * len(chunks) and N_pad * K * B > (1 << 21)
            if not two_pass:
                acc = _zeros_hist(K, N_pad, B, shift)
                new_chunks = []
                for rows_c, nid_c in chunks:
                    acc, nid_c = route_and_histogram(acc, dev["codes"], dev["s"], rows_c, nid_c, *route_args, feats,
                                                     n_bins=B, shift=shift, n=n)
                    new_chunks.append((rows_c, nid_c))
                chunks = new_chunks
                hist = split_histogram(acc, n_bins=B, n_blocks=N_pad // nb)
                for bd, h in zip(blk, hist):
                    outs.append(choose_random_splits(h, bd["feats"], bd["ok"], bd["c1"], bd["c0"], seed, bd["tree"],
                                                     bd["uid"], itj, wu, rho, sigma, dev["bin_lo"], dev["bin_hi"],
                                                     from_hist=True, **kw))
            else:
                acc = _zeros((K, N_pad, 2))
                new_chunks = []
                for rows_c, nid_c in chunks:
                    acc, nid_c = route_and_range(acc, dev["codes"], rows_c, nid_c, *route_args, feats, n=n)
                    new_chunks.append((rows_c, nid_c))
                chunks = new_chunks
                mx, mn = finish_range(acc)
                thr = []
                for i, bd in enumerate(blk):
                    b = blocks[i]
                    bd["mn"], bd["mx"] = mn[b], mx[b]
                    bd["thr"] = draw_thresholds(bd["mn"], bd["mx"], bd["feats"], bd["ok"], seed, bd["tree"],
                                                bd["uid"], itj, dev["bin_lo"], dev["bin_hi"], n_thresholds=T,
                                                n_bins=B)[0]
                    thr.append(bd["thr"])
                thr = _concat_pad(thr, N_pad)
                acc = _zeros((K, N_pad, T if shift > 0 else 2 * T))
                for rows_c, nid_c in chunks:
                    acc = left_counts(acc, dev["codes"], dev["s"], rows_c, nid_c, feats, thr, shift=shift, n=n)
                l_all, l_c1 = finish_left(acc, shift=shift)
                for i, bd in enumerate(blk):
                    b = blocks[i]
                    stats = (bd["mn"], bd["mx"], l_all[b], l_c1[b], bd["thr"])
                    outs.append(choose_random_splits(stats, bd["feats"], bd["ok"], bd["c1"], bd["c0"], seed,
                                                     bd["tree"], bd["uid"], itj, wu, rho, sigma, dev["bin_lo"],
                                                     dev["bin_hi"], from_hist=False, **kw))
        else:
            chunks = [(r, route(dev["codes"], r, c, *route_args, n_out=N_pad, n=n)) for r, c in chunks]
            outs = _best_blocks(dev, chunks, blk, blocks, cfg)
        shrink = C >= 8 * 4096 and M <= C // 8  # the tail of the growth: smaller chunks
        if -(-M // C) < len(chunks) or shrink:
            while C >= 8 * 4096 and M <= C // 8:
                C //= 8
            chunks = _compact(chunks, C, N_pad)
        res = {k: np.concatenate([np.asarray(o[k]) for o in outs])[:N] for k in outs[0]}
        store.cols["risk"][act["gid"]] = res["risk_node"]
        nc_rows, nc_slots = np.nonzero(res["newly_const"])
        const[nc_rows, res["feats"][nc_rows, nc_slots]] = True
        split = res["has_split"]
        retry = ~split & ~const.all(axis=1)
        S = np.flatnonzero(split)
        lc1 = res["left_c1"][S].astype(np.int64)
        lc0 = res["left_c0"][S].astype(np.int64)
        ch_c1 = np.stack([lc1, act["c1"][S] - lc1], 1).reshape(-1)
        ch_c0 = np.stack([lc0, act["c0"][S] - lc0], 1).reshape(-1)
        ch_risk = np.stack([res["risk_left"][S], res["risk_right"][S]], 1).reshape(-1)
        ch_depth = np.repeat(act["depth"][S] + 1, 2)
        ch_tree = np.repeat(act["tree"][S], 2)
        ch_uid = np.stack([node_uid_child(act["uid"][S], 0), node_uid_child(act["uid"][S], 1)], 1).reshape(-1)
        ch_gid = store.add(tree=ch_tree.astype(np.int32), depth=ch_depth, c1=ch_c1, c0=ch_c0, risk=ch_risk)
        pg = act["gid"][S]
        store.cols["feature"][pg] = res["feature"][S]
        store.cols["code"][pg] = res["code"][S]
        store.cols["rr"][pg] = res["rr"][S]
        store.cols["left"][pg] = ch_gid[0::2]
        store.cols["right"][pg] = ch_gid[1::2]
        ch_term = _is_pure(ch_risk, ch_c1, risk) | ((ch_c1 + ch_c0) < cfg["min_samples_split"])
        if cfg["max_depth"] is not None:
            ch_term |= ch_depth >= cfg["max_depth"]
        R = np.flatnonzero(retry)
        ch_live = np.flatnonzero(~ch_term)
        N_new = len(R) + len(ch_live)
        if N_new == 0:
            break
        child_map = np.full((N_pad, 2), -1, dtype=np.int32)
        child_map[R, 0] = np.arange(len(R))
        child_map[R, 1] = np.arange(len(R))
        ch_new = np.full(2 * len(S), -1, dtype=np.int64)
        ch_new[ch_live] = len(R) + np.arange(len(ch_live))
        child_map[S, 0] = ch_new[0::2]
        child_map[S, 1] = ch_new[1::2]
        route_feat = _pad(res["feature"].astype(np.int32), N_pad)
        route_code = _pad(res["code"].astype(np.int32), N_pad)
        parent = np.concatenate([R, np.repeat(S, 2)[ch_live]])
        const = const[parent]
        act = {
            "gid": np.concatenate([act["gid"][R], ch_gid[ch_live]]),
            "tree": np.concatenate([act["tree"][R], ch_tree[ch_live]]).astype(np.uint32),
            "uid": np.concatenate([act["uid"][R], ch_uid[ch_live]]).astype(np.uint32),
            "c1": np.concatenate([act["c1"][R], ch_c1[ch_live]]),
            "c0": np.concatenate([act["c0"][R], ch_c0[ch_live]]),
            "depth": np.concatenate([act["depth"][R], ch_depth[ch_live]]),
        }
        N = N_new
        M = int((act["c1"] + act["c0"]).sum())
        N_pad = pad_nodes(N)
        it += 1
    return store.view()


@partial(jax.jit, static_argnames=("shape",))
def _zeros(shape):
    return jnp.zeros(shape, jnp.int32)


def _zeros_hist(K, N, B, shift):
    """Zero histogram accumulator (K, N * B[, 2])."""
    return _zeros((K, N * B) + (() if shift > 0 else (2,)))


def chunk_size(m: int, maximum: int = 1 << 18) -> int:
    """Entries are processed in chunks of one fixed size per batch (a power of two, 4096 .. ``maximum``): the
    entry kernels compile once per node padding, whatever the number of live rows."""
    return int(min(maximum, max(4096, 1 << int(math.ceil(math.log2(max(m, 1)))))))


def _make_chunks(rows: np.ndarray, nid: np.ndarray, C: int, n_out: int):
    m = len(rows)
    k = max(1, -(-m // C))
    r = np.zeros(k * C, np.int32)
    v = np.full(k * C, n_out, np.int32)
    r[:m] = rows
    v[:m] = nid
    return [(jnp.asarray(r[i * C:(i + 1) * C]), jnp.asarray(v[i * C:(i + 1) * C])) for i in range(k)]


def _compact(chunks, C: int, n_out: int):
    """Drop finished entries on the host, keeping their order, and re-chunk (only when a chunk is freed)."""
    rows_h = np.concatenate([np.asarray(r) for r, _ in chunks])
    nid_h = np.concatenate([np.asarray(v) for _, v in chunks])
    keep = np.flatnonzero(nid_h < n_out)
    return _make_chunks(rows_h[keep], nid_h[keep], C, n_out)


def _concat_pad(parts, n):
    """Concatenate device blocks along axis 0 and zero-pad to ``n`` rows."""
    rows = sum(p.shape[0] for p in parts)
    if rows < n:
        parts = list(parts) + [jnp.zeros((n - rows,) + parts[0].shape[1:], parts[0].dtype)]
    return parts[0] if len(parts) == 1 else jnp.concatenate(parts)


def _pad(a, n, value=0):
    a = np.asarray(a)
    out = np.full(n, value, dtype=a.dtype)
    out[: len(a)] = a
    return out


def _pad2(a, n, value=0):
    out = np.full((n,) + a.shape[1:], value, dtype=a.dtype)
    out[: len(a)] = a
    return out


def _best_blocks(dev, chunks, blk, blocks, cfg):
    """Best-split histograms per node block (bounded by ``hist_budget`` cells), one pass over entries each."""
    K, B, shift = cfg["K"], cfg["n_bins"], cfg["shift"]
    cells = K * B * (1 if shift > 0 else 2)
    outs = []
    for bd, b in zip(blk, blocks):
        nb = b.stop - b.start
        sub = nb
        while sub > 16 and sub * cells > cfg["hist_budget"]:
            sub //= 2
        for s0 in range(0, nb, sub):
            sl = slice(s0, s0 + sub)
            part = {k: v[sl] for k, v in bd.items()} if sub < nb else bd
            acc = _zeros_hist(K, sub, B, shift)
            off = jnp.asarray(b.start + s0, jnp.int32)
            for rows_c, nid_c in chunks:
                acc = histogram(acc, dev["codes"], dev["s"], rows_c, nid_c, part["feats"], off, n_bins=B, shift=shift,
                                n=dev["n"])
            hist = split_histogram(acc, n_bins=B, n_blocks=1)[0]
            outs.append(choose_best_splits(hist, part["feats"], part["ok"], part["c1"], part["c0"], dev["wu"],
                                           dev["rho"], dev["sigma"], n_bins=B, shift=shift, risk=cfg["risk"],
                                           loss=cfg["loss"]))
    return outs


def _assemble(parts, binned, n_trees, risk, wu, rho, sigma):
    """Concatenate batches, order nodes tree by tree (creation order inside a tree) and add derived arrays."""
    base = np.cumsum([0] + [len(p["tree"]) for p in parts[:-1]])
    for p, b0 in zip(parts, base):  # child pointers are local to their batch
        for side in ("left", "right"):
            p[side] = np.where(p[side] >= 0, p[side] + b0, -1)
    cols = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    order = np.argsort(cols["tree"], kind="stable")
    new_of_old = np.empty_like(order)
    new_of_old[order] = np.arange(len(order))
    out = {k: v[order] for k, v in cols.items()}
    for side in ("left", "right"):
        a = out[side]
        out[side] = np.where(a >= 0, new_of_old[np.maximum(a, 0)], -1).astype(np.int32)
    counts = np.bincount(out["tree"], minlength=n_trees)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    internal = out["feature"] >= 0
    thr = np.full(len(order), np.inf, dtype=np.float32)
    if internal.any():
        thr[internal] = split_thresholds(binned.bin_lo, binned.bin_hi, out["feature"][internal],
                                         out["code"][internal])
    c1 = out["c1"].astype(np.float64)
    c0 = out["c0"].astype(np.float64)
    Wp = wu * rho * c1
    Wn = wu * (c0 - sigma * rho * c1)
    A = Wp + Wn
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.where(A > 0, Wp / np.where(A > 0, A, 1.0), np.where(Wp > 0, np.inf, 0.0))  # v* (Prop. 1)
    weight = (wu * rho * c1 + wu * c0).astype(np.float32)  # total example weight |P'| w_p + |U'| w_u
    rr = np.where(internal, out["rr"], 0.0).astype(np.float32)
    return {
        "feature": out["feature"].astype(np.int32),
        "threshold": thr,
        "code": out["code"].astype(np.int32),
        "left": out["left"],
        "right": out["right"],
        "value": np.clip(np.nan_to_num(v, nan=0.0, posinf=1.0), 0.0, 1.0).astype(np.float32),
        "c1": out["c1"].astype(np.int32),
        "c0": out["c0"].astype(np.int32),
        "risk": out["risk"].astype(np.float32),
        "rr": rr,
        "weight": weight,
        "depth": out["depth"].astype(np.int32),
        "tree_offsets": offsets,
    }

