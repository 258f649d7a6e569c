"""Functional core of 2-HNC (Hochbaum & Nitayanont): a fitted :class:`HNCModel` and pure functions.

``hnc_fit(key, X, s, prior, ...) -> HNCModel`` runs the whole method (module :mod:`pujax.graph.hnc` describes it
step by step); ``hnc_decision(model, X)`` and ``hnc_predict(model, X)`` place unseen points. The functions take
validated arrays (``X`` float, ``s`` in {0, 1}, ``prior`` in (0, 1)) and never touch an estimator.

Steps of :func:`hnc_fit`, each a function here:

1. :func:`hnc_standardize` -- centre and scale every feature in float64 (zero-variance features keep scale 1).
2. :func:`distinct_features` and :func:`spread_weights` -- feature weights ``rho`` are computed on the distinct
   non-constant features only; a constant feature gets weight 0 and the copies of a duplicated feature share one
   weight, so neither changes the distance (hence the kNN graph).
3. :func:`pujax.graph.knn.knn_search_device` on the weighted features (rows split across ``devices``); the lists
   stay on the device.
4. Per k, one device program (:func:`pujax.graph.stages.hnc_stages`): the kNN graph, stage 1 (HNC- with L+
   contracted into the source), SelectNeg, stage 2 (HNC+ with L+ and LN contracted); the host reads the partition
   sizes of every lambda and picks the partition closest to pi (:func:`_closest_partition`).
5. :func:`_select_k` -- the paper's 2 % rule over k.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

import jax
import numpy as np

from pujax._compile import bucket_size
from pujax.devices import replicate
from pujax.graph.knn import knn_query, knn_search_device
from pujax.graph.parametric import lane_layout
from pujax.graph.stages import hnc_stages
from pujax.preprocessing import standardization
from pujax.preprocessing import standardize as _standardize
from pujax.progress import progress
from pujax.random import host_seed

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike

    from pujax._typing import DevicesLike

__all__ = ["HNCModel", "hnc_fit", "hnc_decision", "hnc_predict", "hnc_standardize", "distinct_features",
           "spread_weights", "default_lambdas"]


def default_lambdas() -> np.ndarray:
    """The paper's grid lambda = 0, 0.001, ..., 0.5 (501 values, §5.1)."""
    return np.round(np.arange(501) * 0.001, 3)


class HNCModel(NamedTuple):
    """A fitted 2-HNC model (plain arrays and numbers; a pytree).

    mean, scale: float64 (H,), the standardisation; distance_weights: (H,), the factors of the squared distance;
    feature_weights: (H,), rho (0 for a constant feature; copies of a feature share one weight; sum = m, the
    number of distinct non-constant features); columns: int64 (m,), one column of each of those features;
    column_weights: (m,), their total distance weights; X_fit: float32 (n, m), the weighted standardised
    training rows on those columns; labels: int64 (n,), the selected partition (1 = positive side);
    labeled: bool (n,);
    n_neighbors, sigma, lam, stage, positive_fraction: the selected partition; lambdas: (L,) the grid;
    first_sink: int64 (n,), stage-1 lambda index at which a row joins the sink set (L if never);
    ranking: int64, unlabeled rows in SelectNeg order; likely_negatives: int64, LN; path_fractions: (2, L)
    positive fraction of every partition of both stages (NaN: stage 2 had no free node); candidate_k,
    candidate_fractions: the k tried and the fraction of each one's best partition.
    """

    mean: np.ndarray
    scale: np.ndarray
    distance_weights: np.ndarray
    feature_weights: np.ndarray
    columns: np.ndarray
    column_weights: np.ndarray
    X_fit: np.ndarray
    labels: np.ndarray
    labeled: np.ndarray
    n_neighbors: int
    sigma: float
    lam: float
    stage: int
    positive_fraction: float
    lambdas: np.ndarray
    first_sink: np.ndarray
    ranking: np.ndarray
    likely_negatives: np.ndarray
    path_fractions: np.ndarray
    candidate_k: np.ndarray
    candidate_fractions: np.ndarray


HNC_MODEL_SCHEMA = {
    "mean": "f[n_features_in_]", "scale": "f[n_features_in_]", "distance_weights": "f[n_features_in_]",
    "feature_weights": "f[n_features_in_]", "columns": "i[n_columns]", "column_weights": "f[n_columns]",
    "X_fit": "f[n_samples,n_columns]", "labels": "i[n_samples]",
    "labeled": "b[n_samples]", "n_neighbors": "int", "sigma": "float", "lam": "float", "stage": "int",
    "positive_fraction": "float", "lambdas": "f[n_lambdas]", "first_sink": "i[n_samples]", "ranking": "i[*]",
    "likely_negatives": "i[*]", "path_fractions": "f[2,n_lambdas]", "candidate_k": "i[n_candidates]",
    "candidate_fractions": "f[n_candidates]",
}


# ------------------------------------------------------------------------------------------------ features
def hnc_standardize(X, standardize: bool = True):
    """``(mean, scale, Z)``: statistics in float64 (:func:`pujax.preprocessing.standardization`; a zero-variance
    feature keeps scale 1) and the float32 standardised rows ``Z = (X - mean) / scale`` (computed in float64, so an
    offset of ``X`` cancels exactly). ``standardize=False``: mean 0, scale 1."""
    H = np.shape(X)[1]
    mean, scale = standardization(X) if standardize else (np.zeros(H), np.ones(H))
    return mean, scale, _standardize(X, mean, scale)


def distinct_features(Z) -> tuple[np.ndarray, np.ndarray]:
    """``(representative, group)``: ``representative`` lists one column of each distinct non-constant feature
    (its first occurrence), ``group[h]`` the position of column h in that list (-1 for a constant column)."""
    Z = np.asarray(Z)
    H = Z.shape[1]
    group = -np.ones(H, np.int64)
    if Z.shape[0] == 0:
        return np.zeros(0, np.int64), group
    varying = np.any(Z != Z[:1], axis=0)
    cols = np.flatnonzero(varying)
    if cols.size == 0:
        return cols.astype(np.int64), group
    _, first, inverse = np.unique(np.ascontiguousarray(Z[:, cols].T), axis=0, return_index=True,
                                  return_inverse=True)
    order = np.argsort(first)  # representatives in column order
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    group[cols] = rank[np.asarray(inverse).reshape(-1)]
    return cols[np.sort(first)].astype(np.int64), group


def spread_weights(rho_distinct, group) -> np.ndarray:
    """Weights of every column from the weights of the distinct features: 0 for a constant column, the weight of a
    feature divided equally among its copies (so the weighted distance is that of the distinct features)."""
    rho_distinct = np.asarray(rho_distinct, dtype=np.float64)
    group = np.asarray(group)
    out = np.zeros(group.size)
    used = group >= 0
    copies = np.bincount(group[used], minlength=rho_distinct.size)
    out[used] = rho_distinct[group[used]] / copies[group[used]]
    return out


def _feature_weights(Z, s, prior, seed, feature_weights):
    """``(columns, group, weights)``: the distinct non-constant columns of Z (:func:`distinct_features`) and rho
    over all H columns.

    rho is computed on those columns only -- ``None``: 1 each; a callable ``(Z, s, prior, seed) -> weights``:
    called on ``Z[:, columns]``; an array (H,): the user's weights of those columns -- scaled to sum to their
    number, and spread with :func:`spread_weights` (0 for a constant column, copies share one weight)."""
    columns, group = distinct_features(Z)
    m = columns.size
    if m == 0:
        return columns, group, np.zeros(Z.shape[1])
    if feature_weights is None:
        rho = np.ones(m)
    elif callable(feature_weights):
        rho = np.asarray(feature_weights(Z[:, columns], s, prior, seed), dtype=np.float64).reshape(-1)
    else:  # the user's weights: the copies of a feature add up
        used = group >= 0
        rho = np.bincount(group[used], weights=np.asarray(feature_weights, np.float64)[used], minlength=m)
    rho = np.maximum(rho, 0.0)
    total = rho.sum()
    rho = rho * (m / total) if total > 0 else np.ones(m)
    return columns, group, spread_weights(rho, group)


# ------------------------------------------------------------------------------------------------ stages
def _column_weights(group, dw, m):
    """Total distance weight of each distinct feature (the weights of its copies added)."""
    used = group >= 0
    return np.bincount(group[used], weights=dw[used], minlength=m)


def _weighted_rows(Z, columns, column_weights):
    """``Z[:, columns]`` times the square root of each column's weight, float32: the rows whose Euclidean
    distances are the weighted distances of 2-HNC."""
    return (np.asarray(Z)[:, columns] * np.sqrt(column_weights)[None, :]).astype(np.float32)


class _Stages(NamedTuple):
    """Device results of :func:`pujax.graph.stages.hnc_stages` for one k and the fractions read from them."""

    t: jax.Array  # (2, rows + 1)
    order: jax.Array
    ln: jax.Array
    fractions: np.ndarray  # (2, L) positive fraction |S| / |V| per lambda (stage 2: NaN without a free node)


def _stage_fractions(summary, n_lab, n, has_stage2):
    """Positive fractions of the nested partitions of both stages from the histograms of ``min(t, L)``: stage 1's
    lambda index q holds the nodes with ``t > q``; stage 2 lists the lambdas in descending order."""
    hist = np.asarray(summary)
    if not hist[:, -1].all():
        raise ValueError("the similarities sum to more than int32 fixed point holds with a scale of 2^10, which may "
                         "change the cuts; use fewer neighbours (n_neighbors) or fewer rows.")
    above = hist[:, :-1][:, ::-1].cumsum(axis=1)[:, ::-1]  # above[s, c]: nodes with min(t, L) >= c
    fr = (n_lab + above[:, 1:].astype(np.float64)) / n  # [s, q]: nodes with t > q
    fr[1] = fr[1][::-1] if has_stage2 else np.nan
    return fr


def _closest_partition(fractions, prior):
    """``(fraction, stage, q)``: among both stages' partitions, the one whose fraction is closest to pi (stage 1
    first on ties, then the lower lambda index)."""
    best = None
    for st in (1, 2):
        fr = fractions[st - 1]
        if np.isnan(fr).all():
            continue
        q = int(np.argmin(np.abs(fr - prior)))
        if best is None or abs(fr[q] - prior) < abs(best[0] - prior):
            best = (float(fr[q]), st, q)
    return best


def _select_k(per_k, prior, tol):
    """§5.2: the largest k whose partition is within ``tol`` of pi, else the closest."""
    fr = [r[0] for _, r in per_k]
    within = [i for i, f in enumerate(fr) if abs(f - prior) <= tol + 1e-12]
    if within:
        return max(within, key=lambda i: per_k[i][0])
    return int(np.argmin(np.abs(np.asarray(fr) - prior)))


def _run_stages(Zw, labeled, n_ln, tie, ks, sigma, lam, cut_method, n_lanes, devices):
    """Dispatch the stage program of every k (the kNN lists computed once and kept on the device)."""
    n = labeled.size
    idx, d2 = knn_search_device(Zw, max(ks), devices=devices)
    rows = bucket_size(n)
    L = lam.size
    mesh, P, C = lane_layout(L, n_lanes, devices)
    if mesh is not None:  # a copy on every device: each one builds bitwise the same graph
        idx, d2 = replicate(mesh, idx, d2)
    up = np.concatenate([np.arange(L), np.full(P * C - L, L - 1)])
    down = np.concatenate([np.arange(L)[::-1], np.zeros(P * C - L, np.int64)])
    mus = np.stack([lam[up], lam[down]]).reshape(2, P, C).astype(np.float32)
    tie_rank = np.full(rows + 1, n, np.int32)
    tie_rank[np.argsort(tie, kind="stable")] = np.arange(n, dtype=np.int32)
    labeled_p = np.zeros(rows, bool)
    labeled_p[:n] = labeled
    lam_range = np.asarray([lam[0], lam[-1]], np.float32)
    return [hnc_stages(idx, d2, labeled_p, tie_rank, np.int32(n), int(k), np.int32(n_ln), np.float32(sigma),
                       lam_range, mus, n_lambdas=L, method=cut_method, mesh=mesh) for k in ks]


def _partition(res: _Stages, stage, q, labeled, L):
    """Labels, first sink indices, SelectNeg ranking and LN of the chosen partition (host arrays)."""
    n = labeled.size
    t = np.asarray(res.t)[:, :n]
    threshold = q if stage == 1 else L - 1 - q  # stage 2 lists the lambdas in descending order
    free = ~labeled
    labels = labeled.astype(np.int64)
    labels[free] = t[stage - 1][free] > threshold
    first_sink = np.full(n, L, np.int64)
    first_sink[free] = np.minimum(t[0][free], L)
    ranking = np.asarray(res.order)[:int(free.sum())].astype(np.int64)
    ln = np.flatnonzero(np.asarray(res.ln)[:n]).astype(np.int64)
    return labels, first_sink, ranking, ln


# ------------------------------------------------------------------------------------------------ fit
def hnc_fit(key: jax.Array, X: ArrayLike, s: ArrayLike, prior: float, *, n_neighbors: int | Sequence[int] = (5, 10, 15),
            sigma: float = 0.75, feature_weights: None | np.ndarray | Callable = None, lambdas: ArrayLike | None = None,
            ln_size: str = "paper", k_tolerance: float = 0.02, standardize: bool = True,
            normalize_distance: bool = True, cut_method: str = "bisect", n_lanes: int = 1, devices: DevicesLike = None,
            verbose: bool = False) -> HNCModel:
    """Fit 2-HNC on PU data (rows with ``s == 1`` are L+, the others U); return an :class:`HNCModel`.

    ``n_neighbors``: the k values tried (each ``< n``); ``feature_weights``: None (unweighted), an array (H,) or
    a callable ``(Z, s, prior, seed) -> weights`` called on the distinct non-constant standardised features;
    ``ln_size``: ``"paper"`` (|LN| = (1 - pi) / pi |L+|) or ``"labeled"`` (|LN| = |L+|); ``devices``: where the
    kNN row blocks and the lambda lanes of the cuts run (:func:`pujax.devices.resolve_devices`). Hyper-parameters
    are described in :class:`pujax.graph.TwoHNC`.
    """
    s = np.asarray(s).astype(np.int64)
    n, H = np.shape(X)
    ks = tuple(sorted(set(int(k) for k in np.atleast_1d(n_neighbors))))
    lam = default_lambdas() if lambdas is None else np.asarray(lambdas, np.float64).reshape(-1)
    seed = host_seed(key)  # the one host seed of a fit (SelectNeg's tie-breaking and the feature-weight model)
    rng = np.random.default_rng(seed)
    mean, scale, Z = hnc_standardize(X, standardize)
    columns, group, rho = _feature_weights(Z, s, prior, seed, feature_weights)
    # squared distance sum_h dw_h (z_h - z'_h)^2 (§5.3), over the distinct non-constant features (rho sums to
    # their number m; normalize_distance divides by m); X_fit holds those columns with their total weight
    dw = rho / max(columns.size, 1) if normalize_distance else rho
    cw = _column_weights(group, dw, columns.size)
    Zw = _weighted_rows(Z, columns, cw)
    labeled = s == 1
    nL = int(labeled.sum())
    n_u = n - nL
    n_ln = int(round((1 - prior) / prior * nL)) if ln_size == "paper" else nL
    n_ln = int(min(max(n_ln, 0), n_u))
    tie = rng.random(n)
    runs = _run_stages(Zw, labeled, n_ln, tie, ks, sigma, lam, cut_method, n_lanes, devices)
    per_k = []
    with progress(len(ks), "2-HNC", verbose) as bar:
        for k, (t, order, ln, summary) in zip(ks, runs):
            fr = _stage_fractions(summary, nL, n, n_ln < n_u)
            per_k.append((k, _closest_partition(fr, prior), _Stages(t, order, ln, fr)))
            bar.update()
    k, (frac, stage, q), res = per_k[_select_k([(k, best) for k, best, _ in per_k], prior, k_tolerance)]
    labels, first_sink, ranking, ln = _partition(res, stage, q, labeled, lam.size)
    best = {"fraction": frac, "labels": labels, "stage": stage, "lambda": float(lam[q]), "first_sink": first_sink,
            "ranking": ranking, "ln": ln, "path": res.fractions}
    return HNCModel(
        mean=mean, scale=scale, distance_weights=dw, feature_weights=rho, columns=columns, column_weights=cw,
        X_fit=Zw, labels=best["labels"], labeled=labeled, n_neighbors=int(k), sigma=float(sigma), lam=best["lambda"],
        stage=int(best["stage"]),
        positive_fraction=best["fraction"], lambdas=lam, first_sink=best["first_sink"], ranking=best["ranking"],
        likely_negatives=best["ln"], path_fractions=best["path"],
        candidate_k=np.array([kk for kk, _, _ in per_k], np.int64),
        candidate_fractions=np.array([r[0] for _, r, _ in per_k], np.float64))


# ------------------------------------------------------------------------------------------------ predict
def hnc_costs(model: HNCModel, X):
    """``(cost_pos, cost_neg, d_x)`` of placing each row of X on either side of the selected partition (§1): x is
    joined to its ``n_neighbors`` nearest training rows with the Gaussian weights of the fit."""
    cols = model.columns
    Z = _standardize(np.asarray(X)[:, cols], model.mean[cols], model.scale[cols], dtype=np.float64)
    Zw = (Z * np.sqrt(model.column_weights)[None, :]).astype(np.float32)
    idx, d2 = knn_query(Zw, model.X_fit, int(model.n_neighbors))
    idx, d2 = np.asarray(idx), np.asarray(d2, dtype=np.float64)
    w = np.exp(-d2 / (2.0 * model.sigma**2))
    pos = np.asarray(model.labels)[idx] == 1
    to_pos = (w * pos).sum(axis=1)
    to_neg = (w * ~pos).sum(axis=1)
    dx = w.sum(axis=1)
    if model.stage == 1:  # HNC-: x in S pays its cut edges to S-bar plus lambda d_x on its sink arc
        return to_neg + model.lam * dx, to_pos, dx
    return to_neg, to_pos + model.lam * dx, dx  # HNC+: x in S-bar pays lambda d_x on its source arc


def hnc_decision(model: HNCModel, X: ArrayLike) -> np.ndarray:
    """Normalised objective change ``(cost(x in S-bar) - cost(x in S)) / ((1 + lambda) d_x)`` in [-1, 1]; > 0:
    the positive side increases the objective less (0 for a point with no similarity to the training rows)."""
    cp, cn, dx = hnc_costs(model, X)
    denom = (1.0 + model.lam) * np.maximum(dx, 1e-300)
    return np.where(dx > 0, (cn - cp) / denom, 0.0)


def hnc_predict(model: HNCModel, X: ArrayLike) -> np.ndarray:
    """Inductive labels (int64, 1 = positive): the side that changes the objective least; ties go positive."""
    return (hnc_decision(model, X) >= 0).astype(np.int64)
