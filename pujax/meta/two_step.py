r"""Two-step PU learning: find reliable negatives in the unlabeled rows, then fit a classifier of the labeled
positives against them, once or iterated (Liu et al. 2002, 2003).

Step one (``negatives``):

* ``"spy"`` (Liu et al. 2002, S-EM step 1): a random ``spy_ratio`` of the labeled positives is moved into the
  unlabeled set; a classifier of the remaining positives against unlabeled + spies gives the threshold ``t``
  below which a ``noise_level`` fraction of the spies score; unlabeled rows scoring below ``t`` are reliable
  negatives.
* ``"rocchio"`` (Liu et al. 2003, Li & Liu 2003): with unit-normalised rows (of ``X`` as the estimator passes it:
  standardised dense features, TF-IDF rows of a sparse matrix as given), the
  prototypes :math:`c^+ = \alpha\,\bar{x}_P - \beta\,\bar{x}_U` and :math:`c^- = \alpha\,\bar{x}_U -
  \beta\,\bar{x}_P` (:math:`\alpha = 16, \beta = 4`); an unlabeled row closer in cosine to :math:`c^-` is a
  reliable negative.
* ``"threshold"``: one classifier of the positives against all unlabeled rows; unlabeled rows scoring below the
  ``noise_level`` quantile of the positives' own scores are reliable negatives.

Step two fits the base model on positives (1) against reliable negatives (0), with ``class_weight="balanced"``
(the default) weighting both classes to equal totals: with few labeled positives and many reliable negatives an
unweighted model predicts almost every row negative. With ``iterate = k > 0`` it is
repeated up to ``k`` more times, each time adding the unlabeled rows the current model classifies negative
(Liu et al. 2003, "iterative SVM"), stopping when none is added; the last model is kept unless it classifies more
than 8% of the labeled positives as negative, in which case the first is kept (the selection rule of Liu et al.
2003, §4).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.linear_model import LogisticRegression

from pujax.base import PUClassifierMixin
from pujax.meta import _sklearn_io  # noqa: F401  (registers the default base models for save/load)
from pujax.meta._common import (
    PositiveProbaMixin,
    base_or_default,
    check_base,
    fit_base,
    positive_proba,
)
from pujax.persistence import register_estimator
from pujax.preprocessing import StandardizedInputMixin, check_standardize
from pujax.random import as_key, host_rng
from pujax.validation import SPARSE_FORMATS, check_float, check_in, check_int, check_pu_labels

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["TwoStepClassifier", "spy_negatives", "rocchio_negatives", "threshold_negatives"]

NEGATIVES = ("spy", "rocchio", "threshold")


def _sub(w, rows):
    return None if w is None else w[rows]


def spy_negatives(base: BaseEstimator, X: ArrayLike, s: ArrayLike, w: ArrayLike, rng: np.random.Generator,
                  spy_ratio: float = 0.15, noise_level: float = 0.15) -> np.ndarray:
    """Indices of the reliable negatives of the spy technique (Liu et al. 2002, §4.1)."""
    s = check_pu_labels(s, n_samples=np.shape(X)[0])
    P, U = np.flatnonzero(s == 1), np.flatnonzero(s == 0)
    if P.size < 2:
        return threshold_negatives(base, X, s, w, noise_level)
    n_spy = int(np.clip(round(spy_ratio * P.size), 1, P.size - 1))
    spies = rng.choice(P, size=n_spy, replace=False)
    y = s.copy()
    y[spies] = 0
    model = fit_base(base, X, y, w)
    t = np.quantile(positive_proba(model, X[spies]), noise_level)
    scores = positive_proba(model, X[U])
    rn = U[scores < t]
    return rn if rn.size else U[[np.argmin(scores)]]


def threshold_negatives(base: BaseEstimator, X: ArrayLike, s: ArrayLike, w: ArrayLike,
                        noise_level: float = 0.15) -> np.ndarray:
    """Unlabeled rows scored below the ``noise_level`` quantile of the labeled positives' scores (P vs U model)."""
    s = check_pu_labels(s, n_samples=np.shape(X)[0])
    P, U = np.flatnonzero(s == 1), np.flatnonzero(s == 0)
    model = fit_base(base, X, s, w)
    t = np.quantile(positive_proba(model, X[P]), noise_level)
    scores = positive_proba(model, X[U])
    rn = U[scores < t]
    return rn if rn.size else U[[np.argmin(scores)]]


def rocchio_negatives(X: ArrayLike, s: ArrayLike, alpha: float = 16.0, beta: float = 4.0) -> np.ndarray:
    """Unlabeled rows closer (cosine) to the negative Rocchio prototype than to the positive one (Liu et al. 2003).

    Rows of ``X`` (dense, or scipy sparse: the prototypes are dense, the rows stay sparse) are unit-normalised in
    float64; pass the features the cosine should compare (:class:`TwoStepClassifier` passes them standardised when
    dense, as given when sparse)."""
    from sklearn.preprocessing import normalize

    s = check_pu_labels(s, n_samples=X.shape[0])
    Z = normalize(X.astype(np.float64) if sp.issparse(X) else np.asarray(X, np.float64))
    mp, mu = (np.asarray(Z[s == k].mean(0), np.float64).ravel() for k in (1, 0))
    c_pos, c_neg = alpha * mp - beta * mu, alpha * mu - beta * mp
    U = np.flatnonzero(s == 0)
    cos_pos = Z[U] @ c_pos / max(np.linalg.norm(c_pos), 1e-12)
    cos_neg = Z[U] @ c_neg / max(np.linalg.norm(c_neg), 1e-12)
    rn = U[cos_neg > cos_pos]
    return rn if rn.size else U[[np.argmax(cos_neg - cos_pos)]]


@register_estimator
class TwoStepClassifier(PositiveProbaMixin, StandardizedInputMixin, PUClassifierMixin, BaseEstimator):
    """Two-step PU classifier: reliable negatives from the unlabeled rows, then positives vs reliable negatives.

    Parameters
    ----------
    estimator : classifier with ``predict_proba``, default=None
        Base model of both steps; ``None`` is scikit-learn's ``LogisticRegression(max_iter=1000)``, and for a scipy
        sparse ``X`` (text) ``LogisticRegression(class_weight="balanced", max_iter=1000)``: on TF-IDF rows a
        regularised logistic model of the few labeled positives against the many reliable negatives would put every
        document below probability 0.5 (Liu et al.'s second steps -- EM over all of U, an SVM -- are not held to
        that threshold).
    negatives : {"rocchio", "spy", "threshold"}, default="rocchio"
        How step one finds reliable negatives (module docstring). "spy" sets its threshold on ``spy_ratio`` x the
        labeled positives (one or two spies with ten labeled rows); "rocchio" needs no spies.
    iterate : int, default=0
        Extra rounds of step two (0: fit once); each round adds the unlabeled rows classified negative.
    spy_ratio : float in (0, 1), default=0.15
        Fraction of the labeled positives used as spies (``negatives="spy"``).
    noise_level : float in [0, 1), default=0.15
        Fraction of spies (or of labeled positives, ``"threshold"``) allowed below the threshold.
    class_weight : "balanced", dict or None, default="balanced"
        Step two's class weights: "balanced" gives the positives and the reliable negatives equal total weight; a
        dict maps the labels of ``y`` (``classes_``) to weights; None fits them unweighted. Weights multiply
        ``sample_weight``; the base model must take ``sample_weight``.
    random_state : None, int, numpy RandomState / Generator or JAX key, default=None
        Seed of the choice of spies (:func:`pujax.random.as_key`).
    standardize : "auto", bool, default="auto"
        How ``X`` reaches both steps (:class:`~pujax.preprocessing.StandardizedInputMixin`): ``"auto"`` centres
        and scales dense ``X`` and passes a scipy sparse ``X`` (CSR / CSC) as given, still sparse (TF-IDF rows keep
        the weights Rocchio's cosine and a linear text model expect); ``True`` also scales a sparse ``X``, without
        centring; ``False`` passes every ``X`` as given.
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
        The step-two model kept (first or last, by the selection rule).
    reliable_negatives_ : ndarray of int
        Training-row indices of the reliable negatives of the last round.
    n_iter_ : int
        Rounds of step two run.
    classes_, n_features_in_, feature_names_in_ : as in scikit-learn.

    References
    ----------
    B. Liu, W. S. Lee, P. S. Yu, X. Li, "Partially supervised classification of text documents", ICML 2002 (spy
    technique, §4.1). B. Liu, Y. Dai, X. Li, W. S. Lee, P. S. Yu, "Building text classifiers using positive and
    unlabeled examples", ICDM 2003 (Rocchio step one, iterated SVM, selection of the final classifier).

    Examples
    --------
    >>> import numpy as np
    >>> from pujax.meta import TwoStepClassifier
    >>> r = np.random.default_rng(0)
    >>> y = r.random(600) < 0.5
    >>> X = r.normal(size=(600, 2)) + 3.0 * y[:, None]
    >>> s = y & (r.random(600) < 0.3)
    >>> clf = TwoStepClassifier(random_state=0).fit(X, s)
    >>> bool(clf.score(X, y) > 0.9), bool(np.mean(y[clf.reliable_negatives_] == 0) > 0.95)
    (True, True)
    """

    _needs_prior = False
    _accept_sparse = SPARSE_FORMATS
    _fitted_schema = {"estimator_": "estimator", "reliable_negatives_": "i[*]", "n_iter_": "int"}

    def __init__(self, estimator=None, *, negatives="rocchio", iterate=0, spy_ratio=0.15, noise_level=0.15,
                 class_weight="balanced", random_state=None, standardize="auto", pos_label=None):
        self.estimator = estimator
        self.negatives = negatives
        self.iterate = iterate
        self.spy_ratio = spy_ratio
        self.noise_level = noise_level
        self.class_weight = class_weight
        self.random_state = random_state
        self.standardize = standardize
        self.pos_label = pos_label

    def _check_params(self):
        check_in(self.negatives, "negatives", NEGATIVES)
        check_int(self.iterate, "iterate", 0)
        check_float(self.spy_ratio, "spy_ratio", 0.0, 1.0)
        check_float(self.noise_level, "noise_level", 0.0, 1.0, closed="left")
        if not isinstance(self.class_weight, dict):
            check_in(self.class_weight, "class_weight", ("balanced", None))
        check_base(self.estimator)
        check_standardize(self.standardize)

    def _step_one(self, base, X, s, w):
        if self.negatives == "spy":
            rng = host_rng(as_key(self.random_state))
            return spy_negatives(base, X, s, w, rng, self.spy_ratio, self.noise_level)
        if self.negatives == "rocchio":
            return rocchio_negatives(X, s)
        return threshold_negatives(base, X, s, w, self.noise_level)

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> TwoStepClassifier:
        """Find reliable negatives, then fit positives vs reliable negatives (``iterate`` more rounds).

        Parameters
        ----------
        X : array-like or scipy sparse matrix of shape (n_samples, n_features)
            Dense, or sparse CSR / CSC (other formats are converted to CSR); a sparse ``X`` is never densified.
        y : array-like of shape (n_samples,)
            PU labels ``s`` (1 / ``True``, or ``pos_label``, marks labeled positives).
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights passed to the base model in every fit.

        Returns
        -------
        self
        """
        self._check_params()
        X, s, w, _ = self._validate_fit(X, y, sample_weight)
        base = self.estimator
        if base is None:  # text: a sparse X is read as given, and the classes of both steps are balanced
            base = (LogisticRegression(class_weight="balanced", max_iter=1000) if sp.issparse(X)
                    else base_or_default(None))
        P, U = np.flatnonzero(s == 1), np.flatnonzero(s == 0)
        rn = np.sort(self._step_one(base, X, s, w))
        first = model = self._step_two(base, X, P, rn, w)
        n_iter = 1
        for _ in range(self.iterate):
            rest = np.setdiff1d(U, rn)
            new = rest[positive_proba(model, X[rest]) < 0.5] if rest.size else rest
            if new.size == 0:
                break
            rn = np.union1d(rn, new)
            model = self._step_two(base, X, P, rn, w)
            n_iter += 1
        if n_iter > 1 and np.mean(positive_proba(model, X[P]) < 0.5) > 0.08:
            model = first
        self.estimator_, self.reliable_negatives_, self.n_iter_ = model, rn.astype(np.int64), n_iter
        return self

    def _step_two(self, base, X, P, rn, w):
        rows = np.concatenate([P, rn])
        y = np.concatenate([np.ones(P.size, np.int32), np.zeros(rn.size, np.int32)])
        w = _sub(w, rows)
        if self.class_weight is not None:
            w = np.ones(rows.size) if w is None else np.asarray(w, np.float64)
            if isinstance(self.class_weight, dict):  # keyed by the labels of y: classes_ = [unlabeled, labeled]
                per_class = np.array([float(self.class_weight.get(c, 1.0)) for c in self.classes_.tolist()])
            else:  # "balanced"
                totals = np.array([np.sum(w[y == 0]), np.sum(w[y == 1])])
                per_class = totals.sum() / (2.0 * totals)
            w = w * per_class[y]
        return fit_base(base, X[rows], y, w, hint="pass class_weight=None")

