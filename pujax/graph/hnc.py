"""2-HNC: two-stage Hochbaum's Normalized Cut for PU learning (Hochbaum & Nitayanont).

Method (paper §4-5, DESIGN §3.6):

1. Standardise the features; weighted Euclidean distance with weights rho over the H' distinct non-constant
   features (PU Extra Trees risk-reduction importances scaled so that sum(rho) = H', §5.3; a constant feature
   weighs 0 and the copies of a feature share its weight, so neither changes the graph); symmetric kNN graph
   (§4.2.3, §5.2) with Gaussian similarities
   ``w_ij = exp(-d_ij^2 / (2 sigma^2))``, sigma = 0.75 for n < 10,000 else 0.25; ``d_i = sum_j w_ij``. By default
   (``normalize_distance=True``) ``d_ij^2`` is divided by H', the scale at which the authors used these sigma values
   (their code divides distances by sqrt(H)); without it, standardised data in 20+ dimensions has Gaussian weights
   of e^-10 and below, and the similarity graph loses the contrast between near and far neighbours.
2. Stage 1, HNC- with L+ contracted into the source (problem (5) of Lemma 4.1, graph G-(lambda) of Fig. 3b):
   ``c(s, i) = sum_{p in L+} w_ip``, ``c(i, t) = lambda d_i``, lambda in {0, 0.001, ..., 0.5}. Sink sets grow with
   lambda (Lemma 3.1).
3. SelectNeg (§4.1.2): rank unlabeled nodes by the first lambda index at which they join the sink set (ties at
   random, seeded); LN = the ``(1 - pi) / pi * |L+|`` earliest.
4. Stage 2, HNC+ with L+ in the source and LN in the sink (problem (4), Fig. 2a):
   ``c(s, i) = sum_{p in L+} w_ip + lambda d_i``, ``c(i, t) = sum_{q in LN} w_iq``.
5. Output (§4.1.3): among all partitions of both stages the one whose positive fraction |S| / |V| is closest to pi.
   For n < 10,000 this is done for k in {5, 10, 15}; the largest k whose partition is within 2 percentage points of
   pi is kept, else the closest (§5.2).

The authors' public code differs from the paper (|LN| = |L+|, no k rule, directed degrees); pujax implements the
paper.
``ln_size="labeled"`` exposes the code's |LN| = |L+| choice.

Scenario: case-control (DESIGN §1): the rows with ``s == 1`` are the labeled positives L+, the others the unlabeled
set U; ``prior`` is the positive fraction pi of all rows (L+ and U), used for |LN| and for choosing the partition
(the paper uses the fraction of positives in the whole data set). ``prior="auto"`` estimates the positive share of
U and turns it into that fraction.
"""
from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import BaseEstimator

from pujax.base import PUClassifierMixin
from pujax.graph.core import HNC_MODEL_SCHEMA, HNCModel, default_lambdas, hnc_decision, hnc_fit
from pujax.persistence import register_estimator, register_model
from pujax.random import as_key
from pujax.validation import check_in

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["TwoHNC", "default_lambdas", "puet_feature_weights"]

register_model(HNCModel, HNC_MODEL_SCHEMA)


def puet_feature_weights(max_rows=None):
    """Feature weights of §5.3 for :func:`pujax.graph.core.hnc_fit`: a callable ``(Z, s, prior, seed) -> rho``
    returning the risk-reduction importances of :class:`pujax.trees.PUExtraTreesClassifier` (nnPU risk, prior pi)
    fitted on the case-control input P = the labeled rows, U = every row (a sample of the marginal, whose positive
    fraction is pi), on a random subsample of ``max_rows`` rows when there are more."""

    def weights(Z, s, prior, seed):
        try:
            from pujax.trees import PUExtraTreesClassifier
        except ImportError as exc:
            raise ValueError(
                'feature_weights="puet" needs pujax.trees.PUExtraTreesClassifier, which is not available in this '
                "installation; pass feature_weights=None (unweighted distance) or an array of weights."
            ) from exc
        n = Z.shape[0]
        rows = np.arange(n)
        if max_rows is not None and max_rows < n:  # the importances are averages; PU ET cost grows with n
            rows = np.sort(np.random.default_rng(seed).choice(n, max_rows, replace=False))
        Zr, lab = Z[rows], np.asarray(s)[rows] == 1
        Zpu = np.concatenate([Zr[lab], Zr])
        spu = np.r_[np.ones(int(lab.sum()), np.int32), np.zeros(rows.size, np.int32)]
        et = PUExtraTreesClassifier(prior=prior, random_state=seed).fit(Zpu, spu)
        return np.asarray(et.risk_reduction_importances_, dtype=np.float64)

    return weights


def _model_attribute(field, doc):
    def get(self):
        return getattr(self.model_, field)

    get.__doc__ = doc
    return property(get)


@register_estimator
class TwoHNC(PUClassifierMixin, BaseEstimator):
    """2-HNC PU classifier (transductive, with an inductive ``predict`` for unseen points).

    Parameters
    ----------
    prior : float in (0, 1) or "auto"
        pi, the positive fraction of all rows given to ``fit`` (L+ and U together, as in the paper's protocol):
        the target of |S| / |V| and the pi of |LN|. "auto" estimates the positive share pi_U of the unlabeled rows
        with :func:`pujax.prior.estimate_prior` (``prior_`` holds it) and uses
        ``pi = (|L+| + pi_U |U|) / n``.
    n_neighbors : "auto", int or sequence of ints
        k of the kNN graph; "auto" = (5, 10, 15) with the 2% rule when n < 10,000, else 5 (§5.2).
    sigma : "auto" or float
        Gaussian width; "auto" = 0.75 when n < 10,000 else 0.25 (§5.3).
    feature_weights : "puet", None or array (H,)
        "puet": risk-reduction importances of :class:`pujax.trees.PUExtraTreesClassifier` (nnPU risk, prior pi)
        fitted with P = the labeled rows and U = all rows of the standardised X (its distinct non-constant
        features); None: unweighted Euclidean distance; an array: user weights. Constant features get weight 0,
        copies of a feature share one weight; scaled so that the sum is H', the number of distinct non-constant
        features.
    weights_max_samples : "auto", None or int
        Rows given to PU ET for ``feature_weights="puet"``: a random subsample of this many rows (P = its labeled
        rows, U = all of it); "auto" = all rows up to 20,000, else 10,000; None = all rows.
    lambdas : None or sorted array
        Tradeoff grid of both stages (default 0, 0.001, ..., 0.5).
    ln_size : "paper" or "labeled"
        |LN| = (1 - pi) / pi * |L+| (paper) or |L+| (authors' code).
    k_tolerance : float
        The 2% rule of §5.2 (absolute difference of the positive fraction from pi).
    standardize : bool
        Standardise features before the distance (paper).
    normalize_distance : bool
        Divide the squared (weighted) distance by H' before the Gaussian, ``w = exp(-d^2 / (2 H' sigma^2))``: sigma
        then applies to the per-feature root-mean-square difference, the scale at which the sigma values of §5.3
        were used (the authors' experiment code divides distances by sqrt(H)). False = the raw distance of §5.3,
        whose Gaussian weights vanish in high dimension (d^2 ~ 2H for standardised data).
    n_lanes : int
        ``cut_method="sweep"`` only: lambda lanes solved in parallel by ``vmap`` (1 is fastest on CPU).
    cut_method : "bisect" or "sweep"
        Parametric cut algorithm (:func:`pujax.graph.parametric_min_cut`): parallel bisection over the lambda grid
        (default, ``ceil(log2(L + 1))`` push-relabel solves) or the warm-started sweep (one solve per lambda).
        Same partitions; only the time differs.
    random_state : None, int, numpy or JAX random state
        Seeds SelectNeg's tie-breaking and the PU Extra Trees.
    verbose : bool
        Progress bar over (k, stage).

    devices : None, int, list of jax.Device or jax.sharding.Mesh
        Where the kNN row blocks and the lambda lanes of the parametric cuts run
        (:func:`pujax.devices.resolve_devices`); the partitions do not depend on it.

    pos_label : int, float, bool, str or None, default=None
        The value of ``y`` that marks the labeled positives (e.g. ``1`` for labels 1 = labeled / 2 = unlabeled, or
        ``"positive"``); ``None`` reads ``y`` as bool, {0, 1} or {-1, 1} with ``True`` / 1 labeled and refuses other
        values (:func:`pujax.validation.read_pu_labels`). ``classes_`` is ``[unlabeled value, labeled value]``.

    Attributes
    ----------
    model_ : :class:`pujax.graph.core.HNCModel`
        The fitted model; the attributes below are views of its fields.
    transductive_labels_ : int64 array (n,)
        Predicted label of every row of the X given to ``fit`` (labeled rows are 1).
    ranking_ : int64 array (n_unlabeled,)
        Row indices of the unlabeled rows ordered from most to least likely negative (SelectNeg order, stage 1).
    first_sink_index_ : int64 array (n,)
        First index of the lambda grid at which the row joins the sink set in stage 1 (len(lambdas) if never;
        labeled rows: len(lambdas)).
    likely_negatives_ : int64 array
        The rows of LN (SelectNeg) for the selected k.
    path_fractions_ : float array (2, len(lambdas))
        Positive fraction |S| / |V| of every partition of stage 1 (row 0) and stage 2 (row 1) for the selected k
        (NaN when stage 2 had no free node).
    n_neighbors_, sigma_, stage_, lambda_, positive_fraction_ : the selected partition.
    feature_weights_ : array (H,)
        rho: 0 for a constant feature, the copies of a duplicated feature share one weight; sum = H'.
    distance_weights_ : array (H,)
        The per-feature factors of the squared distance (rho, or rho / H').
    candidates_ : dict
        The k values tried and the positive fraction of each one's best partition.
    prior_, classes_, n_features_in_, feature_names_in_ : as in every pujax estimator
        Class prior used and scikit-learn's fitted attributes.

    References
    ----------
    .. [1] D. S. Hochbaum and T. Nitayanont, "An Effective Flow-based Method for Positive-Unlabeled Learning:
       2-HNC": HNC+ / HNC- objectives eq. (1)-(2), their parametric cut forms eq. (4)-(5) (§4.2), the two stages
       and SelectNeg (§4.1), kNN sparsification (§5.2) and Gaussian similarities (§5.3).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from pujax.data import make_case_control
    >>> from pujax.graph import TwoHNC
    >>> X, y = make_classification(n_samples=300, n_features=6, n_informative=4, class_sep=2.0, random_state=0)
    >>> X_pu, s, prior = make_case_control(0, X, y, n_labeled=60)
    >>> clf = TwoHNC(prior=prior, n_neighbors=10, feature_weights=None, random_state=0).fit(X_pu, s)
    >>> clf.transductive_labels_.shape  # a label for every row given to fit
    (360,)
    >>> bool(clf.score(X, y) > 0.8)  # inductive predict on the population rows
    True
    """

    _fitted_schema = {"model_": "model:HNCModel"}
    _input_dtype = None  # float64 input stays float64 until it is centred (hnc_standardize)

    def __init__(self, prior="auto", *, n_neighbors="auto", sigma="auto", feature_weights="puet", lambdas=None,
                 ln_size="paper", k_tolerance=0.02, standardize=True, normalize_distance=True, n_lanes=1,
                 weights_max_samples="auto", random_state=None, verbose=False, cut_method="bisect", devices=None,
                 pos_label=None):
        self.prior = prior
        self.n_neighbors = n_neighbors
        self.sigma = sigma
        self.feature_weights = feature_weights
        self.lambdas = lambdas
        self.ln_size = ln_size
        self.k_tolerance = k_tolerance
        self.standardize = standardize
        self.normalize_distance = normalize_distance
        self.weights_max_samples = weights_max_samples
        self.n_lanes = n_lanes
        self.cut_method = cut_method
        self.random_state = random_state
        self.verbose = verbose
        self.devices = devices
        self.pos_label = pos_label

    # ------------------------------------------------------------------ parameters
    def _check_params(self):
        """Check the hyper-parameters that need no data; return ``(lambdas, k_tolerance, n_lanes)``."""
        check_in(self.ln_size, "ln_size", ["paper", "labeled"])
        check_in(self.cut_method, "cut_method", ["bisect", "sweep"])
        tol = float(self.k_tolerance)
        if not (np.isfinite(tol) and tol >= 0):
            raise ValueError(f"k_tolerance={self.k_tolerance!r} must be a non-negative float.")
        n_lanes = self.n_lanes
        if isinstance(n_lanes, bool) or not isinstance(n_lanes, numbers.Integral) or n_lanes < 1:
            raise ValueError(f"n_lanes={self.n_lanes!r} must be an int >= 1.")
        if isinstance(self.sigma, str):
            check_in(self.sigma, "sigma", ["auto"])
        elif not (isinstance(self.sigma, numbers.Real) and np.isfinite(self.sigma) and self.sigma > 0):
            raise ValueError(f"sigma={self.sigma!r} must be 'auto' or a positive float.")
        if isinstance(self.feature_weights, str):
            check_in(self.feature_weights, "feature_weights", ["puet"])
        self._weights_rows(1)
        self._k_values(None)
        return self._lambda_grid(), tol, int(n_lanes)

    def _k_values(self, n):
        """The k values to try; ``n=None`` checks the parameter only."""
        k = self.n_neighbors
        if isinstance(k, str):
            check_in(k, "n_neighbors", ["auto"])
            if n is None:
                return ()
            ks = tuple(v for v in ((5, 10, 15) if n < 10000 else (5,)) if v < n)
            if not ks:
                raise ValueError(f"n_neighbors='auto' needs at least 6 rows; got {n}. Pass a smaller n_neighbors.")
            return ks
        ks = (k,) if isinstance(k, numbers.Integral) and not isinstance(k, bool) else tuple(np.atleast_1d(k))
        for v in ks:
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral) or v < 1:
                raise ValueError(f"n_neighbors must be 'auto', a positive int or a list of them; got {k!r}.")
            if n is not None and v >= n:
                raise ValueError(f"n_neighbors={v} must be smaller than the number of rows ({n}).")
        return tuple(sorted(set(int(v) for v in ks)))

    def _sigma_value(self, n):
        if isinstance(self.sigma, str):
            return 0.75 if n < 10000 else 0.25
        return float(self.sigma)

    def _lambda_grid(self):
        if self.lambdas is None:
            return default_lambdas()
        lam = np.asarray(self.lambdas, dtype=np.float64).reshape(-1)
        if lam.size == 0 or not np.all(np.isfinite(lam)) or np.any(lam < 0) or np.any(np.diff(lam) < 0):
            raise ValueError("lambdas must be a non-empty, sorted array of non-negative finite values.")
        return lam

    def _weights_rows(self, n):
        m = self.weights_max_samples
        if isinstance(m, str):
            check_in(m, "weights_max_samples", ["auto"])
            return n if n <= 20000 else 10000
        if m is None:
            return n
        if isinstance(m, bool) or not isinstance(m, numbers.Integral) or m < 2:
            raise ValueError(f"weights_max_samples must be 'auto', None or an int >= 2; got {m!r}.")
        return int(min(m, n))

    def _weights_arg(self, n, H):
        fw = self.feature_weights
        if fw is None:
            return None
        if isinstance(fw, str):
            return puet_feature_weights(self._weights_rows(n))
        rho = np.asarray(fw, dtype=np.float64).reshape(-1)
        if rho.shape != (H,) or not np.all(np.isfinite(rho)) or np.any(rho < 0):
            raise ValueError(f"feature_weights must be 'puet', None or {H} non-negative finite numbers.")
        return rho

    # ------------------------------------------------------------------ fit / predict
    def fit(self, X: ArrayLike, y: ArrayLike) -> TwoHNC:
        """Fit on PU data: ``X`` (n, H), ``y`` PU labels (1 = labeled positive, 0 = unlabeled). Returns self."""
        lam, tol, n_lanes = self._check_params()
        X, s, _, prior = self._validate_fit(X, y)
        n, H = X.shape
        if isinstance(self.prior, str):  # estimated: the positive share of U -> the positive fraction of all rows
            n_lab = int(np.sum(s == 1))
            prior = (n_lab + prior * (n - n_lab)) / n
        self.model_ = hnc_fit(
            as_key(self.random_state), X, s, prior, n_neighbors=self._k_values(n), sigma=self._sigma_value(n),
            feature_weights=self._weights_arg(n, H), lambdas=lam, ln_size=self.ln_size, k_tolerance=tol,
            standardize=bool(self.standardize), normalize_distance=bool(self.normalize_distance),
            cut_method=self.cut_method, n_lanes=n_lanes, devices=self.devices, verbose=self.verbose)
        return self

    def _check_loaded(self):
        m = self.model_
        n = m.labels.shape[0]
        for name in ("ranking", "likely_negatives"):
            v = getattr(m, name)
            if v.size and (v.min() < 0 or v.max() >= n):
                raise ValueError(f"model_.{name} holds row indices outside [0, {n}).")
        if not (1 <= m.n_neighbors <= n) or m.stage not in (1, 2) or not np.all(np.isin(m.labels, (0, 1))):
            raise ValueError("model_ has an invalid n_neighbors, stage or labels.")

    def fit_predict(self, X, y):
        """Fit and return the transductive labels (one per row of X, in ``classes_``; labeled rows are positive)."""
        return self._to_classes(self.fit(X, y).model_.labels)

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Normalised objective change ``(cost(x in S-bar) - cost(x in S)) / ((1 + lambda) d_x)`` in [-1, 1];
        > 0 means that placing x on the positive side increases the objective less."""
        X = self._validate_predict(X)
        return hnc_decision(self.model_, X)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Inductive labels of unseen points: the side of the selected partition that changes the objective least
        (§1; x connected to its k nearest training points; ties go to the positive side)."""
        return self._to_classes(self.decision_function(X) >= 0)

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """``[1 - p, p]`` with ``p = (1 + decision_function) / 2`` (a score in [0, 1], not calibrated)."""
        p = np.clip((1.0 + self.decision_function(X)) / 2.0, 0.0, 1.0)
        return np.stack([1.0 - p, p], axis=1)

    # ------------------------------------------------------------------ fitted attributes (views of model_)
    transductive_labels_ = _model_attribute("labels", "int64 (n,): label of every training row (labeled: 1).")
    ranking_ = _model_attribute("ranking", "Unlabeled rows, most to least likely negative (SelectNeg).")
    first_sink_index_ = _model_attribute("first_sink", "Stage-1 lambda index at which a row joins the sink set.")
    likely_negatives_ = _model_attribute("likely_negatives", "The rows of LN (SelectNeg) for the selected k.")
    path_fractions_ = _model_attribute("path_fractions", "(2, L) positive fraction of every partition.")
    n_neighbors_ = _model_attribute("n_neighbors", "Selected k.")
    sigma_ = _model_attribute("sigma", "Gaussian width used.")
    stage_ = _model_attribute("stage", "Stage (1 or 2) of the selected partition.")
    lambda_ = _model_attribute("lam", "lambda of the selected partition.")
    positive_fraction_ = _model_attribute("positive_fraction", "|S| / |V| of the selected partition.")
    feature_weights_ = _model_attribute("feature_weights", "rho (H,), sum = number of distinct non-constant features.")
    distance_weights_ = _model_attribute("distance_weights", "Per-feature factors of the squared distance.")
    lambdas_ = _model_attribute("lambdas", "The lambda grid.")
    mean_ = _model_attribute("mean", "Feature means of the standardisation.")
    scale_ = _model_attribute("scale", "Feature scales of the standardisation.")
    X_fit_ = _model_attribute("X_fit", "Weighted standardised training rows.")
    labeled_ = _model_attribute("labeled", "Mask of the labeled rows.")

    @property
    def candidates_(self):
        """The k values tried and the positive fraction of each one's best partition."""
        m = self.model_
        return {"n_neighbors": [int(k) for k in m.candidate_k],
                "positive_fraction": [float(f) for f in m.candidate_fractions]}
