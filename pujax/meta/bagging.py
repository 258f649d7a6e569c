r"""Bagging PU learning around any classifier (Mordelet & Vert 2014, Algorithm 1).

For :math:`t = 1..T`: draw :math:`K` rows :math:`U_t` from the unlabeled rows (a bootstrap sample), fit a
classifier :math:`f_t` of all labeled positives :math:`P` (class 1) against :math:`U_t` (class 0). The score of a
new row is the mean of :math:`f_t(x)`; the out-of-bag score of an unlabeled row averages only the :math:`f_t`
whose :math:`U_t` did not contain it (the transductive score of the paper).

Bags are fitted in parallel with joblib (``n_jobs``), in chunks as scikit-learn's ``BaggingClassifier`` does; the
seeds of the bags are drawn before the split into chunks, so the model does not depend on ``n_jobs``. A base model
with a ``fit_bags(X, y, bags)`` method fits all bags in one call instead, on the same bags: pujax's
:class:`~pujax.svm.CWSVMClassifier` solves them as one batch of SVM problems,
:class:`~pujax.boosting.DecisionStumpClassifier` finds all stumps in one program, :class:`~pujax.trees.SupervisedET`
(the base of :class:`~pujax.trees.PUBaggingET`) grows them as one forest. A base class with a static
``positive_proba_bags(models, X, rows=None)`` scores all bags in one call as well (out-of-bag scores, each
bag on its own rows, and ``predict_proba``).
"""
from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, clone
from sklearn.tree import DecisionTreeClassifier

from pujax.base import PUClassifierMixin, resolve_prior
from pujax.meta import _sklearn_io  # noqa: F401  (registers the default base models for save/load)
from pujax.meta._common import (
    PositiveProbaMixin,
    as_float64,
    check_base,
    default_logistic,
    fit_base,
    positive_proba,
)
from pujax.persistence import register_estimator
from pujax.preprocessing import StandardizedInputMixin, check_standardize
from pujax.random import as_key, host_rng
from pujax.validation import SPARSE_FORMATS, check_bool, check_float, check_int, check_prior

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["PUBaggingClassifier", "bag_sizes", "draw_bag"]

_MAX_SEED = np.iinfo(np.int32).max


def bag_sizes(max_samples, n_labeled: int, n_unlabeled: int, bootstrap: bool = True) -> int:
    """Number ``K`` of unlabeled rows per bag: ``None`` = ``n_labeled`` (balanced bags, the paper's choice), an int
    = that many rows, a float in (0, 1] = that fraction of the unlabeled rows; without replacement at most
    ``n_unlabeled``."""
    if max_samples is None:
        k = n_labeled
    elif isinstance(max_samples, numbers.Integral) and not isinstance(max_samples, bool):
        k = check_int(max_samples, "max_samples", 1)
    else:
        k = int(round(check_float(max_samples, "max_samples", 0.0, 1.0, closed="right") * n_unlabeled))
    k = max(1, k)
    return k if bootstrap else min(k, n_unlabeled)


def draw_bag(seed: int, unlabeled: np.ndarray, k: int, bootstrap: bool) -> np.ndarray:
    """Rows of one bag: ``k`` of the ``unlabeled`` indices drawn by ``RandomState(seed)`` (with replacement when
    ``bootstrap``)."""
    return np.random.RandomState(seed).choice(unlabeled, size=k, replace=bootstrap)


def _with_seed(estimator, seed: int):
    model = clone(estimator)
    if "random_state" in model.get_params():
        model.set_params(random_state=int(seed))
    return model


def _score(model, X) -> np.ndarray:
    """Positive-class probability, or the 0/1 vote of a model without ``predict_proba``."""
    if hasattr(model, "predict_proba"):
        return positive_proba(model, X)
    return (np.asarray(model.predict(as_float64(X))) == 1).astype(np.float64)


def _batched_scorer(models):
    """The base class's ``positive_proba_bags(models, X, rows=None)`` when all models share it, else None."""
    scorer = getattr(type(models[0]), "positive_proba_bags", None)
    return scorer if callable(scorer) and all(type(m) is type(models[0]) for m in models) else None


def _oob_sums(models, bags, X, s):
    """Out-of-bag score sums and counts over all rows: each model scores the unlabeled rows its bag left out (all
    models in one call where the base class has ``positive_proba_bags``)."""
    U = np.flatnonzero(s == 0)
    oob_sum, oob_count = np.zeros(s.size), np.zeros(s.size)
    outs = []
    for bag in bags:  # the unlabeled rows each bag left out
        drawn = np.zeros(s.size, bool)
        drawn[bag] = True
        outs.append(U[~drawn[U]])
    scorer = _batched_scorer(models)
    if scorer is not None:
        width = max(1, max(out.size for out in outs))
        rows, live = np.zeros((len(outs), width), np.int64), np.zeros((len(outs), width), bool)
        for b, out in enumerate(outs):
            rows[b, :out.size], live[b, :out.size] = out, True
        scores = np.asarray(scorer(models, X, rows), np.float64)
        oob_sum += np.bincount(rows[live], weights=scores[live], minlength=s.size)
        oob_count += np.bincount(rows[live], minlength=s.size)
        return oob_sum, oob_count
    for model, out in zip(models, outs):
        if out.size:
            oob_sum[out] += _score(model, X[out])
            oob_count[out] += 1
    return oob_sum, oob_count


def _fit_chunk(estimator, seeds, X, s, w, k, bootstrap):
    """Fit the bags of one chunk; return the models and the out-of-bag score sums and counts over all rows."""
    P, U = np.flatnonzero(s == 1), np.flatnonzero(s == 0)
    models, bags = [], [draw_bag(seed, U, k, bootstrap) for seed in seeds]
    for seed, bag in zip(seeds, bags):
        rows = np.concatenate([P, bag])
        y = np.concatenate([np.ones(P.size, np.int32), np.zeros(bag.size, np.int32)])
        models.append(fit_base(_with_seed(estimator, seed), X[rows], y, None if w is None else w[rows]))
    return (models, *_oob_sums(models, bags, X, s))


@register_estimator
class PUBaggingClassifier(PositiveProbaMixin, StandardizedInputMixin, PUClassifierMixin, BaseEstimator):
    """Bagging PU classifier: every base model separates all labeled positives from a resample of the unlabeled rows.

    Parameters
    ----------
    estimator : classifier, default=None
        Base model (cloned per bag); ``None`` is scikit-learn's ``DecisionTreeClassifier()``, and for a scipy sparse
        ``X`` (text) ``LogisticRegression(max_iter=1000)`` (the linear model of the paper's bagging SVM; trees split
        on single terms). Its
        ``random_state`` is set to the bag's seed. A base model with ``fit_bags(X, y, bags)``
        (:class:`~pujax.svm.CWSVMClassifier`: the bagging SVM of Mordelet & Vert;
        :class:`~pujax.boosting.DecisionStumpClassifier`; :class:`~pujax.trees.SupervisedET`) fits every bag in one
        batched call when no ``sample_weight`` is given (its ``random_state`` set to the first bag's seed), and one
        with a static ``positive_proba_bags(models, X, rows=None)`` scores them in one call.
    n_estimators : int, default=100
        Number of bags ``T``.
    max_samples : int, float or None, default=None
        Unlabeled rows per bag ``K``: ``None`` = the number of labeled positives (balanced bags), an int = that
        many, a float in (0, 1] = that fraction of the unlabeled rows.
    bootstrap : bool, default=True
        Draw the unlabeled rows of a bag with replacement (the paper's bootstrap sample).
    n_jobs : int or None, default=None
        Bags fitted in parallel with joblib (``None`` = 1, ``-1`` = all cores); unused with a base model that has
        ``fit_bags``.
    random_state : None, int, numpy RandomState / Generator or JAX key, default=None
        Seed of the bags (and of the base models) (:func:`pujax.random.as_key`).
    verbose : int, default=0
        joblib's verbosity.
    standardize : "auto", bool, default="auto"
        How ``X`` reaches the base models (:class:`~pujax.preprocessing.StandardizedInputMixin`): ``"auto"``
        centres and scales dense ``X`` and passes a scipy sparse ``X`` (CSR / CSC) as given, still sparse (TF-IDF
        weights stay what a linear text model expects); ``True`` also scales a sparse ``X``, without centring;
        ``False`` passes every ``X`` as given.
    prior : float in (0, 1), "auto" or None, default="auto"
        Class prior pi of the unlabeled rows, which sets the threshold of the mean score: Mordelet & Vert rank rows
        by it and set no threshold, and the base models' majority (0.5) predicts one class when a bag's labeled
        and unlabeled rows are unbalanced (the PU ET paper's PUBaggingET predicts every row negative). With a prior
        (``"auto"``: estimated by :func:`pujax.prior.estimate_prior`), ``threshold_`` is the score above which a
        share ``prior_`` of the unlabeled rows lies, scored out of bag (:func:`pujax.svm.prior_threshold`); None
        keeps 0.5.
    pos_label : int, float, bool, str or None, default=None
        The value of ``y`` that marks the labeled positives (e.g. ``1`` for labels 1 = labeled / 2 = unlabeled, or
        ``"positive"``); ``None`` reads ``y`` as bool, {0, 1} or {-1, 1} with ``True`` / 1 labeled and refuses other
        values (:func:`pujax.validation.read_pu_labels`). ``classes_`` is ``[unlabeled value, labeled value]``.

    Attributes
    ----------
    mean_, scale_ : ndarray of shape (n_features_in_,) or None
        The per-feature standardisation ``z = (x - mean_) / scale_`` (float64, weighted by ``sample_weight``;
        :mod:`pujax.preprocessing`) applied to ``X`` in ``fit`` and in every method that reads ``X``: the base
        models are fitted on ``z`` (float32 values), so predictions on dense ``X`` do not depend on the units or
        offsets of the features even for a base model that depends on them (a regularised ``LogisticRegression``,
        scikit-learn's float32 trees). None when ``X`` is passed as given (sparse ``X`` with
        ``standardize="auto"``, or ``standardize=False``).
    estimators_ : list of classifiers
        The fitted base models.
    oob_decision_function_ : ndarray of shape (n_samples, 2)
        Out-of-bag mean scores of the training rows (column 1; column 0 is 1 minus it): for an unlabeled row the
        mean over the bags that did not draw it; NaN for labeled rows (they are in every bag) and for unlabeled rows
        drawn by every bag.
    prior_ : float or None
        The prior used (None with ``prior=None``).
    threshold_ : float
        Mean score above which a row is predicted positive; ``predict_proba`` maps it to 0.5, piecewise linearly
        from [0, ``threshold_``] to [0, 0.5] and from [``threshold_``, 1] to [0.5, 1] (the ranking of the mean score
        is kept; with ``threshold_ = 0.5`` the map is the identity).
    feature_importances_ : ndarray of shape (n_features,)
        Mean of the base models' ``feature_importances_`` (when they have them).
    classes_, n_features_in_, feature_names_in_ : as in scikit-learn.

    References
    ----------
    F. Mordelet and J.-P. Vert, "A bagging SVM to learn from positive and unlabeled examples", Pattern
    Recognition Letters 37 (2014) 201-209, Algorithm 1 (inductive and transductive scores).

    Examples
    --------
    >>> import numpy as np
    >>> from pujax.meta import PUBaggingClassifier
    >>> r = np.random.default_rng(0)
    >>> y = r.random(400) < 0.5
    >>> X = r.normal(size=(400, 3)) + 2.5 * y[:, None]
    >>> s = y & (r.random(400) < 0.5)
    >>> clf = PUBaggingClassifier(n_estimators=20, random_state=0).fit(X, s)
    >>> bool(clf.score(X, y) > 0.85), clf.feature_importances_.shape
    (True, (3,))
    """

    _needs_prior = False  # prior=None is allowed: resolved in fit
    _accept_sparse = SPARSE_FORMATS
    _fitted_schema = {"estimators_": "list[estimator]", "oob_decision_function_": "f[*,2]", "prior_": "float|none",
                      "threshold_": "float"}
    _expected_failed_checks = {
        "check_sample_weight_equivalence_on_dense_data":
            "prior='auto' estimates the prior, and threshold_ is set, from the rows (sample_weight only weights the "
            "base models' fits): repeated rows and integer weights give different thresholds",
        "check_sample_weight_equivalence_on_sparse_data":
            "prior='auto' estimates the prior, and threshold_ is set, from the rows (sample_weight only weights the "
            "base models' fits); the default base for sparse X is scikit-learn's LogisticRegression, whose lbfgs "
            "stops at tol=1e-4",
    }

    def __init__(self, estimator=None, *, n_estimators=100, max_samples=None, bootstrap=True, n_jobs=None,
                 random_state=None, verbose=0, prior="auto", standardize="auto", pos_label=None):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.bootstrap = bootstrap
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.standardize = standardize
        self.prior = prior
        self.pos_label = pos_label

    def _check_params(self):
        check_int(self.n_estimators, "n_estimators", 1)
        check_bool(self.bootstrap, "bootstrap")
        bag_sizes(self.max_samples, 1, 1, True)
        check_int(self.n_jobs, "n_jobs", None, allow_none=True)
        check_int(self.verbose, "verbose", 0)
        check_base(self.estimator, proba=False)
        check_standardize(self.standardize)
        if self.prior is not None:
            check_prior(self.prior)

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> PUBaggingClassifier:
        """Fit ``n_estimators`` base models of labeled positives vs a resample of the unlabeled rows.

        Parameters
        ----------
        X : array-like or scipy sparse matrix of shape (n_samples, n_features)
            Dense, or sparse CSR / CSC (other formats are converted to CSR); a sparse ``X`` is never densified
            (the base model must take sparse input).
        y : array-like of shape (n_samples,)
            PU labels ``s`` (1 / ``True``, or ``pos_label``, marks labeled positives).
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights passed to every base model for the rows of its bag.

        Returns
        -------
        self
        """
        self._check_params()
        X, s, w, _ = self._validate_fit(X, y, sample_weight)
        base = self.estimator
        if base is None:  # a linear model for text (sparse X), a tree otherwise
            base = default_logistic() if sp.issparse(X) else DecisionTreeClassifier()
        k = bag_sizes(self.max_samples, int(s.sum()), int((s == 0).sum()), self.bootstrap)
        seeds = host_rng(as_key(self.random_state)).integers(_MAX_SEED, size=self.n_estimators)
        if callable(getattr(base, "fit_bags", None)) and w is None:  # a batched base model: one solve for all bags
            U = np.flatnonzero(s == 0)
            bags = [draw_bag(seed, U, k, self.bootstrap) for seed in seeds]
            self.estimators_ = _with_seed(base, seeds[0]).fit_bags(X, s, bags)
            oob_sum, oob_count = _oob_sums(self.estimators_, bags, X, s)
        else:
            n_chunks = min(self.n_estimators, max(1, _effective_jobs(self.n_jobs)))
            chunks = [c for c in np.array_split(seeds, n_chunks) if c.size]
            out = Parallel(n_jobs=self.n_jobs, verbose=self.verbose)(
                delayed(_fit_chunk)(base, chunk, X, s, w, k, self.bootstrap) for chunk in chunks)
            self.estimators_ = [m for models, _, _ in out for m in models]
            oob_sum = np.sum([o for _, o, _ in out], axis=0)
            oob_count = np.sum([c for _, _, c in out], axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            p = np.where(oob_count > 0, oob_sum / np.maximum(oob_count, 1), np.nan)
        self.oob_decision_function_ = np.stack([1.0 - p, p], axis=1)
        self.prior_, self.threshold_ = self._threshold(X, s, p)
        return self

    def _threshold(self, X, s, oob) -> tuple[float | None, float]:
        """``(prior_, threshold_)``: 0.5 without a prior, else the threshold at which a share ``prior_`` of the
        unlabeled rows' out-of-bag scores (their full score where no bag left them out) lies above."""
        if self.prior is None:
            return None, 0.5
        from pujax.svm.core import prior_threshold

        prior = resolve_prior(self.prior, X, s, random_state=self.random_state)
        U = np.flatnonzero(s == 0)
        scores = oob[U]
        missing = np.isnan(scores)
        if missing.any():
            scores[missing] = self._mean_score(X[U[missing]])
        return prior, float(np.clip(prior_threshold(scores, prior), 1e-12, 1.0 - 1e-12))

    def _positive_proba(self, X) -> np.ndarray:
        """The mean score mapped to [0, 1] with ``threshold_`` at 0.5 (piecewise linear; the identity at 0.5)."""
        q, t = self._mean_score(X), self.threshold_
        return np.where(q <= t, 0.5 * q / t, 0.5 + 0.5 * (q - t) / (1.0 - t))

    def _mean_score(self, X) -> np.ndarray:
        """Mean over the base models of their positive-class probability (or 0/1 vote)."""
        scorer = _batched_scorer(self.estimators_)
        if scorer is not None:
            return np.mean(scorer(self.estimators_, X), axis=0)
        return np.mean([_score(m, X) for m in self.estimators_], axis=0)

    @property
    def feature_importances_(self) -> np.ndarray:
        """Mean of the base models' ``feature_importances_``."""
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "estimators_")
        if not all(hasattr(m, "feature_importances_") for m in self.estimators_):
            raise AttributeError(f"the base models ({type(self.estimators_[0]).__name__}) have no "
                                 f"feature_importances_; use tree-based base models.")
        return np.mean([m.feature_importances_ for m in self.estimators_], axis=0)


def _effective_jobs(n_jobs) -> int:
    from joblib import effective_n_jobs

    return effective_n_jobs(n_jobs)
