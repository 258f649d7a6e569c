"""Host-side bookkeeping of the tree builder: the growable node store of a batch of trees, padding helpers (node and
feature counts), entry chunks, and the final assembly of all batches into one :class:`~pujax.trees.model.Forest`."""
from __future__ import annotations

import math
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from pujax._compile import bucket_size, jit
from pujax.devices import default_device
from pujax.trees.binning import split_thresholds
from pujax.trees.model import Forest

__all__ = ["put", "put_all", "NodeStore", "assemble_forest", "pad_nodes", "node_block", "feature_slots",
           "FEATURE_PAD_CODES", "chunk_size", "make_chunks", "compact_chunks", "pad", "pad2", "concat_pad",
           "hist_shape", "zeros", "concat_batches"]


class NodeStore:
    """Growable columnar store of the nodes of one batch of trees (in creation order)."""

    fields = {
        "tree": np.int32, "depth": np.int32, "c1": np.int64, "c0": np.int64, "risk": np.float32,
        "feature": np.int32, "code": np.int32, "rr": np.float32, "left": np.int64, "right": np.int64,
    }
    defaults = {"feature": -1, "code": -1, "left": -1, "right": -1, "rr": 0.0}

    def __init__(self, capacity: int = 1024):
        self.n = 0
        self.cols = {k: np.full(capacity, self.defaults.get(k, 0), dtype=v) for k, v in self.fields.items()}

    def add(self, **cols) -> np.ndarray:
        """Append nodes (columns of equal length); return their ids."""
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

    def view(self) -> dict:
        """The stored nodes as a dict of numpy columns."""
        return {k: v[: self.n] for k, v in self.cols.items()}


def pad_nodes(n: int) -> int:
    """Padded node count: 128, 1024 or a multiple of 1024 (the node kernels run in blocks: :func:`node_block`)."""
    if n <= 128:
        return 128
    if n <= 1024:
        return 1024
    return 1024 * int(math.ceil(n / 1024))


def node_block(n_pad: int) -> int:
    """Block size of the per-node kernels: 128 up to 1024 nodes (a small forest compiles them once), 1024 above."""
    return 128 if n_pad <= 1024 else 1024


FEATURE_PAD_CODES = 1 << 26
"""Binned data (rows x padded features, one byte each) up to which :func:`feature_slots` pads the feature count:
64 MiB, where a compilation saved outweighs the padding's memory."""


def feature_slots(d: int, n_slots: int, n_rows: int) -> int:
    """Features of the device arrays: with features sampled per node (``n_slots < d``) and at most
    :data:`FEATURE_PAD_CODES` codes, ``d`` padded to :func:`~pujax.compilation.bucket_size` ``(d, per_octave=2)`` with
    columns known constant in every node (never sampled: the same draws as without them, see
    :func:`~pujax.trees.kernels.sample_features`), so that data with a similar number of features runs the same
    programs; ``d`` otherwise (every feature used, or data so large that the memory matters more than a compile)."""
    D = bucket_size(d, minimum=1, per_octave=2)
    return D if n_slots < d and n_rows * D <= FEATURE_PAD_CODES else d


_SMALL_ENTRIES = 1 << 16  # up to this many entries, one chunk size (4096)


def chunk_size(m: int, maximum: int = 1 << 18) -> int:
    """Entries are processed in chunks of one fixed size per batch (a power of two, 4096 .. ``maximum``): the
    entry kernels compile once per node padding, whatever the number of live rows. Up to ``_SMALL_ENTRIES`` entries
    the chunks have the tail size 4096 from the start (a few more calls per level, but a small forest compiles each
    entry kernel for one chunk size only)."""
    if m <= _SMALL_ENTRIES:
        return 4096
    return int(min(maximum, max(4096, 1 << int(math.ceil(math.log2(max(m, 1)))))))


def put(a, dtype=None) -> jax.Array:
    """Host array (or scalar) to :func:`pujax.devices.default_device`. ``jax.device_put`` compiles nothing, whereas
    ``jnp.asarray`` of a numpy array compiles a small program per shape and dtype. The array is committed to the
    device, like the kernels' outputs it is passed along with: JAX compiles a program again when an argument that was
    uncommitted comes back committed."""
    return jax.device_put(np.asarray(a, dtype=dtype), default_device())


def put_all(*arrays) -> tuple:
    """:func:`put` of several host arrays in one batched transfer (one call into JAX instead of one per array)."""
    return tuple(jax.device_put([np.asarray(a) for a in arrays], default_device()))


def make_chunks(rows: np.ndarray, nid: np.ndarray, size: int, n_out: int, put_rows=put_all) -> tuple:
    """Split entries ``(rows, nid)`` into device chunks of ``size`` (padding: ``nid = n_out``, dropped), placed by
    ``put_rows(*arrays) -> tuple`` (:func:`put_all`, or the sharded placement of a device mesh)."""
    m = len(rows)
    k = max(1, -(-m // size))
    r = np.zeros(k * size, np.int32)
    v = np.full(k * size, n_out, np.int32)
    r[:m] = rows
    v[:m] = nid
    flat = put_rows(*(a[i * size:(i + 1) * size] for i in range(k) for a in (r, v)))
    return tuple(zip(flat[0::2], flat[1::2]))


def compact_chunks(chunks, size: int, n_out: int, put_rows=put_all, get=np.asarray) -> tuple:
    """Drop finished entries (``nid >= n_out``) on the host, keeping their order, and re-chunk."""
    rows_h = np.concatenate([get(r) for r, _ in chunks])
    nid_h = np.concatenate([get(v) for _, v in chunks])
    keep = np.flatnonzero(nid_h < n_out)
    return make_chunks(rows_h[keep], nid_h[keep], size, n_out, put_rows)


def concat_pad(parts, n):
    """Concatenate device blocks along axis 0 and zero-pad to ``n`` rows (on the host: small per-node arrays, and
    no program to compile for each number of blocks)."""
    if len(parts) == 1 and parts[0].shape[0] == n:
        return parts[0]
    return put(pad2(np.concatenate([np.asarray(p) for p in parts]), n))


def pad(a, n, value=0) -> np.ndarray:
    """1-D numpy array padded with ``value`` to length ``n``."""
    a = np.asarray(a)
    out = np.full(n, value, dtype=a.dtype)
    out[: len(a)] = a
    return out


def pad2(a, n, value=0) -> np.ndarray:
    """numpy array padded along axis 0 with ``value`` to ``n`` rows."""
    out = np.full((n,) + a.shape[1:], value, dtype=a.dtype)
    out[: len(a)] = a
    return out


@partial(jit, "kernel", static_argnames=("shape",))
def _zeros_program(shape):
    return jnp.zeros(shape, jnp.int32)


def zeros(shape, device=None):
    """int32 zeros of a static shape (an accumulator) on ``device`` (default: the default device): copied from the
    host on a CPU, made by a small program elsewhere (no host-to-device copy of a large accumulator)."""
    device = device or default_device()
    if device.platform == "cpu":
        return jax.device_put(np.zeros(shape, np.int32), device)
    return jax.device_put(_zeros_program(shape), device)


def hist_shape(n_slots: int, n_nodes: int, n_bins: int, shift: int) -> tuple:
    """Shape of a histogram accumulator: ``(K, N * B[, 2])`` (two channels when counts are not packed)."""
    return (n_slots, n_nodes * n_bins) + (() if shift > 0 else (2,))


def concat_batches(parts: list) -> dict:
    """The node-store columns of several batches as one (child pointers, local to their batch, shifted)."""
    base = np.cumsum([0] + [len(p["tree"]) for p in parts[:-1]])
    return {k: np.concatenate([np.where(p[k] >= 0, p[k] + b0, -1) if k in ("left", "right") else p[k]
                               for p, b0 in zip(parts, base)]) for k in parts[0]}


def _merge_batches(parts: list) -> dict:
    """Concatenate batches and order nodes tree by tree (creation order inside a tree), remapping children."""
    cols = concat_batches(parts)
    order = np.argsort(cols["tree"], kind="stable")
    new_of_old = np.empty_like(order)
    new_of_old[order] = np.arange(len(order))
    out = {k: v[order] for k, v in cols.items()}
    for side in ("left", "right"):
        a = out[side]
        out[side] = np.where(a >= 0, new_of_old[np.maximum(a, 0)], -1).astype(np.int32)
    return out


def assemble_forest(parts: list, binned, n_trees: int, wu: float, rho: float, sigma: float, center: np.ndarray,
                    scale: np.ndarray) -> Forest:
    """One :class:`Forest` from the node stores of all batches, with thresholds, leaf values and weights
    (thresholds are on the standardised features ``(x - center) / scale``)."""
    out = _merge_batches(parts)
    n_nodes = len(out["tree"])
    counts = np.bincount(out["tree"], minlength=n_trees)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    internal = out["feature"] >= 0
    thr = np.full(n_nodes, np.inf, dtype=np.float32)
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
    return Forest(
        feature=out["feature"].astype(np.int32),
        threshold=thr,
        code=out["code"].astype(np.int32),
        left=out["left"],
        right=out["right"],
        value=np.clip(np.nan_to_num(v, nan=0.0, posinf=1.0), 0.0, 1.0).astype(np.float32),
        c1=out["c1"].astype(np.int32),
        c0=out["c0"].astype(np.int32),
        risk=out["risk"].astype(np.float32),
        rr=np.where(internal, out["rr"], 0.0).astype(np.float32),
        weight=weight,
        depth=out["depth"].astype(np.int32),
        tree_offsets=offsets,
        center=np.asarray(center, dtype=np.float64),
        scale=np.asarray(scale, dtype=np.float64),
    )
