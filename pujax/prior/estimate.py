"""``estimate_prior``: one entry point for every prior estimator of :mod:`pujax.prior`.

A scipy sparse ``X`` (CSR / CSC; other formats are converted to CSR) is never densified: the score-based methods
cross-fit their classifier (by default a logistic regression) on sparse folds, "km1" / "km2" compute their kernel
from sparse row products, and "tice" bins its columns from the stored values (a dense uint8 matrix of interval
codes, n_samples x n_features bytes).
"""
from __future__ import annotations

import time
import warnings
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from pujax.prior import bbe, dedpul, elkan_noto, km, tice
from pujax.prior._common import PRIOR_EPS, PriorEstimate, label_frequency_from_prior, seed_from
from pujax.prior._registry import Context
from pujax.prior._scores import classifier_name, cross_fit_scores
from pujax.random import as_key
from pujax.validation import SPARSE_FORMATS, check_float, check_in, check_int, check_X_s

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike
    from sklearn.base import BaseEstimator

    from pujax._typing import DevicesLike, RandomStateLike

__all__ = ["estimate_prior", "METHODS"]

_REGISTRY = {m.name: m for m in (bbe._method(), elkan_noto._method(), tice._method(), km._method("km1"),
                                  km._method("km2"), dedpul._method())}
METHODS = tuple(_REGISTRY)
"""Names accepted by ``estimate_prior(..., method=...)``."""

_RENAMED = {("tice", "tice_delta"): "delta"}  # old keyword -> option, kept for one release with a FutureWarning


def _method_options(method, kwargs):
    """Validate ``kwargs`` against the options of ``method``; return every option (defaults filled in)."""
    spec = _REGISTRY[method]
    kwargs = dict(kwargs)
    for (m, old), new in _RENAMED.items():
        if m == method and old in kwargs:
            warnings.warn(f"estimate_prior option {old!r} is renamed {new!r} (method={method!r}); {old!r} will be "
                          f"removed in the next release.", FutureWarning, stacklevel=3)
            kwargs[new] = kwargs.pop(old)
    interval = kwargs.pop("interval", "bootstrap")
    check_in(interval, "interval", ("bootstrap", "dkw"))
    if interval not in spec.intervals:
        raise ValueError(f'interval={interval!r} is only defined for method="bbe"; use interval="bootstrap" for '
                         f"{method!r}.")
    unknown = sorted(set(kwargs) - set(spec.options))
    if unknown:
        owners = {k: [m for m, sp in _REGISTRY.items() if k in sp.options] for k in unknown}
        hint = "; ".join(f"{k!r} is an option of {', '.join(map(repr, v))}" for k, v in owners.items() if v)
        valid = ", ".join(sorted(spec.options) + ["interval"])
        raise TypeError(f"estimate_prior(method={method!r}) got unknown option(s) {', '.join(map(repr, unknown))}; "
                        f"the options of {method!r} are: {valid}" + (f" ({hint})." if hint else "."))
    opts = {name: check(kwargs.get(name, default), name) if name in kwargs or default is not None else default
            for name, (default, check) in spec.options.items()}
    if len(spec.intervals) > 1:
        opts["interval"] = interval
    return opts, interval


def estimate_prior(X: ArrayLike, s: ArrayLike, method: str = "bbe", *, classifier: BaseEstimator | None = None,
                   n_bootstrap: int | None = None, confidence: float = 0.95, random_state: RandomStateLike = None,
                   devices: DevicesLike = None, **method_kwargs: Any) -> PriorEstimate:
    """Estimate the case-control class prior of the unlabeled rows of ``(X, s)``.

    Returns the positive fraction of the population the ``s == 0`` rows are drawn from: the ``prior`` a pujax
    estimator fitted on the same ``(X, s)`` needs (pi = P(y=1) for case-control data, pi (1 - c) / (1 - pi c) for
    censoring data, eq. (C4); see :mod:`pujax.prior`).

    Parameters
    ----------
    X : array-like or scipy sparse matrix of shape (n_samples, n_features)
        Features (numeric or boolean); a sparse ``X`` (CSR / CSC) is never densified (``docs/sparse.md``).
    s : array-like of shape (n_samples,)
        PU labels (1 = labeled positive, 0 = unlabeled; bool and {-1, +1} accepted).
    method : str, default="bbe"
        One of :data:`METHODS`: ``"bbe"`` (Garg et al. 2021), ``"elkan_noto"`` (Elkan & Noto 2008), ``"tice"``
        (Bekker & Davis 2018), ``"km1"`` / ``"km2"`` (Ramaswamy et al. 2016), ``"dedpul"`` (Ivanov 2020).
    classifier : scikit-learn classifier or None
        P-vs-U classifier of the score-based methods (cloned and fitted per fold; methods that need
        probabilities require ``predict_proba``, "bbe" also accepts ``decision_function``). Default:
        ``HistGradientBoostingClassifier`` with early stopping (after a randomized PCA to 50 components when X has
        more than 256 columns); for a sparse ``X``, ``LogisticRegression(max_iter=1000)``. Not used by "tice".
    n_bootstrap : int or None, default=None
        Bootstrap resamples of the interval (batched in JAX). ``None``: 200, and 20 for "km1" / "km2" (each
        resample solves the method's QPs again).
    confidence : float in (0, 1), default=0.95
        Level of the interval.
    random_state : None, int, numpy RandomState / Generator or JAX key
        Seeds the folds, the default classifier and the bootstrap.
    devices : None, int, list of jax.Device or jax.sharding.Mesh, default=None
        Devices the bootstrap resamples are split over (:mod:`pujax.devices`); the same resamples on any number.
    **method_kwargs
        Options of the method (an unknown option raises a ``TypeError`` naming it):

        - every method: ``interval`` -- ``"bootstrap"`` (default) or, for "bbe", ``"dkw"`` (DKW bounds at level
          1 - delta);
        - score-based methods ("bbe", "elkan_noto", "dedpul"): ``n_folds`` (2) cross-fitting folds, ``n_jobs`` (1)
          threads the classifier may use (``None`` or -1: no limit);
        - "bbe": ``delta`` (0.1), ``gamma`` (0.01) -- confidence parameter and slack of the paper;
        - "elkan_noto": ``variant`` (``"e1"``, ``"e2"`` or ``"e3"``) -- the estimator reported as ``prior`` (all
          three are in ``diagnostics``);
        - "tice": ``n_folds`` (5), ``max_splits`` (500), ``min_size`` (10), ``max_bepp`` (5), ``n_iterations`` (2),
          ``delta`` (None: max(0.025, 1/(1 + 0.004 n)));
        - "km1", "km2": ``max_samples`` (250) rows of U and of P (random subsamples), ``n_iter`` (200) QP
          iterations, ``n_grid`` (3) lambda values per search round;
        - "dedpul": ``bw_mix`` (0.05), ``bw_pos`` (0.1) KDE bandwidth factors, ``max_samples`` (2000) unlabeled
          rows where the density ratio is evaluated.

    Returns
    -------
    PriorEstimate

    References
    ----------
    Garg, Wu, Smola, Balakrishnan & Lipton (2021), NeurIPS, Algorithm 1; Elkan & Noto (2008), KDD, section 2;
    Bekker & Davis (2018), AAAI; Ramaswamy, Scott & Tewari (2016), ICML, section 5 (gradient thresholding);
    Ivanov (2020), ICMLA, Algorithm 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from pujax.prior import estimate_prior
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(2000) < 0.4
    >>> X = rng.normal(size=(2000, 2)) + 3.0 * y[:, None]
    >>> X, s = np.vstack([X[y][:300], X[300:]]), np.r_[np.ones(300), np.zeros(1700)]  # P rows, then U
    >>> est = estimate_prior(X, s, classifier=LogisticRegression(), random_state=0)
    >>> 0.3 < est.prior < 0.5
    True
    """
    t0 = time.perf_counter()
    X, s = check_X_s(X, s, accept_sparse=SPARSE_FORMATS)
    check_in(method, "method", METHODS)
    opts, interval = _method_options(method, method_kwargs)
    n_bootstrap = check_int(n_bootstrap, "n_bootstrap", low=2, allow_none=True) or _REGISTRY[method].default_bootstrap
    confidence = check_float(confidence, "confidence", 0.0, 1.0)
    return _estimate(X, s, _REGISTRY[method], opts, interval, classifier, n_bootstrap, confidence, random_state,
                     devices, t0)


def _estimate(X, s, spec, opts, interval, classifier, n_bootstrap, confidence, random_state, devices, t0):
    """Counts check, seeds, cross-fitted scores (score-based methods), the method's run, the result."""
    if classifier is not None and not hasattr(classifier, "fit"):
        raise TypeError(f"classifier must be a scikit-learn classifier with fit(); got {type(classifier).__name__}.")

    n_l = int(s.sum())
    n_u = int(s.shape[0] - n_l)
    n_folds = opts.get("n_folds", 2)
    if n_l < n_folds or n_u < n_folds:
        raise ValueError(
            f"estimate_prior needs at least n_folds={n_folds} labeled and unlabeled rows; got n_labeled={n_l}, "
            f"n_unlabeled={n_u}."
        )
    if X.shape[0] > 1 and _one_distinct_row(X):
        raise ValueError(
            "X holds a single distinct row (every column is constant): labeled and unlabeled rows cannot be told "
            "apart, so the class prior is not identifiable from X; pass features that vary between rows."
        )
    seed = seed_from(random_state)
    diag = {"n_labeled": n_l, "n_unlabeled": n_u, "n_folds": n_folds, "confidence": confidence,
            "interval": interval, "seed": seed}
    scores = None
    if spec.scores is not None:
        from sklearn.metrics import roc_auc_score  # a host-side diagnostic: pujax.metrics.roc_auc would compile

        t_fit = time.perf_counter()
        scores, _ = cross_fit_scores(X, s, classifier, n_folds, seed, need_proba=(spec.scores == "proba"),
                                     n_jobs=opts["n_jobs"], method=spec.name)
        diag["classifier"] = classifier_name(classifier, X.shape[1], sp.issparse(X))
        diag["classifier_time_s"] = time.perf_counter() - t_fit
        diag["pu_auc"] = float(roc_auc_score(s, scores))
    ctx = Context(X=X, s=s, n_l=n_l, n_u=n_u, key=as_key(seed), seed=seed, n_bootstrap=n_bootstrap,
                  scores=scores, devices=devices)
    raw, boot, ci, method_diag = spec.run(ctx, **opts)
    diag.update(method_diag)
    return _result(raw, boot, ci, spec.name, confidence, n_l, n_u, diag, t0)


def _one_distinct_row(X) -> bool:
    """Whether every row of ``X`` (dense or scipy sparse) equals the first."""
    if sp.issparse(X):
        return (X.max(axis=0) != X.min(axis=0)).nnz == 0
    return not np.any(X != X[:1])


def _result(raw, boot, ci, method, confidence, n_l, n_u, diag, t0):
    """Interval from the bootstrap (or the method's own), clipping, label frequency: the PriorEstimate."""
    if boot is not None:
        n_bootstrap = int(np.size(boot))
        boot = np.clip(boot[np.isfinite(boot)], 0.0, 1.0)
        lo_q, hi_q = (1.0 - confidence) / 2.0, (1.0 + confidence) / 2.0
        ci = (float(np.quantile(boot, lo_q)), float(np.quantile(boot, hi_q)))
        diag["bootstrap_std"] = float(np.std(boot))
        diag["n_bootstrap"] = n_bootstrap
    prior = float(np.clip(raw, PRIOR_EPS, 1.0 - PRIOR_EPS))
    diag["raw_prior"] = raw
    diag["clipped"] = bool(prior != raw)
    lo, hi = min(ci[0], prior), max(ci[1], prior)
    diag["time_s"] = time.perf_counter() - t0
    return PriorEstimate(prior=prior, label_frequency=float(label_frequency_from_prior(prior, n_l, n_u)),
                         interval=(float(np.clip(lo, 0, 1)), float(np.clip(hi, 0, 1))), method=method,
                         diagnostics=diag)
