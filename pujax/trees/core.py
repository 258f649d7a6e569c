r"""Functional core of the PU forests (Wilton et al., NeurIPS 2022): ``forest_fit`` -> :class:`Forest`, then
``forest_proba`` / ``forest_decision`` / ``forest_apply`` on new rows.

Every node holds :math:`W_p = |P'| w_p` and :math:`W_n = |U'| w_u - |P'| w_p` with :math:`w_p = \pi / n_p`,
:math:`w_u = 1 / n_u` (Prop. 1), written ``W_p = w_u rho c1``, ``W_n = w_u (c0 - sigma rho c1)`` with
``rho = w_p / w_u`` and ``sigma = 1``; the supervised (PN) forest uses ``w = 1 / n``, ``rho = 1``, ``sigma = 0``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from pujax.devices import resolve_devices
from pujax.random import host_seed
from pujax.trees.binning import fit_bins
from pujax.trees.builder import grow_forest
from pujax.trees.model import Forest, forest_slice, standardization, standardize
from pujax.trees.predict import forest_leaves, forest_mean_value
from pujax.validation import check_pu_labels

if TYPE_CHECKING:
    from typing import Any

    import jax

    from pujax._typing import DevicesLike

__all__ = ["forest_fit", "forest_fit_bags", "forest_proba", "forest_decision", "forest_apply", "forest_summaries",
           "node_weights", "tree_rows"]


def node_weights(s: np.ndarray, prior: float | None, risk: str) -> tuple[float, float, float]:
    """``(w_u, rho, sigma)`` of the node weights (module docstring); ``prior`` is unused for ``risk="pn"``."""
    n = len(s)
    n1 = int(np.sum(s))
    n0 = n - n1
    if risk == "pn":
        return 1.0 / n, 1.0, 0.0
    return 1.0 / n0, float(prior) * n0 / n1, 1.0


def tree_rows(seed: int, s: np.ndarray, n_trees: int, bootstrap: bool) -> list:
    """Training rows of every tree: all rows, or a bootstrap of P and of U drawn separately (sorted)."""
    n = len(s)
    if not bootstrap:
        return [np.arange(n)] * n_trees
    rng = np.random.default_rng(seed)
    pos = np.flatnonzero(s == 1)
    neg = np.flatnonzero(s == 0)
    return [np.sort(np.concatenate([rng.choice(pos, len(pos)), rng.choice(neg, len(neg))])) for _ in range(n_trees)]


def forest_fit(key: jax.Array, X: np.ndarray, s: np.ndarray, prior: float | None, *, risk: str = "nnpu",
               loss: str = "quadratic", n_estimators: int = 100, max_features: int | None = None,
               max_candidates: int = 1, splitter: str = "random", max_depth: int | None = None,
               min_samples_split: int = 2, bootstrap: bool = False, n_bins: int = 256, devices: DevicesLike = None,
               n_threads: int | None = None, progress_bar: Any = None, rows: list | None = None) -> Forest:
    """Grow a PU forest (or a supervised one with ``risk="pn"``) on validated data.

    Parameters
    ----------
    key : JAX PRNG key
        All randomness (bin subsample, bootstrap, features and thresholds) derives from one 32-bit seed mixed
        from it (:func:`pujax.random.host_seed`).
    X : (n, d) float array or scipy sparse matrix
        Standardised per feature in float64 before the float32 cast (:func:`~pujax.trees.model.standardization`):
        the forest does not depend on the units or offsets of the features. A sparse ``X`` is scaled without
        centring and binned from its stored values (:func:`~pujax.trees.binning.fit_bins`; the codes are a dense
        uint8 matrix of n x d bytes).
    s : (n,) int array in {0, 1}
        1 = labeled positive (PU) or positive class (``risk="pn"``).
    prior : float in (0, 1) or None
        Class prior pi (unused for ``risk="pn"``).
    risk, loss : node-risk estimator and loss (:func:`pujax.risk.node_risk`, eq. (5)/(6), Prop. 1-3).
    n_estimators : number of trees.
    max_features : features sampled per node (``None``: all).
    max_candidates : random thresholds per sampled feature (``splitter="random"``).
    splitter : "random" (Extra Trees, thresholds uniform in the node's range) or "best" (every bin boundary).
    max_depth, min_samples_split : stopping rules (besides pure nodes and identical rows).
    bootstrap : resample P and U separately, with replacement, for every tree.
    n_bins : histogram bins per feature (at most 256).
    devices : None, int, sequence of :class:`jax.Device` or :class:`jax.sharding.Mesh`
        Where to grow (:func:`pujax.devices.resolve_devices`; None: every device). Several devices grow whole
        tree batches each (across processes, exchanged at the end); when a tree has more rows than a batch may
        hold, the rows of every level are sharded and the per-(node, feature, bin) counts summed
        (:mod:`pujax.trees.sharding`). The forest does not depend on the number of devices.
    n_threads : tree batches grown concurrently in host threads, spread over the devices (None: one per CPU core on
        CPU devices, one per device on accelerators; at least one per device).
    progress_bar : optional object with ``update(k)``, called as trees finish.
    rows : list of int arrays or None
        The training rows of every tree (indices into ``X``, repeats allowed); ``None``: ``n_estimators`` trees on
        all rows or on bootstrap resamples (:func:`tree_rows`).

    Returns
    -------
    Forest
    """
    s = check_pu_labels(s, n_samples=np.shape(X)[0])
    seed = host_seed(key)
    wu, rho, sigma = node_weights(s, prior, risk)
    rows = tree_rows(seed, s, int(n_estimators), bool(bootstrap)) if rows is None else list(rows)
    center, scale = standardization(X)
    binned = fit_bins(X, int(n_bins), seed=seed, center=center, scale=scale)  # no standardised copy of X
    d = X.shape[1]
    return grow_forest(
        binned, s.astype(np.uint8), rows, seed=seed, risk=risk, loss=loss, wu=wu, rho=rho, sigma=sigma,
        max_features=d if max_features is None else int(max_features), n_thresholds=int(max_candidates),
        mode=splitter, max_depth=max_depth, min_samples_split=int(min_samples_split), bar=progress_bar,
        n_threads=n_threads, center=center, scale=scale,
        devices=resolve_devices(devices))



def forest_fit_bags(key: jax.Array, X: np.ndarray, s: np.ndarray, bags: list, *, n_estimators: int = 100,
                    bootstrap: bool = False, **kwargs: Any) -> list[Forest]:
    """Supervised forests (``risk="pn"``), ``n_estimators`` trees per bag on the rows with ``s = 1`` against the rows
    ``bags[b]`` (indices into ``X``, repeats allowed), grown as one forest and split per bag.

    The bags share the standardisation and the bins of all rows of ``X`` (a forest fitted on one bag's rows bins
    those rows only); node risks, risk reductions and weights are rescaled to each bag's own ``w = 1 / n_b`` (PN
    risk, ``n_b`` its rows), as a fit on the bag has them. ``kwargs``: the other arguments of :func:`forest_fit`.
    This is the batched base-model fit of :class:`pujax.meta.PUBaggingClassifier` around
    :class:`~pujax.trees.SupervisedET` (the PU ET paper's PUBaggingET).
    """
    s = check_pu_labels(s, n_samples=np.shape(X)[0])
    P, seed, rows = np.flatnonzero(s == 1), host_seed(key), []
    for b, bag in enumerate(bags):
        r = np.sort(np.concatenate([P, np.asarray(bag, np.int64)]))
        rows += [r[t] for t in tree_rows(seed + b + 1, s[r], int(n_estimators), bool(bootstrap))]
    forest = forest_fit(key, X, s, None, risk="pn", n_estimators=len(rows), rows=rows, **kwargs)
    w_all = node_weights(s, None, "pn")[0]  # the row weight forest_fit grew with
    out = []
    for b, bag in enumerate(bags):
        part = forest_slice(forest, b * n_estimators, (b + 1) * n_estimators)
        k = np.float32(node_weights(np.r_[s[P], s[np.asarray(bag, np.int64)]], None, "pn")[0] / w_all)
        out.append(part._replace(risk=part.risk * k, rr=part.rr * k, weight=part.weight * k))
    return out

_SPARSE_BLOCK = 1 << 22  # dense values of a block of sparse rows densified at prediction


def _on_rows(fn, forest: Forest, X) -> np.ndarray:
    """``fn(forest, Z)`` with ``Z`` the standardised ``X``. A scipy sparse ``X`` is densified only on the features
    the forest splits on, in blocks of rows (the forest's features renumbered accordingly)."""
    Z = standardize(X, forest.center, forest.scale)
    if not sp.issparse(Z):
        return fn(forest, Z)
    inner = np.asarray(forest.left) >= 0
    cols = np.unique(np.asarray(forest.feature)[inner])
    cols = cols if cols.size else np.zeros(1, np.int64)
    new = np.zeros(Z.shape[1], np.int64)
    new[cols] = np.arange(cols.size)
    feature = np.where(inner, new[np.where(inner, forest.feature, 0)], forest.feature).astype(forest.feature.dtype)
    # a copy of ``left`` too: the traversal arrays are cached per ``left`` array
    local = forest._replace(feature=feature, left=np.array(forest.left, copy=True))
    Zc = sp.csc_matrix(Z)[:, cols].tocsr()
    rows = max(1, _SPARSE_BLOCK // cols.size)
    out = [fn(local, Zc[a:a + rows].toarray()) for a in range(0, Zc.shape[0], rows)]
    return np.concatenate(out) if out else fn(local, np.zeros((0, cols.size), np.float32))


def forest_proba(forest: Forest, X: np.ndarray) -> np.ndarray:
    """Mean over trees of the leaf value ``clip(v*, 0, 1)``: the probability of the positive class, shape (n,).
    ``X`` dense or scipy sparse (densified in blocks on the features the forest splits on)."""
    return np.clip(_on_rows(forest_mean_value, forest, X).astype(np.float64), 0.0, 1.0)


def forest_decision(forest: Forest, X: np.ndarray) -> np.ndarray:
    """Mean leaf probability minus 1/2: positive iff the row is predicted positive (Prop. 4)."""
    return forest_proba(forest, X) - 0.5


def forest_apply(forest: Forest, X: np.ndarray) -> np.ndarray:
    """Leaf reached in every tree, as a node index within its tree, shape (n, n_trees) int64."""
    return _on_rows(forest_leaves, forest, X).astype(np.int64) - forest.tree_offsets[:-1][None, :]


def forest_summaries(forest: Forest, n_features: int) -> dict:
    """Per-tree leaf counts and depths, and the risk-reduction importances of the PU ET paper (§4).

    Returns a dict with ``tree_n_leaves``, ``tree_depths`` (n_trees,), ``tree_risk_reduction_importances``
    (n_trees, d: summed risk reductions per feature), ``risk_reduction_importances`` (their mean over trees),
    ``normalized_risk_reduction_importances`` (each reduction divided by its node's total weight, then the same)
    and ``feature_importances`` (the raw importances normalised to sum 1; zeros when no split was made).
    """
    off = forest.tree_offsets
    T = len(off) - 1
    d = int(n_features)
    tree = np.repeat(np.arange(T), np.diff(off))
    leaf = forest.left < 0
    depth = np.zeros(T, np.int64)
    np.maximum.at(depth, tree, forest.depth.astype(np.int64))
    internal = ~leaf & np.isfinite(forest.rr)
    feat = np.where(internal, forest.feature, 0)
    rr = np.where(internal, forest.rr, 0.0).astype(np.float64)
    w = forest.weight.astype(np.float64)
    rr_w = np.where(internal & (w > 0), rr / np.where(w > 0, w, 1.0), 0.0)
    per_tree = np.zeros((T, d))
    np.add.at(per_tree, (tree, feat), rr)
    per_tree_w = np.zeros((T, d))
    np.add.at(per_tree_w, (tree, feat), rr_w)
    raw = per_tree.mean(axis=0)
    total = raw.sum()
    return {
        "tree_n_leaves": np.bincount(tree[leaf], minlength=T).astype(np.int64),
        "tree_depths": depth,
        "tree_risk_reduction_importances": per_tree,
        "risk_reduction_importances": raw,
        "normalized_risk_reduction_importances": per_tree_w.mean(axis=0),
        "feature_importances": raw / total if total > 0 else np.zeros(d),
    }
