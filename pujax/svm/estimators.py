"""scikit-learn estimators of the SVM ensembles (Claesen et al. 2015; DESIGN §3.5) on the functional core
:mod:`pujax.svm.core`.

Scenario: case-control PU data -- ``fit(X, y)`` with ``y = 1`` for labeled positives (the set P) and ``y = 0`` for
unlabeled rows (the set U), the unlabeled set treated as a noisy negative class. The semi-supervised setting of the
paper (false positives inside P) needs no change: RESVM resamples P for robustness against them.

* :class:`CWSVMClassifier` -- one class-weighted SVM, P versus U (eq. 1).
* :class:`BaggingSVMClassifier` -- Mordelet & Vert: all of P against a bootstrap resample of U per base model (eq. 2).
* :class:`RESVMClassifier` -- P and U both resampled (Algorithm 1, eq. 3); eqs. 4-6 aggregate the base models.

The estimators validate, call :func:`~pujax.svm.core.svm_fit` and keep the fitted :class:`~pujax.svm.core.SVMModel`
in ``model_``. Kernels see standardized features (statistics of the training rows, stored in the model), so
predictions do not depend on the units or offsets of dense ``X``; a scipy sparse ``X`` (text) is read as given by
default (``standardize="auto"``), its kernels computed from sparse row products.
"""
from __future__ import annotations

import numbers
import warnings
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning

from pujax.base import PUClassifierMixin, resolve_prior
from pujax.persistence import register_estimator
from pujax.preprocessing import check_standardize
from pujax.progress import progress
from pujax.random import as_key
from pujax.svm.core import cwsvm_fit_bags, svm_base_decision, svm_decision, svm_fit, svm_proba, svm_proba_bags
from pujax.svm.kernels import KERNELS, resolve_gamma
from pujax.svm.problems import EnsembleSpec, bagging_svm_spec, cwsvm_spec, resample_size, resvm_spec
from pujax.validation import (
    SPARSE_FORMATS,
    check_float,
    check_in,
    check_int,
    check_prior,
    validate_fit_data,
    validate_predict_data,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["CWSVMClassifier", "BaggingSVMClassifier", "RESVMClassifier"]

_DEPRECATED = "deprecated"


def _renamed(est, old: str, new: str):
    """The value of ``new``, or of the deprecated ``old`` (with a ``FutureWarning``) when the user set it."""
    value = getattr(est, old)
    if isinstance(value, str) and value == _DEPRECATED:
        return getattr(est, new)
    warnings.warn(f"{type(est).__name__}({old}=...) is deprecated and will be removed in the next release; use "
                  f"{new}=... instead.", FutureWarning, stacklevel=3)
    return value


class _BaseSVM(PUClassifierMixin, BaseEstimator):
    """Shared fit / predict of the SVM estimators: subclasses define :meth:`ensemble_spec`."""

    _needs_prior = False
    _vote = True
    _accept_sparse = SPARSE_FORMATS
    _fitted_schema = {"model_": "model:SVMModel", "C_pos_": "float", "C_unl_": "float", "n_pos_": "int?",
                      "n_unl_": "int?", "gamma_": "float"}

    # -- parameters ---------------------------------------------------------------------------------------------
    def _check_common(self):
        check_in(self.kernel, "kernel", KERNELS)
        check_int(self.degree, "degree")
        check_float(self.coef0, "coef0")
        check_float(self.tol, "tol", 0.0, None)
        check_int(self.max_iter, "max_iter")
        if not (isinstance(self.gamma, str) or isinstance(self.gamma, numbers.Real)) or isinstance(self.gamma, bool):
            raise TypeError(f'gamma must be "scale", "auto" or a positive float; got {self.gamma!r}.')
        resolve_gamma(self.gamma, np.ones((2, 1)))
        check_standardize(self.standardize)
        prior = getattr(self, "prior", None)
        if prior is not None:
            check_prior(prior)

    def ensemble_spec(self, n_P: int, n_U: int) -> EnsembleSpec:
        """The base-model problems (sizes and box bounds) for ``n_P`` labeled and ``n_U`` unlabeled rows."""
        raise NotImplementedError

    def _standardize_for(self, X) -> bool:
        """Whether the kernels see ``X`` standardised: ``standardize="auto"`` for dense ``X`` only."""
        return self.standardize is True or (self.standardize == "auto" and not sp.issparse(X))

    def _svm_kwargs(self) -> dict:
        return dict(kernel=self.kernel, gamma=self.gamma, coef0=float(self.coef0), degree=int(self.degree),
                    tol=float(self.tol), max_iter=int(self.max_iter))

    # -- fit ------------------------------------------------------------------------------------------------------
    def fit(self, X: ArrayLike, y: ArrayLike) -> _BaseSVM:
        """Fit all base models on PU data ``X`` with PU labels ``y`` (1 / ``True``, or ``pos_label``, marks labeled
        positives).

        Returns
        -------
        self
        """
        X, s, _ = validate_fit_data(self, X, y, dtype=None, accept_sparse=SPARSE_FORMATS)
        self._check_common()
        self._check_params()
        spec = self.ensemble_spec(int(np.sum(s == 1)), int(np.sum(s == 0)))
        prior = getattr(self, "prior", None)
        if prior is not None:
            prior = resolve_prior(prior, X, s, getattr(self, "random_state", None))
        key = as_key(getattr(self, "random_state", None))
        with progress(1, type(self).__name__, getattr(self, "verbose", False)) as bar:
            model = svm_fit(key, X, s, spec, prior=prior, vote=self._vote, devices=getattr(self, "devices", None),
                            standardize=self._standardize_for(X), **self._svm_kwargs())
            bar.update()
        if prior is not None:
            self.prior_ = float(prior)
        return self._set_model(model, spec, int(np.sum(s == 1)), int(np.sum(s == 0)))

    def _set_model(self, model, spec: EnsembleSpec, n_P: int, n_U: int):
        """Store a fitted model and its sizes; warn when base models stopped short of the KKT tolerance."""
        self.model_ = model
        self.C_pos_, self.C_unl_ = float(spec.C_pos), float(spec.C_unl)
        self.n_pos_ = int(spec.n_pos) if spec.n_pos is not None else n_P
        self.n_unl_ = int(spec.n_unl) if spec.n_unl is not None else n_U
        self.gamma_ = float(model.gamma)
        bad = model.kkt_gap > self.tol
        if np.any(bad):
            warnings.warn(
                f"{int(np.sum(bad))} of {bad.size} SVM base model(s) did not reach the KKT tolerance tol={self.tol} "
                f"within max_iter={self.max_iter} steps (max gap {float(np.max(model.kkt_gap)):.3g}); increase "
                f"max_iter or tol.", ConvergenceWarning, stacklevel=3)
        return self

    def _check_loaded(self):
        m = self.model_
        if not 0 <= int(m.kernel) < len(KERNELS) or not np.isfinite(float(m.threshold)):
            raise ValueError("model_.kernel or model_.threshold is out of range")
        if not (np.all(np.isfinite(m.x_scale)) and np.all(m.x_scale > 0)):
            raise ValueError("model_.x_scale must be positive and finite")

    # -- predict --------------------------------------------------------------------------------------------------
    def _model_and_X(self, X):
        X = validate_predict_data(self, X, dtype=None, attributes="model_", accept_sparse=SPARSE_FORMATS)
        return self.model_, X

    def base_decision_function(self, X):
        """Decision values ``psi_k(x)`` of every base model, shape (n_samples, n_estimators)."""
        return svm_base_decision(*self._model_and_X(X))

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Eq. 5 score minus the threshold T of eq. 6 (ensembles) or the SVM decision value (CWSVM); ``> 0`` where
        ``predict`` returns the positive class."""
        return svm_decision(*self._model_and_X(X))

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Columns (P(y=0), P(y=1)): a monotone score in [0, 1] ordered like ``decision_function``, 0.5 where it is
        0 (ensembles: close to the vote fraction of eq. 4; CWSVM: logistic of the decision value)."""
        p = svm_proba(*self._model_and_X(X))
        return np.stack([1.0 - p, p], axis=1)

    # -- fitted model in scikit-learn's terms ----------------------------------------------------------------------
    @property
    def support_vectors_(self):
        """Support vectors of all base models, in the units of the training ``X`` (a CSR matrix when fitted on
        sparse ``X``)."""
        sv = self.model_.support_vectors
        if sp.issparse(sv):  # fitted on sparse rows: never centred
            return sp.csr_matrix(sv.multiply(self.model_.x_scale[None, :]))
        return sv * self.model_.x_scale + self.model_.x_mean

    @property
    def dual_coef_(self):
        """(n_estimators, n_SV): ``alpha_ki y_ki`` of base model k on support vector i."""
        return self.model_.dual_coef

    @property
    def intercept_(self):
        """(n_estimators,) biases of the base models."""
        return self.model_.intercept

    @property
    def n_support_(self):
        """(n_estimators,) number of support vectors of every base model."""
        return np.sum(self.model_.dual_coef != 0, axis=1)

    @property
    def n_iter_(self):
        """(n_estimators,) SMO steps of every base model."""
        return self.model_.n_iter

    @property
    def kkt_gap_(self):
        """(n_estimators,) final maximal KKT violation of every base model."""
        return self.model_.kkt_gap

    @property
    def threshold_(self):
        """Threshold T of eq. 6 on the eq. 5 scale (0.5: majority vote)."""
        return float(self.model_.threshold)


@register_estimator
class CWSVMClassifier(_BaseSVM):
    """Class-weighted SVM for PU learning (Liu et al. 2003; Claesen et al. 2015 §2.1, eq. 1).

    One soft-margin SVM separating the labeled positives (penalty ``C_pos``) from the unlabeled rows treated as
    negatives (penalty ``C_unl``); typically ``C_pos > C_unl``. ``decision_function`` is the SVM decision value
    minus the threshold ``threshold_``, set by the class prior: the SVM's decision values rank rows but, with few
    labeled positives among many unlabeled rows, put almost every row below 0.

    Parameters
    ----------
    C_pos : float or "balanced", default="balanced"
        Penalty of labeled rows; "balanced" is ``C_unl * n_unlabeled / n_labeled`` (both classes the same total
        penalty).
    C_unl : float, default=1.0
        Penalty of unlabeled rows.
    prior : float in (0, 1), "auto" or None, default="auto"
        Class prior of the unlabeled rows: the threshold is the decision value above which a share ``prior_`` of
        the unlabeled training rows lies (``"auto"``: estimated by :func:`pujax.prior.estimate_prior`); None
        keeps 0 (the SVM's own sign). Unused by :meth:`fit_bags`, whose bags
        :class:`~pujax.meta.PUBaggingClassifier` thresholds.
    kernel : {"rbf", "linear", "poly"}, default="rbf"
        Kernel of the base SVMs, computed on standardized features.
    gamma : "scale", "auto" or float > 0, default="scale"
        Kernel width (rbf, poly); "scale" is ``1 / (n_features X.var())`` on the standardized features.
    degree : int, default=3
        Degree of the polynomial kernel.
    coef0 : float, default=0.0
        Constant of the polynomial kernel.
    tol : float, default=1e-3
        KKT tolerance of the SMO solver (LIBSVM's default).
    max_iter : int, default=100000
        Cap on the SMO steps of every base model.
    random_state : None, int, numpy random state or JAX key, default=None
        Seeds the prior estimate of ``prior="auto"`` (the SVM itself is deterministic).
    devices : None, int, list of jax.Device or jax.sharding.Mesh, default=None
        Where the base models are solved (split over the devices); see :mod:`pujax.devices`.
    standardize : "auto", bool, default="auto"
        Features of the kernels: ``"auto"`` standardises dense ``X`` per feature and reads a scipy sparse ``X``
        (CSR / CSC) as given (kernels of TF-IDF rows from sparse products, support vectors kept sparse); ``True``
        also scales a sparse ``X``, without centring; ``False`` reads every ``X`` as given.
    pos_label : int, float, bool, str or None, default=None
        The value of ``y`` that marks the labeled positives (e.g. ``1`` for labels 1 = labeled / 2 = unlabeled, or
        ``"positive"``); ``None`` reads ``y`` as bool, {0, 1} or {-1, 1} with ``True`` / 1 labeled and refuses other
        values (:func:`pujax.validation.read_pu_labels`). ``classes_`` is ``[unlabeled value, labeled value]``.

    Attributes
    ----------
    model_ : SVMModel
        The fitted model (:class:`pujax.svm.core.SVMModel`).
    support_vectors_, dual_coef_, intercept_, n_support_, n_iter_, kkt_gap_ : arrays
        Views of ``model_`` (support vectors in the units of ``X``).
    C_pos_, C_unl_ : float
        Box bounds of labeled and unlabeled rows.
    gamma_ : float
        Resolved kernel width.
    prior_ : float
        The prior used (not set with ``prior=None``).
    classes_, n_features_in_ : as in scikit-learn.

    References
    ----------
    Claesen, De Smet, Suykens, De Moor. A robust ensemble approach to learn from positive and unlabeled data using
    SVM base models. Neurocomputing 160, 2015 (eq. 1).

    Examples
    --------
    >>> import numpy as np
    >>> from pujax.svm import CWSVMClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(2, 1, (40, 2)), rng.normal(0, 1, (80, 2))]
    >>> s = np.r_[np.ones(20, int), np.zeros(100, int)]
    >>> CWSVMClassifier(prior=0.4).fit(X, s).predict(X[:3])
    array([1, 1, 1])
    """

    _vote = False

    def __init__(self, C_pos="balanced", *, C_unl=1.0, prior="auto", kernel="rbf", gamma="scale", degree=3, coef0=0.0,
                 tol=1e-3, max_iter=100_000, random_state=None, devices=None, standardize="auto", pos_label=None):
        self.C_pos = C_pos
        self.C_unl = C_unl
        self.prior = prior
        self.random_state = random_state
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol
        self.max_iter = max_iter
        self.devices = devices
        self.standardize = standardize
        self.pos_label = pos_label

    def _check_params(self):
        cwsvm_spec(1, 1, C_pos=self._C_pos(1, 1), C_unl=self.C_unl)

    def _C_pos(self, n_P: int, n_U: int) -> float:
        """``C_pos``, with "balanced" resolved for ``n_P`` labeled and ``n_U`` unlabeled rows."""
        if isinstance(self.C_pos, str):
            check_in(self.C_pos, "C_pos", ("balanced",))
            return float(check_float(self.C_unl, "C_unl", 0.0, None)) * n_U / n_P
        return self.C_pos

    def ensemble_spec(self, n_P, n_U):
        return cwsvm_spec(n_P, n_U, C_pos=self._C_pos(n_P, n_U), C_unl=self.C_unl)

    def fit_bags(self, X: ArrayLike, y: ArrayLike, bags: list[ArrayLike]) -> list[CWSVMClassifier]:
        """One fitted copy of this estimator per bag -- the rows with ``y = 1`` against the rows ``bags[b]``
        (indices into ``X``, repeats allowed) -- solved as one batch (:func:`~pujax.svm.core.cwsvm_fit_bags`).

        Copy ``b`` predicts as ``clone(self).set_params(prior=None).fit(X[rows_b], y[rows_b])`` with ``rows_b`` its
        labeled rows and bag (up to float rounding; ``C_pos="balanced"`` is resolved with the size of ``bags[0]``).
        :class:`~pujax.meta.PUBaggingClassifier` calls this instead of fitting its bags one by one.

        Returns
        -------
        list of CWSVMClassifier
        """
        X, s, copies = self._bag_inputs(X, y, bags)
        self._check_common()
        self._check_params()
        n_P = int(np.sum(s == 1))
        models = cwsvm_fit_bags(X, s, bags, C_pos=self._C_pos(n_P, len(bags[0])), C_unl=self.C_unl,
                                devices=self.devices, standardize=self._standardize_for(X), **self._svm_kwargs())
        return [est._set_model(model, self.ensemble_spec(n_P, len(bag)), n_P, len(bag))
                for est, model, bag in zip(copies, models, bags)]

    @staticmethod
    def positive_proba_bags(models: list[CWSVMClassifier], X: ArrayLike,
                            rows: ArrayLike | None = None) -> np.ndarray:
        """Positive-class probabilities of fitted copies (such as those of :meth:`fit_bags`), all computed in one
        program per block of rows (:func:`~pujax.svm.core.svm_proba_bags`): shape (len(models), n_samples), row
        ``b`` equal to ``models[b].predict_proba(X)[:, 1]`` up to float rounding; with ``rows`` (len(models), m)
        indices into ``X``, copy ``b`` scores only ``X[rows[b]]``."""
        X = validate_predict_data(models[0], X, dtype=None, attributes="model_", accept_sparse=SPARSE_FORMATS)
        return svm_proba_bags([m.model_ for m in models], X, rows)


class _EnsembleSVM(_BaseSVM):
    """Deprecated-name handling shared by the two ensembles."""

    def _sizes(self):
        return (_renamed(self, "n_models", "n_estimators"), _renamed(self, "n_unl", "max_samples"))

    def _check_sizes(self):
        for old in ("n_models", "n_unl"):
            value = getattr(self, old)
            if not (isinstance(value, str) and value == _DEPRECATED):
                check_int(value, old) if old == "n_models" else resample_size(value, 1, old)
        check_int(self.n_estimators, "n_estimators")
        resample_size(self.max_samples, 1, "max_samples")


@register_estimator
class BaggingSVMClassifier(_EnsembleSVM):
    """Bagging SVM of Mordelet & Vert (Claesen et al. 2015 §2.2, eq. 2).

    Each of ``n_estimators`` base models separates all labeled positives from a bootstrap resample of
    ``max_samples`` unlabeled rows, with ``C_U = C`` and ``C_P = C max_samples / |P|``. Aggregation as RESVM
    (eqs. 4-6), on one standardisation of all rows: the baseline of the RESVM paper, in the SVM ensemble core it
    shares with :class:`RESVMClassifier` (the same resampling, solver, aggregation and prior threshold). Mordelet &
    Vert's bagging around any classifier, averaged as probabilities, is :class:`pujax.meta.PUBaggingClassifier`; with
    a :class:`CWSVMClassifier` base it too solves all bags in one batch (each bag standardised on its own rows).

    Parameters
    ----------
    n_estimators : int, default=50
        Number of base models.
    max_samples : "auto", None, int or float, default="auto"
        Unlabeled rows drawn per base model: "auto" = ``min(|U|, 1000)``, None = ``|U|``, a float = that
        fraction of ``|U|``.
    C : float, default=1.0
        Penalty of unlabeled rows.
    kernel : {"rbf", "linear", "poly"}, default="rbf"
        Kernel of the base SVMs, computed on standardized features.
    gamma : "scale", "auto" or float > 0, default="scale"
        Kernel width (rbf, poly); "scale" is ``1 / (n_features X.var())`` on the standardized features.
    degree : int, default=3
        Degree of the polynomial kernel.
    coef0 : float, default=0.0
        Constant of the polynomial kernel.
    tol : float, default=1e-3
        KKT tolerance of the SMO solver (LIBSVM's default).
    max_iter : int, default=100000
        Cap on the SMO steps of every base model.
    devices : None, int, list of jax.Device or jax.sharding.Mesh, default=None
        Where the base models are solved (split over the devices); see :mod:`pujax.devices`.
    prior : None, "auto" or float in (0, 1), default="auto"
        A prior (or "auto", estimated with :func:`pujax.prior.estimate_prior`): T such that a share ``prior``
        of the unlabeled rows (at most 4096 drawn at random), scored out of bag, is predicted positive. None:
        majority vote (eq. 6 with T = 0.5).
    random_state : None, int or numpy / JAX random state, default=None
        Seeds the resamples (and the rows that set the prior threshold).
    verbose : bool, default=False
        Show a progress bar.
    n_models, n_unl : deprecated
        Old names of ``n_estimators`` and ``max_samples`` (a ``FutureWarning``; removed in the next release).
    standardize : "auto", bool, default="auto"
        Features of the kernels: ``"auto"`` standardises dense ``X`` per feature and reads a scipy sparse ``X``
        (CSR / CSC) as given (kernels of TF-IDF rows from sparse products, support vectors kept sparse); ``True``
        also scales a sparse ``X``, without centring; ``False`` reads every ``X`` as given.
    pos_label : int, float, bool, str or None, default=None
        The value of ``y`` that marks the labeled positives (e.g. ``1`` for labels 1 = labeled / 2 = unlabeled, or
        ``"positive"``); ``None`` reads ``y`` as bool, {0, 1} or {-1, 1} with ``True`` / 1 labeled and refuses other
        values (:func:`pujax.validation.read_pu_labels`). ``classes_`` is ``[unlabeled value, labeled value]``.

    Attributes
    ----------
    model_ : SVMModel
        The fitted model (:class:`pujax.svm.core.SVMModel`).
    support_vectors_, dual_coef_, intercept_, n_support_, n_iter_, kkt_gap_ : arrays
        Views of ``model_`` (support vectors in the units of ``X``).
    C_pos_, C_unl_ : float
        Box bounds of labeled and unlabeled rows.
    gamma_ : float
        Resolved kernel width.
    classes_, n_features_in_ : as in scikit-learn.
    n_pos_, n_unl_ : int
        Rows of P and of U per base model.
    threshold_ : float
        T of eq. 6.

    References
    ----------
    Mordelet & Vert. A bagging SVM to learn from positive and unlabeled examples. Pattern Recognition Letters
    37, 2014; Claesen et al., Neurocomputing 160, 2015 (eqs. 2, 4-6).

    Examples
    --------
    >>> import numpy as np
    >>> from pujax.svm import BaggingSVMClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(2, 1, (40, 2)), rng.normal(0, 1, (80, 2))]
    >>> s = np.r_[np.ones(20, int), np.zeros(100, int)]
    >>> BaggingSVMClassifier(10, random_state=0).fit(X, s).predict(X[:3])
    array([1, 1, 1])
    """

    def __init__(self, n_estimators=50, *, max_samples="auto", C=1.0, kernel="rbf", gamma="scale", degree=3,
                 coef0=0.0, tol=1e-3, max_iter=100_000, prior="auto", random_state=None, verbose=False, devices=None,
                 n_models=_DEPRECATED, n_unl=_DEPRECATED, standardize="auto", pos_label=None):
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol
        self.max_iter = max_iter
        self.prior = prior
        self.random_state = random_state
        self.verbose = verbose
        self.devices = devices
        self.n_models = n_models
        self.n_unl = n_unl
        self.standardize = standardize
        self.pos_label = pos_label

    def _check_params(self):
        self._check_sizes()
        check_float(self.C, "C", 0.0, None)

    def ensemble_spec(self, n_P, n_U):
        n_estimators, max_samples = self._sizes()
        return bagging_svm_spec(n_P, n_U, n_estimators=n_estimators, max_samples=max_samples, C=self.C)


@register_estimator
class RESVMClassifier(_EnsembleSVM):
    """Robust ensemble of SVMs (Claesen et al. 2015, Algorithm 1, eqs. 3-6).

    Each of ``n_estimators`` class-weighted SVMs is trained on a bootstrap resample of ``n_pos`` rows of P and
    ``max_samples`` rows of U, with penalties ``C_U = C`` and ``C_P = C w_pos max_samples / n_pos`` (eq. 3).
    ``decision_function`` is d(x) of eq. 5 minus the threshold T of eq. 6; ``predict`` is positive where it is
    > 0. Robust to false positives in P (the paper's semi-supervised setting).

    Parameters
    ----------
    n_estimators : int, default=50
        Number of base models.
    n_pos : "auto", None, int or float, default="auto"
        Labeled rows drawn per base model: "auto" = ``min(|P|, 250)``, None = ``|P|``, a float = that fraction.
    max_samples : "auto", None, int or float, default="auto"
        Unlabeled rows drawn per base model: "auto" = ``min(|U|, 1000)``, None = ``|U|``, a float = that fraction.
    C : float, default=1.0
        Penalty of unlabeled rows ``C_U``.
    w_pos : float, default=1.0
        Relative weight of labeled rows after balancing the resample sizes (eq. 3).
    kernel : {"rbf", "linear", "poly"}, default="rbf"
        Kernel of the base SVMs, computed on standardized features.
    gamma : "scale", "auto" or float > 0, default="scale"
        Kernel width (rbf, poly); "scale" is ``1 / (n_features X.var())`` on the standardized features.
    degree : int, default=3
        Degree of the polynomial kernel.
    coef0 : float, default=0.0
        Constant of the polynomial kernel.
    tol : float, default=1e-3
        KKT tolerance of the SMO solver (LIBSVM's default).
    max_iter : int, default=100000
        Cap on the SMO steps of every base model.
    devices : None, int, list of jax.Device or jax.sharding.Mesh, default=None
        Where the base models are solved (split over the devices); see :mod:`pujax.devices`.
    prior : None, "auto" or float in (0, 1), default="auto"
        A prior (or "auto", estimated with :func:`pujax.prior.estimate_prior`): T of eq. 6 such that a share
        ``prior`` of the unlabeled rows (at most 4096 drawn at random), each scored by the base models that trained
        neither on it nor on an identical row, is predicted positive. None: majority vote (T = 0.5).
    random_state : None, int or numpy / JAX random state, default=None
        Seeds the resamples (and the rows that set the prior threshold).
    verbose : bool, default=False
        Show a progress bar.
    n_models, n_unl : deprecated
        Old names of ``n_estimators`` and ``max_samples`` (a ``FutureWarning``; removed in the next release).
    standardize : "auto", bool, default="auto"
        Features of the kernels: ``"auto"`` standardises dense ``X`` per feature and reads a scipy sparse ``X``
        (CSR / CSC) as given (kernels of TF-IDF rows from sparse products, support vectors kept sparse); ``True``
        also scales a sparse ``X``, without centring; ``False`` reads every ``X`` as given.
    pos_label : int, float, bool, str or None, default=None
        The value of ``y`` that marks the labeled positives (e.g. ``1`` for labels 1 = labeled / 2 = unlabeled, or
        ``"positive"``); ``None`` reads ``y`` as bool, {0, 1} or {-1, 1} with ``True`` / 1 labeled and refuses other
        values (:func:`pujax.validation.read_pu_labels`). ``classes_`` is ``[unlabeled value, labeled value]``.

    Attributes
    ----------
    model_ : SVMModel
        The fitted model (:class:`pujax.svm.core.SVMModel`).
    support_vectors_, dual_coef_, intercept_, n_support_, n_iter_, kkt_gap_ : arrays
        Views of ``model_`` (support vectors in the units of ``X``).
    C_pos_, C_unl_ : float
        Box bounds of labeled and unlabeled rows.
    gamma_ : float
        Resolved kernel width.
    classes_, n_features_in_ : as in scikit-learn.
    n_pos_, n_unl_ : int
        Rows of P and of U per base model.
    threshold_ : float
        T of eq. 6.
    prior_ : float
        The prior used (only when ``prior`` is set).

    References
    ----------
    Claesen, De Smet, Suykens, De Moor. A robust ensemble approach to learn from positive and unlabeled data using
    SVM base models. Neurocomputing 160, 2015 (Algorithm 1, eqs. 3-6).

    Examples
    --------
    >>> import numpy as np
    >>> from pujax.svm import RESVMClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(2, 1, (40, 2)), rng.normal(0, 1, (80, 2))]
    >>> s = np.r_[np.ones(20, int), np.zeros(100, int)]
    >>> clf = RESVMClassifier(10, w_pos=4.0, random_state=0).fit(X, s)
    >>> clf.predict(X[:3])
    array([1, 1, 1])
    """

    def __init__(self, n_estimators=50, *, n_pos="auto", max_samples="auto", C=1.0, w_pos=1.0, kernel="rbf",
                 gamma="scale", degree=3, coef0=0.0, tol=1e-3, max_iter=100_000, prior="auto", random_state=None,
                 verbose=False, devices=None, n_models=_DEPRECATED, n_unl=_DEPRECATED, standardize="auto",
                 pos_label=None):
        self.n_estimators = n_estimators
        self.n_pos = n_pos
        self.max_samples = max_samples
        self.C = C
        self.w_pos = w_pos
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol
        self.max_iter = max_iter
        self.prior = prior
        self.random_state = random_state
        self.verbose = verbose
        self.devices = devices
        self.n_models = n_models
        self.n_unl = n_unl
        self.standardize = standardize
        self.pos_label = pos_label

    def _check_params(self):
        self._check_sizes()
        resample_size(self.n_pos, 1, "n_pos")
        check_float(self.C, "C", 0.0, None)
        check_float(self.w_pos, "w_pos", 0.0, None)

    def ensemble_spec(self, n_P, n_U):
        n_estimators, max_samples = self._sizes()
        return resvm_spec(n_P, n_U, n_estimators=n_estimators, n_pos=self.n_pos, max_samples=max_samples, C=self.C,
                          w_pos=self.w_pos)

