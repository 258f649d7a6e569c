r"""Tree baselines of the PU ET paper, §5 (Wilton et al. 2022): NaivePUET, PUBaggingET, SupervisedET.

* :class:`NaivePUET` -- Extra Trees trained on the PU data with every unlabeled row treated as negative
  (the same engine as :class:`~pujax.trees.PUExtraTreesClassifier` with ``risk="pn"`` on ``s``);
* :class:`SupervisedET` -- the PN oracle: Extra Trees on the fully labeled data ``fit(X, y)``;
* :class:`PUBaggingET` -- bagging of Mordelet & Vert (2014) (:class:`pujax.meta.PUBaggingClassifier`, re-exported
  here) with :class:`SupervisedET` base models: each separates all of P from a bootstrap sample of U.
"""
from __future__ import annotations

from pujax.meta.bagging import PUBaggingClassifier  # the one bagging implementation (re-exported here)
from pujax.persistence import register_estimator
from pujax.trees.forest import _BasePUForest
from pujax.validation import check_int

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
class PUBaggingET(PUBaggingClassifier):
    """:class:`~pujax.meta.PUBaggingClassifier` with supervised Extra Trees as base models (paper §5 "PUBaggingET").

    Each bag fits a :class:`SupervisedET` of ``n_trees`` trees on all labeled positives against a bootstrap sample
    of as many unlabeled rows as there are (``max_samples=1.0``); the other parameters and the fitted attributes
    are those of :class:`~pujax.meta.PUBaggingClassifier`.
    """

    bootstrap = True

    def __init__(self, n_estimators=10, *, n_trees=100, max_samples=1.0, n_jobs=None, random_state=None, verbose=0):
        self.n_estimators = n_estimators
        self.n_trees = n_trees
        self.max_samples = max_samples
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    @property
    def estimator(self):
        return SupervisedET(n_estimators=check_int(self.n_trees, "n_trees"))

    def fit(self, X, y):
        """Fit ``n_estimators`` bags (``y``: PU labels); the Extra Trees base models take no row weights."""
        return super().fit(X, y)
