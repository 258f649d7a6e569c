"""PU model selection as in Claesen et al. 2015 §4.1: k-fold CV over a grid scored by pu_score (eq. 7), refit on all.

``pu_score = recall^2 / P(y_hat = 1)`` needs only PU labels (recall is measured on the labeled positives of the
held-out fold). The estimators of :mod:`pujax.svm` also work inside scikit-learn's ``GridSearchCV`` with
``scoring=pujax.metrics.pu_scorer`` and ``y = s``; :func:`pu_grid_search` runs the same protocol much faster by
solving every (fold, grid point, base model) SVM of one kernel setting in one batched solve
(:func:`pujax.svm.core.solve_problems`), using only the public functional core.
"""
from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import ParameterGrid, StratifiedKFold

from pujax._compile import bucket_size
from pujax.base import resolve_prior
from pujax.metrics import pu_score
from pujax.preprocessing import duplicate_groups
from pujax.progress import progress
from pujax.random import as_key, host_fold_in, host_rng
from pujax.svm.core import SolveResult, ensemble_scores, make_model, prior_threshold, solve_problems, svm_base_decision
from pujax.svm.estimators import BaggingSVMClassifier, CWSVMClassifier, RESVMClassifier
from pujax.svm.kernels import KERNELS, resolve_gamma, standardize, standardize_stats
from pujax.svm.problems import Problems, draw_problems, in_bag
from pujax.validation import check_in, check_int, check_pu_labels, check_X

if TYPE_CHECKING:
    from numpy.typing import ArrayLike
    from sklearn.base import BaseEstimator

    from pujax._typing import RandomStateLike

__all__ = ["PUGridSearchResult", "pu_grid_search"]

_SVMS = (CWSVMClassifier, BaggingSVMClassifier, RESVMClassifier)


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


def _fold_problems(members, folds, fold_keys, s, Xs_folds):
    """Problems of every (fold, grid point) with indices into the stacked per-fold standardized rows (fold ``f``
    owns rows ``f N .. (f + 1) N``), padded to one width, and each problem's gamma."""
    N = len(s)
    specs = []
    for f, (tr, _) in enumerate(folds):
        n_P, n_U = int(np.sum(s[tr] == 1)), int(np.sum(s[tr] == 0))
        for g_i, est in members:
            spec = est.ensemble_spec(n_P, n_U)
            gamma = resolve_gamma(est.gamma, Xs_folds[f][tr]) if est.kernel != "linear" else 1.0
            specs.append((g_i, f, spec, gamma, (spec.n_pos or n_P) + (spec.n_unl or n_U)))
    width = bucket_size(max(sp[-1] for sp in specs))
    blocks = []
    for g_i, f, spec, gamma, _ in specs:
        tr = folds[f][0]
        p = draw_problems(fold_keys[f], s[tr], spec, n_slots=width)
        blocks.append((g_i, f, gamma, Problems((f * N + tr[p.idx]).astype(np.int32), p.y, p.C)))
    return blocks


def _fold_predictions(est, psi, inbag, tr, va, X, s, seed, priors):
    """Predicted labels of the validation rows from base decision values ``psi`` of the fold's rows (all N);
    ``priors`` caches the resolved prior of each (fold, prior argument)."""
    vote = not isinstance(est, CWSVMClassifier)  # CWSVM: one SVM, thresholded on its decision value
    T = 0.5 if vote else 0.0
    if est.prior is not None:
        U = tr[s[tr] == 0]
        key = (tr.tobytes(), repr(est.prior))
        if key not in priors:
            priors[key] = resolve_prior(est.prior, X[tr], s[tr], seed)
        T = prior_threshold(ensemble_scores(psi[U], ~inbag[U]) if vote else psi[U, 0], priors[key])
    return (ensemble_scores(psi[va]) if vote else psi[va, 0]) > T


def _score_group(members, static, folds, fold_keys, X, s, Xs_folds, seed, devices):
    """pu_score of every (grid point, fold) of one kernel / solver setting, all base models in one solve."""
    kernel, degree, coef0, tol, max_iter = static
    N = len(s)
    blocks = _fold_problems(members, folds, fold_keys, s, Xs_folds)
    allp = Problems(*(np.concatenate([b[3][k] for b in blocks]) for k in range(3)))
    gammas = np.concatenate([np.full(b[3].idx.shape[0], b[2]) for b in blocks])
    X_all = np.concatenate(Xs_folds)
    sol = solve_problems(X_all, allp, kernel=kernel, gamma=gammas, coef0=coef0, degree=degree, tol=tol,
                         max_iter=max_iter, devices=devices)
    ests, out = dict(members), []
    groups = duplicate_groups(X)
    groups = np.concatenate([groups + f * N for f in range(len(folds))])  # identical rows, per fold
    priors = {}
    identity = (np.zeros(X.shape[1]), np.ones(X.shape[1]))
    starts = np.cumsum([0] + [b[3].idx.shape[0] for b in blocks])
    # the grid points of one fold and gamma are scored together: one model of all their base SVMs, so the kernel
    # between the fold's rows and the support vectors is computed once for all of them
    by_fold = {}
    for k, (_, f, gamma, _) in enumerate(blocks):
        by_fold.setdefault((f, float(gamma)), []).append(k)
    for (f, gamma), ks in by_fold.items():
        cols = np.concatenate([np.arange(starts[k], starts[k + 1]) for k in ks])
        p_all = Problems(*(np.concatenate([blocks[k][3][i] for k in ks]) for i in range(3)))
        model = make_model(X_all, p_all, SolveResult(*(a[cols] for a in sol)), identity, kernel=kernel,
                           gamma=gamma, coef0=coef0, degree=degree)
        psi_all = svm_base_decision(model, Xs_folds[f])
        inbag_all = in_bag(p_all, len(X_all), groups)[f * N:(f + 1) * N]  # column b: base model b's bag
        tr, va = folds[f]
        col = 0
        for k in ks:
            g_i, _, _, p = blocks[k]
            B = p.idx.shape[0]
            psi, inbag = psi_all[:, col:col + B], inbag_all[:, col:col + B]
            pred = _fold_predictions(ests[g_i], psi, inbag, tr, va, X, s, seed, priors)
            out.append((g_i, f, float(pu_score(s[va], pred.astype(np.int64)))))
            col += B
    return out


def pu_grid_search(estimator: BaseEstimator, param_grid: dict | list[dict], X: ArrayLike, s: ArrayLike, cv: int = 10,
                   random_state: RandomStateLike = None, refit: bool = True,
                   verbose: bool = False) -> PUGridSearchResult:
    """Paper protocol: ``cv``-fold CV (stratified on ``s``) over ``param_grid`` scored by pu_score, refit on all.

    Parameters
    ----------
    estimator : CWSVMClassifier, BaggingSVMClassifier or RESVMClassifier
    param_grid : dict or list of dicts
        Parameter lists, as for ``sklearn.model_selection.ParameterGrid``.
    X, s : PU training data (``s = 1`` labeled positive, ``0`` unlabeled).
    cv : int
        Number of folds (one set of folds is shared by every grid point, as in the paper).
    random_state : seeds the folds and the bootstrap resamples (fold ``f`` uses ``fold_in(key, f)`` for every grid
        point, so grid points are compared on the same resamples).
    refit : bool
        Refit the best parameters on all of ``(X, s)`` (``best_estimator_``).
    verbose : bool
        Progress bar over kernel settings.

    Returns
    -------
    PUGridSearchResult

    Notes
    -----
    Every fold standardizes with the statistics of its training rows and resolves ``gamma`` on them, exactly as a
    fit on those rows does. Ties in the mean score go to the first grid point.
    """
    if not isinstance(estimator, _SVMS):
        raise TypeError("estimator must be a pujax.svm CWSVMClassifier, BaggingSVMClassifier or RESVMClassifier; "
                        "for other estimators use sklearn GridSearchCV with scoring=pujax.metrics.pu_scorer.")
    X = check_X(X, dtype=None)
    s = check_pu_labels(s, n_samples=X.shape[0])
    cv = check_int(cv, "cv", low=2)
    if int(s.sum()) < cv or int((s == 0).sum()) < cv:
        raise ValueError(f"cv={cv} folds need at least {cv} labeled and {cv} unlabeled rows.")
    grid = list(ParameterGrid(param_grid))
    if not grid:
        raise ValueError("param_grid is empty; pass e.g. {'C': [0.1, 1, 10]}.")
    key = as_key(random_state)
    seed, refit_seed = (int(v) for v in host_rng(key).integers(0, 2**31 - 1, size=2))  # folds, refit model
    folds = list(StratifiedKFold(cv, shuffle=True, random_state=seed).split(X, s))
    fold_keys = [host_fold_in(key, f) for f in range(cv)]
    Xs_folds = [standardize(X, *standardize_stats(X[tr])) for tr, _ in folds]

    groups = defaultdict(list)
    for g_i, params in enumerate(grid):
        est = clone(estimator).set_params(**params)
        check_in(est.kernel, "kernel", KERNELS)
        static = (est.kernel, int(est.degree), float(est.coef0), float(est.tol), int(est.max_iter))
        groups[static].append((g_i, est))

    scores = np.zeros((len(grid), cv))
    with progress(len(groups), "pu_grid_search", verbose) as bar:
        for static, members in groups.items():
            for g_i, f, score in _score_group(members, static, folds, fold_keys, X, s, Xs_folds, seed,
                                              getattr(estimator, "devices", None)):
                scores[g_i, f] = score
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
            best_est.set_params(random_state=refit_seed)
        best_est.fit(X, s)
    return PUGridSearchResult(grid[best], float(mean[best]), best, cv_results, best_est)
