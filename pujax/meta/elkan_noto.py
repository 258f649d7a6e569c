r"""Elkan & Noto (2008): any probabilistic classifier made PU-aware through the label frequency ``c``.

Under SCAR (labeled positives Selected Completely At Random, single training set), a "non-traditional" classifier
:math:`g(x) \approx p(s=1 \mid x)` fitted on labeled vs unlabeled rows satisfies
:math:`p(y=1 \mid x) = g(x) / c` with :math:`c = p(s=1 \mid y=1)` (Lemma 1). ``c`` is estimated on a held-out
set :math:`V` with labeled part :math:`P` (§3):

* ``e1``: :math:`\frac{1}{|P|}\sum_{x \in P} g(x)` (the paper's recommendation);
* ``e2``: :math:`\sum_{x \in P} g(x) / \sum_{x \in V} g(x)`;
* ``e3``: :math:`\max_{x \in V} g(x)`.

With ``cv=k`` the held-out set is cross-fitted: the rows are split into ``k`` folds stratified by ``s``, each fold is
scored by a ``g`` fitted on the other folds, and ``c`` is estimated from these out-of-fold scores of all rows, so every
labeled positive counts (a single hold-out of 10 % leaves a handful of labeled rows on small data); the ``g`` used for
prediction is then fitted on all rows.

The weighted variant (§4) duplicates each unlabeled row: as a positive with weight
:math:`w(x) = p(y=1 \mid x, s=0) = \frac{1-c}{c}\,\frac{g(x)}{1-g(x)}` and as a negative with weight
:math:`1 - w(x)`; labeled rows are positives of weight 1; a second classifier is fitted on that weighted set.
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.model_selection import StratifiedKFold

from pujax.base import DegenerateFitWarning, PUClassifierMixin
from pujax.meta import _sklearn_io  # noqa: F401  (registers the default base models for save/load)
from pujax.meta._common import (
    PositiveProbaMixin,
    base_or_default,
    check_base,
    fit_base,
    positive_proba,
    stack_rows,
    stratified_hold_out,
)
from pujax.persistence import register_estimator
from pujax.preprocessing import StandardizedInputMixin, check_standardize
from pujax.prior._common import prior_from_label_frequency
from pujax.random import as_key, host_rng, sklearn_seed
from pujax.validation import SPARSE_FORMATS, check_bool, check_float, check_in, check_int

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["ElkanNotoClassifier", "estimate_label_frequency", "elkan_noto_weights"]

C_ESTIMATORS = ("e1", "e2", "e3")
MIN_HELD_OUT = 10
"""Fewest labeled rows a hold-out must hold for ``c``; fewer (and ``cv=None``): cross-fitting instead."""


def estimate_label_frequency(g: ArrayLike, s01: ArrayLike, method: str = "e1",
                             sample_weight: ArrayLike | None = None) -> float:
    """Label frequency ``c`` from scores ``g(x) = p(s=1|x)`` on a held-out set with PU labels ``s01`` (e1/e2/e3 of
    Elkan & Noto 2008, §3), optionally weighted by ``sample_weight``; clipped to ``[1e-6, 1]``."""
    check_in(method, "c_estimator", C_ESTIMATORS)
    g = np.asarray(g, dtype=np.float64)
    lab = np.asarray(s01) == 1
    w = np.ones_like(g) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if method == "e1":
        c = np.sum(w[lab] * g[lab]) / max(np.sum(w[lab]), 1e-300)
    elif method == "e2":
        c = np.sum(w[lab] * g[lab]) / max(np.sum(w * g), 1e-300)
    else:
        c = np.max(g[w > 0]) if np.any(w > 0) else np.max(g)
    return float(np.clip(c, 1e-6, 1.0))


def elkan_noto_weights(g: ArrayLike, c: float) -> np.ndarray:
    """Weight ``w(x) = (1 - c) / c * g / (1 - g)`` of an unlabeled row as a positive (§4), clipped to [0, 1]."""
    g = np.clip(np.asarray(g, dtype=np.float64), 0.0, 1.0 - 1e-12)
    return np.clip((1.0 - c) / c * g / (1.0 - g), 0.0, 1.0)


@register_estimator
class ElkanNotoClassifier(PositiveProbaMixin, StandardizedInputMixin, PUClassifierMixin, BaseEstimator):
    """Any probabilistic classifier made PU-aware by Elkan & Noto's label-frequency correction.

    Parameters
    ----------
    estimator : classifier with ``predict_proba``, default=None
        The base model fitted to separate labeled from unlabeled rows; ``None`` is scikit-learn's
        ``LogisticRegression(max_iter=1000)``. With ``weighted=True`` it must take ``sample_weight``.
    hold_out_ratio : float in (0, 1), default=0.1
        Fraction of the labeled and of the unlabeled rows held out to estimate ``c`` (not used to fit ``g``); unused
        with ``cv``, and replaced by cross-fitting over ``min(5, n_labeled)`` folds when the hold-out would hold
        fewer than 10 labeled rows (``cv_`` says which was used).
    cv : int >= 2 or None, default=None
        Cross-fit ``c`` over ``cv`` folds stratified by ``s`` (module docstring) instead of one hold-out; ``g`` is
        then fitted on all rows. ``cv + 1`` fits of the base model.
    weighted : bool, default=True
        Fit a second model on the weighted data of §4 (``predict_proba`` is its probability); False divides ``g`` by
        ``c`` (Lemma 1). With the default logistic base model on few labeled positives, ``g / c`` puts too few rows
        above 1/2: on breast cancer with 10 / 50 labeled positives (case-control, the other 455 training rows
        unlabeled, 59 % positive test rows) the weighted model predicts 54 % / 48 % of the test rows positive,
        ``g / c`` 48 % / 42 % (``benchmarks/results/practitioners.md``).
    c_estimator : {"e1", "e2", "e3"}, default="e1"
        Estimator of ``c`` (§3).
    random_state : None, int, numpy RandomState / Generator or JAX key, default=None
        Seed of the hold-out split (or of the folds) (:func:`pujax.random.as_key`).
    standardize : "auto", bool, default="auto"
        How ``X`` reaches the base model (:class:`~pujax.preprocessing.StandardizedInputMixin`): ``"auto"``
        centres and scales dense ``X`` and passes a scipy sparse ``X`` (CSR / CSC) as given, still sparse (TF-IDF
        weights stay what a linear text model expects); ``True`` also scales a sparse ``X``, without centring;
        ``False`` passes every ``X`` as given.
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
    estimator_ : classifier
        ``g``, fitted on the rows not held out (on all rows with ``cv``).
    weighted_estimator_ : classifier or None
        The second model of the weighted variant.
    c_ : float
        Estimated label frequency ``p(s=1 | y=1)``. An estimate below ``n_l / (n_l + n_u)`` (``n_l`` labeled and
        ``n_u`` unlabeled rows: a prior above 1, from a base model that scores unseen labeled rows near 0) is raised
        to that bound with a :class:`~pujax.base.DegenerateFitWarning` naming ``cv`` and ``hold_out_ratio``.
    cv_ : int or None
        The folds ``c`` was cross-fitted over (None: one hold-out of ``hold_out_ratio``).
    prior_ : float
        Estimated positive fraction of the unlabeled rows, ``n_l (1 - c) / (c n_u)`` clipped to [0, 1] (the
        ``prior`` that pujax's case-control estimators take).
    classes_, n_features_in_, feature_names_in_ : as in scikit-learn.

    References
    ----------
    C. Elkan and K. Noto, "Learning classifiers from only positive and unlabeled data", KDD 2008: Lemma 1,
    estimators e1-e3 (§3), weighting unlabeled examples (§4).

    Examples
    --------
    >>> import numpy as np
    >>> from pujax.meta import ElkanNotoClassifier
    >>> r = np.random.default_rng(0)
    >>> y = r.random(600) < 0.5
    >>> X = r.normal(size=(600, 2)) + 3.0 * y[:, None]
    >>> s = y & (r.random(600) < 0.5)
    >>> clf = ElkanNotoClassifier(random_state=0).fit(X, s)
    >>> bool(abs(clf.c_ - 0.5) < 0.1), bool(clf.score(X, y) > 0.9)
    (True, True)
    """

    _needs_prior = False
    _accept_sparse = SPARSE_FORMATS
    _fitted_schema = {"estimator_": "estimator", "weighted_estimator_": "estimator|none", "c_": "float",
                      "cv_": "int|none"}
    _expected_failed_checks = {
        "check_sample_weight_equivalence_on_dense_data":
            "the hold-out set is drawn row by row, so repeated rows and integer weights give different splits",
        "check_sample_weight_equivalence_on_sparse_data":
            "the hold-out set is drawn row by row, so repeated rows and integer weights give different splits",
    }

    def __init__(self, estimator=None, *, hold_out_ratio=0.1, cv=None, weighted=True, c_estimator="e1",
                 random_state=None, standardize="auto", pos_label=None):
        self.estimator = estimator
        self.hold_out_ratio = hold_out_ratio
        self.cv = cv
        self.weighted = weighted
        self.c_estimator = c_estimator
        self.random_state = random_state
        self.standardize = standardize
        self.pos_label = pos_label

    def _check_params(self):
        check_float(self.hold_out_ratio, "hold_out_ratio", 0.0, 1.0)
        check_int(self.cv, "cv", low=2, allow_none=True)
        check_bool(self.weighted, "weighted")
        check_in(self.c_estimator, "c_estimator", C_ESTIMATORS)
        check_base(self.estimator)
        check_standardize(self.standardize)

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> ElkanNotoClassifier:
        """Fit ``g`` on labeled vs unlabeled rows, estimate ``c`` on the held-out rows (and fit the weighted model).

        Parameters
        ----------
        X : array-like or scipy sparse matrix of shape (n_samples, n_features)
            Dense, or sparse CSR / CSC (other formats are converted to CSR); a sparse ``X`` is never densified.
        y : array-like of shape (n_samples,)
            PU labels ``s``: 1 / ``True`` (or ``pos_label``) marks labeled positives, the other value unlabeled rows.
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights, passed to the base model and used in the estimate of ``c``.

        Returns
        -------
        self
        """
        self._check_params()
        X, s, w, _ = self._validate_fit(X, y, sample_weight)
        base = base_or_default(self.estimator)
        key = as_key(self.random_state)
        rng = host_rng(key)
        self.cv_ = self._folds(s)
        if self.cv_ is None:
            train, hold = stratified_hold_out(s, self.hold_out_ratio, rng)
            g = fit_base(base, X[train], s[train], None if w is None else w[train])
            c = estimate_label_frequency(positive_proba(g, X[hold]), s[hold], self.c_estimator,
                                         None if w is None else w[hold])
        else:
            scores = self._out_of_fold_scores(base, X, s, w, sklearn_seed(key, 1))
            c = estimate_label_frequency(scores, s, self.c_estimator, w)
            g = fit_base(base, X, s, w)
        n_l = float(np.sum(s == 1) if w is None else np.sum(w[s == 1]))
        n_u = float(np.sum(s == 0) if w is None else np.sum(w[s == 0]))
        self.estimator_, self.c_ = g, self._checked_c(c, n_l, n_u)
        self.prior_ = float(np.clip(prior_from_label_frequency(self.c_, n_l, n_u), 0.0, 1.0))
        self.weighted_estimator_ = self._fit_weighted(base, X, s, w, g, self.c_) if self.weighted else None
        return self

    def _folds(self, s) -> int | None:
        """The folds ``c`` is cross-fitted over: ``cv``; with ``cv=None``, None (one hold-out) unless the hold-out
        would hold fewer than ``MIN_HELD_OUT`` labeled rows, then ``min(5, n_labeled)`` folds."""
        if self.cv is not None:
            return int(self.cv)
        n_lab = int(np.sum(s == 1))
        held = int(np.clip(round(self.hold_out_ratio * n_lab), 1, max(n_lab - 1, 1)))
        return min(5, n_lab) if held < MIN_HELD_OUT and n_lab >= 2 else None

    def _checked_c(self, c: float, n_l: float, n_u: float) -> float:
        """``c``, or its smallest consistent value ``n_l / (n_l + n_u)`` (every unlabeled row positive) with a
        :class:`~pujax.base.DegenerateFitWarning` when the scores put it below (a prior above 1)."""
        c_min = n_l / (n_l + n_u)
        if c >= c_min:
            return c
        how = "one hold-out" if self.cv_ is None else f"{self.cv_}-fold cross-fitting"
        warnings.warn(
            f"ElkanNotoClassifier: the label frequency estimated by {how}, c = {c:.3g}, is below its smallest "
            f"possible value n_l / (n_l + n_u) = {c_min:.3g} (a prior of the unlabeled rows above 1): the base model "
            f"scores unseen labeled rows near 0, as a model that memorises its training rows does. c_ is set to "
            f"{c_min:.3g} (prior_ = 1). Set cv (e.g. cv=5) or a larger hold_out_ratio, or pass an estimator that "
            f"does not overfit (e.g. the default LogisticRegression), or label more positives.",
            DegenerateFitWarning, stacklevel=3)
        return c_min

    def _out_of_fold_scores(self, base, X, s, w, seed):
        """``g(x)`` of every row from a base model fitted on the other ``cv`` - 1 folds (stratified by ``s``)."""
        n_min = int(min(np.sum(s == 1), np.sum(s == 0)))
        if n_min < self.cv_:
            raise ValueError(f"cv={self.cv} needs at least {self.cv} labeled and {self.cv} unlabeled rows; got "
                             f"{int(np.sum(s == 1))} and {int(np.sum(s == 0))}. Lower cv or pass cv=None.")
        scores = np.empty(X.shape[0])
        for train, test in StratifiedKFold(self.cv_, shuffle=True, random_state=seed).split(X, s):
            g = fit_base(base, X[train], s[train], None if w is None else w[train])
            scores[test] = positive_proba(g, X[test])
        return scores

    def _fit_weighted(self, base, X, s, w, g, c):
        U = s == 0
        wu = elkan_noto_weights(positive_proba(g, X[U]), c)
        row_w = np.ones(X.shape[0]) if w is None else np.asarray(w, np.float64)
        expected = float(np.sum(row_w[U] * wu))
        if expected < 0.5 <= self.prior_ * float(np.sum(row_w[U])):
            warnings.warn(
                f"ElkanNotoClassifier(weighted=True): the weights w(x) put {expected:.2g} expected positives among "
                f"the unlabeled rows while c_ = {c:.3g} implies a prior of {self.prior_:.3g}: the base model scores "
                f"its own unlabeled training rows near 0 (it memorises them), so the weighted model separates the "
                f"labeled rows from the unlabeled ones and finds no positive among them. Pass weighted=False or an "
                f"estimator that does not overfit (e.g. the default LogisticRegression).",
                DegenerateFitWarning, stacklevel=3)
        X2 = stack_rows([X[~U], X[U], X[U]])
        y2 = np.concatenate([np.ones(np.sum(~U) + np.sum(U), np.int32), np.zeros(np.sum(U), np.int32)])
        w2 = np.concatenate([row_w[~U], row_w[U] * wu, row_w[U] * (1.0 - wu)])
        keep = w2 > 0
        if np.unique(y2[keep]).size < 2:  # every unlabeled row is certainly positive (or negative): keep both
            keep = np.ones_like(keep)
        return fit_base(base, X2[keep], y2[keep], w2[keep], hint="pass weighted=False")

    def _positive_proba(self, X) -> np.ndarray:
        """The weighted model's probability, or ``r = g(x) / c`` (Lemma 1) up to 1/2 and ``1 - 1 / (4 r)`` above:
        ``g / c`` exceeds 1 where ``g > c``, and clipping it would tie all those rows at 1; the map is continuous,
        strictly increasing (``g``'s ranking is kept) and below 1, with the same predictions (``r > 1/2``)."""
        if self.weighted_estimator_ is not None:
            return positive_proba(self.weighted_estimator_, X)
        r = positive_proba(self.estimator_, X) / self.c_
        return np.where(r <= 0.5, r, 1.0 - 0.25 / np.maximum(r, 0.5))
