"""Shared scikit-learn plumbing of every pujax classifier (fit/predict validation, classes_, persistence)."""
from __future__ import annotations

import numpy as np
from sklearn.base import ClassifierMixin

from pujax.persistence import load_estimator, save_estimator
from pujax.validation import check_is_fitted_and_X, check_X_s, resolve_prior

__all__ = ["PUClassifierMixin"]


class PUClassifierMixin(ClassifierMixin):
    """Mixin for PU classifiers: ``fit(X, s)`` with PU labels, predictions in ``classes_ = [0, 1]``.

    Scenario: case-control (DESIGN §1) -- labeled positives are drawn from p(x | y=1), unlabeled rows from the
    marginal p(x) whose positive fraction is ``prior``. ``score(X, y)`` is the accuracy against true labels.
    """

    _has_prior = True

    def _validate_fit(self, X, s, prior=None):
        """Validate training data; set ``n_features_in_``, ``classes_`` and ``prior_``; return (X, s, prior)."""
        X, s = check_X_s(X, s)
        self.n_features_in_ = int(X.shape[1])
        self.classes_ = np.array([0, 1])
        p = None
        if self._has_prior:
            p = resolve_prior(self.prior if prior is None else prior, X, s,
                              random_state=getattr(self, "random_state", None))
            self.prior_ = float(p)
        return X, s, p

    def _validate_predict(self, X):
        """Check the estimator is fitted and ``X`` has the training number of features; return X as float32."""
        return check_is_fitted_and_X(self, X)

    def save(self, path):
        """Save the fitted estimator to ``<path>.npz`` + ``<path>.json`` (plain data, loadable without pickle)."""
        return save_estimator(self, path)

    @classmethod
    def load(cls, path):
        """Load an estimator saved with :meth:`save`."""
        return load_estimator(path, expected_class=cls)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.estimator_type = "classifier"
        return tags
