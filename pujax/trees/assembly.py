"""Host-side bookkeeping of the tree builder: the node store of a batch of trees (from the logs of its growth),
padding helpers, and the final assembly of all batches into one :class:`~pujax.trees.model.Forest`."""
from __future__ import annotations

import jax
import numpy as np

from pujax._compile import bucket_size
from pujax.devices import default_device
from pujax.trees.binning import split_thresholds
from pujax.trees.model import Forest

__all__ = ["put", "put_all", "NodeStore", "store_from_logs", "assemble_forest", "feature_slots", "FEATURE_PAD_CODES",
           "pad", "pad2", "concat_batches"]


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


def put(a, dtype=None) -> jax.Array:
    """Host array (or scalar) to :func:`pujax.devices.default_device`. ``jax.device_put`` compiles nothing, whereas
    ``jnp.asarray`` of a numpy array compiles a small program per shape and dtype. The array is committed to the
    device, like the kernels' outputs it is passed along with: JAX compiles a program again when an argument that was
    uncommitted comes back committed."""
    return jax.device_put(np.asarray(a, dtype=dtype), default_device())


def put_all(*arrays) -> tuple:
    """:func:`put` of several host arrays in one batched transfer (one call into JAX instead of one per array)."""
    return tuple(jax.device_put([np.asarray(a) for a in arrays], default_device()))


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


def store_from_logs(logs: list) -> dict:
    """The node-store columns of a batch from the logs of its growth calls (:data:`pujax.trees.grow.LOG_WIDTH`
    columns: a header row, then ``L`` node rows and ``L // 2`` split rows): nodes in creation order, with the split
    feature, code and risk reduction of every split node and its children ``(left, left + 1)``."""
    nodes, splits = [], []
    for log in logs:
        L = (log.shape[0] - 1) * 2 // 3
        nodes.append(log[1:1 + log[0, 0]])
        splits.append(log[1 + L:1 + L + log[0, 1]])
    nodes, splits = np.concatenate(nodes), np.concatenate(splits)
    store = NodeStore(len(nodes))
    store.add(tree=nodes[:, 0], depth=nodes[:, 1], c1=nodes[:, 2], c0=nodes[:, 3],
              risk=nodes[:, 4].view(np.float32))
    cols, gid = store.cols, splits[:, 0]
    cols["feature"][gid] = splits[:, 1]
    cols["code"][gid] = splits[:, 2]
    cols["rr"][gid] = splits[:, 3].view(np.float32)
    cols["left"][gid] = splits[:, 4]
    cols["right"][gid] = splits[:, 4] + 1
    return store.view()


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
