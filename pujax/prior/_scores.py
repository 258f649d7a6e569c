"""Cross-fitted P-vs-U classifier scores (BBE, Elkan-Noto, DEDPUL) and the folds they are computed on.

The rows are split into ``n_folds`` folds stratified by ``s``; a fresh clone of the classifier is trained on the
other folds and each row is scored by the model that did not see it. Exact duplicate rows are kept in one fold, so
that in case-control data where U holds copies of the labeled rows (as in the papers' setup) a labeled row is never
scored by a model that saw its unlabeled copy. A value repeated in more than ``MAX_GROUP`` rows (low-cardinality or
boolean features) is not a copy but a common value: its rows are spread over the folds like distinct rows, so that
every fold's model sees every common value (keeping them together would train and score on disjoint regions).
A scipy sparse ``X`` stays sparse: duplicates are found from its stored entries and the default classifier is a
logistic regression on the sparse matrix.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from pujax.preprocessing import duplicate_groups

PCA_ABOVE = 256  # the default classifier projects wider data on 50 principal components first
MAX_GROUP = 8  # duplicate groups up to this size stay in one fold; larger ones are spread like distinct rows
EARLY_STOPPING_MIN_CLASS = 20  # early stopping holds out 15 % stratified: each class needs a few rows there


def stratified_folds(groups, s, n_folds, rng):
    """Fold id per row: groups (exact duplicates) kept together, labeled/unlabeled groups spread evenly."""
    n_groups = int(groups.max()) + 1
    has_lab = np.zeros(n_groups, bool)
    has_lab[groups[s == 1]] = True
    fold_of_group = np.empty(n_groups, np.int64)
    offset = 0
    for mask in (has_lab, ~has_lab):
        ids = np.flatnonzero(mask)
        ids = ids[rng.permutation(ids.size)]
        fold_of_group[ids] = (np.arange(ids.size) + offset) % n_folds
        offset = (offset + ids.size) % n_folds
    return fold_of_group[groups]


def default_classifier(seed, n_features, min_class_count=EARLY_STOPPING_MIN_CLASS, sparse=False):
    """HistGradientBoosting (early stopping when each class of the training fold has at least 20 rows); for more
    than 256 features (images) after a randomized PCA(50). For a scipy sparse ``X`` (text): scikit-learn's
    ``LogisticRegression(max_iter=1000)`` on the sparse matrix as given."""
    if sparse:
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(max_iter=1000)
    from sklearn.ensemble import HistGradientBoostingClassifier

    early = min_class_count >= EARLY_STOPPING_MIN_CLASS
    hgb = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.1, max_leaf_nodes=31, min_samples_leaf=20,
                                         l2_regularization=1.0, early_stopping=early, validation_fraction=0.15,
                                         n_iter_no_change=10, random_state=seed)
    if n_features <= PCA_ABOVE:
        return hgb
    from sklearn.decomposition import PCA
    from sklearn.pipeline import make_pipeline

    return make_pipeline(PCA(n_components=50, svd_solver="randomized", random_state=seed), hgb)


def classifier_name(classifier, n_features, sparse=False) -> str:
    if classifier is None and sparse:
        return "LogisticRegression (default for sparse X)"
    if classifier is None:
        return "HistGradientBoostingClassifier (default" + (", after PCA(50))" if n_features > PCA_ABOVE else ")")
    return type(classifier).__name__


def _score(model, X, need_proba, method):
    if hasattr(model, "predict_proba"):
        return np.asarray(model.predict_proba(X))[:, list(model.classes_).index(1)]
    if need_proba:
        raise TypeError(
            f"classifier {type(model).__name__} has no predict_proba; method={method!r} needs probabilities "
            f"P(s=1|x): pass a probabilistic classifier (e.g. wrap it in sklearn.calibration.CalibratedClassifierCV)."
        )
    if hasattr(model, "decision_function"):
        return np.asarray(model.decision_function(X)).ravel()
    raise TypeError(f"classifier {type(model).__name__} has neither predict_proba nor decision_function.")


def cross_fit_scores(X, s, classifier, n_folds, seed, need_proba, n_jobs=1, method="bbe"):
    """Held-out score of every row (one model per fold, trained on the other folds). Returns (scores, folds)."""
    from sklearn.base import clone

    from pujax.devices import cpu_threads

    rng = np.random.default_rng(seed)
    folds = stratified_folds(duplicate_groups(X, MAX_GROUP), s, n_folds, rng)
    for f in range(n_folds):
        tr, te = folds != f, folds == f
        if not tr.any() or s[tr].min() == s[tr].max() or s[te].sum() == 0 or (1 - s[te]).sum() == 0:
            raise ValueError(
                f"cannot build {n_folds} folds with both labeled and unlabeled rows in each (n_labeled="
                f"{int(s.sum())}, n_unlabeled={int((1 - s).sum())}); pass fewer n_folds or more labeled rows."
            )
    scores = np.empty(X.shape[0], dtype=np.float64)
    for f in range(n_folds):
        tr, te = folds != f, folds == f
        n_train_labeled = int(s[tr].sum())
        model = (default_classifier(seed, X.shape[1], min(n_train_labeled, int(tr.sum()) - n_train_labeled),
                                    sparse=sp.issparse(X)) if classifier is None else clone(classifier))
        with cpu_threads(n_jobs):
            model.fit(X[tr], s[tr])
            scores[te] = _score(model, X[te], need_proba, method)
    if not np.all(np.isfinite(scores)):
        raise ValueError("the classifier returned NaN or infinite scores; check the classifier.")
    return scores, folds
