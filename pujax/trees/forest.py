r"""PU decision trees, PU Extra Trees and PU random forests (Wilton et al., NeurIPS 2022; DESIGN §3.2).

Scenario: case-control (DESIGN §1). Labeled positives ``s = 1`` are drawn from :math:`p(x \mid y = 1)`, unlabeled
rows ``s = 0`` from the marginal :math:`p(x)` whose positive fraction is ``prior`` :math:`= \pi`. As in the papers,
pass ``X = concat(X_P, X_U)`` with ``s = concat(ones, zeros)``; ``U`` may contain copies of the ``P`` rows.

Every node holds :math:`W_p = |P'| w_p` and :math:`W_n = |U'| w_u - |P'| w_p` with :math:`w_p = \pi / n_p`,
:math:`w_u = 1 / n_u` (Prop. 1); its prediction is :math:`v^* = W_p / (W_p + W_n)` and its minimal partial risk has a
closed form (Prop. 1-3: uPU eq. (11)-(12), nnPU eq. (14)-(15), PN Theorem 1). A split is chosen to maximise the risk
reduction (eq. (7)-(8)) ``R*(node) - R*(left) - R*(right)``. With ``risk="pn"`` (``fit(X, y)`` on true labels,
:math:`w = 1 / n`) quadratic loss is the Gini criterion and logistic loss the entropy criterion (Theorem 1).
"""
from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import BaseEstimator

from pujax.base import PUClassifierMixin, resolve_prior
from pujax.devices import resolve_devices, resolve_n_jobs_alias
from pujax.persistence import register_estimator
from pujax.progress import progress
from pujax.random import as_key
from pujax.risk import NODE_RISK_LOSSES
from pujax.trees.binning import MAX_BINS
from pujax.trees.core import (
    forest_apply,
    forest_decision,
    forest_fit,
    forest_proba,
    forest_summaries,
    node_weights,
)
from pujax.trees.model import check_forest, standardization, standardize
from pujax.validation import SPARSE_FORMATS, check_in, check_int, validate_fit_data, validate_predict_data

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = [
    "PUDecisionTreeClassifier",
    "PUExtraTreesClassifier",
    "PURandomForestClassifier",
]

RISKS = ("nnpu", "upu", "pn")


def _resolve_max_features(max_features, d: int) -> int:
    if max_features is None or (isinstance(max_features, str) and max_features == "all"):
        return d
    if isinstance(max_features, str):
        if max_features == "sqrt":
            return max(1, int(math.ceil(math.sqrt(d))))
        if max_features == "log2":
            return max(1, int(math.ceil(math.log2(d)))) if d > 1 else 1
        raise ValueError(
            f"max_features={max_features!r} is not valid; use 'sqrt', 'log2', 'all', None, an int >= 1 or a "
            f"float in (0, 1]."
        )
    if isinstance(max_features, (bool, np.bool_)):
        raise TypeError("max_features must be 'sqrt', 'log2', 'all', None, an int or a float; got a bool.")
    if isinstance(max_features, numbers.Integral):
        if max_features < 1:
            raise ValueError(f"max_features={max_features} must be >= 1.")
        return min(int(max_features), d)
    if isinstance(max_features, numbers.Real):
        if not 0.0 < float(max_features) <= 1.0:
            raise ValueError(f"max_features={max_features} as a fraction must be in (0, 1].")
        return max(1, int(float(max_features) * d))
    raise TypeError(f"max_features has unsupported type {type(max_features).__name__}.")


class _BasePUForest(PUClassifierMixin, BaseEstimator):
    """Shared fit / predict of the tree estimators: validate, call :func:`~pujax.trees.core.forest_fit`, store.

    Subclasses set ``_splitter`` and the constructor."""

    _splitter = "random"
    _fixed_risk = None
    _accept_sparse = SPARSE_FORMATS
    _fitted_schema = {
        "forest_": "model:Forest", "n_estimators_": "int", "max_features_": "int", "weights_": "dict",
        "tree_n_leaves_": "i[n_estimators_]", "tree_depths_": "i[n_estimators_]",
        "tree_risk_reduction_importances_": "f[n_estimators_,n_features_in_]",
        "risk_reduction_importances_": "f[n_features_in_]",
        "normalized_risk_reduction_importances_": "f[n_features_in_]", "feature_importances_": "f[n_features_in_]",
    }

    # ------------------------------------------------------------------ parameters
    def _risk_value(self):
        return self._fixed_risk if self._fixed_risk is not None else self.risk

    def _check_params(self, d: int = 1) -> dict:
        """Checked hyper-parameters as the core's arguments (``max_features`` resolved for ``d`` features)."""
        risk = check_in(self._risk_value(), "risk", RISKS)
        loss = check_in(self.loss, "loss", NODE_RISK_LOSSES)
        n_bins = check_int(self.n_bins, "n_bins", low=2)
        if n_bins > MAX_BINS:
            raise ValueError(f"n_bins={n_bins} must be <= {MAX_BINS} (codes are uint8).")
        splitter = check_in(getattr(self, "splitter", self._splitter), "splitter", ("random", "best"))
        return dict(
            risk=risk, loss=loss, n_estimators=check_int(getattr(self, "n_estimators", 1), "n_estimators"),
            max_candidates=check_int(getattr(self, "max_candidates", 1), "max_candidates"),
            max_depth=check_int(self.max_depth, "max_depth", allow_none=True),
            min_samples_split=check_int(self.min_samples_split, "min_samples_split", low=2), n_bins=n_bins,
            splitter=splitter, bootstrap=bool(getattr(self, "bootstrap", False)),
            max_features=_resolve_max_features(getattr(self, "max_features", None), d),
        )

    def _devices(self):
        """``devices`` checked, with the deprecated ``n_jobs`` (its device meaning) mapped onto it."""
        n_jobs = getattr(self, "n_jobs", None)
        if n_jobs is not None:
            n_jobs = check_int(n_jobs, "n_jobs", low=-1)
            if n_jobs == 0:
                raise ValueError("n_jobs=0 is not valid; pass devices=... (None, an int, devices or a Mesh).")
        return resolve_devices(resolve_n_jobs_alias(self, getattr(self, "devices", None), n_jobs))

    def _check_loaded(self):
        check_forest(self.forest_, self.n_features_in_)
        if self.forest_.n_trees != self.n_estimators_:
            raise ValueError(f"the forest holds {self.forest_.n_trees} trees, n_estimators_ is {self.n_estimators_}.")

    # ------------------------------------------------------------------ fit
    @property
    def _needs_prior(self):
        return self._risk_value() != "pn"

    def _validate_fit(self, X, y, sample_weight=None):
        """The mixin's validation keeping float64 input (trees standardise in float64 before the float32 cast);
        ``prior="auto"`` is estimated on the standardised features."""
        X, s01, w = validate_fit_data(self, X, y, sample_weight, dtype=None, accept_sparse=SPARSE_FORMATS)
        prior = None
        if self._needs_prior:
            Z = standardize(X, *standardization(X))
            prior = resolve_prior(self.prior, Z, s01, random_state=self.random_state)
            self.prior_ = prior
        return X, s01, w, prior

    def _validate_predict(self, X):
        return validate_predict_data(self, X, dtype=None, accept_sparse=SPARSE_FORMATS)

    def fit(self, X: ArrayLike, y: ArrayLike) -> _BasePUForest:
        """Grow the trees on ``X`` with PU labels ``y`` (1 = labeled positive, 0 = unlabeled).

        With ``risk="pn"`` ``y`` holds the true labels (1 = positive, 0 = negative): the supervised tree/forest.
        """
        check_in(self._risk_value(), "risk", RISKS)
        X_arr, s_arr, _, prior = self._validate_fit(X, y)
        d = X_arr.shape[1]
        cfg = self._check_params(d)
        cfg["devices"] = self._devices()
        if cfg["risk"] == "pn":
            self.prior_ = float(s_arr.mean())
        verbose = bool(getattr(self, "verbose", False))
        with progress(cfg["n_estimators"], desc=type(self).__name__, verbose=verbose) as bar:
            forest = forest_fit(as_key(self.random_state), X_arr, s_arr, prior, progress_bar=bar, **cfg)
        return self._set_forest(forest, cfg["max_features"], node_weights(s_arr, prior, cfg["risk"]))

    def _set_forest(self, forest, max_features: int, weights: tuple[float, float, float]):
        """Store a grown forest with its node weights ``(w_u, rho, sigma)``, sizes and importances."""
        self.forest_ = forest
        self.n_estimators_ = forest.n_trees
        self.max_features_ = int(max_features)
        self.weights_ = dict(zip(("w_u", "rho", "sigma"), map(float, weights)))
        for name, value in forest_summaries(forest, self.n_features_in_).items():
            setattr(self, name + "_", value)
        return self

    # ------------------------------------------------------------------ predict
    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Mean over trees of the leaf probability ``clip(v*, 0, 1)``; columns (P(y=0), P(y=1))."""
        X = self._validate_predict(X)
        p = forest_proba(self.forest_, X)
        return np.stack([1.0 - p, p], axis=1)

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Mean leaf probability minus 1/2 (positive iff predicted positive, Prop. 4)."""
        X = self._validate_predict(X)
        return forest_decision(self.forest_, X)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Predicted classes: ``classes_[1]`` iff the mean leaf probability exceeds 1/2."""
        return self._to_classes(self.decision_function(X) > 0)

    def apply(self, X):
        """Index of the leaf reached in each tree (node index within its tree), shape (n_samples, n_trees)."""
        X = self._validate_predict(X)
        return forest_apply(self.forest_, X)

    def get_n_leaves(self):
        """Number of leaves of every tree (array of length n_estimators)."""
        self._validate_predict(np.zeros((1, self.n_features_in_), np.float32))
        return self.tree_n_leaves_.copy()

    def get_depth(self):
        """Depth of every tree (array of length n_estimators; a lone root has depth 0)."""
        self._validate_predict(np.zeros((1, self.n_features_in_), np.float32))
        return self.tree_depths_.copy()


@register_estimator
class PUExtraTreesClassifier(_BasePUForest):
    r"""PU Extra Trees: a forest of PU decision trees with random splits (Wilton et al. 2022, §4).

    Each node samples ``max_features`` features (among those not constant in the node) and, per feature,
    ``max_candidates`` thresholds uniformly between the node's smallest and largest value; the candidate with
    the largest risk reduction (eq. (7)/(8)) wins. Trees grow until nodes are pure (nnPU / PN risk 0, uPU
    ``-inf`` or no labeled positive), hold fewer than ``min_samples_split`` rows, reach ``max_depth`` or have only
    identical rows. Leaves store ``v* = W_p / (W_p + W_n)`` (Prop. 1); ``predict_proba`` averages
    ``clip(v*, 0, 1)`` over trees. Scenario: case-control (module docstring).

    Parameters
    ----------
    n_estimators : int, default=100
        Number of trees.
    risk : {"nnpu", "upu", "pn"}, default="nnpu"
        Node-risk estimator: non-negative (eq. (6)) or unbiased (eq. (5)) PU risk; ``"pn"`` is the supervised tree
        on true labels (``y`` then holds 1 = positive, 0 = negative).
    loss : {"quadratic", "logistic", "savage", "sigmoid", "double_hinge", "zero_one"}, default="quadratic"
        Loss of the node risk (closed forms of Prop. 1-3).
    max_features : "sqrt", "log2", "all", None, int or float, default="sqrt"
        Features sampled per node (``ceil(sqrt(d))`` as in the paper).
    max_candidates : int, default=1
        Random thresholds per sampled feature.
    max_depth : int or None, default=None
        Maximum depth; None grows until the other stopping rules apply.
    min_samples_split : int, default=2
        A node with fewer rows is a leaf.
    bootstrap : bool, default=False
        Resample P and U (separately, with replacement) for every tree.
    n_bins : int, default=256
        Histogram bins per feature (uint8 codes); with at least as many bins as distinct values, splits are exact.
    prior : float in (0, 1) or "auto", default="auto"
        Class prior :math:`\pi = P(y = 1)` of the unlabeled population; ``"auto"`` estimates it with
        :func:`pujax.prior.estimate_prior` (on the standardised features). Ignored for ``risk="pn"``.
    random_state : None, int, numpy random state or JAX key, default=None
        Seeds feature sampling, thresholds and bootstrap.
    devices : None, int, sequence of jax.Device or jax.sharding.Mesh, default=None
        Where the trees grow (None: every device; :mod:`pujax.devices`). Several devices grow whole trees each,
        also across processes (trees of more rows than a batch holds: rows sharded, counts summed exactly;
        :mod:`pujax.trees.sharding`): the same ``random_state`` gives the same forest on any number of devices.
    n_jobs : int or None, default=None
        Deprecated name of ``devices`` (-1: every device, k: k devices); kept for one release with a
        ``FutureWarning``.
    verbose : bool, default=False
        Progress bar over the trees.
    pos_label : int, float, bool, str or None, default=None
        The value of ``y`` that marks the labeled positives (e.g. ``1`` for labels 1 = labeled / 2 = unlabeled, or
        ``"positive"``); ``None`` reads ``y`` as bool, {0, 1} or {-1, 1} with ``True`` / 1 labeled and refuses other
        values (:func:`pujax.validation.read_pu_labels`). ``classes_`` is ``[unlabeled value, labeled value]``.

    Attributes
    ----------
    forest_ : Forest
        The flat node arrays of every tree (a NamedTuple pytree, :class:`pujax.trees.model.Forest`): per node the split
        feature, threshold, children, leaf value ``v*``, P / U counts, node risk, risk reduction,
        weight and depth, with per-tree offsets.
    n_estimators_ : int
        Number of trees grown.
    max_features_ : int
        Features sampled per node.
    weights_ : dict
        Row weights of the node risks: ``w_u`` (:math:`1 / n_u`), ``rho`` (:math:`w_p / w_u`) and ``sigma``
        (1 for PU risks, 0 for ``"pn"``).
    tree_n_leaves_, tree_depths_ : ndarray of shape (n_estimators_,)
        Leaves and depth of every tree.
    risk_reduction_importances_ : ndarray of shape (n_features_in_,)
        Mean over trees of the summed risk reductions (eq. (7)/(8)) of the splits on each feature (§4).
    normalized_risk_reduction_importances_ : ndarray of shape (n_features_in_,)
        The same with each reduction divided by its node's total weight.
    tree_risk_reduction_importances_ : ndarray of shape (n_estimators_, n_features_in_)
        Per-tree risk-reduction importances.
    feature_importances_ : ndarray of shape (n_features_in_,)
        ``risk_reduction_importances_`` normalised to sum 1.
    prior_ : float
        Class prior used (the estimate when ``prior="auto"``).
    classes_ : ndarray of shape (2,)
        The two label values; ``classes_[1]`` marks labeled positives.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of str
        Column names when ``X`` was a pandas DataFrame.

    See Also
    --------
    PURandomForestClassifier : best splits on bootstrap samples.
    PUDecisionTreeClassifier : a single PU tree.

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
    >>> from pujax.trees import PUExtraTreesClassifier
    >>> clf = PUExtraTreesClassifier(n_estimators=20, prior=prior, random_state=0).fit(X_pu, s)
    >>> clf.predict_proba(X[:2]).shape
    (2, 2)
    >>> bool(clf.score(X, y) > 0.8)  # accuracy on the true labels
    True
    """

    _splitter = "random"

    def __init__(self, n_estimators=100, *, risk="nnpu", loss="quadratic", max_features="sqrt", max_candidates=1,
                 max_depth=None, min_samples_split=2, bootstrap=False, n_bins=256, prior="auto", random_state=None,
                 devices=None, n_jobs=None, verbose=False, pos_label=None):
        self.n_estimators = n_estimators
        self.risk = risk
        self.loss = loss
        self.max_features = max_features
        self.max_candidates = max_candidates
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.bootstrap = bootstrap
        self.n_bins = n_bins
        self.prior = prior
        self.random_state = random_state
        self.devices = devices
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.pos_label = pos_label


@register_estimator
class PURandomForestClassifier(_BasePUForest):
    r"""PU random forest (Wilton et al. 2022, §4): best splits on bootstrap samples of P and U.

    Each tree is grown on a bootstrap resample of P and of U (separately, with replacement); each node scores every
    bin boundary of ``max_features`` sampled features by the PU risk reduction (eq. (8)) and keeps the best.
    Stopping rules, leaves and ``predict_proba`` as in :class:`PUExtraTreesClassifier`. Scenario: case-control.

    Parameters
    ----------
    n_estimators : int, default=100
        Number of trees.
    risk : {"nnpu", "upu", "pn"}, default="nnpu"
        Node-risk estimator: non-negative (eq. (6)) or unbiased (eq. (5)) PU risk; ``"pn"`` is the supervised tree
        on true labels (``y`` then holds 1 = positive, 0 = negative).
    loss : {"quadratic", "logistic", "savage", "sigmoid", "double_hinge", "zero_one"}, default="quadratic"
        Loss of the node risk (closed forms of Prop. 1-3).
    max_features : "sqrt", "log2", "all", None, int or float, default="sqrt"
        Features sampled per node.
    max_depth : int or None, default=None
        Maximum depth; None grows until the other stopping rules apply.
    min_samples_split : int, default=2
        A node with fewer rows is a leaf.
    bootstrap : bool, default=True
        Resample P and U (separately, with replacement) for every tree.
    n_bins : int, default=256
        Histogram bins per feature (uint8 codes); with at least as many bins as distinct values, splits are exact.
    prior : float in (0, 1) or "auto", default="auto"
        Class prior :math:`\pi = P(y = 1)` of the unlabeled population; ``"auto"`` estimates it with
        :func:`pujax.prior.estimate_prior` (on the standardised features). Ignored for ``risk="pn"``.
    random_state : None, int, numpy random state or JAX key, default=None
        Seeds feature sampling, thresholds and bootstrap.
    devices : None, int, sequence of jax.Device or jax.sharding.Mesh, default=None
        Where the trees grow, as in :class:`PUExtraTreesClassifier`.
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
    >>> from pujax.trees import PURandomForestClassifier
    >>> clf = PURandomForestClassifier(n_estimators=20, prior=prior, random_state=0).fit(X_pu, s)
    >>> bool(clf.score(X, y) > 0.8)
    True
    """

    _splitter = "best"

    def __init__(self, n_estimators=100, *, risk="nnpu", loss="quadratic", max_features="sqrt", max_depth=None,
                 min_samples_split=2, bootstrap=True, n_bins=256, prior="auto", random_state=None,
                 devices=None, n_jobs=None, verbose=False, pos_label=None):
        self.n_estimators = n_estimators
        self.risk = risk
        self.loss = loss
        self.max_features = max_features
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.bootstrap = bootstrap
        self.n_bins = n_bins
        self.prior = prior
        self.random_state = random_state
        self.devices = devices
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.pos_label = pos_label


@register_estimator
class PUDecisionTreeClassifier(_BasePUForest):
    r"""A single PU decision tree by recursive greedy risk minimisation (Wilton et al. 2022, §3.2, Algorithm 1).

    ``splitter="best"`` scores every bin boundary of ``max_features`` features (all by default) -- the exact
    greedy tree when ``n_bins`` covers the distinct values; ``splitter="random"`` is one Extra Tree.
    ``risk="pn"`` with quadratic / logistic loss is the CART tree with Gini / entropy (Theorem 1).
    Scenario: case-control (module docstring).

    Parameters
    ----------
    risk : {"nnpu", "upu", "pn"}, default="nnpu"
        Node-risk estimator: non-negative (eq. (6)) or unbiased (eq. (5)) PU risk; ``"pn"`` is the supervised tree
        on true labels (``y`` then holds 1 = positive, 0 = negative).
    loss : {"quadratic", "logistic", "savage", "sigmoid", "double_hinge", "zero_one"}, default="quadratic"
        Loss of the node risk (closed forms of Prop. 1-3).
    splitter : {"best", "random"}, default="best"
        Best bin boundary per sampled feature, or ``max_candidates`` random thresholds per sampled feature.
    max_features : "sqrt", "log2", "all", None, int or float, default=None
        Features considered per node (None: all).
    max_candidates : int, default=1
        Random thresholds per sampled feature (``splitter="random"``).
    max_depth : int or None, default=None
        Maximum depth; None grows until the other stopping rules apply.
    min_samples_split : int, default=2
        A node with fewer rows is a leaf.
    n_bins : int, default=256
        Histogram bins per feature (uint8 codes); with at least as many bins as distinct values, splits are exact.
    prior : float in (0, 1) or "auto", default="auto"
        Class prior :math:`\pi = P(y = 1)` of the unlabeled population; ``"auto"`` estimates it with
        :func:`pujax.prior.estimate_prior` (on the standardised features). Ignored for ``risk="pn"``.
    random_state : None, int, numpy random state or JAX key, default=None
        Seeds feature sampling, thresholds and bootstrap.
    devices : None, int, sequence of jax.Device or jax.sharding.Mesh, default=None
        Where the tree grows, as in :class:`PUExtraTreesClassifier`.
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
    >>> from pujax.trees import PUDecisionTreeClassifier
    >>> clf = PUDecisionTreeClassifier(max_depth=4, prior=prior, random_state=0).fit(X_pu, s)
    >>> int(clf.tree_depths_[0]) <= 4
    True
    >>> bool(clf.score(X, y) > 0.8)
    True
    """

    _splitter = "best"

    def __init__(self, *, risk="nnpu", loss="quadratic", splitter="best", max_features=None, max_candidates=1,
                 max_depth=None, min_samples_split=2, n_bins=256, prior="auto", random_state=None, devices=None,
                 verbose=False, pos_label=None):
        self.risk = risk
        self.loss = loss
        self.splitter = splitter
        self.max_features = max_features
        self.max_candidates = max_candidates
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.n_bins = n_bins
        self.prior = prior
        self.random_state = random_state
        self.devices = devices
        self.verbose = verbose
        self.pos_label = pos_label
