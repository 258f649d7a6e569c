r"""Binary classification metrics with fully observed labels, as jit-able JAX functions.

Every function takes ``(y_true, y_pred)`` (labels: bool, {0, 1} or {-1, +1}) or ``(y_true, y_score)`` and
returns a scalar JAX array equal to :mod:`sklearn.metrics`' value for the binary case. Called with concrete
arrays, the inputs are validated as scikit-learn validates them (same length, no NaN / infinity, binary labels,
non-empty) and the undefined cases warn as scikit-learn does (``UndefinedMetricWarning`` and 0, or NaN for a
one-class ROC AUC). Under ``jax.jit`` / ``jax.vmap`` the checks and warnings are skipped.
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np

from pujax._compile import bucket_size, jit, pad_rows
from pujax.metrics._checks import UndefinedMetricWarning, check_pair, check_weights, is_traced

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["accuracy", "balanced_accuracy", "precision", "recall", "f1_score", "roc_auc", "average_precision",
           "confusion_counts"]

_run_once = jit("metric", rows=0)  # the rows: the first argument (labels or scores)


def _labels(y):
    """{0,1}, bool or {-1,+1} -> float {0., 1.} (values > 0 are positive)."""
    return (jnp.asarray(y).reshape(-1) > 0).astype(jnp.float32)


def _div(a, b):
    """a / b with 0 where b == 0 (scikit-learn's zero_division=0)."""
    return jnp.where(b > 0, a / jnp.where(b > 0, b, 1.0), 0.0)


def _warn(message: str, category=UndefinedMetricWarning) -> None:
    warnings.warn(message, category, stacklevel=3)


def _checked(y_true, second, scores=False, sample_weight=None):
    """Validated host arrays, or the inputs unchanged while traced."""
    if is_traced(y_true, second, sample_weight):
        return y_true, second, False
    t, p = check_pair(y_true, second, "y_score" if scores else "y_pred", scores=scores)
    return t, p, True


def _masked(a, b, host: bool, sample_weight=None, checked: bool = False):
    """``(a, b, w)`` for a kernel: host arrays padded to :func:`~pujax.compilation.bucket_size` rows with weight
    ``w = 0`` on the padding (one compilation per bucket, not per length); traced arrays as they are. ``w`` holds
    the row weights (1 without ``sample_weight``; ``checked``: already validated)."""
    if not host:
        a = jnp.asarray(a).reshape(-1)
        w = jnp.ones(a.shape, jnp.float32) if sample_weight is None else jnp.asarray(sample_weight).reshape(-1)
        return a, jnp.asarray(b).reshape(-1), w
    n = a.shape[0]
    size = bucket_size(n)
    w = np.zeros(size, np.float32)
    w[:n] = 1.0 if sample_weight is None else (sample_weight if checked else check_weights(sample_weight, n))
    a, b = pad_rows(size, a, b)
    return a, b, w


def confusion_counts(y_true: ArrayLike, y_pred: ArrayLike, *,
                     sample_weight: ArrayLike | None = None) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """Return the confusion counts ``(tp, fp, tn, fn)`` of binary labels as float32 scalars.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted labels (bool, {0, 1} or {-1, +1}).
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative row weights, as scikit-learn's ``sample_weight``.

    Returns
    -------
    tuple of four scalar arrays
        True positives, false positives, true negatives, false negatives.

    Examples
    --------
    >>> [int(c) for c in confusion_counts([1, 1, 0, 0], [1, 0, 1, 0])]
    [1, 1, 1, 1]
    """
    t, p, host = _checked(y_true, y_pred, sample_weight=sample_weight)
    return _counts(*_masked(t, p, host, sample_weight))


@_run_once
def _counts(y_true, y_pred, w):
    t, p = _labels(y_true), _labels(y_pred)
    return jnp.sum(w * t * p), jnp.sum(w * (1 - t) * p), jnp.sum(w * (1 - t) * (1 - p)), jnp.sum(w * t * (1 - p))


def accuracy(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None) -> jax.Array:
    """Fraction of correct predictions (scikit-learn's ``accuracy_score``).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted labels (bool, {0, 1} or {-1, +1}).
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative row weights, as scikit-learn's ``sample_weight``.

    Returns
    -------
    scalar array

    Examples
    --------
    >>> round(float(accuracy([1, 0, 1, 1], [1, 1, 1, 1])), 4)
    0.75
    """
    t, p, host = _checked(y_true, y_pred, sample_weight=sample_weight)
    return _accuracy(*_masked(t, p, host, sample_weight))


@_run_once
def _accuracy(t, p, w):
    return _div(jnp.sum(w * (_labels(t) == _labels(p))), jnp.sum(w))


def precision(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None) -> jax.Array:
    """``tp / (tp + fp)``; 0 with an ``UndefinedMetricWarning`` when nothing is predicted positive.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted labels (bool, {0, 1} or {-1, +1}).
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative row weights, as scikit-learn's ``sample_weight``.

    Returns
    -------
    scalar array

    Examples
    --------
    >>> round(float(precision([1, 0, 1, 0], [1, 1, 1, 0])), 4)
    0.6667
    """
    t, p, host = _checked(y_true, y_pred, sample_weight=sample_weight)
    if host and not p.any():
        _warn("Precision is ill-defined and being set to 0.0 due to no predicted samples.")
    return _precision(*_masked(t, p, host, sample_weight))


@_run_once
def _precision(t, p, w):
    tp, fp, _, _ = _counts(t, p, w)
    return _div(tp, tp + fp)


def recall(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None) -> jax.Array:
    """``tp / (tp + fn)``; 0 with an ``UndefinedMetricWarning`` when ``y_true`` has no positive.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted labels (bool, {0, 1} or {-1, +1}).
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative row weights, as scikit-learn's ``sample_weight``.

    Returns
    -------
    scalar array

    Examples
    --------
    >>> round(float(recall([1, 0, 1, 1], [1, 1, 0, 0])), 4)
    0.3333
    """
    t, p, host = _checked(y_true, y_pred, sample_weight=sample_weight)
    if host and not t.any():
        _warn("Recall is ill-defined and being set to 0.0 due to no true samples.")
    return _recall(*_masked(t, p, host, sample_weight))


@_run_once
def _recall(t, p, w):
    tp, _, _, fn = _counts(t, p, w)
    return _div(tp, tp + fn)


def f1_score(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None) -> jax.Array:
    """``2 tp / (2 tp + fp + fn)``; 0 with an ``UndefinedMetricWarning`` when there is no true nor predicted
    positive.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted labels (bool, {0, 1} or {-1, +1}).
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative row weights, as scikit-learn's ``sample_weight``.

    Returns
    -------
    scalar array

    Examples
    --------
    >>> round(float(f1_score([1, 0, 1, 1], [1, 1, 1, 0])), 4)
    0.6667
    """
    t, p, host = _checked(y_true, y_pred, sample_weight=sample_weight)
    if host and not (t.any() or p.any()):
        _warn("F-score is ill-defined and being set to 0.0 due to no true nor predicted samples.")
    return _f1(*_masked(t, p, host, sample_weight))


@_run_once
def _f1(t, p, w):
    tp, fp, _, fn = _counts(t, p, w)
    return _div(2 * tp, 2 * tp + fp + fn)


def balanced_accuracy(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None) -> jax.Array:
    """Mean of the recalls of both classes (scikit-learn's ``balanced_accuracy_score``).

    A class absent from ``y_true`` is left out of the mean (with scikit-learn's warning when ``y_pred`` holds it).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted labels (bool, {0, 1} or {-1, +1}).
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative row weights, as scikit-learn's ``sample_weight``.

    Returns
    -------
    scalar array

    Examples
    --------
    >>> round(float(balanced_accuracy([1, 1, 0, 0, 0], [1, 0, 0, 0, 1])), 4)
    0.5833
    """
    t, p, host = _checked(y_true, y_pred, sample_weight=sample_weight)
    if host and t.min() == t.max() and p.min() != p.max():
        _warn("y_pred contains classes not in y_true", UserWarning)
    return _balanced_accuracy(*_masked(t, p, host, sample_weight))


@_run_once
def _balanced_accuracy(t, p, w):
    tp, fp, tn, fn = _counts(t, p, w)
    has_p, has_n = (tp + fn) > 0, (tn + fp) > 0
    tpr, tnr = _div(tp, tp + fn), _div(tn, tn + fp)
    n_cls = has_p.astype(jnp.float32) + has_n.astype(jnp.float32)
    return _div(jnp.where(has_p, tpr, 0.0) + jnp.where(has_n, tnr, 0.0), n_cls)


@_run_once
def _mann_whitney(scores, a, b):
    r"""``P(score of an a-row > score of a b-row) + 1/2 P(tie)`` over the rows weighted by masks ``a`` and ``b``.

    Exact O(n log n) count: sort the scores, cumulate the ``b`` mass below each distinct score. 0 when either
    mask is empty.
    """
    x = jnp.asarray(scores).reshape(-1)
    a = jnp.asarray(a, jnp.float32).reshape(-1)
    b = jnp.asarray(b, jnp.float32).reshape(-1)
    order = jnp.argsort(x)
    xs = x[order]
    cb = jnp.concatenate([jnp.zeros((1,), jnp.float32), jnp.cumsum(b[order])])
    lo = jnp.searchsorted(xs, x, side="left")
    hi = jnp.searchsorted(xs, x, side="right")
    below, tied = cb[lo], cb[hi] - cb[lo]
    n_a, n_b = jnp.sum(a), jnp.sum(b)
    return _div(jnp.sum(a * (below + 0.5 * tied)), n_a * n_b)


def roc_auc(y_true: ArrayLike, y_score: ArrayLike, *, sample_weight: ArrayLike | None = None) -> jax.Array:
    r"""Area under the ROC curve: ``P(score of a positive > score of a negative) + 1/2 P(tie)``.

    Exact Mann-Whitney count in O(n log n) (scikit-learn's ``roc_auc_score``, binary case). With one class in
    ``y_true`` it is undefined: NaN with an ``UndefinedMetricWarning``, as in scikit-learn.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels (bool, {0, 1} or {-1, +1}).
    y_score : array-like of shape (n_samples,)
        Real scores, greater meaning more positive (e.g. ``decision_function(X)``).
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative row weights, as scikit-learn's ``sample_weight``.

    Returns
    -------
    scalar array

    References
    ----------
    Hanley & McNeil (1982), Radiology 143(1): AUC = Mann-Whitney U / (n_pos n_neg).

    Examples
    --------
    >>> round(float(roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])), 4)
    0.75
    """
    t, x, host = _checked(y_true, y_score, scores=True, sample_weight=sample_weight)
    if host and t.min() == t.max():
        _warn("Only one class is present in y_true. ROC AUC score is not defined in that case.")
    return _roc_auc(*_masked(t, x, host, sample_weight))


@_run_once
def _roc_auc(t, x, w):
    pos, neg = _labels(t) * w, (1.0 - _labels(t)) * w
    auc = _mann_whitney(x, pos, neg)
    return jnp.where((jnp.sum(pos) > 0) & (jnp.sum(neg) > 0), auc, jnp.nan)


def average_precision(y_true: ArrayLike, y_score: ArrayLike, *, sample_weight: ArrayLike | None = None) -> jax.Array:
    r"""Area under the precision-recall curve as scikit-learn's ``average_precision_score``.

    ``AP = sum_k (R_k - R_{k-1}) P_k`` over distinct thresholds: the mean, over positives, of the precision at
    the positive's own score (all rows with a score >= it predicted positive). 0 without positives (scikit-learn
    warns there too).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels (bool, {0, 1} or {-1, +1}).
    y_score : array-like of shape (n_samples,)
        Real scores, greater meaning more positive.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative row weights, as scikit-learn's ``sample_weight``.

    Returns
    -------
    scalar array

    Examples
    --------
    >>> round(float(average_precision([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])), 4)
    0.8333
    """
    t, x, host = _checked(y_true, y_score, scores=True, sample_weight=sample_weight)
    if host and not t.any():
        _warn("No positive class found in y_true, recall is set to one for all thresholds.", UserWarning)
    return _average_precision(*_masked(t, x, host, sample_weight))


@_run_once
def _average_precision(t, x, w):
    t = _labels(t) * w
    x = jnp.asarray(x).reshape(-1)
    order = jnp.argsort(x)
    zero = jnp.zeros((1,), jnp.float32)
    cpos = jnp.concatenate([zero, jnp.cumsum(t[order])])
    cw = jnp.concatenate([zero, jnp.cumsum(w[order])])
    lo = jnp.searchsorted(x[order], x, side="left")
    n_pos = jnp.sum(t)
    at_or_above = jnp.sum(w) - cw[lo]
    prec = (n_pos - cpos[lo]) / jnp.maximum(at_or_above, 1.0)
    return _div(jnp.sum(t * prec), n_pos)
