"""The artificial data of FSCPU's experiments (Uchikoshi & Akimoto 2025, section 5.2.1, Table 1) and the FSR metric.

Each data set has 50 features: 25 relevant ones and 25 irrelevant ones (20 drawn from U(-10, 10) and 5 copies of
randomly chosen ones of those 20 plus N(0, 1) noise, so that some irrelevant features are correlated).

* Cluster assumption holds: the relevant features of the 4,000 negative rows come from 1 or 8 normal
  distributions and those of the 500 positive rows from 1 or 2 normal distributions (rows split evenly among the
  distributions); each distribution has its own mean, drawn uniformly in [-5, 5] per feature, and variance 10 per
  feature (independent coordinates).
* Cluster assumption does not hold: 4,500 rows of the relevant features from N(0, 25 I); the 500 rows with the
  largest norm are the positives (scattered outliers).

A fraction ``labeled_rate`` (40 % or 10 %) of the positives is labeled (s = 1); all other rows are unlabeled.
Features are returned unscaled (the paper min-max scales them before feature selection, as :class:`FSCPU` does by
default). The generator is host-side numpy (it runs once per data set).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from pujax._typing import RandomStateLike

__all__ = ["Table1Condition", "TABLE1_CONDITIONS", "make_fscpu_synthetic", "feature_selection_recall"]


class Table1Condition(NamedTuple):
    """One column of the paper's Table 1 with the reported mean FSR of FSCPU and FSCPU-MI."""

    cluster_assumption: bool
    labeled_rate: float
    n_negative_clusters: int | None
    n_positive_clusters: int | None
    paper_fscpu: float
    paper_fscpu_mi: float


TABLE1_CONDITIONS = (
    Table1Condition(True, 0.4, 8, 1, 0.91, 0.90),
    Table1Condition(True, 0.4, 8, 2, 0.90, 0.79),
    Table1Condition(True, 0.4, 1, 1, 0.75, 0.74),
    Table1Condition(True, 0.4, 1, 2, 0.82, 0.82),
    Table1Condition(True, 0.1, 8, 1, 0.92, 0.87),
    Table1Condition(True, 0.1, 8, 2, 0.89, 0.86),
    Table1Condition(True, 0.1, 1, 1, 0.78, 0.76),
    Table1Condition(True, 0.1, 1, 2, 0.78, 0.81),
    Table1Condition(False, 0.4, None, None, 0.56, 0.59),
    Table1Condition(False, 0.1, None, None, 0.51, 0.54),
)


def _split_even(n, parts):
    sizes = np.full(parts, n // parts)
    sizes[: n % parts] += 1
    return sizes


def make_fscpu_synthetic(cluster_assumption: bool = True, labeled_rate: float = 0.4, n_negative_clusters: int = 8,
                         n_positive_clusters: int = 1, n_negative: int = 4000, n_positive: int = 500,
                         n_relevant: int = 25, n_uniform: int = 20, n_noisy_copies: int = 5, mean_range: float = 5.0,
                         cluster_variance: float = 10.0, outlier_variance: float = 25.0, shuffle_features: bool = False,
                         random_state: RandomStateLike = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Generate one artificial data set of section 5.2.1.

    Returns ``(X, y, s, relevant)``: features (n, n_relevant + n_uniform + n_noisy_copies) float64, true labels
    (1 = positive), PU labels (1 = labeled positive) and the indices of the relevant features.
    """
    rng = np.random.default_rng(random_state)
    if not (0.0 < labeled_rate <= 1.0):
        raise ValueError(f"labeled_rate={labeled_rate!r} must be in (0, 1].")
    n = n_negative + n_positive
    if cluster_assumption:
        blocks, labels = [], []
        for count, n_clu, lab in ((n_negative, n_negative_clusters, 0), (n_positive, n_positive_clusters, 1)):
            if n_clu is None or int(n_clu) < 1:
                raise ValueError("n_negative_clusters and n_positive_clusters must be >= 1 when "
                                 "cluster_assumption=True.")
            for size in _split_even(count, int(n_clu)):
                mean = rng.uniform(-mean_range, mean_range, n_relevant)
                blocks.append(mean + np.sqrt(cluster_variance) * rng.standard_normal((size, n_relevant)))
                labels.append(np.full(size, lab))
        rel = np.concatenate(blocks)
        y = np.concatenate(labels)
    else:
        rel = np.sqrt(outlier_variance) * rng.standard_normal((n, n_relevant))
        norms = np.linalg.norm(rel, axis=1)
        y = np.zeros(n, dtype=np.int64)
        y[np.argsort(-norms, kind="stable")[:n_positive]] = 1
    unif = rng.uniform(-10.0, 10.0, (n, n_uniform))
    src = rng.choice(n_uniform, size=n_noisy_copies, replace=n_noisy_copies > n_uniform)
    copies = unif[:, src] + rng.standard_normal((n, n_noisy_copies))
    X = np.concatenate([rel, unif, copies], axis=1)
    relevant = np.arange(n_relevant)
    perm_rows = rng.permutation(n)
    X, y = X[perm_rows], y[perm_rows].astype(np.int64)
    if shuffle_features:
        perm = rng.permutation(X.shape[1])
        X = X[:, perm]
        relevant = np.sort(np.argsort(perm)[relevant])
    pos = np.flatnonzero(y == 1)
    n_lab = max(1, int(round(labeled_rate * pos.size)))
    s = np.zeros(n, dtype=np.int64)
    s[rng.choice(pos, size=n_lab, replace=False)] = 1
    return X, y, s, relevant


def feature_selection_recall(selected: ArrayLike, relevant: ArrayLike) -> float:
    """FSR (eq. 14): number of correctly selected relevant features / number of relevant features.

    ``selected`` is a boolean support mask or an index array; ``relevant`` an index array (or boolean mask).
    """
    selected = np.asarray(selected)
    relevant = np.asarray(relevant)
    if selected.dtype == bool:
        selected = np.flatnonzero(selected)
    if relevant.dtype == bool:
        relevant = np.flatnonzero(relevant)
    if relevant.size == 0:
        raise ValueError("relevant is empty; FSR needs at least one relevant feature.")
    return float(np.intersect1d(selected, relevant).size / np.unique(relevant).size)
