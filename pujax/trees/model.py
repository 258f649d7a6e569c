"""The fitted forest: flat node arrays of every tree, a pytree (NamedTuple) that saves, loads and moves as a whole.

Nodes of tree ``t`` are ``tree_offsets[t] .. tree_offsets[t + 1] - 1``; the root of each tree comes first and the
children of an internal node ``i`` are ``left[i]`` / ``right[i]`` (global indices, ``-1`` at leaves). A row goes left
at node ``i`` when its standardised feature ``(x[feature[i]] - center) / scale`` is ``<= threshold[i]``.
"""
from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

from pujax.persistence import register_model
from pujax.preprocessing import standardization as _standardization
from pujax.preprocessing import standardize

__all__ = ["Forest", "FOREST_SCHEMA", "check_forest", "forest_slice", "standardization", "standardize"]


class Forest(NamedTuple):
    """Flat node arrays of a forest (length ``n_nodes`` unless stated).

    Attributes
    ----------
    feature : int32, split feature (``-1`` at leaves).
    threshold : float32, split threshold on the standardised feature (``+inf`` at leaves).
    code : int32, split bin code (``x`` goes left iff its bin code ``<= code``; ``-1`` at leaves).
    left, right : int32, children (``-1`` at leaves).
    value : float32, ``clip(v*, 0, 1)`` with ``v* = W_p / (W_p + W_n)`` (PU ET paper, Prop. 1).
    c1, c0 : int32, training rows of the node with ``s = 1`` / ``s = 0`` (bootstrap repeats counted).
    risk : float32, minimal node risk ``R*`` (Prop. 1-3).
    rr : float32, risk reduction of the node's split (eq. (7)/(8); 0 at leaves).
    weight : float32, total example weight ``|P'| w_p + |U'| w_u`` of the node.
    depth : int32, depth of the node (roots: 0).
    tree_offsets : int64 ``(n_trees + 1,)``, first node of every tree and the total node count.
    center, scale : float64 ``(n_features,)``, the per-feature standardisation ``(x - center) / scale`` applied in
        float64 before the float32 cast (:func:`standardization`), so that trees do not depend on the units or
        the offset of ``X``.
    """

    feature: np.ndarray
    threshold: np.ndarray
    code: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    c1: np.ndarray
    c0: np.ndarray
    risk: np.ndarray
    rr: np.ndarray
    weight: np.ndarray
    depth: np.ndarray
    tree_offsets: np.ndarray
    center: np.ndarray
    scale: np.ndarray

    def __getitem__(self, key):
        if isinstance(key, str):  # forest_["feature"]: the fitted forest was a dict of arrays
            if key not in self._fields:
                raise KeyError(key)
            warnings.warn(f'forest_["{key}"] is deprecated and will be removed in the next release; use '
                          f"forest_.{key} (forest_ is a Forest NamedTuple).", FutureWarning, stacklevel=2)
            return getattr(self, key)
        return tuple.__getitem__(self, key)

    @property
    def n_nodes(self) -> int:
        """Number of nodes of all trees."""
        return int(self.feature.shape[0])

    @property
    def n_trees(self) -> int:
        """Number of trees."""
        return int(self.tree_offsets.shape[0]) - 1


FOREST_SCHEMA = {
    "feature": "i[n_nodes]", "threshold": "f[n_nodes]", "code": "i[n_nodes]", "left": "i[n_nodes]",
    "right": "i[n_nodes]", "value": "f[n_nodes]", "c1": "i[n_nodes]", "c0": "i[n_nodes]", "risk": "f[n_nodes]",
    "rr": "f[n_nodes]", "weight": "f[n_nodes]", "depth": "i[n_nodes]", "tree_offsets": "i[*]",
    "center": "f[*]", "scale": "f[*]",
}
register_model(Forest, FOREST_SCHEMA)


def check_forest(forest: Forest, n_features: int) -> None:
    """Raise ``ValueError`` unless ``forest`` is a consistent set of trees over ``n_features`` features."""
    n = forest.n_nodes
    if forest.center.shape != (n_features,) or forest.scale.shape != (n_features,):
        raise ValueError(f"center and scale must have one value per feature ({n_features}).")
    if not (np.all(np.isfinite(forest.center)) and np.all(np.isfinite(forest.scale)) and np.all(forest.scale > 0)):
        raise ValueError("center must be finite and scale finite and positive.")
    off = np.asarray(forest.tree_offsets)
    if off.ndim != 1 or off.size < 2 or off[0] != 0 or off[-1] != n or np.any(np.diff(off) < 1):
        raise ValueError("tree_offsets must rise from 0 to the node count, every tree holding at least one node.")
    leaf = forest.left < 0
    if not np.array_equal(leaf, forest.right < 0) or not np.array_equal(leaf, forest.feature < 0):
        raise ValueError("left, right and feature must agree on which nodes are leaves.")
    inner = ~leaf
    if np.any(forest.feature[inner] >= n_features):
        raise ValueError(f"split features must be in [0, {n_features}).")
    idx = np.arange(n)
    for child in (forest.left, forest.right):
        if np.any(child[inner] <= idx[inner]) or np.any(child[inner] >= n):
            raise ValueError("children must come after their parent and index a node of the forest.")
    tree = np.repeat(np.arange(off.size - 1), np.diff(off))
    if np.any(tree[forest.left[inner]] != tree[inner]) or np.any(tree[forest.right[inner]] != tree[inner]):
        raise ValueError("children must belong to their parent's tree.")
    if not np.all(np.isfinite(forest.value)) or np.any((forest.value < 0) | (forest.value > 1)):
        raise ValueError("leaf values must be finite probabilities in [0, 1].")
    if np.any(np.isnan(forest.threshold[inner])):
        raise ValueError("thresholds of internal nodes must not be NaN.")



def forest_slice(forest: Forest, start: int, stop: int) -> Forest:
    """Trees ``start .. stop - 1`` of ``forest`` as a forest of their own (node indices rebased)."""
    off = np.asarray(forest.tree_offsets)
    a, b = int(off[start]), int(off[stop])
    nodes = {f: np.asarray(getattr(forest, f))[a:b] for f in Forest._fields
             if f not in ("tree_offsets", "center", "scale")}
    for f in ("left", "right"):
        nodes[f] = np.where(nodes[f] >= 0, nodes[f] - a, nodes[f]).astype(nodes[f].dtype)
    return Forest(**nodes, tree_offsets=off[start:stop + 1] - a, center=forest.center, scale=forest.scale)

def standardization(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-feature ``(center, scale)`` in float64 (:func:`pujax.preprocessing.standardization`): mean and standard
    deviation (scale 1 for constant features), or ``(0, 1)`` for small-integer features, which float32 holds
    exactly."""
    return _standardization(X, keep_small_integers=True)
