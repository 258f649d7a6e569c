r"""PU labels Selected At Random (SAR): the probability that a positive is labeled depends on its features.

:func:`make_sar` labels each positive with its propensity
:math:`e(x) = \sigma(b + \sum_{j \in J} a_j z_j(x))`, with :math:`z` the standardised features and :math:`J` the
propensity features (Bekker, Robberechts & Davis 2019, §3); negatives are never labeled.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import jax
import numpy as np

from pujax.preprocessing import standardization, standardize
from pujax.random import as_key
from pujax.validation import check_binary_labels, check_float, check_X

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike

__all__ = ["SARSplit", "make_sar", "logistic_propensity"]


class SARSplit(NamedTuple):
    """A SAR training set: features ``X``, PU labels ``s``, the true propensity of every row and the positive
    fraction of the unlabeled rows."""

    X: np.ndarray
    s: np.ndarray
    propensity: np.ndarray
    prior: float


def logistic_propensity(X: ArrayLike, propensity_features: Sequence[int] = (0,), coef: float = 2.0,
                        intercept: float = 0.0) -> np.ndarray:
    """``e(x) = sigmoid(intercept + z[:, features] @ coef)`` with ``z`` the standardised columns of ``X``."""
    X = check_X(X, dtype=np.float64)
    feats = np.atleast_1d(np.asarray(propensity_features, dtype=np.intp))
    if feats.size == 0 or feats.min() < 0 or feats.max() >= X.shape[1]:
        raise ValueError(f"propensity_features={propensity_features!r} must be column indices of X "
                         f"(0 .. {X.shape[1] - 1}).")
    coef = np.broadcast_to(np.asarray(coef, np.float64), feats.shape)
    if not np.all(np.isfinite(coef)):
        raise ValueError("coef must be finite.")
    check_float(intercept, "intercept")
    Z = standardize(X[:, feats], *standardization(X[:, feats]), dtype=np.float64)
    return 1.0 / (1.0 + np.exp(-np.clip(intercept + Z @ coef, -500, 500)))


def make_sar(key: jax.Array | int, X: ArrayLike, y: ArrayLike, propensity_features: Sequence[int] = (0,),
             coef: float = 2.0, intercept: float = 0.0) -> SARSplit:
    """SAR PU labels: each positive is labeled with probability ``e(x)`` (:func:`logistic_propensity`).

    Parameters
    ----------
    key : JAX PRNG key or int
        Seed of the draw.
    X : array-like of shape (n, d)
        Features.
    y : array-like of shape (n,)
        True labels in {0, 1}.
    propensity_features, coef, intercept : sequence of int, float or array, float
        The propensity model (``coef`` a scalar or one per feature).

    Returns
    -------
    SARSplit
        ``(X, s, propensity, prior)``: ``propensity`` is ``e(x)`` of every row (the labeling probability had it
        been positive), ``prior`` the positive fraction of the unlabeled rows.
    """
    X = check_X(X)
    y = check_binary_labels(y, name="y", n_samples=X.shape[0])
    e = logistic_propensity(X, propensity_features, coef, intercept)
    draw = np.asarray(jax.random.uniform(as_key(key), (y.size,)))
    s = ((y == 1) & (draw < e)).astype(np.int32)
    if s.sum() == 0 or s.sum() == s.size:
        raise ValueError("the draw labeled no row (or every row); raise intercept or use more positives.")
    return SARSplit(X, s, e.astype(np.float32), float(y[s == 0].mean()))
