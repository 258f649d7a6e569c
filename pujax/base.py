"""What every pujax classifier shares: validation of fit / predict data, the PU labels and ``classes_``, the class
prior, scikit-learn tags, and ``save`` / ``load``.

An estimator is thin: ``fit`` validates (:meth:`PUClassifierMixin._validate_fit`), calls its method's pure
functional core and stores the fitted model; ``decision_function`` validates
(:meth:`PUClassifierMixin._validate_predict`) and calls the core's decision function. Predictions are
``classes_[int(decision_function(X) > 0)]``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from sklearn.base import ClassifierMixin

from pujax.persistence import load_estimator, save_estimator
from pujax.preprocessing import standardization, standardize
from pujax.validation import check_prior, validate_fit_data, validate_predict_data

if TYPE_CHECKING:
    import os
    from typing import Any

    from numpy.typing import ArrayLike

    from pujax._typing import RandomStateLike

__all__ = ["PUClassifierMixin", "SaveLoadMixin", "resolve_prior", "LABEL_RULE_CHECKS", "DegenerateFitWarning"]

LABEL_RULE_CHECKS = {
    "check_classifiers_classes": "its string labels ('one' / 'two') are refused: PU labels are bool, {0, 1} or "
                                 "{-1, 1} unless pos_label names the labeled value (read_pu_labels)",
}
"""scikit-learn estimator checks that no PU classifier can pass under pujax's label rule, with the reason."""


class DegenerateFitWarning(UserWarning):
    """A fit whose result cannot be trusted as it stands -- an estimate at the bound of its range, no positive found
    among the unlabeled rows, one class predicted for every unlabeled row; the message names the argument to set."""


def resolve_prior(prior: float | str, X: ArrayLike, s01: ArrayLike, random_state: RandomStateLike = None) -> float:
    """Turn an estimator's ``prior`` argument into a float in (0, 1).

    A float is checked and returned; ``"auto"`` estimates pi from ``(X, s01)`` with
    :func:`pujax.prior.estimate_prior` (its default method) on the features standardised in float64
    (:mod:`pujax.preprocessing`), so the estimate does not depend on their units or offsets (a scipy sparse ``X``
    is passed as given, to the default classifier of sparse data); a prior estimate (an object with ``.prior``)
    gives its value.
    """
    prior = check_prior(prior)
    if isinstance(prior, str):  # "auto"
        from pujax.prior import estimate_prior

        Z = X if sp.issparse(X) else standardize(X, *standardization(X))
        prior = estimate_prior(Z, s01, random_state=random_state)
    if not isinstance(prior, float):
        prior = check_prior(prior.prior, allow_auto=False)
    return float(prior)


class SaveLoadMixin:
    """``save`` / ``load`` to plain ``.npz`` + ``.json`` files (:mod:`pujax.persistence`) for registered estimators."""

    def save(self, path: str | os.PathLike) -> tuple[str, str]:
        """Save the fitted estimator to ``<path>.npz`` + ``<path>.json`` (plain data; loading runs no code)."""
        return save_estimator(self, path)

    @classmethod
    def load(cls, path: str | os.PathLike) -> Any:
        """Load an estimator of this class saved with :meth:`save`; every attribute is checked on the way in."""
        return load_estimator(path, expected_class=cls)


class PUClassifierMixin(SaveLoadMixin, ClassifierMixin):
    """Mixin of every pujax PU classifier (put it before :class:`~sklearn.base.BaseEstimator`).

    ``fit(X, y)`` takes PU labels as ``y`` (the scikit-learn name; pujax's docs call them ``s``), read by one rule
    (:func:`pujax.validation.read_pu_labels`): bool, {0, 1} or {-1, 1}, where ``True`` / 1 marks labeled positives
    and the other value unlabeled rows; any other encoding (1 / 2, strings) is refused with an error naming the
    values, unless the estimator's ``pos_label`` names the labeled value. ``classes_`` holds the two values, the
    unlabeled one first; ``predict`` returns ``classes_[1]`` (the labeled value) for the positive class.
    Scenario: case-control -- labeled positives are drawn from p(x | y = 1), unlabeled rows from the marginal
    p(x) whose positive fraction is the class prior ``prior``. ``score(X, y)`` is the accuracy against true
    labels.

    Class attributes a subclass may set: ``_accept_sparse`` (scipy sparse formats that ``fit`` / ``predict``
    take, e.g. :data:`pujax.validation.SPARSE_FORMATS`; ``False``: dense only, a sparse ``X`` raises a
    ``TypeError`` naming the estimators that take it), ``_needs_prior`` (whether the method uses ``prior``),
    ``_fitted_schema`` (fitted attributes checked by :func:`~pujax.persistence.load_estimator`) and
    ``_expected_failed_checks`` (scikit-learn estimator checks that cannot hold for the method, with reasons) and
    ``_input_dtype`` (the dtype ``X`` is validated to; None keeps float32 or float64 input as given).
    """

    _accept_sparse: bool | str | list = False
    _needs_prior = True
    _fitted_schema = {
        "n_features_in_": "int",
        "classes_": "any[2]",
        "feature_names_in_": "str[n_features_in_]?",
        "prior_": "float?",
    }
    _expected_failed_checks: dict = {}
    _input_dtype = np.float32  # dtype of validated X; float64 for methods that standardise X before a float32 cast

    def _validate_fit(self, X, y, sample_weight=None):
        """Validate training data and resolve the prior: return ``(X, s01, sample_weight, prior)``.

        Sets ``n_features_in_``, ``feature_names_in_`` (pandas), ``classes_`` and, for methods that use a prior,
        ``prior_`` (``prior`` is ``None`` for the others).
        """
        X, s01, w = validate_fit_data(self, X, y, sample_weight, accept_sparse=self._accept_sparse,
                                      dtype=self._input_dtype)
        X = self._fit_input(X, w)
        prior = None
        if self._needs_prior:
            prior = resolve_prior(self.prior, X, s01, random_state=getattr(self, "random_state", None))
            self.prior_ = prior
        return X, s01, w, prior

    def _validate_predict(self, X):
        """Check the estimator is fitted and ``X`` matches the training features; return ``X`` validated as
        ``_input_dtype`` (float32 unless the method standardises first) and passed through ``_predict_input``."""
        return self._predict_input(validate_predict_data(self, X, accept_sparse=self._accept_sparse,
                                                         dtype=self._input_dtype))

    def _fit_input(self, X, sample_weight=None):
        """The validated training ``X`` as the method sees it (identity here; see
        :class:`~pujax.preprocessing.StandardizedInputMixin`); ``prior="auto"`` is estimated on it."""
        return X

    def _predict_input(self, X):
        """The validated ``X`` of a prediction as the method sees it (identity here)."""
        return X

    def _bag_inputs(self, X, y, bags) -> tuple[Any, np.ndarray, list]:
        """``fit_bags`` (batched bagging, :class:`~pujax.meta.PUBaggingClassifier`): validated ``X`` (dtype kept),
        PU labels ``s`` and one unfitted copy of this estimator per bag, with the fitted attributes of a fit on
        labels {0, 1} and ``X``'s features already set."""
        from sklearn.base import clone

        from pujax.validation import check_pu_labels, check_X

        X = check_X(X, dtype=None, accept_sparse=self._accept_sparse)
        copies = [clone(self) for _ in bags]
        for est in copies:
            est.classes_, est.n_features_in_ = np.array([0, 1]), X.shape[1]
        return X, check_pu_labels(y, n_samples=X.shape[0]), copies

    def _to_classes(self, positive) -> np.ndarray:
        """Map a boolean "predicted positive" vector to the labels of ``classes_``."""
        return self.classes_[np.asarray(positive).astype(np.intp)]

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Predicted class of every row: ``classes_[1]`` (positive) where ``decision_function(X) > 0``."""
        return self._to_classes(np.asarray(self.decision_function(X)) > 0)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = bool(self._accept_sparse)
        return tags
