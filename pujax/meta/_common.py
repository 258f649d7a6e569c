"""Shared plumbing of the meta-estimators: base-model checks, fitting with weights, positive-class scores and
row subsets drawn with a numpy random state, and the ``predict_proba`` / ``decision_function`` pair of the
estimators that score rows by a positive-class probability."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.utils.validation import has_fit_parameter

if TYPE_CHECKING:
    from numpy.typing import ArrayLike
    from sklearn.base import BaseEstimator

__all__ = ["PositiveProbaMixin", "as_float64", "base_or_default", "default_logistic", "check_base", "fit_base",
           "positive_proba", "stack_rows", "stratified_hold_out"]


def default_logistic() -> LogisticRegression:
    """The default probabilistic base model: scikit-learn's ``LogisticRegression`` with more iterations."""
    return LogisticRegression(max_iter=1000)


def base_or_default(estimator: BaseEstimator | None) -> BaseEstimator:
    """``estimator``, or :func:`default_logistic` when it is None (the ``estimator=None`` default of the
    meta-estimators)."""
    return default_logistic() if estimator is None else estimator


def check_base(estimator, name: str = "estimator", *, proba: bool = True):
    """Check a base model: a scikit-learn classifier (``fit`` and ``predict_proba`` when ``proba``); None (the
    default model) passes."""
    if estimator is None:
        return None
    if not (hasattr(estimator, "fit") and hasattr(estimator, "get_params")):
        raise TypeError(f"{name} must be a scikit-learn style classifier with fit/get_params; got "
                        f"{type(estimator).__name__}.")
    if proba and not hasattr(estimator, "predict_proba"):
        raise TypeError(f"{name}={type(estimator).__name__} has no predict_proba; pass a probabilistic classifier "
                        f"(e.g. LogisticRegression, or wrap yours in sklearn.calibration.CalibratedClassifierCV).")
    return estimator


def as_float64(X):
    """float32 data (dense or sparse) as float64 for scikit-learn base models: their float64 arithmetic gives the
    same prediction for a row whatever the batch it comes in, and on a sparse matrix what it gives on its dense
    copy."""
    return X.astype(np.float64) if (isinstance(X, np.ndarray) or sp.issparse(X)) and X.dtype == np.float32 else X


def stack_rows(blocks):
    """The row blocks stacked: ``np.concatenate`` of dense blocks, a CSR matrix of sparse ones."""
    return sp.vstack(blocks, format="csr") if sp.issparse(blocks[0]) else np.concatenate(blocks)


def fit_base(estimator, X, y, sample_weight=None, name: str = "estimator", hint: str = "fit without sample_weight"):
    """Fit a clone of ``estimator`` on ``(X, y)`` (float64), passing ``sample_weight`` when given (``hint``: the other
    way out, for the error on a base model without it)."""
    model = clone(estimator)
    X = as_float64(X)
    if sample_weight is None:
        return model.fit(X, y)
    if not has_fit_parameter(model, "sample_weight"):
        raise TypeError(f"{name}={type(model).__name__} does not take sample_weight in fit; pass a base model that "
                        f"does (or {hint}).")
    return model.fit(X, y, sample_weight=sample_weight)


def positive_proba(model, X) -> np.ndarray:
    """Probability of the class labelled 1 from a fitted classifier (0 where the model never saw class 1)."""
    proba = np.asarray(model.predict_proba(as_float64(X)), dtype=np.float64)
    classes = list(np.asarray(model.classes_).tolist())
    if 1 not in classes:
        return np.zeros(proba.shape[0])
    return np.clip(proba[:, classes.index(1)], 0.0, 1.0)


def stratified_hold_out(s01: np.ndarray, ratio: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Indices ``(train, hold)``: ``ratio`` of the labeled and of the unlabeled rows held out, at least one of each
    and at least one of each left for training. A class with a single row is in both sets."""
    train, hold = [], []
    for cls in (1, 0):
        rows = np.flatnonzero(s01 == cls)
        rows = rows[rng.permutation(rows.size)]
        if rows.size < 2:
            train.append(rows)
            hold.append(rows)
            continue
        k = int(np.clip(round(ratio * rows.size), 1, rows.size - 1))
        hold.append(rows[:k])
        train.append(rows[k:])
    return np.sort(np.concatenate(train)), np.sort(np.concatenate(hold))


class PositiveProbaMixin:
    """``predict_proba`` and ``decision_function`` of a meta-estimator that scores rows by a probability.

    A subclass defines ``_positive_proba(X)`` (validated ``X`` -> ``p(y = 1 | x)`` per row); the default is the
    positive-class probability of the fitted base model ``estimator_``.
    """

    def _positive_proba(self, X) -> np.ndarray:
        return positive_proba(self.estimator_, X)

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Class probabilities of shape ``(n_samples, 2)``; column 1 is ``p(y = 1 | x)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        p = self._positive_proba(self._validate_predict(X))
        return np.stack([1.0 - p, p], axis=1)

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """``predict_proba(X)[:, 1] - 0.5``: positive where the positive class is the more probable.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self.predict_proba(X)[:, 1] - 0.5
