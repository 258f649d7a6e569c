"""What the neural PU estimators share (:class:`_NeuralPUBase`): input standardisation (dense in float64 on the host,
sparse on the device), seeds, per-seed scores and the flax module."""
from __future__ import annotations

import jax
import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from pujax._compile import bucket_size, rows_in_bucket
from pujax.base import PUClassifierMixin
from pujax.neural.rows import SparseRows, pad_sparse, sparse_rows
from pujax.neural.train import _get_compiled
from pujax.preprocessing import standardization, standardize

__all__ = ["_NeuralPUBase", "_to_numpy_tree"]


def _to_numpy_tree(tree):
    return jax.tree.map(lambda a: np.asarray(a), tree)


class _NeuralPUBase(PUClassifierMixin, BaseEstimator):
    """What the neural PU estimators share: input standardisation, seeds, per-seed scores and the flax module.

    A subclass defines ``_config(n_features)`` (an object with the flax ``module`` and ``eval_chunk``), ``fit``
    (storing ``variables_`` with a leading seed axis, ``n_seeds_``, ``mean_`` and ``scale_``) and its decision rule.
    """

    _input_dtype = None  # float32 or float64 as given; standardised in float64 blocks, then cast to float32

    def _fit_standardization(self, X):
        """Set ``mean_`` / ``scale_`` from the training rows (None without ``standardize``); return ``X`` scaled (a
        scipy sparse ``X`` unchanged: it is read scaled on the device, :meth:`_device_rows`)."""
        self.mean_ = self.scale_ = None
        if self.standardize:
            self.mean_, self.scale_ = standardization(X)
        return X if sp.issparse(X) else self._transform(X)

    def _transform(self, X):
        """``(X - mean_) / scale_`` in float64, then float32 (``X`` as float32 without standardisation); a scipy
        sparse ``X`` becomes :class:`~pujax.neural.rows.SparseRows` read as ``(x - mean_) / scale_`` in float32."""
        if sp.issparse(X):
            return sparse_rows(X, self.mean_, self.scale_)
        if self.mean_ is None:
            return np.ascontiguousarray(X, dtype=np.float32)
        return standardize(X, self.mean_, self.scale_)

    def _device_rows(self, X):
        """The training rows as the programs read them: a scipy sparse ``X`` as scaled
        :class:`~pujax.neural.rows.SparseRows`, anything else unchanged."""
        return self._transform(X) if sp.issparse(X) else X

    def _fit_input(self, X, sample_weight=None):
        if sp.issparse(X) and self._needs_prior and isinstance(self.prior, str):
            raise ValueError("prior='auto' estimates the class prior from dense features; with a scipy sparse X pass "
                             "prior=<float> (e.g. pujax.prior.estimate_prior on a dense low-dimensional "
                             "representation of X).")
        return X

    def _seed_scores(self, X):
        """Network outputs ``g(x)`` of every seed's model on validated rows, shape ``(n_seeds, n)``."""
        X = self._transform(self._validate_predict(X))
        cfg = self._config(self.n_features_in_)
        variables = jax.tree.map(jax.device_put, self.variables_)
        if isinstance(X, SparseRows):
            n = X.shape[0]
            Xb = pad_sparse(X, bucket_size(n))
        else:
            Xb, n = rows_in_bucket(X)
        return np.asarray(_get_compiled("scores_many", cfg, 0)(variables, jax.device_put(Xb)))[:, :n]

    def seed_variables(self, i):
        """The flax variables ``{"params": ..., "batch_stats": ...}`` of seed ``i`` (apply with the model)."""
        if not hasattr(self, "variables_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError(f"This {type(self).__name__} instance is not fitted yet. Call 'fit' first.")
        n = self.n_seeds_
        if not isinstance(i, (int, np.integer)) or not -n <= int(i) < n:
            raise IndexError(f"seed index {i!r} out of range for n_seeds_={n}.")
        return jax.tree.map(lambda a: np.asarray(a)[int(i)], self.variables_)

    @property
    def module_(self):
        """The flax module (rebuilt from ``model`` and ``model_kwargs``)."""
        if not hasattr(self, "n_features_in_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError(f"This {type(self).__name__} instance is not fitted yet. Call 'fit' first.")
        return self._config(self.n_features_in_).module
