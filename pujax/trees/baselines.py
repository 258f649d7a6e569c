r"""Tree baselines of the PU ET paper, §5 (Wilton et al. 2022): NaivePUET, PUBaggingET, SupervisedET.

* :class:`NaivePUET` -- Extra Trees trained on the PU data with every unlabeled row treated as negative
  (the same engine as :class:`~pujax.trees.PUExtraTreesClassifier` with ``risk="pn"`` on ``s``);
* :class:`SupervisedET` -- the PN oracle: Extra Trees on the fully labeled data ``fit(X, y)``;
* :class:`PUBaggingClassifier` / :class:`PUBaggingET` -- bagging of Mordelet & Vert (2014): each base model
  separates all of P from a bootstrap sample of U; predictions average the base models' probabilities and
  out-of-bag scores of the unlabeled rows are kept in ``oob_decision_function_``.
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, clone

from pujax.base import PUClassifierMixin
from pujax.persistence import register_estimator
from pujax.progress import progress
from pujax.trees.forest import _BasePUForest
from pujax.validation import as_key, check_int

__all__ = ["NaivePUET", "SupervisedET", "PUBaggingClassifier", "PUBaggingET"]


class _PNExtraTrees(_BasePUForest):
    _splitter = "random"
    _fixed_risk = "pn"

    def __init__(self, n_estimators=100, *, loss="quadratic", max_features="sqrt", max_candidates=1, max_depth=None,
                 min_samples_split=2, bootstrap=False, n_bins=256, random_state=None, n_jobs=-1, verbose=False):
        self.n_estimators = n_estimators
        self.loss = loss
        self.max_features = max_features
        self.max_candidates = max_candidates
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.bootstrap = bootstrap
        self.n_bins = n_bins
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose


@register_estimator
class NaivePUET(_PNExtraTrees):
    """Extra Trees on PU data with unlabeled rows treated as negatives (paper §5 "NaivePUET"): ``fit(X, s)``.

    Quadratic loss = Gini impurity (Theorem 1). A biased baseline: it learns P(s=1 | x), not P(y=1 | x).
    """


@register_estimator
class SupervisedET(_PNExtraTrees):
    """Supervised Extra Trees on true labels (paper §5 "SupervisedET", the PN oracle): ``fit(X, y)``."""


@register_estimator
class PUBaggingClassifier(PUClassifierMixin, BaseEstimator):
    """Bagging PU classifier of Mordelet & Vert (2014), as the PU ET paper's "PUBagging" baseline.

    For each of ``n_estimators`` rounds: draw ``max_samples`` unlabeled rows with replacement (default: as many as
    there are unlabeled rows), fit a clone of ``estimator`` on all labeled positives (label 1) against that sample
    (label 0), and score the unlabeled rows left out of the sample. ``predict_proba`` averages the base models'
    positive-class probabilities. Scenario: case-control; no class prior is used.

    Attributes: ``estimators_`` (fitted base models), ``oob_decision_function_`` (mean out-of-bag probability of
    every training row with ``s = 0``, NaN where a row was never out of bag).
    """

    _needs_prior = False
    _fitted_schema = {"estimators_": "list[estimator]", "oob_decision_function_": "f[*]"}

    def __init__(self, estimator=None, n_estimators=10, *, max_samples=None, random_state=None, verbose=False):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.random_state = random_state
        self.verbose = verbose

    def _default_estimator(self):
        return SupervisedET(n_estimators=100)

    def fit(self, X, y):
        """Fit ``n_estimators`` base models, each on P against a bootstrap sample of U (``y``: PU labels)."""
        import jax

        X, s, _, _ = self._validate_fit(X, y)
        n_bags = check_int(self.n_estimators, "n_estimators")
        pos = np.flatnonzero(s == 1)
        unl = np.flatnonzero(s == 0)
        k = len(unl) if self.max_samples is None else check_int(self.max_samples, "max_samples")
        seed = int(np.asarray(jax.random.bits(as_key(self.random_state), (), dtype=np.uint32)))
        rng = np.random.default_rng(seed)
        base = self._default_estimator() if self.estimator is None else self.estimator
        self.estimators_ = []
        oob_sum = np.zeros(len(unl))
        oob_cnt = np.zeros(len(unl))
        with progress(n_bags, desc=type(self).__name__, verbose=bool(self.verbose)) as bar:
            for _ in range(n_bags):
                pick = rng.integers(0, len(unl), size=k)
                rows = np.concatenate([pos, unl[pick]])
                y = np.concatenate([np.ones(len(pos), np.int64), np.zeros(k, np.int64)])
                est = clone(base)
                if "random_state" in est.get_params():
                    est.set_params(random_state=int(rng.integers(0, 2**31 - 1)))
                est.fit(X[rows], y)
                self.estimators_.append(est)
                out = np.ones(len(unl), bool)
                out[pick] = False
                if out.any():
                    oob_sum[out] += est.predict_proba(X[unl[out]])[:, 1]
                    oob_cnt[out] += 1
                bar.update(1)
        with np.errstate(invalid="ignore", divide="ignore"):
            self.oob_decision_function_ = np.where(oob_cnt > 0, oob_sum / np.maximum(oob_cnt, 1), np.nan)
        return self

    def predict_proba(self, X):
        """Mean positive-class probability of the base models; columns (P(y=0), P(y=1))."""
        X = self._validate_predict(X)
        p = np.mean([est.predict_proba(X)[:, 1] for est in self.estimators_], axis=0)
        return np.stack([1.0 - p, p], axis=1)

    def decision_function(self, X):
        """Mean base-model probability minus 1/2."""
        return self.predict_proba(X)[:, 1] - 0.5

    def predict(self, X):
        """``classes_[1]`` iff the mean base-model probability exceeds 1/2."""
        return self._to_classes(self.predict_proba(X)[:, 1] > 0.5)


@register_estimator
class PUBaggingET(PUBaggingClassifier):
    """:class:`PUBaggingClassifier` with supervised Extra Trees as base models (paper §5 "PUBaggingET").

    ``n_trees`` trees per base model; the other parameters as in :class:`PUBaggingClassifier`.
    """

    def __init__(self, n_estimators=10, *, n_trees=100, max_samples=None, random_state=None, verbose=False):
        self.n_estimators = n_estimators
        self.n_trees = n_trees
        self.max_samples = max_samples
        self.random_state = random_state
        self.verbose = verbose

    @property
    def estimator(self):
        return None

    def _default_estimator(self):
        return SupervisedET(n_estimators=check_int(self.n_trees, "n_trees"))
