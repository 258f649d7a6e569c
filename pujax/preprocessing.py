"""Per-feature standardisation in float64 before the float32 cast: the one place every pujax method that centres
and scales its inputs takes its statistics and its transform from.

float32 keeps about seven significant digits: a feature with an offset of ``1e7`` and unit spread loses its spread
when cast to float32. :func:`standardization` computes the per-feature centre and scale in float64 and
:func:`standardize` applies ``(X - center) / scale`` in float64 before the cast, so that what a float32 method sees
does not depend on the units or offsets of ``X``. :class:`StandardizedInputMixin` does both inside an estimator's
validation (statistics stored in ``mean_`` and ``scale_``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, DTypeLike

__all__ = ["standardization", "standardize", "StandardizedInputMixin"]


def _small_integers(X: np.ndarray) -> np.ndarray:
    """Per feature: integer values in a range below 2**16 (pixels, counts, one-hot), which float32 holds exactly."""
    if X.shape[0] == 0:
        return np.zeros(X.shape[1], bool)
    lo, hi = X.min(axis=0), X.max(axis=0)
    small = (hi - lo < 65536) & (np.abs(lo) < 2**24) & (np.abs(hi) < 2**24)
    return small & np.all(X == np.floor(X), axis=0)


def standardization(X: ArrayLike, *, sample_weight: ArrayLike | None = None,
                    keep_small_integers: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Per-feature ``(center, scale)`` of ``X``, computed in float64.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Finite values.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights: weighted mean and weighted standard deviation (integer weights equal duplicated rows).
    keep_small_integers : bool, default=False
        Give features whose values are integers in a range below 2**16 the centre 0 and scale 1 (float32 holds them
        exactly; the trees bin them by lookup).

    Returns
    -------
    center, scale : ndarray of shape (n_features,), float64
        Mean and standard deviation. A constant feature, or one whose standard deviation is not finite or is at
        most ``8 eps |mean|`` (constant up to float64 rounding), gets scale 1; no rows give centre 0 and scale 1.

    Examples
    --------
    >>> import numpy as np
    >>> from pujax.preprocessing import standardization, standardize
    >>> X = np.array([[1e7 + 1.0, 5.0], [1e7 - 1.0, 5.0]])
    >>> center, scale = standardization(X)
    >>> standardize(X, center, scale).tolist()
    [[1.0, 0.0], [-1.0, 0.0]]
    """
    X = np.asarray(X, dtype=np.float64)
    d = X.shape[1]
    if X.shape[0] == 0:
        return np.zeros(d), np.ones(d)
    if sample_weight is None:
        center = X.mean(axis=0)
        scale = X.std(axis=0)
        rows = X
    else:
        w = np.asarray(sample_weight, dtype=np.float64)
        center = np.average(X, axis=0, weights=w)
        scale = np.sqrt(np.average((X - center) ** 2, axis=0, weights=w))
        rows = X[w > 0]
    tiny = 8 * np.finfo(np.float64).eps * np.abs(center)
    constant = np.all(rows == rows[:1], axis=0)
    scale = np.where(np.isfinite(scale) & (scale > tiny) & (scale > 0) & ~constant, scale, 1.0)
    if keep_small_integers:
        small = _small_integers(X)
        center, scale = np.where(small, 0.0, center), np.where(small, 1.0, scale)
    return center, scale


def standardize(X: ArrayLike, center: ArrayLike, scale: ArrayLike, *, clip: float | None = None,
                dtype: DTypeLike = np.float32) -> np.ndarray:
    """``(X - center) / scale`` computed in float64 (clipped to ``[-clip, clip]`` when ``clip`` is given),
    returned C-contiguous as ``dtype`` (float32 by default).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    center, scale : array-like of shape (n_features,)
        From :func:`standardization`.
    clip : float or None, default=None
        Bound on the absolute standardised value.
    dtype : numpy dtype, default=np.float32

    Returns
    -------
    ndarray of shape (n_samples, n_features)
    """
    Z = (np.asarray(X, dtype=np.float64) - np.asarray(center, np.float64)) / np.asarray(scale, np.float64)
    if clip is not None:
        Z = np.clip(Z, -clip, clip)
    return np.ascontiguousarray(Z, dtype=dtype)


class StandardizedInputMixin:
    """Estimator mixin (placed before :class:`~pujax.base.PUClassifierMixin`): ``X`` is validated as float64,
    standardised with :func:`standardization` (weighted by ``sample_weight``) and cast to float32 before the
    method sees it, in ``fit`` and in every method that reads ``X``; ``prior="auto"`` is estimated on the
    standardised features. The statistics are the fitted attributes ``mean_`` and ``scale_``; an estimator loaded
    without them reads ``X`` unstandardised.
    """

    _input_dtype = np.float64
    _fitted_schema = {"mean_": "f[n_features_in_]?", "scale_": "f[n_features_in_]?"}

    def _fit_input(self, X, sample_weight=None):
        self.mean_, self.scale_ = standardization(X, sample_weight=sample_weight)
        return standardize(X, self.mean_, self.scale_)

    def _predict_input(self, X):
        if getattr(self, "mean_", None) is None:
            return np.ascontiguousarray(X, dtype=np.float32)
        return standardize(X, self.mean_, self.scale_)
