r"""Labels Selected At Random (SAR): SAR-EM (Bekker, Robberechts & Davis 2019), propensity weights and a SCAR check.

SAR-EM fits a classifier :math:`f(x) \approx p(y=1 \mid x)` and a propensity model
:math:`e(x) \approx p(s=1 \mid y=1, x)` (on the propensity features) by maximising the likelihood
:math:`\sum_{s_i=1} \log f(x_i) e(x_i) + \sum_{s_i=0} \log(1 - f(x_i) e(x_i))` with EM:

* E step: :math:`p_i = 1` for labeled rows, :math:`p_i = \frac{f(1-e)}{f(1-e) + 1 - f}` for unlabeled rows;
* M step: :math:`f` on every row as a positive with weight :math:`p_i` and a negative with weight
  :math:`1 - p_i`; :math:`e` on the expected positives: labeled rows (class 1) against unlabeled rows (class 0)
  with weight :math:`p_i`.

EM starts from the SCAR solution of Elkan & Noto. With propensities, a learner that takes row weights is fitted
SAR-aware with ``sample_weight = inverse_propensity_weights(e, s)`` (labeled rows weighted :math:`1/e(x)`).
:func:`scar_check` compares SAR-EM with EM under a constant propensity (likelihood-ratio statistic, :math:`\chi^2`
with one degree of freedom per propensity feature) and warns when SCAR is implausible.
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from scipy.stats import chi2
from sklearn.base import BaseEstimator

from pujax.base import DegenerateFitWarning, PUClassifierMixin
from pujax.meta import _sklearn_io  # noqa: F401  (registers the default base models for save/load)
from pujax.meta._common import (
    PositiveProbaMixin,
    base_or_default,
    check_base,
    default_logistic,
    fit_base,
    positive_proba,
    stack_rows,
)
from pujax.meta.elkan_noto import elkan_noto_weights, estimate_label_frequency
from pujax.persistence import register_estimator
from pujax.preprocessing import StandardizedInputMixin, check_standardize, standardization, standardize
from pujax.validation import SPARSE_FORMATS, check_float, check_int, check_pu_labels, check_X

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = ["SAREMClassifier", "sar_em", "inverse_propensity_weights", "scar_check", "SCARCheck", "SCARWarning"]

_EPS = 1e-6


class SCARWarning(UserWarning):
    """The labeled positives do not look selected completely at random."""


def _features(X, propensity_features):
    if propensity_features is None:
        return X
    return X[:, np.asarray(propensity_features, dtype=np.intp)]


def _fit_f(base, X, p, w):
    """M step for f: every row as a positive (weight p) and a negative (weight 1 - p)."""
    n = X.shape[0]
    y2 = np.r_[np.ones(n, np.int32), np.zeros(n, np.int32)]
    w2 = np.r_[w * p, w * (1.0 - p)]
    keep = w2 > 0
    return fit_base(base, stack_rows([X, X])[keep], y2[keep], w2[keep])


def _fit_e(base, Xe, s, p, w):
    """M step for e: labeled rows (class 1, weight 1) against unlabeled rows (class 0, weight p); ``None`` for a
    constant propensity (``Xe`` with no column): its closed form is returned as a float."""
    lab = s == 1
    if Xe.shape[1] == 0:
        return float(np.sum(w[lab]) / max(np.sum(w * p), 1e-300))
    keep = lab | (p > 0)
    y = lab[keep].astype(np.int32)
    return fit_base(base, Xe[keep], y, (w * np.where(lab, 1.0, p))[keep], name="propensity_estimator")


def _propensity(e_model, Xe):
    if isinstance(e_model, float):
        return np.full(Xe.shape[0], min(max(e_model, _EPS), 1.0))
    return np.clip(positive_proba(e_model, Xe), _EPS, 1.0)


def _log_likelihood(f, e, s, w):
    fe = np.clip(f * e, _EPS, 1.0 - _EPS)
    return float(np.sum(w * np.where(s == 1, np.log(fe), np.log1p(-fe))))


def sar_em(X: ArrayLike, s: ArrayLike, *, propensity_features: Sequence[int] | None = None,
           estimator: BaseEstimator | None = None, propensity_estimator: BaseEstimator | None = None,
           max_iter: int = 100, tol: float = 1e-5,
           sample_weight: ArrayLike | None = None) -> tuple[Any, Any, int, float]:
    """SAR-EM on validated data. ``propensity_features=[]`` fits a constant propensity (SCAR EM).

    Returns ``(f_model, e_model, n_iter, log_likelihood)``; ``e_model`` is a fitted classifier on
    ``X[:, propensity_features]`` or, for a constant propensity, a float.
    """
    s = check_pu_labels(s, n_samples=X.shape[0])
    w = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, np.float64)
    f_base, e_base = base_or_default(estimator), base_or_default(propensity_estimator)
    Xe = _features(X, propensity_features)
    g = positive_proba(fit_base(default_logistic(), X, s, w), X)
    p = np.where(s == 1, 1.0, elkan_noto_weights(g, estimate_label_frequency(g, s, "e1", w)))
    ll_old, n_iter = -np.inf, 0
    for it in range(1, max_iter + 1):
        n_iter = it
        f_model, e_model = _fit_f(f_base, X, p, w), _fit_e(e_base, Xe, s, p, w)
        f, e = positive_proba(f_model, X), _propensity(e_model, Xe)
        ll = _log_likelihood(f, e, s, w)
        num = f * (1.0 - e)
        p = np.where(s == 1, 1.0, num / np.maximum(num + 1.0 - f, _EPS))
        if abs(ll - ll_old) <= tol * max(1.0, abs(ll)):
            break
        ll_old = ll
    return f_model, e_model, n_iter, ll


def inverse_propensity_weights(propensity: ArrayLike, s: ArrayLike, min_propensity: float = 0.05) -> np.ndarray:
    """``sample_weight`` for SAR-aware fitting: ``1 / max(e(x), min_propensity)`` on labeled rows, 1 elsewhere."""
    s = check_pu_labels(s, require_both=False)
    e = np.asarray(propensity, np.float64).reshape(-1)
    if e.shape != s.shape or not np.all(np.isfinite(e)) or np.any((e < 0) | (e > 1)):
        raise ValueError("propensity must hold one value in [0, 1] per row of s.")
    check_float(min_propensity, "min_propensity", 0.0, 1.0, closed="right")
    return np.where(s == 1, 1.0 / np.maximum(e, min_propensity), 1.0)


class SCARCheck(NamedTuple):
    """Result of :func:`scar_check`: likelihood-ratio ``statistic``, its ``p_value`` and ``scar_plausible``."""

    statistic: float
    p_value: float
    scar_plausible: bool


def scar_check(X: ArrayLike, s: ArrayLike, *, propensity_features: Sequence[int] | None = None, alpha: float = 0.01,
               max_iter: int = 100, warn: bool = True) -> SCARCheck:
    """Test SCAR against SAR: do the labeled positives look unlike the positive part of the unlabeled rows?

    Fits SAR-EM with a logistic propensity on ``propensity_features`` (default: every column) and EM with a
    constant propensity; ``2 (ll_SAR - ll_SCAR)`` is compared with a chi-squared law with one degree of freedom
    per propensity feature. Warns (:class:`SCARWarning`) when the p-value is below ``alpha``. ``X`` is
    standardised (a scipy sparse ``X`` scaled without centring, still sparse).

    References: J. Bekker, P. Robberechts, J. Davis, "Beyond the selected completely at random assumption for
    learning from positive and unlabeled data", ECML-PKDD 2019.
    """
    X = check_X(X, dtype=np.float64, accept_sparse=SPARSE_FORMATS)
    s = check_pu_labels(s, n_samples=X.shape[0])
    alpha = check_float(alpha, "alpha", 0.0, 1.0)
    max_iter = check_int(max_iter, "max_iter", 1)
    X = standardize(X, *standardization(X), dtype=np.float64)  # sparse X: scaled, not centred
    *_, ll_sar = sar_em(X, s, propensity_features=propensity_features, max_iter=max_iter)
    *_, ll_scar = sar_em(X, s, propensity_features=[], max_iter=max_iter)
    k = X.shape[1] if propensity_features is None else len(np.atleast_1d(propensity_features))
    stat = max(0.0, 2.0 * (ll_sar - ll_scar))
    p_value = float(chi2.sf(stat, df=max(k, 1)))
    plausible = p_value >= alpha
    if warn and not plausible:
        warnings.warn(f"The labeled positives look unlike the positive part of the unlabeled rows (likelihood "
                      f"ratio {stat:.1f}, p = {p_value:.2g}): SCAR is implausible. Fit with propensity weights "
                      f"(pujax.meta.SAREMClassifier, inverse_propensity_weights).", SCARWarning, stacklevel=2)
    return SCARCheck(float(stat), p_value, bool(plausible))


@register_estimator
class SAREMClassifier(PositiveProbaMixin, StandardizedInputMixin, PUClassifierMixin, BaseEstimator):
    """Classifier and propensity model of SAR PU data fitted jointly by EM (Bekker, Robberechts & Davis 2019).

    Parameters
    ----------
    estimator : classifier with ``predict_proba`` taking ``sample_weight``, default=None
        Model of ``p(y=1 | x)``; ``None`` is ``LogisticRegression(max_iter=1000)``.
    propensity_estimator : classifier with ``predict_proba`` taking ``sample_weight``, default=None
        Model of the propensity ``e(x) = p(s=1 | y=1, x)`` on the propensity features; ``None`` as above.
    propensity_features : sequence of int or None, default=None
        Columns the propensity depends on (``None``: all; ``[]``: a constant propensity, i.e. SCAR). With all
        columns SAR-EM is not identifiable and ``fit`` warns (:class:`~pujax.base.DegenerateFitWarning`): pass the
        columns that drive the labeling.
    max_iter : int, default=100
        EM iterations at most.
    tol : float, default=1e-5
        Stop when the log-likelihood changes by less than ``tol`` times its magnitude.
    standardize : "auto", bool, default="auto"
        How ``X`` reaches the models (:class:`~pujax.preprocessing.StandardizedInputMixin`): ``"auto"`` centres
        and scales dense ``X`` and passes a scipy sparse ``X`` (CSR / CSC) as given, still sparse; ``True`` also
        scales a sparse ``X``, without centring; ``False`` passes every ``X`` as given.
    pos_label : int, float, bool, str or None, default=None
        The value of ``y`` that marks the labeled positives (e.g. ``1`` for labels 1 = labeled / 2 = unlabeled, or
        ``"positive"``); ``None`` reads ``y`` as bool, {0, 1} or {-1, 1} with ``True`` / 1 labeled and refuses other
        values (:func:`pujax.validation.read_pu_labels`). ``classes_`` is ``[unlabeled value, labeled value]``.

    Attributes
    ----------
    mean_, scale_ : ndarray of shape (n_features_in_,) or None
        The per-feature standardisation ``z = (x - mean_) / scale_`` (float64, weighted by ``sample_weight``;
        :mod:`pujax.preprocessing`) applied to ``X`` in ``fit`` and in every method that reads ``X``: the models
        are fitted on ``z`` (float32 values), so predictions on dense ``X`` do not depend on the units or offsets
        of the features even for a base model that depends on them (a regularised ``LogisticRegression``,
        scikit-learn's float32 trees). None when ``X`` is passed as given (sparse ``X`` with
        ``standardize="auto"``, or ``standardize=False``).
    estimator_ : classifier
        ``f``, the model of ``p(y=1 | x)`` (``predict_proba``).
    propensity_estimator_ : classifier or float
        The propensity model (a float for a constant propensity).
    n_iter_ : int
    log_likelihood_ : float
    classes_, n_features_in_, feature_names_in_ : as in scikit-learn.

    References
    ----------
    J. Bekker, P. Robberechts, J. Davis, "Beyond the selected completely at random assumption for learning from
    positive and unlabeled data", ECML-PKDD 2019, §4 (SAR-EM).

    Examples
    --------
    >>> import numpy as np
    >>> from pujax.data import make_sar
    >>> from pujax.meta import SAREMClassifier
    >>> r = np.random.default_rng(0)
    >>> X = r.normal(size=(2000, 3))
    >>> y = (r.random(2000) < 1 / (1 + np.exp(-3 * X[:, 0]))).astype(int)
    >>> data = make_sar(0, X, y, propensity_features=[1, 2], coef=[1.5, -1.0])
    >>> clf = SAREMClassifier(propensity_features=[1, 2]).fit(data.X, data.s)
    >>> e = clf.propensity(data.X)
    >>> bool(np.corrcoef(e[y == 1], data.propensity[y == 1])[0, 1] > 0.9)
    True
    """

    _needs_prior = False
    _accept_sparse = SPARSE_FORMATS
    _fitted_schema = {"estimator_": "estimator", "propensity_estimator_": "estimator|float", "n_iter_": "int",
                      "log_likelihood_": "float"}
    _expected_failed_checks = {
        "check_sample_weight_equivalence_on_dense_data":
            "EM stops on a relative log-likelihood change, which repeated rows and weights reach after different "
            "numbers of iterations",
    }

    def __init__(self, estimator=None, *, propensity_estimator=None, propensity_features=None, max_iter=100,
                 tol=1e-5, standardize="auto", pos_label=None):
        self.estimator = estimator
        self.propensity_estimator = propensity_estimator
        self.propensity_features = propensity_features
        self.max_iter = max_iter
        self.tol = tol
        self.standardize = standardize
        self.pos_label = pos_label

    def _check_params(self):
        check_int(self.max_iter, "max_iter", 1)
        check_float(self.tol, "tol", 0.0, None, closed="left")
        check_standardize(self.standardize)
        for name in ("estimator", "propensity_estimator"):
            check_base(getattr(self, name), name)
        if self.propensity_features is not None:
            feats = np.asarray(self.propensity_features)
            if feats.ndim != 1 or (feats.size and feats.dtype.kind not in "iu"):
                raise ValueError(f"propensity_features={self.propensity_features!r} must be a list of column "
                                 f"indices (or None for every column).")

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> SAREMClassifier:
        """Fit ``f`` and ``e`` by EM on PU labels ``y`` (1 / ``True``, or ``pos_label``, marks labeled positives).

        Parameters
        ----------
        X : array-like or scipy sparse matrix of shape (n_samples, n_features)
            Dense, or sparse CSR / CSC (other formats are converted to CSR); a sparse ``X`` is never densified.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        self._check_params()
        X, s, w, _ = self._validate_fit(X, y, sample_weight)
        feats = self.propensity_features
        if feats is not None and len(feats) and (min(feats) < 0 or max(feats) >= X.shape[1]):
            raise ValueError(f"propensity_features={feats!r} are not column indices of X (0 .. {X.shape[1] - 1}).")
        if feats is None:
            warnings.warn(
                "SAREMClassifier: with propensity_features=None the propensity e(x) depends on every feature, where "
                "SAR-EM is not identifiable (Bekker et al. 2019): a classifier f that calls fewer rows positive, "
                "with a larger propensity, explains the labels as well, and the fit often predicts far too few "
                "positives. Pass propensity_features, the columns that drive the labeling ([] for a constant "
                "propensity, the SCAR case).", DegenerateFitWarning, stacklevel=2)
        f, e, self.n_iter_, self.log_likelihood_ = sar_em(
            X, s, propensity_features=feats, estimator=self.estimator,
            propensity_estimator=self.propensity_estimator, max_iter=self.max_iter, tol=float(self.tol),
            sample_weight=w)
        self.estimator_, self.propensity_estimator_ = f, e
        return self

    def propensity(self, X) -> np.ndarray:
        """Estimated propensity ``e(x) = p(s=1 | y=1, x)`` of every row of ``X``."""
        X = self._validate_predict(X)
        return _propensity(self.propensity_estimator_, _features(X, self.propensity_features))
