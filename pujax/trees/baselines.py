r"""Tree baselines of the PU ET paper, §5 (Wilton et al. 2022): NaivePUET, PUBaggingET, SupervisedET.

* :class:`NaivePUET` -- Extra Trees trained on the PU data with every unlabeled row treated as negative
  (the same engine as :class:`~pujax.trees.PUExtraTreesClassifier` with ``risk="pn"`` on ``s``);
* :class:`SupervisedET` -- the PN oracle: Extra Trees on the fully labeled data ``fit(X, y)``;
* :class:`PUBaggingET` -- bagging of Mordelet & Vert (2014) (:class:`pujax.meta.PUBaggingClassifier`, re-exported
  here) with :class:`SupervisedET` base models: each separates all of P from a bootstrap sample of U.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pujax.meta.bagging import PUBaggingClassifier  # the one bagging implementation (re-exported here)
from pujax.persistence import register_estimator
from pujax.random import as_key
from pujax.trees.core import forest_fit_bags, node_weights
from pujax.trees.forest import _BasePUForest
from pujax.validation import check_int

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["NaivePUET", "SupervisedET", "PUBaggingClassifier", "PUBaggingET"]


class _PNExtraTrees(_BasePUForest):
    _splitter = "random"
    _fixed_risk = "pn"

    def __init__(self, n_estimators=100, *, loss="quadratic", max_features="sqrt", max_candidates=1, max_depth=None,
                 min_samples_split=2, bootstrap=False, n_bins=256, random_state=None, devices=None, n_jobs=None,
                 verbose=False, pos_label=None):
        self.n_estimators = n_estimators
        self.loss = loss
        self.max_features = max_features
        self.max_candidates = max_candidates
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.bootstrap = bootstrap
        self.n_bins = n_bins
        self.random_state = random_state
        self.devices = devices
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.pos_label = pos_label

    def fit_bags(self, X: ArrayLike, y: ArrayLike, bags: list[ArrayLike]) -> list[_PNExtraTrees]:
        """One fitted copy of this estimator per bag -- the rows with ``y = 1`` against the rows ``bags[b]``
        (indices into ``X``, repeats allowed) -- all grown as one forest (:func:`~pujax.trees.core.forest_fit_bags`:
        the bags share the bins of all rows). :class:`~pujax.meta.PUBaggingClassifier` calls this instead of
        fitting its bags one by one.

        Returns
        -------
        list of estimators of this class
        """
        X, s, copies = self._bag_inputs(X, y, bags)
        cfg = self._check_params(X.shape[1])
        cfg.pop("risk")
        cfg["devices"] = self._devices()
        forests = forest_fit_bags(as_key(self.random_state), X, s, bags, **cfg)
        for est, forest, bag in zip(copies, forests, bags):
            s_bag = np.r_[s[s == 1], s[np.asarray(bag, np.int64)]]  # the labels a fit on the bag's rows sees
            est.prior_ = float(s_bag.mean())
            est._set_forest(forest, cfg["max_features"], node_weights(s_bag, None, "pn"))
        return copies


@register_estimator
class NaivePUET(_PNExtraTrees):
    r"""Extra Trees on PU data with the unlabeled rows treated as negatives (Wilton et al. 2022, §5 "NaivePUET").

    ``fit(X, s)`` grows supervised Extra Trees (PN risk, :math:`w = 1 / n`) on the PU labels. Quadratic loss is the
    Gini impurity (Theorem 1). A biased baseline: it learns :math:`P(s = 1 \mid x)`, not :math:`P(y = 1 \mid x)`.

    Parameters
    ----------
    n_estimators : int, default=100
        Number of trees.
    loss : {"quadratic", "logistic", "savage", "sigmoid", "double_hinge", "zero_one"}, default="quadratic"
        Loss of the node risk (quadratic = Gini impurity, logistic = entropy; Theorem 1).
    max_features : "sqrt", "log2", "all", None, int or float, default="sqrt"
        Features sampled per node.
    max_candidates : int, default=1
        Random thresholds per sampled feature.
    max_depth : int or None, default=None
        Maximum depth; None grows until the other stopping rules apply.
    min_samples_split : int, default=2
        A node with fewer rows is a leaf.
    bootstrap : bool, default=False
        Resample the rows of each class (with replacement) for every tree.
    n_bins : int, default=256
        Histogram bins per feature (uint8 codes); with at least as many bins as distinct values, splits are exact.
    random_state : None, int, numpy random state or JAX key, default=None
        Seeds feature sampling, thresholds and bootstrap.
    devices : None, int, sequence of jax.Device or jax.sharding.Mesh, default=None
        Where the trees grow, as in :class:`~pujax.trees.PUExtraTreesClassifier`.
    n_jobs : int or None, default=None
        Deprecated name of ``devices``; kept for one release with a ``FutureWarning``.
    verbose : bool, default=False
        Progress bar over the trees.
    pos_label : int, float, bool, str or None, default=None
        The value of ``y`` that marks the labeled positives (e.g. ``1`` for labels 1 = labeled / 2 = unlabeled, or
        ``"positive"``); ``None`` reads ``y`` as bool, {0, 1} or {-1, 1} with ``True`` / 1 labeled and refuses other
        values (:func:`pujax.validation.read_pu_labels`). ``classes_`` is ``[unlabeled value, labeled value]``.

    Attributes
    ----------
    forest_, n_estimators_, max_features_, weights_, tree_n_leaves_, tree_depths_ : see PUExtraTreesClassifier
        The fitted trees and their sizes.
    feature_importances_, risk_reduction_importances_, normalized_risk_reduction_importances_ : ndarray
        Risk-reduction importances, as in :class:`PUExtraTreesClassifier`.
    prior_, classes_, n_features_in_, feature_names_in_ : see PUExtraTreesClassifier
        Class prior used and scikit-learn's fitted attributes.

    References
    ----------
    .. [1] J. Wilton, A. M. Y. Koay, R. K. L. Ko, M. Xu and N. Ye, "Positive-Unlabeled Learning using Random
       Forests via Recursive Greedy Risk Minimization", NeurIPS 2022: uPU / nnPU risk estimators eq. (5)-(6), risk
       reduction eq. (7)-(8), closed-form node risks Prop. 1-3, leaf prediction Prop. 4, Algorithm 1.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from pujax.data import make_case_control
    >>> X, y = make_classification(n_samples=300, n_features=6, n_informative=4, class_sep=2.0, random_state=0)
    >>> X_pu, s, prior = make_case_control(0, X, y, n_labeled=60)  # P = 60 positives, U = all 300 rows
    >>> from pujax.trees import NaivePUET
    >>> clf = NaivePUET(n_estimators=20, random_state=0).fit(X_pu, s)
    >>> bool(clf.predict(X).mean() < prior)  # unlabeled positives count as negatives: too few positives
    True
    """


@register_estimator
class SupervisedET(_PNExtraTrees):
    r"""Supervised Extra Trees on true labels (Wilton et al. 2022, §5 "SupervisedET", the PN oracle).

    ``fit(X, y)`` with ``y`` = 1 for positives and 0 for negatives; the split criterion is the PN risk reduction
    (eq. (7)), which is the Gini (quadratic loss) or entropy (logistic loss) reduction (Theorem 1).

    Parameters
    ----------
    n_estimators : int, default=100
        Number of trees.
    loss : {"quadratic", "logistic", "savage", "sigmoid", "double_hinge", "zero_one"}, default="quadratic"
        Loss of the node risk (quadratic = Gini impurity, logistic = entropy; Theorem 1).
    max_features : "sqrt", "log2", "all", None, int or float, default="sqrt"
        Features sampled per node.
    max_candidates : int, default=1
        Random thresholds per sampled feature.
    max_depth : int or None, default=None
        Maximum depth; None grows until the other stopping rules apply.
    min_samples_split : int, default=2
        A node with fewer rows is a leaf.
    bootstrap : bool, default=False
        Resample the rows of each class (with replacement) for every tree.
    n_bins : int, default=256
        Histogram bins per feature (uint8 codes); with at least as many bins as distinct values, splits are exact.
    random_state : None, int, numpy random state or JAX key, default=None
        Seeds feature sampling, thresholds and bootstrap.
    devices : None, int, sequence of jax.Device or jax.sharding.Mesh, default=None
        Where the trees grow, as in :class:`~pujax.trees.PUExtraTreesClassifier`.
    n_jobs : int or None, default=None
        Deprecated name of ``devices``; kept for one release with a ``FutureWarning``.
    verbose : bool, default=False
        Progress bar over the trees.
    pos_label : int, float, bool, str or None, default=None
        The value of ``y`` that marks the labeled positives (e.g. ``1`` for labels 1 = labeled / 2 = unlabeled, or
        ``"positive"``); ``None`` reads ``y`` as bool, {0, 1} or {-1, 1} with ``True`` / 1 labeled and refuses other
        values (:func:`pujax.validation.read_pu_labels`). ``classes_`` is ``[unlabeled value, labeled value]``.

    Attributes
    ----------
    forest_, n_estimators_, max_features_, weights_, tree_n_leaves_, tree_depths_ : see PUExtraTreesClassifier
        The fitted trees and their sizes.
    feature_importances_, risk_reduction_importances_, normalized_risk_reduction_importances_ : ndarray
        Risk-reduction importances, as in :class:`PUExtraTreesClassifier`.
    prior_, classes_, n_features_in_, feature_names_in_ : see PUExtraTreesClassifier
        Class prior used and scikit-learn's fitted attributes.

    References
    ----------
    .. [1] J. Wilton, A. M. Y. Koay, R. K. L. Ko, M. Xu and N. Ye, "Positive-Unlabeled Learning using Random
       Forests via Recursive Greedy Risk Minimization", NeurIPS 2022: uPU / nnPU risk estimators eq. (5)-(6), risk
       reduction eq. (7)-(8), closed-form node risks Prop. 1-3, leaf prediction Prop. 4, Algorithm 1.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from pujax.data import make_case_control
    >>> X, y = make_classification(n_samples=300, n_features=6, n_informative=4, class_sep=2.0, random_state=0)
    >>> X_pu, s, prior = make_case_control(0, X, y, n_labeled=60)  # P = 60 positives, U = all 300 rows
    >>> from pujax.trees import SupervisedET
    >>> clf = SupervisedET(n_estimators=20, random_state=0).fit(X, y)  # fully labeled data
    >>> bool(clf.score(X, y) > 0.9)
    True
    """


@register_estimator
class PUBaggingET(PUBaggingClassifier):
    r""":class:`~pujax.meta.PUBaggingClassifier` with supervised Extra Trees as base models (Wilton et al. 2022, §5).

    Each bag fits a :class:`SupervisedET` of ``n_trees`` trees on all labeled positives against a bootstrap sample
    of as many unlabeled rows as there are (``max_samples=1.0``): the paper's "PUBaggingET" baseline. All bags'
    trees grow as one forest (:meth:`SupervisedET.fit_bags`; the bags share the bins of all rows).

    Parameters
    ----------
    n_estimators : int, default=10
        Number of bags (base models).
    n_trees : int, default=100
        Trees per base model.
    max_samples : int or float, default=1.0
        Unlabeled rows drawn per bag: a count, or a fraction of the unlabeled rows.
    n_jobs : int or None, default=None
        Unused: the bags grow as one forest (threads and devices as in :class:`SupervisedET`); kept for the
        signature of :class:`~pujax.meta.PUBaggingClassifier`.
    random_state : None, int, numpy random state or JAX key, default=None
        Seeds the bootstrap samples and the trees.
    verbose : int, default=0
        Progress output.
    prior : float in (0, 1), "auto" or None, default="auto"
        Class prior of the unlabeled rows, which sets the threshold of the mean score (see
        :class:`~pujax.meta.PUBaggingClassifier`); None keeps the paper's 0.5, at which the bags of 100 % of the
        unlabeled rows against the few labeled positives predict every row negative.
    pos_label : int, float, bool, str or None, default=None
        The value of ``y`` that marks the labeled positives (e.g. ``1`` for labels 1 = labeled / 2 = unlabeled, or
        ``"positive"``); ``None`` reads ``y`` as bool, {0, 1} or {-1, 1} with ``True`` / 1 labeled and refuses other
        values (:func:`pujax.validation.read_pu_labels`). ``classes_`` is ``[unlabeled value, labeled value]``.

    Attributes
    ----------
    estimators_, oob_decision_function_, feature_importances_, prior_, threshold_ : see PUBaggingClassifier
        The fitted :class:`SupervisedET` base models, out-of-bag scores, mean importances, prior and threshold, as
        in :class:`~pujax.meta.PUBaggingClassifier`.
    classes_, n_features_in_, feature_names_in_ : as in scikit-learn
        Fitted label values and input description.

    References
    ----------
    .. [1] J. Wilton et al., "Positive-Unlabeled Learning using Random Forests via Recursive Greedy Risk
       Minimization", NeurIPS 2022, §5.
    .. [2] F. Mordelet and J.-P. Vert, "A bagging SVM to learn from positive and unlabeled examples", Pattern
       Recognition Letters 37, 2014, Algorithm 1.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from pujax.data import make_case_control
    >>> X, y = make_classification(n_samples=300, n_features=6, n_informative=4, class_sep=2.0, random_state=0)
    >>> X_pu, s, prior = make_case_control(0, X, y, n_labeled=60)  # P = 60 positives, U = all 300 rows
    >>> from pujax.trees import PUBaggingET
    >>> clf = PUBaggingET(n_estimators=3, n_trees=10, random_state=0).fit(X_pu, s)
    >>> clf.predict_proba(X[:2]).shape
    (2, 2)
    """

    bootstrap = True
    standardize = "auto"  # dense X standardised, sparse X passed as given (the trees bin each column)
    _expected_failed_checks: dict = {}  # its base is always SupervisedET (not the logistic model of sparse input)

    def __init__(self, n_estimators=10, *, n_trees=100, max_samples=1.0, n_jobs=None, random_state=None, verbose=0,
                 prior="auto", pos_label=None):
        self.n_estimators = n_estimators
        self.n_trees = n_trees
        self.max_samples = max_samples
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.prior = prior
        self.pos_label = pos_label

    @property
    def estimator(self):
        return SupervisedET(n_estimators=check_int(self.n_trees, "n_trees"))

    def fit(self, X: ArrayLike, y: ArrayLike) -> PUBaggingET:
        """Fit ``n_estimators`` bags (``y``: PU labels); the Extra Trees base models take no row weights."""
        return super().fit(X, y)
