"""PU model selection as in Claesen et al. 2015 §4.1: k-fold CV over a grid scored by pu_score (eq. 7), refit on all.

``pu_score = recall^2 / P(y_hat = 1)`` needs only PU labels (recall is measured on the labeled positives of the
held-out fold). The estimators of :mod:`pujax.svm` also work inside scikit-learn's ``GridSearchCV`` with
``scoring=pujax.metrics.pu_scorer`` and ``y = s``; :func:`pu_grid_search` runs the same protocol much faster by
solving every (fold, grid point, base model) SVM of one kernel setting in a single batched solve on one kernel matrix.
"""
from __future__ import annotations

from collections import defaultdict

import jax
import numpy as np
from sklearn.base import clone
from sklearn.model_selection import ParameterGrid, StratifiedKFold

from pujax.metrics import pu_score
from pujax.progress import progress
from pujax.svm.estimators import _BaseSVM, _bucket, base_decision_values, solve_problems
from pujax.validation import as_key, check_int, check_X_s

__all__ = ["PUGridSearchResult", "pu_grid_search"]


class PUGridSearchResult:
    """Outcome of :func:`pu_grid_search` (attributes named as in ``GridSearchCV``)."""

    def __init__(self, best_params_, best_score_, best_index_, cv_results_, best_estimator_):
        self.best_params_ = best_params_
        self.best_score_ = best_score_
        self.best_index_ = best_index_
        self.cv_results_ = cv_results_
        self.best_estimator_ = best_estimator_

    def __repr__(self):
        return f"PUGridSearchResult(best_params_={self.best_params_}, best_score_={self.best_score_:.4f})"


def pu_grid_search(estimator, param_grid, X, s, cv=10, random_state=None, refit=True, verbose=False):
    """Paper protocol: ``cv``-fold CV (stratified on ``s``) over ``param_grid`` scored by pu_score, refit on all.

    Parameters
    ----------
    estimator : a :class:`CWSVMClassifier`, :class:`BaggingSVMClassifier` or :class:`RESVMClassifier`.
    param_grid : dict (or list of dicts) of parameter lists, as for ``sklearn.model_selection.ParameterGrid``.
    X, s : PU training data (``s = 1`` labeled positive, ``0`` unlabeled).
    cv : number of folds (one set of folds is shared by every grid point, as in the paper).
    random_state : seeds the folds and the bootstrap resamples (fold ``f`` uses ``fold_in(key, f)`` for every grid
        point, so grid points are compared on the same resamples).
    refit : refit the best parameters on all of ``(X, s)`` (``best_estimator_``).

    Notes
    -----
    ``gamma="scale"`` is resolved on the whole ``X`` for every fold (the refit resolves it on ``X`` too).
    Ties in the mean score go to the first grid point.
    """
    if not isinstance(estimator, _BaseSVM):
        raise TypeError("estimator must be a pujax.svm CWSVMClassifier, BaggingSVMClassifier or RESVMClassifier; "
                        "for other estimators use sklearn GridSearchCV with scoring=pujax.metrics.pu_scorer.")
    X, s = check_X_s(X, s)
    cv = check_int(cv, "cv", low=2)
    if int(s.sum()) < cv or int((s == 0).sum()) < cv:
        raise ValueError(f"cv={cv} folds need at least {cv} labeled and {cv} unlabeled rows.")
    grid = list(ParameterGrid(param_grid))
    if not grid:
        raise ValueError("param_grid is empty; pass e.g. {'C': [0.1, 1, 10]}.")
    key = as_key(random_state)
    seed = int(np.asarray(jax.random.randint(key, (), 0, 2**31 - 1)))
    folds = list(StratifiedKFold(cv, shuffle=True, random_state=seed).split(X, s))
    fold_keys = [jax.random.fold_in(key, f) for f in range(cv)]

    groups = defaultdict(list)
    for g_i, params in enumerate(grid):
        est = clone(estimator).set_params(**params)
        est._check_common()
        est._check_params()
        gk = (est.kernel, est._gamma(X), float(est.coef0), int(est.degree), float(est.tol), int(est.max_iter))
        groups[gk].append((g_i, est))

    scores = np.zeros((len(grid), cv))
    with progress(len(groups), "pu_grid_search", verbose) as bar:
        for (kernel, gamma, coef0, degree, tol, max_iter), members in groups.items():
            fold_sets = [(tr[s[tr] == 1], tr[s[tr] == 0]) for tr, _ in folds]
            sizes = [est._sizes(len(P), len(U)) for _, est in members for P, U in fold_sets]
            slot_pos = max(a for a, _ in sizes)
            slot_unl = _bucket(slot_pos + max(b for _, b in sizes)) - slot_pos
            blocks, owners = [], []
            for f, (P_rows, U_rows) in enumerate(fold_sets):
                for g_i, est in members:
                    idx, y, C = est._problems(fold_keys[f], P_rows, U_rows, slot_pos, slot_unl)
                    blocks.append((idx, y, C))
                    owners.append((g_i, f, idx.shape[0]))
            idx = np.concatenate([b[0] for b in blocks])
            y = np.concatenate([b[1] for b in blocks])
            C = np.concatenate([b[2] for b in blocks])
            n_slot = idx.shape[1]
            chunk = int(min(idx.shape[0], max(8, 262144 // n_slot)))
            W, b, _, _, _ = solve_problems(X, idx, y, C, kernel, gamma, coef0, degree, tol, max_iter, chunk=chunk)
            psi = base_decision_values(X, X, W, b, kernel, gamma, coef0, degree)
            col = 0
            for g_i, f, n_models in owners:
                va = folds[f][1]
                pred = type(members[0][1])._predict_from_psi(psi[va, col:col + n_models])
                scores[g_i, f] = float(pu_score(s[va], pred))
                col += n_models
            bar.update()

    mean = scores.mean(axis=1)
    best = int(np.argmax(mean))
    order = np.argsort(-mean, kind="stable")
    rank = np.empty(len(grid), np.int64)
    rank[order] = np.arange(1, len(grid) + 1)
    cv_results = {"params": grid, "mean_test_score": mean, "std_test_score": scores.std(axis=1),
                  "rank_test_score": rank}
    for f in range(cv):
        cv_results[f"split{f}_test_score"] = scores[:, f]
    best_est = None
    if refit:
        best_est = clone(estimator).set_params(**grid[best])
        if "random_state" in best_est.get_params():
            best_est.set_params(random_state=int(np.asarray(jax.random.randint(jax.random.fold_in(key, cv), (), 0,
                                                                                  2**31 - 1))))
        best_est.fit(X, s)
    return PUGridSearchResult(grid[best], float(mean[best]), best, cv_results, best_est)
